/* insn.c - stage 2: decode raw BPF slots with the isa.h table and attach
 * what the object resolved (the disassembler is in disasm.c).
 *
 * Decoding is strict in the manner of the kernel verifier: every reserved
 * field must be zero, every register field names r0..r10, and r10 is never
 * written. One bad slot gives one error and -EINVAL. Messages, all of the
 * form "WHERE: insn N: <what> (code 0xCC)" (N counts from the start of the
 * decoded range, CC is the opcode byte of slot N):
 *
 *   invalid CLASS opcode             the code byte names no table operation
 *                                    (CLASS: LD LDX ST STX ALU JMP JMP32 ALU64)
 *   OP uses reserved fields          a field that must be 0 is not (OP is the
 *                                    isa_table name: ADD, JEQ, EXIT, LDDW ...)
 *   invalid register rN              a register field above r10
 *   frame pointer is read-only       dst r10 of ALU/LDX/LDDW, or the fetch
 *                                    register of an atomic
 *   invalid byte swap width N        END imm not 16/32/64
 *   invalid MOVSX offset N           not 8/16/32 (ALU32: not 8/16)
 *   MOVSX uses an immediate source   MOVSX with the K source bit
 *   invalid call source N            call src not 0/1/2
 *   invalid atomic operand size      ATOMIC with size B or H
 *   invalid atomic operation 0xN     ATOMIC imm outside the table
 *   truncated LD imm64               LDDW in the last slot
 *   invalid LD imm64 second slot     2nd slot code/dst/src/off not 0
 *   unknown LD imm64 pseudo source N src above 6
 *
 * Fields of struct insn beyond insn.h: is64 is also true for LDDW and for
 * 8-byte loads, stores and atomics; srcreg is true for STX, ATOMIC and
 * LD_IND (the value / index is register src) and false for END (the
 * source bit there picks BE), CALL and CALLX (whose register is dst).
 *
 * Not rejected here, because the kernel rejects them on semantic grounds
 * and not as encodings: shifts by an immediate >= the width, DIV/MOD by a
 * zero immediate.
 *
 * Resolution (insn_resolve) messages, "WHERE: insn N: <what>" with WHERE the
 * function (prog 'x' / func 'x', N relative to its start) or, for slots in
 * no function, the section:
 *   jump out of range to N | jump into the middle of LD imm64 at N
 *   control falls off the end of the function (...)   last insn not EXIT/JA
 *   call to insn N which is not a function
 *   KIND relocation on a CLASS instruction (code 0xCC)
 *   relocation on the second slot of an LD imm64 | relocation past the end
 */
#include "insn.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

const struct isa_info isa_table[ISA_NOPS] = {
#define X(id, kind, code, mn) [ISA_##id] = { #id, mn, ISA_K_##kind, code },
	ISA_OPS(X)
#undef X
};

const struct isa_atomic_info isa_atomic_table[ISA_NATOMICS] = {
#define X(id, imm, mn) [ISA_ATOMIC_##id] = { #id, mn, imm },
	ISA_ATOMIC_OPS(X)
#undef X
};

static const char *const class_names[8] = {
	"LD", "LDX", "ST", "STX", "ALU", "JMP", "JMP32", "ALU64",
};

/* ---- decoding --------------------------------------------------------- */

struct dctx {
	const char *file;
	/* what the messages name: WHERE, or else function FUNC of object O
	 * (or its section SEC where FUNC is -1), named only for a message */
	const char *where;
	const struct object *o;
	int sec, func;
	struct diag *d;
	uint32_t slot;
	uint8_t code;
	const uint8_t *byte_op;  /* the first table row of each opcode byte */
};

__attribute__((format(printf, 2, 3)))
static int bad(const struct dctx *c, const char *fmt, ...)
{
	char what[256], buf[256];
	const char *where = c->where;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!where && c->func >= 0)
		snprintf(buf, sizeof(buf), "%s '%s'",
			 c->o->funcs[c->func].is_prog ? "prog" : "func",
			 c->o->funcs[c->func].name);
	else if (!where)
		snprintf(buf, sizeof(buf), "section '%s'", c->o->sections[c->sec].name);
	return diag_fail(c->d, c->file, "%s: insn %u: %s (code 0x%02x)",
			 where ? where : buf, c->slot, what, c->code);
}

#define CLS_BIT(cls) (1u << (cls))

