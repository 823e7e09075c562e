/* cex.c - the counterexample of a Z3 model: concrete inputs for the replay
 * (replay.h), read off the encoding of one check (smt.h, smt_mem.c).
 *
 * The path is the blocks whose guard the model makes true, in topological
 * order (the DAG is loop-free, so that is execution order). Regions get the
 * addresses the encoding fixed (smt.h): the context (SMT_CTX_SIZE bytes, with
 * the packet pointer fields written as the u32 the interpreter loads), the
 * packet from SMT_PKT_BASE up to 64 bytes past the furthest data_end of the
 * path, each global data section, each map value a lookup on the path
 * returned, each ringbuf reservation. Their bytes are the model's initial
 * arrays. Each call on the path gives its result and what it wrote: the
 * stack slots the lift gave new values, the windows of each region the call
 * changed (from the array after it) and moved packet pointers (into the
 * context's fields). Kernel memory loads give (address, value) in order.
 */
#include "checker.h"
#include "instrument.h"
#include "smt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PKT_TAIL 64u

struct cx {
	struct smt *s;
	Z3_context z;
	Z3_model m;
	const struct smt_prog *e;
	const struct ssa_prog *p;
	const struct object *o;
	struct arena *a;
	struct vec regions;   /* struct cex_region */
	struct vec calls;     /* struct cex_call */
	struct vec reads;     /* struct cex_read */
	uint8_t *onpath;      /* by block */
	bool has_pkt;
	uint32_t off_data, off_end, off_meta;
	bool failed;
};

static uint64_t val(struct cx *x, Z3_ast t)
{
	uint64_t v = 0;

	if (!t || smt_eval_u64(x->s, x->m, t, &v) < 0)
		x->failed = true;
	return v;
}

int cex_model_bool(Z3_context z, Z3_model m, Z3_ast t)
{
	Z3_ast r = NULL;

	if (!Z3_model_eval(z, m, t, true, &r) || !r)
		return -1;
	return Z3_get_bool_value(z, r) == Z3_L_TRUE;
}

static bool truth(struct cx *x, Z3_ast t)
{
	int b = cex_model_bool(x->z, x->m, t);

	if (b < 0)
		x->failed = true;
	return b > 0;
}

/* Did the call (or taken tail call) V set the encoder's pkt_written? */
static bool call_pktw(struct cx *x, const struct ssa_insn *v)
{
	const struct smt_mem *b = x->e->call_before[v->id], *a = x->e->call_after[v->id];

	return x->has_pkt && b && a && b->pktw && a->pktw && !truth(x, b->pktw) &&
	       truth(x, a->pktw);
}

static uint8_t byte_at(struct cx *x, Z3_ast arr, uint64_t addr)
{
	Z3_ast t = Z3_mk_select(x->z, arr, Z3_mk_unsigned_int64(x->z, addr, Z3_mk_bv_sort(x->z, 64)));

	return (uint8_t)val(x, t);
}

/* The bytes [BASE, BASE + SIZE) of A, the model's value of an array, that
 * SET does not mark yet (marked as they are read). Z3 gives that value as
 * stores (the outermost of an address counts) over a constant array or
 * over a function's table (as-array: entries and an else value). False
 * where it has another shape or a value is not a numeral: the bytes left
 * unmarked are then read one by one. */
