/* cfg.c - basic blocks, dominators and natural loops of one function.
 *
 * Leaders: the function start, every jump target, and every instruction after
 * a jump, an exit or a BPF-to-BPF call. Dominators by the iterative algorithm
 * of Cooper, Harvey and Kennedy over reverse post-order. A retreating edge
 * (DFS) whose target does not dominate its source is an irreducible cycle:
 * an error, since unrolling needs natural loops.
 */
#include "cfg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct builder {
	struct cfg *g;
	struct arena *a;
	struct diag *d;
	const struct obj_func *f;
	const char *path;
	/* the passes' work arrays, one block of 4 * (nblocks + 1) ints:
	 * each pass takes what it needs and zeroes it (a calloc and a free
	 * per array, 14 a function, were a third of a small function's
	 * cfg_build) */
	int *tmp;
	/* slot - start -> block containing it, -1 for LDDW tails (malloc:
	 * the build's only, 4 bytes an instruction slot; cfg_block_at) */
	int *block_of;
};

/* N ints of B's work block from AT, zeroed */
static int *tmp_ints(const struct builder *b, size_t at, size_t n)
{
	return memset(b->tmp + at, 0, n * sizeof(int));
}

/* one per basic block: a million-instruction function has a third of a
 * million */
_Static_assert(sizeof(void *) != 8 || sizeof(struct cfg_block) == 56,
	       "struct cfg_block is 56 bytes on 64-bit machines");

/* Calls that change control flow end a block: BPF-to-BPF calls (inlined by
 * the SSA stage), bpf_loop (its callback is inlined as a loop) and
 * bpf_tail_call (which may not return). */
static bool is_local_call(const struct insn *in)
{
	return in->op == ISA_CALL &&
	       (in->ref.kind == INSN_REF_SUBPROG ||
		(in->ref.kind == INSN_REF_HELPER &&
		 (in->imm == BPF_FUNC_loop || in->imm == BPF_FUNC_tail_call)));
}

static bool ends_block(const struct insn *in)
{
	switch (isa_table[in->op].kind) {
	case ISA_K_JA:
	case ISA_K_JCOND:
	case ISA_K_EXIT:
		return true;
	case ISA_K_CALL:
		return is_local_call(in);
	case ISA_K_ALU: case ISA_K_NEG: case ISA_K_MOVSX: case ISA_K_END:
	case ISA_K_CALLX: case ISA_K_LDDW: case ISA_K_LDPKT: case ISA_K_LDX:
	case ISA_K_ST: case ISA_K_STX: case ISA_K_ATOMIC: case ISA_NKINDS:
		return false;
	}
	return false;
}

/* Mark leaders; returns -EINVAL on a bad target (the decoder checks ranges,
 * this is a second line of defence). */
static int mark_leaders(struct builder *b, uint8_t *lead)
{
	const struct obj_func *f = b->f;
	const struct insn *insns = b->g->insns;
	uint32_t i;

	lead[0] = 1;
	for (i = 0; i < f->nslots; i++) {
		const struct insn *in = &insns[f->start + i];
		enum isa_kind k;

		if (in->cont)
			continue;
		k = isa_table[in->op].kind;
		if (k == ISA_K_JA || k == ISA_K_JCOND) {
			int64_t t = insn_jump_target(in, f->start + i) - f->start;

			if (t < 0 || t >= f->nslots || insns[f->start + t].cont)
				return diag_fail(b->d, b->path,
						 "function '%s': insn %u: jump out of range",
						 f->name, f->start + i);
			lead[t] = 1;
		}
		if (ends_block(in) && i + 1 + (in->op == ISA_LDDW) < f->nslots)
			lead[i + 1] = 1;
	}
	return 0;
}

