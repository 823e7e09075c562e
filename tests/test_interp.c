/* test_interp.c - the concrete interpreter (interp.h): each semantic edge
 * case pinned to an exact value, faults with their slot and address, the
 * step limit and counting, calls and frames, and the environment hooks
 * (helpers adding regions, LD imm64 references, legacy packet loads).
 */
#include "asm.h"
#include "interp.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXSLOTS 512

/* One assembled, decoded program and an interpreter over it. */
struct prog {
	struct bpf_insn raw[MAXSLOTS];
	struct insn insns[MAXSLOTS];
	struct insn *secs[1];
	uint32_t nslots[1];
	struct interp ip;
	struct interp_result r;
};

static void prog_open(struct prog *p, const char *text,
		      const struct interp_env *env)
{
	struct diag d = {0};
	char err[256];
	int n = asm_assemble(text, p->raw, MAXSLOTS, err, sizeof(err));

	ck_assert_msg(n > 0, "asm: %s", err);
	ck_assert_int_eq(insn_decode(p->raw, (uint32_t)n, p->insns, "test",
				     "code", &d), 0);
	p->secs[0] = p->insns;
	p->nslots[0] = (uint32_t)n;
	ck_assert_int_eq(interp_init(&p->ip, p->secs, p->nslots, 1, env), 0);
}

static enum interp_status prog_run(struct prog *p, const uint64_t args[5])
{
	int st = interp_run(&p->ip, 0, 0, args, &p->r);

	ck_assert_int_ge(st, 0);
	return (enum interp_status)st;
}

/* Run TEXT without an environment; it must exit. Returns r0. */
static uint64_t run_r0(const char *text)
{
	struct prog *p = calloc(1, sizeof(*p));
	uint64_t r0;

	ck_assert_ptr_nonnull(p);
	prog_open(p, text, NULL);
	ck_assert_msg(prog_run(p, NULL) == INTERP_EXIT, "%s: %s",
		      interp_status_name(p->r.status), p->r.msg);
	r0 = p->r.r0;
	interp_fini(&p->ip);
	free(p);
	return r0;
}

/* r0 after "PRE\n OP\n exit" */
#define R0(text) run_r0(text "\nexit\n")
#define EQ(text, want) ck_assert_uint_eq(R0(text), (uint64_t)(want))

/* ---- ALU -------------------------------------------------------------- */

START_TEST(div_mod_by_zero)
{
	/* unsigned div by 0 = 0, mod by 0 = dst; K and X; 32 and 64 */
	EQ("lddw %r0, 0x1234567890\ndiv %r0, 0", 0);
	EQ("lddw %r0, 0x1234567890\nmov %r1, 0\ndiv %r0, %r1", 0);
	EQ("lddw %r0, 0x1234567890\ndiv32 %r0, 0", 0);
	EQ("lddw %r0, 0x1234567890\nmov %r1, 0\ndiv32 %r0, %r1", 0);
	EQ("lddw %r0, 0x1234567890\nmod %r0, 0", 0x1234567890ull);
	EQ("lddw %r0, 0x1234567890\nmov %r1, 0\nmod %r0, %r1", 0x1234567890ull);
	/* 32-bit mod by 0 leaves dst but still zero-extends it */
	EQ("lddw %r0, 0x1234567890\nmod32 %r0, 0", 0x34567890);
	EQ("lddw %r0, 0x1234567890\nmov %r1, 0\nmod32 %r0, %r1", 0x34567890);
	/* a divisor whose low 32 bits are 0 is zero for the 32-bit forms */
	EQ("mov %r0, 9\nlddw %r1, 0x100000000\ndiv32 %r0, %r1", 0);
	EQ("mov %r0, 9\nlddw %r1, 0x100000000\nmod32 %r0, %r1", 9);
	EQ("mov %r0, 9\nlddw %r1, 0x100000000\ndiv %r0, %r1", 0);
	/* signed forms by 0: sdiv 0, smod dst */
	EQ("mov %r0, -7\nsdiv %r0, 0", 0);
	EQ("mov %r0, -7\nsmod %r0, 0", (uint64_t)-7);
	EQ("mov %r0, -7\nmov %r1, 0\nsmod32 %r0, %r1", 0xfffffff9u);
	EQ("mov %r0, -7\nsdiv32 %r0, 0", 0);
	/* unsigned K divisors are sign-extended (64) or truncated (32) */
	EQ("mov %r0, 10\ndiv %r0, -1", 0);
	EQ("mov %r0, -1\ndiv %r0, -1", 1);
	EQ("mov %r0, 10\ndiv32 %r0, -1", 0);
	EQ("mov %r0, -1\nmod32 %r0, -2", 1);
}
END_TEST

START_TEST(signed_div_mod)
{
	/* INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0, both widths, K and X */
	EQ("lddw %r0, 0x8000000000000000\nsdiv %r0, -1", 0x8000000000000000ull);
	EQ("lddw %r0, 0x8000000000000000\nmov %r1, -1\nsdiv %r0, %r1",
	   0x8000000000000000ull);
	EQ("lddw %r0, 0x8000000000000000\nsmod %r0, -1", 0);
	EQ("lddw %r0, 0x8000000000000000\nmov %r1, -1\nsmod %r0, %r1", 0);
	EQ("mov32 %r0, 0x80000000\nsdiv32 %r0, -1", 0x80000000u);
	EQ("mov32 %r0, 0x80000000\nmov %r1, -1\nsdiv32 %r0, %r1", 0x80000000u);
	EQ("mov32 %r0, 0x80000000\nsmod32 %r0, -1", 0);
	EQ("mov32 %r0, 0x80000000\nmov %r1, -1\nsmod32 %r0, %r1", 0);
	/* the 32-bit forms ignore the upper halves of their operands */
	EQ("lddw %r0, 0x7fffffff80000000\nlddw %r1, 0x12345678ffffffff\n"
	   "sdiv32 %r0, %r1", 0x80000000u);
	/* C truncation; the remainder's sign follows the dividend */
	EQ("mov %r0, -7\nsdiv %r0, 2", (uint64_t)-3);
	EQ("mov %r0, -7\nsmod %r0, 2", (uint64_t)-1);
	EQ("mov %r0, 7\nsdiv %r0, -2", (uint64_t)-3);
	EQ("mov %r0, 7\nsmod %r0, -2", 1);
	EQ("mov %r0, -7\nmov %r1, -2\nsdiv %r0, %r1", 3);
	EQ("mov %r0, -7\nmov %r1, -2\nsmod %r0, %r1", (uint64_t)-1);
	EQ("mov %r0, -7\nsdiv32 %r0, 2", 0xfffffffdu);
	EQ("mov %r0, -7\nsmod32 %r0, 2", 0xffffffffu);
	EQ("mov %r0, 7\nsmod32 %r0, -2", 1);
	EQ("mov %r0, -7\nmov %r1, -2\nsmod32 %r0, %r1", 0xffffffffu);
	/* unsigned division of the same bits differs */
	EQ("mov %r0, -7\ndiv %r0, 2", 0x7ffffffffffffffcull);
}
END_TEST

