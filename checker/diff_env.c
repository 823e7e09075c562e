/* diff_env.c - the environment the two runs of `bpf-invcheck diff` share
 * (diff.c has the rest): which calls of the old and the new version match
 * (same callee, same symbolic call index, map lookups at any index), when
 * they ask the same question (scalar arguments, pointer arguments and the
 * stack or region bytes behind them), the implications "same question =>
 * same answer" assumed for each matching pair, kernel memory as an input
 * of both, and the formula "the call sequences differ".
 */
#include "diff_priv.h"
#include "helper_arity.h"
#include "models.h"

#include <bpf/btf.h>
#include <string.h>

/* ---- matching ------------------------------------------------------------ */

static const char *kfunc_base(const char *name, size_t *len)
{
	const char *f = strstr(name, "___");

	*len = f ? (size_t)(f - name) : strlen(name);
	return name;
}

/* Same callee: the same helper id, or kfuncs of the same name (flavour
 * suffixes ___v2, ___compat ignored). */
bool diff_same_callee(const struct side *a, const struct ssa_insn *v,
			const struct side *b, const struct ssa_insn *w)
{
	size_t la, lb;
	const char *na, *nb;

	if (v->ref->kind != w->ref->kind)
		return false;
	if (v->ref->kind != INSN_REF_KFUNC)
		return v->imm == w->imm;
	na = kfunc_base(a->p->o->kfuncs[v->ref->index].name, &la);
	nb = kfunc_base(b->p->o->kfuncs[w->ref->index].name, &lb);
	return la == lb && !strncmp(na, nb, la);
}

/* How many arguments the callee reads: the helper's prototype in libbpf's
 * bpf_helper_defs.h, the kfunc's BTF prototype; 5 when unknown. */
unsigned diff_arity(const struct side *sd, const struct ssa_insn *v)
{
	const char *proto, *p;
	unsigned n = 1;
	int depth = 0;

	if (v->ref->kind != INSN_REF_KFUNC) {
		if (v->imm >= 0 && v->imm < HELPER_ARITY_MAX && helper_arity[v->imm] <= 5)
			return helper_arity[v->imm];
		return 5;
	}
	proto = sd->p->o->kfuncs[v->ref->index].proto;
	p = proto ? strchr(proto, '(') : NULL;
	if (!p)
		return 5;
	if (!strncmp(p, "()", 2) || !strncmp(p, "(void)", 6))
		return 0;
	for (p++; *p && (*p != ')' || depth); p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && !depth)
			n++;
	}
	return n < 5 ? n : 5;
}

static Z3_ast val(const struct side *sd, uint32_t id)
{
	return sd->e->val[id];
}

static const struct ssa_memarg *memarg(const struct ssa_insn *v, unsigned argno)
{
	uint32_t i;

	for (i = 0; i < v->nmem; i++)
		if (v->mem[i].argno == argno)
			return &v->mem[i];
	return NULL;
}

/* Argument A of V (old) and W (new) as one term: a map reference (LD
 * imm64 of a map: its value is no address) is equal iff it is the same map
 * (the objects' maps match by index); NULL: no comparison possible. */
Z3_ast diff_arg_equal(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w,
			unsigned a)
{
	const struct ssa_insn *x = d->o.p->values[v->args[a]], *y = d->n.p->values[w->args[a]];
	bool mx = x->kind == SSA_ADDR && x->ref->kind == INSN_REF_MAP;
	bool my = y->kind == SSA_ADDR && y->ref->kind == INSN_REF_MAP;

	if (mx || my)
		return mx && my && x->ref->index == y->ref->index && x->imm == y->imm
			? Z3_mk_true(d->z) : Z3_mk_false(d->z);
	if (!val(&d->o, x->id) || !val(&d->n, y->id))
		return NULL;
	return smt_eq(d->s, val(&d->o, x->id), val(&d->n, y->id));
}

static bool is_map_ref(const struct side *sd, uint32_t id)
{
	const struct ssa_insn *x = sd->p->values[id];

	return x->kind == SSA_ADDR && x->ref->kind == INSN_REF_MAP;
}

/* Byte I of the stack range a memory argument starts at; NULL when the
 * lift has no such slot, or its value is undefined. */
