/* xprog.c - relations between the programs of one struct_ops map (the
 * contract is xprog.h; docs/spec-language.md, section 12).
 *
 * Collecting: each program of the map is lifted without a monitor and
 * encoded in its own Z3 context; for each call of an inserting kfunc the
 * solver enumerates the user DSQ ids the call can get on some input that
 * reaches it (guard AND id < 2^63 AND id not yet found: SAT gives one more
 * id, UNSAT ends). Sound: every id an input can insert into is found, or
 * the relation is unknown. No assumptions of the spec apply here, so the
 * set may be larger than the spec's inputs allow (more obligations, never
 * fewer).
 *
 * Monitors: built directly as resolved checks (monitor.h), with the
 * placeholder's file and position for every statement.
 */
#include "xprog.h"
#include "instrument.h"
#include "smt.h"
#include "ssa.h"

#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include "z3lazy.h"

#define SCX_DSQ_GLOBAL   0x8000000000000001ull
#define SCX_DSQ_LOCAL    0x8000000000000002ull
#define SCX_DSQ_LOCAL_ON 0xc000000000000000ull

static const char *const insert_names[] = {
	"scx_bpf_dsq_insert", "scx_bpf_dsq_insert_vtime", "scx_bpf_dispatch",
	"scx_bpf_dispatch_vtime", NULL,
};
static const char *const hidden_insert_names[] = { "__scx_bpf_dsq_insert_vtime", NULL };
static const char *const pull_names[] = { "scx_bpf_dsq_move_to_local", "scx_bpf_consume", NULL };
static const char *const create_names[] = { "scx_bpf_create_dsq", NULL };

bool xprog_relation_known(const char *name)
{
	return !strcmp(name, "sched_ext_dsqs");
}

const char *xprog_relation_names(void)
{
	return "sched_ext_dsqs";
}

bool xprog_relation_applies(const char *name, const struct obj_func *fn)
{
	(void)name;
	return fn->struct_ops >= 0 && fn->struct_ops_type &&
	       !strcmp(fn->struct_ops_type, "sched_ext_ops");
}

const char *xprog_relation_needs(const char *name)
{
	(void)name;
	return "it relates the callbacks of a sched_ext_ops struct_ops map";
}

static bool name_in(const char *sym, const char *const *names)
{
	for (; *names; names++)
		if (mon_kfunc_matches(sym, *names))
			return true;
	return false;
}

/* ---- collecting ------------------------------------------------------------- */
struct dsq {
	uint64_t id;
	const char *where;        /* "pack_enqueue at examples/x.bpf.c:64" */
};

struct flow {                     /* one struct_ops map */
	int map;
	struct dsq ids[XPROG_MAX_IDS];
	unsigned n;
	const char *unknown;      /* the ids are not all known: why */
	int init, dispatch;       /* their programs (o->funcs), or -1 */
};

static const char *site(const struct ssa_prog *p, const struct ssa_insn *v,
			const char *prog, struct arena *a)
{
	const struct object *o = p->o;
	const struct obj_line *ln = NULL;
	int sec = ssa_value_sec(p, v);

	if (sec >= 0 && (uint32_t)sec < o->nsections)
		ln = object_line_at(&o->sections[sec], v->slot);
	if (ln && ln->file) {               /* the file's name only: messages stay short */
		const char *base = strrchr(ln->file, '/');

		return arena_printf(a, "%s at %s:%u", prog, base ? base + 1 : ln->file, ln->line);
	}
	return arena_printf(a, "%s (insn %" PRIu32 ")", prog, v->slot);
}

/* Add every user DSQ id the call V can insert into. */
static void enumerate(struct flow *f, struct smt *s, const struct smt_prog *e,
		      const struct ssa_insn *v, const char *where, unsigned timeout_ms,
		      struct arena *a)
{
	Z3_context z = smt_ctx(s);
	Z3_ast id = v->nargs > 1 ? e->val[v->args[1]] : NULL, cond;
	struct smt_result res;
	uint64_t x;
	unsigned i;

