/* absint.c - the pre-pass's walk over the DAG's paths (contract: absint.h).
 *
 * Depth first, with an explicit stack of (block, next successor, trail
 * mark). Every value is defined once on a path (the IR is a DAG in SSA), so
 * a block's definitions simply overwrite the environment; refinements of
 * values defined earlier (at BRANCH edges and ASSUMEs) go through a trail
 * and are undone when the walk backs out of the block. UNDEF is 0 in the
 * encoder and the interpreter; here it is "any value", never refined: an
 * over-approximation of 0, so what the pass proves still holds.
 */
#include "absint_priv.h"
#include "isa.h"
#include "models.h"
#include "replay.h"
#include "smt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SELECT ID whose condition the path decides now (its operands computed
 * again from what the path has learnt since it was defined: a lookup's
 * result tested after the handler that selected on it): the operand it
 * selects; 0: undecided, or not a select. */
uint32_t absint_select_now(struct walk *w, uint32_t id)
{
	const struct ssa_insn *v = w->p->values[id];
	struct absint_val a, b;
	bool empty = w->empty;
	int k;

	if (v->kind != SSA_SELECT || v->nargs < 4 || !w->def[id])
		return 0;
	absint_reeval_begin(w);
	a = absint_reeval(w, v->args[0], 16);
	b = absint_reeval(w, v->args[1], 16);
	w->empty = empty;     /* what an enclosing evaluation found */
	a = absint_extract(&a, 0, v->size, false);
	b = absint_extract(&b, 0, v->size, false);
	k = absint_cond(ISA_JEQ, true, &a, &b);
	return k < 0 ? 0 : v->args[k ? 2 : 3];
}

/* What value ID is on this path: through phis (their operand on it) and
 * selects it decides now (absint_select_now); a representative. */
uint32_t absint_resolve(struct walk *w, uint32_t id)
{
	unsigned n;
	uint32_t s;

	for (n = 0; n < 8; n++) {
		const struct ssa_insn *v;

		id = find(w, id);
		v = w->p->values[id];
		if (v->kind == SSA_PHI && w->def[id] && w->phi_arg[id])
			id = w->phi_arg[id];
		else if ((s = absint_select_now(w, id)) != 0)
			id = s;
		else
			break;
	}
	return find(w, id);
}

/* A helper's or kfunc's result as its model (models.h) bounds it for the
 * encoder (smt_mem.c: model_ret); bare code: any value. */
static struct absint_val call_val(const struct walk *w, const struct ssa_insn *v,
				  const struct absint_val *args)
{
	const struct ssa_prog *p = w->p;
	const struct helper_model *m = NULL;
	const struct kfunc_model *km;
	struct helper_model hm;
	struct absint_val r = absint_top(), x, y;

	if (!p->o || p->bare)
		return r;
	if (v->ref->kind == INSN_REF_HELPER) {
		m = model_helper((int)v->imm);
	} else if (v->ref->kind == INSN_REF_KFUNC) {
		km = model_kfunc(p->o->kfuncs[v->ref->index].name);
		if (km) {
			hm = (struct helper_model){ .ret = km->ret, .lo = km->lo, .hi = km->hi,
						    .sign = km->sign };
			m = &hm;
		}
	}
	if (!m)
		return r;
	switch (m->ret) {
	case MODEL_RET_RANGE:
		if (m->sign) {
			r.smin = m->lo;
			r.smax = m->hi;
		} else {
			r.umin = (uint64_t)m->lo;
			r.umax = (uint64_t)m->hi;
		}
		break;
	case MODEL_RET_ERRNO:
	case MODEL_RET_SKB_LOAD:        /* 0 or -EFAULT: within the errno range */
		r.smin = -4095;
		r.smax = 0;
		break;
	case MODEL_RET_REDIRECT_MAP:
		/* flags outside 0x1b: XDP_ABORTED; else XDP_REDIRECT or flags & 3 */
		x = absint_const(4);
		y = absint_const(3);
		y = absint_alu(ISA_AND, true, &args[2], &y);
		x = absint_join(&x, &y);
		if (!((args[2].tv | args[2].tm) & ~0x1bull))
			return x;
		y = absint_const(0);
		return (args[2].tv & ~0x1bull) ? y : absint_join(&x, &y);
	case MODEL_RET_REDIRECT:
		if (p->o->funcs[p->func].prog_type == BPF_PROG_TYPE_XDP) {
			x = absint_const(0);
			y = absint_const(4);
		} else {
			x = absint_const(2);
			y = absint_const(7);
		}
		return absint_join(&x, &y);
	case MODEL_RET_ANY: case MODEL_RET_VOID: case MODEL_RET_MAP_VALUE:
	case MODEL_RET_RINGBUF: case MODEL_RET_KPTR:
		return r;
	}
	if (!absint_sync(&r))
		return absint_top();
	return r;
}

