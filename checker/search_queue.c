/* search_queue.c - the concrete search's queue of candidates (search.c):
 * each kept as the runs of bytes where it differs from a background, and
 * encoded by one scan for the differing bytes, whole (push) or, for a
 * candidate made from the expanded one by changing a few bytes, by those
 * bytes only (push_delta). Contract in search_priv.h. */
#include "search_priv.h"

#include <stdlib.h>
#include <string.h>

const struct cand search_zeros;

/* A queued candidate: the runs of bytes where it differs from background
 * BG (each a struct qrun, then its bytes), or, with a parent, the runs
 * where it differs from that queued candidate (a delta entry: the ranges
 * an expansion changed, search_push_delta2). A candidate is 4 KiB, mostly
 * background, and far more are queued than run (trace_exec's worst case:
 * 44 queued, 12 run): whole copies were most of the pages a search
 * touched, and a fresh page costs more than the rest of a try on a
 * virtual machine that shadows page tables (docs/performance.md). */
struct qent {
	const struct qent *parent;     /* NULL: runs against the background */
	uint64_t hash;                 /* the candidate's hash (byte_term) */
	uint8_t bg;                    /* bg_of the candidate */
	uint32_t size;                 /* bytes of data */
	uint8_t data[];
};

struct qrun {
	uint16_t off, len;
};

/* struct qrun's offsets are 16 bits */
_Static_assert(sizeof(struct cand) <= UINT16_MAX, "a candidate's offsets fit 16 bits");

#define QRUN_GAP 8u                    /* equal bytes shorter than this stay inside a run */

/* A candidate's encoding: at most QBUF_SIZE bytes. */
#define QBUF_SIZE (sizeof(struct cand) + (sizeof(struct cand) / QRUN_GAP + 1) * sizeof(struct qrun))

/* The queue's hash of a candidate C on background BG (bg_of C: a
 * function of C) is BG's term plus byte_term(i, C[i] ^ BG[i]) summed
 * over its bytes (mod 2^64): 0 for a byte equal to the background's, so
 * a sum over the bytes that differ, and a candidate made by changing a
 * few bytes of another on the same background has the other's hash
 * with those bytes' terms replaced (search_push_delta2: no scan, no
 * encoding). Equal candidates have equal hashes; the queue drops a
 * candidate whose hash it has seen, as it did with the hash of the
 * encoding (two different ones sharing a 64-bit hash: as likely). */
static inline uint64_t byte_term(size_t i, uint8_t v)
{
	return v ? search_mix(((uint64_t)i << 8 | v) * 0x9e3779b97f4a7c15ull) : 0;
}

static uint64_t bg_term(unsigned bg)
{
	return bg ? 0x2545f4914f6cdd1dull : 0;
}

/* The terms of bytes [LO, HI) of P against background B */
static uint64_t range_terms(const uint8_t *p, const uint8_t *b, size_t lo, size_t hi)
{
	uint64_t h = 0;

	for (; lo < hi; lo++)
		h += byte_term(lo, p[lo] ^ b[lo]);
	return h;
}

/* The patterned background when CD's last map entry still has the
 * pattern, else zeros: chosen from the contents, so the same candidate
 * always has the same encoding. */
#define BG_BYTES offsetof(struct cand, ent[S_ENTS - 1])   /* bg_of's S_ENTSZ */

static unsigned bg_of(const struct search *sr, const struct cand *cd)
{
	return !memcmp(cd->ent[S_ENTS - 1], sr->bg1.ent[S_ENTS - 1], S_ENTSZ);
}

/* The 32 bytes at P and at B are equal (a block a step: most are). */
static bool block_equal(const uint8_t *p, const uint8_t *b)
{
	uint64_t x[4], y[4];

	memcpy(x, p, 32);
	memcpy(y, b, 32);
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]));
}

/* The first span [*S, *E) of bytes at or after J and below N where P
 * differs from B; false when there is none. Most of a candidate is its
 * background: from a multiple of 32, 256 bytes at a time with memcmp
 * (vectorised), then 32. */