/* The classes (bit CLS_BIT(cls)) an operation of kind K has. */
static unsigned kind_classes(enum isa_kind k)
{
	switch (k) {
	case ISA_K_ALU:
	case ISA_K_NEG:
	case ISA_K_MOVSX:
	case ISA_K_END:
		return CLS_BIT(ISA_CLS_ALU) | CLS_BIT(ISA_CLS_ALU64);
	case ISA_K_JA:
	case ISA_K_JCOND:
	case ISA_K_CALL:
	case ISA_K_CALLX:
	case ISA_K_EXIT:
		return CLS_BIT(ISA_CLS_JMP) | CLS_BIT(ISA_CLS_JMP32);
	case ISA_K_LDDW:
	case ISA_K_LDPKT:
		return CLS_BIT(ISA_CLS_LD);
	case ISA_K_LDX:
		return CLS_BIT(ISA_CLS_LDX);
	case ISA_K_ST:
		return CLS_BIT(ISA_CLS_ST);
	case ISA_K_STX:
	case ISA_K_ATOMIC:
		return CLS_BIT(ISA_CLS_STX);
	case ISA_NKINDS:
		break;
	}
	return 0;
}

static bool is_alu_class(unsigned cls)
{
	return cls == ISA_CLS_ALU || cls == ISA_CLS_ALU64;
}

/* Tell apart the rows that share a code (see isa.h); ISA_NOPS when the
 * combination is no operation at all. */
static enum isa_op refine(enum isa_op op, const struct insn *in, unsigned cls)
{
	if (op == ISA_DIV && in->off == 1)
		return ISA_SDIV;
	if (op == ISA_MOD && in->off == 1)
		return ISA_SMOD;
	if (op == ISA_MOV && in->off != 0)
		return ISA_MOVSX;
	if (op == ISA_LE && cls == ISA_CLS_ALU64)
		return in->srcreg ? ISA_NOPS : ISA_BSWAP;
	if (op == ISA_LE && in->srcreg)
		return ISA_BE;
	if (op == ISA_CALL && in->srcreg)
		return ISA_CALLX;
	return op;
}

static unsigned size_bytes(uint8_t code)
{
	switch (code & 0x18) {
	case ISA_SZ_W:
		return 4;
	case ISA_SZ_H:
		return 2;
	case ISA_SZ_B:
		return 1;
	default:
		return 8;
	}
}

/* The first table row of every opcode byte (the row depends on the byte
 * alone: its class and its operation or mode bits), so that decoding a slot
 * is one array index instead of a scan of the table. Rows are entered last
 * to first so that the first matching row wins. */
static void fill_byte_ops(uint8_t byte_op[256])
{
	_Static_assert(ISA_NOPS < 256, "enum isa_op must fit a byte");
	_Static_assert(sizeof(void *) != 8 || sizeof(struct insn) == 40,
		       "struct insn is 40 bytes on 64-bit machines");
	memset(byte_op, ISA_NOPS, 256);
	for (int op = ISA_NOPS - 1; op >= 0; op--) {
		/* the row's classes, found once (not a test per class) */
		unsigned classes = kind_classes(isa_table[op].kind);

		for (; classes; classes &= classes - 1) {
			unsigned cls = (unsigned)__builtin_ctz(classes);
			bool opbits = is_alu_class(cls) || cls == ISA_CLS_JMP ||
				      cls == ISA_CLS_JMP32;
			/* the bits the row does not look at: the source bit
			 * (ALU, JMP) or the two size bits (loads, stores) */
			unsigned free_bits = opbits ? 0x08 : 0x18, x;

			for (x = 0; x <= free_bits; x += 0x08)
				byte_op[isa_table[op].code | cls | x] = (uint8_t)op;
		}
	}
}

/* The operation of slot IN (raw fields filled), or ISA_NOPS. */
static enum isa_op classify(const struct dctx *c, const struct insn *in)
{
	unsigned cls = in->code & 0x07;
	enum isa_op op = (enum isa_op)c->byte_op[in->code];

