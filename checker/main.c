/* main.c - the command line: options only; the work is in check.c.
 *
 * Exit codes: 0 success (every invariant holds), 1 a violation, 3 unknown,
 * 2 usage, input or internal error.
 */
#include "cache.h"
#include "checker.h"
#include "instrument.h"
#include "pipeline.h"

#include <bpf/libbpf.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2

static void print_diag(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

static void usage(FILE *out)
{
	fputs("usage: bpf-invcheck [options] OBJECT SPEC\n"
	      "       bpf-invcheck --dump=STAGE [options] OBJECT\n"
	      "       bpf-invcheck --dump=ssa [options] OBJECT SPEC\n"
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
	      "  --jobs=N          check N invariants in parallel (one Z3 context each)\n"
	      "  --format=F        text (default, compiler style) or json (docs/json-output.md)\n"
	      "  --quiet           print only violations, unknowns and errors\n"
	      "  --replay-kernel   also run each counterexample in the kernel with\n"
	      "                    BPF_PROG_TEST_RUN (xdp and tc programs, needs bpf():\n"
	      "                    root or CAP_BPF) and say whether it reproduces\n"
	      "  --cache=DIR       reuse the report of an identical earlier run (same\n"
	      "                    object bytes, spec files, options and checker) from DIR\n"
	      "  --stats           print one line of stage times to stderr (docs/performance.md)\n"
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
	const char *pack_dirs[MAX_PACK_DIRS + 2];
	unsigned npack_dirs;
	bool stats;
	struct stats st;
	const char *cache_dir;
	struct cache cache;
	bool cached;              /* cache_begin succeeded: look up and store */
};

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
		{ "dump", required_argument, NULL, 'd' },
		{ "program", required_argument, NULL, 'p' },
		{ "loop-bound", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "replay-kernel", no_argument, NULL, 'k' },
		{ "pack-dir", required_argument, NULL, 'I' },
		{ "stats", no_argument, NULL, 'S' },
		{ "cache", required_argument, NULL, 'C' },
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
		case 'f':
			if (!strcmp(optarg, "text")) {
				c->format = REPORT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				c->format = REPORT_JSON;
			} else {
				fprintf(stderr, "bpf-invcheck: error: unknown --format '%s' (expected text or json)\n", optarg);
				return -1;
			}
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'k':
			c->check.replay_kernel = true;
			break;
		case 'S':
			c->stats = true;
			break;
		case 'C':
			c->cache_dir = optarg;
			break;
		case 'I':
			if (c->npack_dirs == MAX_PACK_DIRS) {
				fprintf(stderr, "bpf-invcheck: error: at most %u pack directories\n", MAX_PACK_DIRS);
				return -1;
			}
			c->pack_dirs[c->npack_dirs++] = optarg;
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
	if (c->dump < 0 && !c->spec)
		return usage_error("missing SPEC (or --dump=STAGE to print a stage)");
	if (c->dump >= 0 && c->spec && c->dump != DUMP_SSA)
		return usage_error("--dump takes only an OBJECT, not a SPEC (except --dump=ssa: the instrumented IR)");
	return 0;
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

	c->pack_dirs[c->npack_dirs++] = INVCHECK_PACK_DIR;
	ro.npack_dirs = c->npack_dirs;
	if (spec_resolve_file(c->spec, l->o, &ro, a, d, &set))
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

/* Resolve the spec, run every check, report. Returns the exit code (0, 1,
 * 3, or 2 for an internal error) or -1 after a diagnostic. */
static int run_checks(struct cli *c, struct loaded *l, const int *progs, int nprogs,
		      struct arena *a, struct diag *d)
{
	struct resolve_opts ro = { .pack_dirs = c->pack_dirs, .progs = progs, .nprogs = nprogs };
	struct check_result *r;
	struct mon_set *set;
	FILE *out = stdout;
	char *buf = NULL;
	size_t len = 0;
	bool store;
	int code = 0;
	unsigned i;

	c->pack_dirs[c->npack_dirs++] = INVCHECK_PACK_DIR;
	ro.npack_dirs = c->npack_dirs;
	if (c->cached) {
		ro.on_text = cache_text;
		ro.text_arg = &c->cache;
	}
	if (spec_resolve_file(c->spec, l->o, &ro, a, d, &set))
		return -1;
	if (c->cached) {
		cache_finish(&c->cache);
		if (cache_lookup(&c->cache, stdout, &code))
			return code;
		out = open_memstream(&buf, &len);
		if (!out)
			abort();
	}
	c->check.loop_bound = c->ssa.loop_bound;
	/* kernel.c prints nothing: libbpf's messages (global) are silenced
	 * once here, before any check (and thread) runs */
	if (c->check.replay_kernel)
		libbpf_set_print(NULL);
	r = calloc(set->n ? set->n : 1, sizeof(*r));
	if (!r)
		abort();
	check_run_all(l, set, &c->check, r);
	report_write(l, set, r, c->format, c->quiet, out);
	store = c->cached && cache_storable(r, set->n);
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

int main(int argc, char **argv)
{
	struct diag d = { .sink = print_diag };
	struct cli c = { 0 };
	struct loaded l;
	struct arena *a;
	int *progs, n, err;
	char **args = malloc(sizeof(char *) * ((size_t)argc + 1));

	c.st.start = stats_now();
	if (!args)
		abort();
	memcpy(args, argv, sizeof(char *) * ((size_t)argc + 1));
	err = parse_args(argc, argv, &c);
	if (!err && c.cache_dir) {
		err = cache_open(&c.cache, c.cache_dir, &d);
		/* not for dumps, nor --replay-kernel (the running kernel answers);
		 * an unreadable object: check_load says why */
		c.cached = !err && c.dump < 0 && !c.check.replay_kernel &&
			   cache_begin(&c.cache, argc, args, c.object) == 0;
	}
	free(args);
	if (err)
		return EXIT_USAGE;
	a = arena_new();
	err = check_load(c.object, a, &d, &l);
	if (err) {
		arena_free(a);
		return EXIT_USAGE;
	}
	progs = arena_new_array(a, int, l.o->nfuncs + 1);
	n = check_select(l.o, c.program, progs);
	if (c.program && n == 0) {
		diag_fail(&d, c.object, "no program matches '%s'", c.program);
		err = -1;
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
	if (fflush(stdout) != 0 && err >= 0) {
		fprintf(stderr, "bpf-invcheck: error: writing the output failed\n");
		return EXIT_USAGE;
	}
	if (c.stats)
		stats_write(&c.st, stderr);
	return err < 0 ? EXIT_USAGE : err;
}
