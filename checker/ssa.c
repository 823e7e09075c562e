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
#include "ssa_priv.h"
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- states and joins -------------------------------------------------- */

/* Copy SRC's live part: the registers, the ghosts the hooks have (none
 * without hooks: 260 of a state's 600 bytes were copied for nothing), the
 * frames below the depth (one at or above it is never read: a push
 * initialises every field of its frame), and of those the slots from
 * slot_lo up (below it both states hold 0: lifter.slot_lo; a program
 * that never writes its stack copies none of the 256 bytes a frame). */
static void state_copy(const struct lifter *l, struct state *dst, const struct state *src)
{
	size_t g = l->hooks ? (size_t)l->hooks->nghost + 1 : 0;
	uint32_t i, lo = l->slot_lo;

	memcpy(dst, src, offsetof(struct state, ghost) + sizeof(src->ghost[0]) * g);
	dst->depth = src->depth;
	if (lo == 0) {
		memcpy(dst->fr, src->fr, sizeof(struct fstate) * src->depth);
		return;
	}
	for (i = 0; i < src->depth; i++) {
		struct fstate *d = &dst->fr[i];
		const struct fstate *f = &src->fr[i];

		memcpy(d->saved, f->saved, sizeof(f->saved));
		memcpy(&d->slots[lo], &f->slots[lo], sizeof(f->slots[0]) * (SSA_SLOTS - lo));
		d->loop_nr = f->loop_nr;
		d->loop_ctx = f->loop_ctx;
		d->id = f->id;
	}
}

/* Carry state S along edge E into the block being built (constants and the
 * new frame's r10 are emitted there). */
static void apply_edge(struct lifter *l, struct state *s, const struct xnode *from,
		       const struct xedge *e)
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
		fp = lift_emit(l, SSA_FRAME, 0);
		fp->imm = e->frame;
		fp->size = 8;
		lift_ptr_set(l, fp->id, (struct ptrinfo){ .kind = PTR_FP,
							  .frame = (uint16_t)e->frame });
		s->regs[ISA_REG_FP] = fp->id;
		if (e->act == XE_PUSH_CB) {
			s->regs[1] = lift_const(l, xedge_imm(from, e));
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
		s->regs[0] = lift_const(l, xedge_imm(from, e));
		break;
	}
}

/* What PHI points to, one of whose operands points to the stack (most
 * phis merge none: merge_word finds that as it fills them in, and their
 * kind stays PTR_NONE, as lift_new_value made it). */
static void phi_ptr(struct lifter *l, struct ssa_insn *phi)
{
	struct ptrinfo acc;
	uint32_t i;

	acc = lift_ptr(l, phi->args[0]);
	for (i = 1; i < phi->nargs; i++) {
		struct ptrinfo o = lift_ptr(l, phi->args[i]);

		if (acc.kind == PTR_NONE && o.kind == PTR_NONE)
			continue;
		if (acc.kind == PTR_FP && o.kind == PTR_FP && acc.frame == o.frame &&
		    acc.off == o.off)
			continue;
		if ((acc.kind == PTR_FP || acc.kind == PTR_FPDYN) &&
		    (o.kind == PTR_FP || o.kind == PTR_FPDYN) && acc.frame == o.frame) {
			acc.kind = PTR_FPDYN;
			continue;
		}
		/* the stack on some paths only, or of different frames:
		 * accesses through it are not resolved */
		acc.kind = PTR_MIXED;
	}
	lift_ptr_set(l, phi->id, acc);
}

/* Do the incoming states disagree on the word at OFF? (Checked before
 * merge_word is called, and a phi's variable name formatted: most words
 * agree at most joins.) */
static bool differs(struct state **in, uint32_t n, size_t off)
{
	uint32_t v0 = *(uint32_t *)((char *)in[0] + off), i;

	for (i = 1; i < n; i++)
		if (*(uint32_t *)((char *)in[i] + off) != v0)
			return true;
	return false;
}

