/* absint.c - the pre-pass's walk over the DAG's paths (contract: absint.h).
 *
 * Depth first, with an explicit stack of (block, next successor, trail
 * mark). Every value is defined once on a path (the IR is a DAG in SSA), so
 * a block's definitions simply overwrite the environment; refinements of
 * values defined earlier (at BRANCH edges and ASSUMEs) go through a trail
 * and are undone when the walk backs out of the block. UNDEF is 0 in the
 * encoder and the interpreter; here it is "any value", never refined: an
 * over-approximation of 0, so what the pass proves still holds.
 */
#include "absint.h"
#include "isa.h"
#include "models.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEF_BIT   0x80000000u    /* trail entry: ID was defined here */
#define ALIAS_BIT 0x40000000u    /* trail entry: ID became an alias here */
#define CELL_MARK 0x3fffffffu    /* trail entry: a cell was pushed */
#define CELL_SCAN 512u           /* cells looked at per lookup, newest first */
#define BACK_DEPTH 8u            /* operand chains followed backward */

struct undo {
	uint32_t id;
	struct absint_val old;
};

/* What the path knows besides each value's abstract value (newest last):
 *   C_LOAD:  value ID is what a load read at ROOT + OFF (SIZE bytes, SX);
 *   C_WRITE: region REGION (ABSINT_MEM_ANY: any) may have changed;
 *   C_PART:  value ID is bytes [OFF, OFF + SIZE) of value ROOT,
 *            zero-extended;
 *   C_FACT:  `ROOT op B` is true (B a value, or 0 and the constant OFF),
 *            op JEQ or JNE, on the low halves when !SX (is64).
 * ROOT, ID and B are representatives (find). */
enum { C_LOAD, C_WRITE, C_PART, C_FACT };

struct cell {
	uint32_t root;
	uint32_t id;
	uint64_t off;
	uint32_t b;
	uint16_t region;          /* 1 + the region (absint.h: mem) */
	uint8_t kind, size, op;
	bool sx;
};

struct frame {
	uint32_t b;
	uint32_t next;            /* successor to try next */
	size_t mark;              /* trail length before entering b */
};

struct walk {
	const struct ssa_prog *p;
	const struct absint_opts *o;
	struct absint_result *r;
	struct absint_val *env;   /* by value id */
	uint8_t *def;             /* by value id: evaluated on this path */
	uint32_t *phi_arg;        /* by phi id: its operand on this path */
	struct absint_val *memo;  /* by value id: re-evaluated (stamp) */
	uint32_t *stamp, now;
	uint32_t *alias;          /* by value id: the load it reads the same cell
	                           * as on this path, or 0 */
	bool flat;                /* bare code: one flat memory */
	struct cell *cells;
	size_t ncells, capcells;
	struct undo *trail;
	size_t ntrail, captrail;
	struct frame *stack;
	size_t nstack, capstack;
	bool stop;                /* the verdict is decided: unknown */
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * elem);
	if (!p)
		abort();
	return p;
}

/* The value ID stands for on this path: the load that read the same
 * cell, or ID itself (one level: an alias is always to a value that is
 * none). */
static uint32_t find(const struct walk *w, uint32_t id)
{
	return w->alias[id] ? w->alias[id] : id;
}

static void trail_push(struct walk *w, uint32_t id)
{
	w->trail = grow(w->trail, &w->captrail, w->ntrail + 1, sizeof(*w->trail));
	w->trail[w->ntrail++].id = id;
}

/* Replace the value of ID (defined earlier on the path) by V, undoably. */
static void set(struct walk *w, uint32_t id, const struct absint_val *v)
{
	id = find(w, id);
	if (id == 0 || !w->def[id])   /* UNDEF: stays any value */
		return;
	trail_push(w, id);
	w->trail[w->ntrail - 1].old = w->env[id];
	w->env[id] = *v;
}

static void undo_to(struct walk *w, size_t mark)
{
	while (w->ntrail > mark) {
		uint32_t id = w->trail[--w->ntrail].id;

		if (id == CELL_MARK)
			w->ncells--;
		else if (id & DEF_BIT)
			w->def[id & ~DEF_BIT] = 0;
		else if (id & ALIAS_BIT)
			w->alias[id & ~ALIAS_BIT] = 0;
		else
			w->env[id] = w->trail[w->ntrail].old;
	}
}

/* A value not evaluated on this path (the encoder lets a pure value be
 * used before its place in the block order) is any value: never a stale
 * one from another path. */
static struct absint_val get(const struct walk *w, uint32_t id)
{
	id = find(w, id);
	return id == 0 || !w->def[id] ? absint_top() : w->env[id];
}

