/* instrument.c - monitors into the SSA IR (contract in instrument.h). */
#include "instrument.h"
#include "stats.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CTXF 64

struct inst {
	const struct mon_check *c;
	struct ssa_lift *l;
	/* the event being instrumented */
	const uint32_t *args;     /* r1..r5 at the call */
	uint32_t r0;
	/* entry values */
	uint32_t pkt, pkt_end;
	uint32_t ctxf_val[MAX_CTXF];
	uint32_t ctxf_off[MAX_CTXF], ctxf_size[MAX_CTXF];
	unsigned nctxf;
	const char **ghost_names;
	enum bpf_prog_type prog_type;
	uint64_t ns;              /* time in the hooks (stats.h) */
};

bool instrument_pkt_fields(enum bpf_prog_type t, uint32_t *data, uint32_t *data_end,
			   uint32_t *data_meta)
{
	if (!mon_prog_has_pkt(t))
		return false;
	if (t == BPF_PROG_TYPE_XDP) {
		*data = offsetof(struct xdp_md, data);
		*data_end = offsetof(struct xdp_md, data_end);
		*data_meta = offsetof(struct xdp_md, data_meta);
	} else {        /* the others have a struct __sk_buff */
		*data = offsetof(struct __sk_buff, data);
		*data_end = offsetof(struct __sk_buff, data_end);
		*data_meta = offsetof(struct __sk_buff, data_meta);
	}
	return true;
}

static uint32_t k(struct inst *x, uint64_t c)
{
	return ssa_emit_const(x->l, c);
}

static uint32_t ne0(struct inst *x, uint32_t v)
{
	return ssa_emit_cmp(x->l, ISA_JNE, v, k(x, 0));
}

static uint32_t eq0(struct inst *x, uint32_t v)
{
	return ssa_emit_cmp(x->l, ISA_JEQ, v, k(x, 0));
}

/* V truncated to WIDTH bytes, sign-extended if SIGN (the 64-bit form of a
 * value of that type). */
static uint32_t trunc_to(struct inst *x, uint32_t v, unsigned width, bool sign)
{
	if (width >= 8)
		return v;
	if (sign)
		return ssa_emit_unary(x->l, ISA_MOVSX, width, v);
	return ssa_emit_alu(x->l, ISA_AND, v, k(x, (1ull << (8 * width)) - 1));
}

static unsigned type_width(enum spec_type t)
{
	switch (t) {
	case SPEC_TY_BOOL: case SPEC_TY_U8: case SPEC_TY_S8: return 1;
	case SPEC_TY_U16: case SPEC_TY_S16: return 2;
	case SPEC_TY_U32: case SPEC_TY_S32: return 4;
	case SPEC_TY_U64: case SPEC_TY_S64: return 8;
	}
	return 8;
}

static bool type_signed(enum spec_type t)
{
	return t == SPEC_TY_S8 || t == SPEC_TY_S16 || t == SPEC_TY_S32 || t == SPEC_TY_S64;
}

static uint32_t ctx_field(struct inst *x, uint32_t off, uint32_t size)
{
	unsigned i;

	for (i = 0; i < x->nctxf; i++)
		if (x->ctxf_off[i] == off && x->ctxf_size[i] == size)
			return x->ctxf_val[i];
	abort(); /* every field was loaded at entry (collect_ctx) */
}

static uint32_t ev(struct inst *x, const struct mon_expr *e);

