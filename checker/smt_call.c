/* smt_call.c - helper and kfunc calls in the encoding (models.h): r0 from
 * the call's model, and the memory after it (smt_mem.c's regions): the
 * regions of written pointer arguments and the model's effects (a map's
 * values, the packet's bytes and pointers, any memory) get fresh arrays;
 * an unknown helper or kfunc returns any value and havocs the regions of
 * its pointer arguments (a note says so). mem_call_clobbers() says the
 * same without Z3, for the abstract-interpretation pre-pass.
 */
#include "smt_priv.h"

#include "instrument.h"
#include "models.h"
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void havoc_region(struct enc *en, unsigned r)
{
	if (r == MR_PKT)
		en->ms.pktw = en->s->t;
	en->ms.r[r] = fresh(en->s, "havoc_mem", en->s->mem);
}

static void havoc_all(struct enc *en)
{
	unsigned r;

	for (r = 0; r < en->e->nregions; r++)
		havoc_region(en, r);
}

/* The memory behind argument A (0-based) may change. */
static void havoc_arg(struct enc *en, const struct ssa_insn *v, unsigned a)
{
	uint16_t r = en->rg[v->args[a]];

	if (r >= RG_MEM0)
		havoc_region(en, r - RG_MEM0);
	else if (r == RG_TOP)
		havoc_all(en);
}

/* New packet pointers after a helper that changes the packet. */
static void packet_moves(struct enc *en)
{
	struct smt *s = en->s;
	Z3_ast d = fresh(s, "pkt_data", s->bv64), e = fresh(s, "pkt_end", s->bv64);
	Z3_ast m = fresh(s, "pkt_meta", s->bv64);

	smt_assume(s, and3(s, ule(s, k(s, 64, SMT_PKT_BASE), d), ule(s, d, e),
			   ule(s, e, add(s, d, k(s, 64, SMT_PKT_MAX)))));
	smt_assume(s, smt_and(s, ule(s, sub(s, d, k(s, 64, 32)), m),
			      ule(s, m, add(s, d, k(s, 64, 1)))));
	en->ms.data = d;
	en->ms.end = e;
	en->ms.meta = m;
	havoc_region(en, MR_PKT);
}

/* bpf_xdp_adjust_head/tail/meta: on success (r0 == 0) the pointer moves
 * by (s32)arg2 within the kernel's limits; the bytes may change. */
static void packet_adjust(struct enc *en, const struct ssa_insn *v, unsigned fx, Z3_ast r0)
{
	struct smt *s = en->s;
	Z3_ast ok = smt_eq(s, r0, s->zero64);
	Z3_ast delta = widen(s, low(s, smt_use(en, v->args[1]), 32), 32, true);
	Z3_ast d = en->ms.data, e = en->ms.end, m = en->ms.meta, nd, ne, nm;
	Z3_ast eth = k(s, 64, 14);

	if (fx & MODEL_FX_HEAD) {
		nd = add(s, d, delta);
		smt_assume(s, smt_implies(s, ok, smt_and(s, ule(s, k(s, 64, SMT_PKT_BASE), nd),
							 ule(s, add(s, nd, eth), e))));
		en->ms.data = ite(s, ok, nd, d);
		en->ms.meta = ite(s, ok, sub(s, nd, sub(s, d, m)), m);
	} else if (fx & MODEL_FX_TAIL) {
		ne = add(s, e, delta);
		smt_assume(s, smt_implies(s, ok, smt_and(s, ule(s, add(s, d, eth), ne),
							 ule(s, ne, add(s, d, k(s, 64, SMT_PKT_MAX))))));
		en->ms.end = ite(s, ok, ne, e);
	} else {
		nm = add(s, m, delta);
		smt_assume(s, smt_implies(s, ok, smt_and(s, ule(s, sub(s, d, k(s, 64, 32)), nm),
							 ule(s, nm, d))));
		en->ms.meta = ite(s, ok, nm, m);
	}
	en->ms.r[MR_PKT] = ite(s, ok, fresh(s, "pkt_adjusted", s->mem), en->ms.r[MR_PKT]);
	/* written when it succeeded: a failing adjust leaves the frame alone */
	en->ms.pktw = Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){ en->ms.pktw, ok }));
}

/* The 4-byte array key behind argument 2 of a lookup: from the stack slots
 * the call reads, or from the key's region; NULL if unknown. */
