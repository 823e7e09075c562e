/* fuzz_check.c - libFuzzer target: the whole check (resolve, lift,
 * instrument, encode, solve, extract, replay) on small inputs with a tight
 * solver limit (250,000 units of solver work per query, about 100 ms: Z3
 * is not instrumented; loop bound 2, at most 4 checks, run as the CLI
 * runs them: check_run_all, the checks of a program in one Z3 context,
 * 1.3-1.4x the inputs a second of a context per check). A work limit, not
 * a timeout, so that an input does the same thing every time it runs
 * (libFuzzer needs that to reproduce a finding; Z3 can leak what a
 * cancelled query held, and a timeout cancels at a different point on
 * every run). No timeout at all: Z3's timeouts run on a timer thread
 * pool kept across contexts (the guess for the Z3-internal leak reports of
 * long runs, docs/testing.md), and libFuzzer's own -timeout (30 s,
 * run.sh) catches a query that would not stop.
 *
 * Input: the first byte chooses the mode.
 *   byte0 < 0x80: the rest is a spec, checked against example object
 *                 byte0 % N of FUZZ_OBJECTS (built by meson);
 *   otherwise:    the rest is an object, checked against a fixed spec for
 *                 every program (a return-value invariant and a bound).
 * The contract: a check never ends in CHECK_ERROR (that is an internal
 * error: a counterexample that does not replay, a worst case the
 * interpreter disagrees with); bad input is one diagnostic; a check the
 * abstract-interpretation pre-pass proved has no input of the concrete
 * search (search.h) that fails it (the pre-pass would be unsound).
 * Anything else aborts. The input split, the objects and the fixed spec: harness.c.
 */
#include "harness.h"
#include "search.h"
#include "xprog.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool trace;      /* FUZZ_CHECK_TRACE set: each check's verdict and time on stderr */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace = getenv("FUZZ_CHECK_TRACE") != NULL;
	fuzz_load_objects("fuzz_check");
	return 0;
}

static void run(const struct loaded *l, const char *text, size_t len, struct arena *a,
		void *arg)
{
	struct check_opts co = { .loop_bound = 2, .query_units = 250000, .jobs = 1 };
	struct diag d = { .sink = fuzz_sink };
	struct check_result r[4];
	struct mon_set *set, sub;
	unsigned i;

	(void)arg;
	set = fuzz_resolve(l, text, len, a, &d);
	if (!set)
		return;
	/* as the CLI does after resolving: `relate` placeholders filled in
	 * (without it every `relate` was an unexpanded relation, an internal
	 * error of the harness, not of the checker) */
	if (xprog_expand(l, set, &co, NULL, 0, a) || d.errors)
		abort();
	/* the first four checks as the CLI runs them (check_run_all: the
	 * checks of a program share a Z3 context) */
	sub.checks = set->checks;
	sub.n = set->n < 4 ? set->n : 4;
	check_run_all(l, &sub, &co, r);
	for (i = 0; i < sub.n; i++) {
		if (trace)
			fprintf(stderr, "fuzz_check: %s: %s%s%s %.1f ms%s%s\n", set->checks[i].name,
				check_verdict_name(r[i].verdict), r[i].by_absint ? " (absint)" : "",
				r[i].by_search ? " (search)" : "", r[i].seconds * 1e3,
				r[i].reason[0] ? ": " : "", r[i].reason);
		if (r[i].verdict == CHECK_ERROR) {
			fprintf(stderr, "fuzz_check: %s: %s\n", set->checks[i].name, r[i].reason);
			abort();
		}
		if (r[i].by_absint) {
			struct cex *cex;
			unsigned runs;

			if (search_run(l, &set->checks[i], a, &cex, &runs)) {
				fprintf(stderr, "fuzz_check: %s: the pre-pass proved it, the search has an input that fails it\n",
					set->checks[i].name);
				abort();
			}
		}
	}
	for (i = 0; i < sub.n; i++)
		check_result_free(&r[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size, run, NULL);
	return 0;
}
