/* smt_mem.c - memory by region and the helper models of the encoding.
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
 * Helper calls follow models.h; an unknown helper or kfunc returns any
 * value and havocs the regions of its pointer arguments (a note says so).
 */
#include "smt_priv.h"

#include "instrument.h"
#include "models.h"
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(RG_MEM0 == SMT_REGION_MEM0, "smt.h names the first memory region code");

#define KERNEL_LO 0xffff800000000000ull   /* kernel addresses are above */
#define NULL_HI   0x10000ull              /* NULL plus a field offset */

static unsigned nregions(const struct enc *en)
{
	return en->objmode ? MR_MAP0 + en->p->o->nmaps : 1;
}

static void note(struct enc *en, const char *text)
{
	size_t i;

	for (i = 0; i < en->notes.len; i++)
		if (!strcmp(((const char **)en->notes.data)[i], text))
			return;
	*(const char **)buf_push(&en->notes, sizeof(char *)) = arena_strdup(en->a, text);
}

static void unsupported(struct enc *en, const char *text)
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
static int map_arg(const struct enc *en, uint32_t id)
{
	const struct ssa_insn *v = en->p->values[id];

	return v->kind == SSA_ADDR && v->ref.kind == INSN_REF_MAP ? v->ref.index : -1;
}

static const struct helper_model *call_model(const struct ssa_insn *v)
{
	return v->ref.kind == INSN_REF_HELPER ? model_helper((int)v->imm) : NULL;
}

static uint16_t call_region(const struct enc *en, const struct ssa_insn *v)
{
	const struct helper_model *m = call_model(v);
	int map;

	if (!m)
		return RG_SCALAR;
	switch (m->ret) {
	case MODEL_RET_MAP_VALUE:
		map = map_arg(en, v->args[0]);
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
		unsupported(en, "a context access at an offset that is not constant (the verifier rejects it)");
	else if (off + v->imm < 0 || off + v->imm + v->size > SMT_CTX_SIZE)
		unsupported(en, "a context access outside the context (the verifier rejects it)");
	else if (pkt_overlap(en, off + v->imm, v->size) &&
		 (v->kind != SSA_LOAD || !is_pkt_field(en, off + v->imm, v->size)))
		unsupported(en, "a context access to part of a packet pointer field, or a write to one (the verifier rejects it)");
}

/* A map the program names (a helper's map argument, a direct value
 * address) with keys or values larger than the checker models (a fuzzed
 * object's legacy map with 1.6 GB keys and 6.5 MB values): not modelled. */
static void map_sizes(struct enc *en, const struct ssa_insn *v)
{
	const struct obj_map *m;
	char buf[300];

	if (v->ref.kind != INSN_REF_MAP && v->ref.kind != INSN_REF_MAP_VALUE)
		return;
	m = &en->p->o->maps[v->ref.index];
	if (m->key_size <= SMT_MAP_KEY_MAX && m->value_size <= SMT_MAP_VALUE_MAX)
		return;
	snprintf(buf, sizeof(buf), "map '%s' has %u-byte keys and %u-byte values "
		 "(modelled: keys up to %u bytes, values up to %u)", m->name, m->key_size,
		 m->value_size, SMT_MAP_KEY_MAX, SMT_MAP_VALUE_MAX);
	unsupported(en, buf);
}

static void prepass(struct enc *en)
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
			break;
		case SSA_LOAD:
			ctx_access(en, v);
			if (en->rg[v->args[0]] == RG_MEM0 + MR_CTX &&
			    en->ctxoff[v->args[0]] != INT64_MIN &&
			    pkt_field(en, en->ctxoff[v->args[0]] + v->imm, v->size, &which, &dummy))
				r = RG_MEM0 + MR_PKT;
			break;
		case SSA_ADDR:
			map_sizes(en, v);
			if (v->ref.kind == INSN_REF_MAP_VALUE)
				r = (uint16_t)(RG_MEM0 + MR_MAP0 + v->ref.index);
			else if (v->ref.kind == INSN_REF_GLOBAL)
				r = (uint16_t)(RG_MEM0 + MR_MAP0 + o->datasecs[v->ref.index].map);
			break;
		case SSA_CALL:
			r = call_region(en, v);
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
		case SSA_UNDEF: case SSA_UNARY: case SSA_LDPKT:
		case SSA_EXTRACT: case SSA_INSERT: case SSA_SLOTSTORE: case SSA_HAVOC:
		case SSA_TAILRET: case SSA_CMP: case SSA_PKTW: case SSA_ASSUME: case SSA_ASSERT:
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

static Z3_ast ule(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_bvule(s->ctx, a, b));
}

