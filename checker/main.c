/* main.c - the command line: options only; the work is in check.c.
 *
 * Exit codes: 0 success (every invariant holds), 1 a violation, 3 unknown,
 * 2 usage, input or internal error.
 */
#include "artifacts.h"
#include "cache.h"
#include "checker.h"
#include "diff.h"
#include "handover.h"
#include "instrument.h"
#include "pipeline.h"
#include "progress.h"
#include "xprog.h"
#include "kprofile.h"

#include <bpf/libbpf.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2

static void usage(FILE *out)
{
	fputs("usage: bpf-invcheck [options] OBJECT SPEC\n"
	      "       bpf-invcheck diff [options] OLD NEW   (see bpf-invcheck diff --help)\n"
	      "       bpf-invcheck --dump=STAGE [options] OBJECT\n"
	      "       bpf-invcheck --dump=ssa [options] OBJECT SPEC\n"
	      "       bpf-invcheck --replay=FILE [options] OBJECT [SPEC]\n"
	      "\n"
	      "Prove the invariants of SPEC for every program of the BPF ELF OBJECT.\n"
	      "\n"
	      "options:\n"
	      "  --dump=STAGE      print a stage's view and stop: object (programs, maps,\n"
	      "                    globals, kfuncs, struct_ops roles), insns (disassembly\n"
	      "                    with source lines), cfg (Graphviz DOT), ssa (the lifted IR;\n"
	      "                    with a SPEC: each check's instrumented IR)\n"
	      "  --program=NAME    only programs whose function name matches NAME (a glob)\n"
	      "  --loop-bound=N    unroll each loop at most N times (default 64); a loop\n"
	      "                    that needs more makes the verdict unknown\n"
	      "  --timeout=S       give the solver at most S seconds per query (default:\n"
	      "                    no limit); a query that runs out of time makes the\n"
	      "                    verdict unknown; 0: no solving at all (all unknown)\n"
	      "  --jobs=N          check N invariants in parallel (up to 8 consecutive\n"
	      "                    checks share a Z3 context)\n"
	      "  --max-memory=MB   let the solver use at most MB megabytes (Z3's max_memory,\n"
	      "                    all parallel checks together); more makes the verdict unknown\n"
	      "  --rlimit=N        give the solver at most N units of work per query (Z3's\n"
	      "                    rlimit): like --timeout, but the same verdicts on any\n"
	      "                    machine and load; more makes the verdict unknown\n"
	      "  --deadline=S      end the whole run after S seconds: checks not done by then\n"
	      "                    are unknown (queries get the time left as their timeout)\n"
	      "  --format=F        text (default, compiler style), json (docs/json-output.md)\n"
	      "                    or sarif (SARIF 2.1.0, docs/sarif.md)\n"
	      "  --quiet           print only violations, unknowns and errors\n"
	      "  --no-timing       JSON \"seconds\" is 0: the output is byte-identical\n"
	      "                    across runs and --jobs values\n"
	      "  --no-search       no concrete search for counterexamples before the\n"
	      "                    solver: every violation comes from a Z3 model\n"
	      "  --replay-kernel   also run each counterexample in the kernel with\n"
	      "                    BPF_PROG_TEST_RUN (xdp and tc programs, needs bpf():\n"
	      "                    root or CAP_BPF) and say whether it reproduces\n"
	      "  --cex-dir=DIR     write each counterexample to DIR: CHECK.replay.json (for\n"
	      "                    --replay) and, for packet programs, CHECK.pcap\n"
	      "  --cex-dot         with --cex-dir: also CHECK.dot, the CFG with the failing\n"
	      "                    path highlighted (and CHECK.svg when Graphviz is installed)\n"
	      "  --replay=FILE     replay a CHECK.replay.json of --cex-dir on OBJECT (SPEC:\n"
	      "                    instead of the recorded one); exit 1 when it fails the\n"
	      "                    recorded assert, 0 when it runs through, 3 when it does\n"
	      "                    not apply\n"
	      "  --kernel-btf=FILE the kernel BTF whose sched_ext enums fill the __SCX_*\n"
	      "                    .rodata variables (default: /sys/kernel/btf/vmlinux\n"
	      "                    when it has them, else a built-in 6.12-6.18 profile)\n"
	      "  --cache=DIR       reuse the report of an identical earlier run (same\n"
	      "                    object bytes, spec files, options and checker) from DIR\n"
	      "  --stats           print one line of stage times to stderr (docs/performance.md)\n"
	      "  --no-absint       prove with Z3 only: no abstract-interpretation pre-pass\n"
	      "                    (the verdicts are the same; docs/performance.md)\n"
	      "  -I DIR, --pack-dir=DIR\n"
	      "                    search DIR for `import \"NAME\"` before the built-in packs\n"
	      "  --help            this text\n"
	      "  --version         the version\n"
	      "\n"
	      "exit status: 0 holds, 1 violated, 3 unknown, 2 usage/input/internal error\n",
	      out);
}

