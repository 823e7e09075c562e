/* ssa.h - stage 4: the SSA IR of one program, loop-free.
 *
 * Shape (see docs/architecture.md, "SSA IR"):
 * - BPF-to-BPF calls are inlined: each call gets its own frame (stack and
 *   callee-saved registers); bpf_loop callbacks are inlined into a loop of
 *   their own. Recursion cannot happen (the kernel rejects it); the call depth
 *   is limited to 8 frames as in the kernel.
 * - Loops are unrolled: a loop header may be entered at most `loop_bound`
 *   times per entry of the loop; the edge that would enter it once more goes
 *   to a block ending in SSA_TERM_UNWIND, the unwinding marker the checker
 *   must prove unreachable (if it is reachable, the verdict is unknown).
 * - Registers and stack slots (8-byte slots at constant offsets from r10)
 *   are SSA variables: phis at joins, partial slot writes as INSERT and
 *   partial reads as EXTRACT. Every other memory access is a LOAD/STORE/
 *   ATOMIC instruction, kept in program order within its block.
 * - Blocks are in topological order, block 0 the entry; conditional jumps are
 *   a SSA_TERM_BRANCH whose two edges carry the condition and its negation
 *   (the guards the encoder assumes).
 * - Value 0 is UNDEF: the content of an uninitialised register or slot. The
 *   kernel verifier rejects reading it; the encoder and the interpreter both
 *   give it the value 0, so a (verifier-rejected) program that reads it
 *   still replays.
 */
#ifndef INVCHECK_SSA_H
#define INVCHECK_SSA_H

#include "base.h"
#include "cfg.h"
#include "insn.h"
#include "object.h"

#define SSA_MAX_FRAMES 8
#define SSA_SLOTS (ISA_STACK_SIZE / 8)
#define SSA_DEFAULT_LOOP_BOUND 64

/* X(NAME, text): instruction kinds */
#define SSA_KINDS(X)                                                     \
	X(UNDEF,   "undef")    /* 0: an unset register or slot */        \
	X(CONST,   "const")    /* imm */                                 \
	X(INPUT,   "input")    /* r<imm> at program entry (r1 = context) */ \
	X(FRAME,   "frame")    /* r10 of frame imm: end of its 512-byte stack */ \
	X(ALU,     "alu")      /* op (isa ALU op), is64: args[0] op args[1] */ \
	X(UNARY,   "unary")    /* op NEG / LE / BE / BSWAP / MOVSX, size */ \
	X(ADDR,    "addr")     /* LD imm64 with a reference: ref (map, global, callback, ksym) */ \
	X(LOAD,    "load")     /* size, sx: *(args[0] + imm) */            \
	X(STORE,   "store")    /* size: *(args[0] + imm) = args[1] */      \
	X(ATOMIC,  "atomic")   /* aop, fetch, size: *(args[0]+imm) op= args[1]; args[2] = r0 for cmpxchg; value = old */ \
	X(LDPKT,   "ldpkt")    /* legacy packet load: size, args[0] = skb, args[1] = index reg or none, imm */ \
	X(EXTRACT, "extract")  /* bytes [imm, imm+size) of slot value args[0], sx */ \
	X(INSERT,  "insert")   /* slot value args[0] with bytes [imm, imm+size) replaced by args[1] */ \
	X(SLOTLOAD, "slotload")  /* [args[0] + imm, +size) in the stack of frame tframe, at a variable offset: args[1..64] its slots; sx */ \
	X(SLOTSTORE, "slotstore") /* slot tslot of frame tframe (args[0]) after storing size bytes of args[2] at args[1] + imm */ \
	X(SELECT,  "select")   /* args[0] == args[1] (low `size` bytes) ? args[2] : args[3] */ \
	X(CALL,    "call")     /* helper (imm = id) or kfunc (ref); args r1..r5 then memory operands */ \
	X(HAVOC,   "havoc")    /* a fresh value: stack bytes a call may have written (imm = call value id) */ \
	X(TAILRET, "tailret")  /* r0 of a program reached by a successful tail call */ \
	X(PHI,     "phi")      /* one argument per block predecessor edge */ \
	X(CMP,     "cmp")      /* op (isa JEQ .. JSLE, JSET), 64-bit: args[0] op args[1] ? 1 : 0 */ \
	X(PKTW,    "pktwritten") /* monitor: 1 if the packet may have changed so far (smt_mem.c), else 0 */ \
	X(ASSUME,  "assume")   /* monitor: only runs where args[0] != 0 are considered */ \
	X(ASSERT,  "assert")   /* monitor: args[0] != 0 must hold; imm = assert site;     \
	                        * args[1] (nargs 2): a value to maximise (insns) */

