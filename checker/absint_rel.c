/* absint_rel.c - relations between values in the pre-pass (absint.h):
 * a stack slot reloaded, a remainder below its divisor, sums with common
 * terms (docs/architecture.md, "Relations between values"). The walk's
 * state and the facts they use are absint_priv.h's and absint_path.c's.
 */
#include "absint_priv.h"
#include "isa.h"

#include <linux/bpf.h>

/* Bytes [BYTE, BYTE + SIZE) of slot value SLOT as an INSERT on this path
 * wrote them (through inserts of other bytes and phis' operands on this
 * path): the inserted value's representative when it fits those bytes,
 * else 0. */
uint32_t absint_slot_bytes(const struct walk *w, uint32_t id, unsigned byte, unsigned size)
{
	unsigned n;

	if (!size || size > 8)
		return 0;
	for (n = 0; n < 8 && id && w->def[id]; n++) {
		const struct ssa_insn *s = w->p->values[id];
		struct absint_val x;

		if (s->kind == SSA_PHI) {
			id = w->phi_arg[id];
			continue;
		}
		if (s->kind != SSA_INSERT || s->nargs < 2)
			return 0;
		if ((uint64_t)s->imm == byte && s->size == size) {
			if (!w->def[find(w, s->args[1])])
				return 0;
			x = get(w, s->args[1]);
			return size == 8 || x.umax < 1ull << (8 * size) ? find(w, s->args[1]) : 0;
		}
		if ((uint64_t)s->imm + s->size > byte && byte + size > (uint64_t)s->imm)
			return 0;     /* part of the bytes */
		id = s->args[0];
	}
	return 0;
}

/* EXTRACT V (zero-extended) of bytes an INSERT on this path wrote: an
 * alias of the inserted value (absint_slot_bytes), or 0. */
uint32_t absint_slot_part(const struct walk *w, const struct ssa_insn *v)
{
	if (v->kind != SSA_EXTRACT || v->sx || v->nargs < 1 || v->imm < 0)
		return 0;
	return absint_slot_bytes(w, v->args[0], (unsigned)v->imm, v->size);
}

/* ALU V is X % C, unsigned (MOD, or X - (X / C) * C as clang writes it
 * without the mod instruction), of a C that is not 0 on this path: V < C
 * is a fact (in 32-bit ops, of a C that fits: its low half is C). */
void absint_rem_fact(struct walk *w, const struct ssa_insn *v)
{
	const struct ssa_insn *m, *d;
	uint32_t x, c;
	struct absint_val cv, rv, xv;

	if (v->kind != SSA_ALU || v->nargs < 2)
		return;
	if (v->op == ISA_MOD) {
		x = v->args[0];
		c = v->args[1];
	} else if (v->op == ISA_SUB) {
		m = w->p->values[v->args[1]];
		if (m->kind != SSA_ALU || m->op != ISA_MUL || m->is64 != v->is64 || m->nargs < 2)
			return;
		d = w->p->values[m->args[0]];
		c = m->args[1];
		if (d->kind != SSA_ALU || d->op != ISA_DIV || d->is64 != v->is64 || d->nargs < 2 ||
		    find(w, d->args[1]) != find(w, c) || find(w, d->args[0]) != find(w, v->args[0]))
			return;
		x = v->args[0];
	} else {
		return;
	}
	(void)x;
	cv = get(w, c);
	if (cv.umin == 0 || (!v->is64 && cv.umax > 0xffffffffull))
		return;
	rv = absint_range(0, cv.umax - 1);         /* and so V <= C's largest - 1 */
	x = find(w, v->id);
	xv = w->env[x];
	if (absint_meet(&xv, &rv))
		set(w, x, &xv);
	absint_fact_push(w, ISA_JLT, true, v->id, c);
}

/* The largest value ID can have on this path: its value's, or less by
 * an ordering fact `ID < C` / `ID <= C` (C's largest). */
