/* check.c - one check from monitor to verdict (contract in checker.h; a
 * bound's worst case is check_worst.c). */
#include "check_priv.h"

#include "absint.h"
#include "bound.h"
#include "instrument.h"
#include "search.h"
#include "smt.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Checks run in groups of this many, in order (check_run_all's pool: a
 * Z3 context and an exit_share per group). */
#define CHECK_GROUP 8u

void check_set_reason(struct check_result *r, enum check_verdict v, const char *fmt, ...)
{
	va_list ap;

	r->verdict = v;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/* Diagnostics of a check's stages land in its reason. */
static void to_reason(void *arg, const struct diag_msg *m)
{
	struct check_result *r = arg;

	if (m->level == DIAG_ERROR && !r->reason[0])
		diag_format(m, r->reason, sizeof(r->reason));
}

double check_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static bool past_deadline(const struct check_opts *o)
{
	return o->deadline_at > 0 && check_clock() >= o->deadline_at;
}

/* A query's timeout: --timeout, cut to what is left before the deadline
 * (at least 1 ms: 0 would mean no limit). */
unsigned check_qtime(const struct check_opts *o)
{
	double left;

	if (o->deadline_at <= 0)
		return o->timeout_ms;
	left = (o->deadline_at - check_clock()) * 1000;
	if (left < 1)
		left = 1;
	if (o->timeout_ms && o->timeout_ms < left)
		return o->timeout_ms;
	return left > 4e9 ? 4000000000u : (unsigned)left;
}

/* The reason of an unknown query: the run's limits named when they are
 * the cause. */
static void gave_up(struct check_result *r, const struct check_opts *o, const char *what,
		    const char *reason)
{
	if (past_deadline(o))
		check_set_reason(r, CHECK_UNKNOWN, "deadline: the run's --deadline=%u s ran out while solving",
				 o->deadline_s);
	else if (o->max_memory_mb && strstr(reason, "memory"))
		check_set_reason(r, CHECK_UNKNOWN, "memory: the solver needed more than --max-memory=%u MB%s",
				 o->max_memory_mb, what);
	else if (o->query_units && strstr(reason, "resource limit"))
		check_set_reason(r, CHECK_UNKNOWN, "solver work: a query needed more than --rlimit=%u units%s",
				 o->query_units, what);
	else
		check_set_reason(r, CHECK_UNKNOWN, "the solver gave up%s: %s", what, reason);
}

/* The packet length of model M's input (false: no packet, or no value). */
static bool model_len(struct smt *s, const struct smt_prog *e, Z3_model m, uint64_t *len)
{
	uint64_t d, end;

	if (!e->mem_init.data || !e->mem_init.end || !m ||
	    smt_eval_u64(s, m, e->mem_init.data, &d) || smt_eval_u64(s, m, e->mem_init.end, &end))
		return false;
	*len = end - d;
	return true;
}

/* A counterexample with a short packet reads better, and is read off the
 * model faster (byte by byte: a 64 KiB packet took seconds): try packets
 * of at most 64, 128, ... bytes first for a model of BAD (a few more
 * queries; the first model found is kept when none of these is possible or
 * the solver gives up). KEEP_SHORT: only lengths below the model's own are
 * tried (a model with a packet of at most 64 bytes is kept without a
 * query). */
static void shorter_of(struct smt *s, const struct smt_prog *e, Z3_ast bad,
		       const struct check_opts *o, bool keep_short, struct smt_result *q)
{
	static const uint64_t lens[] = { 64, 128, 256, 1514 };
	Z3_context z = smt_ctx(s);
	struct smt_result t;
	uint64_t have = UINT64_MAX;
	unsigned i;

	if (!e->mem_init.data || !e->mem_init.end)
		return;
	if (!keep_short || !model_len(s, e, q->model, &have))
		have = UINT64_MAX;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]) && lens[i] < have; i++) {
		Z3_ast len = Z3_mk_bvsub(z, e->mem_init.end, e->mem_init.data);
		Z3_ast c = smt_and(s, bad, Z3_mk_bvule(z, len, smt_bv64(s, lens[i])));

		smt_prove(s, smt_not(s, c), check_qtime(o), &t);
		if (t.verdict == SMT_VIOLATED) {
			smt_release(s, q);
			*q = t;
			return;
		}
		smt_release(s, &t);
		if (t.verdict == SMT_UNKNOWN)
			return;
	}
}

