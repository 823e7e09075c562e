/* monitor_eval.c - the concrete monitor: resolved invariants (monitor.h)
 * evaluated on one replayed run (contract: replay_priv.h). */
#include "replay_priv.h"

#include <string.h>

/* ---- values ----------------------------------------------------------- */

static uint64_t load_bytes(const uint8_t *p, unsigned n, bool be)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[be ? i : n - 1 - i];
	return v;
}

static unsigned type_bits(enum spec_type t)
{
	switch (t) {
	case SPEC_TY_BOOL: return 1;
	case SPEC_TY_U8: case SPEC_TY_S8: return 8;
	case SPEC_TY_U16: case SPEC_TY_S16: return 16;
	case SPEC_TY_U32: case SPEC_TY_S32: return 32;
	case SPEC_TY_U64: case SPEC_TY_S64: return 64;
	}
	return 64;
}

static bool type_signed(enum spec_type t)
{
	return t == SPEC_TY_S8 || t == SPEC_TY_S16 || t == SPEC_TY_S32 ||
	       t == SPEC_TY_S64;
}

static uint64_t cast(enum spec_type t, uint64_t v)
{
	if (t == SPEC_TY_BOOL)
		return v != 0;
	if (type_signed(t))
		return val_sext(v, type_bits(t));
	return val_zext(v, type_bits(t));
}

/* the value a state variable holds after V is assigned to it */
static uint64_t store_var(const struct mon_var *var, uint64_t v)
{
	if (var->type == SPEC_TY_BOOL)
		return v != 0;
	v = val_zext(v, 8u * var->width);
	return var->sign ? val_sext(v, 8u * var->width) : v;
}

/* ---- expressions ------------------------------------------------------ */

static uint64_t unary(enum spec_unop op, uint64_t a)
{
	switch (op) {
	case SPEC_UN_NEG: return -a;
	case SPEC_UN_LNOT: return !a;
	case SPEC_UN_BNOT: return ~a;
	}
	return 0;
}

/* u8(p) .. be64(p): memory at the event, 0 when not all of it is mapped */
static uint64_t load(struct mon_eval *m, uint64_t addr, uint32_t size, bool be)
{
	const uint8_t *p;

	if (!m->ip || size == 0 || size > 8)
		return 0;
	p = interp_mem(m->ip, addr, size, false);
	return p ? load_bytes(p, size, be) : 0;
}

static uint64_t global(struct mon_eval *m, const struct mon_expr *e)
{
	const struct obj_datasec *ds = NULL;
	struct interp_region *r = NULL;
	int ri = -1;

	if (e->size == 0 || e->size > 8)
		return 0;
	if (m->global_region && m->o && e->index >= 0 &&
	    (uint32_t)e->index < m->o->nmaps)
		ri = m->global_region[e->index];
	if (m->ip && ri >= 0)
		r = interp_region(m->ip, ri);
	if (r)
		return (uint64_t)e->off + e->size <= r->size
			? load_bytes(r->bytes + e->off, e->size, false) : 0;
	if (m->o && e->datasec >= 0 && (uint32_t)e->datasec < m->o->ndatasecs)
		ds = &m->o->datasecs[e->datasec];
	if (ds && (uint64_t)e->off + e->size <= ds->size)
		return load_bytes(ds->init + e->off, e->size, false);
	return 0;
}

static uint64_t ctx_field(const struct mon_eval *m, uint32_t off, uint32_t size)
{
	if (!m->ctx || size == 0 || size > 8 ||
	    (uint64_t)off + size > m->ctx_size)
		return 0;
	return load_bytes(m->ctx + off, size, false);
}

static uint64_t in_set(struct mon_eval *m, const struct mon_expr *e)
{
	uint64_t v = mon_eval_expr(m, e->a[0]);
	unsigned i;

	for (i = 1; i < e->n; i++)
		if (mon_eval_expr(m, e->a[i]) == v)
			return 1;
	return 0;
}

static uint64_t in_range(struct mon_eval *m, const struct mon_expr *e)
{
	uint64_t v = mon_eval_expr(m, e->a[0]);
	uint64_t lo = mon_eval_expr(m, e->a[1]), hi = mon_eval_expr(m, e->a[2]);

	return !mon_less(e->sign, v, lo) && !mon_less(e->sign, hi, v);
}