	if (!id) {
		f->unknown = arena_printf(a, "the DSQ id of the insert in %s is undefined", where);
		return;
	}
	cond = smt_and(s, e->guard[v->block], Z3_mk_bvult(z, id, smt_bv64(s, 1ull << 63)));
	for (;;) {
		Z3_ast c = cond;

		for (i = 0; i < f->n; i++)
			c = smt_and(s, c, smt_not(s, smt_eq(s, id, smt_bv64(s, f->ids[i].id))));
		smt_prove(s, smt_not(s, c), timeout_ms, &res);
		if (res.verdict == SMT_HOLDS)
			return;
		if (res.verdict == SMT_UNKNOWN) {
			f->unknown = arena_printf(a, "the DSQ ids of the insert in %s: %s", where,
						  res.reason);
			return;
		}
		if (smt_eval_u64(s, res.model, id, &x)) {
			smt_release(s, &res);
			f->unknown = arena_printf(a, "the DSQ ids of the insert in %s: no value in the model",
						  where);
			return;
		}
		smt_release(s, &res);
		if (f->n == XPROG_MAX_IDS) {
			f->unknown = arena_printf(a, "the insert in %s can use more than %u user DSQ ids",
						  where, XPROG_MAX_IDS);
			return;
		}
		f->ids[f->n].id = x;
		f->ids[f->n++].where = where;
	}
}

/* The user DSQ ids program FUNC inserts into, added to F. */
static void collect_prog(const struct loaded *l, struct flow *f, int func,
			 const struct check_opts *o, struct mon_expr *const *pins,
			 unsigned npins, struct arena *out)
{
	struct mon_check none = { .func = func, .prog = l->o->funcs[func].name,
				  .inv = "collect", .name = "collect",
				  .assumes = (struct mon_expr **)pins, .nassumes = npins };
	const struct object *ob = l->o;
	const char *prog = ob->funcs[func].name;
	struct ssa_opts so = { .loop_bound = o->loop_bound };
	struct diag d = { 0 };
	struct arena *a = arena_new();
	struct ssa_prog *p = NULL;
	struct smt_prog *e = NULL;
	struct smt_result res;
	struct smt *s = NULL;
	uint32_t b, i;

	if (!a)
		abort();
	if (instrument_lift(l, &none, &so, a, &d, &p) || p->unsupported) {
		f->unknown = arena_printf(out, "program %s of the map: %s", prog,
					  p && p->unsupported ? p->unsupported : "cannot be lifted");
		goto done;
	}
	s = smt_new();
	if (!s) {
		f->unknown = arena_printf(out, "program %s of the map: %s", prog, smt_new_error());
		goto done;
	}
	if (smt_encode(s, p, NULL, a, &e) || e->unsupported) {
		f->unknown = arena_printf(out, "program %s of the map: %s", prog,
					  e && e->unsupported ? e->unsupported : "cannot be encoded");
		goto done;
	}
	smt_prove(s, smt_not(s, e->reach_unwind), o->timeout_ms, &res);
	if (res.verdict != SMT_HOLDS) {
		smt_release(s, &res);
		f->unknown = arena_printf(out, "program %s of the map needs more than the loop bound (%u) or the solver gave up",
					  prog, p->loop_bound);
		goto done;
	}
	for (b = 0; b < p->nblocks && !f->unknown; b++)
		for (i = 0; i < p->blocks[b]->ninsns && !f->unknown; i++) {
			const struct ssa_insn *v = p->blocks[b]->insns[i];
			const char *sym;

			if (v->kind != SSA_CALL || v->ref->kind != INSN_REF_KFUNC)
				continue;
			sym = ob->kfuncs[v->ref->index].name;
			if (name_in(sym, hidden_insert_names))
				f->unknown = arena_printf(out, "the insert in %s keeps its DSQ id behind a pointer (%s)",
							  site(p, v, prog, out), sym);
			else if (name_in(sym, insert_names))
				enumerate(f, s, e, v, site(p, v, prog, out), o->timeout_ms, out);
		}
done:
	smt_free(s);
	arena_free(a);
}

