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
 */
#include "diff.h"
#include "checker.h"
#include "instrument.h"
#include "models.h"
#include "smt.h"
#include "helper_arity.h"

#include <bpf/btf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct side {
	const struct loaded *l;
	const char *path;
	struct mon_check c;         /* an empty monitor: the bare program */
	struct ssa_prog *p;
	struct smt_prog *e;
	struct vec calls;           /* uint32_t: SSA_CALL value ids, block order */
	Z3_ast *idx;                /* by value id (calls): how many calls before */
	Z3_ast *cidx;               /* by value id: how many compared calls before */
	struct cex *x;
	struct replay_result rr;
	uint64_t worst;
	bool has_worst;
};

struct pair {
	struct smt *s;
	Z3_context z;
	struct side o, n;
	struct arena *a;
	const struct diff_opts *opts;
	Z3_ast claim;               /* the difference the model shows */
	char reason[512];
};

static Z3_ast guard_of(const struct side *sd, const struct ssa_insn *v);

/* The policy (diff.h): every call paired and compared by default. */
#define POLICY(d, f, v) (!(d)->opts->policy || !(d)->opts->policy->f || (d)->opts->policy->f(v))
#define paired(d, v) POLICY(d, paired, v)
#define compared(d, v) POLICY(d, compared, v)

static Z3_ast bvk(struct pair *d, unsigned bits, uint64_t v)
{
	return Z3_mk_unsigned_int64(d->z, v, Z3_mk_bv_sort(d->z, bits));
}

static Z3_ast and2(struct pair *d, Z3_ast a, Z3_ast b)
{
	return smt_and(d->s, a, b);
}

static Z3_ast or2(struct pair *d, Z3_ast a, Z3_ast b)
{
	Z3_ast t[2] = { a, b };

	return Z3_mk_or(d->z, 2, t);
}

/* ---- matching ------------------------------------------------------------ */

static const char *kfunc_base(const char *name, size_t *len)
{
	const char *f = strstr(name, "___");

	*len = f ? (size_t)(f - name) : strlen(name);
	return name;
}

/* Same callee: the same helper id, or kfuncs of the same name (flavour
 * suffixes ___v2, ___compat ignored). */
static bool same_callee(const struct side *a, const struct ssa_insn *v,
			const struct side *b, const struct ssa_insn *w)
{
	size_t la, lb;
	const char *na, *nb;

	if (v->ref.kind != w->ref.kind)
		return false;
	if (v->ref.kind != INSN_REF_KFUNC)
		return v->imm == w->imm;
	na = kfunc_base(a->p->o->kfuncs[v->ref.index].name, &la);
	nb = kfunc_base(b->p->o->kfuncs[w->ref.index].name, &lb);
	return la == lb && !strncmp(na, nb, la);
}

/* How many arguments the callee reads: the helper's prototype in libbpf's
 * bpf_helper_defs.h, the kfunc's BTF prototype; 5 when unknown. */
