/* xprog.h - relations between the programs of one struct_ops map: an
 * extension of the spec language (docs/spec-language.md, section 12).
 *
 * A program block's `relate NAME;` makes one placeholder check per selected
 * program (resolution: spec_resolve.c, monitor.h `relation`).
 * xprog_expand() runs after resolution and before the checks: it collects
 * facts from every program of the placeholder's struct_ops map (each lifted
 * and encoded on its own, without a monitor) and turns each placeholder
 * into an ordinary monitor (state, handlers, asserts) that the rest of the
 * pipeline proves, replays and reports like any other check, or into an
 * unknown with the reason (mon_check.unknown) when a fact cannot be
 * collected soundly. Placeholders of programs whose role the relation has
 * no rule for are dropped.
 *
 * Relations:
 *   sched_ext_dsqs  the user DSQ ids (< 2^63) that any callback of the map
 *                   inserts into (scx_bpf_dsq_insert[_vtime], legacy
 *                   scx_bpf_dispatch[_vtime]: every value the id argument
 *                   can take at a reachable call, found by the solver, at
 *                   most XPROG_MAX_IDS) must be created by ops.init (on
 *                   every path where init returns 0, scx_bpf_create_dsq(id)
 *                   returned 0) and drained by ops.dispatch (on every path
 *                   where dispatch moved no task - no pull returned true,
 *                   no insert into SCX_DSQ_LOCAL / LOCAL_ON / GLOBAL - it
 *                   tried scx_bpf_dsq_move_to_local / scx_bpf_consume of
 *                   that id). Checks: INIT.sched_ext_dsqs and
 *                   DISPATCH.sched_ext_dsqs. Unknown when an id cannot be
 *                   enumerated (more than XPROG_MAX_IDS values, an id
 *                   behind a pointer: __scx_bpf_dsq_insert_vtime), when a
 *                   program of the map is not modelled or needs more than
 *                   the loop bound, or when the map has no init or no
 *                   dispatch callback while ids were found.
 */
#ifndef INVCHECK_XPROG_H
#define INVCHECK_XPROG_H

#include "checker.h"
#include "monitor.h"
#include "pipeline.h"

#define XPROG_MAX_IDS 16

bool xprog_relation_known(const char *name);
const char *xprog_relation_names(void);         /* "sched_ext_dsqs" */
/* Can relation NAME be applied to FN? If not, xprog_relation_needs says
 * what it needs. */
bool xprog_relation_applies(const char *name, const struct obj_func *fn);
const char *xprog_relation_needs(const char *name);

/* Fill in (or drop) the placeholders of S; the new monitors live in A.
 * PINS are entry assumptions that hold for every program of the object
 * (kprofile.h: the __SCX_* values); they apply while collecting. Returns 0;
 * solver trouble makes checks unknown, never fails. */
int xprog_expand(const struct loaded *l, struct mon_set *s, const struct check_opts *o,
		 struct mon_expr *const *pins, unsigned npins, struct arena *a);

#endif
