/* lift.c - load + decode + CFG + SSA of an object, for the scaling benchmark.
 *
 * lift OBJECT [LOOP_BOUND [REPS [PREFAULT]]]: check_load (object_open,
 * decode), then ssa_build of every program without instrumentation
 * (cfg_build inside it, timed apart: struct ssa_prog's ns_cfg), REPS times
 * (default 1) with a fresh arena each; the fastest run's times. The heap
 * is set up as the CLI's (heap_on_huge_page) and so is the prefault
 * helper (prefault_start), unless PREFAULT is 0. Prints one line:
 *   bench-lift: insns=N load=S decode=S cfg=S ssa=S total=S blocks=B
 *     values=V unsupported=0|1 rss_start_kb=K peak_rss_kb=K prefault_mb=M
 * prefault_mb: what the helper populated (MiB).
 * peak_rss_kb is the process's peak resident set (stats_peak_rss_kb);
 * rss_start_kb its resident set before the first load (the binary and its
 * libraries).
 */
#include "pipeline.h"
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>

struct run {
	uint64_t ns[4];           /* load, decode, cfg, ssa */
	uint64_t insns, blocks, values;
	bool unsupported;
};

static void quiet(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

static int lift_once(const char *path, unsigned bound, struct run *r)
{
	struct diag d = { .sink = quiet };
	struct ssa_opts so = { .loop_bound = bound };
	struct arena *a = arena_new();
	struct loaded l;
	int *progs, n, i, err;

	err = check_load(path, a, &d, &l);
	if (err) {
		arena_free(a);
		return err;
	}
	r->ns[0] = l.ns_open;
	r->ns[1] = l.ns_decode;
	progs = arena_new_array(a, int, l.o->nfuncs + 1);
	n = check_select(l.o, NULL, progs);
	for (uint32_t f = 0; f < l.o->nfuncs; f++)
		r->insns += l.o->funcs[f].nslots;
	for (i = 0; i < n && !err; i++) {
		struct ssa_prog *p;

		err = ssa_build(l.o, progs[i], l.insns, &so, a, &d, &p);
		if (err)
			break;
		r->ns[2] += p->ns_cfg;
		r->ns[3] += p->ns_lift - p->ns_cfg;
		r->blocks += p->nblocks;
		r->values += p->nvalues;
		r->unsupported |= p->unsupported != NULL;
	}
	check_unload(&l);
	arena_free(a);
	return err;
}

static uint64_t total(const struct run *r)
{
	return r->ns[0] + r->ns[1] + r->ns[2] + r->ns[3];
}

int main(int argc, char **argv)
{
	unsigned bound = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	int reps = argc > 3 ? atoi(argv[3]) : 1, i;
	bool helper = argc > 4 ? atoi(argv[4]) != 0 : true;
	struct run best = { 0 };
	long start;

	if (argc < 2 || reps < 1) {
		fprintf(stderr, "usage: lift OBJECT [LOOP_BOUND [REPS [PREFAULT]]]\n");
		return 2;
	}
	/* the heap as the CLI has it (main.c): on transparent huge pages
	 * where they are on; bench.py runs one rep per process, as the CLI
	 * lifts once, so that no rep reuses an earlier one's pages */
	heap_on_huge_page();
	if (helper)
		prefault_start();      /* as main.c; PREFAULT 0: without the helper */
	start = stats_rss_kb();
	for (i = 0; i < reps; i++) {
		struct run r = { 0 };

		if (lift_once(argv[1], bound, &r))
			return 2;
		if (i == 0 || total(&r) < total(&best))
			best = r;
	}
	printf("bench-lift: insns=%llu load=%.6f decode=%.6f cfg=%.6f ssa=%.6f total=%.6f "
	       "blocks=%llu values=%llu unsupported=%d rss_start_kb=%ld peak_rss_kb=%ld "
	       "prefault_mb=%lu\n",
	       (unsigned long long)best.insns, best.ns[0] / 1e9, best.ns[1] / 1e9,
	       best.ns[2] / 1e9, best.ns[3] / 1e9, total(&best) / 1e9,
	       (unsigned long long)best.blocks, (unsigned long long)best.values,
	       best.unsupported, start, stats_peak_rss_kb(), prefault_populated() >> 20);
	return 0;
}