/* V (value *VAL) is U << shl_by[V] when shl_of[V] is U (absint_shifted):
 * met with that, U's value UV (any value when U is not on the path). */
static void shifted(const struct walk *w, uint32_t id, struct absint_val *val,
		    struct absint_val uv)
{
	struct absint_val k, t;

	if (!w->shl_of[id])
		return;
	k = absint_const(w->shl_by[id]);
	t = absint_alu(ISA_LSH, true, &uv, &k);
	if (!absint_meet(val, &t))
		*val = t;     /* cannot be: both hold of the one value */
}

/* ID's abstract value now: while re-evaluating (reeval), what that
 * evaluation gave it, else its value. */
static struct absint_val cur(const struct walk *w, uint32_t id)
{
	id = find(w, id);
	if (w->in_reeval && w->stamp[id] == w->now)
		return w->memo[id];
	return get(w, id);
}

/* The value ID stands for: through SELECTs whose condition is decided
 * (by the operands' values, or one value compared with itself: the
 * operand selected), its representative. */
static uint32_t __attribute__((noinline)) chosen_select(const struct walk *w, uint32_t id)
{
	unsigned n;

	for (n = 0; n < 8; n++) {
		const struct ssa_insn *v = w->p->values[find(w, id)];
		struct absint_val x, y;
		int c;

		id = find(w, id);
		if (v->kind != SSA_SELECT)
			break;
		x = cur(w, v->args[0]);
		y = cur(w, v->args[1]);
		x = absint_extract(&x, 0, v->size, false);
		y = absint_extract(&y, 0, v->size, false);
		c = absint_cond(ISA_JEQ, true, &x, &y);
		if (c < 0 && v->args[0] && find(w, v->args[0]) == find(w, v->args[1]))
			c = 1;
		if (c < 0 || !v->args[c ? 2 : 3])
			break;
		id = v->args[c ? 2 : 3];
	}
	return id;
}

/* chosen: most values asked are no SELECT (the loop's frame is costlier
 * than the test) */
static inline uint32_t chosen(const struct walk *w, uint32_t id)
{
	id = find(w, id);
	return w->p->values[id]->kind != SSA_SELECT ? id : chosen_select(w, id);
}

/* An ADDR as the encoder makes it (smt_mem.c mem_addr): in a program of
 * an object, a map's handle (the replay's), a map value's or a global's
 * address are constants; anything else is any value. */
static struct absint_val addr_val(const struct ssa_prog *p, const struct ssa_insn *v)
{
	const struct object *o = p->o;

	if (!o || p->bare || v->ref->index < 0)
		return absint_top();
	switch (v->ref->kind) {
	case INSN_REF_MAP:
		return absint_const(REPLAY_MAP_HANDLE(v->ref->index));
	case INSN_REF_MAP_VALUE:
		return absint_const(SMT_MAP_BASE(v->ref->index) + (uint64_t)v->ref->off);
	case INSN_REF_GLOBAL:
		if ((unsigned)v->ref->index >= o->ndatasecs)
			break;
		return absint_const(SMT_MAP_BASE(o->datasecs[v->ref->index].map) +
				    (uint64_t)v->ref->off);
	case INSN_REF_NONE: case INSN_REF_HELPER: case INSN_REF_SUBPROG: case INSN_REF_KFUNC:
	case INSN_REF_CALLBACK: case INSN_REF_KSYM:
		break;
	}
	return absint_top();
}

/* The last evaluation of an ALU, UNARY, EXTRACT or INSERT value: its
 * operands' values and its result. Those are functions of the operands'
 * values alone (absint_dom.c), and a block runs again on every path
 * through it, mostly with the same operands (loop_sum's 459 paths,
 * xdp_lb's hash of values nothing refines). */
struct op_memo {
	struct absint_val in[2], out;
};

/* The number of operands V's evaluation reads when it is one op_eval
 * remembers, else 0. */