	if (op == ISA_NOPS)
		return op;
	op = refine(op, in, cls);
	if (op == ISA_NOPS)
		return op;
	/* size restrictions of the load modes */
	switch (isa_table[op].kind) {
	case ISA_K_LDDW:
		return (in->code & 0x18) == ISA_SZ_DW ? op : ISA_NOPS;
	case ISA_K_LDPKT:
		return (in->code & 0x18) == ISA_SZ_DW ? ISA_NOPS : op;
	case ISA_K_LDX:
		if (op == ISA_LDXSX && (in->code & 0x18) == ISA_SZ_DW)
			return ISA_NOPS;
		return op;
	case ISA_K_CALL:
	case ISA_K_CALLX:
	case ISA_K_EXIT:
		return cls == ISA_CLS_JMP32 ? ISA_NOPS : op;
	case ISA_K_ALU:
	case ISA_K_NEG:
	case ISA_K_MOVSX:
	case ISA_K_END:
	case ISA_K_JA:
	case ISA_K_JCOND:
	case ISA_K_ST:
	case ISA_K_STX:
	case ISA_K_ATOMIC:
		return op;
	case ISA_NKINDS:
		break;
	}
	return ISA_NOPS;
}

/* Register fields: the ones an operation reads or writes. */
#define R_DST 1u
#define R_SRC 2u

static int check_regs(const struct dctx *c, const struct insn *in,
		      unsigned which)
{
	if ((which & R_DST) && in->dst >= ISA_NREGS)
		return bad(c, "invalid register r%u", in->dst);
	if ((which & R_SRC) && in->src >= ISA_NREGS)
		return bad(c, "invalid register r%u", in->src);
	return 0;
}

static int reserved(const struct dctx *c, const struct insn *in)
{
	return bad(c, "%s uses reserved fields", isa_table[in->op].name);
}

static int writes_dst(const struct dctx *c, const struct insn *in)
{
	return in->dst == ISA_REG_FP ? bad(c, "frame pointer is read-only") : 0;
}

/* ALU, ALU64: dst op= src|imm */
static int check_alu(const struct dctx *c, struct insn *in)
{
	bool sign = in->op == ISA_SDIV || in->op == ISA_SMOD;
	int err = check_regs(c, in, in->srcreg ? R_DST | R_SRC : R_DST);

	if (err)
		return err;
	if (in->off != (sign ? 1 : 0))
		return reserved(c, in);
	if (in->srcreg ? in->imm != 0 : in->src != 0)
		return reserved(c, in);
	return writes_dst(c, in);
}

static int check_neg(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST);

	if (err)
		return err;
	if (in->srcreg || in->src || in->off || in->imm)
		return reserved(c, in);
	return writes_dst(c, in);
}

static int check_movsx(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST | R_SRC);

	if (err)
		return err;
	if (!in->srcreg)
		return bad(c, "MOVSX uses an immediate source");
	if (in->off != 8 && in->off != 16 && !(in->off == 32 && in->is64))
		return bad(c, "invalid MOVSX offset %d", in->off);
	if (in->imm)
		return reserved(c, in);
	in->size = (uint8_t)(in->off / 8);
	return writes_dst(c, in);
}

static int check_end(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST);

	if (err)
		return err;
	if (in->src || in->off)
		return reserved(c, in);
	if (in->imm != 16 && in->imm != 32 && in->imm != 64)
		return bad(c, "invalid byte swap width %d", in->imm);
	in->size = (uint8_t)(in->imm / 8);
	in->srcreg = false; /* the source bit picked BE, not an operand */
	in->is64 = in->op == ISA_BSWAP;
	return writes_dst(c, in);
}

/* JA (JMP: target in off) and gotol (JMP32: target in imm) */
static int check_ja(const struct dctx *c, struct insn *in)
{
	if (in->srcreg || in->src || in->dst)
		return reserved(c, in);
	if (in->is64 ? in->imm != 0 : in->off != 0)
		return reserved(c, in);
	return 0;
}

static int check_jcond(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, in->srcreg ? R_DST | R_SRC : R_DST);

	if (err)
		return err;
	if (in->srcreg ? in->imm != 0 : in->src != 0)
		return reserved(c, in);
	return 0;
}

static int check_call(const struct dctx *c, struct insn *in)
{
	if (in->src > ISA_CALL_KFUNC)
		return bad(c, "invalid call source %u", in->src);
	if (in->dst || (in->src != ISA_CALL_KFUNC && in->off))
		return reserved(c, in);
	in->srcreg = false;
	return 0;
}

