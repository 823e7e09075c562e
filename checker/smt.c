/* smt.c - the Z3 encoding of the SSA IR (contract in smt.h); the limits and
 * queries are in smt_query.c.
 *
 * BPF semantics, exactly (32-bit ALU = the low 32 bits, result
 * zero-extended to 64):
 *   DIV x/0 = 0 (bvudiv gives ~0: wrapped in ite); SDIV x/0 = 0 and
 *   INT_MIN / -1 = INT_MIN (what bvsdiv gives modulo 2^n); MOD x%0 = x;
 *   SMOD x%0 = x, the sign follows the dividend (bvsrem, not bvsmod);
 *   shift amounts masked & 63 / & 31; MOV uses args[1]; MOVSX sign-extends
 *   the low `size` bytes (into 32 bits, then zero-extended, for ALU32);
 *   LE truncates to 16/32 bits (LE64: identity); BE and BSWAP swap the low
 *   16/32/64 bits (little-endian host), zero-extended. Jumps compare all 64
 *   bits or (cond64 false) the low 32; JSET is (a & b) != 0.
 *   EXTRACT takes bytes [imm, imm+size) of a slot value (little-endian),
 *   zero- or sign-extended; INSERT replaces them; SELECT compares the low
 *   `size` bytes (the stack cmpxchg). Memory is little-endian bytes.
 *
 * Every Z3 call goes through chk(): the error handler does nothing, so Z3
 * keeps the error code; chk() reads it, records the first error, and hands
 * back a harmless term so that no NULL ever reaches Z3. smt_encode() stops
 * at the next instruction boundary and returns -EIO.
 */
#include "smt_priv.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Does nothing: Z3 keeps the code, chk() and zok() read it. */
static void on_z3_error(Z3_context c, Z3_error_code e)
{
	(void)c;
	(void)e;
}

const char *smt_new_error(void)
{
	const char *why = z3lazy_error();

	return *why ? why : "internal error: no Z3 context";
}

struct smt *smt_new(void)
{
	struct smt *s = calloc(1, sizeof(*s));
	Z3_tactic tac;
	Z3_config cfg;

	if (!s)
		return NULL;
	cfg = Z3_mk_config();
	if (!cfg) {
		free(s);
		return NULL;
	}
	Z3_set_param_value(cfg, "model", "true");
	s->ctx = Z3_mk_context(cfg);
	Z3_del_config(cfg);
	if (!s->ctx) {
		free(s);
		return NULL;
	}
	Z3_set_error_handler(s->ctx, on_z3_error);
	s->bv64 = Z3_mk_bv_sort(s->ctx, 64);
	s->bv8 = Z3_mk_bv_sort(s->ctx, 8);
	s->mem = Z3_mk_array_sort(s->ctx, s->bv64, s->bv8);
	s->zero64 = Z3_mk_unsigned_int64(s->ctx, 0, s->bv64);
	s->t = Z3_mk_true(s->ctx);
	s->f = Z3_mk_false(s->ctx);
	/* The qfbv tactic as a solver: its preamble (propagate-values,
	 * solve-eqs, elim-uncnstr) removes what free memory and fresh values
	 * make irrelevant, then bit-blasts, or hands what is left with arrays
	 * to the SMT core. Measured on examples/loop_sum (64 inlined bpf_loop
	 * rounds): "an exit is reachable" takes 0.06 s this way, and times out
	 * after 10 s with the incremental SMT core (Z3_mk_solver or the QF_ABV
	 * logic). Each query re-runs the tactic on all assertions. */
	tac = Z3_mk_tactic(s->ctx, "qfbv");
	if (zok(s) && tac) {
		Z3_tactic_inc_ref(s->ctx, tac);
		s->solver = Z3_mk_solver_from_tactic(s->ctx, tac);
		Z3_tactic_dec_ref(s->ctx, tac);
	}
	if (!zok(s) || !s->solver) {
		Z3_del_context(s->ctx);
		free(s);
		return NULL;
	}
	Z3_solver_inc_ref(s->ctx, s->solver);
	s->timeout = UINT_MAX;
	return s;
}

int smt_scope_begin(struct smt *s)
{
	if (s->failed || s->scoped)
		return -EINVAL;
	Z3_solver_push(s->ctx, s->solver);
	if (!zok(s))
		return -EIO;
	s->scoped = true;
	return 0;
}

int smt_scope_end(struct smt *s)
{
	if (!s->scoped)
		return -EINVAL;
	s->scoped = false;
	smt_set_budget(s, 0);
	Z3_solver_pop(s->ctx, s->solver, 1);
	s->precise = NULL;          /* its definitions are gone with the scope */
	if (!zok(s) || Z3_solver_get_num_scopes(s->ctx, s->solver) != 0)
		return -EIO;
	return 0;
}

