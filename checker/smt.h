/* smt.h - stage 5: the Z3 bit-vector encoding of the SSA IR, and queries.
 *
 * Contract:
 * - struct smt is one Z3 context (plain Z3_mk_context: an AST lives until a
 *   solver pop goes below the scope it was made in, so encodings are built
 *   at the base scope) with one solver (Z3's qfbv tactic, see smt_new). The
 *   installed error handler does not exit; every Z3 call is checked with
 *   Z3_get_error_code and the first error is kept (smt_error). No globals:
 *   contexts may run in parallel, one per thread. One program per context
 *   or per solver scope (smt_scope_begin: consecutive checks, check.c).
 * - smt_encode() translates a whole ssa_prog (ssa.h) into terms, blocks in
 *   topological order:
 *     value    -> a 64-bit bit-vector (exact BPF semantics: see smt.c);
 *     block b  -> guard(b): b executes. guard(b0) = true; guard(b) = OR over
 *                 the incoming edges of guard(pred) AND the edge condition
 *                 (BRANCH: `a op b` for succ[0], its negation for succ[1]);
 *     PHI      -> ite over its incoming edges' conditions;
 *     memory   -> byte arrays (BV64 -> BV8) threaded through the DAG: a
 *                 block's memory in is the ite over its incoming edges of
 *                 the predecessors' memory out. Bare code (ssa_prog.bare)
 *                 has one flat array, mem0, free; programs of an object
 *                 have one per region (ctx, packet, ringbuf, each map) and
 *                 the packet pointers, see smt_mem.c.
 *   Modelling choices (over-approximations, each one a fresh variable):
 *     INPUT rN: the term bound in smt_input, else a variable "rN"; with an
 *       object r1 is SMT_CTX_BASE;
 *     FRAME f: bare code: a variable "fp<f>", 8-aligned, in frame f's own
 *       window [SMT_STACK_BASE + f * SMT_STACK_WINDOW + 512,
 *       + SMT_STACK_WINDOW); with an object: SMT_FRAME_BASE(depth) + 512.
 *       Stack slots never go through memory: the address only matters for
 *       pointer arithmetic and comparisons;
 *     UNDEF: 0, the value the interpreter leaves in a register the
 *       verifier calls NOT_INIT (interp.h); HAVOC, TAILRET, LDPKT: fresh per
 *       value (LDPKT's out-of-bounds exit is not modelled); ADDR: the fixed
 *       address of a global / map value, else fresh;
 *     CALL: the helper's model (models.h), or r0 fresh and the memory it
 *       gets pointers to fresh (bare code: all memory fresh);
 *     CMP: 0/1; ASSUME: background fact guard => arg != 0; ASSERT: its
 *       failure guard AND arg == 0 in fail[], OR-ed into violated.
 * - Results: result (the program's r0: ite over the exit blocks' guards),
 *   reach_exit (OR of exit guards), reach_unwind (OR of the guards of the
 *   unwinding markers; the checker must prove it false).
 * - smt_prove(): push; assert NOT claim; check; pop. UNSAT = SMT_HOLDS,
 *   SAT = SMT_VIOLATED with a model, UNKNOWN = SMT_UNKNOWN with Z3's reason
 *   (timeout, error). Verdicts are never merged.
 */
#ifndef INVCHECK_SMT_H
#define INVCHECK_SMT_H

#include "base.h"
#include "ssa.h"

#include "z3lazy.h"

#define SMT_STACK_BASE   0xffffc90000000000ull  /* where frames live */
#define SMT_STACK_WINDOW 0x100000ull            /* one window per frame */

struct smt;

struct smt *smt_new(void);
/* Why smt_new returned NULL: the solver library could not be opened
 * (z3lazy.h), or (memory, a Z3 error) "internal error: no Z3 context". */
const char *smt_new_error(void);
void smt_free(struct smt *s);
/* One context for several checks (check.c: up to 8 consecutive checks, of
 * one program or several): smt_scope_begin pushes a scope for the next check's encoding
 * and assumptions, smt_scope_end pops it (back to no assertion at all) and
 * drops the budget. -EINVAL for a context with an error (not to be
 * reused) or a scope already open / not open, -EIO on a Z3 error. */
int smt_scope_begin(struct smt *s);
int smt_scope_end(struct smt *s);
Z3_context smt_ctx(const struct smt *s);
/* The first Z3 error ("Z3 error N: text"), or NULL. */
const char *smt_error(const struct smt *s);
/* Z3's solver parameter max_memory (MB; 0: none) for every later query: a
 * query that needs more is UNKNOWN with Z3's reason "max. memory
 * exceeded". Z3 compares it with its allocations in the whole process
 * (all contexts). Z3's global memory_max_size is not used: Z3 4.8.12 can
 * throw past its API when that one fires, which aborts the process. */
