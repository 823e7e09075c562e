/* instrument.h - monitors into the SSA IR.
 *
 * instrument_lift() lifts the program of check C with the lift's hooks
 * (ssa.h, "instrumentation") set so that the check's monitor becomes part of
 * the IR: state variables and called() counters are ghost variables; at
 * entry the state initialisers, the program's assumes and the `on entry`
 * handlers; at each helper/kfunc call the counters of the calls it matches
 * and the `on call` handlers (before) and `on return` handlers (after); at
 * each exit the `on exit` handlers and, for a bound, the assert
 * insns <= bound (site c->bound_site, observing insns). Statements under
 * `if` run under a path condition: assignments become selects, assert and
 * assume conditions become `!pc || cond`. Each SSA_ASSERT's imm is its
 * site (mon_check.asserts index).
 *
 * Entry values (pkt, pkt_end, ctx.FIELD) are loads from the context in
 * block 0, which dominates every event. The packet pointers are the
 * context's data / data_end fields (xdp_md: 0 / 4, __sk_buff: 76 / 80).
 */
#ifndef INVCHECK_INSTRUMENT_H
#define INVCHECK_INSTRUMENT_H

#include "monitor.h"
#include "pipeline.h"
#include "ssa.h"

int instrument_lift(const struct loaded *l, const struct mon_check *c,
		    const struct ssa_opts *opts, struct arena *a, struct diag *d,
		    struct ssa_prog **out);

/* True when C's hooks place nothing in a lift of its program but what
 * every such check's place (the ghosts' zero, the entry's packet loads of
 * its program type): no state, counters, assumes, bound or insns, and
 * handlers `on call` / `on return` only, none of `any` call, none reading
 * a ctx field (loaded at entry), none matching a call instruction of the
 * object, which has no callx. instrument_lift gives every such check of
 * one program the same IR for the same options (check.c shares it). */
bool instrument_inert(const struct loaded *l, const struct mon_check *c);
/* Offsets of the packet pointers in the context of program type T; false
 * for types without a packet. */
bool instrument_pkt_fields(enum bpf_prog_type t, uint32_t *data, uint32_t *data_end,
			   uint32_t *data_meta);

#endif
