/* search_priv.h - what search.c (candidates, the search), search_hint.c
 * (the spec's conditions as hints), search_min.c (the minimisation),
 * search_queue.c (the queue) and search_probe.c (the probe: an
 * interpreter environment answering from a candidate) share. Contract of
 * the stage: search.h. */
#ifndef INVCHECK_SEARCH_PRIV_H
#define INVCHECK_SEARCH_PRIV_H

#include "search.h"
#include "smt.h"

#define CTX_SIZE   SMT_CTX_SIZE            /* the context cex.c and the encoder have */
#define PKT_TAIL   64u
#define S_PKT      1514u                   /* longest packet tried */
#define S_CALLS    48u
#define S_READS    48u
#define S_ENTS     16u
#define S_ENTSZ    64u
#define S_WR       8u                      /* helper writes into the stack */
#define S_GLOB     256u                    /* global data's first bytes (search_glob_span) */
#define S_OPTS     4u
#define S_QUEUE    2048u                   /* candidates waiting */
#define S_FLIPS    3u                      /* runs whose inputs a branch's flip is made from */
#define S_CMPS     512u
#define S_GUIDED   3u                      /* runs a guide step is flipped from */
#define KERNEL_LO  0xffff800000000000ull   /* smt_mem.c */
#define NULL_HI    0x10000ull
#define KPTR_BASE  0xffff888000000000ull   /* a kernel object a KPTR helper returns */
#define BPF_MAX_LOOPS (8u << 20)

struct hint;
struct qent;

/* A set of 64-bit keys: open addressing (keys + 1) in T's N slots, N
 * made 4 times larger (rehashed) when half full, up to CAP; a full table of CAP
 * slots treats a new key as seen. Its keys are the first CAP distinct
 * ones added, as in a table of CAP slots from the start (which cleared
 * 8-64 KB a search for a few dozen keys). */
struct search_set {
	uint64_t *t;
	unsigned n, cap, used;
};

struct cand {
	uint32_t len;                  /* packet bytes */
	uint32_t fixed;                /* calls below this have their option decided */
	uint8_t pkt[S_PKT];
	uint8_t ctx[CTX_SIZE];
	uint8_t opt[S_CALLS];
	uint8_t has_ret[S_CALLS];
	uint8_t has_rd[S_READS];
	uint64_t ret[S_CALLS];
	uint64_t rd[S_READS];
	uint8_t ent[S_ENTS][S_ENTSZ];  /* map entries' bytes, in creation order */
	uint8_t wr[S_WR][S_ENTSZ];     /* bytes helpers write into the stack, in order */
	/* the global data sections' first bytes, the object's own in the
	 * backgrounds (the encoder's globals are free: the loader may set
	 * them), in map order (search_glob_span) */
	uint8_t glob[S_GLOB];
};

#define ORG_CHANGED 0x80u

struct cmp {                           /* a conditional jump the probe ran */
	int sec;
	uint32_t slot;
	uint64_t a, b;
	bool is32, taken;
	bool jset;                     /* a & b, not a comparison */
	uint16_t org;                  /* a came from packet bytes [org - 1, +orgsz)
	                                * (a load, then operations with constants); 0: not known */
	uint8_t orgsz;                 /* | ORG_CHANGED: not the bytes as loaded */
	uint32_t corg;                 /* a came from the candidate's bytes [corg - 1,
	                                * +orgsz) (global data, map entries); 0: not known */
};

struct pcall {                         /* what the probe knows of call k */
	uint8_t nopts;
	bool value;                    /* its result may be any value of a range */
	int64_t lo, hi;
	bool sign;
};

struct pent {                          /* a map entry the run created */
	int map;
	uint64_t addr;
	uint8_t key[64];
	uint32_t ks;
	int region;                    /* probe interpreter region */
};

struct probe {
	const struct loaded *l;
	const struct mon_check *c;
	const struct object *o;
	const struct search *sr;
	const struct cand *cd;
	struct arena *a;
	struct vec regions, calls, reads;  /* cex_region / cex_call / cex_read (arena) */
	unsigned nents, nrb, nwr;
	unsigned ncmps;
	bool pending;                  /* cmps[ncmps - 1]'s direction not known yet */
	bool bad;                      /* outside what the search models: give up */
	bool keep;                     /* the run makes a cex (regions: its memory before) */
	uint64_t data, end;
	enum interp_status status;     /* how the run ended, after how many */
	uint64_t steps;                /* instructions */
	/* by register: the packet bytes its value was loaded from, + 1 (a
	 * load, then operations with constants; 0: none) */
	uint16_t org[ISA_NREGS];
	uint32_t corg[ISA_NREGS];      /* the same from the candidate's bytes (struct cmp) */
	uint8_t orgsz[ISA_NREGS];
	/* not cleared per run (search_probe zeroes what is above): ip is set
	 * up once per search (search_probe_init; a run drops the regions of
	 * the one before), and only pc[0..calls.len), ents[0..nents) and
	 * cmps[0..ncmps) are ever read, each set whole when it is made (a
	 * key past its ks bytes aside) */
	struct interp ip;
	uint8_t ctxb[CTX_SIZE];        /* the run's context (its region's bytes) */
	unsigned wr_marked;            /* helper writes whose seen marks the last run set */
	struct pcall pc[S_CALLS];
	struct pent ents[S_ENTS];
	struct cmp cmps[S_CMPS];
	/* with sr->bound_only: by byte of the candidate, 1 where the run touched
	 * it (interp_track). Each run clears the ranges it tracks (the
	 * context, the packet's len bytes, its entries', the helper writes');
	 * what it does not is no byte of its input (the packet past len, an
	 * entry it did not make) and holds an earlier run's marks: a 1
	 * there only costs a try. Zeroed once per search. */
	uint8_t seen[sizeof(struct cand)];
};

