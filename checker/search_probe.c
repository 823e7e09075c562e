/* search_probe.c - the search's probe (search.h, search_priv.h): one
 * candidate input run in the interpreter with an environment that answers
 * helper and kfunc calls, LD imm64 references and kernel loads from the
 * candidate, recording them into a struct cex and tracing the branches;
 * then the replay with the concrete monitor.
 */
#include "search_priv.h"

#include "instrument.h"
#include "models.h"
#include "smt.h"

#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* ---- the probe: an environment that answers from the candidate ---------- */

static int give_up(struct probe *pr)
{
	pr->bad = true;
	interp_error(&pr->ip, INTERP_UNSUPPORTED, "search: not modelled");
	return -1;
}

/* BYTES (in the try's arena, freed with it) are the run's memory; a
 * counterexample (pr->keep) keeps a copy of them as they are before the
 * run. */
static int add_region(struct probe *pr, enum interp_mem_kind kind, const char *name,
		      uint64_t base, uint32_t size, uint8_t *bytes, bool writable, int map)
{
	struct cex_region *r;
	int ri = interp_add_region(&pr->ip, kind, name, base, size, bytes, writable);

	if (ri < 0)
		return -1;
	if (!pr->keep)
		return ri;
	r = vec_push(pr->a, &pr->regions, sizeof(*r));
	r->kind = kind;
	r->name = name;
	r->base = base;
	r->size = size;
	r->bytes = arena_dup(pr->a, bytes, size);
	r->writable = writable;
	r->map = map;
	return ri;
}

/* "an entry of map NAME (at +OFF)", OFF as %#llx prints it (0, or 0x and
 * its digits): a vsnprintf was most of the result run's new entry */
static const char *entry_name(struct arena *a, const char *name, uint64_t off)
{
	char tail[32], *p = tail + sizeof(tail);
	uint64_t v = off;

	*--p = 0;
	*--p = ')';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	if (off) {
		*--p = 'x';
		*--p = '0';
	}
	p -= 6;
	memcpy(p, " (at +", 6);
	return arena_cat3(a, "an entry of map ", name ? name : "(null)", p);   /* as %s */
}

/* The region of a map entry at ADDR, created from the candidate's bytes. */
static int new_entry(struct probe *pr, int map, uint64_t addr, const uint8_t *key, uint32_t ks)
{
	const struct obj_map *m = &pr->o->maps[map];
	struct pent *e;
	uint8_t *bytes;
	int ri;

	if (pr->nents >= S_ENTS || m->value_size == 0 || m->value_size > (1u << 20))
		return -1;
	bytes = arena_alloc(pr->a, m->value_size);
	memcpy(bytes, pr->cd->ent[pr->nents], m->value_size < S_ENTSZ ? m->value_size : S_ENTSZ);
	/* the name is for the report: only the run that makes the search's
	 * result formats it (it was a tenth of xdp_fw's worst-case search) */
	ri = add_region(pr, INTERP_MEM_MAP_VALUE,
			!pr->sr->names ? "an entry of a map" :
			entry_name(pr->a, m->name, addr - SMT_MAP_BASE(map)),
			addr, m->value_size, bytes, true, map);
	if (ri < 0)
		return -1;
	if (pr->sr->bound_only)
		interp_track(&pr->ip, ri, pr->seen + offsetof(struct cand, ent) + pr->nents * S_ENTSZ,
			     0, m->value_size < S_ENTSZ ? m->value_size : S_ENTSZ);
	e = &pr->ents[pr->nents++];
	e->map = map;
	e->addr = addr;
	e->ks = ks < sizeof(e->key) ? ks : sizeof(e->key);
	memcpy(e->key, key, e->ks);
	e->region = ri;
	return 0;
}

/* bpf_map_lookup_elem: 1 or 2 options (hit, miss); -1: not modelled. */
/* May bpf_redirect_map find KEY in MAP (a map handle)? Not past the
 * max_entries of an array map (model_redirect_array). */
static bool redirect_key_ok(const struct object *o, uint64_t map, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < o->nmaps; i++)
		if (map == REPLAY_MAP_HANDLE(i))
			return !model_redirect_array(o->maps[i].type) ||
			       (uint32_t)key < o->maps[i].max_entries;
	return true;
}

