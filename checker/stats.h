/* stats.h - stage times (--stats): where a run's time goes.
 *
 * Stages in pipeline order: load (object_open), decode (insn_decode_object),
 * cfg (cfg_build inside the lift), ssa (the lift without cfg and hooks),
 * instrument (the monitor's hooks during the lift), encode (smt_encode,
 * Z3 context included), solve (every query, the counterexample, its replay,
 * a bound's worst case). Times are CLOCK_MONOTONIC nanoseconds; with
 * --jobs > 1 the per-check stages add up the checks' times, not wall time.
 *
 * The line stats_write() prints (peak_rss_kb: stats_peak_rss_kb()) (one line, to the FILE given, main uses
 * stderr) is the machine-readable format the benchmark reads:
 *   bpf-invcheck-stats: insns=N checks=K load=S decode=S cfg=S ssa=S
 *     instrument=S encode=S solve=S total=S write=S max_check=S peak_rss_kb=N
 *     minflt=N image=W absint=K absint_time=S absint_shared=N search=N search_time=S
 *     search_inputs=N coarse=N coarse_proved=N
 * (seconds with 6 decimals, rounded to the microsecond; total is the wall
 * time from the start of main, plus the time the static executable's
 * entry spent populating the program's pages before libc's start-up
 * (prefault_entry_ns, base.h; session 29);
 * write: the part of total in the run's last write of its output (main's
 * final fflush of stdout: the whole report where it fits the 64 KiB
 * buffer, every example's does), a cost of whoever reads it (a pipe's
 * reader woken: 30-90 us for a 6 KB report to the benchmark's pipe); the
 * benchmark's in-process time is total less write, since the kernel-load
 * process it is compared with prints its result after its own window;
 * minflt: the process's minor page faults so far (getrusage): pages
 * touched for the first time, 11-16 us each on the benchmark's machine,
 * docs/architecture.md "Pages touched"); image: where the program's own
 * pages were populated, entry (the static executable's entry, before
 * libc's start-up), main (prefault_image) or none (base.h);
 * absint: the checks the abstract-interpretation pre-pass proved without
 * Z3, absint_time the time in it, all checks, proved or not; search: the
 * checks whose verdict the concrete search found, without Z3 (a
 * counterexample, or a bound's worst case: its longest path's run);
 * search_time the CPU time of the search (its thread's clock: steady on
 * a loaded machine), all checks, found or not, before Z3 (its wall time
 * is part of solve; a worst-case search after a Z3 verdict is solve
 * time); search_inputs the inputs it ran, all checks; coarse: the solver's
 * coarse queries (smt_prove: large multipliers left free), coarse_proved
 * those that proved their claim, so that no exact query was asked);
 * absint_shared: the checks among absint's proved by the return values
 * of another check's walk, without one of their own (check.c exit_share).
 */
#ifndef INVCHECK_STATS_H
#define INVCHECK_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum stats_stage {
	STAGE_LOAD, STAGE_DECODE, STAGE_CFG, STAGE_SSA, STAGE_INSTRUMENT,
	STAGE_ENCODE, STAGE_SOLVE, STAGE_N
};

struct stats {
	uint64_t ns[STAGE_N];
	uint64_t start;           /* stats_now() at the start of the run */
	uint64_t write_ns;        /* main's final fflush of stdout */
	uint64_t max_check;       /* the slowest check (ns) */
	uint64_t insns;           /* instruction slots of the object's code */
	int image;                /* enum image_populate (base.h): prefault_image's answer */
	unsigned checks;
	unsigned search;          /* checks the concrete search decided (search.h) */
	unsigned absint;          /* checks the pre-pass proved (absint.h) */
	unsigned absint_shared;   /* ... by another check's walk (check.c) */
	uint64_t absint_ns;       /* time in the pre-pass, all checks */
	uint64_t search_ns;       /* time in the concrete search, all checks */
	uint64_t search_inputs;   /* inputs the search ran, all checks */
	unsigned coarse, coarse_proved;   /* smt_prove's coarse queries, all checks */
};

uint64_t stats_now(void);
uint64_t stats_cpu_now(void);   /* the calling thread's CPU time (ns) */
const char *stats_stage_name(enum stats_stage s);
/* Add a check's stage times (CHECK[STAGE_CFG..STAGE_SOLVE]) and its total. */
void stats_add_check(struct stats *s, const uint64_t check[STAGE_N], uint64_t total);
/* A check the pre-pass proved (PROVED; SHARED: by another check's walk,
 * check.c exit_share) or tried, NS in it. */
void stats_add_absint(struct stats *s, bool proved, bool shared, uint64_t ns);
/* Peak and current resident set size of the process in KiB (Linux
 * /proc/self/status VmHWM / VmRSS, which start afresh at exec, unlike
 * getrusage's ru_maxrss; that is the fallback). */
long stats_peak_rss_kb(void);
long stats_rss_kb(void);
long stats_minflt(void);     /* minor page faults of the process so far */
/* Take the load and decode times and the instruction count from L. */
struct loaded;
void stats_loaded(struct stats *s, const struct loaded *l);
void stats_write(const struct stats *s, FILE *out);

#endif