static int check_callx(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST);

	if (err)
		return err;
	if (in->src || in->off || in->imm)
		return reserved(c, in);
	in->srcreg = false; /* the register is in dst */
	return 0;
}

static int check_exit(const struct dctx *c, struct insn *in)
{
	if (in->srcreg || in->dst || in->src || in->off || in->imm)
		return reserved(c, in);
	return 0;
}

/* LD imm64: slots IN and NEXT (NULL when IN is the last slot). */
static int check_lddw(const struct dctx *c, struct insn *in,
		      const struct bpf_insn *next)
{
	int err;

	if (!next)
		return bad(c, "truncated LD imm64");
	if (next->code || next->dst_reg || next->src_reg || next->off)
		return bad(c, "invalid LD imm64 second slot");
	if (in->src > ISA_PSEUDO_MAP_IDX_VALUE)
		return bad(c, "unknown LD imm64 pseudo source %u", in->src);
	err = check_regs(c, in, R_DST);
	if (err)
		return err;
	if (in->off)
		return reserved(c, in);
	if ((in->src == ISA_PSEUDO_MAP_FD || in->src == ISA_PSEUDO_MAP_IDX) &&
	    next->imm)
		return reserved(c, in);
	in->imm64 = (uint32_t)in->imm | (uint64_t)(uint32_t)next->imm << 32;
	in->size = 8;
	in->is64 = true;
	return writes_dst(c, in);
}

/* legacy packet loads: r0 = *(size *)skb[imm] / skb[src + imm] */
static int check_ldpkt(const struct dctx *c, struct insn *in)
{
	bool ind = in->op == ISA_LDIND;
	int err = check_regs(c, in, ind ? R_SRC : 0);

	if (err)
		return err;
	if (in->dst || in->off || (!ind && in->src))
		return reserved(c, in);
	in->srcreg = ind;
	return 0;
}

static int check_ldx(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST | R_SRC);

	if (err)
		return err;
	if (in->imm)
		return reserved(c, in);
	return writes_dst(c, in);
}

static int check_st(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST);

	if (err)
		return err;
	return in->src ? reserved(c, in) : 0;
}

static int check_stx(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST | R_SRC);

	if (err)
		return err;
	if (in->imm)
		return reserved(c, in);
	in->srcreg = true;
	return 0;
}

static int check_atomic(const struct dctx *c, struct insn *in)
{
	int err = check_regs(c, in, R_DST | R_SRC);
	int base = in->imm & ~ISA_FETCH;
	int a;

	if (err)
		return err;
	if (in->size != 4 && in->size != 8)
		return bad(c, "invalid atomic operand size");
	for (a = 0; a < ISA_NATOMICS; a++)
		if (isa_atomic_table[a].imm == base)
			break;
	if (a == ISA_NATOMICS || ((a == ISA_ATOMIC_XCHG ||
				   a == ISA_ATOMIC_CMPXCHG) &&
				  !(in->imm & ISA_FETCH)))
		return bad(c, "invalid atomic operation 0x%x", (unsigned)in->imm);
	in->aop = (uint8_t)a;
	in->fetch = in->imm & ISA_FETCH;
	in->srcreg = true;
	if (in->fetch && a != ISA_ATOMIC_CMPXCHG && in->src == ISA_REG_FP)
		return bad(c, "frame pointer is read-only");
	return 0;
}

static int check_fields(const struct dctx *c, struct insn *in,
			const struct bpf_insn *next)
{
	switch (isa_table[in->op].kind) {
	case ISA_K_ALU:
		return check_alu(c, in);
	case ISA_K_NEG:
		return check_neg(c, in);
	case ISA_K_MOVSX:
		return check_movsx(c, in);
	case ISA_K_END:
		return check_end(c, in);
	case ISA_K_JA:
		return check_ja(c, in);
	case ISA_K_JCOND:
		return check_jcond(c, in);
	case ISA_K_CALL:
		return check_call(c, in);
	case ISA_K_CALLX:
		return check_callx(c, in);
	case ISA_K_EXIT:
		return check_exit(c, in);
	case ISA_K_LDDW:
		return check_lddw(c, in, next);
	case ISA_K_LDPKT:
		return check_ldpkt(c, in);
	case ISA_K_LDX:
		return check_ldx(c, in);
	case ISA_K_ST:
		return check_st(c, in);
	case ISA_K_STX:
		return check_stx(c, in);
	case ISA_K_ATOMIC:
		return check_atomic(c, in);
	case ISA_NKINDS:
		break;
	}
	assert(!"operation without a kind");
	return -EINVAL;
}