static int lookup(struct probe *pr, struct cex_call *cc, unsigned opt, uint64_t *ret)
{
	uint64_t h = cc->args[0], stride, addr;
	const struct obj_map *m;
	const uint8_t *key;
	unsigned i, mine = 0;
	uint32_t k32;
	int mi;

	if ((h & 0xff000000ffffffffull) != REPLAY_MAP_HANDLE(0))
		return -1;
	mi = (int)((h >> 32) & 0xffffff);
	if ((uint32_t)mi >= pr->o->nmaps || pr->o->maps[mi].datasec >= 0)
		return -1;
	m = &pr->o->maps[mi];
	key = m->key_size ? interp_mem(&pr->ip, cc->args[1], m->key_size, false) : NULL;
	if (!key || m->key_size > 64)
		return -1;
	cc->key = arena_dup(pr->a, key, m->key_size);
	cc->key_size = m->key_size;
	stride = ((uint64_t)m->value_size + 7) & ~7ull;
	if (m->type == BPF_MAP_TYPE_ARRAY || m->type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		if (m->key_size < 4)
			return -1;
		memcpy(&k32, key, 4);
		*ret = 0;
		if (k32 >= m->max_entries)
			return 1;
		addr = SMT_MAP_BASE(mi) + k32 * stride;
		*ret = addr;
		for (i = 0; i < pr->nents; i++)
			if (pr->ents[i].addr == addr)
				return 1;
		return new_entry(pr, mi, addr, key, m->key_size) < 0 ? -1 : 1;
	}
	*ret = 0;
	if (opt == 1)
		return 2;
	for (i = 0; i < pr->nents; i++) {
		if (pr->ents[i].map != mi)
			continue;
		if (!memcmp(pr->ents[i].key, key, pr->ents[i].ks)) {
			*ret = pr->ents[i].addr;
			return 2;
		}
		mine++;
	}
	if (mine >= m->max_entries)
		return 2;                 /* full: a miss */
	addr = SMT_MAP_BASE(mi) + mine * stride;
	if (new_entry(pr, mi, addr, key, m->key_size) < 0)
		return -1;
	*ret = addr;
	return 2;
}

/* bpf_xdp_adjust_head/tail/meta succeeding: move the pointers in the
 * context as the encoding does (packet_adjust); false if out of limits. */
static bool adjust(struct probe *pr, unsigned fx, int32_t delta, struct cex_call *cc)
{
	const struct search *sr = pr->sr;
	uint8_t *ctx = interp_mem(&pr->ip, SMT_CTX_BASE, CTX_SIZE, true);
	uint32_t d, e, m, nv;
	uint64_t lim = SMT_PKT_BASE + SMT_PKT_HEADROOM + pr->cd->len + PKT_TAIL;
	struct cex_write *w;

	if (!ctx || !sr->has_pkt)
		return false;
	memcpy(&d, ctx + sr->off_data, 4);
	memcpy(&e, ctx + sr->off_end, 4);
	memcpy(&m, ctx + sr->off_meta, 4);
	if (fx & MODEL_FX_HEAD) {
		nv = d + (uint32_t)delta;
		if ((int64_t)d + delta < (int64_t)SMT_PKT_BASE || (uint64_t)nv + 14 > e)
			return false;
		m = nv - (d - m);
		d = nv;
	} else if (fx & MODEL_FX_TAIL) {
		nv = e + (uint32_t)delta;
		if ((uint64_t)d + 14 > (uint64_t)e + delta || (uint64_t)e + delta > lim ||
		    (uint64_t)e + delta > (uint64_t)d + SMT_PKT_MAX)
			return false;
		e = nv;
	} else {
		nv = m + (uint32_t)delta;
		if ((int64_t)m + delta < (int64_t)d - 32 || (int64_t)m + delta > d)
			return false;
		m = nv;
	}
	memcpy(ctx + sr->off_data, &d, 4);
	memcpy(ctx + sr->off_end, &e, 4);
	memcpy(ctx + sr->off_meta, &m, 4);
	w = arena_new_array(pr->a, struct cex_write, 3);
	w[0] = (struct cex_write){ SMT_CTX_BASE + sr->off_data, 4, arena_dup(pr->a, &d, 4) };
	w[1] = (struct cex_write){ SMT_CTX_BASE + sr->off_end, 4, arena_dup(pr->a, &e, 4) };
	w[2] = (struct cex_write){ SMT_CTX_BASE + sr->off_meta, 4, arena_dup(pr->a, &m, 4) };
	cc->writes = w;
	cc->nwrites = 3;
	cc->pkt_written = true;
	return true;
}

/* V is in the packet's region (search_probe's one region of its kind,
 * live for the whole run; regions do not overlap: the region a byte at V
 * lies in, were it looked up) */
static bool in_packet(struct probe *pr, uint64_t v)
{
	return v - SMT_PKT_BASE < SMT_PKT_HEADROOM + (uint64_t)pr->cd->len + PKT_TAIL;
}