void check_prefer_short_packet(struct smt *s, const struct smt_prog *e, Z3_ast bad,
			       const struct check_opts *o, struct smt_result *q)
{
	shorter_of(s, e, bad, o, true, q);
}

/* For the diff: the same with only a per-query timeout, and always asked
 * (its reports keep the models they had: tests/flow_affinity.sh). */
void check_shorter_packet(struct smt *s, const struct smt_prog *e, Z3_ast claim,
			  unsigned timeout_ms, struct smt_result *q)
{
	struct check_opts o = { .timeout_ms = timeout_ms };

	shorter_of(s, e, claim, &o, false, q);
}

/* The replay must end at the same failing assert (for the bound: the
 * concrete monitor fails the bound's assert at an exit after more
 * instructions than the bound). */
static bool replay_agrees(const struct check_result *r, const struct replay_result *rr)
{
	const struct mon_check *c = r->c;

	if (c->has_bound && r->site == c->bound_site)
		return rr->outcome == REPLAY_ASSERT_FAILED && rr->site == r->site &&
		       rr->steps > c->bound;
	return rr->outcome == REPLAY_ASSERT_FAILED && rr->site == r->site;
}

/* R->cex (from a model or the search): replayed, shown only if the replay
 * fails the same assert; --replay-kernel runs it in the kernel too. */
static void confirm(const struct loaded *l, const struct check_opts *o, struct check_result *r)
{
	bool agrees;

	r->site = r->cex->site;
	if (replay_run(l, r->c, r->cex, &r->replay) < 0) {
		check_set_reason(r, CHECK_ERROR, "internal error: the counterexample cannot be set up for replay");
		return;
	}
	agrees = replay_agrees(r, &r->replay);
	if (!agrees && r->cex->unspecified) {
		/* the model chose a value the spec language leaves open */
		check_set_reason(r, CHECK_UNKNOWN,
				 "not modelled: the counterexample depends on %s, whose value is "
				 "unspecified (guard the read); its replay: %s", r->cex->unspecified,
				 r->replay.msg);
		r->cex = NULL;
		return;
	}
	if (!agrees) {
		check_set_reason(r, CHECK_ERROR,
				 "internal error: the counterexample does not replay to assert %u: %s (%s)",
				 r->site, replay_outcome_name(r->replay.outcome), r->replay.msg);
		return;
	}
	r->verdict = CHECK_VIOLATED;
	if (o->replay_kernel) {
		/* BPF_PROG_TEST_RUN observes only the program's return value */
		r->kernel_tried = true;
		if (r->replay.event != SPEC_EV_EXIT)
			snprintf(r->kernel_msg, sizeof(r->kernel_msg),
				 "the failing assert is at %s, which BPF_PROG_TEST_RUN cannot observe",
				 r->replay.event == SPEC_EV_ENTRY ? "entry" : "a call");
		else if (kernel_replay(l, r->cex, r->replay.r0, &r->kernel_reproduced,
				       r->kernel_msg, sizeof(r->kernel_msg)) < 0)
			r->kernel_reproduced = false;
	}
}

static void violated(const struct loaded *l, struct smt *s, const struct smt_prog *e,
		     Z3_model m, const struct check_opts *o, struct check_result *r)
{
	char why[256];

	int err = cex_extract(s, e, m, r->c, -1, r->arena, &r->cex, why, sizeof(why));

	if (err == -ERANGE) {           /* the model's run is not a program's */
		r->cex = NULL;
		check_set_reason(r, CHECK_UNKNOWN, "not modelled: %s", why);
		return;
	}
	if (err < 0) {
		check_set_reason(r, CHECK_ERROR, "internal error: no counterexample from the model: %s", why);
		return;
	}
	confirm(l, o, r);
}

/* The concrete search (search.h) before Z3: true when it decided R. */
static bool searched(const struct loaded *l, const struct check_opts *o, struct check_result *r)
{
	struct cex *x;

	if (o->no_search || o->no_time || r->c->has_bound ||
	    !search_run(l, r->c, r->arena, &x, &r->search_runs))
		return false;
	r->cex = x;
	r->by_search = true;
	confirm(l, o, r);
	return true;
}

/* smt_precheck of a check's program, computed on first use: the pre-pass,
 * the bound without Z3 and not_modelled each need it (it was computed up
 * to three times for a check that went to Z3). */
struct precheck {
	bool done;
	struct smt_precheck pc;
};

static const struct smt_precheck *precheck(const struct ssa_prog *p, struct check_result *r,
					   struct precheck *m)
{
	if (!m->done) {
		smt_precheck(p, r->work, &m->pc);
		m->done = true;
	}
	return &m->pc;
}

