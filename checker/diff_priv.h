/* diff_priv.h - internal to the regression diff (diff.h): the two sides of
 * one program pair, shared by diff.c (lift, encode, query, confirm the
 * model, report) and diff_env.c (how the calls of the two runs are matched
 * and their answers paired: the shared environment).
 */
#ifndef INVCHECK_DIFF_PRIV_H
#define INVCHECK_DIFF_PRIV_H

#include "diff.h"
#include "checker.h"
#include "smt.h"

struct side {
	const struct loaded *l;
	const char *path;
	struct mon_check c;         /* an empty monitor: the bare program */
	struct ssa_prog *p;
	struct smt_prog *e;
	struct vec calls;           /* uint32_t: SSA_CALL value ids, block order */
	Z3_ast *idx;                /* by value id (calls): how many calls before */
	Z3_ast *cidx;               /* by value id: how many compared calls before */
	struct cex *x;
	struct replay_result rr;
	uint64_t worst;
	bool has_worst;
};

struct pair {
	struct smt *s;
	Z3_context z;
	struct side o, n;
	struct arena *a;
	const struct diff_opts *opts;
	Z3_ast claim;               /* the difference the model shows */
	char reason[512];
};

/* The policy (diff.h): every call paired and compared by default. */
#define POLICY(d, f, v) (!(d)->opts->policy || !(d)->opts->policy->f || (d)->opts->policy->f(v))
#define paired(d, v) POLICY(d, paired, v)
#define compared(d, v) POLICY(d, compared, v)

static inline Z3_ast bvk(struct pair *d, unsigned bits, uint64_t v)
{
	return Z3_mk_unsigned_int64(d->z, v, Z3_mk_bv_sort(d->z, bits));
}

static inline Z3_ast and2(struct pair *d, Z3_ast a, Z3_ast b)
{
	return smt_and(d->s, a, b);
}

static inline Z3_ast or2(struct pair *d, Z3_ast a, Z3_ast b)
{
	Z3_ast t[2] = { a, b };

	return Z3_mk_or(d->z, 2, t);
}

static inline const struct ssa_insn *call_at(const struct side *sd, size_t i)
{
	return sd->p->values[((const uint32_t *)sd->calls.data)[i]];
}

static inline Z3_ast guard_of(const struct side *sd, const struct ssa_insn *v)
{
	return sd->e->guard[v->block];
}

/* diff_env.c: matching the calls of the two runs. */
/* Same callee: the same helper id, or kfuncs of the same name (flavour
 * suffixes ___v2, ___compat ignored). */
bool diff_same_callee(const struct side *a, const struct ssa_insn *v,
			const struct side *b, const struct ssa_insn *w);
/* How many arguments the callee reads (helper prototype, kfunc BTF; 5 when
 * unknown). */
unsigned diff_arity(const struct side *sd, const struct ssa_insn *v);
/* Argument A of V (old) and W (new) equal as one term; NULL: no comparison
 * possible. */
Z3_ast diff_arg_equal(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w,
			unsigned a);
/* The two calls ask the same question (arguments and the memory behind
 * them); NULL where that cannot be expressed. */
Z3_ast diff_same_question(struct pair *d, const struct ssa_insn *v, const struct ssa_insn *w);

/* diff_env.c: the shared environment. */
/* SD's calls in block order and their symbolic indices (sd->idx, cidx);
 * after smt_encode. */
void diff_call_indices(struct pair *d, struct side *sd);
/* Kernel memory loads: the same address and size read the same bytes. */
void diff_pair_kernel_reads(struct pair *d);
/* Assume the shared environment (same question => same answer); returns
 * "the call sequences differ". */
Z3_ast diff_pair_calls(struct pair *d);

#endif