static unsigned arity(const struct side *sd, const struct ssa_insn *v)
{
	const char *proto, *p;
	unsigned n = 1;
	int depth = 0;

	if (v->ref.kind != INSN_REF_KFUNC) {
		if (v->imm >= 0 && v->imm < HELPER_ARITY_MAX && helper_arity[v->imm] <= 5)
			return helper_arity[v->imm];
		return 5;
	}
	proto = sd->p->o->kfuncs[v->ref.index].proto;
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
static Z3_ast arg_equal(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w,
			unsigned a)
{
	const struct ssa_insn *x = d->o.p->values[v->args[a]], *y = d->n.p->values[w->args[a]];
	bool mx = x->kind == SSA_ADDR && x->ref.kind == INSN_REF_MAP;
	bool my = y->kind == SSA_ADDR && y->ref.kind == INSN_REF_MAP;

	if (mx || my)
		return mx && my && x->ref.index == y->ref.index && x->imm == y->imm
			? Z3_mk_true(d->z) : Z3_mk_false(d->z);
	if (!val(&d->o, x->id) || !val(&d->n, y->id))
		return NULL;
	return smt_eq(d->s, val(&d->o, x->id), val(&d->n, y->id));
}

static bool is_map_ref(const struct side *sd, uint32_t id)
{
	const struct ssa_insn *x = sd->p->values[id];

	return x->kind == SSA_ADDR && x->ref.kind == INSN_REF_MAP;
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

		if (map->kind != SSA_ADDR || map->ref.kind != INSN_REF_MAP)
			return 0;
		mi = map->ref.index;
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

	if (v->ref.kind != INSN_REF_KFUNC || !btf || !sd->p->o->kfuncs[v->ref.index].btf_id)
		return 0;
	fn = btf__type_by_id(btf, sd->p->o->kfuncs[v->ref.index].btf_id);
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
static Z3_ast same_question(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w)
{
	const struct helper_model *m = v->ref.kind == INSN_REF_HELPER ? model_helper((int)v->imm) : NULL;
	unsigned n = arity(&d->o, v), a;
	Z3_ast acc = Z3_mk_true(d->z);
	bool mem = !m || m->fx;

	if (arity(&d->n, w) != n)
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
		x = arg_equal(d, v, w, a);
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

	if (v->ref.kind == INSN_REF_HELPER && v->imm == BPF_FUNC_ringbuf_reserve)
		acc = Z3_mk_eq(d->z, smt_eq(d->s, x, smt_bv64(d->s, 0)),
			       smt_eq(d->s, y, smt_bv64(d->s, 0)));
	else
		acc = smt_eq(d->s, x, y);
	/* a taken tail call runs the same program on the same state: the
	 * exits it leads to return the same value */
	if (v->ref.kind == INSN_REF_HELPER && v->imm == BPF_FUNC_tail_call) {
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
		const struct helper_model *m = v->ref.kind == INSN_REF_HELPER ? model_helper((int)v->imm) : NULL;
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
static void pair_kernel_reads(struct pair *d)
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
	unsigned n = arity(&d->o, v), a;
	Z3_ast acc = smt_eq(d->s, d->o.cidx[v->id], d->n.cidx[w->id]);

	for (a = 0; a < n && a < v->nargs && a < w->nargs; a++) {
		Z3_ast eq;

		if (d->o.e->region[v->args[a]] != 0 || d->n.e->region[w->args[a]] != 0)
			continue;   /* pointers are not compared */
		eq = arg_equal(d, v, w, a);
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

static void call_indices(struct pair *d, struct side *sd)
{
	for (uint32_t b = 0; b < sd->p->nblocks; b++)
		for (uint32_t i = 0; i < sd->p->blocks[b]->ninsns; i++)
			if (sd->p->blocks[b]->insns[i]->kind == SSA_CALL)
				*(uint32_t *)vec_push(d->a, &sd->calls, sizeof(uint32_t)) =
					sd->p->blocks[b]->insns[i]->id;
	sd->idx = count_calls(d, sd, true);
	sd->cidx = count_calls(d, sd, false);
}

static const struct ssa_insn *call_at(const struct side *sd, size_t i)
{
	return sd->p->values[((const uint32_t *)sd->calls.data)[i]];
}

static Z3_ast guard_of(const struct side *sd, const struct ssa_insn *v)
{
	return sd->e->guard[v->block];
}

/* Assume the shared environment; return "the call sequences differ". */
static Z3_ast pair_calls(struct pair *d)
{
	Z3_ast diff = Z3_mk_false(d->z);
	size_t i, j;

	for (i = 0; i < d->o.calls.len; i++) {
		const struct ssa_insn *v = call_at(&d->o, i);
		Z3_ast matched = Z3_mk_false(d->z);

		for (j = 0; j < d->n.calls.len; j++) {
			const struct ssa_insn *w = call_at(&d->n, j);
			Z3_ast both, at, q;

			if (!same_callee(&d->o, v, &d->n, w))
				continue;
			both = and2(d, guard_of(&d->o, v), guard_of(&d->n, w));
			/* a map lookup answers from the map's state, whenever it
			 * is asked; other calls are answered in call order */
			at = (v->ref.kind == INSN_REF_HELPER && v->imm == BPF_FUNC_map_lookup_elem) ||
			     (d->opts->policy && d->opts->policy->any_index &&
			      d->opts->policy->any_index(v)) ? both
				: and2(d, both, smt_eq(d->s, d->o.idx[v->id], d->n.idx[w->id]));
			q = paired(d, v) ? same_question(d, v, w) : NULL;
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

			if (same_callee(&d->o, v, &d->n, w))
				matched = or2(d, matched, and2(d, and2(d, guard_of(&d->o, v),
								       guard_of(&d->n, w)),
							       same_call(d, v, w)));
		}
		diff = or2(d, diff, and2(d, guard_of(&d->n, w), smt_not(d->s, matched)));
	}
	return diff;
}

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
		if (sd->p->blocks[b]->note && !strcmp(sd->p->blocks[b]->note, "bpf_loop")) {
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
	call_indices(d, sd);
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
	Z3_ast r = NULL;

	return Z3_model_eval(d->z, m, t, true, &r) && r && Z3_get_bool_value(d->z, r) == Z3_L_TRUE;
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
		if (!same_callee(&d->o, pa[i], &d->n, pb[i]))
			break;   /* the sequences differ here: later answers are free */
		if (!paired(d, pa[i]))
			continue;   /* independent answers by the policy */
		q = same_question(d, pa[i], pb[i]);
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
		if (!same_callee(&d->o, pa[i], &d->n, pb[i]))
			return true;
		n = arity(&d->o, pa[i]);
		for (a = 0; a < n && a < 5 && a < pa[i]->nargs && a < pb[i]->nargs; a++) {
			Z3_ast eq;

			if (d->o.e->region[pa[i]->args[a]] != 0 || d->n.e->region[pb[i]->args[a]] != 0)
				continue;
			eq = arg_equal(d, pa[i], pb[i], a);
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
		snprintf(r->reason, sizeof(r->reason), "internal error: no Z3 context");
		return;
	}
	d.z = smt_ctx(d.s);
	if (encode(&d, &d.o) || encode(&d, &d.n))
		goto reason;
	ro = Z3_mk_extract(d.z, 31, 0, d.o.e->result);
	rn = Z3_mk_extract(d.z, 31, 0, d.n.e->result);
	pair_kernel_reads(&d);
	r->void_ret = returns_void(lo->o, fo) && returns_void(ln->o, fn);
	both = and2(&d, d.o.e->reach_exit, d.n.e->reach_exit);
	calls = and2(&d, both, pair_calls(&d));
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
