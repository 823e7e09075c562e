/* absint_dom.c - the abstract values of the pre-pass (contract: absint.h).
 *
 * A value is three over-approximations at once: an unsigned interval, a
 * signed interval and a tnum (tv: bits known to be 1, tm: unknown bits; a
 * bit in neither is known 0). The set is their intersection; absint_sync()
 * tightens each view from the others (the kernel verifier's idea: its
 * reg_bounds_sync) and notices an empty set. Transfer functions are built
 * from 64-bit ones: a 32-bit operation works on the zero-extended low halves
 * and truncates its result, which gives exactly the 32-bit result for every
 * operation but the signed ones and the shifts (those have their own
 * paths). Two constants are folded concretely with interp.c's rules.
 */
#include "absint.h"
#include "isa.h"

#include <inttypes.h>
#include <stdio.h>

#define U64_MAX UINT64_MAX
#define LOW32 0xffffffffull

static uint64_t umax64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t umin64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static int64_t smax64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t smin64(int64_t a, int64_t b) { return a < b ? a : b; }

static uint64_t mask_of(unsigned bits)
{
	return bits >= 64 ? U64_MAX : (1ull << bits) - 1;
}

bool absint_contains(const struct absint_val *a, uint64_t x)
{
	return x >= a->umin && x <= a->umax && (int64_t)x >= a->smin && (int64_t)x <= a->smax &&
	       (x & ~a->tm) == a->tv;
}

int absint_values(const struct absint_val *a, uint64_t *out, unsigned max)
{
	uint64_t v;
	int n = 0;

	if (a->umin > a->umax || a->umax - a->umin >= max)
		return -1;
	for (v = a->umin;; v++) {
		if (absint_contains(a, v))
			out[n++] = v;
		if (v == a->umax)
			return n;
	}
}

/* the tnum of every value in [lo, hi] */
static void tn_range(uint64_t lo, uint64_t hi, uint64_t *v, uint64_t *m)
{
	uint64_t chi = lo ^ hi;
	unsigned bits = chi ? 64 - (unsigned)__builtin_clzll(chi) : 0;
	uint64_t delta = mask_of(bits);

	*v = lo & ~delta;
	*m = delta;
}

struct absint_val absint_range(uint64_t lo, uint64_t hi)
{
	struct absint_val a;

	/* what absint_sync makes of top with these bounds, in closed form:
	 * the range's tnum, and the range as signed when it does not cross
	 * 2^63 (else any; equal on 50M random ranges) */
	tn_range(lo, hi, &a.tv, &a.tm);
	a.umin = lo;
	a.umax = hi;
	a.smin = (int64_t)lo <= (int64_t)hi ? (int64_t)lo : INT64_MIN;
	a.smax = (int64_t)lo <= (int64_t)hi ? (int64_t)hi : INT64_MAX;
	return a;
}

/* A's tnum AND (v, m); false when they disagree on a known bit */
static bool tn_meet(struct absint_val *a, uint64_t v, uint64_t m)
{
	if ((a->tv ^ v) & ~a->tm & ~m)
		return false;
	a->tm &= m;
	a->tv = (a->tv | v) & ~a->tm;
	return true;
}

