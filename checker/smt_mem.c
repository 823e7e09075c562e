/* smt_mem.c - memory by region in the encoding (the calls: smt_call.c).
 *
 * Bare code (no object: conformance vectors, tests) keeps one flat byte
 * array for all non-stack memory. With an object, memory is split by
 * region (K2's lesson): the context, the packet, ringbuf reservations and
 * one array per map (global data sections are maps); stack slots are SSA
 * variables already. A pre-pass over the values in id order (definitions
 * come before uses, phis included: the DAG is lifted in topological order)
 * gives each value a region code:
 *   r1 at entry -> ctx; ctx + constant -> ctx at that offset; a 4-byte load
 *   of the context's data / data_end / data_meta field -> packet;
 *   LD imm64 of a map value or global -> that map; bpf_map_lookup_elem ->
 *   the map of its first argument (or NULL); ringbuf_reserve -> ringbuf;
 *   pointer +/- number -> the pointer's region; constant 0 -> NULL;
 *   phi / select -> the join (NULL joins with anything; two different
 *   regions, or a region and a number, give "different regions").
 * Loads and stores use the array of their pointer's region. A load through
 * a number (a kernel object behind a BTF pointer, a kptr) gives a fresh
 * value per load; its address is assumed to be a kernel address or NULL
 * plus a small offset, which keeps it apart from every modelled region
 * (the verifier allows such loads only through kernel pointers). A spec's
 * read through a number is a fresh value with no such assumption.
 * Stores through a number, and any access through a pointer whose region
 * differs by path, are not modelled: the program's verdicts become
 * unknown (e->unsupported).
 *
 * Addresses are fixed (smt.h: SMT_CTX_BASE ...): the verifier makes the
 * absolute value of a pointer unobservable (no arithmetic but +/-, no
 * comparison across regions), so fixing them loses nothing, and the replay
 * puts the regions at the same addresses. Array maps: the value of key k
 * is at SMT_MAP_BASE(m) + k * stride; other maps give each lookup a free
 * entry slot (two lookups may or may not alias), or NULL.
 *
 * Helper calls (smt_call.c) follow models.h; an unknown helper or kfunc
 * returns any value and havocs the regions of its pointer arguments (a
 * note says so).
 */
#include "smt_priv.h"

#include "instrument.h"
#include "models.h"
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(RG_MEM0 == SMT_REGION_MEM0, "smt.h names the first memory region code");


static unsigned nregions(const struct enc *en)
{
	return en->objmode ? MR_MAP0 + en->p->o->nmaps : 1;
}

void mem_note(struct enc *en, const char *text)
{
	size_t i;

	for (i = 0; i < en->notes.len; i++)
		if (!strcmp(((const char **)en->notes.data)[i], text))
			return;
	*(const char **)buf_push(&en->notes, sizeof(char *)) = arena_strdup(en->a, text);
}

void mem_unsupported(struct enc *en, const char *text)
{
	if (!en->e->unsupported)
		en->e->unsupported = arena_strdup(en->a, text);
}

/* ---- the region pre-pass ------------------------------------------------ */

static uint16_t join(uint16_t a, uint16_t b)
{
	if (a == b || b == RG_NULL)
		return a;
	if (a == RG_NULL)
		return b;
	if (a == RG_SCALAR && b == RG_SCALAR)
		return RG_SCALAR;
	return RG_TOP;
}

static bool is_ptr(uint16_t r)
{
	return r == RG_STACK || r >= RG_MEM0;
}

/* The map an argument names (LD imm64 of a map), or -1. */
int mem_map_arg(const struct enc *en, uint32_t id)
{
	const struct ssa_insn *v = en->p->values[id];

	return v->kind == SSA_ADDR && v->ref->kind == INSN_REF_MAP ? v->ref->index : -1;
}

const struct helper_model *mem_call_model(const struct ssa_insn *v)
{
	return v->ref->kind == INSN_REF_HELPER ? model_helper((int)v->imm) : NULL;
}