/* Define ID on this path (undone when the walk backs out). */
static void define(struct walk *w, uint32_t id, const struct absint_val *v)
{
	w->env[id] = *v;
	if (id == 0 || w->def[id])
		return;
	w->def[id] = 1;
	trail_push(w, id | DEF_BIT);
}

static bool same_val(const struct absint_val *a, const struct absint_val *b)
{
	return a->umin == b->umin && a->umax == b->umax && a->smin == b->smin &&
	       a->smax == b->smax && a->tv == b->tv && a->tm == b->tm;
}

/* ---- memory cells, parts, facts ------------------------------------------
 * Two loads of one address read one value until a write to its region
 * (the encoder reads them from one array: smt.h, smt_precheck's mem). A
 * load that finds the cell of an earlier load on the path becomes its
 * alias: one abstract value for both, refined together. A narrower load
 * inside an earlier cell is those bytes of it, and so is a mask of a
 * value (`x & 0xff`, mov32, le16): two of them of one value and bytes
 * are aliases too. Every JEQ / JNE a path takes (branches, assumes) is a
 * fact that decides the same comparison later on the path, where the
 * intervals cannot (x != 127 is not an interval). All of it is path-local
 * (pushed on the trail); a write pushes a barrier for the loads. */

/* What value ID does with memory: absint.h's codes (bare code: one flat
 * region, every load an array read, every write and call any memory). */
static uint16_t mem_code(const struct walk *w, const struct ssa_insn *v)
{
	if (w->o->mem)
		return w->o->mem[v->id];
	if (!w->flat)
		return 0;
	if (v->kind == SSA_LOAD)
		return 1;
	if (v->kind == SSA_STORE || v->kind == SSA_ATOMIC || v->kind == SSA_CALL ||
	    v->kind == SSA_TAILRET)
		return ABSINT_MEM_ANY;
	return 0;
}

static void cell_push(struct walk *w, const struct cell *c)
{
	w->cells = grow(w->cells, &w->capcells, w->ncells + 1, sizeof(*w->cells));
	w->cells[w->ncells++] = *c;
	trail_push(w, CELL_MARK);
}

/* V (just defined, value VAL) is the same value as REP on this path: one
 * abstract value for both (met), refined together. */
static void make_alias(struct walk *w, uint32_t id, uint32_t rep, const struct absint_val *val)
{
	struct absint_val m;

	rep = find(w, rep);
	if (rep == id || !w->def[rep])
		return;
	m = w->env[rep];
	if (absint_meet(&m, val) && !same_val(&m, &w->env[rep]))
		set(w, rep, &m);
	w->alias[id] = rep;
	trail_push(w, id | ALIAS_BIT);
}

/* A load's address as root + off: 64-bit additions and subtractions of a
 * constant folded (modular: the same address however grouped). */
static uint32_t addr_root(const struct walk *w, uint32_t id, uint64_t *off)
{
	unsigned n;

	for (n = 0; n < 16; n++) {
		const struct ssa_insn *v = w->p->values[id], *a, *b;

		if (v->kind != SSA_ALU || !v->is64 || v->nargs < 2)
			break;
		a = w->p->values[v->args[0]];
		b = w->p->values[v->args[1]];
		if (v->op == ISA_MOV) {
			id = v->args[1];
		} else if ((v->op == ISA_ADD || v->op == ISA_SUB) && b->kind == SSA_CONST) {
			*off += v->op == ISA_ADD ? (uint64_t)b->imm : -(uint64_t)b->imm;
			id = v->args[0];
		} else if (v->op == ISA_ADD && a->kind == SSA_CONST) {
			*off += (uint64_t)a->imm;
			id = v->args[1];
		} else {
			break;
		}
	}
	return find(w, id);
}

static struct absint_val eval_load(const struct walk *w, const struct ssa_insn *v)
{
	/* the encoder answers loads of the packet pointer fields with its
	 * own 64-bit pointer terms */
	if (w->o->ptr_loads && w->o->ptr_loads[v->id])
		return absint_top();
	return absint_width(v->size * 8u, v->sx);
}

/* Value ID (defined, its value VAL) is bytes [BYTE, BYTE + SIZE) of SRC
 * zero-extended: an alias of an earlier part of SRC with those bytes (or
 * of SRC itself when that fits), else a new part. */
