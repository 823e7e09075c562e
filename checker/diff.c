/* diff.c - `bpf-invcheck diff OLD.o NEW.o`: do two versions of a program
 * behave the same? (contract in diff.h)
 *
 * Both versions of a program are lifted without a monitor and encoded in one
 * Z3 context. The encodings share their inputs by name (smt_mem.c names the
 * initial memory of each region, the packet length and the entry registers),
 * so both runs start from the same context, packet, map contents and
 * globals. The environment is shared by pairing: the k-th call of each run
 * gets the same answer when it asks the same question (same callee, same
 * arguments, same memory behind them); different questions get independent
 * answers. The query asks for a pair of runs that both exit and differ in
 * the low 32 bits of r0 or in the sequence of calls (callee and scalar
 * arguments, in order). A model is replayed in the interpreter, both
 * versions, before it is shown.
 *
 * This file: lift and encode each version, the query, confirming a model
 * (both replays exit and differ, their environments agree) and the report.
 * The pairing of the calls (the shared environment) is diff_env.c.
 */
#include "diff_priv.h"
#include "instrument.h"

#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

/* ---- one program ---------------------------------------------------------- */

static int lift(struct pair *d, struct side *sd, int func)
{
	struct ssa_opts so = { .loop_bound = d->opts->loop_bound };
	struct diag quiet = { 0 };
	uint32_t b;

	sd->c.func = func;
	sd->c.prog = sd->l->o->funcs[func].name;
	sd->c.name = sd->c.prog;
	sd->c.inv = "diff";
	if (instrument_lift(sd->l, &sd->c, &so, d->a, &quiet, &sd->p)) {
		snprintf(d->reason, sizeof(d->reason), "%s: the program cannot be lifted", sd->path);
		return -1;
	}
	if (sd->p->unsupported) {
		snprintf(d->reason, sizeof(d->reason), "%s: not modelled: %s", sd->path,
			 sd->p->unsupported);
		return -1;
	}
	for (b = 0; b < sd->p->nblocks; b++)
		if (sd->p->blocks[b]->note == SSA_NOTE_BPF_LOOP) {
			snprintf(d->reason, sizeof(d->reason),
				 "%s: bpf_loop is not supported by diff (its calls are not aligned)",
				 sd->path);
			return -1;
		}
	return 0;
}

static int encode(struct pair *d, struct side *sd)
{
	if (smt_encode(d->s, sd->p, NULL, d->a, &sd->e)) {
		snprintf(d->reason, sizeof(d->reason), "%s: the encoder failed: %s", sd->path,
			 smt_error(d->s) ? smt_error(d->s) : "?");
		return -1;
	}
	if (sd->e->unsupported) {
		snprintf(d->reason, sizeof(d->reason), "%s: not modelled: %s", sd->path,
			 sd->e->unsupported);
		return -1;
	}
	diff_call_indices(d, sd);
	return 0;
}

static bool maps_match(const struct object *a, const struct object *b, char *why, size_t len)
{
	uint32_t i;

	if (a->nmaps != b->nmaps) {
		snprintf(why, len, "the objects have %u and %u maps: diff needs the same maps in the same order",
			 a->nmaps, b->nmaps);
		return false;
	}
	for (i = 0; i < a->nmaps; i++) {
		const struct obj_map *x = &a->maps[i], *y = &b->maps[i];

		if (strcmp(x->datasec >= 0 ? x->section : x->name, y->datasec >= 0 ? y->section : y->name) ||
		    (x->datasec >= 0) != (y->datasec >= 0) || x->type != y->type || x->key_size != y->key_size ||
		    x->value_size != y->value_size || x->max_entries != y->max_entries) {
			snprintf(why, len, "map %u differs (%s / %s: name, type, key, value or size): diff needs the same maps in the same order",
				 i, x->name, y->name);
			return false;
		}
	}
	return true;
}

/* Is the model's bool T true? */
static bool truth(struct pair *d, Z3_model m, Z3_ast t)
{
	return cex_model_bool(d->z, m, t) > 0;
}

/* The on-path calls of the model in execution order (= block order). */
static size_t path_calls(struct pair *d, Z3_model m, const struct side *sd,
			 const struct ssa_insn **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < sd->calls.len && n < max; i++)
		if (truth(d, m, guard_of(sd, call_at(sd, i))))
			out[n++] = call_at(sd, i);
	return n;
}