enum ssa_kind {
#define X(n, t) SSA_##n,
	SSA_KINDS(X)
#undef X
	SSA_NKINDS
};

enum ssa_term {
	SSA_TERM_JUMP,     /* succ[0] */
	SSA_TERM_BRANCH,   /* if (a op b) succ[0] else succ[1] */
	SSA_TERM_EXIT,     /* program returns value `a` */
	SSA_TERM_UNWIND,   /* loop bound reached: the marker */
};

/* A stack range that a call receives a pointer to: the slots it may read
 * (their values are the call's memory operands) and, if `written`, the slots
 * are given fresh values (HAVOC) after the call. */
struct ssa_memarg {
	uint8_t argno;      /* 1..5 */
	uint8_t written;
	uint16_t frame;
	int16_t off;        /* from r10 of that frame, negative */
	uint16_t first;     /* index of the first slot operand in args */
	uint16_t nslots;    /* slots from the slot holding `off` up to r10 */
	/* written: slots wfirst .. wfirst + wcount - 1 of the frame change;
	 * wvals[j] is slot wfirst + j's value after the call (HAVOC, or an
	 * INSERT of a HAVOC where the write covers part of the slot) */
	uint16_t wfirst, wcount;
	uint32_t *wvals;
};

/* Fields are ordered so that the struct has no padding inside but a byte
 * (48 bytes: one per value, so at a million instructions it is most of the
 * lift's memory, docs/architecture.md "Lift memory layout"; 56 until
 * session 21, with the section, which the frame gives: ssa_value_sec); the
 * operands are its last member, in the same allocation (lift_emit). */
struct ssa_insn {
	uint32_t id;        /* value number: printed v<id> */
	uint32_t nargs;
	int64_t imm;
	/* origin: slot SLOT of the section of the function running in FRAME */
	uint32_t slot;
	uint32_t block;
	uint16_t frame;           /* origin: the frame */
	enum ssa_kind kind : 8;
	uint8_t op;         /* ALU/UNARY: enum isa_op; ATOMIC: enum isa_atomic */
	uint8_t size;       /* bytes */
	uint8_t nmem;       /* CALL: entries of mem (one per argument: <= 5) */
	bool is64 : 1, sx : 1, fetch : 1;
	bool mon : 1;             /* LOAD emitted by the instrumentation (a spec's read) */
	union {                   /* by kind: */
		const char *var;          /* PHI: the variable it merges ("r3", "fp0-8") */
		struct ssa_memarg *mem;   /* CALL, nmem entries */
		struct {
			uint16_t tframe, tslot;   /* SLOTLOAD / SLOTSTORE: the stack accessed */
		};
	};
	/* ADDR, CALL (kfunc/helper): the decoded instruction's reference (it
	 * outlives the IR); every other kind: ssa_noref (INSN_REF_NONE) */
	const struct insn_ref *ref;
	uint32_t args[];          /* nargs operands */
};

/* What a block the lift makes up, or one with a note, is (ssa_note_text). */
enum ssa_note {
	SSA_NOTE_NONE,
	SSA_NOTE_BPF_LOOP,        /* "bpf_loop": its block ends with the call */
	SSA_NOTE_LOOP_NEXT,       /* bpf_loop: next iteration? */
	SSA_NOTE_LOOP_STOP,       /* bpf_loop: the callback asked to stop? */
	SSA_NOTE_LOOP_DONE,       /* bpf_loop: done, r0 = iterations */
	SSA_NOTE_TAIL_IF,         /* bpf_tail_call: taken if r0 == 0 */
	SSA_NOTE_TAIL_TAKEN,      /* bpf_tail_call taken: returns what the callee returns */
	SSA_NOTE_UNWIND,          /* loop bound reached */
	SSA_NOTE_N
};