static Z3_ast array_key(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	Z3_ast *arr, pair;
	uint32_t i;
	unsigned byte;

	for (i = 0; i < v->nmem; i++) {
		const struct ssa_memarg *m = &v->mem[i];

		if (m->argno != 2)
			continue;
		byte = (unsigned)(ISA_STACK_SIZE + m->off) % 8;
		pair = smt_use(en, v->args[m->first]);
		if (byte + 4 > 8) {
			if (m->nslots < 2)
				return NULL;
			pair = cat(s, smt_use(en, v->args[m->first + 1]), pair);
		}
		return widen(s, bits(s, 8 * byte + 31, 8 * byte, pair), 32, false);
	}
	if (en->rg[v->args[1]] < RG_MEM0)
		return NULL;
	arr = mem_array(en, v->args[1], false);
	return arr ? mem_load(s, *arr, smt_use(en, v->args[1]), 4, false) : NULL;
}

/* How many lookups of map MI come before V in the program. */
static unsigned lookup_ordinal(const struct enc *en, const struct ssa_insn *v, int mi)
{
	const struct ssa_prog *p = en->p;
	unsigned n = 0;
	uint32_t id;

	for (id = 0; id < v->id; id++) {
		const struct ssa_insn *w = p->values[id];

		if (w->kind == SSA_CALL && w->ref->kind == INSN_REF_HELPER &&
		    w->imm == BPF_FUNC_map_lookup_elem && mem_map_arg(en, w->args[0]) == mi)
			n++;
	}
	return n < 0xffff ? n : 0xffff;
}

/* The key of bpf_redirect_map call V is inside its map as far as the
 * kernel's lookup goes: below max_entries for each array map (DEVMAP,
 * CPUMAP, XSKMAP: __cpu_map_lookup_elem and its kin return NULL past it)
 * that V's map argument may be (a phi of two maps is one call for both). */
static Z3_ast redirect_key_ok(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	const struct object *o = en->p->o;
	Z3_ast map = smt_use(en, v->args[0]), key = low(s, smt_use(en, v->args[1]), 32);
	Z3_ast ok = s->t;
	uint32_t i;

	for (i = 0; i < o->nmaps; i++) {
		if (!model_redirect_array(o->maps[i].type))
			continue;
		ok = smt_and(s, ok, smt_implies(s, smt_eq(s, map, k(s, 64, REPLAY_MAP_HANDLE(i))),
						Z(s, Z3_mk_bvult(s->ctx, key, k(s, 32, o->maps[i].max_entries)))));
	}
	return ok;
}

static Z3_ast map_lookup(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	int mi = mem_map_arg(en, v->args[0]);
	const struct obj_map *m;
	Z3_ast key, base, slot, nul;
	uint64_t stride;
	unsigned j;

	if (mi < 0)
		return fresh(s, "lookup", s->bv64);
	m = &en->p->o->maps[mi];
	stride = ((uint64_t)m->value_size + 7) & ~7ull;
	if (!stride)
		stride = 8;
	base = k(s, 64, SMT_MAP_BASE(mi));
	if (m->type == BPF_MAP_TYPE_ARRAY || m->type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		key = array_key(en, v);
		if (key)
			return ite(s, Z(s, Z3_mk_bvult(s->ctx, key, k(s, 64, m->max_entries))),
				   add(s, base, Z(s, Z3_mk_bvmul(s->ctx, key, k(s, 64, stride)))),
				   s->zero64);
	}
	/* The j-th lookup of this map in the program (value order) is an entry
	 * of its own or one of the j before: entry slot 0 .. j. (Which slot a
	 * new entry gets does not matter, its bytes are free; this keeps the
	 * first lookup's address concrete.) */
	j = lookup_ordinal(en, v, mi);
	if (j == 0) {
		slot = s->zero64;
	} else {
		slot = widen(s, fresh(s, "entry", Z3_mk_bv_sort(s->ctx, 16)), 16, false);
		smt_assume(s, ule(s, slot, k(s, 64, j)));
	}
	nul = fresh(s, "absent", Z3_mk_bool_sort(s->ctx));
	return ite(s, nul, s->zero64, add(s, base, Z(s, Z3_mk_bvmul(s->ctx, slot, k(s, 64, stride)))));
}

static Z3_ast errno_ret(struct smt *s, Z3_ast r)
{
	smt_assume(s, smt_and(s, Z(s, Z3_mk_bvsle(s->ctx, k(s, 64, (uint64_t)-4095), r)),
			      Z(s, Z3_mk_bvsle(s->ctx, r, s->zero64))));
	return r;
}

/* bpf_skb_load_bytes(skb, off, to, len) on an __sk_buff (net/core/filter.c):
 * off > limit -> -EFAULT (limit: 0xffff in old kernels, INT_MAX since);
 * else skb_header_pointer(), which fails exactly when off + len > skb->len
 * -> -EFAULT; else 0. skb->len is ctx.len (offset 0) at the call: helpers
 * that change it take the context as PTR and havoc it. The flow dissector's
 * skb_load_bytes (same id, another context) keeps the ERRNO model. */