static inline bool next_diff(const uint8_t *p, const uint8_t *b, size_t j, size_t n, size_t *s,
		      size_t *e)
{
	while (j < n) {
		if (j % 32 == 0) {
			while (j + 256 <= n && !memcmp(p + j, b + j, 256))
				j += 256;
			while (j + 32 <= n && block_equal(p + j, b + j))
				j += 32;
			if (j >= n)
				break;
		}
		if (p[j] != b[j]) {
			for (*s = j; j < n && p[j] != b[j]; j++)
				;
			*e = j;
			return true;
		}
		j++;
	}
	return false;
}

/* An encoding being written: runs start at a differing byte, and more
 * than QRUN_GAP equal bytes end one. */
struct denc {
	uint8_t *buf;
	const uint8_t *p;
	size_t n, start, last;
	bool open;
};

static void put_run(struct denc *d)
{
	struct qrun r = { .off = (uint16_t)d->start, .len = (uint16_t)(d->last + 1 - d->start) };

	memcpy(d->buf + d->n, &r, sizeof(r));
	memcpy(d->buf + d->n + sizeof(r), d->p + d->start, r.len);
	d->n += sizeof(r) + r.len;
	d->open = false;
}

/* Bytes [S, E) differ from the background, after every byte before S. */
static void denc_span(struct denc *d, size_t s, size_t e)
{
	if (d->open && s - d->last > QRUN_GAP)
		put_run(d);
	if (!d->open)
		d->start = s;
	d->open = true;
	d->last = e - 1;
}

/* The differing bytes of the candidate against B in [LO, HI), in order. */
static void denc_scan(struct denc *d, const uint8_t *b, size_t lo, size_t hi)
{
	size_t s, e;

	for (; next_diff(d->p, b, lo, hi, &s, &e); lo = e)
		denc_span(d, s, e);
}

/* The encoding's length, its last run written. */
static size_t denc_end(struct denc *d)
{
	if (d->open)
		put_run(d);
	return d->n;
}

/* CD as runs against its background, into BUF (QBUF_SIZE bytes): the
 * data's length; *BG the background, *HASH CD's hash (byte_term). CD
 * equals its background outside bytes [LO, HI). */
static size_t encode_range(const struct search *sr, const struct cand *cd, uint8_t *buf,
			   unsigned *bg, uint64_t *hash, size_t lo, size_t hi)
{
	struct denc d = { .buf = buf, .p = (const uint8_t *)cd };
	const uint8_t *b;
	size_t n = 0;
	uint64_t h;

	*bg = bg_of(sr, cd);
	b = (const uint8_t *)search_bg(sr, *bg);
	denc_scan(&d, b, lo, hi);
	denc_end(&d);
	h = bg_term(*bg);
	while (n < d.n) {               /* the runs' bytes: the others equal B */
		struct qrun r;

		memcpy(&r, buf + n, sizeof(r));
		h += range_terms((const uint8_t *)cd, b, r.off, (size_t)r.off + r.len);
		n += sizeof(r) + r.len;
	}
	*hash = h;
	return d.n;
}

/* N bytes from S to D (not overlapping): most runs are a few bytes, two
 * moves of a known size (a memcpy call was most of a run's copy) */
static inline void copy_short(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n >= 2) {
		memcpy(d, s, 2);
		memcpy(d + n - 2, s + n - 2, 2);
	} else if (n) {
		d[0] = s[0];
	}
}

/* The runs of E's chain (E, its parent, ...) written over CD, the
 * root's first; BASE: the background first (else CD holds it there) */
static void apply_runs(const struct search *sr, const struct qent *e, struct cand *cd, bool base)
{
	uint8_t *p = (uint8_t *)cd;
	size_t n = 0;

	if (e->parent)
		apply_runs(sr, e->parent, cd, base);
	else if (base)
		memcpy(cd, search_bg(sr, e->bg), sizeof(*cd));
	while (n < e->size) {
		struct qrun r;

		memcpy(&r, e->data + n, sizeof(r));
		copy_short(p + r.off, e->data + n + sizeof(r), r.len);
		n += sizeof(r) + r.len;
	}
}

void search_decode(const struct search *sr, const struct qent *e, struct cand *cd)
{
	apply_runs(sr, e, cd, true);
}