static bool sync_once(struct absint_val *a)
{
	uint64_t v, m;

	/* tnum -> intervals */
	a->umin = umax64(a->umin, a->tv);
	a->umax = umin64(a->umax, a->tv | a->tm);
	if (a->tm >> 63) {
		a->smin = smax64(a->smin, (int64_t)(a->tv | (1ull << 63)));
		a->smax = smin64(a->smax, (int64_t)((a->tv | a->tm) & ~(1ull << 63)));
	} else {
		a->smin = smax64(a->smin, (int64_t)a->tv);
		a->smax = smin64(a->smax, (int64_t)(a->tv | a->tm));
	}
	/* unsigned <-> signed */
	if ((int64_t)a->umin <= (int64_t)a->umax) {       /* one sign half */
		a->smin = smax64(a->smin, (int64_t)a->umin);
		a->smax = smin64(a->smax, (int64_t)a->umax);
	} else {                                          /* crosses 2^63 */
		if (a->smin > (int64_t)a->umax)
			a->smin = smax64(a->smin, (int64_t)a->umin);
		if (a->smax < (int64_t)a->umin)
			a->smax = smin64(a->smax, (int64_t)a->umax);
	}
	if (a->smin >= 0 || a->smax < 0) {
		a->umin = umax64(a->umin, (uint64_t)a->smin);
		a->umax = umin64(a->umax, (uint64_t)a->smax);
	} else {                                          /* crosses 0 */
		if (a->umin > (uint64_t)a->smax)
			a->umin = umax64(a->umin, (uint64_t)a->smin);
		if (a->umax < (uint64_t)a->smin)
			a->umax = umin64(a->umax, (uint64_t)a->smax);
	}
	if (a->umin > a->umax || a->smin > a->smax)
		return false;
	/* intervals -> tnum */
	tn_range(a->umin, a->umax, &v, &m);
	if (!tn_meet(a, v, m))
		return false;
	tn_range((uint64_t)a->smin, (uint64_t)a->smax, &v, &m);
	if ((a->smin >= 0 || a->smax < 0) && !tn_meet(a, v, m))
		return false;
	return true;
}

/* A constant whose four bounds and tnum agree, or top: sync_once leaves
 * it as it is (most values the pass meets are one or the other). */
static bool synced(const struct absint_val *a)
{
	return !a->tm ? a->umin == a->tv && a->umax == a->tv && a->smin == (int64_t)a->tv &&
			a->smax == (int64_t)a->tv :
	       !~a->tm && !a->tv && !a->umin && !~a->umax && a->smin == INT64_MIN &&
			a->smax == INT64_MAX;
}

bool absint_sync(struct absint_val *a)
{
	struct absint_val before;
	unsigned i;

	if (synced(a))
		return true;
	for (i = 0; i < 4; i++) {
		before = *a;
		if (!sync_once(a))
			return false;
		if (before.umin == a->umin && before.umax == a->umax && before.smin == a->smin &&
		    before.smax == a->smax && before.tv == a->tv && before.tm == a->tm)
			break;
		if (synced(a))    /* the next round would change nothing */
			break;
	}
	return true;
}

/* absint_meet (absint.h) where B bounds something A does not */
bool absint_meet_tighter(struct absint_val *a, const struct absint_val *b)
{
	a->umin = umax64(a->umin, b->umin);
	a->umax = umin64(a->umax, b->umax);
	a->smin = smax64(a->smin, b->smin);
	a->smax = smin64(a->smax, b->smax);
	if (a->umin > a->umax || a->smin > a->smax || !tn_meet(a, b->tv, b->tm))
		return false;
	return absint_sync(a);
}

struct absint_val absint_join(const struct absint_val *a, const struct absint_val *b)
{
	struct absint_val r;

	r.umin = umin64(a->umin, b->umin);
	r.umax = umax64(a->umax, b->umax);
	r.smin = smin64(a->smin, b->smin);
	r.smax = smax64(a->smax, b->smax);
	r.tm = a->tm | b->tm | (a->tv ^ b->tv);
	r.tv = a->tv & ~r.tm;
	return r;
}

/* a value with the tnum (v, m) and no range information, synced: what
 * absint_sync makes of top with that tnum, in closed form (its first
 * round sets each range to the tnum's least and greatest values, the
 * signed one split at the sign bit when that bit is unknown, and its
 * second changes nothing; checked equal on 50M random tnums) */
static struct absint_val from_tn(uint64_t v, uint64_t m)
{
	struct absint_val r;

	r.tm = m;
	r.tv = v & ~m;
	r.umin = r.tv;
	r.umax = r.tv | m;
	if (m >> 63) {
		r.smin = (int64_t)(r.tv | 1ull << 63);
		r.smax = (int64_t)(r.umax & ~(1ull << 63));
	} else {
		r.smin = (int64_t)r.umin;
		r.smax = (int64_t)r.umax;
	}
	return r;
}

/* ---- concrete operations (interp.c's rules) ----------------------------- */

