/* absint.h - the abstract-interpretation pre-pass: proves a check's asserts
 * without Z3 where intervals and known bits per path are enough.
 *
 * Contract:
 * - Input: a lifted program (ssa.h), not unsupported. absint_prove() walks
 *   the DAG's paths depth first from block 0, with an abstract value per SSA
 *   value defined on the current path (a phi takes the operand of the edge
 *   taken, so ghost state stays exact along a path). BRANCH edges and
 *   ASSUMEs refine the compared values; an edge (or an assume) whose
 *   refinement is empty ends the path (no run takes it).
 * - Proved (ABSINT_PROVED) means: on every path that some run can take,
 *   every ASSERT's condition is non-zero and no SSA_TERM_UNWIND block is
 *   reached. Assumes restrict only what comes after them on the path, so
 *   "proved" implies what the Z3 query asks (smt.h: assumes are background
 *   facts over the whole run). Anything the pass cannot show gives
 *   ABSINT_UNKNOWN with the reason (an assert it cannot prove, a reachable
 *   marker, the work budget); the caller then asks Z3.
 * - Values: each abstract value is the intersection of an unsigned and a
 *   signed 64-bit interval and a tnum (known bits). Operations follow the
 *   semantics of smt.c and interp.c exactly (32-bit ALU zero-extends, shift
 *   amounts masked, x / 0 = 0, x % 0 = x, MOVSX, byte swaps, JMP32 on the low
 *   halves, JSET). What the encoder leaves free (memory, calls, inputs,
 *   frame addresses) is "any value" (width-limited for narrow loads).
 * - No globals; the pass allocates scratch memory and frees it.
 */
#ifndef INVCHECK_ABSINT_H
#define INVCHECK_ABSINT_H

#include "base.h"
#include "ssa.h"

/* The set {x : umin <= x <= umax, smin <= (s64)x <= smax, (x & ~tm) == tv}. */
struct absint_val {
	uint64_t umin, umax;
	int64_t smin, smax;
	uint64_t tv, tm;          /* tnum: known bits' values, unknown bits */
};

/* ---- the domain (absint_dom.c) ----------------------------------------- */
/* (inline: the walk makes these for most values it meets) */
static inline struct absint_val absint_top(void)
{
	return (struct absint_val){ 0, UINT64_MAX, INT64_MIN, INT64_MAX, 0, UINT64_MAX };
}

static inline struct absint_val absint_const(uint64_t c)
{
	return (struct absint_val){ c, c, (int64_t)c, (int64_t)c, c, 0 };
}

static inline bool absint_is_const(const struct absint_val *a, uint64_t *c)
{
	if (a->umin != a->umax)
		return false;
	*c = a->umin;
	return true;
}

/* [0, 2^bits - 1] (bits < 64), or top */
static inline struct absint_val absint_width(unsigned bits, bool sx)
{
	struct absint_val a = absint_top();

	if (bits >= 64)
		return a;
	if (sx) {
		a.smin = -(int64_t)(1ull << (bits - 1));
		a.smax = (int64_t)((1ull << (bits - 1)) - 1);
		return a;
	}
	a.umax = (1ull << bits) - 1;
	a.smin = 0;
	a.smax = (int64_t)a.umax;
	a.tm = a.umax;
	return a;
}
/* [LO, HI] unsigned (LO <= HI), synced */
struct absint_val absint_range(uint64_t lo, uint64_t hi);
bool absint_contains(const struct absint_val *a, uint64_t x);
/* A's values in increasing order into OUT: how many, or -1 when its
 * unsigned range holds more than MAX values (then OUT is not written). */
int absint_values(const struct absint_val *a, uint64_t *out, unsigned max);
/* Tighten the three views against each other; false: the set is empty. */
bool absint_sync(struct absint_val *a);
/* absint_meet past its first test (B bounds something A does not) */
bool absint_meet_tighter(struct absint_val *a, const struct absint_val *b);
/* A becomes A and B (synced; false: empty). When B bounds nothing A does
 * not (B top, most often), A stays as it is, unsynced if it was. */
static inline bool absint_meet(struct absint_val *a, const struct absint_val *b)
{
	/* B holds all of A's bounds and bits (B top, most often): A as it
	 * is, what the meet would leave of A before its sync (inline: most
	 * meets are this one test) */
	if (b->umin <= a->umin && b->umax >= a->umax && b->smin <= a->smin &&
	    b->smax >= a->smax && !(a->tm & ~b->tm) && !((a->tv ^ b->tv) & ~b->tm))
		return true;
	return absint_meet_tighter(a, b);
}
struct absint_val absint_join(const struct absint_val *a, const struct absint_val *b);
/* ALU op (enum isa_op ADD .. ARSH, MOV) of width 64 or 32, as smt.c/interp.c */
struct absint_val absint_alu(unsigned op, bool is64, const struct absint_val *a,
			     const struct absint_val *b);
/* UNARY: NEG / LE / BE / BSWAP / MOVSX of SIZE bytes, 64- or 32-bit form */
struct absint_val absint_unary(unsigned op, bool is64, unsigned size,
			       const struct absint_val *a);
