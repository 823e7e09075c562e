/* test_absint.c - the abstract-interpretation pre-pass (absint.h): exact
 * transfer results, a seeded random soundness check of every ALU op and
 * jump condition in both widths against a reference taken from
 * interp.c's rules, and the walk over a lifted program: what it must
 * prove (r0 at exit) and what it must not. */
#include "absint.h"
#include "isa.h"

#include <check.h>
#include <stdlib.h>

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
	ck_assert(absint_sync(&a));
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

					ck_assert_msg(c < 0 || c == v, "cond %u is64 %d", op, is64);
					if (v != taken)
						continue;
					ck_assert_msg(ok && absint_contains(&x, xs[i]) &&
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
			ck_assert_msg(absint_contains(&r, z), "extract %u@%u sx %d of %#llx", size,
				      byte, sx, (unsigned long long)x);
			if (size < 8) {
				uint64_t y = pick(), m = ((1ull << (8 * size)) - 1) << (8 * byte);
				struct absint_val b = absint_const(y), ins = absint_insert(&a, &b, byte, size);

				z = (x & ~m) | ((y << (8 * byte)) & m);
				ck_assert_msg(absint_contains(&ins, z), "insert");
			}
		}
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

int main(void)
{
	Suite *s = suite_create("absint");
	TCase *tc = tcase_create("domain");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, transfer_exact);
	tcase_add_test(tc, random_alu_sound);
	tcase_add_test(tc, random_unary_sound);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