static uint16_t call_region(const struct enc *en, const struct ssa_insn *v)
{
	const struct helper_model *m = mem_call_model(v);
	int map;

	if (!m)
		return RG_SCALAR;
	switch (m->ret) {
	case MODEL_RET_MAP_VALUE:
		map = mem_map_arg(en, v->args[0]);
		return map < 0 ? RG_TOP : (uint16_t)(RG_MEM0 + MR_MAP0 + map);
	case MODEL_RET_RINGBUF:
		return RG_MEM0 + MR_RINGBUF;
	case MODEL_RET_ANY: case MODEL_RET_RANGE: case MODEL_RET_ERRNO: case MODEL_RET_KPTR:
	case MODEL_RET_REDIRECT_MAP: case MODEL_RET_REDIRECT: case MODEL_RET_SKB_LOAD:
	case MODEL_RET_VOID:
		break;
	}
	return RG_SCALAR;
}

static void region_alu(struct enc *en, const struct ssa_insn *v)
{
	uint16_t ra = en->rg[v->args[0]], rb = en->rg[v->args[1]];
	int64_t c;
	const struct ssa_insn *bv = en->p->values[v->args[1]];

	if (v->op == ISA_MOV) {
		en->rg[v->id] = v->is64 ? rb : RG_SCALAR;
		en->ctxoff[v->id] = en->ctxoff[v->args[1]];
		return;
	}
	if (!v->is64 || (v->op != ISA_ADD && v->op != ISA_SUB))
		return;
	if (is_ptr(ra) && !is_ptr(rb) && rb != RG_TOP) {
		en->rg[v->id] = ra;
		if (ra == RG_MEM0 + MR_CTX && en->ctxoff[v->args[0]] != INT64_MIN &&
		    bv->kind == SSA_CONST) {
			/* wrapping (a fuzzed constant may overflow), within
			 * 32 bits or unknown: only small offsets are fields */
			c = bv->imm;
			c = (int64_t)((uint64_t)en->ctxoff[v->args[0]] +
				      (v->op == ISA_ADD ? (uint64_t)c : -(uint64_t)c));
			if (c >= -(1ll << 32) && c <= (1ll << 32))
				en->ctxoff[v->id] = c;
		}
	} else if (v->op == ISA_ADD && is_ptr(rb) && !is_ptr(ra) && ra != RG_TOP) {
		en->rg[v->id] = rb;
	} else if (ra == RG_TOP || rb == RG_TOP) {
		en->rg[v->id] = RG_TOP;
	}
}

static bool pkt_field(const struct enc *en, int64_t off, unsigned size, Z3_ast **which,
		      struct smt_mem *ms)
{
	if (!en->has_pkt || size != 4)
		return false;
	if (off == en->off_data)
		*which = &ms->data;
	else if (off == en->off_end)
		*which = &ms->end;
	else if (off == en->off_meta)
		*which = &ms->meta;
	else
		return false;
	return true;
}

/* Is [OFF, OFF + SIZE) of the context exactly one of the packet pointer
 * fields (data, data_end, data_meta), or does it overlap one? The encoder
 * gives such a field's 4-byte load the packet pointer; the other bytes of
 * the context are free in the model, while the replay's context holds the
 * pointers: a load of ctx + 1 read free bytes in the model and the
 * pointer's in the replay (fuzz_check: the counterexample diverged). */
static bool is_pkt_field(const struct enc *en, int64_t off, unsigned size)
{
	return en->has_pkt && size == 4 &&
	       (off == en->off_data || off == en->off_end || off == en->off_meta);
}

static bool pkt_overlap(const struct enc *en, int64_t off, unsigned size)
{
	const uint32_t f[3] = { en->off_data, en->off_end, en->off_meta };
	unsigned i;

	if (!en->has_pkt)
		return false;
	for (i = 0; i < 3; i++)
		if (off < (int64_t)f[i] + 4 && (int64_t)f[i] < off + (int64_t)size)
			return true;
	return false;
}