/* The most instructions any run counts at the bound's asserts, proved
 * without Z3: the DAG's longest path (bound.h) when the bound is the
 * check's only assert and no unwinding marker is in the DAG; else the
 * pre-pass (absint.h) with the counter's largest value over the paths it
 * walks, when it proves every assert (the bound's too) and that no marker
 * is reached: every run is one of those paths, on which the counter is a
 * sum of constants. False: neither (Z3 decides). */
static bool bound_top(const struct ssa_prog *p, const struct check_opts *o,
		      struct check_result *r, struct precheck *m, uint64_t *top)
{
	const struct smt_precheck *pc;
	struct absint_opts ao = {0};
	struct absint_result ar;
	uint64_t t0;

	if (r->c->nasserts == 1 && !p->nunwind && bound_static_max(p, r->c->bound_site, top) &&
	    *top <= r->c->bound)
		return true;
	if (o->no_absint || past_deadline(o))
		return false;
	pc = precheck(p, r, m);
	if (pc->unsupported)
		return false;
	t0 = stats_now();
	ao.ptr_loads = pc->ptr_loads;
	ao.mem = pc->mem;
	ao.count_site = r->c->bound_site + 1;
	absint_prove(p, &ao, &ar);
	r->absint_ns += stats_now() - t0;
	if (ar.verdict != ABSINT_PROVED || !ar.count_seen || ar.count_max > r->c->bound)
		return false;
	r->by_absint = true;
	*top = ar.count_max;
	return true;
}

/* A bound whose worst case is at most TOP (bound_top) within the bound
 * holds (solve decides the DAG's case so without a query) and, when the
 * search finds a run that long, that run is the worst case and its
 * witness: no Z3 context at all. The notes are the encoder's
 * (smt_precheck); a program it does not model goes to Z3 as before. True
 * when R is decided (holds, or an internal error). */
static bool bound_without_z3(const struct loaded *l, const struct ssa_prog *p,
			     const struct check_opts *o, struct check_result *r,
			     struct precheck *m)
{
	const struct smt_precheck *pc;
	uint64_t top;

	if (!r->c->has_bound || o->no_search || o->no_time || !bound_top(p, o, r, m, &top))
		return false;
	pc = precheck(p, r, m);
	if (pc->unsupported || !check_searched_worst(l, p, o, r, top)) {
		r->by_absint = false;
		return false;
	}
	if (r->verdict == CHECK_ERROR)
		return true;
	check_add_notes(r, pc->notes, pc->nnotes);
	r->verdict = CHECK_HOLDS;
	r->by_search = true;
	return true;
}

static void solve(const struct loaded *l, struct smt *s, const struct smt_prog *e,
		  const struct check_opts *o, struct check_result *r)
{
	struct smt_result q;
	uint64_t top;

	/* the bound is the only assert and no path is longer (bound.h) */
	if (r->c->has_bound && r->c->nasserts == 1 &&
	    bound_static_max(e->p, r->c->bound_site, &top) && top <= r->c->bound)
		q.verdict = SMT_HOLDS;
	else
		smt_prove(s, smt_not(s, e->violated), check_qtime(o), &q);
	switch (q.verdict) {
	case SMT_VIOLATED:
		smt_set_coarse(s, false);     /* model searches (smt_prove) */
		check_prefer_short_packet(s, e, e->violated, o, &q);
		smt_set_coarse(s, true);
		violated(l, s, e, q.model, o, r);
		smt_release(s, &q);
		break;
	case SMT_UNKNOWN:
		gave_up(r, o, "", q.reason);
		return;
	case SMT_HOLDS:
		smt_prove(s, smt_not(s, e->reach_unwind), check_qtime(o), &q);
		smt_release(s, &q);
		if (q.verdict == SMT_HOLDS)
			r->verdict = CHECK_HOLDS;
		else if (q.verdict == SMT_VIOLATED)
			check_set_reason(r, CHECK_UNKNOWN,
					 "loop bound %u reached: a loop may run longer (try a larger --loop-bound)",
					 e->p->loop_bound);
		else
			gave_up(r, o, " on the loop bound", q.reason);
		break;
	}
	if (r->c->has_bound && (r->verdict == CHECK_HOLDS || r->verdict == CHECK_VIOLATED))
		check_worst_case(l, s, e, o, r);
}

