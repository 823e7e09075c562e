/* replay.h - counterexamples (concrete inputs taken from a Z3 model) and
 * their replay in the concrete interpreter with the concrete monitor.
 *
 * Contract:
 * - struct cex is everything a run of one program needs, decided by the
 *   model: the entry registers, the memory regions with their initial bytes
 *   (ctx, packet, global data, map values the run looks up, ringbuf
 *   reservations), the result of each helper/kfunc call on the path in
 *   execution order (with the memory the call writes), and the values of
 *   loads from memory no region covers (kernel objects behind BTF
 *   pointers), in execution order.
 * - replay_run() runs the program in the interpreter (interp.h) with an
 *   environment that answers from the cex, and evaluates the check's
 *   handlers concretely at the same events as the instrumentation does:
 *   entry (before the first instruction; state initialisers, then the
 *   program's assumes, then `on entry` handlers), each helper/kfunc call
 *   (`on call` before it, with arg1..arg5 = r1..r5; `on return` after it,
 *   ret = its r0), exit (`on exit`, ret = r0; a taken bpf_tail_call is an
 *   exit with the cex's tail result, after the `on return` handlers saw
 *   ret = 0). Handlers of one event run in source order. The run stops at
 *   the first assert that fails: that is the replay's outcome. An assume
 *   that fails, a call that is not the next one in the cex, a fault, the
 *   step limit or an exit without a failing assert are outcomes too: the
 *   caller turns every outcome but "the expected assert failed" into an
 *   internal error.
 * - `insns` in handlers: on entry 0; on call, the instructions executed
 *   before the call instruction; on return, those plus the call; on exit,
 *   every instruction executed including the exit (the interpreter's step
 *   count). called(NAME): calls of NAME whose `on call` event has happened.
 * - Memory reads in handlers (u8(p) ..., global.NAME) read the interpreter's
 *   memory at the event (the stack included); a read that no region covers
 *   reads 0. pkt / pkt_end / pkt_len / ctx.FIELD are the entry values.
 * - bpf_loop (helper 181) is run, not answered: the callback is invoked
 *   with interp_invoke() for k = 0 .. nr_loops-1 until it returns nonzero,
 *   r0 = the number of iterations; its calls come next in the cex. Its own
 *   entry in the cex (ret and writes ignored) comes before them. As in the
 *   kernel, flags != 0 give r0 = -EINVAL and nr_loops > 1 << 23 -E2BIG
 *   without running the callback. `on return bpf_loop` sees insns counting
 *   the callback's instructions too.
 * - Counting details: called(NAME) in an `on call` handler already counts
 *   the call being made (counters advance before that event's handlers).
 *   The bound (`bound insns <= N`) is checked at exit after the `on exit`
 *   handlers. A call answered from the cex gets r0 = ret after its writes
 *   are applied; the `on return` handlers see the writes.
 * - LD imm64 values: a map is REPLAY_MAP_HANDLE(map index), a function
 *   (bpf_loop callback) REPLAY_FUNC_ADDR(sec, slot), an extern kernel
 *   symbol REPLAY_KSYM_ADDR(extern index) (cex.ksyms[index] when the cex
 *   has it: 0 for a weak kfunc it found absent); a map value / global is the base
 *   of the cex region of that map (for a global: the region of kind
 *   INTERP_MEM_GLOBAL; for a map value: that one, else the MAP_VALUE region
 *   with the lowest base) plus the offset. A datasec with no region in the
 *   cex gets one at INTERP_BASE(INTERP_MEM_GLOBAL, map) holding the
 *   object's initial bytes (global.NAME of such a datasec reads them too).
 * - Loads from memory no region overlaps take the next cex read, which must
 *   have the same address and size (else DIVERGED). A program that exits
 *   with cex calls left over, and no assert failed, DIVERGED.
 * - result.event: the event of an assert/assume failure; CALL for a call
 *   that diverged (or a cex write / bpf_loop callback that cannot be done);
 *   ENTRY when the cex cannot be set up (-EINVAL); EXIT otherwise (exit, a
 *   load that diverged, a fault, the step limit).
 */
#ifndef INVCHECK_REPLAY_H
#define INVCHECK_REPLAY_H

#include "base.h"
#include "interp.h"
#include "monitor.h"
#include "pipeline.h"

/* LD imm64 values the replay gives references (see above). */
#define REPLAY_MAP_HANDLE(map) (0xfa00000000000000ull | ((uint64_t)(map) << 32))
#define REPLAY_KSYM_ADDR(ext)  (0xfb00000000000000ull | ((uint64_t)(ext) << 32))
#define REPLAY_FUNC_ADDR(sec, slot) \
	(0xfc00000000000000ull | ((uint64_t)(sec) << 32) | (uint32_t)(slot))

