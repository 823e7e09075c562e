/* ssa.c - lift the expanded program DAG (expand.c) to SSA.
 *
 * Nodes are visited in topological order. Each carries the abstract machine
 * state at its end: the value of every register, the saved r6-r10 of every
 * calling frame, every 8-byte stack slot of every live frame and the bpf_loop
 * arguments of each frame. At a join, an entry on which the incoming edges
 * disagree becomes a phi. Stack accesses at constant offsets from a frame's
 * r10 are resolved to slots here; a pointer is known to be such when it is
 * r10 plus constants (tracked per value).
 */
#include "expand.h"
#include "ssa.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fstate {
	uint32_t saved[5];              /* the caller's r6..r10 */
	uint32_t slots[SSA_SLOTS];
	uint32_t loop_nr, loop_ctx;     /* bpf_loop arguments of a call in this frame */
	uint32_t id;                    /* frame id */
};

struct state {
	uint32_t regs[ISA_NREGS];
	uint32_t depth;
	struct fstate fr[SSA_MAX_FRAMES];
};

enum ptr_kind { PTR_NONE, PTR_FP, PTR_FPDYN };

struct ptrinfo {
	uint8_t kind;
	uint16_t frame;
	int32_t off;
};

struct lifter {
	struct ssa_prog *p;
	struct xgraph *x;
	struct arena *a;
	struct vec values;     /* struct ssa_insn * (arena vec) */
	struct vec ptrs;       /* struct ptrinfo, by value id (malloc) */
	struct vec insns;      /* of the block being built (malloc) */
	struct ssa_block *blk;
	struct state *st;      /* the state being advanced */
	const struct cfg *g;
	int sec;
	uint32_t slot;
	uint16_t frame;
};

static void unsupported(struct lifter *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void unsupported(struct lifter *l, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!l->p->unsupported)
		l->p->unsupported = arena_strdup(l->a, buf);
}

static struct ptrinfo *ptr(struct lifter *l, uint32_t v)
{
	return &((struct ptrinfo *)l->ptrs.data)[v];
}

static struct ssa_insn *value(struct lifter *l, uint32_t v)
{
	return ((struct ssa_insn **)l->values.data)[v];
}

/* A new instruction of kind K with N operands, appended to the block unless
 * it is a constant/input (those are appended too: one place per value). */
static struct ssa_insn *emit(struct lifter *l, enum ssa_kind k, uint32_t n)
{
	struct ssa_insn *in = arena_alloc(l->a, sizeof(*in));

	in->kind = k;
	in->id = (uint32_t)l->values.len;
	in->args = n ? arena_new_array(l->a, uint32_t, n) : NULL;
	in->nargs = n;
	in->sec = l->sec;
	in->slot = l->slot;
	in->frame = l->frame;
	in->block = l->blk ? l->blk->id : 0;
	*(struct ssa_insn **)vec_push(l->a, &l->values, sizeof(in)) = in;
	buf_push(&l->ptrs, sizeof(struct ptrinfo));
	if (l->blk)
		*(struct ssa_insn **)buf_push(&l->insns, sizeof(in)) = in;
	return in;
}

static uint32_t mkconst(struct lifter *l, int64_t c)
{
	struct ssa_insn *in = emit(l, SSA_CONST, 0);

	in->imm = c;
	in->size = 8;
	return in->id;
}

