/* smt_priv.h - internal to the encoder: the context, term helpers and the
 * encoder's state, shared by smt.c (values, blocks, queries) and smt_mem.c
 * (memory regions and helper models). */
#ifndef INVCHECK_SMT_PRIV_H
#define INVCHECK_SMT_PRIV_H

#include "smt.h"

#include <stdio.h>
#include <stdlib.h>

struct smt {
	Z3_context ctx;
	Z3_solver solver;
	Z3_sort bv64, bv8, mem;
	Z3_ast t, f, zero64;       /* true, false, 0 */
	unsigned timeout;          /* the solver's current timeout (ms) */
	unsigned max_memory;       /* MB for the next queries; 0: none */
	uint64_t rlimit;           /* resource units for the next query; 0: none */
	bool scoped;               /* smt_scope_begin: a check's scope is open */
	uint64_t query_units;      /* smt_set_query_units: per query; 0: none */
	uint64_t budget_end;       /* smt_set_budget: the count to stop at; 0: none */
	bool params_dirty;         /* max_memory changed since the last query */
	bool failed;
	bool divmod_vars;          /* udiv/urem as quotient/remainder variables */
	Z3_ast last_rem;           /* the remainder variable of the last udivmod */
	Z3_ast precise;            /* the selector of the exact definitions that
	                            * smt_prove's first, coarse query leaves out
	                            * (abstract()); NULL: nothing abstracted */
	bool no_coarse;            /* smt_set_coarse(false) */
	unsigned coarse_queries, coarse_proofs;  /* smt_prove's coarse queries, and
	                            * those that proved the claim */
	char err[200];
};

static inline bool zok(struct smt *s)
{
	Z3_error_code code = Z3_get_error_code(s->ctx);

	if (code == Z3_OK)
		return true;
	if (!s->failed) {
		s->failed = true;
		snprintf(s->err, sizeof(s->err), "Z3 error %d: %s", (int)code,
			 Z3_get_error_msg(s->ctx, code));
	}
	return false;
}

static inline Z3_ast chk(struct smt *s, Z3_ast t)
{
	if (!zok(s) || !t) {
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "Z3 returned no term");
		}
		return s->zero64;
	}
	return t;
}

#define Z(s, call) chk((s), (call))

static inline Z3_ast k(struct smt *s, unsigned bits, uint64_t v)
{
	return Z(s, Z3_mk_unsigned_int64(s->ctx, v, Z3_mk_bv_sort(s->ctx, bits)));
}

static inline Z3_ast or_n(struct smt *s, Z3_ast *v, unsigned n)
{
	if (n == 0)
		return s->f;
	if (n == 1)
		return v[0];
	return Z(s, Z3_mk_or(s->ctx, n, v));
}

static inline Z3_ast ite(struct smt *s, Z3_ast c, Z3_ast a, Z3_ast b)
{
	if (a == b || c == s->t)
		return a;
	if (c == s->f)
		return b;
	return Z(s, Z3_mk_ite(s->ctx, c, a, b));
}

static inline Z3_ast bits(struct smt *s, unsigned hi, unsigned lo, Z3_ast t)
{
	return Z(s, Z3_mk_extract(s->ctx, hi, lo, t));
}

/* The low N bits of 64-bit T. */
static inline Z3_ast low(struct smt *s, Z3_ast t, unsigned n)
{
	return n == 64 ? t : bits(s, n - 1, 0, t);
}

/* N-bit T to 64 bits. */
static inline Z3_ast widen(struct smt *s, Z3_ast t, unsigned n, bool sx)
{
	if (n == 64)
		return t;
	return sx ? Z(s, Z3_mk_sign_ext(s->ctx, 64 - n, t))
		  : Z(s, Z3_mk_zero_ext(s->ctx, 64 - n, t));
}

static inline Z3_ast cat(struct smt *s, Z3_ast hi, Z3_ast lo)
{
	return Z(s, Z3_mk_concat(s->ctx, hi, lo));
}

static inline Z3_ast fresh(struct smt *s, const char *prefix, Z3_sort sort)
{
	return Z(s, Z3_mk_fresh_const(s->ctx, prefix, sort));
}

/* ---- semantics --------------------------------------------------------- */

/* ---- memory ------------------------------------------------------------ */

static inline Z3_ast addr_at(struct smt *s, Z3_ast base, int64_t off)
{
	return off ? Z(s, Z3_mk_bvadd(s->ctx, base, k(s, 64, (uint64_t)off))) : base;
}

