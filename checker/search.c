/* search.c - concrete search for counterexamples before Z3 (contract:
 * search.h): the candidates (seeds, the other side of each branch, the
 * other choice of each call), the budget, the search's loop. The spec's
 * conditions as hints are search_hint.c, the minimisation of what was
 * found search_min.c, the queue search_queue.c, the probe search_probe.c.
 */
#include "search_priv.h"

#include "instrument.h"

#include <stdlib.h>
#include <string.h>

/* ---- small tables ------------------------------------------------------ */

/* Slots for a table of at most KEYS keys: a power of two above them (the
 * table never fills), at most MAX (the size it had when fixed; past that
 * a full table treats a new key as seen, as it did). */
static unsigned table_size(uint64_t keys, unsigned max)
{
	unsigned n = 16;

	while (n <= keys && n < max)
		n *= 2;
	return n;
}

/* S as CAP (table_size) slots at most, few at first */
static void set_init(struct search_set *s, unsigned cap)
{
	s->cap = cap;
	s->n = cap < 128 ? cap : 128;
	s->used = 0;
	s->t = calloc(s->n, sizeof(*s->t));
	if (!s->t)
		abort();
}

/* KEY + 1 into the free slot of its probe sequence in T of N slots */
static void set_put(uint64_t *t, unsigned n, uint64_t stored)
{
	unsigned i = (unsigned)search_mix(stored - 1) & (n - 1);

	while (t[i])
		i = (i + 1) & (n - 1);
	t[i] = stored;
}

/* S, half full and below its CAP slots, grown (rehashed into 4 times
 * the slots, at most CAP), then KEY (not in S) added: out of line, so
 * that search_set_add, which runs for every branch of every run and
 * mostly finds its key, saves no registers for it */
__attribute__((noinline))
static bool set_grow_add(struct search_set *s, uint64_t key)
{
	unsigned n = 4 * s->n < s->cap ? 4 * s->n : s->cap, i;
	uint64_t *t = calloc(n, sizeof(*t));

	if (!t)
		abort();
	for (i = 0; i < s->n; i++)
		if (s->t[i])
			set_put(t, n, s->t[i]);
	free(s->t);
	s->t = t;
	s->n = n;
	set_put(t, n, key + 1);
	s->used++;
	return true;
}

bool search_set_add(struct search_set *s, uint64_t key)
{
	unsigned n = s->n, i = (unsigned)search_mix(key) & (n - 1), k;
	uint64_t *t = s->t;

	for (k = 0; k < n && t[i]; k++, i = (i + 1) & (n - 1))
		if (t[i] == key + 1)
			return false;
	if (k == n)
		return false;          /* full (N is CAP): treat as seen */
	if (2 * s->used >= n && n < s->cap)
		return set_grow_add(s, key);
	t[i] = key + 1;
	s->used++;
	return true;
}

static bool set_has(const struct search_set *s, uint64_t key)
{
	unsigned n = s->n, i = (unsigned)search_mix(key) & (n - 1), k;
	const uint64_t *t = s->t;

	for (k = 0; k < n && t[i]; k++, i = (i + 1) & (n - 1))
		if (t[i] == key + 1)
			return true;
	return false;
}

static uint64_t edge_key(int sec, uint32_t slot, bool taken)
{
	return ((uint64_t)(uint32_t)sec << 33) | ((uint64_t)slot << 1) | taken;
}

/* ---- the search -------------------------------------------------------- */

#define COFF(t, field) ((size_t)((const uint8_t *)&(t)->field - (const uint8_t *)(t)))

/* The candidates of an expansion of CD are made in T (sr->tmp), which is a copy of
 * CD before and after each one (expand, guide_flip): each changes a few
 * bytes of T, is pushed, and puts them back (a copy of the 4.5 KB per
 * candidate was most of an expansion: loop_sum's bound, 900 instructions
 * of a flip_len's 1,200). */

/* One of the 8 bytes at P has a nibble X (X < 16): the top bit of each
 * nibble of V that is 0 (exact: no carry crosses a nibble). */