static void raw_fields(struct insn *in, const struct bpf_insn *r)
{
	unsigned cls = r->code & 0x07;

	memset(in, 0, sizeof(*in));
	in->code = r->code;
	in->dst = r->dst_reg;
	in->src = r->src_reg;
	in->off = r->off;
	in->imm = r->imm;
	in->imm64 = (uint64_t)(int64_t)r->imm;
	if (is_alu_class(cls) || cls == ISA_CLS_JMP || cls == ISA_CLS_JMP32) {
		in->srcreg = (r->code & 0x08) == ISA_SRC_X;
		in->is64 = cls == ISA_CLS_ALU64 || cls == ISA_CLS_JMP;
	} else {
		in->size = (uint8_t)size_bytes(r->code);
		in->is64 = in->size == 8;
	}
}

static int decode_one(const struct dctx *c, const struct bpf_insn *r,
		      const struct bpf_insn *next, struct insn *in)
{
	raw_fields(in, r);
	in->op = classify(c, in);
	if (in->op == ISA_NOPS)
		return bad(c, "invalid %s opcode", class_names[r->code & 0x07]);
	return check_fields(c, in, next);
}

/* Decode N slots; messages number them from BASE. */
static int decode_range(struct dctx *c, const struct bpf_insn *raw, uint32_t n,
			struct insn *out, uint32_t base)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct bpf_insn *next = i + 1 < n ? &raw[i + 1] : NULL;
		int err;

		c->slot = base + i;
		c->code = raw[i].code;
		err = decode_one(c, &raw[i], next, &out[i]);
		if (err)
			return err;
		if (out[i].op == ISA_LDDW) {
			i++;
			raw_fields(&out[i], &raw[i]);
			out[i].op = ISA_NOPS;
			out[i].cont = true;
		}
	}
	return 0;
}

/* Slot T of the N is an instruction a transfer may reach (not an LD
 * imm64's second slot) */
static bool reachable(const struct insn *out, uint32_t n, int64_t t)
{
	return t >= 0 && t < n && !out[t].cont;
}

/* IN's fast class (struct insn) at slot I of the section's N */
static unsigned fast_class(const struct insn *out, uint32_t n, uint32_t i, const struct insn *in)
{
	bool next = reachable(out, n, (int64_t)i + 1);

	if (in->dst >= ISA_NREGS || in->src >= ISA_NREGS)
		return 0;
	switch (isa_table[in->op].kind) {
	case ISA_K_ALU:
	case ISA_K_NEG:
	case ISA_K_MOVSX:
		if (next && in->dst != ISA_REG_FP)
			return INSN_FAST(in->op, in->is64, in->srcreg);
		return 0;
	case ISA_K_JA:
		if (!in->srcreg &&
		    reachable(out, n, (int64_t)i + 1 + (in->is64 ? in->off : in->imm)))
			return INSN_FAST(in->op, in->is64, false);
		return 0;
	case ISA_K_JCOND:
		if (next && reachable(out, n, (int64_t)i + 1 + in->off))
			return INSN_FAST(in->op, in->is64, in->srcreg);
		return 0;
	case ISA_K_LDX:                        /* its width aside, one class */
	case ISA_K_ST:
	case ISA_K_STX:
		if (next && (in->size == 1 || in->size == 2 || in->size == 4 || in->size == 8) &&
		    (in->op == ISA_ST || in->op == ISA_STX || in->dst != ISA_REG_FP))
			return INSN_FAST(in->op, false, false);
		return 0;
	case ISA_K_END: case ISA_K_CALL: case ISA_K_CALLX: case ISA_K_EXIT:
	case ISA_K_LDDW: case ISA_K_LDPKT: case ISA_K_ATOMIC: case ISA_NKINDS:
		break;
	}
	return 0;
}

/* Each slot's fast class, over the section's N slots */
static void mark_fast(struct insn *out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)      /* not an LD imm64's second slot */
		out[i].fast = out[i].op == ISA_NOPS ? 0 :
			      (uint8_t)fast_class(out, n, i, &out[i]);
}