START_TEST(shifts_masked)
{
	EQ("mov %r0, 1\nlsh %r0, 65", 2);
	EQ("mov %r0, 1\nmov %r1, 64\nlsh %r0, %r1", 1);
	EQ("mov %r0, 1\nlsh32 %r0, 33", 2);
	EQ("mov %r0, 1\nmov %r1, 32\nlsh32 %r0, %r1", 1);
	EQ("mov %r0, 1\nlsh32 %r0, 31", 0x80000000u);
	EQ("mov %r0, 1\nlsh32 %r0, 32\nlsh %r0, 32", 0x100000000ull);
	EQ("lddw %r0, 0x8000000000000000\nrsh %r0, 127", 1);
	EQ("mov32 %r0, 0x80000000\nrsh32 %r0, 63", 1);
	/* the amount is the low bits of a 64-bit register */
	EQ("mov %r0, 1\nlddw %r1, 0xffffffff00000003\nlsh %r0, %r1", 8);
	/* arsh32 uses bit 31 as the sign and zero-extends */
	EQ("mov32 %r0, 0x80000000\narsh32 %r0, 4", 0xf8000000u);
	EQ("mov32 %r0, 0x80000000\narsh32 %r0, 36", 0xf8000000u);
	EQ("lddw %r0, 0x0000000180000000\narsh32 %r0, 31", 0xffffffffu);
	EQ("mov32 %r0, 0x80000000\narsh %r0, 4", 0x08000000u);
	EQ("lddw %r0, 0x8000000000000000\narsh %r0, 68",
	   0xf800000000000000ull);
	EQ("mov %r0, -16\nmov %r1, 2\narsh %r0, %r1", (uint64_t)-4);
	EQ("mov32 %r0, 0x7fffffff\narsh32 %r0, 30", 1);
}
END_TEST

START_TEST(alu32_zero_extends)
{
	EQ("mov %r0, -1\nadd32 %r0, 1", 0);
	EQ("mov %r0, -1\nadd32 %r0, 0", 0xffffffffu);
	EQ("mov %r0, -1\nmov32 %r0, %r0", 0xffffffffu);
	EQ("mov %r0, 1\nneg32 %r0", 0xffffffffu);
	EQ("mov %r0, 1\nneg %r0", (uint64_t)-1);
	EQ("mov32 %r0, 0x80000000\nneg32 %r0", 0x80000000u);
	EQ("mov32 %r0, 0xffffffff\nmul32 %r0, 0xffffffff", 1);
	EQ("mov %r0, -1\nxor32 %r0, 0", 0xffffffffu);
	EQ("mov %r0, -1\nsub32 %r0, 1", 0xfffffffeu);
}
END_TEST

START_TEST(movsx_forms)
{
	EQ("mov %r1, 0x180\nmovsx864 %r0, %r1", 0xffffffffffffff80ull);
	EQ("mov %r1, 0x17f\nmovsx864 %r0, %r1", 0x7f);
	EQ("mov %r1, 0x18000\nmovsx1664 %r0, %r1", 0xffffffffffff8000ull);
	EQ("mov %r1, 0x17fff\nmovsx1664 %r0, %r1", 0x7fff);
	EQ("lddw %r1, 0x180000000\nmovsx3264 %r0, %r1", 0xffffffff80000000ull);
	EQ("lddw %r1, 0x17fffffff\nmovsx3264 %r0, %r1", 0x7fffffff);
	/* ALU32: sign-extend into 32 bits, then zero-extend */
	EQ("mov %r1, 0x180\nmovsx832 %r0, %r1", 0xffffff80u);
	EQ("mov %r1, 0x17f\nmovsx832 %r0, %r1", 0x7f);
	EQ("mov %r1, 0x18000\nmovsx1632 %r0, %r1", 0xffff8000u);
	EQ("mov %r1, -1\nmov %r0, 0\nmovsx1632 %r0, %r1", 0xffffffffu);
}
END_TEST

START_TEST(byte_swaps)
{
#define V "lddw %r0, 0x0123456789abcdef\n"
	EQ(V "le16 %r0", 0xcdef);
	EQ(V "le32 %r0", 0x89abcdef);
	EQ(V "le64 %r0", 0x0123456789abcdefull);
	EQ(V "be16 %r0", 0xefcd);
	EQ(V "be32 %r0", 0xefcdab89);
	EQ(V "be64 %r0", 0xefcdab8967452301ull);
	EQ(V "bswap16 %r0", 0xefcd);
	EQ(V "bswap32 %r0", 0xefcdab89);
	EQ(V "bswap64 %r0", 0xefcdab8967452301ull);
	EQ(V "swap64 %r0\nswap64 %r0", 0x0123456789abcdefull);
#undef V
}
END_TEST

/* ---- memory ----------------------------------------------------------- */

START_TEST(sign_extending_loads)
{
#define S "lddw %r1, 0x7fff8000ff80807f\nstxdw [%r10-8], %r1\n"
	EQ(S "ldxsb %r0, [%r10-8]", 0x7f);
	EQ(S "ldxsb %r0, [%r10-7]", 0xffffffffffffff80ull);
	EQ(S "ldxb %r0, [%r10-7]", 0x80);
	EQ(S "ldxsh %r0, [%r10-7]", 0xffffffffffff8080ull);
	EQ(S "ldxsh %r0, [%r10-6]", 0xffffffffffffff80ull);
	EQ(S "ldxh %r0, [%r10-6]", 0xff80);
	EQ(S "ldxsh %r0, [%r10-8]", 0xffffffffffff807full);
	EQ(S "ldxsw %r0, [%r10-8]", 0xffffffffff80807full);
	EQ(S "ldxw %r0, [%r10-8]", 0xff80807full);
	EQ(S "ldxsw %r0, [%r10-4]", 0x7fff8000);
	EQ(S "ldxsw %r0, [%r10-6]", 0xffffffff8000ff80ull);
	EQ(S "ldxdw %r0, [%r10-8]", 0x7fff8000ff80807full);
	/* stores truncate; stdw sign-extends its immediate */
	EQ("stdw [%r10-8], -2\nldxdw %r0, [%r10-8]", (uint64_t)-2);
	EQ("stdw [%r10-8], -1\nsth [%r10-8], 0x1234\nldxdw %r0, [%r10-8]",
	   0xffffffffffff1234ull);
	EQ("stdw [%r10-8], 0\nlddw %r1, 0x1122334455667788\n"
	   "stxw [%r10-8], %r1\nldxdw %r0, [%r10-8]", 0x55667788);
#undef S
}
END_TEST

struct atomic_case {
	const char *op;       /* "add", "fetch add", "xchg", ... */
	bool is32;
	uint64_t mem, reg;    /* memory after, the src register after */
};

/* memory starts as M, the src register as S */
#define M 0xf0f0f0f00000000cull
#define S 0x0f0f0f0f0000000aull

