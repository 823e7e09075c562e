/* test_absint.c - the abstract-interpretation pre-pass (absint.h): exact
 * transfer results; a seeded random soundness check of every ALU op and
 * jump condition in both widths against a reference taken from interp.c's
 * rules; random programs lifted and walked, then run by the interpreter
 * (every concrete result inside the walk's abstract value at that exit;
 * every assert the walk proves true of every run); and lifted cases that
 * the walk must prove, or must not (each with a violating input). */
#include "absint.h"
#include "asm.h"
#include "interp.h"
#include "isa.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ck_assert in the hot loops: libcheck records every assertion's place
 * with a write(2), millions here; MUST only calls it on failure. */
#define MUST(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* interesting numbers: small, near the sign bits, random */
static uint64_t pick(void)
{
	switch (rnd() % 6) {
	case 0: return rnd() % 16;
	case 1: return (uint64_t)-(int64_t)(rnd() % 16);
	case 2: return 0x80000000ull + rnd() % 8 - 4;
	case 3: return 0x8000000000000000ull + rnd() % 8 - 4;
	case 4: return rnd() & 0xffffffffull;
	default: return rnd();
	}
}

static int64_t sv(uint64_t v, unsigned w)
{
	return w == 64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
}

/* the interpreter's rules (interp.c exec), independently written */
static uint64_t ref_alu(unsigned op, bool is64, uint64_t d, uint64_t s)
{
	unsigned w = is64 ? 64 : 32;
	uint64_t r;

	if (!is64) {
		d = (uint32_t)d;
		s = (uint32_t)s;
	}
	switch (op) {
	case ISA_ADD: r = d + s; break;
	case ISA_SUB: r = d - s; break;
	case ISA_MUL: r = d * s; break;
	case ISA_DIV: r = s ? d / s : 0; break;
	case ISA_MOD: r = s ? d % s : d; break;
	case ISA_SDIV: r = sv(s, w) == 0 ? 0 : sv(s, w) == -1 ? -(uint64_t)sv(d, w) :
			   (uint64_t)(sv(d, w) / sv(s, w)); break;
	case ISA_SMOD: r = sv(s, w) == 0 ? d : sv(s, w) == -1 ? 0 :
			   (uint64_t)(sv(d, w) % sv(s, w)); break;
	case ISA_OR: r = d | s; break;
	case ISA_AND: r = d & s; break;
	case ISA_XOR: r = d ^ s; break;
	case ISA_MOV: r = s; break;
	case ISA_LSH: r = d << (s & (w - 1)); break;
	case ISA_RSH: r = d >> (s & (w - 1)); break;
	default: r = (uint64_t)(sv(d, w) >> (s & (w - 1))); break;   /* ARSH */
	}
	return is64 ? r : (uint32_t)r;
}

static bool ref_cond(unsigned op, bool is64, uint64_t d, uint64_t s)
{
	unsigned w = is64 ? 64 : 32;

	if (!is64) {
		d = (uint32_t)d;
		s = (uint32_t)s;
	}
	switch (op) {
	case ISA_JEQ: return d == s;
	case ISA_JNE: return d != s;
	case ISA_JGT: return d > s;
	case ISA_JGE: return d >= s;
	case ISA_JLT: return d < s;
	case ISA_JLE: return d <= s;
	case ISA_JSET: return (d & s) != 0;
	case ISA_JSGT: return sv(d, w) > sv(s, w);
	case ISA_JSGE: return sv(d, w) >= sv(s, w);
	case ISA_JSLT: return sv(d, w) < sv(s, w);
	default: return sv(d, w) <= sv(s, w);
	}
}

static const unsigned alu_ops[] = { ISA_ADD, ISA_SUB, ISA_MUL, ISA_DIV, ISA_SDIV, ISA_OR,
				    ISA_AND, ISA_LSH, ISA_RSH, ISA_MOD, ISA_SMOD, ISA_XOR,
				    ISA_MOV, ISA_ARSH };
static const unsigned jmp_ops[] = { ISA_JEQ, ISA_JNE, ISA_JGT, ISA_JGE, ISA_JLT, ISA_JLE,
				    ISA_JSET, ISA_JSGT, ISA_JSGE, ISA_JSLT, ISA_JSLE };

/* an abstract value holding N random samples (their join) */
static struct absint_val sample(uint64_t *xs, unsigned n)
{
	struct absint_val a, c;
	unsigned i;

	xs[0] = pick();
	a = absint_const(xs[0]);
	for (i = 1; i < n; i++) {
		xs[i] = rnd() % 2 ? xs[0] + rnd() % 64 : pick();
		c = absint_const(xs[i]);
		a = absint_join(&a, &c);
	}
	MUST(absint_sync(&a), "sample: empty");
	return a;
}

START_TEST(random_alu_sound)
{
	uint64_t xs[4], ys[4];
	unsigned t, i, j, k;

	for (t = 0; t < 200000; t++) {
		unsigned op = alu_ops[rnd() % 14];
		bool is64 = rnd() % 2;
		struct absint_val a = sample(xs, 1 + rnd() % 4), b = sample(ys, 1 + rnd() % 4), r;

		r = absint_alu(op, is64, &a, &b);
		for (i = 0; i < 4; i++)
			for (j = 0; j < 4; j++) {
				uint64_t x = xs[i % 4], y = ys[j % 4], z = ref_alu(op, is64, x, y);

				if (!absint_contains(&a, x) || !absint_contains(&b, y))
					continue;
				if (!absint_contains(&r, z)) {
					char ba[200], bb[200], br[200];

					absint_format(&a, ba, sizeof(ba));
					absint_format(&b, bb, sizeof(bb));
					absint_format(&r, br, sizeof(br));
					ck_abort_msg("op %u is64 %d: %#llx op %#llx = %#llx not in %s (a %s, b %s)",
						     op, is64, (unsigned long long)x, (unsigned long long)y,
						     (unsigned long long)z, br, ba, bb);
				}
			}
		/* jump conditions and the refinement of both sides */
		op = jmp_ops[rnd() % 11];
		for (k = 0; k < 2; k++) {
			struct absint_val x = a, y = b;
			bool taken = k == 0, ok = absint_refine(op, is64, taken, &x, &y);
			int c = absint_cond(op, is64, &a, &b);

			for (i = 0; i < 4; i++)
				for (j = 0; j < 4; j++) {
					if (!absint_contains(&a, xs[i]) || !absint_contains(&b, ys[j]))
						continue;
					bool v = ref_cond(op, is64, xs[i], ys[j]);

					MUST(c < 0 || c == v, "cond %u is64 %d", op, is64);
					if (v != taken)
						continue;
					MUST(ok && absint_contains(&x, xs[i]) &&
						      absint_contains(&y, ys[j]),
						      "refine %u is64 %d taken %d: %#llx, %#llx lost", op,
						      is64, taken, (unsigned long long)xs[i],
						      (unsigned long long)ys[j]);
				}
		}
	}
}
END_TEST

START_TEST(random_unary_sound)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	uint64_t xs[4];
	unsigned t, i;

	for (t = 0; t < 100000; t++) {
		struct absint_val a = sample(xs, 1 + rnd() % 4), r;
		unsigned size = sizes[rnd() % 4], byte = (unsigned)(rnd() % (9 - size));
		bool sx = rnd() % 2;

		r = absint_extract(&a, byte, size, sx);
		for (i = 0; i < 4; i++) {
			uint64_t x = xs[i], z;

			if (!absint_contains(&a, x))
				continue;
			z = size == 8 ? x : (x >> (8 * byte)) & ((1ull << (8 * size)) - 1);
			if (sx && size < 8 && (z >> (8 * size - 1)) & 1)
				z |= ~((1ull << (8 * size)) - 1);
			MUST(absint_contains(&r, z), "extract %u@%u sx %d of %#llx", size,
				      byte, sx, (unsigned long long)x);
			if (size < 8) {
				uint64_t y = pick(), m = ((1ull << (8 * size)) - 1) << (8 * byte);
				struct absint_val b = absint_const(y), ins = absint_insert(&a, &b, byte, size);

				z = (x & ~m) | ((y << (8 * byte)) & m);
				MUST(absint_contains(&ins, z), "insert");
			}
		}
	}
}
END_TEST

/* absint_invert_alu / absint_invert_extract: Y is in the result for every
 * X = Y op C of an abstract value holding X (and other samples). */
