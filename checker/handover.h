/* handover.h - a static bpf-invcheck hands a run needing Z3 over to the
 * solver build (implementation: handover.c; docs/architecture.md, "A
 * static binary, and Z3 in its sibling").
 *
 * Where the build can (meson option static), bpf-invcheck is a static
 * executable, position-dependent unless static_pie: no dynamic linker, no
 * libc.so to map and relocate, no self-relocation, 0.8-1.3 ms less per
 * process on the benchmark's machine, about what a small example's checks
 * take. A static binary cannot dlopen libz3 (a second libc in the
 * process), so the first time a check needs Z3 the process executes
 * bpf-invcheck-z3, the same program linked dynamically, installed next to
 * it, with the same arguments: the run starts over there and reports as a
 * dynamic binary would, byte for byte (the pre-passes are deterministic).
 * For that, nothing may be final before the handover: stderr is held in
 * memory until handover_commit() (the progress line, written to the
 * terminal directly, is the one exception), and stdout is only written
 * after it. The handed-over process keeps the run's start (--stats total,
 * --deadline) from the environment variable BPF_INVCHECK_HANDOVER, and
 * removes it.
 */
#ifndef HANDOVER_H
#define HANDOVER_H

#include <stddef.h>
#include <stdint.h>

/* First thing in main(): saves ARGV (kept as is), takes START (stats_now()
 * at main's start) as the run's or takes over the run's start from a
 * static process that handed it over (dynamic build), or holds stderr
 * (static build). */
void handover_init(char **argv, uint64_t start);

/* The run's start, stats_now() clock: this process's main's, or the
 * static process's that handed the run over. */
uint64_t handover_start_ns(void);

/* Output from here on is final: held stderr is written, and no handover
 * can follow (a check needing Z3 then fails, naming why). Idempotent; also
 * run at exit. */
void handover_commit(void);

/* Executes the solver build in this process's place (static build, before
 * handover_commit). Returns only when it cannot, with why in WHY. */
void handover_exec(char *why, size_t n);

#endif