static const struct atomic_case atomic_cases[] = {
	{ "add",       false, M + S,     S },
	{ "or",        false, M | S,     S },
	{ "and",       false, M & S,     S },
	{ "xor",       false, M ^ S,     S },
	{ "fetch add", false, M + S,     M },
	{ "fetch or",  false, M | S,     M },
	{ "fetch and", false, M & S,     M },
	{ "fetch xor", false, M ^ S,     M },
	{ "xchg",      false, S,         M },
	/* 32-bit: the low word of memory, the upper word untouched; the
	 * fetched old value is zero-extended */
	{ "add",       true,  0xf0f0f0f000000016ull, S },
	{ "or",        true,  0xf0f0f0f00000000eull, S },
	{ "and",       true,  0xf0f0f0f000000008ull, S },
	{ "xor",       true,  0xf0f0f0f000000006ull, S },
	{ "fetch add", true,  0xf0f0f0f000000016ull, 0xc },
	{ "fetch or",  true,  0xf0f0f0f00000000eull, 0xc },
	{ "fetch and", true,  0xf0f0f0f000000008ull, 0xc },
	{ "fetch xor", true,  0xf0f0f0f000000006ull, 0xc },
	{ "xchg",      true,  0xf0f0f0f00000000aull, 0xc },
};

START_TEST(atomics)
{
	const struct atomic_case *c = &atomic_cases[_i];
	char text[512];
	struct prog *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	snprintf(text, sizeof(text),
		 "lddw %%r2, 0x%llx\nstxdw [%%r10-16], %%r2\n"
		 "lddw %%r1, 0x%llx\nmov %%r0, 77\n"
		 "lock %s%s [%%r10-16], %%r1\n"
		 "mov %%r3, %%r0\nldxdw %%r0, [%%r10-16]\nexit\n",
		 M, S, c->op, c->is32 ? "32" : "");
	prog_open(p, text, NULL);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_EXIT);
	ck_assert_msg(p->r.r0 == c->mem, "lock %s%s: memory 0x%llx, want 0x%llx",
		      c->op, c->is32 ? "32" : "", (unsigned long long)p->r.r0,
		      (unsigned long long)c->mem);
	ck_assert_msg(p->ip.regs[1] == c->reg, "lock %s%s: src 0x%llx, want 0x%llx",
		      c->op, c->is32 ? "32" : "", (unsigned long long)p->ip.regs[1],
		      (unsigned long long)c->reg);
	ck_assert_uint_eq(p->ip.regs[3], 77);   /* r0 untouched */
	interp_fini(&p->ip);
	free(p);
}
END_TEST

#undef M
#undef S

START_TEST(cmpxchg)
{
#define C64 "lddw %r2, 0x1111222233334444\nstxdw [%r10-8], %r2\n" \
	    "lddw %r1, 0x5555666677778888\n"
	/* 64 success: memory = src, r0 = old */
	EQ(C64 "mov %r0, %r2\nlock cmpxchg [%r10-8], %r1\nldxdw %r0, [%r10-8]",
	   0x5555666677778888ull);
	EQ(C64 "mov %r0, %r2\nlock cmpxchg [%r10-8], %r1", 0x1111222233334444ull);
	/* 64 failure: memory unchanged, r0 = old */
	EQ(C64 "mov %r0, 1\nlock cmpxchg [%r10-8], %r1\nldxdw %r0, [%r10-8]",
	   0x1111222233334444ull);
	EQ(C64 "mov %r0, 1\nlock cmpxchg [%r10-8], %r1", 0x1111222233334444ull);
	/* 32 success: compares the low half of r0 only */
	EQ(C64 "lddw %r0, 0xdeadbeef33334444\nlock cmpxchg32 [%r10-8], %r1\n"
	   "ldxdw %r0, [%r10-8]", 0x1111222277778888ull);
	EQ(C64 "lddw %r0, 0xdeadbeef33334444\nlock cmpxchg32 [%r10-8], %r1",
	   0x33334444u);
	/* 32 failure: r0 = the zero-extended old low word */
	EQ(C64 "lddw %r0, 0x1111222200000000\nlock cmpxchg32 [%r10-8], %r1\n"
	   "ldxdw %r0, [%r10-8]", 0x1111222233334444ull);
	EQ(C64 "lddw %r0, 0x1111222200000000\nlock cmpxchg32 [%r10-8], %r1",
	   0x33334444u);
	/* src is not written */
	EQ(C64 "mov %r0, %r2\nlock cmpxchg [%r10-8], %r1\nmov %r0, %r1",
	   0x5555666677778888ull);
#undef C64
}
END_TEST

/* ---- jumps ------------------------------------------------------------ */

START_TEST(jmp32_low_halves)
{
#define J(setup, jmp) R0("mov %r0, 0\n" setup "\n" jmp ", yes\nexit\nyes:\nmov %r0, 1")
	ck_assert_uint_eq(J("lddw %r1, 0x100000005", "jeq32 %r1, 5"), 1);
	ck_assert_uint_eq(J("lddw %r1, 0x100000005", "jeq %r1, 5"), 0);
	ck_assert_uint_eq(J("lddw %r1, 0x100000005\nmov %r2, 5", "jeq32 %r1, %r2"), 1);
	ck_assert_uint_eq(J("lddw %r1, 0xffffffff00000001", "jgt32 %r1, 2"), 0);
	ck_assert_uint_eq(J("lddw %r1, 0xffffffff00000001", "jgt %r1, 2"), 1);
	ck_assert_uint_eq(J("lddw %r1, 0x80000000", "jsgt32 %r1, 0"), 0);
	ck_assert_uint_eq(J("lddw %r1, 0x80000000", "jsgt %r1, 0"), 1);
	ck_assert_uint_eq(J("lddw %r1, 0x80000000", "jslt32 %r1, 0"), 1);
	ck_assert_uint_eq(J("lddw %r1, 0x100000000", "jset32 %r1, -1"), 0);
	ck_assert_uint_eq(J("lddw %r1, 0x100000000", "jset %r1, -1"), 1);
	ck_assert_uint_eq(J("lddw %r1, 0x1ffffffff", "jne32 %r1, -1"), 0);
	/* the 64-bit K operand is the sign-extended imm */
	ck_assert_uint_eq(J("mov32 %r1, 0xffffffff", "jeq %r1, -1"), 0);
	ck_assert_uint_eq(J("mov %r1, -1", "jeq %r1, -1"), 1);
	ck_assert_uint_eq(J("mov %r1, -1\nmov %r2, 1", "jslt %r1, %r2"), 1);
	ck_assert_uint_eq(J("mov %r1, -1\nmov %r2, 1", "jlt %r1, %r2"), 0);
	ck_assert_uint_eq(J("mov %r1, 3", "jle32 %r1, 3"), 1);
	ck_assert_uint_eq(J("mov %r1, 3", "jsge32 %r1, 4"), 0);
	ck_assert_uint_eq(J("mov %r1, -4", "jsle32 %r1, -4"), 1);
	ck_assert_uint_eq(J("mov %r1, 3", "jge %r1, 3"), 1);
#undef J
}
END_TEST