void check_add_notes(struct check_result *r, const char *const *n, unsigned k)
{
	const char **all;
	unsigned i;

	if (!k)
		return;
	all = arena_new_array(r->arena, const char *, r->nnotes + k + 1);
	if (r->nnotes)
		memcpy(all, r->notes, sizeof(char *) * r->nnotes);
	for (i = 0; i < k; i++)        /* the lift's notes are in r->work */
		all[r->nnotes + i] = arena_strdup(r->arena, n[i]);
	r->notes = all;
	r->nnotes += k;
}

/* One walk for several checks: what a complete walk (absint.h: proved)
 * of a check that restricts no run (monitor.h mon_restricts_none) found
 * its program returns, r0 over every exit of every path, under its
 * program assumes. A later check of the same program under the same
 * assumes whose asserts speak of ret alone (mon_ret_only) holds when they
 * hold for each of those values (the concrete monitor's evaluation, at
 * most EXIT_VALUES of them): every run of it is a run of the donor's. Per
 * group of checks (one worker runs a group in order; the groups are the
 * same whatever --jobs is), a slot per program and assumes. loop_sum's
 * valid_action used never_abort's walk of 459 paths this way. */
#define EXIT_VALUES 256u

struct exit_share {
	const struct mon_check *donor[CHECK_GROUP];   /* NULL: empty slot */
	struct absint_val r0[CHECK_GROUP];
	/* the walks of programs without asserts (walk_memo), in order */
	struct walk_memo {
		uint64_t *key;
		size_t len;
		struct absint_result ar;
		const struct ssa_prog *p;   /* the walk of a shared lift (lift_memo), or NULL */
	} walk[CHECK_GROUP];
	unsigned nwalk;
	/* the lifts of inert checks (lift_shared), in order */
	struct lift_memo {
		int func;
		unsigned loop_bound, cb_bound;
		struct ssa_prog *p;         /* in the work arena of the check that made it */
		struct arena *work;         /* that arena (kept until the results are freed) */
		bool has_pc;                /* pc: smt_precheck of p, in that arena */
		struct smt_precheck pc;
	} lift[CHECK_GROUP];
	unsigned nlift;
};

/* The entry of a shared lift P (alive through the group: its pointer
 * names it), or NULL. */
static struct lift_memo *lift_memo_of(struct exit_share *sh, const struct ssa_prog *p)
{
	unsigned i;

	for (i = 0; sh && i < sh->nlift; i++)
		if (sh->lift[i].p == p)
			return &sh->lift[i];
	return NULL;
}

/* Out of line: its 2 KiB of values would otherwise sit in absint_proves'
 * frame, beneath the whole pre-pass walk, the deepest stack of a run (a
 * fresh page of it a fault). */
static __attribute__((noinline)) bool exit_shared(const struct exit_share *sh,
						  const struct mon_check *c)
{
	uint64_t v[EXIT_VALUES];
	unsigned i;
	int n, k;

	if (!sh || !mon_ret_only(c))
		return false;
	for (i = 0; i < CHECK_GROUP && sh->donor[i]; i++) {
		if (!mon_same_assumes(sh->donor[i], c))
			continue;
		n = absint_values(&sh->r0[i], v, EXIT_VALUES);
		if (n <= 0)
			return false;
		for (k = 0; k < n; k++)
			if (!mon_ret_holds(c, v[k]))
				return false;
		return true;
	}
	return false;
}

static void exit_donate(struct exit_share *sh, const struct mon_check *c,
			const struct absint_result *ar)
{
	unsigned i;

	if (!sh || !ar->exits || !mon_restricts_none(c))
		return;
	for (i = 0; i < CHECK_GROUP && sh->donor[i]; i++)
		if (mon_same_assumes(sh->donor[i], c))
			return;                 /* the first one stays */
	if (i < CHECK_GROUP) {
		sh->donor[i] = c;
		sh->r0[i] = ar->r0;
	}
}

/* A program without asserts: its check's monitor hooks nothing in it
 * (trace_exec's no_user_writes and observer_only, of a program that calls
 * neither helper), so each such check of one function is the same lift
 * and the same walk. */
static bool assert_free(const struct ssa_prog *p)
{
	uint32_t id;

	for (id = p->nvalues; id-- > 1;)     /* most are the exit's, late */
		if (p->values[id]->kind == SSA_ASSERT)
			return false;
	return true;
}

/* absint_prove of P (no asserts) with AO into *AR, or the result of an
 * earlier walk of the group whose program and options have the same key
 * (absint_key: all the walk reads of them; the object is the run's): the
 * same walk, step for step. */