static bool has_nibble(const uint8_t *p, uint64_t x)
{
	const uint64_t lo = 0x7777777777777777ull;
	uint64_t v;

	memcpy(&v, p, 8);
	v ^= 0x1111111111111111ull * x;
	return ~(((v & lo) + lo) | v | lo) != 0;
}

/* 0x80 in each byte of V that is 0, else 0 (exact: no carry crosses a
 * byte) */
static uint64_t zero_mask(uint64_t v)
{
	const uint64_t lo = 0x7f7f7f7f7f7f7f7full;

	return ~(((v & lo) + lo) | v | lo);
}

/* The first offset from OFF on whose bytes at + AT[k] may have every bit
 * of XB[k] (k < M, AT ascending): 8 offsets a step while all 8 bytes
 * their loads need are below N (exactly those that have them), then OFF
 * as it is (the caller tests each byte). */
static uint32_t bits_next(const uint8_t *buf, uint32_t n, uint32_t off, const uint8_t *xb,
			  const uint8_t *at, unsigned m)
{
	uint64_t v, hit;
	unsigned k;

	for (; off + at[m - 1] + 8 <= n; off += 8) {
		hit = ~0ull;
		for (k = 0; k < m; k++) {
			memcpy(&v, buf + off + at[k], 8);
			hit &= zero_mask(~v & 0x0101010101010101ull * xb[k]);
		}
		if (hit)
			return off + (unsigned)__builtin_ctzll(hit) / 8;
	}
	return off;
}

/* X's encodings for subst_bytes, for one side of a flip: made once for
 * the regions it scans (the packet, each entry and helper write, the
 * context, the globals) */
struct subst {
	uint64_t x, y;
	unsigned w, nbe;               /* X's bytes; its byte orders (1 when W is 1) */
	uint8_t enc[2][8];             /* X in W bytes, little- and big-endian */
	unsigned j[2];                 /* enc[be]'s first byte that is not 0 */
};

/* X is not 0 (the host is little-endian: object.c) */
static void subst_init(struct subst *sb, uint64_t x, uint64_t y)
{
	unsigned w = x < 0x100 ? 1 : x < 0x10000 ? 2 : x < 0x100000000ull ? 4 : 8;
	uint64_t v = __builtin_bswap64(x) >> (64 - 8 * w);

	sb->x = x;
	sb->y = y;
	sb->w = w;
	sb->nbe = w > 1 ? 2 : 1;
	memcpy(sb->enc[0], &x, 8);
	memcpy(sb->enc[1], &v, 8);
	sb->j[0] = (unsigned)__builtin_ctzll(x) / 8;
	sb->j[1] = (unsigned)__builtin_ctzll(v) / 8;
}

/* Replace the W-byte encodings (both byte orders) of X in BUF[0..N) by Y
 * and Y +- 1, a candidate each (at most 4 places). The search for a
 * nibble skips 8 bytes a step where none has it (a byte a step, two
 * nibbles each, was a third of subst_bytes' own instructions). */