static bool is_const(struct lifter *l, uint32_t v, int64_t *c)
{
	struct ssa_insn *in = value(l, v);

	if (in->kind != SSA_CONST)
		return false;
	*c = in->imm;
	return true;
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

/* If value V + OFF of SIZE bytes is a constant stack address, return the
 * slot's location; 1 = stack slot, 0 = not the stack, -1 = stack but not
 * resolvable (reported as unsupported). */
static int stack_loc(struct lifter *l, uint32_t v, int16_t off, unsigned size,
		     int *fi, unsigned *slot, unsigned *byte)
{
	struct ptrinfo *pi = ptr(l, v);
	int64_t o;

	if (pi->kind == PTR_NONE)
		return 0;
	if (pi->kind == PTR_FPDYN) {
		unsupported(l, "insn %u: stack access at a variable offset", l->slot);
		return -1;
	}
	o = (int64_t)pi->off + off + ISA_STACK_SIZE;
	*fi = frame_index(l, pi->frame);
	if (*fi < 0 || o < 0 || o + size > ISA_STACK_SIZE) {
		unsupported(l, "insn %u: stack access out of bounds (r10%+lld)", l->slot,
			    (long long)(o - ISA_STACK_SIZE));
		return -1;
	}
	*slot = (unsigned)(o / 8);
	*byte = (unsigned)(o % 8);
	if (*byte + size > 8) {
		unsupported(l, "insn %u: stack access crossing an 8-byte slot", l->slot);
		return -1;
	}
	return 1;
}

static uint32_t slot_read(struct lifter *l, int fi, unsigned s, unsigned byte,
			  unsigned size, bool sx)
{
	uint32_t v = l->st->fr[fi].slots[s];
	struct ssa_insn *in;

	if (size == 8)
		return v;
	in = emit(l, SSA_EXTRACT, 1);
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
		l->st->fr[fi].slots[s] = v;
		return;
	}
	in = emit(l, SSA_INSERT, 2);
	in->args[0] = l->st->fr[fi].slots[s];
	in->args[1] = v;
	in->imm = byte;
	in->size = (uint8_t)size;
	l->st->fr[fi].slots[s] = in->id;
}

/* ---- instructions ------------------------------------------------------ */

static uint32_t operand(struct lifter *l, const struct insn *in)
{
	return in->srcreg ? l->st->regs[in->src] : mkconst(l, in->imm);
}

static void set_ptr_alu(struct lifter *l, uint32_t v, const struct insn *in,
			uint32_t a, uint32_t b)
{
	struct ptrinfo *pa = ptr(l, a), *pb = ptr(l, b), *pv = ptr(l, v);
	int64_t c;

	if (!in->is64 || (pa->kind == PTR_NONE && pb->kind == PTR_NONE))
		return;
	pv->kind = PTR_FPDYN;
	pv->frame = pa->kind != PTR_NONE ? pa->frame : pb->frame;
	if (pa->kind == PTR_FP && is_const(l, b, &c) && (in->op == ISA_ADD || in->op == ISA_SUB)) {
		int64_t off = pa->off + (in->op == ISA_ADD ? c : -c);

		if (off >= INT32_MIN && off <= INT32_MAX) {
			pv->kind = PTR_FP;
			pv->off = (int32_t)off;
		}
	} else if (pb->kind == PTR_FP && in->op == ISA_ADD && is_const(l, a, &c)) {
		pv->kind = PTR_FP;
		pv->off = (int32_t)(pb->off + c);
	}
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
			l->st->regs[in->dst] = mkconst(l, in->is64 ? in->imm : (int64_t)(uint32_t)in->imm);
			return;
		}
		if (in->is64) {
			l->st->regs[in->dst] = l->st->regs[in->src];
			return;
		}
	}
	b = operand(l, in);
	if ((in->op == ISA_MOV || is_const(l, a, &ca)) && is_const(l, b, &cb) &&
	    fold_alu(in->op, in->is64, (uint64_t)ca, (uint64_t)cb, &folded)) {
		l->st->regs[in->dst] = mkconst(l, (int64_t)folded);
		return;
	}
	v = emit(l, SSA_ALU, 2);
	v->op = (uint8_t)in->op;
	v->is64 = in->is64;
	v->size = in->is64 ? 8 : 4;
	v->args[0] = a;
	v->args[1] = b;
	set_ptr_alu(l, v->id, in, a, b);
	l->st->regs[in->dst] = v->id;
}

static void lift_unary(struct lifter *l, const struct insn *in)
{
	struct ssa_insn *v;
	uint32_t a = in->op == ISA_MOVSX ? l->st->regs[in->src] : l->st->regs[in->dst];

	v = emit(l, SSA_UNARY, 1);
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
		l->st->regs[in->dst] = mkconst(l, (int64_t)in->imm64);
		return;
	}
	v = emit(l, SSA_ADDR, 0);
	v->ref = in->ref;
	v->imm = (int64_t)in->imm64;
	v->size = 8;
	l->st->regs[in->dst] = v->id;
}