/* Bytes [byte, byte + size) of A, zero- or sign-extended (EXTRACT). */
struct absint_val absint_extract(const struct absint_val *a, unsigned byte, unsigned size,
				 bool sx);
/* A with bytes [byte, byte + size) replaced by B's low bytes (INSERT). */
struct absint_val absint_insert(const struct absint_val *a, const struct absint_val *b,
				unsigned byte, unsigned size);
/* Jump condition A op B (JEQ .. JSLE, JSET; 64 bits or the low 32):
 * 1 always true, 0 always false, -1 either. (Inline: the walk asks it of
 * most comparisons it meets, 64-bit ones the most.) */
int absint_cond64(unsigned op, const struct absint_val *a, const struct absint_val *b);
int absint_cond32(unsigned op, const struct absint_val *a, const struct absint_val *b);

static inline int absint_cond(unsigned op, bool is64, const struct absint_val *a,
			      const struct absint_val *b)
{
	return is64 ? absint_cond64(op, a, b) : absint_cond32(op, a, b);
}
/* Restrict A and B to the pairs where `A op B` is TAKEN (true) or not;
 * false: no pair is left. */
bool absint_refine(unsigned op, bool is64, bool taken, struct absint_val *a,
		   struct absint_val *b);
/* Backward: the values Y can have when X = Y op C (CONST_LHS: X = C op Y)
 * is in X, for ALU op MOV (X = Y, 32 bits: its low half), AND, OR, XOR,
 * ADD, SUB, LSH, RSH of width 64 or 32 (a superset: known bits, and
 * intervals where they follow); false: no information (other ops). */
bool absint_invert_alu(unsigned op, bool is64, bool const_lhs, const struct absint_val *x,
		       uint64_t c, struct absint_val *out);
/* The values a slot value can have when bytes [byte, byte + size) of it,
 * extended either way, are in X. */
struct absint_val absint_invert_extract(const struct absint_val *x, unsigned byte,
					unsigned size);
/* "[umin, umax] s[smin, smax] tnum(v, m)" or the constant, for messages. */
void absint_format(const struct absint_val *a, char *buf, size_t len);

/* ---- the pass (absint.c) ----------------------------------------------- */
#define ABSINT_DEFAULT_BUDGET 200000u   /* instructions evaluated, all paths */
#define ABSINT_MEM_ANY 0xffffu          /* = SMT_MEM_ANY */

struct absint_opts {
	uint64_t budget;          /* instructions evaluated before giving up;
	                           * 0: ABSINT_DEFAULT_BUDGET */
	const uint8_t *ptr_loads; /* by value id: a LOAD the encoder answers
	                           * with a packet pointer term (smt_precheck:
	                           * 1 data, 2 data_end, 3 data_meta), or NULL */
	/* by value id, what it does with memory (smt.h: smt_precheck's
	 * mem): LOAD 1 + the region it reads as an array (0: a fresh value
	 * per load), STORE / ATOMIC 1 + the region written, CALL / TAILRET
	 * ABSINT_MEM_ANY when it may change any memory. NULL: bare code
	 * (no object) has one flat memory (every load reads it, every
	 * store, atomic, call and tail call may change it); a program of an
	 * object has no memory cells. */
	const uint16_t *mem;
	/* Tests (a containment oracle), or NULL: called at every exit a path
	 * reaches, with the EXIT block and the abstract value of its result
	 * on that path. */
	void (*at_exit)(void *arg, const struct ssa_block *exit, const struct absint_val *r0);
	void *arg;
	/* A bound's worst case: when non-zero, every ASSERT of site
	 * COUNT_SITE - 1 with a second operand (the insns counter,
	 * instrument.c) that a path reaches raises absint_result.count_max
	 * to that operand's largest value on the path. */
	unsigned count_site;
};

enum absint_verdict { ABSINT_PROVED, ABSINT_UNKNOWN };

struct absint_result {
	enum absint_verdict verdict;
	char reason[200];         /* UNKNOWN: why */
	uint64_t paths;           /* paths walked to an exit */
	uint64_t steps;           /* instructions evaluated */
	uint64_t unwinds;         /* paths that reached an unwinding marker */
	struct absint_val r0;     /* the join of r0 over the exits reached */
	uint64_t exits;
	/* opts.count_site: the largest counter value at any of its asserts
	 * reached (count_seen: one was). PROVED with count_seen: no run
	 * counts more than count_max there. */
	uint64_t count_max;
	bool count_seen;
};

/* O NULL: the defaults. */
void absint_prove(const struct ssa_prog *p, const struct absint_opts *o,
		  struct absint_result *r);

/* What absint_prove's result depends on besides P's object (read only
 * for the whole run): P's values and blocks as the walk reads them, and
 * O's ptr_loads and mem (O's budget the default, no at_exit, no
 * count_site), as words into *KEY (malloc'd; the caller frees it): how
 * many. Two programs of one object with equal keys are walked alike,
 * step for step: the same result. Anything the walk comes to read of a
 * program or of O goes into the key too. */
size_t absint_key(const struct ssa_prog *p, const struct absint_opts *o, uint64_t **key);

#endif