int insn_decode(const struct bpf_insn *raw, uint32_t n, struct insn *out,
		const char *file, const char *where, struct diag *d)
{
	uint8_t byte_op[256];
	struct dctx c = { .file = file, .where = where, .d = d, .byte_op = byte_op };
	int err;

	fill_byte_ops(byte_op);
	err = decode_range(&c, raw, n, out, 0);
	if (!err)
		mark_fast(out, n);
	return err;
}

/* ---- resolution ------------------------------------------------------- */

struct rctx {
	const struct object *o;
	int sec;
	const struct obj_section *s;
	struct insn *insns;
	struct diag *d;
};

/* The function of section SEC containing SLOT, or -1. */
static int func_at(const struct object *o, int sec, uint32_t slot)
{
	for (uint32_t f = 0; f < o->nfuncs; f++) {
		const struct obj_func *fn = &o->funcs[f];

		if (fn->sec == sec && slot >= fn->start &&
		    slot - fn->start < fn->nslots)
			return (int)f;
	}
	return -1;
}

/* The function of section SEC starting at SLOT, or -1. */
static int func_starting_at(const struct object *o, int sec, int64_t slot)
{
	for (uint32_t f = 0; f < o->nfuncs; f++)
		if (o->funcs[f].sec == sec && o->funcs[f].start == slot &&
		    o->funcs[f].nslots)
			return (int)f;
	return -1;
}

/* "prog 'xdp_fw'" / "func 'helper'" / "section '.text'" into BUF; returns
 * the slot that insn numbers in messages about SLOT count from. */
static uint32_t where_of(const struct object *o, int sec, uint32_t slot,
			 char *buf, size_t size)
{
	int f = func_at(o, sec, slot);

	if (f < 0) {
		snprintf(buf, size, "section '%s'", o->sections[sec].name);
		return 0;
	}
	snprintf(buf, size, "%s '%s'", o->funcs[f].is_prog ? "prog" : "func",
		 o->funcs[f].name);
	return o->funcs[f].start;
}

__attribute__((format(printf, 3, 4)))
static int rbad(const struct rctx *c, uint32_t slot, const char *fmt, ...)
{
	char where[256], what[256];
	uint32_t base = where_of(c->o, c->sec, slot, where, sizeof(where));
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return diag_fail(c->d, c->o->path, "%s: insn %u: %s", where,
			 slot - base, what);
}

/* A slot number as messages about FROM show it (relative to FROM's function). */
static long long rel(const struct rctx *c, uint32_t from, int64_t slot)
{
	char where[256];

	return (long long)(slot - where_of(c->o, c->sec, from, where,
					   sizeof(where)));
}

static const char *reloc_kind_name(enum obj_reloc_kind k)
{
	switch (k) {
	case OBJ_RELO_MAP:
		return "map";
	case OBJ_RELO_GLOBAL:
		return "global data";
	case OBJ_RELO_FUNC_ADDR:
		return "function address";
	case OBJ_RELO_CALL:
		return "call";
	case OBJ_RELO_KFUNC:
		return "kfunc";
	case OBJ_RELO_KSYM:
		return "ksym";
	}
	return "?";
}

static int wrong_insn(const struct rctx *c, const struct obj_reloc *r)
{
	const struct insn *in = &c->insns[r->slot];

	return rbad(c, r->slot, "%s relocation on a %s instruction (code 0x%02x)",
		    reloc_kind_name(r->kind), isa_table[in->op].name, in->code);
}

static int bad_target(const struct rctx *c, const struct obj_reloc *r)
{
	return rbad(c, r->slot, "%s relocation to unknown index %d",
		    reloc_kind_name(r->kind), r->target);
}

static void set_func_ref(const struct object *o, struct insn_ref *ref,
			 enum insn_ref_kind kind, int f)
{
	ref->kind = kind;
	ref->index = f;
	ref->sec = o->funcs[f].sec;
	ref->target = o->funcs[f].start;
}