static void lift_load(struct lifter *l, const struct insn *in)
{
	uint32_t base = l->st->regs[in->src];
	unsigned s, byte;
	int fi, r = stack_loc(l, base, in->off, in->size, &fi, &s, &byte);
	struct ssa_insn *v;

	if (r > 0) {
		l->st->regs[in->dst] = slot_read(l, fi, s, byte, in->size, in->op == ISA_LDXSX);
		return;
	}
	v = emit(l, SSA_LOAD, 1);
	v->args[0] = base;
	v->imm = in->off;
	v->size = in->size;
	v->sx = in->op == ISA_LDXSX;
	l->st->regs[in->dst] = v->id;
}

static void lift_store(struct lifter *l, const struct insn *in)
{
	uint32_t base = l->st->regs[in->dst];
	uint32_t val = in->op == ISA_ST ? mkconst(l, in->imm) : l->st->regs[in->src];
	unsigned s, byte;
	int fi, r = stack_loc(l, base, in->off, in->size, &fi, &s, &byte);
	struct ssa_insn *v;

	if (r > 0) {
		slot_write(l, fi, s, byte, in->size, val);
		return;
	}
	v = emit(l, SSA_STORE, 2);
	v->args[0] = base;
	v->args[1] = val;
	v->imm = in->off;
	v->size = in->size;
}

static uint32_t alu2(struct lifter *l, enum isa_op op, bool is64, uint32_t a, uint32_t b)
{
	struct ssa_insn *v = emit(l, SSA_ALU, 2);

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
		sel = emit(l, SSA_SELECT, 4);
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

	if (r > 0) {
		lift_stack_atomic(l, in, fi, s, byte);
		return;
	}
	v = emit(l, SSA_ATOMIC, 3);
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
	struct ssa_insn *v = emit(l, SSA_LDPKT, 2);
	int r;

	/* An out-of-bounds legacy packet load ends the program with r0 = 0;
	 * that path is not in the IR yet, so results would be unsound. */
	unsupported(l, "insn %u: legacy packet load (LD_ABS/LD_IND): its out-of-bounds exit is not modelled",
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
 * it up to r10 memory operands of the call; they are given fresh values
 * afterwards unless the argument is known to be read-only. */
static bool arg_read_only(const struct insn *in, unsigned argno)
{
	if (in->ref.kind != INSN_REF_HELPER)
		return false;
	switch (in->imm) {
	case BPF_FUNC_map_lookup_elem:
	case BPF_FUNC_map_delete_elem:
		return argno == 2;
	case BPF_FUNC_map_update_elem:
		return argno == 2 || argno == 3;
	case BPF_FUNC_ringbuf_output:
	case BPF_FUNC_trace_printk:
		return argno == 1 || argno == 2;
	default:
		return false;
	}
}

static void lift_call(struct lifter *l, const struct insn *in)
{
	struct ssa_memarg mem[5];
	uint32_t nmem = 0, nslots = 0, i, j, k;
	struct ssa_insn *v;
	unsigned s, byte;
	int fi;

	for (i = 1; i <= 5; i++) {
		if (stack_loc(l, l->st->regs[i], 0, 1, &fi, &s, &byte) <= 0)
			continue;
		mem[nmem].argno = (uint8_t)i;
		mem[nmem].written = !arg_read_only(in, i);
		mem[nmem].frame = (uint16_t)l->st->fr[fi].id;
		mem[nmem].off = (int16_t)(ptr(l, l->st->regs[i])->off);
		mem[nmem].first = (uint16_t)(5 + nslots);
		mem[nmem].nslots = (uint16_t)(SSA_SLOTS - s);
		nslots += SSA_SLOTS - s;
		nmem++;
	}
	v = emit(l, SSA_CALL, 5 + nslots);
	v->ref = in->ref;
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
	for (i = 0; i < nmem; i++) {
		if (!mem[i].written)
			continue;
		fi = frame_index(l, mem[i].frame);
		for (j = 0; j < mem[i].nslots; j++) {
			struct ssa_insn *h = emit(l, SSA_HAVOC, 0);

			k = SSA_SLOTS - mem[i].nslots + j;
			h->imm = v->id;
			h->size = 8;
			l->st->fr[fi].slots[k] = h->id;
		}
	}
	if (in->ref.kind != INSN_REF_HELPER && in->ref.kind != INSN_REF_KFUNC)
		unsupported(l, "insn %u: call with an unresolved target", l->slot);
	for (i = 1; i <= 5; i++)
		l->st->regs[i] = 0;
	l->st->regs[0] = v->id;
}

/* callx through a register holding a known constant is that helper call;
 * any other target is not modelled. */
static void lift_callx(struct lifter *l, const struct insn *in)
{
	struct insn h = *in;
	int64_t id;

	if (!is_const(l, l->st->regs[in->dst], &id) || id < 0 || id > INT32_MAX) {
		unsupported(l, "insn %u: indirect call (callx) to an unknown target", l->slot);
		return;
	}
	h.op = ISA_CALL;
	h.imm = (int32_t)id;
	h.ref.kind = INSN_REF_HELPER;
	h.ref.index = (int)id;
	lift_call(l, &h);
}

static void lift_insn(struct lifter *l, const struct insn *in)
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
		lift_call(l, in);
		break;
	case ISA_K_CALLX:
		lift_callx(l, in);
		break;
	case ISA_K_JA: case ISA_K_JCOND: case ISA_K_EXIT: case ISA_NKINDS:
		break;
	}
}