START_TEST(gotol)
{
	/* gotol (ja32) takes its target from imm, forward and backward */
	EQ("mov %r0, 1\nja32 fwd\nmov %r0, 2\nexit\nfwd:\nadd %r0, 10", 11);
	EQ("mov %r0, 0\nja32 fwd\nback:\nadd %r0, 100\nexit\n"
	   "fwd:\nadd %r0, 1\nja32 back", 101);
	EQ("mov %r0, 5\nja +1\nmov %r0, 6", 5);
}
END_TEST

/* ---- faults and limits ------------------------------------------------ */

static struct prog *run_status_env(const char *text,
				   const struct interp_env *env,
				   enum interp_status want)
{
	struct prog *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	prog_open(p, text, env);
	ck_assert_msg(prog_run(p, NULL) == want, "got %s (%s), want %s",
		      interp_status_name(p->r.status), p->r.msg,
		      interp_status_name(want));
	return p;
}

static struct prog *run_status(const char *text, enum interp_status want)
{
	return run_status_env(text, NULL, want);
}

static void prog_close(struct prog *p)
{
	interp_fini(&p->ip);
	free(p);
}

START_TEST(load_outside_regions)
{
	struct prog *p;
	uint64_t top = INTERP_BASE(INTERP_MEM_STACK, 0) + 512;

	p = run_status("mov %r1, 0x1000\nmov %r0, 0\nldxw %r0, [%r1+4]\nexit",
		       INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 2);
	ck_assert_uint_eq(p->r.addr, 0x1004);
	ck_assert_uint_eq(p->r.size, 4);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "slot 2"));
	ck_assert_ptr_nonnull(strstr(p->r.msg, "0x1004"));
	prog_close(p);
	/* one past the top of the stack */
	p = run_status("ldxb %r0, [%r10+0]\nexit", INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 0);
	ck_assert_uint_eq(p->r.addr, top);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "outside region 'stack'"));
	prog_close(p);
	/* below the bottom, and an access crossing the top */
	p = run_status("mov %r0, 0\nldxdw %r0, [%r10-520]\nexit", INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 1);
	ck_assert_uint_eq(p->r.addr, top - 520);
	ck_assert_uint_eq(p->r.size, 8);
	prog_close(p);
	p = run_status("ldxdw %r0, [%r10-4]\nexit", INTERP_FAULT);
	ck_assert_uint_eq(p->r.addr, top - 4);
	prog_close(p);
	/* the last byte and the first byte are fine */
	EQ("stb [%r10-1], 7\nstb [%r10-512], 9\nldxb %r0, [%r10-1]\n"
	   "ldxb %r1, [%r10-512]\nadd %r0, %r1", 16);
	/* address arithmetic wraps: no region at the top of the space */
	p = run_status("mov %r1, -1\nldxh %r0, [%r1+0]\nexit", INTERP_FAULT);
	ck_assert_uint_eq(p->r.addr, UINT64_MAX);
	prog_close(p);
}
END_TEST

START_TEST(store_read_only)
{
	struct prog *p = calloc(1, sizeof(*p));
	uint8_t ro[16] = { 0x2a };
	uint64_t args[5] = {0};
	int i;

	ck_assert_ptr_nonnull(p);
	prog_open(p, "ldxb %r0, [%r1+0]\nstb [%r1+1], 5\nexit", NULL);
	i = interp_add_region(&p->ip, INTERP_MEM_GLOBAL, ".rodata", 0,
			      sizeof(ro), ro, false);
	ck_assert_int_eq(i, INTERP_MAX_FRAMES);
	args[0] = interp_region(&p->ip, i)->base;
	ck_assert_uint_eq(args[0], INTERP_BASE(INTERP_MEM_GLOBAL, 8));
	ck_assert_int_eq(prog_run(p, args), INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 1);
	ck_assert_uint_eq(p->r.addr, args[0] + 1);
	ck_assert_uint_eq(p->r.size, 1);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "read-only"));
	ck_assert_ptr_nonnull(strstr(p->r.msg, ".rodata"));
	ck_assert_uint_eq(ro[1], 0);
	ck_assert_uint_eq(p->ip.regs[0], 0x2a);  /* the load went through */
	interp_fini(&p->ip);
	/* atomics need a writable region too */
	prog_open(p, "mov %r2, 1\nlock add [%r1+0], %r2\nexit", NULL);
	i = interp_add_region(&p->ip, INTERP_MEM_GLOBAL, ".rodata", 0,
			      sizeof(ro), ro, false);
	args[0] = interp_region(&p->ip, i)->base;
	ck_assert_int_eq(prog_run(p, args), INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 1);
	ck_assert_uint_eq(ro[0], 0x2a);
	interp_fini(&p->ip);
	free(p);
}
END_TEST

