/* absint_split.c - the pre-pass's second look at a failing assert
 * (contract: absint.h): whether the path is infeasible after all, and a
 * case split on the small-valued operands of its condition (each case's
 * values re-evaluated, loads re-keyed by the addresses a case makes
 * equal, the path's branches asked again). absint.c's walk calls it when
 * an assert's condition is not decided on a path.
 */
#include "absint_priv.h"

#include <stdlib.h>
#include <string.h>

/* After reeval_top of a failing assert's condition (the same query):
 * true when no run follows this path. Either that evaluation met a value
 * with an empty set, or an earlier assume on the path (C_ASSUME: one its
 * refinement did not decide, an or of comparisons) is false when computed
 * again from what the path has learnt since (branches taken after it).
 * Every run through the assert passed that assume and satisfied it, so
 * the assert holds on this path vacuously. At most ASSUME_SCAN assumes,
 * newest first. */
#define ASSUME_SCAN 64u
bool absint_infeasible(struct walk *w)
{
	uint32_t at;
	unsigned n = 0;

	if (w->empty)
		return true;
	/* the path's C_ASSUMEs, newest first (their chain, every one) */
	for (at = w->lastk[C_ASSUME]; at && n < ASSUME_SCAN; at = w->cells[at - 1].prevk) {
		n++;
		(void)absint_reeval(w, w->cells[at - 1].id, 48);
		if (w->empty)
			return true;
	}
	return false;
}

/* W's marks of the values a split_cands has seen (seen[x] is seen_now),
 * a new set of them: made on a walk's first split (zeroed), a number a
 * call, all cleared when the numbers wrap. */
static uint32_t *seen_marks(struct walk *w)
{
	if (!w->seen && !(w->seen = calloc(w->p->nvalues, sizeof(*w->seen))))
		abort();
	if (++w->seen_now == 0) {
		memset(w->seen, 0, sizeof(*w->seen) * w->p->nvalues);
		w->seen_now = 1;
	}
	return w->seen;
}

/* Values of the cone of pure values under ID (reps, at most SPLIT_SEEN
 * visited) whose abstract value has 2 to SPLIT_MAX members: into OUT (at
 * most SPLIT_CANDS); their number. */
#define SPLIT_SEEN  64u
#define SPLIT_CANDS 8u
#define SPLIT_MAX   16u
static unsigned members(const struct absint_val *x)
{
	uint64_t v;
	unsigned n = 0;

	if (x->umax - x->umin >= SPLIT_MAX)
		return SPLIT_MAX + 1;
	for (v = x->umin;; v++) {
		if ((v & ~x->tm) == x->tv)
			n++;
		if (v == x->umax)
			break;
	}
	return n;
}

static unsigned split_cands(struct walk *w, uint32_t id, uint32_t *out)
{
	uint32_t stack[SPLIT_SEEN], *seen = seen_marks(w);
	unsigned nseen = 0, nstack = 0, nout = 0, i, m;

	stack[nstack++] = find(w, id);
	while (nstack && nout < SPLIT_CANDS) {
		uint32_t x = stack[--nstack];
		const struct ssa_insn *v = w->p->values[x];
		struct absint_val xv;

		if (seen[x] == w->seen_now || nseen == SPLIT_SEEN || x == 0 || !w->def[x])
			continue;
		seen[x] = w->seen_now;
		nseen++;
		xv = get(w, x);
		m = members(&xv);
		if (m >= 2 && m <= SPLIT_MAX && x != find(w, id))
			out[nout++] = x;
		if (!absint_pure(v->kind))
			continue;
		if (v->kind == SSA_PHI) {
			if (nstack < SPLIT_SEEN)
				stack[nstack++] = find(w, w->phi_arg[x]);
			continue;
		}
		for (i = v->nargs; i-- > 0;)
			if (nstack < SPLIT_SEEN)
				stack[nstack++] = find(w, v->args[i]);
	}
	return nout;
}

/* Cell E, a C_BRANCH or C_ATLEAST, comes out the other way now
 * (branches_broken). */