/* ---- states and joins -------------------------------------------------- */

/* Carry state S along edge E into the block being built (constants and the
 * new frame's r10 are emitted there). */
static void apply_edge(struct lifter *l, struct state *s, const struct xedge *e)
{
	struct ssa_insn *fp;
	struct fstate *f;
	int r;

	switch (e->act) {
	case XE_NONE:
		break;
	case XE_PUSH_CALL:
	case XE_PUSH_CB:
		f = &s->fr[s->depth++];
		memcpy(f->saved, &s->regs[6], sizeof(f->saved));
		memset(f->slots, 0, sizeof(f->slots));
		f->loop_nr = f->loop_ctx = 0;
		f->id = e->frame;
		for (r = 6; r <= 9; r++)
			s->regs[r] = 0;
		s->regs[0] = 0;
		fp = emit(l, SSA_FRAME, 0);
		fp->imm = e->frame;
		fp->size = 8;
		ptr(l, fp->id)->kind = PTR_FP;
		ptr(l, fp->id)->frame = (uint16_t)e->frame;
		s->regs[ISA_REG_FP] = fp->id;
		if (e->act == XE_PUSH_CB) {
			s->regs[1] = mkconst(l, e->imm);
			s->regs[2] = s->fr[s->depth - 2].loop_ctx;
			for (r = 3; r <= 5; r++)
				s->regs[r] = 0;
		}
		break;
	case XE_POP:
		f = &s->fr[--s->depth];
		memcpy(&s->regs[6], f->saved, sizeof(f->saved));
		for (r = 1; r <= 5; r++)
			s->regs[r] = 0;
		break;
	case XE_SET_R0:
		s->regs[0] = mkconst(l, e->imm);
		break;
	}
}

static void phi_ptr(struct lifter *l, struct ssa_insn *phi)
{
	struct ptrinfo acc = *ptr(l, phi->args[0]);
	uint32_t i;

	for (i = 1; i < phi->nargs; i++) {
		struct ptrinfo *o = ptr(l, phi->args[i]);

		if (acc.kind == PTR_NONE && o->kind == PTR_NONE)
			continue;
		if (acc.kind == PTR_FP && o->kind == PTR_FP && acc.frame == o->frame &&
		    acc.off == o->off)
			continue;
		if (acc.kind != PTR_NONE && o->kind != PTR_NONE && acc.frame == o->frame) {
			acc.kind = PTR_FPDYN;
			continue;
		}
		/* stack pointer on some paths only: accesses through it are
		 * not resolvable */
		acc.frame = acc.kind != PTR_NONE ? acc.frame : o->frame;
		acc.kind = PTR_FPDYN;
	}
	*ptr(l, phi->id) = acc;
}