static void walk_memo(struct exit_share *sh, const struct ssa_prog *p,
		      const struct absint_opts *ao, struct absint_result *ar)
{
	bool shared = lift_memo_of(sh, p) != NULL;
	uint64_t *key;
	size_t len;
	unsigned i;

	/* a shared lift's walk, found by the lift (its options come from its
	 * precheck: the same key) without writing the key */
	for (i = 0; shared && i < sh->nwalk; i++) {
		if (sh->walk[i].p == p) {
			*ar = sh->walk[i].ar;
			return;
		}
	}
	len = absint_key(p, ao, &key);
	for (i = 0; i < sh->nwalk; i++) {
		if (sh->walk[i].len == len && !memcmp(sh->walk[i].key, key, len * sizeof(*key))) {
			*ar = sh->walk[i].ar;
			free(key);
			return;
		}
	}
	absint_prove(p, ao, ar);
	if (sh->nwalk < CHECK_GROUP) {
		sh->walk[sh->nwalk++] = (struct walk_memo){
			.key = key, .len = len, .ar = *ar, .p = shared ? p : NULL
		};
		return;
	}
	free(key);
}

/* A group's share, on the heap: 3.7 KiB off the deepest stack (a fresh
 * stack page is a fault; the heap's is on a huge page already). Only what
 * is read before it is written is zeroed: the donors (read up to the first
 * NULL) and the counts; an entry is written whole as it is added (a
 * calloc of it all was 0.5% of a small example). */
static struct exit_share *exit_share_new(void)
{
	struct exit_share *sh = malloc(sizeof(*sh));

	if (!sh)
		abort();
	memset(sh->donor, 0, sizeof(sh->donor));
	sh->nwalk = sh->nlift = 0;
	return sh;
}

static void exit_share_free(struct exit_share *sh)
{
	unsigned i;

	for (i = 0; i < sh->nwalk; i++)
		free(sh->walk[i].key);
}

/* The abstract-interpretation pre-pass (absint.h): true when it proves
 * the check (or another check's walk did: exit_share); R's verdict and
 * notes untouched. Not for a bound (the report needs its worst case),
 * --timeout=0 (no proving at all) or a program the encoder does not
 * model. */
static bool absint_proves(const struct ssa_prog *p, const struct check_opts *o,
			  struct check_result *r, struct precheck *m, struct exit_share *sh)
{
	const struct smt_precheck *pc;
	struct absint_opts ao = {0};
	struct absint_result ar;
	struct lift_memo *lm;
	uint64_t t0 = stats_now();

	if (o->no_absint || r->c->has_bound || o->no_time || past_deadline(o))
		return false;
	lm = lift_memo_of(sh, p);
	if (lm && lm->has_pc && !m->done) {       /* a shared lift's precheck */
		m->pc = lm->pc;
		m->done = true;
	}
	pc = precheck(p, r, m);
	if (lm && !lm->has_pc && r->work == lm->work) {
		lm->pc = *pc;
		lm->has_pc = true;
	}
	ar.verdict = ABSINT_UNKNOWN;
	if (!pc->unsupported) {
		if (exit_shared(sh, r->c)) {
			ar.verdict = ABSINT_PROVED;
			r->by_shared = true;
		} else {
			ao.ptr_loads = pc->ptr_loads;
			ao.mem = pc->mem;
			if (sh && assert_free(p))
				walk_memo(sh, p, &ao, &ar);
			else
				absint_prove(p, &ao, &ar);
			if (ar.verdict == ABSINT_PROVED)
				exit_donate(sh, r->c, &ar);
		}
	}
	r->absint_ns += stats_now() - t0;
	return !pc->unsupported && ar.verdict == ABSINT_PROVED;
}

/* R holds by the pre-pass, with the notes of its precheck M (the notes
 * the encoder would have added). */
static void absint_holds(struct check_result *r, const struct precheck *m)
{
	check_add_notes(r, m->pc.notes, m->pc.nnotes);
	r->verdict = CHECK_HOLDS;
	r->by_absint = true;
}

static bool prove_without_z3(const struct ssa_prog *p, const struct check_opts *o,
			     struct check_result *r, struct precheck *m, struct exit_share *sh)
{
	if (!absint_proves(p, o, r, m, sh))
		return false;
	absint_holds(r, m);
	return true;
}