void smt_free(struct smt *s)
{
	if (!s)
		return;
	Z3_solver_dec_ref(s->ctx, s->solver);
	Z3_del_context(s->ctx);
	free(s);
}

Z3_context smt_ctx(const struct smt *s)
{
	return s->ctx;
}

const char *smt_error(const struct smt *s)
{
	return s->failed ? s->err : NULL;
}

/* ---- term helpers ------------------------------------------------------ */

Z3_ast smt_bv64(struct smt *s, uint64_t v)
{
	return k(s, 64, v);
}

Z3_ast smt_eq(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_eq(s->ctx, a, b));
}

Z3_ast smt_not(struct smt *s, Z3_ast a)
{
	if (a == s->t)
		return s->f;
	if (a == s->f)
		return s->t;
	return Z(s, Z3_mk_not(s->ctx, a));
}

Z3_ast smt_and(struct smt *s, Z3_ast a, Z3_ast b)
{
	Z3_ast v[2] = { a, b };

	if (a == s->t || b == s->f)
		return b;
	if (b == s->t || a == s->f)
		return a;
	return Z(s, Z3_mk_and(s->ctx, 2, v));
}

Z3_ast smt_implies(struct smt *s, Z3_ast a, Z3_ast b)
{
	return Z(s, Z3_mk_implies(s->ctx, a, b));
}

void smt_assume(struct smt *s, Z3_ast f)
{
	Z3_solver_assert(s->ctx, s->solver, f);
	zok(s);
}

/* The selector of the exact definitions (s->precise), made at first use. */
static Z3_ast precise(struct smt *s)
{
	if (!s->precise)
		s->precise = fresh(s, "precise", Z3_mk_bool_sort(s->ctx));
	return s->precise;
}

/* A fresh W-bit value standing for EXACT: equal to it when s->precise
 * holds. smt_prove asks first with s->precise false, where the value is
 * free: every behaviour of the program is one of that coarser formula (the
 * value can be EXACT), so "no assert fails" proved there is proved. Only
 * when that query finds a model (or runs out) is the exact one asked, and
 * only its models are counterexamples. For what bit-blasts into large
 * circuits: multipliers, the quotient-remainder equation. */
static Z3_ast abstract(struct smt *s, const char *name, Z3_ast exact, unsigned w)
{
	Z3_ast sel = precise(s), m = fresh(s, name, Z3_mk_bv_sort(s->ctx, w));

	smt_assume(s, smt_implies(s, sel, smt_eq(s, m, exact)));
	return m;
}

/* X * Y (W bits): abstracted (abstract()) for programs of an object
 * unless both operands are constants or, for a 64-bit product, one is a
 * constant below 2^16. 32-bit products are the programs' hash mixing
 * (murmur3's `h * 5` and 0xcc9e2d51, FNV's 0x01000193): keeping xdp_lb's
 * small factors exact made it 1.7x slower. 64-bit products with a small
 * constant are spec arithmetic such as loop_sum's `255 * pkt_len`, which
 * a claim is about: abstracted, the first query only finds a model the
 * exact one refutes. */
static Z3_ast mul(struct smt *s, Z3_ast x, Z3_ast y, unsigned w, Z3_ast a, Z3_ast b)
{
	Z3_context c = s->ctx;
	Z3_ast r = Z(s, Z3_mk_bvmul(c, x, y));
	/* A and B: the 64-bit operands X and Y are the low W bits of (an
	 * extract of a numeral is not a numeral term) */
	bool na = Z3_is_numeral_ast(c, a), nb = Z3_is_numeral_ast(c, b);
	uint64_t v;

	if (!s->divmod_vars || (na && nb))
		return r;
	if (w == 64 && ((na && Z3_get_numeral_uint64(c, a, &v) && v < 0x10000) ||
			(nb && Z3_get_numeral_uint64(c, b, &v) && v < 0x10000)))
		return r;
	return abstract(s, "mul", r, w);
}

/* Unsigned X / Y or X % Y (W bits, Y not a constant). For programs of an
 * object: for Y != 0 fresh Q and R with X = Q * Y + R (in 2W bits: no
 * overflow) and R < Y - exact, and it hands the solver "R < Y" directly,
 * which proofs like "first + hash % count < first + count" need (xdp_lb:
 * over 5 minutes with bvurem, also with the lemma R < Y beside it; 2 s this
 * way). Bare code keeps bvudiv/bvurem: there the operands are mostly
 * concrete, and solving X = Q * Y + R for concrete X and Y is slow (the
 * kernel differential test timed out on 4 of 900 packets). The replay of
 * every counterexample checks the encoding against the interpreter. */