struct cex_region {
	enum interp_mem_kind kind;
	const char *name;          /* "ctx", "packet", ".bss", "map lb_map[3]" */
	uint64_t base;             /* explicit base address (never 0) */
	uint32_t size;
	uint8_t *bytes;            /* initial bytes (size) */
	bool writable;
	int map;                   /* o->maps index, or -1 */
};

struct cex_write {                 /* bytes a call wrote, applied after it */
	uint64_t addr;
	uint32_t size;
	uint8_t *bytes;
};

struct cex_call {
	int sec;                   /* the call instruction */
	uint32_t slot;
	int helper;                /* helper id, or -1 */
	int kfunc;                 /* o->kfuncs index, or -1 */
	uint64_t ret;              /* r0 after the call */
	struct cex_write *writes;
	unsigned nwrites;
	bool tail_taken;           /* bpf_tail_call taken: exit with tail_ret */
	bool pkt_written;          /* the call (or the program a taken tail call
	                            * ran) may have changed the packet: the
	                            * encoder's rule, pkt_written after it */
	uint64_t tail_ret;
	/* For the kernel replay (kernel.c), not used by replay_run(): */
	uint64_t args[5];          /* r1..r5 at the call (0 where the model has none;
	                            * a lookup's map: REPLAY_MAP_HANDLE(map)) */
	uint8_t *key;              /* bpf_map_lookup_elem: the key_size key bytes
	                            * the call read from the stack (NULL when the
	                            * key is not on the stack) */
	uint32_t key_size;
};

struct cex_read {                  /* a load from memory no region covers */
	uint64_t addr;
	uint32_t size;
	uint64_t value;
};

struct cex {
	int func;                  /* the program */
	uint64_t args[5];          /* r1..r5 at entry (r1 = ctx) */
	struct cex_region *regions;
	unsigned nregions;
	uint64_t pkt, pkt_end;     /* packet pointers at entry (0: none) */
	struct cex_call *calls;    /* on the path, in execution order */
	unsigned ncalls;
	struct cex_read *reads;
	unsigned nreads;
	uint64_t *ksyms;           /* by extern (o->externs): an LD imm64 of it
	                            * gives this (kfuncs: 0 = absent); NULL:
	                            * REPLAY_KSYM_ADDR for all */
	unsigned nksyms;
	unsigned site;             /* the assert expected to fail */
	const char *unspecified;   /* a spec read on the model's path whose
	                            * value is unspecified (cex.c), or NULL */
	uint64_t max_steps;        /* 0: INTERP_DEFAULT_STEPS */
};

enum replay_outcome {
	REPLAY_ASSERT_FAILED,      /* an assert failed: site, at event */
	REPLAY_ASSUME_FAILED,      /* an assume was false */
	REPLAY_EXITED,             /* the program exited, no assert failed */
	REPLAY_DIVERGED,           /* a call not in the cex (or in another order) */
	REPLAY_INTERP,             /* the interpreter ended otherwise (fault, ...) */
};

struct replay_step {               /* one executed instruction, for the path */
	int sec;
	uint32_t slot;
};

struct replay_result {
	enum replay_outcome outcome;
	unsigned site;             /* ASSERT_FAILED: which */
	enum spec_event_kind event; /* the event the outcome happened at */
	uint64_t r0;               /* EXITED / failing exit: the program's r0 */
	uint64_t steps;            /* instructions executed */
	struct replay_step *path;  /* executed instructions in order (malloc) */
	size_t npath;
	char msg[256];             /* what happened, for every outcome */
};

/* Run X for check C of the program loaded in L. Returns 0 (the outcome is
 * in *R), or -EINVAL for a cex that cannot be set up (overlapping regions,
 * a region at base 0, X->func not C->func or not a function): also an
 * internal error for the caller. *R is overwritten (free an earlier result
 * first); replay_result_free() releases its path. */
int replay_run(const struct loaded *l, const struct mon_check *c,
	       const struct cex *x, struct replay_result *r);
void replay_result_free(struct replay_result *r);
/* The value of LD imm64 IN at (SEC, PC) that does not depend on the run's
 * memory (the rule above: map handles, function addresses, extern kernel
 * symbols from KSYMS[0..NKSYMS) or REPLAY_KSYM_ADDR, pseudo map fd/idx
 * and func sources): 1 with *VALUE. 0: a map value or global, which the
 * caller places (*MAP: its map, -1 if it names none with data). -1: no
 * value. Shared by the replay and the search's probe. */
int replay_lddw_value(const struct object *o, const struct insn *in, int sec, uint32_t pc,
		      const uint64_t *ksyms, unsigned nksyms, uint64_t *value, int *map);
const char *replay_outcome_name(enum replay_outcome o);

#endif