static bool writes_equal(const struct cex_call *a, const struct cex_call *b)
{
	unsigned i;

	if (a->nwrites != b->nwrites || a->tail_taken != b->tail_taken ||
	    (a->tail_taken && a->tail_ret != b->tail_ret))
		return false;
	for (i = 0; i < a->nwrites; i++)
		if (a->writes[i].size != b->writes[i].size ||
		    memcmp(a->writes[i].bytes, b->writes[i].bytes, a->writes[i].size))
			return false;
	return true;
}

/* The model's on-path calls of both versions, in execution order. */
struct path_pair {
	const struct ssa_insn *a[256], *b[256];
	size_t na, nb;
};

/* The environment of the two replays is one environment: calls that asked
 * the same question got the same answer, writes included. */
static bool consistent(struct pair *d, Z3_model m, const struct path_pair *pp)
{
	const struct ssa_insn *const *pa = pp->a, *const *pb = pp->b;
	size_t na = pp->na, nb = pp->nb, i;
	Z3_ast q;

	if (na != d->o.x->ncalls || nb != d->n.x->ncalls)
		return false;
	for (i = 0; i < na && i < nb; i++) {
		if (!diff_same_callee(&d->o, pa[i], &d->n, pb[i]))
			break;   /* the sequences differ here: later answers are free */
		if (!paired(d, pa[i]))
			continue;   /* independent answers by the policy */
		q = diff_same_question(d, pa[i], pb[i]);
		if ((!q || truth(d, m, q)) &&
		    (d->o.x->calls[i].ret != d->n.x->calls[i].ret ||
		     !writes_equal(&d->o.x->calls[i], &d->n.x->calls[i])))
			return false;
	}
	return true;
}

/* Only the compared calls of SEQ (N of them); returns how many. */
static size_t only_compared(const struct pair *d, const struct ssa_insn **seq, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (compared(d, seq[i]))
			seq[k++] = seq[i];
	return k;
}

/* The replayed call sequences differ: callee, or a scalar argument the
 * callee reads (the same notion as same_call); compared calls only. */
static bool calls_differ(struct pair *d, Z3_model m, struct path_pair *pp)
{
	const struct ssa_insn *const *pa = pp->a, *const *pb = pp->b;
	size_t na = only_compared(d, pp->a, pp->na), nb = only_compared(d, pp->b, pp->nb), i;
	unsigned a, n;

	if (na != nb)
		return true;
	for (i = 0; i < na; i++) {
		if (!diff_same_callee(&d->o, pa[i], &d->n, pb[i]))
			return true;
		n = diff_arity(&d->o, pa[i]);
		for (a = 0; a < n && a < 5 && a < pa[i]->nargs && a < pb[i]->nargs; a++) {
			Z3_ast eq;

			if (d->o.e->region[pa[i]->args[a]] != 0 || d->n.e->region[pb[i]->args[a]] != 0)
				continue;
			eq = diff_arg_equal(d, pa[i], pb[i], a);
			if (eq && !truth(d, m, eq))
				return true;
		}
	}
	return false;
}

/* A model of the difference: both replays must exit and differ. */
static void confirm(struct pair *d, Z3_model m, struct diff_result *r)
{
	struct path_pair pp;
	char why[256];

	if (cex_extract(d->s, d->o.e, m, &d->o.c, 0, d->a, &d->o.x, why, sizeof(why)) < 0 ||
	    cex_extract(d->s, d->n.e, m, &d->n.c, 0, d->a, &d->n.x, why, sizeof(why)) < 0) {
		r->verdict = DIFF_ERROR;
		snprintf(r->reason, sizeof(r->reason), "internal error: no inputs from the model: %s", why);
		return;
	}
	if (replay_run(d->o.l, &d->o.c, d->o.x, &d->o.rr) < 0 ||
	    replay_run(d->n.l, &d->n.c, d->n.x, &d->n.rr) < 0 ||
	    d->o.rr.outcome != REPLAY_EXITED || d->n.rr.outcome != REPLAY_EXITED) {
		r->verdict = DIFF_ERROR;
		snprintf(r->reason, sizeof(r->reason),
			 "internal error: the difference does not replay: old %s (%.200s), new %s (%.200s)",
			 replay_outcome_name(d->o.rr.outcome), d->o.rr.msg,
			 replay_outcome_name(d->n.rr.outcome), d->n.rr.msg);
		return;
	}
	pp.na = path_calls(d, m, &d->o, pp.a, 256);
	pp.nb = path_calls(d, m, &d->n, pp.b, 256);
	if (!consistent(d, m, &pp)) {
		r->verdict = DIFF_UNKNOWN;
		snprintf(r->reason, sizeof(r->reason),
			 "the solver's difference needs a helper to answer the same question differently (memory a helper writes is not shared between the versions)");
		return;
	}
	r->ret_differs = !r->void_ret && (uint32_t)d->o.rr.r0 != (uint32_t)d->n.rr.r0;
	r->calls_differ = calls_differ(d, m, &pp);
	if (!r->ret_differs && !r->calls_differ) {
		r->verdict = DIFF_ERROR;
		snprintf(r->reason, sizeof(r->reason),
			 "internal error: the replays of the solver's difference behave the same");
		return;
	}
	r->verdict = DIFF_DIFFER;
}