static Z3_ast udivmod(struct smt *s, Z3_ast x, Z3_ast y, unsigned w, bool mod)
{
	Z3_context c = s->ctx;
	Z3_sort sw = Z3_mk_bv_sort(c, w);
	Z3_ast q, r, X, Y, Q, R, sum, nz;

	if (!s->divmod_vars)
		return mod ? Z(s, Z3_mk_bvurem(c, x, y)) : Z(s, Z3_mk_bvudiv(c, x, y));
	q = fresh(s, "quot", sw);
	r = fresh(s, "rem", sw);
	X = Z(s, Z3_mk_zero_ext(c, w, x));
	Y = Z(s, Z3_mk_zero_ext(c, w, y));
	Q = Z(s, Z3_mk_zero_ext(c, w, q));
	R = Z(s, Z3_mk_zero_ext(c, w, r));
	sum = Z(s, Z3_mk_bvadd(c, Z(s, Z3_mk_bvmul(c, Q, Y)), R));
	nz = smt_not(s, smt_eq(s, y, k(s, w, 0)));
	/* R < Y and Q <= X hold whatever X and Y are (Y != 0); the equation,
	 * a multiplier of 2W bits, only in the exact query (abstract()) */
	smt_assume(s, smt_implies(s, nz, smt_and(s, Z(s, Z3_mk_bvult(c, r, y)),
						 Z(s, Z3_mk_bvule(c, q, x)))));
	smt_assume(s, smt_implies(s, precise(s), smt_implies(s, nz, smt_eq(s, sum, X))));
	s->last_rem = r;
	return mod ? r : q;
}

/* ALU OP (enum isa_op) on A and B, 64- or 32-bit; the 64-bit result. */
static Z3_ast alu(struct smt *s, unsigned op, bool is64, Z3_ast a, Z3_ast b)
{
	Z3_context c = s->ctx;
	unsigned w = is64 ? 64 : 32;
	Z3_ast x = low(s, a, w), y = low(s, b, w), zero = k(s, w, 0), r;
	Z3_ast y0 = Z(s, Z3_mk_eq(c, y, zero));
	Z3_ast amount;

	switch (op) {
	case ISA_ADD: r = Z(s, Z3_mk_bvadd(c, x, y)); break;
	case ISA_SUB: r = Z(s, Z3_mk_bvsub(c, x, y)); break;
	case ISA_MUL: r = mul(s, x, y, w, a, b); break;
	case ISA_DIV:
		if (!Z3_is_numeral_ast(c, y))
			return widen(s, ite(s, y0, zero, udivmod(s, x, y, w, false)), w, false);
		r = ite(s, y0, zero, Z(s, Z3_mk_bvudiv(c, x, y)));
		break;
	case ISA_SDIV: r = ite(s, y0, zero, Z(s, Z3_mk_bvsdiv(c, x, y))); break;
	case ISA_MOD:
		if (!Z3_is_numeral_ast(c, y))
			return widen(s, ite(s, y0, x, udivmod(s, x, y, w, true)), w, false);
		r = ite(s, y0, x, Z(s, Z3_mk_bvurem(c, x, y)));
		break;
	case ISA_SMOD: r = ite(s, y0, x, Z(s, Z3_mk_bvsrem(c, x, y))); break;
	case ISA_OR: r = Z(s, Z3_mk_bvor(c, x, y)); break;
	case ISA_AND: r = Z(s, Z3_mk_bvand(c, x, y)); break;
	case ISA_XOR: r = Z(s, Z3_mk_bvxor(c, x, y)); break;
	case ISA_MOV: r = y; break;
	case ISA_LSH: case ISA_RSH: case ISA_ARSH:
		amount = Z(s, Z3_mk_bvand(c, y, k(s, w, w - 1)));
		if (op == ISA_LSH)
			r = Z(s, Z3_mk_bvshl(c, x, amount));
		else if (op == ISA_RSH)
			r = Z(s, Z3_mk_bvlshr(c, x, amount));
		else
			r = Z(s, Z3_mk_bvashr(c, x, amount));
		break;
	default:
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "encoder: ALU op %u", op);
		}
		return s->zero64;
	}
	return widen(s, r, w, false);
}

/* X % Y compiled as X - X / Y * Y (clang does, for BPF): the product
 * (X / Y) * Y of a DIV V that udivmod encoded with remainder R is exactly
 * X - R when Y != 0 (X = Q * Y + R without overflow, so the low W bits of
 * Q * Y are those of X - R), 0 when Y == 0 (the quotient is 0). Handing
 * the solver X - R instead of a second multiplier that it must prove equal
 * to the first takes xdp_lb's service_reaches_backend ("the backend index
 * is first + hash % count < first + count") from seconds to milliseconds.
 * NULL when MUL V is not such a product. */
