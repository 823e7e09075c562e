/* artifacts_dot.c - --cex-dot: the CFG of every function on a
 * counterexample's replayed path as Graphviz DOT. Executed blocks are
 * filled yellow, the edges the path took (inside a function, and calls into
 * a subprogram) red and bold, the block of the failing event red; blocks
 * not executed stay white. Each block lists its instructions (disassembly)
 * under its first source line. */
#include "artifacts.h"

#include <errno.h>
#include <string.h>

struct fn {                 /* a function on the path */
	int func;
	struct cfg *g;
	uint8_t *hit;           /* by block */
	uint8_t *edge;          /* by block * 2 + succ index */
	int last;               /* the block the path was last in, or -1 */
};

struct dotp {
	const struct loaded *l;
	struct fn *fns;
	unsigned nfns;
	int *calls;             /* pairs (caller fn * 65536 + block, callee fn) */
	unsigned ncalls;
};

static void esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static int func_at(const struct object *o, int sec, uint32_t slot)
{
	uint32_t f;

	for (f = 0; f < o->nfuncs; f++)
		if (o->funcs[f].sec == sec && slot >= o->funcs[f].start &&
		    slot < o->funcs[f].start + o->funcs[f].nslots)
			return (int)f;
	return -1;
}

static struct fn *fn_of(struct dotp *p, int func, struct arena *a, struct diag *d)
{
	const struct object *o = p->l->o;
	struct fn *n;
	unsigned i;

	for (i = 0; i < p->nfns; i++)
		if (p->fns[i].func == func)
			return &p->fns[i];
	if (p->nfns == 64)
		return NULL;
	n = &p->fns[p->nfns];
	if (cfg_build(o, func, p->l->insns[o->funcs[func].sec], a, d, &n->g))
		return NULL;
	n->func = func;
	n->hit = arena_alloc(a, (size_t)n->g->nblocks + 1);
	n->edge = arena_alloc(a, (size_t)n->g->nblocks * 2 + 1);
	n->last = -1;
	p->nfns++;
	return n;
}

static int block_at(const struct fn *n, uint32_t slot)
{
	return cfg_block_at(n->g, slot);
}

static void add_call(struct dotp *p, int from, int to)
{
	unsigned i;

	for (i = 0; i < p->ncalls; i++)
		if (p->calls[2 * i] == from && p->calls[2 * i + 1] == to)
			return;
	if (p->ncalls == 256)
		return;
	p->calls[2 * p->ncalls] = from;
	p->calls[2 * p->ncalls + 1] = to;
	p->ncalls++;
}

/* Mark the blocks and edges of the path. */
static int walk(struct dotp *p, const struct replay_result *rr, struct arena *a,
		struct diag *d, int *fail_fn, int *fail_block)
{
	struct fn *prev = NULL;
	size_t k;

	for (k = 0; k < rr->npath; k++) {
		int f = func_at(p->l->o, rr->path[k].sec, rr->path[k].slot), b, j;
		struct fn *n;

		if (f < 0)
			continue;
		n = fn_of(p, f, a, d);
		if (!n)
			return -EINVAL;
		b = block_at(n, rr->path[k].slot);
		if (b < 0)
			continue;
		n->hit[b] = 1;
		if (prev && prev != n && rr->path[k].slot == n->g->blocks[b].first && b == 0 &&
		    prev->last >= 0 && prev->last < 65536)
			add_call(p, (int)(prev - p->fns) * 65536 + prev->last, (int)(n - p->fns));
		if (n->last >= 0 && rr->path[k].slot == n->g->blocks[b].first)
			for (j = 0; j < n->g->blocks[n->last].nsucc; j++)
				if (n->g->blocks[n->last].succ[j] == b)
					n->edge[n->last * 2 + j] = 1;
		n->last = b;
		prev = n;
		*fail_fn = (int)(n - p->fns);
		*fail_block = b;
	}
	return 0;
}

static void block_label(const struct fn *n, int b, FILE *out)
{
	const struct cfg_block *bl = &n->g->blocks[b];
	const struct object *o = n->g->o;
	const struct obj_line *ln = report_line_at(o, n->g->sec, bl->first);
	char buf[256], pb[4096];
	uint32_t s;

	fprintf(out, "b%d", b);
	if (ln && ln->line) {
		fprintf(out, "  %s:%u", report_path(ln->file, pb, sizeof(pb)), ln->line);
		if (ln->text && *ln->text) {
			fputs("\\l", out);
			snprintf(buf, sizeof(buf), "%s", ln->text + strspn(ln->text, " \t"));
			esc(out, buf);
		}
	}
	fputs("\\l", out);
	for (s = bl->first; s <= bl->last; s++) {
		if (n->g->insns[s].cont)
			continue;
		insn_format(o, &n->g->insns[s], s, buf, sizeof(buf));
		fprintf(out, "%u: ", s);
		esc(out, buf);
		fputs("\\l", out);
	}
}

int artifacts_dot(const struct loaded *l, const struct check_result *r, FILE *out,
		  struct arena *a, struct diag *d)
{
	struct dotp p = { .l = l };
	int fail_fn = -1, fail_block = -1, b, j, err;
	unsigned i;

	p.fns = arena_new_array(a, struct fn, 64);
	p.calls = arena_new_array(a, int, 512);
	err = walk(&p, &r->replay, a, d, &fail_fn, &fail_block);
	if (err)
		return err;
	fputs("digraph cex {\n  label=\"", out);
	esc(out, r->c->name);
	fputs(": ", out);
	esc(out, r->c->asserts[r->site].msg);
	fputs(" (red: the failing event; yellow: executed)\";\n  labelloc=t;\n"
	      "  node [shape=box, fontname=\"monospace\", fontsize=10];\n", out);
	for (i = 0; i < p.nfns; i++) {
		const struct fn *n = &p.fns[i];
		const char *name = l->o->funcs[n->func].name;

		fprintf(out, "  subgraph cluster_%u {\n    label=\"", i);
		esc(out, name);
		fputs("\";\n", out);
		for (b = 0; b < n->g->nblocks; b++) {
			const struct cfg_block *bl = &n->g->blocks[b];

			if (!bl->reachable)
				continue;
			fprintf(out, "    f%u_b%d [label=\"", i, b);
			block_label(n, b, out);
			fputc('"', out);
			if ((int)i == fail_fn && b == fail_block)
				fputs(", style=filled, fillcolor=\"#ff8080\", penwidth=2", out);
			else if (n->hit[b])
				fputs(", style=filled, fillcolor=\"#ffe08a\"", out);
			fputs("];\n", out);
			for (j = 0; j < bl->nsucc; j++) {
				fprintf(out, "    f%u_b%d -> f%u_b%d [label=\"%s\"", i, b, i, bl->succ[j],
					bl->term == CFG_TERM_BRANCH ? (j ? "F" : "T") : "");
				if (n->edge[b * 2 + j])
					fputs(", color=red, penwidth=2.5", out);
				if (cfg_is_back_edge(n->g, b, bl->succ[j]))
					fputs(", style=dashed", out);
				fputs("];\n", out);
			}
		}
		fputs("  }\n", out);
	}
	for (i = 0; i < p.ncalls; i++)
		fprintf(out, "  f%d_b%d -> f%d_b0 [label=\"call\", color=red, penwidth=2.5, style=bold];\n",
			p.calls[2 * i] / 65536, p.calls[2 * i] % 65536, p.calls[2 * i + 1]);
	fputs("}\n", out);
	return 0;
}