/* The value options of a result model; the first is the default. */
static unsigned value_opts(struct pcall *p, unsigned k, enum model_ret ret, int64_t lo, int64_t hi,
			   bool sign, uint64_t *v)
{
	uint64_t c[4] = { 0x100 + k, 0, (uint64_t)lo, (uint64_t)hi };
	unsigned n = 0, i, j;

	p->value = true;
	p->lo = lo;
	p->hi = hi;
	p->sign = sign;
	if (ret != MODEL_RET_RANGE) {
		p->lo = INT64_MIN;
		p->hi = INT64_MAX;
		p->sign = true;
		v[0] = c[0];
		v[1] = 0;
		return 2;
	}
	for (i = 0; i < 4; i++) {
		bool in = sign ? (int64_t)c[i] >= lo && (int64_t)c[i] <= hi
			       : c[i] >= (uint64_t)lo && c[i] <= (uint64_t)hi;

		for (j = 0; j < n && in; j++)
			if (v[j] == c[i])
				in = false;
		if (in)
			v[n++] = c[i];
	}
	if (!n)
		v[n++] = (uint64_t)lo;
	return n;
}

bool search_fits(const struct pcall *p, uint64_t v)
{
	return p->sign ? (int64_t)v >= p->lo && (int64_t)v <= p->hi
		       : v >= (uint64_t)p->lo && v <= (uint64_t)p->hi;
}

static int run_loop(struct probe *pr, const uint64_t args[5], uint64_t *ret)
{
	uint64_t fn = args[1], a[5] = { 0, args[2], 0, 0, 0 }, r = 0;
	uint32_t nr = (uint32_t)args[0], i, slot = (uint32_t)fn;
	uint64_t sec = (fn >> 32) & 0xffffff;

	if (args[3]) {
		*ret = (uint64_t)-EINVAL;
		return 0;
	}
	if (nr > BPF_MAX_LOOPS) {
		*ret = (uint64_t)-E2BIG;
		return 0;
	}
	if (REPLAY_FUNC_ADDR(sec, slot) != fn || sec >= pr->o->nsections ||
	    slot >= pr->o->sections[sec].nslots)
		return give_up(pr);
	for (i = 0; i < nr; i++) {
		a[0] = i;
		if (interp_invoke(&pr->ip, (int)sec, slot, a, &r) < 0)
			return -1;
		if (r)
			break;
	}
	*ret = i < nr ? i + 1 : nr;
	return 0;
}

static int p_call(void *arg, struct interp *ip, const struct insn *in, int64_t id,
		  const uint64_t args[5], uint64_t *ret);

/* bpf_skb_load_bytes's results as smt_call.c's skb_load_ret allows them:
 * on an __sk_buff at the context's start, 0 when off + len is within
 * ctx.len (the context's first word now) and off <= 0xffff, -EFAULT when
 * outside or off >= 2^31, either in between; elsewhere the errno model's
 * (0 or an errno: -EFAULT is one). Into V; the number of options. */
static unsigned skb_load_opts(struct probe *pr, const uint64_t args[5], uint64_t *v)
{
	uint64_t off = (uint32_t)args[1], len = (uint32_t)args[3];
	uint32_t clen;
	unsigned n = 0;

	if (!model_skb_load_exact(pr->o->funcs[pr->c->func].prog_type) ||
	    args[0] != SMT_CTX_BASE) {
		v[n++] = 0;
		v[n++] = (uint64_t)-EFAULT;
		return n;
	}
	/* what interp_mem(SMT_CTX_BASE, 4) gives and marks: the context's
	 * region is pr->ctxb, tracked from its first byte (search_probe) */
	memcpy(&clen, pr->ctxb, 4);
	if (pr->sr->bound_only)
		memset(pr->seen + offsetof(struct cand, ctx), 1, 4);
	if (off + len <= clen && off < 0x80000000u)
		v[n++] = 0;
	if (off + len > clen || off > 0xffff)
		v[n++] = (uint64_t)-EFAULT;
	return n;
}

static int p_lddw(void *arg, struct interp *ip, const struct insn *in, uint64_t *value)
{
	struct probe *pr = arg;
	int map, k;

	/* globals at SMT_MAP_BASE, as the cex the probe builds places them */
	k = replay_lddw_value(pr->o, in, ip->sec, ip->pc, NULL, 0, value, &map);
	if (k == 1)
		return 0;
	if (k == 0 && map >= 0) {
		*value = SMT_MAP_BASE(map) + (uint64_t)in->ref.off;
		return 0;
	}
	return give_up(pr);
}

