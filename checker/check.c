/* check.c - one check from monitor to verdict (contract in check.h). */
#include "absint.h"
#include "bound.h"
#include "checker.h"
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

static void set_reason(struct check_result *r, enum check_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_reason(struct check_result *r, enum check_verdict v, const char *fmt, ...)
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
static unsigned qtime(const struct check_opts *o)
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
		set_reason(r, CHECK_UNKNOWN, "deadline: the run's --deadline=%u s ran out while solving",
			   o->deadline_s);
	else if (o->max_memory_mb && strstr(reason, "memory"))
		set_reason(r, CHECK_UNKNOWN, "memory: the solver needed more than --max-memory=%u MB%s",
			   o->max_memory_mb, what);
	else if (o->query_units && strstr(reason, "resource limit"))
		set_reason(r, CHECK_UNKNOWN, "solver work: a query needed more than --rlimit=%u units%s",
			   o->query_units, what);
	else
		set_reason(r, CHECK_UNKNOWN, "the solver gave up%s: %s", what, reason);
}

/* The worst-case search's budget of solver work (smt_set_budget; Z3's
 * resource units, about 1-2 s of this machine's solver time at 4-8M
 * units/s): beyond it the report gives the proved upper bound instead of
 * the exact worst case. xdp_lb: its longest path needed 9.4M units for a
 * model before smt.c's mul_of_div, and after it a little over 5M or under
 * it depending on what its context had seen (the 5M budget of session 9
 * was exact in one order of checks, not in another); 8M is exact in both
 * and took no longer (the failed query ran into the budget anyway). */
#define WORST_CASE_BUDGET 8000000u