static bool branch_broken(struct walk *w, const struct cell *e)
{
	struct absint_val x, y;
	uint32_t a, b;
	int c;

	if (e->kind == C_ATLEAST)     /* an array lookup's NULL: its key is in range now */
		return absint_sum_upper(w, e->root) < e->off;
	a = find(w, e->root);
	b = find(w, e->b);
	x = absint_reeval(w, a, 48);
	y = absint_reeval(w, b, 48);
	c = absint_cond(e->op, e->sx, &x, &y);
	if (c < 0 && a == b && a)
		c = absint_reflexive(e->op);
	return w->empty || (c >= 0 && c != (int)e->off);
}

/* The branches the path took that its values did not decide (C_BRANCH:
 * branch edges, assumes and a case's own refinement) asked again after a
 * case's refinement, by what the values are now: re-evaluated (`tcp + 20
 * > data_end` with ihl and data_end known) and one value since rekey
 * (`x != x`). True when one comes out the other way, so no run has the
 * case: each was true on the path where it was pushed. The cells newest
 * first up to the first broken one, a step each (as a scan of every
 * cell): the chains of the C_BRANCH and C_ATLEAST cells merged, the
 * steps of the cells between them counted at once. */
static bool branches_broken(struct walk *w)
{
	uint32_t br = w->lastk[C_BRANCH], al = w->lastk[C_ATLEAST], at;

	while (br || al) {
		const struct cell *e;

		at = br > al ? br : al;
		e = &w->cells[at - 1];
		if (at == br)
			br = e->prevk;
		else
			al = e->prevk;
		if (branch_broken(w, e)) {
			w->r->steps += w->ncells - (at - 1);
			return true;
		}
	}
	w->r->steps += w->ncells;
	return false;
}

/* One case of a split: value ID is V on this path, and what it is
 * computed from follows (a boolean's comparisons and and/or operands,
 * refine_bool; else narrow's operand chains); false: no run has it. */
static bool case_refine(struct walk *w, uint32_t id, uint64_t v)
{
	const struct ssa_insn *x = w->p->values[find(w, id)];
	struct absint_val c = absint_const(v);

	if (absint_is_bool(w, id) && (x->kind == SSA_CMP || (x->kind == SSA_ALU && x->is64)))
		return absint_refine_bool(w, id, v != 0, 0);
	return absint_narrow(w, id, &c, BACK_DEPTH);
}

/* Cells I and J (I older) have no write to REGION between them. */
static bool unwritten(const struct walk *w, size_t i, size_t j, uint16_t region)
{
	while (++i < j) {
		const struct cell *e = &w->cells[i];

		if (e->kind == C_WRITE && (e->region == ABSINT_MEM_ANY || e->region == region))
			return false;
	}
	return true;
}

/* A load's address (cell root ROOT + *OFF) as what the path knows now:
 * additions of operands that re-evaluate to constants folded into *OFF;
 * ROOT_ABS when the whole address is a constant. */
#define ROOT_ABS 0xffffffffu
static uint32_t refold(struct walk *w, uint32_t root, uint64_t *off)
{
	unsigned n;

	for (n = 0; n < 16; n++) {
		const struct ssa_insn *v = w->p->values[find(w, root)];
		struct absint_val x, y;
		uint64_t c;

		root = find(w, root);
		x = absint_reeval(w, root, 48);
		if (absint_is_const(&x, &c)) {
			*off += c;
			return ROOT_ABS;
		}
		if (v->kind != SSA_ALU || !v->is64 || v->nargs < 2)
			break;
		if (v->op == ISA_MOV) {
			root = v->args[1];
			continue;
		}
		if (v->op != ISA_ADD && v->op != ISA_SUB)
			break;
		y = absint_reeval(w, v->args[1], 48);
		if (absint_is_const(&y, &c)) {
			*off += v->op == ISA_ADD ? c : -c;
			root = v->args[0];
			continue;
		}
		x = absint_reeval(w, v->args[0], 48);
		if (v->op != ISA_ADD || !absint_is_const(&x, &c))
			break;
		*off += c;
		root = v->args[1];
	}
	return root;
}