/* The word at OFF, on which the incoming states differ, becomes a phi. */
static void merge_word(struct lifter *l, struct state **in, uint32_t n,
		       size_t off, const char *var)
{
	const uint8_t *kind;
	struct ssa_insn *phi;
	unsigned kinds = PTR_NONE;
	uint32_t i;
	size_t k;

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
			phi->var = arena_cat3(l->a, phi->var, ", ", var);
			return;
		}
	}
	phi = lift_emit(l, SSA_PHI, n);
	phi->size = 8;
	kind = l->pkind.data;         /* after lift_emit, which may move it */
	for (i = 0; i < n; i++) {
		phi->args[i] = *(uint32_t *)((char *)in[i] + off);
		kinds |= kind[phi->args[i]];
	}
	if (kinds != PTR_NONE)
		phi_ptr(l, phi);
	phi->var = var;
	*(uint32_t *)((char *)l->st + off) = phi->id;
}

/* V in decimal at P (no NUL); returns the end. */
static char *put_uint(char *p, uint32_t v)
{
	char d[10], *s = u64_digits(d + sizeof(d), v);
	size_t n = (size_t)(d + sizeof(d) - s);

	memcpy(p, s, n);
	return p + n;
}

/* A phi's variable name "PRE<id>POST" or, POST NULL, "PRE<id>-<neg>" (a
 * slot's offset), in the arena: snprintf was a third of a small lift's
 * joins. */
static const char *frame_name(struct arena *a, const char *pre, uint32_t id,
			      const char *post, uint32_t neg)
{
	char buf[64], *p = buf;
	size_t n = strlen(pre);

	memcpy(p, pre, n);
	p = put_uint(p + n, id);
	if (post) {
		n = strlen(post);
		memcpy(p, post, n);
		p += n;
	} else {
		*p++ = '-';
		p = put_uint(p, neg);
	}
	return arena_strndup(a, buf, (size_t)(p - buf));
}

/* The variable names of frame 0's slots, the frame of most joins (made
 * by frame_name, the names were a sixth of a small program's joins) */
_Static_assert(ISA_STACK_SIZE == 512, "fp0_names spells the offsets of a 512-byte frame");
static const char *const fp0_names[SSA_SLOTS] = {
	"fp0-512", "fp0-504", "fp0-496", "fp0-488", "fp0-480", "fp0-472", "fp0-464", "fp0-456",
	"fp0-448", "fp0-440", "fp0-432", "fp0-424", "fp0-416", "fp0-408", "fp0-400", "fp0-392",
	"fp0-384", "fp0-376", "fp0-368", "fp0-360", "fp0-352", "fp0-344", "fp0-336", "fp0-328",
	"fp0-320", "fp0-312", "fp0-304", "fp0-296", "fp0-288", "fp0-280", "fp0-272", "fp0-264",
	"fp0-256", "fp0-248", "fp0-240", "fp0-232", "fp0-224", "fp0-216", "fp0-208", "fp0-200",
	"fp0-192", "fp0-184", "fp0-176", "fp0-168", "fp0-160", "fp0-152", "fp0-144", "fp0-136",
	"fp0-128", "fp0-120", "fp0-112", "fp0-104", "fp0-96", "fp0-88", "fp0-80", "fp0-72",
	"fp0-64", "fp0-56", "fp0-48", "fp0-40", "fp0-32", "fp0-24", "fp0-16", "fp0-8",
};

/* Merge the incoming states into l->st: an entry on which they disagree
 * becomes a phi. All incoming states have the same frames (the same
 * context). */