static void merge_word(struct lifter *l, struct state **in, uint32_t n,
		       size_t off, const char *var)
{
	uint32_t v0 = *(uint32_t *)((char *)in[0] + off), i;
	struct ssa_insn *phi;
	size_t k;

	for (i = 1; i < n; i++)
		if (*(uint32_t *)((char *)in[i] + off) != v0)
			break;
	if (i == n)
		return;
	/* the same merge as an earlier phi of this block (a value spilled to
	 * the stack and kept in a register): reuse it */
	for (k = 0; k < l->insns.len; k++) {
		phi = ((struct ssa_insn **)l->insns.data)[k];
		if (phi->kind != SSA_PHI)
			continue;
		for (i = 0; i < n; i++)
			if (*(uint32_t *)((char *)in[i] + off) != phi->args[i])
				break;
		if (i == n) {
			*(uint32_t *)((char *)l->st + off) = phi->id;
			phi->var = arena_printf(l->a, "%s, %s", phi->var, var);
			return;
		}
	}
	phi = emit(l, SSA_PHI, n);
	phi->size = 8;
	for (i = 0; i < n; i++)
		phi->args[i] = *(uint32_t *)((char *)in[i] + off);
	phi_ptr(l, phi);
	phi->var = var;
	*(uint32_t *)((char *)l->st + off) = phi->id;
}

/* Merge the incoming states into l->st: an entry on which they disagree
 * becomes a phi. All incoming states have the same frames (the same
 * context). */
static void merge(struct lifter *l, struct state **in, uint32_t n)
{
	uint32_t i, r, s;

	static const char *const rn[ISA_NREGS] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"
	};
	char name[48];

	memcpy(l->st, in[0], sizeof(struct state));
	for (r = 0; r < ISA_NREGS; r++)
		merge_word(l, in, n, offsetof(struct state, regs[r]), rn[r]);
	for (i = 0; i < in[0]->depth; i++) {
		size_t base = offsetof(struct state, fr) + i * sizeof(struct fstate);
		uint32_t id = in[0]->fr[i].id;

		for (r = 0; r < 5; r++) {
			snprintf(name, sizeof(name), "frame%u caller's %s", id, rn[6 + r]);
			merge_word(l, in, n, base + offsetof(struct fstate, saved[r]),
				   arena_strdup(l->a, name));
		}
		for (s = 0; s < SSA_SLOTS; s++) {
			snprintf(name, sizeof(name), "fp%u%d", id, (int)(s * 8) - ISA_STACK_SIZE);
			merge_word(l, in, n, base + offsetof(struct fstate, slots[s]),
				   arena_strdup(l->a, name));
		}
		merge_word(l, in, n, base + offsetof(struct fstate, loop_nr), "bpf_loop nr_loops");
		merge_word(l, in, n, base + offsetof(struct fstate, loop_ctx), "bpf_loop ctx");
	}
}

/* ---- blocks ------------------------------------------------------------ */

static void begin_block(struct lifter *l, const struct xnode *n, uint32_t id)
{
	struct ssa_block *b = arena_alloc(l->a, sizeof(*b));
	const struct xctx *c = &l->x->ctxs[n->ctx];

	b->id = id;
	b->func = c->func;
	b->cfg_block = n->block;
	b->frame = (uint16_t)c->frame;
	b->ctx = n->ctx;
	l->blk = b;
	l->g = l->x->cfgs[c->func];
	l->sec = l->g->sec;
	l->frame = (uint16_t)c->frame;
	l->slot = l->g->blocks[n->block].first;
	l->insns.len = 0;
	b->first_slot = l->g->blocks[n->block].first;
	b->last_slot = l->g->blocks[n->block].last;
}

static void set_branch(struct lifter *l, const struct insn *in)
{
	struct ssa_block *b = l->blk;

	b->term = SSA_TERM_BRANCH;
	b->cond_op = (uint8_t)in->op;
	b->cond64 = in->is64;
	b->a = l->st->regs[in->dst];
	b->b = operand(l, in);
}

/* Phis were created after the constants the incoming edges needed: move
 * them to the front, keeping both groups in order. */
static void place_phis_first(struct lifter *l)
{
	struct ssa_insn **v = l->insns.data, **tmp;
	size_t n = l->insns.len, i, k = 0;

	if (!n)
		return;
	tmp = malloc(sizeof(*tmp) * n);
	if (!tmp)
		abort();
	for (i = 0; i < n; i++)
		if (v[i]->kind == SSA_PHI)
			tmp[k++] = v[i];
	for (i = 0; i < n; i++)
		if (v[i]->kind != SSA_PHI)
			tmp[k++] = v[i];
	memcpy(v, tmp, sizeof(*tmp) * n);
	free(tmp);
}

