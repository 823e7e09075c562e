/* replay_priv.h - the concrete monitor, internal to the replay (replay.c
 * drives the interpreter, monitor_eval.c evaluates a struct mon_check at the
 * events replay.h defines). Tests may use it to evaluate expressions.
 *
 * Contract:
 * - mon_eval_expr() evaluates one resolved expression (monitor.h) in the
 *   state of struct mon_eval: 64-bit values; `sign` makes < <= > >= / % >>
 *   and in-range signed; x / 0 = 0, x % 0 = x, INT64_MIN / -1 = INT64_MIN,
 *   INT64_MIN % -1 = 0 (signed % follows the dividend, as C); shift amounts
 *   are masked to 0..63 (BPF's LSH / RSH / ARSH, which the instrumentation
 *   emits for << >>); booleans are 0/1. Memory (MON_LOAD) is read through the
 *   interpreter at the event, 0 when no live region holds all of it;
 *   MON_GLOBAL reads the global's region (global_region[map]) at the event,
 *   or the object's initial bytes when the run has none; MON_CTX reads the
 *   entry copy of the context, 0 outside it.
 * - mon_eval_entry / _event / _exit run the handlers of one event in source
 *   order and return false at the first assert or assume that fails
 *   (m->failed, m->site, m->pos say which). Nothing is printed.
 */
#ifndef INVCHECK_REPLAY_PRIV_H
#define INVCHECK_REPLAY_PRIV_H

#include "interp.h"
#include "monitor.h"

enum mon_fail { MON_FAIL_NONE, MON_FAIL_ASSERT, MON_FAIL_ASSUME };

struct mon_eval {
	const struct mon_check *c;
	const struct object *o;
	struct interp *ip;          /* memory at the event (NULL: reads give 0) */
	/* entry values */
	uint64_t pkt, pkt_end;
	const uint8_t *ctx;         /* ctx bytes at entry */
	uint32_t ctx_size;
	const int *global_region;   /* per o->maps: interp region, or -1 (NULL: none) */
	uint64_t *vars;             /* c->nvars */
	uint64_t *counters;         /* c->ncounters */
	/* the event */
	enum spec_event_kind ev;
	uint64_t ret, args[5], insns;
	bool pkt_written;           /* a store into the packet, or a call the
	                             * counterexample marks pkt_written, so far */
	/* the failure, when an event returned false */
	enum mon_fail failed;
	unsigned site;              /* ASSERT: the site */
	struct spec_pos pos;        /* the failing statement (or assume) */
};

uint64_t mon_eval_expr(struct mon_eval *m, const struct mon_expr *e);
/* Entry: state initialisers, the program's assumes, `on entry`. */
bool mon_eval_entry(struct mon_eval *m);
/* A call (ev CALL: counters first, then `on call`) or return (`on return`)
 * of HELPER / KFUNC; m->args, m->ret, m->insns set by the caller. */
bool mon_eval_call(struct mon_eval *m, enum spec_event_kind ev, int helper,
		   int kfunc);
/* Exit: `on exit` handlers, then the bound (insns <= bound, bound_site). */
bool mon_eval_exit(struct mon_eval *m);

#endif