static Z3_ast add(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_bvadd(s->ctx, a, b));
}

static Z3_ast sub(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_bvsub(s->ctx, a, b));
}

static Z3_ast and3(struct smt *s, Z3_ast a, Z3_ast b, Z3_ast c)
{
	return smt_and(s, smt_and(s, a, b), c);
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
	en->ctxoff = calloc(p->nvalues ? p->nvalues : 1, sizeof(int64_t));
	if (!en->ctxoff)
		abort();
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
	prepass(en);
}

static struct smt_mem copy_mem(struct enc *en, const struct smt_mem *m)
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
		en->ms = copy_mem(en, &e->mem_init);
		return;
	}
	en->ms = copy_mem(en, &e->mem_out[b->preds[b->npreds - 1]]);
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
		unsupported(en, access_problem(r, write));
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

	switch (v->ref.kind) {
	case INSN_REF_MAP_VALUE:
		return k(s, 64, SMT_MAP_BASE(v->ref.index) + (uint64_t)v->ref.off);
	case INSN_REF_GLOBAL:
		return k(s, 64, SMT_MAP_BASE(o->datasecs[v->ref.index].map) + (uint64_t)v->ref.off);
	case INSN_REF_KSYM:
		if ((uint32_t)v->ref.index < o->nexterns && o->externs[v->ref.index].is_func) {
			Z3_ast a = smt_ksym(s, (unsigned)v->ref.index);

			smt_assume(s, Z(s, Z3_mk_or(s->ctx, 2, (Z3_ast[]){
				smt_eq(s, a, k(s, 64, 0)),
				smt_eq(s, a, k(s, 64, SMT_KSYM_ADDR(v->ref.index))) })));
			return a;
		}
		break;
	case INSN_REF_MAP:
		/* the value the replay gives it: the same map is the same value
		 * (a spec may compare the map arguments of two calls); programs
		 * cannot observe it otherwise */
		return k(s, 64, REPLAY_MAP_HANDLE(v->ref.index));
	case INSN_REF_NONE: case INSN_REF_HELPER: case INSN_REF_SUBPROG: case INSN_REF_KFUNC:
	case INSN_REF_CALLBACK:
		break;
	}
	return fresh(s, "addr", s->bv64);
}

