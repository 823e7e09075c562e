/* absint_priv.h - what absint.c (the walk) and absint_path.c (memory
 * cells, parts of values, path facts) share: the walk's state and its
 * undoable environment. Internal to the pre-pass (contract: absint.h).
 */
#ifndef INVCHECK_ABSINT_PRIV_H
#define INVCHECK_ABSINT_PRIV_H

#include "absint.h"

#include <stdlib.h>

#define ALIAS_BIT 0x40000000u    /* trail entry: ID became an alias here */
#define CELL_MARK 0x3fffffffu    /* trail entry: a cell was pushed */
#define CALL_MARK 0x3ffffffeu    /* trail entry: a call was made */
#define PKTW_MARK 0x3ffffffdu    /* trail entry: a store that may write the packet */
#define CELL_SCAN 512u           /* cells looked at per lookup, newest first */
#define BACK_DEPTH 8u            /* operand chains followed backward */
#define NO_STAMP UINT32_MAX      /* never a memo's stamp (absint.c reeval_begin) */
#define ROOT_CONST  0x80000000u  /* a cell's root: a constant address (absint_path.c addr_root) */
#define ROOT_GLOBAL 0x40000000u

struct undo {
	uint32_t id;
	struct absint_val old;
};

/* What the path knows besides each value's abstract value (newest last):
 *   C_LOAD:  value ID is what a load read at ROOT + OFF (SIZE bytes, SX);
 *   C_WRITE: region REGION (ABSINT_MEM_ANY: any) may have changed;
 *   C_PART:  value ID is bytes [OFF, OFF + SIZE) of value ROOT,
 *            zero-extended;
 *   C_FACT:  `ROOT op B` is true (B a value, or 0 and the constant OFF),
 *            op JEQ or JNE, on the low halves when !SX (is64);
 *   C_ASSUME: an assume of value ID that its refinement did not decide
 *            (an or of comparisons, say): asked again at a failing assert.
 *   C_BRANCH: the path took `ROOT op B` (OFF 1) or its negation (OFF 0)
 *            where the values did not decide it (SX: is64): asked again
 *            in a case split (absint.c branches_broken).
 *   C_WRITE with OP 1: a write of SIZE bytes at the constant address
 *            ROOT + OFF (ROOT_CONST): only loads of those bytes of ROOT
 *            miss (absint_path.c blocks);
 *   C_MSUM:  memory at the constant address ROOT + OFF (8 bytes, REGION)
 *            holds ID + B (an atomic add to what ID was loaded as);
 *   C_VSUM:  value ID is ROOT + B (64-bit, modular);
 *   C_SBOUND: ROOT + B (values, no wrap) is at most OFF (absint.c
 *            sum_back narrowed such a sum);
 *   C_ATLEAST: value ROOT is at least OFF (an array lookup's NULL: its
 *            key is past max_entries), asked again in a case split.
 * C_FACT's op may be JLT / JLE too: `ROOT < B` / `ROOT <= B`, unsigned,
 * 64-bit (B a value).
 * ROOT, ID and B are representatives (find), but C_ASSUME's ID and
 * C_BRANCH's ROOT and B (values: find them). */
enum { C_LOAD, C_WRITE, C_PART, C_FACT, C_ASSUME, C_BRANCH, C_MSUM, C_VSUM, C_SBOUND,
       C_ATLEAST, C_NKINDS };

/* the kinds loads look at (absint_path.c: mem_first) */
static inline bool cell_is_mem(unsigned kind)
{
	return (1u << C_LOAD | 1u << C_WRITE | 1u << C_MSUM) >> kind & 1u;
}