static Z3_ast stack_byte(struct pair *d, const struct side *sd, const struct ssa_insn *v,
			 const struct ssa_memarg *m, unsigned i, bool *missing)
{
	unsigned at = (unsigned)(512 + m->off) % 8 + i;
	Z3_ast t;

	*missing = at / 8 >= m->nslots;
	if (*missing)
		return NULL;
	t = val(sd, v->args[m->first + at / 8]);
	return t ? Z3_mk_extract(d->z, 8 * (at % 8) + 7, 8 * (at % 8), t) : NULL;
}

/* The N bytes at two memory arguments are equal; NULL when that cannot be
 * said. Bytes undefined in both (uninitialised stack, which the kernel's
 * verifier does not let a callee read) are skipped. */
static Z3_ast stack_equal(struct pair *d, const struct ssa_insn *v, const struct ssa_memarg *ma,
			  const struct ssa_insn *w, const struct ssa_memarg *mb, unsigned n)
{
	Z3_ast acc = Z3_mk_true(d->z);
	unsigned i;

	if (!n || n > 64)
		return NULL;
	for (i = 0; i < n; i++) {
		bool xm, ym;
		Z3_ast x = stack_byte(d, &d->o, v, ma, i, &xm), y = stack_byte(d, &d->n, w, mb, i, &ym);

		if (xm || ym || (!x) != (!y))
			return NULL;
		if (x)
			acc = and2(d, acc, Z3_mk_eq(d->z, x, y));
	}
	return acc;
}

/* Bytes the argument A (0-based) of a modelled helper reads, when known. */
static unsigned read_size(const struct side *sd, const struct ssa_insn *v,
			  const struct helper_model *m, unsigned a)
{
	int mi;

	if (m->arg[a] == MODEL_ARG_KEY || m->arg[a] == MODEL_ARG_VALUE) {
		const struct ssa_insn *map = sd->p->values[v->args[0]];

		if (map->kind != SSA_ADDR || map->ref->kind != INSN_REF_MAP)
			return 0;
		mi = map->ref->index;
		return m->arg[a] == MODEL_ARG_KEY ? sd->p->o->maps[mi].key_size
						  : sd->p->o->maps[mi].value_size;
	}
	if (!m->size_arg[a])
		return m->size[a];
	return 0;
}

/* A kfunc's pointer argument A (0-based): the size of what it points to,
 * from the kfunc's BTF prototype; 0 when unknown. */
static unsigned kfunc_pointee(const struct side *sd, const struct ssa_insn *v, unsigned a)
{
	const struct btf *btf = sd->p->o->btf;
	const struct btf_type *fn, *proto, *t;
	const struct btf_param *par;
	__s64 size;

	if (v->ref->kind != INSN_REF_KFUNC || !btf || !sd->p->o->kfuncs[v->ref->index].btf_id)
		return 0;
	fn = btf__type_by_id(btf, sd->p->o->kfuncs[v->ref->index].btf_id);
	proto = fn && btf_is_func(fn) ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto) || a >= btf_vlen(proto))
		return 0;
	par = btf_params(proto) + a;
	t = btf__type_by_id(btf, par->type);
	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return 0;
	size = btf__resolve_size(btf, t->type);
	return size > 0 && size <= 64 ? (unsigned)size : 0;
}

/* Bytes a helper's WRITE argument A writes: a constant size, or the
 * constant value of its size argument; 0 when unknown. */
static unsigned write_size(const struct side *sd, const struct ssa_insn *v,
			   const struct helper_model *m, unsigned a)
{
	const struct ssa_insn *n;

	if (!m)
		return kfunc_pointee(sd, v, a);
	if (!m->size_arg[a])
		return m->size[a] <= 64 ? m->size[a] : 0;
	if (m->size_arg[a] > v->nargs)
		return 0;
	n = sd->p->values[v->args[m->size_arg[a] - 1]];
	return n->kind == SSA_CONST && n->imm > 0 && n->imm <= 64 ? (unsigned)n->imm : 0;
}

/* Byte I of the stack a call wrote through memory argument M (its value
 * after the call), or NULL. */