static void part(struct walk *w, uint32_t id, uint32_t src, unsigned byte, unsigned size,
		 const struct absint_val *val)
{
	struct cell c = { .kind = C_PART, .root = find(w, src), .id = id, .off = byte,
			  .size = (uint8_t)size };
	struct absint_val sv = get(w, src);
	size_t i, n;

	if (!w->def[c.root])
		return;
	if (byte == 0 && (size >= 8 || sv.umax <= (1ull << (size * 8u)) - 1)) {
		make_alias(w, id, c.root, val);
		return;
	}
	for (i = w->ncells, n = 0; i-- > 0 && n < CELL_SCAN; n++) {
		const struct cell *e = &w->cells[i];

		if (e->kind == C_PART && e->root == c.root && e->off == c.off &&
		    e->size == c.size && w->def[e->id]) {
			make_alias(w, id, e->id, val);
			return;
		}
	}
	cell_push(w, &c);
}

/* LOAD V: true when V was defined here (memory cells: an alias of an
 * earlier load of the same bytes, or bytes of an earlier wider one; else
 * a new cell); false: not a cell (the caller evaluates it). */
static bool load(struct walk *w, const struct ssa_insn *v, struct absint_val *val)
{
	uint16_t region = mem_code(w, v);
	struct cell c = { .kind = C_LOAD, .off = (uint64_t)v->imm, .id = v->id, .region = region,
			  .size = v->size, .sx = v->sx };
	const struct cell *in = NULL;
	size_t i, n;

	if (!region)
		return false;
	c.root = addr_root(w, v->args[0], &c.off);
	for (i = w->ncells, n = 0; i-- > 0 && n < CELL_SCAN; n++) {
		const struct cell *e = &w->cells[i];

		if (e->kind == C_WRITE) {
			if (e->region == ABSINT_MEM_ANY || e->region == region)
				break;
			continue;
		}
		if (e->kind != C_LOAD || e->root != c.root || e->region != region ||
		    !w->def[e->id])
			continue;
		if (e->off == c.off && e->size == c.size && e->sx == c.sx) {
			*val = w->env[find(w, e->id)];
			define(w, v->id, val);
			make_alias(w, v->id, e->id, val);
			return true;
		}
		/* inside E: its bytes c.off - e.off ... (modular offsets) */
		if (!in && c.off - e->off < 8 && c.off - e->off + c.size <= e->size)
			in = e;
	}
	*val = eval_load(w, v);
	if (in) {
		struct absint_val x = get(w, in->id);

		x = absint_extract(&x, (unsigned)(c.off - in->off), c.size, c.sx);
		if (!absint_meet(val, &x))
			*val = x;     /* cannot be: a narrower load of the same bytes */
	}
	define(w, v->id, val);
	if (in && !c.sx)
		part(w, v->id, in->id, (unsigned)(c.off - in->off), c.size, val);
	c.id = find(w, v->id);
	cell_push(w, &c);
	return true;
}

/* A write (or a call that may write) V: later loads of its region miss. */
static void write_barrier(struct walk *w, const struct ssa_insn *v)
{
	struct cell c = { .kind = C_WRITE, .region = mem_code(w, v) };

	if (c.region)
		cell_push(w, &c);
}

/* ALU or UNARY V just defined (VAL): a mask of the low bytes of its
 * operand is a part of it. */
static void masks(struct walk *w, const struct ssa_insn *v, const struct absint_val *val)
{
	struct absint_val b;
	uint64_t c;

	if (v->kind == SSA_UNARY && v->op == ISA_LE && v->size < 8) {
		part(w, v->id, v->args[0], 0, v->size, val);
		return;
	}
	if (v->kind != SSA_ALU || v->nargs < 2)
		return;
	if (v->op == ISA_MOV && !v->is64) {
		part(w, v->id, v->args[1], 0, 4, val);
		return;
	}
	if (v->op != ISA_AND)
		return;
	b = get(w, v->args[1]);
	if (!absint_is_const(&b, &c))
		return;
	if (!v->is64)
		c &= 0xffffffffull;
	if (c == 0xff || c == 0xffff || c == 0xffffffffull)
		part(w, v->id, v->args[0], 0, c == 0xff ? 1 : c == 0xffff ? 2 : 4, val);
}

static uint64_t bswap_n(uint64_t x, unsigned bytes)
{
	uint64_t r = 0;
	unsigned i;

	for (i = 0; i < bytes; i++)
		r |= ((x >> (8 * i)) & 0xff) << (8 * (bytes - 1 - i));
	return r;
}

/* `ID == K` as the same comparison of what ID is computed from through
 * bijections (xor, add, sub of a constant; byte swaps and truncations of
 * a value that fits): *K adjusted, the representative returned. */
