/* absint_path.c - what the pre-pass's walk knows besides intervals and
 * known bits (contract: absint.h; the walk: absint.c).
 */
#include "absint_priv.h"
#include "isa.h"
#include "smt.h"

#include <string.h>

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

void absint_cell_push(struct walk *w, const struct cell *c)
{
	struct cell *e;

	w->cells = grow(w->cells, &w->capcells, w->ncells + 1, sizeof(*w->cells));
	e = &w->cells[w->ncells++];
	*e = *c;
	e->prevk = w->lastk[c->kind];
	w->lastk[c->kind] = (uint32_t)w->ncells;
	if (cell_is_mem(c->kind)) {
		e->prevm = w->lastm;
		w->lastm = (uint32_t)w->ncells;
	} else if (c->kind == C_FACT) {
		e->prevr = w->lastr[c->root];
		w->lastr[c->root] = (uint32_t)w->ncells;
	}
	trail_push(w, CELL_MARK);
}

/* V (just defined, value VAL) is the same value as REP on this path: one
 * abstract value for both (met), refined together. */
static void make_alias(struct walk *w, uint32_t id, uint32_t rep, const struct absint_val *val)
{
	struct absint_val m;

	rep = find(w, rep);
	if (rep == id || !w->def[rep] || w->alias[id] != id)
		return;
	m = w->env[rep];
	if (absint_meet(&m, val) && !same_val(&m, &w->env[rep]))
		set(w, rep, &m);
	w->alias[id] = rep;
	trail_push(w, id | ALIAS_BIT);
}

void absint_alias(struct walk *w, uint32_t id, uint32_t rep, const struct absint_val *val)
{
	make_alias(w, id, rep, val);
}

/* ---- classes of equal values ---------------------------------------------
 * Two values of the same pure operation (ALU, UNARY, EXTRACT, INSERT,
 * SELECT, CMP: the same op, widths and constant) of the same operands
 * are equal in every run where both are computed, and so are two
 * constants of one value and two addresses of one map, map value or
 * global (the encoder's constants, smt_mem.c mem_addr; a fresh value in
 * bare code). The instrumentation computes a monitor's reads again after
 * the program has (the key of a lookup, extract of the same stack slot):
 * one class makes them one value on the path, so `key == arg2` is
 * decided. Operands are compared by class where the operand's was known
 * first (ids ascending), else by id: a superset of nothing, never a
 * claim that two values are equal when they may differ. */
static bool classed(const struct ssa_prog *p, const struct ssa_insn *v)
{
	uint32_t i;

	/* the kind first: a phi's or a call's operands are not looked at */
	if (v->kind == SSA_ADDR) {
		if (!(p->o && !p->bare && (v->ref->kind == INSN_REF_MAP ||
					   v->ref->kind == INSN_REF_MAP_VALUE ||
					   v->ref->kind == INSN_REF_GLOBAL)))
			return false;
	} else if (!((v->kind == SSA_CONST || v->kind == SSA_ALU || v->kind == SSA_UNARY ||
		      v->kind == SSA_EXTRACT || v->kind == SSA_INSERT ||
		      v->kind == SSA_SELECT || v->kind == SSA_CMP) && v->nargs <= 4)) {
		return false;
	}
	for (i = 0; i < v->nargs; i++)
		if (v->args[i] == 0)      /* UNDEF: no one value */
			return false;
	return true;
}

static uint32_t arg_class(const uint32_t *canon, const struct ssa_insn *v, uint32_t i)
{
	uint32_t a = v->args[i];

	return a < v->id && canon[a] ? canon[a] : a;
}