struct cell {
	uint32_t root;
	uint32_t id;
	uint64_t off;
	uint32_t b;
	uint32_t prevk;           /* 1 + the index of the cell of this kind
	                           * pushed before it, 0: none (kind_first) */
	uint32_t prevm;           /* C_LOAD, C_WRITE, C_MSUM: the same for
	                           * the three (mem_first) */
	uint32_t prevr;           /* C_FACT: the same for the facts of its
	                           * ROOT (struct walk: lastr) */
	uint16_t region;          /* 1 + the region (absint.h: mem) */
	uint8_t kind, size, op;
	bool sx;
};

/* A comparison `A op B` in the form the path's facts keep it
 * (absint_path.c fact_key). */
enum { FACT_NONE, FACT_EQ, FACT_ORDER };
struct fact_key {
	uint8_t form;             /* FACT_ORDER: `A < B` (STRICT) or `A <= B` */
	uint8_t op;               /* FACT_EQ: `A op B`, B 0 for the constant K */
	bool strict;
	uint32_t a, b;
	uint64_t k;
};

/* What a branch's comparison is before either edge refines it
 * (absint_refine.c absint_cmp_before): the same for both edges, which the walk follows from the
 * same state (the first one's work undone), so found once. */
struct cmp_pre {
	struct absint_val x, y;   /* the operands' values */
	struct fact_key key;
	uint64_t steps;           /* what finding F counted (absint_sum_decide's
	                           * re-evaluations), counted again for the
	                           * second edge: the budget as before */
	int f;                    /* the facts' or sums' decision, -1: none */
	int c;                    /* the values' (absint_cond), when F is -1 */
	bool one;                 /* A and B are one value */
};

/* Where the walk's undoable state stood (mark_now): the trail's length
 * and the definitions'. */
struct mark {
	size_t trail, defs;
};

struct frame {
	uint32_t b;
	uint32_t next;            /* successor to try next */
	struct mark mark;         /* before entering b */
	struct cmp_pre pre;       /* a BRANCH's comparison, found at edge 0 */
};

/* A memo entry as it was before an evaluation wrote over it (struct
 * walk: keep). */
struct kept {
	uint32_t id;
	struct absint_val memo;
};

struct walk {
	const struct ssa_prog *p;
	const struct absint_opts *o;
	struct absint_result *r;
	struct absint_val *env;   /* by value id */
	bool *def;                /* by value id: evaluated on this path (a bool:
	                           * a byte's stores may alias any field); never
	                           * UNDEF's (0: define), so !def[id] is id 0 too */
	uint32_t *phi_arg;        /* by phi id: its operand on this path */
	struct absint_val *memo;  /* by value id: re-evaluated (stamp) */
	uint32_t *stamp, now;
	uint32_t hi;              /* the newest stamp given (now may be older:
	                           * absint_split.c now_holds_again) */
	uint32_t keep;            /* a memo written over whose stamp is KEEP
	                           * goes on KEPT first (NO_STAMP: none) */
	struct kept *kept;        /* by value at most once */
	uint32_t *seen, seen_now; /* absint_split.c split_cands */
	size_t nkept;
	bool lost;                /* the stamps wrapped while KEEP was set */
	uint64_t top_steps;       /* the steps when absint_reeval_top began */
	unsigned in_reeval;       /* inside reeval: memo holds this evaluation's */
	uint32_t *alias;          /* by value id: the load it reads the same cell
	                           * as on this path, or itself (find: one load) */
	const uint32_t *canon;    /* by value id: its class of equal values
	                           * (absint_canon), 0: none */
	uint32_t *holder;         /* by class: the value of it defined first on
	                           * this path when that value is defined (def),
	                           * else none (0, or a value of an earlier path:
	                           * not undone, absint_hold) */
	uint32_t *shl_of;         /* absint_shifted */
	uint8_t *shl_by;
	uint32_t *op_slot;        /* by value id: 1 + its entry in OPS, 0: none */
	struct op_memo *ops;      /* absint.c op_eval */
	size_t nops, capops;
	bool flat;                /* bare code: one flat memory */
	const struct ssa_insn **run;   /* every block's instructions but its
	                           * constants (absint.c consts_everywhere),
	                           * block B's from run_at[B] to run_at[B + 1] */
	uint32_t *run_at;
	uint32_t *run_gap;        /* by RUN entry: the constants just before it
	                           * in its block */
	uint32_t *run_tail;       /* by block: the constants at its end */
	struct cell *cells;
	uint32_t lastk[C_NKINDS]; /* by kind: 1 + the index of its newest cell */
	uint32_t lastm;           /* ... of C_LOAD, C_WRITE and C_MSUM's */
	uint32_t *lastr;          /* by value id: ... of the C_FACTs of that
	                           * ROOT (absint_path.c key_decide) */
	size_t ncells, capcells;
	struct undo *trail;
	size_t ntrail, captrail;
	/* the values defined on the path, in order (define): at most one
	 * entry a value, undone by clearing def, apart from the trail */
	uint32_t *defs;
	size_t ndefs;
	struct frame *stack;
	size_t nstack, capstack;
	uint32_t ncalls;          /* calls and tail calls on this path */
	uint32_t npktw;           /* stores on this path that may write the packet */
	bool stop;                /* the verdict is decided: unknown */
	bool empty;               /* reeval met a value with an empty set: no
	                           * run follows this path */
};