static uint32_t peel(const struct walk *w, uint32_t id, uint64_t *k)
{
	unsigned n;

	for (n = 0; n < 8; n++) {
		const struct ssa_insn *v = w->p->values[find(w, id)];
		struct absint_val y, b;
		uint64_t c, m;

		id = find(w, id);
		if (v->kind == SSA_UNARY && (v->op == ISA_LE || v->op == ISA_BE || v->op == ISA_BSWAP) &&
		    v->size < 8) {
			m = (1ull << (v->size * 8u)) - 1;
			y = get(w, v->args[0]);
			if (y.umax > m || *k > m)
				break;
			if (v->op != ISA_LE)
				*k = bswap_n(*k, v->size);
			id = v->args[0];
			continue;
		}
		if (v->kind != SSA_ALU || !v->is64 || v->nargs < 2)
			break;
		b = get(w, v->args[1]);
		if (!absint_is_const(&b, &c))
			break;
		if (v->op == ISA_XOR)
			*k ^= c;
		else if (v->op == ISA_ADD)
			*k -= c;
		else if (v->op == ISA_SUB)
			*k += c;
		else
			break;
		id = v->args[0];
	}
	return find(w, id);
}

/* A comparison `A op B` (JEQ / JNE) in the facts' form: a 32-bit one of
 * operands that fit is a 64-bit one; a constant B is K (and *B 0);
 * false: not one the facts keep. */
static bool fact_form(const struct walk *w, unsigned op, bool is64, uint32_t *a, uint32_t *b,
		      uint64_t *k)
{
	struct absint_val x = get(w, *a), y = get(w, *b);
	uint64_t ka, kb;
	bool ca = absint_is_const(&x, &ka), cb = absint_is_const(&y, &kb);
	uint32_t t;

	if (op != ISA_JEQ && op != ISA_JNE)
		return false;
	if (!is64 && x.umax <= 0xffffffffull && y.umax <= 0xffffffffull)
		is64 = true;
	if (!is64 || (ca && cb))      /* two constants: the intervals decide */
		return false;
	if (!ca && !cb) {
		*a = find(w, *a);
		*b = find(w, *b);
		if (*a > *b) {
			t = *a;
			*a = *b;
			*b = t;
		}
		*k = 0;
		return *a != 0;
	}
	if (ca)
		*a = *b;
	*k = ca ? ka : kb;
	*a = peel(w, *a, k);
	*b = 0;
	return *a != 0;
}

/* What the path's facts say of `A op B`: 1 true, 0 false, -1 nothing. */
static int fact_decide(const struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b)
{
	uint64_t k;
	size_t i, n;

	if (!fact_form(w, op, is64, &a, &b, &k))
		return -1;
	for (i = w->ncells, n = 0; i-- > 0 && n < CELL_SCAN; n++) {
		const struct cell *e = &w->cells[i];

		if (e->kind != C_FACT || e->root != a || e->b != b)
			continue;
		if (e->off == k)
			return e->op == op;
		/* a == k' decides a == k for another constant k */
		if (!b && e->op == ISA_JEQ)
			return op == ISA_JNE;
	}
	return -1;
}

/* `A op B` (JEQ / JNE) is true on this path from here on. */
static void fact_push(struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b)
{
	struct cell c = { .kind = C_FACT, .op = (uint8_t)op };

	if (!fact_form(w, op, is64, &a, &b, &c.off))
		return;
	c.root = a;
	c.b = b;
	cell_push(w, &c);
}

/* ---- backward: what a refined value is computed from ---------------- */

static bool back(struct walk *w, uint32_t id, unsigned depth);

/* Value ID (defined on the path) is also in T: met, and followed back;
 * false: no run is left. */
static bool narrow(struct walk *w, uint32_t id, const struct absint_val *t, unsigned depth)
{
	struct absint_val y;

	id = find(w, id);
	if (id == 0 || !w->def[id])
		return true;
	y = w->env[id];
	if (!absint_meet(&y, t))
		return false;
	if (same_val(&y, &w->env[id]))
		return true;
	set(w, id, &y);
	return back(w, id, depth);
}

/* The constant operand of ALU V and the other one (*Y; *LHS: the
 * constant is the first), from their values on this path. */
static bool const_operand(const struct walk *w, const struct ssa_insn *v, uint32_t *y,
			  uint64_t *c, bool *lhs)
{
	struct absint_val a, b;

	if (v->nargs < 2)
		return false;
	b = get(w, v->args[1]);
	if (v->op == ISA_MOV) {       /* the source is args[1] */
		*y = v->args[1];
		*c = 0;
		*lhs = false;
		return true;
	}
	if (absint_is_const(&b, c)) {
		*y = v->args[0];
		*lhs = false;
		return true;
	}
	a = get(w, v->args[0]);
	if (absint_is_const(&a, c)) {
		*y = v->args[1];
		*lhs = true;
		return true;
	}
	return false;
}