static int p_unmapped(void *arg, struct interp *ip, uint64_t addr, uint32_t size, uint64_t *value)
{
	struct probe *pr = arg;
	unsigned k = (unsigned)pr->reads.len;
	struct cex_read *rd;
	uint64_t v;

	(void)ip;
	if ((addr < KERNEL_LO && addr >= NULL_HI) || k >= S_READS)
		return give_up(pr);
	v = pr->cd->has_rd[k] ? pr->cd->rd[k] : 0x1000 + 0x100ull * k;
	if (size < 8)
		v &= (1ull << (8 * size)) - 1;
	rd = vec_push(pr->a, &pr->reads, sizeof(*rd));
	rd->addr = addr;
	rd->size = size;
	rd->value = v;
	*value = v;
	return 0;
}

/* track's load of IN from A: out of line, so that p_insn, which runs for
 * every instruction, saves no registers for the loops here (12
 * instructions each) */
__attribute__((noinline))
static void track_load(struct probe *pr, const struct insn *in, uint64_t a)
{
	unsigned r;

	pr->org[in->dst] = pr->corg[in->dst] = 0;
	if (pr->sr->has_pkt && a >= pr->data && a + in->size <= pr->end && a - pr->data < S_PKT) {
		pr->org[in->dst] = (uint16_t)(a - pr->data + 1);
		pr->orgsz[in->dst] = in->size;
	}
	/* global data and map entries are at SMT_MAP_BASE(map) and above;
	 * the stacks and the packet below (most loads: a stack slot) */
	if (a < SMT_MAP_BASE(0))
		return;
	for (r = 0; r < pr->o->nmaps && pr->sr->nglob; r++) {
		uint32_t off = pr->sr->gspans[r].off, n = pr->sr->gspans[r].n;

		if (n && a >= SMT_MAP_BASE(r) && a + in->size <= SMT_MAP_BASE(r) + n) {
			pr->corg[in->dst] = (uint32_t)(offsetof(struct cand, glob) + off +
						       (a - SMT_MAP_BASE(r)) + 1);
			pr->orgsz[in->dst] = in->size;
			break;
		}
	}
	for (r = 0; r < pr->nents && !pr->corg[in->dst]; r++) {
		const struct pent *e = &pr->ents[r];
		uint32_t vs = pr->o->maps[e->map].value_size;

		if (vs > S_ENTSZ)
			vs = S_ENTSZ;
		if (a >= e->addr && a + in->size <= e->addr + vs) {
			pr->corg[in->dst] = (uint32_t)(offsetof(struct cand, ent) + r * S_ENTSZ +
						       (a - e->addr) + 1);
			pr->orgsz[in->dst] = in->size;
		}
	}
}

/* The effect of IN (of kind K, about to run with REGS) on which
 * registers hold packet bytes (flip's last resort: a compared value that
 * is a masked or shifted load appears nowhere in the input), taken before
 * it runs: it depends on IN and a load's address only, and nothing reads
 * it before the next instruction. A guess for choosing inputs, nothing
 * more: a bpf-to-bpf call's saved registers are not restored here. */
static void track(struct probe *pr, const struct insn *in, enum isa_kind k,
		  const uint64_t regs[ISA_NREGS])
{
	unsigned r;

	if (k == ISA_K_LDX) {
		track_load(pr, in, regs[in->src] + (uint64_t)(int64_t)in->off);
	} else if (k == ISA_K_ALU && in->op == ISA_MOV) {
		pr->org[in->dst] = in->srcreg ? pr->org[in->src] : 0;
		pr->corg[in->dst] = in->srcreg ? pr->corg[in->src] : 0;
		pr->orgsz[in->dst] = in->srcreg ? pr->orgsz[in->src] : 0;
	} else if (k == ISA_K_ALU || k == ISA_K_NEG || k == ISA_K_END) {
		if (in->srcreg && k == ISA_K_ALU)
			pr->org[in->dst] = pr->corg[in->dst] = 0;
		else                   /* with a constant: still those bytes, changed */
			pr->orgsz[in->dst] |= ORG_CHANGED;
	} else if (k == ISA_K_CALL || k == ISA_K_CALLX) {
		for (r = 0; r <= 5; r++)
			pr->org[r] = pr->corg[r] = 0;
	} else if (k == ISA_K_LDDW || k == ISA_K_MOVSX || k == ISA_K_LDPKT) {
		pr->org[in->dst] = pr->corg[in->dst] = 0;
	} else if (k == ISA_K_ATOMIC) {
		pr->org[0] = pr->corg[0] = 0;
		pr->org[in->src] = pr->corg[in->src] = 0;
	}
}

