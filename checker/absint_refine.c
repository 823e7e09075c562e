/* absint_refine.c - the pre-pass's refinement (contract: absint_priv.h):
 * what a path learns where it takes a BRANCH edge (`A op B`, or its
 * negation) or passes an ASSUME (a boolean true): the compared values
 * restricted to it, and through the backward step (absint_back.c) what
 * they are computed from; false when no run is left on the path. Split
 * from absint.c, the walk itself.
 */
#include "absint_priv.h"
#include "isa.h"

#include <stdbool.h>
#include <stdint.h>

/* `x op x`: 1 always true, 0 always false, -1 either (JSET: x != 0). */
int absint_reflexive(unsigned op)
{
	switch (op) {
	case ISA_JEQ: case ISA_JGE: case ISA_JLE: case ISA_JSGE: case ISA_JSLE:
		return 1;
	case ISA_JNE: case ISA_JGT: case ISA_JLT: case ISA_JSGT: case ISA_JSLT:
		return 0;
	default:
		return -1;
	}
}

/* What `A op B` is on this path before an edge refines it (*PRE). */
void absint_cmp_before(struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b,
		       struct cmp_pre *pre)
{
	uint64_t steps = w->r->steps;

	pre->x = get(w, a);
	pre->y = get(w, b);
	pre->one = find(w, a) == find(w, b);
	pre->f = absint_fact_decide_key(w, op, is64, a, b, &pre->key);
	if (pre->f < 0 && (is64 || (pre->x.umax <= 0xffffffffull && pre->y.umax <= 0xffffffffull)))
		pre->f = absint_sum_decide(w, op, a, b);     /* in 64 bits: the values fit */
	pre->c = pre->f < 0 ? absint_cond(op, is64, &pre->x, &pre->y) : 0;
	pre->steps = w->r->steps - steps;
}

/* absint_lookup_refined of ID, which looks at calls only (an array
 * map's lookup) */
static bool lookup_refined(struct walk *w, uint32_t id)
{
	return w->p->values[id]->kind != SSA_CALL || absint_lookup_refined(w, id);
}

/* Restrict A and B to `A op B` (or its negation), and what they are
 * computed from, PRE what it is before; false: infeasible. */
bool absint_refine_pre(struct walk *w, unsigned op, bool is64, bool taken, uint32_t a,
		       uint32_t b, const struct cmp_pre *pre)
{
	struct absint_val x = pre->x, y = pre->y;
	bool one = pre->one;
	int f = pre->f;

	if (f >= 0 && f != taken)
		return false;
	if (one && a != 0 && absint_reflexive(op) >= 0 && absint_reflexive(op) != taken)
		return false;
	if (f < 0 && pre->c < 0)
		absint_cell_push(w, &(struct cell){ .kind = C_BRANCH, .root = a, .b = b,
						    .op = (uint8_t)op, .sx = is64, .off = taken });
	if (!absint_refine(op, is64, taken, &x, &y))
		return false;
	if (one && a != 0 && !absint_meet(&x, &y))
		return false;
	if (f < 0)        /* JEQ / JNE, an unsigned ordering: a fact, or its negation's */
		absint_fact_push_key(w, &pre->key, taken);
	set(w, a, &x);
	if (!one)
		set(w, b, &y);
	return absint_back(w, find(w, a), BACK_DEPTH) &&
	       (one || absint_back(w, find(w, b), BACK_DEPTH)) &&
	       lookup_refined(w, find(w, a)) && (one || lookup_refined(w, find(w, b)));
}

static bool refine_cmp(struct walk *w, unsigned op, bool is64, bool taken, uint32_t a,
		       uint32_t b)
{
	struct cmp_pre pre;

	absint_cmp_before(w, op, is64, a, b, &pre);
	return absint_refine_pre(w, op, is64, taken, a, b, &pre);
}

bool absint_is_bool(const struct walk *w, uint32_t id)
{
	struct absint_val v = get(w, id);

	return w->def[find(w, id)] && v.umax <= 1;
}

static bool is_zero(const struct walk *w, uint32_t id)
{
	struct absint_val v = get(w, id);
	uint64_t c;

	return absint_is_const(&v, &c) && c == 0;
}

static bool is_one(const struct walk *w, uint32_t id)
{
	struct absint_val v = get(w, id);
	uint64_t c;

	return absint_is_const(&v, &c) && c == 1;
}

/* Value ID is non-zero (TRUTH) or zero on this path: restrict it and what
 * it is computed from (comparisons, and/or/not of booleans). */
bool absint_refine_bool(struct walk *w, uint32_t id, bool truth, unsigned depth)
{
	const struct ssa_insn *v = w->p->values[id];
	struct absint_val zero = absint_const(0), x;

	if (id == 0)
		return true;
	x = get(w, id);
	if (!absint_refine(ISA_JNE, true, truth, &x, &zero))
		return false;
	set(w, id, &x);
	if (depth >= 16)
		return true;
	if (v->kind == SSA_CMP) {
		if (!refine_cmp(w, v->op, true, truth, v->args[0], v->args[1]))
			return false;
		/* x == 0 / x != 0 of a boolean x */
		if ((v->op == ISA_JEQ || v->op == ISA_JNE) && v->args[1] != 0 &&
		    is_zero(w, v->args[1]) && absint_is_bool(w, v->args[0]))
			return absint_refine_bool(w, v->args[0], (v->op == ISA_JNE) == truth, depth + 1);
		return true;
	}
	if (v->kind != SSA_ALU || !v->is64 || !absint_is_bool(w, v->args[0]) || !absint_is_bool(w, v->args[1]))
		return true;
	if (v->op == ISA_AND && truth)
		return absint_refine_bool(w, v->args[0], true, depth + 1) &&
		       absint_refine_bool(w, v->args[1], true, depth + 1);
	if (v->op == ISA_OR && !truth)
		return absint_refine_bool(w, v->args[0], false, depth + 1) &&
		       absint_refine_bool(w, v->args[1], false, depth + 1);
	if (v->op == ISA_XOR && is_one(w, v->args[1]))
		return absint_refine_bool(w, v->args[0], !truth, depth + 1);
	return true;
}