static void merge(struct lifter *l, struct state **in, uint32_t n)
{
	uint32_t i, r, s;

	static const char *const rn[ISA_NREGS] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"
	};
	static const char *const callers[5] = {
		" caller's r6", " caller's r7", " caller's r8", " caller's r9", " caller's r10"
	};

	state_copy(l, l->st, in[0]);
	for (r = 0; r < ISA_NREGS; r++)
		if (differs(in, n, offsetof(struct state, regs[r])))
			merge_word(l, in, n, offsetof(struct state, regs[r]), rn[r]);
	if (l->hooks) {
		for (r = 0; r <= l->hooks->nghost; r++) {
			const char *g = r == l->hooks->nghost ? "insns" :
				l->hooks->ghost_names ? l->hooks->ghost_names[r] : "ghost";

			if (r == l->hooks->nghost && !l->hooks->count_insns)
				break;
			if (differs(in, n, offsetof(struct state, ghost[r])))
				merge_word(l, in, n, offsetof(struct state, ghost[r]), g);
		}
	}
	for (i = 0; i < in[0]->depth; i++) {
		size_t base = offsetof(struct state, fr) + i * sizeof(struct fstate);
		uint32_t id = in[0]->fr[i].id, j;
		bool same_slots = true;

		for (r = 0; r < 5; r++) {
			if (!differs(in, n, base + offsetof(struct fstate, saved[r])))
				continue;
			merge_word(l, in, n, base + offsetof(struct fstate, saved[r]),
				   frame_name(l->a, "frame", id, callers[r], 0));
		}
		/* most joins agree on every slot: one comparison of the
		 * frames' slots first (no slot differs: no phi, as below) */
		for (j = 1; j < n && same_slots; j++)
			same_slots = !memcmp(&in[j]->fr[i].slots[l->slot_lo],
					     &in[0]->fr[i].slots[l->slot_lo],
					     sizeof(in[0]->fr[i].slots[0]) * (SSA_SLOTS - l->slot_lo));
		for (s = l->slot_lo; s < SSA_SLOTS && !same_slots; s++) {
			if (!differs(in, n, base + offsetof(struct fstate, slots[s])))
				continue;
			merge_word(l, in, n, base + offsetof(struct fstate, slots[s]),
				   id ? frame_name(l->a, "fp", id, NULL, ISA_STACK_SIZE - s * 8)
				      : fp0_names[s]);
		}
		if (differs(in, n, base + offsetof(struct fstate, loop_nr)))
			merge_word(l, in, n, base + offsetof(struct fstate, loop_nr),
				   "bpf_loop nr_loops");
		if (differs(in, n, base + offsetof(struct fstate, loop_ctx)))
			merge_word(l, in, n, base + offsetof(struct fstate, loop_ctx), "bpf_loop ctx");
	}
}

/* ---- blocks ------------------------------------------------------------ */

/* one per node of the expanded program: its size is the lift's memory */
_Static_assert(sizeof(void *) != 8 || sizeof(struct ssa_block) == 48,
	       "struct ssa_block is 48 bytes on 64-bit machines");
/* one per value (with its operands after it) */
_Static_assert(sizeof(void *) != 8 || sizeof(struct ssa_insn) == 48,
	       "struct ssa_insn is 48 bytes on 64-bit machines");

static void begin_block(struct lifter *l, const struct xnode *n, uint32_t id,
			uint32_t npreds)
{
	/* 8-aligned: a block with one predecessor takes 56 bytes */
	struct ssa_block *b = arena_alloc8(l->a, sizeof(*b) + sizeof(uint32_t) * npreds);
	const struct xctx *c = &l->x->ctxs[n->ctx];

	b->id = id;
	b->npreds = npreds;
	b->frame = (uint16_t)c->frame;     /* its function: the frame's (ssa_block_func) */
	l->blk = b;
	l->g = l->x->cfgs[c->func];
	l->frame = (uint16_t)c->frame;
	l->slot = l->g->blocks[n->block].first;
	l->insns.len = 0;
	l->merge_end = 0;
	b->last_slot = l->g->blocks[n->block].last;
}

static void set_branch(struct lifter *l, const struct insn *in)
{
	struct ssa_block *b = l->blk;

	b->term = SSA_TERM_BRANCH;
	b->cond_op = (uint8_t)in->op;
	b->cond64 = in->is64;
	b->a = l->st->regs[in->dst];
	b->b = lift_operand(l, in);
}

/* Phis were created after the constants the incoming edges needed: move
 * them to the front, keeping both groups in order (only the instructions
 * made before the merge ended can be phis). */