/* ---- calls -------------------------------------------------------------- */

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

		if (w->kind == SSA_CALL && w->ref.kind == INSN_REF_HELPER &&
		    w->imm == BPF_FUNC_map_lookup_elem && map_arg(en, w->args[0]) == mi)
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
	int mi = map_arg(en, v->args[0]);
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

	if ((en->prog_type != BPF_PROG_TYPE_SCHED_CLS && en->prog_type != BPF_PROG_TYPE_SCHED_ACT &&
	     en->prog_type != BPF_PROG_TYPE_CGROUP_SKB &&
	     en->prog_type != BPF_PROG_TYPE_SOCKET_FILTER) ||
	    en->rg[v->args[0]] != RG_MEM0 + MR_CTX || en->ctxoff[v->args[0]] != 0)
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
	if (v->ref.kind == INSN_REF_KFUNC)
		snprintf(buf, len, "kfunc %s is not modelled: any result, and memory it gets a pointer to may change",
			 en->p->o->kfuncs[v->ref.index].name);
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
	*en->e->call_before[v->id] = copy_mem(en, &en->ms);
	m = call_model(v);
	km = v->ref.kind == INSN_REF_KFUNC ? model_kfunc(en->p->o->kfuncs[v->ref.index].name) : NULL;
	if (km) {
		struct helper_model hm = { .ret = km->ret, .lo = km->lo, .hi = km->hi,
					   .sign = km->sign };

		r0 = model_ret(en, v, &hm);
		for (a = 0; a < 5; a++)
			havoc_arg(en, v, a);
	} else if (!m) {
		unmodelled_note(en, v, buf, sizeof(buf));
		note(en, buf);
		r0 = fresh(s, "call", s->bv64);
		for (a = 0; a < 5; a++)
			havoc_arg(en, v, a);
	} else {
		r0 = model_ret(en, v, m);
		for (a = 0; a < 5; a++)
			if (m->arg[a] == MODEL_ARG_WRITE || m->arg[a] == MODEL_ARG_PTR)
				havoc_arg(en, v, a);
		if (m->fx & MODEL_FX_MAP) {
			int mi = map_arg(en, v->args[0]);

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
	*en->e->call_after[v->id] = copy_mem(en, &en->ms);
	return r0;
}

Z3_ast mem_encode_tailret(struct enc *en, const struct ssa_insn *v)
{
	en->e->call_before[v->id] = arena_alloc(en->a, sizeof(struct smt_mem));
	*en->e->call_before[v->id] = copy_mem(en, &en->ms);
	havoc_all(en);
	packet_moves(en);
	en->e->call_after[v->id] = arena_alloc(en->a, sizeof(struct smt_mem));
	*en->e->call_after[v->id] = copy_mem(en, &en->ms);
	return fresh(en->s, "tailret", en->s->bv64);
}

/* ---- without Z3 (smt.h: smt_precheck) ------------------------------------ */

static void precheck_insn(struct enc *en, const struct ssa_insn *v, struct smt_precheck *out)
{
	struct smt_mem dummy = {0};
	Z3_ast *which;
	char buf[200];
	uint16_t r;

	switch (v->kind) {
	case SSA_LOAD:
		r = en->rg[v->args[0]];
		if (r == RG_MEM0 + MR_CTX && en->ctxoff[v->args[0]] != INT64_MIN &&
		    pkt_field(en, en->ctxoff[v->args[0]] + v->imm, v->size, &which, &dummy))
			out->ptr_loads[v->id] = 1;
		else if (r != RG_SCALAR && r != RG_NULL && access_problem(r, false))
			unsupported(en, access_problem(r, false));
		break;
	case SSA_STORE: case SSA_ATOMIC:
		if (access_problem(en->rg[v->args[0]], true))
			unsupported(en, access_problem(en->rg[v->args[0]], true));
		break;
	case SSA_CALL:
		if (v->ref.kind == INSN_REF_KFUNC &&
		    model_kfunc(en->p->o->kfuncs[v->ref.index].name))
			break;
		if (!call_model(v)) {
			unmodelled_note(en, v, buf, sizeof(buf));
			note(en, buf);
		}
		break;
	case SSA_UNDEF: case SSA_CONST: case SSA_INPUT: case SSA_FRAME: case SSA_ALU:
	case SSA_UNARY: case SSA_ADDR: case SSA_LDPKT: case SSA_EXTRACT: case SSA_INSERT:
	case SSA_SLOTLOAD: case SSA_SLOTSTORE: case SSA_SELECT: case SSA_HAVOC:
	case SSA_TAILRET: case SSA_PHI: case SSA_CMP: case SSA_PKTW: case SSA_ASSUME:
	case SSA_ASSERT: case SSA_NKINDS:
		break;
	}
}

void smt_precheck(const struct ssa_prog *p, struct arena *a, struct smt_precheck *out)
{
	struct smt_prog e = {0};
	struct enc en = { .p = p, .e = &e, .a = a };
	uint32_t n = p->nvalues ? p->nvalues : 1, b, i;

	memset(out, 0, sizeof(*out));
	out->ptr_loads = arena_new_array(a, uint8_t, n);
	en.objmode = p->o && !p->bare;
	if (!en.objmode)
		return;               /* bare code: one flat memory, no notes */
	en.rg = arena_new_array(a, uint16_t, n);
	en.ctxoff = calloc(n, sizeof(int64_t));
	if (!en.ctxoff)
		abort();
	en.prog_type = p->o->funcs[p->func].prog_type;
	en.has_pkt = instrument_pkt_fields(en.prog_type, &en.off_data, &en.off_end, &en.off_meta);
	prepass(&en);
	for (b = 0; b < p->nblocks; b++)
		for (i = 0; i < p->blocks[b]->ninsns; i++)
			precheck_insn(&en, p->blocks[b]->insns[i], out);
	out->notes = arena_dup(a, en.notes.data, en.notes.len * sizeof(char *));
	out->nnotes = (unsigned)en.notes.len;
	out->unsupported = e.unsupported;
	buf_free(&en.notes);
	free(en.ctxoff);
}
