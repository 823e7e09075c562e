/* interp.h - the concrete BPF interpreter (replays counterexamples; runs the
 * conformance vectors as a semantics oracle).
 *
 * Contract:
 * - Input: decoded instructions (struct insn, see insn.h), one array per code
 *   section, exactly as insn_decode() / insn_decode_object() produce them.
 *   interp_run() starts at (sec, slot) and runs until the outermost EXIT, a
 *   fault, an unsupported operation, a malformed instruction stream or the
 *   step limit. The interpreter never prints and uses no globals: all state
 *   hangs off struct interp, so independent interpreters may run in parallel.
 * - Semantics: RFC 9669 (ISA v4) on a little-endian target, as pinned by the
 *   conformance vectors:
 *     32-bit ALU results are zero-extended to 64 bits; shift amounts are
 *     masked (& 31 / & 63); unsigned div by 0 = 0, mod by 0 = dst (32-bit:
 *     zero-extended); sdiv/smod are C-truncating, INT_MIN / -1 = INT_MIN and
 *     INT_MIN % -1 = 0, smod's sign follows the dividend, sdiv by 0 = 0 and
 *     smod by 0 = dst; MOVSX 8/16/32 (ALU32 forms sign-extend into 32 bits,
 *     then zero-extend); LE16/32 truncate, LE64 is a no-op, BE and BSWAP
 *     swap bytes (16/32 results zero-extended); LDXSX sign-extends; atomics
 *     add/or/and/xor (with fetch: old value into src), xchg, cmpxchg
 *     (compares with r0, r0 gets the old value); the 32-bit forms operate on
 *     the low 32 bits of memory and zero-extend what they write to a
 *     register. JMP32 compares the low halves. JA uses off; gotol (JMP32 JA)
 *     uses imm. Memory is little-endian. Misaligned accesses are allowed.
 * - Calls:
 *     BPF-to-BPF calls follow insn.ref when it is INSN_REF_SUBPROG
 *     (ref.sec / ref.target) or else, for a call with src = 1 and no
 *     reference (code without an object), the pc-relative imm in the same
 *     section. Up to INTERP_MAX_FRAMES frames; a call beyond that is a FAULT.
 *     The callee starts with the caller's r1-r5 (its arguments), r0 and
 *     r6-r9 = 0 and r10 = the top of its own zeroed 512-byte stack. On EXIT
 *     from a callee, r0 is its result, r6-r9 and r10 are restored to the
 *     caller's values and r1-r5 are 0.
 *     Helper calls (src = 0 or INSN_REF_HELPER), kfunc calls (src = 2 or
 *     INSN_REF_KFUNC) and callx (the helper id is the value of register
 *     dst) go to env->call; afterwards r0 is the result and r1-r5 are 0.
 *     The registers set to 0 are the ones the kernel's verifier marks
 *     NOT_INIT there (it rejects any read of them) and the SSA lift makes
 *     undef, which the encoder encodes as 0: a program that reads them
 *     anyway replays as the model says (docs/architecture.md, "Concrete
 *     interpreter": undefined values are 0).
 * - LD imm64: a plain immediate (src = 0, ref INSN_REF_NONE) loads imm64;
 *   anything else (map, map value, global, callback, ksym, pseudo src) asks
 *   env->lddw_value for the value. No callback: UNSUPPORTED.
 * - LD_ABS / LD_IND (legacy packet loads): big-endian load of 1/2/4 bytes
 *   from the packet region (interp.packet, default: the first region of kind
 *   INTERP_MEM_PACKET) at offset imm (ABS) or (s32)(src + imm) (IND); r0 gets
 *   the zero-extended value. Out of bounds (or negative offset): the program
 *   exits at once with r0 = 0, as in the kernel. No packet region:
 *   UNSUPPORTED.
 * - Memory: a table of regions. Pointers are plain u64 addresses. Every load,
 *   store and atomic must lie entirely inside one live region (and a
 *   writable one for stores and atomics); otherwise the run ends with
 *   INTERP_FAULT naming the slot and the address. Region i of kind K gets
 *   the base address
 *       INTERP_BASE(K, i) = (K + 1) << 44  |  (i + 1) << 32
 *   unless the caller gives one: the kind is the top hex digit of a
 *   pointer, every region owns a 4 GiB window, so an overflow past the end of
 *   one region never lands in another. Stack frame f is region f
 *   (f = 0..7, created by interp_init); r10 of frame f is its base + 512.
 *   Stack regions of frames deeper than the current one are not live.
 *   Regions can be added at any time, also from inside a callback (a helper
 *   returning a map value pointer adds a region or reuses the one it added
 *   before: the environment keeps the index).
 *   A load overlapping no region goes to env->load_unmapped when there is
 *   one (kernel memory the replay answers from the counterexample); a load
 *   that overlaps a region only partly, or a dead one, still faults.
 * - Counting: every executed instruction counts one step (LD imm64 counts
 *   once, a helper call once). Before an instruction would exceed
 *   max_steps the run ends with INTERP_STEP_LIMIT. env->on_insn (optional)
 *   sees every instruction before it executes, with the register file.
 * - Callbacks: a helper that calls back into BPF code (bpf_loop,
 *   bpf_for_each_map_elem) uses interp_invoke() from inside env->call.
 * - struct interp holds the stacks its regions point into: do not copy or
 *   move it between interp_init() and interp_fini().
 * - Errors: bad input to the API returns -EINVAL; a run always produces a
 *   struct interp_result whose status tells how it ended.
 */
