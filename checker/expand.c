/* expand.c - instantiate a program's CFGs into one DAG (see expand.h).
 *
 * Preconditions: the sections of O are decoded and resolved. Loop unrolling:
 * the header of loop L is entered at most `bound` times per entry of L; the
 * back edge that would make it bound+1 goes to an XN_UNWIND node.
 */
#include "expand.h"
#include "stats.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small open-addressing table: 4-word key -> index ------------- */
struct htab {
	uint32_t *keys;   /* 4 words per entry */
	uint32_t *vals;   /* UINT32_MAX = empty */
	uint32_t cap, len;
};

static uint32_t hkey(const uint32_t k[4])
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < 4; i++) {
		h ^= k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return (uint32_t)h;
}

static void htab_grow(struct htab *t);

static uint32_t *htab_slot(struct htab *t, const uint32_t k[4])
{
	uint32_t i;

	if (t->len * 2 >= t->cap)
		htab_grow(t);
	for (i = hkey(k) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (t->vals[i] == UINT32_MAX) {
			memcpy(&t->keys[i * 4], k, 16);
			return &t->vals[i];
		}
		if (!memcmp(&t->keys[i * 4], k, 16))
			return &t->vals[i];
	}
}

static void htab_grow(struct htab *t)
{
	struct htab n = { .cap = t->cap ? t->cap * 2 : 1024 };
	uint32_t i;

	n.keys = malloc(sizeof(uint32_t) * 4 * n.cap);
	n.vals = malloc(sizeof(uint32_t) * n.cap);
	if (!n.keys || !n.vals)
		abort();
	memset(n.vals, 0xff, sizeof(uint32_t) * n.cap);
	for (i = 0; i < t->cap; i++)
		if (t->vals[i] != UINT32_MAX) {
			*htab_slot(&n, &t->keys[i * 4]) = t->vals[i];
			n.len++;
		}
	free(t->keys);
	free(t->vals);
	*t = n;
}

static void htab_free(struct htab *t)
{
	free(t->keys);
	free(t->vals);
}

/* ---- expansion state --------------------------------------------------- */
struct expander {
	struct xgraph *x;
	struct arena *a;
	struct diag *d;
	unsigned bound;
	unsigned cb_bound;               /* bpf_loop callbacks' (<= bound) */
	uint32_t max_nodes;
	struct htab ctx_tab, node_tab;   /* contexts and nodes not in the direct tables */
	struct vec ctxs, nodes, frames;  /* malloc'd, adopted by the arena at the end */
	struct dense *dense;             /* per function, made with its CFG */
	struct vec ctx_base;             /* uint32_t per context: its first slot in slots */
	struct vec ctx_next;             /* uint32_t per LOOP context: the next iteration's + 1 */
	struct vec slots;                /* uint32_t: node + 1 per (context, direct block),
	                                  * then context + 1 per (context, directly nested loop) */
	int err;
};

/* Direct tables (instead of hashing the keys): a block node of context C
 * is a block whose innermost loop is C's loop (C's function's blocks in no
 * loop for a ROOT/CALL/CB context: an edge enters a natural loop only at
 * its header, and edge_target leaves the loops that do not hold the
 * target), and a loop context entered from C is of a loop directly nested
 * in C's loop (or an outermost loop). Each context gets one slot per such
 * block and loop; a key that does not fit (never expected) goes to the
 * hash tables. */
struct dense {
	int *index;      /* block -> its index among the blocks of its innermost
	                  * loop; then loop -> its index among its siblings */
	uint32_t *nblk;  /* loop + 1 -> blocks whose innermost loop it is (-1:
	                  * none) */
	uint32_t *size;  /* loop + 1 -> slots of a context of that loop */
};

static void dense_build(struct expander *e, int f, const struct cfg *g)
{
	struct dense *d = &e->dense[f];
	uint32_t *nb = calloc_big((size_t)g->nloops + 1, sizeof(uint32_t));
	uint32_t *nl = calloc_big((size_t)g->nloops + 1, sizeof(uint32_t));
	int b, l;

	d->index = arena_new_array(e->a, int, (size_t)g->nblocks + g->nloops + 1);
	d->nblk = arena_new_array(e->a, uint32_t, (size_t)g->nloops + 1);
	d->size = arena_new_array(e->a, uint32_t, (size_t)g->nloops + 1);
	for (b = 0; b < g->nblocks; b++)
		d->index[b] = (int)nb[g->blocks[b].loop + 1]++;
	for (l = 0; l < g->nloops; l++)
		d->index[g->nblocks + l] = (int)nl[g->loops[l].parent + 1]++;
	for (l = 0; l <= g->nloops; l++) {
		d->nblk[l] = nb[l];
		d->size[l] = nb[l] + nl[l];
	}
	free(nb);
	free(nl);
}