/* The program's BTF prototype returns void (a struct_ops callback such as
 * ops.exit): r0 means nothing and is not compared. */
static bool returns_void(const struct object *o, int func)
{
	const struct btf_type *fn, *proto;

	if (!o->btf || !o->funcs[func].btf_func_id)
		return false;
	fn = btf__type_by_id(o->btf, o->funcs[func].btf_func_id);
	proto = fn && btf_is_func(fn) ? btf__type_by_id(o->btf, fn->type) : NULL;
	return proto && btf_is_func_proto(proto) && proto->type == 0;
}

/* The worst-case instruction count of one version (a bound check). */
static void worst(struct pair *d, struct side *sd)
{
	struct mon_check c = sd->c;
	struct mon_assert as = { .file = "(diff)", .text = "insns <= 4294967295",
				 .msg = "bound exceeded", .handler = UINT32_MAX };
	struct check_opts co = { .loop_bound = d->opts->loop_bound, .timeout_ms = d->opts->timeout_ms };
	struct check_result r;

	c.inv = "bound_insns";
	c.has_bound = true;
	c.uses_insns = true;
	c.bound = 0xffffffffull;
	c.bound_site = 0;
	c.asserts = &as;
	c.nasserts = 1;
	check_run(sd->l, &c, &co, &r);
	sd->has_worst = r.has_worst;
	sd->worst = r.worst;
	check_result_free(&r);
}

static void diff_one(const struct loaded *lo, const char *po, int fo,
		     const struct loaded *ln, const char *pn, int fn,
		     const struct diff_opts *opts, struct diff_result *r)
{
	struct pair d = { .opts = opts };
	struct smt_result q, t;
	Z3_ast ro, rn, both, calls;
	const char *why;

	memset(r, 0, sizeof(*r));
	d.o.l = lo;
	d.o.path = po;
	d.n.l = ln;
	d.n.path = pn;
	d.a = r->arena = arena_new();
	if (!d.a)
		abort();
	r->verdict = DIFF_UNKNOWN;
	if (!maps_match(lo->o, ln->o, r->reason, sizeof(r->reason)))
		return;
	if (lift(&d, &d.o, fo) || lift(&d, &d.n, fn))
		goto reason;
	if (opts->policy && opts->policy->unsupported &&
	    (why = opts->policy->unsupported(d.o.p))) {
		snprintf(r->reason, sizeof(r->reason), "%s", why);
		return;
	}
	d.s = smt_new();
	if (!d.s) {
		r->verdict = DIFF_ERROR;
		snprintf(r->reason, sizeof(r->reason), "%s", smt_new_error());
		return;
	}
	d.z = smt_ctx(d.s);
	if (encode(&d, &d.o) || encode(&d, &d.n))
		goto reason;
	ro = Z3_mk_extract(d.z, 31, 0, d.o.e->result);
	rn = Z3_mk_extract(d.z, 31, 0, d.n.e->result);
	diff_pair_kernel_reads(&d);
	r->void_ret = returns_void(lo->o, fo) && returns_void(ln->o, fn);
	both = and2(&d, d.o.e->reach_exit, d.n.e->reach_exit);
	calls = and2(&d, both, diff_pair_calls(&d));
	if (opts->no_time) {
		snprintf(r->reason, sizeof(r->reason), "timeout: --timeout=0 leaves the solver no time");
		goto out;
	}
	/* a different return value first (it tells more), then calls */
	q.verdict = SMT_HOLDS;
	d.claim = calls;
	if (!r->void_ret) {
		d.claim = and2(&d, both, smt_not(d.s, Z3_mk_eq(d.z, ro, rn)));
		smt_prove(d.s, smt_not(d.s, d.claim), opts->timeout_ms, &q);
		if (q.verdict != SMT_VIOLATED)
			d.claim = calls;
	}
	if (q.verdict != SMT_VIOLATED) {
		if (q.verdict == SMT_UNKNOWN)
			snprintf(r->reason, sizeof(r->reason), "the solver gave up: %s", q.reason);
		smt_prove(d.s, smt_not(d.s, calls), opts->timeout_ms, &t);
		if (t.verdict != SMT_HOLDS || q.verdict == SMT_HOLDS)
			q = t;
		else
			smt_release(d.s, &t);
	}
	if (q.verdict == SMT_VIOLATED) {
		r->reason[0] = 0;
		check_shorter_packet(d.s, d.o.e, d.claim, opts->timeout_ms, &q);
		confirm(&d, q.model, r);
		smt_release(d.s, &q);
	} else if (q.verdict == SMT_UNKNOWN) {
		if (!r->reason[0])
			snprintf(r->reason, sizeof(r->reason), "the solver gave up: %s", q.reason);
	} else {
		smt_prove(d.s, smt_not(d.s, or2(&d, d.o.e->reach_unwind, d.n.e->reach_unwind)),
			  opts->timeout_ms, &q);
		smt_release(d.s, &q);
		if (q.verdict == SMT_HOLDS)
			r->verdict = DIFF_EQUIVALENT;
		else if (q.verdict == SMT_VIOLATED)
			snprintf(r->reason, sizeof(r->reason),
				 "loop bound %u reached: a loop may run longer (try a larger --loop-bound)",
				 d.o.p->loop_bound);
		else
			snprintf(r->reason, sizeof(r->reason), "the solver gave up on the loop bound: %s",
				 q.reason);
	}
	goto out;
reason:
	r->verdict = DIFF_UNKNOWN;
out:
	if (d.o.x) {
		r->old_cex = d.o.x;
		r->new_cex = d.n.x;
		r->old_replay = d.o.rr;
		r->new_replay = d.n.rr;
	}
	if (d.reason[0] && !r->reason[0])
		snprintf(r->reason, sizeof(r->reason), "%s", d.reason);
	smt_free(d.s);
	if (!opts->no_time && !opts->policy && d.o.e && d.n.e && !d.o.e->unsupported &&
	    !d.n.e->unsupported) {
		worst(&d, &d.o);
		worst(&d, &d.n);
		r->has_worst = d.o.has_worst && d.n.has_worst;
		r->old_worst = d.o.worst;
		r->new_worst = d.n.worst;
	}
}