static uint32_t binary(struct inst *x, const struct mon_expr *e)
{
	struct ssa_lift *l = x->l;
	uint32_t a = ev(x, e->a[0]), b = ev(x, e->a[1]);

	switch ((enum spec_binop)e->op) {
	case SPEC_BIN_MUL: return ssa_emit_alu(l, ISA_MUL, a, b);
	case SPEC_BIN_DIV: return ssa_emit_alu(l, e->sign ? ISA_SDIV : ISA_DIV, a, b);
	case SPEC_BIN_MOD: return ssa_emit_alu(l, e->sign ? ISA_SMOD : ISA_MOD, a, b);
	case SPEC_BIN_ADD: return ssa_emit_alu(l, ISA_ADD, a, b);
	case SPEC_BIN_SUB: return ssa_emit_alu(l, ISA_SUB, a, b);
	case SPEC_BIN_SHL: return ssa_emit_alu(l, ISA_LSH, a, b);
	case SPEC_BIN_SHR: return ssa_emit_alu(l, e->sign ? ISA_ARSH : ISA_RSH, a, b);
	case SPEC_BIN_LT: return ssa_emit_cmp(l, e->sign ? ISA_JSLT : ISA_JLT, a, b);
	case SPEC_BIN_LE: return ssa_emit_cmp(l, e->sign ? ISA_JSLE : ISA_JLE, a, b);
	case SPEC_BIN_GT: return ssa_emit_cmp(l, e->sign ? ISA_JSGT : ISA_JGT, a, b);
	case SPEC_BIN_GE: return ssa_emit_cmp(l, e->sign ? ISA_JSGE : ISA_JGE, a, b);
	case SPEC_BIN_EQ: return ssa_emit_cmp(l, ISA_JEQ, a, b);
	case SPEC_BIN_NE: return ssa_emit_cmp(l, ISA_JNE, a, b);
	case SPEC_BIN_BAND: return ssa_emit_alu(l, ISA_AND, a, b);
	case SPEC_BIN_BXOR: return ssa_emit_alu(l, ISA_XOR, a, b);
	case SPEC_BIN_BOR: return ssa_emit_alu(l, ISA_OR, a, b);
	case SPEC_BIN_LAND: return ssa_emit_alu(l, ISA_AND, ne0(x, a), ne0(x, b));
	case SPEC_BIN_LOR: return ssa_emit_alu(l, ISA_OR, ne0(x, a), ne0(x, b));
	case SPEC_BIN_IMPLIES: return ssa_emit_alu(l, ISA_OR, eq0(x, a), ne0(x, b));
	}
	abort();
}

static uint32_t in_set(struct inst *x, const struct mon_expr *e)
{
	uint32_t v = ev(x, e->a[0]), r = k(x, 0);
	unsigned i;

	for (i = 1; i < e->n; i++)
		r = ssa_emit_alu(x->l, ISA_OR, r, ssa_emit_cmp(x->l, ISA_JEQ, v, ev(x, e->a[i])));
	return r;
}

static uint32_t in_range(struct inst *x, const struct mon_expr *e)
{
	uint32_t v = ev(x, e->a[0]), lo = ev(x, e->a[1]), hi = ev(x, e->a[2]);

	return ssa_emit_alu(x->l, ISA_AND,
			    ssa_emit_cmp(x->l, e->sign ? ISA_JSGE : ISA_JGE, v, lo),
			    ssa_emit_cmp(x->l, e->sign ? ISA_JSLE : ISA_JLE, v, hi));
}

static uint32_t load(struct inst *x, const struct mon_expr *e)
{
	uint32_t p = ev(x, e->a[0]), v = ssa_emit_load(x->l, p, e->size);

	if (e->be && e->size > 1)
		v = ssa_emit_unary(x->l, ISA_BE, e->size, v);
	return v;
}

static uint32_t cast(struct inst *x, const struct mon_expr *e)
{
	uint32_t v = ev(x, e->a[0]);

	if (e->type == SPEC_TY_BOOL)
		return ne0(x, v);
	return trunc_to(x, v, type_width(e->type), type_signed(e->type));
}

static uint32_t ev(struct inst *x, const struct mon_expr *e)
{
	const struct mon_check *c = x->c;
	struct ssa_lift *l = x->l;

	switch (e->kind) {
	case MON_NUM: return k(x, e->num);
	case MON_RET: return x->r0;
	case MON_ARG: return x->args ? x->args[e->index - 1] : 0;
	case MON_PKT: return x->pkt;
	case MON_PKT_END: return x->pkt_end;
	case MON_PKT_LEN: return ssa_emit_alu(l, ISA_SUB, x->pkt_end, x->pkt);
	case MON_PKT_WRITTEN: return ssa_emit_pkt_written(l);
	case MON_CTX: return ctx_field(x, e->off, e->size);
	case MON_GLOBAL:
		return ssa_emit_load(l, ssa_emit_global_addr(l, e->datasec, e->off), e->size);
	case MON_STATE: return ssa_ghost(l, (unsigned)e->index);
	case MON_INSNS: return ssa_emit_insns(l);
	case MON_CALLED: return ssa_ghost(l, c->nvars + (unsigned)e->index);
	case MON_LOAD: return load(x, e);
	case MON_UNARY:
		switch ((enum spec_unop)e->op) {
		case SPEC_UN_NEG: return ssa_emit_alu(l, ISA_SUB, k(x, 0), ev(x, e->a[0]));
		case SPEC_UN_LNOT: return eq0(x, ev(x, e->a[0]));
		case SPEC_UN_BNOT: return ssa_emit_alu(l, ISA_XOR, ev(x, e->a[0]), k(x, ~0ull));
		}
		abort();
	case MON_BINARY: return binary(x, e);
	case MON_COND:
		return ssa_emit_select(l, ev(x, e->a[0]), ev(x, e->a[1]), ev(x, e->a[2]));
	case MON_CAST: return cast(x, e);
	case MON_IN_SET: return in_set(x, e);
	case MON_IN_RANGE: return in_range(x, e);
	}
	abort();
}

