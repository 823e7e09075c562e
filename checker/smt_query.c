/* smt_query.c - the solver's limits (timeout, memory, rlimit, budget) and
 * its queries: smt_prove, a coarse query first where the encoding left
 * definitions out (smt.c abstract()), then the exact one. */
#include "smt_priv.h"
#include "stats.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void set_rlimit(struct smt *s, uint64_t units)
{
	if (units != s->rlimit)
		s->params_dirty = true;
	s->rlimit = units;
}

void smt_set_budget(struct smt *s, uint64_t units)
{
	s->budget_end = units ? smt_rlimit_count(s) + units : 0;
	if (!units)
		set_rlimit(s, 0);
}

void smt_set_query_units(struct smt *s, uint64_t units)
{
	s->query_units = units;
}

uint64_t smt_rlimit_count(struct smt *s)
{
	Z3_stats st = Z3_solver_get_statistics(s->ctx, s->solver);
	uint64_t n = 0;
	unsigned i;

	if (!zok(s) || !st)
		return 0;
	Z3_stats_inc_ref(s->ctx, st);
	for (i = 0; i < Z3_stats_size(s->ctx, st); i++)
		if (!strcmp(Z3_stats_get_key(s->ctx, st, i), "rlimit count"))
			n = Z3_stats_is_uint(s->ctx, st, i) ? Z3_stats_get_uint_value(s->ctx, st, i)
				: (uint64_t)Z3_stats_get_double_value(s->ctx, st, i);
	Z3_stats_dec_ref(s->ctx, st);
	zok(s);
	return n;
}

/* ---- queries ----------------------------------------------------------- */

void smt_set_max_memory(struct smt *s, unsigned mb)
{
	s->max_memory = mb;
	s->params_dirty = true;
}

static void set_timeout(struct smt *s, unsigned ms)
{
	Z3_params prm;
	unsigned t = ms ? ms : UINT_MAX;

	if (t == s->timeout && !s->params_dirty)
		return;
	prm = Z3_mk_params(s->ctx);
	Z3_params_inc_ref(s->ctx, prm);
	Z3_params_set_uint(s->ctx, prm, Z3_mk_string_symbol(s->ctx, "timeout"), t);
	if (s->max_memory)
		Z3_params_set_uint(s->ctx, prm, Z3_mk_string_symbol(s->ctx, "max_memory"),
				   s->max_memory);
	/* 0 is Z3's "no limit" */
	Z3_params_set_uint(s->ctx, prm, Z3_mk_string_symbol(s->ctx, "rlimit"),
			   s->rlimit > UINT_MAX ? UINT_MAX : (unsigned)s->rlimit);
	s->params_dirty = false;
	Z3_solver_set_params(s->ctx, s->solver, prm);
	Z3_params_dec_ref(s->ctx, prm);
	if (zok(s))
		s->timeout = t;
}

/* The rlimit of the next query from the budget and the per-query units;
 * false (R's reason set) when the budget has run out. */
static bool query_limits(struct smt *s, unsigned timeout_ms, struct smt_result *r)
{
	if (s->budget_end) {
		uint64_t now = smt_rlimit_count(s);

		if (now >= s->budget_end) {
			snprintf(r->reason, sizeof(r->reason), "the budget of solver work ran out");
			return false;
		}
		set_rlimit(s, s->query_units && s->query_units < s->budget_end - now
			   ? s->query_units : s->budget_end - now);
	} else {
		set_rlimit(s, s->query_units);
	}
	set_timeout(s, timeout_ms);
	return true;
}

/* Is CLAIM proved with the abstracted definitions left out (abstract())?
 * False when not, or not asked: then the exact query decides. */