static void p_insn(void *arg, int sec, uint32_t slot, const uint64_t regs[ISA_NREGS])
{
	struct probe *pr = arg;
	/* the interpreter runs the slots of these sections only (go) */
	const struct insn *in = &pr->l->insns[sec][slot];
	enum isa_kind k = isa_table[in->op].kind;
	struct cmp *c;

	if (pr->pending) {
		c = &pr->cmps[pr->ncmps - 1];
		c->taken = !(sec == c->sec && slot == c->slot + 1);
		pr->pending = false;
	}
	if (k != ISA_K_JCOND) {
		track(pr, in, k, regs);
		return;
	}
	if (pr->ncmps >= S_CMPS)
		return;
	c = &pr->cmps[pr->ncmps++];
	c->sec = sec;
	c->slot = slot;
	c->a = regs[in->dst];
	c->b = in->srcreg ? regs[in->src] : (uint64_t)(int64_t)in->imm;
	c->is32 = !in->is64;
	c->jset = in->op == ISA_JSET;
	c->org = pr->org[in->dst];
	c->corg = pr->corg[in->dst];
	c->orgsz = pr->orgsz[in->dst];
	if (c->is32) {
		c->a &= 0xffffffffull;
		c->b &= 0xffffffffull;
	}
	pr->pending = true;
}

/* A helper's written arguments (M) or a modelled kfunc's pointers to
 * non-const (KFUNC, object_kfunc_written) of a known size (at most
 * S_ENTSZ bytes) into the stack get the candidate's next bytes (they are
 * fresh in the lift: any bytes are a choice), recorded as the call's
 * writes. */
static void stack_writes(struct probe *pr, const struct helper_model *m, int kfunc,
			 const uint64_t args[5], struct cex_call *cc)
{
	const struct interp_region *r;
	struct cex_write *w;
	unsigned j, n = 0;
	uint64_t size;
	uint8_t *p;
	int ri;

	w = arena_new_array(pr->a, struct cex_write, 5 + cc->nwrites);
	if (cc->nwrites)
		memcpy(w, cc->writes, sizeof(*w) * cc->nwrites);
	n = cc->nwrites;
	for (j = 0; j < 5 && pr->nwr < S_WR; j++) {
		if (m && m->arg[j] != MODEL_ARG_WRITE)
			continue;
		if (m) {
			size = m->size_arg[j] ? (m->size_arg[j] <= 5 ? args[m->size_arg[j] - 1] : 0) :
			       m->size[j];
		} else {
			int64_t ks = object_kfunc_written(pr->o, kfunc, j + 1);

			size = ks > 0 ? (uint64_t)ks : 0;
		}
		ri = size ? interp_region_at(&pr->ip, args[j], (uint32_t)size) : -1;
		r = ri >= 0 ? interp_region(&pr->ip, ri) : NULL;
		if (!size || size > S_ENTSZ || !r || r->kind != INTERP_MEM_STACK)
			continue;
		/* what interp_mem gives: a stack is writable and not tracked
		 * (interp_init, search_probe) */
		p = r->bytes + (args[j] - r->base);
		if (pr->sr->bound_only)    /* the program may read any of them */
			memset(pr->seen + offsetof(struct cand, wr) + pr->nwr * S_ENTSZ, 1, size);
		memcpy(p, pr->cd->wr[pr->nwr++], size);
		w[n++] = (struct cex_write){ args[j], (uint32_t)size, arena_dup(pr->a, p, size) };
	}
	cc->writes = w;
	cc->nwrites = n;
}