static struct xctx *ctx_get(struct expander *e, uint32_t c)
{
	return &((struct xctx *)e->ctxs.data)[c];
}

static struct xnode *node_get(struct expander *e, uint32_t n)
{
	return &((struct xnode *)e->nodes.data)[n];
}

static void unsupported(struct expander *e, const char *why)
{
	if (!e->x->unsupported)
		e->x->unsupported = why;
}

/* The first error of a cfg_build, kept to be reported or made the reason
 * of "not modelled" */
struct cfg_err {
	struct arena *a;
	const char *file, *text;
};

static void keep_error(void *arg, const struct diag_msg *m)
{
	struct cfg_err *ce = arg;

	if (m->level == DIAG_ERROR && !ce->text) {
		ce->file = m->file;
		ce->text = arena_strdup(ce->a, m->text);
	}
}

static int get_cfg(struct expander *e, int f, const struct cfg **out)
{
	struct xgraph *x = e->x;

	if (!x->cfgs[f]) {
		const struct obj_func *fn = &x->o->funcs[f];
		struct cfg_err ce = { .a = e->a };
		struct diag cd = { .sink = keep_error, .arg = &ce };
		uint64_t t0 = stats_now();
		int err = cfg_build(x->o, f, x->insns[fn->sec], e->a, &cd, &x->cfgs[f]);

		x->cfg_ns += stats_now() - t0;
		if (err == -EOPNOTSUPP && ce.text) {
			/* irreducible control flow: the verdict is unknown */
			unsupported(e, ce.text);
			return -E2BIG;
		}
		if (ce.text)
			diag_report(e->d, DIAG_ERROR, ce.file, 0, 0, "%s", ce.text);
		if (err)
			return err;
		dense_build(e, f, x->cfgs[f]);
	}
	*out = x->cfgs[f];
	return 0;
}

static uint32_t new_frame(struct expander *e, int func, int parent, int sec,
			  uint32_t slot, bool cb)
{
	struct ssa_frame *fr;

	/* the IR names a value's frame in 16 bits (struct ssa_insn's frame,
	 * tframe; struct ssa_block's frame): more frames would alias */
	if (e->frames.len > UINT16_MAX) {
		unsupported(e, "more than 65536 call frames after inlining and loop unrolling");
		return 0;
	}
	fr = buf_push(&e->frames, sizeof(*fr));
	fr->func = func;
	fr->parent = parent;
	fr->sec = sec;
	fr->slot = slot;
	fr->callback = cb;
	return (uint32_t)(e->frames.len - 1);
}

/* The index in e->slots of block B of context C's function (LOOP < 0), or
 * of entering loop LOOP from C; UINT32_MAX when it has no direct slot. */
static uint32_t dense_index(struct expander *e, uint32_t c, int b, int loop)
{
	const struct xctx *xc = ctx_get(e, c);
	const struct cfg *g = e->x->cfgs[xc->func];
	const struct dense *d = &e->dense[xc->func];
	int own = xc->kind == XCTX_LOOP ? xc->a : -1;
	uint32_t base = ((uint32_t *)e->ctx_base.data)[c];

	if (loop >= 0)
		return g->loops[loop].parent == own ?
			base + d->nblk[own + 1] + (uint32_t)d->index[g->nblocks + loop] :
			UINT32_MAX;
	return g->blocks[b].loop == own ? base + (uint32_t)d->index[b] : UINT32_MAX;
}

static uint32_t *slot_at(struct expander *e, uint32_t i)
{
	return &((uint32_t *)e->slots.data)[i];
}