static bool coarse_proof(struct smt *s, Z3_ast claim, unsigned timeout_ms)
{
	struct smt_result q = {0};
	uint64_t before = 0;
	Z3_lbool res;

	if (!s->precise || s->no_coarse || s->failed || !query_limits(s, timeout_ms, &q))
		return false;
	if (s->budget_end)
		before = smt_rlimit_count(s);
	s->coarse_queries++;
	Z3_solver_push(s->ctx, s->solver);
	Z3_solver_assert(s->ctx, s->solver, smt_not(s, claim));
	Z3_solver_assert(s->ctx, s->solver, smt_not(s, s->precise));
	res = Z3_solver_check(s->ctx, s->solver);
	Z3_solver_pop(s->ctx, s->solver, 1);
	/* not on the budget (smt_set_budget): the exact queries of a search
	 * get the work they got without this one */
	if (s->budget_end)
		s->budget_end += smt_rlimit_count(s) - before;
	if (!zok(s) || res != Z3_L_FALSE)
		return false;
	s->coarse_proofs++;
	return true;
}

void smt_set_coarse(struct smt *s, bool on)
{
	s->no_coarse = !on;
}

void smt_coarse_stats(const struct smt *s, unsigned *queries, unsigned *proofs)
{
	*queries = s->coarse_queries;
	*proofs = s->coarse_proofs;
}

int smt_prove(struct smt *s, Z3_ast claim, unsigned timeout_ms, struct smt_result *r)
{
	Z3_lbool res;

	uint64_t t0 = stats_now(), ms;

	memset(r, 0, sizeof(*r));
	r->verdict = SMT_UNKNOWN;
	/* one TIMEOUT_MS for both: at most half of it for the coarse query,
	 * the rest for the exact one (a deadline's time left stays the time
	 * left) */
	if (coarse_proof(s, claim, timeout_ms ? (timeout_ms + 1) / 2 : 0)) {
		r->verdict = SMT_HOLDS;
		return 0;
	}
	if (timeout_ms) {
		ms = (stats_now() - t0) / 1000000u;
		timeout_ms = ms < timeout_ms ? timeout_ms - (unsigned)ms : 1;
	}
	if (!query_limits(s, timeout_ms, r))
		return 0;
	if (s->failed) {
		snprintf(r->reason, sizeof(r->reason), "%s", s->err);
		return -EIO;
	}
	Z3_solver_push(s->ctx, s->solver);
	Z3_solver_assert(s->ctx, s->solver, smt_not(s, claim));
	if (s->precise)
		Z3_solver_assert(s->ctx, s->solver, s->precise);
	res = Z3_solver_check(s->ctx, s->solver);
	if (!zok(s)) {
		snprintf(r->reason, sizeof(r->reason), "%s", s->err);
	} else if (res == Z3_L_FALSE) {
		r->verdict = SMT_HOLDS;
	} else if (res == Z3_L_TRUE) {
		r->verdict = SMT_VIOLATED;
		r->model = Z3_solver_get_model(s->ctx, s->solver);
		if (zok(s) && r->model)
			Z3_model_inc_ref(s->ctx, r->model);
		else
			r->model = NULL;
	} else {
		snprintf(r->reason, sizeof(r->reason), "%s",
			 Z3_solver_get_reason_unknown(s->ctx, s->solver));
	}
	Z3_solver_pop(s->ctx, s->solver, 1);
	zok(s);
	if (s->failed && r->verdict == SMT_UNKNOWN && !r->reason[0])
		snprintf(r->reason, sizeof(r->reason), "%s", s->err);
	return s->failed ? -EIO : 0;
}

void smt_release(struct smt *s, struct smt_result *r)
{
	if (r->model)
		Z3_model_dec_ref(s->ctx, r->model);
	r->model = NULL;
}

int smt_eval_u64(struct smt *s, Z3_model m, Z3_ast t, uint64_t *out)
{
	Z3_ast v = NULL;
	uint64_t x = 0;

	if (!m || !Z3_model_eval(s->ctx, m, t, true, &v) || !zok(s) || !v)
		return -EINVAL;
	if (!Z3_get_numeral_uint64(s->ctx, v, &x) || !zok(s))
		return -EINVAL;
	*out = x;
	return 0;
}

const char *smt_verdict_name(enum smt_verdict v)
{
	switch (v) {
	case SMT_HOLDS: return "holds";
	case SMT_VIOLATED: return "violated";
	case SMT_UNKNOWN: return "unknown";
	}
	return "?";
}