static Z3_ast mul_of_div(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	unsigned w = v->is64 ? 64 : 32, i;

	if (!en->divrem)
		return NULL;
	for (i = 0; i < 2; i++) {
		const struct ssa_insn *d = en->p->values[v->args[i]];
		Z3_ast x, y;

		if (d->kind != SSA_ALU || d->op != ISA_DIV || d->is64 != v->is64 ||
		    !en->divrem[d->id] || d->args[1] != v->args[1 - i])
			continue;
		x = low(s, smt_use(en, d->args[0]), w);
		y = low(s, smt_use(en, d->args[1]), w);
		return widen(s, ite(s, smt_eq(s, y, k(s, w, 0)), k(s, w, 0),
				    Z(s, Z3_mk_bvsub(s->ctx, x, en->divrem[d->id]))), w, false);
	}
	return NULL;
}

/* ALU V: alu() on its operands, with the product of a quotient and its
 * divisor as mul_of_div gives it; an unsigned DIV's remainder is kept. */
static Z3_ast encode_alu(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	Z3_ast r;

	if (v->op == ISA_MUL && (r = mul_of_div(en, v)))
		return r;
	s->last_rem = NULL;
	r = alu(s, v->op, v->is64, smt_use(en, v->args[0]), smt_use(en, v->args[1]));
	if (v->op == ISA_DIV && s->last_rem) {
		if (!en->divrem)
			en->divrem = arena_new_array(en->a, Z3_ast, en->p->nvalues);
		en->divrem[v->id] = s->last_rem;
	}
	return r;
}

/* The low N bits of T with their bytes reversed, zero-extended. */
static Z3_ast byteswap(struct smt *s, Z3_ast t, unsigned n)
{
	Z3_ast r = bits(s, 7, 0, t);
	unsigned i;

	for (i = 1; i < n / 8; i++)
		r = cat(s, r, bits(s, 8 * i + 7, 8 * i, t));
	return widen(s, r, n, false);
}

static Z3_ast unary(struct smt *s, const struct ssa_insn *v, Z3_ast a)
{
	unsigned n = v->size * 8u;

	switch (v->op) {
	case ISA_NEG:
		return v->is64 ? Z(s, Z3_mk_bvneg(s->ctx, a))
			       : widen(s, Z(s, Z3_mk_bvneg(s->ctx, low(s, a, 32))), 32, false);
	case ISA_MOVSX:
		if (v->is64)
			return widen(s, low(s, a, n), n, true);
		return widen(s, Z(s, Z3_mk_sign_ext(s->ctx, 32 - n, low(s, a, n))), 32, false);
	case ISA_LE:
		return widen(s, low(s, a, n), n, false);
	case ISA_BE:
	case ISA_BSWAP:
		return byteswap(s, a, n);
	default:
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "encoder: unary op %u", v->op);
		}
		return s->zero64;
	}
}

/* Branch condition A op B (64-bit or the low halves). */
static Z3_ast cond(struct smt *s, unsigned op, bool is64, Z3_ast a, Z3_ast b)
{
	Z3_context c = s->ctx;
	unsigned w = is64 ? 64 : 32;
	Z3_ast x = low(s, a, w), y = low(s, b, w);

	switch (op) {
	case ISA_JEQ: return Z(s, Z3_mk_eq(c, x, y));
	case ISA_JNE: return smt_not(s, Z(s, Z3_mk_eq(c, x, y)));
	case ISA_JGT: return Z(s, Z3_mk_bvugt(c, x, y));
	case ISA_JGE: return Z(s, Z3_mk_bvuge(c, x, y));
	case ISA_JLT: return Z(s, Z3_mk_bvult(c, x, y));
	case ISA_JLE: return Z(s, Z3_mk_bvule(c, x, y));
	case ISA_JSGT: return Z(s, Z3_mk_bvsgt(c, x, y));
	case ISA_JSGE: return Z(s, Z3_mk_bvsge(c, x, y));
	case ISA_JSLT: return Z(s, Z3_mk_bvslt(c, x, y));
	case ISA_JSLE: return Z(s, Z3_mk_bvsle(c, x, y));
	case ISA_JSET:
		return smt_not(s, Z(s, Z3_mk_eq(c, Z(s, Z3_mk_bvand(c, x, y)), k(s, w, 0))));
	default:
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "encoder: branch op %u", op);
		}
		return s->f;
	}
}


void smt_assume_bytes(struct smt *s, const struct smt_prog *e, uint64_t addr,
		      const uint8_t *bytes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		smt_assume(s, smt_eq(s, Z(s, Z3_mk_select(s->ctx, e->mem0, k(s, 64, addr + i))),
				     k(s, 8, bytes[i])));
}

/* ---- the encoder ------------------------------------------------------- */

static Z3_ast encode_value(struct enc *en, const struct ssa_insn *v);