void smt_set_max_memory(struct smt *s, unsigned mb);
/* A budget of UNITS of solver work (Z3's resource count, parameter
 * rlimit) for all later queries together: each gets what is left as its
 * rlimit, and once it is used up a query is UNKNOWN without running
 * ("the budget of solver work ran out"). Units count solver work
 * deterministically (the same queries, the same count, however loaded the
 * machine is), so a budget keeps reports byte-identical where a time
 * limit would not. 0: no budget. smt_rlimit_count: the units S's solver
 * has counted so far (cumulative over its queries). */
void smt_set_budget(struct smt *s, uint64_t units);
/* At most UNITS of solver work for each later query (--rlimit; the least
 * of it and the budget's rest when both are set): a query that needs more
 * is UNKNOWN with Z3's reason "max. resource limit exceeded". Unlike a
 * timeout it gives the same verdict however loaded the machine is. 0: no
 * per-query limit. */
void smt_set_query_units(struct smt *s, uint64_t units);
uint64_t smt_rlimit_count(struct smt *s);

/* Terms the caller may need to build claims. */
Z3_ast smt_bv64(struct smt *s, uint64_t v);
Z3_ast smt_eq(struct smt *s, Z3_ast a, Z3_ast b);
Z3_ast smt_not(struct smt *s, Z3_ast a);
Z3_ast smt_and(struct smt *s, Z3_ast a, Z3_ast b);
Z3_ast smt_implies(struct smt *s, Z3_ast a, Z3_ast b);
/* Assert F in the base scope (an assumption of every later query). */
void smt_assume(struct smt *s, Z3_ast f);

struct smt_input {
	Z3_ast reg[6];            /* r1..r5 at entry (reg[1..5]); NULL: free "rN" */
};

/* Memory at one point: one byte array per memory region, and the packet
 * pointers (which helpers such as bpf_xdp_adjust_head move). */
struct smt_mem {
	Z3_ast *r;                /* by memory region */
	Z3_ast data, end, meta;
	Z3_ast pktw;              /* bool: the packet may have changed (a store
	                           * into it, a call that may change it) */
};

struct smt_prog {
	const struct ssa_prog *p;
	Z3_ast *val;              /* by value id; NULL for UNDEF (0 through smt_use) */
	Z3_ast *guard;            /* by block */
	Z3_ast **edge;            /* by block, by incoming edge: pred guard AND cond */
	struct smt_mem *mem_out;  /* by block: memory after it */
	Z3_ast mem0;              /* bare code: the initial flat memory (free) */
	Z3_ast input[6];          /* r1..r5 as used */
	Z3_ast *frame;            /* by frame id: r10 */
	Z3_ast result, reach_exit, reach_unwind;
	/* memory regions (object mode, see the top of smt_mem.c) */
	unsigned nregions;
	const char **region_name;
	Z3_ast *mem0r;            /* by region: the initial array */
	struct smt_mem mem_init;  /* memory at entry */
	struct smt_mem **call_before; /* by value id (CALL): memory before it */
	struct smt_mem **call_after;  /* by value id (CALL): memory after it */
	uint16_t *region;         /* by value id: region code (smt_mem.c); from
	                           * SMT_REGION_MEM0 + r a pointer into memory
	                           * region r (region_name[r]) */
	Z3_ast *fail;             /* by value id (ASSERT): it fails here */
	Z3_ast violated;          /* some assert fails */
	Z3_ast *kread;            /* by value id (LOAD of kernel memory): the address */
	const char *unsupported;  /* not modelled: verdicts must be unknown */
	const char **notes;       /* imprecision (unknown helpers, ...) */
	unsigned nnotes;
};

#define SMT_REGION_MEM0 4u

/* Fixed addresses of the object mode (the replay uses the same): */
#define SMT_CTX_BASE    0x0000600000000000ull  /* r1 */
/* the context's bytes (every program type's context fits; the replay's
 * region): an access outside them is not modelled (smt_mem.c) */
#define SMT_CTX_SIZE    256u
/* the largest map key and value modelled: a program using a map with
 * larger ones is not modelled (smt_mem.c). Keys: the stack's size (the
 * verifier reads a lookup's key from the stack); values: KMALLOC_MAX_SIZE
 * on x86-64, which no map type the kernel creates exceeds for values a
 * program can look up (a counterexample and its replay hold each one) */
