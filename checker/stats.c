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

/* The line, built without printf: its twelve "%.6f" were 28,000
 * instructions of floating-point formatting a run (callgrind, session
 * 29), in the measured process's wall time. */
struct line {
	char buf[1024];
	size_t n;
};

static void put(struct line *l, const char *s)
{
	l->n = str_append(l->buf, sizeof(l->buf), l->n, s);
}

static void put_u64(struct line *l, const char *key, uint64_t v)
{
	char d[24];

	d[23] = 0;
	put(l, key);
	put(l, u64_digits(d + 23, v));
}

/* NS as seconds with six decimals, rounded to the microsecond (as "%.6f"
 * of NS / 1e9 but for a tie's last digit) */
static void put_secs(struct line *l, const char *key, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);
	char d[32], *p = d + 31;
	unsigned i;

	d[31] = 0;
	for (i = 0; i < 6; i++, us /= 10)
		*--p = (char)('0' + us % 10);
	*--p = '.';
	put(l, key);
	put(l, u64_digits(p, us));
}

/* The line in one write: OUT is stderr, unbuffered, and a write per
 * field cost the measured run ten system calls. */
void stats_write(const struct stats *s, FILE *out)
{
	struct line l = { .n = 0 };
	unsigned i;

	put_u64(&l, "bpf-invcheck-stats: insns=", s->insns);
	put_u64(&l, " checks=", s->checks);
	for (i = 0; i < STAGE_N; i++) {
		put(&l, " ");
		put(&l, stats_stage_name((enum stats_stage)i));
		put_secs(&l, "=", s->ns[i]);
	}
	put_secs(&l, " total=", stats_now() - s->start);
	put_secs(&l, " write=", s->write_ns);
	put_secs(&l, " max_check=", s->max_check);
	put_u64(&l, " peak_rss_kb=", (uint64_t)stats_peak_rss_kb());
	put_u64(&l, " minflt=", (uint64_t)stats_minflt());
	put(&l, " image=");
	put(&l, image_name(s->image));
	put_u64(&l, " absint=", s->absint);
	put_secs(&l, " absint_time=", s->absint_ns);
	put_u64(&l, " absint_shared=", s->absint_shared);
	put_u64(&l, " search=", s->search);
	put_secs(&l, " search_time=", s->search_ns);
	put_u64(&l, " search_inputs=", s->search_inputs);
	put_u64(&l, " coarse=", s->coarse);
	put_u64(&l, " coarse_proved=", s->coarse_proved);
	put(&l, "\n");
	fputs(l.buf, out);
}