static void place_phis_first(struct lifter *l)
{
	struct ssa_insn **v = l->insns.data, **tmp;
	size_t n = l->merge_end, i, k = 0;

	if (!n)
		return;
	if (l->reorder.cap < n) {       /* one scratch array per lift */
		lift_vec_free(l, &l->reorder);
		l->reorder.data = malloc(sizeof(*tmp) * n);
		if (!l->reorder.data)
			abort();
		l->reorder.cap = n;
	}
	tmp = l->reorder.data;
	for (i = 0; i < n; i++)
		if (v[i]->kind == SSA_PHI)
			tmp[k++] = v[i];
	for (i = 0; i < n; i++)
		if (v[i]->kind != SSA_PHI)
			tmp[k++] = v[i];
	memcpy(v, tmp, sizeof(*tmp) * n);
}

/* End the block with a branch the lift makes up (tail call, bpf_loop):
 * if (a op imm) succ[0] else succ[1]. */
static void set_synthetic_branch(struct lifter *l, enum isa_op op, bool is64,
				 uint32_t a, int64_t imm, enum ssa_note note)
{
	struct ssa_block *b = l->blk;

	b->term = SSA_TERM_BRANCH;
	b->cond_op = (uint8_t)op;
	b->cond64 = is64;
	b->a = a;
	b->b = lift_const(l, imm);
	b->note = (uint8_t)note;
}

/* The block's instructions are counted: add them to the insns ghost. */
static void count_steps(struct lifter *l)
{
	unsigned g;

	if (!l->hooks || !l->hooks->count_insns || !l->blk_steps)
		return;
	g = l->hooks->nghost;
	l->st->ghost[g] = ssa_emit_alu((struct ssa_lift *)l, ISA_ADD, l->st->ghost[g],
				       lift_const(l, l->blk_steps));
	l->blk_steps = 0;
}

static void lift_node(struct lifter *l, const struct xnode *n)
{
	struct ssa_block *b = l->blk;
	const struct cfg_block *cb = &l->g->blocks[n->block];
	const struct insn *last = &l->g->insns[cb->last];
	struct fstate *f = &l->st->fr[l->st->depth - 1];
	uint32_t s;

	b->term = SSA_TERM_JUMP;
	l->blk_steps = 0;
	switch (n->kind) {
	case XN_BLOCK:
		for (s = cb->first; s <= cb->last; s++) {
			const struct insn *in = &l->g->insns[s];

			l->slot = s;
			if (in->cont)
				continue;
			if (s == cb->last && cb->term == CFG_TERM_CALL &&
			    in->ref.kind == INSN_REF_HELPER && in->imm == BPF_FUNC_loop) {
				if (l->hooks && l->hooks->call)
					l->hooks->call(l->hooks->arg, (struct ssa_lift *)l, in,
						       &l->st->regs[1], 0, false);
				f->loop_nr = l->st->regs[1];
				f->loop_ctx = l->st->regs[3];
				b->note = SSA_NOTE_BPF_LOOP;
				l->blk_steps++;
				continue;
			}
			if (s == cb->last && cb->term == CFG_TERM_CALL &&
			    in->ref.kind == INSN_REF_SUBPROG) {
				l->blk_steps++;
				continue;
			}
			lift_insn(l, in);
			l->blk_steps++;
		}
		count_steps(l);
		if (cb->term == CFG_TERM_BRANCH)
			set_branch(l, last);
		else if (cb->term == CFG_TERM_EXIT && n->nsucc == 0) {
			b->term = SSA_TERM_EXIT;
			b->a = l->st->regs[0];
			if (l->hooks && l->hooks->exit)
				l->hooks->exit(l->hooks->arg, (struct ssa_lift *)l, b->a);
		} else if (cb->term == CFG_TERM_CALL && last->ref.kind == INSN_REF_HELPER &&
			   last->imm == BPF_FUNC_tail_call) {
			/* r0 == 0: the tail call was taken */
			set_synthetic_branch(l, ISA_JEQ, true, l->st->regs[0], 0, SSA_NOTE_TAIL_IF);
		}
		break;
	case XN_CB_TEST:   /* iteration k < nr_loops */
		l->slot = cb->last;
		set_synthetic_branch(l, ISA_JGT, false, f->loop_nr, n->k, SSA_NOTE_LOOP_NEXT);
		break;
	case XN_CB_NEXT:   /* the callback returned nonzero: stop */
		l->slot = cb->last;
		set_synthetic_branch(l, ISA_JNE, true, l->st->regs[0], 0, SSA_NOTE_LOOP_STOP);
		break;
	case XN_CB_DONE:
		l->slot = cb->last;
		b->note = SSA_NOTE_LOOP_DONE;
		if (l->hooks && l->hooks->call) {
			/* the call's arguments are gone: nr_loops and ctx were
			 * kept, the callback and flags are any value */
			uint32_t args[5] = { f->loop_nr, 0, f->loop_ctx, 0, 0 };

			l->hooks->call(l->hooks->arg, (struct ssa_lift *)l, last, args,
				       l->st->regs[0], true);
		}
		break;
	case XN_TAILEXIT: {
		struct ssa_insn *t = lift_emit(l, SSA_TAILRET, 0);

		t->size = 8;
		b->term = SSA_TERM_EXIT;
		b->a = t->id;
		b->note = SSA_NOTE_TAIL_TAKEN;
		if (l->hooks && l->hooks->exit)
			l->hooks->exit(l->hooks->arg, (struct ssa_lift *)l, b->a);
		break;
	}
	case XN_UNWIND:
		b->term = SSA_TERM_UNWIND;
		b->note = SSA_NOTE_UNWIND;
		l->p->nunwind++;
		break;
	}
	place_phis_first(l);
	/* 8-aligned (arena_dup's 16 left 8 bytes after an odd count and took
	 * 16 for an empty block), not zeroed: the copy writes it (an empty
	 * block's one pointer is never read) */
	b->insns = arena_alloc8_unzeroed(l->a, sizeof(struct ssa_insn *) *
					 (l->insns.len ? l->insns.len : 1));
	if (l->insns.len)
		memcpy(b->insns, l->insns.data, sizeof(struct ssa_insn *) * l->insns.len);
	b->ninsns = (uint32_t)l->insns.len;
}