/* D op S on the low W bits (both already truncated); not truncated */
static uint64_t alu_c(unsigned op, unsigned w, uint64_t d, uint64_t s)
{
	int64_t a = w == 64 ? (int64_t)d : (int64_t)(int32_t)(uint32_t)d;
	int64_t b = w == 64 ? (int64_t)s : (int64_t)(int32_t)(uint32_t)s;

	switch (op) {
	case ISA_ADD: return d + s;
	case ISA_SUB: return d - s;
	case ISA_MUL: return d * s;
	case ISA_DIV: return s ? d / s : 0;
	case ISA_SDIV:
		if (b == 0)
			return 0;
		return b == -1 ? -(uint64_t)a : (uint64_t)(a / b);
	case ISA_MOD: return s ? d % s : d;
	case ISA_SMOD:
		if (b == 0)
			return d;
		return b == -1 ? 0 : (uint64_t)(a % b);
	case ISA_OR: return d | s;
	case ISA_AND: return d & s;
	case ISA_XOR: return d ^ s;
	case ISA_MOV: return s;
	case ISA_LSH: return d << (s & (w - 1));
	case ISA_RSH: return d >> (s & (w - 1));
	case ISA_ARSH: return (uint64_t)(a >> (s & (w - 1)));
	default: return 0;
	}
}

/* ---- 64-bit transfer functions ------------------------------------------ */

static struct absint_val trunc_wraps(const struct absint_val *a, unsigned bits);

/* inline: most values a 32-bit comparison or op meets fit already */
static inline struct absint_val trunc_to(const struct absint_val *a, unsigned bits)
{
	if (bits >= 64 || a->umax <= mask_of(bits))
		return *a;
	return trunc_wraps(a, bits);
}

/* trunc_to of A that does not fit in BITS (< 64) */
static struct absint_val trunc_wraps(const struct absint_val *a, unsigned bits)
{
	uint64_t m = mask_of(bits);
	struct absint_val r;

	/* wraps inside: the width's range, which every value of the low
	 * bits' tnum lies in (the sign bit is known 0), so absint_sync's
	 * first round makes the same as it does of top with that tnum:
	 * from_tn (a tnum in its canonical form: the raw value bits are
	 * what that round reads) */
	if ((a->umin >> bits) != (a->umax >> bits) && !(a->tv & a->tm & m))
		return from_tn(a->tv & m, a->tm & m);
	r = absint_width(bits, false);
	if ((a->umin >> bits) == (a->umax >> bits)) {      /* no wrap inside */
		r.umin = a->umin & m;
		r.umax = a->umax & m;
	}
	r.tv = a->tv & m;
	r.tm = a->tm & m;
	absint_sync(&r);
	return r;
}

/* the low BITS of A, sign-extended */
static struct absint_val sext_to(const struct absint_val *a, unsigned bits)
{
	struct absint_val t = trunc_to(a, bits), r;
	uint64_t sign, hi;

	if (bits >= 64)
		return *a;
	sign = 1ull << (bits - 1);
	hi = ~mask_of(bits);
	if (t.umax < sign)
		return t;
	r = absint_width(bits, true);
	if (t.umin >= sign) {
		r.umin = t.umin | hi;
		r.umax = t.umax | hi;
		r.tv = t.tv | hi;
		r.tm = t.tm;
	} else {
		r.tv = t.tv;
		r.tm = t.tm | ((t.tm & sign) ? hi : 0);
		if (t.tv & sign)
			r.tv |= hi;
	}
	absint_sync(&r);
	return r;
}

static struct absint_val add64(const struct absint_val *a, const struct absint_val *b)
{
	struct absint_val r = absint_top();
	uint64_t sm = a->tm + b->tm, sv = a->tv + b->tv, mu;
	int64_t lo, hi;

	mu = ((sm + sv) ^ sv) | a->tm | b->tm;
	r.tm = mu;
	r.tv = sv & ~mu;
	if (!__builtin_add_overflow(a->umax, b->umax, &r.umax))
		r.umin = a->umin + b->umin;
	else
		r.umax = U64_MAX;
	if (!__builtin_add_overflow(a->smin, b->smin, &lo) &&
	    !__builtin_add_overflow(a->smax, b->smax, &hi)) {
		r.smin = lo;
		r.smax = hi;
	}
	absint_sync(&r);
	return r;
}