/* The text of a block's note (enum ssa_note), NULL for none. */
const char *ssa_note_text(unsigned note);

struct ssa_prog;
/* The section of value V's slot: the section of the function running in
 * V's frame (-1 where P has no such frame or object). */
int ssa_value_sec(const struct ssa_prog *p, const struct ssa_insn *v);

/* Fields are ordered so that the struct has no padding inside but a byte
 * before its predecessors (48 bytes and 4 a predecessor, one per node of
 * the expanded program, allocated 8-aligned: 80 until session 21, with a
 * note pointer and three origin fields nothing read; 64 until session 22,
 * with its function, which the frame gives; 56 and an array of its own
 * for the predecessors until session 27). */
struct ssa_block {
	struct ssa_insn **insns;  /* phis first */
	uint32_t id;
	uint32_t ninsns;
	uint32_t a, b;            /* BRANCH operands, EXIT value */
	uint32_t succ[2];
	uint32_t npreds;
	/* origin (the function: ssa_block_func) */
	uint32_t last_slot;       /* the cfg block's last instruction slot */
	uint16_t frame;           /* origin: the frame */
	enum ssa_term term : 8;
	uint8_t cond_op;          /* BRANCH: enum isa_op (JEQ .. JSLE) */
	bool cond64;
	uint8_t nsucc;            /* entries of succ: at most 2 */
	uint8_t note;             /* enum ssa_note */
	uint32_t preds[];         /* npreds: one per incoming edge, the phi order */
};

/* The function block B belongs to (index in o->funcs): the one running in
 * its frame (-1 without frames). */
int ssa_block_func(const struct ssa_prog *p, const struct ssa_block *b);
/* ... and its section (index in o->sections), -1 for none. */
int ssa_block_sec(const struct ssa_prog *p, const struct ssa_block *b);

/* The reference of a value that has none: all zero, INSN_REF_NONE. */
extern const struct insn_ref ssa_noref;

struct ssa_frame {
	int func;                 /* function running in this frame */
	int parent;               /* calling frame, -1 for the program's */
	int sec;                  /* call site of the frame (in the parent) */
	uint32_t slot;
	bool callback;            /* a bpf_loop callback */
};

struct ssa_prog {
	const struct object *o;
	int func;                 /* the entry program */
	unsigned loop_bound;
	struct ssa_block **blocks;
	uint32_t nblocks;
	struct ssa_insn **values; /* by id; values[0] is UNDEF */
	uint32_t nvalues;
	struct ssa_frame *frames;
	uint32_t nframes;
	uint32_t nunwind;         /* blocks ending in SSA_TERM_UNWIND */
	bool cb_limited;          /* opts.cb_bound cut a callback's iterations
	                           * short of loop_bound (an unwinding marker
	                           * there) */
	const char **notes;       /* imprecision and unsupported constructs */
	uint32_t nnotes;
	const char *unsupported;  /* non-NULL: the program cannot be checked soundly */
	bool bare;                /* from ssa_build_code: no real object (the
	                           * encoder uses one flat memory) */
	/* stats.h: ssa_build's time (ns), the part in cfg_build, and the part
	 * in the hooks (instrument_lift sets that) */
	uint64_t ns_lift, ns_cfg, ns_hooks;
};

struct ssa_hooks;

struct ssa_opts {
	unsigned loop_bound;      /* 0: SSA_DEFAULT_LOOP_BOUND */
	unsigned cb_bound;        /* a bpf_loop callback's iterations, at most
	                           * loop_bound (0: loop_bound) */
	uint32_t max_blocks;      /* 0: 1,000,000 */
	const struct ssa_hooks *hooks;  /* instrumentation, or NULL */
	struct ssa_cache *cache;  /* expansions of the same object, or NULL */
};

/* The expanded programs (loops unrolled, calls inlined: expand.c) of one
 * object, kept across its lifts: the expansion does not depend on the
 * hooks, and the checks of a run lift each program once per monitor.
 * Safe to share between threads. */
struct ssa_cache;
struct ssa_cache *ssa_cache_new(void);
void ssa_cache_free(struct ssa_cache *c);

