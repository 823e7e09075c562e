/* search_queue.c - the concrete search's queue of candidates (search.c):
 * each kept as the runs of bytes where it differs from a background, and
 * encoded by one scan for the differing bytes, whole (push) or, for a
 * candidate made from the expanded one by changing a few bytes, by those
 * bytes only (push_delta). Contract in search_priv.h. */
#include "search_priv.h"

#include <stdlib.h>
#include <string.h>

/* A queued candidate: the runs of bytes where it differs from background
 * BG (each a struct qrun, then its bytes). A candidate is 4 KiB, mostly
 * background, and far more are queued than run (trace_exec's worst case:
 * 44 queued, 12 run): whole copies were most of the pages a search
 * touched, and a fresh page costs more than the rest of a try on a
 * virtual machine that shadows page tables (docs/performance.md). */
struct qent {
	uint8_t bg;
	uint32_t size;                 /* bytes of data */
	uint8_t data[];
};

struct qrun {
	uint16_t off, len;
};

/* struct dspan's and struct qrun's offsets are 16 bits */
_Static_assert(sizeof(struct cand) <= UINT16_MAX, "a candidate's offsets fit 16 bits");

#define QRUN_GAP 8u                    /* equal bytes shorter than this stay inside a run */

/* A candidate's encoding: at most QBUF_SIZE bytes. */
#define QBUF_SIZE (sizeof(struct cand) + (sizeof(struct cand) / QRUN_GAP + 1) * sizeof(struct qrun))

bool search_budget_full(const struct search *sr)
{
	return sr->runs + sr->qlen >= sr->budget || sr->qlen >= S_QUEUE;
}

/* The patterned background when CD's last map entry still has the
 * pattern, else zeros: chosen from the contents, so the same candidate
 * always has the same encoding. */
#define BG_BYTES offsetof(struct cand, ent[S_ENTS - 1])   /* bg_of's S_ENTSZ */

static unsigned bg_of(const struct search *sr, const struct cand *cd)
{
	return !memcmp(cd->ent[S_ENTS - 1], sr->bg[1].ent[S_ENTS - 1], S_ENTSZ);
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
 * data's length; *BG the background. Two candidates with the same
 * background and bytes are the same: what the queue's hash is taken of. */
static size_t encode(const struct search *sr, const struct cand *cd, uint8_t *buf, unsigned *bg)
{
	struct denc d = { .buf = buf, .p = (const uint8_t *)cd };

	*bg = bg_of(sr, cd);
	denc_scan(&d, (const uint8_t *)&sr->bg[*bg], 0, sizeof(*cd));
	return denc_end(&d);
}

void search_decode(const struct search *sr, const struct qent *e, struct cand *cd)
{
	uint8_t *p = (uint8_t *)cd;
	size_t n = 0;

	memcpy(cd, &sr->bg[e->bg], sizeof(*cd));
	while (n < e->size) {
		struct qrun r;

		memcpy(&r, e->data + n, sizeof(r));
		memcpy(p + r.off, e->data + n + sizeof(r), r.len);
		n += sizeof(r) + r.len;
	}
}

/* The queue entry of BUF[0..N) on background BG, unless the same was
 * queued before. */
static void enqueue(struct search *sr, const uint8_t *buf, size_t n, unsigned bg)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	struct qent *e;
	size_t i;

	/* the hash of (BG, N, BUF): 8 bytes a step (a byte a step was 14
	 * instructions a byte of the encoding, half of an enqueue) */
	h = (h ^ bg ^ (uint64_t)n << 8) * 0x9e3779b97f4a7c15ull;
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, buf + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < n; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	if (!search_set_add(&sr->seen, search_mix(h)))
		return;
	/* in the search's arena: at most the budget's entries are made (a
	 * malloc and a free each were a third of an enqueue) */
	e = arena_alloc8(sr->qa, sizeof(*e) + n);
	e->bg = (uint8_t)bg;
	e->size = (uint32_t)n;
	memcpy(e->data, buf, n);
	if (sr->front) {
		sr->qhead = (sr->qhead + sr->qcap - 1) % sr->qcap;
		sr->q[sr->qhead] = e;
		sr->qlen++;
	} else {
		sr->q[(sr->qhead + sr->qlen++) % sr->qcap] = e;
	}
}

void search_push(struct search *sr, const struct cand *cd)
{
	uint8_t buf[QBUF_SIZE];
	unsigned bg;
	size_t n;

	if (search_budget_full(sr))
		return;
	n = encode(sr, cd, buf, &bg);
	enqueue(sr, buf, n, bg);
}

/* ---- encoding a candidate by its few changed bytes ----------------------
 * An expansion makes its candidates from one candidate CD, each a copy
 * with a few bytes changed; encoding each against its background compared
 * all of its 4.5 KB (most of a push: tc_classifier's bound, 194 pushes,
 * 2.2K instructions each). search_delta_begin notes once where CD differs
 * from its background; search_push_delta then compares only the changed
 * ranges and takes the rest from that note (docs/architecture.md,
 * "Concrete search before Z3"). */

/* The ranges of [FROM, TO) where P and B differ appended to SR's spans
 * (*CAP: their room, grown by doubling). */