/* ID's value was narrowed on this path: narrow the operand it is computed
 * from where that is exact enough (an ALU op with a constant, bytes of a
 * slot value, a phi's operand on this path). */
static bool back(struct walk *w, uint32_t id, unsigned depth)
{
	const struct ssa_insn *v = w->p->values[id];
	struct absint_val x, t;
	uint64_t c;
	uint32_t y;
	bool lhs;

	if (depth == 0 || !w->def[id])
		return true;
	x = w->env[id];
	if (v->kind == SSA_PHI)
		return narrow(w, w->phi_arg[id], &x, depth - 1);
	if (v->kind == SSA_ALU) {
		if (!const_operand(w, v, &y, &c, &lhs) ||
		    !absint_invert_alu(v->op, v->is64, lhs, &x, c, &t))
			return true;
		return narrow(w, y, &t, depth - 1);
	}
	if (v->kind == SSA_EXTRACT) {
		t = absint_invert_extract(&x, (unsigned)v->imm, v->size);
		return narrow(w, v->args[0], &t, depth - 1);
	}
	return true;
}

/* Restrict A and B to `A op B` (or its negation), and what they are
 * computed from; false: infeasible. */
static bool refine_cmp(struct walk *w, unsigned op, bool is64, bool taken, uint32_t a,
		       uint32_t b)
{
	struct absint_val x = get(w, a), y = get(w, b);
	bool one = find(w, a) == find(w, b);
	int f = fact_decide(w, op, is64, a, b);

	if (f >= 0 && f != taken)
		return false;
	if (!absint_refine(op, is64, taken, &x, &y))
		return false;
	if (one && a != 0 && !absint_meet(&x, &y))
		return false;
	if (f < 0 && (op == ISA_JEQ || op == ISA_JNE))
		fact_push(w, taken == (op == ISA_JEQ) ? ISA_JEQ : ISA_JNE, is64, a, b);
	set(w, a, &x);
	if (!one)
		set(w, b, &y);
	return back(w, find(w, a), BACK_DEPTH) && (one || back(w, find(w, b), BACK_DEPTH));
}

static bool is_bool(const struct walk *w, uint32_t id)
{
	struct absint_val v = get(w, id);

	return id != 0 && w->def[find(w, id)] && v.umax <= 1;
}

static bool is_zero(const struct walk *w, uint32_t id)
{
	struct absint_val v = get(w, id);
	uint64_t c;

	return absint_is_const(&v, &c) && c == 0;
}

static bool is_one(const struct walk *w, uint32_t id)
{
	struct absint_val v = get(w, id);
	uint64_t c;

	return absint_is_const(&v, &c) && c == 1;
}

/* Value ID is non-zero (TRUTH) or zero on this path: restrict it and what
 * it is computed from (comparisons, and/or/not of booleans). */
static bool refine_bool(struct walk *w, uint32_t id, bool truth, unsigned depth)
{
	const struct ssa_insn *v = w->p->values[id];
	struct absint_val zero = absint_const(0), x;

	if (id == 0)
		return true;
	x = get(w, id);
	if (!absint_refine(ISA_JNE, true, truth, &x, &zero))
		return false;
	set(w, id, &x);
	if (depth >= 16)
		return true;
	if (v->kind == SSA_CMP) {
		if (!refine_cmp(w, v->op, true, truth, v->args[0], v->args[1]))
			return false;
		/* x == 0 / x != 0 of a boolean x */
		if ((v->op == ISA_JEQ || v->op == ISA_JNE) && v->args[1] != 0 &&
		    is_zero(w, v->args[1]) && is_bool(w, v->args[0]))
			return refine_bool(w, v->args[0], (v->op == ISA_JNE) == truth, depth + 1);
		return true;
	}
	if (v->kind != SSA_ALU || !v->is64 || !is_bool(w, v->args[0]) || !is_bool(w, v->args[1]))
		return true;
	if (v->op == ISA_AND && truth)
		return refine_bool(w, v->args[0], true, depth + 1) &&
		       refine_bool(w, v->args[1], true, depth + 1);
	if (v->op == ISA_OR && !truth)
		return refine_bool(w, v->args[0], false, depth + 1) &&
		       refine_bool(w, v->args[1], false, depth + 1);
	if (v->op == ISA_XOR && is_one(w, v->args[1]))
		return refine_bool(w, v->args[0], !truth, depth + 1);
	return true;
}