static unsigned op_inputs(const struct ssa_insn *v)
{
	/* by kind, without a branch (asked of every value evaluated) */
	static const uint8_t by_kind[SSA_NKINDS] = {
		[SSA_ALU] = 2, [SSA_INSERT] = 2, [SSA_UNARY] = 1, [SSA_EXTRACT] = 1
	};
	unsigned n = by_kind[v->kind];

	return v->nargs >= n ? n : 0;
}

/* ALU, UNARY, EXTRACT or INSERT V from its operands A and B (B: ALU
 * and INSERT only). */
static struct absint_val op_compute(const struct ssa_insn *v, const struct absint_val *a,
				    const struct absint_val *b)
{
	if (v->kind == SSA_ALU)
		return absint_alu(v->op, v->is64, a, b);
	if (v->kind == SSA_UNARY)
		return absint_unary(v->op, v->is64, v->size, a);
	if (v->kind == SSA_EXTRACT)
		return absint_extract(a, (unsigned)v->imm, v->size, v->sx);
	return absint_insert(a, b, (unsigned)v->imm, v->size);
}

/* V (N = op_inputs operands: A, and B when N is 2) from its operands'
 * values: the last result when they are the values it had (an entry
 * made on its first evaluation in the walk). A and B may point into the
 * environment (run_block's operands, read in place: not copied).
 * Inline in both callers (eval, eval_with), which GCC did not do by
 * itself: a call a value run, and its operands' pointers spilled. */
__attribute__((always_inline))
static inline struct absint_val op_eval(struct walk *w, const struct ssa_insn *v,
					const struct absint_val *a, const struct absint_val *b,
					unsigned n)
{
	uint32_t *slot = &w->op_slot[v->id];
	struct op_memo *m;

	if (*slot) {
		m = &w->ops[*slot - 1];
		if (same_val(&m->in[0], a) && (n < 2 || same_val(&m->in[1], b)))
			return m->out;
	} else {
		if (w->nops == w->capops)   /* cannot be: an entry per value run */
			return op_compute(v, a, b);
		*slot = (uint32_t)++w->nops;
		m = &w->ops[*slot - 1];
	}
	m->in[0] = *a;
	if (n == 2)
		m->in[1] = *b;
	m->out = op_compute(v, a, b);
	return m->out;
}

/* The abstract value of V (not a phi, assume or assert) from the values of
 * its operands ARGS (the first four). */
static struct absint_val eval_with(struct walk *w, const struct ssa_insn *v,
				   const struct absint_val *args)
{
	struct absint_val x, y;
	unsigned n;
	int c;

	if ((n = op_inputs(v)) != 0)
		return op_eval(w, v, &args[0], &args[1], n);
	switch (v->kind) {
	case SSA_CONST:
		return absint_const((uint64_t)v->imm);
	case SSA_ALU: case SSA_UNARY: case SSA_EXTRACT: case SSA_INSERT:
		return op_compute(v, &args[0], &args[1]);   /* an operand missing: not remembered */
	case SSA_LOAD:
		return absint_eval_load(w, v);
	case SSA_ATOMIC:
		return absint_width(v->size * 8u, false);
	case SSA_SLOTLOAD:
		return absint_width(v->size * 8u, v->sx);
	case SSA_SELECT:
		x = absint_extract(&args[0], 0, v->size, false);
		y = absint_extract(&args[1], 0, v->size, false);
		c = absint_cond(ISA_JEQ, true, &x, &y);
		return c == 1 ? args[2] : c == 0 ? args[3] : absint_join(&args[2], &args[3]);
	case SSA_CMP:
		c = absint_cond(v->op, true, &args[0], &args[1]);
		if (c < 0)
			c = absint_fact_decide(w, v->op, true, v->args[0], v->args[1]);
		if (c < 0)
			c = absint_sum_decide(w, v->op, v->args[0], v->args[1]);
		if (c < 0 && v->args[0] && v->args[1] &&
		    chosen(w, v->args[0]) == chosen(w, v->args[1]))
			c = absint_reflexive(v->op);
		return c < 0 ? absint_width(1, false) : absint_const((uint64_t)c);
	case SSA_PKTW:
		/* the encoder's pktw (smt_mem.c): false at entry, true after a
		 * store whose region is the packet, or a call that havocs or
		 * moves it; so 0 while the path has neither (any call counts) */
		if (w->o->mem && !w->flat && !w->ncalls && !w->npktw)
			return absint_const(0);
		return absint_width(1, false);
	case SSA_CALL:
		return call_val(w, v, args);
	case SSA_ADDR:
		return addr_val(w->p, v);
	case SSA_UNDEF: case SSA_INPUT: case SSA_FRAME: case SSA_STORE:
	case SSA_LDPKT: case SSA_SLOTSTORE: case SSA_HAVOC: case SSA_TAILRET:
	case SSA_PHI: case SSA_ASSUME: case SSA_ASSERT: case SSA_NKINDS:
		break;
	}
	return absint_top();
}