START_TEST(regions_api)
{
	struct prog *p = calloc(1, sizeof(*p));
	uint8_t buf[32];
	int a, b;

	ck_assert_ptr_nonnull(p);
	prog_open(p, "exit", NULL);
	ck_assert_int_eq(interp_nregions(&p->ip), INTERP_MAX_FRAMES);
	a = interp_add_region(&p->ip, INTERP_MEM_USER, "u", 0x5000, 32, buf, true);
	ck_assert_int_eq(a, 8);
	/* overlapping, empty or too large regions are refused */
	ck_assert_int_eq(interp_add_region(&p->ip, INTERP_MEM_USER, "v",
					   0x501f, 8, NULL, true), -EINVAL);
	ck_assert_int_eq(interp_add_region(&p->ip, INTERP_MEM_USER, "v", 0,
					   0, NULL, true), -EINVAL);
	b = interp_add_region(&p->ip, INTERP_MEM_USER, "v", 0x5020, 8, NULL, true);
	ck_assert_int_eq(b, 9);
	ck_assert_int_eq(interp_region_at(&p->ip, 0x501f, 1), a);
	ck_assert_int_eq(interp_region_at(&p->ip, 0x501f, 2), -1);
	ck_assert_int_eq(interp_region_at(&p->ip, 0x5020, 8), b);
	ck_assert_ptr_eq(interp_mem(&p->ip, 0x5004, 4, true), buf + 4);
	ck_assert_ptr_null(interp_mem(&p->ip, 0x4fff, 1, false));
	ck_assert_ptr_null(interp_region(&p->ip, 10));
	ck_assert_uint_eq(interp_region(&p->ip, 3)->base,
			  INTERP_BASE(INTERP_MEM_STACK, 3));
	/* bad entry points */
	ck_assert_int_eq(interp_run(&p->ip, 1, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(interp_run(&p->ip, 0, 1, NULL, NULL), -EINVAL);
	interp_fini(&p->ip);
	free(p);
}
END_TEST

static void count_insn(void *arg, int sec, uint32_t slot,
		       const uint64_t regs[ISA_NREGS])
{
	uint64_t *n = arg;

	(void)sec;
	(void)regs;
	n[0]++;
	n[1] += slot;
}

START_TEST(step_limit_and_counting)
{
	struct prog *p = calloc(1, sizeof(*p));
	uint64_t seen[2] = {0};
	struct interp_env env = { .arg = seen, .on_insn = count_insn };

	ck_assert_ptr_nonnull(p);
	prog_open(p, "mov %r0, 0\nloop:\nadd %r0, 1\nja loop\nexit", &env);
	p->ip.max_steps = 100;
	ck_assert_int_eq(prog_run(p, NULL), INTERP_STEP_LIMIT);
	ck_assert_uint_eq(p->r.steps, 100);
	ck_assert_uint_eq(seen[0], 100);
	ck_assert_uint_eq(p->ip.regs[0], 50);     /* 1 mov, 50 add, 49 ja */
	ck_assert_uint_eq(p->r.slot, 2);          /* the next one: a ja */
	interp_fini(&p->ip);
	/* LD imm64 counts once; exactly max_steps instructions may run */
	memset(seen, 0, sizeof(seen));
	prog_open(p, "lddw %r0, 0x123456789\nmov %r1, 1\nexit", &env);
	p->ip.max_steps = 3;
	ck_assert_int_eq(prog_run(p, NULL), INTERP_EXIT);
	ck_assert_uint_eq(p->r.steps, 3);
	ck_assert_uint_eq(seen[0], 3);
	ck_assert_uint_eq(seen[1], 0 + 2 + 3);    /* slots 0, 2, 3 */
	ck_assert_uint_eq(p->r.slot, 3);
	p->ip.max_steps = 2;
	ck_assert_int_eq(prog_run(p, NULL), INTERP_STEP_LIMIT);
	ck_assert_uint_eq(p->r.steps, 2);
	interp_fini(&p->ip);
	free(p);
}
END_TEST

START_TEST(malformed_code)
{
	struct prog *p;

	/* falling off the end, jumping out of the section */
	p = run_status("mov %r0, 1", INTERP_INVALID);
	ck_assert_uint_eq(p->r.slot, 0);
	prog_close(p);
	p = run_status("ja +5\nexit", INTERP_INVALID);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "outside the section"));
	prog_close(p);
	/* into the second slot of an LD imm64 */
	p = run_status("ja +1\nlddw %r0, 1\nexit", INTERP_INVALID);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "LD imm64"));
	prog_close(p);
	/* a call to an unknown helper without an environment */
	p = run_status("call 1\nexit", INTERP_UNSUPPORTED);
	prog_close(p);
	/* LD imm64 of a map without an environment */
	p = run_status(".raw 0x0000000000001118\n.raw 0\nexit", INTERP_UNSUPPORTED);
	prog_close(p);
}
END_TEST

/* ---- calls ------------------------------------------------------------ */

START_TEST(nested_calls_preserve)
{
	/* two levels: each callee clobbers r6-r9 and its own stack slot */
	const char *text =
		"mov %r6, 6\nmov %r7, 7\nmov %r8, 8\nmov %r9, 9\n"
		"stdw [%r10-8], 100\nmov %r1, 1\n"
		"call local f\n"
		"ldxdw %r1, [%r10-8]\n"      /* 100: own stack intact */
		"add %r0, %r1\n"             /* r0 = 100 + f(1) */
		"jne %r6, 6, bad\njne %r7, 7, bad\njne %r8, 8, bad\n"
		"jne %r9, 9, bad\nexit\n"
		"bad:\nmov %r0, -1\nexit\n"
		"f:\n"
		"ldxdw %r0, [%r10-8]\n"      /* a fresh, zeroed stack */
		"stdw [%r10-8], 200\n"
		"mov %r6, 60\nmov %r7, 70\nmov %r8, 80\nmov %r9, 90\n"
		"add %r1, 10\ncall local g\n"
		"jne %r6, 60, fbad\njne %r9, 90, fbad\n"
		"ldxdw %r2, [%r10-8]\nadd %r0, %r2\n"   /* + 200 */
		"exit\n"
		"fbad:\nmov %r0, -100\nexit\n"
		"g:\n"
		"mov %r6, 0\nmov %r7, 0\nmov %r8, 0\nmov %r9, 0\n"
		"stdw [%r10-8], 300\n"
		"mov %r0, %r1\nadd %r0, 1000\nexit\n";  /* 1011 */
	struct prog *p = run_status(text, INTERP_EXIT);

	/* g: 1011, f: 0 + 1011 + 200 = 1211, main: 100 + 1211 */
	ck_assert_uint_eq(p->r.r0, 1311);
	ck_assert_uint_eq(p->ip.regs[10], INTERP_BASE(INTERP_MEM_STACK, 0) + 512);
	ck_assert_uint_eq(p->r.depth, 1);
	prog_close(p);
	/* the callee sees r1-r5 as arguments, r10 is its own frame */
	EQ("mov %r1, 1\nmov %r5, 5\ncall local f\nexit\n"
	   "f:\nmov %r0, %r10\nsub %r0, %r1\nsub %r0, %r5",
	   INTERP_BASE(INTERP_MEM_STACK, 1) + 512 - 6);
}
END_TEST

START_TEST(calls_by_reference)
{
	/* an object's call: src=1 imm=-1, the target in insn.ref (here in
	 * another section); a kfunc call looks the same with a KFUNC ref */
	struct bpf_insn raw0[8], raw1[8];
	struct insn s0[8], s1[8];
	struct insn *secs[2] = { s0, s1 };
	uint32_t n[2];
	struct diag d = {0};
	struct interp *ip = calloc(1, sizeof(*ip));
	struct interp_result r;
	char err[128];
	int k;

	ck_assert_ptr_nonnull(ip);
	k = asm_assemble("mov %r6, 5\n.raw 0xffffffff00001085\nadd %r0, %r6\nexit",
			 raw0, 8, err, sizeof(err));
	ck_assert_int_eq(k, 4);
	n[0] = 4;
	ck_assert_int_eq(asm_assemble("mov %r0, 10\nmov %r6, 0\nexit", raw1, 8,
				      err, sizeof(err)), 3);
	n[1] = 3;
	ck_assert_int_eq(insn_decode(raw0, n[0], s0, "t", "s0", &d), 0);
	ck_assert_int_eq(insn_decode(raw1, n[1], s1, "t", "s1", &d), 0);
	s0[1].ref.kind = INSN_REF_SUBPROG;
	s0[1].ref.sec = 1;
	s0[1].ref.target = 1;          /* skips "mov %r0, 10" */
	ck_assert_int_eq(interp_init(ip, secs, n, 2, NULL), 0);
	ck_assert_int_eq(interp_run(ip, 0, 0, NULL, &r), INTERP_EXIT);
	ck_assert_uint_eq(r.r0, 5);    /* r0 = 0 from the entry, + r6 */
	s0[1].ref.target = 0;
	ck_assert_int_eq(interp_run(ip, 0, 0, NULL, &r), INTERP_EXIT);
	ck_assert_uint_eq(r.r0, 15);
	/* the same slot as a kfunc: no environment, unsupported */
	s0[1].ref.kind = INSN_REF_KFUNC;
	ck_assert_int_eq(interp_run(ip, 0, 0, NULL, &r), INTERP_UNSUPPORTED);
	ck_assert_uint_eq(r.slot, 1);
	/* a reference outside the code */
	s0[1].ref.kind = INSN_REF_SUBPROG;
	s0[1].ref.sec = 2;
	ck_assert_int_eq(interp_run(ip, 0, 0, NULL, &r), INTERP_INVALID);
	interp_fini(ip);
	free(ip);
}
END_TEST