static Z3_ast written_byte(struct pair *d, const struct side *sd, const struct ssa_memarg *m,
			   unsigned i)
{
	unsigned at = (unsigned)(512 + m->off) + i;
	int j = (int)(at / 8) - (int)m->wfirst;
	Z3_ast t;

	if (!m->written || j < 0 || j >= (int)m->wcount)
		return NULL;
	t = val(sd, m->wvals[j]);
	return t ? Z3_mk_extract(d->z, 8 * (at % 8) + 7, 8 * (at % 8), t) : NULL;
}

/* Every memory region and the packet pointers are equal before the calls. */
static Z3_ast memory_equal(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w)
{
	const struct smt_mem *a = d->o.e->call_before[v->id], *b = d->n.e->call_before[w->id];
	Z3_ast acc = Z3_mk_true(d->z);
	unsigned r;

	if (!a || !b)
		return Z3_mk_false(d->z);
	for (r = 0; r < d->o.e->nregions; r++)
		acc = and2(d, acc, Z3_mk_eq(d->z, a->r[r], b->r[r]));
	if (a->data && b->data)
		acc = and2(d, acc, and2(d, smt_eq(d->s, a->data, b->data),
					and2(d, smt_eq(d->s, a->end, b->end),
					     smt_eq(d->s, a->meta, b->meta))));
	return acc;
}

/* The two calls ask the same question: scalar arguments equal, pointer
 * arguments equal and the memory behind them equal. NULL where that cannot
 * be expressed (then the answers stay independent: sound; and a replayed
 * difference in which such calls answered differently is not shown). */
Z3_ast diff_same_question(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w)
{
	const struct helper_model *m = v->ref->kind == INSN_REF_HELPER ? model_helper((int)v->imm) : NULL;
	unsigned n = diff_arity(&d->o, v), a;
	Z3_ast acc = Z3_mk_true(d->z);
	bool mem = !m || m->fx;

	if (diff_arity(&d->n, w) != n)
		return NULL;
	for (a = 0; a < n; a++) {
		const struct ssa_memarg *ma = memarg(v, a + 1), *mb = memarg(w, a + 1);
		Z3_ast x = val(&d->o, v->args[a]), y = val(&d->n, w->args[a]);

		if (a >= v->nargs || a >= w->nargs || !x || !y)
			return NULL;
		if (ma && mb && m && m->arg[a] == MODEL_ARG_WRITE) {
			/* stack the callee only writes: the question is its size */
			unsigned sz = write_size(&d->o, v, m, a);

			if (!sz || sz != write_size(&d->n, w, m, a))
				return NULL;
			continue;
		}
		if (ma || mb) {
			/* a pointer to the stack: the bytes it reads */
			unsigned size = m ? read_size(&d->o, v, m, a) : kfunc_pointee(&d->o, v, a);
			Z3_ast bx;

			if (!ma || !mb)
				return NULL;
			if (!size) {
				/* size unknown: the same offset and every slot up to r10 */
				if (ma->off != mb->off || ma->nslots != mb->nslots)
					return NULL;
				size = (unsigned)-ma->off;
				if (size > 64)
					return NULL;
				acc = and2(d, acc, smt_eq(d->s, x, y));
			}
			bx = stack_equal(d, v, ma, w, mb, size);
			if (!bx)
				return NULL;
			acc = and2(d, acc, bx);
			continue;
		}
		x = diff_arg_equal(d, v, w, a);
		if (!x)
			return NULL;
		acc = and2(d, acc, x);
		if (!is_map_ref(&d->o, v->args[a]) &&
		    (d->o.e->region[v->args[a]] != 0 || d->n.e->region[w->args[a]] != 0))
			mem = true;   /* a pointer into a region (or maybe one) */
	}
	if (mem)
		acc = and2(d, acc, memory_equal(d, v, w));
	return acc;
}

/* The same answer: r0 (for a ring buffer reservation: success or not; the
 * two reservations live at different addresses). */