/* ---- statements -------------------------------------------------------- */

static uint32_t under(struct inst *x, uint32_t pc, uint32_t cond)
{
	if (!pc)
		return cond;
	return ssa_emit_alu(x->l, ISA_OR, eq0(x, pc), ne0(x, cond));
}

static void run(struct inst *x, struct mon_stmt *const *body, unsigned n, uint32_t pc);

static void stmt(struct inst *x, const struct mon_stmt *s, uint32_t pc)
{
	const struct mon_var *var;
	uint32_t v, c;

	switch (s->kind) {
	case MON_S_ASSERT:
		ssa_emit_assert(x->l, under(x, pc, ev(x, s->e)), s->site, 0);
		break;
	case MON_S_ASSUME:
		ssa_emit_assume(x->l, under(x, pc, ev(x, s->e)));
		break;
	case MON_S_ASSIGN:
		var = &x->c->vars[s->var];
		v = ev(x, s->e);
		v = var->type == SPEC_TY_BOOL ? ne0(x, v) : trunc_to(x, v, var->width, var->sign);
		if (pc)
			v = ssa_emit_select(x->l, pc, v, ssa_ghost(x->l, (unsigned)s->var));
		ssa_set_ghost(x->l, (unsigned)s->var, v);
		break;
	case MON_S_IF:
		c = ne0(x, ev(x, s->e));
		run(x, s->then, s->nthen, pc ? ssa_emit_alu(x->l, ISA_AND, pc, c) : c);
		if (s->nels) {
			c = eq0(x, c);
			run(x, s->els, s->nels, pc ? ssa_emit_alu(x->l, ISA_AND, pc, c) : c);
		}
		break;
	}
}

static void run(struct inst *x, struct mon_stmt *const *body, unsigned n, uint32_t pc)
{
	unsigned i;

	for (i = 0; i < n; i++)
		stmt(x, body[i], pc);
}

static void handlers(struct inst *x, enum spec_event_kind ev_kind, int helper, int kfunc)
{
	const struct mon_check *c = x->c;
	unsigned i;

	for (i = 0; i < c->nhandlers; i++) {
		const struct mon_handler *h = &c->handlers[i];

		if (h->ev != ev_kind)
			continue;
		if ((ev_kind == SPEC_EV_CALL || ev_kind == SPEC_EV_RETURN) &&
		    !mon_calls_match(&h->calls, helper, kfunc))
			continue;
		run(x, h->body, h->n, 0);
	}
}

/* ---- hooks ------------------------------------------------------------- */

static void collect_ctx(struct inst *x, const struct mon_expr *e)
{
	unsigned i;

	if (!e)
		return;
	if (e->kind == MON_CTX) {
		for (i = 0; i < x->nctxf; i++)
			if (x->ctxf_off[i] == e->off && x->ctxf_size[i] == e->size)
				return;
		if (x->nctxf == MAX_CTXF)
			abort();
		x->ctxf_off[x->nctxf] = e->off;
		x->ctxf_size[x->nctxf++] = e->size;
	}
	for (i = 0; i < e->n; i++)
		collect_ctx(x, e->a[i]);
}

static void collect_stmts(struct inst *x, struct mon_stmt *const *b, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		collect_ctx(x, b[i]->e);
		collect_stmts(x, b[i]->then, b[i]->nthen);
		collect_stmts(x, b[i]->els, b[i]->nels);
	}
}

