/* ssa_priv.h - internal to the SSA stage: the lifter's state, shared by
 * ssa.c (joins, blocks, the driver) and ssa_insn.c (one instruction at a
 * time). */
#ifndef INVCHECK_SSA_PRIV_H
#define INVCHECK_SSA_PRIV_H

#include "expand.h"
#include "ssa.h"

struct fstate {
	uint32_t saved[5];              /* the caller's r6..r10 */
	uint32_t slots[SSA_SLOTS];
	uint32_t loop_nr, loop_ctx;     /* bpf_loop arguments of a call in this frame */
	uint32_t id;                    /* frame id */
};

struct state {
	uint32_t regs[ISA_NREGS];
	uint32_t ghost[SSA_MAX_GHOST + 1];  /* hooks' ghosts, then insns */
	uint32_t depth;
	struct fstate fr[SSA_MAX_FRAMES];
};

/* What a value is known to point to: not the stack; frame + constant
 * offset; frame + variable offset; or the stack on some paths only (or of
 * different frames), which the lift does not resolve. */
enum ptr_kind { PTR_NONE, PTR_FP, PTR_FPDYN, PTR_MIXED };

struct ptrinfo {
	uint8_t kind;
	uint16_t frame;
	int32_t off;
};

struct ptrent {
	uint32_t id;
	uint16_t frame;
	int32_t off;
};

/* A small lift's arrays, in ssa_build's frame: the lifter's arrays start
 * here and move to malloc'd memory only when they outgrow it (lift_push),
 * so a lift of a small program makes no malloc for them (a malloc and a
 * free each, a dozen of them, were 7% of a small example's lift). */
struct lift_scratch {
	struct ssa_insn *insns[64];      /* lifter.insns */
	struct ssa_insn *reorder[64];    /* lifter.reorder */
	struct state *spare[16];         /* lifter.spare */
	struct state *out[128];          /* lift_graph's out and ins */
	struct ptrent ptab[64];          /* lifter.ptab */
	uint32_t consts[64];             /* lifter.consts */
	uint32_t ctab[64];               /* lifter.ctab */
	uint8_t pkind[1024];             /* lifter.pkind */
	uint8_t undef[1024];             /* ssa_undef_use's masks */
	_Alignas(16) unsigned char states[9600];  /* the first states (state_get) */
};

struct lifter {
	struct ssa_prog *p;
	const struct xgraph *x;
	struct arena *a;
	struct vec values;     /* struct ssa_insn * (the arena's when
	                        * values_in_arena, else malloc'd and adopted
	                        * by the arena at the end) */
	bool values_in_arena;
	struct vec pkind;      /* uint8_t enum ptr_kind, by value id (malloc) */
	struct ptrent *ptab;   /* frame and offset of the values whose kind is
	                        * not PTR_NONE: open addressing by id, 0 empty,
	                        * ptab_mask + 1 entries (malloc) */
	uint32_t ptab_mask, nptab;
	struct vec insns;      /* of the block being built (malloc) */
	struct vec reorder;    /* place_phis_first's scratch (malloc) */
	struct ssa_block *blk;
	struct state *st;      /* the state being advanced */
	const struct cfg *g;
	uint32_t slot;
	uint16_t frame;
	const struct ssa_hooks *hooks;
	uint32_t blk_steps;    /* instructions of this block lifted so far */
	struct vec spare;      /* struct state *: free states */
	size_t state_size;     /* bytes of a state (state_size in ssa.c) */
	void *slabs;           /* malloc'd blocks the states are cut from, each
	                        * led by a pointer to the one before */
	unsigned char *slab_next;   /* the next state's bytes in the last slab */
	uint32_t slab_left, nslabs; /* states left there; slabs so far */
	/* the lowest stack slot written so far in any frame (SSA_SLOTS: none):
	 * below it every slot of every state is 0 (UNDEF), so copies and
	 * joins skip those (lift_slot_set) */
	uint32_t slot_lo;
	size_t merge_end;      /* insns of the block when its merge ended: phis
	                        * are only made there (merge_word) */
	uint32_t *ctab;        /* the constants by value: ids, 0 = empty
	                        * (open addressing, ctab_mask + 1 slots; malloc) */
	uint32_t ctab_mask;
	struct vec consts;     /* uint32_t: the constants' ids, as made (malloc) */
	struct lift_scratch *scr;   /* where the arrays above start */
};

/* Is P in the lift's scratch (not to be freed nor reallocated)? */
static inline bool lift_scratch_has(const struct lifter *l, const void *p)
{
	uintptr_t a = (uintptr_t)p, s = (uintptr_t)l->scr;

	return a >= s && a < s + sizeof(*l->scr);
}

void *lift_grow(struct lifter *l, struct vec *v, size_t elem_size);
/* lift_new_value's out-of-line part: IN pushed when an array is full. */
void lift_push_value(struct lifter *l, struct ssa_insn *in);
/* A new element (not zeroed) at the end of V, one of the lifter's arrays
 * that may start in its scratch. */
static inline void *lift_push(struct lifter *l, struct vec *v, size_t elem_size)
{
	if (v->len == v->cap)
		return lift_grow(l, v, elem_size);
	return (char *)v->data + elem_size * v->len++;
}
/* V's storage freed unless it is the scratch's; V emptied. */
void lift_vec_free(struct lifter *l, struct vec *v);
/* free(P) unless P is in the scratch. */
void lift_free(struct lifter *l, void *p);