/* The answer to call K (option cd->opt[K], or the candidate's result). */
static int p_call(void *arg, struct interp *ip, const struct insn *in, int64_t id,
		  const uint64_t args[5], uint64_t *ret)
{
	struct probe *pr = arg;
	const struct cand *cd = pr->cd;
	unsigned k = (unsigned)pr->calls.len, n = 0, opt, j;
	const struct helper_model *m = NULL;
	const struct kfunc_model *km = NULL;
	struct pcall *p = &pr->pc[k < S_CALLS ? k : 0];
	struct cex_call *cc;
	uint64_t v[S_OPTS] = { 0 };
	bool kfunc = in->op != ISA_CALLX &&
		     (in->ref.kind == INSN_REF_KFUNC || in->src == ISA_CALL_KFUNC);
	int r;

	if (k >= S_CALLS)
		return give_up(pr);
	cc = vec_push(pr->a, &pr->calls, sizeof(*cc));
	cc->sec = ip->sec;
	cc->slot = ip->pc;
	cc->helper = kfunc ? -1 : (int)id;
	cc->kfunc = kfunc ? (int)id : -1;
	memcpy(cc->args, args, sizeof(cc->args));
	memset(p, 0, sizeof(*p));
	p->nopts = 1;
	opt = cd->opt[k];
	if (kfunc) {
		if ((uint32_t)id >= pr->o->nkfuncs)
			return give_up(pr);
		km = model_kfunc(pr->o->kfuncs[id].name);
	} else {
		m = model_helper((int)id);
	}
	if (!kfunc && id == BPF_FUNC_loop)
		return run_loop(pr, args, ret) < 0 ? -1 : INTERP_CALL_OK;
	if (!kfunc && id == BPF_FUNC_tail_call) {
		*ret = cc->ret = (uint64_t)-ENOENT;          /* not taken */
		return INTERP_CALL_OK;
	}
	if (!kfunc && id == BPF_FUNC_map_lookup_elem) {
		r = lookup(pr, cc, opt, ret);
		if (r < 0)
			return give_up(pr);
		p->nopts = (uint8_t)r;
		cc->ret = *ret;
		return INTERP_CALL_OK;
	}
	if (!kfunc && id == BPF_FUNC_ringbuf_reserve) {
		p->nopts = 2;
		*ret = 0;
		if (opt == 0) {
			uint32_t size = (uint32_t)args[1];
			uint8_t *z;

			if (!size || args[1] > (1u << 16) || pr->nrb >= 64)
				return give_up(pr);
			z = arena_alloc(pr->a, size);
			*ret = SMT_RB_BASE(pr->nrb);
			pr->nrb++;
			if (add_region(pr, INTERP_MEM_RINGBUF, "ringbuf reservation", *ret, size, z,
				       true, -1) < 0)
				return give_up(pr);
		}
		cc->ret = *ret;
		return INTERP_CALL_OK;
	}
	if (km) {
		if (km->ret == MODEL_RET_ERRNO) {
			v[n++] = 0;
			v[n++] = (uint64_t)-EINVAL;
		} else if (km->ret == MODEL_RET_KPTR) {
			v[n++] = KPTR_BASE + 0x100000ull * k;
			v[n++] = 0;
		} else if (km->ret == MODEL_RET_ANY || km->ret == MODEL_RET_VOID ||
			   km->ret == MODEL_RET_RANGE) {
			n = value_opts(p, k, km->ret, km->lo, km->hi, km->sign, v);
		} else {
			return give_up(pr);
		}
	} else if (!m) {
		n = value_opts(p, k, MODEL_RET_ANY, 0, 0, false, v);
	} else {
		if (m->fx & MODEL_FX_ALL)
			return give_up(pr);
		switch (m->ret) {
		case MODEL_RET_ANY: case MODEL_RET_VOID: case MODEL_RET_RANGE:
			n = value_opts(p, k, m->ret, m->lo, m->hi, m->sign, v);
			break;
		case MODEL_RET_ERRNO:
			v[n++] = 0;
			v[n++] = (uint64_t)-EINVAL;
			break;
		case MODEL_RET_KPTR:
			v[n++] = KPTR_BASE + 0x100000ull * k;
			v[n++] = 0;
			break;
		case MODEL_RET_REDIRECT_MAP:
			if (args[2] & ~0x1bull) {
				v[n++] = 0;
			} else {
				if (redirect_key_ok(pr->o, args[0], args[1]))
					v[n++] = 4;
				v[n++] = args[2] & 3;
			}
			break;
		case MODEL_RET_REDIRECT:
			if (pr->o->funcs[pr->c->func].prog_type == BPF_PROG_TYPE_XDP) {
				v[n++] = 4;
				v[n++] = 0;
			} else {
				v[n++] = 7;
				v[n++] = 2;
			}
			break;
		case MODEL_RET_SKB_LOAD:
			n = skb_load_opts(pr, args, v);
			break;
		case MODEL_RET_MAP_VALUE: case MODEL_RET_RINGBUF:
			return give_up(pr);
		}
	}
	p->nopts = (uint8_t)n;
	if (opt >= n)
		opt = 0;
	*ret = v[opt];
	if (p->value && opt == 0 && cd->has_ret[k] && search_fits(p, cd->ret[k]))
		*ret = cd->ret[k];
	if (m && (m->fx & (MODEL_FX_HEAD | MODEL_FX_TAIL | MODEL_FX_META)) && *ret == 0 &&
	    !adjust(pr, m->fx, (int32_t)args[1], cc))
		*ret = (uint64_t)-EINVAL;
	if ((m && (m->ret != MODEL_RET_ERRNO || *ret == 0)) || km)
		stack_writes(pr, m, km ? (int)id : -1, args, cc);
	/* the packet may have changed: a packet helper, or a pointer into the
	 * packet given to a helper that may write through it */
	if (pr->sr->has_pkt && m && (m->fx & MODEL_FX_PACKET) &&
	    !(m->fx & (MODEL_FX_HEAD | MODEL_FX_TAIL | MODEL_FX_META)))
		cc->pkt_written = true;
	for (j = 0; j < 5 && pr->sr->has_pkt; j++)
		if ((!m || m->arg[j] == MODEL_ARG_WRITE || m->arg[j] == MODEL_ARG_PTR) &&
		    in_packet(pr, args[j]))
			cc->pkt_written = true;
	cc->ret = *ret;
	return INTERP_CALL_OK;
}