/* The bytes of the runs of E's chain copied from SRC to DST */
static void copy_runs(const struct qent *e, uint8_t *dst, const uint8_t *src)
{
	for (; e; e = e->parent) {
		size_t n = 0;

		while (n < e->size) {
			struct qrun r;

			memcpy(&r, e->data + n, sizeof(r));
			copy_short(dst + r.off, src + r.off, r.len);
			n += sizeof(r) + r.len;
		}
	}
}

/* A chain's entries have its root's background (a delta entry its
 * parent's: search_delta_begin_queued), and its candidate is that
 * background but for the bytes of its runs: one candidate made another
 * of the same background changes those of both only. */

void search_decode_from(const struct search *sr, const struct qent *from, const struct qent *e,
			struct cand *cd)
{
	if (!from || from->bg != e->bg) {
		search_decode(sr, e, cd);
		return;
	}
	copy_runs(from, (uint8_t *)cd, (const uint8_t *)search_bg(sr, e->bg));   /* the background */
	apply_runs(sr, e, cd, false);
#ifdef SEARCH_DELTA_CHECK
	{
		struct cand *full = malloc(sizeof(*full));

		if (!full)
			abort();
		search_decode(sr, e, full);
		if (memcmp(full, cd, sizeof(*cd)))
			abort();   /* the ASan and fuzz builds of .ci/run check every decode */
		free(full);
	}
#endif
}

void search_copy_from(const struct qent *from, const struct qent *e, struct cand *dst,
		      const struct cand *src)
{
	if (!from || from->bg != e->bg) {
		memcpy(dst, src, sizeof(*dst));
		return;
	}
	copy_runs(from, (uint8_t *)dst, (const uint8_t *)src);
	copy_runs(e, (uint8_t *)dst, (const uint8_t *)src);
#ifdef SEARCH_DELTA_CHECK
	if (memcmp(dst, src, sizeof(*dst)))
		abort();
#endif
}

/* Queue a new entry of N bytes of data (the caller writes them) for a
 * candidate of hash HASH on background BG, unless one of that hash was
 * queued before (NULL then). */
static struct qent *enqueue(struct search *sr, const struct qent *parent, uint64_t hash,
			    unsigned bg, size_t n)
{
	struct qent *e;

	if (!search_set_add(&sr->seen, search_mix(hash)))
		return NULL;
	/* in the search's arena: at most the budget's entries are made (a
	 * malloc and a free each were a third of an enqueue) */
	e = arena_alloc8(sr->qa, sizeof(*e) + n);
	e->parent = parent;
	e->hash = hash;
	e->bg = (uint8_t)bg;
	e->size = (uint32_t)n;
	if (sr->front) {
		sr->qhead = (sr->qhead + sr->qcap - 1) % sr->qcap;
		sr->q[sr->qhead] = e;
		sr->qlen++;
	} else {
		sr->q[(sr->qhead + sr->qlen++) % sr->qcap] = e;
	}
	return e;
}

void search_push_range(struct search *sr, const struct cand *cd, size_t lo, size_t hi)
{
	uint8_t buf[QBUF_SIZE];
	struct qent *e;
	unsigned bg;
	uint64_t h;
	size_t n;

	if (search_budget_full(sr))
		return;
	n = encode_range(sr, cd, buf, &bg, &h, lo, hi);
#ifdef SEARCH_DELTA_CHECK
	{
		uint8_t full[QBUF_SIZE];
		unsigned fbg;
		uint64_t fh;

		if (encode_range(sr, cd, full, &fbg, &fh, 0, sizeof(*cd)) != n || fh != h || fbg != bg ||
		    memcmp(full, buf, n))
			abort();
	}
#endif
	if ((e = enqueue(sr, NULL, h, bg, n)))
		memcpy(e->data, buf, n);
}

void search_push(struct search *sr, const struct cand *cd)
{
	search_push_range(sr, cd, 0, sizeof(*cd));
}

/* ---- a candidate by its few changed bytes -------------------------------
 * An expansion makes its candidates from one candidate CD, each a copy
 * with a few bytes changed; encoding each against its background compared
 * all of its 4.5 KB (most of a push: tc_classifier's bound, 194 pushes,
 * 2.2K instructions each), and later the changed bytes with the base's
 * differing spans (700). Now CD's queue entry is the new entry's parent:
 * the entry holds the changed ranges only, and its hash is CD's with
 * those bytes' terms replaced (docs/architecture.md, "Concrete search
 * before Z3"). */

