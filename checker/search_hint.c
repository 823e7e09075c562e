/* search_hint.c - the search's hints (search_priv.h; the stage's contract:
 * search.h): what the spec's conditions say about the input (a packet
 * byte, a global, the packet's length or a context field equal to a
 * number, or at an extreme), made into bytes and masks that a seed or an
 * expansion's candidate is given.
 */
#include "search_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- hints: what the spec's conditions say about the input ------------- */

static bool pkt_ptr(const struct mon_expr *p, uint64_t *off)
{
	if (p->kind == MON_PKT) {
		*off = 0;
		return true;
	}
	if (p->kind == MON_BINARY && p->op == SPEC_BIN_ADD && p->n == 2) {
		if (p->a[0]->kind == MON_PKT && p->a[1]->kind == MON_NUM) {
			*off = p->a[1]->num;
			return true;
		}
		if (p->a[1]->kind == MON_PKT && p->a[0]->kind == MON_NUM) {
			*off = p->a[0]->num;
			return true;
		}
	}
	return false;
}

static void hint_bytes(uint8_t *val, uint8_t *msk, uint32_t cap, uint64_t off, uint32_t size,
		       bool be, uint64_t v, uint64_t mask)
{
	uint32_t i, sh;

	if (size > 8 || off + size > cap)
		return;
	for (i = 0; i < size; i++) {
		sh = be ? 8 * (size - 1 - i) : 8 * i;
		msk[off + i] |= (uint8_t)(mask >> sh);
		val[off + i] = (uint8_t)((val[off + i] & ~(mask >> sh)) | ((v & mask) >> sh));
	}
}

/* X == V, X one of: a load from pkt + K, (load & MASK), pkt_len, ctx.FIELD */
static void hint_eq(struct search *sr, struct hint *h, const struct mon_expr *x, uint64_t v)
{
	uint64_t mask = ~0ull, off;
	uint32_t goff;

	if (x->kind == MON_BINARY && x->op == SPEC_BIN_BAND && x->n == 2 &&
	    (x->a[1]->kind == MON_NUM || x->a[0]->kind == MON_NUM)) {
		mask = x->a[1]->kind == MON_NUM ? x->a[1]->num : x->a[0]->num;
		x = x->a[1]->kind == MON_NUM ? x->a[0] : x->a[1];
	}
	if (x->kind == MON_LOAD && x->n >= 1 && pkt_ptr(x->a[0], &off) && off < S_PKT) {
		if (x->size < 8)
			mask &= (1ull << (8 * x->size)) - 1;
		hint_bytes(h->v.pkt, h->pm, S_PKT, off, x->size, x->be, v, mask);
		if (off + x->size > h->minlen)
			h->minlen = (uint32_t)(off + x->size);
	} else if (x->kind == MON_GLOBAL && x->index >= 0 && x->size <= 8 &&
		   search_glob_span(sr->o, (uint32_t)x->index, &goff) >= x->off + x->size) {
		hint_bytes(h->v.glob, h->gm, S_GLOB, goff + x->off, x->size, false, v,
			   x->size < 8 ? mask & ((1ull << (8 * x->size)) - 1) : mask);
	} else if (x->kind == MON_PKT_LEN && mask == ~0ull && v <= S_PKT) {
		h->exactlen = (int64_t)v;
	} else if (x->kind == MON_CTX && x->size <= 8 && (uint64_t)x->off + x->size <= CTX_SIZE &&
		   !(sr->has_pkt && (x->off == sr->off_data || x->off == sr->off_end ||
				     x->off == sr->off_meta))) {
		hint_bytes(h->v.ctx, h->cm, CTX_SIZE, x->off, x->size, false, v,
			   x->size < 8 ? mask & ((1ull << (8 * x->size)) - 1) : mask);
	}
}