/* A state's bytes: its frames only as deep as the program's calls go (a
 * frame is pushed below its parent's: the depth of frame F is the length
 * of its parent chain). A state of every frame is 2.6 KiB, most of it
 * frames a program without calls never reaches, and the lift's states
 * were most of its fresh pages (docs/architecture.md, "Pages touched"). */
static size_t state_size(const struct xgraph *x)
{
	uint32_t f, d, max = 1;
	int p;

	for (f = 0; f < x->nframes; f++) {
		for (d = 1, p = x->frames[f].parent; p >= 0 && d < SSA_MAX_FRAMES; p = x->frames[p].parent)
			d++;
		if (d > max)
			max = d;
	}
	return offsetof(struct state, fr) + sizeof(struct fstate) * max;
}

/* States are recycled: a lift allocates as many as are live at once (the
 * states at the ends of nodes whose successors are not all lifted yet).
 * They are cut from slabs of 16, 32, ... 1024 states, freed with the
 * lift (a calloc and a free per state were 1.3% of a small example's
 * instructions). */
#define SLAB_HEAD 16      /* the link to the slab before (the first state 16-aligned) */

static struct state *state_get(struct lifter *l)
{
	struct state *s;

	if (l->spare.len)
		return ((struct state **)l->spare.data)[--l->spare.len];
	if (!l->slab_left) {
		uint32_t n = 16u << (l->nslabs < 6 ? l->nslabs : 6);
		unsigned char *m = malloc(SLAB_HEAD + l->state_size * n);

		if (!m)
			abort();
		*(void **)(void *)m = l->slabs;
		l->slabs = m;
		l->nslabs++;
		l->slab_next = m + SLAB_HEAD;
		l->slab_left = n;
	}
	s = (struct state *)(void *)l->slab_next;
	l->slab_next += l->state_size;
	l->slab_left--;
	memset(s, 0, l->state_size);    /* its slots below slot_lo are 0 */
	return s;
}

static void state_put(struct lifter *l, struct state *s)
{
	*(struct state **)lift_push(l, &l->spare, sizeof(s)) = s;
}

/* An incoming edge of a node (xgraph.in_edges): its source node, which
 * of the source's successors it is, and whether it is the last of them
 * to be lifted, as SRC * 4 + J * 2 + LAST. */
