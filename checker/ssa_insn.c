/* ssa_insn.c - the SSA lift of one instruction: registers and stack slots
 * in l->st are advanced, instructions are emitted into the block being
 * built. Stack accesses at constant offsets from a frame's r10 become slot
 * reads and writes; everything else is memory. */
#include "ssa_priv.h"

#include "models.h"


#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lift_unsupported(struct lifter *l, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!l->p->unsupported)
		l->p->unsupported = arena_strdup(l->a, buf);
}

const struct insn_ref ssa_noref;

static uint32_t ptr_hash(uint32_t v)
{
	return v * 0x9e3779b1u;
}

struct ptrinfo lift_ptr_rec(const struct lifter *l, uint32_t v)
{
	struct ptrinfo r = { .kind = ((const uint8_t *)l->pkind.data)[v] };
	uint32_t h;

	for (h = ptr_hash(v) & l->ptab_mask; l->ptab[h].id != v; h = (h + 1) & l->ptab_mask)
		if (!l->ptab[h].id) {
			r.kind = PTR_MIXED;   /* no record (cannot happen): not resolved */
			return r;
		}
	r.frame = l->ptab[h].frame;
	r.off = l->ptab[h].off;
	return r;
}

/* Double the pointer table (initially the scratch's 64 entries). */
static void ptab_grow(struct lifter *l)
{
	uint32_t n = (l->ptab_mask + 1) * 2, i, h;
	struct ptrent *t = calloc_big(n, sizeof(*t));

	for (i = 0; i <= l->ptab_mask; i++) {
		if (!l->ptab[i].id)
			continue;
		for (h = ptr_hash(l->ptab[i].id) & (n - 1); t[h].id; h = (h + 1) & (n - 1))
			;
		t[h] = l->ptab[i];
	}
	lift_free(l, l->ptab);
	l->ptab = t;
	l->ptab_mask = n - 1;
}

/* A value's record is kept once made (its kind byte says whether it is
 * read); value 0, UNDEF, is never a pointer, so id 0 marks an empty slot. */
void lift_ptr_set(struct lifter *l, uint32_t v, struct ptrinfo pi)
{
	uint32_t h;

	((uint8_t *)l->pkind.data)[v] = pi.kind;
	if (pi.kind == PTR_NONE)
		return;
	if ((l->nptab + 1) * 2 > l->ptab_mask)
		ptab_grow(l);
	for (h = ptr_hash(v) & l->ptab_mask; l->ptab[h].id && l->ptab[h].id != v;
	     h = (h + 1) & l->ptab_mask)
		;
	if (!l->ptab[h].id)
		l->nptab++;
	l->ptab[h].id = v;
	l->ptab[h].frame = pi.frame;
	l->ptab[h].off = pi.off;
}