static void collect(const struct loaded *l, struct flow *f, const struct check_opts *o,
		    struct mon_expr *const *pins, unsigned npins, struct arena *a)
{
	const struct object *ob = l->o;
	uint32_t i;

	f->init = f->dispatch = -1;
	if (o->no_time)
		f->unknown = "timeout: --timeout=0 leaves the solver no time";
	for (i = 0; i < ob->nfuncs; i++) {
		const struct obj_func *fn = &ob->funcs[i];

		if (!fn->is_prog || fn->struct_ops != f->map)
			continue;
		if (fn->struct_ops_member && !strcmp(fn->struct_ops_member, "init"))
			f->init = (int)i;
		if (fn->struct_ops_member && !strcmp(fn->struct_ops_member, "dispatch"))
			f->dispatch = (int)i;
		if (!f->unknown)
			collect_prog(l, f, (int)i, o, pins, npins, a);
	}
	if (!f->unknown && f->n && (f->init < 0 || f->dispatch < 0))
		f->unknown = arena_printf(a, "struct_ops map %s has no %s callback, but %s inserts into user DSQ %" PRIu64,
					  ob->struct_ops[f->map].map_name, f->init < 0 ? "init" : "dispatch",
					  f->ids[0].where, f->ids[0].id);
}

/* ---- monitors ------------------------------------------------------------------ */
struct build {
	struct arena *a;
	const struct object *o;
	struct mon_check *c;
	struct vec vars, handlers, asserts;
};

static struct mon_expr *ex(struct build *bd, enum mon_ekind k, uint64_t num, int index)
{
	struct mon_expr *m = arena_alloc(bd->a, sizeof(*m));

	m->kind = k;
	m->pos = bd->c->pos;
	m->num = num;
	m->index = index;
	return m;
}

static struct mon_expr *num(struct build *bd, uint64_t v) { return ex(bd, MON_NUM, v, 0); }

static struct mon_expr *var(struct build *bd, int i)
{
	struct mon_expr *m = ex(bd, MON_STATE, 0, i);

	m->is_bool = true;
	return m;
}

static struct mon_expr *bin(struct build *bd, enum spec_binop op, struct mon_expr *x,
			    struct mon_expr *y)
{
	struct mon_expr *m = ex(bd, MON_BINARY, 0, 0);

	m->op = op;
	m->a = arena_alloc(bd->a, 2 * sizeof(*m->a));
	m->a[0] = x;
	m->a[1] = y;
	m->n = 2;
	m->is_bool = op >= SPEC_BIN_LT && op <= SPEC_BIN_NE ? true :
		     op == SPEC_BIN_LAND || op == SPEC_BIN_LOR || op == SPEC_BIN_IMPLIES;
	return m;
}

static struct mon_expr *low(struct build *bd, struct mon_expr *x, uint64_t mask)
{
	return bin(bd, SPEC_BIN_BAND, x, num(bd, mask));
}

static int new_var(struct build *bd, const char *name)
{
	struct mon_var *v = vec_push(bd->a, &bd->vars, sizeof(*v));

	v->name = name;
	v->pos = bd->c->pos;
	v->type = SPEC_TY_BOOL;
	v->width = 1;
	v->init = num(bd, 0);
	return (int)bd->vars.len - 1;
}

static struct mon_stmt *set_true_if(struct build *bd, struct mon_expr *cond, int v)
{
	struct mon_stmt *s = arena_alloc(bd->a, sizeof(*s)), *as = arena_alloc(bd->a, sizeof(*as));

	as->kind = MON_S_ASSIGN;
	as->pos = bd->c->pos;
	as->e = num(bd, 1);
	as->var = v;
	s->kind = MON_S_IF;
	s->pos = bd->c->pos;
	s->e = cond;
	s->then = arena_alloc(bd->a, sizeof(*s->then));
	s->then[0] = as;
	s->nthen = 1;
	return s;
}