/* Loads whose addresses were different values (a packet offset through a
 * header length: `data + ihl * 4 + 12`) and now fold to the same root and
 * offsets (refold: ihl known, by a case of a split or a branch after the
 * load) read the same bytes, with no write to their region between them:
 * the newer one becomes an alias of the older (the same bytes) or is met
 * with the older one's bytes and recorded as a part of it (inside it).
 * The spec's exit read `u8(pkt + 47)` then knows what the program's `*(u16 *)(tcp + 12)` was
 * tested for. At most REKEY_LOADS loads, the newest, of the cells a
 * lookup would scan; false: no run is left. */
#define REKEY_LOADS 64u
#define REKEY_HASH  128u         /* slots of rekey's table of roots */
static bool rekey(struct walk *w)
{
	size_t at[REKEY_LOADS];
	uint64_t addr[REKEY_LOADS];
	uint32_t root[REKEY_LOADS], slot_root[REKEY_HASH];
	uint8_t older[REKEY_LOADS], slot_at[REKEY_HASH];
	const struct cell *e;
	struct cell_it it;
	unsigned n = 0, j, k, h;

	absint_reeval_begin(w);
	/* the newest loads among the newest CELL_SCAN cells (their chain),
	 * a step for each cell a scan of them all would have looked at: up
	 * to the REKEY_LOADS-th load, or every one */
	for (e = kind_first(w, &it, C_LOAD); e && n < REKEY_LOADS; e = cell_next(w, &it)) {
		if (e->root & ROOT_CONST)
			continue;
		addr[n] = e->off;
		at[n] = it.at - 1;
		root[n] = refold(w, e->root, &addr[n]);
		n++;
	}
	w->r->steps += n == REKEY_LOADS ? w->ncells - at[n - 1] :
		       w->ncells < CELL_SCAN ? w->ncells : CELL_SCAN;
	/* by load, 1 + the next older one of its root, 0: none (oldest
	 * first through a table of roots: slot_at 1 + the load, 0: empty) */
	memset(slot_at, 0, sizeof(slot_at));
	for (j = n; j-- > 0;) {
		for (h = (root[j] * 0x9e3779b1u) >> 25; slot_at[h] && slot_root[h] != root[j];
		     h = (h + 1) % REKEY_HASH)
			;
		older[j] = slot_at[h];
		slot_root[h] = root[j];
		slot_at[h] = (uint8_t)(j + 1);
	}
	for (j = 0; j < n; j++) {
		const struct cell *nj = &w->cells[at[j]];

		/* the older loads of its root, newest first (as a scan of
		 * every older load that skips other roots) */
		for (k = older[j]; k--; k = older[k]) {
			const struct cell *ni = &w->cells[at[k]];
			uint64_t d = addr[j] - addr[k];
			struct absint_val x, y;

			if (ni->region != nj->region || d >= 8 || d + nj->size > ni->size)
				continue;
			if (!unwritten(w, at[k], at[j], nj->region) ||
			    find(w, nj->id) == find(w, ni->id))
				break;
			x = get(w, ni->id);
			y = get(w, nj->id);
			if (d == 0 && nj->size == ni->size && nj->sx == ni->sx) {
				if (!absint_meet(&x, &y))
					return false;
				absint_alias(w, nj->id, ni->id, &y);
			} else if (!nj->sx) {
				x = absint_extract(&x, (unsigned)d, nj->size, false);
				if (!absint_narrow(w, nj->id, &x, BACK_DEPTH))
					return false;
				absint_cell_push(w, &(struct cell){ .kind = C_PART,
					.root = find(w, ni->id), .id = find(w, nj->id), .off = d,
					.size = nj->size });
			}
			break;
		}
	}
	return true;
}

/* What is known on this path now (after a case's refinement) proves
 * the assert of condition COND on it: loads re-keyed, COND re-evaluated
 * non-zero, or the path (the case) has no run: an assume or a fact
 * asked again is false. Undone by the caller. HOLDS_AFTER: the same,
 * the loads re-keyed. */