static void subst_bytes(struct search *sr, const struct cand *cd, struct cand *t, uint8_t *tb,
			const uint8_t *buf, uint32_t n, const struct subst *sb)
{
	uint64_t x = sb->x, y = sb->y;
	unsigned w = sb->w, be, d, hits = 0;
	uint32_t off, i;

	for (be = 0; be < sb->nbe; be++) {
		const uint8_t *enc = sb->enc[be];
		unsigned j = sb->j[be];    /* a byte of X's that is not 0 (most bytes are 0) */

		for (off = 0; off + w <= n && hits < 4; off++) {
			const uint8_t *at = memchr(buf + off + j, enc[j], n - w + 1 - off);

			if (!at)
				break;
			off = (uint32_t)(at - buf) - j;   /* the next offset where byte j matches */
			if (memcmp(buf + off, enc, w))
				continue;
			hits++;
			for (d = 0; d < 3; d++) {
				uint64_t yy = y + (d == 1) - (d == 2);

				if (w < 8 && yy >> (8 * w))
					continue;
				for (i = 0; i < w; i++)
					tb[off + i] = (uint8_t)(yy >> (8 * (be ? w - 1 - i : i)));
				search_push_delta(sr, cd, t, (size_t)(tb - (uint8_t *)t) + off,
					   (size_t)(tb - (uint8_t *)t) + off + w);
				memcpy(tb + off, buf + off, w);   /* T is CD again */
			}
		}
	}
	/* no byte pattern of a small X: X may be a nibble of a byte (a
	 * bitfield: an IPv4 header's ihl and version); set the nibble of each
	 * byte whose low or high nibble is X to Y and Y +- 1 */
	for (off = 0; !hits && x < 16 && y < 16 && off < n; off++) {
		while (off + 8 <= n && !has_nibble(buf + off, x))
			off += 8;
		if (off >= n)
			break;
		for (be = 0; be < 2 && hits < 4; be++) {
			unsigned sh = be ? 4 : 0;

			if (((buf[off] >> sh) & 0xfu) != x)
				continue;
			hits++;
			for (d = 0; d < 3; d++) {
				uint64_t yy = y + (d == 1) - (d == 2);

				if (yy > 15)
					continue;
				tb[off] = (uint8_t)((buf[off] & ~(0xfu << sh)) | (unsigned)yy << sh);
				search_push_delta(sr, cd, t, (size_t)(tb - (uint8_t *)t) + off,
					   (size_t)(tb - (uint8_t *)t) + off + 1);
				tb[off] = buf[off];
			}
		}
	}
	/* no byte pattern of X, and the branch wants 0: X may be a masked
	 * load; clear X's bits where the bytes have all of them (X's bytes
	 * that are not 0 compared, as XB at positions AT: most of X's 8
	 * bytes are 0, and tested a byte a step they were most of a flip) */
	for (be = 0; !hits && !y && be < sb->nbe; be++) {
		uint8_t xb[8] = { 0 }, at[8] = { 0 }, x0;
		unsigned m = 0, k, a0;

		for (i = 0; i < w; i++) {
			uint8_t b = sb->enc[be][i];

			if (b) {
				xb[m] = b;
				at[m++] = (uint8_t)i;
			}
		}
		a0 = at[0];                /* X is not 0: m >= 1 */
		x0 = xb[0];
		for (off = 0; off + w <= n && hits < 4; off++) {
			off = bits_next(buf, n, off, xb, at, m);
			if (off + w > n)
				break;
			if ((buf[off + a0] & x0) != x0)
				continue;  /* the first lacks some of X's bits there */
			for (k = 1; k < m && (buf[off + at[k]] & xb[k]) == xb[k]; k++)
				;
			if (k < m)
				continue;  /* another does */
			hits++;
			for (k = 0; k < m; k++)
				tb[off + at[k]] = (uint8_t)(buf[off + at[k]] & ~xb[k]);
			search_push_delta(sr, cd, t, (size_t)(tb - (uint8_t *)t) + off,
				   (size_t)(tb - (uint8_t *)t) + off + w);
			memcpy(tb + off, buf + off, w);
		}
	}
}

/* Branch C compares a register holding packet bytes changed by a
 * constant operation (the probe's track): a masked or shifted load, whose
 * value appears nowhere in the input (`tcp->syn && tcp->fin` is
 * `(w & 0x300) == 0x300` of the flags word), so substitution cannot flip
 * it. Candidates with those bytes all ones, all zeros, and the other
 * operand in either byte order. */
static void flip_origin(struct search *sr, const struct cand *cd, const struct cmp *c,
			struct cand *t)
{
	uint32_t off = c->org - 1u, n = c->orgsz & ~ORG_CHANGED, i;
	uint64_t y = c->jset ? (c->taken ? 0 : c->b) : c->b;
	unsigned v;

	if (!c->org || !(c->orgsz & ORG_CHANGED) || !n || n > 8 || off + n > cd->len)
		return;
	for (v = 0; v < 4; v++) {
		for (i = 0; i < n; i++) {
			unsigned sh = 8 * (v == 3 ? n - 1 - i : i);

			t->pkt[off + i] = v == 0 ? 0xff : v == 1 ? 0 : (uint8_t)(y >> sh);
		}
		search_push_delta(sr, cd, t, COFF(t, pkt[off]), COFF(t, pkt[off]) + n);
		memcpy(t->pkt + off, cd->pkt + off, n);
	}
}