/* ---- instrumentation ----------------------------------------------------
 * The lift calls the hooks at the events of one run, in execution order:
 * entry (block 0, before the first instruction), each helper/kfunc call
 * (before: the registers hold the arguments; after: R0 is its result; a
 * bpf_loop call's "after" is where the loop is done), and each exit (the
 * program's EXIT or a taken tail call). A hook emits SSA through the
 * ssa_emit_* functions into the block being built and keeps its state in
 * ghost variables, which the lift merges at joins like registers (phis).
 * With count_insns the lift keeps the number of executed instructions:
 * ssa_emit_insns() is the count before the call instruction at a call's
 * "before", that plus the call (and a bpf_loop's callbacks) at its "after",
 * and every instruction including the EXIT at an exit. */
#define SSA_MAX_GHOST 64

struct ssa_lift;  /* the lifter, opaque to hooks */

struct ssa_hooks {
	void *arg;
	unsigned nghost;                  /* ghost variables 0..nghost-1 */
	const char *const *ghost_names;   /* for phis in dumps */
	bool count_insns;
	void (*entry)(void *arg, struct ssa_lift *l);
	/* ARGS: r1..r5 at the call; R0: 0 before, the result after. */
	void (*call)(void *arg, struct ssa_lift *l, const struct insn *in,
		     const uint32_t args[5], uint32_t r0, bool after);
	void (*exit)(void *arg, struct ssa_lift *l, uint32_t r0);
};

uint32_t ssa_emit_const(struct ssa_lift *l, uint64_t c);
uint32_t ssa_emit_alu(struct ssa_lift *l, enum isa_op op, uint32_t a, uint32_t b);   /* 64-bit */
uint32_t ssa_emit_cmp(struct ssa_lift *l, enum isa_op jop, uint32_t a, uint32_t b);  /* 0/1 */
uint32_t ssa_emit_unary(struct ssa_lift *l, enum isa_op op, unsigned size, uint32_t a); /* 64-bit form */
uint32_t ssa_emit_select(struct ssa_lift *l, uint32_t c, uint32_t t, uint32_t f);    /* c != 0 ? t : f */
/* SIZE bytes at pointer P, zero-extended, as a program load would read them
 * now (the stack through the lift's slots, other memory as LOAD). */
uint32_t ssa_emit_load(struct ssa_lift *l, uint32_t p, unsigned size);
/* The address of byte OFF of datasec DS (what LD imm64 of a global gives). */
uint32_t ssa_emit_global_addr(struct ssa_lift *l, int ds, uint32_t off);
void ssa_emit_assume(struct ssa_lift *l, uint32_t c);
void ssa_emit_assert(struct ssa_lift *l, uint32_t c, unsigned site, uint32_t observe);
uint32_t ssa_emit_insns(struct ssa_lift *l);
/* PKTW: 1 when the packet may have been written so far on the path. */
uint32_t ssa_emit_pkt_written(struct ssa_lift *l);
uint32_t ssa_reg(struct ssa_lift *l, unsigned r);     /* current value of rR */
uint32_t ssa_ghost(struct ssa_lift *l, unsigned i);
void ssa_set_ghost(struct ssa_lift *l, unsigned i, uint32_t v);

/* Lift program FUNC of O (its sections decoded in INSNS[sec], CFGs built on
 * demand). Input errors: diagnostic + -EINVAL. Constructs the lifting does
 * not model soundly set prog->unsupported and still return 0. */
int ssa_build(const struct object *o, int func, struct insn **insns,
	      const struct ssa_opts *opts, struct arena *a, struct diag *d,
	      struct ssa_prog **out);
/* Lift raw decoded code without an object (conformance vectors, tests):
 * one section, entry at slot 0, local calls by pc-relative imm. */
int ssa_build_code(const struct insn *insns, uint32_t nslots,
		   const struct ssa_opts *opts, struct arena *a, struct diag *d,
		   struct ssa_prog **out);
/* SSA invariants: every use defined earlier on every path (dominance in the
 * DAG), phis match predecessor counts, topological order, terminators. */
const char *ssa_verify(const struct ssa_prog *p);
void ssa_print(const struct ssa_prog *p, FILE *out);
const char *ssa_kind_name(enum ssa_kind k);

#endif
