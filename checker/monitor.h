/* monitor.h - resolved invariants: the spec after name resolution, one
 * struct mon_check per (program, invariant). Consumed by the instrumentation
 * (instrument.c: monitors -> SSA ghost state, assume/assert nodes), by the
 * concrete monitor of the replay (replay.c) and by the reports.
 *
 * Contract:
 * - spec_resolve() reads the spec (and what it imports), resolves every name
 *   against the object and the selected programs, and type-checks. Semantic
 *   errors are one diagnostic "FILE:LINE:COL: error: ..." and -EINVAL:
 *   unknown names (helper, ctx field for the program type, global, state,
 *   const, invariant in `check`), type errors, a selector that matches no
 *   program, an import that cannot be read, assignments to non-state names,
 *   a constant that does not fit its state variable.
 * - Every expression is 64-bit. `sign` on BINARY/IN_RANGE says the
 *   comparison, / % >> is signed (an operand has a signed type: a cast to
 *   s8..s64 or a signed state variable; arithmetic on a signed operand is
 *   signed). Division by 0 gives 0 and x % 0 gives x (BPF's rules).
 *   Booleans are 0/1.
 * - Everything lives in the arena given to spec_resolve().
 */
#ifndef INVCHECK_MONITOR_H
#define INVCHECK_MONITOR_H

#include "base.h"
#include "object.h"
#include "spec.h"

enum mon_ekind {
	MON_NUM,       /* num */
	MON_RET,       /* exit: the program's r0; return: the call's r0 */
	MON_ARG,       /* index 1..5: r1..r5 at the call (call and return) */
	MON_PKT,       /* packet start pointer at entry (XDP, tc, socket) */
	MON_PKT_END,   /* packet end pointer at entry */
	MON_PKT_LEN,   /* pkt_end - pkt at entry */
	MON_PKT_WRITTEN, /* bool: the packet may have changed so far on this run
	                  * (a store into it, or a call that may change it) */
	MON_CTX,       /* context field at entry: off, size (zero-extended) */
	MON_GLOBAL,    /* global variable at the event: index = map (o->maps),
	                * datasec = o->datasecs index, off, size (1/2/4/8) */
	MON_STATE,     /* index: the check's state variable */
	MON_INSNS,     /* instructions executed so far (see instrument.h) */
	MON_CALLED,    /* index: the check's counter (calls so far) */
	MON_LOAD,      /* a[0] = pointer; size 1/2/4/8; be: big-endian */
	MON_UNARY,     /* op: enum spec_unop; a[0] */
	MON_BINARY,    /* op: enum spec_binop (all of them; && || => on 0/1
	                * values, no short-circuit needed: no side effects) */
	MON_COND,      /* a[0] ? a[1] : a[2] */
	MON_CAST,      /* type: truncate to its width, sign-extend if signed,
	                * bool: a[0] != 0 */
	MON_IN_SET,    /* a[0] in {a[1] .. a[n-1]} */
	MON_IN_RANGE,  /* a[0] in [a[1], a[2]], signed if sign */
};

struct mon_expr {
	enum mon_ekind kind;
	struct spec_pos pos;
	uint64_t num;
	int index;
	int datasec;
	uint32_t off, size;
	bool be;
	int op;
	enum spec_type type;       /* CAST */
	bool sign;                 /* see above */
	bool is_bool;              /* the value is 0/1 (type bool) */
	struct mon_expr **a;
	unsigned n;
};

enum mon_skind { MON_S_ASSERT, MON_S_ASSUME, MON_S_ASSIGN, MON_S_IF };

struct mon_stmt {
	enum mon_skind kind;
	struct spec_pos pos;
	struct mon_expr *e;        /* every kind: condition / assigned value */
	int var;                   /* ASSIGN: state variable index */
	unsigned site;             /* ASSERT: index into mon_check.asserts */
	struct mon_stmt **then, **els;   /* IF */
	unsigned nthen, nels;
};

/* The calls an event or a counter matches. */
struct mon_calls {
	bool any;                  /* every helper and kfunc call */
	int *helpers;              /* helper ids */
	unsigned nhelpers;
	int *kfuncs;               /* indices in o->kfuncs (flavour suffixes matched) */
	unsigned nkfuncs;
};

struct mon_handler {
	enum spec_event_kind ev;   /* ENTRY, EXIT, CALL (before), RETURN (after) */
	struct spec_pos pos;
	struct mon_calls calls;    /* CALL / RETURN */
	struct mon_stmt **body;
	unsigned n;
};

struct mon_var {
	const char *name;
	struct spec_pos pos;
	enum spec_type type;
	unsigned width;            /* bytes; bool: 1 */
	bool sign;
	struct mon_expr *init;     /* evaluated at entry */
};

struct mon_assert {
	struct spec_pos pos;       /* of the assert statement */
	const char *file;          /* the spec file it is written in */
	const char *msg;           /* the ':' message, or "assertion failed: EXPR" */
	const char *text;          /* the condition, printed canonically; NULL
	                            * for a spec assert with a ':' message */
	unsigned handler;          /* index in mon_check.handlers */
};

struct mon_counter {               /* called(NAME) */
	const char *name;
	struct mon_calls calls;
};