static Z3_ast skb_load_ret(struct enc *en, const struct ssa_insn *v, Z3_ast r)
{
	struct smt *s = en->s;
	Z3_ast len, off, n, inb, efault = k(s, 64, (uint64_t)-EFAULT);

	if (!model_skb_load_exact(en->prog_type) || en->rg[v->args[0]] != RG_MEM0 + MR_CTX || en->ctxoff[v->args[0]] != 0)
		return errno_ret(s, r);
	len = mem_load(s, en->ms.r[MR_CTX], k(s, 64, SMT_CTX_BASE), 4, false);
	off = widen(s, bits(s, 31, 0, smt_use(en, v->args[1])), 32, false);
	n = widen(s, bits(s, 31, 0, smt_use(en, v->args[3])), 32, false);
	inb = ule(s, add(s, off, n), len);
	smt_assume(s, Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){ smt_eq(s, r, s->zero64),
							    smt_eq(s, r, efault) })));
	smt_assume(s, smt_implies(s, smt_and(s, inb, ule(s, off, k(s, 64, 0xffff))),
				  smt_eq(s, r, s->zero64)));
	smt_assume(s, smt_implies(s, Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){
					  smt_not(s, inb), ule(s, k(s, 64, 0x80000000u), off) })),
				  smt_eq(s, r, efault)));
	return r;
}

static Z3_ast model_ret(struct enc *en, const struct ssa_insn *v, const struct helper_model *m)
{
	struct smt *s = en->s;
	Z3_ast r = fresh(s, "ret", s->bv64), b;

	switch (m->ret) {
	case MODEL_RET_ANY: case MODEL_RET_VOID:
		return r;
	case MODEL_RET_RANGE:
		if (m->sign)
			smt_assume(s, smt_and(s, Z(s, Z3_mk_bvsle(s->ctx, k(s, 64, (uint64_t)m->lo), r)),
					      Z(s, Z3_mk_bvsle(s->ctx, r, k(s, 64, (uint64_t)m->hi)))));
		else
			smt_assume(s, smt_and(s, ule(s, k(s, 64, (uint64_t)m->lo), r),
					      ule(s, r, k(s, 64, (uint64_t)m->hi))));
		return r;
	case MODEL_RET_ERRNO:
		return errno_ret(s, r);
	case MODEL_RET_SKB_LOAD:
		return skb_load_ret(en, v, r);
	case MODEL_RET_MAP_VALUE:
		return map_lookup(en, v);
	case MODEL_RET_RINGBUF:
		b = fresh(s, "rb_fail", Z3_mk_bool_sort(s->ctx));
		return ite(s, b, s->zero64, k(s, 64, SMT_RB_BASE(v->id)));
	case MODEL_RET_KPTR:
		smt_assume(s, Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){ smt_eq(s, r, s->zero64),
			ule(s, k(s, 64, KERNEL_LO), r) })));
		return r;
	case MODEL_RET_REDIRECT_MAP: {
		/* flags outside BPF_F_ACTION_MASK | BPF_F_BROADCAST |
		 * BPF_F_EXCLUDE_INGRESS: XDP_ABORTED; else XDP_REDIRECT, or
		 * the flags' action when the lookup fails */
		Z3_ast fl = smt_use(en, v->args[2]);
		Z3_ast bad = smt_not(s, smt_eq(s, Z(s, Z3_mk_bvand(s->ctx, fl, k(s, 64, ~0x1bull))),
					      s->zero64));

		b = fresh(s, "redirected", Z3_mk_bool_sort(s->ctx));
		b = smt_and(s, b, redirect_key_ok(en, v));
		return ite(s, bad, s->zero64,
			   ite(s, b, k(s, 64, 4), Z(s, Z3_mk_bvand(s->ctx, fl, k(s, 64, 3)))));
	}
	case MODEL_RET_REDIRECT:
		b = fresh(s, "redirected", Z3_mk_bool_sort(s->ctx));
		if (en->prog_type == BPF_PROG_TYPE_XDP)
			return ite(s, b, k(s, 64, 4), s->zero64);
		return ite(s, b, k(s, 64, 7), k(s, 64, 2));
	}
	return r;
}

/* The note of a call without a model. */
static void unmodelled_note(const struct enc *en, const struct ssa_insn *v, char *buf, size_t len)
{
	if (v->ref->kind == INSN_REF_KFUNC)
		snprintf(buf, len, "kfunc %s is not modelled: any result, and memory it gets a pointer to may change",
			 en->p->o->kfuncs[v->ref->index].name);
	else
		snprintf(buf, len, "helper %s (%lld) is not modelled: any result, and memory it gets a pointer to may change",
			 helper_name((int)v->imm) ? helper_name((int)v->imm) : "?", (long long)v->imm);
}