/* A helper's or kfunc's result as its model (models.h) bounds it for the
 * encoder (smt_mem.c: model_ret); bare code: any value. */
static struct absint_val call_val(const struct walk *w, const struct ssa_insn *v,
				  const struct absint_val *args)
{
	const struct ssa_prog *p = w->p;
	const struct helper_model *m = NULL;
	const struct kfunc_model *km;
	struct helper_model hm;
	struct absint_val r = absint_top(), x, y;

	if (!p->o || p->bare)
		return r;
	if (v->ref.kind == INSN_REF_HELPER) {
		m = model_helper((int)v->imm);
	} else if (v->ref.kind == INSN_REF_KFUNC) {
		km = model_kfunc(p->o->kfuncs[v->ref.index].name);
		if (km) {
			hm = (struct helper_model){ .ret = km->ret, .lo = km->lo, .hi = km->hi,
						    .sign = km->sign };
			m = &hm;
		}
	}
	if (!m)
		return r;
	switch (m->ret) {
	case MODEL_RET_RANGE:
		if (m->sign) {
			r.smin = m->lo;
			r.smax = m->hi;
		} else {
			r.umin = (uint64_t)m->lo;
			r.umax = (uint64_t)m->hi;
		}
		break;
	case MODEL_RET_ERRNO:
	case MODEL_RET_SKB_LOAD:        /* 0 or -EFAULT: within the errno range */
		r.smin = -4095;
		r.smax = 0;
		break;
	case MODEL_RET_REDIRECT_MAP:
		/* flags outside 0x1b: XDP_ABORTED; else XDP_REDIRECT or flags & 3 */
		x = absint_const(4);
		y = absint_const(3);
		y = absint_alu(ISA_AND, true, &args[2], &y);
		x = absint_join(&x, &y);
		if (!((args[2].tv | args[2].tm) & ~0x1bull))
			return x;
		y = absint_const(0);
		return (args[2].tv & ~0x1bull) ? y : absint_join(&x, &y);
	case MODEL_RET_REDIRECT:
		if (p->o->funcs[p->func].prog_type == BPF_PROG_TYPE_XDP) {
			x = absint_const(0);
			y = absint_const(4);
		} else {
			x = absint_const(2);
			y = absint_const(7);
		}
		return absint_join(&x, &y);
	case MODEL_RET_ANY: case MODEL_RET_VOID: case MODEL_RET_MAP_VALUE:
	case MODEL_RET_RINGBUF: case MODEL_RET_KPTR:
		return r;
	}
	if (!absint_sync(&r))
		return absint_top();
	return r;
}

/* The abstract value of V (not a phi, assume or assert) from the values of
 * its operands ARGS (the first four). */
static struct absint_val eval_with(struct walk *w, const struct ssa_insn *v,
				   const struct absint_val *args)
{
	struct absint_val x, y;
	int c;

	switch (v->kind) {
	case SSA_CONST:
		return absint_const((uint64_t)v->imm);
	case SSA_ALU:
		return absint_alu(v->op, v->is64, &args[0], &args[1]);
	case SSA_UNARY:
		return absint_unary(v->op, v->is64, v->size, &args[0]);
	case SSA_LOAD:
		return eval_load(w, v);
	case SSA_ATOMIC:
		return absint_width(v->size * 8u, false);
	case SSA_SLOTLOAD:
		return absint_width(v->size * 8u, v->sx);
	case SSA_EXTRACT:
		return absint_extract(&args[0], (unsigned)v->imm, v->size, v->sx);
	case SSA_INSERT:
		return absint_insert(&args[0], &args[1], (unsigned)v->imm, v->size);
	case SSA_SELECT:
		x = absint_extract(&args[0], 0, v->size, false);
		y = absint_extract(&args[1], 0, v->size, false);
		c = absint_cond(ISA_JEQ, true, &x, &y);
		return c == 1 ? args[2] : c == 0 ? args[3] : absint_join(&args[2], &args[3]);
	case SSA_CMP:
		c = absint_cond(v->op, true, &args[0], &args[1]);
		if (c < 0)
			c = fact_decide(w, v->op, true, v->args[0], v->args[1]);
		return c < 0 ? absint_width(1, false) : absint_const((uint64_t)c);
	case SSA_PKTW:
		return absint_width(1, false);
	case SSA_CALL:
		return call_val(w, v, args);
	case SSA_UNDEF: case SSA_INPUT: case SSA_FRAME: case SSA_ADDR: case SSA_STORE:
	case SSA_LDPKT: case SSA_SLOTSTORE: case SSA_HAVOC: case SSA_TAILRET:
	case SSA_PHI: case SSA_ASSUME: case SSA_ASSERT: case SSA_NKINDS:
		break;
	}
	return absint_top();
}