/* bpf_loop callbacks are expanded to --loop-bound iterations, and most
 * programs' callbacks run far fewer (loop_sum's at most 8 of 64: most of
 * its lift). A check other than a bound is first lifted with its
 * callbacks cut at CB_FIRST iterations (an unwinding marker after them):
 * when the pre-pass proves it on that program, no unwinding marker among
 * its reached paths, no run iterates a callback that often, so the whole
 * program's runs are the same runs and the check holds; else it is
 * lifted whole and goes on as before. A bound is not (its worst case's
 * search is guided by the program's paths). */
#define CB_FIRST 16u

static unsigned first_cb_bound(const struct mon_check *c, const struct check_opts *o)
{
	unsigned bound = o->loop_bound ? o->loop_bound : SSA_DEFAULT_LOOP_BOUND;

	if (c->has_bound || o->no_absint || o->no_time || bound <= CB_FIRST ||
	    (c->relation && !c->expanded) || c->unknown)
		return 0;
	return CB_FIRST;
}

/* A program the encoder does not model (smt_precheck: the same notes and
 * first unsupported construct as smt_encode) is unknown without a Z3
 * context: a fuzzed object's map with 4 MB values cost a context and a
 * partial encoding for the same reason (0.06-0.1 s a check). */
static bool not_modelled(const struct ssa_prog *p, struct check_result *r, struct precheck *m)
{
	const struct smt_precheck *pc = precheck(p, r, m);

	if (!pc->unsupported)
		return false;
	check_add_notes(r, pc->notes, pc->nnotes);
	check_set_reason(r, CHECK_UNKNOWN, "not modelled: %s", pc->unsupported);
	return true;
}

/* A Z3 context for one check: *SHARED (made on first use) in a scope of
 * its own, or (SHARED NULL) a fresh one. */
static struct smt *context(struct smt **shared)
{
	if (!shared)
		return smt_new();
	if (!*shared)
		*shared = smt_new();
	if (*shared && smt_scope_begin(*shared) < 0) {
		smt_free(*shared);
		*shared = NULL;
	}
	return *shared;
}

/* The check's scope popped; a context that had an error is not reused. */
static void context_done(struct smt **shared, struct smt *s)
{
	if (!shared) {
		smt_free(s);
		return;
	}
	if (s && (smt_scope_end(s) < 0 || smt_error(s))) {
		smt_free(s);
		*shared = NULL;
	}
}

/* A check whose hooks place nothing in its program (instrument_inert:
 * trace_exec's no_user_writes and observer_only) lifts it to the IR of
 * every other such check of the program: one lift for them in a group,
 * keyed by the program and what the lift reads of the options (the loop
 * and callback bounds; the object is the run's). Kept only when it
 * succeeded without a diagnostic, and only a small one: it stays in the
 * work arena of the check that made it until the results are freed
 * (*KEEP: check_one does not free that arena), so a lift of a large
 * program does not hold its memory through the group. */
#define LIFT_SHARE_MAX 65536u

static int lift_shared(const struct loaded *l, const struct mon_check *c,
		       const struct ssa_opts *so, struct check_result *r, struct diag *d,
		       struct exit_share *sh, struct ssa_prog **p, bool *reused, bool *keep)
{
	bool inert = sh && instrument_inert(l, c);
	unsigned i;
	int err;

	*reused = false;
	for (i = 0; inert && i < sh->nlift; i++) {
		const struct lift_memo *m = &sh->lift[i];

		if (m->func == c->func && m->loop_bound == so->loop_bound &&
		    m->cb_bound == so->cb_bound) {
			*p = m->p;
			*reused = true;
			return 0;
		}
	}
	err = instrument_lift(l, c, so, r->work, d, p);
	if (inert && !err && !r->reason[0] && (*p)->nvalues <= LIFT_SHARE_MAX &&
	    sh->nlift < CHECK_GROUP) {
		sh->lift[sh->nlift++] = (struct lift_memo){
			.func = c->func, .loop_bound = so->loop_bound, .cb_bound = so->cb_bound,
			.p = *p, .work = r->work
		};
		*keep = true;
	}
	return err;
}