static struct absint_val sub64(const struct absint_val *a, const struct absint_val *b)
{
	struct absint_val r = absint_top();
	uint64_t dv = a->tv - b->tv, mu;
	int64_t lo, hi;

	mu = ((dv + a->tm) ^ (dv - b->tm)) | a->tm | b->tm;
	r.tm = mu;
	r.tv = dv & ~mu;
	if (a->umin >= b->umax) {
		r.umin = a->umin - b->umax;
		r.umax = a->umax - b->umin;
	}
	if (!__builtin_sub_overflow(a->smin, b->smax, &lo) &&
	    !__builtin_sub_overflow(a->smax, b->smin, &hi)) {
		r.smin = lo;
		r.smax = hi;
	}
	absint_sync(&r);
	return r;
}

static void tn_add(uint64_t av, uint64_t am, uint64_t bv, uint64_t bm, uint64_t *v, uint64_t *m)
{
	uint64_t sm = am + bm, sv = av + bv;

	*m = ((sm + sv) ^ sv) | am | bm;
	*v = sv & ~*m;
}

static struct absint_val mul64(const struct absint_val *a, const struct absint_val *b)
{
	uint64_t av = a->tv, am = a->tm, bv = b->tv, bm = b->tm;
	uint64_t accv = 0, accm = 0, v, m, hi;
	struct absint_val r;

	while (av || am) {
		if (av & 1)
			tn_add(accv, accm, 0, bm, &accv, &accm);
		else if (am & 1)
			tn_add(accv, accm, 0, bv | bm, &accv, &accm);
		av >>= 1;
		am >>= 1;
		bv <<= 1;
		bm <<= 1;
	}
	tn_add(a->tv * b->tv, 0, accv, accm, &v, &m);
	r = from_tn(v, m);
	if (!__builtin_mul_overflow(a->umax, b->umax, &hi)) {
		struct absint_val u = absint_top();

		u.umin = a->umin * b->umin;
		u.umax = hi;
		if (!absint_meet(&r, &u))
			r = u;        /* cannot happen for sound inputs; keep the range */
	}
	return r;
}

static struct absint_val udiv64(const struct absint_val *a, const struct absint_val *b)
{
	struct absint_val r = absint_top();

	if (b->umin > 0) {
		r.umin = a->umin / b->umax;
		r.umax = a->umax / b->umin;
	} else {
		r.umax = a->umax;         /* x / 0 = 0, x / y <= x */
	}
	absint_sync(&r);
	return r;
}

static struct absint_val umod64(const struct absint_val *a, const struct absint_val *b)
{
	struct absint_val r = absint_top();

	if (b->umin > 0 && a->umax < b->umin)
		return *a;                /* x % y = x */
	r.umax = a->umax;                 /* x % 0 = x, x % y <= x */
	if (b->umin > 0)
		r.umax = umin64(r.umax, b->umax - 1);
	absint_sync(&r);
	return r;
}

static struct absint_val and64(const struct absint_val *a, const struct absint_val *b)
{
	uint64_t v = a->tv & b->tv;
	struct absint_val r, u = absint_top();

	/* a mask that keeps every bit the other operand may have: identity
	 * (tested first: the tnum's sync is most of the cost) */
	if (!b->tm && !((a->tv | a->tm) & ~b->tv))
		return *a;
	if (!a->tm && !((b->tv | b->tm) & ~a->tv))
		return *b;
	r = from_tn(v, (a->tv | a->tm) & (b->tv | b->tm) & ~v);
	u.umax = umin64(a->umax, b->umax);
	absint_meet(&r, &u);
	return r;
}

static struct absint_val or64(const struct absint_val *a, const struct absint_val *b)
{
	uint64_t v = a->tv | b->tv;
	struct absint_val r, u = absint_top();

	if (!b->tm && !b->tv)     /* or 0 (first: see and64) */
		return *a;
	if (!a->tm && !a->tv)
		return *b;
	r = from_tn(v, (a->tm | b->tm) & ~v);
	u.umin = umax64(a->umin, b->umin);
	absint_meet(&r, &u);
	return r;
}