uint64_t mon_eval_expr(struct mon_eval *m, const struct mon_expr *e)
{
	switch (e->kind) {
	case MON_NUM: return e->num;
	case MON_RET: return m->ret;
	case MON_ARG:
		return e->index >= 1 && e->index <= 5 ? m->args[e->index - 1] : 0;
	case MON_PKT: return m->pkt;
	case MON_PKT_END: return m->pkt_end;
	case MON_PKT_LEN: return m->pkt_end - m->pkt;
	case MON_PKT_WRITTEN: return m->pkt_written;
	case MON_CTX: return ctx_field(m, e->off, e->size);
	case MON_GLOBAL: return global(m, e);
	case MON_STATE:
		return e->index >= 0 && (unsigned)e->index < m->c->nvars
			? m->vars[e->index] : 0;
	case MON_INSNS: return m->insns;
	case MON_CALLED:
		return e->index >= 0 && (unsigned)e->index < m->c->ncounters
			? m->counters[e->index] : 0;
	case MON_LOAD:
		return load(m, mon_eval_expr(m, e->a[0]), e->size, e->be);
	case MON_UNARY:
		return unary((enum spec_unop)e->op, mon_eval_expr(m, e->a[0]));
	case MON_BINARY:
		return mon_binop_eval((enum spec_binop)e->op, e->sign,
			      mon_eval_expr(m, e->a[0]),
			      mon_eval_expr(m, e->a[1]));
	case MON_COND:
		return mon_eval_expr(m, e->a[0]) ? mon_eval_expr(m, e->a[1])
						 : mon_eval_expr(m, e->a[2]);
	case MON_CAST: return cast(e->type, mon_eval_expr(m, e->a[0]));
	case MON_IN_SET: return in_set(m, e);
	case MON_IN_RANGE: return in_range(m, e);
	}
	return 0;
}

/* ---- statements and handlers ------------------------------------------ */

static bool fails(struct mon_eval *m, enum mon_fail f, unsigned site,
		  struct spec_pos pos)
{
	m->failed = f;
	m->site = site;
	m->pos = pos;
	return false;
}

static bool exec_stmts(struct mon_eval *m, struct mon_stmt *const *s,
		       unsigned n);

static bool exec_stmt(struct mon_eval *m, const struct mon_stmt *s)
{
	switch (s->kind) {
	case MON_S_ASSERT:
		return mon_eval_expr(m, s->e) ||
		       fails(m, MON_FAIL_ASSERT, s->site, s->pos);
	case MON_S_ASSUME:
		return mon_eval_expr(m, s->e) ||
		       fails(m, MON_FAIL_ASSUME, 0, s->pos);
	case MON_S_ASSIGN:
		if (s->var >= 0 && (unsigned)s->var < m->c->nvars)
			m->vars[s->var] = store_var(&m->c->vars[s->var],
						    mon_eval_expr(m, s->e));
		return true;
	case MON_S_IF:
		if (mon_eval_expr(m, s->e))
			return exec_stmts(m, s->then, s->nthen);
		return exec_stmts(m, s->els, s->nels);
	}
	return true;
}

static bool exec_stmts(struct mon_eval *m, struct mon_stmt *const *s,
		       unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!exec_stmt(m, s[i]))
			return false;
	return true;
}

/* mon_calls_match()'s rule (any, or listed), kept here so the replay does
 * not depend on the resolver. */
static bool mon_eval_match(const struct mon_calls *c, int helper, int kfunc)
{
	unsigned i;

	if (c->any)
		return true;
	for (i = 0; helper >= 0 && i < c->nhelpers; i++)
		if (c->helpers[i] == helper)
			return true;
	for (i = 0; kfunc >= 0 && i < c->nkfuncs; i++)
		if (c->kfuncs[i] == kfunc)
			return true;
	return false;
}

/* the handlers of event EV (matching the call for CALL / RETURN) */
static bool handlers(struct mon_eval *m, enum spec_event_kind ev, int helper,
		     int kfunc)
{
	const struct mon_check *c = m->c;
	unsigned i;

	m->ev = ev;
	m->failed = MON_FAIL_NONE;
	for (i = 0; i < c->nhandlers; i++) {
		const struct mon_handler *h = &c->handlers[i];

		if (h->ev != ev)
			continue;
		if ((ev == SPEC_EV_CALL || ev == SPEC_EV_RETURN) &&
		    !mon_eval_match(&h->calls, helper, kfunc))
			continue;
		if (!exec_stmts(m, h->body, h->n))
			return false;
	}
	return true;
}