/* get's value of ID, in place: valid until the environment changes */
static inline const struct absint_val *get_at(const struct walk *w, uint32_t id)
{
	static const struct absint_val top = { 0, UINT64_MAX, INT64_MIN, INT64_MAX, 0, UINT64_MAX };

	id = find(w, id);
	return !w->def[id] ? &top : &w->env[id];
}

/* V's value from its operands' (get); an op_eval remembers is given
 * them in place (most values run are those: each copy was six words an
 * operand). */
static struct absint_val eval(struct walk *w, const struct ssa_insn *v)
{
	struct absint_val args[4];
	unsigned n = op_inputs(v);
	uint32_t i;

	if (n)
		return op_eval(w, v, get_at(w, v->args[0]), n == 2 ? get_at(w, v->args[1]) : NULL, n);
	/* eval_with reads the operands of these kinds only (a store's, a
	 * load's, ... are not copied) */
	if (v->kind == SSA_SELECT || v->kind == SSA_CMP || v->kind == SSA_CALL)
		for (i = 0; i < v->nargs && i < 4; i++)
			args[i] = get(w, v->args[i]);
	return eval_with(w, v, args);
}

/* SELECT V (just defined, VAL) whose condition the path decides: the
 * same value as the operand it selects (chosen). */
static void select_alias(struct walk *w, const struct ssa_insn *v, const struct absint_val *val)
{
	uint32_t r = chosen(w, v->id);

	if (r != v->id)
		absint_alias(w, v->id, r, val);
}

/* absint_reeval of ID (DEPTH) where it is: the environment's, top, its
 * memo entry (valid until another evaluation writes it). REEVAL_RUNS:
 * that finds it by evaluating ID (absint_reeval_pure), which may begin a
 * new evaluation (absint_select_now) and write any memo entry. */
static inline bool reeval_runs(const struct walk *w, uint32_t id, unsigned depth)
{
	id = find(w, id);
	return depth != 0 && absint_pure(w->p->values[id]->kind) && w->def[id] &&
	       w->stamp[id] != w->now;
}

static inline const struct absint_val *reeval_at(struct walk *w, uint32_t id, unsigned depth)
{
	const struct ssa_insn *v;

	id = find(w, id);
	v = w->p->values[id];
	if (depth == 0 || !absint_pure(v->kind) || !w->def[id])
		return get_at(w, id);
	if (w->stamp[id] == w->now)
		return &w->memo[id];
	return absint_reeval_pure(w, id, v, depth);
}

/* ID computed again from its operands' values now (refined by the edges
 * and assumes since it was defined), met with its value: both hold of the
 * one value on this path. DEPTH bounds the operand chains followed. Its
 * memo entry, which holds it. An op_eval remembers reads its operands in
 * place (copies of six words each), the first one copied when the second
 * is evaluated (which may write the memo entry it is in). */
const struct absint_val *absint_reeval_pure(struct walk *w, uint32_t id,
					    const struct ssa_insn *v, unsigned depth)
{
	struct absint_val args[4], r;
	uint32_t i;
	unsigned n;

	w->r->steps++;
	if (v->kind == SSA_PHI) {
		r = absint_reeval(w, w->phi_arg[id], depth - 1);
	} else if ((n = op_inputs(v)) != 0 && v->nargs == n) {
		const struct absint_val *a = reeval_at(w, v->args[0], depth - 1), *b = NULL;

		if (n == 2) {
			if (reeval_runs(w, v->args[1], depth - 1)) {
				args[0] = *a;
				a = &args[0];
			}
			b = reeval_at(w, v->args[1], depth - 1);
		}
		r = op_eval(w, v, a, b, n);
		if (w->shl_of[id])
			shifted(w, id, &r, absint_reeval(w, w->shl_of[id], depth - 1));
	} else {
		for (i = 0; i < v->nargs && i < 4; i++)
			args[i] = absint_reeval(w, v->args[i], depth - 1);
		w->in_reeval++;
		r = eval_with(w, v, args);
		w->in_reeval--;
		if (w->shl_of[id])
			shifted(w, id, &r, absint_reeval(w, w->shl_of[id], depth - 1));
	}
	if (!absint_meet(&r, &w->env[id])) {
		r = w->env[id];   /* no run gets here: keep the plain value */
		w->empty = true;
	}
	if (w->stamp[id] == w->keep) {
		w->kept[w->nkept].id = id;
		w->kept[w->nkept++].memo = w->memo[id];
	}
	w->stamp[id] = w->now;
	w->memo[id] = r;
	return &w->memo[id];
}