static bool holds_after(struct walk *w, uint32_t cond)
{
	struct absint_val r = absint_reeval_top(w, cond);

	return w->empty || !absint_contains(&r, 0) || absint_infeasible(w) || branches_broken(w);
}

bool absint_now_holds(struct walk *w, uint32_t cond)
{
	return !rekey(w) || holds_after(w, cond);
}

/* The same when the walk has just re-evaluated COND (absint_reeval_top:
 * it may be 0) and asked the assumes (absint_infeasible: false), counting
 * STEPS since top_steps, and nothing has changed since. When rekey
 * changes nothing either (no trail entry: no alias, part, narrowing or
 * cell), absint_now_holds would evaluate COND and the assumes again in
 * the same state: the same results, memo entries and steps (tailcall's
 * twelve failing asserts, every time). So that evaluation's memo is kept
 * (what rekey's evaluations write over it, put back, and its stamp made
 * current again), its steps counted again, and only the branches are
 * asked (branches_broken, in that evaluation, as absint_now_holds does).
 * Stamps are never reused (reeval_begin counts HI on), so an entry of
 * rekey's is not taken for one of that evaluation's. */
bool absint_now_holds_again(struct walk *w, uint32_t cond)
{
	uint64_t steps = w->r->steps - w->top_steps;
	size_t ntrail = w->ntrail;
	uint32_t now = w->now;
	bool ok;

	if (!w->kept && !(w->kept = malloc(sizeof(*w->kept) * w->p->nvalues)))
		abort();         /* an entry a value at most: made on first use */
	w->keep = now;
	w->nkept = 0;
	w->lost = false;
	ok = rekey(w);
	w->keep = NO_STAMP;
	if (!ok)
		return true;
	if (w->ntrail != ntrail || w->lost)
		return holds_after(w, cond);
	while (w->nkept) {
		const struct kept *k = &w->kept[--w->nkept];

		w->memo[k->id] = k->memo;
		w->stamp[k->id] = now;
	}
	w->now = now;
	w->empty = false;       /* as the evaluation and the assumes left it */
	w->r->steps += steps;
	return branches_broken(w);
}

/* The assert's condition COND may be 0 as a whole: true when, for some
 * value X of its cone with a few possible values, COND re-evaluated with
 * X each one of them in turn is never 0 (or the path is infeasible with
 * it). Every run on this path gives X one of those values (the members of
 * its abstract value are a superset of them), so the assert holds on it:
 * a case split, for `ret in {XDP_PASS, XDP_TX, XDP_REDIRECT}` of a ret
 * known only as {2, 4}. */
bool absint_split_proves(struct walk *w, uint32_t cond, unsigned depth)
{
	uint32_t cands[2 * SPLIT_CANDS], at;
	unsigned nc = split_cands(w, cond, cands), k;

	/* and of the path's pending assumes (an or the walk could not
	 * refine: a case of it may contradict the path), newest first */
	for (at = w->lastk[C_ASSUME]; at && nc < SPLIT_CANDS; at = w->cells[at - 1].prevk)
		nc += split_cands(w, w->cells[at - 1].id, cands + nc);
	if (nc > 2 * SPLIT_CANDS)
		nc = 2 * SPLIT_CANDS;
	for (k = 0; k < nc; k++) {
		struct absint_val xv = get(w, cands[k]);
		bool all = true, b = absint_is_bool(w, cands[k]);
		uint64_t v;

		for (v = xv.umin; all; v++) {
			if ((v & ~xv.tm) == xv.tv) {
				struct mark mark = mark_now(w);

				/* a boolean's case that does not hold alone may
				 * with another value's cases (DEPTH) */
				all = !case_refine(w, cands[k], v) || absint_now_holds(w, cond) ||
				      (depth && b && absint_split_proves(w, cond, depth - 1));
				undo_to(w, mark);
			}
			if (v == xv.umax || w->r->steps > w->o->budget)
				break;
		}
		if (all)
			return true;
		if (w->r->steps > w->o->budget)
			return false;
	}
	return false;
}