static void check_one(const struct loaded *l, const struct mon_check *c,
		      const struct check_opts *o, struct smt **shared, struct exit_share *sh,
		      struct check_result *r)
{
	struct diag d = { .sink = to_reason, .arg = r };
	struct ssa_opts so = { .loop_bound = o->loop_bound };
	struct precheck pre = { 0 }, cut = { 0 };
	struct ssa_prog *p = NULL;
	bool proved_cut = false, reused, keep = false;
	struct smt_prog *e = NULL;
	struct smt *s = NULL;
	double t0 = check_clock();
	uint64_t t1, search_ns = 0;
	unsigned cq = 0, cp = 0;
	bool search_done;
	int err;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->arena = arena_new();
	r->work = arena_new();
	if (past_deadline(o)) {
		check_set_reason(r, CHECK_UNKNOWN, "deadline: the run's --deadline=%u s ran out before this check started",
				 o->deadline_s);
		goto out;
	}
	so.cb_bound = first_cb_bound(c, o);
	err = lift_shared(l, c, &so, r, &d, sh, &p, &reused, &keep);
	if (!err && p->cb_limited) {
		if (!p->unsupported && absint_proves(p, o, r, &cut, sh)) {
			proved_cut = true;
		} else {
			so.cb_bound = 0;       /* the whole program */
			err = lift_shared(l, c, &so, r, &d, sh, &p, &reused, &keep);
		}
	}
	if (err) {
		if (!r->reason[0])
			snprintf(r->reason, sizeof(r->reason), "lifting failed: %s", strerror(-err));
		r->verdict = CHECK_ERROR;
		goto out;
	}
	if (!reused) {          /* a shared lift's time is its maker's */
		r->stage_ns[STAGE_CFG] = p->ns_cfg;
		r->stage_ns[STAGE_INSTRUMENT] = p->ns_hooks;
		r->stage_ns[STAGE_SSA] = p->ns_lift - p->ns_cfg - p->ns_hooks;
	}
	check_add_notes(r, p->notes, p->nnotes);
	if (c->note)
		check_add_notes(r, &c->note, 1);
	if (c->relation && !c->expanded) {     /* empty: it would "hold" */
		check_set_reason(r, CHECK_ERROR, "internal error: relation %s was not expanded (xprog_expand)",
				 c->relation);
		goto out;
	}
	if (c->unknown) {               /* xprog.h: a relation that cannot be checked */
		check_set_reason(r, CHECK_UNKNOWN, "%s", c->unknown);
		goto out;
	}
	if (p->unsupported) {
		check_set_reason(r, CHECK_UNKNOWN, "not modelled: %s", p->unsupported);
		goto out;
	}
	if (proved_cut) {
		absint_holds(r, &cut);
		goto out;
	}
	if (prove_without_z3(p, o, r, &pre, sh))
		goto out;
	t1 = stats_now();
	r->search_ns = stats_cpu_now();
	search_done = bound_without_z3(l, p, o, r, &pre) || searched(l, o, r);
	r->search_ns = stats_cpu_now() - r->search_ns;
	search_ns = o->no_time ? 0 : stats_now() - t1;     /* in solve (stats.h); none with --timeout=0 */
	r->stage_ns[STAGE_SOLVE] = search_ns;
	if (search_done || not_modelled(p, r, &pre))
		goto out;
	t1 = stats_now();
	s = context(shared);
	if (!s) {
		check_set_reason(r, CHECK_ERROR, "%s", smt_new_error());
		goto out;
	}
	smt_coarse_stats(s, &cq, &cp);
	smt_set_max_memory(s, o->max_memory_mb);
	smt_set_query_units(s, o->query_units);
	err = smt_encode(s, p, NULL, r->work, &e);
	if (err) {
		check_set_reason(r, CHECK_UNKNOWN, "the encoder failed: %s",
				 smt_error(s) ? smt_error(s) : strerror(-err));
		goto out;
	}
	r->stage_ns[STAGE_ENCODE] = stats_now() - t1;
	check_add_notes(r, e->notes, e->nnotes);
	if (e->unsupported) {
		check_set_reason(r, CHECK_UNKNOWN, "not modelled: %s", e->unsupported);
		goto out;
	}
	if (o->no_time) {
		check_set_reason(r, CHECK_UNKNOWN, "timeout: --timeout=0 leaves the solver no time");
		goto out;
	}
	if (past_deadline(o)) {
		check_set_reason(r, CHECK_UNKNOWN, "deadline: the run's --deadline=%u s ran out before solving",
				 o->deadline_s);
		goto out;
	}
	t1 = stats_now();
	solve(l, s, e, o, r);
	r->stage_ns[STAGE_SOLVE] = search_ns + stats_now() - t1;
out:
	if (s) {
		unsigned q, pr;

		smt_coarse_stats(s, &q, &pr);
		r->coarse_queries = q - cq;
		r->coarse_proofs = pr - cp;
	}
	context_done(shared, s);
	if (!s && !keep) {
		/* the next check's lift reuses these pages (a fresh page is
		 * 11-16 us on the benchmark's machine: docs/architecture.md,
		 * "Pages touched") */
		arena_free(r->work);
		r->work = NULL;
	}
	r->seconds = check_clock() - t0;
}