static Z3_ast same_answer(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w)
{
	Z3_ast x = val(&d->o, v->id), y = val(&d->n, w->id);

	Z3_ast acc;
	uint32_t i, j;

	if (v->ref->kind == INSN_REF_HELPER && v->imm == BPF_FUNC_ringbuf_reserve)
		acc = Z3_mk_eq(d->z, smt_eq(d->s, x, smt_bv64(d->s, 0)),
			       smt_eq(d->s, y, smt_bv64(d->s, 0)));
	else
		acc = smt_eq(d->s, x, y);
	/* a taken tail call runs the same program on the same state: the
	 * exits it leads to return the same value */
	if (v->ref->kind == INSN_REF_HELPER && v->imm == BPF_FUNC_tail_call) {
		const struct ssa_block *bo = d->o.p->blocks[v->block], *bn = d->n.p->blocks[w->block];

		for (i = 0; i < bo->nsucc; i++)
			for (j = 0; j < bn->nsucc; j++) {
				const struct ssa_block *to = d->o.p->blocks[bo->succ[i]];
				const struct ssa_block *tn = d->n.p->blocks[bn->succ[j]];

				if (to->term != SSA_TERM_EXIT || tn->term != SSA_TERM_EXIT ||
				    d->o.p->values[to->a]->kind != SSA_TAILRET ||
				    d->n.p->values[tn->a]->kind != SSA_TAILRET)
					continue;
				acc = and2(d, acc, smt_implies(d->s,
					and2(d, d->o.e->guard[to->id], d->n.e->guard[tn->id]),
					smt_eq(d->s, val(&d->o, to->a), val(&d->n, tn->a))));
			}
	}
	/* stack the call writes, where both versions pass the same slots
	 * (elsewhere the writes stay independent: the replay then says so) */
	for (i = 0; i < v->nmem; i++) {
		const struct ssa_memarg *ma = &v->mem[i], *mb = memarg(w, ma->argno);
		const struct helper_model *m = v->ref->kind == INSN_REF_HELPER ? model_helper((int)v->imm) : NULL;
		unsigned n;

		if (!ma->written || !mb || !mb->written)
			continue;
		n = write_size(&d->o, v, m, ma->argno - 1u);
		if (!n || n != write_size(&d->n, w, m, ma->argno - 1u))
			continue;
		for (j = 0; j < n; j++) {
			Z3_ast bo = written_byte(d, &d->o, ma, j), bn = written_byte(d, &d->n, mb, j);

			if (bo && bn)
				acc = and2(d, acc, Z3_mk_eq(d->z, bo, bn));
		}
	}
	return acc;
}

/* Kernel memory (loads no region covers) is an input: the same address and
 * size read the same bytes in both versions. */
void diff_pair_kernel_reads(struct pair *d)
{
	const struct ssa_prog *po = d->o.p, *pn = d->n.p;
	uint32_t i, j;

	for (i = 0; i < po->nvalues; i++) {
		const struct ssa_insn *v = po->values[i];

		if (v->kind != SSA_LOAD || !d->o.e->kread[i])
			continue;
		for (j = 0; j < pn->nvalues; j++) {
			const struct ssa_insn *w = pn->values[j];
			Z3_ast at;

			if (w->kind != SSA_LOAD || !d->n.e->kread[j] || w->size != v->size)
				continue;
			at = and2(d, and2(d, guard_of(&d->o, v), guard_of(&d->n, w)),
				  smt_eq(d->s, d->o.e->kread[i], d->n.e->kread[j]));
			smt_assume(d->s, smt_implies(d->s, at,
				Z3_mk_eq(d->z, Z3_mk_extract(d->z, 8 * v->size - 1, 0, val(&d->o, i)),
					 Z3_mk_extract(d->z, 8 * w->size - 1, 0, val(&d->n, j)))));
		}
	}
}

/* Callee and scalar arguments: what the compared call sequences show. */
static Z3_ast same_call(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w)
{
	unsigned n = diff_arity(&d->o, v), a;
	Z3_ast acc = smt_eq(d->s, d->o.cidx[v->id], d->n.cidx[w->id]);

	for (a = 0; a < n && a < v->nargs && a < w->nargs; a++) {
		Z3_ast eq;

		if (d->o.e->region[v->args[a]] != 0 || d->n.e->region[w->args[a]] != 0)
			continue;   /* pointers are not compared */
		eq = diff_arg_equal(d, v, w, a);
		if (eq)
			acc = and2(d, acc, eq);
	}
	return acc;
}

/* ---- call indices ----------------------------------------------------------- */