START_TEST(call_depth)
{
	struct prog *p;
	/* main + 7 nested calls = 8 frames: fine (the count in r1, the
	 * argument; r0 is the innermost callee's result) */
	EQ("mov %r1, 0\ncall local f1\nexit\n"
	   "f1:\nadd %r1, 1\ncall local f2\nexit\n"
	   "f2:\nadd %r1, 1\ncall local f3\nexit\n"
	   "f3:\nadd %r1, 1\ncall local f4\nexit\n"
	   "f4:\nadd %r1, 1\ncall local f5\nexit\n"
	   "f5:\nadd %r1, 1\ncall local f6\nexit\n"
	   "f6:\nadd %r1, 1\ncall local f7\nexit\n"
	   "f7:\nadd %r1, 1\nstdw [%r10-8], 1\nmov %r0, %r1", 7);
	/* unbounded recursion: the ninth frame faults */
	p = run_status("mov %r0, 9\nmov %r1, 0\ncall local f\nexit\n"
		       "f:\nadd %r1, 1\ncall local f\nexit", INTERP_FAULT);
	ck_assert_uint_eq(p->r.depth, INTERP_MAX_FRAMES);
	ck_assert_uint_eq(p->r.slot, 5);
	ck_assert_uint_eq(p->ip.regs[1], 7);      /* frames 2..8 added 1 */
	ck_assert_uint_eq(p->ip.regs[0], 0);      /* a callee's r0 starts at 0 */
	ck_assert_uint_eq(p->r.steps, 3 + 7 * 2);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "call depth"));
	prog_close(p);
	/* a callee's stack is dead after it returns */
	p = run_status("call local f\nldxdw %r0, [%r0-8]\nexit\n"
		       "f:\nstdw [%r10-8], 1\nmov %r0, %r10\nexit", INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 1);
	ck_assert_ptr_nonnull(strstr(p->r.msg, "dead"));
	prog_close(p);
}
END_TEST

/* ---- the environment -------------------------------------------------- */

struct map_env {
	int region;          /* the map value region, -1 until first lookup */
	uint8_t value[16];
	unsigned calls;
	uint64_t seen_id;
};

/* helper 1: "lookup" -> a pointer to the map value (a region added on the
 * first call, reused after); helper 2: fails the run; helper 3: exits */
static int map_call(void *arg, struct interp *ip, const struct insn *in,
		    int64_t id, const uint64_t args[5], uint64_t *ret)
{
	struct map_env *e = arg;

	(void)in;
	e->calls++;
	e->seen_id = (uint64_t)id;
	switch (id) {
	case 1:
		if (e->region < 0)
			e->region = interp_add_region(ip, INTERP_MEM_MAP_VALUE,
						      "counts", 0,
						      sizeof(e->value),
						      e->value, true);
		*ret = interp_region(ip, e->region)->base + args[0];
		return INTERP_CALL_OK;
	case 3:
		*ret = args[0] * 2;
		return INTERP_CALL_EXIT;
	default:
		interp_error(ip, INTERP_UNSUPPORTED, "helper %lld: no model",
			     (long long)id);
		return -1;
	}
}

static int map_lddw(void *arg, struct interp *ip, const struct insn *in,
		    uint64_t *value)
{
	(void)arg;
	(void)ip;
	*value = 0xabc000 + in->src;
	return 0;
}

START_TEST(helpers_add_regions)
{
	struct prog *p = calloc(1, sizeof(*p));
	struct map_env e = { .region = -1 };
	struct interp_env env = { .arg = &e, .call = map_call,
				  .lddw_value = map_lddw };

	ck_assert_ptr_nonnull(p);
	prog_open(p, "mov %r6, 1\nmov %r1, 4\ncall 1\nstw [%r0+0], 41\n"
		  "mov %r1, 0\ncall 1\nldxw %r2, [%r0+4]\nadd %r2, %r6\n"
		  "stxw [%r0+4], %r2\nmov %r0, %r2\nexit", &env);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_EXIT);
	ck_assert_uint_eq(p->r.r0, 42);
	ck_assert_uint_eq(e.calls, 2);
	ck_assert_uint_eq(e.value[4], 42);
	ck_assert_int_eq(interp_nregions(&p->ip), INTERP_MAX_FRAMES + 1);
	ck_assert_uint_eq(p->r.steps, 11);        /* a helper call is one step */
	/* the region persists across runs and is reused */
	e.value[0] = 0x99;
	ck_assert_int_eq(interp_run(&p->ip, 0, 0, NULL, &p->r), INTERP_EXIT);
	ck_assert_uint_eq(p->r.r0, 42);
	ck_assert_uint_eq(e.value[0], 0x99);
	ck_assert_int_eq(interp_nregions(&p->ip), INTERP_MAX_FRAMES + 1);
	interp_fini(&p->ip);
	/* a helper without a model, with the environment's message */
	prog_open(p, "call 2\nexit", &env);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_UNSUPPORTED);
	ck_assert_str_eq(p->r.msg, "helper 2: no model");
	interp_fini(&p->ip);
	/* a helper that ends the program; callx takes the id from dst */
	prog_open(p, "mov %r1, 21\nmov %r4, 3\ncall %r4\nmov %r0, 0\nexit", &env);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_EXIT);
	ck_assert_uint_eq(p->r.r0, 42);
	ck_assert_uint_eq(p->r.slot, 2);
	ck_assert_uint_eq(e.seen_id, 3);
	interp_fini(&p->ip);
	/* kfunc: src = 2, id = imm */
	prog_open(p, "call kfunc 77\nexit", &env);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_UNSUPPORTED);
	ck_assert_uint_eq(e.seen_id, 77);
	interp_fini(&p->ip);
	/* LD imm64 with a pseudo source asks the environment */
	prog_open(p, ".raw 0x0000000000002018\n.raw 0\nexit", &env);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_EXIT);
	ck_assert_uint_eq(p->r.r0, 0xabc002);
	interp_fini(&p->ip);
	free(p);
}
END_TEST

/* helper 9, a bpf_loop: calls the function at slot r2 with (i, r3) for
 * i < r1 until it returns non-zero; returns the number of calls */
static int loop_call(void *arg, struct interp *ip, const struct insn *in,
		     int64_t id, const uint64_t args[5], uint64_t *ret)
{
	uint64_t i, r = 0, cargs[5] = {0};

	(void)arg;
	(void)in;
	if (id != 9)
		return -1;
	for (i = 0; i < args[0] && r == 0; i++) {
		cargs[0] = i;
		cargs[1] = args[2];
		if (interp_invoke(ip, 0, (uint32_t)args[1], cargs, &r) < 0)
			return -1;
	}
	*ret = i;
	return INTERP_CALL_OK;
}