/* Branch C compares a register loaded from the candidate's global data
 * or map entries (the probe's track): any value there is a choice, 0
 * too, which substitution does not look for. Candidates with those bytes
 * the other operand and +-1 (as loaded), or all ones, zeros and the other
 * operand (changed by an operation with a constant). */
static void flip_bytes(struct search *sr, const struct cand *cd, const struct cmp *c,
		       struct cand *t)
{
	uint32_t off = c->corg - 1u, n = c->orgsz & ~ORG_CHANGED, i;
	uint64_t y = c->jset ? (c->taken ? 0 : c->b) : c->b;
	unsigned v;

	if (!c->corg || !n || n > 8 || off + n > sizeof(*t))
		return;
	for (v = 0; v < 3; v++) {
		uint64_t yy = c->orgsz & ORG_CHANGED ? (v == 0 ? ~0ull : v == 1 ? 0 : y)
						     : y + (v == 1) - (v == 2);

		for (i = 0; i < n; i++)
			((uint8_t *)t)[off + i] = (uint8_t)(yy >> (8 * i));
		search_push_delta(sr, cd, t, off, off + n);
		memcpy((uint8_t *)t + off, (const uint8_t *)cd + off, n);
	}
}

/* New candidates from branch C of a run of CD: make its other side run. */
/* Branch C compares data_end with a packet pointer: candidates with the
 * packet as long as that pointer's offset, and one byte either side;
 * false when C is no such comparison. */
static bool flip_len(struct search *sr, const struct cand *cd, struct probe *pr,
		     const struct cmp *c, struct cand *t)
{
	uint64_t ops[2] = { c->a, c->b };
	unsigned s, d;

	if (!sr->has_pkt || c->is32)
		return false;
	for (s = 0; s < 2; s++) {
		int64_t l = (int64_t)(ops[!s] - pr->data);

		if (ops[s] != pr->end || ops[!s] < pr->data || l > (int64_t)S_PKT)
			continue;
		for (d = 0; d < 3; d++) {
			int64_t nl = l + (int64_t)d - 1;

			if (nl < 0 || nl > (int64_t)S_PKT)
				continue;
			t->len = (uint32_t)nl;
			search_push_delta(sr, cd, t, COFF(t, len), COFF(t, len) + sizeof(t->len));
			t->len = cd->len;
		}
		return true;
	}
	return false;
}

static void flip(struct search *sr, const struct cand *cd, struct probe *pr, const struct cmp *c,
		 struct cand *t)
{
	uint64_t ops[2] = { c->a, c->b }, x, y, mask = c->is32 ? 0xffffffffull : ~0ull;
	struct subst sb;
	unsigned s, k, d;

