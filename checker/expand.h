/* expand.h - internal to the SSA stage: the program DAG.
 *
 * expand_program() instantiates the CFGs of a program's functions into one
 * acyclic graph of nodes: a node is a CFG block in a context, and a context
 * records the inlined calls (one frame each), the iteration of every loop
 * being unrolled and the iteration of every bpf_loop callback. Nodes with the
 * same (kind, context, block) are one node, so joins stay joins. Edges carry
 * the frame action taken along them (push a callee frame, pop on return). The
 * nodes come out in topological order.
 */
#ifndef INVCHECK_EXPAND_H
#define INVCHECK_EXPAND_H

#include "cfg.h"
#include "ssa.h"

enum xctx_kind { XCTX_ROOT, XCTX_CALL, XCTX_LOOP, XCTX_CB };

/* 24 bytes: one per loop iteration of the expansion */
struct xctx {
	enum xctx_kind kind : 8;
	uint16_t depth;    /* frames in the chain, 1 for the root (<= SSA_MAX_FRAMES) */
	uint32_t parent;
	int func;          /* function running in this context */
	int a, b;          /* CALL: site block, 0; LOOP: loop, iteration; CB: site block, iteration */
	uint32_t frame;    /* frame id (index in the frame list) of this context */
};

enum xnode_kind {
	XN_BLOCK,     /* a CFG block of ctx's function */
	XN_CB_TEST,   /* bpf_loop: iteration k < nr_loops ? callback : done */
	XN_CB_NEXT,   /* bpf_loop: callback returned r0: r0 != 0 ? done : next */
	XN_CB_DONE,   /* bpf_loop: r0 = iterations; continue after the call */
	XN_TAILEXIT,  /* bpf_tail_call taken: the program returns TAILRET */
	XN_UNWIND,    /* loop bound reached */
};

enum xedge_act {
	XE_NONE,
	XE_PUSH_CALL,   /* enter a callee: new frame, r1-r5 passed */
	XE_PUSH_CB,     /* enter a bpf_loop callback: r1 = iteration, r2 = ctx arg */
	XE_POP,         /* return: restore r6-r10, r1-r5 undefined, r0 kept */
	XE_SET_R0,      /* r0 = imm */
};

/* 8 bytes; frames are numbered in 16 bits (expand.c new_frame). The
 * iteration number of PUSH_CB and SET_R0 is the source node's: xedge_imm. */
struct xedge {
	uint32_t to;
	uint16_t frame; /* PUSH: the new frame */
	enum xedge_act act : 8;
};

/* 36 bytes (48 while each edge kept its iteration number, 40 while its
 * count of incoming edges had a word of its own): one per node of the
 * expanded program */
struct xnode {
	enum xnode_kind kind : 8;
	uint8_t nsucc;
	uint32_t ctx;
	int block;          /* cfg block (XN_BLOCK) or the call-site block (CB_*) */
	int k;              /* CB_TEST / CB_NEXT iteration */
	struct xedge succ[2];
	union {
		uint32_t npreds;    /* incoming edges, until topo_sort (then
		                     * xgraph.in_start has them) */
		uint32_t topo;      /* position in topological order */
	};
};

/* The iteration number edge E of node FROM carries: PUSH_CB (r1 of the
 * callback) and SET_R0 leave a CB_TEST with its iteration k (the callback
 * runs the k-th time; done after k), SET_R0 leaves a CB_NEXT with k + 1
 * (the callback of iteration k asked to stop: k + 1 iterations ran);
 * 0 for every other edge. */
static inline int32_t xedge_imm(const struct xnode *from, const struct xedge *e)
{
	if (e->act != XE_PUSH_CB && e->act != XE_SET_R0)
		return 0;
	return from->k + (from->kind == XN_CB_NEXT);
}

struct xgraph {
	const struct object *o;
	struct insn **insns;      /* decoded slots per section */
	struct cfg **cfgs;        /* per function, built on demand */
	struct xctx *ctxs;
	uint32_t nctxs;
	struct xnode *nodes;
	uint32_t nnodes;
	uint32_t *order;          /* node indices in topological order */
	/* the incoming edges of every node, sources in topological order:
	 * node N's are in_edges[in_start[N] .. in_start[N + 1]), each its
	 * source * 4 + which of the source's successors * 2 + 1 if it is the
	 * source's last out-edge in topological order (the later target; of
	 * two edges to one node, the second) (4 bytes an edge: a million-node
	 * expansion has 1.7M; at most 2^30 nodes) */
	uint32_t *in_start, *in_edges;
	struct ssa_frame *frames;
	uint32_t nframes;
	const char *unsupported;  /* first construct we cannot expand soundly */
	bool cb_limited;          /* a callback's iterations stopped at cb_bound
	                           * (< bound) with an unwinding marker */
	bool callbacks;           /* it has bpf_loop callbacks: cb_bound was read
	                           * (else the same for every cb_bound) */
	uint64_t nslots;          /* instruction slots of its block nodes (the
	                           * lift sizes its arrays of values by it) */
	uint64_t cfg_ns;          /* time in cfg_build (stats.h) */
};

/* CB_BOUND (0: BOUND): iterations of a bpf_loop callback expanded, at
 * most BOUND; xgraph.cb_limited when it cut one short of BOUND. */
int expand_program(const struct object *o, int func, struct insn **insns,
		   unsigned bound, unsigned cb_bound, uint32_t max_nodes, struct arena *a,
		   struct diag *d, struct xgraph **out);
/* The same through cache C (ssa.h): the expansion made for the same
 * FUNC and bounds before, else a new one kept in C. *CFG_NS: the time
 * this call spent in cfg_build. */
int expand_cached(struct ssa_cache *c, const struct object *o, int func,
		  struct insn **insns, unsigned bound, unsigned cb_bound,
		  uint32_t max_nodes, struct diag *d, const struct xgraph **out,
		  uint64_t *cfg_ns);

#endif