START_TEST(random_invert_sound)
{
	static const unsigned ops[] = { ISA_MOV, ISA_AND, ISA_OR, ISA_XOR, ISA_ADD, ISA_SUB,
					ISA_LSH, ISA_RSH };
	uint64_t xs[4];
	unsigned t, i, ninfo = 0;

	for (t = 0; t < 400000; t++) {
		unsigned op = ops[rnd() % ARRAY_SIZE(ops)];
		bool is64 = rnd() % 2, lhs = op != ISA_MOV && rnd() % 2;
		uint64_t y = pick(), c = op == ISA_LSH || op == ISA_RSH ? rnd() % 70 : pick();
		/* MOV's source is its second operand */
		uint64_t x = op == ISA_MOV ? ref_alu(op, is64, c, y) :
			     lhs ? ref_alu(op, is64, c, y) : ref_alu(op, is64, y, c);
		struct absint_val xa = sample(xs, 1 + (unsigned)(rnd() % 3)), k, ya;

		if (rnd() % 4) {              /* often X itself among a few others */
			k = absint_const(x);
			xa = rnd() % 2 ? k : absint_join(&xa, &k);
		} else {
			xa = absint_const(x);
		}
		if (!absint_invert_alu(op, is64, lhs, &xa, c, &ya))
			continue;
		ninfo++;
		if (!absint_contains(&ya, y)) {
			char b1[200], b2[200];

			absint_format(&xa, b1, sizeof(b1));
			absint_format(&ya, b2, sizeof(b2));
			ck_abort_msg("invert op %u%s %s c=%#llx: y=%#llx gives x=%#llx in %s, y not in %s",
				     op, is64 ? "" : "32", lhs ? "lhs" : "rhs", (unsigned long long)c,
				     (unsigned long long)y, (unsigned long long)x, b1, b2);
		}
	}
	ck_assert_uint_gt(ninfo, 300000);
	for (t = 0; t < 200000; t++) {
		unsigned size = 1u << (rnd() % 4), byte = (unsigned)(rnd() % (9 - size));
		bool sx = rnd() % 2;
		uint64_t y = pick(), x = size == 8 ? y : (y >> (byte * 8)) & ((1ull << (size * 8)) - 1);
		struct absint_val xa, ya;

		if (sx && size < 8 && (x >> (size * 8 - 1)) & 1)
			x |= ~0ull << (size * 8);
		xa = absint_const(x);
		for (i = 0; i < rnd() % 3; i++) {
			struct absint_val o = absint_const(pick());

			xa = absint_join(&xa, &o);
		}
		ya = absint_invert_extract(&xa, byte, size);
		MUST(absint_contains(&ya, y), "invert extract [%u, +%u): y=%#llx", byte, size,
		     (unsigned long long)y);
	}
}
END_TEST

START_TEST(transfer_exact)
{
	struct absint_val a = absint_width(8, false), b = absint_const(4), r;
	struct absint_val x = absint_top(), k = absint_const(10);
	uint64_t c;

	/* u8 + 4 is [4, 259] */
	r = absint_alu(ISA_ADD, true, &a, &b);
	ck_assert_uint_eq(r.umin, 4);
	ck_assert_uint_eq(r.umax, 259);
	/* 32-bit: 0xffffffff + 1 wraps to 0, zero-extended */
	a = absint_const(0xffffffffull);
	b = absint_const(1);
	r = absint_alu(ISA_ADD, false, &a, &b);
	ck_assert(absint_is_const(&r, &c) && c == 0);
	/* x / 0 = 0, x % 0 = x, INT_MIN / -1 = INT_MIN */
	a = absint_const(77);
	b = absint_const(0);
	r = absint_alu(ISA_DIV, true, &a, &b);
	ck_assert(absint_is_const(&r, &c) && c == 0);
	r = absint_alu(ISA_MOD, true, &a, &b);
	ck_assert(absint_is_const(&r, &c) && c == 77);
	a = absint_const(0x8000000000000000ull);
	b = absint_const(~0ull);
	r = absint_alu(ISA_SDIV, true, &a, &b);
	ck_assert(absint_is_const(&r, &c) && c == 0x8000000000000000ull);
	/* shift amounts are masked: 1 << 65 = 2 */
	a = absint_const(1);
	b = absint_const(65);
	r = absint_alu(ISA_LSH, true, &a, &b);
	ck_assert(absint_is_const(&r, &c) && c == 2);
	/* x & 0xff is [0, 255] */
	b = absint_const(0xff);
	r = absint_alu(ISA_AND, true, &x, &b);
	ck_assert_uint_eq(r.umax, 255);
	/* movsx8 of 0x80 is -128; bswap16 of 0x1234 is 0x3412 */
	a = absint_const(0x80);
	r = absint_unary(ISA_MOVSX, true, 1, &a);
	ck_assert(absint_is_const(&r, &c) && c == (uint64_t)-128);
	a = absint_const(0x1234);
	r = absint_unary(ISA_BSWAP, true, 2, &a);
	ck_assert(absint_is_const(&r, &c) && c == 0x3412);
	/* x > 10 refines x to [11, max]; then x <= 10 is impossible */
	ck_assert(absint_refine(ISA_JGT, true, true, &x, &k));
	ck_assert_uint_eq(x.umin, 11);
	ck_assert_int_eq(absint_cond(ISA_JLE, true, &x, &k), 0);
	k = absint_const(10);
	ck_assert(!absint_refine(ISA_JLE, true, true, &x, &k));
	/* JMP32: the low half of 0x1_00000005 is 5 */
	a = absint_const(0x100000005ull);
	b = absint_const(5);
	ck_assert_int_eq(absint_cond(ISA_JEQ, false, &a, &b), 1);
	ck_assert_int_eq(absint_cond(ISA_JEQ, true, &a, &b), 0);
	/* signed: -1 < 0, unsigned: 0xff..ff > 0 */
	a = absint_const(~0ull);
	b = absint_const(0);
	ck_assert_int_eq(absint_cond(ISA_JSLT, true, &a, &b), 1);
	ck_assert_int_eq(absint_cond(ISA_JLT, true, &a, &b), 0);
	/* a JSET with one bit makes it known */
	x = absint_top();
	b = absint_const(8);
	ck_assert(absint_refine(ISA_JSET, true, true, &x, &b));
	ck_assert_uint_eq(x.tv & 8, 8);
	ck_assert(!absint_refine(ISA_JSET, true, false, &x, &b));
}
END_TEST

/* ---- random programs: the walk against the interpreter ------------------
 *
 * A seeded generator writes small programs in the conformance assembler
 * (tests/asm.h): r1 points to MEM_LEN input bytes, every other register
 * starts as a load of them (all widths, signed too) or a constant, then
 * random ALU64/ALU32 ops (register and immediate operands, every op incl.
 * sdiv/smod and shifts by a register), neg, byte swaps, movsx, stack
 * stores and narrower reloads, and forward jumps (64- and 32-bit, every
 * condition). Most branches split the code into two subtrees that end in
 * their own exit, so an exit is one path; some rejoin (phis). For each
 * register k the program is lifted once with every exit returning rk, and
 * the walk reports r0's abstract value per exit block (absint_opts
 * at_exit). Then random inputs run through the interpreter: the exit it
 * reaches must have been reached by the walk and the concrete r0 must lie
 * in that exit's abstract value (joined over the paths that end there). */
#define MEM_LEN 32
#define GEN_MAX 8192

struct gen {
	char text[GEN_MAX];
	size_t len;
	unsigned labels, ops;
	uint64_t imms[16];        /* constants used, for inputs that hit them */
	unsigned nimms;
};

static void emit(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(g->text + g->len, sizeof(g->text) - g->len, fmt, ap);
	va_end(ap);
	MUST(n >= 0 && (size_t)n < sizeof(g->text) - g->len, "program too long");
	g->len += (size_t)n;
}

/* a register other than r1 (the input pointer) and r10 */
static unsigned reg(void)
{
	unsigned r = (unsigned)(rnd() % 9);

	return r >= 1 ? r + 1 : r;
}

static int32_t imm32(struct gen *g)
{
	int32_t k = (int32_t)pick();

	if (rnd() % 4 == 0)
		k = (int32_t)(rnd() % 64) - 8;
	if (g->nimms < 16)
		g->imms[g->nimms++] = (uint64_t)(int64_t)k;
	return k;
}

static void gen_load(struct gen *g, unsigned r)
{
	static const char *const ld[] = { "ldxb", "ldxh", "ldxw", "ldxdw", "ldxsb", "ldxsh",
					  "ldxsw" };
	static const unsigned sz[] = { 1, 2, 4, 8, 1, 2, 4 };
	unsigned i = (unsigned)(rnd() % 7);

	emit(g, "%s %%r%u, [%%r1+%u]\n", ld[i], r, (unsigned)(rnd() % (MEM_LEN - sz[i] + 1)));
}

