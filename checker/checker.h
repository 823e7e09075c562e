/* checker.h - the checker: one (program, invariant) check from the resolved
 * monitor to a verdict, as a flat list of stages:
 *
 *   instrument_lift  (monitor -> SSA with assume/assert nodes)
 *   smt_encode       (SSA -> Z3, memory by region, helper models)
 *   solve            (some assert fails? then: an unwinding marker reachable?)
 *   cex_extract      (model -> concrete inputs, struct cex)
 *   replay_run       (the interpreter with the concrete monitor must reach
 *                     the same failing assert, or it is an internal error)
 *
 * Verdicts: holds only when no assert can fail AND no unwinding marker can
 * be reached (under the assumes) AND the lift and the encoding modelled
 * everything; violated only with a counterexample that replays; unknown
 * (with the reason) otherwise. A bound's worst case is searched for from
 * the DAG's longest path, then between models and proofs of the insns
 * count at the exits, within a budget of solver work (then only its proved
 * upper bound is reported).
 *
 * Each check uses its own arena; check_run makes a Z3 context for it,
 * check_run_all shares one between up to 8 consecutive checks, of one
 * program or several (a solver scope each; the groups are the same for every jobs
 * value, so reports are too), and runs groups in parallel with jobs > 1;
 * the object and the monitor are read-only.
 */
#ifndef INVCHECK_CHECKER_H
#define INVCHECK_CHECKER_H

#include "base.h"
#include "monitor.h"
#include "pipeline.h"
#include "replay.h"
#include "smt.h"
#include "stats.h"

struct check_opts {
	unsigned loop_bound;      /* 0: SSA_DEFAULT_LOOP_BOUND */
	unsigned timeout_ms;      /* per query; 0: none */
	bool no_time;             /* --timeout=0: no query is run, verdicts unknown */
	unsigned jobs;            /* parallel checks; 0/1: one at a time */
	bool replay_kernel;       /* also run counterexamples with BPF_PROG_TEST_RUN */
	/* called after each check of check_run_all (from its thread; DONE
	 * counts the finished checks) */
	void (*progress)(void *arg, unsigned done, unsigned total, const struct mon_check *c);
	void *progress_arg;
	unsigned max_memory_mb;   /* Z3's max_memory per query (smt_set_max_memory); 0: none */
	unsigned query_units;     /* --rlimit: solver work per query (smt_set_query_units); 0: none */
	unsigned deadline_s;      /* --deadline: the whole run's seconds (messages) */
	double deadline_at;       /* check_clock() time the run must end by; 0: none */
	bool no_search;           /* --no-search: no concrete search before Z3 (search.h) */
	bool no_absint;           /* --no-absint: no abstract-interpretation pre-pass */
};

/* Limits (--max-memory, --deadline) make verdicts unknown with the reason,
 * never holds: a check that starts after the deadline is not run; each
 * query's timeout is cut to the time left; the lift and the encoding are
 * not interrupted (they are bounded by the loop bound and max_blocks). */
double check_clock(void);   /* CLOCK_MONOTONIC seconds */

enum check_verdict { CHECK_HOLDS, CHECK_VIOLATED, CHECK_UNKNOWN, CHECK_ERROR };