/* SIZE bytes at ADDR in MEM, little-endian, extended to 64 bits. */
static inline Z3_ast mem_load(struct smt *s, Z3_ast mem, Z3_ast addr, unsigned size, bool sx)
{
	Z3_ast r = NULL;
	unsigned i;

	for (i = 0; i < size; i++) {
		Z3_ast b = Z(s, Z3_mk_select(s->ctx, mem, addr_at(s, addr, i)));

		r = r ? cat(s, b, r) : b;
	}
	return widen(s, r, size * 8, sx);
}

static inline Z3_ast mem_store(struct smt *s, Z3_ast mem, Z3_ast addr, unsigned size, Z3_ast v)
{
	unsigned i;

	for (i = 0; i < size; i++)
		mem = Z(s, Z3_mk_store(s->ctx, mem, addr_at(s, addr, i),
				       bits(s, 8 * i + 7, 8 * i, v)));
	return mem;
}

/* ---- memory regions (smt_mem.c) ------------------------------------------
 * A value's region code: not a pointer (or a kernel object pointer), NULL,
 * the stack, "different regions on different paths", or memory region
 * RG_MEM0 + r. Memory regions: the context, the packet, ringbuf
 * reservations, then one per map (global data sections are maps). Bare code
 * (no object) has one memory region, the flat memory. */
enum { RG_SCALAR, RG_NULL, RG_STACK, RG_TOP, RG_MEM0 };
enum { MR_CTX, MR_PKT, MR_RINGBUF, MR_MAP0 };
#define MR_FLAT 0

struct enc {
	struct smt *s;
	struct smt_prog *e;
	const struct ssa_prog *p;
	const struct smt_input *in;
	uint8_t *done;         /* by value id: encoded */
	uint32_t *nin;         /* by block: incoming edges filled */
	struct smt_mem ms;     /* memory at the current point */
	const struct ssa_block *blk;
	bool objmode;          /* regions (an object) or the flat memory */
	uint16_t *rg;          /* by value id: region code */
	int64_t *ctxoff;       /* by value id: offset of a context pointer, or INT64_MIN */
	Z3_ast *divrem;        /* by value id: an unsigned DIV's remainder variable
	                        * (udivmod), or NULL; allocated at the first */
	bool has_pkt;
	uint32_t off_data, off_end, off_meta;
	enum bpf_prog_type prog_type;
	struct vec fails;      /* Z3_ast: the failure terms of the asserts */
	struct vec notes;      /* const char * */
	struct arena *a;
};

Z3_ast smt_use(struct enc *en, uint32_t id);
void smt_fail(struct smt *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Region codes of every value, the initial memory and packet pointers. */
void mem_setup(struct enc *en);
/* The memory entering block B (ite over its incoming edges). */
void mem_enter(struct enc *en, const struct ssa_block *b);
Z3_ast mem_encode_load(struct enc *en, const struct ssa_insn *v);
void mem_encode_store(struct enc *en, const struct ssa_insn *v);
/* The array an access through pointer value P uses (NULL: not modelled;
 * e->unsupported is set). */
Z3_ast *mem_array(struct enc *en, uint32_t p, bool write);
/* A helper or kfunc call: r0 and the memory after it. */
Z3_ast mem_encode_call(struct enc *en, const struct ssa_insn *v);
Z3_ast mem_addr(struct enc *en, const struct ssa_insn *v);
/* A taken tail call: the program that ran may have changed any memory. */
Z3_ast mem_encode_tailret(struct enc *en, const struct ssa_insn *v);
Z3_ast mem_frame(struct enc *en, uint32_t f);

/* Shared by smt_mem.c and smt_call.c */
#define KERNEL_LO 0xffff800000000000ull   /* kernel addresses are above */
#define NULL_HI   0x10000ull              /* NULL plus a field offset */
void mem_note(struct enc *en, const char *text);
void mem_unsupported(struct enc *en, const char *text);
/* The map an argument names (LD imm64 of a map), or -1. */
int mem_map_arg(const struct enc *en, uint32_t id);
const struct helper_model *mem_call_model(const struct ssa_insn *v);
struct smt_mem mem_copy(struct enc *en, const struct smt_mem *m);
/* A call's note (an unknown helper or kfunc) and, without Z3, what it does
 * to memory (smt_precheck's mem: SMT_MEM_ANY or 0). */
uint16_t mem_precheck_call(struct enc *en, const struct ssa_insn *v);

static inline Z3_ast ule(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_bvule(s->ctx, a, b));
}

static inline Z3_ast add(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_bvadd(s->ctx, a, b));
}

static inline Z3_ast sub(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_bvsub(s->ctx, a, b));
}

static inline Z3_ast and3(struct smt *s, Z3_ast a, Z3_ast b, Z3_ast c)
{
	return smt_and(s, smt_and(s, a, b), c);
}

#endif
