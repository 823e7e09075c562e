/* search.h - concrete search for counterexamples before Z3 (issue 7).
 *
 * Contract:
 * - search_run() builds inputs (struct cex, replay.h) for check C itself,
 *   runs each through the interpreter to learn the calls and loads it
 *   makes, and replays the result with the concrete monitor (replay_run).
 *   The first input whose replay ends with REPLAY_ASSERT_FAILED is made
 *   simpler (a shorter packet, bytes and answers set to 0 where that
 *   still fails the same assert) and returned: *OUT in arena A, its site
 *   the failing assert. The caller replays it once more (check.c: the
 *   same rule as for a counterexample from a Z3 model).
 * - Every input stays inside what the encoding allows (smt.h, smt_mem.c,
 *   models.h): the packet at SMT_PKT_BASE + SMT_PKT_HEADROOM with
 *   data_meta = data, the context's packet fields as u32, globals from the
 *   object's bytes (the `__SCX_*` pins of the check's assumes applied),
 *   helper and kfunc results inside their model's range (lookups: an
 *   array entry when the key is below max_entries, else NULL; other maps:
 *   the same key's entry, a new one at SMT_MAP_BASE(m) + j * stride, or
 *   NULL; never more entries than max_entries), calls write nothing (a
 *   written argument's bytes are fresh in the model: the old ones are one
 *   choice), bpf_tail_call not taken, kernel loads only at kernel
 *   addresses or NULL plus less than 64 KiB. Anything else (a helper that
 *   returns another map's value, a lookup of global data, ...) ends the
 *   search without a result: Z3 decides.
 * - Deterministic: no randomness, the same inputs in the same order for
 *   the same object and check, so reports are byte-identical across runs
 *   and --jobs values. At most SEARCH_BUDGET inputs (then minimisation).
 * - How inputs are chosen: an all-zero and a patterned input (distinct
 *   bytes) with an empty packet first, then the spec's own conditions
 *   (`if` and assume conditions: pkt_len >= N, u8/be16/...(pkt + K) ==
 *   V, (... & MASK) == V, ctx.FIELD == V) written into the input, the
 *   other choice of each call (lookup hit / miss, error / success), and,
 *   for each branch whose other side was not run yet, the input with the
 *   branch's operand replaced where it occurs (packet bytes in either
 *   byte order, map entries, helper results, kernel loads) by the other
 *   operand (and +-1), or the packet length set to reach a bound check.
 */
#ifndef INVCHECK_SEARCH_H
#define INVCHECK_SEARCH_H

#include "monitor.h"
#include "pipeline.h"
#include "replay.h"

#define SEARCH_BUDGET 96u
/* A bound's worst case (check_worst.c check_searched_worst): a run of the DAG's
 * longest path takes a branch right at every turn (xdp_fw's: 443 inputs);
 * the search failing costs a Z3 context and a worst-case search in it,
 * 20-100x the time of these inputs. */
#define SEARCH_WORST_BUDGET 512u

/* True with *OUT (site: the failing assert) when an input was found;
 * *RUNS: the inputs tried (minimisation included). C must not have a
 * bound (its report needs the worst case). At most BUDGET inputs before
 * the minimisation. */
bool search_run_budget(const struct loaded *l, const struct mon_check *c, unsigned budget,
		       struct arena *a, struct cex **out, unsigned *runs);
/* A bound's longest path as branch decisions, in the order a run meets
 * them (check_worst.c worst_guide): each try that leaves the path at one of them
 * has that branch flipped first (its candidates go to the front of the
 * queue), before the other sides the search tries anyway. Only the order
 * of the inputs changes. */
struct search_step {
	int sec;
	uint32_t slot;                 /* the conditional jump */
	bool taken;
};
struct search_guide {
	const struct search_step *steps;
	unsigned n;
};
/* search_run_budget with GUIDE (NULL: none) */
bool search_run_guided(const struct loaded *l, const struct mon_check *c, unsigned budget,
		       const struct search_guide *guide, struct arena *a, struct cex **out,
		       unsigned *runs);
/* search_run_budget with SEARCH_BUDGET */
bool search_run(const struct loaded *l, const struct mon_check *c, struct arena *a,
		struct cex **out, unsigned *runs);

#endif