static void lift_node(struct lifter *l, const struct xnode *n)
{
	struct ssa_block *b = l->blk;
	const struct cfg_block *cb = &l->g->blocks[n->block];
	const struct insn *last = &l->g->insns[cb->last];
	struct fstate *f = &l->st->fr[l->st->depth - 1];
	uint32_t s;

	b->term = SSA_TERM_JUMP;
	switch (n->kind) {
	case XN_BLOCK:
		for (s = cb->first; s <= cb->last; s++) {
			const struct insn *in = &l->g->insns[s];

			l->slot = s;
			if (in->cont)
				continue;
			if (s == cb->last && cb->term == CFG_TERM_CALL &&
			    in->ref.kind == INSN_REF_HELPER && in->imm == BPF_FUNC_loop) {
				f->loop_nr = l->st->regs[1];
				f->loop_ctx = l->st->regs[3];
				b->note = "bpf_loop";
				continue;
			}
			if (s == cb->last && cb->term == CFG_TERM_CALL &&
			    in->ref.kind == INSN_REF_SUBPROG)
				continue;
			lift_insn(l, in);
		}
		if (cb->term == CFG_TERM_BRANCH)
			set_branch(l, last);
		else if (cb->term == CFG_TERM_EXIT && n->nsucc == 0) {
			b->term = SSA_TERM_EXIT;
			b->a = l->st->regs[0];
		} else if (cb->term == CFG_TERM_CALL && last->ref.kind == INSN_REF_HELPER &&
			   last->imm == BPF_FUNC_tail_call) {
			b->term = SSA_TERM_BRANCH;   /* r0 == 0: the tail call was taken */
			b->cond_op = ISA_JEQ;
			b->cond64 = true;
			b->a = l->st->regs[0];
			b->b = mkconst(l, 0);
			b->note = "bpf_tail_call: taken if r0 == 0";
		}
		break;
	case XN_CB_TEST:
		l->slot = cb->last;
		b->term = SSA_TERM_BRANCH;   /* iteration k < nr_loops */
		b->cond_op = ISA_JGT;
		b->cond64 = false;
		b->a = f->loop_nr;
		b->b = mkconst(l, n->k);
		b->note = "bpf_loop: next iteration?";
		break;
	case XN_CB_NEXT:
		l->slot = cb->last;
		b->term = SSA_TERM_BRANCH;   /* callback returned nonzero: stop */
		b->cond_op = ISA_JNE;
		b->cond64 = true;
		b->a = l->st->regs[0];
		b->b = mkconst(l, 0);
		b->note = "bpf_loop: callback asked to stop?";
		break;
	case XN_CB_DONE:
		l->slot = cb->last;
		b->note = "bpf_loop: done, r0 = iterations";
		break;
	case XN_TAILEXIT: {
		struct ssa_insn *t = emit(l, SSA_TAILRET, 0);

		t->size = 8;
		b->term = SSA_TERM_EXIT;
		b->a = t->id;
		b->note = "bpf_tail_call taken: the program returns what the callee returns";
		break;
	}
	case XN_UNWIND:
		b->term = SSA_TERM_UNWIND;
		b->note = "loop bound reached";
		l->p->nunwind++;
		break;
	}
	place_phis_first(l);
	b->insns = arena_dup(l->a, l->insns.data, sizeof(struct ssa_insn *) * l->insns.len);
	b->ninsns = (uint32_t)l->insns.len;
}

static struct state *state_new(void)
{
	struct state *s = malloc(sizeof(*s));

	if (!s)
		abort();
	return s;
}

struct pedge {
	const struct xedge *e;
	uint32_t src;
};

static void entry_state(struct lifter *l, struct state *st)
{
	struct ssa_insn *v;
	uint32_t k;

	memset(st, 0, sizeof(*st));
	st->depth = 1;
	for (k = 1; k <= 5; k++) {
		v = emit(l, SSA_INPUT, 0);
		v->imm = k;
		v->size = 8;
		st->regs[k] = v->id;
	}
	v = emit(l, SSA_FRAME, 0);
	v->size = 8;
	ptr(l, v->id)->kind = PTR_FP;
	st->regs[ISA_REG_FP] = v->id;
}

