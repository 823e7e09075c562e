/* test_reuse.c - a Z3 context shared by consecutive checks, of one program
 * or several (check_run_all, smt_scope_begin/end), decides every check as a fresh
 * context does (check_run): the same verdict, failing assert, worst case
 * or upper bound, and unknown reason, on the examples and buggy variants
 * (violations, holds, bounds, several programs per object). Models may
 * differ (a context's history changes them), verdicts may not. And a
 * scope leaves nothing behind: an assumption made in one is gone after
 * smt_scope_end. Checks that share a lift (check.c lift_shared) decide as
 * each with its own does (tests/data/reuse/inert.inv). Arguments: the examples' build directory and the source
 * root. */
#include "checker.h"
#include "pipeline.h"
#include "smt.h"
#include "xprog.h"

#include <errno.h>
#include <stdlib.h>

#include <stdio.h>
#include <string.h>

static int fails, runs;

static void sink(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
	printf("diagnostic: %s\n", buf);
}

static void same(const char *obj, const struct check_result *a, const struct check_result *b)
{
	const char *name = a->c->name;

	runs++;
	if (a->verdict != b->verdict || (a->verdict == CHECK_VIOLATED && a->site != b->site) ||
	    a->has_worst != b->has_worst || (a->has_worst && a->worst != b->worst) ||
	    a->has_worst_max != b->has_worst_max ||
	    (a->has_worst_max && a->worst_max != b->worst_max) ||
	    ((a->verdict == CHECK_UNKNOWN || a->verdict == CHECK_ERROR) &&
	     strcmp(a->reason, b->reason)) || !a->witness != !b->witness) {
		printf("FAIL: %s %s: shared %s (site %u, worst %d/%llu, at most %d/%llu, %s), "
		       "fresh %s (site %u, worst %d/%llu, at most %d/%llu, %s)\n", obj, name,
		       check_verdict_name(a->verdict), a->site, a->has_worst,
		       (unsigned long long)a->worst, a->has_worst_max,
		       (unsigned long long)a->worst_max, a->reason, check_verdict_name(b->verdict),
		       b->site, b->has_worst, (unsigned long long)b->worst, b->has_worst_max,
		       (unsigned long long)b->worst_max, b->reason);
		fails++;
	}
}

/* SPECNAME: examples/SPECNAME.inv, or a path from the source root */
static void compare(const char *exdir, const char *src, const char *obj, const char *specname)
{
	char path[1024], spec[1024], packs[1024];
	const char *dirs[1] = { packs };
	struct diag d = { .sink = sink };
	struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
	struct check_opts co = { .jobs = 1 };
	struct arena *a = arena_new();
	struct check_result *shared, fresh;
	struct mon_set *set;
	struct loaded l;
	unsigned i;

	snprintf(path, sizeof(path), "%s/%s.bpf.o", exdir, obj);
	if (strchr(specname, '/'))
		snprintf(spec, sizeof(spec), "%s/%s", src, specname);
	else
		snprintf(spec, sizeof(spec), "%s/examples/%s.inv", src, specname);
	snprintf(packs, sizeof(packs), "%s/invariants", src);
	if (check_load(path, a, &d, &l) || spec_resolve_file(spec, l.o, &ro, a, &d, &set) ||
	    xprog_expand(&l, set, &co, NULL, 0, a)) {
		printf("FAIL: %s: cannot load or resolve\n", obj);
		fails++;
		arena_free(a);
		return;
	}
	shared = calloc(set->n, sizeof(*shared));
	if (!shared)
		abort();
	check_run_all(&l, set, &co, shared);
	for (i = 0; i < set->n; i++) {
		check_run(&l, &set->checks[i], &co, &fresh);
		same(obj, &shared[i], &fresh);
		check_result_free(&fresh);
		check_result_free(&shared[i]);
	}
	free(shared);
	check_unload(&l);
	arena_free(a);
}

/* An assumption inside a scope does not outlive it. */
static void scope_clean(void)
{
	struct smt *s = smt_new();
	Z3_context z = smt_ctx(s);
	Z3_ast x = Z3_mk_const(z, Z3_mk_string_symbol(z, "x"), Z3_mk_bv_sort(z, 64));
	Z3_ast claim = smt_not(s, smt_eq(s, x, smt_bv64(s, 7)));
	struct smt_result q;
	int e1, e2, e3;

	runs++;
	e1 = smt_scope_begin(s);
	smt_assume(s, smt_eq(s, x, smt_bv64(s, 3)));
	smt_prove(s, claim, 0, &q);          /* x = 3: x != 7 holds */
	smt_release(s, &q);
	e2 = smt_scope_end(s);
	if (e1 || e2 || q.verdict != SMT_HOLDS) {
		printf("FAIL: scope: begin %d, end %d, inside: %s (expected holds)\n", e1, e2,
		       smt_verdict_name(q.verdict));
		fails++;
	}
	smt_prove(s, claim, 0, &q);          /* x free again: x = 7 is a model */
	smt_release(s, &q);
	e3 = smt_scope_end(s);               /* no scope open */
	if (q.verdict != SMT_VIOLATED || e3 != -EINVAL) {
		printf("FAIL: scope: after the scope %s (expected violated), end again %d\n",
		       smt_verdict_name(q.verdict), e3);
		fails++;
	}
	smt_free(s);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_reuse EXAMPLES_BUILD_DIR SOURCE_ROOT\n");
		return 2;
	}
	scope_clean();
	compare(argv[1], argv[2], "xdp_fw_bug", "xdp_fw");
	compare(argv[1], argv[2], "tc_classifier_bug", "tc_classifier");
	compare(argv[1], argv[2], "tailcall", "tailcall");
	compare(argv[1], argv[2], "scx_pack", "scx_pack");
	compare(argv[1], argv[2], "loop_sum_bug", "loop_sum");
	compare(argv[1], argv[2], "cgroup_skb", "cgroup_skb");
	/* checks that share a lift (check.c lift_shared) */
	compare(argv[1], argv[2], "trace_exec", "trace_exec");
	compare(argv[1], argv[2], "trace_exec", "tests/data/reuse/inert.inv");
	printf("reuse: %d passed, %d failed\n", runs - fails, fails);
	return fails != 0;
}