#ifndef INVCHECK_INTERP_H
#define INVCHECK_INTERP_H

#include "base.h"
#include "insn.h"

#define INTERP_MAX_FRAMES 8
#define INTERP_DEFAULT_STEPS 1000000u
#define INTERP_BASE(kind, i) \
	((((uint64_t)(kind) + 1) << 44) | (((uint64_t)(i) + 1) << 32))
#define INTERP_REGION_MAX_SIZE 0xffff0000u  /* leaves a guard gap per window */

enum interp_status {
	INTERP_EXIT,         /* outermost EXIT (or an exiting helper / LD_ABS) */
	INTERP_FAULT,        /* bad memory access, call depth exceeded */
	INTERP_STEP_LIMIT,   /* max_steps reached */
	INTERP_UNSUPPORTED,  /* a call or LD imm64 the environment cannot do */
	INTERP_INVALID,      /* malformed code: jump outside the section, into
	                      * an LD imm64, fall off the end, write to r10 */
};

enum interp_mem_kind {
	INTERP_MEM_STACK,
	INTERP_MEM_CTX,
	INTERP_MEM_PACKET,
	INTERP_MEM_MAP_VALUE,
	INTERP_MEM_GLOBAL,
	INTERP_MEM_RINGBUF,
	INTERP_MEM_KERNEL,   /* a kernel object (task_struct, sk_buff, ...) */
	INTERP_MEM_USER,     /* anything else the environment defines */
};

struct interp_region {
	enum interp_mem_kind kind;
	uint64_t base;
	uint32_t size;
	uint8_t *bytes;      /* size bytes; owned by the caller unless owned */
	bool writable;
	bool live;           /* false: accesses fault (dead stack frames) */
	bool owned;          /* bytes allocated by the interpreter */
	const char *name;    /* for messages; not copied */
	/* NULL, or a byte per byte of [seen_off, seen_off + seen_len) of the
	 * region, set to 1 by every access that touches it: a load, store or
	 * atomic, a legacy packet load, interp_mem (interp_track) */
	uint8_t *seen;
	uint32_t seen_off, seen_len;
};

struct interp;

/* Return values of env->call. */
enum {
	INTERP_CALL_OK = 0,     /* continue, r0 = *ret */
	INTERP_CALL_EXIT = 1,   /* end the program now: status EXIT, r0 = *ret */
	/* < 0: the run ends; status and message as set by interp_error(), by
	 * default INTERP_UNSUPPORTED "call ... not supported" */
};

struct interp_env {
	void *arg;
	/* Helper, kfunc or callx. ID: the helper id (imm, ref.index, or the
	 * register value for callx), the kfunc's ref.index or BTF id (imm). */
	int (*call)(void *arg, struct interp *ip, const struct insn *in,
		    int64_t id, const uint64_t args[5], uint64_t *ret);
	/* LD imm64 with a reference or a pseudo src: the 64-bit value.
	 * Returns 0, or < 0 to end the run (as for call). */
	int (*lddw_value)(void *arg, struct interp *ip, const struct insn *in,
			  uint64_t *value);
	/* Trace: called before each instruction executes; it does not end
	 * the run (no interp_error: the run loop asks how the run stands
	 * after the instructions that can end it only). */
	void (*on_insn)(void *arg, int sec, uint32_t slot,
			const uint64_t regs[ISA_NREGS]);
	/* Optional: a load (LDX / LDXSX, not a store or atomic) of SIZE bytes
	 * at ADDR that overlaps no region at all (live or dead). Return 0 with
	 * *VALUE (the SIZE-byte value, zero-extended; LDXSX then sign-extends
	 * it), or < 0 to fault as without the hook (or after interp_error()). */
	int (*load_unmapped)(void *arg, struct interp *ip, uint64_t addr,
			     uint32_t size, uint64_t *value);
};

struct interp_result {
	enum interp_status status;
	uint64_t r0;             /* EXIT: the program's result */
	int sec;                 /* the last instruction (the faulting one) */
	uint32_t slot;
	uint64_t addr;           /* FAULT on memory: the address */
	uint32_t size;           /*                  and the access size */
	uint64_t steps;          /* instructions executed */
	unsigned depth;          /* call depth at the end (1 = outermost) */
	char msg[192];           /* what happened, for every status but EXIT */
};