/* A new evaluation: what reeval memoised before is forgotten. */
void absint_reeval_begin(struct walk *w)
{
	w->empty = false;
	if (++w->hi == NO_STAMP) {      /* wrapped: forget every stamp */
		memset(w->stamp, 0, sizeof(*w->stamp) * w->p->nvalues);
		w->hi = 1;
		w->lost = w->keep != NO_STAMP;
		w->keep = NO_STAMP;
	}
	w->now = w->hi;
}

struct absint_val absint_reeval_top(struct walk *w, uint32_t id)
{
	w->top_steps = w->r->steps;
	absint_reeval_begin(w);
	return absint_reeval(w, id, 48);
}

static void give_up(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void give_up(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	w->stop = true;
	w->r->verdict = ABSINT_UNKNOWN;
	va_start(ap, fmt);
	vsnprintf(w->r->reason, sizeof(w->r->reason), fmt, ap);
	va_end(ap);
}

/* The index of the edge FROM -> B that successor J of FROM is. */
static uint32_t edge_index(const struct ssa_prog *p, uint32_t from, unsigned j, uint32_t b)
{
	const struct ssa_block *f = p->blocks[from], *t = p->blocks[b];
	uint32_t i;

	for (i = 0; i < t->npreds; i++)
		if (t->preds[i] == from)
			break;
	if (j == 1 && f->nsucc == 2 && f->succ[0] == f->succ[1])
		i++;
	return i;
}

/* N more instructions evaluated; false: the budget ran out (the walk
 * stops). */
static bool spend(struct walk *w, uint64_t n)
{
	w->r->steps += n;
	if (w->r->steps <= w->o->budget)
		return true;
	give_up(w, "budget: more than %" PRIu64 " instructions on the paths walked",
		w->o->budget);
	return false;
}

/* Define V (not a phi, assume or assert), of value *C as eval found it,
 * on the path, and what each kind adds to it: one dispatch on the kind
 * (a test of each step's kinds cost each value run about 50
 * instructions). The steps of a kind in this order. */
static void define_run(struct walk *w, const struct ssa_insn *v, struct absint_val *c)
{
	uint32_t k;

	switch (v->kind) {
	case SSA_ALU:
		if (w->shl_of[v->id])    /* (set for ALU values only: absint_shifted) */
			shifted(w, v->id, c, get(w, w->shl_of[v->id]));
		define(w, v->id, c);
		if (v->op == ISA_SUB && (k = absint_sub_cancels(w, v)) != 0)
			absint_alias(w, v->id, k, c);
		if (v->op == ISA_MOD || v->op == ISA_SUB)
			absint_rem_fact(w, v);    /* what it looks at */
		absint_hold(w, v, c);
		if (v->op == ISA_MOV || v->op == ISA_AND)
			absint_masks(w, v, c);    /* the ops it looks at */
		return;
	case SSA_EXTRACT:
		define(w, v->id, c);
		if ((k = absint_slot_part(w, v)) != 0)
			absint_alias(w, v->id, k, c);
		absint_hold(w, v, c);
		return;
	case SSA_UNARY:
		define(w, v->id, c);
		absint_hold(w, v, c);
		if (v->op == ISA_LE)
			absint_masks(w, v, c);
		return;
	case SSA_SELECT:
		define(w, v->id, c);
		absint_hold(w, v, c);
		select_alias(w, v, c);
		return;
	case SSA_STORE: case SSA_ATOMIC:       /* not classed: no holder */
		define(w, v->id, c);
		absint_write_barrier(w, v);
		if (w->o->mem &&
		    (w->o->mem[v->id] == SMT_MEM_PKT || w->o->mem[v->id] == ABSINT_MEM_ANY)) {
			w->npktw++;
			trail_push(w, PKTW_MARK);
		}
		return;
	case SSA_CALL: case SSA_TAILRET:       /* not classed: no holder */
		define(w, v->id, c);
		absint_write_barrier(w, v);
		w->ncalls++;
		trail_push(w, CALL_MARK);
		return;
	case SSA_UNDEF: case SSA_CONST: case SSA_INPUT: case SSA_FRAME: case SSA_ADDR:
	case SSA_LOAD: case SSA_LDPKT: case SSA_INSERT: case SSA_SLOTLOAD: case SSA_SLOTSTORE:
	case SSA_HAVOC: case SSA_PHI: case SSA_CMP: case SSA_PKTW: case SSA_ASSUME:
	case SSA_ASSERT: case SSA_NKINDS:
		define(w, v->id, c);
		absint_hold(w, v, c);
		return;
	}
}

/* Run block B's instructions entered through edge EDGE; false: no run
 * gets through it (an assume cannot hold) or the walk stops. The block's
 * constants are counted where they stand (defined for the whole walk:
 * consts_everywhere), so the budget runs out at the same instruction as
 * if each were evaluated. */
static bool run_block(struct walk *w, uint32_t b, uint32_t edge)
{
	/* in locals: the body's byte stores (def) may alias W's fields */
	const struct ssa_insn *const *run = w->run;
	const uint32_t *gap = w->run_gap;
	uint32_t i, end = w->run_at[b + 1];

	for (i = w->run_at[b]; i < end; i++) {
		const struct ssa_insn *v = run[i];
		struct absint_val c;

		if (!spend(w, gap[i] + 1))
			return false;
		if (v->kind == SSA_PHI) {
			if (edge >= v->nargs) {
				give_up(w, "internal: phi v%u has no operand for edge %u", v->id, edge);
				return false;
			}
			define(w, v->id, get_at(w, v->args[edge]));
			w->phi_arg[v->id] = v->args[edge];
		} else if (v->kind == SSA_ASSUME) {
			c = get(w, v->args[0]);
			if (!absint_refine_bool(w, v->args[0], true, 0))
				return false;
			if (absint_contains(&c, 0) && v->args[0] != 0)
				absint_cell_push(w, &(struct cell){ .kind = C_ASSUME, .id = v->args[0] });
		} else if (v->kind == SSA_ASSERT) {
			if (w->o->count_site && v->nargs >= 2 &&
			    v->imm == (int64_t)w->o->count_site - 1) {
				c = get(w, v->args[1]);
				if (!w->r->count_seen || c.umax > w->r->count_max)
					w->r->count_max = c.umax;
				w->r->count_seen = true;
			}
			c = get(w, v->args[0]);
			if (absint_contains(&c, 0)) {
				c = absint_reeval_top(w, v->args[0]);
				if (absint_contains(&c, 0)) {
					struct mark mark = mark_now(w);
					bool ok;

					if (absint_infeasible(w))
						return false;
					ok = absint_now_holds_again(w, v->args[0]);
					undo_to(w, mark);
					if (ok || absint_split_proves(w, v->args[0], SPLIT_DEPTH))
						c = absint_const(1);
				}
			}
			if (absint_contains(&c, 0)) {
				char buf[120];

				absint_format(&c, buf, sizeof(buf));
				give_up(w, "assert v%u (site %lld) in b%u: its condition v%u may be 0: %s",
					v->id, (long long)v->imm, b, v->args[0], buf);
				return false;
			}
		} else if (v->kind != SSA_LOAD || !absint_load(w, v, &c)) {
			c = eval(w, v);
			define_run(w, v, &c);
		}
	}
	return spend(w, w->run_tail[b]);
}

/* Reached the end of block B (a path is complete at EXIT). */
static void at_end(struct walk *w, uint32_t b)
{
	const struct ssa_block *blk = w->p->blocks[b];
	struct absint_val r0;

	if (blk->term == SSA_TERM_UNWIND) {
		w->r->unwinds++;
		give_up(w, "loop bound: the unwinding marker b%u may be reached", b);
		return;
	}
	if (blk->term != SSA_TERM_EXIT)
		return;
	w->r->paths++;
	r0 = get(w, blk->a);
	w->r->r0 = w->r->exits ? absint_join(&w->r->r0, &r0) : r0;
	w->r->exits++;
	if (w->o->at_exit)
		w->o->at_exit(w->o->arg, blk, &r0);
}

static void push(struct walk *w, uint32_t b, struct mark mark)
{
	struct frame *f;

	w->stack = grow(w->stack, &w->capstack, w->nstack + 1, sizeof(*w->stack));
	f = &w->stack[w->nstack++];
	f->b = b;               /* f->pre is set at edge 0 */
	f->next = 0;
	f->mark = mark;
}

/* Follow successor J of block F (the top frame, FR): refine the edge,
 * run the block. A branch's comparison is found at edge 0 and kept for
 * edge 1: the walk is back in the same state then (edge 0's trail undone;
 * what is not on the trail, phi_arg and the memos, is read only for
 * values defined on the path, or as a cache). */
static void step(struct walk *w, struct frame *fr, unsigned j)
{
	const struct ssa_block *blk = w->p->blocks[fr->b];
	uint32_t f = fr->b, to = blk->succ[j];
	struct mark mark = mark_now(w);

	if (blk->term == SSA_TERM_BRANCH) {
		if (j == 0)
			absint_cmp_before(w, blk->cond_op, blk->cond64, blk->a, blk->b, &fr->pre);
		else
			w->r->steps += fr->pre.steps;
		if (!absint_refine_pre(w, blk->cond_op, blk->cond64, j == 0, blk->a, blk->b, &fr->pre)) {
			undo_to(w, mark);
			return;
		}
	}
	if (!run_block(w, to, edge_index(w->p, f, j, to))) {
		undo_to(w, mark);
		return;
	}
	at_end(w, to);
	if (w->stop || w->p->blocks[to]->nsucc == 0 ||
	    w->p->blocks[to]->term == SSA_TERM_EXIT || w->p->blocks[to]->term == SSA_TERM_UNWIND) {
		undo_to(w, mark);
		return;
	}
	push(w, to, mark);
}

/* A constant is the same value on every path, so it is defined once for
 * the whole walk, never undone, and aliased to the first constant of its
 * class as absint_hold would on a path; run_block skips constants. (Each
 * path defined them again: half of an instrumented program's values are
 * constants, and loop_sum's walks spent 7% of their instructions on
 * them.) A constant read before its block on a path has its value rather
 * than any value: the same value in every run, so no less sound. */
static void consts_everywhere(struct walk *w)
{
	uint32_t id, k;

	for (id = 1; id < w->p->nvalues; id++) {
		const struct ssa_insn *v = w->p->values[id];

		if (v->kind != SSA_CONST)
			continue;
		w->env[id] = absint_const((uint64_t)v->imm);
		w->def[id] = true;
		k = w->canon[id];
		if (!k)
			continue;
		if (w->holder[k])
			w->alias[id] = w->holder[k];
		else
			w->holder[k] = id;
	}
}

/* The blocks' instructions without their constants, once per walk
 * (run_block follows these; W's run, run_at, run_gap, run_tail). A phi
 * that no value and no block reads (a register or slot merged at a join
 * and not used after it: most of tc_classifier's) is left out the same
 * way: its value would be read by nothing on any path. READ is scratch,
 * a zeroed byte per value. */
static void runs(struct walk *w, uint8_t *read)
{
	const struct ssa_prog *p = w->p;
	uint32_t b, i, n = 0;

	for (i = 1; i < p->nvalues; i++) {
		const struct ssa_insn *v = p->values[i];
		uint32_t k;

		for (k = 0; k < v->nargs; k++)
			read[v->args[k]] = 1;
	}
	for (b = 0; b < p->nblocks; b++)
		read[p->blocks[b]->a] = read[p->blocks[b]->b] = 1;
	for (b = 0; b < p->nblocks; b++) {
		const struct ssa_block *blk = p->blocks[b];
		uint32_t gap = 0;

		w->run_at[b] = n;
		for (i = 0; i < blk->ninsns; i++) {
			const struct ssa_insn *v = blk->insns[i];

			/* (a phi's operand for every edge in: run_block's check) */
			if (v->kind == SSA_CONST ||
			    (v->kind == SSA_PHI && !read[v->id] && v->nargs >= blk->npreds)) {
				gap++;
				continue;
			}
			w->run[n] = v;
			w->run_gap[n++] = gap;
			gap = 0;
		}
		w->run_tail[b] = gap;
	}
	w->run_at[p->nblocks] = n;
}

/* W's arrays, in two blocks (one malloc and one calloc per walk, not
 * ten): uninitialised, the abstract values (ENV, MEMO), since a value is
 * read only where it is defined on the path (DEF, get) and a memo only
 * where its stamp is this evaluation's, op_eval's entries (an entry per
 * value run at most, each written when made), the runs (runs), the
 * definitions on the path (a value is defined once on it), ALIAS (each
 * value its own, set here), PHI_ARG (read only for a phi defined on
 * the path, which set it) and absint_canon's classes (made here, each
 * written); zeroed, the rest by value id, absint_canon's table,
 * and a byte per value for runs (returned). The trail is made at the
 * size it comes to, four entries a value (xdp_lb's walks reached 1,024
 * entries of 265 to 336 values; each doubling from 64 copied it). */
static uint8_t *by_value(struct walk *w)
{
	const struct ssa_prog *p = w->p;
	size_t n = p->nvalues ? p->nvalues : 1, total = 0, slots = absint_canon_slots(n), i;
	uint32_t *ids, *canon, b;
	char *at;

	for (b = 0; b < p->nblocks; b++)
		total += p->blocks[b]->ninsns;
	at = malloc(sizeof(*w->env) * 2 * n + sizeof(*w->ops) * (total + 1) +
		    sizeof(*w->run) * (total + 1) +
		    sizeof(*w->run_at) * (2 * (p->nblocks + 1) + total) + sizeof(*w->defs) * 4 * n);
	ids = calloc(1, sizeof(*ids) * (5 * n + slots) + 3 * n);
	if (!at || !ids)
		abort();
	w->env = (struct absint_val *)(void *)at;
	w->memo = w->env + n;
	w->ops = (struct op_memo *)(void *)(w->memo + n);
	w->capops = total + 1;
	w->run = (const struct ssa_insn **)(void *)(w->ops + total + 1);
	w->run_at = (uint32_t *)(void *)(w->run + total + 1);
	w->run_tail = w->run_at + p->nblocks + 1;
	w->run_gap = w->run_tail + p->nblocks + 1;
	w->defs = w->run_gap + total;
	w->alias = w->defs + n;
	for (i = 0; i < n; i++)
		w->alias[i] = (uint32_t)i;     /* none an alias yet */
	w->phi_arg = w->alias + n;
	w->holder = ids;
	w->shl_of = ids + n;
	w->stamp = ids + 2 * n;
	w->op_slot = ids + 3 * n;
	w->lastr = ids + 4 * n;
	canon = w->phi_arg + n;
	absint_canon(p, canon, ids + 5 * n);
	w->canon = canon;
	w->def = (bool *)(ids + 5 * n + slots);
	w->shl_by = (uint8_t *)(w->def + n);
	w->trail = grow(w->trail, &w->captrail, 4 * n, sizeof(*w->trail));
	return w->shl_by + n;
}

void absint_prove(const struct ssa_prog *p, const struct absint_opts *o,
		  struct absint_result *r)
{
	struct absint_opts dflt = { .budget = ABSINT_DEFAULT_BUDGET };
	struct walk w = { .p = p, .r = r, .keep = NO_STAMP };
	uint8_t *read;

	memset(r, 0, sizeof(*r));
	r->verdict = ABSINT_PROVED;
	if (!o)
		o = &dflt;
	if (!o->budget) {
		dflt = *o;
		dflt.budget = ABSINT_DEFAULT_BUDGET;
		o = &dflt;
	}
	w.o = o;
	if (!p->nblocks) {
		give_up(&w, "the program has no blocks");
		return;
	}
	if (p->nvalues >= PKTW_MARK) {  /* the trail's codes */
		give_up(&w, "the program has %u values", p->nvalues);
		return;
	}
	read = by_value(&w);
	w.flat = !p->o || p->bare;
	if (!absint_shifted(p, w.shl_of, w.shl_by))
		abort();
	consts_everywhere(&w);
	runs(&w, read);
	if (run_block(&w, 0, 0)) {
		at_end(&w, 0);
		if (!w.stop && p->blocks[0]->nsucc)
			push(&w, 0, (struct mark){ 0, 0 });
	}
	while (w.nstack && !w.stop) {
		struct frame *f = &w.stack[w.nstack - 1];
		const struct ssa_block *blk = p->blocks[f->b];

		if (f->next >= blk->nsucc) {
			undo_to(&w, f->mark);
			w.nstack--;
			continue;
		}
		step(&w, f, f->next++);
	}
	free(w.env);
	free(w.kept);
	free(w.seen);
	free(w.holder);
	free(w.cells);
	free(w.trail);
	free(w.stack);
}
