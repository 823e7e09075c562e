/* diff_cli.c - the `diff` subcommand: options, output, exit code.
 *
 *   bpf-invcheck diff [--program=NAME] [--loop-bound=N] [--timeout=S] OLD NEW
 *   bpf-invcheck diff --flow-affinity [...] OBJECT     (selfcomp.h)
 *
 * Exit: 0 every program of both objects is in both and equivalent; 1 some
 * program differs, or is in one object only; 3 none differs but some are
 * unknown; 2 usage, input or internal error.
 */
#include "checker.h"
#include "diff.h"
#include "handover.h"
#include "selfcomp.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("usage: bpf-invcheck diff [options] OLD NEW\n"
	      "       bpf-invcheck diff --flow-affinity [options] OBJECT\n"
	      "\n"
	      "For each program in both BPF objects, search for an input (context, packet,\n"
	      "maps, globals, helper results) on which the two versions differ in their\n"
	      "return value or in their sequence of helper/kfunc calls, and show it\n"
	      "replayed; or prove that there is none. Also compares their worst-case\n"
	      "instruction counts.\n"
	      "\n"
	      "With --flow-affinity: run each program of OBJECT twice on the same inputs,\n"
	      "letting only bpf_get_prandom_u32, bpf_get_smp_processor_id and\n"
	      "bpf_get_numa_node_id answer differently, and prove that the return value and\n"
	      "the redirect calls (target and flags) are the same; or show two such runs.\n"
	      "\n"
	      "options:\n"
	      "  --flow-affinity   one OBJECT: do verdict and redirect target depend on random\n"
	      "                    numbers or the CPU? (docs/diff.md)\n"
	      "  --program=NAME    only programs whose function name matches NAME (a glob)\n"
	      "  --loop-bound=N    unroll each loop at most N times (default 64)\n"
	      "  --timeout=S       give the solver at most S seconds per query; 0: no solving\n"
	      "  --help            this text\n"
	      "\n"
	      "exit status: 0 equivalent, 1 a difference (or a program in one object only),\n"
	      "3 unknown, 2 usage/input/internal error\n",
	      out);
}

static int bad_number(const char *opt, const char *v, unsigned lo, unsigned hi, unsigned *out)
{
	if (parse_uint_range(v, lo, hi, out) == 0)
		return 0;
	fprintf(stderr, "bpf-invcheck: error: %s needs a number from %u to %u, not '%s'\n",
		opt, lo, hi, v);
	return -1;
}