void smt_fail(struct smt *s, const char *fmt, ...)
{
	va_list ap;

	if (s->failed)
		return;
	s->failed = true;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

#define use smt_use

/* The term of value ID used as an operand. */
Z3_ast smt_use(struct enc *en, uint32_t id)
{
	struct smt *s = en->s;
	const struct ssa_insn *v = en->p->values[id];

	if (v->kind == SSA_UNDEF)   /* 0, as the interpreter has it (interp.h) */
		return s->zero64;
	if (!en->done[id]) {
		switch (v->kind) {
		case SSA_LOAD: case SSA_STORE: case SSA_ATOMIC: case SSA_CALL: case SSA_PHI:
			if (!s->failed) {
				s->failed = true;
				snprintf(s->err, sizeof(s->err),
					 "encoder: v%u used before its definition", id);
			}
			return s->zero64;
		case SSA_UNDEF: case SSA_CONST: case SSA_INPUT: case SSA_FRAME: case SSA_ALU:
		case SSA_UNARY: case SSA_ADDR: case SSA_LDPKT: case SSA_EXTRACT: case SSA_INSERT:
		case SSA_SELECT: case SSA_HAVOC: case SSA_TAILRET: case SSA_SLOTLOAD:
		case SSA_SLOTSTORE: case SSA_CMP: case SSA_PKTW: case SSA_ASSUME: case SSA_ASSERT:
		case SSA_NKINDS:
			break;
		}
		en->e->val[id] = encode_value(en, v);
		en->done[id] = 1;
	}
	return en->e->val[id];
}

static Z3_ast frame_addr(struct enc *en, uint32_t f)
{
	if (en->objmode)
		return mem_frame(en, f);
	{
	struct smt *s = en->s;
	Z3_context c = s->ctx;
	Z3_ast fp, rel, lo;
	char name[24];

	if (f >= en->p->nframes && !(f == 0 && en->p->nframes == 0)) {
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "encoder: frame %u out of range", f);
		}
		return s->zero64;
	}
	if (en->e->frame[f])
		return en->e->frame[f];
	snprintf(name, sizeof(name), "fp%u", f);
	fp = Z(s, Z3_mk_const(c, Z3_mk_string_symbol(c, name), s->bv64));
	lo = k(s, 64, SMT_STACK_BASE + (uint64_t)f * SMT_STACK_WINDOW);
	rel = Z(s, Z3_mk_bvsub(c, fp, lo));
	smt_assume(s, Z(s, Z3_mk_bvuge(c, rel, k(s, 64, ISA_STACK_SIZE))));
	smt_assume(s, Z(s, Z3_mk_bvult(c, rel, k(s, 64, SMT_STACK_WINDOW))));
	smt_assume(s, smt_eq(s, Z(s, Z3_mk_bvand(c, fp, k(s, 64, 7))), s->zero64));
	en->e->frame[f] = fp;
	return fp;
	}
}

static Z3_ast input(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	char name[8];
	unsigned r = (unsigned)v->imm;

	if (r < 1 || r > 5) {
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "encoder: input r%u", r);
		}
		return s->zero64;
	}
	if (!en->e->input[r]) {
		if (en->objmode && r == 1) {
			en->e->input[r] = k(s, 64, SMT_CTX_BASE);
		} else if (en->in && en->in->reg[r]) {
			en->e->input[r] = en->in->reg[r];
		} else {
			snprintf(name, sizeof(name), "r%u", r);
			en->e->input[r] = Z(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name),
							   s->bv64));
		}
	}
	return en->e->input[r];
}

/* EXTRACT: bytes [imm, imm+size) of slot value A. */
static Z3_ast slot_extract(struct smt *s, const struct ssa_insn *v, Z3_ast a)
{
	unsigned lo = (unsigned)v->imm * 8, n = v->size * 8u;

	return widen(s, n == 64 ? a : bits(s, lo + n - 1, lo, a), n, v->sx);
}

/* INSERT: slot value A with bytes [imm, imm+size) replaced by B's low bytes. */
static Z3_ast slot_insert(struct smt *s, const struct ssa_insn *v, Z3_ast a, Z3_ast b)
{
	unsigned lo = (unsigned)v->imm * 8, n = v->size * 8u;
	Z3_ast r = low(s, b, n);

	if (n == 64)
		return b;
	if (lo > 0)
		r = cat(s, r, bits(s, lo - 1, 0, a));
	if (lo + n < 64)
		r = cat(s, bits(s, 63, lo + n, a), r);
	return r;
}

static Z3_ast phi(struct enc *en, const struct ssa_insn *v)
{
	const struct ssa_block *b = en->blk;
	Z3_ast r;
	uint32_t i;

	if (v->nargs != b->npreds || !v->nargs) {
		if (!en->s->failed) {
			en->s->failed = true;
			snprintf(en->s->err, sizeof(en->s->err), "encoder: v%u: bad phi", v->id);
		}
		return en->s->zero64;
	}
	r = use(en, v->args[v->nargs - 1]);
	for (i = v->nargs - 1; i-- > 0;)
		r = ite(en->s, en->e->edge[b->id][i], use(en, v->args[i]), r);
	return r;
}