static bool array_bytes(struct cx *x, Z3_ast a, uint64_t base, uint32_t size, uint8_t *out,
			uint8_t *set)
{
	Z3_context z = x->z;
	uint64_t i, v;
	uint32_t j;

	while (Z3_get_ast_kind(z, a) == Z3_APP_AST) {
		Z3_app app = Z3_to_app(z, a);
		Z3_decl_kind k = Z3_get_decl_kind(z, Z3_get_app_decl(z, app));

		if (Z3_is_as_array(z, a)) {
			Z3_func_interp f = Z3_model_get_func_interp(z, x->m, Z3_get_as_array_func_decl(z, a));
			bool ok = f != NULL;
			unsigned e, n;

			if (!f)
				return false;
			Z3_func_interp_inc_ref(z, f);
			n = Z3_func_interp_get_num_entries(z, f);
			for (e = 0; e < n && ok; e++) {
				Z3_func_entry en = Z3_func_interp_get_entry(z, f, e);

				Z3_func_entry_inc_ref(z, en);
				ok = Z3_func_entry_get_num_args(z, en) == 1 &&
				     Z3_get_numeral_uint64(z, Z3_func_entry_get_arg(z, en, 0), &i) &&
				     Z3_get_numeral_uint64(z, Z3_func_entry_get_value(z, en), &v);
				if (ok && i >= base && i - base < size && !set[i - base]) {
					out[i - base] = (uint8_t)v;
					set[i - base] = 1;
				}
				Z3_func_entry_dec_ref(z, en);
			}
			ok = ok && Z3_func_interp_get_else(z, f) &&
			     Z3_get_numeral_uint64(z, Z3_func_interp_get_else(z, f), &v);
			Z3_func_interp_dec_ref(z, f);
			if (!ok)
				return false;
			break;
		}
		if (k == Z3_OP_STORE && Z3_get_app_num_args(z, app) == 3) {
			if (!Z3_get_numeral_uint64(z, Z3_get_app_arg(z, app, 1), &i) ||
			    !Z3_get_numeral_uint64(z, Z3_get_app_arg(z, app, 2), &v))
				return false;
			if (i >= base && i - base < size && !set[i - base]) {
				out[i - base] = (uint8_t)v;
				set[i - base] = 1;
			}
			a = Z3_get_app_arg(z, app, 0);
			continue;
		}
		if (k != Z3_OP_CONST_ARRAY || Z3_get_app_num_args(z, app) != 1 ||
		    !Z3_get_numeral_uint64(z, Z3_get_app_arg(z, app, 0), &v))
			return false;
		break;
	}
	if (Z3_get_ast_kind(z, a) != Z3_APP_AST)
		return false;
	for (j = 0; j < size; j++)      /* the default: the else value, the constant */
		if (!set[j]) {
			out[j] = (uint8_t)v;
			set[j] = 1;
		}
	return true;
}

/* The bytes [BASE, BASE + SIZE) of ARR in the model: read off its value as a
 * whole (array_bytes), one Z3_model_eval per byte only where that value
 * has another shape. Byte by byte, a map value or global section of
 * kilobytes took milliseconds per counterexample (about 8 us a byte). */
static void fill(struct cx *x, Z3_ast arr, uint64_t base, uint32_t size, uint8_t *out)
{
	uint8_t *set = calloc(size ? size : 1, 1);
	Z3_ast v = NULL;
	uint32_t i;

	if (!set)
		abort();
	if (!Z3_model_eval(x->z, x->m, arr, true, &v) || !v ||
	    !array_bytes(x, v, base, size, out, set))
		for (i = 0; i < size; i++)
			if (!set[i])
				out[i] = byte_at(x, arr, base + i);
	free(set);
}

static int region_of_map(const struct cx *x, int map, uint64_t base)
{
	size_t i;

	for (i = 0; i < x->regions.len; i++) {
		const struct cex_region *r = &((struct cex_region *)x->regions.data)[i];

		if (r->map == map && r->base == base)
			return (int)i;
	}
	return -1;
}