	if (flip_len(sr, cd, pr, c, t))
		return;
	for (s = 0; s < 2; s++) {
		x = ops[s];
		y = ops[!s];
		if (c->jset)               /* the other side: the bits cleared or set */
			y = c->taken ? x & ~y : x | y;
		if (!x || (c->jset && s))
			continue;
		for (k = 0; k < pr->calls.len && k < S_CALLS; k++) {
			const struct cex_call *cc = &((const struct cex_call *)pr->calls.data)[k];

			if (!pr->pc[k].value || (cc->ret & mask) != x || cd->opt[k])
				continue;
			for (d = 0; d < 3; d++) {
				t->has_ret[k] = 1;
				t->ret[k] = (cc->ret & ~mask) | ((y + (d == 1) - (d == 2)) & mask);
				if (search_fits(&pr->pc[k], t->ret[k]))
					search_push_delta2(sr, cd, t, COFF(t, has_ret[k]), COFF(t, has_ret[k]) + 1,
						    COFF(t, ret[k]), COFF(t, ret[k]) + sizeof(t->ret[k]));
				t->has_ret[k] = cd->has_ret[k];
				t->ret[k] = cd->ret[k];
			}
		}
		for (k = 0; k < pr->reads.len; k++) {
			const struct cex_read *rd = &((const struct cex_read *)pr->reads.data)[k];

			if ((rd->value & mask) != x)
				continue;
			for (d = 0; d < 3; d++) {
				t->has_rd[k] = 1;
				t->rd[k] = y + (d == 1) - (d == 2);
				search_push_delta2(sr, cd, t, COFF(t, has_rd[k]), COFF(t, has_rd[k]) + 1,
					    COFF(t, rd[k]), COFF(t, rd[k]) + sizeof(t->rd[k]));
				t->has_rd[k] = cd->has_rd[k];
				t->rd[k] = cd->rd[k];
			}
		}
		subst_init(&sb, x, y);
		if (sr->has_pkt)
			subst_bytes(sr, cd, t, t->pkt, cd->pkt, cd->len, &sb);
		for (k = 0; k < pr->nents; k++)
			subst_bytes(sr, cd, t, t->ent[k], cd->ent[k], S_ENTSZ, &sb);
		for (k = 0; k < pr->nwr; k++)
			subst_bytes(sr, cd, t, t->wr[k], cd->wr[k], S_ENTSZ, &sb);
		if (sr->plain_ctx)
			subst_bytes(sr, cd, t, t->ctx, cd->ctx, CTX_SIZE, &sb);
		if (sr->nglob)
			subst_bytes(sr, cd, t, t->glob, cd->glob, sr->nglob, &sb);
	}
	flip_origin(sr, cd, c, t);
	flip_bytes(sr, cd, c, t);
}

/* True for the first S_FLIPS runs that want C's other side: the runs
 * after them reach the branch by the same inputs mostly (the siblings of
 * a flip earlier on the path), and flipping it from each of them filled
 * the queue with copies of one attempt (tc_classifier's bound: 60 of its
 * 96 inputs were +-1 variants of a mark already unequal). 3 decided the
 * most checks of tests/e2e (search_e2e: 94 with no limit, 92 with 2,
 * 102 with 3, 98 with 4). */
static bool flip_turn(struct search *sr, const struct cmp *c)
{
	unsigned k;

	for (k = 0; k < S_FLIPS; k++)
		if (search_set_add(&sr->flips,
			    edge_key(c->sec, c->slot, !c->taken) * S_FLIPS + k))
			return true;
	return false;
}

/* The guide's first decision the run of CD made the other way: that
 * branch flipped, its candidates first in the queue (a run that follows
 * the guide up to where it ends flips nothing). */
static void guide_flip(struct search *sr, const struct cand *cd, struct probe *pr, struct cand *t)
{
	const struct search_guide *g = sr->guide;
	unsigned i, j = 0, k, n = pr->ncmps - (pr->pending ? 1 : 0);

	if (!g || search_budget_full(sr))
		return;
	for (i = 0; i < n && j < g->n; i++) {
		const struct cmp *c = &pr->cmps[i];

		if (c->sec != g->steps[j].sec || c->slot != g->steps[j].slot)
			continue;
		if (c->taken == g->steps[j].taken) {
			j++;
			continue;
		}
		if (sr->gtries[j] >= S_GUIDED)
			return;
		sr->gtries[j]++;
		sr->front = true;
		k = sr->qlen;
		flip(sr, cd, pr, c, t);
		if (sr->qlen == k && pr->nents) {
			/* nothing in the input is the operand (a pointer a
			 * lookup returned, a key computed from entries): the
			 * run's map entries as small numbers, every 32-bit
			 * word 1 (a range's first and count, an index) */
			for (k = 0; k < pr->nents; k++)
				for (j = 0; j < S_ENTSZ; j++)
					t->ent[k][j] = j % 4 == 0;
			sr->front = false;    /* after what the search has */
			search_push(sr, t);
			memcpy(t->ent, cd->ent, pr->nents * sizeof(t->ent[0]));   /* T is CD */
		}
		sr->front = false;
		return;
	}
}