static Z3_ast atomic(struct enc *en, const struct ssa_insn *v)
{
	static const unsigned alu_of[ISA_NATOMICS] = {
		[ISA_ATOMIC_ADD] = ISA_ADD, [ISA_ATOMIC_OR] = ISA_OR,
		[ISA_ATOMIC_AND] = ISA_AND, [ISA_ATOMIC_XOR] = ISA_XOR,
	};
	struct smt *s = en->s;
	unsigned n = v->size * 8u;
	Z3_ast addr = addr_at(s, use(en, v->args[0]), v->imm);
	Z3_ast src = use(en, v->args[1]);
	Z3_ast *mem = mem_array(en, v->args[0], true), old, nv;

	if (!mem)
		return fresh(s, "atomic", s->bv64);
	old = mem_load(s, *mem, addr, v->size, false);

	switch ((enum isa_atomic)v->op) {
	case ISA_ATOMIC_ADD: case ISA_ATOMIC_OR: case ISA_ATOMIC_AND: case ISA_ATOMIC_XOR:
		nv = alu(s, alu_of[v->op], v->size == 8, old, src);
		break;
	case ISA_ATOMIC_XCHG:
		nv = src;
		break;
	case ISA_ATOMIC_CMPXCHG:
		nv = ite(s, smt_eq(s, low(s, old, n), low(s, use(en, v->args[2]), n)), src, old);
		break;
	case ISA_NATOMICS:
	default:
		if (!s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof(s->err), "encoder: atomic op %u", v->op);
		}
		return s->zero64;
	}
	*mem = mem_store(s, *mem, addr, v->size, nv);
	return old;
}

/* The byte offset of V's address (args[addr_arg] + imm) from the bottom of
 * frame tframe's 512-byte stack. The kernel verifier keeps a variable-offset
 * stack access inside the frame; the encoding assumes it. */
static Z3_ast stack_index(struct enc *en, const struct ssa_insn *v, unsigned addr_arg)
{
	struct smt *s = en->s;
	Z3_ast bottom = Z(s, Z3_mk_bvsub(s->ctx, frame_addr(en, v->tframe),
					 k(s, 64, ISA_STACK_SIZE)));

	return Z(s, Z3_mk_bvsub(s->ctx, addr_at(s, use(en, v->args[addr_arg]), v->imm), bottom));
}

/* SLOTLOAD: the frame's bytes (slot 0 lowest) shifted down by the index. */
static Z3_ast slot_load_dyn(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	Z3_context c = s->ctx;
	unsigned width = ISA_STACK_SIZE * 8, n = v->size * 8u, i;
	Z3_ast frame = use(en, v->args[1]), sh;

	for (i = 1; i < SSA_SLOTS; i++)
		frame = cat(s, use(en, v->args[1 + i]), frame);
	sh = Z(s, Z3_mk_zero_ext(c, width - 64, stack_index(en, v, 0)));
	sh = Z(s, Z3_mk_bvshl(c, sh, k(s, width, 3)));
	return widen(s, bits(s, n - 1, 0, Z(s, Z3_mk_bvlshr(c, frame, sh))), n, v->sx);
}

/* SLOTSTORE: slot tslot with the bytes the store covers replaced. REL is the
 * store's offset from the slot's first byte, negative when it starts below. */
static Z3_ast slot_store_dyn(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;
	Z3_context c = s->ctx;
	unsigned n = v->size * 8u;
	Z3_ast old = use(en, v->args[0]);
	Z3_ast rel = Z(s, Z3_mk_bvsub(c, stack_index(en, v, 1), k(s, 64, 8u * v->tslot)));
	Z3_ast up = Z(s, Z3_mk_bvshl(c, rel, k(s, 64, 3)));
	Z3_ast down = Z(s, Z3_mk_bvneg(c, up));
	Z3_ast m = k(s, 64, n == 64 ? ~0ull : (1ull << n) - 1);
	Z3_ast val = widen(s, low(s, use(en, v->args[2]), n), n, false);
	Z3_ast hi = Z(s, Z3_mk_bvor(c, Z(s, Z3_mk_bvand(c, old, Z(s, Z3_mk_bvnot(c,
			Z(s, Z3_mk_bvshl(c, m, up)))))), Z(s, Z3_mk_bvshl(c, val, up))));
	Z3_ast lo = Z(s, Z3_mk_bvor(c, Z(s, Z3_mk_bvand(c, old, Z(s, Z3_mk_bvnot(c,
			Z(s, Z3_mk_bvlshr(c, m, down)))))), Z(s, Z3_mk_bvlshr(c, val, down))));

	return ite(s, Z(s, Z3_mk_bvsge(c, rel, k(s, 64, 0))), hi, lo);
}