static struct absint_val xor64(const struct absint_val *a, const struct absint_val *b)
{
	uint64_t m = a->tm | b->tm;

	return from_tn((a->tv ^ b->tv) & ~m, m);
}

/* A shifted by the known amount K (0..63) */
static struct absint_val shift_k(unsigned op, const struct absint_val *a, unsigned k)
{
	struct absint_val r;

	if (k == 0)
		return *a;
	switch (op) {
	case ISA_LSH:
		r = from_tn(a->tv << k, a->tm << k);
		if ((a->umax >> (64 - k)) == 0) {
			struct absint_val u = absint_top();

			u.umin = a->umin << k;
			u.umax = a->umax << k;
			absint_meet(&r, &u);
		}
		return r;
	case ISA_RSH:
		r = from_tn(a->tv >> k, a->tm >> k);
		{
			struct absint_val u = absint_top();

			u.umin = a->umin >> k;
			u.umax = a->umax >> k;
			absint_meet(&r, &u);
		}
		return r;
	default:                  /* ARSH */
		r = from_tn((uint64_t)((int64_t)a->tv >> k), (uint64_t)((int64_t)a->tm >> k));
		{
			struct absint_val u = absint_top();

			u.smin = a->smin >> k;
			u.smax = a->smax >> k;
			absint_meet(&r, &u);
		}
		return r;
	}
}

/* A shifted by B & (W - 1): the join over the amounts B allows, in
 * increasing order (the amounts are AV with any subset of AM's bits: one
 * for a constant amount, which most shifts have) */
static struct absint_val shift(unsigned op, unsigned w, const struct absint_val *a,
			       const struct absint_val *b)
{
	struct absint_val r = {0}, t;
	uint64_t k, sub = 0, am = b->tm & (w - 1), av = b->tv & (w - 1);
	bool any = false;

	if (av & am)              /* no amount has such bits */
		return absint_top();
	do {
		k = av | sub;
		sub = (sub - am) & am;    /* the next subset of AM's bits */
		if (b->umax < w && (k < b->umin || k > b->umax))
			continue;
		t = shift_k(op, a, (unsigned)k);
		r = any ? absint_join(&r, &t) : t;
		any = true;
	} while (sub);
	return any ? r : absint_top();
}

/* A op B on values that are the zero-extended low W bits (W = 32) or the
 * whole values; the result before truncation */
static struct absint_val binop(unsigned op, unsigned w, const struct absint_val *a,
			       const struct absint_val *b)
{
	struct absint_val t;

	switch (op) {
	case ISA_ADD: return add64(a, b);
	case ISA_SUB: return sub64(a, b);
	case ISA_MUL: return mul64(a, b);
	case ISA_DIV: return udiv64(a, b);
	case ISA_MOD: return umod64(a, b);
	case ISA_OR: return or64(a, b);
	case ISA_AND: return and64(a, b);
	case ISA_XOR: return xor64(a, b);
	case ISA_MOV: return *b;
	case ISA_LSH: case ISA_RSH: return shift(op, w, a, b);
	case ISA_ARSH:
		if (w == 64)
			return shift(op, 64, a, b);
		t = sext_to(a, 32);
		return shift(op, 32, &t, b);
	default:                  /* SDIV, SMOD: constants only */
		return absint_width(w, false);
	}
}

struct absint_val absint_alu(unsigned op, bool is64, const struct absint_val *a,
			     const struct absint_val *b)
{
	unsigned w = is64 ? 64 : 32;
	struct absint_val x = trunc_to(a, w), y = trunc_to(b, w), r;
	uint64_t ca, cb;

	if (absint_is_const(&x, &ca) && absint_is_const(&y, &cb))
		return absint_const(alu_c(op, w, ca, cb) & mask_of(w));
	r = binop(op, w, &x, &y);
	return trunc_to(&r, w);
}

static uint64_t bswap_c(uint64_t v, unsigned bits)
{
	uint64_t r = 0;
	unsigned i;

	for (i = 0; i < bits / 8; i++)
		r = (r << 8) | ((v >> (8 * i)) & 0xff);
	return r;
}