/* T: a copy of CD; false when T is CD no more on return */
static bool expand(struct search *sr, const struct cand *cd, struct probe *pr, struct cand *t)
{
	bool fresh = false, longer;
	unsigned i, k, o;

	if (search_budget_full(sr))           /* nothing it makes would run */
		return true;
	for (i = 0; i < pr->ncmps; i++)
		if (!pr->pending || i + 1 < pr->ncmps)
			fresh |= search_set_add(&sr->cov,
					 edge_key(pr->cmps[i].sec, pr->cmps[i].slot, pr->cmps[i].taken));
	/* the other choice of each call not decided yet */
	for (k = cd->fixed; k < pr->calls.len && k < S_CALLS; k++) {
		for (o = 1; o < pr->pc[k].nopts; o++) {
			t->opt[k] = (uint8_t)o;
			t->fixed = k + 1;
			search_push_delta2(sr, cd, t, COFF(t, fixed), COFF(t, fixed) + sizeof(t->fixed),
				    COFF(t, opt[k]), COFF(t, opt[k]) + 1);
			t->opt[k] = cd->opt[k];
			t->fixed = cd->fixed;
		}
	}
	/* a bound's search: a run longer than every earlier one has each
	 * packet length it checks and each global it compares tried again,
	 * covered or not (a loop over the packet's bytes checks the length
	 * at one branch: its first flips cover both sides after a byte or
	 * two; a global's flip on a short packet covered its branch) */
	longer = sr->c->has_bound && pr->status == INTERP_EXIT && pr->steps > sr->longest;
	if (longer)
		sr->longest = pr->steps;
	for (i = 0; i < pr->ncmps; i++) {
		const struct cmp *c = &pr->cmps[i];

		if (pr->pending && i + 1 == pr->ncmps)
			break;
		if (!set_has(&sr->cov, edge_key(c->sec, c->slot, !c->taken)) &&
		    flip_turn(sr, c))
			flip(sr, cd, pr, c, t);
		else if (longer && !flip_len(sr, cd, pr, c, t))
			flip_bytes(sr, cd, c, t);
	}
	for (i = 0; fresh && i < sr->nhints; i++) {
		if (i)
			memcpy(t, cd, sizeof(*t));   /* T is CD no more */
		search_apply_hint(t, sr->hints[i]);
		search_push(sr, t);
	}
	return !fresh || !sr->nhints;
}

static uint8_t pattern(unsigned i, unsigned salt)
{
	return (uint8_t)(0x41 + i * 13 + salt * 29);
}

/* O < 256 with pattern(i, SALT) == pattern(i + O, 0): 13 * O == 29 * SALT
 * (mod 256), 197 the inverse of 13 (13 * 197 = 10 * 256 + 1) */
static unsigned pattern_at(unsigned salt)
{
	return (29u * salt * 197u) & 0xffu;
}

_Static_assert(0xff + S_ENTSZ <= S_PKT && 0xff + CTX_SIZE <= S_PKT,
	       "the patterned packet holds every offset's bytes");

_Static_assert(offsetof(struct cand, ctx) == offsetof(struct cand, pkt) + S_PKT &&
	       offsetof(struct cand, wr) == offsetof(struct cand, ent) + S_ENTS * S_ENTSZ &&
	       offsetof(struct cand, glob) == offsetof(struct cand, wr) + S_WR * S_ENTSZ,
	       "bg_init writes every byte of the patterned background");

/* The patterned background, every byte of it (its zeros here, not in a
 * clearing of the search's 9 KB): the packet, map entries, helper writes
 * and a plain context patterned, the object's global data, 0 elsewhere */
