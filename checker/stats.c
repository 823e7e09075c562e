/* stats.c - stage times (contract in stats.h). */
#include "stats.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t stats_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

uint64_t stats_cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
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

void stats_add_absint(struct stats *s, bool proved, bool shared, uint64_t ns)
{
	s->absint += proved;
	s->absint_shared += shared;
	s->absint_ns += ns;
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

static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = strlen(key);
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			kb = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return kb;
}

/* getrusage's ru_maxrss is the kernel's high-water mark of the resident
 * set, the number /proc/self/status shows as VmHWM, without opening a
 * file (--stats costs the run it measures as little as it can) */
long stats_peak_rss_kb(void)
{
	struct rusage ru;

	if (!getrusage(RUSAGE_SELF, &ru))
		return ru.ru_maxrss;
	return status_kb("VmHWM");
}

long stats_minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_minflt;
}

long stats_rss_kb(void)
{
	long kb = status_kb("VmRSS");

	return kb >= 0 ? kb : stats_peak_rss_kb();
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static const char *image_name(int image)
{
	switch ((enum image_populate)image) {
	case IMAGE_NONE:
		return "none";
	case IMAGE_MAIN:
		return "main";
	case IMAGE_ENTRY:
		return "entry";
	}
	return "none";
}

/* The line in one write: OUT is stderr, unbuffered, and a write per
 * field cost the measured run ten system calls. */
void stats_write(const struct stats *s, FILE *out)
{
	char line[1024];
	size_t n = 0;
	unsigned i;

	n += (size_t)snprintf(line + n, sizeof(line) - n, "bpf-invcheck-stats: insns=%llu checks=%u",
			      (unsigned long long)s->insns, s->checks);
	for (i = 0; i < STAGE_N && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=%.6f",
				      stats_stage_name((enum stats_stage)i), secs(s->ns[i]));
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n,
			 " total=%.6f write=%.6f max_check=%.6f peak_rss_kb=%ld minflt=%ld image=%s absint=%u"
			 " absint_time=%.6f absint_shared=%u search=%u search_time=%.6f"
			 " search_inputs=%llu coarse=%u coarse_proved=%u\n",
			 secs(stats_now() - s->start), secs(s->write_ns), secs(s->max_check),
			 stats_peak_rss_kb(),
			 stats_minflt(), image_name(s->image), s->absint,
			 secs(s->absint_ns), s->absint_shared, s->search, secs(s->search_ns),
			 (unsigned long long)s->search_inputs, s->coarse, s->coarse_proved);
	fputs(line, out);
}