struct absint_val absint_unary(unsigned op, bool is64, unsigned size,
			       const struct absint_val *a)
{
	unsigned n = size * 8u;
	struct absint_val zero = absint_const(0), t, r;

	switch (op) {
	case ISA_NEG:
		if (is64)
			return sub64(&zero, a);
		t = trunc_to(a, 32);
		r = sub64(&zero, &t);
		return trunc_to(&r, 32);
	case ISA_MOVSX:
		r = sext_to(a, n);
		return is64 ? r : trunc_to(&r, 32);
	case ISA_LE:
		return trunc_to(a, n);
	case ISA_BE:
	case ISA_BSWAP:
		return from_tn(bswap_c(a->tv, n), bswap_c(a->tm, n));
	default:
		return absint_top();
	}
}

struct absint_val absint_extract(const struct absint_val *a, unsigned byte, unsigned size,
				 bool sx)
{
	struct absint_val t = shift_k(ISA_RSH, a, (8 * byte) & 63);

	return sx ? sext_to(&t, size * 8u) : trunc_to(&t, size * 8u);
}

struct absint_val absint_insert(const struct absint_val *a, const struct absint_val *b,
				unsigned byte, unsigned size)
{
	unsigned n = size * 8u, lo = 8 * byte;
	struct absint_val keep, low, put, hole;

	if (n >= 64)
		return *b;
	keep = absint_const(~(mask_of(n) << lo));
	hole = and64(a, &keep);
	low = trunc_to(b, n);
	put = shift_k(ISA_LSH, &low, lo & 63);
	return or64(&hole, &put);
}

/* ---- conditions ---------------------------------------------------------- */

static bool disjoint(const struct absint_val *a, const struct absint_val *b)
{
	return a->umax < b->umin || b->umax < a->umin || a->smax < b->smin ||
	       b->smax < a->smin || ((a->tv ^ b->tv) & ~a->tm & ~b->tm);
}

int absint_cond64(unsigned op, const struct absint_val *a, const struct absint_val *b)
{
	uint64_t ca, cb;

	switch (op) {
	case ISA_JEQ:
		if (absint_is_const(a, &ca) && absint_is_const(b, &cb) && ca == cb)
			return 1;
		return disjoint(a, b) ? 0 : -1;
	case ISA_JNE: {
		int c = absint_cond64(ISA_JEQ, a, b);

		return c < 0 ? -1 : !c;
	}
	case ISA_JGT: return a->umin > b->umax ? 1 : a->umax <= b->umin ? 0 : -1;
	case ISA_JGE: return a->umin >= b->umax ? 1 : a->umax < b->umin ? 0 : -1;
	case ISA_JLT: return absint_cond64(ISA_JGT, b, a);
	case ISA_JLE: return absint_cond64(ISA_JGE, b, a);
	case ISA_JSGT: return a->smin > b->smax ? 1 : a->smax <= b->smin ? 0 : -1;
	case ISA_JSGE: return a->smin >= b->smax ? 1 : a->smax < b->smin ? 0 : -1;
	case ISA_JSLT: return absint_cond64(ISA_JSGT, b, a);
	case ISA_JSLE: return absint_cond64(ISA_JSGE, b, a);
	case ISA_JSET:
		if (a->tv & b->tv)
			return 1;
		return ((a->tv | a->tm) & (b->tv | b->tm)) == 0 ? 0 : -1;
	default:
		return -1;
	}
}

static bool is_signed(unsigned op)
{
	return op == ISA_JSGT || op == ISA_JSGE || op == ISA_JSLT || op == ISA_JSLE;
}

/* the value a 32-bit comparison compares, as a 64-bit value */
static struct absint_val view32(unsigned op, const struct absint_val *a)
{
	return is_signed(op) ? sext_to(a, 32) : trunc_to(a, 32);
}

int absint_cond32(unsigned op, const struct absint_val *a, const struct absint_val *b)
{
	struct absint_val x = view32(op, a), y = view32(op, b);

	return absint_cond64(op, &x, &y);
}