static uint64_t largest(const struct walk *w, uint32_t id)
{
	uint64_t m = get(w, id).umax, u;
	const struct cell *e;
	struct cell_it it;

	id = find(w, id);
	for (e = fact_first(w, &it, id); e; e = cell_next(w, &it)) {
		if (e->op != ISA_JLT && e->op != ISA_JLE)
			continue;
		u = get(w, e->b).umax;
		if (e->op == ISA_JLT)
			u = u ? u - 1 : 0;
		if (u < m)
			m = u;
	}
	return m;
}

/* The terms of value ID as a sum that does not wrap (64-bit additions, or
 * 32-bit ones of operands whose largest values add up within 32 bits),
 * followed to DEPTH: representatives into T (at most 4; constants summed
 * into *K); false: more terms, or a constant sum that could wrap. */
static bool terms(struct walk *w, uint32_t id, unsigned depth, uint32_t *t, unsigned *n,
		  uint64_t *k)
{
	const struct ssa_insn *v;
	struct absint_val a;
	uint64_t c;

	id = absint_resolve(w, id);   /* a phi's operand, a decided select's */
	a = get(w, id);
	if (absint_is_const(&a, &c)) {
		if (*k > ~0ull - c)
			return false;
		*k += c;
		return true;
	}
	v = w->p->values[id];
	if (depth && v->kind == SSA_ALU && v->op == ISA_ADD && v->nargs >= 2 &&
	    w->def[find(w, v->args[0])] && w->def[find(w, v->args[1])]) {
		uint64_t lim = v->is64 ? ~0ull : 0xffffffffull;

		uint64_t ua = largest(w, v->args[0]), ub = largest(w, v->args[1]);

		if (ua <= lim && ub <= lim && ua <= lim - ub)
			return terms(w, v->args[0], depth - 1, t, n, k) &&
			       terms(w, v->args[1], depth - 1, t, n, k);
	}
	if (*n >= 4)
		return false;
	t[(*n)++] = id;
	return true;
}

/* ID may have more than one term: an addition, or a select */
static bool summed(const struct walk *w, uint32_t id)
{
	const struct ssa_insn *v = w->p->values[find(w, id)];

	return (v->kind == SSA_ALU && v->op == ISA_ADD) || v->kind == SSA_SELECT;
}

/* An unsigned comparison `A op B` (64-bit) of two sums with terms in
 * common (absint_path.c terms): those cancel (the sums are exact), and
 * what is left, one term or none and a constant on each side, is decided
 * by its values or the path's ordering facts: `first + h % count <
 * first + count` is `h % count < count`. 1 true, 0 false, -1 nothing. */
int absint_sum_decide(struct walk *w, unsigned op, uint32_t a, uint32_t b)
{
	uint32_t ta[4], tb[4];
	unsigned na = 0, nb = 0, i, j, common = 0;
	uint64_t ka = 0, kb = 0, m;
	struct absint_val x, y, z;
	uint32_t lo, hi;

	if (op != ISA_JEQ && op != ISA_JNE && op != ISA_JGT && op != ISA_JGE &&
	    op != ISA_JLT && op != ISA_JLE)
		return -1;
	if (!a || !b || (!summed(w, a) && !summed(w, b)))
		return -1;            /* one term a side: what the caller asked */
	if (!terms(w, a, 3, ta, &na, &ka) || !terms(w, b, 3, tb, &nb, &kb))
		return -1;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (ta[i] && ta[i] == tb[j]) {
				ta[i] = tb[j] = 0;
				common++;
				break;
			}
	if (!common && (na > 1 || nb > 1))
		return -1;
	m = ka < kb ? ka : kb;     /* the constants cancel too */
	ka -= m;
	kb -= m;
	x = absint_const(ka);
	y = absint_const(kb);
	lo = hi = 0;
	for (i = 0; i < na; i++)
		if (ta[i]) {
			if (lo)
				return -1;
			lo = ta[i];
			z = get(w, lo);
			x = absint_alu(ISA_ADD, true, &z, &x);
		}
	for (j = 0; j < nb; j++)
		if (tb[j]) {
			if (hi)
				return -1;
			hi = tb[j];
			z = get(w, hi);
			y = absint_alu(ISA_ADD, true, &z, &y);
		}
	/* the residues are parts of exact sums: no wrap */
	i = (unsigned)absint_cond(op, true, &x, &y);
	if ((int)i >= 0 || !common)
		return (int)i;
	if (lo && hi && !ka && !kb)
		return absint_fact_decide(w, op, true, lo, hi);
	return -1;
}