/* A load, store or atomic through the context outside its SMT_CTX_SIZE
 * bytes, or at an offset that is not constant: the encoder's context is an
 * unbounded array, the replay's a region of that size (a load before it
 * went to the kernel-memory answers: the worst case did not replay). The
 * verifier allows only fields at constant offsets; such programs are not
 * modelled, nor part of a packet pointer field or a write to one. */
static void ctx_access(struct enc *en, const struct ssa_insn *v)
{
	int64_t off;

	if (v->nargs < 1 || en->rg[v->args[0]] != RG_MEM0 + MR_CTX)
		return;
	off = en->ctxoff[v->args[0]];
	if (off == INT64_MIN)
		mem_unsupported(en, "a context access at an offset that is not constant (the verifier rejects it)");
	else if (off + v->imm < 0 || off + v->imm + v->size > SMT_CTX_SIZE)
		mem_unsupported(en, "a context access outside the context (the verifier rejects it)");
	else if (pkt_overlap(en, off + v->imm, v->size) &&
		 (v->kind != SSA_LOAD || !is_pkt_field(en, off + v->imm, v->size)))
		mem_unsupported(en, "a context access to part of a packet pointer field, or a write to one (the verifier rejects it)");
}

/* A map the program names (a helper's map argument, a direct value
 * address) with keys or values larger than the checker models (a fuzzed
 * object's legacy map with 1.6 GB keys and 6.5 MB values): not modelled. */
static void map_sizes(struct enc *en, const struct ssa_insn *v)
{
	const struct obj_map *m;
	char buf[300];

	if (v->ref->kind != INSN_REF_MAP && v->ref->kind != INSN_REF_MAP_VALUE)
		return;
	m = &en->p->o->maps[v->ref->index];
	if (m->key_size <= SMT_MAP_KEY_MAX && m->value_size <= SMT_MAP_VALUE_MAX)
		return;
	snprintf(buf, sizeof(buf), "map '%s' has %u-byte keys and %u-byte values "
		 "(modelled: keys up to %u bytes, values up to %u)", m->name, m->key_size,
		 m->value_size, SMT_MAP_KEY_MAX, SMT_MAP_VALUE_MAX);
	mem_unsupported(en, buf);
}

static void precheck_insn(struct enc *en, const struct ssa_insn *v, struct smt_precheck *out);

/* precheck_insn of V, its reasons into LATE (prepass) */
static void precheck_late(struct enc *en, const struct ssa_insn *v, struct smt_precheck *out,
			  struct smt_prog *late)
{
	struct smt_prog *own = en->e;

	en->e = late;
	precheck_insn(en, v, out);
	en->e = own;
}

/* The regions of the values, in id order (an operand's id is below its
 * value's). With OUT (smt_precheck), each memory access and call is also
 * prechecked as its region is known (precheck_insn; a pass over the
 * blocks after this one before): its reasons go to LATE, which the
 * pre-pass's own come before, as when they were found later (the
 * accesses and calls are in the blocks in id order). */