static void on_entry_event(void *arg, struct ssa_lift *l)
{
	struct inst *x = arg;
	const struct mon_check *c = x->c;
	uint32_t ctx = ssa_reg(l, 1), off_data, off_end, off_meta, v;
	unsigned i;

	x->l = l;
	x->args = NULL;
	x->r0 = 0;
	for (i = 0; i < x->nctxf; i++)
		x->ctxf_val[i] = ssa_emit_load(l, ssa_emit_alu(l, ISA_ADD, ctx, k(x, x->ctxf_off[i])),
					       x->ctxf_size[i]);
	if (instrument_pkt_fields(x->prog_type, &off_data, &off_end, &off_meta)) {
		x->pkt = ssa_emit_load(l, ssa_emit_alu(l, ISA_ADD, ctx, k(x, off_data)), 4);
		x->pkt_end = ssa_emit_load(l, ssa_emit_alu(l, ISA_ADD, ctx, k(x, off_end)), 4);
	}
	for (i = 0; i < c->nvars; i++) {
		const struct mon_var *var = &c->vars[i];

		v = var->init ? ev(x, var->init) : k(x, 0);
		v = var->type == SPEC_TY_BOOL ? ne0(x, v) : trunc_to(x, v, var->width, var->sign);
		ssa_set_ghost(l, i, v);
	}
	for (i = 0; i < c->nassumes; i++)
		ssa_emit_assume(l, ev(x, c->assumes[i]));
	handlers(x, SPEC_EV_ENTRY, -1, -1);
}

static void call_target(const struct insn *in, int *helper, int *kfunc)
{
	*helper = -1;
	*kfunc = -1;
	if (in->ref.kind == INSN_REF_HELPER)
		*helper = (int)in->imm;
	else if (in->ref.kind == INSN_REF_KFUNC)
		*kfunc = in->ref.index;
}

static void on_call_event(void *arg, struct ssa_lift *l, const struct insn *in,
		    const uint32_t args[5], uint32_t r0, bool after)
{
	struct inst *x = arg;
	const struct mon_check *c = x->c;
	int helper, kfunc;
	unsigned i;

	x->l = l;
	x->args = args;
	x->r0 = r0;
	call_target(in, &helper, &kfunc);
	if (!after) {
		for (i = 0; i < c->ncounters; i++) {
			unsigned g = c->nvars + i;

			if (mon_calls_match(&c->counters[i].calls, helper, kfunc))
				ssa_set_ghost(l, g, ssa_emit_alu(l, ISA_ADD, ssa_ghost(l, g), k(x, 1)));
		}
	}
	handlers(x, after ? SPEC_EV_RETURN : SPEC_EV_CALL, helper, kfunc);
	x->args = NULL;
}

static void on_exit_event(void *arg, struct ssa_lift *l, uint32_t r0)
{
	struct inst *x = arg;
	const struct mon_check *c = x->c;
	uint32_t n;

	x->l = l;
	x->args = NULL;
	x->r0 = r0;
	handlers(x, SPEC_EV_EXIT, -1, -1);
	if (c->has_bound) {
		n = ssa_emit_insns(l);
		ssa_emit_assert(l, ssa_emit_cmp(l, ISA_JLE, n, k(x, c->bound)), c->bound_site, n);
	}
}

/* ---- checks whose hooks place nothing ---------------------------------- */

static bool reads_ctx(const struct mon_expr *e)
{
	unsigned i;

	if (!e)
		return false;
	if (e->kind == MON_CTX)
		return true;
	for (i = 0; i < e->n; i++)
		if (reads_ctx(e->a[i]))
			return true;
	return false;
}

/* Does a statement of B read a ctx field (collect_stmts: loaded at entry)? */
static bool stmts_read_ctx(struct mon_stmt *const *b, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (reads_ctx(b[i]->e) || stmts_read_ctx(b[i]->then, b[i]->nthen) ||
		    stmts_read_ctx(b[i]->els, b[i]->nels))
			return true;
	return false;
}

/* Would a handler of C run at call instruction IN (on_call_event)? A
 * callx's target is a register's value: any call. */
static bool call_hooked(const struct mon_check *c, const struct insn *in)
{
	int helper, kfunc;
	unsigned i;

	if (isa_table[in->op].kind == ISA_K_CALLX)
		return true;
	if (in->ref.kind != INSN_REF_HELPER && in->ref.kind != INSN_REF_KFUNC)
		return false;   /* a subprogram's call (no event), or no target (no match) */
	call_target(in, &helper, &kfunc);
	for (i = 0; i < c->nhandlers; i++)
		if (mon_calls_match(&c->handlers[i].calls, helper, kfunc))
			return true;
	return false;
}

