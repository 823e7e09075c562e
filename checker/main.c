/* main.c - the command line: options only; the work is in check.c.
 *
 * Exit codes: 0 success (every invariant holds), 1 a violation, 3 unknown,
 * 2 usage, input or internal error.
 */
#include "pipeline.h"

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
	      "\n"
	      "Prove the invariants of SPEC for every program of the BPF ELF OBJECT.\n"
	      "\n"
	      "options:\n"
	      "  --dump=STAGE      print a stage's view and stop: object (programs, maps,\n"
	      "                    globals, kfuncs, struct_ops roles), insns (disassembly\n"
	      "                    with source lines), cfg (Graphviz DOT), ssa (the lifted IR)\n"
	      "  --program=NAME    only programs whose function name matches NAME (a glob)\n"
	      "  --loop-bound=N    unroll each loop at most N times (default 64); a loop\n"
	      "                    that needs more makes the verdict unknown\n"
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

struct cli {
	int dump;
	const char *program;
	struct ssa_opts ssa;
	const char *object, *spec;
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int ch;

	c->dump = -1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
	if (c->dump >= 0 && c->spec)
		return usage_error("--dump takes only an OBJECT, not a SPEC");
	return 0;
}

int main(int argc, char **argv)
{
	struct diag d = { .sink = print_diag };
	struct cli c = { 0 };
	struct loaded l;
	struct arena *a;
	int *progs, n, err;

	if (parse_args(argc, argv, &c))
		return EXIT_USAGE;
	if (c.dump < 0) {
		fprintf(stderr, "bpf-invcheck: error: checking a spec is not available in this version yet; use --dump=STAGE\n");
		return EXIT_USAGE;
	}
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
	} else {
		err = dump_programs(&l, (enum dump_stage)c.dump, progs, n, &c.ssa, a, &d, stdout);
	}
	check_unload(&l);
	arena_free(a);
	if (fflush(stdout) != 0 && !err) {
		fprintf(stderr, "bpf-invcheck: error: writing the output failed\n");
		return EXIT_USAGE;
	}
	return err ? EXIT_USAGE : 0;
}