static void prepass(struct enc *en, struct smt_precheck *out, struct smt_prog *late)
{
	const struct ssa_prog *p = en->p;
	const struct object *o = p->o;
	struct smt_mem dummy = {0};
	Z3_ast *which;
	uint32_t id, i;

	for (id = 0; id < p->nvalues; id++) {
		const struct ssa_insn *v = p->values[id];
		uint16_t r = RG_SCALAR;

		en->ctxoff[id] = INT64_MIN;
		switch (v->kind) {
		case SSA_CONST:
			r = v->imm == 0 ? RG_NULL : RG_SCALAR;
			break;
		case SSA_INPUT:
			if (v->imm == 1) {
				r = RG_MEM0 + MR_CTX;
				en->ctxoff[id] = 0;
			}
			break;
		case SSA_FRAME:
			r = RG_STACK;
			break;
		case SSA_ALU:
			en->rg[id] = RG_SCALAR;
			region_alu(en, v);
			continue;
		case SSA_STORE: case SSA_ATOMIC:
			ctx_access(en, v);
			if (out)
				precheck_late(en, v, out, late);
			break;
		case SSA_LOAD:
			ctx_access(en, v);
			if (en->rg[v->args[0]] == RG_MEM0 + MR_CTX &&
			    en->ctxoff[v->args[0]] != INT64_MIN &&
			    pkt_field(en, en->ctxoff[v->args[0]] + v->imm, v->size, &which, &dummy))
				r = RG_MEM0 + MR_PKT;
			if (out)
				precheck_late(en, v, out, late);
			break;
		case SSA_ADDR:
			map_sizes(en, v);
			if (v->ref->kind == INSN_REF_MAP_VALUE)
				r = (uint16_t)(RG_MEM0 + MR_MAP0 + v->ref->index);
			else if (v->ref->kind == INSN_REF_GLOBAL)
				r = (uint16_t)(RG_MEM0 + MR_MAP0 + o->datasecs[v->ref->index].map);
			break;
		case SSA_CALL:
			r = call_region(en, v);
			if (out)
				precheck_late(en, v, out, late);
			break;
		case SSA_PHI:
			r = en->rg[v->args[0]];
			for (i = 1; i < v->nargs; i++)
				r = join(r, en->rg[v->args[i]]);
			break;
		case SSA_SELECT:
			r = join(en->rg[v->args[2]], en->rg[v->args[3]]);
			break;
		case SSA_SLOTLOAD:
			r = v->size == 8 ? RG_TOP : RG_SCALAR;
			break;
		case SSA_TAILRET:
			if (out)
				precheck_late(en, v, out, late);
			break;
		case SSA_UNDEF: case SSA_UNARY: case SSA_LDPKT:
		case SSA_EXTRACT: case SSA_INSERT: case SSA_SLOTSTORE: case SSA_HAVOC:
		case SSA_CMP: case SSA_PKTW: case SSA_ASSUME: case SSA_ASSERT:
		case SSA_NKINDS:
			break;
		}
		en->rg[id] = r;
	}
}

/* ---- setup and joins ---------------------------------------------------- */

static Z3_ast named_array(struct enc *en, const char *name)
{
	struct smt *s = en->s;

	return Z(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), s->mem));
}





void mem_setup(struct enc *en)
{
	struct smt *s = en->s;
	struct smt_prog *e = en->e;
	const struct ssa_prog *p = en->p;
	unsigned n = nregions(en), r;
	Z3_ast len, ml;

	e->nregions = n;
	e->mem0r = arena_new_array(en->a, Z3_ast, n);
	e->region_name = arena_new_array(en->a, const char *, n);
	en->rg = arena_new_array(en->a, uint16_t, p->nvalues ? p->nvalues : 1);
	en->ctxoff = calloc_big(p->nvalues, sizeof(int64_t));
	e->region = en->rg;
	if (!en->objmode) {
		e->mem0 = e->mem0r[0] = named_array(en, "mem0");
		e->region_name[0] = "memory";
		e->mem_init.r = e->mem0r;
		return;
	}
	e->region_name[MR_CTX] = "ctx";
	e->region_name[MR_PKT] = "packet";
	e->region_name[MR_RINGBUF] = "ringbuf";
	for (r = 0; r < p->o->nmaps; r++)
		e->region_name[MR_MAP0 + r] = arena_printf(en->a, "map %s", p->o->maps[r].name);
	/* named, so that two encodings in one context (the diff) share them;
	 * global data by section: libbpf prefixes its map name with the object's */
	for (r = 0; r < n; r++) {
		const struct obj_map *m = r >= MR_MAP0 ? &p->o->maps[r - MR_MAP0] : NULL;

		e->mem0r[r] = named_array(en, arena_printf(en->a, "mem_%s",
			m && m->datasec >= 0 ? m->section : e->region_name[r]));
	}
	e->mem_init.r = e->mem0r;
	en->prog_type = p->o->funcs[p->func].prog_type;
	en->has_pkt = instrument_pkt_fields(en->prog_type, &en->off_data, &en->off_end,
					    &en->off_meta);
	/* the packet at entry: data = base + headroom, 0 <= len <= max,
	 * data - 32 <= data_meta <= data + 1 (data + 1: no metadata support) */
	e->mem_init.data = k(s, 64, SMT_PKT_BASE + SMT_PKT_HEADROOM);
	len = Z(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, "pkt_len"), s->bv64));
	smt_assume(s, ule(s, len, k(s, 64, SMT_PKT_MAX)));
	e->mem_init.end = add(s, e->mem_init.data, len);
	ml = Z(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, "pkt_meta"), s->bv64));
	smt_assume(s, ule(s, sub(s, e->mem_init.data, k(s, 64, 32)), ml));
	smt_assume(s, ule(s, ml, add(s, e->mem_init.data, k(s, 64, 1))));
	e->mem_init.meta = ml;
	e->mem_init.pktw = s->f;
	prepass(en, NULL, NULL);
}