static inline void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * elem);
	if (!p)
		abort();
	return p;
}

/* The value ID stands for on this path: the load that read the same
 * cell, or ID itself (one level: an alias is always to a value that is
 * none). */
static inline uint32_t find(const struct walk *w, uint32_t id)
{
	return w->alias[id];
}

static inline void trail_push(struct walk *w, uint32_t id)
{
	size_t n = w->ntrail;

	if (n == w->captrail)     /* made at its usual size (absint.c by_value) */
		w->trail = grow(w->trail, &w->captrail, n + 1, sizeof(*w->trail));
	w->trail[n].id = id;
	w->ntrail = n + 1;
}

/* Replace the value of ID (defined earlier on the path) by V, undoably. */
static inline void set(struct walk *w, uint32_t id, const struct absint_val *v)
{
	id = find(w, id);
	if (!w->def[id])   /* UNDEF (never defined): stays any value */
		return;
	trail_push(w, id);
	w->trail[w->ntrail - 1].old = w->env[id];
	w->env[id] = *v;
}

static inline struct mark mark_now(const struct walk *w)
{
	return (struct mark){ w->ntrail, w->ndefs };
}

/* Back to MARK: the definitions since undone (def cleared: what the trail
 * undoes does not read it, nor the order of the two) and the trail. */
static inline void undo_to(struct walk *w, struct mark mark)
{
	/* the marks are below both bits. In locals: the loop's stores may
	 * alias fields of W, which it would read again after each. */
	const struct undo *t = w->trail;
	const uint32_t *d = w->defs;
	bool *def = w->def;
	size_t n = w->ndefs;

	while (n > mark.defs)
		def[d[--n]] = false;
	w->ndefs = n;
	n = w->ntrail;
	while (n > mark.trail) {
		uint32_t id = t[--n].id;

		if (id & ALIAS_BIT) {
			w->alias[id & ~ALIAS_BIT] = id & ~ALIAS_BIT;
		} else if (id == CELL_MARK) {
			const struct cell *e = &w->cells[--w->ncells];

			w->lastk[e->kind] = e->prevk;
			if (cell_is_mem(e->kind))
				w->lastm = e->prevm;
			else if (e->kind == C_FACT)
				w->lastr[e->root] = e->prevr;
		} else if (id == CALL_MARK) {
			w->ncalls--;
		} else if (id == PKTW_MARK) {
			w->npktw--;
		} else {
			w->env[id] = t[n].old;
		}
	}
	w->ntrail = n;
}