static unsigned negate(unsigned op)
{
	switch (op) {
	case ISA_JEQ: return ISA_JNE;
	case ISA_JNE: return ISA_JEQ;
	case ISA_JGT: return ISA_JLE;
	case ISA_JLE: return ISA_JGT;
	case ISA_JGE: return ISA_JLT;
	case ISA_JLT: return ISA_JGE;
	case ISA_JSGT: return ISA_JSLE;
	case ISA_JSLE: return ISA_JSGT;
	case ISA_JSGE: return ISA_JSLT;
	case ISA_JSLT: return ISA_JSGE;
	default: return op;
	}
}

/* A != C: shave C off the ends of A's intervals */
static bool not_equal(struct absint_val *a, uint64_t c)
{
	if (a->umin == c && a->umin == a->umax)
		return false;
	if (a->umin == c)
		a->umin++;
	else if (a->umax == c)
		a->umax--;
	if (a->smin == (int64_t)c && a->smin < a->smax)
		a->smin++;
	else if (a->smax == (int64_t)c && a->smin < a->smax)
		a->smax--;
	return absint_sync(a);
}

/* JSET with a constant C: (A & C) != 0 (SET) or == 0 */
static bool jset_const(struct absint_val *a, uint64_t c, bool set)
{
	if (!set) {
		if (a->tv & c)
			return false;
		a->tm &= ~c;
		return absint_sync(a);
	}
	if (!((a->tv | a->tm) & c))
		return false;
	if (c && !(c & (c - 1)) && !(a->tv & c)) {     /* one bit: it is 1 */
		a->tv |= c;
		a->tm &= ~c;
	}
	return absint_sync(a);
}

static bool refine64(unsigned op, bool set, struct absint_val *a, struct absint_val *b)
{
	uint64_t c;

	switch (op) {
	case ISA_JEQ:
		if (!absint_meet(a, b))
			return false;
		*b = *a;
		return true;
	case ISA_JNE:
		if (absint_is_const(b, &c) && !not_equal(a, c))
			return false;
		if (absint_is_const(a, &c) && !not_equal(b, c))
			return false;
		return true;
	case ISA_JGT:                     /* a > b */
		if (b->umin == U64_MAX || a->umax == 0)
			return false;
		a->umin = umax64(a->umin, b->umin + 1);
		b->umax = umin64(b->umax, a->umax - 1);
		return absint_sync(a) && absint_sync(b);
	case ISA_JGE:
		a->umin = umax64(a->umin, b->umin);
		b->umax = umin64(b->umax, a->umax);
		return absint_sync(a) && absint_sync(b);
	case ISA_JLT: return refine64(ISA_JGT, set, b, a);
	case ISA_JLE: return refine64(ISA_JGE, set, b, a);
	case ISA_JSGT:
		if (b->smin == INT64_MAX || a->smax == INT64_MIN)
			return false;
		a->smin = smax64(a->smin, b->smin + 1);
		b->smax = smin64(b->smax, a->smax - 1);
		return absint_sync(a) && absint_sync(b);
	case ISA_JSGE:
		a->smin = smax64(a->smin, b->smin);
		b->smax = smin64(b->smax, a->smax);
		return absint_sync(a) && absint_sync(b);
	case ISA_JSLT: return refine64(ISA_JSGT, set, b, a);
	case ISA_JSLE: return refine64(ISA_JSGE, set, b, a);
	case ISA_JSET:
		if (absint_cond64(ISA_JSET, a, b) == (set ? 0 : 1))
			return false;
		if (absint_is_const(b, &c) && !jset_const(a, c, set))
			return false;
		if (absint_is_const(a, &c) && !jset_const(b, c, set))
			return false;
		return true;
	default:
		return true;
	}
}

/* A restricted to values whose compared low half is in V (refined view32) */
static bool back32(struct absint_val *a, const struct absint_val *v, unsigned op)
{
	struct absint_val low = is_signed(op) ? trunc_to(v, 32) : *v;

	if (a->umax <= LOW32)
		return absint_meet(a, &low);
	if (!tn_meet(a, low.tv, low.tm | ~LOW32))
		return false;
	return absint_sync(a);
}

