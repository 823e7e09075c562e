/* test_smt.c - the Z3 encoding (smt.h): each semantic rule's edge cases
 * proven equal to exact constants on small assembled programs, with the
 * exact verdict asserted; guards, phis, loops and their unwinding markers,
 * the stack, the flat memory, the frame axioms, timeouts and Z3 errors.
 */
#include "asm.h"
#include "pipeline.h"
#include "smt.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MEM_ADDR 0x100000000ull

struct run {
	struct arena *a;
	struct smt *s;
	struct ssa_prog *p;
	struct smt_prog *e;
	Z3_ast r[6];          /* r1..r5 as the program saw them */
};

/* Assemble TEXT, lift with loop BOUND, encode. With MEM, r1 = MEM_ADDR
 * whose bytes are MEM and r2 = N. */
static void run_open(struct run *t, const char *text, unsigned bound,
		     const uint8_t *mem, size_t n)
{
	struct bpf_insn raw[256];
	struct insn insns[256];
	struct ssa_opts o = { .loop_bound = bound };
	struct smt_input in = {0};
	struct diag d = {0};
	char err[256];
	int nslots = asm_assemble(text, raw, 256, err, sizeof(err));
	const char *bad;
	int i;

	ck_assert_msg(nslots > 0, "asm: %s", err);
	ck_assert_int_eq(insn_decode(raw, (uint32_t)nslots, insns, "test", "code", &d), 0);
	t->a = arena_new();
	ck_assert_int_eq(ssa_build_code(insns, (uint32_t)nslots, &o, t->a, &d, &t->p), 0);
	ck_assert_msg(!t->p->unsupported, "unsupported: %s", t->p->unsupported);
	bad = ssa_verify(t->p);
	ck_assert_msg(!bad, "ssa_verify: %s", bad);
	t->s = smt_new();
	ck_assert_ptr_nonnull(t->s);
	if (mem) {
		in.reg[1] = smt_bv64(t->s, MEM_ADDR);
		in.reg[2] = smt_bv64(t->s, n);
	}
	ck_assert_int_eq(smt_encode(t->s, t->p, &in, t->a, &t->e), 0);
	if (mem)
		smt_assume_bytes(t->s, t->e, MEM_ADDR, mem, n);
	for (i = 1; i <= 5; i++)
		t->r[i] = t->e->input[i];
}

static void run_close(struct run *t)
{
	ck_assert_msg(!smt_error(t->s), "%s", smt_error(t->s));
	smt_free(t->s);
	arena_free(t->a);
}

static enum smt_verdict prove(struct run *t, Z3_ast claim)
{
	struct smt_result r;

	ck_assert_int_eq(smt_prove(t->s, claim, 10000, &r), 0);
	smt_release(t->s, &r);
	return r.verdict;
}

/* An exit is reachable, no unwinding marker is, and r0 == WANT on every
 * exit; r0 == WANT + 1 is violated. */
static void check_r0_mem(const char *text, uint64_t want, const uint8_t *mem, size_t n)
{
	struct run t;
	struct smt_result r;
	uint64_t got = 0;

	run_open(&t, text, 0, mem, n);
	ck_assert_int_eq(prove(&t, smt_not(t.s, t.e->reach_unwind)), SMT_HOLDS);
	ck_assert_int_eq(prove(&t, smt_not(t.s, t.e->reach_exit)), SMT_VIOLATED);
	ck_assert_int_eq(smt_prove(t.s, smt_implies(t.s, t.e->reach_exit,
						    smt_eq(t.s, t.e->result, smt_bv64(t.s, want))),
				   10000, &r), 0);
	if (r.verdict == SMT_VIOLATED)
		smt_eval_u64(t.s, r.model, t.e->result, &got);
	ck_assert_msg(r.verdict == SMT_HOLDS, "%s: %s (r0 = %#llx), want %#llx", text,
		      smt_verdict_name(r.verdict), (unsigned long long)got,
		      (unsigned long long)want);
	smt_release(t.s, &r);
	/* the wrong value: a counterexample that shows the right one */
	ck_assert_int_eq(smt_prove(t.s, smt_implies(t.s, t.e->reach_exit,
						    smt_eq(t.s, t.e->result, smt_bv64(t.s, want + 1))),
				   10000, &r), 0);
	ck_assert_int_eq(r.verdict, SMT_VIOLATED);
	ck_assert_int_eq(smt_eval_u64(t.s, r.model, t.e->result, &got), 0);
	ck_assert_msg(got == want, "model r0 = %#llx, want %#llx",
		      (unsigned long long)got, (unsigned long long)want);
	smt_release(t.s, &r);
	run_close(&t);
}