static Z3_ast encode_value(struct enc *en, const struct ssa_insn *v)
{
	struct smt *s = en->s;

	switch (v->kind) {
	case SSA_UNDEF:
		return s->zero64;
	case SSA_CONST:
		return k(s, 64, (uint64_t)v->imm);
	case SSA_INPUT:
		return input(en, v);
	case SSA_FRAME:
		return frame_addr(en, (uint32_t)v->imm);
	case SSA_ALU:
		return encode_alu(en, v);
	case SSA_UNARY:
		return unary(s, v, use(en, v->args[0]));
	case SSA_ADDR:
		return en->objmode ? mem_addr(en, v) : fresh(s, "addr", s->bv64);
	case SSA_LOAD:
		return mem_encode_load(en, v);
	case SSA_STORE:
		mem_encode_store(en, v);
		return NULL;
	case SSA_ATOMIC:
		return atomic(en, v);
	case SSA_LDPKT:
		return fresh(s, "ldpkt", s->bv64);
	case SSA_EXTRACT:
		return slot_extract(s, v, use(en, v->args[0]));
	case SSA_INSERT:
		return slot_insert(s, v, use(en, v->args[0]), use(en, v->args[1]));
	case SSA_SELECT:
		return ite(s, smt_eq(s, low(s, use(en, v->args[0]), v->size * 8u),
				     low(s, use(en, v->args[1]), v->size * 8u)),
			   use(en, v->args[2]), use(en, v->args[3]));
	case SSA_CALL:
		return mem_encode_call(en, v);
	case SSA_HAVOC:
		return fresh(s, "havoc", s->bv64);
	case SSA_TAILRET:
		return en->objmode ? mem_encode_tailret(en, v) : fresh(s, "tailret", s->bv64);
	case SSA_PHI:
		return phi(en, v);
	case SSA_SLOTLOAD:
		return slot_load_dyn(en, v);
	case SSA_SLOTSTORE:
		return slot_store_dyn(en, v);
	case SSA_CMP:
		return ite(s, cond(s, v->op, true, use(en, v->args[0]), use(en, v->args[1])),
			   k(s, 64, 1), s->zero64);
	case SSA_PKTW:
		return en->objmode ? ite(s, en->ms.pktw, k(s, 64, 1), s->zero64) : s->zero64;
	case SSA_ASSUME:
		smt_assume(s, smt_implies(s, en->e->guard[en->blk->id],
					  smt_not(s, smt_eq(s, use(en, v->args[0]), s->zero64))));
		return NULL;
	case SSA_ASSERT: {
		Z3_ast f = smt_and(s, en->e->guard[en->blk->id],
				   smt_eq(s, use(en, v->args[0]), s->zero64));

		en->e->fail[v->id] = f;
		*(Z3_ast *)buf_push(&en->fails, sizeof(Z3_ast)) = f;
		if (v->nargs > 1)
			use(en, v->args[1]);
		return NULL;
	}
	case SSA_NKINDS:
		break;
	}
	if (!s->failed) {
		s->failed = true;
		snprintf(s->err, sizeof(s->err), "encoder: v%u: bad kind", v->id);
	}
	return s->zero64;
}

/* Guard and memory entering block B, from its incoming edges. */
static void enter_block(struct enc *en, const struct ssa_block *b)
{
	struct smt *s = en->s;
	struct smt_prog *e = en->e;

	if (b->id == 0) {
		e->guard[0] = s->t;
		mem_enter(en, b);
		return;
	}
	if (en->nin[b->id] != b->npreds && !s->failed) {
		s->failed = true;
		snprintf(s->err, sizeof(s->err), "encoder: b%u: %u of %u incoming edges",
			 b->id, en->nin[b->id], b->npreds);
		return;
	}
	e->guard[b->id] = or_n(s, e->edge[b->id], b->npreds);
	mem_enter(en, b);
}

/* The edges leaving block B, into the incoming tables of its successors
 * (in the order ssa.c numbered them: sources in topological order, then
 * succ[0] before succ[1]). */
static void leave_block(struct enc *en, const struct ssa_block *b)
{
	struct smt *s = en->s;
	struct smt_prog *e = en->e;
	Z3_ast c = s->t;
	uint32_t j;

	e->mem_out[b->id] = en->ms;
	if (b->term == SSA_TERM_BRANCH)
		c = cond(s, b->cond_op, b->cond64, use(en, b->a), use(en, b->b));
	for (j = 0; j < b->nsucc; j++) {
		uint32_t to = b->succ[j], idx = en->nin[to]++;
		Z3_ast cj = b->term == SSA_TERM_BRANCH && j == 1 ? smt_not(s, c) : c;

		if (idx >= en->p->blocks[to]->npreds || en->p->blocks[to]->preds[idx] != b->id) {
			if (!s->failed) {
				s->failed = true;
				snprintf(s->err, sizeof(s->err),
					 "encoder: edge b%u -> b%u out of order", b->id, to);
			}
			return;
		}
		e->edge[to][idx] = smt_and(s, e->guard[b->id], cj);
	}
}