typedef uint32_t pedge;

static uint32_t pedge_src(pedge p)
{
	return p >> 2;
}

static const struct xedge *pedge_edge(const struct xgraph *x, pedge p)
{
	return &x->nodes[p >> 2].succ[(p >> 1) & 1];
}

/* The edge takes its source's state over (a count of the edges left per
 * node was 4 bytes a node). */
static bool pedge_last(pedge p)
{
	return p & 1;
}

static void entry_state(struct lifter *l, struct state *st)
{
	struct ssa_insn *v;
	uint32_t k;

	memset(st, 0, l->state_size);
	st->depth = 1;
	for (k = 1; k <= 5; k++) {
		v = lift_emit(l, SSA_INPUT, 0);
		v->imm = k;
		v->size = 8;
		st->regs[k] = v->id;
	}
	v = lift_emit(l, SSA_FRAME, 0);
	v->size = 8;
	lift_ptr_set(l, v->id, (struct ptrinfo){ .kind = PTR_FP });
	st->regs[ISA_REG_FP] = v->id;
	if (l->hooks) {
		uint32_t zero = lift_const(l, 0);

		for (k = 0; k <= l->hooks->nghost; k++)
			st->ghost[k] = zero;
		l->st = st;
		if (l->hooks->entry)
			l->hooks->entry(l->hooks->arg, (struct ssa_lift *)l);
	}
}

/* The state at the start of a node (its NPREDS incoming edges PE): one
 * edge carries its source's state (taken over when that was the source's
 * last successor); at a join the edges' states are merged. */
static struct state *node_state(struct lifter *l, uint32_t npreds, const pedge *pe,
				struct state **out, struct state **ins)
{
	const struct xgraph *x = l->x;
	struct state *st;
	uint32_t i;

	if (npreds == 1) {
		uint32_t src = pedge_src(pe[0]);

		if (pedge_last(pe[0])) {
			st = out[src];
			out[src] = NULL;
		} else {
			st = state_get(l);
			state_copy(l, st, out[src]);
		}
		l->st = st;
		apply_edge(l, st, &x->nodes[src], pedge_edge(x, pe[0]));
		l->blk->preds[0] = x->nodes[src].topo;
		return st;
	}
	st = state_get(l);
	l->st = st;
	for (i = 0; i < npreds; i++) {
		uint32_t src = pedge_src(pe[i]);

		/* the source's last successor takes its state over */
		if (pedge_last(pe[i])) {
			ins[i] = out[src];
			out[src] = NULL;
		} else {
			ins[i] = state_get(l);
			state_copy(l, ins[i], out[src]);
		}
		apply_edge(l, ins[i], &x->nodes[src], pedge_edge(x, pe[i]));
		l->blk->preds[i] = x->nodes[src].topo;
	}
	merge(l, ins, npreds);
	for (i = 0; i < npreds; i++)
		state_put(l, ins[i]);
	return st;
}

static int lift_graph(struct lifter *l)
{
	const struct xgraph *x = l->x;
	struct state **out, **ins;
	uint32_t i, j, t, maxp = 1;

	for (i = 0; i < x->nnodes; i++)
		if (x->in_start[i + 1] - x->in_start[i] > maxp)
			maxp = x->in_start[i + 1] - x->in_start[i];
	/* one block: out and ins */
	if ((size_t)x->nnodes + maxp <= sizeof(l->scr->out) / sizeof(*out))
		out = memset(l->scr->out, 0, sizeof(*out) * ((size_t)x->nnodes + maxp));
	else
		out = calloc_big((size_t)x->nnodes + maxp, sizeof(*out));
	ins = out + x->nnodes;
	l->state_size = state_size(x);
	/* the first states in the scratch (the slabs' count stays 0) */
	l->slab_next = l->scr->states;
	l->slab_left = (uint32_t)(sizeof(l->scr->states) / l->state_size);
	/* not zeroed: the loop below writes every block */
	l->p->blocks = arena_alloc8_unzeroed(l->a, sizeof(struct ssa_block *) * x->nnodes);
	l->p->nblocks = x->nnodes;
	for (t = 0; t < x->nnodes; t++) {
		uint32_t ni = x->order[t];
		const struct xnode *n = &x->nodes[ni];
		uint32_t npreds = x->in_start[ni + 1] - x->in_start[ni];
		struct state *st;

		begin_block(l, n, t, npreds);
		if (npreds) {
			st = node_state(l, npreds, &x->in_edges[x->in_start[ni]], out, ins);
		} else {
			/* the entry (every other node has a predecessor) */
			st = state_get(l);
			l->st = st;
			entry_state(l, st);
		}
		l->merge_end = l->insns.len;
		lift_node(l, n);
		l->p->blocks[t] = l->blk;
		l->blk->nsucc = n->nsucc;
		for (j = 0; j < n->nsucc; j++)
			l->blk->succ[j] = x->nodes[n->succ[j].to].topo;
		if (n->nsucc)
			out[ni] = st;
		else
			state_put(l, st);
	}
	while (l->slabs) {
		void *before = *(void **)l->slabs;

		free(l->slabs);
		l->slabs = before;
	}
	lift_free(l, out);
	return 0;
}