static void bg_init(struct search *sr)
{
	struct cand *b = &sr->bg1;
	unsigned i, k;

	memset(b, 0, offsetof(struct cand, pkt));
	/* its first 256 bytes 64 a loop (its count known: vectorised; 1,514
	 * bytes a byte a step were 7.5K instructions a search), the rest
	 * copies of them: the packet's period is 256 (pattern_at; made 64
	 * a loop, 3.4K instructions a search) */
	for (k = 0; k < 256; k += 64)
		for (i = 0; i < 64; i++)
			b->pkt[k + i] = pattern(k + i, 0);
	for (k = 256; k + 256 <= S_PKT; k += 256)
		memcpy(b->pkt + k, b->pkt, 256);
	memcpy(b->pkt + k, b->pkt, S_PKT - k);
	/* the others are the packet's from an offset: pattern(i, s) is
	 * pattern(i + pattern_at(s), 0), the packet's period 256 */
	if (sr->plain_ctx)
		memcpy(b->ctx, b->pkt + pattern_at(40), CTX_SIZE);
	else
		memset(b->ctx, 0, CTX_SIZE);
	memset((uint8_t *)b + offsetof(struct cand, ctx) + CTX_SIZE, 0,
	       offsetof(struct cand, ent) - offsetof(struct cand, ctx) - CTX_SIZE);
	for (k = 0; k < S_ENTS; k++)
		memcpy(b->ent[k], b->pkt + pattern_at(k + 1), S_ENTSZ);
	for (k = 0; k < S_WR; k++)
		memcpy(b->wr[k], b->pkt + pattern_at(k + 20), S_ENTSZ);
	memset(b->glob, 0, sizeof(*b) - offsetof(struct cand, glob));
	for (k = 0; k < sr->o->nmaps; k++) {       /* globals: the object's bytes */
		uint32_t off, n = search_glob_span(sr->o, k, &off);

		if (!n)
			continue;
		memcpy(b->glob + off, sr->o->datasecs[sr->o->maps[k].datasec].init, n);
		sr->nglob = off + n;
	}
}

/* BASE: the hint every seed has (NULL: none) */
static void seeds(struct search *sr, const struct hint *base)
{
	struct cand *t = malloc(sizeof(*t));   /* a copy of a background before use */
	unsigned salt, i;

	if (!t)
		abort();
	bg_init(sr);
	for (salt = 0; salt < 2; salt++) {
		memcpy(t, search_bg(sr, salt), sizeof(*t));
		if (!salt)                 /* the object's global data (and zeros) */
			memcpy(t->glob, sr->bg1.glob, S_GLOB);
		if (base) {
			search_apply_hint(t, base);
			search_push(sr, t);
		} else {                   /* its background but for those */
			search_push_range(sr, t, offsetof(struct cand, glob),
					  salt ? offsetof(struct cand, glob) :
					  offsetof(struct cand, glob) + S_GLOB);
		}
		for (i = 0; i < sr->nhints; i++) {
			struct cand *h = malloc(sizeof(*h));

			if (!h)
				abort();
			memcpy(h, t, sizeof(*h));
			search_apply_hint(h, sr->hints[i]);
			search_push(sr, h);
			free(h);
		}
	}
	free(t);
}

bool search_run(const struct loaded *l, const struct mon_check *c, struct arena *a,
		struct cex **out, unsigned *runs)
{
	return search_run_budget(l, c, SEARCH_BUDGET, a, out, runs);
}

bool search_run_budget(const struct loaded *l, const struct mon_check *c, unsigned budget,
		       struct arena *a, struct cex **out, unsigned *runs)
{
	return search_run_guided(l, c, budget, NULL, a, out, runs);
}