static void encode_results(struct enc *en)
{
	struct smt *s = en->s;
	struct smt_prog *e = en->e;
	const struct ssa_prog *p = en->p;
	struct vec exits = {0}, unw = {0};
	Z3_ast r = NULL;
	uint32_t i;

	for (i = 0; i < p->nblocks; i++) {
		if (p->blocks[i]->term == SSA_TERM_EXIT)
			*(Z3_ast *)buf_push(&exits, sizeof(Z3_ast)) = e->guard[i];
		else if (p->blocks[i]->term == SSA_TERM_UNWIND)
			*(Z3_ast *)buf_push(&unw, sizeof(Z3_ast)) = e->guard[i];
	}
	for (i = p->nblocks; i-- > 0;) {
		const struct ssa_block *b = p->blocks[i];

		if (b->term != SSA_TERM_EXIT)
			continue;
		r = r ? ite(s, e->guard[i], use(en, b->a), r) : use(en, b->a);
	}
	e->result = r ? r : fresh(s, "noexit", s->bv64);
	e->reach_exit = or_n(s, exits.data, (unsigned)exits.len);
	e->reach_unwind = or_n(s, unw.data, (unsigned)unw.len);
	buf_free(&exits);
	buf_free(&unw);
}

int smt_encode(struct smt *s, const struct ssa_prog *p, const struct smt_input *in,
	       struct arena *a, struct smt_prog **out)
{
	struct enc en = { .s = s, .p = p, .in = in };
	struct smt_prog *e;
	uint32_t i, j;

	if (p->unsupported || !p->nblocks)
		return -EINVAL;
	if (s->failed)
		return -EIO;
	e = arena_alloc(a, sizeof(*e));
	e->p = p;
	e->val = arena_new_array(a, Z3_ast, p->nvalues);
	e->guard = arena_new_array(a, Z3_ast, p->nblocks);
	e->edge = arena_new_array(a, Z3_ast *, p->nblocks);
	e->mem_out = arena_new_array(a, struct smt_mem, p->nblocks);
	e->call_after = arena_new_array(a, struct smt_mem *, p->nvalues);
	e->call_before = arena_new_array(a, struct smt_mem *, p->nvalues);
	e->fail = arena_new_array(a, Z3_ast, p->nvalues);
	e->kread = arena_new_array(a, Z3_ast, p->nvalues);
	e->frame = arena_new_array(a, Z3_ast, p->nframes ? p->nframes : 1);
	for (i = 0; i < p->nblocks; i++)
		e->edge[i] = arena_new_array(a, Z3_ast, p->blocks[i]->npreds + 1);
	en.e = e;
	en.a = a;
	en.objmode = p->o && !p->bare;
	s->divmod_vars = en.objmode;
	mem_setup(&en);
	en.done = calloc(p->nvalues ? p->nvalues : 1, 1);
	en.nin = calloc(p->nblocks, sizeof(uint32_t));
	if (!en.done || !en.nin)
		abort();
	for (i = 0; i < p->nblocks && !s->failed; i++) {
		const struct ssa_block *b = p->blocks[i];

		en.blk = b;
		enter_block(&en, b);
		for (j = 0; j < b->ninsns && !s->failed; j++) {
			const struct ssa_insn *v = b->insns[j];

			if (en.done[v->id] || v->kind == SSA_CONST)
				continue;   /* a constant: at its first use (smt_use) */
			e->val[v->id] = encode_value(&en, v);
			en.done[v->id] = 1;
		}
		if (!s->failed)
			leave_block(&en, b);
	}
	/* the constants no instruction used (read by e->val all the same) */
	for (i = 0; i < p->nvalues && !s->failed; i++)
		if (!en.done[i] && p->values[i]->kind == SSA_CONST)
			smt_use(&en, i);
	if (!s->failed)
		encode_results(&en);
	if (!s->failed) {
		e->violated = or_n(s, en.fails.data, (unsigned)en.fails.len);
		e->notes = arena_dup(a, en.notes.data, en.notes.len * sizeof(char *));
		e->nnotes = (unsigned)en.notes.len;
	}
	buf_free(&en.fails);
	buf_free(&en.notes);
	free(en.ctxoff);
	free(en.done);
	free(en.nin);
	if (s->failed)
		return -EIO;
	*out = e;
	return 0;
}
