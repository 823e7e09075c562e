/* stats.c - stage times (contract in stats.h). */
#include "stats.h"
#include "pipeline.h"

#include <sys/resource.h>
#include <time.h>

uint64_t stats_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

const char *stats_stage_name(enum stats_stage s)
{
	switch (s) {
	case STAGE_LOAD: return "load";
	case STAGE_DECODE: return "decode";
	case STAGE_CFG: return "cfg";
	case STAGE_SSA: return "ssa";
	case STAGE_INSTRUMENT: return "instrument";
	case STAGE_ENCODE: return "encode";
	case STAGE_SOLVE: return "solve";
	case STAGE_N: break;
	}
	return "?";
}

void stats_add_check(struct stats *s, const uint64_t check[STAGE_N], uint64_t total)
{
	unsigned i;

	for (i = STAGE_CFG; i < STAGE_N; i++)
		s->ns[i] += check[i];
	if (total > s->max_check)
		s->max_check = total;
	s->checks++;
}

void stats_loaded(struct stats *s, const struct loaded *l)
{
	uint32_t f;

	s->ns[STAGE_LOAD] = l->ns_open;
	s->ns[STAGE_DECODE] = l->ns_decode;
	s->insns = 0;
	for (f = 0; l->o && f < l->o->nfuncs; f++)
		s->insns += l->o->funcs[f].nslots;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

void stats_write(const struct stats *s, FILE *out)
{
	struct rusage ru;
	unsigned i;

	if (getrusage(RUSAGE_SELF, &ru))
		ru.ru_maxrss = 0;
	fprintf(out, "bpf-invcheck-stats: insns=%llu checks=%u", (unsigned long long)s->insns,
		s->checks);
	for (i = 0; i < STAGE_N; i++)
		fprintf(out, " %s=%.6f", stats_stage_name((enum stats_stage)i), secs(s->ns[i]));
	fprintf(out, " total=%.6f max_check=%.6f peak_rss_kb=%ld\n", secs(stats_now() - s->start),
		secs(s->max_check), ru.ru_maxrss);
}