struct smt_mem mem_copy(struct enc *en, const struct smt_mem *m)
{
	struct smt_mem c = *m;

	c.r = arena_dup(en->a, m->r, sizeof(Z3_ast) * en->e->nregions);
	return c;
}

static Z3_ast join_term(struct enc *en, const struct ssa_block *b, size_t off)
{
	struct smt_prog *e = en->e;
	Z3_ast t;
	uint32_t i;

#define AT(pred) (*(Z3_ast *)((char *)&e->mem_out[pred] + off))
	t = AT(b->preds[b->npreds - 1]);
	for (i = b->npreds - 1; i-- > 0;)
		t = ite(en->s, e->edge[b->id][i], AT(b->preds[i]), t);
#undef AT
	return t;
}

void mem_enter(struct enc *en, const struct ssa_block *b)
{
	struct smt_prog *e = en->e;
	unsigned r;
	uint32_t i;

	if (b->id == 0) {
		en->ms = mem_copy(en, &e->mem_init);
		return;
	}
	en->ms = mem_copy(en, &e->mem_out[b->preds[b->npreds - 1]]);
	for (r = 0; r < e->nregions; r++) {
		Z3_ast t = e->mem_out[b->preds[b->npreds - 1]].r[r];

		for (i = b->npreds - 1; i-- > 0;)
			t = ite(en->s, e->edge[b->id][i], e->mem_out[b->preds[i]].r[r], t);
		en->ms.r[r] = t;
	}
	if (en->objmode) {
		en->ms.data = join_term(en, b, offsetof(struct smt_mem, data));
		en->ms.end = join_term(en, b, offsetof(struct smt_mem, end));
		en->ms.meta = join_term(en, b, offsetof(struct smt_mem, meta));
		en->ms.pktw = join_term(en, b, offsetof(struct smt_mem, pktw));
	}
}

/* ---- loads and stores --------------------------------------------------- */

/* Why an access through a pointer of region R is not modelled, or NULL. */
static const char *access_problem(uint16_t r, bool write)
{
	if (r >= RG_MEM0)
		return NULL;
	if (r == RG_TOP)
		return "a memory access through a pointer into different regions on different paths";
	if (r == RG_STACK)
		return "a stack access the lift did not resolve";
	if (write)
		return "a store through a pointer that is not into the context, packet, a map value or a ringbuf reservation";
	return NULL;
}

Z3_ast *mem_array(struct enc *en, uint32_t p, bool write)
{
	uint16_t r;

	if (!en->objmode)
		return &en->ms.r[MR_FLAT];
	r = en->rg[p];
	if (write && r == RG_MEM0 + MR_PKT)
		en->ms.pktw = en->s->t;
	if (r >= RG_MEM0)
		return &en->ms.r[r - RG_MEM0];
	if (access_problem(r, write))
		mem_unsupported(en, access_problem(r, write));
	return NULL;
}