/* Slot S of frame FI of the current state becomes V (every write of a
 * slot goes through here: it keeps slot_lo). */
static inline void lift_slot_set(struct lifter *l, int fi, unsigned s, uint32_t v)
{
	if (s < l->slot_lo)
		l->slot_lo = s;
	l->st->fr[fi].slots[s] = v;
}

void lift_unsupported(struct lifter *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* What value V points to (PTR_NONE for most values: only the stack's
 * pointers have a record, lifter.ptab, which lift_ptr_rec looks up; the
 * common case inline, a call per operand was 1% of a small lift). */
struct ptrinfo lift_ptr_rec(const struct lifter *l, uint32_t v);
static inline struct ptrinfo lift_ptr(const struct lifter *l, uint32_t v)
{
	struct ptrinfo r = { .kind = ((const uint8_t *)l->pkind.data)[v] };

	return r.kind == PTR_NONE ? r : lift_ptr_rec(l, v);
}
/* Set what value V points to. */
void lift_ptr_set(struct lifter *l, uint32_t v, struct ptrinfo pi);
static inline struct ssa_insn *lift_value(struct lifter *l, uint32_t v)
{
	return ((struct ssa_insn **)l->values.data)[v];
}
/* A new value of kind K with N operands, not yet in a block (inline with
 * lift_emit: the lift makes one per value, a call each was 2% of it). */
static inline struct ssa_insn *lift_new_value(struct lifter *l, enum ssa_kind k, uint32_t n)
{
	/* the header written whole here, the N operands by every caller */
	struct ssa_insn *in = arena_alloc8_unzeroed(l->a, sizeof(*in) + sizeof(uint32_t) * n);

	*in = (struct ssa_insn){
		.id = (uint32_t)l->values.len, .nargs = n, .slot = l->slot,
		.block = l->blk ? l->blk->id : 0, .frame = l->frame, .kind = k,
		.ref = &ssa_noref,
	};
	if (l->values.len < l->values.cap && l->pkind.len < l->pkind.cap) {
		/* both have room (reserve_values: the same size): one test */
		((struct ssa_insn **)l->values.data)[l->values.len++] = in;
		((uint8_t *)l->pkind.data)[l->pkind.len++] = PTR_NONE;
		return in;
	}
	lift_push_value(l, in);
	return in;
}

/* A new instruction of kind K with N operands, appended to the block being
 * built (an input or frame too: one place per value). */
static inline struct ssa_insn *lift_emit(struct lifter *l, enum ssa_kind k, uint32_t n)
{
	struct ssa_insn *in = lift_new_value(l, k, n);

	if (l->blk)
		*(struct ssa_insn **)lift_push(l, &l->insns, sizeof(in)) = in;
	return in;
}
/* The value of constant C: one per distinct C in a program, placed in the
 * entry block when the lift ends (lift_place_consts). */
uint32_t lift_const(struct lifter *l, int64_t c);
/* The constants made by lift_const into the entry block, after its leading
 * inputs and frame; frees the lifter's table. */
void lift_place_consts(struct lifter *l);
static inline bool lift_is_const(struct lifter *l, uint32_t v, int64_t *c)
{
	struct ssa_insn *in = lift_value(l, v);

	if (in->kind != SSA_CONST)
		return false;
	*c = in->imm;
	return true;
}
/* The second operand of IN: register src or the immediate. */
static inline uint32_t lift_operand(struct lifter *l, const struct insn *in)
{
	return in->srcreg ? l->st->regs[in->src] : lift_const(l, in->imm);
}
/* Advance l->st over one (non-terminator) instruction. */
void lift_insn(struct lifter *l, const struct insn *in);
void lift_ptr_alu_rec(struct lifter *l, uint32_t v, const struct insn *in, uint32_t a, uint32_t b);
/* Pointer tracking of V = A op B (IN gives op and width): most operands
 * point to no stack (inline), the rest lift_ptr_alu_rec. */
static inline void lift_ptr_alu(struct lifter *l, uint32_t v, const struct insn *in,
				uint32_t a, uint32_t b)
{
	const uint8_t *kind = l->pkind.data;

	if (in->is64 && (kind[a] != PTR_NONE || kind[b] != PTR_NONE))
		lift_ptr_alu_rec(l, v, in, a, b);
}
/* The value of SIZE bytes at BASE + OFF as a load reads them (stack slots
 * resolved), SX: sign-extended. */
uint32_t lift_load_value(struct lifter *l, uint32_t base, int16_t off, unsigned size, bool sx);

/* ssa_undef.c: the first use of a value not initialised on its path (as
 * an unsupported reason), or NULL. BUF: SIZE bytes it may use for its
 * masks when they fit (else it allocates them). *OOB set when a load,
 * store or atomic of the values it went through is at a constant offset
 * outside a looked-up map value (it goes through every value when it
 * returns NULL): the program is then unsupported with SSA_MAP_VALUE_OOB
 * (one pass for both: the lift asked it of each block before). */
#define SSA_MAP_VALUE_OOB "a memory access outside a map value (the verifier rejects it)"
const char *ssa_undef_use(const struct ssa_prog *p, uint8_t *buf, size_t size, bool *oob);

#endif
