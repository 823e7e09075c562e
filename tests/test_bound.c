/* test_bound.c - the insns counter's static maximum (bound.c) on the
 * examples' bound checks: the exact longest path of each (read off the
 * instrumented DAG: inlined subprograms and loops unrolled --loop-bound
 * times), and a check without a bound has none. Arguments: the examples'
 * build directory and the source root. */
#include "bound.h"
#include "instrument.h"
#include "pipeline.h"

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

/* bound_longest_path agrees with the maximum: its TOP is WANT, its
 * block holds an assert of the bound, and every edge names a real
 * incoming edge, each at a different block (a path meets a block once). */
static void path_ok(const struct ssa_prog *p, const struct mon_check *c, bool ok, uint64_t want,
		    const char *name)
{
	struct arena *a = arena_new();
	struct bound_path bp;
	bool found = c->has_bound && bound_longest_path(p, c->bound_site, a, &bp), site = false;
	uint32_t i, j;

	if (found != ok || (ok && bp.top != want)) {
		printf("FAIL: %s: longest path %s, top %llu, expected %llu\n", name,
		       found ? "found" : "not found", found ? (unsigned long long)bp.top : 0ull,
		       (unsigned long long)want);
		fails++;
	}
	if (!found)
		goto out;
	for (i = 0; bp.block < p->nblocks && i < p->blocks[bp.block]->ninsns; i++) {
		const struct ssa_insn *v = p->blocks[bp.block]->insns[i];

		site |= v->kind == SSA_ASSERT && v->imm == c->bound_site;
	}
	if (!site) {
		printf("FAIL: %s: the path's block b%u has no assert of the bound\n", name, bp.block);
		fails++;
	}
	for (i = 0; i < bp.nedges; i++) {
		uint32_t b = bp.edges[2 * i], k = bp.edges[2 * i + 1];

		for (j = 0; j < i; j++)
			if (bp.edges[2 * j] == b)
				break;
		if (b >= p->nblocks || k >= p->blocks[b]->npreds || j < i || b > bp.block) {
			printf("FAIL: %s: edge %u (b%u, pred %u) is not on a path\n", name, i, b, k);
			fails++;
		}
	}
out:
	arena_free(a);
}

/* The check NAME of examples/EX.inv against EX.bpf.o: its static maximum
 * must be WANT (ok: whether one is found at all). */
static void expect(const char *exdir, const char *src, const char *ex, const char *name,
		   unsigned loop_bound, bool ok, uint64_t want)
{
	char obj[1024], spec[1024], packs[1024];
	const char *dirs[1] = { packs };
	struct diag d = { .sink = sink };
	struct ssa_opts so = { .loop_bound = loop_bound };
	struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
	struct arena *a = arena_new();
	struct mon_set *set;
	struct loaded l;
	unsigned i;

	runs++;
	snprintf(obj, sizeof(obj), "%s/%s.bpf.o", exdir, ex);
	snprintf(spec, sizeof(spec), "%s/examples/%s.inv", src, ex);
	snprintf(packs, sizeof(packs), "%s/invariants", src);
	if (check_load(obj, a, &d, &l) || spec_resolve_file(spec, l.o, &ro, a, &d, &set)) {
		printf("FAIL: %s: cannot load or resolve\n", ex);
		fails++;
		arena_free(a);
		return;
	}
	for (i = 0; i < set->n && strcmp(set->checks[i].name, name); i++)
		;
	if (i == set->n) {
		printf("FAIL: %s: no check %s\n", ex, name);
		fails++;
	} else {
		const struct mon_check *c = &set->checks[i];
		struct ssa_prog *p;
		uint64_t got = 0;
		bool found;

		if (instrument_lift(&l, c, &so, a, &d, &p)) {
			printf("FAIL: %s: lift\n", name);
			fails++;
		} else {
			found = c->has_bound && bound_static_max(p, c->bound_site, &got);
			if (found != ok || (ok && got != want)) {
				printf("FAIL: %s (loop bound %u): static maximum %s %llu, expected %s %llu\n",
				       name, loop_bound, found ? "found" : "not found",
				       (unsigned long long)got, ok ? "found" : "not found",
				       (unsigned long long)want);
				fails++;
			}
			path_ok(p, c, ok, want, name);
		}
	}
	check_unload(&l);
	arena_free(a);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_bound EXAMPLES_BUILD_DIR SOURCE_ROOT\n");
		return 2;
	}
	/* straight-line programs: the longest path is the worst case the
	 * solver finds (golden check-xdp_fw_bug: 64; tailcall.inv: 41 and 34) */
	expect(argv[1], argv[2], "xdp_fw", "xdp_fw.bound_insns", 0, true, 64);
	expect(argv[1], argv[2], "tailcall", "tail_tcp.bound_insns", 0, true, 41);
	expect(argv[1], argv[2], "tailcall", "tail_udp.bound_insns", 0, true, 34);
	expect(argv[1], argv[2], "xdp_lb", "xdp_lb.bound_insns", 0, true, 222);
	/* loops: every unrolled iteration counts, feasible or not (the
	 * solver's worst case is 239); with --loop-bound=8 less than that,
	 * since the longer runs end in an unwinding marker (which makes the
	 * verdict unknown), not at an exit */
	expect(argv[1], argv[2], "loop_sum", "loop_sum.bound_insns", 0, true, 1119);
	expect(argv[1], argv[2], "loop_sum", "loop_sum.bound_insns", 8, true, 167);
	/* no bound, no maximum */
	expect(argv[1], argv[2], "xdp_fw", "xdp_fw.xdp.never_abort", 0, false, 0);
	printf("bound: %d passed, %d failed\n", runs - fails, fails);
	return fails != 0;
}