Z3_ast mem_encode_load(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	Z3_ast addr = addr_at(s, smt_use(en, v->args[0]), v->imm), *arr, *which, val;
	uint16_t r = en->objmode ? en->rg[v->args[0]] : RG_MEM0;

	if (r == RG_MEM0 + MR_CTX && en->ctxoff[v->args[0]] != INT64_MIN &&
	    pkt_field(en, en->ctxoff[v->args[0]] + v->imm, v->size, &which, &en->ms))
		return *which;
	if (r == RG_SCALAR || r == RG_NULL) {
		/* kernel memory: a fresh value per load */
		val = fresh(s, "kmem", Z3_mk_bv_sort(s->ctx, v->size * 8u));
		if (v->mon) {
			/* a spec's read through a number (a user address, say):
			 * any value, and no assumption on the address */
			return widen(s, val, v->size * 8u, v->sx);
		}
		smt_assume(s, Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){
			ule(s, k(s, 64, KERNEL_LO), addr),
			Z(s, Z3_mk_bvult(s->ctx, addr, k(s, 64, NULL_HI))) })));
		en->e->kread[v->id] = addr;
		return widen(s, val, v->size * 8u, v->sx);
	}
	arr = mem_array(en, v->args[0], false);
	if (!arr)
		return fresh(s, "load", s->bv64);
	return mem_load(s, *arr, addr, v->size, v->sx);
}

void mem_encode_store(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	Z3_ast *arr = mem_array(en, v->args[0], true);

	if (arr)
		*arr = mem_store(s, *arr, addr_at(s, smt_use(en, v->args[0]), v->imm), v->size,
				 smt_use(en, v->args[1]));
}

Z3_ast mem_frame(struct enc *en, uint32_t f)
{
	unsigned d = 0;
	int g;

	if (en->e->frame[f])
		return en->e->frame[f];
	for (g = (int)f; g >= 0 && g < (int)en->p->nframes && en->p->frames[g].parent >= 0;
	     g = en->p->frames[g].parent)
		d++;
	en->e->frame[f] = k(en->s, 64, SMT_FRAME_BASE(d) + ISA_STACK_SIZE);
	return en->e->frame[f];
}

Z3_ast smt_ksym(struct smt *s, unsigned ext)
{
	char name[32];

	snprintf(name, sizeof(name), "ksym_%u", ext);
	return Z(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), s->bv64));
}

Z3_ast mem_addr(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	const struct object *o = en->p->o;

	switch (v->ref->kind) {
	case INSN_REF_MAP_VALUE:
		return k(s, 64, SMT_MAP_BASE(v->ref->index) + (uint64_t)v->ref->off);
	case INSN_REF_GLOBAL:
		return k(s, 64, SMT_MAP_BASE(o->datasecs[v->ref->index].map) + (uint64_t)v->ref->off);
	case INSN_REF_KSYM:
		if ((uint32_t)v->ref->index < o->nexterns && o->externs[v->ref->index].is_func) {
			Z3_ast a = smt_ksym(s, (unsigned)v->ref->index);

			smt_assume(s, Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){
				smt_eq(s, a, k(s, 64, 0)),
				smt_eq(s, a, k(s, 64, SMT_KSYM_ADDR(v->ref->index))) })));
			return a;
		}
		break;
	case INSN_REF_MAP:
		/* the value the replay gives it: the same map is the same value
		 * (a spec may compare the map arguments of two calls); programs
		 * cannot observe it otherwise */
		return k(s, 64, REPLAY_MAP_HANDLE(v->ref->index));
	case INSN_REF_NONE: case INSN_REF_HELPER: case INSN_REF_SUBPROG: case INSN_REF_KFUNC:
	case INSN_REF_CALLBACK:
		break;
	}
	return fresh(s, "addr", s->bv64);
}

/* ---- without Z3 (smt.h: smt_precheck) ------------------------------------ */

_Static_assert(SMT_MEM_PKT == 1 + MR_PKT, "smt.h SMT_MEM_PKT");

/* 1 + memory region R (smt.h: smt_precheck's mem), or ANY when that does
 * not fit */
static uint16_t mem_code(uint16_t r, uint16_t any)
{
	return r - RG_MEM0 + 1u < SMT_MEM_ANY ? (uint16_t)(r - RG_MEM0 + 1u) : any;
}