static void add_spans(struct search *sr, const uint8_t *p, const uint8_t *b, size_t from,
		      size_t to, unsigned *cap)
{
	size_t j, s;

	for (j = from; next_diff(p, b, j, to, &s, &j); ) {
		if (sr->ndspans == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			sr->dspans = realloc(sr->dspans, *cap * sizeof(*sr->dspans));
			if (!sr->dspans)
				abort();
		}
		sr->dspans[sr->ndspans++] = (struct dspan){ (uint16_t)s, (uint16_t)j };
	}
}

void search_delta_begin(struct search *sr, const struct cand *cd)
{
	unsigned cap = 0;

	sr->dbg = bg_of(sr, cd);
	sr->ndspans = 0;
	add_spans(sr, (const uint8_t *)cd, (const uint8_t *)&sr->bg[sr->dbg], 0, sizeof(*cd), &cap);
	sr->dbase = cd;
	sr->dqueued = false;
}

void search_delta_begin_queued(struct search *sr, const struct cand *cd, const struct qent *e)
{
	const uint8_t *p = (const uint8_t *)cd, *b = (const uint8_t *)&sr->bg[e->bg];
	size_t n = 0;
	unsigned cap = 0;

	/* E's background is bg_of(CD) (encode chose it from the same
	 * bytes); CD equals it outside E's runs, and more than QRUN_GAP
	 * equal bytes part two runs, so each span is inside one */
	sr->dbg = e->bg;
	sr->ndspans = 0;
	while (n < e->size) {
		struct qrun r;

		memcpy(&r, e->data + n, sizeof(r));
		n += sizeof(r) + r.len;
		add_spans(sr, p, b, r.off, (size_t)r.off + r.len, &cap);
	}
	sr->dbase = cd;
#ifdef SEARCH_DELTA_CHECK
	{
		struct dspan *mine = sr->dspans;
		unsigned nmine = sr->ndspans;

		sr->dspans = NULL;
		search_delta_begin(sr, cd);    /* the scan of all of CD */
		if (sr->ndspans != nmine || sr->dbg != e->bg ||
		    (nmine && memcmp(mine, sr->dspans, nmine * sizeof(*mine))))
			abort();
		free(mine);
	}
#endif
	sr->dqueued = true;
}

void search_delta_end(struct search *sr)
{
	free(sr->dspans);
	sr->dspans = NULL;
	sr->ndspans = 0;
	sr->dbase = NULL;
}

void search_push_delta2(struct search *sr, const struct cand *cd, const struct cand *t,
			size_t lo1, size_t hi1, size_t lo2, size_t hi2)
{
	uint8_t buf[QBUF_SIZE];
	struct denc d = { .buf = buf, .p = (const uint8_t *)t };
	size_t r[3][2] = { { lo1, hi1 }, { lo2, hi2 }, { sizeof(*t), sizeof(*t) } }, pos = 0;
	const uint8_t *b;
	unsigned bg, i, k = 0;

	if (search_budget_full(sr))
		return;
	/* T is CD (a flip to the same bytes: an operand equal to the
	 * other): CD came from the queue, so its encoding's hash is in
	 * sr->seen and enqueue would drop T (24 of tc_classifier's 192) */
	if (sr->dqueued && sr->dbase == cd &&
	    !memcmp((const uint8_t *)t + lo1, (const uint8_t *)cd + lo1, hi1 - lo1) &&
	    !memcmp((const uint8_t *)t + lo2, (const uint8_t *)cd + lo2, hi2 - lo2))
		return;
	/* T's background is CD's when T equals CD on the bytes bg_of reads */
	if (sr->dbase == cd && (hi1 <= BG_BYTES || lo1 >= BG_BYTES + S_ENTSZ) &&
	    (hi2 <= BG_BYTES || lo2 >= BG_BYTES + S_ENTSZ))
		bg = sr->dbg;
	else
		bg = bg_of(sr, t);
	if (sr->dbase != cd || bg != sr->dbg) {
		search_push(sr, t);
		return;
	}
	b = (const uint8_t *)&sr->bg[bg];
	for (i = 0; i < 3; i++) {
		/* the base's differing bytes in [pos, lo): T's are the same */
		for (; k < sr->ndspans && sr->dspans[k].lo < r[i][0]; k++) {
			size_t s = sr->dspans[k].lo > pos ? sr->dspans[k].lo : pos;
			size_t e = sr->dspans[k].hi < r[i][0] ? sr->dspans[k].hi : r[i][0];

			if (s < e)
				denc_span(&d, s, e);
			if (sr->dspans[k].hi > r[i][0])
				break;     /* it goes on into the range */
		}
		denc_scan(&d, b, r[i][0], r[i][1]);
		if (r[i][1] > pos)
			pos = r[i][1];
		while (k < sr->ndspans && sr->dspans[k].hi <= pos)
			k++;
	}
	denc_end(&d);
#ifdef SEARCH_DELTA_CHECK
	{
		uint8_t full[QBUF_SIZE];
		unsigned fbg;
		size_t fn = encode(sr, t, full, &fbg);

		if (fn != d.n || fbg != bg || memcmp(full, buf, fn))
			abort();   /* the ASan and fuzz builds of .ci/run check every push */
	}
#endif
	enqueue(sr, buf, d.n, bg);
}

void search_push_delta(struct search *sr, const struct cand *cd, const struct cand *t, size_t lo,
		       size_t hi)
{
	search_push_delta2(sr, cd, t, lo, hi, hi, hi);
}