/* The value arrays' room for about the values a lift of X makes (twice
 * its instruction slots, and the monitor's): grown from 8 by doubling,
 * their reallocs were a tenth of a small program's lift. From
 * VALUES_RESERVE_MAX on buf_push goes on doubling (and marks the large
 * arrays for huge pages). */
#define VALUES_RESERVE_MAX (1u << 16)
#define VALUES_IN_ARENA_MAX 1024

static void reserve_values(struct lifter *l, const struct xgraph *x)
{
	size_t n = x->nslots < VALUES_RESERVE_MAX / 2 ? (size_t)x->nslots * 2 + 64 :
		VALUES_RESERVE_MAX;

	/* a small lift's in the arena, where it stays (no malloc, no
	 * adoption) */
	l->values_in_arena = n <= VALUES_IN_ARENA_MAX;
	l->values.data = l->values_in_arena ? arena_alloc8_unzeroed(l->a, n * sizeof(struct ssa_insn *))
					    : malloc(n * sizeof(struct ssa_insn *));
	l->values.cap = n;
	if (n <= sizeof(l->scr->pkind)) {
		l->pkind.data = l->scr->pkind;
		n = sizeof(l->scr->pkind);
	} else {
		l->pkind.data = malloc(n);
	}
	if (!l->values.data || !l->pkind.data)
		abort();
	l->pkind.cap = n;
}

/* The lifter's arrays start in SCR (struct lift_scratch); the two hash
 * tables zeroed. */
static void scratch_init(struct lifter *l, struct lift_scratch *scr)
{
	l->scr = scr;
	l->insns = (struct vec){ .data = scr->insns, .cap = sizeof(scr->insns) / sizeof(scr->insns[0]) };
	l->reorder = (struct vec){ .data = scr->reorder,
				   .cap = sizeof(scr->reorder) / sizeof(scr->reorder[0]) };
	l->spare = (struct vec){ .data = scr->spare, .cap = sizeof(scr->spare) / sizeof(scr->spare[0]) };
	l->consts = (struct vec){ .data = scr->consts, .cap = sizeof(scr->consts) / sizeof(scr->consts[0]) };
	memset(scr->ptab, 0, sizeof(scr->ptab));
	l->ptab = scr->ptab;
	l->ptab_mask = sizeof(scr->ptab) / sizeof(scr->ptab[0]) - 1;
	memset(scr->ctab, 0, sizeof(scr->ctab));
	l->ctab = scr->ctab;
	l->ctab_mask = sizeof(scr->ctab) / sizeof(scr->ctab[0]) - 1;
}

/* Full V, whose array is not malloc's (the scratch's, the arena's),
 * moved to a malloc'd one of twice its capacity, which buf_push grows */
static void vec_to_heap(struct vec *v, size_t elem_size)
{
	void *nd = malloc(v->cap * 2 * elem_size);

	if (!nd)
		abort();
	memcpy(nd, v->data, v->len * elem_size);
	v->data = nd;
	v->cap *= 2;
}

