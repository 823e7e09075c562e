/* absint_back.c - the pre-pass's backward step (contract: absint_priv.h,
 * absint_narrow): a value the path refines (at a BRANCH edge or an
 * ASSUME) narrows what it is computed from, through sums, masks, shifts,
 * truncations, phis and decided selects, to a bounded depth; false when
 * no run is left on the path. Split from absint.c, the walk itself.
 */
#include "absint_priv.h"
#include "isa.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- backward: what a refined value is computed from ---------------- */

/* Value ID (defined on the path) is also in T: met, and followed back;
 * false: no run is left. */
bool absint_narrow(struct walk *w, uint32_t id, const struct absint_val *t, unsigned depth)
{
	struct absint_val y;

	id = find(w, id);
	if (!w->def[id])
		return true;
	y = w->env[id];
	if (!absint_meet(&y, t))
		return false;
	if (same_val(&y, &w->env[id]))
		return true;
	set(w, id, &y);
	return absint_back(w, id, depth);
}

/* The constant operand of ALU V and the other one (*Y; *LHS: the
 * constant is the first), from their values on this path. */
static bool const_operand(const struct walk *w, const struct ssa_insn *v, uint32_t *y,
			  uint64_t *c, bool *lhs)
{
	struct absint_val a, b;

	if (v->nargs < 2)
		return false;
	b = get(w, v->args[1]);
	if (v->op == ISA_MOV) {       /* the source is args[1] */
		*y = v->args[1];
		*c = 0;
		*lhs = false;
		return true;
	}
	if (absint_is_const(&b, c)) {
		*y = v->args[0];
		*lhs = false;
		return true;
	}
	a = get(w, v->args[0]);
	if (absint_is_const(&a, c)) {
		*y = v->args[1];
		*lhs = true;
		return true;
	}
	return false;
}

/* X = A op B (ALU V, op OR, XOR or ADD) where no bit can be 1 in both A
 * and B (within the op's width): each is X's bits where it may have ones
 * (no carries: all three ops are the or), e.g. `(b13 << 8) | b12`. */
static bool disjoint(struct walk *w, const struct ssa_insn *v, const struct absint_val *x,
		     unsigned depth)
{
	uint64_t lim = v->is64 ? ~0ull : 0xffffffffull, m[2];
	struct absint_val a[2];
	unsigned i;

	if (v->nargs < 2 || (v->op != ISA_OR && v->op != ISA_XOR && v->op != ISA_ADD))
		return true;
	for (i = 0; i < 2; i++) {
		a[i] = get(w, v->args[i]);
		m[i] = (a[i].tv | a[i].tm) & lim;
	}
	if (m[0] & m[1])
		return true;
	for (i = 0; i < 2; i++) {
		struct absint_val t = absint_top();

		t.tv = x->tv & m[i];
		t.tm = (x->tm & m[i]) | ~lim;
		if (!absint_sync(&t) || !absint_narrow(w, v->args[i], &t, depth - 1))
			return false;
	}
	return true;
}

/* X = A + B (ALU V) of two values whose sum cannot wrap within the op's
 * width (their largest values say so): the sum is exact, so A is in
 * [X.umin - B.umax, X.umax - B.umin] and B likewise; false: no run
 * (X below what B alone adds). */
static bool sum_back(struct walk *w, const struct ssa_insn *v, const struct absint_val *x,
		     unsigned depth)
{
	uint64_t lim = v->is64 ? ~0ull : 0xffffffffull;
	struct absint_val a[2];
	unsigned i;

	if (v->op != ISA_ADD || v->nargs < 2)
		return true;
	for (i = 0; i < 2; i++)
		a[i] = get(w, v->args[i]);
	if (a[0].umax > lim || a[1].umax > lim || a[0].umax > lim - a[1].umax)
		return true;
	for (i = 0; i < 2; i++) {
		const struct absint_val *o = &a[!i];
		uint64_t lo, hi;
		struct absint_val t;

		if (x->umax < o->umin)
			return false;
		lo = x->umin > o->umax ? x->umin - o->umax : 0;
		hi = x->umax - o->umin;
		if (lo > hi)      /* empty */
			return false;
		t = absint_range(lo, hi);
		if (!absint_narrow(w, v->args[i], &t, depth - 1))
			return false;
	}
	if (~x->umax) {           /* the sum's bound, for absint_sum_upper */
		uint32_t r[2];

		for (i = 0; i < 2; i++)
			r[i] = absint_resolve(w, v->args[i]);
		absint_cell_push(w, &(struct cell){ .kind = C_SBOUND, .root = r[0], .b = r[1],
						    .off = x->umax });
	}
	return true;
}

/* Value ID, bytes [off, off + size) of a wider value on this path (a
 * C_PART: a narrower load inside an earlier one or under a later one, a
 * mask), was narrowed to X: so are those bytes of the wider value; and
 * when ID is the wider value, its parts. */
static bool whole(struct walk *w, uint32_t id, const struct absint_val *x, unsigned depth)
{
	const struct cell *e;
	struct cell_it it;

	for (e = kind_first(w, &it, C_PART); e; e = cell_next(w, &it)) {
		struct absint_val t;

		if (e->id == id) {
			t = absint_invert_extract(x, (unsigned)e->off, e->size);
			if (!absint_narrow(w, e->root, &t, depth - 1))
				return false;
		} else if (e->root == id) {   /* and the parts of a narrowed value */
			t = absint_extract(x, (unsigned)e->off, e->size, false);
			if (!absint_narrow(w, e->id, &t, depth - 1))
				return false;
		}
	}
	return true;
}

/* ID's value was narrowed on this path: narrow the operand it is computed
 * from where that is exact enough (an ALU op with a constant, bytes of a
 * slot value, a phi's operand on this path). */
bool absint_back(struct walk *w, uint32_t id, unsigned depth)
{
	const struct ssa_insn *v = w->p->values[id];
	struct absint_val x, t;
	uint64_t c;
	uint32_t y;
	bool lhs;

	if (depth == 0 || !w->def[id])
		return true;
	x = w->env[id];
	if (v->kind == SSA_PHI)
		return absint_narrow(w, w->phi_arg[id], &x, depth - 1);
	if (v->kind == SSA_ALU) {
		if (!const_operand(w, v, &y, &c, &lhs))
			return sum_back(w, v, &x, depth) && disjoint(w, v, &x, depth);
		if (!absint_invert_alu(v->op, v->is64, lhs, &x, c, &t))
			return true;
		return absint_narrow(w, y, &t, depth - 1);
	}
	if (v->kind == SSA_EXTRACT) {
		t = absint_invert_extract(&x, (unsigned)v->imm, v->size);
		return absint_narrow(w, v->args[0], &t, depth - 1);
	}
	if (v->kind == SSA_SELECT) {
		y = absint_select_now(w, id);
		return !y || absint_narrow(w, y, &x, depth - 1);
	}
	if (v->kind == SSA_UNARY && (v->op == ISA_LE || v->op == ISA_BE || v->op == ISA_BSWAP) &&
	    v->size >= 1 && v->size <= 8) {
		/* a truncation or byte swap of the operand's low bytes: they
		 * are the same op of X's (an involution), the rest any */
		t = absint_unary(v->op, v->is64, v->size, &x);
		t = absint_invert_extract(&t, 0, v->size);
		return absint_narrow(w, v->args[0], &t, depth - 1);
	}
	return whole(w, id, &x, depth);
}
