/* diff.h - `bpf-invcheck diff OLD.o NEW.o`: search for an input on which
 * two versions of a program behave differently, or prove that none exists.
 *
 * Contract:
 * - Programs are matched by function name (a --program glob selects them).
 *   Both objects must have the same maps in the same order (name, type,
 *   key/value size, entries); otherwise the pair is unknown.
 * - Behaviour = the low 32 bits of r0 at exit (every program type's kernel
 *   caller reads an int/u32) and the sequence of helper/kfunc calls: the
 *   callee (kfunc flavours ___v2 etc. ignored) and the scalar arguments it
 *   reads (its prototype's arity), in order. Pointer arguments, memory
 *   stores and map updates' contents are not compared.
 * - Inputs are shared: context, packet (length and bytes), map contents,
 *   globals, entry registers. Helper answers are shared by pairing: the
 *   k-th call of each version gets the same result when the callee, the
 *   arguments and the memory behind pointer arguments are the same.
 * - DIFF_DIFFER only with a model whose inputs, replayed in the interpreter
 *   for both versions (each with its own path), give two exits that differ
 *   as above, and whose two environments agree (calls asking the same
 *   question got the same answer, writes included); else unknown or an
 *   internal error. DIFF_EQUIVALENT only when no such model exists and no
 *   loop-bound marker is reachable in either version.
 * - Worst-case instruction counts (as `bound insns` computes them) for both.
 * - Not supported (unknown): bpf_loop (callback calls are not aligned),
 *   anything the checker does not model.
 */
#ifndef INVCHECK_DIFF_H
#define INVCHECK_DIFF_H

#include "base.h"
#include "pipeline.h"
#include "replay.h"

/* Which calls the two runs pair and compare; NULL members (or no policy):
 * every call, as `diff` does. A two-run check of one program against
 * itself (selfcomp.h) leaves some helpers' answers independent and compares
 * only some calls. The policy changes nothing else: inputs stay shared,
 * every difference is replayed for both runs and its environment checked
 * (with unpaired calls left out of that check). With a policy no worst-case
 * instruction counts are computed. */
struct diff_policy {
	bool (*paired)(const struct ssa_insn *call);    /* answers paired */
	bool (*compared)(const struct ssa_insn *call);  /* in the compared sequence */
	/* answered from state, as map lookups: paired whatever their
	 * position in the run (NULL: lookups only) */
	bool (*any_index)(const struct ssa_insn *call);
	/* NULL when the program can be checked, else why not (the pair is
	 * unknown) */
	const char *(*unsupported)(const struct ssa_prog *p);
};

struct diff_opts {
	unsigned loop_bound;       /* 0: SSA_DEFAULT_LOOP_BOUND */
	unsigned timeout_ms;       /* per query; 0: none */
	bool no_time;              /* --timeout=0 */
	const struct diff_policy *policy;   /* NULL: diff's */
};

enum diff_verdict { DIFF_EQUIVALENT, DIFF_DIFFER, DIFF_UNKNOWN, DIFF_ERROR };

struct diff_result {
	enum diff_verdict verdict;
	char reason[512];          /* UNKNOWN / ERROR: why */
	bool ret_differs, calls_differ;   /* DIFFER: what */
	bool void_ret;             /* both return void (BTF): r0 not compared */
	struct cex *old_cex, *new_cex;    /* DIFFER: the inputs, as each version reads them */
	struct replay_result old_replay, new_replay;
	bool has_worst;
	uint64_t old_worst, new_worst;
	struct arena *arena;
};

struct diff_prog {
	const char *name;
	bool in_old, in_new;       /* compared only when both */
	struct diff_result r;
};

struct diff_report {
	struct diff_prog *progs;   /* old's programs in order, then new's new ones */
	unsigned n;
};

int diff_run(const struct loaded *lo, const char *old_path, const struct loaded *ln,
	     const char *new_path, const char *program, const struct diff_opts *opts,
	     struct diff_report *out);
void diff_report_free(struct diff_report *rep);
const char *diff_verdict_name(enum diff_verdict v);

/* diff_cli.c: `bpf-invcheck diff ...` (ARGV[0] is "diff"); the exit code. */
int diff_main(int argc, char **argv);

#endif