#define SMT_MAP_KEY_MAX   512u
#define SMT_MAP_VALUE_MAX (4u << 20)
#define SMT_PKT_BASE    0x0000000040000000ull  /* below 4 GiB: ctx fields are u32 */
#define SMT_PKT_HEADROOM 256u                    /* data = base + headroom at entry */
#define SMT_PKT_MAX     0xffffu                  /* longest packet */
#define SMT_MAP_BASE(m) (0x0000400000000000ull + ((uint64_t)(m) << 32))
#define SMT_RB_BASE(k)  (0x0000500000000000ull + ((uint64_t)(k) << 20))
/* frame at call depth D (0 = the program's): the interpreter's stack
 * region D, INTERP_BASE(INTERP_MEM_STACK, D); r10 is 512 above */
#define SMT_FRAME_BASE(d) (0x0000100000000000ull | (((uint64_t)(d) + 1) << 32))

/* The address of extern kernel function EXT (o->externs, is_func) that an
 * LD imm64 gives (bpf_ksym_exists): one variable per extern, 0 (a weak kfunc
 * the kernel lacks) or SMT_KSYM_ADDR(EXT) (= REPLAY_KSYM_ADDR, replay.h);
 * the counterexample records which (cex.ksyms). */
#define SMT_KSYM_ADDR(ext) (0xfb00000000000000ull | ((uint64_t)(ext) << 32))
Z3_ast smt_ksym(struct smt *s, unsigned ext);

/* Encode P (not unsupported) in S; the tables live in arena A. Returns 0,
 * -EINVAL for an unsupported program, -EIO on a Z3 error (smt_error). */
int smt_encode(struct smt *s, const struct ssa_prog *p, const struct smt_input *in,
	       struct arena *a, struct smt_prog **out);
/* smt_precheck's ptr_loads: which packet pointer term a LOAD is */
enum { SMT_PTR_DATA = 1, SMT_PTR_END, SMT_PTR_META };

/* What smt_encode would report of P without building a term (no Z3 at
 * all): its notes and first unsupported construct, in the same order and
 * words, and the LOADs it answers with its packet pointer terms (which are
 * 64-bit values, not zero-extended loads). Tables in arena A. */
struct smt_precheck {
	const char **notes;
	unsigned nnotes;
	const char *unsupported;
	uint8_t *ptr_loads;       /* by value id: SMT_PTR_DATA / END / META, 0 */
	/* by value id, what the encoder does with memory there (the
	 * pre-pass's memory cells, absint.h): LOAD: 1 + the region whose
	 * array it reads (or whose packet pointer term: they change only at
	 * calls), so that two loads of one address read one value until a
	 * write to that region; 0: a fresh value per load (kernel memory);
	 * STORE, ATOMIC: 1 + the region written; CALL, TAILRET: SMT_MEM_ANY
	 * when it may change any memory, 0 when it changes none; else 0.
	 * All 0 for bare code. */
	uint16_t *mem;
};
#define SMT_MEM_ANY 0xffffu
#define SMT_MEM_PKT 2u         /* 1 + the packet's region (smt_priv.h MR_PKT) */
void smt_precheck(const struct ssa_prog *p, struct arena *a, struct smt_precheck *out);
/* Constrain N bytes of mem0 at ADDR. */
void smt_assume_bytes(struct smt *s, const struct smt_prog *e, uint64_t addr,
		      const uint8_t *bytes, size_t n);

enum smt_verdict { SMT_HOLDS, SMT_VIOLATED, SMT_UNKNOWN };

struct smt_result {
	enum smt_verdict verdict;
	Z3_model model;           /* VIOLATED: the counterexample (smt_release) */
	char reason[200];         /* UNKNOWN: why (timeout, Z3 error, ...) */
};

/* Does CLAIM hold under the assumptions? TIMEOUT_MS 0: no limit. Returns 0,
 * or -EIO when Z3 failed (then r->verdict is SMT_UNKNOWN with the error).
 * For a program of an object whose encoding has large multipliers, CLAIM
 * is asked first with them left free (a coarser formula: "holds" there is
 * "holds"), then, unless that proved it, exactly; a model is always of the
 * exact formula. The two share TIMEOUT_MS (the first gets at most half of
 * it, the second what is left); each gets the per-query units, and the
 * first does not count against a budget (smt_set_budget). */
int smt_prove(struct smt *s, Z3_ast claim, unsigned timeout_ms, struct smt_result *r);
/* ON false: smt_prove asks only the exact query (for searches that want
 * models: a coarse query would mostly find one only to be asked again).
 * smt_coarse_stats: how many coarse queries were asked and proved their
 * claim since S was made. */
void smt_set_coarse(struct smt *s, bool on);
void smt_coarse_stats(const struct smt *s, unsigned *queries, unsigned *proofs);
void smt_release(struct smt *s, struct smt_result *r);
/* Value of bit-vector T (up to 64 bits) in model M (completed). 0 or -EINVAL. */
int smt_eval_u64(struct smt *s, Z3_model m, Z3_ast t, uint64_t *out);
const char *smt_verdict_name(enum smt_verdict v);

#endif