static void check_r0(const char *text, uint64_t want)
{
	check_r0_mem(text, want, NULL, 0);
}

START_TEST(div_mod_by_zero)
{
	check_r0("mov %r0, 7\nmov %r1, 0\ndiv %r0, %r1\nexit", 0);
	check_r0("lddw %r0, 0x100000007\nmov %r1, 0\ndiv32 %r0, %r1\nexit", 0);
	check_r0("mov %r0, 7\ndiv %r0, 0\nexit", 0);
	check_r0("lddw %r0, 0x123456789\nmov %r1, 0\nmod %r0, %r1\nexit", 0x123456789);
	/* 32-bit: dst unchanged but zero-extended */
	check_r0("lddw %r0, 0x123456789\nmov %r1, 0\nmod32 %r0, %r1\nexit", 0x23456789);
	/* the divisor's high half is ignored by the 32-bit forms */
	check_r0("mov %r0, 9\nlddw %r1, 0x100000000\ndiv32 %r0, %r1\nexit", 0);
	check_r0("mov %r0, 9\nlddw %r1, 0x100000002\ndiv32 %r0, %r1\nexit", 4);
	check_r0("mov %r0, -1\nmov %r1, 10\ndiv %r0, %r1\nexit", 0x1999999999999999ull);
	check_r0("mov %r0, -1\nmov %r1, 10\nmod %r0, %r1\nexit", 5);
}
END_TEST

START_TEST(signed_div_mod)
{
	check_r0("lddw %r0, 0x8000000000000000\nmov %r1, -1\nsdiv %r0, %r1\nexit",
		 0x8000000000000000ull);
	check_r0("mov32 %r0, 0x80000000\nmov32 %r1, -1\nsdiv32 %r0, %r1\nexit", 0x80000000);
	check_r0("lddw %r0, 0x8000000000000000\nmov %r1, -1\nsmod %r0, %r1\nexit", 0);
	check_r0("mov32 %r0, 0x80000000\nmov32 %r1, -1\nsmod32 %r0, %r1\nexit", 0);
	check_r0("mov %r0, -7\nmov %r1, 3\nsdiv %r0, %r1\nexit", (uint64_t)-2);
	check_r0("mov %r0, -7\nmov %r1, 3\nsmod %r0, %r1\nexit", (uint64_t)-1);
	check_r0("mov %r0, 7\nmov %r1, -3\nsmod %r0, %r1\nexit", 1);
	check_r0("mov %r0, -7\nmov %r1, 3\nsmod32 %r0, %r1\nexit", 0xffffffff);
	check_r0("mov %r0, -7\nmov %r1, 0\nsdiv %r0, %r1\nexit", 0);
	check_r0("mov %r0, -7\nmov %r1, 0\nsmod %r0, %r1\nexit", (uint64_t)-7);
	check_r0("mov %r0, -7\nmov %r1, 0\nsmod32 %r0, %r1\nexit", 0xfffffff9);
	check_r0("mov %r0, -7\nsdiv %r0, -2\nexit", 3);
}
END_TEST