static struct absint_val eval(struct walk *w, const struct ssa_insn *v)
{
	struct absint_val args[4];
	uint32_t i;

	for (i = 0; i < v->nargs && i < 4; i++)
		args[i] = get(w, v->args[i]);
	return eval_with(w, v, args);
}

static bool pure(enum ssa_kind k)
{
	return k == SSA_ALU || k == SSA_UNARY || k == SSA_EXTRACT || k == SSA_INSERT ||
	       k == SSA_SELECT || k == SSA_CMP || k == SSA_PHI;
}

/* ID computed again from its operands' values now (refined by the edges
 * and assumes since it was defined), met with its value: both hold of the
 * one value on this path. DEPTH bounds the operand chains followed. */
static struct absint_val reeval(struct walk *w, uint32_t id, unsigned depth)
{
	const struct ssa_insn *v;
	struct absint_val args[4], r;
	uint32_t i;

	id = find(w, id);           /* an alias: its representative's value */
	v = w->p->values[id];
	if (id == 0 || depth == 0 || !pure(v->kind))
		return get(w, id);
	if (!w->def[id])
		return absint_top();
	if (w->stamp[id] == w->now)
		return w->memo[id];
	w->r->steps++;
	if (v->kind == SSA_PHI) {
		r = reeval(w, w->phi_arg[id], depth - 1);
	} else {
		for (i = 0; i < v->nargs && i < 4; i++)
			args[i] = reeval(w, v->args[i], depth - 1);
		r = eval_with(w, v, args);
	}
	if (!absint_meet(&r, &w->env[id]))
		r = w->env[id];   /* no run gets here: keep the plain value */
	w->stamp[id] = w->now;
	w->memo[id] = r;
	return r;
}

static struct absint_val reeval_top(struct walk *w, uint32_t id)
{
	if (++w->now == 0) {      /* wrapped: forget every stamp */
		memset(w->stamp, 0, sizeof(*w->stamp) * w->p->nvalues);
		w->now = 1;
	}
	return reeval(w, id, 48);
}