static int parse(int argc, char **argv, struct diff_opts *o, const char **prog,
		 const char **old, const char **new, bool *self)
{
	static const struct option opts[] = {
		{ "flow-affinity", no_argument, NULL, 'f' },
		{ "program", required_argument, NULL, 'p' },
		{ "loop-bound", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned t;
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			*prog = optarg;
			break;
		case 'l':
			if (bad_number("--loop-bound", optarg, 1, 1u << 20, &o->loop_bound))
				return -1;
			break;
		case 't':
			if (bad_number("--timeout", optarg, 0, 86400, &t))
				return -1;
			o->timeout_ms = t * 1000;
			o->no_time = t == 0;
			break;
		case 'f':
			*self = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "bpf-invcheck: error: unknown diff option '%s' or missing value; try 'bpf-invcheck diff --help'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (*self && argc - optind != 1) {
		fprintf(stderr, "bpf-invcheck: error: diff --flow-affinity needs one object; try 'bpf-invcheck diff --help'\n");
		return -1;
	}
	if (!*self && argc - optind != 2) {
		fprintf(stderr, "bpf-invcheck: error: diff needs two objects, OLD and NEW; try 'bpf-invcheck diff --help'\n");
		return -1;
	}
	*old = argv[optind];
	*new = argv[optind + (*self ? 0 : 1)];
	return 0;
}

/* --flow-affinity: the two runs of one program. */
static void print_self(const struct loaded *l, const struct diff_prog *dp)
{
	const struct diff_result *r = &dp->r;

	switch (r->verdict) {
	case DIFF_EQUIVALENT:
		printf("%s: independent of random numbers and the CPU\n", dp->name);
		break;
	case DIFF_DIFFER:
		printf("%s: depends on random numbers or the CPU:%s%s%s (both runs replayed in the interpreter)\n",
		       dp->name, r->ret_differs ? " return value" : "",
		       r->ret_differs && r->calls_differ ? " and" : "",
		       r->calls_differ ? " redirect calls" : "");
		printf("  run 1 returns %" PRIu32 ", run 2 returns %" PRIu32 "\n",
		       (uint32_t)r->old_replay.r0, (uint32_t)r->new_replay.r0);
		report_inputs_text(l->o, r->old_cex, &r->old_replay, "run 1, inputs and run", stdout);
		report_inputs_text(l->o, r->new_cex, &r->new_replay,
				   "run 2, the same inputs, other random numbers / CPU ids", stdout);
		break;
	case DIFF_UNKNOWN:
		printf("%s: unknown (%s)\n", dp->name, r->reason);
		break;
	case DIFF_ERROR:
		printf("%s: error (%s)\n", dp->name, r->reason);
		break;
	}
}

static void print_prog(const struct loaded *lo, const char *po, const struct loaded *ln,
		       const char *pn, const struct diff_prog *dp)
{
	const struct diff_result *r = &dp->r;
	char hdr[1200];

	if (!dp->in_new) {
		printf("%s: only in %s\n", dp->name, po);
		return;
	}
	if (!dp->in_old) {
		printf("%s: only in %s\n", dp->name, pn);
		return;
	}
	switch (r->verdict) {
	case DIFF_EQUIVALENT:
		printf("%s: equivalent\n", dp->name);
		break;
	case DIFF_DIFFER:
		printf("%s: differ:%s%s%s (replayed in the interpreter)\n", dp->name,
		       r->ret_differs ? " return value" : "",
		       r->ret_differs && r->calls_differ ? " and" : "",
		       r->calls_differ ? " calls" : "");
		if (!r->void_ret)
			printf("  old returns %" PRIu32 ", new returns %" PRIu32 "\n",
			       (uint32_t)r->old_replay.r0, (uint32_t)r->new_replay.r0);
		snprintf(hdr, sizeof(hdr), "old (%s), inputs and run", po);
		report_inputs_text(lo->o, r->old_cex, &r->old_replay, hdr, stdout);
		snprintf(hdr, sizeof(hdr), "new (%s), the same inputs as it reads them, and run", pn);
		report_inputs_text(ln->o, r->new_cex, &r->new_replay, hdr, stdout);
		break;
	case DIFF_UNKNOWN:
		printf("%s: unknown (%s)\n", dp->name, r->reason);
		break;
	case DIFF_ERROR:
		printf("%s: error (%s)\n", dp->name, r->reason);
		break;
	}
	if (r->has_worst)
		printf("  worst-case instructions: old %" PRIu64 ", new %" PRIu64 "\n", r->old_worst,
		       r->new_worst);
}

int diff_main(int argc, char **argv)
{
	struct diag d = { .sink = diag_print_stderr };
	struct diff_opts o = { 0 };
	struct loaded lo, ln;
	struct diff_report rep;
	const char *prog = NULL, *po, *pn;
	unsigned i, k[4] = { 0 }, only = 0;
	struct arena *a;
	bool self = false;
	int code = 0;

	if (parse(argc, argv, &o, &prog, &po, &pn, &self))
		return 2;
	heap_on_huge_page();
	a = arena_new();
	if (!a)
		abort();
	if (check_load(po, a, &d, &lo)) {
		arena_free(a);
		return 2;
	}
	if (self) {
		selfcomp_run(&lo, po, prog, &o, &rep);
		ln = lo;
	} else if (check_load(pn, a, &d, &ln)) {
		check_unload(&lo);
		arena_free(a);
		return 2;
	} else {
		diff_run(&lo, po, &ln, pn, prog, &o, &rep);
	}
	handover_commit();             /* no Z3 after this: what follows is final */
	if (prog && rep.n == 0) {
		fprintf(stderr, "bpf-invcheck: error: no program matches '%s' in either object\n", prog);
		code = 2;
	}
	for (i = 0; i < rep.n; i++) {
		const struct diff_prog *dp = &rep.progs[i];

		if (self)
			print_self(&lo, dp);
		else
			print_prog(&lo, po, &ln, pn, dp);
		if (!dp->in_old || !dp->in_new) {
			only++;
			continue;
		}
		k[dp->r.verdict]++;
		if (dp->r.verdict == DIFF_ERROR)
			fprintf(stderr, "bpf-invcheck: internal error in diff of %s: %s\n", dp->name,
				dp->r.reason);
	}
	if (self)
		printf("%u programs checked: %u independent, %u depend, %u unknown",
		       k[0] + k[1] + k[2] + k[3], k[DIFF_EQUIVALENT], k[DIFF_DIFFER], k[DIFF_UNKNOWN]);
	else
		printf("%u programs compared: %u equivalent, %u differ, %u unknown",
		       k[0] + k[1] + k[2] + k[3], k[DIFF_EQUIVALENT], k[DIFF_DIFFER], k[DIFF_UNKNOWN]);
	if (k[DIFF_ERROR])
		printf(", %u errors", k[DIFF_ERROR]);
	if (only)
		printf("; %u in one object only", only);
	putchar('\n');
	if (code == 0)
		code = k[DIFF_ERROR] ? 2 : (k[DIFF_DIFFER] || only) ? 1 : k[DIFF_UNKNOWN] ? 3 : 0;
	diff_report_free(&rep);
	check_unload(&lo);
	if (!self)
		check_unload(&ln);
	arena_free(a);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "bpf-invcheck: error: writing the output failed\n");
		return 2;
	}
	return code;
}