/* IDX[call] = the number of calls the run made before it (16 bits), of
 * every call (ALL) or of the compared ones. */
static Z3_ast *count_calls(struct pair *d, struct side *sd, bool all)
{
	const struct ssa_prog *p = sd->p;
	Z3_ast *out = arena_new_array(d->a, Z3_ast, p->nblocks ? p->nblocks : 1);
	Z3_ast *idx = arena_new_array(d->a, Z3_ast, p->nvalues ? p->nvalues : 1);
	uint32_t b, i, j;

	for (b = 0; b < p->nblocks; b++) {
		const struct ssa_block *bl = p->blocks[b];
		Z3_ast cur = bvk(d, 16, 0);

		for (j = 0; j < bl->npreds; j++)
			cur = j == 0 ? out[bl->preds[0]]
				     : Z3_mk_ite(d->z, sd->e->edge[b][j], out[bl->preds[j]], cur);
		for (i = 0; i < bl->ninsns; i++) {
			const struct ssa_insn *v = bl->insns[i];

			if (v->kind != SSA_CALL || (!all && !compared(d, v)))
				continue;
			idx[v->id] = cur;
			cur = Z3_mk_bvadd(d->z, cur, bvk(d, 16, 1));
		}
		out[b] = cur;
	}
	return idx;
}

void diff_call_indices(struct pair *d, struct side *sd)
{
	for (uint32_t b = 0; b < sd->p->nblocks; b++)
		for (uint32_t i = 0; i < sd->p->blocks[b]->ninsns; i++)
			if (sd->p->blocks[b]->insns[i]->kind == SSA_CALL)
				*(uint32_t *)vec_push(d->a, &sd->calls, sizeof(uint32_t)) =
					sd->p->blocks[b]->insns[i]->id;
	sd->idx = count_calls(d, sd, true);
	sd->cidx = count_calls(d, sd, false);
}

/* Assume the shared environment; return "the call sequences differ". */
Z3_ast diff_pair_calls(struct pair *d)
{
	Z3_ast diff = Z3_mk_false(d->z);
	size_t i, j;

	for (i = 0; i < d->o.calls.len; i++) {
		const struct ssa_insn *v = call_at(&d->o, i);
		Z3_ast matched = Z3_mk_false(d->z);

		for (j = 0; j < d->n.calls.len; j++) {
			const struct ssa_insn *w = call_at(&d->n, j);
			Z3_ast both, at, q;

			if (!diff_same_callee(&d->o, v, &d->n, w))
				continue;
			both = and2(d, guard_of(&d->o, v), guard_of(&d->n, w));
			/* a map lookup answers from the map's state, whenever it
			 * is asked; other calls are answered in call order */
			at = (v->ref->kind == INSN_REF_HELPER && v->imm == BPF_FUNC_map_lookup_elem) ||
			     (d->opts->policy && d->opts->policy->any_index &&
			      d->opts->policy->any_index(v)) ? both
				: and2(d, both, smt_eq(d->s, d->o.idx[v->id], d->n.idx[w->id]));
			q = paired(d, v) ? diff_same_question(d, v, w) : NULL;
			if (q)
				smt_assume(d->s, smt_implies(d->s, and2(d, at, q), same_answer(d, v, w)));
			if (compared(d, v))
				matched = or2(d, matched, and2(d, both, same_call(d, v, w)));
		}
		if (compared(d, v))
			diff = or2(d, diff, and2(d, guard_of(&d->o, v), smt_not(d->s, matched)));
	}
	for (j = 0; j < d->n.calls.len; j++) {
		const struct ssa_insn *w = call_at(&d->n, j);
		Z3_ast matched = Z3_mk_false(d->z);

		if (!compared(d, w))
			continue;
		for (i = 0; i < d->o.calls.len; i++) {
			const struct ssa_insn *v = call_at(&d->o, i);

			if (diff_same_callee(&d->o, v, &d->n, w))
				matched = or2(d, matched, and2(d, and2(d, guard_of(&d->o, v),
								       guard_of(&d->n, w)),
							       same_call(d, v, w)));
		}
		diff = or2(d, diff, and2(d, guard_of(&d->n, w), smt_not(d->s, matched)));
	}
	return diff;
}