static void give_up(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void give_up(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	w->stop = true;
	w->r->verdict = ABSINT_UNKNOWN;
	va_start(ap, fmt);
	vsnprintf(w->r->reason, sizeof(w->r->reason), fmt, ap);
	va_end(ap);
}

/* The index of the edge FROM -> B that successor J of FROM is. */
static uint32_t edge_index(const struct ssa_prog *p, uint32_t from, unsigned j, uint32_t b)
{
	const struct ssa_block *f = p->blocks[from], *t = p->blocks[b];
	uint32_t i;

	for (i = 0; i < t->npreds; i++)
		if (t->preds[i] == from)
			break;
	if (j == 1 && f->nsucc == 2 && f->succ[0] == f->succ[1])
		i++;
	return i;
}

/* Run block B's instructions entered through edge EDGE; false: no run
 * gets through it (an assume cannot hold) or the walk stops. */
static bool run_block(struct walk *w, uint32_t b, uint32_t edge)
{
	const struct ssa_block *blk = w->p->blocks[b];
	uint32_t i;

	for (i = 0; i < blk->ninsns; i++) {
		const struct ssa_insn *v = blk->insns[i];
		struct absint_val c;

		if (++w->r->steps > w->o->budget) {
			give_up(w, "budget: more than %" PRIu64 " instructions on the paths walked",
				w->o->budget);
			return false;
		}
		if (v->kind == SSA_PHI) {
			if (edge >= v->nargs) {
				give_up(w, "internal: phi v%u has no operand for edge %u", v->id, edge);
				return false;
			}
			c = get(w, v->args[edge]);
			define(w, v->id, &c);
			w->phi_arg[v->id] = v->args[edge];
		} else if (v->kind == SSA_ASSUME) {
			if (!refine_bool(w, v->args[0], true, 0))
				return false;
		} else if (v->kind == SSA_ASSERT) {
			c = get(w, v->args[0]);
			if (absint_contains(&c, 0))
				c = reeval_top(w, v->args[0]);
			if (absint_contains(&c, 0)) {
				char buf[120];

				absint_format(&c, buf, sizeof(buf));
				give_up(w, "assert v%u (site %lld) in b%u: its condition v%u may be 0: %s",
					v->id, (long long)v->imm, b, v->args[0], buf);
				return false;
			}
		} else if (v->kind != SSA_LOAD || !load(w, v, &c)) {
			c = eval(w, v);
			define(w, v->id, &c);
			masks(w, v, &c);
			if (v->kind == SSA_STORE || v->kind == SSA_ATOMIC || v->kind == SSA_CALL ||
			    v->kind == SSA_TAILRET)
				write_barrier(w, v);
		}
	}
	return true;
}

/* Reached the end of block B (a path is complete at EXIT). */
static void at_end(struct walk *w, uint32_t b)
{
	const struct ssa_block *blk = w->p->blocks[b];
	struct absint_val r0;

	if (blk->term == SSA_TERM_UNWIND) {
		w->r->unwinds++;
		give_up(w, "loop bound: the unwinding marker b%u may be reached", b);
		return;
	}
	if (blk->term != SSA_TERM_EXIT)
		return;
	w->r->paths++;
	r0 = get(w, blk->a);
	w->r->r0 = w->r->exits ? absint_join(&w->r->r0, &r0) : r0;
	w->r->exits++;
	if (w->o->at_exit)
		w->o->at_exit(w->o->arg, blk, &r0);
}

static void push(struct walk *w, uint32_t b, size_t mark)
{
	w->stack = grow(w->stack, &w->capstack, w->nstack + 1, sizeof(*w->stack));
	w->stack[w->nstack++] = (struct frame){ .b = b, .next = 0, .mark = mark };
}

/* Follow successor J of block F: refine the edge, run the block. */
static void step(struct walk *w, uint32_t f, unsigned j)
{
	const struct ssa_block *blk = w->p->blocks[f];
	uint32_t to = blk->succ[j];
	size_t mark = w->ntrail;

	if (blk->term == SSA_TERM_BRANCH &&
	    !refine_cmp(w, blk->cond_op, blk->cond64, j == 0, blk->a, blk->b)) {
		undo_to(w, mark);
		return;
	}
	if (!run_block(w, to, edge_index(w->p, f, j, to))) {
		undo_to(w, mark);
		return;
	}
	at_end(w, to);
	if (w->stop || w->p->blocks[to]->nsucc == 0 ||
	    w->p->blocks[to]->term == SSA_TERM_EXIT || w->p->blocks[to]->term == SSA_TERM_UNWIND) {
		undo_to(w, mark);
		return;
	}
	push(w, to, mark);
}

void absint_prove(const struct ssa_prog *p, const struct absint_opts *o,
		  struct absint_result *r)
{
	struct absint_opts dflt = { .budget = ABSINT_DEFAULT_BUDGET };
	struct walk w = { .p = p, .r = r };

	memset(r, 0, sizeof(*r));
	r->verdict = ABSINT_PROVED;
	if (!o)
		o = &dflt;
	if (!o->budget) {
		dflt = *o;
		dflt.budget = ABSINT_DEFAULT_BUDGET;
		o = &dflt;
	}
	w.o = o;
	if (!p->nblocks) {
		give_up(&w, "the program has no blocks");
		return;
	}
	if (p->nvalues >= CELL_MARK) {  /* the trail's codes */
		give_up(&w, "the program has %u values", p->nvalues);
		return;
	}
	w.env = malloc(sizeof(*w.env) * (p->nvalues ? p->nvalues : 1));
	if (!w.env)
		abort();
	for (uint32_t i = 0; i < p->nvalues; i++)
		w.env[i] = absint_top();
	w.def = calloc(p->nvalues ? p->nvalues : 1, 1);
	w.alias = calloc(p->nvalues ? p->nvalues : 1, sizeof(*w.alias));
	w.flat = !p->o || p->bare;
	w.phi_arg = calloc(p->nvalues ? p->nvalues : 1, sizeof(*w.phi_arg));
	w.stamp = calloc(p->nvalues ? p->nvalues : 1, sizeof(*w.stamp));
	w.memo = malloc(sizeof(*w.memo) * (p->nvalues ? p->nvalues : 1));
	if (!w.def || !w.alias || !w.phi_arg || !w.stamp || !w.memo)
		abort();
	if (run_block(&w, 0, 0)) {
		at_end(&w, 0);
		if (!w.stop && p->blocks[0]->nsucc)
			push(&w, 0, 0);
	}
	while (w.nstack && !w.stop) {
		struct frame *f = &w.stack[w.nstack - 1];
		const struct ssa_block *blk = p->blocks[f->b];

		if (f->next >= blk->nsucc) {
			undo_to(&w, f->mark);
			w.nstack--;
			continue;
		}
		step(&w, f->b, f->next++);
	}
	free(w.env);
	free(w.phi_arg);
	free(w.def);
	free(w.alias);
	free(w.cells);
	free(w.stamp);
	free(w.memo);
	free(w.trail);
	free(w.stack);
}