static void gen_op(struct gen *g)
{
	static const char *const alu[] = { "add", "sub", "mul", "div", "sdiv", "mod", "smod",
					   "or", "and", "xor", "lsh", "rsh", "arsh", "mov" };
	static const char *const ends[] = { "le16", "le32", "le64", "be16", "be32", "be64",
					    "bswap16", "bswap32", "bswap64" };
	static const char *const sx[] = { "movsx832", "movsx864", "movsx1632", "movsx1664",
					  "movsx3264" };
	static const char *const st[] = { "stxb", "stxh", "stxw" };
	static const char *const stm[] = { "stxb", "stxh", "stxw", "stxdw" };
	unsigned d = reg(), k = (unsigned)(rnd() % 22), op = (unsigned)(rnd() % 14), z;
	const char *w = rnd() % 3 == 0 ? "32" : "";

	g->ops++;
	if (k < 10 && op >= 10 && op <= 12) {          /* shift by an immediate */
		emit(g, "%s%s %%r%u, %u\n", alu[op], w, d, (unsigned)(rnd() % (w[0] ? 32 : 64)));
	} else if (k < 7) {
		emit(g, "%s%s %%r%u, %d\n", alu[op], w, d, imm32(g));
	} else if (k < 13) {
		emit(g, "%s%s %%r%u, %%r%u\n", alu[op], w, d, reg());
	} else if (k == 13) {
		emit(g, "neg%s %%r%u\n", w, d);
	} else if (k == 14) {
		emit(g, "%s %%r%u\n", ends[rnd() % 9], d);
	} else if (k == 15) {
		emit(g, "%s %%r%u, %%r%u\n", sx[rnd() % 5], d, reg());
	} else if (k == 16 || k == 19) {       /* often a reload: a memory cell */
		gen_load(g, d);
	} else if (k == 20) {                  /* a store into the input: a barrier */
		z = (unsigned)(rnd() % 4);
		emit(g, "%s [%%r1+%u], %%r%u\n", stm[z], (unsigned)(rnd() % (MEM_LEN - (1u << z) + 1)),
		     reg());
	} else if (k == 17) {                  /* a narrower store into a stack word */
		emit(g, "stxdw [%%r10-8], %%r%u\n", reg());
		emit(g, "%s [%%r10-%u], %%r%u\n", st[rnd() % 3], 8 - (unsigned)(rnd() % 4), reg());
		emit(g, "ldxdw %%r%u, [%%r10-8]\n", d);
	} else if (k == 18) {                  /* a narrower reload of a stack word */
		emit(g, "stxdw [%%r10-16], %%r%u\n", reg());
		emit(g, "%s %%r%u, [%%r10-%u]\n", rnd() % 2 ? "ldxw" : "ldxsh", d,
		     16 - (unsigned)(rnd() % 3));
	} else {
		emit(g, "lddw %%r%u, 0x%llx\n", d, (unsigned long long)pick());
	}
}

static void gen_jump(struct gen *g, unsigned label)
{
	static const char *const j[] = { "jeq", "jne", "jgt", "jge", "jlt", "jle", "jset",
					 "jsgt", "jsge", "jslt", "jsle" };
	const char *w = rnd() % 3 == 0 ? "32" : "";

	if (rnd() % 2)
		emit(g, "%s%s %%r%u, %d, L%u\n", j[rnd() % 11], w, reg(), imm32(g), label);
	else
		emit(g, "%s%s %%r%u, %%r%u, L%u\n", j[rnd() % 11], w, reg(), reg(), label);
}

/* a subtree: ops, then an exit or a branch into two subtrees (or a
 * diamond that rejoins and goes on) */
static void gen_tree(struct gen *g, unsigned depth)
{
	unsigned i, n = 1 + (unsigned)(rnd() % 4), l;

	for (i = 0; i < n; i++)
		gen_op(g);
	if (depth >= 4 || rnd() % 4 == 0) {
		emit(g, "EXIT\n");
		return;
	}
	l = g->labels++;
	gen_jump(g, l);
	if (rnd() % 4 == 0) {                  /* diamond */
		n = 1 + (unsigned)(rnd() % 3);
		for (i = 0; i < n; i++)
			gen_op(g);
		emit(g, "L%u:\n", l);
		gen_tree(g, depth + 1);
		return;
	}
	gen_tree(g, depth + 1);
	emit(g, "L%u:\n", l);
	gen_tree(g, depth + 1);
}

static void gen_prog(struct gen *g)
{
	unsigned r;

	memset(g, 0, sizeof(*g));
	for (r = 0; r <= 9; r++) {
		if (r == 1)
			continue;
		if (rnd() % 3)
			gen_load(g, r);
		else
			emit(g, "mov %%r%u, %d\n", r, imm32(g));
	}
	gen_tree(g, 0);
}

/* TEXT with every "EXIT" line made "mov %r0, %rK" + "exit" */
static void with_exits(const char *text, unsigned k, char *out, size_t len)
{
	size_t o = 0;
	const char *p;

	for (p = text; *p; ) {
		const char *e = strchr(p, '\n');
		size_t n = (size_t)(e - p) + 1;

		if (!strncmp(p, "EXIT\n", 5))
			o += (size_t)snprintf(out + o, len - o, "mov %%r0, %%r%u\nexit\n", k);
		else
			o += (size_t)snprintf(out + o, len - o, "%.*s", (int)n, p);
		MUST(o < len, "program too long");
		p = e + 1;
	}
}

#define MAX_EXITS 128

struct exits {
	uint32_t slot[MAX_EXITS];
	struct absint_val r0[MAX_EXITS];
	unsigned n;
};

static void note_exit(void *arg, const struct ssa_block *b, const struct absint_val *r0)
{
	struct exits *x = arg;
	unsigned i;

	for (i = 0; i < x->n; i++)
		if (x->slot[i] == b->last_slot) {
			x->r0[i] = absint_join(&x->r0[i], r0);
			return;
		}
	MUST(x->n < MAX_EXITS, "too many exits");
	x->slot[x->n] = b->last_slot;
	x->r0[x->n++] = *r0;
}

/* input bytes: zeros, 0xff, small numbers, the program's constants */
static void gen_input(const struct gen *g, uint8_t *mem)
{
	unsigned mode = (unsigned)(rnd() % 4), i;

	for (i = 0; i < MEM_LEN; i++)
		mem[i] = mode == 0 ? (uint8_t)(rnd() % 3 == 0 ? rnd() : 0) :
			 mode == 1 ? (uint8_t)(rnd() % 2 ? 0xff : rnd() % 4) : (uint8_t)rnd();
	if (mode == 3 && g->nimms) {           /* a constant somewhere, either width */
		uint64_t c = g->imms[rnd() % g->nimms] + rnd() % 3 - 1;
		unsigned at = (unsigned)(rnd() % (MEM_LEN - 7));

		memcpy(mem + at, &c, rnd() % 2 ? 8 : 4);
	}
}

/* Run INSNS on MEM (r1 = its address, r2 = its length) with ENV's hooks. */
static void run_on(struct insn *insns, uint32_t n, const uint8_t *mem,
		   const struct interp_env *env, struct interp_result *r)
{
	struct insn *secs[1] = { insns };
	uint32_t nslots[1] = { n };
	uint64_t args[5] = {0};
	struct interp ip;
	int m;

	MUST(interp_init(&ip, secs, nslots, 1, env) == 0, "interp_init");
	m = interp_add_region(&ip, INTERP_MEM_USER, "mem", 0, MEM_LEN, NULL, true);
	MUST(m >= 0, "interp_add_region");
	memcpy(interp_region(&ip, m)->bytes, mem, MEM_LEN);
	args[0] = interp_region(&ip, m)->base;
	args[1] = MEM_LEN;
	interp_run(&ip, 0, 0, args, r);
	interp_fini(&ip);
}

/* Run INSNS on MEM: the exit slot and r0 (false: it did not exit). */
static bool run_concrete(struct insn *insns, uint32_t n, const uint8_t *mem, uint32_t *slot,
			 uint64_t *r0, char *msg, size_t len)
{
	struct interp_result r;

	run_on(insns, n, mem, NULL, &r);
	*slot = r.slot;
	*r0 = r.r0;
	snprintf(msg, len, "%s", r.msg);
	return r.status == INTERP_EXIT;
}

struct regs_at_exit { uint64_t regs[ISA_NREGS]; };

static void keep_regs(void *arg, int sec, uint32_t slot, const uint64_t regs[ISA_NREGS])
{
	(void)sec;
	(void)slot;
	memcpy(((struct regs_at_exit *)arg)->regs, regs, sizeof(uint64_t) * ISA_NREGS);
}

/* the registers before the exit instruction of the run on MEM (the mov
 * to r0 is done: r0 is the variant's result) */
static void run_concrete_regs(struct insn *insns, uint32_t n, const uint8_t *mem,
			      struct regs_at_exit *rx)
{
	struct interp_env env = { .arg = rx, .on_insn = keep_regs };
	struct interp_result r;

	run_on(insns, n, mem, &env, &r);
	MUST(r.status == INTERP_EXIT && rx->regs[0] == r.r0, "run_concrete_regs: %s", r.msg);
}

static void dump_fail(const char *text, const uint8_t *mem)
{
	unsigned i;

	fprintf(stderr, "program:\n%s\nmem:", text);
	for (i = 0; i < MEM_LEN; i++)
		fprintf(stderr, " %02x", mem[i]);
	fprintf(stderr, "\n");
}

/* The proof oracle on the same programs: lifted again with, at every
 * exit, `assume(rJ OP1 K1)` (half the time) and `assert(r0 OP2 K2)`, K2
 * near the bounds the first walk found. When the walk proves it, every
 * run whose registers at the exit satisfy the assume must satisfy the
 * assert (refinement through assumes, re-evaluation of the condition). */