/* The cells of one kind (or of memory: C_LOAD, C_WRITE, C_MSUM; or the
 * facts of one root) among the newest CELL_SCAN when the scan starts,
 * newest first: what a scan of those cells that skips every other sees,
 * in the same order:
 *   struct cell_it it;
 *   for (e = kind_first(w, &it, K); e; e = cell_next(w, &it)) ...
 *   for (e = mem_first(w, &it); e; e = cell_next(w, &it)) ...
 *   for (e = fact_first(w, &it, ROOT); e; e = cell_next(w, &it)) ...
 * The body may push cells (the cells array may move: E is valid until
 * then, the iterator goes by index; cells pushed since are not seen, as
 * a scan from the old end would not see them). */
struct cell_it {
	size_t lo;                /* the window: the cells from index LO on
	                           * (ncells when the scan started less
	                           * CELL_SCAN, or 0) */
	uint32_t at;              /* 1 + the index of the current cell */
	uint8_t chain;            /* CHAIN_KIND: prevk, CHAIN_MEM: prevm,
	                           * CHAIN_ROOT: prevr */
};
enum { CHAIN_KIND, CHAIN_MEM, CHAIN_ROOT };

static inline const struct cell *cell_at(const struct walk *w, struct cell_it *it, uint32_t at)
{
	it->at = at > it->lo ? at : 0;     /* AT - 1 < ncells: a chain goes back */
	return it->at ? &w->cells[it->at - 1] : NULL;
}

/* The first cell of chain CHAIN, whose newest is 1 + index AT */
static inline const struct cell *chain_first(const struct walk *w, struct cell_it *it,
					     unsigned chain, uint32_t at)
{
	it->lo = w->ncells > CELL_SCAN ? w->ncells - CELL_SCAN : 0;
	it->chain = (uint8_t)chain;
	return cell_at(w, it, at);
}

static inline const struct cell *kind_first(const struct walk *w, struct cell_it *it, unsigned k)
{
	return chain_first(w, it, CHAIN_KIND, w->lastk[k]);
}

static inline const struct cell *mem_first(const struct walk *w, struct cell_it *it)
{
	return chain_first(w, it, CHAIN_MEM, w->lastm);
}

/* The facts (C_FACT) of root ROOT */
static inline const struct cell *fact_first(const struct walk *w, struct cell_it *it, uint32_t root)
{
	return chain_first(w, it, CHAIN_ROOT, w->lastr[root]);
}

static inline const struct cell *cell_next(const struct walk *w, struct cell_it *it)
{
	const struct cell *e = &w->cells[it->at - 1];

	return cell_at(w, it, it->chain == CHAIN_KIND ? e->prevk :
			      it->chain == CHAIN_MEM ? e->prevm : e->prevr);
}

/* A value not evaluated on this path (the encoder lets a pure value be
 * used before its place in the block order) is any value: never a stale
 * one from another path. */
static inline struct absint_val get(const struct walk *w, uint32_t id)
{
	id = find(w, id);
	return !w->def[id] ? absint_top() : w->env[id];
}

/* Define ID on this path (undone when the walk backs out). */
static inline void define(struct walk *w, uint32_t id, const struct absint_val *v)
{
	w->env[id] = *v;
	if (id == 0 || w->def[id])
		return;
	w->def[id] = true;
	w->defs[w->ndefs++] = id;
}

static inline bool same_val(const struct absint_val *a, const struct absint_val *b)
{
	return a->umin == b->umin && a->umax == b->umax && a->smin == b->smin &&
	       a->smax == b->smax && a->tv == b->tv && a->tm == b->tm;
}

/* ---- absint_path.c: memory cells, parts, facts ----------------------- */
/* The value of LOAD V with what the path knows of its cell (its width). */
struct absint_val absint_eval_load(const struct walk *w, const struct ssa_insn *v);
/* Record LOAD V's cell (or alias V to the load of the same cell, *VAL then
 * its value); false: V is not a load this pass tracks. */