void search_hint_cond(struct search *sr, struct hint *h, const struct mon_expr *e)
{
	const struct mon_expr *x, *n;

	if (e->kind == MON_BINARY && e->op == SPEC_BIN_LAND && e->n == 2) {
		search_hint_cond(sr, h, e->a[0]);
		search_hint_cond(sr, h, e->a[1]);
		return;
	}
	if (e->kind == MON_IN_SET && e->n >= 2 && e->a[1]->kind == MON_NUM) {
		hint_eq(sr, h, e->a[0], e->a[1]->num);
		return;
	}
	if (e->kind != MON_BINARY || e->n != 2)
		return;
	n = e->a[1]->kind == MON_NUM ? e->a[1] : e->a[0];
	x = n == e->a[1] ? e->a[0] : e->a[1];
	if (n->kind != MON_NUM)
		return;
	if (e->op == SPEC_BIN_EQ)
		hint_eq(sr, h, x, n->num);
	else if (x->kind == MON_GLOBAL && x == e->a[0] &&
		 ((e->op == SPEC_BIN_LE || e->op == SPEC_BIN_GE) ||
		  (e->op == SPEC_BIN_LT && n->num) || (e->op == SPEC_BIN_GT && ~n->num)))
		/* global.X <= N: the extreme N (a loop's most rounds, a bound's worst case) */
		hint_eq(sr, h, x, n->num - (e->op == SPEC_BIN_LT) + (e->op == SPEC_BIN_GT));
	else if (x->kind == MON_PKT_LEN && x == e->a[0] && n->num < S_PKT &&
		 (e->op == SPEC_BIN_GE || e->op == SPEC_BIN_GT))
		h->minlen = (uint32_t)n->num + (e->op == SPEC_BIN_GT) > h->minlen ?
			    (uint32_t)n->num + (e->op == SPEC_BIN_GT) : h->minlen;
}

static void add_hint(struct search *sr, const struct hint *h)
{
	if (sr->nhints >= 64)
		return;
	sr->hints[sr->nhints] = malloc(sizeof(struct hint));
	if (!sr->hints[sr->nhints])
		abort();
	memcpy(sr->hints[sr->nhints++], h, sizeof(*h));
}

/* One hint per `if` (its condition and those of the ifs around it). */
void search_hint_stmts(struct search *sr, struct mon_stmt **st, unsigned n,
		       const struct hint *outer)
{
	struct hint *h;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (st[i]->kind != MON_S_IF)
			continue;
		h = malloc(sizeof(*h));
		if (!h)
			abort();
		memcpy(h, outer, sizeof(*h));
		search_hint_cond(sr, h, st[i]->e);
		add_hint(sr, h);
		search_hint_stmts(sr, st[i]->then, st[i]->nthen, h);
		free(h);
	}
}

/* D[0..N) := V's bits where M has them, D's elsewhere: 32 bytes a loop
 * of a known count, vectorised (a byte a step was 10 instructions a
 * byte: 20K an apply_hint; 8 bytes a step, 2.6K) */
static void blend(uint8_t *restrict d, const uint8_t *restrict v, const uint8_t *restrict m,
		  size_t n)
{
	size_t i, j;

	for (i = 0; i + 32 <= n; i += 32)
		for (j = 0; j < 32; j++)
			d[i + j] = (uint8_t)((d[i + j] & ~m[i + j]) | (v[i + j] & m[i + j]));
	for (; i < n; i++)
		d[i] = (uint8_t)((d[i] & ~m[i]) | (v[i] & m[i]));
}

void search_apply_hint(struct cand *cd, const struct hint *h)
{
	blend(cd->pkt, h->v.pkt, h->pm, S_PKT);
	blend(cd->ctx, h->v.ctx, h->cm, CTX_SIZE);
	blend(cd->glob, h->v.glob, h->gm, S_GLOB);
	if (h->exactlen >= 0)
		cd->len = (uint32_t)h->exactlen;
	else if (cd->len < h->minlen)
		cd->len = h->minlen;
}