struct search {
	const struct loaded *l;
	const struct mon_check *c;
	const struct object *o;
	bool has_pkt, plain_ctx;
	uint32_t nglob;                /* cand.glob's bytes in use */
	struct gspan { uint32_t off, n; } *gspans;  /* by map: search_glob_span's */
	uint64_t longest;              /* a bound's search: the longest run so far */
	uint32_t off_data, off_end, off_meta;
	uint32_t *nslots;
	struct qent **q;               /* a ring of qcap: the queued candidates, as
	                                * differences from a background (search.c) */
	struct arena *qa;              /* the entries, freed with the search */
	unsigned qcap;
	struct arena *tried;           /* the last search_try's arena: the probe's
	                                * vectors (calls, regions) live in it until
	                                * the next try (expand reads them) */
	unsigned qhead, qlen;
	/* sets (struct search_set): each grows up to the most keys it can
	 * get (at most the sizes it had when fixed: 4096, 8192, 4096) */
	struct search_set seen;        /* candidate hashes: at most budget */
	unsigned budget;               /* inputs run at most (search_run_budget) */
	struct search_set cov;         /* branch (sec, slot, dir) keys */
	struct search_set flips;       /* (branch, side wanted, parent no.) keys:
	                                * at most S_FLIPS parents try each */
	struct hint **hints;           /* one per spec condition: what it sets */
	unsigned nhints;
	unsigned runs;
	unsigned ok_reads;             /* kernel reads of the last try that failed
	                                * the assert (search_try returned 1) */
	bool gave_up;
	bool names;                    /* the probe names map entries' regions
	                                * (the result's run only) */
	const struct search_guide *guide;  /* NULL: none */
	uint8_t *gtries;               /* by guide step: its flips so far */
	bool front;                    /* push to the front of the queue */
	/* a bound-only check (search_bound_only, once per search): a run
	 * fails it by its instruction count (search_try needs no replay),
	 * which depends on the bytes the run touches and nothing else, so
	 * the probe tracks them, and okseen is that set of the last try
	 * that failed the assert (minimise zeroes the rest without running
	 * them) */
	bool bound_only;
	/* the bound is the check's one assert (search_bound_sole, once per
	 * search; bound_only is this and nothing else in the monitor): a run
	 * that exits within it fails nothing, so search_try replays none */
	bool bound_sole;
	/* minimise: the last run is of its candidate as it is now, which
	 * failed the assert (pr holds that run: its calls, sr->tried) */
	bool ran_cd;
	/* the candidate an expansion derives its candidates from
	 * (search_delta_begin_queued) and its queue entry: a candidate that
	 * differs from it in a few bytes is queued as those bytes
	 * (search_push_delta); dbase NULL: none */
	const struct cand *dbase;
	const struct qent *dent;
	unsigned dbg;                  /* its background */
	/* not zeroed (search_run_guided zeroes what is above; 9 KB of its
	 * 18 a search, 18 of 27 with the two backgrounds): each is written
	 * before it is read */
	struct cand bg1;               /* the patterned background (bg_init: every byte) */
	struct cand cur;               /* the candidate popped last */
	struct cand tmp;               /* its expansion's scratch copy (guide_flip, expand) */
	uint8_t okseen[sizeof(struct cand)];  /* with bound_only: set by every
	                                       * try that fails the assert */
};

struct hint {
	struct cand v;                 /* the bytes it sets */
	uint8_t pm[S_PKT], cm[CTX_SIZE];   /* which bits of pkt / ctx it sets */
	uint8_t gm[S_GLOB];                /* ... of glob */
	uint32_t minlen;
	int64_t exactlen;              /* -1: none */
};

/* search_probe.c */
/* The bytes of global data map M (a datasec's) that cand.glob holds: its
 * first ones, at *OFF there (0: none, not a datasec or no room left). */