static uint32_t ctx_new(struct expander *e, enum xctx_kind kind,
			uint32_t parent, int func, int a, int b)
{
	uint32_t n = (uint32_t)e->ctxs.len, size;
	struct xctx *c = buf_push(&e->ctxs, sizeof(*c)), *p;

	c->kind = kind;
	c->parent = parent;
	c->func = func;
	c->a = a;
	c->b = b;
	if (kind == XCTX_ROOT) {
		c->depth = 1;
	} else if (kind == XCTX_LOOP) {
		p = ctx_get(e, parent);
		c->frame = p->frame;
		c->depth = p->depth;
	} else {
		const struct cfg *g;
		uint32_t site;

		p = ctx_get(e, parent);
		g = e->x->cfgs[p->func];
		site = g->blocks[a].last;
		c->frame = new_frame(e, func, (int)p->frame, g->sec, site, kind == XCTX_CB);
		c->depth = p->depth + 1;
	}
	size = e->dense[func].size[(kind == XCTX_LOOP ? a : -1) + 1];
	*(uint32_t *)buf_push(&e->ctx_base, sizeof(uint32_t)) = (uint32_t)e->slots.len;
	buf_push(&e->ctx_next, sizeof(uint32_t));
	while (size--)
		buf_push(&e->slots, sizeof(uint32_t));
	return n;
}

static uint32_t ctx_intern(struct expander *e, enum xctx_kind kind,
			   uint32_t parent, int func, int a, int b)
{
	uint32_t key[4] = { kind | (uint32_t)func << 4, parent, (uint32_t)a, (uint32_t)b };
	uint32_t i = kind == XCTX_LOOP && b == 0 ? dense_index(e, parent, -1, a) : UINT32_MAX;
	uint32_t *slot, c;

	if (i != UINT32_MAX) {
		if (*slot_at(e, i))
			return *slot_at(e, i) - 1;
		c = ctx_new(e, kind, parent, func, a, b);
		*slot_at(e, i) = c + 1;
		return c;
	}
	slot = htab_slot(&e->ctx_tab, key);
	if (*slot != UINT32_MAX)
		return *slot;
	e->ctx_tab.len++;
	c = ctx_new(e, kind, parent, func, a, b);
	*htab_slot(&e->ctx_tab, key) = c;
	return c;
}

/* The context of the next iteration of LOOP context C (made once, here:
 * it is entered only along C's back edges). */
static uint32_t ctx_next_iter(struct expander *e, uint32_t c)
{
	const struct xctx *xc = ctx_get(e, c);
	uint32_t n;

	if (((uint32_t *)e->ctx_next.data)[c])
		return ((uint32_t *)e->ctx_next.data)[c] - 1;
	n = ctx_new(e, XCTX_LOOP, xc->parent, xc->func, xc->a, xc->b + 1);
	((uint32_t *)e->ctx_next.data)[c] = n + 1;
	return n;
}

static uint32_t node_new(struct expander *e, enum xnode_kind kind, uint32_t ctx,
			 int block, int k)
{
	struct xnode *n;

	if (e->nodes.len >= e->max_nodes) {
		unsupported(e, "the program is too large after inlining and loop unrolling");
		e->err = -E2BIG;
	}
	n = buf_push(&e->nodes, sizeof(*n));
	n->kind = kind;
	n->ctx = ctx;
	n->block = block;
	n->k = k;
	return (uint32_t)(e->nodes.len - 1);
}

static uint32_t node_intern(struct expander *e, enum xnode_kind kind,
			    uint32_t ctx, int block, int k)
{
	uint32_t key[4] = { kind, ctx, (uint32_t)block, (uint32_t)k };
	uint32_t i = kind == XN_BLOCK ? dense_index(e, ctx, block, -1) : UINT32_MAX;
	uint32_t *slot, n;

	if (i != UINT32_MAX) {
		if (*slot_at(e, i))
			return *slot_at(e, i) - 1;
		n = node_new(e, kind, ctx, block, k);
		*slot_at(e, i) = n + 1;
		return n;
	}
	slot = htab_slot(&e->node_tab, key);
	if (*slot != UINT32_MAX)
		return *slot;
	e->node_tab.len++;
	n = node_new(e, kind, ctx, block, k);
	*htab_slot(&e->node_tab, key) = n;
	return n;
}

/* one per node, one per loop iteration: a large share of the expansion's
 * memory */