START_TEST(callbacks_invoke)
{
	/* slots: the callback starts at 15; its ctx (r2) points at the
	 * caller's r10-16: the stop index, then the sum at r10-8; it returns 1
	 * (stop) when i == the stop index */
#define LOOP_PROG(stop) \
		"mov %r6, 66\nstdw [%r10-8], 0\nstdw [%r10-16], " stop "\n" \
		"mov %r1, 5\nmov %r2, 15\nmov %r3, %r10\nadd %r3, -16\ncall 9\n" \
		"ldxdw %r1, [%r10-8]\nmul %r0, 100\nadd %r0, %r1\n" \
		"jne %r6, 66, bad\nexit\nbad:\nmov %r0, -1\nexit\n" \
		"cb:\nldxdw %r3, [%r2+8]\nadd %r3, %r1\nstxdw [%r2+8], %r3\n" \
		"ldxdw %r4, [%r2+0]\nmov %r6, 0\nmov %r0, 0\njne %r1, %r4, out\n" \
		"mov %r0, 1\nout:\nexit\n"
	static const char *text = LOOP_PROG("99");
	struct interp_env env = { .call = loop_call };
	struct prog *p = calloc(1, sizeof(*p));
	uint64_t args[5] = {0};

	ck_assert_ptr_nonnull(p);
	prog_open(p, text, &env);
	/* never stops early: 5 calls, sum 0..4; r6 survives the callbacks */
	ck_assert_int_eq(prog_run(p, args), INTERP_EXIT);
	ck_assert_uint_eq(p->r.r0, 510);
	ck_assert_uint_eq(p->r.steps, 13 + 5 * 8);
	ck_assert_uint_eq(p->r.depth, 1);
	interp_fini(&p->ip);
	/* stops at i == 2: 3 calls, sum 0..2 */
	prog_open(p, LOOP_PROG("2"), &env);
	ck_assert_int_eq(prog_run(p, args), INTERP_EXIT);
	ck_assert_uint_eq(p->r.r0, 303);
	ck_assert_uint_eq(p->r.steps, 13 + 3 * 8 + 1);
	interp_fini(&p->ip);
	free(p);
#undef LOOP_PROG
	/* outside a run interp_invoke refuses */
	p = calloc(1, sizeof(*p));
	ck_assert_ptr_nonnull(p);
	prog_open(p, text, &env);
	ck_assert_int_eq(interp_invoke(&p->ip, 0, 15, args, &args[0]), -EINVAL);
	interp_fini(&p->ip);
	free(p);
	/* a fault inside the callback ends the run there */
	p = run_status_env("mov %r1, 1\nmov %r2, 4\ncall 9\nexit\n"
			   "ldxb %r0, [%r2+0]\nexit", &env, INTERP_FAULT);
	ck_assert_uint_eq(p->r.slot, 4);
	ck_assert_uint_eq(p->r.depth, 2);
	prog_close(p);
}
END_TEST

/* The register file at each slot, as on_insn saw it last (r0-r9). */
struct snaps {
	uint64_t regs[64][10];
	bool seen[64];
};

static void snap_insn(void *arg, int sec, uint32_t slot, const uint64_t regs[ISA_NREGS])
{
	struct snaps *sn = arg;

	(void)sec;
	if (slot < 64) {
		memcpy(sn->regs[slot], regs, sizeof(sn->regs[slot]));
		sn->seen[slot] = true;
	}
}

/* helper 1: returns 42; helper 9: runs the callback at slot r2 once with
 * (7, r3); both with the snapshot hook's state as env->arg */
static int zero_call(void *arg, struct interp *ip, const struct insn *in,
		     int64_t id, const uint64_t args[5], uint64_t *ret)
{
	uint64_t cargs[5] = { 7, args[2], 0, 0, 0 };

	(void)arg;
	(void)in;
	if (id == 1) {
		*ret = 42;
		return INTERP_CALL_OK;
	}
	if (id != 9 || interp_invoke(ip, 0, (uint32_t)args[1], cargs, ret) < 0)
		return -1;
	return INTERP_CALL_OK;
}

#define REGS(sn, slot, ...) do { \
		const uint64_t want_[10] = { __VA_ARGS__ }; \
		unsigned r_; \
		ck_assert_msg((sn)->seen[slot], "slot %u not run", (unsigned)(slot)); \
		for (r_ = 0; r_ < 10; r_++) \
			ck_assert_msg((sn)->regs[slot][r_] == want_[r_], \
				      "slot %u: r%u = %llu, want %llu", (unsigned)(slot), r_, \
				      (unsigned long long)(sn)->regs[slot][r_], \
				      (unsigned long long)want_[r_]); \
	} while (0)

/* The registers the kernel's verifier marks NOT_INIT are 0: a callee's r0
 * and r6-r9 (also a callback's), r1-r5 after a helper call and after a
 * subprogram returns; the caller's r6-r9 are back after the return. */
START_TEST(undefined_registers_are_zero)
{
	static const char text[] =
		"mov %r0, 10\nmov %r1, 1\nmov %r2, 2\nmov %r3, 3\nmov %r4, 4\n"
		"mov %r5, 5\nmov %r6, 6\nmov %r7, 7\nmov %r8, 8\nmov %r9, 9\n"
		"call local f\n"                                    /* slot 10 */
		"mov %r1, 11\nmov %r2, 12\nmov %r3, 13\nmov %r4, 14\n" /* 11 */
		"mov %r5, 15\ncall 1\n"                             /* 16 */
		"mov %r1, 5\nmov %r2, 30\nmov %r3, 17\ncall 9\n"    /* 20 */
		"exit\n"                                            /* 21 */
		"f:\nmov %r6, 60\nmov %r7, 70\nmov %r8, 80\nmov %r9, 90\n" /* 22 */
		"mov %r1, 21\nmov %r5, 25\nmov %r0, 100\nexit\n"
		"cb:\nmov %r6, 61\nmov %r0, 3\nexit\n";            /* 30 */
	struct snaps *sn = calloc(1, sizeof(*sn));
	struct interp_env env = { .arg = sn, .call = zero_call, .on_insn = snap_insn };
	struct prog *p;

	ck_assert_ptr_nonnull(sn);
	p = run_status_env(text, &env, INTERP_EXIT);
	/* the callee's entry: its arguments, r0 and r6-r9 zero */
	REGS(sn, 22, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0);
	/* back in the caller: r0 the result, r1-r5 zero, r6-r9 the caller's */
	REGS(sn, 11, 100, 0, 0, 0, 0, 0, 6, 7, 8, 9);
	/* after the helper: r0 its result, r1-r5 zero, r6-r9 kept */
	REGS(sn, 17, 42, 0, 0, 0, 0, 0, 6, 7, 8, 9);
	/* the callback run by helper 9: (7, ctx), r0 and r6-r9 zero */
	REGS(sn, 30, 0, 7, 17, 0, 0, 0, 0, 0, 0, 0);
	/* after helper 9: its result (the callback's r0), r1-r5 zero, the
	 * caller's r6-r9 */
	REGS(sn, 21, 3, 0, 0, 0, 0, 0, 6, 7, 8, 9);
	ck_assert_uint_eq(p->r.r0, 3);
	ck_assert_uint_eq(p->r.steps, 22 + 8 + 3);
	ck_assert_uint_eq(p->ip.regs[10], INTERP_BASE(INTERP_MEM_STACK, 0) + 512);
	prog_close(p);
	free(sn);
}
END_TEST