struct check_result {
	const struct mon_check *c;
	enum check_verdict verdict;
	char reason[512];         /* UNKNOWN: why; ERROR: the internal error */
	unsigned site;            /* VIOLATED: the failing assert */
	struct cex *cex;          /* VIOLATED: the inputs (in arena) */
	struct replay_result replay;  /* VIOLATED: the replay that confirmed it */
	bool has_worst;           /* a bound's worst case was found */
	uint64_t worst;
	bool has_worst_max;       /* not found, but no run executes more than
	                           * worst_max instructions (proved) */
	uint64_t worst_max;
	struct cex *witness;      /* HOLDS with has_worst: an input that runs
	                           * `worst` instructions (replayed: wreplay) */
	struct replay_result wreplay;
	bool by_search;           /* decided by the concrete search, no Z3: VIOLATED
	                           * (its input), or a bound that holds with its
	                           * worst case (check.c: bound_without_z3) */
	unsigned search_runs;     /* inputs the search tried */
	uint64_t search_ns;       /* time in the search */
	const char **notes;       /* imprecision worth knowing */
	unsigned nnotes;
	double seconds;
	uint64_t stage_ns[STAGE_N];   /* cfg .. solve of this check (stats.h) */
	bool by_absint;           /* HOLDS proved by the pre-pass (absint.h), no Z3 */
	bool by_shared;           /* ... by the return values another check's
	                           * walk found (check.c exit_share), no walk */
	unsigned coarse_queries;  /* smt_prove's coarse queries (smt.h) */
	unsigned coarse_proofs;   /* ... that proved their claim */
	uint64_t absint_ns;       /* time in the pre-pass (and smt_precheck) */
	/* --replay-kernel */
	bool kernel_tried;
	bool kernel_reproduced;
	char kernel_msg[256];
	struct arena *arena;      /* owns cex, notes (check_result_free) */
	struct arena *work;       /* the check's lift, pre-passes and encoding:
	                           * freed when the check ends without a Z3
	                           * context (nothing of the result is in it),
	                           * else by check_result_free */
};

/* Run check C. Never fails: problems become CHECK_ERROR with a reason. */
void check_run(const struct loaded *l, const struct mon_check *c,
	       const struct check_opts *o, struct check_result *r);
/* Run every check of S (in parallel with o->jobs > 1); R has s->n entries. */
void check_run_all(const struct loaded *l, const struct mon_set *s,
		   const struct check_opts *o, struct check_result *r);
void check_result_free(struct check_result *r);
const char *check_verdict_name(enum check_verdict v);

/* cex.c: the counterexample of a model (smt.h) of check C: SITE < 0, the
 * first assert the model fails on its path (an error if none); SITE >= 0:
 * the inputs of the model's run whatever it fails (a bound's witness).
 * -ERANGE (WHY says which): the model's run accesses memory outside every
 * region of its inputs (the encoder's free bytes past a packet or map
 * value: an over-approximation no concrete run can replay). */
struct smt;
struct smt_prog;
int cex_extract(struct smt *s, const struct smt_prog *e, void *model,
		const struct mon_check *c, int site, struct arena *a, struct cex **out,
		char *why, size_t len);
/* The bool T's value in model M (cex.c; the diff uses it too): 1 true, 0
 * false, -1 when Z3 cannot evaluate it. */
int cex_model_bool(Z3_context z, Z3_model m, Z3_ast t);

/* kernel.c: run X with BPF_PROG_TEST_RUN (XDP and tc programs). Returns 0
 * with *reproduced set, or -errno / -EOPNOTSUPP (MSG says why). */
int kernel_replay(const struct loaded *l, const struct cex *x, uint64_t expect_r0,
		  bool *reproduced, char *msg, size_t len);

/* report.c: output. */
/* check.c: replace the model in Q (SAT for CLAIM) by one with a packet of
 * at most 64, 128, 256 or 1514 bytes where there is one (the diff uses it). */
void check_shorter_packet(struct smt *s, const struct smt_prog *e, Z3_ast claim,
			  unsigned timeout_ms, struct smt_result *q);

/* report.c: a cex's inputs, calls and replayed path, as the text report
 * prints them under HEADER (the diff uses it). */
void report_inputs_text(const struct object *o, const struct cex *x,
			const struct replay_result *rr, const char *header, FILE *out);
enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_SARIF };
void report_write(const struct loaded *l, const struct mon_set *s,
		  const struct check_result *r, enum report_format f, bool quiet,
		  FILE *out);
/* Shared with the other writers: a source path as shown (cleaned, relative
 * to the working directory below it), the line of an instruction, the line
 * of a violation's failing event, a JSON string. */
const char *report_path(const char *in, char *out, size_t size);
const struct obj_line *report_line_at(const struct object *o, int sec, uint32_t slot);
const struct obj_line *report_event_line(const struct object *o, const struct check_result *r);
void report_json_str(FILE *out, const char *s);
void report_json_hex(FILE *out, const uint8_t *b, uint32_t n);   /* "0a1b.." */

/* sarif.c: SARIF 2.1.0 (docs/sarif.md). */
void report_sarif(const struct loaded *l, const struct mon_set *s,
		  const struct check_result *r, FILE *out);

#endif