static uint32_t const_hash(int64_t c)
{
	return (uint32_t)(((uint64_t)c * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Double the constants' table (initially the scratch's 64 slots). */
static void ctab_grow(struct lifter *l)
{
	uint32_t n = (l->ctab_mask + 1) * 2, i, h;
	uint32_t *t = calloc_big(n, sizeof(*t));
	const uint32_t *ids = l->consts.data;

	for (i = 0; i < l->consts.len; i++) {
		for (h = const_hash(lift_value(l, ids[i])->imm) & (n - 1); t[h]; h = (h + 1) & (n - 1))
			;
		t[h] = ids[i];
	}
	lift_free(l, l->ctab);
	l->ctab = t;
	l->ctab_mask = n - 1;
}

/* Half of a lifted program's values were constants (the generated loop
 * programs: 23,313 of 43,305 at 10k instructions, with 7 distinct
 * immediates): one value per distinct constant instead. A constant is
 * defined everywhere (ssa_verify's check_use, absint's consts_everywhere,
 * the encoder's smt_use), so where it is placed is only a home; the entry
 * block dominates every use. */
uint32_t lift_const(struct lifter *l, int64_t c)
{
	struct ssa_insn *in;
	uint32_t h, id;

	for (h = const_hash(c) & l->ctab_mask; (id = l->ctab[h]); h = (h + 1) & l->ctab_mask)
		if (lift_value(l, id)->imm == c)
			return id;
	/* a new constant: the table grown first if it would be over half
	 * full (then C's slot is found again) */
	if ((l->consts.len + 1) * 2 > (size_t)l->ctab_mask) {
		ctab_grow(l);
		for (h = const_hash(c) & l->ctab_mask; l->ctab[h]; h = (h + 1) & l->ctab_mask)
			;
	}
	in = lift_new_value(l, SSA_CONST, 0);
	in->imm = c;
	in->size = 8;
	in->block = 0;
	in->frame = 0;
	l->ctab[h] = in->id;
	*(uint32_t *)lift_push(l, &l->consts, sizeof(uint32_t)) = in->id;
	return in->id;
}

void lift_place_consts(struct lifter *l)
{
	struct ssa_block *b0 = l->p->nblocks ? l->p->blocks[0] : NULL;
	const uint32_t *ids = l->consts.data;
	struct ssa_insn **ins;
	uint32_t at = 0, i, n = (uint32_t)l->consts.len;

	if (b0 && n) {
		ins = arena_alloc8_unzeroed(l->a, sizeof(*ins) * (b0->ninsns + n));  /* all written below */
		while (at < b0->ninsns &&
		       (b0->insns[at]->kind == SSA_INPUT || b0->insns[at]->kind == SSA_FRAME))
			at++;
		memcpy(ins, b0->insns, sizeof(*ins) * at);
		for (i = 0; i < n; i++)
			ins[at + i] = lift_value(l, ids[i]);
		memcpy(ins + at + n, b0->insns + at, sizeof(*ins) * (b0->ninsns - at));
		b0->insns = ins;
		b0->ninsns += n;
	}
	lift_free(l, l->ctab);
	l->ctab = NULL;
	l->ctab_mask = 0;
	lift_vec_free(l, &l->consts);
}

/* ---- stack slots ------------------------------------------------------- */

/* Depth index of frame id F in the current state, or -1. */
static int frame_index(struct lifter *l, uint16_t f)
{
	uint32_t i;

	for (i = 0; i < l->st->depth; i++)
		if (l->st->fr[i].id == f)
			return (int)i;
	return -1;
}

/* stack_loc of a value with a pointer record (its kind not PTR_NONE) */
static int stack_loc_rec(struct lifter *l, uint32_t v, int16_t off, unsigned size,
			 int *fi, unsigned *slot, unsigned *byte)
{
	struct ptrinfo pi = lift_ptr_rec(l, v);
	int64_t o;

	if (pi.kind == PTR_MIXED) {
		lift_unsupported(l, "insn %u: access through a pointer that is a stack pointer on some paths only",
				 l->slot);
		return -1;
	}
	*fi = frame_index(l, pi.frame);
	if (*fi < 0) {
		lift_unsupported(l, "insn %u: access to the stack of a function that has returned", l->slot);
		return -1;
	}
	if (pi.kind == PTR_FPDYN)
		return 2;
	o = (int64_t)pi.off + off + ISA_STACK_SIZE;
	if (o < 0 || o + size > ISA_STACK_SIZE) {
		lift_unsupported(l, "insn %u: stack access out of bounds (r10%+lld)", l->slot,
			    (long long)(o - ISA_STACK_SIZE));
		return -1;
	}
	*slot = (unsigned)(o / 8);
	*byte = (unsigned)(o % 8);
	if (*byte + size > 8) {
		lift_unsupported(l, "insn %u: stack access crossing an 8-byte slot", l->slot);
		return -1;
	}
	return 1;
}

/* Where value V + OFF (SIZE bytes) points: 0 = not the stack; 1 = a
 * constant stack slot (*fi, *slot, *byte set); 2 = frame *fi at a variable
 * offset; -1 = the stack in a way the lift does not model (reported as
 * unsupported). Most values are no stack pointer: that test inline, the
 * rest a call. */
static inline int stack_loc(struct lifter *l, uint32_t v, int16_t off, unsigned size,
			    int *fi, unsigned *slot, unsigned *byte)
{
	if (((const uint8_t *)l->pkind.data)[v] == PTR_NONE)
		return 0;
	return stack_loc_rec(l, v, off, size, fi, slot, byte);
}

/* A load at a variable offset into frame FI: SLOTLOAD over all its slots. */
static uint32_t slot_load_dyn(struct lifter *l, int fi, uint32_t addr, int16_t off,
			      unsigned size, bool sx)
{
	struct ssa_insn *v = lift_emit(l, SSA_SLOTLOAD, 1 + SSA_SLOTS);
	unsigned s;

	v->args[0] = addr;
	for (s = 0; s < SSA_SLOTS; s++)
		v->args[1 + s] = l->st->fr[fi].slots[s];
	v->imm = off;
	v->size = (uint8_t)size;
	v->sx = sx;
	v->tframe = (uint16_t)l->st->fr[fi].id;
	return v->id;
}

/* A store at a variable offset into frame FI: every slot gets a SLOTSTORE
 * (the slot, updated where the store's bytes overlap it). */
static void slot_store_dyn(struct lifter *l, int fi, uint32_t addr, int16_t off,
			   unsigned size, uint32_t val)
{
	unsigned s;

	for (s = 0; s < SSA_SLOTS; s++) {
		struct ssa_insn *v = lift_emit(l, SSA_SLOTSTORE, 3);

		v->args[0] = l->st->fr[fi].slots[s];
		v->args[1] = addr;
		v->args[2] = val;
		v->imm = off;
		v->size = (uint8_t)size;
		v->tframe = (uint16_t)l->st->fr[fi].id;
		v->tslot = (uint16_t)s;
		lift_slot_set(l, fi, s, v->id);
	}
}

static uint32_t slot_read(struct lifter *l, int fi, unsigned s, unsigned byte,
			  unsigned size, bool sx)
{
	uint32_t v = l->st->fr[fi].slots[s];
	struct ssa_insn *in;

	if (size == 8)
		return v;
	in = lift_emit(l, SSA_EXTRACT, 1);
	in->args[0] = v;
	in->imm = byte;
	in->size = (uint8_t)size;
	in->sx = sx;
	return in->id;
}

static void slot_write(struct lifter *l, int fi, unsigned s, unsigned byte,
		       unsigned size, uint32_t v)
{
	struct ssa_insn *in;

	if (size == 8) {
		lift_slot_set(l, fi, s, v);
		return;
	}
	in = lift_emit(l, SSA_INSERT, 2);
	in->args[0] = l->st->fr[fi].slots[s];
	in->args[1] = v;
	in->imm = byte;
	in->size = (uint8_t)size;
	lift_slot_set(l, fi, s, in->id);
}

/* ---- instructions ------------------------------------------------------ */

void lift_ptr_alu_rec(struct lifter *l, uint32_t v, const struct insn *in,
		      uint32_t a, uint32_t b)
{
	struct ptrinfo pa = lift_ptr(l, a), pb = lift_ptr(l, b), pv = { .kind = PTR_NONE };
	int64_t c;

	if (!in->is64 || (pa.kind == PTR_NONE && pb.kind == PTR_NONE))
		return;
	if (pa.kind == PTR_MIXED || pb.kind == PTR_MIXED) {
		pv.kind = PTR_MIXED;
		lift_ptr_set(l, v, pv);
		return;
	}
	if (pa.kind != PTR_NONE && pb.kind != PTR_NONE)
		return; /* pointer - pointer is a number */
	pv.kind = PTR_FPDYN;
	pv.frame = pa.kind != PTR_NONE ? pa.frame : pb.frame;
	if (pa.kind == PTR_FP && lift_is_const(l, b, &c) && (in->op == ISA_ADD || in->op == ISA_SUB)) {
		int64_t off = pa.off + (in->op == ISA_ADD ? c : -c);

		if (off >= INT32_MIN && off <= INT32_MAX) {
			pv.kind = PTR_FP;
			pv.off = (int32_t)off;
		}
	} else if (pb.kind == PTR_FP && in->op == ISA_ADD && lift_is_const(l, a, &c)) {
		pv.kind = PTR_FP;
		pv.off = (int32_t)(pb.off + c);
	}
	lift_ptr_set(l, v, pv);
}

/* Constant folding of ALU operations on two constants (exact BPF rules:
 * 32-bit results zero-extended, shifts masked, x / 0 = 0, x % 0 = x). The
 * signed operations are left to the encoder. Returns false if not folded. */
static bool fold_alu(enum isa_op op, bool is64, uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t m = is64 ? ~0ull : 0xffffffffull, x = a & m, y = b & m, r;
	unsigned sh = (unsigned)(y & (is64 ? 63 : 31));

	switch ((int)op) { /* the foldable subset of the ALU operations */
	case ISA_ADD: r = x + y; break;
	case ISA_SUB: r = x - y; break;
	case ISA_MUL: r = x * y; break;
	case ISA_DIV: r = y ? x / y : 0; break;
	case ISA_MOD: r = y ? x % y : x; break;
	case ISA_OR: r = x | y; break;
	case ISA_AND: r = x & y; break;
	case ISA_XOR: r = x ^ y; break;
	case ISA_LSH: r = x << sh; break;
	case ISA_RSH: r = x >> sh; break;
	case ISA_MOV: r = y; break;
	default:
		return false;
	}
	*out = r & m;
	return true;
}

static void lift_alu(struct lifter *l, const struct insn *in)
{
	int64_t ca = 0, cb = 0;
	uint64_t folded;
	uint32_t a = l->st->regs[in->dst], b;
	struct ssa_insn *v;

	if (in->op == ISA_MOV) {
		if (!in->srcreg) {
			l->st->regs[in->dst] = lift_const(l, in->is64 ? in->imm : (int64_t)(uint32_t)in->imm);
			return;
		}
		if (in->is64) {
			l->st->regs[in->dst] = l->st->regs[in->src];
			return;
		}
	}
	b = lift_operand(l, in);
	if ((in->op == ISA_MOV || lift_is_const(l, a, &ca)) && lift_is_const(l, b, &cb) &&
	    fold_alu(in->op, in->is64, (uint64_t)ca, (uint64_t)cb, &folded)) {
		l->st->regs[in->dst] = lift_const(l, (int64_t)folded);
		return;
	}
	v = lift_emit(l, SSA_ALU, 2);
	v->op = (uint8_t)in->op;
	v->is64 = in->is64;
	v->size = in->is64 ? 8 : 4;
	v->args[0] = a;
	v->args[1] = b;
	lift_ptr_alu(l, v->id, in, a, b);
	l->st->regs[in->dst] = v->id;
}

static void lift_unary(struct lifter *l, const struct insn *in)
{
	struct ssa_insn *v;
	uint32_t a = in->op == ISA_MOVSX ? l->st->regs[in->src] : l->st->regs[in->dst];

	v = lift_emit(l, SSA_UNARY, 1);
	v->op = (uint8_t)in->op;
	v->is64 = in->is64;
	v->size = in->size;
	v->args[0] = a;
	l->st->regs[in->dst] = v->id;
}

static void lift_lddw(struct lifter *l, const struct insn *in)
{
	struct ssa_insn *v;

	if (in->ref.kind == INSN_REF_NONE) {
		l->st->regs[in->dst] = lift_const(l, (int64_t)in->imm64);
		return;
	}
	v = lift_emit(l, SSA_ADDR, 0);
	v->ref = &in->ref;
	v->imm = (int64_t)in->imm64;
	v->size = 8;
	l->st->regs[in->dst] = v->id;
}

uint32_t lift_load_value(struct lifter *l, uint32_t base, int16_t off, unsigned size, bool sx)
{
	unsigned s, byte;
	int fi, r = stack_loc(l, base, off, size, &fi, &s, &byte);
	struct ssa_insn *v;

	if (r == 1)
		return slot_read(l, fi, s, byte, size, sx);
	if (r == 2)
		return slot_load_dyn(l, fi, base, off, size, sx);
	v = lift_emit(l, SSA_LOAD, 1);
	v->args[0] = base;
	v->imm = off;
	v->size = (uint8_t)size;
	v->sx = sx;
	return v->id;
}

static void lift_load(struct lifter *l, const struct insn *in)
{
	l->st->regs[in->dst] = lift_load_value(l, l->st->regs[in->src], in->off, in->size,
					       in->op == ISA_LDXSX);
}

static void lift_store(struct lifter *l, const struct insn *in)
{
	uint32_t base = l->st->regs[in->dst];
	uint32_t val = in->op == ISA_ST ? lift_const(l, in->imm) : l->st->regs[in->src];
	unsigned s, byte;
	int fi, r = stack_loc(l, base, in->off, in->size, &fi, &s, &byte);
	struct ssa_insn *v;

	if (r == 1) {
		slot_write(l, fi, s, byte, in->size, val);
		return;
	}
	if (r == 2) {
		slot_store_dyn(l, fi, base, in->off, in->size, val);
		return;
	}
	v = lift_emit(l, SSA_STORE, 2);
	v->args[0] = base;
	v->args[1] = val;
	v->imm = in->off;
	v->size = in->size;
}

static uint32_t alu2(struct lifter *l, enum isa_op op, bool is64, uint32_t a, uint32_t b)
{
	struct ssa_insn *v = lift_emit(l, SSA_ALU, 2);

	v->op = (uint8_t)op;
	v->is64 = is64;
	v->size = is64 ? 8 : 4;
	v->args[0] = a;
	v->args[1] = b;
	return v->id;
}

/* An atomic on a stack slot is a read-modify-write of the slot value. */
static void lift_stack_atomic(struct lifter *l, const struct insn *in, int fi,
			      unsigned s, unsigned byte)
{
	static const enum isa_op alu_of[ISA_NATOMICS] = {
		[ISA_ATOMIC_ADD] = ISA_ADD, [ISA_ATOMIC_OR] = ISA_OR,
		[ISA_ATOMIC_AND] = ISA_AND, [ISA_ATOMIC_XOR] = ISA_XOR,
	};
	bool is64 = in->size == 8;
	uint32_t old = slot_read(l, fi, s, byte, in->size, false);
	uint32_t src = l->st->regs[in->src], nv;
	struct ssa_insn *sel;

	switch ((enum isa_atomic)in->aop) {
	case ISA_ATOMIC_ADD: case ISA_ATOMIC_OR: case ISA_ATOMIC_AND: case ISA_ATOMIC_XOR:
		nv = alu2(l, alu_of[in->aop], is64, old, src);
		break;
	case ISA_ATOMIC_XCHG:
		nv = src;
		break;
	case ISA_ATOMIC_CMPXCHG:
		sel = lift_emit(l, SSA_SELECT, 4);
		sel->size = in->size;
		sel->args[0] = old;
		sel->args[1] = l->st->regs[0];
		sel->args[2] = src;
		sel->args[3] = old;
		nv = sel->id;
		break;
	case ISA_NATOMICS:
	default:
		abort();
	}
	slot_write(l, fi, s, byte, in->size, nv);
	if (in->aop == ISA_ATOMIC_CMPXCHG)
		l->st->regs[0] = old;
	else if (in->fetch)
		l->st->regs[in->src] = old;
}

static void lift_atomic(struct lifter *l, const struct insn *in)
{
	uint32_t base = l->st->regs[in->dst];
	unsigned s, byte;
	int fi, r = stack_loc(l, base, in->off, in->size, &fi, &s, &byte);
	struct ssa_insn *v;

	if (r == 1) {
		lift_stack_atomic(l, in, fi, s, byte);
		return;
	}
	if (r == 2) {
		lift_unsupported(l, "insn %u: atomic operation on the stack at a variable offset", l->slot);
		return;
	}
	v = lift_emit(l, SSA_ATOMIC, 3);
	v->args[0] = base;
	v->args[1] = l->st->regs[in->src];
	v->args[2] = l->st->regs[0];
	v->imm = in->off;
	v->size = in->size;
	v->op = in->aop;
	v->fetch = in->fetch;
	if (in->aop == ISA_ATOMIC_CMPXCHG)
		l->st->regs[0] = v->id;
	else if (in->fetch)
		l->st->regs[in->src] = v->id;
}

static void lift_ldpkt(struct lifter *l, const struct insn *in)
{
	struct ssa_insn *v = lift_emit(l, SSA_LDPKT, 2);
	int r;

	/* An out-of-bounds legacy packet load ends the program with r0 = 0;
	 * that path is not in the IR yet, so results would be unsound. */
	lift_unsupported(l, "insn %u: legacy packet load (LD_ABS/LD_IND): its out-of-bounds exit is not modelled",
		    l->slot);
	v->args[0] = l->st->regs[6];
	v->args[1] = in->op == ISA_LDIND ? l->st->regs[in->src] : 0;
	v->imm = in->imm;
	v->size = in->size;
	for (r = 1; r <= 5; r++)
		l->st->regs[r] = 0;
	l->st->regs[0] = v->id;
}

/* Helpers and kfuncs. A pointer argument into the stack makes the slots from
 * it up to r10 memory operands of the call. Afterwards the bytes the call
 * may write get fresh values: none for an argument the helper model says it
 * only reads; the bytes [ptr, ptr + size) for a written argument of known
 * size (a constant size argument); every slot up to r10 otherwise (unknown
 * helpers and kfuncs, pointers of unknown size). */
static const struct helper_model *call_model(const struct insn *in)
{
	return in->ref.kind == INSN_REF_HELPER ? model_helper((int)in->imm) : NULL;
}

static bool runs_callback(const struct insn *in)
{
	const struct helper_model *m = call_model(in);
	unsigned a;

	if (!m || in->imm == BPF_FUNC_loop || in->imm == BPF_FUNC_timer_set_callback)
		return false;
	for (a = 0; a < 5; a++)
		if (m->arg[a] == MODEL_ARG_FUNC)
			return true;
	return false;
}

/* Bytes argument ARGNO (1-based) may write: 0 none, -1 unknown. */
static int64_t written_size(struct lifter *l, const struct insn *in, unsigned argno)
{
	const struct helper_model *m = call_model(in);
	unsigned a = argno - 1;
	int64_t c;

	if (in->ref.kind == INSN_REF_KFUNC)
		return object_kfunc_written(l->p->o, in->ref.index, argno);
	if (!m)
		return -1;
	switch ((enum model_arg)m->arg[a]) {
	case MODEL_ARG_READ: case MODEL_ARG_KEY: case MODEL_ARG_VALUE:
	case MODEL_ARG_SCALAR: case MODEL_ARG_MAP: case MODEL_ARG_CTX: case MODEL_ARG_FUNC:
		return 0;
	case MODEL_ARG_WRITE:
		if (m->size_arg[a] && lift_is_const(l, l->st->regs[m->size_arg[a]], &c) &&
		    c > 0 && c <= ISA_STACK_SIZE)
			return c;
		if (!m->size_arg[a] && m->size[a])
			return m->size[a];
		return -1;
	case MODEL_ARG_PTR:
		return -1;
	}
	return -1;
}

/* Give the written bytes of MA fresh values (HAVOC, INSERT for a partly
 * written slot); SIZE -1: every slot from the pointer up to r10. */
static void havoc_slots(struct lifter *l, struct ssa_memarg *ma, uint32_t call, int64_t size)
{
	int fi = frame_index(l, ma->frame);
	int64_t lo = ISA_STACK_SIZE + ma->off, hi = size < 0 ? ISA_STACK_SIZE : lo + size;
	unsigned s, first, last;
	uint32_t j = 0;

	if (hi > ISA_STACK_SIZE)
		hi = ISA_STACK_SIZE;
	first = (unsigned)(lo / 8);
	last = (unsigned)((hi - 1) / 8);
	ma->wfirst = (uint16_t)first;
	ma->wcount = (uint16_t)(last - first + 1);
	ma->wvals = arena_alloc8_unzeroed(l->a, sizeof(uint32_t) * ma->wcount);  /* each written below */
	for (s = first; s <= last; s++) {
		struct ssa_insn *h = lift_emit(l, SSA_HAVOC, 0);
		int64_t b0 = (int64_t)s * 8, from = lo > b0 ? lo - b0 : 0;
		int64_t to = hi < b0 + 8 ? hi - b0 : 8;

		h->imm = call;
		h->size = 8;
		if (from > 0 || to < 8) {
			struct ssa_insn *ins = lift_emit(l, SSA_INSERT, 2);

			ins->args[0] = l->st->fr[fi].slots[s];
			ins->args[1] = h->id;
			ins->imm = from;
			ins->size = (uint8_t)(to - from);
			lift_slot_set(l, fi, s, ins->id);
		} else {
			lift_slot_set(l, fi, s, h->id);
		}
		ma->wvals[j++] = l->st->fr[fi].slots[s];
	}
}

/* REF: IN's reference where IN is a decoded instruction (it outlives the
 * IR), else a copy in the arena. */
static void lift_call(struct lifter *l, const struct insn *in, const struct insn_ref *ref)
{
	struct ssa_memarg mem[5];
	int64_t wsize[5];
	uint32_t nmem = 0, nslots = 0, i, j;
	struct ssa_insn *v;
	unsigned s, byte;
	int fi, r;

	for (i = 1; i <= 5; i++) {
		r = stack_loc(l, l->st->regs[i], 0, 1, &fi, &s, &byte);
		if (r == 2)
			lift_unsupported(l, "insn %u: a stack pointer at a variable offset passed to a call",
					 l->slot);
		if (r != 1)
			continue;
		memset(&mem[nmem], 0, sizeof(mem[nmem]));
		mem[nmem].argno = (uint8_t)i;
		wsize[nmem] = written_size(l, in, i);
		mem[nmem].written = wsize[nmem] != 0;
		mem[nmem].frame = (uint16_t)l->st->fr[fi].id;
		mem[nmem].off = (int16_t)(lift_ptr(l, l->st->regs[i]).off);
		mem[nmem].first = (uint16_t)(5 + nslots);
		mem[nmem].nslots = (uint16_t)(SSA_SLOTS - s);
		nslots += SSA_SLOTS - s;
		nmem++;
	}
	if (l->hooks && l->hooks->call)
		l->hooks->call(l->hooks->arg, (struct ssa_lift *)l, in, &l->st->regs[1], 0, false);
	v = lift_emit(l, SSA_CALL, 5 + nslots);
	v->ref = ref;
	v->imm = in->imm;
	v->size = 8;
	for (i = 0; i < 5; i++)
		v->args[i] = l->st->regs[i + 1];
	v->mem = nmem ? arena_dup(l->a, mem, sizeof(mem[0]) * nmem) : NULL;
	v->nmem = nmem;
	for (i = 0; i < nmem; i++) {
		fi = frame_index(l, mem[i].frame);
		for (j = 0; j < mem[i].nslots; j++)
			v->args[mem[i].first + j] = l->st->fr[fi].slots[SSA_SLOTS - mem[i].nslots + j];
	}
	for (i = 0; i < nmem; i++)
		if (v->mem[i].written)
			havoc_slots(l, &v->mem[i], v->id, wsize[i]);
	if (in->ref.kind != INSN_REF_HELPER && in->ref.kind != INSN_REF_KFUNC)
		lift_unsupported(l, "insn %u: call with an unresolved target", l->slot);
	/* bpf_dynptr_write / bpf_dynptr_data can later write the memory a
	 * dynptr of program memory covers, which no argument of theirs
	 * points to: not modelled */
	/* a callback that runs inside this call (for_each_map_elem, find_vma,
	 * user_ringbuf_drain) makes calls and writes the lift does not see;
	 * bpf_loop's is inlined, a timer's runs in another invocation */
	if (runs_callback(in))
		lift_unsupported(l, "insn %u: %s runs a callback that is not analysed", l->slot,
				 helper_name((int)in->imm) ? helper_name((int)in->imm) : "the helper");
	if (in->ref.kind == INSN_REF_HELPER && in->imm == BPF_FUNC_dynptr_from_mem)
		lift_unsupported(l, "insn %u: bpf_dynptr_from_mem: memory behind a dynptr is not modelled",
				 l->slot);
	for (i = 1; i <= 5; i++)
		l->st->regs[i] = 0;
	l->st->regs[0] = v->id;
	if (l->hooks && l->hooks->call) {
		/* the call itself has executed when it returns */
		l->blk_steps++;
		l->hooks->call(l->hooks->arg, (struct ssa_lift *)l, in, v->args, v->id, true);
		l->blk_steps--;
	}
}

/* callx through a register holding a known constant is that helper call;
 * any other target is not modelled. */
static void lift_callx(struct lifter *l, const struct insn *in)
{
	struct insn h = *in;
	int64_t id;

	if (!lift_is_const(l, l->st->regs[in->dst], &id) || id < 0 || id > INT32_MAX) {
		lift_unsupported(l, "insn %u: indirect call (callx) to an unknown target", l->slot);
		return;
	}
	h.op = ISA_CALL;
	h.imm = (int32_t)id;
	h.ref.kind = INSN_REF_HELPER;
	h.ref.index = (int)id;
	lift_call(l, &h, arena_dup(l->a, &h.ref, sizeof(h.ref)));
}

void lift_insn(struct lifter *l, const struct insn *in)
{
	switch (isa_table[in->op].kind) {
	case ISA_K_ALU:
		lift_alu(l, in);
		break;
	case ISA_K_NEG:
	case ISA_K_MOVSX:
	case ISA_K_END:
		lift_unary(l, in);
		break;
	case ISA_K_LDDW:
		lift_lddw(l, in);
		break;
	case ISA_K_LDX:
		lift_load(l, in);
		break;
	case ISA_K_ST:
	case ISA_K_STX:
		lift_store(l, in);
		break;
	case ISA_K_ATOMIC:
		lift_atomic(l, in);
		break;
	case ISA_K_LDPKT:
		lift_ldpkt(l, in);
		break;
	case ISA_K_CALL:
		lift_call(l, in, &in->ref);
		break;
	case ISA_K_CALLX:
		lift_callx(l, in);
		break;
	case ISA_K_JA: case ISA_K_JCOND: case ISA_K_EXIT: case ISA_NKINDS:
		break;
	}
}