START_TEST(legacy_packet_loads)
{
	struct prog *p = calloc(1, sizeof(*p));
	uint8_t pkt[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	static const struct { const char *text; enum interp_status st; uint64_t r0; } cases[] = {
		{ "ldabsb 1\nexit", INTERP_EXIT, 0x22 },
		{ "ldabsh 1\nexit", INTERP_EXIT, 0x2233 },
		{ "ldabsw 4\nexit", INTERP_EXIT, 0x55667788 },
		{ "mov %r7, 2\nldindw %r7, 2\nexit", INTERP_EXIT, 0x55667788 },
		{ "mov %r7, 7\nldindb %r7, 0\nexit", INTERP_EXIT, 0x88 },
		/* out of bounds: the program ends with r0 = 0 */
		{ "mov %r0, 5\nldabsw 5\nmov %r0, 9\nexit", INTERP_EXIT, 0 },
		{ "mov %r0, 5\nmov %r7, 8\nldindb %r7, 0\nmov %r0, 9\nexit",
		  INTERP_EXIT, 0 },
		{ "mov %r7, -3\nldindb %r7, 4\nexit", INTERP_EXIT, 0x22 },
		/* special negative offsets are not modelled */
		{ "ldabsb -4096\nexit", INTERP_UNSUPPORTED, 0 },
	};
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		prog_open(p, cases[i].text, NULL);
		ck_assert_int_ge(interp_add_region(&p->ip, INTERP_MEM_PACKET,
						   "pkt", 0, sizeof(pkt), pkt,
						   false), 0);
		ck_assert_msg(prog_run(p, NULL) == cases[i].st, "%s: %s",
			      cases[i].text, p->r.msg);
		if (cases[i].st == INTERP_EXIT)
			ck_assert_msg(p->r.r0 == cases[i].r0, "%s: r0 0x%llx",
				      cases[i].text,
				      (unsigned long long)p->r.r0);
		interp_fini(&p->ip);
	}
	/* no packet region */
	prog_open(p, "ldabsb 0\nexit", NULL);
	ck_assert_int_eq(prog_run(p, NULL), INTERP_UNSUPPORTED);
	interp_fini(&p->ip);
	free(p);
}
END_TEST

/* interp_track: every access marks the bytes it touches inside the
 * tracked window (loads, stores, atomics, legacy packet loads, host
 * pointers from interp_mem), nothing else is marked, and the window is
 * cleared when tracking starts. */
START_TEST(track_touched_bytes)
{
	struct prog *p = calloc(1, sizeof(*p));
	uint8_t mem[32] = { 0 }, pkt[16] = { 0 }, seen[24], pseen[16];
	uint64_t base = 0x100000, args[5] = { base, 0, 0, 0, 0 };
	unsigned i;

	ck_assert_ptr_nonnull(p);
	/* a load of [4, 8), a store of [10, 12), an atomic on [16, 24), a
	 * load at [28, 30) outside the window [2, 26); ldabs of pkt [3, 5) */
	prog_open(p, "ldxw %r2, [%r1+4]\nsth [%r1+10], 7\nmov %r3, 1\n"
		     "lock add [%r1+16], %r3\nldxh %r4, [%r1+28]\nldabsh 3\nexit", NULL);
	ck_assert_int_eq(interp_add_region(&p->ip, INTERP_MEM_USER, "m", base, sizeof(mem), mem, true),
			 8);
	ck_assert_int_eq(interp_add_region(&p->ip, INTERP_MEM_PACKET, "pkt", 0, sizeof(pkt), pkt,
					   false), 9);
	memset(seen, 0xee, sizeof(seen));
	memset(pseen, 0xee, sizeof(pseen));
	interp_track(&p->ip, 8, seen, 2, sizeof(seen));
	interp_track(&p->ip, 9, pseen, 0, sizeof(pseen));
	for (i = 0; i < sizeof(seen); i++)
		ck_assert_uint_eq(seen[i], 0);      /* cleared */
	ck_assert_int_eq(prog_run(p, args), INTERP_EXIT);
	for (i = 0; i < sizeof(seen); i++) {
		unsigned b = i + 2;
		bool want = (b >= 4 && b < 8) || (b >= 10 && b < 12) || (b >= 16 && b < 24);

		ck_assert_msg(seen[i] == want, "byte %u: %u", b, seen[i]);
	}
	for (i = 0; i < sizeof(pseen); i++)
		ck_assert_msg(pseen[i] == (i == 3 || i == 4), "packet byte %u: %u", i, pseen[i]);
	/* a host pointer handed out is a touch too (a helper reading it) */
	ck_assert_ptr_nonnull(interp_mem(&p->ip, base + 24, 4, false));
	ck_assert_uint_eq(seen[22], 1);
	ck_assert_uint_eq(seen[23], 1);
	ck_assert_uint_eq(seen[21], 1);             /* the atomic's last byte */
	ck_assert_ptr_null(interp_mem(&p->ip, base + 30, 4, false));   /* past the region */
	interp_fini(&p->ip);
	free(p);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("interp");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, div_mod_by_zero);
	tcase_add_test(tc, signed_div_mod);
	tcase_add_test(tc, shifts_masked);
	tcase_add_test(tc, alu32_zero_extends);
	tcase_add_test(tc, movsx_forms);
	tcase_add_test(tc, byte_swaps);
	tcase_add_test(tc, sign_extending_loads);
	tcase_add_loop_test(tc, atomics, 0, (int)ARRAY_SIZE(atomic_cases));
	tcase_add_test(tc, cmpxchg);
	tcase_add_test(tc, jmp32_low_halves);
	tcase_add_test(tc, gotol);
	tcase_add_test(tc, load_outside_regions);
	tcase_add_test(tc, store_read_only);
	tcase_add_test(tc, regions_api);
	tcase_add_test(tc, step_limit_and_counting);
	tcase_add_test(tc, malformed_code);
	tcase_add_test(tc, nested_calls_preserve);
	tcase_add_test(tc, calls_by_reference);
	tcase_add_test(tc, call_depth);
	tcase_add_test(tc, helpers_add_regions);
	tcase_add_test(tc, callbacks_invoke);
	tcase_add_test(tc, undefined_registers_are_zero);
	tcase_add_test(tc, legacy_packet_loads);
	tcase_add_test(tc, track_touched_bytes);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