_Static_assert(sizeof(struct xnode) == 36, "struct xnode is 36 bytes");
_Static_assert(sizeof(struct xctx) == 24, "struct xctx is 24 bytes");

/* IMM: the edge's iteration number, which xedge_imm derives from the
 * source node (checked here) */
static void add_edge(struct expander *e, uint32_t from, uint32_t to,
		     enum xedge_act act, int32_t imm, uint32_t frame)
{
	struct xnode *n = node_get(e, from);
	struct xedge *ed = &n->succ[n->nsucc++];

	ed->to = to;
	ed->act = act;
	ed->frame = (uint16_t)frame;   /* < 65536: new_frame */
	if (xedge_imm(n, ed) != imm)
		abort();                /* expand.h's rule and the expansion disagree */
	node_get(e, to)->npreds++;
}

/* The node reached by CFG edge U -> V of the function running in CTX, with
 * the loop contexts left, entered or advanced. */
static uint32_t edge_target(struct expander *e, uint32_t ctx, int u, int v)
{
	const struct cfg *g = e->x->cfgs[ctx_get(e, ctx)->func];
	uint32_t c = ctx;
	int l;

	while (ctx_get(e, c)->kind == XCTX_LOOP &&
	       !cfg_loop_has(g, ctx_get(e, c)->a, v))
		c = ctx_get(e, c)->parent;
	l = g->header_of[v];
	if (l >= 0) {
		struct xctx *cc = ctx_get(e, c);

		if (cfg_is_back_edge(g, u, v)) {
			if (cc->kind != XCTX_LOOP || cc->a != l) {
				unsupported(e, "internal: back edge outside its loop context");
				return node_new(e, XN_UNWIND, c, v, 0);
			}
			if ((unsigned)cc->b + 1 >= e->bound)
				return node_new(e, XN_UNWIND, c, v, 0);
			c = ctx_next_iter(e, c);
		} else {
			c = ctx_intern(e, XCTX_LOOP, c, cc->func, l, 0);
		}
	}
	return node_intern(e, XN_BLOCK, c, v, 0);
}

/* The node for entering the function of context CTX at its first block. */
static uint32_t entry_node(struct expander *e, uint32_t ctx)
{
	const struct xctx *c = ctx_get(e, ctx);
	const struct cfg *g = e->x->cfgs[c->func];

	if (g->header_of[0] >= 0)
		ctx = ctx_intern(e, XCTX_LOOP, ctx, c->func, g->header_of[0], 0);
	return node_intern(e, XN_BLOCK, ctx, 0, 0);
}

/* The function a bpf_loop call at the end of block B receives in r2: the
 * last definition of r2 in the block must be an LD imm64 of a callback. */
static int loop_callback(const struct cfg *g, int b)
{
	const struct cfg_block *bl = &g->blocks[b];
	int64_t s;

	for (s = (int64_t)bl->last - 1; s >= bl->first; s--) {
		const struct insn *in = &g->insns[s];
		enum isa_kind k;

		if (in->cont)
			continue;
		k = isa_table[in->op].kind;
		if (in->op == ISA_LDDW && in->dst == 2)
			return in->ref.kind == INSN_REF_CALLBACK ? in->ref.index : -1;
		if (k == ISA_K_CALL || k == ISA_K_CALLX || k == ISA_K_LDPKT)
			return -1;
		if ((k == ISA_K_ALU || k == ISA_K_NEG || k == ISA_K_MOVSX ||
		     k == ISA_K_END || k == ISA_K_LDX) && in->dst == 2)
			return -1;
		if (k == ISA_K_ATOMIC && in->fetch && in->src == 2)
			return -1;
	}
	return -1;
}