/* ---- one candidate ----------------------------------------------------- */

static void pin_assumes(const struct mon_check *c, const struct object *o, int map, uint8_t *bytes,
			uint32_t size)
{
	unsigned i;

	for (i = 0; i < c->nassumes; i++) {
		const struct mon_expr *e = c->assumes[i], *g, *n;

		if (e->kind != MON_BINARY || e->op != SPEC_BIN_EQ || e->n != 2)
			continue;
		g = e->a[0]->kind == MON_GLOBAL ? e->a[0] : e->a[1];
		n = g == e->a[0] ? e->a[1] : e->a[0];
		if (g->kind != MON_GLOBAL || n->kind != MON_NUM || g->index != map ||
		    (uint64_t)g->off + g->size > size || g->size > 8)
			continue;
		memcpy(bytes + g->off, &n->num, g->size);
	}
	(void)o;
}

uint32_t search_glob_span(const struct object *o, uint32_t m, uint32_t *off)
{
	uint32_t i, used = 0, n;

	for (i = 0; i < o->nmaps && i <= m; i++) {
		if (o->maps[i].datasec < 0)
			continue;
		n = o->datasecs[o->maps[i].datasec].size;
		if (n > S_GLOB - used)
			n = S_GLOB - used;
		if (i == m) {
			*off = used;
			return n;
		}
		used += n;
	}
	*off = 0;
	return 0;
}

void search_probe_init(struct search *sr, struct probe *pr)
{
	struct interp_env env = { .arg = pr, .call = p_call, .lddw_value = p_lddw,
				  .on_insn = p_insn, .load_unmapped = p_unmapped };

	if (interp_init(&pr->ip, sr->l->insns, sr->nslots, (int)sr->o->nsections, &env) < 0)
		abort();               /* only arguments that are not code fail */
	pr->ip.max_steps = 100000;
	pr->wr_marked = S_WR;
}

void search_probe_fini(struct probe *pr)
{
	interp_fini(&pr->ip);
}

bool search_probe(struct search *sr, const struct cand *cd, struct arena *a, struct cex **xout,
		  struct probe *pr)
{
	const struct object *o = sr->o;
	const struct obj_func *f = &o->funcs[sr->c->func];
	uint8_t *ctx, *pk;
	uint64_t args[5] = { SMT_CTX_BASE, 0, 0, 0, 0 };
	struct cex *x;
	uint32_t m, v;
	int ri;

	memset(pr, 0, offsetof(struct probe, ip));
	pr->l = sr->l;
	pr->c = sr->c;
	pr->o = o;
	pr->sr = sr;
	pr->cd = cd;
	pr->a = a;
	pr->keep = xout != NULL;
	interp_drop_regions(&pr->ip, INTERP_MAX_FRAMES);    /* the last run's memory */
	ctx = memcpy(pr->ctxb, cd->ctx, CTX_SIZE);
	if (sr->has_pkt) {
		pr->data = SMT_PKT_BASE + SMT_PKT_HEADROOM;
		pr->end = pr->data + cd->len;
		v = (uint32_t)pr->data;
		memcpy(ctx + sr->off_data, &v, 4);
		memcpy(ctx + sr->off_meta, &v, 4);
		v = (uint32_t)pr->end;
		memcpy(ctx + sr->off_end, &v, 4);
	}
	/* interp_track clears the other ranges it marks; the helper writes'
	 * are the last run's (stack_writes) */
	if (sr->bound_only)
		memset(pr->seen + offsetof(struct cand, wr), 0, pr->wr_marked * S_ENTSZ);
	pr->wr_marked = 0;
	if ((ri = add_region(pr, INTERP_MEM_CTX, "ctx", SMT_CTX_BASE, CTX_SIZE, ctx, true, -1)) < 0)
		return false;
	if (sr->bound_only)
		interp_track(&pr->ip, ri, pr->seen + offsetof(struct cand, ctx), 0, CTX_SIZE);
	if (sr->has_pkt) {
		pk = arena_alloc(a, SMT_PKT_HEADROOM + cd->len + PKT_TAIL);
		memcpy(pk + SMT_PKT_HEADROOM, cd->pkt, cd->len);
		if ((ri = add_region(pr, INTERP_MEM_PACKET, "packet", SMT_PKT_BASE,
				     SMT_PKT_HEADROOM + cd->len + PKT_TAIL, pk, true, -1)) < 0)
			return false;
		if (sr->bound_only)
			interp_track(&pr->ip, ri, pr->seen + offsetof(struct cand, pkt),
				     SMT_PKT_HEADROOM, cd->len);
	}
	for (m = 0; m < o->nmaps; m++) {
		const struct obj_datasec *d;
		uint8_t *b;

		if (o->maps[m].datasec < 0)
			continue;
		d = &o->datasecs[o->maps[m].datasec];
		b = arena_alloc(a, d->size ? d->size : 1);
		uint32_t gn, goff;

		if (d->size)
			memcpy(b, d->init, d->size);
		gn = search_glob_span(o, m, &goff);
		memcpy(b, cd->glob + goff, gn);
		pin_assumes(sr->c, o, (int)m, b, d->size);
		if ((ri = add_region(pr, INTERP_MEM_GLOBAL, d->name, SMT_MAP_BASE(m),
				     d->size ? d->size : 1, b, !d->readonly, (int)m)) < 0)
			return false;
		if (sr->bound_only && gn)
			interp_track(&pr->ip, ri, pr->seen + offsetof(struct cand, glob) + goff, 0, gn);
	}
	interp_run(&pr->ip, f->sec, f->start, args, NULL);
	pr->wr_marked = pr->nwr;
	pr->status = pr->ip.res.status;
	pr->steps = pr->ip.res.steps;
	if (pr->bad)
		return false;
	if (!xout)
		return true;
	x = arena_alloc(a, sizeof(*x));
	x->func = sr->c->func;
	memcpy(x->args, args, sizeof(args));
	x->regions = pr->regions.data;
	x->nregions = (unsigned)pr->regions.len;
	x->pkt = sr->has_pkt ? pr->data : 0;
	x->pkt_end = sr->has_pkt ? pr->end : 0;
	x->calls = pr->calls.data;
	x->ncalls = (unsigned)pr->calls.len;
	x->reads = pr->reads.data;
	x->nreads = (unsigned)pr->reads.len;
	x->nksyms = o->nexterns;
	x->ksyms = arena_alloc(a, (x->nksyms + 1) * sizeof(*x->ksyms));
	for (m = 0; m < x->nksyms; m++)
		x->ksyms[m] = SMT_KSYM_ADDR(m);
	x->max_steps = 100000;
	*xout = x;
	return true;
}

