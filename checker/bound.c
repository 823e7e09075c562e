/* bound.c - the insns counter's static maximum (contract in bound.h). */
#include "bound.h"

#include <stdlib.h>

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

bool bound_static_max(const struct ssa_prog *p, unsigned site, uint64_t *out)
{
	uint64_t *ub = malloc(sizeof(uint64_t) * (p->nvalues ? p->nvalues : 1)), m = 0;
	bool ok = true, any = false;
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
		if (v->kind == SSA_ASSERT && v->imm == site && v->nargs >= 2) {
			any = true;
			if (ub[v->args[1]] == TOP)
				ok = false;
			else if (ub[v->args[1]] > m)
				m = ub[v->args[1]];
		}
	}
	free(ub);
	*out = m;
	return ok && any;
}