/* OR over the bound's assert sites of (reached AND insns > M). */
static Z3_ast exceeds(struct smt *s, const struct smt_prog *e, const struct mon_check *c,
		      uint64_t m)
{
	Z3_context z = smt_ctx(s);
	const struct ssa_prog *p = e->p;
	Z3_ast acc = Z3_mk_false(z);
	uint32_t b, i;

	for (b = 0; b < p->nblocks; b++) {
		for (i = 0; i < p->blocks[b]->ninsns; i++) {
			const struct ssa_insn *v = p->blocks[b]->insns[i];
			Z3_ast t[2];

			if (v->kind != SSA_ASSERT || v->imm != c->bound_site || v->nargs < 2)
				continue;
			t[0] = e->guard[b];
			t[1] = Z3_mk_bvugt(z, e->val[v->args[1]], smt_bv64(s, m));
			t[0] = Z3_mk_and(z, 2, t);
			t[1] = acc;
			acc = Z3_mk_or(z, 2, t);
		}
	}
	return acc;
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

		smt_prove(s, smt_not(s, c), qtime(o), &t);
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

static void shorter_packet(struct smt *s, const struct smt_prog *e, Z3_ast bad,
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

static void add_notes(struct check_result *r, const char *const *n, unsigned k);

/* An input that runs the worst case, replayed: shown only if the
 * interpreter exits after exactly that many instructions. Q: the query
 * "some exit has more than worst - 1" if already proved (its model is
 * used and released), else NULL. Short packets are preferred. */
static void witness(const struct loaded *l, struct smt *s, const struct smt_prog *e,
		    const struct check_opts *o, struct check_result *r, Z3_ast bad,
		    struct smt_result *q)
{
	struct smt_result own;
	char why[256];
	const char *note;
	int err = -EINVAL;

	if (!bad)
		bad = exceeds(s, e, r->c, r->worst - 1);

	if (!q) {
		q = &own;
		smt_prove(s, smt_not(s, bad), qtime(o), q);
	}
	if (q->verdict == SMT_VIOLATED)
		shorter_packet(s, e, bad, o, q);
	if (q->verdict == SMT_VIOLATED)
		err = cex_extract(s, e, q->model, r->c, (int)r->c->bound_site, r->arena,
				  &r->witness, why, sizeof(why));
	if (err == -ERANGE) {
		/* the longest run found is not one a program can make: the
		 * bound holds, its worst case is not known */
		r->has_worst = false;
		r->witness = NULL;
		note = arena_printf(r->arena, "the worst case is not known: %s", why);
		add_notes(r, &note, 1);
	} else if (err == 0) {
		bool ran = replay_run(l, r->c, r->witness, &r->wreplay) == 0;

		if (ran && r->wreplay.outcome == REPLAY_EXITED && r->wreplay.steps == r->worst)
			;              /* the witness runs the worst case */
		else if (ran && r->witness->unspecified) {
			/* the model chose a value the spec language leaves open
			 * (as confirm() says of a counterexample): the upper
			 * bound is proved, the run is not one */
			r->has_worst = false;
			r->has_worst_max = true;
			r->worst_max = r->worst;
			note = arena_printf(r->arena, "the worst case is not known: the longest run's "
					    "input depends on %s, whose value is unspecified (guard the "
					    "read); its replay: %s", r->witness->unspecified,
					    r->wreplay.msg);
			add_notes(r, &note, 1);
			r->witness = NULL;
		} else {
			/* the bound's count and the interpreter's disagree: a checker bug */
			set_reason(r, CHECK_ERROR, "internal error: the worst-case input (%" PRIu64
				   " instructions) replays as: %s", r->worst, r->wreplay.msg);
			r->witness = NULL;
		}
	}
	smt_release(s, q);
}

/* The path condition of bound.h's longest path: its edges taken and its
 * assert's block reached (NULL: no such path). */
static Z3_ast path_hint(struct smt *s, const struct smt_prog *e, const struct check_result *r,
			uint64_t top)
{
	struct bound_path bp;
	Z3_ast h;
	uint32_t i;

	if (!bound_longest_path(e->p, r->c->bound_site, r->work, &bp) || bp.top != top)
		return NULL;
	h = e->guard[bp.block];
	for (i = 0; i < bp.nedges; i++)
		h = smt_and(s, h, e->edge[bp.edges[2 * i]][bp.edges[2 * i + 1]]);
	return h;
}

/* The count of the run model M takes: the largest counter value at a
 * bound assert the model reaches (false: none, or no value). */
static bool model_count(struct smt *s, const struct smt_prog *e, const struct mon_check *c,
			Z3_model m, uint64_t *out)
{
	Z3_context z = smt_ctx(s);
	const struct ssa_prog *p = e->p;
	bool any = false;
	uint32_t b, i;

	*out = 0;
	for (b = 0; b < p->nblocks; b++) {
		for (i = 0; i < p->blocks[b]->ninsns; i++) {
			const struct ssa_insn *v = p->blocks[b]->insns[i];
			Z3_ast g = NULL;
			uint64_t n;

			if (v->kind != SSA_ASSERT || v->imm != c->bound_site || v->nargs < 2 ||
			    !Z3_model_eval(z, m, e->guard[b], true, &g) || !g ||
			    Z3_get_bool_value(z, g) != Z3_L_TRUE ||
			    smt_eval_u64(s, m, e->val[v->args[1]], &n))
				continue;
			if (!any || n > *out)
				*out = n;
			any = true;
		}
	}
	return any;
}

/* A model of BAD, a packet of at most 64 bytes asked for first (the
 * witness wants a short one: shorter_packet then has nothing to do). */
static void short_first(struct smt *s, const struct smt_prog *e, Z3_ast bad,
			const struct check_opts *o, struct smt_result *q)
{
	Z3_context z = smt_ctx(s);

	if (e->mem_init.data && e->mem_init.end) {
		Z3_ast len = Z3_mk_bvsub(z, e->mem_init.end, e->mem_init.data);

		smt_prove(s, smt_not(s, smt_and(s, bad, Z3_mk_bvule(z, len, smt_bv64(s, 64)))),
			  qtime(o), q);
		if (q->verdict != SMT_HOLDS)
			return;
	}
	smt_prove(s, smt_not(s, bad), qtime(o), q);
}

/* The worst case by the concrete search (search.h), without Z3: no run
 * is longer than TOP (bound.h's DAG maximum, TOP within the bound), so an
 * input the search finds for the same check with the bound TOP - 1 runs
 * exactly TOP instructions; replayed against the check itself it must
 * exit after TOP (else the two counts disagree: a checker bug, an error).
 * True when it decided: the worst case and its witness, or the error;
 * false: no such input (r->search_runs counts the inputs), or the search
 * already ran for this check. */
/* Block B's branch to successor TO as a guide step (false: B's choice is
 * not a conditional jump of the program: a synthetic branch, a helper's
 * result). */
static bool guide_step(const struct loaded *l, const struct ssa_prog *p, uint32_t b, uint32_t to,
		       struct search_step *st)
{
	const struct ssa_block *k = p->blocks[b];
	int sec;

	if (k->term != SSA_TERM_BRANCH || k->note || k->func < 0 || k->nsucc != 2 ||
	    k->succ[0] == k->succ[1])
		return false;
	sec = p->o->funcs[k->func].sec;
	if (sec < 0 || (uint32_t)sec >= p->o->nsections || k->last_slot >= p->o->sections[sec].nslots ||
	    isa_table[l->insns[sec][k->last_slot].op].kind != ISA_K_JCOND)
		return false;
	st->sec = sec;
	st->slot = k->last_slot;
	st->taken = k->succ[0] == to;
	return true;
}

#define GUIDE_WORK (4u << 20)   /* blocks x targets walked at most */

/* bound.h's longest path of P (its maximum TOP) as branch decisions, from
 * the entry on (search.h struct search_guide): the path must take each
 * edge where a phi of the count takes the longer side, in order, and end
 * at the assert's block; from one such target to the next, a branch with
 * one side that cannot reach the target must take the other (blocks are
 * in topological order: reachability is a walk back from the target).
 * Where both sides can, the walk follows the taken one and adds nothing.
 * The guide only orders the search's inputs; no guide when the program is
 * large (GUIDE_WORK). */
static void worst_guide(const struct loaded *l, const struct ssa_prog *p,
			struct check_result *r, uint64_t top, struct search_guide *g)
{
	struct bound_path bp;
	struct search_step *st;
	uint32_t cur = 0, t, b, goal, i, *stack;
	uint8_t *mark;
	size_t sp;

	g->n = 0;
	if (!bound_longest_path(p, r->c->bound_site, r->work, &bp) || bp.top != top ||
	    (uint64_t)(bp.nedges + 1) * p->nblocks > GUIDE_WORK)
		return;
	st = arena_new_array(r->work, struct search_step, p->nblocks);
	mark = malloc(p->nblocks);
	stack = malloc(sizeof(*stack) * p->nblocks);
	if (!mark || !stack)
		abort();
	g->steps = st;
	for (t = bp.nedges + 1; t-- > 0;) {        /* edges are listed from the assert back */
		goal = t ? p->blocks[bp.edges[2 * (t - 1)]]->preds[bp.edges[2 * (t - 1) + 1]] : bp.block;
		memset(mark, 0, goal + 1);
		mark[goal] = 1;
		stack[0] = goal;
		for (sp = 1; sp;) {
			const struct ssa_block *k = p->blocks[stack[--sp]];

			for (i = 0; i < k->npreds; i++)
				if (k->preds[i] >= cur && !mark[k->preds[i]]) {
					mark[k->preds[i]] = 1;
					stack[sp++] = k->preds[i];
				}
		}
		if (cur > goal || !mark[cur])
			break;
		while (cur != goal) {
			const struct ssa_block *k = p->blocks[cur];
			uint32_t next;

			if (k->nsucc == 1) {
				next = k->succ[0];
			} else if (k->nsucc == 2 && k->succ[0] <= goal && mark[k->succ[0]]) {
				next = k->succ[0];
				if ((k->succ[1] > goal || !mark[k->succ[1]]) &&
				    guide_step(l, p, cur, next, &st[g->n]))
					g->n++;
			} else if (k->nsucc == 2 && k->succ[1] <= goal && mark[k->succ[1]]) {
				next = k->succ[1];
				if (guide_step(l, p, cur, next, &st[g->n]))
					g->n++;
			} else {
				break;
			}
			cur = next;
		}
		if (cur != goal || !t)
			break;
		b = bp.edges[2 * (t - 1)];         /* the phi's edge: goal -> b */
		if (guide_step(l, p, goal, b, &st[g->n]))
			g->n++;
		cur = b;
	}
	free(mark);
	free(stack);
}

static bool searched_worst(const struct loaded *l, const struct ssa_prog *p,
			   const struct check_opts *o, struct check_result *r, uint64_t top)
{
	struct mon_check longer = *r->c;
	struct search_guide g;
	struct cex *x;
	unsigned runs = 0;
	bool found;

	if (o->no_search || o->no_time || r->search_runs || top == 0 || top > r->c->bound)
		return false;
	longer.bound = top - 1;
	worst_guide(l, p, r, top, &g);
	found = search_run_guided(l, &longer, SEARCH_WORST_BUDGET, g.n ? &g : NULL, r->arena,
				  &x, &runs);
	r->search_runs += runs;
	if (!found)
		return false;
	if (replay_run(l, r->c, x, &r->wreplay) < 0 || r->wreplay.outcome != REPLAY_EXITED ||
	    r->wreplay.steps != top) {
		set_reason(r, CHECK_ERROR, "internal error: the search's longest run (%" PRIu64
			   " instructions by the DAG) replays as: %s", top, r->wreplay.msg);
		return true;
	}
	r->has_worst = true;
	r->worst = top;
	r->witness = x;
	return true;
}

/* No run is longer than the DAG's longest path (bound.h): if that path's
 * length TOP is below HI, a run that long settles the worst case (true:
 * done, the witness from its model). That one path's condition is asked
 * first, a short packet first (a model of it runs exactly TOP
 * instructions; on xdp_lb 1.7 s where "some exit has more than TOP - 1"
 * took 6.7 s and its short packet 1.3 s more); when that path is
 * infeasible, whether any run is that long. Else *HI becomes TOP - 1 when
 * no run is that long; false with *GAVE_UP when the solver gave up. */
static bool longest_path(const struct loaded *l, struct smt *s, const struct smt_prog *e,
			 const struct check_opts *o, struct check_result *r, uint64_t *hi,
			 bool *gave_up)
{
	struct smt_result q;
	uint64_t top;
	Z3_ast bad, hint;

	*gave_up = false;
	if (!bound_static_max(e->p, r->c->bound_site, &top) || top >= *hi || top == 0)
		return false;
	bad = exceeds(s, e, r->c, top - 1);
	hint = path_hint(s, e, r, top);
	q.verdict = SMT_HOLDS;
	if (hint) {
		short_first(s, e, smt_and(s, bad, hint), o, &q);
		if (q.verdict == SMT_VIOLATED)
			bad = smt_and(s, bad, hint);
		else
			smt_release(s, &q);
	}
	if (q.verdict != SMT_VIOLATED)
		smt_prove(s, smt_not(s, bad), qtime(o), &q);
	if (q.verdict != SMT_VIOLATED) {
		smt_release(s, &q);
		*gave_up = q.verdict == SMT_UNKNOWN;
		if (*gave_up) {
			r->has_worst_max = true;
			r->worst_max = top;
		}
		*hi = top - 1;
		return false;
	}
	r->has_worst = true;
	r->worst = top;
	if (r->verdict == CHECK_HOLDS)
		witness(l, s, e, o, r, bad, &q);
	else
		smt_release(s, &q);
	return true;
}

/* The most instructions any run executes: the longest path first, then a
 * search on "some exit has more than M" between LO (a run counts that
 * many) and HI (none counts more): a model raises LO to the count of its
 * own run (above M, so fewer queries than a bisection), a proof lowers HI
 * to M. Gives up on unknown, with HI as the worst case's upper bound when
 * it is proved (the bound when the check holds, a proof, the DAG's
 * maximum). The last model (its run counts exactly the worst case) is the
 * witness. */
static void worst_case(const struct loaded *l, struct smt *s, const struct smt_prog *e,
		       const struct check_opts *o, struct check_result *r)
{
	uint64_t lo = 0, hi = r->verdict == CHECK_HOLDS ? r->c->bound : 0xffffffffull, mid, n;
	struct smt_result q, best = { .verdict = SMT_HOLDS };
	uint64_t hi0 = hi;
	bool gave_up, hi_known = r->verdict == CHECK_HOLDS;

	if (r->verdict == CHECK_HOLDS && bound_static_max(e->p, r->c->bound_site, &n) &&
	    searched_worst(l, e->p, o, r, n))
		return;
	if (longest_path(l, s, e, o, r, &hi, &gave_up) || gave_up)
		return;
	hi_known |= hi != hi0;            /* no run reaches the DAG's maximum */
	if (bound_static_max(e->p, r->c->bound_site, &n) && (!hi_known || n < hi)) {
		hi_known = true;
		hi = n;
	}
	for (mid = 1; lo < hi; mid = lo + (hi - lo + 1) / 2) {
		/* "no exit has more than mid - 1" holds: the worst is below mid */
		smt_prove(s, smt_not(s, exceeds(s, e, r->c, mid - 1)), qtime(o), &q);
		if (q.verdict == SMT_UNKNOWN) {
			smt_release(s, &best);
			r->has_worst_max = hi_known;
			r->worst_max = hi;
			return;
		}
		if (q.verdict == SMT_HOLDS) {
			hi = mid - 1;
			hi_known = true;
			continue;
		}
		smt_release(s, &best);
		best = q;
		lo = mid;
		if (model_count(s, e, r->c, q.model, &n) && n > lo)
			lo = n > hi ? hi : n;
	}
	r->has_worst = true;
	r->worst = lo;
	if (r->verdict == CHECK_HOLDS && lo > 0 && best.verdict == SMT_VIOLATED &&
	    model_count(s, e, r->c, best.model, &n) && n == lo)
		witness(l, s, e, o, r, NULL, &best);
	else if (r->verdict == CHECK_HOLDS && lo > 0) {
		smt_release(s, &best);
		witness(l, s, e, o, r, NULL, NULL);
	} else
		smt_release(s, &best);
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
		set_reason(r, CHECK_ERROR, "internal error: the counterexample cannot be set up for replay");
		return;
	}
	agrees = replay_agrees(r, &r->replay);
	if (!agrees && r->cex->unspecified) {
		/* the model chose a value the spec language leaves open */
		set_reason(r, CHECK_UNKNOWN,
			   "not modelled: the counterexample depends on %s, whose value is "
			   "unspecified (guard the read); its replay: %s", r->cex->unspecified,
			   r->replay.msg);
		r->cex = NULL;
		return;
	}
	if (!agrees) {
		set_reason(r, CHECK_ERROR,
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
		set_reason(r, CHECK_UNKNOWN, "not modelled: %s", why);
		return;
	}
	if (err < 0) {
		set_reason(r, CHECK_ERROR, "internal error: no counterexample from the model: %s", why);
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

/* A bound that is its check's only assert, on a DAG without unwinding
 * markers (every run is one of its paths) whose longest path (bound.h) is
 * within the bound: it holds (solve decides it so without a query) and,
 * when the search finds a run that long, that run is the worst case and
 * its witness: no Z3 context at all. The notes are the encoder's
 * (smt_precheck); a program it does not model goes to Z3 as before. True
 * when R is decided (holds, or an internal error). */
static bool bound_without_z3(const struct loaded *l, const struct ssa_prog *p,
			     const struct check_opts *o, struct check_result *r,
			     struct precheck *m)
{
	const struct smt_precheck *pc;
	uint64_t top;

	if (!r->c->has_bound || r->c->nasserts != 1 || p->nunwind || o->no_search ||
	    o->no_time || !bound_static_max(p, r->c->bound_site, &top) || top > r->c->bound)
		return false;
	pc = precheck(p, r, m);
	if (pc->unsupported || !searched_worst(l, p, o, r, top))
		return false;
	if (r->verdict == CHECK_ERROR)
		return true;
	add_notes(r, pc->notes, pc->nnotes);
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
		smt_prove(s, smt_not(s, e->violated), qtime(o), &q);
	switch (q.verdict) {
	case SMT_VIOLATED:
		smt_set_coarse(s, false);     /* model searches (smt_prove) */
		shorter_packet(s, e, e->violated, o, &q);
		smt_set_coarse(s, true);
		violated(l, s, e, q.model, o, r);
		smt_release(s, &q);
		break;
	case SMT_UNKNOWN:
		gave_up(r, o, "", q.reason);
		return;
	case SMT_HOLDS:
		smt_prove(s, smt_not(s, e->reach_unwind), qtime(o), &q);
		smt_release(s, &q);
		if (q.verdict == SMT_HOLDS)
			r->verdict = CHECK_HOLDS;
		else if (q.verdict == SMT_VIOLATED)
			set_reason(r, CHECK_UNKNOWN,
				   "loop bound %u reached: a loop may run longer (try a larger --loop-bound)",
				   e->p->loop_bound);
		else
			gave_up(r, o, " on the loop bound", q.reason);
		break;
	}
	if (r->c->has_bound && (r->verdict == CHECK_HOLDS || r->verdict == CHECK_VIOLATED)) {
		smt_set_budget(s, WORST_CASE_BUDGET);
		smt_set_coarse(s, false);
		worst_case(l, s, e, o, r);
		smt_set_coarse(s, true);
		smt_set_budget(s, 0);
	}
}

static void add_notes(struct check_result *r, const char *const *n, unsigned k)
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

/* The abstract-interpretation pre-pass (absint.h): true when it proved
 * the check, with the notes the encoder would have added. Not for a bound
 * (the report needs its worst case), --timeout=0 (no proving at all) or a
 * program the encoder does not model. */
static bool prove_without_z3(const struct ssa_prog *p, const struct check_opts *o,
			     struct check_result *r, struct precheck *m)
{
	const struct smt_precheck *pc;
	struct absint_opts ao = {0};
	struct absint_result ar;
	uint64_t t0 = stats_now();

	if (o->no_absint || r->c->has_bound || o->no_time || past_deadline(o))
		return false;
	pc = precheck(p, r, m);
	if (!pc->unsupported) {
		ao.ptr_loads = pc->ptr_loads;
		ao.mem = pc->mem;
		absint_prove(p, &ao, &ar);
	}
	r->absint_ns = stats_now() - t0;
	if (pc->unsupported || ar.verdict != ABSINT_PROVED)
		return false;
	add_notes(r, pc->notes, pc->nnotes);
	r->verdict = CHECK_HOLDS;
	r->by_absint = true;
	return true;
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
	add_notes(r, pc->notes, pc->nnotes);
	set_reason(r, CHECK_UNKNOWN, "not modelled: %s", pc->unsupported);
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

static void check_one(const struct loaded *l, const struct mon_check *c,
		      const struct check_opts *o, struct smt **shared, struct check_result *r)
{
	struct diag d = { .sink = to_reason, .arg = r };
	struct ssa_opts so = { .loop_bound = o->loop_bound };
	struct precheck pre = { 0 };
	struct ssa_prog *p = NULL;
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
		set_reason(r, CHECK_UNKNOWN, "deadline: the run's --deadline=%u s ran out before this check started",
			   o->deadline_s);
		goto out;
	}
	err = instrument_lift(l, c, &so, r->work, &d, &p);
	if (err) {
		if (!r->reason[0])
			snprintf(r->reason, sizeof(r->reason), "lifting failed: %s", strerror(-err));
		r->verdict = CHECK_ERROR;
		goto out;
	}
	r->stage_ns[STAGE_CFG] = p->ns_cfg;
	r->stage_ns[STAGE_INSTRUMENT] = p->ns_hooks;
	r->stage_ns[STAGE_SSA] = p->ns_lift - p->ns_cfg - p->ns_hooks;
	add_notes(r, p->notes, p->nnotes);
	if (c->note)
		add_notes(r, &c->note, 1);
	if (c->relation && !c->expanded) {     /* empty: it would "hold" */
		set_reason(r, CHECK_ERROR, "internal error: relation %s was not expanded (xprog_expand)",
			   c->relation);
		goto out;
	}
	if (c->unknown) {               /* xprog.h: a relation that cannot be checked */
		set_reason(r, CHECK_UNKNOWN, "%s", c->unknown);
		goto out;
	}
	if (p->unsupported) {
		set_reason(r, CHECK_UNKNOWN, "not modelled: %s", p->unsupported);
		goto out;
	}
	if (prove_without_z3(p, o, r, &pre))
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
		set_reason(r, CHECK_ERROR, "%s", smt_new_error());
		goto out;
	}
	smt_coarse_stats(s, &cq, &cp);
	smt_set_max_memory(s, o->max_memory_mb);
	smt_set_query_units(s, o->query_units);
	err = smt_encode(s, p, NULL, r->work, &e);
	if (err) {
		set_reason(r, CHECK_UNKNOWN, "the encoder failed: %s",
			   smt_error(s) ? smt_error(s) : strerror(-err));
		goto out;
	}
	r->stage_ns[STAGE_ENCODE] = stats_now() - t1;
	add_notes(r, e->notes, e->nnotes);
	if (e->unsupported) {
		set_reason(r, CHECK_UNKNOWN, "not modelled: %s", e->unsupported);
		goto out;
	}
	if (o->no_time) {
		set_reason(r, CHECK_UNKNOWN, "timeout: --timeout=0 leaves the solver no time");
		goto out;
	}
	if (past_deadline(o)) {
		set_reason(r, CHECK_UNKNOWN, "deadline: the run's --deadline=%u s ran out before solving",
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
	if (!s) {
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
	check_one(l, c, o, NULL, r);
}

/* The checks sharing a Z3 context: consecutive checks, at most
 * CONTEXT_CHECKS of them, of one program or of several (each check is in a
 * solver scope of its own: what one program asserts is gone for the next),
 * the same groups in the same order whatever o->jobs is (a context's
 * models depend on what it has seen: reports stay byte-identical across
 * --jobs values). A context costs about 10 ms to make and delete, the
 * encoding of a small example's check a few ms: across programs, scx_mini
 * (four programs) took 0.062 s instead of 0.090 s, xdp_redirect (two)
 * 0.026 s instead of 0.035 s. */
#define CONTEXT_CHECKS 8u
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

		for (i = pl->group[g]; i < pl->group[g + 1]; i++) {
			check_one(pl->l, &pl->s->checks[i], pl->o, &shared, &pl->r[i]);
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
		    i - start == CONTEXT_CHECKS) {
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
