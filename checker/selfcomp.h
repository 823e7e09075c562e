/* selfcomp.h - flow affinity as a two-run property (self-composition):
 * `bpf-invcheck diff --flow-affinity OBJECT` (docs/diff.md).
 *
 * Contract:
 * - Each selected program is run twice on the same inputs (context, packet,
 *   maps, globals, kernel memory, every helper answer) except the results of
 *   bpf_get_prandom_u32, bpf_get_smp_processor_id and
 *   bpf_get_numa_node_id, which are independent between the runs.
 * - DIFF_EQUIVALENT: for every input, the two runs return the same low 32
 *   bits of r0 and make the same redirect calls (bpf_redirect_map,
 *   bpf_redirect, bpf_redirect_peer, bpf_redirect_neigh: in order, with
 *   their scalar arguments: map, key or ifindex, flags), and no loop bound
 *   is reachable. DIFF_DIFFER: an input and two sets of answers, replayed
 *   in the interpreter for both runs, whose exits differ so; the other
 *   helper answers of the two replays agree wherever the question is the
 *   same. Else unknown.
 * - Unknown up front when the program reads per-CPU storage (a per-CPU
 *   map, bpf_this_cpu_ptr / bpf_per_cpu_ptr): its contents depend on the
 *   CPU, and the two runs share every map's contents.
 * - Not compared: other calls, memory stores (a backend written into the
 *   packet for XDP_TX), which also means that a verdict through a tail call
 *   is compared only as the tail call's result.
 * The machinery is diff.c's (diff_run with a diff_policy).
 */
#ifndef INVCHECK_SELFCOMP_H
#define INVCHECK_SELFCOMP_H

#include "diff.h"

int selfcomp_run(const struct loaded *l, const char *path, const char *program,
		 const struct diff_opts *opts, struct diff_report *out);

#endif