static void expand_call(struct expander *e, uint32_t n, uint32_t ctx, int b,
			const struct cfg *g)
{
	const struct insn *in = &g->insns[g->blocks[b].last];
	struct xctx *c = ctx_get(e, ctx);
	const struct cfg *cg;
	uint32_t callee;
	int f;

	if (in->ref.kind == INSN_REF_SUBPROG) {
		if (c->depth + 1 > SSA_MAX_FRAMES) {
			unsupported(e, "call depth exceeds 8 frames");
			return;
		}
		if ((e->err = get_cfg(e, in->ref.index, &cg)))
			return;
		callee = ctx_intern(e, XCTX_CALL, ctx, in->ref.index, b, 0);
		add_edge(e, n, entry_node(e, callee), XE_PUSH_CALL, 0,
			 ctx_get(e, callee)->frame);
	} else if (in->imm == BPF_FUNC_loop) {
		f = loop_callback(g, b);
		if (f < 0) {
			unsupported(e, "bpf_loop with a callback that is not a known function");
			return;
		}
		if (c->depth + 1 > SSA_MAX_FRAMES) {
			unsupported(e, "call depth exceeds 8 frames");
			return;
		}
		if ((e->err = get_cfg(e, f, &cg)))
			return;
		add_edge(e, n, node_intern(e, XN_CB_TEST, ctx, b, 0), XE_NONE, 0, 0);
	} else { /* bpf_tail_call: taken (program ends) or not */
		add_edge(e, n, node_new(e, XN_TAILEXIT, ctx, b, 0), XE_NONE, 0, 0);
		add_edge(e, n, edge_target(e, ctx, b, g->blocks[b].succ[0]), XE_NONE, 0, 0);
	}
}

static void expand_exit(struct expander *e, uint32_t n, uint32_t ctx)
{
	uint32_t f = ctx;
	struct xctx *fc;

	while (ctx_get(e, f)->kind == XCTX_LOOP)
		f = ctx_get(e, f)->parent;
	fc = ctx_get(e, f);
	if (fc->kind == XCTX_CALL) {
		uint32_t p = fc->parent;
		const struct cfg *pg = e->x->cfgs[ctx_get(e, p)->func];
		int site = fc->a;

		add_edge(e, n, edge_target(e, p, site, pg->blocks[site].succ[0]),
			 XE_POP, 0, 0);
	} else if (fc->kind == XCTX_CB) {
		add_edge(e, n, node_intern(e, XN_CB_NEXT, fc->parent, fc->a, fc->b),
			 XE_POP, 0, 0);
	}
}

static void expand_node(struct expander *e, uint32_t n)
{
	struct xnode nd = *node_get(e, n);
	struct xctx c = *ctx_get(e, nd.ctx);
	const struct cfg *g = e->x->cfgs[c.func];
	const struct cfg_block *bl = &g->blocks[nd.block];
	uint32_t cb;
	int f;

	switch (nd.kind) {
	case XN_BLOCK:
		switch (bl->term) {
		case CFG_TERM_FALL:
		case CFG_TERM_JUMP:
			add_edge(e, n, edge_target(e, nd.ctx, nd.block, bl->succ[0]), XE_NONE, 0, 0);
			break;
		case CFG_TERM_BRANCH:
			add_edge(e, n, edge_target(e, nd.ctx, nd.block, bl->succ[0]), XE_NONE, 0, 0);
			add_edge(e, n, edge_target(e, nd.ctx, nd.block, bl->succ[1]), XE_NONE, 0, 0);
			break;
		case CFG_TERM_CALL:
			expand_call(e, n, nd.ctx, nd.block, g);
			break;
		case CFG_TERM_EXIT:
			expand_exit(e, n, nd.ctx);
			break;
		}
		break;
	case XN_CB_TEST:
		f = loop_callback(g, nd.block);
		cb = ctx_intern(e, XCTX_CB, nd.ctx, f, nd.block, nd.k);
		add_edge(e, n, entry_node(e, cb), XE_PUSH_CB, nd.k,
			 ctx_get(e, cb)->frame);
		add_edge(e, n, node_intern(e, XN_CB_DONE, nd.ctx, nd.block, 0), XE_SET_R0, nd.k, 0);
		break;
	case XN_CB_NEXT:
		e->x->callbacks = true;
		add_edge(e, n, node_intern(e, XN_CB_DONE, nd.ctx, nd.block, 0), XE_SET_R0,
			 nd.k + 1, 0);
		if ((unsigned)nd.k + 1 < e->cb_bound) {
			add_edge(e, n, node_intern(e, XN_CB_TEST, nd.ctx, nd.block, nd.k + 1),
				 XE_NONE, 0, 0);
		} else {
			add_edge(e, n, node_new(e, XN_UNWIND, nd.ctx, nd.block, 0), XE_NONE, 0, 0);
			if (e->cb_bound < e->bound)
				e->x->cb_limited = true;
		}
		break;
	case XN_CB_DONE:
		add_edge(e, n, edge_target(e, nd.ctx, nd.block, bl->succ[0]), XE_NONE, 0, 0);
		break;
	case XN_TAILEXIT:
	case XN_UNWIND:
		break;
	}
}