static int make_blocks(struct builder *b, const uint8_t *lead)
{
	struct cfg *g = b->g;
	const struct obj_func *f = b->f;
	uint32_t i, n = 0;
	int cur = -1;

	for (i = 0; i < f->nslots; i++)
		n += lead[i];
	g->blocks = arena_new_array(b->a, struct cfg_block, n);
	if (!b->block_of)     /* else cfg_build's frame has room for it */
		b->block_of = malloc(sizeof(int) * f->nslots);
	if (!b->block_of)
		abort();
	for (i = 0; i < f->nslots; i++) {
		if (lead[i]) {
			cur = g->nblocks++;
			g->blocks[cur].first = f->start + i;
		}
		b->block_of[i] = g->insns[f->start + i].cont ? -1 : cur;
		if (!g->insns[f->start + i].cont)
			g->blocks[cur].last = f->start + i;
	}
	return 0;
}

static int block_at(const struct builder *b, int64_t slot)
{
	if (slot < b->f->start || slot >= b->f->start + b->f->nslots)
		return -1;
	return b->block_of[slot - b->f->start];
}

int cfg_block_at(const struct cfg *g, int64_t slot)
{
	const struct obj_func *f = &g->o->funcs[g->func];
	int lo = 0, hi = g->nblocks - 1;

	if (slot < f->start || slot >= f->start + f->nslots || g->insns[slot].cont)
		return -1;
	/* the last block starting at or before SLOT (the blocks are in
	 * slot order and cover the function) */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (g->blocks[mid].first <= slot)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void add_succ(struct cfg_block *bl, int s)
{
	bl->succ[bl->nsucc++] = s;
}

static int link_blocks(struct builder *b)
{
	struct cfg *g = b->g;
	int i, j;

	for (i = 0; i < g->nblocks; i++) {
		struct cfg_block *bl = &g->blocks[i];
		const struct insn *in = &g->insns[bl->last];
		uint32_t next_slot = bl->last + (in->op == ISA_LDDW ? 2 : 1);
		int next = block_at(b, next_slot);

		bl->idom = -1;
		bl->loop = -1;
		switch (isa_table[in->op].kind) {
		case ISA_K_JA:
			bl->term = CFG_TERM_JUMP;
			add_succ(bl, block_at(b, insn_jump_target(in, bl->last)));
			break;
		case ISA_K_JCOND:
			bl->term = CFG_TERM_BRANCH;
			add_succ(bl, block_at(b, insn_jump_target(in, bl->last)));
			add_succ(bl, next);
			break;
		case ISA_K_EXIT:
			bl->term = CFG_TERM_EXIT;
			break;
		case ISA_K_ALU: case ISA_K_NEG: case ISA_K_MOVSX: case ISA_K_END:
		case ISA_K_CALL: case ISA_K_CALLX: case ISA_K_LDDW: case ISA_K_LDPKT:
		case ISA_K_LDX: case ISA_K_ST: case ISA_K_STX: case ISA_K_ATOMIC:
		case ISA_NKINDS:
			bl->term = is_local_call(in) ? CFG_TERM_CALL : CFG_TERM_FALL;
			add_succ(bl, next);
			break;
		}
		for (j = 0; j < bl->nsucc; j++)
			if (bl->succ[j] < 0)
				return diag_fail(b->d, b->path,
						 "function '%s': insn %u: control falls off the end of the function",
						 b->f->name, bl->last);
	}
	/* predecessors, one entry per edge (a branch whose two targets agree
	 * gives two entries) */
	for (i = 0; i < g->nblocks; i++)
		for (j = 0; j < g->blocks[i].nsucc; j++)
			g->blocks[g->blocks[i].succ[j]].npreds++;
	for (i = 0; i < g->nblocks; i++) {
		g->blocks[i].preds = arena_new_array(b->a, int, g->blocks[i].npreds + 1);
		g->blocks[i].npreds = 0;
	}
	for (i = 0; i < g->nblocks; i++)
		for (j = 0; j < g->blocks[i].nsucc; j++) {
			struct cfg_block *s = &g->blocks[g->blocks[i].succ[j]];

			s->preds[s->npreds++] = i;
		}
	return 0;
}

/* Iterative DFS from the entry: reachability, post-order, retreating edges. */
static void dfs_order(const struct builder *b, int *order, int *norder, uint8_t *onstack,
		      uint8_t *retreat)
{
	struct cfg *g = b->g;
	int *stack = tmp_ints(b, 0, (size_t)g->nblocks + 1);
	int *next = tmp_ints(b, (size_t)g->nblocks + 1, (size_t)g->nblocks + 1);
	int sp = 0;

	stack[sp++] = 0;
	g->blocks[0].reachable = true;
	onstack[0] = 1;
	while (sp) {
		int u = stack[sp - 1];
		struct cfg_block *bl = &g->blocks[u];

		if (next[u] < bl->nsucc) {
			int e = next[u]++, v = bl->succ[e];

			if (onstack[v])
				retreat[u * 2 + e] = 1;
			if (!g->blocks[v].reachable) {
				g->blocks[v].reachable = true;
				onstack[v] = 1;
				stack[sp++] = v;
			}
			continue;
		}
		onstack[u] = 0;
		order[(*norder)++] = u;
		sp--;
	}
}

static int intersect(const struct cfg *g, int a, int b)
{
	while (a != b) {
		while (g->blocks[a].rpo > g->blocks[b].rpo)
			a = g->blocks[a].idom;
		while (g->blocks[b].rpo > g->blocks[a].rpo)
			b = g->blocks[b].idom;
	}
	return a;
}

static void dominators(struct cfg *g, const int *post, int n)
{
	bool changed = true;
	int i, j;

	for (i = 0; i < n; i++)
		g->blocks[post[i]].rpo = (uint32_t)(n - 1 - i);
	g->blocks[0].idom = 0;
	while (changed) {
		changed = false;
		for (i = n - 2; i >= 0; i--) {
			struct cfg_block *bl = &g->blocks[post[i]];
			int nd = -1;

			for (j = 0; j < bl->npreds; j++) {
				int p = bl->preds[j];

				if (g->blocks[p].idom < 0)
					continue;
				nd = nd < 0 ? p : intersect(g, p, nd);
			}
			if (nd != bl->idom) {
				bl->idom = nd;
				changed = true;
			}
		}
	}
	g->blocks[0].idom = -1;
}

/* Number the dominator tree in DFS pre- and post-order (children by a
 * counting sort on idom), so that dominance is two comparisons. */
static void dom_intervals(const struct builder *b)
{
	struct cfg *g = b->g;
	int n = g->nblocks, i, sp = 0;
	size_t m = (size_t)n + 1;
	int *cnt = tmp_ints(b, 0, m), *kid = tmp_ints(b, m, m);
	int *stack = tmp_ints(b, 2 * m, m), *next = tmp_ints(b, 3 * m, m);
	uint32_t clock = 0;

	for (i = 1; i < n; i++)
		if (g->blocks[i].reachable && g->blocks[i].idom >= 0)
			cnt[g->blocks[i].idom + 1]++;
	for (i = 0; i < n; i++)
		cnt[i + 1] += cnt[i];
	memcpy(next, cnt, sizeof(int) * (size_t)n);
	for (i = 1; i < n; i++)
		if (g->blocks[i].reachable && g->blocks[i].idom >= 0)
			kid[next[g->blocks[i].idom]++] = i;
	memcpy(next, cnt, sizeof(int) * (size_t)n);
	stack[sp++] = 0;
	g->blocks[0].dpre = clock++;
	while (sp) {
		int u = stack[sp - 1];

		if (next[u] < cnt[u + 1]) {
			int v = kid[next[u]++];

			g->blocks[v].dpre = clock++;
			stack[sp++] = v;
		} else {
			g->blocks[u].dpost = clock++;
			sp--;
		}
	}
}

bool cfg_dominates(const struct cfg *g, int a, int b)
{
	const struct cfg_block *x = &g->blocks[a], *y = &g->blocks[b];

	return x->reachable && y->reachable && x->dpre <= y->dpre && y->dpost <= x->dpost;
}

bool cfg_is_back_edge(const struct cfg *g, int u, int v)
{
	return g->blocks[u].reachable && cfg_dominates(g, v, u);
}

bool cfg_loop_has(const struct cfg *g, int l, int b)
{
	int k = g->blocks[b].loop;

	while (k >= 0 && g->loops[k].depth > g->loops[l].depth)
		k = g->loops[k].parent;
	return k == l;
}

/* Body of loop LP: its header plus every reachable block reaching a latch
 * without passing the header. MARK (per block, zeroed) gets STAMP; WORK has
 * room for every block. */
static void loop_body(struct cfg *g, struct arena *a, struct cfg_loop *lp, int *mark,
		      int stamp, int *work)
{
	int sp = 0, n = 0, i;

	work[n++] = lp->header;
	mark[lp->header] = stamp;
	for (i = 0; i < lp->nlatches; i++)
		if (mark[lp->latches[i]] != stamp) {
			mark[lp->latches[i]] = stamp;
			work[n++] = lp->latches[i];
		}
	/* work[0..n) is the body so far; work[sp] the next block to expand */
	for (sp = 1; sp < n; sp++) {
		const struct cfg_block *bl = &g->blocks[work[sp]];

		for (i = 0; i < bl->npreds; i++) {
			int p = bl->preds[i];

			if (mark[p] != stamp && g->blocks[p].reachable) {
				mark[p] = stamp;
				work[n++] = p;
			}
		}
	}
	lp->members = arena_new_array(a, int, n);
	memcpy(lp->members, work, sizeof(int) * (size_t)n);
	lp->nblocks = n;
}

static void add_latch(struct arena *a, struct cfg_loop *lp, int l)
{
	int *nl = arena_new_array(a, int, lp->nlatches + 1);

	if (lp->nlatches)
		memcpy(nl, lp->latches, sizeof(int) * lp->nlatches);
	nl[lp->nlatches++] = l;
	lp->latches = nl;
}

/* Nesting from the bodies, linear in their total size: a loop's parent is
 * the smallest other loop holding its header, a block's loop the smallest
 * loop holding it (natural loops with different headers nest or are
 * disjoint, and a nested one is strictly smaller). */
static void nest_loops(struct cfg *g, int *order, int *cnt)
{
	int i, j;

	for (i = 0; i < g->nloops; i++) {
		const struct cfg_loop *lp = &g->loops[i];

		for (j = 0; j < lp->nblocks; j++) {
			int m = lp->members[j], l = g->header_of[m], b = g->blocks[m].loop;

			if (l >= 0 && l != i && g->loops[l].nblocks < lp->nblocks &&
			    (g->loops[l].parent < 0 ||
			     lp->nblocks < g->loops[g->loops[l].parent].nblocks))
				g->loops[l].parent = i;
			if (b < 0 || lp->nblocks < g->loops[b].nblocks)
				g->blocks[m].loop = i;
		}
	}
	/* depths, outer loops first: by size, largest first (counting sort) */
	for (i = 0; i < g->nloops; i++)
		cnt[g->nblocks - g->loops[i].nblocks + 1]++;
	for (i = 0; i <= g->nblocks; i++)
		cnt[i + 1] += cnt[i];
	for (i = 0; i < g->nloops; i++)
		order[cnt[g->nblocks - g->loops[i].nblocks]++] = i;
	for (i = 0; i < g->nloops; i++) {
		struct cfg_loop *lp = &g->loops[order[i]];

		lp->depth = lp->parent < 0 ? 1 : g->loops[lp->parent].depth + 1;
	}
}

static int find_loops(struct builder *b, const uint8_t *retreat)
{
	struct cfg *g = b->g;
	int i, j, k, e, nback = 0, *mark, *work, *back;

	g->header_of = arena_new_array(b->a, int, g->nblocks);
	for (i = 0; i < g->nblocks; i++)
		g->header_of[i] = -1;
	/* the back edges first (their sources, in block order), the headers
	 * numbered as they are met, so that the loop array has one entry per
	 * loop (it had one per block) */
	back = tmp_ints(b, 0, (size_t)g->nblocks * 2 + 1);
	for (i = 0; i < g->nblocks; i++) {
		struct cfg_block *bl = &g->blocks[i];

		for (j = 0; j < bl->nsucc; j++) {
			int h = bl->succ[j];

			if (!retreat[i * 2 + j])
				continue;
			if (!cfg_dominates(g, h, i)) {
				diag_fail(b->d, b->path,
					  "function '%s': insn %u: irreducible control flow (a cycle entered other than through its header)",
					  b->f->name, bl->last);
				return -EOPNOTSUPP;   /* valid BPF, not modelled (cfg.h) */
			}
			if (g->header_of[h] < 0)
				g->header_of[h] = g->nloops++;
			back[nback++] = i * 2 + j;
		}
	}
	g->loops = arena_new_array(b->a, struct cfg_loop, g->nloops ? g->nloops : 1);
	for (e = 0; e < nback; e++) {
		int l = back[e] / 2, h = g->blocks[l].succ[back[e] % 2];

		k = g->header_of[h];
		if (!g->loops[k].nlatches) {
			g->loops[k].header = h;
			g->loops[k].parent = -1;
		}
		add_latch(b->a, &g->loops[k], l);
	}
	mark = tmp_ints(b, 0, (size_t)g->nblocks + 1);
	work = tmp_ints(b, (size_t)g->nblocks + 1, (size_t)g->nblocks + 1);
	for (k = 0; k < g->nloops; k++)
		loop_body(g, b->a, &g->loops[k], mark, k + 1, work);
	/* ORDER (a loop each) and CNT (zeroed, nblocks + 2) */
	nest_loops(g, tmp_ints(b, 0, (size_t)g->nloops + 1),
		   tmp_ints(b, (size_t)g->nloops + 1, (size_t)g->nblocks + 2));
	return 0;
}

int cfg_build(const struct object *o, int func, const struct insn *insns,
	      struct arena *a, struct diag *d, struct cfg **out)
{
	struct builder b = { .a = a, .d = d, .f = &o->funcs[func], .path = o->path };
	uint8_t *lead = NULL, *onstack = NULL, *retreat = NULL;
	int *post = NULL, npost = 0;
	int err;
	/* a small function's three work blocks (lead, block_of, post) in
	 * this frame: 28 bytes a slot at most (a block per slot), instead
	 * of a calloc, a malloc, a calloc and three frees (a tenth of a
	 * small function's build) */
	int small[1024];
	bool in_frame = (size_t)b.f->nslots * 28 + 64 <= sizeof(small);

	b.g = arena_alloc(a, sizeof(*b.g));
	b.g->o = o;
	b.g->func = func;
	b.g->sec = b.f->sec;
	b.g->insns = insns;
	if (!b.f->nslots)
		return diag_fail(d, o->path, "function '%s' is empty", b.f->name);
	if (in_frame) {
		lead = memset(small, 0, b.f->nslots);
		b.block_of = small + (b.f->nslots + 3) / 4;
	} else {
		lead = calloc(b.f->nslots, 1);
	}
	if (!lead)
		return -ENOMEM;
	err = mark_leaders(&b, lead);
	err = err ?: make_blocks(&b, lead);
	err = err ?: link_blocks(&b);
	if (!err) {
		/* one block: post, the work arrays, then onstack and retreat */
		size_t n = (size_t)b.g->nblocks;

		size_t size = sizeof(int) * (n + 4 * (n + 1)) + 3 * n;

		post = in_frame ? memset(b.block_of + b.f->nslots, 0, size) : calloc(1, size);
		if (!post)
			abort();
		b.tmp = post + n;
		onstack = (uint8_t *)(b.tmp + 4 * (n + 1));
		retreat = onstack + n;
		dfs_order(&b, post, &npost, onstack, retreat);
		dominators(b.g, post, npost);
		dom_intervals(&b);
		err = find_loops(&b, retreat);
	}
	if (!in_frame) {
		free(lead);
		free(b.block_of);
		free(post);
	}
	if (!err)
		*out = b.g;
	return err;
}

const char *cfg_verify(const struct cfg *g)
{
	int i, j, k;

	if (!g->nblocks || g->blocks[0].first != g->o->funcs[g->func].start)
		return "block 0 is not the function entry";
	for (i = 0; i < g->nblocks; i++) {
		const struct cfg_block *bl = &g->blocks[i];

		if (bl->last < bl->first)
			return "block ends before it starts";
		if (i && bl->first <= g->blocks[i - 1].last)
			return "blocks overlap or are out of order";
		for (j = 0; j < bl->nsucc; j++) {
			const struct cfg_block *s = &g->blocks[bl->succ[j]];
			int found = 0;

			for (k = 0; k < s->npreds; k++)
				found += s->preds[k] == i;
			if (!found)
				return "successor without the matching predecessor";
		}
		if (bl->reachable && i && (bl->idom < 0 || !g->blocks[bl->idom].reachable ||
					   g->blocks[bl->idom].dpre >= bl->dpre ||
					   g->blocks[bl->idom].dpost <= bl->dpost))
			return "reachable block without a dominating idom";
		if (bl->loop >= 0 && !cfg_dominates(g, g->loops[bl->loop].header, i) &&
		    bl->reachable)
			return "loop block not dominated by its header";
	}
	for (i = 0; i < g->nloops; i++) {
		const struct cfg_loop *lp = &g->loops[i];

		for (j = 0; j < lp->nlatches; j++)
			if (!cfg_is_back_edge(g, lp->latches[j], lp->header))
				return "loop latch without a back edge";
		if (lp->nblocks < 1 || lp->members[0] != lp->header)
			return "loop without its header";
		for (j = 0; j < lp->nblocks; j++)
			if (!cfg_dominates(g, lp->header, lp->members[j]) ||
			    !cfg_loop_has(g, i, lp->members[j]))
				return "loop member not dominated by the header or not in the loop";
		if (lp->parent >= 0) {
			const struct cfg_loop *q = &g->loops[lp->parent];

			for (k = 0; k < q->nblocks && q->members[k] != lp->header; k++)
				;
			if (k == q->nblocks || q->nblocks <= lp->nblocks)
				return "loop not inside its parent";
		}
	}
	return NULL;
}

static void dot_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '{' || *s == '}' ||
		    *s == '<' || *s == '>' || *s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void cfg_dot(const struct cfg *g, FILE *out)
{
	const struct obj_func *f = &g->o->funcs[g->func];
	char buf[256];
	int i, j;
	uint32_t s;

	fprintf(out, "  subgraph \"cluster_%s\" {\n    label=\"%s\";\n", f->name, f->name);
	for (i = 0; i < g->nblocks; i++) {
		const struct cfg_block *bl = &g->blocks[i];

		fprintf(out, "    \"%s.b%d\" [shape=record,label=\"{b%d%s|", f->name, i, i,
			bl->loop >= 0 && g->loops[bl->loop].header == i ? " (loop header)" : "");
		for (s = bl->first; s <= bl->last; s++) {
			if (g->insns[s].cont)
				continue;
			insn_format(g->o, &g->insns[s], s, buf, sizeof(buf));
			fprintf(out, "%u: ", s);
			dot_escape(out, buf);
			fputs("\\l", out);
		}
		fputs("}\"];\n", out);
		for (j = 0; j < bl->nsucc; j++) {
			const char *lbl = bl->term == CFG_TERM_BRANCH ? (j ? "F" : "T") : "";

			fprintf(out, "    \"%s.b%d\" -> \"%s.b%d\" [label=\"%s\"%s];\n",
				f->name, i, f->name, bl->succ[j], lbl,
				cfg_is_back_edge(g, i, bl->succ[j]) ? ",style=dashed" : "");
		}
	}
	fputs("  }\n", out);
}