void search_delta_begin_queued(struct search *sr, const struct cand *cd, const struct qent *e)
{
	sr->dbase = cd;
	sr->dent = e;
	sr->dbg = e->bg;               /* bg_of(CD): encode chose it from the same bytes */
}

void search_delta_end(struct search *sr)
{
	sr->dbase = NULL;
	sr->dent = NULL;
}

/* T's bytes [LO, HI) as a run of E's data at *N */
static void put_range(struct qent *e, size_t *n, const struct cand *t, size_t lo, size_t hi)
{
	struct qrun r = { .off = (uint16_t)lo, .len = (uint16_t)(hi - lo) };

	if (lo == hi)
		return;
	memcpy(e->data + *n, &r, sizeof(r));
	memcpy(e->data + *n + sizeof(r), (const uint8_t *)t + lo, hi - lo);
	*n += sizeof(r) + (hi - lo);
}

/* A few bytes (a range an expansion changed) equal: a memcmp call was a
 * tenth of a push */
static inline bool few_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (; n; n--)
		if (*a++ != *b++)
			return false;
	return true;
}

/* search_push_delta2's body, in each of the two (made for one range
 * there: most pushes change one) */
static inline __attribute__((always_inline)) void
push_ranges(struct search *sr, const struct cand *cd, const struct cand *t, size_t lo1, size_t hi1,
	    size_t lo2, size_t hi2)
{
	const uint8_t *b, *pt = (const uint8_t *)t, *pc = (const uint8_t *)cd;
	struct qent *e;
	uint64_t h;
	size_t n = 0;

	if (search_budget_full(sr))
		return;
	/* T is CD (a flip to the same bytes: an operand equal to the
	 * other): CD came from the queue, so its hash is in sr->seen and
	 * enqueue would drop T (24 of tc_classifier's 192) */
	if (sr->dbase == cd && few_equal(pt + lo1, pc + lo1, hi1 - lo1) &&
	    few_equal(pt + lo2, pc + lo2, hi2 - lo2))
		return;
	/* T's background is CD's when T equals CD on the bytes bg_of reads;
	 * another background, or a base that is not the expansion's: whole */
	if (sr->dbase != cd ||
	    ((!(hi1 <= BG_BYTES || lo1 >= BG_BYTES + S_ENTSZ) ||
	      !(hi2 <= BG_BYTES || lo2 >= BG_BYTES + S_ENTSZ)) && bg_of(sr, t) != sr->dbg)) {
		search_push(sr, t);
		return;
	}
	b = (const uint8_t *)search_bg(sr, sr->dbg);
	h = sr->dent->hash - range_terms(pc, b, lo1, hi1) + range_terms(pt, b, lo1, hi1) -
	    range_terms(pc, b, lo2, hi2) + range_terms(pt, b, lo2, hi2);
#ifdef SEARCH_DELTA_CHECK
	{
		uint8_t full[QBUF_SIZE];
		unsigned fbg;
		uint64_t fh;

		encode_range(sr, t, full, &fbg, &fh, 0, sizeof(*t));
		if (fh != h || fbg != sr->dbg)
			abort();   /* the ASan and fuzz builds of .ci/run check every push */
	}
#endif
	e = enqueue(sr, sr->dent, h, sr->dbg,
		    2 * sizeof(struct qrun) + (hi1 - lo1) + (hi2 - lo2));
	if (!e)
		return;
	put_range(e, &n, t, lo1, hi1);
	put_range(e, &n, t, lo2, hi2);
	e->size = (uint32_t)n;
}

void search_push_delta2(struct search *sr, const struct cand *cd, const struct cand *t,
			size_t lo1, size_t hi1, size_t lo2, size_t hi2)
{
	push_ranges(sr, cd, t, lo1, hi1, lo2, hi2);
}

void search_push_delta(struct search *sr, const struct cand *cd, const struct cand *t, size_t lo,
		       size_t hi)
{
	push_ranges(sr, cd, t, lo, hi, hi, hi);
}