static void add_region(struct cx *x, enum interp_mem_kind kind, const char *name, uint64_t base,
		       uint32_t size, int map, Z3_ast arr, bool writable)
{
	struct cex_region *r;

	if (map >= 0 && region_of_map(x, map, base) >= 0)
		return;
	r = vec_push(x->a, &x->regions, sizeof(*r));
	r->kind = kind;
	r->name = name;
	r->base = base;
	r->size = size ? size : 1;
	r->bytes = arena_alloc(x->a, r->size);
	r->writable = writable;
	r->map = map;
	if (arr)
		fill(x, arr, base, size, r->bytes);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* The memory region index of the windows of region code R (smt_mem.c). */
static bool window_in(const struct cex_region *w, unsigned mr)
{
	switch (mr) {
	case 0: return w->kind == INTERP_MEM_CTX;                  /* MR_CTX */
	case 1: return w->kind == INTERP_MEM_PACKET;               /* MR_PKT */
	case 2: return w->kind == INTERP_MEM_RINGBUF;              /* MR_RINGBUF */
	default: return w->map == (int)mr - 3;                     /* MR_MAP0 + m */
	}
}

static void setup_regions(struct cx *x)
{
	const struct smt_prog *e = x->e;
	const struct ssa_prog *p = x->p;
	uint64_t end, maxend;
	uint32_t b, i, m;
	struct cex_region *ctx;

	add_region(x, INTERP_MEM_CTX, "ctx", SMT_CTX_BASE, SMT_CTX_SIZE, -1, e->mem0r[0], true);
	ctx = &((struct cex_region *)x->regions.data)[0];
	if (x->has_pkt) {
		put_u32(ctx->bytes + x->off_data, (uint32_t)val(x, e->mem_init.data));
		put_u32(ctx->bytes + x->off_end, (uint32_t)val(x, e->mem_init.end));
		put_u32(ctx->bytes + x->off_meta, (uint32_t)val(x, e->mem_init.meta));
		maxend = val(x, e->mem_init.end);
		for (b = 0; b < p->nblocks; b++) {
			if (!x->onpath[b])
				continue;
			for (i = 0; i < p->blocks[b]->ninsns; i++) {
				const struct ssa_insn *v = p->blocks[b]->insns[i];

				if (v->kind == SSA_CALL && e->call_after[v->id]) {
					end = val(x, e->call_after[v->id]->end);
					if (end > maxend && end < SMT_PKT_BASE + (1ull << 20))
						maxend = end;
				}
			}
		}
		add_region(x, INTERP_MEM_PACKET, "packet", SMT_PKT_BASE,
			   (uint32_t)(maxend - SMT_PKT_BASE + PKT_TAIL), -1, e->mem0r[1], true);
	}
	for (m = 0; m < x->o->nmaps; m++) {
		const struct obj_map *mp = &x->o->maps[m];

		if (mp->datasec >= 0)
			add_region(x, INTERP_MEM_GLOBAL, x->o->datasecs[mp->datasec].name,
				   SMT_MAP_BASE(m), x->o->datasecs[mp->datasec].size, (int)m,
				   e->mem0r[3 + m], !x->o->datasecs[mp->datasec].readonly);
	}
	for (i = 0; i < p->nvalues; i++) {
		const struct ssa_insn *v = p->values[i];

		if (v->kind == SSA_ADDR && v->ref->kind == INSN_REF_MAP_VALUE &&
		    x->onpath[v->block] && x->o->maps[v->ref->index].datasec < 0)
			add_region(x, INTERP_MEM_MAP_VALUE,
				   arena_printf(x->a, "map %s", x->o->maps[v->ref->index].name),
				   SMT_MAP_BASE(v->ref->index), x->o->maps[v->ref->index].value_size,
				   v->ref->index, e->mem0r[3 + v->ref->index], true);
	}
}

/* A lookup or reservation on the path adds the memory it returned. */
static void call_region(struct cx *x, const struct ssa_insn *v, uint64_t ret)
{
	const struct smt_prog *e = x->e;
	const struct ssa_insn *mv;
	int map;

	if (!ret || v->ref->kind != INSN_REF_HELPER)
		return;
	if (v->imm == BPF_FUNC_map_lookup_elem) {
		mv = x->p->values[v->args[0]];
		if (mv->kind != SSA_ADDR || mv->ref->kind != INSN_REF_MAP)
			return;
		map = mv->ref->index;
		add_region(x, x->o->maps[map].datasec >= 0 ? INTERP_MEM_GLOBAL : INTERP_MEM_MAP_VALUE,
			   arena_printf(x->a, "an entry of map %s (at +%#llx)", x->o->maps[map].name,
					(unsigned long long)((ret - SMT_MAP_BASE(map)))),
			   ret, x->o->maps[map].value_size, map,
			   e->call_before[v->id]->r[3 + map], true);
	} else if (v->imm == BPF_FUNC_ringbuf_reserve) {
		add_region(x, INTERP_MEM_RINGBUF, "ringbuf reservation", ret,
			   (uint32_t)val(x, e->val[v->args[1]]), -1, e->mem0r[2], true);
	}
}

static void add_write(struct cx *x, struct vec *w, uint64_t addr, uint32_t size, const uint8_t *b)
{
	struct cex_write *cw = vec_push(x->a, w, sizeof(*cw));

	cw->addr = addr;
	cw->size = size;
	cw->bytes = arena_dup(x->a, b, size);
}

/* What call V wrote: the stack slots it changed (their values after it),
 * the changed regions over their windows, moved packet pointers. */
static void call_writes(struct cx *x, const struct ssa_insn *v, struct cex_call *cc)
{
	const struct smt_prog *e = x->e;
	const struct smt_mem *bef = e->call_before[v->id], *aft = e->call_after[v->id];
	struct vec w = {0};
	uint32_t i, j, r;
	uint8_t buf[8];
	size_t k;

	for (i = 0; i < v->nmem; i++) {
		const struct ssa_memarg *ma = &v->mem[i];
		unsigned d = 0;
		int g;

		if (!ma->written)
			continue;
		for (g = ma->frame; g >= 0 && x->p->frames[g].parent >= 0; g = x->p->frames[g].parent)
			d++;
		for (j = 0; j < ma->wcount; j++) {
			uint64_t sv = val(x, e->val[ma->wvals[j]]);

			memcpy(buf, &sv, 8);
			add_write(x, &w, SMT_FRAME_BASE(d) + 8ull * (ma->wfirst + j), 8, buf);
		}
	}
	if (bef && aft) {
		for (r = 0; r < e->nregions; r++) {
			if (bef->r[r] == aft->r[r])
				continue;
			for (k = 0; k < x->regions.len; k++) {
				struct cex_region *win = &((struct cex_region *)x->regions.data)[k];
				uint8_t *nb;

				if (!window_in(win, r))
					continue;
				nb = arena_alloc(x->a, win->size);
				fill(x, aft->r[r], win->base, win->size, nb);
				add_write(x, &w, win->base, win->size, nb);
			}
		}
		if (x->has_pkt && (bef->data != aft->data || bef->end != aft->end ||
				   bef->meta != aft->meta)) {
			put_u32(buf, (uint32_t)val(x, aft->data));
			add_write(x, &w, SMT_CTX_BASE + x->off_data, 4, buf);
			put_u32(buf, (uint32_t)val(x, aft->end));
			add_write(x, &w, SMT_CTX_BASE + x->off_end, 4, buf);
			put_u32(buf, (uint32_t)val(x, aft->meta));
			add_write(x, &w, SMT_CTX_BASE + x->off_meta, 4, buf);
		}
	}
	cc->writes = w.data;
	cc->nwrites = (unsigned)w.len;
}

/* A value of the model, or 0 when it has none (no failure). */
static uint64_t val_or0(struct cx *x, uint32_t id)
{
	uint64_t v = 0;

	if (!x->e->val[id] || smt_eval_u64(x->s, x->m, x->e->val[id], &v) < 0)
		return 0;
	return v;
}

/* The key a map lookup V read: the stack slots of its arg-2 memory operand
 * before the call, key_size bytes from the byte `off` points at. */
static void lookup_key(struct cx *x, const struct ssa_insn *v, struct cex_call *cc)
{
	const struct ssa_insn *mv = x->p->values[v->args[0]];
	uint32_t ks, i, j, byte;
	uint8_t *buf;

	if (mv->kind != SSA_ADDR || mv->ref->kind != INSN_REF_MAP)
		return;
	cc->args[0] = REPLAY_MAP_HANDLE(mv->ref->index);   /* as the replay sees it */
	ks = x->o->maps[mv->ref->index].key_size;
	for (i = 0; i < v->nmem; i++) {
		const struct ssa_memarg *m = &v->mem[i];

		if (m->argno != 2 || !ks)
			continue;
		byte = (unsigned)(ISA_STACK_SIZE + m->off) % 8;
		if (byte + ks > 8u * m->nslots)
			return;
		buf = arena_alloc(x->a, 8u * m->nslots);
		for (j = 0; j < m->nslots; j++) {
			uint64_t sv = val_or0(x, v->args[m->first + j]);

			memcpy(buf + 8 * j, &sv, 8);
		}
		cc->key = arena_dup(x->a, buf + byte, ks);
		cc->key_size = ks;
		return;
	}
}

static struct cex_call *new_call(struct cx *x, const struct ssa_block *b, uint32_t slot,
				 const struct insn_ref *ref, int64_t imm)
{
	struct cex_call *cc = vec_push(x->a, &x->calls, sizeof(*cc));
	int sec = ssa_block_sec(x->p, b);

	cc->sec = sec >= 0 ? sec : 0;
	cc->slot = slot;
	cc->helper = ref->kind == INSN_REF_HELPER ? (int)imm : -1;
	cc->kfunc = ref->kind == INSN_REF_KFUNC ? ref->index : -1;
	return cc;
}

/* The value a taken tail call returns: the TAILRET of the exit block the
 * path takes after block B. */
static uint64_t tail_result(struct cx *x, const struct ssa_block *b)
{
	uint32_t j;

	for (j = 0; j < b->nsucc; j++) {
		const struct ssa_block *t = x->p->blocks[b->succ[j]];

		if (x->onpath[t->id] && t->term == SSA_TERM_EXIT)
			return val(x, x->e->val[t->a]);
	}
	return 0;
}

static void walk_path(struct cx *x)
{
	const struct smt_prog *e = x->e;
	const struct ssa_prog *p = x->p;
	uint32_t bi, i, j;

	for (bi = 0; bi < p->nblocks; bi++) {
		const struct ssa_block *b = p->blocks[bi];

		if (!x->onpath[bi])
			continue;
		for (i = 0; i < b->ninsns; i++) {
			const struct ssa_insn *v = b->insns[i];
			struct cex_call *cc;
			struct cex_read *rd;

			if (v->kind == SSA_LOAD && e->kread[v->id]) {
				rd = vec_push(x->a, &x->reads, sizeof(*rd));
				rd->addr = val(x, e->kread[v->id]);
				rd->size = v->size;
				rd->value = val(x, e->val[v->id]);
				if (v->size < 8)
					rd->value &= (1ull << (8 * v->size)) - 1;
				continue;
			}
			if (v->kind == SSA_TAILRET && x->calls.len) {
				/* a taken tail call: what the program that ran
				 * wrote, as writes of the tail call */
				struct cex_call *tc = &((struct cex_call *)x->calls.data)[x->calls.len - 1];
				struct cex_call tmp = {0};

				call_writes(x, v, &tmp);
				tc->pkt_written = tc->pkt_written || call_pktw(x, v);
				if (tc->nwrites) {
					struct cex_write *all = arena_new_array(x->a, struct cex_write,
										tc->nwrites + tmp.nwrites);

					memcpy(all, tc->writes, sizeof(*all) * tc->nwrites);
					memcpy(all + tc->nwrites, tmp.writes, sizeof(*all) * tmp.nwrites);
					tc->writes = all;
					tc->nwrites += tmp.nwrites;
				} else {
					tc->writes = tmp.writes;
					tc->nwrites = tmp.nwrites;
				}
				continue;
			}
			if (v->kind != SSA_CALL)
				continue;
			cc = new_call(x, b, v->slot, v->ref, v->imm);
			cc->ret = val(x, e->val[v->id]);
			for (j = 0; j < 5 && j < v->nargs; j++)
				cc->args[j] = val_or0(x, v->args[j]);
			if (cc->helper == BPF_FUNC_map_lookup_elem)
				lookup_key(x, v, cc);
			call_region(x, v, cc->ret);
			call_writes(x, v, cc);
			cc->pkt_written = call_pktw(x, v);
			if (cc->helper == BPF_FUNC_tail_call && cc->ret == 0) {
				cc->tail_taken = true;
				cc->tail_ret = tail_result(x, b);
			}
		}
		if (b->note == SSA_NOTE_BPF_LOOP) {
			struct insn_ref ref = { .kind = INSN_REF_HELPER, .index = BPF_FUNC_loop };

			new_call(x, b, b->last_slot, &ref, BPF_FUNC_loop);
		}
	}
}

/* Whether SIZE bytes at ADDR lie in one of the counterexample's regions. */
static bool in_regions(const struct cx *x, uint64_t addr, uint32_t size)
{
	const struct cex_region *rg = x->regions.data;
	size_t k;

	for (k = 0; k < x->regions.len; k++)
		if (addr >= rg[k].base && addr - rg[k].base <= rg[k].size &&
		    size <= rg[k].size - (addr - rg[k].base))
			return true;
	return false;
}

/* The first access of the model's path (MON: the spec's reads; else the
 * program's loads, stores and atomics) whose bytes are in none of the
 * counterexample's regions though its pointer is into a memory region,
 * or (MON only) whose address is a number, not a pointer into memory.
 * Its address in *ADDR; NULL: none. */
static const struct ssa_insn *stray_access(struct cx *x, bool mon, uint64_t *addr)
{
	uint32_t b, i, code;

	for (b = 0; b < x->p->nblocks; b++) {
		if (!x->onpath[b])
			continue;
		for (i = 0; i < x->p->blocks[b]->ninsns; i++) {
			const struct ssa_insn *v = x->p->blocks[b]->insns[i];

			if (mon ? v->kind != SSA_LOAD || !v->mon
				: (v->kind != SSA_LOAD && v->kind != SSA_STORE &&
				   v->kind != SSA_ATOMIC) || v->mon)
				continue;
			if (!v->nargs || !x->e->val[v->args[0]])
				continue;
			code = x->e->region[v->args[0]];
			if (code < SMT_REGION_MEM0 ? !mon : code - SMT_REGION_MEM0 >= x->e->nregions)
				continue;
			*addr = val(x, x->e->val[v->args[0]]) + (uint64_t)v->imm;
			if (code < SMT_REGION_MEM0 || !in_regions(x, *addr, v->size))
				return v;
		}
	}
	return NULL;
}

static const char *region_of(const struct cx *x, const struct ssa_insn *v)
{
	return x->e->region_name[x->e->region[v->args[0]] - SMT_REGION_MEM0];
}

/* The program's first access outside every region (stray_access): the
 * model's run reads or writes memory the program does not have (an
 * unchecked packet access, an offset added past a map value; the verifier
 * rejects such programs). The encoder over-approximates that access with
 * free bytes; the concrete run would fault, so no counterexample can
 * replay it. Writes WHY and returns true. */
static bool outside_regions(struct cx *x, char *why, size_t len)
{
	uint64_t addr;
	const struct ssa_insn *v = stray_access(x, false, &addr);

	if (!v)
		return false;
	snprintf(why, len, "a %s of %u bytes at 0x%" PRIx64 " through a pointer into the %s "
		 "outside its memory on the model's path (the verifier rejects it)",
		 v->kind == SSA_LOAD ? "load" : v->kind == SSA_STORE ? "store" : "atomic",
		 v->size, addr, region_of(x, v));
	return true;
}

/* The first read of the spec (u8(p) .. be64(p)) on the model's path whose
 * value the encoder left unspecified, as the spec language says: a read
 * through a number (an address that is not a pointer into the program's
 * memory) or outside the memory its pointer points into. The concrete
 * monitor reads what the replay has at that address (0 where nothing is
 * mapped), so a counterexample that depends on the value may not replay;
 * the caller says so (unknown) instead of calling it a checker bug. NULL:
 * every spec read on the path is of memory the counterexample has. */
static const char *unspecified_read(struct cx *x)
{
	uint64_t addr;
	const struct ssa_insn *v = stray_access(x, true, &addr);

	if (!v)
		return NULL;
	if (x->e->region[v->args[0]] < SMT_REGION_MEM0)
		return arena_printf(x->a, "the spec's %u-byte read at 0x%" PRIx64 " through a number "
				    "(not a pointer into the program's memory)", v->size, addr);
	return arena_printf(x->a, "the spec's %u-byte read at 0x%" PRIx64 " outside the %s's memory",
			    v->size, addr, region_of(x, v));
}

_Static_assert(SMT_KSYM_ADDR(7) == REPLAY_KSYM_ADDR(7), "one address for a present ksym");

int cex_extract(struct smt *s, const struct smt_prog *e, void *model,
		const struct mon_check *c, int site, struct arena *a, struct cex **out,
		char *why, size_t len)
{
	struct cx x = { .s = s, .z = smt_ctx(s), .m = model, .e = e, .p = e->p,
			.o = e->p->o, .a = a };
	struct cex *cx = arena_alloc(a, sizeof(*cx));
	uint32_t b, i;
	bool found = site >= 0, outside;

	x.onpath = calloc(x.p->nblocks, 1);
	if (!x.onpath)
		abort();
	for (b = 0; b < x.p->nblocks; b++)
		x.onpath[b] = truth(&x, e->guard[b]);
	x.has_pkt = instrument_pkt_fields(x.o->funcs[c->func].prog_type, &x.off_data, &x.off_end,
					  &x.off_meta);
	for (b = 0; b < x.p->nblocks && !found; b++) {
		if (!x.onpath[b])
			continue;
		for (i = 0; i < x.p->blocks[b]->ninsns; i++) {
			const struct ssa_insn *v = x.p->blocks[b]->insns[i];

			if (v->kind == SSA_ASSERT && truth(&x, e->fail[v->id])) {
				cx->site = (unsigned)v->imm;
				found = true;
				break;
			}
		}
	}
	setup_regions(&x);
	walk_path(&x);
	outside = found && !x.failed && outside_regions(&x, why, len);
	if (found && !x.failed && !outside) {
		/* reads onpath: before it is freed; its evaluations do not fail
		 * the extraction */
		cx->unspecified = unspecified_read(&x);
		x.failed = false;
	}
	free(x.onpath);
	if (site >= 0)
		cx->site = (unsigned)site;
	if (!found || x.failed) {
		snprintf(why, len, "%s", !found ? "the model fails no assert on its path"
			 : "a value of the model could not be evaluated");
		return -EINVAL;
	}
	if (outside)
		return -ERANGE;
	cx->func = c->func;
	cx->args[0] = SMT_CTX_BASE;
	for (i = 2; i <= 5; i++)
		cx->args[i - 1] = e->input[i] ? val(&x, e->input[i]) : 0;
	if (x.has_pkt) {
		cx->pkt = val(&x, e->mem_init.data);
		cx->pkt_end = val(&x, e->mem_init.end);
	}
	cx->regions = x.regions.data;
	cx->nregions = (unsigned)x.regions.len;
	cx->calls = x.calls.data;
	cx->ncalls = (unsigned)x.calls.len;
	cx->reads = x.reads.data;
	cx->nreads = (unsigned)x.reads.len;
	cx->nksyms = x.o->nexterns;
	cx->ksyms = arena_alloc(a, (cx->nksyms + 1) * sizeof(*cx->ksyms));
	for (i = 0; i < cx->nksyms; i++)
		cx->ksyms[i] = x.o->externs[i].is_func ? val(&x, smt_ksym(s, i))
						       : SMT_KSYM_ADDR(i);
	*out = cx;
	return 0;
}