bool instrument_inert(const struct loaded *l, const struct mon_check *c)
{
	const struct object *o = l->o;
	unsigned i;
	uint32_t sec;

	if (c->nvars || c->ncounters || c->nassumes || c->has_bound || c->uses_insns ||
	    c->relation || c->unknown)
		return false;
	for (i = 0; i < c->nhandlers; i++) {
		const struct mon_handler *h = &c->handlers[i];

		if ((h->ev != SPEC_EV_CALL && h->ev != SPEC_EV_RETURN) || h->calls.any ||
		    stmts_read_ctx(h->body, h->n))
			return false;
	}
	for (sec = 0; sec < o->nsections; sec++) {
		const struct insn *in = l->insns[sec], *end = in + o->sections[sec].nslots;

		/* the only operations of kind CALL and CALLX (a wide
		 * instruction's second slot is ISA_NOPS): no table lookup a
		 * slot, a scan per check */
		for (; in < end; in++)
			if ((in->op == ISA_CALL || in->op == ISA_CALLX) && call_hooked(c, in))
				return false;
	}
	return true;
}

/* The hooks as the lift calls them: timed (stats.h). */
static void timed_entry(void *arg, struct ssa_lift *l)
{
	uint64_t t0 = stats_now();

	on_entry_event(arg, l);
	((struct inst *)arg)->ns += stats_now() - t0;
}

/* Does a counter (before the call) or a handler of C run at call IN? (No:
 * on_call_event would place nothing; most calls of most checks.) */
static bool call_runs(const struct mon_check *c, const struct insn *in, bool after)
{
	enum spec_event_kind ev = after ? SPEC_EV_RETURN : SPEC_EV_CALL;
	int helper, kfunc;
	unsigned i;

	call_target(in, &helper, &kfunc);
	for (i = 0; !after && i < c->ncounters; i++)
		if (mon_calls_match(&c->counters[i].calls, helper, kfunc))
			return true;
	for (i = 0; i < c->nhandlers; i++)
		if (c->handlers[i].ev == ev && mon_calls_match(&c->handlers[i].calls, helper, kfunc))
			return true;
	return false;
}

static void timed_call(void *arg, struct ssa_lift *l, const struct insn *in,
		       const uint32_t args[5], uint32_t r0, bool after)
{
	uint64_t t0;

	if (!call_runs(((struct inst *)arg)->c, in, after))
		return;              /* nothing to place, nothing to time */
	t0 = stats_now();

	on_call_event(arg, l, in, args, r0, after);
	((struct inst *)arg)->ns += stats_now() - t0;
}

static void timed_exit(void *arg, struct ssa_lift *l, uint32_t r0)
{
	uint64_t t0 = stats_now();

	on_exit_event(arg, l, r0);
	((struct inst *)arg)->ns += stats_now() - t0;
}

int instrument_lift(const struct loaded *ld, const struct mon_check *c,
		    const struct ssa_opts *opts, struct arena *a, struct diag *d,
		    struct ssa_prog **out)
{
	struct inst *x = arena_alloc(a, sizeof(*x));
	struct ssa_hooks *h = arena_alloc(a, sizeof(*h));
	struct ssa_opts o = *opts;
	unsigned i, n = c->nvars + c->ncounters;
	int err;

	if (n > SSA_MAX_GHOST) {
		return diag_fail(d, c->file, "%s: %u state variables and counters (at most %u)",
				 c->name, n, SSA_MAX_GHOST);
	}
	x->c = c;
	x->prog_type = ld->o->funcs[c->func].prog_type;
	x->ghost_names = arena_new_array(a, const char *, n + 1);
	for (i = 0; i < c->nvars; i++)
		x->ghost_names[i] = arena_cat3(a, "state ", c->vars[i].name, "");
	for (i = 0; i < c->ncounters; i++)
		x->ghost_names[c->nvars + i] = arena_cat3(a, "called(", c->counters[i].name, ")");
	for (i = 0; i < c->nvars; i++)
		collect_ctx(x, c->vars[i].init);
	for (i = 0; i < c->nassumes; i++)
		collect_ctx(x, c->assumes[i]);
	for (i = 0; i < c->nhandlers; i++)
		collect_stmts(x, c->handlers[i].body, c->handlers[i].n);
	h->arg = x;
	h->nghost = n;
	h->ghost_names = x->ghost_names;
	h->count_insns = c->uses_insns;
	h->entry = timed_entry;
	h->call = timed_call;
	h->exit = timed_exit;
	o.hooks = h;
	o.cache = ld->lifts;
	err = ssa_build(ld->o, c->func, ld->insns, &o, a, d, out);
	if (!err)
		(*out)->ns_hooks = x->ns;
	return err;
}