struct mon_check {                  /* one invariant applied to one program */
	int func;                   /* the program (o->funcs index) */
	const char *prog;           /* its name */
	const char *inv;            /* "ipv4_passes", "xdp.never_abort", or
	                             * "bound_insns" for a program's bound */
	const char *name;           /* "xdp_fw.ipv4_passes" (prog.inv) */
	const char *file;           /* where the invariant is written */
	struct spec_pos pos;
	struct mon_var *vars;       /* state */
	unsigned nvars;
	struct mon_handler *handlers;  /* in source order */
	unsigned nhandlers;
	struct mon_assert *asserts;
	unsigned nasserts;
	struct mon_counter *counters;
	unsigned ncounters;
	struct mon_expr **assumes;  /* the program's `assume`s: at entry */
	unsigned nassumes;
	bool has_bound;             /* bound insns <= bound (also an assert site:
	                             * bound_site, checked at every exit) */
	uint64_t bound;
	unsigned bound_site;
	bool uses_insns;            /* insns or a bound appears */
	/* extension (docs/spec-language.md, section 12): `relate NAME;` makes a
	 * placeholder with relation = NAME and no handlers; xprog_expand()
	 * (xprog.h) fills it in from the other programs of its struct_ops map,
	 * or sets `unknown`. */
	const char *relation;
	bool expanded;              /* xprog_expand() filled the placeholder in
	                             * (check_run refuses one it did not) */
	const char *unknown;        /* non-NULL: not checked, the verdict is
	                             * unknown with this reason */
	const char *note;           /* a note for the report (kprofile.h), or NULL */
};

struct mon_set {
	struct mon_check *checks;   /* by program (selection order), then source order */
	unsigned n;
};

struct resolve_opts {
	const char *const *pack_dirs;   /* search path for `import "NAME"` */
	unsigned npack_dirs;
	const int *progs;               /* programs selected by --program (NULL: all) */
	int nprogs;
	/* if set, called with every spec file's text as it is read (the root,
	 * then each import once): --cache hashes them (cache.h) */
	void (*on_text)(void *arg, const char *path, const char *text, size_t len);
	void *text_arg;
};

/* Parse SPEC_PATH (and its imports) and resolve it against O. */
int spec_resolve_file(const char *spec_path, const struct object *o,
		      const struct resolve_opts *opts, struct arena *a,
		      struct diag *d, struct mon_set **out);
/* The same for a spec already parsed (tests). */
int spec_resolve(const struct spec *s, const struct object *o,
		 const struct resolve_opts *opts, struct arena *a,
		 struct diag *d, struct mon_set **out);

/* The spec's operators on 64-bit values, the one definition that constant
 * folding (spec_expr.c) and the concrete monitor (monitor_eval.c) use:
 * x / 0 = 0, x % 0 = x, INT64_MIN / -1 = INT64_MIN, shifts masked to 0..63,
 * comparisons, / % >> signed when SIGN, booleans 0/1. */
uint64_t mon_binop_eval(enum spec_binop op, bool sign, uint64_t x, uint64_t y);
bool mon_less(bool sign, uint64_t x, uint64_t y);

/* ---- monitor_eval.c: one walk of a program for several checks --------
 * A check whose only handlers are `on exit` asserts of ret, constants and
 * operators (no state, counters, bound, reads or assumes) is decided by
 * the program's return values alone (mon_ret_only); with a complete walk
 * of another check of the same program under the same program assumes
 * (mon_same_assumes) that restricts no run itself (mon_restricts_none:
 * no `assume` in its handlers), every ret its runs may return is one the
 * other check's runs return (check.c, "exit_share"). */
bool mon_ret_only(const struct mon_check *c);
bool mon_restricts_none(const struct mon_check *c);
bool mon_same_assumes(const struct mon_check *a, const struct mon_check *b);
/* C's `on exit` asserts all hold of a run that returns RET (C
 * mon_ret_only: the concrete monitor's own evaluation). */
bool mon_ret_holds(const struct mon_check *c, uint64_t ret);

/* Does call instruction (helper id HELPER >= 0, or kfunc index KFUNC >= 0)
 * match C? */
bool mon_calls_match(const struct mon_calls *c, int helper, int kfunc);

/* ---- spec_ctx.c: what resolution knows about program types and calls --- */
struct mon_ctx_field {             /* a scalar field of a context struct */
	const char *name;          /* "ingress_ifindex", "cb0", "di" */
	uint32_t off, size;        /* bytes */
	bool ptr;                  /* data, data_end, data_meta: a packet pointer */
};

/* The context fields of program type T (struct xdp_md, struct __sk_buff,
 * x86-64 struct pt_regs for kprobes), or NULL with *N = 0 when v1 knows
 * none. pt_regs fields have two names: uapi "rdi" and the kernel's "di". */
const struct mon_ctx_field *mon_ctx_fields(enum bpf_prog_type t, unsigned *n);
/* Does a program of type T get a packet (pkt, pkt_end, pkt_len)? */
bool mon_prog_has_pkt(enum bpf_prog_type t);
/* libbpf's name of T ("xdp", "sched_cls"), "unknown" if it has none. */
const char *mon_prog_type_name(enum bpf_prog_type t);
/* Does kfunc symbol SYM match NAME: equal, or NAME followed by "___" and
 * any suffix (libbpf's flavours)? */
bool mon_kfunc_matches(const char *sym, const char *name);

#endif