static uint64_t class_hash(const uint32_t *canon, const struct ssa_insn *v)
{
	uint64_t h = (uint64_t)v->kind * 0x9e3779b97f4a7c15ull;
	uint32_t i;

	h ^= ((uint64_t)v->op << 8 | (uint64_t)v->size << 16 | (uint64_t)v->is64 << 24 |
	      (uint64_t)v->sx << 25 | (uint64_t)v->nargs << 26);
	h = (h ^ (uint64_t)v->imm) * 0xff51afd7ed558ccdull;
	if (v->kind == SSA_ADDR)
		h = (h ^ ((uint64_t)v->ref->kind << 32 | (uint32_t)v->ref->index) ^
		     ((uint64_t)v->ref->off << 7)) * 0xc4ceb9fe1a85ec53ull;
	for (i = 0; i < v->nargs; i++)
		h = (h ^ arg_class(canon, v, i)) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static bool same_class(const uint32_t *canon, const struct ssa_insn *a, const struct ssa_insn *b)
{
	uint32_t i;

	if (a->kind != b->kind || a->op != b->op || a->size != b->size || a->is64 != b->is64 ||
	    a->sx != b->sx || a->nargs != b->nargs || a->imm != b->imm)
		return false;
	if (a->kind == SSA_ADDR && (a->ref->kind != b->ref->kind || a->ref->index != b->ref->index ||
				    a->ref->off != b->ref->off))
		return false;
	for (i = 0; i < a->nargs; i++)
		if (arg_class(canon, a, i) != arg_class(canon, b, i))
			return false;
	return true;
}

/* Slots of an open-addressing table of value ids for N values (a power
 * of two, at most half full). */
static size_t table_slots(uint32_t n)
{
	size_t size = 64;

	while (size < 2ull * n)
		size *= 2;
	return size;
}

size_t absint_canon_slots(size_t nvalues)
{
	return table_slots((uint32_t)nvalues);
}

void absint_canon(const struct ssa_prog *p, uint32_t *canon, uint32_t *tab)
{
	uint32_t n = p->nvalues ? p->nvalues : 1, id;
	size_t mask = table_slots(n) - 1;

	canon[0] = 0;
	for (id = 1; id < p->nvalues; id++) {
		const struct ssa_insn *v = p->values[id];
		size_t i;

		if (!v || !classed(p, v)) {
			canon[id] = 0;
			continue;
		}
		for (i = class_hash(canon, v) & mask; tab[i]; i = (i + 1) & mask)
			if (same_class(canon, p->values[tab[i]], v))
				break;
		if (!tab[i])
			tab[i] = id;
		canon[id] = tab[i];
	}
}

/* X with register moves skipped (mov32 too: only used under masks that
 * keep the low 32 bits). */
static uint32_t unmoved(const struct ssa_prog *p, uint32_t x)
{
	unsigned n;

	for (n = 0; n < 8 && x; n++) {
		const struct ssa_insn *v = p->values[x];

		if (v->kind != SSA_ALU || v->op != ISA_MOV || v->nargs < 2)
			break;
		x = v->args[1];
	}
	return x;
}

/* V = X & C (ALU AND, C a constant below 2^32): *X, *C. */
static bool and_const(const struct ssa_prog *p, const struct ssa_insn *v, uint32_t *x, uint64_t *c)
{
	const struct ssa_insn *k;

	if (v->kind != SSA_ALU || v->op != ISA_AND || v->nargs < 2 || !v->args[0] || !v->args[1])
		return false;
	k = p->values[v->args[1]];
	if (k->kind != SSA_CONST || (uint64_t)k->imm > 0xffffffffull)
		return false;
	*x = unmoved(p, v->args[0]);
	*c = (uint64_t)k->imm;
	return *x != 0;
}

/* The slot of TAB (MASK + 1 slots) holding the first `X & M`, or the
 * empty slot where it goes. */
static size_t and_slot(const struct ssa_prog *p, const uint32_t *tab, size_t mask, uint32_t x,
		       uint64_t m)
{
	size_t i;

	for (i = (x * 0x9e3779b1u ^ m * 0x85ebca6bu) & mask; tab[i]; i = (i + 1) & mask) {
		uint32_t x2;
		uint64_t m2;

		if (and_const(p, p->values[tab[i]], &x2, &m2) && x2 == x && m2 == m)
			break;
	}
	return i;
}

/* V = (X << K) & C with C's low K bits 0 (K in 1..31): *X (moves
 * skipped), *M = C >> K and *K; it is (X & M) << K. */
static bool shl_and(const struct ssa_prog *p, const struct ssa_insn *v, uint32_t *x,
		    uint64_t *m, unsigned *k)
{
	const struct ssa_insn *l, *kv;
	uint32_t y;
	uint64_t c;

	if (!v || !and_const(p, v, &y, &c))
		return false;
	l = p->values[y];
	if (l->kind != SSA_ALU || l->op != ISA_LSH || l->nargs < 2 || !l->args[0])
		return false;
	kv = p->values[l->args[1]];
	if (kv->kind != SSA_CONST || kv->imm <= 0 || kv->imm >= 32 ||
	    (c & ((1ull << kv->imm) - 1)))
		return false;
	*x = unmoved(p, l->args[0]);
	*m = c >> kv->imm;
	*k = (unsigned)kv->imm;
	return true;
}

bool absint_shifted(const struct ssa_prog *p, uint32_t *of, uint8_t *by)
{
	uint32_t n = p->nvalues, id, first, x, *tab;
	size_t size = table_slots(n), mask = size - 1, i;
	uint64_t m;
	unsigned k;

	/* most programs have none: then no table of masks (an AND first:
	 * the test shl_and starts with, here without a call per value) */
	for (first = 1; first < n; first++) {
		const struct ssa_insn *v = p->values[first];

		if (v && v->kind == SSA_ALU && v->op == ISA_AND && shl_and(p, v, &x, &m, &k))
			break;
	}
	if (first >= n)
		return true;
	tab = calloc(size, sizeof(*tab));
	if (!tab)
		return false;
	/* every X & M by (X, M) */
	for (id = 1; id < n; id++) {
		if (!p->values[id] || !and_const(p, p->values[id], &x, &m))
			continue;
		i = and_slot(p, tab, mask, x, m);
		if (!tab[i])
			tab[i] = id;
	}
	/* (X << K) & C with C's low K bits 0 is (X & (C >> K)) << K */
	for (id = first; id < n; id++) {
		if (!shl_and(p, p->values[id], &x, &m, &k))
			continue;
		i = and_slot(p, tab, mask, x, m);
		if (tab[i]) {
			of[id] = tab[i];
			by[id] = (uint8_t)k;
		}
	}
	free(tab);
	return true;
}

void absint_hold_alias(struct walk *w, uint32_t id, uint32_t h, const struct absint_val *val)
{
	make_alias(w, id, h, val);
}

/* A load's address as root + off: 64-bit additions and subtractions of a
 * constant folded (modular: the same address however grouped). The
 * address of a global or of a map's value (an ADDR of an object's
 * program, where the encoder makes it a constant, smt_mem.c mem_addr) is
 * one root per data section or map, whichever value computes it: the
 * program's load of a global and the monitor's read of it are one cell.
 * Such roots are ROOT_CONST | kind | index, above every value id
 * (absint_priv.h). */
static uint32_t addr_root(const struct walk *w, uint32_t id, uint64_t *off)
{
	unsigned n;

	for (n = 0; n < 16; n++) {
		const struct ssa_insn *v = w->p->values[id], *a, *b;

		if (v->kind == SSA_ADDR && w->o->mem && !w->flat && v->ref->index >= 0 &&
		    (unsigned)v->ref->index < ROOT_GLOBAL &&
		    (v->ref->kind == INSN_REF_GLOBAL || v->ref->kind == INSN_REF_MAP_VALUE)) {
			*off += (uint64_t)v->ref->off;
			return ROOT_CONST | (v->ref->kind == INSN_REF_GLOBAL ? ROOT_GLOBAL : 0) |
			       (uint32_t)v->ref->index;
		}
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

struct absint_val absint_eval_load(const struct walk *w, const struct ssa_insn *v)
{
	/* the encoder answers loads of the packet pointer fields with its
	 * own 64-bit pointer terms (smt_mem.c mem_begin): before any call on
	 * the path they are the entry's, data = SMT_PKT_BASE + headroom,
	 * data_end = data + pkt_len (pkt_len <= SMT_PKT_MAX), data - 32 <=
	 * data_meta <= data + 1; a call may move them (packet_adjust) */
	if (w->o->ptr_loads && w->o->ptr_loads[v->id]) {
		const uint64_t d = SMT_PKT_BASE + SMT_PKT_HEADROOM;

		if (w->ncalls)
			return absint_top();
		switch (w->o->ptr_loads[v->id]) {
		case SMT_PTR_DATA:
			return absint_const(d);
		case SMT_PTR_END:
			return absint_range(d, d + SMT_PKT_MAX);
		default:
			return absint_range(d - 32, d + 1);
		}
	}
	return absint_width(v->size * 8u, v->sx);
}

/* Value ID (defined, its value VAL) is bytes [BYTE, BYTE + SIZE) of SRC
 * zero-extended: an alias of an earlier part of SRC with those bytes (or
 * of SRC itself when that fits), else a new part. */
static void part(struct walk *w, uint32_t id, uint32_t src, unsigned byte, unsigned size,
		 const struct absint_val *val)
{
	uint32_t root = find(w, src);
	const struct cell *e;
	struct cell_it it;

	if (!w->def[root])
		return;
	/* (most are a mov32 of a value that fits: its value read in place) */
	if (byte == 0 && (size >= 8 || w->env[root].umax <= (1ull << (size * 8u)) - 1)) {
		make_alias(w, id, root, val);
		return;
	}
	for (e = kind_first(w, &it, C_PART); e; e = cell_next(w, &it)) {
		if (e->root == root && e->off == byte && e->size == (uint8_t)size && w->def[e->id]) {
			make_alias(w, id, e->id, val);
			return;
		}
	}
	absint_cell_push(w, &(struct cell){ .kind = C_PART, .root = root, .id = id, .off = byte,
					    .size = (uint8_t)size });
}

/* Write cell E hides from a load (cell C) what was known of its bytes:
 * a write to another region does not; one at a constant address (OP 1)
 * only where it overlaps C's bytes of the same constant root (any other
 * root may point anywhere in the region). */
static inline bool blocks(const struct cell *e, const struct cell *c)
{
	if (e->region == ABSINT_MEM_ANY)
		return true;
	if (e->region != c->region)
		return false;
	if (!e->op || e->root != c->root || !(c->root & ROOT_CONST))
		return true;
	return c->off - e->off < e->size || e->off - c->off < c->size;
}

/* A new load ID (its cell C, zero-extended, not inside an earlier one)
 * over the bytes of earlier narrower loads of its root since the last
 * write to its region (the program's byte loads, then the spec's exit
 * read of a u16 over them): those bytes of it are theirs (met), and each
 * is recorded as a part of it, so that narrowing either narrows the
 * other (absint.c back, whole). At most 8 parts: the cells AT (1 + their
 * index, newest first, N of them) absint_load's scan found (narrower
 * loads of C's bytes: it_parts). */
#define LOAD_PARTS 8u
static void has_parts(struct walk *w, uint32_t id, const struct cell *c, const uint32_t *at,
		      unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct cell *e = &w->cells[at[i] - 1];   /* (a push may move them) */
		uint64_t d = e->off - c->off;
		struct absint_val x, y;

		x = w->env[find(w, id)];
		y = get(w, e->id);
		y = absint_insert(&x, &y, (unsigned)d, e->size);
		if (absint_meet(&x, &y))
			set(w, id, &x);
		absint_cell_push(w, &(struct cell){ .kind = C_PART, .root = find(w, id),
						    .id = find(w, e->id), .off = d,
						    .size = e->size });
	}
}

/* Load cell E (of C's root and region, its value defined) is narrower
 * and within C's bytes, zero-extended: a part has_parts records. */
static inline bool it_parts(const struct cell *e, const struct cell *c)
{
	uint64_t d = e->off - c->off;

	return !e->sx && e->size < c->size && d < 8 && d + e->size <= c->size;
}

/* LOAD V: true when V was defined here (memory cells: an alias of an
 * earlier load of the same bytes, or bytes of an earlier wider one; else
 * a new cell); false: not a cell (the caller evaluates it). */
bool absint_load(struct walk *w, const struct ssa_insn *v, struct absint_val *val)
{
	uint16_t region = mem_code(w, v);
	struct cell c = { .kind = C_LOAD, .off = (uint64_t)v->imm, .id = v->id, .region = region,
			  .size = v->size, .sx = v->sx };
	const struct cell *in = NULL, *e;
	struct cell_it it;
	uint32_t parts[LOAD_PARTS];
	unsigned nparts = 0;

	if (!region)
		return false;
	c.root = addr_root(w, v->args[0], &c.off);
	for (e = mem_first(w, &it); e; e = cell_next(w, &it)) {
		if (e->kind == C_LOAD) {
			if (e->root != c.root || e->region != region || !w->def[e->id])
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
			/* what has_parts's own scan of these cells found */
			if (nparts < LOAD_PARTS && it_parts(e, &c))
				parts[nparts++] = it.at;
			continue;
		}
		/* C_WRITE, C_MSUM: the memory chain's other kinds */
		if (e->kind == C_MSUM && e->root == c.root && e->region == region &&
		    e->off == c.off && c.size == 8 && w->def[e->id] && w->def[e->b]) {
			/* what an atomic add left there: ID + B */
			struct absint_val x = get(w, e->id), y = get(w, e->b);

			*val = absint_alu(ISA_ADD, true, &x, &y);
			define(w, v->id, val);
			absint_cell_push(w, &(struct cell){ .kind = C_VSUM, .id = v->id,
							    .root = e->id, .b = e->b });
			c.id = v->id;
			absint_cell_push(w, &c);
			return true;
		}
		if (blocks(e, &c))
			break;
	}
	*val = absint_eval_load(w, v);
	if (in) {
		struct absint_val x = get(w, in->id);

		x = absint_extract(&x, (unsigned)(c.off - in->off), c.size, c.sx);
		if (!absint_meet(val, &x))
			*val = x;     /* cannot be: a narrower load of the same bytes */
	}
	define(w, v->id, val);
	if (in && !c.sx)
		part(w, v->id, in->id, (unsigned)(c.off - in->off), c.size, val);
	else if (!in && !c.sx)
		has_parts(w, v->id, &c, parts, nparts);
	c.id = find(w, v->id);
	absint_cell_push(w, &c);
	return true;
}

/* The value the path knows at the constant address ROOT + OFF (SIZE
 * bytes, REGION, zero-extended): a load's representative, or 0. */
static uint32_t known_at(struct walk *w, uint32_t root, uint64_t off, unsigned size,
			 uint16_t region)
{
	struct cell c = { .root = root, .off = off, .size = (uint8_t)size, .region = region };
	const struct cell *e;
	struct cell_it it;

	for (e = mem_first(w, &it); e; e = cell_next(w, &it)) {
		if (e->kind == C_WRITE || e->kind == C_MSUM) {
			if (blocks(e, &c))
				return 0;
			continue;
		}
		if (e->kind == C_LOAD && e->root == root && e->region == region && e->off == off &&
		    e->size == size && !e->sx && w->def[e->id])
			return find(w, e->id);
	}
	return 0;
}

/* A write (or a call that may write) V: later loads of its region miss,
 * but for a store or atomic at a constant address (the address of a
 * global or a map's value: the encoder's constant, smt_mem.c mem_addr),
 * after which only loads of the bytes written miss. A store of 8 bytes,
 * or of a value that fits its bytes, is what a later load of them reads
 * (a C_LOAD of the stored value); an 8-byte atomic add to a known value
 * K leaves K + the operand (C_MSUM). Exact for the encoder, whose
 * regions are arrays at constant addresses, and for the interpreter. */
void absint_write_barrier(struct walk *w, const struct ssa_insn *v)
{
	struct cell c = { .kind = C_WRITE, .region = mem_code(w, v) };
	uint32_t old = 0;

	if (!c.region)
		return;
	if ((v->kind == SSA_STORE || v->kind == SSA_ATOMIC) && v->nargs >= 2 && !w->flat &&
	    c.region != ABSINT_MEM_ANY && v->size >= 1 && v->size <= 8) {
		c.off = (uint64_t)v->imm;
		c.root = addr_root(w, v->args[0], &c.off);
		if (c.root & ROOT_CONST) {
			c.op = 1;
			c.size = v->size;
			if (v->kind == SSA_ATOMIC && v->op == ISA_ATOMIC_ADD && v->size == 8)
				old = known_at(w, c.root, c.off, 8, c.region);
		}
	}
	absint_cell_push(w, &c);
	if (old && w->def[v->args[1]]) {
		absint_cell_push(w, &(struct cell){ .kind = C_MSUM, .root = c.root, .off = c.off,
						    .size = 8, .region = c.region, .id = old,
						    .b = find(w, v->args[1]), .op = 1 });
	} else if (c.op && v->kind == SSA_STORE && w->def[v->args[1]]) {
		struct absint_val x = get(w, v->args[1]);

		if (v->size == 8 || x.umax < 1ull << (8 * v->size))
			absint_cell_push(w, &(struct cell){ .kind = C_LOAD, .root = c.root,
							    .off = c.off, .size = v->size,
							    .region = c.region,
							    .id = find(w, v->args[1]) });
	}
}

/* SUB64 V: a value the path knows as A + B less A (or B) is B (or A),
 * modular; its representative, or 0. */
uint32_t absint_sub_cancels(const struct walk *w, const struct ssa_insn *v)
{
	uint32_t a, b;
	const struct cell *e;
	struct cell_it it;

	if (v->kind != SSA_ALU || v->op != ISA_SUB || !v->is64 || v->nargs < 2)
		return 0;
	a = find(w, v->args[0]);
	b = find(w, v->args[1]);
	for (e = kind_first(w, &it, C_VSUM); e; e = cell_next(w, &it)) {
		if (find(w, e->id) != a)
			continue;
		if (find(w, e->root) == b && w->def[find(w, e->b)])
			return find(w, e->b);
		if (find(w, e->b) == b && w->def[find(w, e->root)])
			return find(w, e->root);
	}
	return 0;
}

/* ALU or UNARY V just defined (VAL): a mask of the low bytes of its
 * operand is a part of it. */
void absint_masks(struct walk *w, const struct ssa_insn *v, const struct absint_val *val)
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
	struct absint_val x, y;
	uint64_t ka = 0, kb = 0;   /* set by absint_is_const where used */
	bool ca, cb;
	uint32_t t;

	if (op != ISA_JEQ && op != ISA_JNE)
		return false;
	x = get(w, *a);
	y = get(w, *b);
	ca = absint_is_const(&x, &ka);
	cb = absint_is_const(&y, &kb);
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

/* An unsigned ordering `A op B` (JGT, JGE, JLT, JLE) of two values
 * that are not constants, as `*LO < *HI` (*STRICT) or `*LO <= *HI`, 64-bit
 * (a 32-bit one of operands that fit is one); false: not such. */
static bool order_form(const struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b,
		       uint32_t *lo, uint32_t *hi, bool *strict)
{
	struct absint_val x, y;
	uint64_t k;

	if (op != ISA_JGT && op != ISA_JGE && op != ISA_JLT && op != ISA_JLE)
		return false;
	x = get(w, a);
	y = get(w, b);
	if (!is64 && (x.umax > 0xffffffffull || y.umax > 0xffffffffull))
		return false;
	if (absint_is_const(&x, &k) || absint_is_const(&y, &k) || !a || !b)
		return false;
	a = find(w, a);
	b = find(w, b);
	if (a == b)
		return false;
	*strict = op == ISA_JGT || op == ISA_JLT;
	*lo = op == ISA_JGT || op == ISA_JGE ? b : a;
	*hi = *lo == a ? b : a;
	return true;
}

/* What the path's ordering facts say of LO < HI (STRICT) or LO <= HI. */
static int order_decide(const struct walk *w, uint32_t lo, uint32_t hi, bool strict)
{
	const struct cell *e;
	struct cell_it it;

	for (e = kind_first(w, &it, C_FACT); e; e = cell_next(w, &it)) {
		bool es;

		if (e->op != ISA_JLT && e->op != ISA_JLE)
			continue;
		es = e->op == ISA_JLT;
		if (e->root == lo && e->b == hi && (es || !strict))
			return 1;     /* lo < hi gives both; lo <= hi the weak one */
		if (e->root == hi && e->b == lo && (es || strict))
			return 0;     /* hi < lo denies both; hi <= lo denies lo < hi */
	}
	return -1;
}

/* `A op B` in the form the facts keep it (KEY: none, an equality, or an
 * ordering `lo < hi` / `lo <= hi`). */
static void fact_key(const struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b,
		     struct fact_key *key)
{
	uint32_t lo, hi;
	bool strict;

	*key = (struct fact_key){ .form = FACT_NONE, .op = (uint8_t)op };
	if (order_form(w, op, is64, a, b, &lo, &hi, &strict)) {
		*key = (struct fact_key){ .form = FACT_ORDER, .op = (uint8_t)op, .strict = strict,
					  .a = lo, .b = hi };
		return;
	}
	if (fact_form(w, op, is64, &a, &b, &key->k)) {
		key->form = FACT_EQ;
		key->a = a;
		key->b = b;
	}
}

/* What the path's facts say of KEY: 1 true, 0 false, -1 nothing. */
static int key_decide(const struct walk *w, const struct fact_key *key)
{
	const struct cell *e;
	struct cell_it it;

	if (key->form == FACT_ORDER)
		return order_decide(w, key->a, key->b, key->strict);
	if (key->form != FACT_EQ)
		return -1;
	for (e = fact_first(w, &it, key->a); e; e = cell_next(w, &it)) {
		/* an ordering fact (JLT, JLE) of the same two values is not
		 * an equality's: `a < b` read as `a JLT b` was taken for
		 * `a != b` false (seed 11's program 9762, a run dropped) */
		if ((e->op != ISA_JEQ && e->op != ISA_JNE) || e->b != key->b)
			continue;
		if (e->off == key->k)
			return e->op == key->op;
		/* a == k' decides a == k for another constant k */
		if (!key->b && e->op == ISA_JEQ)
			return key->op == ISA_JNE;
	}
	return -1;
}

int absint_fact_decide(const struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b)
{
	struct fact_key key;

	fact_key(w, op, is64, a, b, &key);
	return key_decide(w, &key);
}

int absint_fact_decide_key(const struct walk *w, unsigned op, bool is64, uint32_t a,
			   uint32_t b, struct fact_key *key)
{
	fact_key(w, op, is64, a, b, key);
	return key_decide(w, key);
}

void absint_fact_push_key(struct walk *w, const struct fact_key *key, bool holds)
{
	struct cell c = { .kind = C_FACT, .root = key->a, .b = key->b, .off = key->k };

	if (key->form == FACT_ORDER) {
		/* !(lo < hi) is hi <= lo, !(lo <= hi) is hi < lo */
		c.op = key->strict == holds ? ISA_JLT : ISA_JLE;
		if (!holds) {
			c.root = key->b;
			c.b = key->a;
		}
	} else if (key->form == FACT_EQ) {
		c.op = holds == (key->op == ISA_JEQ) ? ISA_JEQ : ISA_JNE;
	} else {
		return;
	}
	absint_cell_push(w, &c);
}

void absint_fact_push(struct walk *w, unsigned op, bool is64, uint32_t a, uint32_t b)
{
	struct fact_key key;

	fact_key(w, op, is64, a, b, &key);
	absint_fact_push_key(w, &key, true);
}