struct rassert {
	bool assume;
	unsigned areg, aop, op;
	uint64_t ak, k;
};

static void rhook_exit(void *arg, struct ssa_lift *l, uint32_t r0)
{
	const struct rassert *ra = arg;

	if (ra->assume)
		ssa_emit_assume(l, ssa_emit_cmp(l, ra->aop, ssa_reg(l, ra->areg),
						ssa_emit_const(l, ra->ak)));
	ssa_emit_assert(l, ssa_emit_cmp(l, ra->op, r0, ssa_emit_const(l, ra->k)), 0, 0);
}

static void pick_assert(const struct gen *g, const struct exits *x, struct rassert *ra)
{
	struct absint_val all = x->r0[0];
	unsigned e;
	uint64_t near[4];

	for (e = 1; e < x->n; e++)
		all = absint_join(&all, &x->r0[e]);
	near[0] = all.umin;
	near[1] = all.umax;
	near[2] = (uint64_t)all.smin;
	near[3] = (uint64_t)all.smax;
	ra->assume = rnd() % 2;
	ra->areg = reg();
	ra->aop = jmp_ops[rnd() % 11];
	ra->ak = g->nimms && rnd() % 2 ? g->imms[rnd() % g->nimms] : pick() % 512;
	ra->op = jmp_ops[rnd() % 11];
	ra->k = rnd() % 4 ? near[rnd() % 4] + rnd() % 3 - 1 : pick();
}

/* ABSINT_PROGRAMS=N ABSINT_SEED=S: a longer run (docs/testing.md) */
static unsigned nprogs = 4000;

START_TEST(random_programs_sound)
{
	static char text[GEN_MAX * 2];
	struct gen g;
	unsigned t, k, i, e, nexact = 0, nchecks = 0, nproved = 0, nassumed = 0;

	for (t = 0; t < nprogs; t++) {
		gen_prog(&g);
		for (k = 0; k <= 9; k++) {
			struct bpf_insn *raw;
			struct insn *insns;
			struct arena *a = arena_new();
			struct ssa_prog *p = NULL;
			struct diag d = {0};
			struct exits x = { .n = 0 };
			struct absint_opts o = { .at_exit = note_exit, .arg = &x };
			struct absint_result r;
			char err[256], msg[192];
			uint32_t n;

			with_exits(g.text, k, text, sizeof(text));
			MUST(asm_assemble_alloc(text, "random", 1, &raw, &n, err, sizeof(err)) >= 0,
			     "%s\n%s", err, text);
			insns = calloc(n, sizeof(*insns));
			MUST(insns, "calloc");
			MUST(insn_decode(raw, n, insns, "random", "program", &d) == 0, "%s", text);
			MUST(ssa_build_code(insns, n, NULL, a, &d, &p) == 0, "%s", text);
			MUST(!p->unsupported, "%s: %s", text, p->unsupported);
			absint_prove(p, &o, &r);
			MUST(r.verdict == ABSINT_PROVED, "%s\n%s", r.reason, text);
			for (e = 0; e < x.n; e++) {
				uint64_t c;

				nexact += absint_is_const(&x.r0[e], &c);
			}
			struct rassert ra;
			struct ssa_hooks hooks = { .arg = &ra, .exit = rhook_exit };
			struct ssa_opts so = { .hooks = &hooks };
			struct absint_result pr;
			struct ssa_prog *q = NULL;

			pick_assert(&g, &x, &ra);
			MUST(ssa_build_code(insns, n, &so, a, &d, &q) == 0, "%s", text);
			absint_prove(q, NULL, &pr);
			nproved += pr.verdict == ABSINT_PROVED;
			for (i = 0; i < 8; i++) {
				uint8_t mem[MEM_LEN];
				uint32_t slot;
				uint64_t r0;
				struct regs_at_exit rx;

				gen_input(&g, mem);
				if (pr.verdict == ABSINT_PROVED) {
					run_concrete_regs(insns, n, mem, &rx);
					if (!ra.assume || ref_cond(ra.aop, true, rx.regs[ra.areg], ra.ak)) {
						nassumed += ra.assume;
						if (!ref_cond(ra.op, true, rx.regs[0], ra.k)) {
							dump_fail(text, mem);
							ck_abort_msg("program %u r%u: proved assume(r%u op %u %#llx) => assert(r0 op %u %#llx), the run gives r%u = %#llx, r0 = %#llx",
								     t, k, ra.areg, ra.aop,
								     (unsigned long long)ra.ak, ra.op,
								     (unsigned long long)ra.k, ra.areg,
								     (unsigned long long)rx.regs[ra.areg],
								     (unsigned long long)rx.regs[0]);
						}
					}
				}
				if (!run_concrete(insns, n, mem, &slot, &r0, msg, sizeof(msg))) {
					dump_fail(text, mem);
					ck_abort_msg("the interpreter did not exit: %s", msg);
				}
				for (e = 0; e < x.n && x.slot[e] != slot; e++)
					;
				if (e == x.n) {
					dump_fail(text, mem);
					ck_abort_msg("program %u r%u: the run exits at slot %u, a path the walk found infeasible",
						     t, k, slot);
				}
				if (!absint_contains(&x.r0[e], r0)) {
					char buf[200];

					absint_format(&x.r0[e], buf, sizeof(buf));
					dump_fail(text, mem);
					ck_abort_msg("program %u r%u: exit at slot %u returns %#llx, not in %s",
						     t, k, slot, (unsigned long long)r0, buf);
				}
				nchecks++;
			}
			free(insns);
			free(raw);
			arena_free(a);
		}
	}
	/* the oracle compared something: most exits are not constants */
	printf("random programs: %u containment checks, %u exits constant, %u of %u asserts proved (%u runs under a true assume)\n",
	       nchecks, nexact, nproved, nprogs * 10, nassumed);
	ck_assert_uint_gt(nproved, nprogs);
	ck_assert_uint_eq(nchecks, nprogs * 10 * 8);
}
END_TEST

/* ---- what the walk must prove, and what it must not ----------------------
 *
 * Each case is a program reading MEM_LEN bytes at r1 and, at every exit,
 * asserts `r0 OP K` (up to two), after an optional assume `rA OP K` (the
 * lift's exit hook emits them, as the instrumentation does for a spec).
 * A case that must not be proved carries a witness input whose run
 * violates an assert: proving it would be unsound. A case that must be
 * proved is run on random inputs too, so that its asserts are true. */
struct cond { unsigned op; int64_t k; };

struct pcase {
	const char *name, *text;
	struct cond assume;       /* op 0: none */
	unsigned assume_reg;
	struct cond asserts[2];   /* op 0: unused */
	bool proves;
	uint8_t witness[16];      /* !proves: the first bytes of a violating input */
	/* op 0: none; else at entry, before the program, an assume
	 * `mem[0] OP K || mem[1] OP K` (a spec's entry reads: the program's
	 * later loads of those bytes are the same cells) */
	struct cond entry_or[2];
	bool any_of;              /* one assert `r0 OP K || r0 OP K` (both given) */
};

