/* check_priv.h - what check.c (one check from monitor to verdict) and
 * check_worst.c (a bound's worst case and its witness) share. Contract of
 * the stage: checker.h. */
#ifndef INVCHECK_CHECK_PRIV_H
#define INVCHECK_CHECK_PRIV_H

#include "checker.h"
#include "smt.h"

/* R's verdict V, its reason formatted. */
void check_set_reason(struct check_result *r, enum check_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* K notes N added to R's (copied into its arena). */
void check_add_notes(struct check_result *r, const char *const *n, unsigned k);
/* A query's timeout: --timeout, cut to what is left before the deadline. */
unsigned check_qtime(const struct check_opts *o);
/* Q, a model of BAD, replaced by one with a shorter packet (64, 128, 256,
 * 1514 bytes at most, below the model's own) where the solver finds one. */
void check_prefer_short_packet(struct smt *s, const struct smt_prog *e, Z3_ast bad,
			       const struct check_opts *o, struct smt_result *q);

/* check_worst.c */
/* The worst case by the concrete search, without Z3, for a check whose
 * DAG's longest path TOP is within its bound: true when it decided (the
 * worst case and its witness, or an internal error). */
bool check_searched_worst(const struct loaded *l, const struct ssa_prog *p,
			  const struct check_opts *o, struct check_result *r, uint64_t top);
/* The worst case of R's bound (held or violated) by the search or the
 * solver, within WORST_CASE_BUDGET units of solver work: r->worst and
 * its witness, or r->worst_max, the proved upper bound. */
void check_worst_case(const struct loaded *l, struct smt *s, const struct smt_prog *e,
		      const struct check_opts *o, struct check_result *r);

#endif