/* One relocation of the section onto its instruction. */
static int apply_reloc(const struct rctx *c, const struct obj_reloc *r)
{
	const struct object *o = c->o;
	struct insn *in;
	bool lddw, call;

	if (r->slot >= c->s->nslots)
		return diag_fail(c->d, o->path, "section '%s': relocation past the end at insn %u",
				 c->s->name, r->slot);
	in = &c->insns[r->slot];
	if (in->cont)
		return rbad(c, r->slot, "relocation on the second slot of an LD imm64");
	if (in->ref.kind != INSN_REF_NONE)
		return rbad(c, r->slot, "two relocations on one instruction");
	lddw = in->op == ISA_LDDW;
	call = in->op == ISA_CALL && in->src != ISA_CALL_HELPER;
	switch (r->kind) {
	case OBJ_RELO_MAP:
		if (!lddw)
			return wrong_insn(c, r);
		if (r->target < 0 || (uint32_t)r->target >= o->nmaps)
			return bad_target(c, r);
		in->ref.kind = INSN_REF_MAP;
		in->ref.index = r->target;
		if (in->src == ISA_PSEUDO_MAP_VALUE ||
		    in->src == ISA_PSEUDO_MAP_IDX_VALUE) {
			in->ref.kind = INSN_REF_MAP_VALUE;
			in->ref.off = (uint32_t)c->insns[r->slot + 1].imm;
		}
		return 0;
	case OBJ_RELO_GLOBAL:
		if (!lddw)
			return wrong_insn(c, r);
		if (r->target < 0 || (uint32_t)r->target >= o->ndatasecs)
			return bad_target(c, r);
		in->ref.kind = INSN_REF_GLOBAL;
		in->ref.index = r->target;
		in->ref.off = r->off;
		return 0;
	case OBJ_RELO_FUNC_ADDR:
	case OBJ_RELO_CALL:
		if (r->kind == OBJ_RELO_FUNC_ADDR ? !lddw :
		    !call || in->src != ISA_CALL_LOCAL)
			return wrong_insn(c, r);
		if (r->target < 0 || (uint32_t)r->target >= o->nfuncs)
			return bad_target(c, r);
		set_func_ref(o, &in->ref, r->kind == OBJ_RELO_CALL ?
			     INSN_REF_SUBPROG : INSN_REF_CALLBACK, r->target);
		return 0;
	case OBJ_RELO_KFUNC:
		if (!call)
			return wrong_insn(c, r);
		if (r->target < 0 || (uint32_t)r->target >= o->nkfuncs)
			return bad_target(c, r);
		in->ref.kind = INSN_REF_KFUNC;
		in->ref.index = r->target;
		return 0;
	case OBJ_RELO_KSYM:
		if (!lddw)
			return wrong_insn(c, r);
		if (r->target < 0 || (uint32_t)r->target >= o->nexterns)
			return bad_target(c, r);
		in->ref.kind = INSN_REF_KSYM;
		in->ref.index = r->target;
		return 0;
	}
	assert(!"unknown relocation kind");
	return -EINVAL;
}

/* pc-relative references that need no relocation: local calls, helper
 * calls and LD imm64 of a function address (src=4). */
static int resolve_local(const struct rctx *c, uint32_t slot)
{
	struct insn *in = &c->insns[slot];
	int64_t target = (int64_t)slot + in->imm + 1;
	bool pcrel_call = in->op == ISA_CALL && in->src == ISA_CALL_LOCAL;
	bool func_addr = in->op == ISA_LDDW && in->src == ISA_PSEUDO_FUNC;
	int f;

	if (in->ref.kind != INSN_REF_NONE)
		return 0;
	if (in->op == ISA_CALL && in->src == ISA_CALL_HELPER) {
		in->ref.kind = INSN_REF_HELPER;
		in->ref.index = in->imm;
		return 0;
	}
	if (!pcrel_call && !func_addr)
		return 0;
	f = func_starting_at(c->o, c->sec, target);
	if (f < 0)
		return rbad(c, slot, "%s insn %lld which is not a function",
			    pcrel_call ? "call to" : "address of",
			    rel(c, slot, target));
	set_func_ref(c->o, &in->ref, pcrel_call ? INSN_REF_SUBPROG :
		     INSN_REF_CALLBACK, f);
	return 0;
}

/* A JA / JCOND / gotol must land inside its own function, on an
 * instruction (not the second slot of an LD imm64). */