static const struct pcase pcases[] = {
	{ "and mask", "ldxb %r0, [%r1]\nand %r0, 15\nexit\n", {0}, 0,
	  { { ISA_JLE, 15 } }, true, {0} },
	{ "and a bit too many", "ldxb %r0, [%r1]\nand %r0, 16\nexit\n", {0}, 0,
	  { { ISA_JLE, 15 } }, false, { 0x10 } },
	{ "branch bound", "ldxw %r0, [%r1]\njle %r0, 100, ok\nmov %r0, 7\nok:\nexit\n", {0}, 0,
	  { { ISA_JLE, 100 } }, true, {0} },
	{ "branch bound off by one", "ldxw %r0, [%r1]\njle %r0, 100, ok\nmov %r0, 7\nok:\nexit\n",
	  {0}, 0, { { ISA_JLT, 100 } }, false, { 100 } },
	{ "add32 zero-extends", "ldxdw %r0, [%r1]\nadd32 %r0, 1\nexit\n", {0}, 0,
	  { { ISA_JLE, 0xffffffffll } }, true, {0} },
	{ "add32 wraps", "ldxw %r0, [%r1]\nadd32 %r0, 1\nexit\n", {0}, 0,
	  { { ISA_JGE, 1 } }, false, { 0xff, 0xff, 0xff, 0xff } },
	{ "jmp32 on a u32", "ldxw %r0, [%r1]\njlt32 %r0, 10, ok\nmov %r0, 0\nok:\nexit\n", {0}, 0,
	  { { ISA_JLT, 10 } }, true, {0} },
	{ "jmp32 leaves the high half", "ldxdw %r0, [%r1]\njlt32 %r0, 10, ok\nmov %r0, 0\nok:\nexit\n",
	  {0}, 0, { { ISA_JLT, 10 } }, false, { 0, 0, 0, 0, 1 } },
	{ "signed bound is not unsigned", "ldxdw %r0, [%r1]\njslt %r0, 10, ok\nmov %r0, 0\nok:\nexit\n",
	  {0}, 0, { { ISA_JLE, 9 } }, false, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ "signed bound", "ldxdw %r0, [%r1]\njslt %r0, 10, ok\nmov %r0, 0\nok:\nexit\n",
	  {0}, 0, { { ISA_JSLE, 9 } }, true, {0} },
	{ "sign-extended byte", "ldxb %r0, [%r1]\nmovsx864 %r0, %r0\nexit\n", {0}, 0,
	  { { ISA_JSGE, -128 }, { ISA_JSLE, 127 } }, true, {0} },
	{ "sign-extended byte is not unsigned", "ldxb %r0, [%r1]\nmovsx864 %r0, %r0\nexit\n", {0},
	  0, { { ISA_JLE, 255 } }, false, { 0x80 } },
	{ "arsh of a signed byte", "ldxsb %r0, [%r1]\narsh %r0, 7\nexit\n", {0}, 0,
	  { { ISA_JSGE, -1 }, { ISA_JSLE, 0 } }, true, {0} },
	{ "arsh32 sign-extends the low half", "ldxw %r0, [%r1]\narsh32 %r0, 1\nexit\n", {0}, 0,
	  { { ISA_JLE, 0x7fffffff } }, false, { 0, 0, 0, 0x80 } },
	{ "be16 of a u16", "ldxh %r0, [%r1]\nbe16 %r0\nexit\n", {0}, 0,
	  { { ISA_JLE, 0xffff } }, true, {0} },
	{ "bswap32 moves the high byte down", "ldxb %r0, [%r1]\nlsh %r0, 24\nbswap32 %r0\nexit\n",
	  {0}, 0, { { ISA_JLE, 0xff } }, true, {0} },
	{ "mod by a constant", "ldxdw %r0, [%r1]\nmod %r0, 10\nexit\n", {0}, 0,
	  { { ISA_JLT, 10 } }, true, {0} },
	{ "mod by zero keeps the dividend", "ldxb %r0, [%r1]\nldxb %r2, [%r1+1]\nmod %r0, %r2\nexit\n",
	  {0}, 0, { { ISA_JLE, 254 } }, false, { 0xff, 0 } },
	{ "div by zero is zero", "ldxb %r0, [%r1]\nldxb %r2, [%r1+1]\ndiv %r0, %r2\nexit\n", {0},
	  0, { { ISA_JLE, 255 } }, true, {0} },
	{ "mul overflows 32 bits", "ldxw %r0, [%r1]\nmul %r0, %r0\nexit\n", {0}, 0,
	  { { ISA_JLE, 0xffffffffll } }, false, { 0, 0, 1 } },
	{ "rsh by 60", "ldxdw %r0, [%r1]\nrsh %r0, 60\nexit\n", {0}, 0,
	  { { ISA_JLE, 15 } }, true, {0} },
	{ "shift by a register, masked", "ldxdw %r0, [%r1]\nldxb %r2, [%r1+8]\nrsh %r0, %r2\nexit\n",
	  {0}, 0, { { ISA_JLE, 0x7fffffffffffffffll } }, false, { 0, 0, 0, 0, 0, 0, 0, 0x80, 64 } },
	{ "neg of INT64_MIN", "ldxdw %r0, [%r1]\njsge %r0, 0, ok\nneg %r0\nok:\nexit\n", {0}, 0,
	  { { ISA_JSGE, 0 } }, false, { 0, 0, 0, 0, 0, 0, 0, 0x80 } },
	{ "both arms bound the phi",
	  "ldxb %r2, [%r1]\nmov %r0, 3\njgt %r2, 5, l\nmov %r0, 4\nl:\nexit\n", {0}, 0,
	  { { ISA_JGE, 3 }, { ISA_JLE, 4 } }, true, {0} },
	{ "one arm leaves the phi unbounded",
	  "ldxb %r2, [%r1]\nldxdw %r0, [%r1+8]\njgt %r2, 5, l\nand %r0, 7\nl:\nexit\n", {0}, 0,
	  { { ISA_JLE, 7 } }, false, { 6, 0, 0, 0, 0, 0, 0, 0, 8 } },
	{ "an infeasible path",
	  "ldxb %r0, [%r1]\njgt %r0, 300, bad\nexit\nbad:\nmov %r0, 1000\nexit\n", {0}, 0,
	  { { ISA_JLE, 255 } }, true, {0} },
	{ "a feasible path", "ldxh %r0, [%r1]\njgt %r0, 300, bad\nexit\nbad:\nmov %r0, 1000\nexit\n",
	  {0}, 0, { { ISA_JLE, 300 } }, false, { 0x2d, 0x01 } },
	{ "assumed at the exit", "ldxb %r2, [%r1]\nmov %r0, %r2\nexit\n", { ISA_JLE, 9 }, 2,
	  { { ISA_JLT, 10 } }, true, {0} },
	{ "assumed of another value", "ldxb %r2, [%r1]\nldxb %r0, [%r1+1]\nexit\n", { ISA_JLE, 9 },
	  2, { { ISA_JLT, 10 } }, false, { 0, 10 } },
	{ "a stored byte", "ldxdw %r0, [%r1]\nstxdw [%r10-8], %r0\nmov %r3, 0\n"
	  "stxb [%r10-8], %r3\nldxdw %r0, [%r10-8]\nexit\n", {0}, 0, { { ISA_JNE, 1 } }, true, {0} },
	{ "a stored byte elsewhere", "ldxdw %r0, [%r1]\nstxdw [%r10-8], %r0\nmov %r3, 0\n"
	  "stxb [%r10-7], %r3\nldxdw %r0, [%r10-8]\nexit\n", {0}, 0, { { ISA_JNE, 1 } }, false,
	  { 1 } },
	{ "jset clears the bit", "ldxb %r0, [%r1]\njset %r0, 4, l\nexit\nl:\nmov %r0, 0\nexit\n",
	  {0}, 0, { { ISA_JNE, 4 } }, true, {0} },
	{ "a reloaded byte, masked before",
	  "ldxb %r2, [%r1]\nand %r2, 0xf0\njne %r2, 0x40, out\nldxb %r0, [%r1]\nrsh %r0, 4\n"
	  "exit\nout:\nmov %r0, 4\nexit\n", {0}, 0, { { ISA_JEQ, 4 } }, true, {0} },
	{ "a reloaded byte after a store to it",
	  "ldxb %r2, [%r1]\nand %r2, 0xf0\njne %r2, 0x40, out\nmov %r3, 0\nstxb [%r1], %r3\n"
	  "ldxb %r0, [%r1]\nrsh %r0, 4\nexit\nout:\nmov %r0, 4\nexit\n", {0}, 0,
	  { { ISA_JEQ, 4 } }, false, { 0x40 } },
	{ "a wider reload is another cell",
	  "ldxb %r2, [%r1]\nand %r2, 0xf0\njne %r2, 0x40, out\nldxh %r0, [%r1]\nrsh %r0, 4\n"
	  "exit\nout:\nmov %r0, 4\nexit\n", {0}, 0, { { ISA_JEQ, 4 } }, false, { 0x40, 0x10 } },
	{ "the same address through another pointer",
	  "mov %r4, %r1\nadd %r4, 3\nldxb %r2, [%r4-2]\njgt %r2, 9, out\nldxb %r0, [%r1+1]\n"
	  "exit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JLE, 9 } }, true, {0} },
	{ "the phi's operand on this path",
	  "ldxb %r2, [%r1]\nmov %r3, 0\njgt %r2, 5, l\nmov %r3, %r2\nl:\njgt %r3, 3, out\n"
	  "mov %r0, %r2\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JNE, 4 }, { ISA_JNE, 5 } }, true, {0} },
	{ "shifted bits known back", "ldxw %r2, [%r1]\nmov %r3, %r2\nlsh32 %r3, 28\n"
	  "jne %r3, 0, out\nmov %r0, %r2\nand %r0, 15\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, true, {0} },
	{ "shifted bits known back, one too few", "ldxw %r2, [%r1]\nmov %r3, %r2\nlsh32 %r3, 29\n"
	  "jne %r3, 0, out\nmov %r0, %r2\nand %r0, 15\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, false, { 8 } },
	{ "jset with two bits", "ldxb %r0, [%r1]\njset %r0, 6, l\nmov %r0, 1\nexit\nl:\nexit\n",
	  {0}, 0, { { ISA_JNE, 2 } }, false, { 2 } },
	/* an assume the walk cannot refine (an or), false on a path after
	 * the branches that follow it: asked again at the failing assert */
	{ "an or assumed at entry, both sides branched on later",
	  "ldxb %r2, [%r1]\njeq %r2, 5, out\nldxb %r3, [%r1+1]\njeq %r3, 7, out\nmov %r0, 1\n"
	  "exit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0},
	  { { ISA_JEQ, 5 }, { ISA_JEQ, 7 } } },
	{ "an or assumed at entry, one side branched on",
	  "ldxb %r2, [%r1]\njeq %r2, 5, out\nmov %r0, 1\nexit\nout:\nmov %r0, 0\nexit\n",
	  {0}, 0, { { ISA_JEQ, 0 } }, false, { 0, 7 }, { { ISA_JEQ, 5 }, { ISA_JEQ, 7 } } },
	{ "an or assumed at entry, the byte stored over after",
	  "mov %r4, 0\nstxb [%r1], %r4\nldxb %r2, [%r1]\njeq %r2, 5, out\nldxb %r3, [%r1+1]\n"
	  "jeq %r3, 7, out\nmov %r0, 1\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, false, { 5, 0 }, { { ISA_JEQ, 5 }, { ISA_JEQ, 7 } } },
	{ "an or assumed at entry, a signed side",
	  "ldxb %r2, [%r1]\njlt %r2, 100, out\nldxb %r3, [%r1+1]\njgt %r3, 9, out\nmov %r0, 1\n"
	  "exit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, false, { 200, 5 },
	  { { ISA_JLT, 100 }, { ISA_JSLT, 9 } } },
	/* a value of a few members, asserted to be in a set: a case split */
	{ "a set of two members in a set", "ldxb %r0, [%r1]\nand %r0, 1\nlsh %r0, 1\nadd %r0, 2\nexit\n",
	  {0}, 0, { { ISA_JEQ, 2 }, { ISA_JEQ, 4 } }, true, {0}, { {0}, {0} }, true },
	{ "a set of two members, one outside", "ldxb %r0, [%r1]\nand %r0, 1\nlsh %r0, 1\nadd %r0, 2\n"
	  "exit\n", {0}, 0, { { ISA_JEQ, 2 }, { ISA_JEQ, 3 } }, false, { 1 }, { {0}, {0} }, true },
	{ "a case split through a branch", "ldxb %r2, [%r1]\nand %r2, 3\nmov %r0, 7\njeq %r2, 2, l\n"
	  "mov %r0, %r2\nl:\nexit\n", {0}, 0, { { ISA_JLT, 2 }, { ISA_JEQ, 7 } }, false, { 3 },
	  { {0}, {0} }, true },
	/* one class of values: the same operation of the same operands
	 * (absint_path.c absint_canon), so `x == x` is decided */
	{ "one computation twice", "ldxdw %r2, [%r1]\nmov %r3, %r2\nmul %r3, 7\nmov %r4, %r2\n"
	  "mul %r4, 7\nmov %r0, 1\njeq %r3, %r4, l\nmov %r0, 0\nl:\nexit\n", {0}, 0,
	  { { ISA_JEQ, 1 } }, true, {0} },
	{ "two computations", "ldxdw %r2, [%r1]\nmov %r3, %r2\nmul %r3, 7\nmov %r4, %r2\n"
	  "mul %r4, 9\nmov %r0, 1\njeq %r3, %r4, l\nmov %r0, 0\nl:\nexit\n", {0}, 0,
	  { { ISA_JEQ, 1 } }, false, { 1 } },
	/* `(hi << 8) | lo == K` gives both bytes (no bit in both operands) */
	{ "an or of disjoint bits, known back",
	  "ldxb %r2, [%r1]\nldxb %r3, [%r1+1]\nlsh32 %r3, 8\nor32 %r3, %r2\njne %r3, 0x108, out\n"
	  "mov %r0, %r2\nexit\nout:\nmov %r0, 8\nexit\n", {0}, 0, { { ISA_JEQ, 8 } }, true, {0} },
	{ "an or of overlapping bits",
	  "ldxb %r2, [%r1]\nldxb %r3, [%r1+1]\nlsh32 %r3, 4\nor32 %r3, %r2\njne %r3, 0x18, out\n"
	  "mov %r0, %r2\nexit\nout:\nmov %r0, 8\nexit\n", {0}, 0, { { ISA_JEQ, 8 } }, false,
	  { 0x18, 0 } },
	/* a byte of an earlier wider load, refined: so is the wider value */
	{ "a byte of a wider load, known back",
	  "ldxh %r2, [%r1]\nldxb %r3, [%r1]\njne %r3, 5, out\nmov %r0, %r2\nand %r0, 7\nexit\n"
	  "out:\nmov %r0, 5\nexit\n", {0}, 0, { { ISA_JEQ, 5 } }, true, {0} },
	{ "the other byte of a wider load",
	  "ldxh %r2, [%r1]\nldxb %r3, [%r1+1]\njne %r3, 5, out\nmov %r0, %r2\nand %r0, 7\nexit\n"
	  "out:\nmov %r0, 5\nexit\n", {0}, 0, { { ISA_JEQ, 5 } }, false, { 0, 5 } },
	/* a wider load over earlier byte loads: its bytes are theirs, and
	 * narrowing it (back through a byte swap) narrows them
	 * (absint_path.c has_parts, absint.c whole) */
	{ "a wider load over known bytes",
	  "ldxb %r2, [%r1]\nldxb %r3, [%r1+1]\njne %r2, 8, out\njne %r3, 0, out\nldxh %r0, [%r1]\n"
	  "exit\nout:\nmov %r0, 8\nexit\n", {0}, 0, { { ISA_JEQ, 8 } }, true, {0} },
	{ "a wider load over one known byte",
	  "ldxb %r2, [%r1]\njne %r2, 8, out\nldxh %r0, [%r1]\nexit\nout:\nmov %r0, 8\nexit\n",
	  {0}, 0, { { ISA_JEQ, 8 } }, false, { 8, 1 } },
	{ "a byte swap of a wider load, known back to a byte",
	  "ldxb %r2, [%r1]\nldxh %r3, [%r1]\nbe16 %r3\njne %r3, 0x800, out\nmov %r0, %r2\nexit\n"
	  "out:\nmov %r0, 8\nexit\n", {0}, 0, { { ISA_JEQ, 8 } }, true, {0} },
	{ "a byte swap of a wider load, the other byte",
	  "ldxb %r2, [%r1+1]\nldxh %r3, [%r1]\nbe16 %r3\njne %r3, 0x800, out\nmov %r0, %r2\nexit\n"
	  "out:\nmov %r0, 8\nexit\n", {0}, 0, { { ISA_JEQ, 8 } }, false, { 8, 0 } },
	/* a load at `p + x` with x known later is the load at p + that
	 * (absint.c rekey, refold) */
	{ "an offset known after the load",
	  "ldxb %r2, [%r1+8]\nand %r2, 7\nmov %r4, %r1\nadd %r4, %r2\nldxb %r5, [%r4]\njne %r5, 7, out\n"
	  "jne %r2, 0, out\nldxb %r0, [%r1]\nexit\nout:\nmov %r0, 7\nexit\n", {0}, 0,
	  { { ISA_JEQ, 7 } }, true, {0} },
	{ "an offset known after the load, another byte",
	  "ldxb %r2, [%r1+8]\nand %r2, 7\nmov %r4, %r1\nadd %r4, %r2\nldxb %r5, [%r4]\njne %r5, 7, out\n"
	  "jne %r2, 1, out\nldxb %r0, [%r1]\nexit\nout:\nmov %r0, 7\nexit\n", {0}, 0,
	  { { ISA_JEQ, 7 } }, false, { 0, 7, 0, 0, 0, 0, 0, 0, 1 } },
	{ "a byte of a wider load at an offset known after it",
	  "ldxb %r2, [%r1+8]\nand %r2, 7\nmov %r4, %r1\nadd %r4, %r2\nldxh %r5, [%r4]\n"
	  "and %r5, 0x300\njne %r5, 0x300, out\njne %r2, 0, out\nldxb %r0, [%r1+1]\nand %r0, 3\n"
	  "exit\nout:\nmov %r0, 3\nexit\n", {0}, 0, { { ISA_JEQ, 3 } }, true, {0} },
	{ "a byte of a wider load at another offset",
	  "ldxb %r2, [%r1+8]\nand %r2, 7\nmov %r4, %r1\nadd %r4, %r2\nldxh %r5, [%r4]\n"
	  "and %r5, 0x300\njne %r5, 0x300, out\njne %r2, 1, out\nldxb %r0, [%r1+1]\nand %r0, 3\n"
	  "exit\nout:\nmov %r0, 3\nexit\n", {0}, 0, { { ISA_JEQ, 3 } }, false,
	  { 0, 0, 3, 0, 0, 0, 0, 0, 1 } },
	/* `(b << 2) & 60` is `(b & 15) << 2`, the header length checked
	 * before (absint_path.c absint_shifted) */
	{ "a checked length shifted",
	  "ldxb %r2, [%r1]\nmov %r3, %r2\nand %r3, 15\njlt %r3, 5, out\nmov %r0, %r2\nlsh %r0, 2\n"
	  "and %r0, 60\nexit\nout:\nmov %r0, 20\nexit\n", {0}, 0, { { ISA_JGE, 20 } }, true, {0} },
	{ "a length checked one too low, shifted",
	  "ldxb %r2, [%r1]\nmov %r3, %r2\nand %r3, 15\njlt %r3, 4, out\nmov %r0, %r2\nlsh %r0, 2\n"
	  "and %r0, 60\nexit\nout:\nmov %r0, 20\nexit\n", {0}, 0, { { ISA_JGE, 20 } }, false,
	  { 4 } },
	/* a case of a split against the path's facts and branches asked
	 * again (absint.c facts_broken) */
	{ "a case against a jeq not taken",
	  "ldxb %r2, [%r1]\nand %r2, 3\nmov %r4, %r2\nadd %r4, 5\njeq %r4, 6, out\nmov %r0, %r2\n"
	  "mul %r0, 2\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JNE, 2 } }, true, {0} },
	{ "a case the jeq allows",
	  "ldxb %r2, [%r1]\nand %r2, 3\nmov %r4, %r2\nadd %r4, 5\njeq %r4, 7, out\nmov %r0, %r2\n"
	  "mul %r0, 2\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JNE, 2 } }, false, { 1 } },
	{ "a case against a branch",
	  "ldxb %r2, [%r1]\nand %r2, 3\nldxb %r3, [%r1+1]\njne %r3, 200, out\nldxb %r5, [%r1+2]\n"
	  "mov %r4, %r3\nadd %r4, %r2\njgt %r4, %r5, out\njgt %r5, 200, out\nmov %r0, %r2\nexit\n"
	  "out:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0} },
	{ "a case the branch allows",
	  "ldxb %r2, [%r1]\nand %r2, 3\nldxb %r3, [%r1+1]\njne %r3, 200, out\nldxb %r5, [%r1+2]\n"
	  "mov %r4, %r3\nadd %r4, %r2\njgt %r4, %r5, out\njgt %r5, 201, out\nmov %r0, %r2\nexit\n"
	  "out:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, false, { 1, 200, 201 } },
	/* an ordering of two values taken is a fact: the same comparison
	 * later is decided (absint_path.c order_form) */
	{ "an ordering known again",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\njgt %r2, %r3, l\nmov %r0, 0\nexit\n"
	  "l:\njgt %r2, %r3, ok\nmov %r0, 1\nexit\nok:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, true, {0} },
	{ "an ordering, not the strict one",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\njge %r2, %r3, l\nmov %r0, 0\nexit\n"
	  "l:\njgt %r2, %r3, ok\nmov %r0, 1\nexit\nok:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, false, {0} },
	{ "an ordering's negation",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\njgt %r2, %r3, out\njle %r2, %r3, ok\nmov %r0, 1\n"
	  "exit\nok:\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0} },
	/* an ordering fact is no equality's: `b < w` taken, `w != b` was
	 * decided false by it (key_decide read JLT as the op of an equality
	 * fact), the run through `big` dropped (seed 11's program 9762) */
	{ "an ordering, then an inequality of the two",
	  "ldxb %r8, [%r1]\nldxh %r2, [%r1+2]\njge %r8, %r2, out\njne %r2, %r8, big\n"
	  "mov %r0, 0\nexit\nbig:\nmov %r0, 1\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, false, { 1, 0, 5, 0 } },
	/* x % c < c for a c that is not 0 (absint_path.c absint_rem_fact):
	 * the mod instruction, and div, mul, sub as clang writes it */
	{ "a remainder below its divisor",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\njeq %r3, 0, out\nmod %r2, %r3\njlt %r2, %r3, out\n"
	  "mov %r0, 1\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0} },
	{ "a remainder by a divisor that may be 0",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\nmod %r2, %r3\njlt %r2, %r3, out\n"
	  "mov %r0, 1\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, false, {0} },
	{ "a remainder as div, mul and sub",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\njeq %r3, 0, out\nmov32 %r4, %r2\ndiv32 %r4, %r3\n"
	  "mul32 %r4, %r3\nsub32 %r2, %r4\njlt %r2, %r3, out\nmov %r0, 1\nexit\n"
	  "out:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0} },
	{ "div, mul and sub of two values",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\nldxw %r5, [%r1+8]\njeq %r3, 0, out\nmov32 %r4, %r5\n"
	  "div32 %r4, %r3\nmul32 %r4, %r3\nsub32 %r2, %r4\njlt %r2, %r3, out\nmov %r0, 1\nexit\n"
	  "out:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, false, { 5, 0, 0, 0, 2 } },
	/* f + x % c < f + c: the common term cancels (absint_sum_decide) */
	{ "sums with a common term",
	  "ldxb %r2, [%r1]\nldxw %r3, [%r1+4]\nldxw %r4, [%r1+8]\njeq %r4, 0, out\nmod %r3, %r4\n"
	  "add %r3, %r2\nmov %r5, %r4\nadd %r5, %r2\njlt %r3, %r5, out\nmov %r0, 1\nexit\n"
	  "out:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0} },
	{ "sums without a common term",
	  "ldxb %r2, [%r1]\nldxb %r6, [%r1+1]\nldxw %r3, [%r1+4]\nldxw %r4, [%r1+8]\n"
	  "jeq %r4, 0, out\nmod %r3, %r4\nadd %r3, %r2\nmov %r5, %r4\nadd %r5, %r6\n"
	  "jlt %r3, %r5, out\nmov %r0, 1\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0,
	  { { ISA_JEQ, 0 } }, false, { 1, 0, 0, 0, 0, 0, 0, 0, 1 } },
	{ "sums that may wrap",
	  "ldxdw %r2, [%r1]\nldxw %r3, [%r1+8]\nldxw %r4, [%r1+12]\njeq %r4, 0, out\nmod %r3, %r4\n"
	  "add %r3, %r2\nmov %r5, %r4\nadd %r5, %r2\njlt %r3, %r5, out\nmov %r0, 1\nexit\n"
	  "out:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, false,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 2 } },
	/* a value stored to the stack and reloaded is the value
	 * (absint_slot_part: an extract of the insert's bytes) */
	{ "a stack slot reloaded",
	  "ldxw %r2, [%r1]\nldxw %r4, [%r1+4]\njgt %r2, %r4, l\nmov %r0, 0\nexit\n"
	  "l:\nstxw [%r10-8], %r2\nldxw %r3, [%r10-8]\njgt %r3, %r4, ok\nmov %r0, 1\nexit\n"
	  "ok:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, true, {0} },
	{ "a stack slot reloaded narrower",
	  "ldxdw %r2, [%r1]\nldxw %r4, [%r1+8]\njgt %r2, %r4, l\nmov %r0, 0\nexit\n"
	  "l:\nstxw [%r10-8], %r2\nldxw %r3, [%r10-8]\njgt %r3, %r4, ok\nmov %r0, 1\nexit\n"
	  "ok:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JEQ, 0 } }, false,
	  { 0, 0, 0, 0, 1, 0, 0, 0, 1 } },
	/* a bound on a sum of two values bounds each (absint.c sum_back) */
	{ "a sum bounds its terms",
	  "ldxb %r2, [%r1]\nldxb %r3, [%r1+1]\nmov %r4, %r2\nadd %r4, %r3\njgt %r4, 10, out\n"
	  "mov %r0, %r2\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JLE, 10 } }, true, {0} },
	{ "a sum that may wrap bounds nothing",
	  "ldxw %r2, [%r1]\nldxw %r3, [%r1+4]\nmov32 %r4, %r2\nadd32 %r4, %r3\njgt %r4, 10, out\n"
	  "mov %r0, %r2\nexit\nout:\nmov %r0, 0\nexit\n", {0}, 0, { { ISA_JLE, 10 } }, false,
	  { 0xff, 0xff, 0xff, 0xff, 1 } },
};

struct hook_arg { const struct pcase *c; };

static void hook_entry(void *arg, struct ssa_lift *l)
{
	const struct pcase *c = ((struct hook_arg *)arg)->c;
	uint32_t m0, m1;

	if (!c->entry_or[0].op)
		return;
	m0 = ssa_emit_load(l, ssa_reg(l, 1), 1);
	m1 = ssa_emit_load(l, ssa_emit_alu(l, ISA_ADD, ssa_reg(l, 1), ssa_emit_const(l, 1)), 1);
	ssa_emit_assume(l, ssa_emit_alu(l, ISA_OR,
		ssa_emit_cmp(l, c->entry_or[0].op, m0, ssa_emit_const(l, (uint64_t)c->entry_or[0].k)),
		ssa_emit_cmp(l, c->entry_or[1].op, m1, ssa_emit_const(l, (uint64_t)c->entry_or[1].k))));
}

static void hook_exit(void *arg, struct ssa_lift *l, uint32_t r0)
{
	const struct pcase *c = ((struct hook_arg *)arg)->c;
	unsigned i;

	if (c->assume.op)
		ssa_emit_assume(l, ssa_emit_cmp(l, c->assume.op, ssa_reg(l, c->assume_reg),
						ssa_emit_const(l, (uint64_t)c->assume.k)));
	if (c->any_of) {
		ssa_emit_assert(l, ssa_emit_alu(l, ISA_OR,
			ssa_emit_cmp(l, c->asserts[0].op, r0, ssa_emit_const(l, (uint64_t)c->asserts[0].k)),
			ssa_emit_cmp(l, c->asserts[1].op, r0, ssa_emit_const(l, (uint64_t)c->asserts[1].k))),
			0, 0);
		return;
	}
	for (i = 0; i < 2 && c->asserts[i].op; i++)
		ssa_emit_assert(l, ssa_emit_cmp(l, c->asserts[i].op, r0,
						ssa_emit_const(l, (uint64_t)c->asserts[i].k)), i, 0);
}

/* every assert of C true of the run on MEM (or its assume false) */
static bool case_holds(const struct pcase *c, struct insn *insns, uint32_t n, const uint8_t *mem)
{
	struct regs_at_exit rx;
	unsigned i;

	if (c->entry_or[0].op && !ref_cond(c->entry_or[0].op, true, mem[0], (uint64_t)c->entry_or[0].k) &&
	    !ref_cond(c->entry_or[1].op, true, mem[1], (uint64_t)c->entry_or[1].k))
		return true;
	run_concrete_regs(insns, n, mem, &rx);
	if (c->assume.op && !ref_cond(c->assume.op, true, rx.regs[c->assume_reg],
				      (uint64_t)c->assume.k))
		return true;
	if (c->any_of)
		return ref_cond(c->asserts[0].op, true, rx.regs[0], (uint64_t)c->asserts[0].k) ||
		       ref_cond(c->asserts[1].op, true, rx.regs[0], (uint64_t)c->asserts[1].k);
	for (i = 0; i < 2 && c->asserts[i].op; i++)
		if (!ref_cond(c->asserts[i].op, true, rx.regs[0], (uint64_t)c->asserts[i].k))
			return false;
	return true;
}

START_TEST(prove_cases)
{
	unsigned i, j;

	for (i = 0; i < ARRAY_SIZE(pcases); i++) {
		const struct pcase *c = &pcases[i];
		struct hook_arg ha = { c };
		const struct ssa_hooks hooks = { .arg = &ha, .entry = hook_entry, .exit = hook_exit };
		struct ssa_opts so = { .hooks = &hooks };
		struct arena *a = arena_new();
		struct ssa_prog *p = NULL;
		struct diag d = {0};
		struct absint_result r;
		struct bpf_insn *raw;
		struct insn *insns;
		uint8_t mem[MEM_LEN] = {0};
		char err[256];
		uint32_t n;

		ck_assert_msg(asm_assemble_alloc(c->text, c->name, 1, &raw, &n, err, sizeof(err)) >= 0,
			      "%s", err);
		insns = calloc(n, sizeof(*insns));
		ck_assert(insns);
		ck_assert_int_eq(insn_decode(raw, n, insns, c->name, "program", &d), 0);
		ck_assert_int_eq(ssa_build_code(insns, n, &so, a, &d, &p), 0);
		ck_assert_msg(!p->unsupported, "%s: %s", c->name, p->unsupported);
		absint_prove(p, NULL, &r);
		if (c->proves) {
			ck_assert_msg(r.verdict == ABSINT_PROVED, "%s: not proved: %s", c->name,
				      r.reason);
			ck_assert_str_eq(r.reason, "");
			for (j = 0; j < 2000; j++) {
				struct gen g = { .nimms = 0 };

				gen_input(&g, mem);
				MUST(case_holds(c, insns, n, mem), "%s: an assert fails", c->name);
			}
		} else {
			memcpy(mem, c->witness, sizeof(c->witness));
			ck_assert_msg(!case_holds(c, insns, n, mem), "%s: the witness holds", c->name);
			ck_assert_msg(r.verdict == ABSINT_UNKNOWN, "%s: proved, but the witness fails",
				      c->name);
			ck_assert_msg(!strncmp(r.reason, "assert v", 8) && strstr(r.reason, "may be 0"),
				      "%s: %s", c->name, r.reason);
		}
		free(insns);
		free(raw);
		arena_free(a);
	}
}
END_TEST

/* absint_values: exactly the members, in order, or -1 past MAX */
START_TEST(values_enumerated)
{
	struct absint_val a = absint_const(7), t;
	uint64_t v[8];

	ck_assert_int_eq(absint_values(&a, v, 8), 1);
	ck_assert_uint_eq(v[0], 7);
	t = absint_top();
	t.umin = 2;
	t.umax = 4;
	t.tv = 0;
	t.tm = 6;                       /* 0, 2, 4, 6 by the tnum */
	t.smin = 2;
	t.smax = 4;
	ck_assert_int_eq(absint_values(&t, v, 8), 2);
	ck_assert_uint_eq(v[0], 2);
	ck_assert_uint_eq(v[1], 4);
	t = absint_width(3, false);     /* 0 .. 7: 8 values */
	ck_assert_int_eq(absint_values(&t, v, 8), 8);
	ck_assert_uint_eq(v[7], 7);
	ck_assert_int_eq(absint_values(&t, v, 7), -1);
	t = absint_top();
	ck_assert_int_eq(absint_values(&t, v, 8), -1);
	t.umin = UINT64_MAX - 1;        /* the top of the range, no wrap */
	ck_assert_int_eq(absint_values(&t, v, 8), 2);
	ck_assert_uint_eq(v[1], UINT64_MAX);
}
END_TEST

/* Instructions on every path from block B: the walk's count when no
 * path is cut (a tree: each block once per path through it). */
static uint64_t path_insns(const struct ssa_prog *p, uint32_t b)
{
	uint64_t n = p->blocks[b]->ninsns;
	uint32_t j;

	for (j = 0; j < p->blocks[b]->nsucc; j++)
		n += path_insns(p, p->blocks[b]->succ[j]);
	return n;
}

/* The budget counts every instruction of each block a path runs, its
 * constants too (the walk defines those once, consts_everywhere, and
 * counts them where they stand): exactly that many pass, one fewer gives
 * up with the budget named. */
START_TEST(budget_counts_every_instruction)
{
	static const char text[] =
		"ldxw %r2, [%r1]\nmov %r3, 9\njgt %r2, 3, l\nmov %r0, 2\nmov %r4, 5\n"
		"add %r4, %r2\nexit\nl:\nmov %r0, 7\nadd %r0, %r3\nmov %r5, 11\nexit\n";
	struct arena *a = arena_new();
	struct ssa_prog *p = NULL;
	struct diag d = {0};
	struct absint_opts o = {0};
	struct absint_result r;
	struct bpf_insn *raw;
	struct insn *insns;
	char err[256], want[96];
	uint32_t n, b, i, consts = 0;

	ck_assert_msg(asm_assemble_alloc(text, "budget", 1, &raw, &n, err, sizeof(err)) >= 0,
		      "%s", err);
	insns = calloc(n, sizeof(*insns));
	ck_assert(insns);
	ck_assert_int_eq(insn_decode(raw, n, insns, "budget", "program", &d), 0);
	ck_assert_int_eq(ssa_build_code(insns, n, NULL, a, &d, &p), 0);
	for (b = 0; b < p->nblocks; b++)
		for (i = 0; i < p->blocks[b]->ninsns; i++)
			consts += p->blocks[b]->insns[i]->kind == SSA_CONST;
	ck_assert_uint_ge(consts, 3);          /* the case is about them */
	o.budget = path_insns(p, 0);
	absint_prove(p, &o, &r);
	ck_assert_msg(r.verdict == ABSINT_PROVED, "%s", r.reason);
	ck_assert_uint_eq(r.steps, o.budget);
	ck_assert_uint_eq(r.paths, 2);
	o.budget--;
	absint_prove(p, &o, &r);
	ck_assert_int_eq(r.verdict, ABSINT_UNKNOWN);
	snprintf(want, sizeof(want), "budget: more than %llu instructions on the paths walked",
		 (unsigned long long)o.budget);
	ck_assert_str_eq(r.reason, want);
	free(insns);
	free(raw);
	arena_free(a);
}
END_TEST

int main(void)
{
	const char *seed = getenv("ABSINT_SEED"), *progs = getenv("ABSINT_PROGRAMS");
	Suite *s = suite_create("absint");
	TCase *tc = tcase_create("domain");
	SRunner *sr;
	int nf;

	if (seed)
		rng = strtoull(seed, NULL, 0) ? strtoull(seed, NULL, 0) : 1;
	if (progs)
		nprogs = (unsigned)strtoul(progs, NULL, 0);
	tcase_set_timeout(tc, progs ? 0 : 120);
	tcase_add_test(tc, transfer_exact);
	tcase_add_test(tc, random_alu_sound);
	tcase_add_test(tc, random_unary_sound);
	tcase_add_test(tc, random_invert_sound);
	tcase_add_test(tc, random_programs_sound);
	tcase_add_test(tc, prove_cases);
	tcase_add_test(tc, budget_counts_every_instruction);
	tcase_add_test(tc, values_enumerated);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