bool mon_eval_entry(struct mon_eval *m)
{
	const struct mon_check *c = m->c;
	unsigned i;

	m->ev = SPEC_EV_ENTRY;
	m->failed = MON_FAIL_NONE;
	m->ret = 0;
	m->insns = 0;
	memset(m->args, 0, sizeof(m->args));
	for (i = 0; i < c->ncounters; i++)
		m->counters[i] = 0;
	for (i = 0; i < c->nvars; i++)
		m->vars[i] = 0;
	for (i = 0; i < c->nvars; i++)
		if (c->vars[i].init)
			m->vars[i] = store_var(&c->vars[i],
					       mon_eval_expr(m, c->vars[i].init));
	for (i = 0; i < c->nassumes; i++)
		if (!mon_eval_expr(m, c->assumes[i]))
			return fails(m, MON_FAIL_ASSUME, 0, c->assumes[i]->pos);
	return handlers(m, SPEC_EV_ENTRY, -1, -1);
}

bool mon_eval_call(struct mon_eval *m, enum spec_event_kind ev, int helper,
		   int kfunc)
{
	const struct mon_check *c = m->c;
	unsigned i;

	if (ev == SPEC_EV_CALL)
		for (i = 0; i < c->ncounters; i++)
			if (mon_eval_match(&c->counters[i].calls, helper, kfunc))
				m->counters[i]++;
	return handlers(m, ev, helper, kfunc);
}

bool mon_eval_exit(struct mon_eval *m)
{
	const struct mon_check *c = m->c;

	if (!handlers(m, SPEC_EV_EXIT, -1, -1))
		return false;
	if (c->has_bound && m->insns > c->bound)
		return fails(m, MON_FAIL_ASSERT, c->bound_site, c->pos);
	return true;
}

/* ---- one walk for several checks (monitor.h) ------------------------- */

static bool ret_only_expr(const struct mon_expr *e)
{
	unsigned i;

	switch (e->kind) {
	case MON_NUM: case MON_RET: case MON_UNARY: case MON_BINARY: case MON_COND:
	case MON_CAST: case MON_IN_SET: case MON_IN_RANGE:
		for (i = 0; i < e->n; i++)
			if (!ret_only_expr(e->a[i]))
				return false;
		return true;
	case MON_ARG: case MON_PKT: case MON_PKT_END: case MON_PKT_LEN: case MON_PKT_WRITTEN:
	case MON_CTX: case MON_GLOBAL: case MON_STATE: case MON_INSNS: case MON_CALLED:
	case MON_LOAD:
		break;
	}
	return false;
}

bool mon_ret_only(const struct mon_check *c)
{
	unsigned i, j;

	if (c->relation || c->unknown || c->has_bound || c->nvars || c->ncounters ||
	    !c->nhandlers)
		return false;
	for (i = 0; i < c->nhandlers; i++) {
		const struct mon_handler *h = &c->handlers[i];

		if (h->ev != SPEC_EV_EXIT)
			return false;
		for (j = 0; j < h->n; j++)
			if (h->body[j]->kind != MON_S_ASSERT || !ret_only_expr(h->body[j]->e))
				return false;
	}
	return true;
}

static bool stmts_assume(struct mon_stmt *const *s, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (s[i]->kind == MON_S_ASSUME ||
		    (s[i]->kind == MON_S_IF && (stmts_assume(s[i]->then, s[i]->nthen) ||
						stmts_assume(s[i]->els, s[i]->nels))))
			return true;
	return false;
}

bool mon_restricts_none(const struct mon_check *c)
{
	unsigned i;

	if (c->relation || c->unknown)
		return false;
	for (i = 0; i < c->nhandlers; i++)
		if (stmts_assume(c->handlers[i].body, c->handlers[i].n))
			return false;
	return true;
}

static bool same_expr(const struct mon_expr *x, const struct mon_expr *y)
{
	unsigned i;

	if (x == y)
		return true;
	if (x->kind != y->kind || x->num != y->num || x->index != y->index ||
	    x->datasec != y->datasec || x->off != y->off || x->size != y->size ||
	    x->be != y->be || x->op != y->op || x->type != y->type || x->sign != y->sign ||
	    x->is_bool != y->is_bool || x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (!same_expr(x->a[i], y->a[i]))
			return false;
	return true;
}

bool mon_same_assumes(const struct mon_check *a, const struct mon_check *b)
{
	unsigned i;

	if (a->func != b->func || a->nassumes != b->nassumes)
		return false;
	for (i = 0; i < a->nassumes; i++)
		if (!same_expr(a->assumes[i], b->assumes[i]))
			return false;
	return true;
}

bool mon_ret_holds(const struct mon_check *c, uint64_t ret)
{
	struct mon_eval m = { .c = c, .ret = ret };

	return mon_eval_exit(&m);
}