START_TEST(shifts_are_masked)
{
	check_r0("mov %r0, 1\nmov %r1, 65\nlsh %r0, %r1\nexit", 2);
	check_r0("mov %r0, 1\nmov %r1, 33\nlsh32 %r0, %r1\nexit", 2);
	check_r0("mov %r0, -16\nmov %r1, 66\narsh %r0, %r1\nexit", (uint64_t)-4);
	check_r0("mov %r0, -16\nmov %r1, 66\nrsh %r0, %r1\nexit", 0x3ffffffffffffffcull);
	check_r0("mov32 %r0, 0x80000000\nmov %r1, 63\narsh32 %r0, %r1\nexit", 0xffffffff);
	check_r0("mov %r0, -1\nrsh32 %r0, 4\nexit", 0x0fffffff);
	check_r0("mov %r0, 1\nlsh32 %r0, 31\nexit", 0x80000000);
}
END_TEST

START_TEST(movsx_forms)
{
	check_r0("mov %r1, 0x180\nmovsx864 %r0, %r1\nexit", 0xffffffffffffff80ull);
	check_r0("mov %r1, 0x180\nmovsx832 %r0, %r1\nexit", 0xffffff80);
	check_r0("mov %r1, 0x18000\nmovsx1632 %r0, %r1\nexit", 0xffff8000);
	check_r0("mov %r1, 0x18000\nmovsx1664 %r0, %r1\nexit", 0xffffffffffff8000ull);
	check_r0("mov32 %r1, 0x80000000\nmovsx3264 %r0, %r1\nexit", 0xffffffff80000000ull);
	check_r0("mov %r1, 0x7f\nmovsx864 %r0, %r1\nexit", 0x7f);
}
END_TEST

START_TEST(byte_swaps)
{
	static const char *const pre = "lddw %r0, 0x1122334455667788\n";
	static const struct { const char *op; uint64_t want; } cases[] = {
		{ "be16", 0x8877 }, { "be32", 0x88776655 }, { "be64", 0x8877665544332211ull },
		{ "le16", 0x7788 }, { "le32", 0x55667788 }, { "le64", 0x1122334455667788ull },
		{ "bswap16", 0x8877 }, { "bswap32", 0x88776655 },
		{ "bswap64", 0x8877665544332211ull },
	};
	char text[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "%s%s %%r0\nexit", pre, cases[i].op);
		check_r0(text, cases[i].want);
	}
}
END_TEST

START_TEST(alu32_zero_extends)
{
	check_r0("lddw %r0, 0xffffffffffffffff\nadd32 %r0, 1\nexit", 0);
	check_r0("mov32 %r0, -1\nexit", 0xffffffff);
	check_r0("mov %r1, -1\nmov32 %r0, %r1\nexit", 0xffffffff);
	check_r0("mov %r0, 1\nneg32 %r0\nexit", 0xffffffff);
	check_r0("mov %r0, 1\nneg %r0\nexit", (uint64_t)-1);
	check_r0("lddw %r0, 0x1ffffffff\nmul32 %r0, 2\nexit", 0xfffffffe);
	check_r0("mov %r0, 0\nsub32 %r0, 1\nexit", 0xffffffff);
	check_r0("lddw %r0, 0xf0f0f0f0f0f0f0f0\nxor32 %r0, -1\nexit", 0x0f0f0f0f);
	check_r0("mov %r0, -1\nand32 %r0, -1\nexit", 0xffffffff);
}
END_TEST