static int usage_error(const char *what)
{
	fprintf(stderr, "bpf-invcheck: error: %s; try 'bpf-invcheck --help'\n", what);
	return -1;
}

#define MAX_PACK_DIRS 16

struct cli {
	int dump;
	const char *program;
	struct ssa_opts ssa;
	const char *object, *spec;
	struct check_opts check;
	bool timeout_set;
	enum report_format format;
	bool quiet;
	const char *cex_dir, *replay;
	bool cex_dot;
	bool no_timing;
	const char *pack_dirs[MAX_PACK_DIRS + 2];
	unsigned npack_dirs;
	bool stats;
	struct stats st;
	const char *cache_dir;
	struct cache cache;
	bool cached;              /* cache_begin succeeded: look up and store */
	const char *kernel_btf;
	struct kprofile kp;
};

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	return parse_uint_range(s, 1, max, out);
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
		{ "dump", required_argument, NULL, 'd' },
		{ "program", required_argument, NULL, 'p' },
		{ "loop-bound", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "max-memory", required_argument, NULL, 'M' },
		{ "rlimit", required_argument, NULL, 'U' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-timing", no_argument, NULL, 'T' },
		{ "no-search", no_argument, NULL, 'N' },
		{ "replay-kernel", no_argument, NULL, 'k' },
		{ "pack-dir", required_argument, NULL, 'I' },
		{ "cex-dir", required_argument, NULL, 'C' },
		{ "cex-dot", no_argument, NULL, 'G' },
		{ "replay", required_argument, NULL, 'R' },
		{ "kernel-btf", required_argument, NULL, 'b' },
		{ "stats", no_argument, NULL, 'S' },
		{ "cache", required_argument, NULL, 'K' },
		{ "no-absint", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int ch;

	c->dump = -1;
	opterr = 0;
	unsigned t;

	while ((ch = getopt_long(argc, argv, "I:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			c->dump = dump_stage_parse(optarg);
			if (c->dump < 0) {
				fprintf(stderr, "bpf-invcheck: error: unknown --dump stage '%s' (expected object, insns, cfg or ssa)\n", optarg);
				return -1;
			}
			break;
		case 'p':
			c->program = optarg;
			break;
		case 'l':
			if (parse_uint(optarg, 1u << 20, &c->ssa.loop_bound)) {
				fprintf(stderr, "bpf-invcheck: error: --loop-bound needs a number from 1 to %u, not '%s'\n", 1u << 20, optarg);
				return -1;
			}
			break;
		case 't':
			if (!strcmp(optarg, "0")) {
				t = 0;
			} else if (parse_uint(optarg, 86400, &t)) {
				fprintf(stderr, "bpf-invcheck: error: --timeout needs a number of seconds from 0 to 86400, not '%s'\n", optarg);
				return -1;
			}
			c->check.timeout_ms = t * 1000;
			c->check.no_time = t == 0;
			c->timeout_set = true;
			break;
		case 'j':
			if (parse_uint(optarg, 256, &c->check.jobs)) {
				fprintf(stderr, "bpf-invcheck: error: --jobs needs a number from 1 to 256, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'M':
			if (parse_uint(optarg, 1u << 20, &c->check.max_memory_mb)) {
				fprintf(stderr, "bpf-invcheck: error: --max-memory needs a number of megabytes from 1 to %u, not '%s'\n", 1u << 20, optarg);
				return -1;
			}
			break;
		case 'U':
			if (parse_uint(optarg, UINT_MAX, &c->check.query_units)) {
				fprintf(stderr, "bpf-invcheck: error: --rlimit needs a number of solver work units from 1 to %u, not '%s'\n", UINT_MAX, optarg);
				return -1;
			}
			break;
		case 'D':
			if (parse_uint(optarg, 86400, &c->check.deadline_s)) {
				fprintf(stderr, "bpf-invcheck: error: --deadline needs a number of seconds from 1 to 86400, not '%s'\n", optarg);
				return -1;
			}
			/* from the run's start: a handed-over run keeps the
			 * static process's (handover.h) */
			c->check.deadline_at = handover_start_ns() / 1e9 + c->check.deadline_s;
			break;
		case 'f':
			if (!strcmp(optarg, "text")) {
				c->format = REPORT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				c->format = REPORT_JSON;
			} else if (!strcmp(optarg, "sarif")) {
				c->format = REPORT_SARIF;
			} else {
				fprintf(stderr, "bpf-invcheck: error: unknown --format '%s' (expected text, json or sarif)\n", optarg);
				return -1;
			}
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'T':
			c->no_timing = true;
			break;
		case 'N':
			c->check.no_search = true;
			break;
		case 'A':
			c->check.no_absint = true;
			break;
		case 'k':
			c->check.replay_kernel = true;
			break;
		case 'I':
			if (c->npack_dirs == MAX_PACK_DIRS) {
				fprintf(stderr, "bpf-invcheck: error: at most %u pack directories\n", MAX_PACK_DIRS);
				return -1;
			}
			c->pack_dirs[c->npack_dirs++] = optarg;
			break;
		case 'C':
			c->cex_dir = optarg;
			break;
		case 'G':
			c->cex_dot = true;
			break;
		case 'R':
			c->replay = optarg;
			break;
		case 'b':
			c->kernel_btf = optarg;
			break;
		case 'S':
			c->stats = true;
			break;
		case 'K':
			c->cache_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("bpf-invcheck %s\n", INVCHECK_VERSION);
			exit(0);
		default:
			fprintf(stderr, "bpf-invcheck: error: unknown option '%s' or missing value; try 'bpf-invcheck --help'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc)
		c->object = argv[optind++];
	if (optind < argc)
		c->spec = argv[optind++];
	if (!c->object)
		return usage_error("missing OBJECT");
	if (optind < argc)
		return usage_error("too many arguments");
	if (c->cex_dot && !c->cex_dir)
		return usage_error("--cex-dot needs --cex-dir=DIR");
	if (c->replay && (c->dump >= 0 || c->cex_dir))
		return usage_error("--replay runs a counterexample: not with --dump or --cex-dir");
	if (c->dump < 0 && !c->spec && !c->replay)
		return usage_error("missing SPEC (or --dump=STAGE to print a stage)");
	if (c->dump >= 0 && c->spec && c->dump != DUMP_SSA)
		return usage_error("--dump takes only an OBJECT, not a SPEC (except --dump=ssa: the instrumented IR)");
	return 0;
}

/* After resolution: the __SCX_* values (kprofile.h), then the `relate`
 * placeholders (xprog.h). */
static int post_resolve(struct cli *c, struct loaded *l, struct mon_set *set,
			struct arena *a, struct diag *d)
{
	struct mon_expr **pins = NULL;
	unsigned npins = 0;
	int err;

	c->check.loop_bound = c->ssa.loop_bound;
	libbpf_set_print(NULL);         /* btf__parse of a bad file: our message only */
	if (kprofile_open(c->kernel_btf, l->o, d, &c->kp))
		return -1;
	err = kprofile_apply(l->o, &c->kp, set, a, &pins, &npins);
	kprofile_close(&c->kp);
	return err ? err : xprog_expand(l, set, &c->check, pins, npins, a);
}

/* --dump=ssa OBJECT SPEC: each check's instrumented SSA (the monitor as
 * ghost state and assume/assert nodes). */
static int dump_instrumented(struct cli *c, struct loaded *l, const int *progs, int nprogs,
			     struct arena *a, struct diag *d)
{
	struct resolve_opts ro = { .pack_dirs = c->pack_dirs, .progs = progs, .nprogs = nprogs };
	struct mon_set *set;
	struct ssa_prog *p;
	const char *bad;
	unsigned i;

	c->pack_dirs[c->npack_dirs++] = invcheck_pack_dir();
	ro.npack_dirs = c->npack_dirs;
	if (spec_resolve_file(c->spec, l->o, &ro, a, d, &set))
		return -1;
	if (post_resolve(c, l, set, a, d))
		return -1;
	for (i = 0; i < set->n; i++) {
		const struct mon_check *mc = &set->checks[i];
		unsigned k;

		if (instrument_lift(l, mc, &c->ssa, a, d, &p))
			return -1;
		printf("; check %s: assert sites", mc->name);
		for (k = 0; k < mc->nasserts; k++)
			printf(" %u = %s:%u:%u", k, mc->asserts[k].file, mc->asserts[k].pos.line,
			       mc->asserts[k].pos.col);
		putchar('\n');
		bad = ssa_verify(p);
		if (bad) {
			fprintf(stderr, "bpf-invcheck: internal error: %s: ssa_verify: %s\n", mc->name, bad);
			return 2;
		}
		ssa_print(p, stdout);
	}
	return 0;
}

/* --cex-dir: the counterexamples as files (artifacts.c). */
static int write_artifacts(const struct cli *c, const struct loaded *l, const struct mon_set *set,
			   const struct check_result *r, struct arena *a, struct diag *d)
{
	struct artifact_opts ao = { .dir = c->cex_dir, .dot = c->cex_dot, .spec = c->spec,
				    .pack_dirs = c->pack_dirs, .npack_dirs = c->npack_dirs - 1 };
	bool dot_missing;

	if (artifacts_write(l, set, r, &ao, a, d, &dot_missing))
		return -1;
	if (dot_missing)
		fprintf(stderr, "bpf-invcheck: note: dot (Graphviz) is not installed: wrote the .dot files only\n");
	return 0;
}

/* Resolve the spec, run every check, report. Returns the exit code (0, 1,
 * 3, or 2 for an internal error) or -1 after a diagnostic. */
static int run_checks(struct cli *c, struct loaded *l, const int *progs, int nprogs,
		      struct arena *a, struct diag *d)
{
	struct resolve_opts ro = { .pack_dirs = c->pack_dirs, .progs = progs, .nprogs = nprogs };
	struct check_result *r;
	struct progress pg;
	struct mon_set *set;
	FILE *out = stdout;
	char *buf = NULL;
	size_t len = 0;
	bool store;
	int code = 0;
	unsigned i;

	c->pack_dirs[c->npack_dirs++] = invcheck_pack_dir();
	ro.npack_dirs = c->npack_dirs;
	if (c->cached) {
		ro.on_text = cache_text;
		ro.text_arg = &c->cache;
	}
	if (spec_resolve_file(c->spec, l->o, &ro, a, d, &set))
		return -1;
	if (c->cached) {
		cache_finish(&c->cache);
		/* the run's output goes here; a hit's first (it writes nothing
		 * on a miss) */
		out = open_memstream(&buf, &len);
		if (!out)
			abort();
		if (cache_lookup(&c->cache, out, &code)) {
			fclose(out);
			handover_commit();     /* final: no check runs (held warnings first) */
			fwrite(buf, 1, len, stdout);
			free(buf);
			return code;
		}
	}
	if (post_resolve(c, l, set, a, d)) {
		if (c->cached) {
			fclose(out);
			free(buf);
		}
		return -1;
	}
	/* kernel.c prints nothing: libbpf's messages (global) are silenced
	 * once here, before any check (and thread) runs */
	if (c->check.replay_kernel)
		libbpf_set_print(NULL);
	/* not zeroed here: check_run_all runs check_one on every result,
	 * which clears it first (calloc cleared the whole array with one
	 * memset, 1.5 KiB a check: a byte an instruction under callgrind) */
	r = malloc((set->n ? set->n : 1) * sizeof(*r));
	if (!r)
		abort();
	progress_start(&pg, set->n, l->o->path, &c->check);
	check_run_all(l, set, &c->check, r);
	progress_end(&pg);
	handover_commit();             /* no check needs Z3 any more: what follows is final */
	for (i = 0; c->no_timing && i < set->n; i++)
		r[i].seconds = 0;
	report_write(l, set, r, c->format, c->quiet, out);
	store = c->cached && cache_storable(r, set->n);
	if (c->cex_dir && write_artifacts(c, l, set, r, a, d))
		code = EXIT_USAGE;
	for (i = 0; i < set->n; i++) {
		if (r[i].verdict == CHECK_ERROR) {
			fprintf(stderr, "bpf-invcheck: internal error in %s: %s\n", set->checks[i].name,
				r[i].reason);
			code = EXIT_USAGE;
		} else if (r[i].verdict == CHECK_VIOLATED && code != EXIT_USAGE) {
			code = 1;
		} else if (r[i].verdict == CHECK_UNKNOWN && code == 0) {
			code = 3;
		}
		stats_add_check(&c->st, r[i].stage_ns, (uint64_t)(r[i].seconds * 1e9));
		c->st.search += r[i].by_search;
		c->st.search_ns += r[i].search_ns;
		c->st.search_inputs += r[i].search_runs;
		c->st.coarse += r[i].coarse_queries;
		c->st.coarse_proved += r[i].coarse_proofs;
		stats_add_absint(&c->st, r[i].by_absint, r[i].by_shared, r[i].absint_ns);
		check_result_free(&r[i]);
	}
	free(r);
	if (c->cached) {
		fclose(out);
		fwrite(buf, 1, len, stdout);
		if (store && code != EXIT_USAGE && (i = (unsigned)-cache_store(&c->cache, buf, len, code)))
			fprintf(stderr, "bpf-invcheck: warning: %s: cannot store the result: %s\n",
				c->cache_dir, strerror((int)i));
		free(buf);
	}
	return code;
}

/* stdout fully buffered in 64 KiB of the heap (its huge page: no fault),
 * set before anything is written to it: a report (every example's is
 * 2-20 KB) leaves in one write at the end, where stdio's own buffer of
 * 4 KiB, line by line on a terminal, wrote it in two to five, each
 * waking a pipe's reader, and asked fstat and isatty first. The report
 * is written when the run ends anyway; --dump and --replay write as they
 * go, a block at a time. */
static void stdout_buffer(void)
{
	enum { OUT_BUF = 64 << 10 };
	/* held here for the process's life: glibc forgets a buffer it was
	 * given when it unbuffers stdout at exit (valgrind: lost) */
	static char *buf;

	buf = malloc(OUT_BUF);
	if (buf && setvbuf(stdout, buf, _IOFBF, OUT_BUF)) {
		free(buf);
		buf = NULL;
	}
}

int main(int argc, char **argv)
{
	struct diag d = { .sink = diag_print_stderr };
	struct cli c = { 0 };
	struct loaded l;
	struct arena *a;
	int *progs, n, err;
	char **args;
	uint64_t start = stats_now();   /* --stats total: from here (and the entry's populate) */
	uint64_t flush_at;
	int flushed;

	c.st.image = prefault_image();   /* a hint: --stats shows its answer */
	start -= prefault_entry_ns();    /* total counts the entry's populate */
	handover_init(argv, start);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	args = malloc(sizeof(char *) * ((size_t)argc + 1));
	if (!args)
		abort();
	c.st.start = handover_start_ns();
	memcpy(args, argv, sizeof(char *) * ((size_t)argc + 1));
	err = parse_args(argc, argv, &c);
	if (!err && c.cache_dir) {
		err = cache_open(&c.cache, c.cache_dir, &d);
		/* not for dumps, --replay, --cex-dir (files, not stdout) nor
		 * --replay-kernel (the running kernel answers); an unreadable
		 * object: check_load says why */
		c.cached = !err && c.dump < 0 && !c.replay && !c.cex_dir && !c.check.replay_kernel &&
			   cache_begin(&c.cache, argc, args, c.object) == 0 &&
			   (!c.kernel_btf || cache_file(&c.cache, c.kernel_btf) == 0);
	}
	free(args);
	if (err)
		return EXIT_USAGE;
	heap_on_huge_page();           /* before the first thread (--jobs) */
	prefault_start();              /* its helper thread starts at the first big block */
	stdout_buffer();
	a = arena_new();
	err = check_load(c.object, a, &d, &l);
	if (err) {
		arena_free(a);
		return EXIT_USAGE;
	}
	progs = arena_new_array(a, int, l.o->nfuncs + 1);
	n = check_select(l.o, c.program, progs);
	if (c.dump >= 0 || c.replay)
		handover_commit();     /* these write as they go, and need no Z3: final at once */
	if (c.program && n == 0) {
		diag_fail(&d, c.object, "no program matches '%s'", c.program);
		err = -1;
	} else if (c.replay) {
		err = cexfile_replay(c.replay, &l, c.spec, c.pack_dirs, c.npack_dirs, c.format, a, &d,
				     stdout);
	} else if (c.dump >= 0 && c.spec) {
		err = dump_instrumented(&c, &l, c.program ? progs : NULL, n, a, &d);
	} else if (c.dump >= 0) {
		err = dump_programs(&l, (enum dump_stage)c.dump, progs, n, &c.ssa, a, &d, stdout);
	} else {
		err = run_checks(&c, &l, c.program ? progs : NULL, n, a, &d);
	}
	if (c.stats)
		stats_loaded(&c.st, &l);
	check_unload(&l);
	arena_free(a);
	flush_at = stats_now();
	flushed = fflush(stdout);
	c.st.write_ns = stats_now() - flush_at;
	if (flushed != 0 && err >= 0) {
		fprintf(stderr, "bpf-invcheck: error: writing the output failed\n");
		return EXIT_USAGE;
	}
	if (c.stats)
		stats_write(&c.st, stderr);
	return err < 0 ? EXIT_USAGE : err;
}