/* The largest value ID (a sum of two terms, one of them T below C by an
 * ordering fact) can have by a bound on the sum with C for T (a
 * C_SBOUND: the spec's `first + count <= 256`): `first + hash % count`
 * is below `first + count`. Its value's largest otherwise. */
uint64_t absint_sum_upper(struct walk *w, uint32_t id)
{
	uint32_t t[4], c;
	unsigned n = 0, i;
	uint64_t k = 0, best = get(w, id).umax;
	const struct cell *f, *e;
	struct cell_it fi, ei;

	if (!summed(w, id) || !terms(w, id, 3, t, &n, &k) || n != 2 || k)
		return best;
	for (i = 0; i < 2; i++) {
		for (f = kind_first(w, &fi, C_FACT); f; f = cell_next(w, &fi)) {
			if (f->op != ISA_JLT || f->root != t[i])
				continue;
			c = find(w, f->b);
			for (e = kind_first(w, &ei, C_SBOUND); e; e = cell_next(w, &ei)) {
				if (e->off &&
				    ((e->root == t[!i] && e->b == c) || (e->b == t[!i] && e->root == c)) &&
				    e->off - 1 < best)
					best = e->off - 1;
			}
		}
	}
	return best;
}

/* An array map's lookup CALL (a constant map argument): its map, else -1. */
static int array_lookup(const struct walk *w, const struct ssa_insn *v)
{
	const struct ssa_insn *m;
	const struct obj_map *om;

	if (v->kind != SSA_CALL || v->ref->kind != INSN_REF_HELPER ||
	    v->imm != BPF_FUNC_map_lookup_elem || v->nargs < 2 || !w->p->o || w->p->bare)
		return -1;
	m = w->p->values[v->args[0]];
	if (m->kind != SSA_ADDR || m->ref->kind != INSN_REF_MAP || m->ref->index < 0 ||
	    (uint32_t)m->ref->index >= w->p->o->nmaps)
		return -1;
	om = &w->p->o->maps[m->ref->index];
	if (om->type != BPF_MAP_TYPE_ARRAY && om->type != BPF_MAP_TYPE_PERCPU_ARRAY)
		return -1;
	return m->ref->index;
}

/* The key of array lookup V as a value of the path (its stack bytes as an
 * insert wrote them), or 0. */
static uint32_t lookup_key(const struct walk *w, const struct ssa_insn *v)
{
	uint32_t i;
	unsigned byte;

	for (i = 0; i < v->nmem; i++) {
		const struct ssa_memarg *m = &v->mem[i];

		if (m->argno != 2 || m->first >= v->nargs)
			continue;
		byte = (unsigned)(ISA_STACK_SIZE + m->off) % 8;
		return byte + 4 <= 8 ? absint_slot_bytes(w, v->args[m->first], byte, 4) : 0;
	}
	return 0;
}

/* Value ID was narrowed: when it is an array lookup's result that is now
 * NULL, its key is at least max_entries (the encoder's lookup, smt_call.c
 * map_lookup: the entry below it, NULL past it): the key narrowed so and
 * a C_ATLEAST asked again in case splits; false: no run (the key cannot
 * be that large). */
bool absint_lookup_refined(struct walk *w, uint32_t id)
{
	const struct ssa_insn *v = w->p->values[id];
	struct absint_val r = get(w, id), t = absint_top();
	uint32_t key;
	int mi;

	if (r.umax != 0 || (mi = array_lookup(w, v)) < 0)
		return true;
	if (!(key = lookup_key(w, v)))
		return true;
	t.umin = w->p->o->maps[mi].max_entries;
	if (!absint_sync(&t) || !absint_narrow(w, key, &t, 2))
		return false;
	absint_cell_push(w, &(struct cell){ .kind = C_ATLEAST, .root = find(w, key),
					    .off = t.umin });
	return true;
}