uint32_t search_glob_span(const struct object *o, uint32_t m, uint32_t *off);
bool search_fits(const struct pcall *p, uint64_t v);
/* PR's interpreter, for the runs of one search (search_probe_fini). */
void search_probe_init(struct search *sr, struct probe *pr);
void search_probe_fini(struct probe *pr);
/* Run CD: *X (in arena A) is the cex it makes (X NULL: none, for a run
 * whose trace is all that is read); false if the probe left the model
 * (pr->bad) or could not be set up. PR: the trace. */
bool search_probe(struct search *sr, const struct cand *cd, struct arena *a, struct cex **x,
		  struct probe *pr);
/* C checks nothing but the bound: a run fails it by its instruction count
 * alone (no replay needed). */
bool search_bound_only(const struct mon_check *c);
bool search_bound_sole(const struct mon_check *c);
/* Probe and replay CD: 1 when the replay fails an assert (*SITE; WANT
 * >= 0: that one), else 0. */
int search_try(struct search *sr, const struct cand *cd, int want, unsigned *site,
	       struct probe *pr);

/* The backgrounds a queued candidate is kept against: 0 all zeros (the
 * global data's bytes too: a seed carries the object's as runs), 1 the
 * patterned one (sr->bg1). */
extern const struct cand search_zeros;
static inline const struct cand *search_bg(const struct search *sr, unsigned bg)
{
	return bg ? &sr->bg1 : &search_zeros;
}

/* search.c: its hash tables (open addressing, keys + 1) */
static inline uint64_t search_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}
/* Insert KEY into S; false if it was there (or S is full). */
bool search_set_add(struct search_set *s, uint64_t key);

/* search_hint.c: what the spec's conditions say about the input */
/* E's equalities (and a global's or the packet length's extreme) into H */
void search_hint_cond(struct search *sr, struct hint *h, const struct mon_expr *e);
/* One hint (sr->hints) per `if` of ST[0..N): its condition and those of
 * the ifs around it (OUTER). */
void search_hint_stmts(struct search *sr, struct mon_stmt **st, unsigned n,
		       const struct hint *outer);
/* H's bits and length set in CD */
void search_apply_hint(struct cand *cd, const struct hint *h);

/* search_min.c: CD, which fails assert SITE, made simpler where it still
 * does (a shorter packet, bytes and answers 0); PR: its runs' traces. */
void search_minimise(struct search *sr, struct cand *cd, unsigned site, struct probe *pr);

/* search_queue.c: the queue (sr->q), each candidate kept as the runs of
 * bytes where it differs from a background; a candidate equal to one
 * queued before is not queued again. */
/* The queue is FIFO and every try pops one: a candidate behind the last
 * one the budget reaches is never run. Tries + queued only grow (a try
 * moves one from the queue to the tries), so once this holds it holds for
 * the rest of the search. */
static inline bool search_budget_full(const struct search *sr)
{
	return sr->runs + sr->qlen >= sr->budget || sr->qlen >= S_QUEUE;
}
/* Queue CD (unless the budget is full or it was queued before). */
void search_push(struct search *sr, const struct cand *cd);
/* The same for CD that equals its background (the one encode picks)
 * outside bytes [LO, HI): only those are looked at. */
void search_push_range(struct search *sr, const struct cand *cd, size_t lo, size_t hi);
/* Queue T, which equals CD outside bytes [LO1, HI1) and [LO2, HI2)
 * (LO1 <= HI1 <= LO2 <= HI2): as search_push(T), as those bytes over
 * CD's entry when CD is search_delta_begin_queued's candidate. */
void search_push_delta2(struct search *sr, const struct cand *cd, const struct cand *t,
			size_t lo1, size_t hi1, size_t lo2, size_t hi2);
/* The same with one range [LO, HI). */
void search_push_delta(struct search *sr, const struct cand *cd, const struct cand *t, size_t lo,
		       size_t hi);
/* CD, decoded from queue entry E (search_decode), is the candidate of
 * the pushes of one expansion (search_delta_end after them). */
void search_delta_begin_queued(struct search *sr, const struct cand *cd, const struct qent *e);
void search_delta_end(struct search *sr);
/* The candidate queued as E. */
void search_decode(const struct search *sr, const struct qent *e, struct cand *cd);
/* The same into CD, which holds the candidate queued as FROM (NULL: not
 * known): where both have one background, only the bytes of their runs
 * are written (a copy of the whole background was most of a decode). */
void search_decode_from(const struct search *sr, const struct qent *from, const struct qent *e,
			struct cand *cd);
/* DST, which holds the candidate queued as FROM (NULL: not known), made
 * SRC, the candidate queued as E: the same rule. */
void search_copy_from(const struct qent *from, const struct qent *e, struct cand *dst,
		      const struct cand *src);
#endif