bool absint_load(struct walk *w, const struct ssa_insn *v, struct absint_val *val);
/* V may write memory: a barrier for the cells of what it may write. */
void absint_write_barrier(struct walk *w, const struct ssa_insn *v);
uint32_t absint_sub_cancels(const struct walk *w, const struct ssa_insn *v);
uint32_t absint_slot_part(const struct walk *w, const struct ssa_insn *v);
uint32_t absint_slot_bytes(const struct walk *w, uint32_t slot, unsigned byte, unsigned size);
uint64_t absint_sum_upper(struct walk *w, uint32_t id);
bool absint_lookup_refined(struct walk *w, uint32_t id);
void absint_rem_fact(struct walk *w, const struct ssa_insn *v);
int absint_sum_decide(struct walk *w, unsigned op, uint32_t a, uint32_t b);
uint32_t absint_select_now(struct walk *w, uint32_t id);
uint32_t absint_resolve(struct walk *w, uint32_t id);
/* V is a mask / truncation / byte swap of a value: record it as bytes of it. */
void absint_masks(struct walk *w, const struct ssa_insn *v, const struct absint_val *val);
/* Into CANON (one per value, each written), by value id, the first value that
 * computes the same value in every run (absint_path.c: same operation of
 * the same operands), 0 for a value that has no such class; TAB is
 * scratch, absint_canon_slots(nvalues) zeroed entries. */
size_t absint_canon_slots(size_t nvalues);
void absint_canon(const struct ssa_prog *p, uint32_t *canon, uint32_t *tab);
/* By value id: V = (X << K) & C whose (X & (C >> K)) is value OF[V]
 * (K = BY[V]: V is that value shifted, `(b << 2) & 60` of `b & 15`: an
 * IPv4 header length checked, then used), else OF[V] 0; false when out
 * of memory. OF and BY zeroed by the caller, one per value. */
bool absint_shifted(const struct ssa_prog *p, uint32_t *of, uint8_t *by);
/* V (just defined, value VAL) is the same value as REP on this path. */
void absint_alias(struct walk *w, uint32_t id, uint32_t rep, const struct absint_val *val);
/* V just defined (VAL): an alias of the value of its class already
 * defined on this path, else that value from now on. Inline: most
 * values are the first of their class on the path; absint_hold_alias
 * makes ID an alias of H (defined, of its class). */
void absint_hold_alias(struct walk *w, uint32_t id, uint32_t h, const struct absint_val *val);

static inline void absint_hold(struct walk *w, const struct ssa_insn *v,
			       const struct absint_val *val)
{
	uint32_t k = w->canon ? w->canon[v->id] : 0, h;

	if (!k)
		return;
	h = w->holder[k];
	if (h && h != v->id && w->def[h]) {
		absint_hold_alias(w, v->id, h, val);
		return;
	}
	/* not on the trail: a holder the walk backs out of is undefined
	 * (def) from then on, which reads as none, and the values defined
	 * after it on the path are undone before it (H may be V itself,
	 * defined on an earlier path) */
	w->holder[k] = v->id;
}
/* Push C on the path's cells (undone when the walk backs out). */
void absint_cell_push(struct walk *w, const struct cell *c);
/* What the path's facts say of `A op B`: 1 true, 0 false, -1 nothing. */
int absint_fact_decide(const struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b);
/* The path takes `A op B` (op JEQ or JNE, or an unsigned ordering). */
void absint_fact_push(struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b);
/* `A op B` as the facts keep it: decided as absint_fact_decide, and its
 * form kept in *KEY for absint_fact_push_key (a branch's comparison,
 * decided and then taken or refused, its form found once; struct fact_key
 * above). */
int absint_fact_decide_key(const struct walk *w, unsigned op, bool is64, uint32_t a,
			   uint32_t b, struct fact_key *key);
/* KEY (its values unchanged since) holds on the path from here on, or
 * its negation (!HOLDS). */
void absint_fact_push_key(struct walk *w, const struct fact_key *key, bool holds);