START_TEST(jset_and_jumps)
{
	check_r0("mov %r0, 0\nmov %r1, 0x10\njset %r1, 0x11, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nmov %r1, 0x10\njset %r1, 0x01, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	/* JSET32 sees only the low halves */
	check_r0("mov %r0, 0\nlddw %r1, 0x100000000\njset32 %r1, %r1, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	check_r0("mov %r0, 0\nlddw %r1, 0x100000000\njset %r1, %r1, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	/* signed vs unsigned */
	check_r0("mov %r0, 0\nmov %r1, -1\njsgt %r1, 0, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	check_r0("mov %r0, 0\nmov %r1, -1\njgt %r1, 0, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nmov %r1, -1\njslt %r1, 0, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nmov %r1, -1\njsle %r1, -1, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nmov %r1, -2\njsge %r1, -1, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	check_r0("mov %r0, 0\nmov %r1, 1\njle %r1, -1, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nmov %r1, 1\njge %r1, -1, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	/* 32-bit compares on the low halves, signed */
	check_r0("mov %r0, 0\nmov32 %r1, -1\njslt32 %r1, 0, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nmov32 %r1, -1\njslt %r1, 0, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	check_r0("mov %r0, 0\nlddw %r1, 0x500000005\njeq32 %r1, 5, L\nexit\nL:\nmov %r0, 1\nexit", 1);
	check_r0("mov %r0, 0\nlddw %r1, 0x500000005\njeq %r1, 5, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	check_r0("mov %r0, 0\nmov %r1, 3\njne %r1, 3, L\nexit\nL:\nmov %r0, 1\nexit", 0);
	check_r0("mov %r0, 0\nmov %r1, 3\njlt %r1, 4, L\nexit\nL:\nmov %r0, 1\nexit", 1);
}
END_TEST

/* A loop of 10 iterations: its marker is reachable with bound 4 and not
 * with 64; the result only holds with the big bound. */
START_TEST(loop_unwinding)
{
	static const char *const text =
		"mov %r0, 0\nmov %r1, 10\nL:\nadd %r0, 3\nsub %r1, 1\njne %r1, 0, L\nexit";
	struct run t;

	run_open(&t, text, 4, NULL, 0);
	ck_assert_uint_ge(t.p->nunwind, 1);
	ck_assert_int_eq(prove(&t, smt_not(t.s, t.e->reach_unwind)), SMT_VIOLATED);
	/* no exit is reachable within 4 iterations */
	ck_assert_int_eq(prove(&t, smt_not(t.s, t.e->reach_exit)), SMT_HOLDS);
	run_close(&t);
	check_r0(text, 30);
	run_open(&t, text, 10, NULL, 0);
	ck_assert_int_eq(prove(&t, smt_not(t.s, t.e->reach_unwind)), SMT_HOLDS);
	run_close(&t);
}
END_TEST

/* r0 depends on the input r1 through a phi at the join. */
START_TEST(phi_at_join)
{
	struct run t;
	struct smt_result r;
	uint64_t r1 = 0;
	Z3_ast zero, is0;

	run_open(&t, "mov %r0, 5\njeq %r1, 0, +1\nmov %r0, 7\nexit", 0, NULL, 0);
	zero = smt_bv64(t.s, 0);
	is0 = smt_eq(t.s, t.r[1], zero);
	ck_assert_int_eq(prove(&t, smt_implies(t.s, is0, smt_eq(t.s, t.e->result, smt_bv64(t.s, 5)))),
			 SMT_HOLDS);
	ck_assert_int_eq(prove(&t, smt_implies(t.s, smt_not(t.s, is0),
					       smt_eq(t.s, t.e->result, smt_bv64(t.s, 7)))),
			 SMT_HOLDS);
	ck_assert_int_eq(smt_prove(t.s, smt_eq(t.s, t.e->result, smt_bv64(t.s, 5)), 10000, &r), 0);
	ck_assert_int_eq(r.verdict, SMT_VIOLATED);
	ck_assert_int_eq(smt_eval_u64(t.s, r.model, t.r[1], &r1), 0);
	ck_assert_uint_ne(r1, 0);
	smt_release(t.s, &r);
	run_close(&t);
	/* a phi of a stack slot */
	check_r0("mov %r1, 0\nstdw [%r10-8], 1\njeq %r1, 0, +1\nstdw [%r10-8], 2\n"
		 "ldxdw %r0, [%r10-8]\nexit", 1);
}
END_TEST

START_TEST(stack_spill_fill)
{
	check_r0("mov %r1, 42\nstxdw [%r10-8], %r1\nstw [%r10-12], 7\nldxdw %r0, [%r10-8]\n"
		 "ldxw %r2, [%r10-12]\nadd %r0, %r2\nexit", 49);
	check_r0("lddw %r1, 0x1122334455667788\nstxdw [%r10-8], %r1\nstb [%r10-7], 0\n"
		 "ldxdw %r0, [%r10-8]\nexit", 0x1122334455660088ull);
	check_r0("lddw %r1, 0x1122334455667788\nstxdw [%r10-8], %r1\nldxh %r0, [%r10-6]\nexit",
		 0x5566);
	check_r0("mov %r1, 0x80\nstxb [%r10-1], %r1\nldxsb %r0, [%r10-1]\nexit",
		 0xffffffffffffff80ull);
	check_r0("mov32 %r1, 0x80000000\nstxw [%r10-4], %r1\nldxsw %r0, [%r10-4]\nexit",
		 0xffffffff80000000ull);
	/* a pointer into the stack, moved and offset */
	check_r0("mov %r1, %r10\nadd %r1, -16\nstdw [%r1+8], 5\nldxdw %r0, [%r10-8]\nexit", 5);
	/* stack atomics: fetch, cmpxchg32 zero-extends r0 */
	check_r0("stdw [%r10-8], 10\nmov %r1, 5\nlock fetch add [%r10-8], %r1\n"
		 "ldxdw %r0, [%r10-8]\nadd %r0, %r1\nexit", 25);
	check_r0("lddw %r1, 0x123456789abcdef0\nstxdw [%r10-8], %r1\nmov32 %r0, 0x9abcdef0\n"
		 "mov %r1, 7\nlock cmpxchg32 [%r10-8], %r1\nldxdw %r1, [%r10-8]\nadd %r0, %r1\nexit",
		 0x1234567800000007ull + 0x9abcdef0ull);
}
END_TEST

/* Stack access at a variable offset (the index comes from memory, so the
 * lift cannot know it): loads and stores through SLOTLOAD / SLOTSTORE, also
 * a store spanning two slots. */
START_TEST(stack_variable_offset)
{
	static const uint8_t three[] = { 3 }, five[] = { 5 };
	static const char prologue[] =
		"ldxb %r3, [%r1+0]\nand %r3, 7\n"
		"lddw %r4, 0x0807060504030201\nstxdw [%r10-16], %r4\n"
		"lddw %r4, 0x100f0e0d0c0b0a09\nstxdw [%r10-8], %r4\n"
		"mov %r2, %r10\nadd %r2, -16\nadd %r2, %r3\n";
	char text[1024];

	snprintf(text, sizeof(text), "%s%s", prologue,
		 "ldxb %r0, [%r2+0]\nmov %r5, 0xff\nstxb [%r2+6], %r5\n"
		 "ldxdw %r6, [%r10-8]\nadd %r0, %r6\nexit");
	check_r0_mem(text, 0x100f0e0d0c0bff0dull, three, sizeof(three));
	snprintf(text, sizeof(text), "%s%s", prologue,
		 "lddw %r4, 0xaabbccddeeff1122\nstxdw [%r2+0], %r4\n"
		 "ldxdw %r0, [%r10-16]\nldxdw %r6, [%r10-8]\nxor %r0, %r6\nexit");
	check_r0_mem(text, 0xef1e2cafbfcfdfefull, five, sizeof(five));
}
END_TEST

START_TEST(flat_memory)
{
	static const uint8_t mem[8] = { 1, 2, 3, 4, 5, 6, 0x80, 0xff };

	check_r0_mem("ldxw %r0, [%r1+2]\nexit", 0x06050403, mem, 8);
	check_r0_mem("ldxdw %r0, [%r1]\nexit", 0xff80060504030201ull, mem, 8);
	check_r0_mem("ldxsb %r0, [%r1+6]\nexit", 0xffffffffffffff80ull, mem, 8);
	check_r0_mem("ldxsh %r0, [%r1+6]\nexit", 0xffffffffffffff80ull, mem, 8);
	check_r0_mem("mov %r0, %r2\nexit", 8, mem, 8);
	check_r0_mem("stw [%r1], 0x11223344\nldxh %r0, [%r1+1]\nexit", 0x2233, mem, 8);
	check_r0_mem("mov %r3, -1\nstxb [%r1+1], %r3\nldxw %r0, [%r1]\nexit", 0x0403ff01, mem, 8);
	/* a store on one path only: the memory at the join is an ite */
	check_r0_mem("mov %r3, 0\njeq %r2, 0, +1\nstb [%r1], 9\nldxb %r0, [%r1]\nexit", 9, mem, 8);
	check_r0_mem("mov %r3, 0\njne %r2, 0, +1\nstb [%r1], 9\nldxb %r0, [%r1]\nexit", 1, mem, 8);
	/* atomics through memory */
	check_r0_mem("mov %r3, 0x10\nlock fetch add [%r1], %r3\nldxb %r0, [%r1]\nand %r3, 0xff\nadd %r0, %r3\nexit",
		     0x11 + 1, mem, 8);
	check_r0_mem("mov %r3, -1\nlock fetch or32 [%r1], %r3\nldxdw %r0, [%r1]\nexit",
		     0xff800605ffffffffull, mem, 8);
	check_r0_mem("mov %r3, 0\nlock fetch and32 [%r1+4], %r3\nmov %r0, %r3\nexit",
		     0xff800605, mem, 8);
	check_r0_mem("mov %r3, 7\nlock xchg [%r1], %r3\nmov %r0, %r3\nexit",
		     0xff80060504030201ull, mem, 8);
	check_r0_mem("mov32 %r0, 0x04030201\nmov %r3, 0x55\nlock cmpxchg32 [%r1], %r3\n"
		     "ldxw %r3, [%r1]\nlsh %r3, 32\nor %r0, %r3\nexit", 0x0000005504030201ull, mem, 8);
	check_r0_mem("mov32 %r0, 0\nmov %r3, 0x55\nlock cmpxchg [%r1], %r3\nexit",
		     0xff80060504030201ull, mem, 8);
}
END_TEST

START_TEST(frame_and_inputs)
{
	struct run t;
	Z3_context c;

	run_open(&t, "mov %r0, %r10\nexit", 0, NULL, 0);
	c = smt_ctx(t.s);
	ck_assert_int_eq(prove(&t, smt_eq(t.s, Z3_mk_bvand(c, t.e->result, smt_bv64(t.s, 7)),
					  smt_bv64(t.s, 0))), SMT_HOLDS);
	ck_assert_int_eq(prove(&t, Z3_mk_bvuge(c, t.e->result,
					      smt_bv64(t.s, SMT_STACK_BASE + ISA_STACK_SIZE))),
			 SMT_HOLDS);
	/* its exact value is not fixed */
	ck_assert_int_eq(prove(&t, smt_eq(t.s, t.e->result,
					  smt_bv64(t.s, SMT_STACK_BASE + 4096))), SMT_VIOLATED);
	run_close(&t);
	/* undefined r3 is any value; r1 is free without a binding */
	run_open(&t, "mov %r0, %r1\nexit", 0, NULL, 0);
	ck_assert_int_eq(prove(&t, smt_eq(t.s, t.e->result, t.r[1])), SMT_HOLDS);
	ck_assert_int_eq(prove(&t, smt_eq(t.s, t.e->result, smt_bv64(t.s, 0))), SMT_VIOLATED);
	run_close(&t);
	/* a local call: inlined, its own frame, r6-r9 preserved */
	check_r0("mov %r6, 3\nmov %r1, 4\ncall local f\nadd %r0, %r6\nexit\n"
		 "f:\nmov %r6, 100\nmov %r0, %r1\nadd %r0, %r10\nsub %r0, %r10\nexit", 7);
	/* a helper's r0 is any value */
	run_open(&t, "call 7\nexit", 0, NULL, 0);
	ck_assert_int_eq(prove(&t, smt_eq(t.s, t.e->result, smt_bv64(t.s, 0))), SMT_VIOLATED);
	run_close(&t);
}
END_TEST

START_TEST(timeout_is_unknown)
{
	struct run t;
	struct smt_result r;
	Z3_context c;
	Z3_ast claim, one;

	/* "no non-trivial factors of a 62-bit semiprime": true but hard */
	run_open(&t, "mov %r0, %r1\nmul %r0, %r2\nexit", 0, NULL, 0);
	c = smt_ctx(t.s);
	one = smt_bv64(t.s, 1);
	claim = smt_not(t.s, smt_and(t.s, smt_and(t.s, Z3_mk_bvugt(c, t.r[1], one),
						 Z3_mk_bvult(c, t.r[1], smt_bv64(t.s, 1ull << 32))),
				     smt_and(t.s, Z3_mk_bvult(c, t.r[2], smt_bv64(t.s, 1ull << 32)),
					     smt_eq(t.s, t.e->result,
						    smt_bv64(t.s, 2147483647ull * 2147483629ull)))));
	ck_assert_int_eq(smt_prove(t.s, claim, 1, &r), 0);
	ck_assert_int_eq(r.verdict, SMT_UNKNOWN);
	ck_assert_ptr_null(r.model);
	ck_assert_msg(r.reason[0], "no reason");
	ck_assert_msg(strstr(r.reason, "timeout") || strstr(r.reason, "canceled"), "reason: %s", r.reason);
	smt_release(t.s, &r);
	run_close(&t);
}
END_TEST

START_TEST(z3_errors_are_recorded)
{
	struct smt *s = smt_new();
	struct smt_result r;
	Z3_ast bad;

	ck_assert_ptr_null(smt_error(s));
	bad = smt_eq(s, smt_bv64(s, 1), Z3_mk_true(smt_ctx(s)));  /* ill-sorted */
	ck_assert_ptr_nonnull(bad);
	ck_assert_ptr_nonnull(smt_error(s));
	ck_assert_int_eq(smt_prove(s, Z3_mk_true(smt_ctx(s)), 0, &r), -EIO);
	ck_assert_int_eq(r.verdict, SMT_UNKNOWN);
	smt_free(s);
}
END_TEST

static char **objects;
static int nobjects;

/* Every program of every example object encodes without a Z3 error, and
 * some exit is reachable (or the solver gives up): never a vacuous
 * encoding. */
START_TEST(examples_encode)
{
	int i;

	for (i = 0; i < nobjects; i++) {
		struct arena *a = arena_new();
		struct diag d = {0};
		struct loaded l;
		uint32_t f;

		ck_assert_msg(check_load(objects[i], a, &d, &l) == 0, "%s does not load", objects[i]);
		for (f = 0; f < l.o->nfuncs; f++) {
			struct ssa_prog *p = NULL;
			struct smt_prog *e = NULL;
			struct smt_result r;
			struct smt *s;

			if (!l.o->funcs[f].is_prog)
				continue;
			ck_assert_int_eq(ssa_build(l.o, (int)f, l.insns, NULL, a, &d, &p), 0);
			if (p->unsupported)
				continue;
			s = smt_new();
			ck_assert_int_eq(smt_encode(s, p, NULL, a, &e), 0);
			ck_assert_int_eq(smt_prove(s, smt_not(s, e->reach_exit), 10000, &r), 0);
			ck_assert_msg(r.verdict != SMT_HOLDS, "%s: %s: no exit reachable",
				      objects[i], l.o->funcs[f].name);
			smt_release(s, &r);
			ck_assert_msg(!smt_error(s), "%s", smt_error(s));
			smt_free(s);
		}
		check_unload(&l);
		arena_free(a);
	}
}
END_TEST

int main(int argc, char **argv)
{
	Suite *su = suite_create("smt");
	TCase *tc = tcase_create("encode");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, div_mod_by_zero);
	tcase_add_test(tc, signed_div_mod);
	tcase_add_test(tc, shifts_are_masked);
	tcase_add_test(tc, movsx_forms);
	tcase_add_test(tc, byte_swaps);
	tcase_add_test(tc, alu32_zero_extends);
	tcase_add_test(tc, jset_and_jumps);
	tcase_add_test(tc, loop_unwinding);
	tcase_add_test(tc, phi_at_join);
	tcase_add_test(tc, stack_spill_fill);
	tcase_add_test(tc, flat_memory);
	tcase_add_test(tc, stack_variable_offset);
	tcase_add_test(tc, frame_and_inputs);
	tcase_add_test(tc, timeout_is_unknown);
	tcase_add_test(tc, z3_errors_are_recorded);
	objects = argv + 1;
	nobjects = argc - 1;
	tcase_add_test(tc, examples_encode);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