bool search_run_guided(const struct loaded *l, const struct mon_check *c, unsigned budget,
		       const struct search_guide *guide, struct arena *a, struct cex **out,
		       unsigned *runs)
{
	struct search *sr = malloc(sizeof(*sr));
	struct probe *pr = malloc(sizeof(*pr));
	/* the spec's assumes' and handlers' hint for every seed: none
	 * without them (its masks all 0: a 6.7 KB calloc and two
	 * apply_hint a search that change nothing) */
	bool hinted = c->nassumes || c->nhandlers;
	struct hint *base = hinted ? calloc(1, sizeof(*base)) : NULL;
	struct cand *found = NULL;
	/* the queue entries sr->cur and sr->tmp hold (NULL: none) */
	const struct qent *cur_at = NULL, *tmp_at = NULL;
	unsigned i, h, site = 0;
	uint64_t slots = 0;
	bool ok = false;

	if (!sr || !pr || (hinted && !base))
		abort();
	memset(sr, 0, offsetof(struct search, bg1));
	*runs = 0;
	sr->budget = budget;
	sr->guide = guide;
	sr->gtries = calloc(guide ? guide->n + 1 : 1, 1);
	sr->l = l;
	sr->c = c;
	sr->o = l->o;
	sr->bound_only = search_bound_only(c);
	sr->bound_sole = search_bound_sole(c);
	if (sr->bound_only)
		memset(pr->seen, 0, sizeof(pr->seen));
	sr->has_pkt = instrument_pkt_fields(l->o->funcs[c->func].prog_type, &sr->off_data,
					    &sr->off_end, &sr->off_meta);
	sr->nslots = calloc(l->o->nsections + 1, sizeof(uint32_t));
	for (i = 0; i < l->o->nsections; i++) {
		sr->nslots[i] = l->o->sections[i].nslots;
		slots += sr->nslots[i];
	}
	sr->gspans = calloc(l->o->nmaps + 1, sizeof(*sr->gspans));
	if (!sr->gspans)
		abort();
	for (i = 0; i < l->o->nmaps; i++)
		sr->gspans[i].n = search_glob_span(l->o, i, &sr->gspans[i].off);
	search_probe_init(sr, pr);
	sr->qcap = budget < S_QUEUE ? budget + 1 : S_QUEUE;
	set_init(&sr->seen, table_size(budget, 4096));
	set_init(&sr->cov, table_size(2 * slots, 8192));    /* two sides of each branch */
	set_init(&sr->flips, table_size(2 * S_FLIPS * slots, 4096));
	sr->q = malloc(sr->qcap * sizeof(*sr->q));          /* each set when queued */
	sr->qa = arena_new();
	sr->hints = calloc(64, sizeof(*sr->hints));
	if (!sr->nslots || !sr->q || !sr->qa || !sr->hints)
		abort();
	/* a context of plain numbers (XDP, tc, socket programs): patterned too */
	sr->plain_ctx = sr->has_pkt && l->o->funcs[c->func].prog_type != BPF_PROG_TYPE_XDP;
	if (base) {
		base->exactlen = -1;
		for (i = 0; i < c->nassumes; i++)
			search_hint_cond(sr, base, c->assumes[i]);
		for (h = 0; h < c->nhandlers; h++)
			search_hint_stmts(sr, c->handlers[h].body, c->handlers[h].n, base);
	}
	seeds(sr, base);
	while (sr->qlen && sr->runs < sr->budget) {
		struct qent *e = sr->q[sr->qhead++ % sr->qcap];

		sr->qlen--;
		search_decode_from(sr, cur_at, e, &sr->cur);
		cur_at = e;
		if (search_try(sr, &sr->cur, -1, &site, pr) == 1) {
			found = &sr->cur;
			break;
		}
		if (!pr->bad && !search_budget_full(sr)) {
			search_delta_begin_queued(sr, &sr->cur, e);
			/* the candidates are made in a copy (guide_flip
			 * leaves it as it was; one copy for both) */
			search_copy_from(tmp_at, e, &sr->tmp, &sr->cur);
			guide_flip(sr, &sr->cur, pr, &sr->tmp);
			tmp_at = expand(sr, &sr->cur, pr, &sr->tmp) ? e : NULL;
			search_delta_end(sr);
		}
	}
	if (found) {
		/* minimise's runs and the result's read no trace (pr->cmps and
		 * the registers' origins: what expand flips), only how each
		 * ends, its calls and reads: p_insn, a call for every
		 * instruction, is not made (a third of a run's instructions) */
		pr->ip.env.on_insn = NULL;
		search_minimise(sr, found, site, pr);
		sr->names = true;
		if (search_probe(sr, found, a, out, pr)) {
			(*out)->site = site;
			ok = true;
		}
	}
	*runs = sr->runs;
	for (i = 0; i < sr->nhints; i++)
		free(sr->hints[i]);
	free(sr->seen.t);
	free(sr->cov.t);
	free(sr->flips.t);
	free(sr->gtries);
	free(sr->q);
	free(sr->hints);
	free(sr->nslots);
	free(sr->gspans);
	arena_free(sr->tried);
	arena_free(sr->qa);
	search_probe_fini(pr);
	free(sr);
	free(pr);
	free(base);
	return ok;
}