/* C checks nothing but the bound (its one assert; no state, handlers,
 * counters or assumes): whether a run fails it is the probe's
 * instruction count, the same interpreter on the same input as the replay (the caller
 * replays the input it returns: check_worst.c check_searched_worst). */
bool search_bound_sole(const struct mon_check *c)
{
	return c->has_bound && c->nasserts == 1 && c->bound_site == 0;
}

bool search_bound_only(const struct mon_check *c)
{
	return search_bound_sole(c) && !c->nvars && !c->nhandlers && !c->ncounters &&
	       !c->nassumes;
}

/* Probe and replay CD: 1 when the replay fails an assert (*SITE; WANT
 * >= 0: that one), else 0 (also when the probe left the model). A
 * bound-only check needs no replay (bound_only). */
int search_try(struct search *sr, const struct cand *cd, int want, unsigned *site,
		    struct probe *pr)
{
	struct arena *a = sr->tried;
	struct replay_result rr;
	struct cex *x = NULL;
	int found = 0;

	sr->runs++;
	/* the previous try's probe is done with: its arena is this one's (a
	 * new arena a try was a 64 KB malloc and free) */
	if (a)
		arena_reset(a);
	else if (!(a = sr->tried = arena_new()))
		abort();
	if (!search_probe(sr, cd, a, sr->bound_only ? NULL : &x, pr))
		return 0;
	if (sr->bound_only) {
		/* the monitor's one assert: insns <= bound at the exit */
		if (pr->status != INTERP_EXIT || pr->steps <= sr->c->bound ||
		    (want >= 0 && (unsigned)want != sr->c->bound_site))
			return 0;
		*site = sr->c->bound_site;
		sr->ok_reads = (unsigned)pr->reads.len;
		memcpy(sr->okseen, pr->seen, sizeof(sr->okseen));
		return 1;
	}
	/* the bound is the check's one assert (its handlers or assumes only
	 * restrict runs): a run that exits within it fails nothing, and
	 * the replay would say so (loop_sum's bound: most of the witness
	 * search's tries, each a replay of 58K instructions) */
	if (sr->bound_sole && pr->status == INTERP_EXIT && pr->steps <= sr->c->bound)
		return 0;
	if (replay_run(sr->l, sr->c, x, &rr) == 0 && rr.outcome == REPLAY_ASSERT_FAILED &&
	    (want < 0 || rr.site == (unsigned)want)) {
		*site = rr.site;
		sr->ok_reads = (unsigned)pr->reads.len;
		found = 1;
	}
	replay_result_free(&rr);
	return found;
}