/* X's order and the nodes' positions in it (which take the place of
 * their counts of incoming edges: x->in_start keeps those). */
static int topo_sort(struct expander *e)
{
	struct xgraph *x = e->x;
	uint32_t *indeg = malloc(sizeof(uint32_t) * (x->nnodes + 1));
	uint32_t head = 0, tail = 0, i, j, total = 0;

	if (!indeg)
		abort();
	x->in_start = arena_new_array(e->a, uint32_t, x->nnodes + 1);
	for (i = 0; i < x->nnodes; i++) {
		x->in_start[i] = total;
		indeg[i] = x->nodes[i].npreds;
		total += indeg[i];
	}
	x->in_start[x->nnodes] = total;
	x->order = arena_new_array(e->a, uint32_t, x->nnodes);
	x->order[tail++] = 0;
	while (head < tail) {
		struct xnode *n = &x->nodes[x->order[head]];

		n->topo = head++;
		for (j = 0; j < n->nsucc; j++)
			if (--indeg[n->succ[j].to] == 0)
				x->order[tail++] = n->succ[j].to;
	}
	free(indeg);
	if (tail != x->nnodes) {
		x->unsupported = "internal: the expanded program has a cycle";
		return -EINVAL;
	}
	return 0;
}

/* The bounds as the expansion uses them: BOUND at least 1, CB_BOUND
 * (0: BOUND) at most BOUND. */
static void bounds(unsigned *bound, unsigned *cb_bound)
{
	*cb_bound = *cb_bound && *cb_bound < *bound ? *cb_bound : *bound ? *bound : 1;
	*bound = *bound ? *bound : 1;
}

/* X's in_edges (in A; made once per expansion: the lifts of its checks
 * read them), by in_start (topo_sort). */
static void incoming_edges(struct xgraph *x, struct arena *a)
{
	uint32_t *fill = calloc_big(x->nnodes + 1, sizeof(uint32_t));
	uint32_t j, t;

	if (!fill)
		abort();
	x->in_edges = arena_new_array(a, uint32_t, x->in_start[x->nnodes] + 1);
	for (t = 0; t < x->nnodes; t++) {
		const struct xnode *n = &x->nodes[x->order[t]];
		/* the out-edge lifted last: to the later target, the second
		 * of two to one node */
		uint32_t last = n->nsucc == 2 &&
			x->nodes[n->succ[1].to].topo < x->nodes[n->succ[0].to].topo ? 0 : n->nsucc - 1u;

		for (j = 0; j < n->nsucc; j++) {
			uint32_t to = n->succ[j].to;

			x->in_edges[x->in_start[to] + fill[to]++] = x->order[t] * 4 + j * 2 + (j == last);
		}
	}
	free(fill);
}

/* The instruction slots of X's block nodes. */
static uint64_t block_slots(const struct xgraph *x)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < x->nnodes; i++) {
		const struct xnode *nd = &x->nodes[i];
		const struct cfg_block *bl;

		if (nd->kind != XN_BLOCK)
			continue;
		bl = &x->cfgs[x->ctxs[nd->ctx].func]->blocks[nd->block];
		n += bl->last - bl->first + 1;
	}
	return n;
}

int expand_program(const struct object *o, int func, struct insn **insns,
		   unsigned bound, unsigned cb_bound, uint32_t max_nodes, struct arena *a,
		   struct diag *d, struct xgraph **out)
{
	struct expander e = { .a = a, .d = d, .max_nodes = max_nodes };
	struct xgraph *x = arena_alloc(a, sizeof(*x));
	const struct cfg *g;
	struct xctx *root;
	uint32_t n;

