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

#endif