struct interp_frame {
	int ret_sec;             /* where to continue in the caller */
	uint32_t ret_slot;
	uint64_t saved[5];       /* caller's r6-r9, r10 */
};

struct interp {
	/* code */
	struct insn *const *secs;
	const uint32_t *nslots;
	int nsecs;
	/* environment and limits (set after interp_init, before interp_run) */
	struct interp_env env;
	uint64_t max_steps;      /* 0: INTERP_DEFAULT_STEPS */
	int packet;              /* region for LD_ABS/IND; -1: first PACKET */
	/* state */
	uint64_t regs[ISA_NREGS];
	struct interp_frame frames[INTERP_MAX_FRAMES];
	unsigned depth;          /* frames in use */
	int sec;                 /* the instruction being executed */
	uint32_t pc;
	/* secs[sec] and nslots[sec], set with sec (interp.c at_section):
	 * the running section's, read per instruction */
	const struct insn *code;
	uint32_t ncode;
	struct vec regions;      /* struct interp_region, malloc'd (buf_push) */
	int hit;                 /* the region an access's scan found last */
	uint8_t stacks[INTERP_MAX_FRAMES][ISA_STACK_SIZE];
	struct interp_result res;
	bool failed;             /* the run has ended (res.status says how) */
	bool running;            /* inside interp_run() */
	bool returned;           /* an interp_invoke() callee has returned */
	unsigned stop_depth;     /* depth of the innermost interp_invoke() */
};

/* Prepare IP for the code SECS[0..NSECS) (SECS[i] has NSLOTS[i] slots).
 * Creates the 8 stack regions (indices 0..7). ENV may be NULL. */
int interp_init(struct interp *ip, struct insn *const *secs,
		const uint32_t *nslots, int nsecs, const struct interp_env *env);
/* Release what the interpreter allocated (region table, owned bytes). */
void interp_fini(struct interp *ip);

/* Add a region. BASE 0: choose INTERP_BASE(kind, index). BYTES NULL: the
 * interpreter allocates SIZE zeroed bytes (freed by interp_fini). Returns
 * the region's index, or -EINVAL (size 0 or too large, overlap with an
 * existing region). */
int interp_add_region(struct interp *ip, enum interp_mem_kind kind,
		      const char *name, uint64_t base, uint32_t size,
		      void *bytes, bool writable);
/* Remove the regions from index N on (N >= INTERP_MAX_FRAMES: the stacks
 * stay), freeing the bytes the interpreter allocated for them: one
 * interpreter set up once runs many inputs, each with memory of its own
 * (the search's probe). */
void interp_drop_regions(struct interp *ip, int n);
struct interp_region *interp_region(struct interp *ip, int index);
/* Mark in SEEN[0..LEN) the bytes [OFF, OFF + LEN) of region INDEX that the
 * run touches (any access, reads and writes alike, and every host pointer
 * interp_mem hands out): a byte left 0 was not looked at by the program,
 * the environment's callbacks through interp_mem, or the legacy packet
 * loads. SEEN[0..LEN) is cleared here. */
void interp_track(struct interp *ip, int index, uint8_t *seen, uint32_t off, uint32_t len);
int interp_nregions(const struct interp *ip);
/* The live region containing [ADDR, ADDR+SIZE), or -1. */
int interp_region_at(const struct interp *ip, uint64_t addr, uint32_t size);
/* Host pointer to [ADDR, ADDR+SIZE) when it lies in one live region (and a
 * writable one if WRITE), else NULL. For callbacks reading helper args. */
uint8_t *interp_mem(struct interp *ip, uint64_t addr, uint32_t size,
		    bool write);

/* Run from (SEC, SLOT) with r1-r5 = ARGS (NULL: zeros), r0 and r6-r9 = 0,
 * r10 = top of frame 0's stack (zeroed). Fills *OUT (may be NULL) and
 * returns its status; ip->regs holds the final registers. -EINVAL for a bad
 * SEC / SLOT. */
int interp_run(struct interp *ip, int sec, uint32_t slot,
	       const uint64_t args[5], struct interp_result *out);

/* From inside env->call: run the BPF function at (SEC, SLOT) with r1-r5 =
 * ARGS in a new frame (a bpf_loop / for_each callback) until it returns;
 * *RET = its r0. The caller's registers and position are restored. Steps,
 * the trace and the depth limit are shared with the run. Returns 0, or
 * < 0 when the callee ended the run (fault, step limit, ...): the callback
 * must then return < 0 as well. -EINVAL outside a run. */
int interp_invoke(struct interp *ip, int sec, uint32_t slot,
		  const uint64_t args[5], uint64_t *ret);

/* From a callback: end the run with STATUS and a message. The callback then
 * returns < 0. */
void interp_error(struct interp *ip, enum interp_status status,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

const char *interp_status_name(enum interp_status s);
const char *interp_mem_kind_name(enum interp_mem_kind k);

#endif