	bounds(&bound, &cb_bound);
	e.bound = bound;
	e.cb_bound = cb_bound;
	x->o = o;
	x->insns = insns;
	x->cfgs = arena_new_array(a, struct cfg *, o->nfuncs);
	e.dense = arena_new_array(a, struct dense, o->nfuncs);
	e.x = x;
	e.err = get_cfg(&e, func, &g);
	if (e.err == -E2BIG) {          /* not modelled (x->unsupported) */
		*out = x;
		return 0;
	}
	if (e.err)
		return e.err;
	ctx_new(&e, XCTX_ROOT, 0, func, 0, 0);
	root = ctx_get(&e, 0);
	root->frame = new_frame(&e, func, -1, o->funcs[func].sec, o->funcs[func].start, false);
	entry_node(&e, 0);
	for (n = 0; n < e.nodes.len && !e.err; n++) {
		x->nodes = e.nodes.data;
		expand_node(&e, n);
	}
	/* the arrays are handed to the arena as they are: a copy would touch
	 * as many fresh pages again (80 bytes a node) */
	x->ctxs = arena_adopt(a, e.ctxs.data, e.ctxs.cap * sizeof(struct xctx));
	x->nctxs = (uint32_t)e.ctxs.len;
	x->nodes = arena_adopt(a, e.nodes.data, e.nodes.cap * sizeof(struct xnode));
	x->nnodes = (uint32_t)e.nodes.len;
	x->frames = arena_adopt(a, e.frames.data, e.frames.cap * sizeof(struct ssa_frame));
	x->nframes = (uint32_t)e.frames.len;
	buf_free(&e.ctx_base);
	buf_free(&e.ctx_next);
	buf_free(&e.slots);
	htab_free(&e.ctx_tab);
	htab_free(&e.node_tab);
	if (e.err == -E2BIG)
		e.err = 0;  /* reported as unsupported: the verdict will be unknown */
	if (!e.err && !x->unsupported)
		e.err = topo_sort(&e);
	if (e.err)
		return e.err;
	if (!x->unsupported && x->nnodes <= UINT32_MAX / 4) {
		x->nslots = block_slots(x);
		incoming_edges(x, a);
	}
	*out = x;
	return 0;
}

/* ---- expansions kept across lifts --------------------------------------- */

struct ssa_cache {
	pthread_mutex_t lock;   /* the checks lift in parallel (--jobs) */
	struct arena *a;        /* the expansions */
	struct vec kept;        /* struct kept (malloc) */
};

struct kept {
	const struct object *o;
	int func;
	unsigned bound, cb_bound;
	uint32_t max_nodes;
	const struct xgraph *x;
};

struct ssa_cache *ssa_cache_new(void)
{
	struct ssa_cache *c = calloc(1, sizeof(*c));

	if (!c || pthread_mutex_init(&c->lock, NULL))
		abort();
	c->a = arena_new();
	return c;
}

void ssa_cache_free(struct ssa_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	arena_free(c->a);
	buf_free(&c->kept);
	free(c);
}

/* The expansion is a function of the object, the program and the bounds
 * (not of the hooks; of the callbacks' bound only where it has callbacks:
 * most checks are lifted with the callbacks cut first, the others whole),
 * built once under the lock and read-only after. One that failed or
 * reported a diagnostic is not kept: each lift reports its error itself. */
int expand_cached(struct ssa_cache *c, const struct object *o, int func,
		  struct insn **insns, unsigned bound, unsigned cb_bound,
		  uint32_t max_nodes, struct diag *d, const struct xgraph **out,
		  uint64_t *cfg_ns)
{
	unsigned reported = d->errors + d->warnings + d->notes;
	struct kept *k;
	struct xgraph *x;
	size_t i;
	int err;

	bounds(&bound, &cb_bound);
	*cfg_ns = 0;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->kept.len; i++) {
		k = &((struct kept *)c->kept.data)[i];
		if (k->o == o && k->func == func && k->bound == bound && k->max_nodes == max_nodes &&
		    (k->cb_bound == cb_bound || !k->x->callbacks)) {
			*out = k->x;
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
	}
	err = expand_program(o, func, insns, bound, cb_bound, max_nodes, c->a, d, &x);
	if (!err) {
		*out = x;
		*cfg_ns = x->cfg_ns;
		if (d->errors + d->warnings + d->notes == reported)
			*(struct kept *)buf_push(&c->kept, sizeof(*k)) = (struct kept){
				.o = o, .func = func, .bound = bound, .cb_bound = cb_bound,
				.max_nodes = max_nodes, .x = x };
	}
	pthread_mutex_unlock(&c->lock);
	return err;
}
