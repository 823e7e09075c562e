/* bound.c - the insns counter's static maximum (contract in bound.h). */
#include "bound.h"

#include <stdlib.h>
#include <string.h>

#define TOP UINT64_MAX        /* no bound known */

static uint64_t upper(const struct ssa_prog *p, const uint64_t *ub, const struct ssa_insn *v)
{
	uint64_t m = 0, a, b;
	uint32_t i;

	switch (v->kind) {
	case SSA_CONST:
		return (uint64_t)v->imm;
	case SSA_ALU:
		if (v->op != ISA_ADD || !v->is64 || v->nargs != 2)
			return TOP;
		a = ub[v->args[0]];
		b = ub[v->args[1]];
		return a == TOP || b == TOP || a > TOP - 1 - b ? TOP : a + b;
	case SSA_PHI:
		for (i = 0; i < v->nargs; i++)
			if (ub[v->args[i]] > m)
				m = ub[v->args[i]];
		return m;
	case SSA_SELECT:
		a = ub[v->args[2]];
		b = ub[v->args[3]];
		return a > b ? a : b;
	case SSA_UNDEF: case SSA_INPUT: case SSA_FRAME: case SSA_UNARY: case SSA_ADDR:
	case SSA_LOAD: case SSA_STORE: case SSA_ATOMIC: case SSA_LDPKT: case SSA_EXTRACT:
	case SSA_INSERT: case SSA_SLOTLOAD: case SSA_SLOTSTORE: case SSA_CALL: case SSA_HAVOC:
	case SSA_TAILRET: case SSA_CMP: case SSA_ASSUME: case SSA_ASSERT: case SSA_PKTW:
	case SSA_NKINDS:
		break;
	}
	(void)p;
	return TOP;
}

/* UB: every value's unsigned upper bound (TOP: none). */
static uint64_t *upper_all(const struct ssa_prog *p)
{
	uint64_t *ub = malloc(sizeof(uint64_t) * (p->nvalues ? p->nvalues : 1));
	uint32_t i;

	if (!ub)
		abort();
	/* operands have smaller ids (phis: defined in earlier blocks of the
	 * topological order), so one pass in id order suffices */
	for (i = 0; i < p->nvalues; i++) {
		const struct ssa_insn *v = p->values[i];
		bool ordered = true;
		uint32_t k;

		for (k = 0; k < v->nargs; k++)
			ordered &= v->args[k] < i;
		ub[i] = ordered ? upper(p, ub, v) : TOP;
	}
	return ub;
}

/* The maximum over the asserts of SITE; *AT: the first assert that has it. */
static bool site_max(const struct ssa_prog *p, const uint64_t *ub, unsigned site, uint64_t *out,
		     const struct ssa_insn **at)
{
	uint64_t m = 0;
	bool ok = true, any = false;
	uint32_t i;

	*at = NULL;
	for (i = 0; i < p->nvalues; i++) {
		const struct ssa_insn *v = p->values[i];

		if (v->kind != SSA_ASSERT || v->imm != site || v->nargs < 2)
			continue;
		any = true;
		if (ub[v->args[1]] == TOP)
			ok = false;
		else if (!*at || ub[v->args[1]] > m) {
			m = ub[v->args[1]];
			*at = v;
		}
	}
	*out = m;
	return ok && any;
}

bool bound_static_max(const struct ssa_prog *p, unsigned site, uint64_t *out)
{
	uint64_t *ub = upper_all(p);
	const struct ssa_insn *at;
	bool ok = site_max(p, ub, site, out, &at);

	free(ub);
	return ok;
}

bool bound_longest_path(const struct ssa_prog *p, unsigned site, struct arena *a,
			struct bound_path *out)
{
	uint64_t *ub = upper_all(p), top;
	const struct ssa_insn *at;
	struct vec edges = {0};
	uint32_t c;
	bool ok = site_max(p, ub, site, &top, &at);

	memset(out, 0, sizeof(*out));
	/* back from the assert's count: an addition of a constant keeps the
	 * path, a phi's operand with the phi's bound names the incoming edge
	 * (an edge where no phi merges the count: every path there counts
	 * the same) */
	for (c = ok ? at->args[1] : 0; ok;) {
		const struct ssa_insn *v = p->values[c];
		uint32_t i, *e;

		if (v->kind == SSA_CONST)
			break;
		if (v->kind == SSA_ALU && v->nargs == 2 &&
		    p->values[v->args[1]]->kind == SSA_CONST) {
			c = v->args[0];
			continue;
		}
		if (v->kind != SSA_PHI) {
			ok = false;
			break;
		}
		for (i = 0; i < v->nargs && ub[v->args[i]] != ub[c]; i++)
			;
		if (i == v->nargs) {
			ok = false;
			break;
		}
		e = vec_push(a, &edges, sizeof(uint32_t) * 2);
		e[0] = v->block;
		e[1] = i;
		c = v->args[i];
	}
	free(ub);
	if (!ok)
		return false;
	out->top = top;
	out->block = at->block;
	out->nedges = (uint32_t)edges.len;
	out->edges = edges.data;
	return true;
}