/* absint_back.c, for absint.c and absint_split.c: */
/* Narrow value ID to T and what it is computed from (absint_back), DEPTH
 * deep. */
bool absint_narrow(struct walk *w, uint32_t id, const struct absint_val *t, unsigned depth);
/* Value ID's refined value (on the path) narrows what it is computed
 * from, DEPTH deep; false: no run is left. */
bool absint_back(struct walk *w, uint32_t id, unsigned depth);
/* absint_refine.c, for absint.c and absint_split.c: */
/* 1: `x op x` is true for op, 0: false, -1: it depends. */
int absint_reflexive(unsigned op);
/* ID is defined on the path and its value is 0 or 1. */
bool absint_is_bool(const struct walk *w, uint32_t id);
/* The path has boolean ID equal to TRUTH: refine what it compares. */
bool absint_refine_bool(struct walk *w, uint32_t id, bool truth, unsigned depth);
/* What `A op B` is on this path before an edge refines it (*PRE). */
void absint_cmp_before(struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b,
		       struct cmp_pre *pre);
/* The path takes `A op B` (TAKEN) or its negation, PRE what it was
 * before (absint_cmp_before): A and B restricted, and what they are
 * computed from; false: infeasible. */
bool absint_refine_pre(struct walk *w, unsigned op, bool is64, bool taken, uint32_t a,
		       uint32_t b, const struct cmp_pre *pre);
/* A value of kind K depends on its operands only (computed again, it is
 * the same value). */
#define ABSINT_PURE (1u << SSA_ALU | 1u << SSA_UNARY | 1u << SSA_EXTRACT | 1u << SSA_INSERT | \
		     1u << SSA_SELECT | 1u << SSA_CMP | 1u << SSA_PHI)
_Static_assert(SSA_NKINDS <= 32, "absint_pure: a kind's bit");
static inline bool absint_pure(enum ssa_kind k)
{
	return ABSINT_PURE >> k & 1u;
}

/* ID computed again from its operands' values now (refined since it was
 * defined), met with its value; DEPTH bounds the operand chains followed.
 * absint_reeval_begin forgets what was memoised; absint_reeval_top is a
 * new evaluation of ID (48 deep). Inline: most operands it meets are
 * leaves or memoised in this evaluation; absint_reeval_pure computes
 * pure value ID (V, defined, not memoised) from its operands. */
const struct absint_val *absint_reeval_pure(struct walk *w, uint32_t id,
					    const struct ssa_insn *v, unsigned depth);

__attribute__((always_inline))
static inline struct absint_val absint_reeval(struct walk *w, uint32_t id, unsigned depth)
{
	const struct ssa_insn *v;

	id = find(w, id);           /* an alias: its representative's value */
	v = w->p->values[id];
	if (depth == 0 || !absint_pure(v->kind))    /* UNDEF (0) is not pure */
		return get(w, id);
	if (!w->def[id])
		return absint_top();
	if (w->stamp[id] == w->now)
		return w->memo[id];
	return *absint_reeval_pure(w, id, v, depth);
}

void absint_reeval_begin(struct walk *w);
struct absint_val absint_reeval_top(struct walk *w, uint32_t id);

/* A boolean's case split within a case split (two at once). */
#define SPLIT_DEPTH 1u

/* absint_split.c: a failing assert's condition COND on this path. */
/* No run follows this path (after absint_reeval_top of the condition). */
bool absint_infeasible(struct walk *w);
/* COND is true when evaluated again from the path's facts. */
bool absint_now_holds(struct walk *w, uint32_t cond);
/* absint_now_holds just after absint_reeval_top of COND and a false
 * absint_infeasible, with nothing changed since. */
bool absint_now_holds_again(struct walk *w, uint32_t cond);
/* A case split on COND's small-valued operands proves it in every case
 * (DEPTH: splits within a split so far). */
bool absint_split_proves(struct walk *w, uint32_t cond, unsigned depth);

#endif
