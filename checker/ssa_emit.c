/* ssa_emit.c - the instrumentation's view of the lifter (ssa.h,
 * "instrumentation"): hooks emit SSA into the block being built and read
 * and write registers and ghost variables of the current state. */
#include "ssa_priv.h"

#include <stdlib.h>

#define L(x) ((struct lifter *)(x))

uint32_t ssa_emit_const(struct ssa_lift *l, uint64_t c)
{
	return lift_const(L(l), (int64_t)c);
}

uint32_t ssa_emit_alu(struct ssa_lift *l, enum isa_op op, uint32_t a, uint32_t b)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_ALU, 2);

	v->op = (uint8_t)op;
	v->is64 = true;
	v->size = 8;
	v->args[0] = a;
	v->args[1] = b;
	if (op == ISA_ADD || op == ISA_SUB) {
		struct insn in = { .op = op, .is64 = true };

		lift_ptr_alu(L(l), v->id, &in, a, b);
	}
	return v->id;
}

uint32_t ssa_emit_cmp(struct ssa_lift *l, enum isa_op jop, uint32_t a, uint32_t b)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_CMP, 2);

	v->op = (uint8_t)jop;
	v->is64 = true;
	v->size = 8;
	v->args[0] = a;
	v->args[1] = b;
	return v->id;
}

uint32_t ssa_emit_unary(struct ssa_lift *l, enum isa_op op, unsigned size, uint32_t a)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_UNARY, 1);

	v->op = (uint8_t)op;
	v->is64 = true;
	v->size = (uint8_t)size;
	v->args[0] = a;
	return v->id;
}

uint32_t ssa_emit_select(struct ssa_lift *l, uint32_t c, uint32_t t, uint32_t f)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_SELECT, 4);

	/* SELECT is "args[0] == args[1] ? args[2] : args[3]" */
	v->size = 8;
	v->args[0] = c;
	v->args[1] = lift_const(L(l), 0);
	v->args[2] = f;
	v->args[3] = t;
	return v->id;
}

uint32_t ssa_emit_load(struct ssa_lift *l, uint32_t p, unsigned size)
{
	uint32_t v = lift_load_value(L(l), p, 0, size, false);
	struct ssa_insn *in = lift_value(L(l), v);

	if (in->kind == SSA_LOAD)
		in->mon = true;
	return v;
}

uint32_t ssa_emit_global_addr(struct ssa_lift *l, int ds, uint32_t off)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_ADDR, 0);
	struct insn_ref *r = arena_alloc8(L(l)->a, sizeof(*r));

	r->kind = INSN_REF_GLOBAL;
	r->index = ds;
	r->off = off;
	v->ref = r;
	v->size = 8;
	return v->id;
}

void ssa_emit_assume(struct ssa_lift *l, uint32_t c)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_ASSUME, 1);

	v->args[0] = c;
}

void ssa_emit_assert(struct ssa_lift *l, uint32_t c, unsigned site, uint32_t observe)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_ASSERT, observe ? 2 : 1);

	v->args[0] = c;
	if (observe)
		v->args[1] = observe;
	v->imm = site;
}

uint32_t ssa_emit_insns(struct ssa_lift *l)
{
	struct lifter *lf = L(l);
	uint32_t g;

	if (!lf->hooks || !lf->hooks->count_insns)
		abort();
	g = lf->st->ghost[lf->hooks->nghost];
	if (!lf->blk_steps)
		return g;
	return ssa_emit_alu(l, ISA_ADD, g, lift_const(lf, lf->blk_steps));
}

uint32_t ssa_emit_pkt_written(struct ssa_lift *l)
{
	struct ssa_insn *v = lift_emit(L(l), SSA_PKTW, 0);

	v->size = 8;
	return v->id;
}

uint32_t ssa_reg(struct ssa_lift *l, unsigned r)
{
	return L(l)->st->regs[r];
}

uint32_t ssa_ghost(struct ssa_lift *l, unsigned i)
{
	return L(l)->st->ghost[i];
}

void ssa_set_ghost(struct ssa_lift *l, unsigned i, uint32_t v)
{
	L(l)->st->ghost[i] = v;
}