static void precheck_insn(struct enc *en, const struct ssa_insn *v, struct smt_precheck *out)
{
	struct smt_mem dummy = {0};
	Z3_ast *which;
	uint16_t r;

	switch (v->kind) {
	case SSA_LOAD:
		r = en->rg[v->args[0]];
		if (r == RG_MEM0 + MR_CTX && en->ctxoff[v->args[0]] != INT64_MIN &&
		    pkt_field(en, en->ctxoff[v->args[0]] + v->imm, v->size, &which, &dummy)) {
			/* the packet pointer terms: they change only at calls
			 * (packet_moves, packet_adjust) */
			out->ptr_loads[v->id] = which == &dummy.data ? SMT_PTR_DATA :
						which == &dummy.end ? SMT_PTR_END : SMT_PTR_META;
			out->mem[v->id] = 1 + MR_CTX;
		} else if (r != RG_SCALAR && r != RG_NULL && access_problem(r, false)) {
			mem_unsupported(en, access_problem(r, false));
		} else if (r >= RG_MEM0) {
			out->mem[v->id] = mem_code(r, 0);   /* an array read */
		}
		break;
	case SSA_STORE: case SSA_ATOMIC:
		r = en->rg[v->args[0]];
		if (access_problem(r, true))
			mem_unsupported(en, access_problem(r, true));
		out->mem[v->id] = r >= RG_MEM0 ? mem_code(r, SMT_MEM_ANY) : SMT_MEM_ANY;
		break;
	case SSA_CALL:
		out->mem[v->id] = mem_precheck_call(en, v);
		break;
	case SSA_TAILRET:
		out->mem[v->id] = SMT_MEM_ANY;    /* mem_encode_tailret */
		break;
	case SSA_UNDEF: case SSA_CONST: case SSA_INPUT: case SSA_FRAME: case SSA_ALU:
	case SSA_UNARY: case SSA_ADDR: case SSA_LDPKT: case SSA_EXTRACT: case SSA_INSERT:
	case SSA_SLOTLOAD: case SSA_SLOTSTORE: case SSA_SELECT: case SSA_HAVOC:
	case SSA_PHI: case SSA_CMP: case SSA_PKTW: case SSA_ASSUME:
	case SSA_ASSERT: case SSA_NKINDS:
		break;
	}
}

#define PRECHECK_IN_ARENA_MAX 4096     /* values */

void smt_precheck(const struct ssa_prog *p, struct arena *a, struct smt_precheck *out)
{
	struct smt_prog e = {0}, late = {0};
	struct enc en = { .p = p, .e = &e, .a = a };
	uint32_t n = p->nvalues ? p->nvalues : 1;

	memset(out, 0, sizeof(*out));
	out->ptr_loads = arena_new_array(a, uint8_t, n);
	out->mem = arena_new_array(a, uint16_t, n);
	en.objmode = p->o && !p->bare;
	if (!en.objmode)
		return;               /* bare code: one flat memory, no notes */
	/* both written by prepass for each value before it is read (an
	 * operand's id is below its value's), so not zeroed: one block, in
	 * the arena for a small program (calloc's clear of ctxoff was 5K
	 * instructions a check of loop_sum, a malloc 300 a small one's) */
	en.ctxoff = n <= PRECHECK_IN_ARENA_MAX
		? arena_alloc8_unzeroed(a, n * (sizeof(int64_t) + sizeof(uint16_t)))
		: malloc(n * (sizeof(int64_t) + sizeof(uint16_t)));
	if (!en.ctxoff)
		abort();
	en.rg = (uint16_t *)(void *)(en.ctxoff + n);
	en.prog_type = p->o->funcs[p->func].prog_type;
	en.has_pkt = instrument_pkt_fields(en.prog_type, &en.off_data, &en.off_end, &en.off_meta);
	prepass(&en, out, &late);
	out->notes = arena_dup(a, en.notes.data, en.notes.len * sizeof(char *));
	out->nnotes = (unsigned)en.notes.len;
	out->unsupported = e.unsupported ? e.unsupported : late.unsupported;
	buf_free(&en.notes);
	if (n > PRECHECK_IN_ARENA_MAX)
		free(en.ctxoff);
}