int diff_run(const struct loaded *lo, const char *old_path, const struct loaded *ln,
	     const char *new_path, const char *program, const struct diff_opts *opts,
	     struct diff_report *out)
{
	int *po = calloc(lo->o->nfuncs + 1, sizeof(int)), *pn = calloc(ln->o->nfuncs + 1, sizeof(int));
	int no, nn, i, j;

	if (!po || !pn)
		abort();
	memset(out, 0, sizeof(*out));
	no = check_select(lo->o, program, po);
	nn = check_select(ln->o, program, pn);
	out->progs = calloc((size_t)no + (size_t)nn + 1, sizeof(*out->progs));
	if (!out->progs)
		abort();
	for (i = 0; i < no; i++) {
		struct diff_prog *dp = &out->progs[out->n++];

		dp->name = lo->o->funcs[po[i]].name;
		dp->in_old = dp->in_new = true;
		for (j = 0; j < nn && strcmp(ln->o->funcs[pn[j]].name, dp->name); j++)
			;
		if (j == nn) {
			dp->in_new = false;
			continue;
		}
		diff_one(lo, old_path, po[i], ln, new_path, pn[j], opts, &dp->r);
	}
	for (j = 0; j < nn; j++) {
		for (i = 0; i < no && strcmp(lo->o->funcs[po[i]].name, ln->o->funcs[pn[j]].name); i++)
			;
		if (i == no) {
			struct diff_prog *dp = &out->progs[out->n++];

			dp->name = ln->o->funcs[pn[j]].name;
			dp->in_new = true;
		}
	}
	free(po);
	free(pn);
	return 0;
}

void diff_report_free(struct diff_report *rep)
{
	unsigned i;

	for (i = 0; i < rep->n; i++) {
		replay_result_free(&rep->progs[i].r.old_replay);
		replay_result_free(&rep->progs[i].r.new_replay);
		arena_free(rep->progs[i].r.arena);
	}
	free(rep->progs);
	rep->progs = NULL;
	rep->n = 0;
}

const char *diff_verdict_name(enum diff_verdict v)
{
	switch (v) {
	case DIFF_EQUIVALENT: return "equivalent";
	case DIFF_DIFFER: return "differ";
	case DIFF_UNKNOWN: return "unknown";
	case DIFF_ERROR: return "error";
	}
	return "?";
}