static struct mon_calls calls_of(struct build *bd, const char *const *names)
{
	struct mon_calls c = { 0 };
	uint32_t i;

	c.kfuncs = arena_alloc(bd->a, (bd->o->nkfuncs + 1) * sizeof(int));
	for (i = 0; i < bd->o->nkfuncs; i++)
		if (name_in(bd->o->kfuncs[i].name, names))
			c.kfuncs[c.nkfuncs++] = (int)i;
	return c;
}

/* A handler of event EV for calls NAMES (NULL: entry/exit) with N statements. */
static struct mon_handler *handler(struct build *bd, enum spec_event_kind ev,
				   const char *const *names, unsigned n)
{
	struct mon_handler *h = vec_push(bd->a, &bd->handlers, sizeof(*h));

	h->ev = ev;
	h->pos = bd->c->pos;
	if (names)
		h->calls = calls_of(bd, names);
	h->body = arena_alloc(bd->a, (n + 1) * sizeof(*h->body));
	return h;
}

static struct mon_stmt *assert_stmt(struct build *bd, struct mon_expr *cond, unsigned hidx,
				    const char *msg, const char *text)
{
	struct mon_stmt *s = arena_alloc(bd->a, sizeof(*s));
	struct mon_assert *as = vec_push(bd->a, &bd->asserts, sizeof(*as));

	as->pos = bd->c->pos;
	as->file = bd->c->file;
	as->msg = msg;
	as->text = text;
	as->handler = hidx;
	s->kind = MON_S_ASSERT;
	s->pos = bd->c->pos;
	s->e = cond;
	s->site = (unsigned)bd->asserts.len - 1;
	return s;
}

/* init: on every exit with (u32)ret == 0, create_dsq(id) returned 0 for each id */
static void build_init(struct build *bd, const struct flow *f)
{
	struct mon_handler *h;
	unsigned i, first = (unsigned)bd->vars.len;

	for (i = 0; i < f->n; i++)
		new_var(bd, arena_printf(bd->a, "created_%" PRIu64, f->ids[i].id));
	h = handler(bd, SPEC_EV_RETURN, create_names, f->n);
	for (i = 0; i < f->n; i++)
		h->body[h->n++] = set_true_if(bd, bin(bd, SPEC_BIN_LAND,
			bin(bd, SPEC_BIN_EQ, ex(bd, MON_ARG, 0, 1), num(bd, f->ids[i].id)),
			bin(bd, SPEC_BIN_EQ, low(bd, ex(bd, MON_RET, 0, 0), 0xffffffff), num(bd, 0))),
			(int)(first + i));
	h = handler(bd, SPEC_EV_EXIT, NULL, f->n);
	for (i = 0; i < f->n; i++) {
		uint64_t id = f->ids[i].id;

		h->body[h->n++] = assert_stmt(bd, bin(bd, SPEC_BIN_LOR,
			bin(bd, SPEC_BIN_NE, low(bd, ex(bd, MON_RET, 0, 0), 0xffffffff), num(bd, 0)),
			var(bd, (int)(first + i))), (unsigned)bd->handlers.len - 1,
			arena_printf(bd->a, "init succeeds without creating DSQ %" PRIu64 " (%s inserts into it)",
				     id, f->ids[i].where),
			arena_printf(bd->a, "(u32)ret != 0 || created(%" PRIu64 ")", id));
	}
}