void check_run(const struct loaded *l, const struct mon_check *c,
	       const struct check_opts *o, struct check_result *r)
{
	check_one(l, c, o, NULL, NULL, r);
}

/* The checks sharing a Z3 context: consecutive checks, at most
 * CHECK_GROUP of them, of one program or of several (each check is in a
 * solver scope of its own: what one program asserts is gone for the next),
 * the same groups in the same order whatever o->jobs is (a context's
 * models depend on what it has seen: reports stay byte-identical across
 * --jobs values). A context costs about 10 ms to make and delete, the
 * encoding of a small example's check a few ms: across programs, scx_mini
 * (four programs) took 0.062 s instead of 0.090 s, xdp_redirect (two)
 * 0.026 s instead of 0.035 s. */
/* ... and while their solver work so far is at most CONTEXT_WORK Z3
 * resource units (smt_rlimit_count, deterministic): a context that has
 * seen a large encoding changes how later queries go (xdp_lb's
 * service_reaches_backend took 4.2 s after non_service_passes_unchanged
 * in one context, 1.6 s in a fresh one), while 10 ms only matter to
 * cheap checks. */
#define CONTEXT_WORK 1000000u

struct pool {
	const struct loaded *l;
	const struct mon_set *s;
	const struct check_opts *o;
	struct check_result *r;
	unsigned *group;          /* first check of each group, then s->n */
	unsigned ngroups;
	atomic_uint next;
	atomic_uint done;
};

static void *worker(void *arg)
{
	struct pool *pl = arg;
	unsigned g, i;

	while ((g = atomic_fetch_add(&pl->next, 1)) < pl->ngroups) {
		struct smt *shared = NULL;
		struct exit_share *sh = exit_share_new();

		for (i = pl->group[g]; i < pl->group[g + 1]; i++) {
			check_one(pl->l, &pl->s->checks[i], pl->o, &shared, sh, &pl->r[i]);
			if (shared && smt_rlimit_count(shared) > CONTEXT_WORK) {
				smt_free(shared);
				shared = NULL;
			}
			if (pl->o->progress)
				pl->o->progress(pl->o->progress_arg,
						atomic_fetch_add(&pl->done, 1) + 1, pl->s->n,
						&pl->s->checks[i]);
		}
		smt_free(shared);
		exit_share_free(sh);
		free(sh);
	}
	return NULL;
}

static void make_groups(struct pool *pl)
{
	const struct mon_set *s = pl->s;
	unsigned i, start = 0;

	pl->group = calloc(s->n + 1, sizeof(unsigned));
	if (!pl->group)
		abort();
	for (i = 0; i < s->n; i++) {
		if (i == 0 ||
		    i - start == CHECK_GROUP) {
			start = i;
			pl->group[pl->ngroups++] = i;
		}
	}
	pl->group[pl->ngroups] = s->n;
}

void check_run_all(const struct loaded *l, const struct mon_set *s,
		   const struct check_opts *o, struct check_result *r)
{
	struct pool pl = { .l = l, .s = s, .o = o, .r = r };
	unsigned n = o->jobs > 1 ? o->jobs : 1, i, started = 0;
	pthread_t *t;

	atomic_init(&pl.next, 0);
	atomic_init(&pl.done, 0);
	make_groups(&pl);
	if (n > pl.ngroups)
		n = pl.ngroups;
	if (n <= 1) {
		worker(&pl);
		free(pl.group);
		return;
	}
	t = calloc(n, sizeof(*t));
	if (!t)
		abort();
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, &pl) == 0)
			started++;
		else
			break;
	if (!started)
		worker(&pl);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	free(pl.group);
}

void check_result_free(struct check_result *r)
{
	replay_result_free(&r->replay);
	replay_result_free(&r->wreplay);
	arena_free(r->arena);
	arena_free(r->work);
	r->arena = NULL;
	r->work = NULL;
}

const char *check_verdict_name(enum check_verdict v)
{
	switch (v) {
	case CHECK_HOLDS: return "holds";
	case CHECK_VIOLATED: return "violated";
	case CHECK_UNKNOWN: return "unknown";
	case CHECK_ERROR: return "error";
	}
	return "?";
}