static int lift_graph(struct lifter *l)
{
	struct xgraph *x = l->x;
	struct state **out = calloc(x->nnodes, sizeof(*out));
	struct state **ins = NULL;
	uint32_t *left = calloc(x->nnodes, sizeof(uint32_t));
	struct vec *pe = calloc(x->nnodes, sizeof(struct vec));
	uint32_t i, j, t, maxp = 1;

	if (!out || !left || !pe)
		abort();
	l->p->blocks = arena_new_array(l->a, struct ssa_block *, x->nnodes);
	l->p->nblocks = x->nnodes;
	/* incoming edges per node, sources in topological order */
	for (t = 0; t < x->nnodes; t++) {
		struct xnode *n = &x->nodes[x->order[t]];

		left[x->order[t]] = n->nsucc;
		for (j = 0; j < n->nsucc; j++) {
			struct pedge *p = buf_push(&pe[n->succ[j].to], sizeof(*p));

			p->e = &n->succ[j];
			p->src = x->order[t];
		}
		if (n->npreds > maxp)
			maxp = n->npreds;
	}
	ins = calloc(maxp, sizeof(*ins));
	if (!ins)
		abort();
	for (t = 0; t < x->nnodes; t++) {
		uint32_t ni = x->order[t];
		struct xnode *n = &x->nodes[ni];
		struct state *st = state_new();

		l->blk = NULL;
		begin_block(l, n, t);
		l->st = st;
		if (t == 0)
			entry_state(l, st);
		l->blk->preds = arena_new_array(l->a, uint32_t, n->npreds + 1);
		l->blk->npreds = n->npreds;
		for (i = 0; i < n->npreds; i++) {
			const struct pedge *p = &((struct pedge *)pe[ni].data)[i];

			ins[i] = state_new();
			*ins[i] = *out[p->src];
			apply_edge(l, ins[i], p->e);
			l->blk->preds[i] = x->nodes[p->src].topo;
			if (--left[p->src] == 0) {
				free(out[p->src]);
				out[p->src] = NULL;
			}
		}
		if (n->npreds)
			merge(l, ins, n->npreds);
		for (i = 0; i < n->npreds; i++)
			free(ins[i]);
		lift_node(l, n);
		l->p->blocks[t] = l->blk;
		l->blk->nsucc = n->nsucc;
		for (j = 0; j < n->nsucc; j++)
			l->blk->succ[j] = x->nodes[n->succ[j].to].topo;
		if (n->nsucc)
			out[ni] = st;
		else
			free(st);
	}
	for (i = 0; i < x->nnodes; i++) {
		free(out[i]);
		buf_free(&pe[i]);
	}
	free(pe);
	free(out);
	free(left);
	free(ins);
	return 0;
}

int ssa_build(const struct object *o, int func, struct insn **insns,
	      const struct ssa_opts *opts, struct arena *a, struct diag *d,
	      struct ssa_prog **out)
{
	struct ssa_opts def = {0};
	struct lifter l = { .a = a };
	struct ssa_prog *p = arena_alloc(a, sizeof(*p));
	struct ssa_insn *undef;
	int err;

	if (!opts)
		opts = &def;
	p->o = o;
	p->func = func;
	p->loop_bound = opts->loop_bound ? opts->loop_bound : SSA_DEFAULT_LOOP_BOUND;
	l.p = p;
	err = expand_program(o, func, insns, p->loop_bound,
			     opts->max_blocks ? opts->max_blocks : 1000000, a, d, &l.x);
	if (err)
		return err;
	p->frames = l.x->frames;
	p->nframes = l.x->nframes;
	undef = emit(&l, SSA_UNDEF, 0);
	undef->size = 8;
	if (l.x->unsupported) {
		p->unsupported = l.x->unsupported;
	} else {
		err = lift_graph(&l);
	}
	p->values = l.values.data;
	p->nvalues = (uint32_t)l.values.len;
	buf_free(&l.ptrs);
	buf_free(&l.insns);
	if (err)
		return err;
	*out = p;
	return 0;
}
