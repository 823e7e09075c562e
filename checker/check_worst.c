/* check_worst.c - a bound's worst case: the most instructions any run
 * executes and an input that runs them (its witness), by the concrete
 * search along the DAG's longest path (no Z3) or by the solver. Split out
 * of check.c (one check from monitor to verdict: contract in checker.h);
 * what the two share is check_priv.h. */
#include "check_priv.h"

#include "bound.h"
#include "search.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
		smt_prove(s, smt_not(s, bad), check_qtime(o), q);
	}
	if (q->verdict == SMT_VIOLATED)
		check_prefer_short_packet(s, e, bad, o, q);
	if (q->verdict == SMT_VIOLATED)
		err = cex_extract(s, e, q->model, r->c, (int)r->c->bound_site, r->arena,
				  &r->witness, why, sizeof(why));
	if (err == -ERANGE) {
		/* the longest run found is not one a program can make: the
		 * bound holds, its worst case is not known */
		r->has_worst = false;
		r->witness = NULL;
		note = arena_printf(r->arena, "the worst case is not known: %s", why);
		check_add_notes(r, &note, 1);
	} else if (err == 0) {
		bool ran = replay_run(l, r->c, r->witness, &r->wreplay) == 0;

		/* kept only when it runs exactly the worst case */
		if (!ran || r->wreplay.outcome != REPLAY_EXITED || r->wreplay.steps != r->worst) {
			if (ran && r->witness->unspecified) {
				/* the model chose a value the spec language leaves
				 * open (as confirm() says of a counterexample): the
				 * upper bound is proved, the run is not one */
				r->has_worst = false;
				r->has_worst_max = true;
				r->worst_max = r->worst;
				note = arena_printf(r->arena, "the worst case is not known: the longest "
						    "run's input depends on %s, whose value is unspecified "
						    "(guard the read); its replay: %s",
						    r->witness->unspecified, r->wreplay.msg);
				check_add_notes(r, &note, 1);
			} else {
				/* the bound's count and the interpreter's disagree: a checker bug */
				check_set_reason(r, CHECK_ERROR, "internal error: the worst-case input (%" PRIu64
						 " instructions) replays as: %s", r->worst, r->wreplay.msg);
			}
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
			  check_qtime(o), q);
		if (q->verdict != SMT_HOLDS)
			return;
	}
	smt_prove(s, smt_not(s, bad), check_qtime(o), q);
}

/* Block B's branch to successor TO as a guide step (false: B's choice is
 * not a conditional jump of the program: a synthetic branch, a helper's
 * result). */
static bool guide_step(const struct loaded *l, const struct ssa_prog *p, uint32_t b, uint32_t to,
		       struct search_step *st)
{
	const struct ssa_block *k = p->blocks[b];
	int sec = ssa_block_sec(p, k);

	if (k->term != SSA_TERM_BRANCH || k->note != SSA_NOTE_NONE || k->nsucc != 2 ||
	    k->succ[0] == k->succ[1])
		return false;
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

/* The worst case by the concrete search (search.h), without Z3: no run
 * is longer than TOP (bound.h's DAG maximum, TOP within the bound), so an
 * input the search finds for the same check with the bound TOP - 1 runs
 * exactly TOP instructions; replayed against the check itself it must
 * exit after TOP (else the two counts disagree: a checker bug, an error).
 * True when it decided: the worst case and its witness, or the error;
 * false: no such input (r->search_runs counts the inputs), or the search
 * already ran for this check. */
bool check_searched_worst(const struct loaded *l, const struct ssa_prog *p,
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
		check_set_reason(r, CHECK_ERROR, "internal error: the search's longest run (%" PRIu64
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
		smt_prove(s, smt_not(s, bad), check_qtime(o), &q);
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
	    check_searched_worst(l, e->p, o, r, n))
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
		smt_prove(s, smt_not(s, exceeds(s, e, r->c, mid - 1)), check_qtime(o), &q);
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

void check_worst_case(const struct loaded *l, struct smt *s, const struct smt_prog *e,
		      const struct check_opts *o, struct check_result *r)
{
	smt_set_budget(s, WORST_CASE_BUDGET);
	smt_set_coarse(s, false);
	worst_case(l, s, e, o, r);
	smt_set_coarse(s, true);
	smt_set_budget(s, 0);
}