/* dispatch: on every exit where no task was moved, a pull of each id was tried */
static void build_dispatch(struct build *bd, const struct flow *f)
{
	struct mon_handler *h;
	struct mon_expr *a2, *local;
	unsigned i, first;
	int got = new_var(bd, "moved");

	first = (unsigned)bd->vars.len;
	for (i = 0; i < f->n; i++)
		new_var(bd, arena_printf(bd->a, "tried_%" PRIu64, f->ids[i].id));
	h = handler(bd, SPEC_EV_CALL, pull_names, f->n);
	for (i = 0; i < f->n; i++)
		h->body[h->n++] = set_true_if(bd, bin(bd, SPEC_BIN_EQ, ex(bd, MON_ARG, 0, 1),
						      num(bd, f->ids[i].id)), (int)(first + i));
	h = handler(bd, SPEC_EV_RETURN, pull_names, 1);
	h->body[h->n++] = set_true_if(bd, bin(bd, SPEC_BIN_NE, low(bd, ex(bd, MON_RET, 0, 0), 0xff),
					      num(bd, 0)), got);
	h = handler(bd, SPEC_EV_CALL, insert_names, 1);
	a2 = ex(bd, MON_ARG, 0, 2);
	local = bin(bd, SPEC_BIN_LOR,
		    bin(bd, SPEC_BIN_LOR, bin(bd, SPEC_BIN_EQ, a2, num(bd, SCX_DSQ_LOCAL)),
			bin(bd, SPEC_BIN_EQ, a2, num(bd, SCX_DSQ_GLOBAL))),
		    bin(bd, SPEC_BIN_EQ, low(bd, a2, SCX_DSQ_LOCAL_ON), num(bd, SCX_DSQ_LOCAL_ON)));
	h->body[h->n++] = set_true_if(bd, local, got);
	h = handler(bd, SPEC_EV_EXIT, NULL, f->n);
	for (i = 0; i < f->n; i++) {
		uint64_t id = f->ids[i].id;

		h->body[h->n++] = assert_stmt(bd, bin(bd, SPEC_BIN_LOR, var(bd, got),
						      var(bd, (int)(first + i))),
			(unsigned)bd->handlers.len - 1,
			arena_printf(bd->a, "dispatch returns without a task and without trying DSQ %" PRIu64 " (%s inserts into it)",
				     id, f->ids[i].where),
			arena_printf(bd->a, "moved || tried(%" PRIu64 ")", id));
	}
}

static void fill(struct mon_check *c, const struct object *o, const struct flow *f,
		 bool init, struct arena *a)
{
	struct build bd = { .a = a, .o = o, .c = c };

	c->expanded = true;
	if (f->unknown) {
		c->unknown = arena_printf(a, "relation %s: %s", c->relation, f->unknown);
		return;
	}
	if (init)
		build_init(&bd, f);
	else
		build_dispatch(&bd, f);
	c->vars = bd.vars.data;
	c->nvars = (unsigned)bd.vars.len;
	c->handlers = bd.handlers.data;
	c->nhandlers = (unsigned)bd.handlers.len;
	c->asserts = bd.asserts.data;
	c->nasserts = (unsigned)bd.asserts.len;
}

int xprog_expand(const struct loaded *l, struct mon_set *s, const struct check_opts *o,
		 struct mon_expr *const *pins, unsigned npins, struct arena *a)
{
	const struct object *ob = l->o;
	struct flow *flows;
	unsigned i, k = 0;

	if (!ob->nstruct_ops)
		return 0;
	flows = arena_alloc(a, ob->nstruct_ops * sizeof(*flows));
	for (i = 0; i < ob->nstruct_ops; i++)
		flows[i].map = -1;
	for (i = 0; i < s->n; i++) {
		struct mon_check *c = &s->checks[i];
		const struct obj_func *fn = &ob->funcs[c->func];
		struct flow *f;
		bool keep;

		if (!c->relation) {
			s->checks[k++] = *c;
			continue;
		}
		f = &flows[fn->struct_ops];
		if (f->map < 0) {
			f->map = fn->struct_ops;
			collect(l, f, o, pins, npins, a);
		}
		keep = c->func == f->init || c->func == f->dispatch ||
		       (f->unknown && (f->init < 0 || f->dispatch < 0));
		if (!keep)
			continue;
		fill(c, ob, f, c->func == f->init, a);
		s->checks[k++] = *c;
	}
	s->n = k;
	return 0;
}