Z3_ast mem_encode_call(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	const struct helper_model *m;
	const struct kfunc_model *km;
	Z3_ast r0;
	unsigned a;
	char buf[200];

	if (!en->objmode) {
		en->ms.r[MR_FLAT] = fresh(s, "mem_call", s->mem);
		return fresh(s, "call", s->bv64);
	}
	en->e->call_before[v->id] = arena_alloc(en->a, sizeof(struct smt_mem));
	*en->e->call_before[v->id] = mem_copy(en, &en->ms);
	m = mem_call_model(v);
	km = v->ref->kind == INSN_REF_KFUNC ? model_kfunc(en->p->o->kfuncs[v->ref->index].name) : NULL;
	if (km) {
		struct helper_model hm = { .ret = km->ret, .lo = km->lo, .hi = km->hi,
					   .sign = km->sign };

		r0 = model_ret(en, v, &hm);
		for (a = 0; a < 5; a++)
			havoc_arg(en, v, a);
	} else if (!m) {
		unmodelled_note(en, v, buf, sizeof(buf));
		mem_note(en, buf);
		r0 = fresh(s, "call", s->bv64);
		for (a = 0; a < 5; a++)
			havoc_arg(en, v, a);
	} else {
		r0 = model_ret(en, v, m);
		for (a = 0; a < 5; a++)
			if (m->arg[a] == MODEL_ARG_WRITE || m->arg[a] == MODEL_ARG_PTR)
				havoc_arg(en, v, a);
		if (m->fx & MODEL_FX_MAP) {
			int mi = mem_map_arg(en, v->args[0]);

			if (mi >= 0)
				havoc_region(en, MR_MAP0 + (unsigned)mi);
			else
				for (a = MR_MAP0; a < en->e->nregions; a++)
					havoc_region(en, a);
		}
		if (m->fx & MODEL_FX_ALL) {
			havoc_all(en);
			packet_moves(en);
		} else if (m->fx & (MODEL_FX_HEAD | MODEL_FX_TAIL | MODEL_FX_META)) {
			packet_adjust(en, v, m->fx, r0);
		} else if (m->fx & MODEL_FX_PACKET) {
			packet_moves(en);
		}
	}
	en->e->call_after[v->id] = arena_alloc(en->a, sizeof(struct smt_mem));
	*en->e->call_after[v->id] = mem_copy(en, &en->ms);
	return r0;
}

Z3_ast mem_encode_tailret(struct enc *en, const struct ssa_insn *v)
{
	en->e->call_before[v->id] = arena_alloc(en->a, sizeof(struct smt_mem));
	*en->e->call_before[v->id] = mem_copy(en, &en->ms);
	havoc_all(en);
	packet_moves(en);
	en->e->call_after[v->id] = arena_alloc(en->a, sizeof(struct smt_mem));
	*en->e->call_after[v->id] = mem_copy(en, &en->ms);
	return fresh(en->s, "tailret", en->s->bv64);
}

/* The memory behind argument A may change (havoc_arg). */
static bool arg_havocs(const struct enc *en, const struct ssa_insn *v, unsigned a)
{
	uint16_t r = en->rg[v->args[a]];

	return r >= RG_MEM0 || r == RG_TOP;
}

/* mem_encode_call's rule, without Z3: any region it havocs, or the packet
 * moved, is SMT_MEM_ANY (the pre-pass forgets every cell). */
uint16_t mem_precheck_call(struct enc *en, const struct ssa_insn *v)
{
	const struct helper_model *m = mem_call_model(v);
	char buf[200];
	unsigned a;

	if (!m && !(v->ref->kind == INSN_REF_KFUNC &&
		    model_kfunc(en->p->o->kfuncs[v->ref->index].name))) {
		unmodelled_note(en, v, buf, sizeof(buf));
		mem_note(en, buf);
	}
	for (a = 0; a < 5; a++)
		if ((!m || m->arg[a] == MODEL_ARG_WRITE || m->arg[a] == MODEL_ARG_PTR) &&
		    arg_havocs(en, v, a))
			return SMT_MEM_ANY;
	if (m && (m->fx & (MODEL_FX_MAP | MODEL_FX_ALL | MODEL_FX_HEAD | MODEL_FX_TAIL |
			   MODEL_FX_META | MODEL_FX_PACKET)))
		return SMT_MEM_ANY;
	return 0;
}
