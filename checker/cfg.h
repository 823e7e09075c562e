/* cfg.h - stage 3: control-flow graph of one function.
 *
 * Preconditions: the function's section is decoded and resolved (insn.h):
 * every jump target is inside the function and not the second slot of an
 * LD imm64.
 * Postconditions: blocks in slot order, block 0 the entry; each block ends at
 * a jump, a conditional jump (two successors: taken first, then fall-through),
 * an exit, a BPF-to-BPF call (one successor: the instruction after the call),
 * or falls through to the next block. Dominators (idom) over the reachable
 * blocks, natural loops (back edges u -> h where h dominates u; loops sharing
 * a header are one loop), each block's innermost loop. An irreducible cycle or
 * a path falling off the end of the function is an error.
 */
#ifndef INVCHECK_CFG_H
#define INVCHECK_CFG_H

#include "base.h"
#include "insn.h"
#include "object.h"

enum cfg_term {
	CFG_TERM_FALL,    /* falls through to succ[0] */
	CFG_TERM_JUMP,    /* JA / gotol: succ[0] */
	CFG_TERM_BRANCH,  /* JCOND: succ[0] if taken, succ[1] otherwise */
	CFG_TERM_CALL,    /* BPF-to-BPF call, bpf_loop or bpf_tail_call at `last`:
	                   * succ[0] after the return */
	CFG_TERM_EXIT,    /* exit: no successor */
};

/* 56 bytes on 64-bit machines, no padding inside but its end */
struct cfg_block {
	uint32_t first, last;   /* slots of the first and last instruction */
	int succ[2];
	int *preds;
	int npreds;
	int idom;               /* -1 for the entry and unreachable blocks */
	int loop;               /* innermost loop containing the block, or -1 */
	uint32_t rpo;           /* reverse post-order number (reachable blocks) */
	uint32_t dpre, dpost;   /* pre/post order in the dominator tree: A
	                         * dominates B iff A's interval holds B's */
	enum cfg_term term : 8;
	uint8_t nsucc;
	bool reachable;
};

struct cfg_loop {
	int header;             /* block */
	int parent;             /* enclosing loop, or -1 */
	int depth;              /* 1 for outermost */
	int *latches;           /* blocks with a back edge to the header */
	int nlatches;
	int *members;           /* the blocks of the loop, header first
	                         * (membership: cfg_loop_has) */
	int nblocks;
};

struct cfg {
	const struct object *o;
	int func;               /* index in o->funcs */
	int sec;
	const struct insn *insns;  /* the section's decoded slots */
	struct cfg_block *blocks;
	int nblocks;
	struct cfg_loop *loops;
	int nloops;
	int *header_of;         /* block -> the loop it is the header of, or -1 */
};

/* Build the CFG of function FUNC of O; INSNS are its section's decoded slots.
 * Errors are reported to D; -EOPNOTSUPP (also reported) is irreducible
 * control flow: a cycle entered other than through one header, which the
 * kernel accepts (it explores states, it needs no loop nesting) and the
 * lift does not model (a check's verdict is unknown, expand.c). */
int cfg_build(const struct object *o, int func, const struct insn *insns,
	      struct arena *a, struct diag *d, struct cfg **out);
/* Internal consistency (edges both ways, dominators, loops). Returns 0 or a
 * message describing the first violation (tests and debug builds call it). */
const char *cfg_verify(const struct cfg *g);
/* Does block A dominate block B? */
bool cfg_dominates(const struct cfg *g, int a, int b);
/* Is block B in loop L (L or a loop nested in it is B's innermost)? */
bool cfg_loop_has(const struct cfg *g, int l, int b);
/* Is U -> V a back edge (V a loop header dominating U)? */
bool cfg_is_back_edge(const struct cfg *g, int u, int v);
/* The block holding instruction slot SLOT (a section slot), -1 for an
 * LD imm64's second slot or a slot outside the function (a binary search:
 * the table by slot the build uses is 4 bytes a slot, freed with it). */
int cfg_block_at(const struct cfg *g, int64_t slot);
/* Graphviz DOT of the function: blocks with their instructions, edges
 * labelled T/F, back edges dashed. */
void cfg_dot(const struct cfg *g, FILE *out);

#endif