bool absint_refine(unsigned op, bool is64, bool taken, struct absint_val *a,
		   struct absint_val *b)
{
	struct absint_val x, y;
	unsigned o = op == ISA_JSET || taken ? op : negate(op);
	bool set = op != ISA_JSET || taken;

	if (is64)
		return absint_cond64(op, a, b) != (taken ? 0 : 1) && refine64(o, set, a, b);
	x = view32(op, a);        /* absint_cond's views, made once */
	y = view32(op, b);
	if (absint_cond64(op, &x, &y) == (taken ? 0 : 1) || !refine64(o, set, &x, &y))
		return false;
	return back32(a, &x, op) && back32(b, &y, op);
}

/* Top with the tnum (tv, tm) (tv's unknown bits cleared). */
static struct absint_val from_tnum(uint64_t tv, uint64_t tm)
{
	struct absint_val t = absint_top();

	t.tm = tm;
	t.tv = tv & ~tm;
	return t;
}

bool absint_invert_alu(unsigned op, bool is64, bool const_lhs, const struct absint_val *x,
		       uint64_t c, struct absint_val *out)
{
	uint64_t w = is64 ? U64_MAX : LOW32, hi = ~w, xm = x->tm & w, xv = x->tv & w;
	struct absint_val k = absint_const(c), t;
	unsigned sh;

	switch (op) {
	case ISA_MOV:                 /* x = y (64), x = zext32(y) */
		*out = is64 ? *x : from_tnum(xv, xm | hi);
		return true;
	case ISA_AND:                 /* bits where c is 1 are x's */
		*out = from_tnum(xv, ((~c | xm) & w) | hi);
		return true;
	case ISA_OR:                  /* bits where c is 0 are x's */
		*out = from_tnum(xv, ((c | xm) & w) | hi);
		return true;
	case ISA_XOR:
		*out = from_tnum(xv ^ (c & w), xm | hi);
		return true;
	case ISA_ADD:                 /* y = x - c */
		t = absint_alu(ISA_SUB, is64, x, &k);
		break;
	case ISA_SUB:                 /* y - c = x: y = x + c; c - y = x: y = c - x */
		t = const_lhs ? absint_alu(ISA_SUB, is64, &k, x) : absint_alu(ISA_ADD, is64, x, &k);
		break;
	case ISA_LSH:                 /* y's bit i is x's bit i + sh */
		if (const_lhs)
			return false;
		sh = (unsigned)(c & (is64 ? 63 : 31));
		*out = from_tnum(xv >> sh, (xm >> sh) | ~(w >> sh));
		return true;
	case ISA_RSH:                 /* y's bit i + sh is x's bit i */
		if (const_lhs)
			return false;
		sh = (unsigned)(c & (is64 ? 63 : 31));
		*out = from_tnum((xv << sh) & w, ((xm << sh) & w) | mask_of(sh) | hi);
		if (is64 && x->umin <= (U64_MAX >> sh)) {
			out->umin = x->umin << sh;
			out->umax = (umin64(x->umax, U64_MAX >> sh) << sh) | mask_of(sh);
		}
		return true;
	default:
		return false;
	}
	/* ADD, SUB: exact on the low half for 32 bits, the rest unknown */
	*out = is64 ? t : from_tnum(t.tv & w, (t.tm & w) | hi);
	return true;
}

struct absint_val absint_invert_extract(const struct absint_val *x, unsigned byte,
					unsigned size)
{
	uint64_t m = mask_of(size * 8u);
	unsigned at = byte * 8u;

	if (size == 0 || byte + size > 8)
		return absint_top();
	return from_tnum((x->tv & m) << at, ~(m << at) | ((x->tm & m) << at));
}

void absint_format(const struct absint_val *a, char *buf, size_t len)
{
	uint64_t c;

	if (absint_is_const(a, &c)) {
		snprintf(buf, len, "%#" PRIx64, c);
		return;
	}
	snprintf(buf, len, "u[%#" PRIx64 ", %#" PRIx64 "] s[%" PRId64 ", %" PRId64
		 "] tnum(%#" PRIx64 ", %#" PRIx64 ")", a->umin, a->umax, a->smin, a->smax,
		 a->tv, a->tm);
}