void *lift_grow(struct lifter *l, struct vec *v, size_t elem_size)
{
	if (!lift_scratch_has(l, v->data))
		return buf_grow(v, elem_size);
	vec_to_heap(v, elem_size);
	return (char *)v->data + elem_size * v->len++;
}

void lift_push_value(struct lifter *l, struct ssa_insn *in)
{
	if (l->values_in_arena && l->values.len == l->values.cap) {
		vec_to_heap(&l->values, sizeof(in));
		l->values_in_arena = false;
	}
	*(struct ssa_insn **)buf_push(&l->values, sizeof(in)) = in;
	*(uint8_t *)lift_push(l, &l->pkind, 1) = PTR_NONE;
}

void lift_vec_free(struct lifter *l, struct vec *v)
{
	if (lift_scratch_has(l, v->data))
		*v = (struct vec){0};
	else
		buf_free(v);
}

void lift_free(struct lifter *l, void *p)
{
	if (!lift_scratch_has(l, p))
		free(p);
}

int ssa_build(const struct object *o, int func, struct insn **insns,
	      const struct ssa_opts *opts, struct arena *a, struct diag *d,
	      struct ssa_prog **out)
{
	struct ssa_opts def = {0};
	struct lifter l = { .a = a, .slot_lo = SSA_SLOTS };
	struct lift_scratch scr;
	struct ssa_prog *p = arena_alloc(a, sizeof(*p));
	struct ssa_insn *undef;
	struct xgraph *x;
	uint64_t t0 = stats_now(), cfg_ns;
	uint32_t max_nodes;
	int err;

	if (!opts)
		opts = &def;
	p->o = o;
	p->func = func;
	p->loop_bound = opts->loop_bound ? opts->loop_bound : SSA_DEFAULT_LOOP_BOUND;
	l.p = p;
	l.hooks = opts->hooks;
	if (l.hooks && l.hooks->nghost > SSA_MAX_GHOST)
		return -E2BIG;
	max_nodes = opts->max_blocks ? opts->max_blocks : 1000000;
	if (opts->cache) {
		err = expand_cached(opts->cache, o, func, insns, p->loop_bound, opts->cb_bound,
				    max_nodes, d, &l.x, &cfg_ns);
	} else {
		err = expand_program(o, func, insns, p->loop_bound, opts->cb_bound, max_nodes,
				     a, d, &x);
		if (!err) {
			l.x = x;
			cfg_ns = x->cfg_ns;
		}
	}
	if (err)
		return err;
	/* a block's values, the constants, the free states: most small
	 * lifts need no more than the scratch (their growth by doubling
	 * was 3% of a lift) */
	scratch_init(&l, &scr);
	reserve_values(&l, l.x);
	p->frames = l.x->frames;
	p->nframes = l.x->nframes;
	p->cb_limited = l.x->cb_limited;
	undef = lift_emit(&l, SSA_UNDEF, 0);
	undef->size = 8;
	if (l.x->unsupported) {
		p->unsupported = l.x->unsupported;
	} else if (l.x->nnodes > UINT32_MAX / 4) {
		p->unsupported = "more than 2^30 nodes after unrolling";   /* pedge */
	} else {
		err = lift_graph(&l);
	}
	lift_place_consts(&l);
	p->values = l.values_in_arena ? l.values.data :
		arena_adopt(a, l.values.data, l.values.cap * sizeof(struct ssa_insn *));
	p->nvalues = (uint32_t)l.values.len;
	if (!err && !p->unsupported) {
		bool oob = false;

		p->unsupported = ssa_undef_use(p, scr.undef, sizeof(scr.undef), &oob);
		if (!p->unsupported && !p->bare && oob)
			p->unsupported = SSA_MAP_VALUE_OOB;
	}
	lift_vec_free(&l, &l.pkind);
	lift_vec_free(&l, &l.spare);
	lift_free(&l, l.ptab);
	lift_vec_free(&l, &l.insns);
	lift_vec_free(&l, &l.reorder);
	if (err)
		return err;
	p->ns_cfg = cfg_ns;
	p->ns_lift = stats_now() - t0;
	*out = p;
	return 0;
}