static int check_jump(const struct rctx *c, uint32_t slot)
{
	const struct insn *in = &c->insns[slot];
	enum isa_kind k = in->op < ISA_NOPS ? isa_table[in->op].kind : ISA_NKINDS;
	uint32_t lo = 0, hi = c->s->nslots;
	int64_t t;
	int f;

	if (k != ISA_K_JA && k != ISA_K_JCOND)
		return 0;
	f = func_at(c->o, c->sec, slot);   /* for jumps only: a scan of the functions */
	if (f >= 0) {
		lo = c->o->funcs[f].start;
		hi = lo + c->o->funcs[f].nslots;
		if (hi > c->s->nslots)
			hi = c->s->nslots;
	}
	t = insn_jump_target(in, slot);
	if (t < lo || t >= hi)
		return rbad(c, slot, "jump out of range to %lld", rel(c, slot, t));
	if (c->insns[t].cont)
		return rbad(c, slot, "jump into the middle of LD imm64 at %lld",
			    rel(c, slot, t));
	return 0;
}

/* The last instruction of a function must be an exit or an unconditional
 * jump (the kernel's check_subprogs: "last insn is not an exit or jmp"):
 * anything else, a conditional jump, a call or the first slot of an LD
 * imm64 included, lets control run past the function's end. */
static int check_func_end(const struct rctx *c, int f)
{
	const struct obj_func *fn = &c->o->funcs[f];
	uint32_t last;
	enum isa_kind k;

	if (fn->sec != c->sec || !fn->nslots || fn->start + fn->nslots > c->s->nslots)
		return 0;
	last = fn->start + fn->nslots - 1;
	if (c->insns[last].cont && last > fn->start)
		last--;
	k = c->insns[last].op < ISA_NOPS ? isa_table[c->insns[last].op].kind : ISA_NKINDS;
	if (k == ISA_K_EXIT || k == ISA_K_JA)
		return 0;
	return rbad(c, last, "control falls off the end of the function (its last instruction is not an exit or a jump)");
}

int insn_resolve(const struct object *o, int sec, struct insn *insns,
		 struct diag *d)
{
	struct rctx c = { o, sec, &o->sections[sec], insns, d };
	int err = 0;

	for (uint32_t i = 0; i < c.s->nrelocs && !err; i++)
		err = apply_reloc(&c, &c.s->relocs[i]);
	for (uint32_t i = 0; i < c.s->nslots && !err; i++)
		err = resolve_local(&c, i) ?: check_jump(&c, i);
	for (uint32_t f = 0; f < o->nfuncs && !err; f++)
		err = check_func_end(&c, (int)f);
	return err;
}

int64_t insn_jump_target(const struct insn *in, uint32_t slot)
{
	bool by_imm = (in->op == ISA_JA && !in->is64) || in->op == ISA_CALL;

	return (int64_t)slot + (by_imm ? in->imm : in->off) + 1;
}

/* Decode section SEC function by function, so messages name the function
 * and count insns from its start; slots outside every function are decoded
 * under the section's name, counted from the section start. */
static int decode_section(const struct object *o, int sec, struct insn *out,
			  const uint8_t *byte_op, struct diag *d)
{
	const struct obj_section *s = &o->sections[sec];
	struct dctx c = { .file = o->path, .o = o, .sec = sec, .d = d, .byte_op = byte_op };
	uint32_t p = 0;

	while (p < s->nslots) {
		int f = func_starting_at(o, sec, p);
		uint32_t n, base;
		int err;

		if (f >= 0) {
			n = o->funcs[f].nslots;
			if (n > s->nslots - p)
				n = s->nslots - p;
			base = 0;
		} else {
			n = 1;
			while (p + n < s->nslots &&
			       func_starting_at(o, sec, p + n) < 0)
				n++;
			base = p;
		}
		c.func = f;
		err = decode_range(&c, s->raw + p, n, out + p, base);
		if (err)
			return err;
		p += n;
	}
	return 0;
}

int insn_decode_object(const struct object *o, struct insn ***out,
		       struct diag *d)
{
	struct insn **secs = arena_new_array(o->arena, struct insn *,
					     o->nsections + 1);
	uint8_t byte_op[256];
	int err = 0;

	fill_byte_ops(byte_op);      /* once: it was a fifth of a small function's decode */
	for (uint32_t i = 0; i < o->nsections && !err; i++) {
		secs[i] = arena_new_array(o->arena, struct insn,
					  o->sections[i].nslots + 1);
		err = decode_section(o, (int)i, secs[i], byte_op, d) ?:
		      insn_resolve(o, (int)i, secs[i], d);
		if (!err)
			mark_fast(secs[i], o->sections[i].nslots);
	}
	if (err)
		return err;
	*out = secs;
	return 0;
}
