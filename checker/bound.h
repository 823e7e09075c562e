/* bound.h - a cheap path before Z3 for `bound insns <= N`.
 *
 * bound_static_max() computes, from the SSA alone, the largest value the
 * insns counter can have at any of P's asserts of site SITE: over every
 * path of the DAG, feasible or not, so every run's count is at most that.
 * The counter is built from constants, 64-bit additions, phis and selects
 * (ssa.c count_steps, ssa_emit_insns); an unsigned upper bound is
 * propagated through exactly those (an addition only when the bounds' sum
 * does not wrap). Anything else makes it give up (false).
 *
 * check.c uses it twice, soundly: a check whose only assert is the bound
 * holds without a query when the maximum is <= N (a solver query still
 * decides the loop-bound marker); and a bound's worst-case search starts
 * from that maximum (the top is tried first: when the longest path is
 * feasible, one query finds the worst case instead of a bisection).
 */
#ifndef INVCHECK_BOUND_H
#define INVCHECK_BOUND_H

#include "ssa.h"

bool bound_static_max(const struct ssa_prog *p, unsigned site, uint64_t *out);

/* One DAG path of that maximum, as the worst-case search's hint: the
 * block of the first assert of SITE with the maximum TOP, and the incoming
 * edges (block, index in its preds) whose phis of the counter lead back
 * from it to the entry. Every run that takes all these edges and reaches
 * that block counts exactly TOP (where the count is merged without a phi,
 * all paths count the same). False where bound_static_max is, or when the
 * count is not a chain of constant additions and phis. Edges in arena A. */
struct bound_path {
	uint64_t top;
	uint32_t block;
	uint32_t nedges;
	uint32_t *edges;          /* 2 * nedges: block, pred index */
};
bool bound_longest_path(const struct ssa_prog *p, unsigned site, struct arena *a,
			struct bound_path *out);

#endif
