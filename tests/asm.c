/* asm.c - the test assembler and .data parser (contract in asm.h).
 *
 * Two passes over the asm lines: the first places labels (an LD imm64 takes
 * two slots), the second encodes. Mnemonics and operation codes come from
 * the isa.h table, as everywhere else in the project.
 *
 * Grammar of a line (after '#' comments are cut):
 *   line    -> { LABEL ':' } [ insn ]
 *   insn    -> MNEMONIC [ operand { ',' operand } ]
 *   operand -> reg | imm | '[' reg [ ('+'|'-') num ] ']' | target
 *   reg     -> ['%'] 'r' DIGITS
 *   target  -> LABEL | ('+'|'-') DIGITS
 */
#include "asm.h"

#include "isa.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- assembler state ---------------------------------------------------- */

struct label {
	char *name;
	uint32_t slot;
};

struct line {
	char *text;             /* comment stripped, trimmed; owned */
	unsigned lineno;
	uint32_t slot;          /* slot of the instruction on this line */
};

struct actx {
	const char *name;
	char *err;
	size_t errlen;
	struct line *lines;
	size_t nlines;
	struct label *labels;
	size_t nlabels;
	struct bpf_insn *out;
	uint32_t nout, cap;
	unsigned lineno;        /* of the line being encoded */
	uint32_t slot;          /* of the instruction being encoded */
};

/* a cursor over one line */
struct cur {
	const char *p;
	struct actx *a;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct cur *c, const char *fmt, ...)
{
	struct actx *a = c->a;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	while (c->p && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	if (c->p && *c->p)
		snprintf(a->err, a->errlen, "%s:%u: %s near '%s'", a->name,
			 a->lineno, msg, c->p);
	else
		snprintf(a->err, a->errlen, "%s:%u: %s", a->name, a->lineno, msg);
	return -EINVAL;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		abort();
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* ---- lexical primitives ------------------------------------------------- */

static void skip_ws(struct cur *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		c->p++;
}

static bool accept(struct cur *c, char ch)
{
	skip_ws(c);
	if (*c->p != ch)
		return false;
	c->p++;
	return true;
}

static int expect(struct cur *c, char ch)
{
	return accept(c, ch) ? 0 : fail(c, "'%c' expected", ch);
}

static bool is_word(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '.';
}

/* word -> [A-Za-z0-9_.]+ */
static int word(struct cur *c, char *buf, size_t size)
{
	size_t n = 0;

	skip_ws(c);
	while (is_word(*c->p)) {
		if (n + 1 >= size)
			return fail(c, "name too long");
		buf[n++] = *c->p++;
	}
	buf[n] = '\0';
	return n ? 0 : fail(c, "name expected");
}

/* reg -> ['%'] 'r' DIGITS   (r0..r15) */
static int reg(struct cur *c, uint8_t *r)
{
	unsigned long v;
	char *end;

	skip_ws(c);
	if (*c->p == '%')
		c->p++;
	if (*c->p != 'r' || !isdigit((unsigned char)c->p[1]))
		return fail(c, "register expected");
	v = strtoul(c->p + 1, &end, 10);
	if (v > 15)
		return fail(c, "no register r%lu", v);
	c->p = end;
	*r = (uint8_t)v;
	return 0;
}

static bool at_reg(struct cur *c)
{
	const char *p = c->p;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '%')
		p++;
	return *p == 'r' && isdigit((unsigned char)p[1]);
}

/* num -> ['-'|'+'] ( '0x' HEX | DIGITS ): magnitude in *MAG */
static int number(struct cur *c, bool *neg, bool *hex, uint64_t *mag)
{
	char *end;

	skip_ws(c);
	*neg = *c->p == '-';
	if (*c->p == '-' || *c->p == '+')
		c->p++;
	*hex = c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X');
	if (!isdigit((unsigned char)*c->p))
		return fail(c, "number expected");
	errno = 0;
	*mag = strtoull(c->p, &end, *hex ? 16 : 10);
	if (errno || is_word(*end))
		return fail(c, "bad number");
	c->p = end;
	return 0;
}

/* A 32-bit immediate: hex up to 0xffffffff as the bits, decimal in s32. */
static int imm32(struct cur *c, int32_t *v)
{
	bool neg, hex;
	uint64_t m;
	int err = number(c, &neg, &hex, &m);

	if (err)
		return err;
	if (neg && m <= (uint64_t)INT32_MAX + 1) {
		*v = (int32_t)(-(int64_t)m);
		return 0;
	}
	if (!neg && (hex ? m <= UINT32_MAX : m <= INT32_MAX)) {
		*v = (int32_t)(uint32_t)m;
		return 0;
	}
	return fail(c, "immediate out of range");
}

static int imm64(struct cur *c, uint64_t *v)
{
	bool neg, hex;
	uint64_t m;
	int err = number(c, &neg, &hex, &m);

	if (err)
		return err;
	if (neg && m > (uint64_t)INT64_MAX + 1)
		return fail(c, "immediate out of range");
	*v = neg ? (uint64_t)0 - m : m;
	return 0;
}

static int off16(struct cur *c, int64_t v, int16_t *off)
{
	if (v < INT16_MIN || v > INT16_MAX)
		return fail(c, "offset %" PRId64 " out of range", v);
	*off = (int16_t)v;
	return 0;
}

/* mem -> '[' reg [ ('+'|'-') num ] ']' */
static int mem(struct cur *c, uint8_t *r, int16_t *off)
{
	int err = expect(c, '[') ?: reg(c, r);
	bool neg, hex;
	uint64_t m = 0;

	if (err)
		return err;
	skip_ws(c);
	*off = 0;
	if (*c->p == '+' || *c->p == '-') {
		err = number(c, &neg, &hex, &m);
		if (err)
			return err;
		if (m > 0x8000)
			return fail(c, "offset out of range");
		err = off16(c, neg ? -(int64_t)m : (int64_t)m, off);
		if (err)
			return err;
	}
	return expect(c, ']');
}

static const struct label *find_label(const struct actx *a, const char *name)
{
	for (size_t i = 0; i < a->nlabels; i++)
		if (!strcmp(a->labels[i].name, name))
			return &a->labels[i];
	return NULL;
}

/* target -> LABEL | ('+'|'-') DIGITS: the offset from the next slot */
static int target(struct cur *c, int64_t *rel)
{
	char name[128];
	const struct label *l;
	bool neg, hex;
	uint64_t m;
	int err;

	skip_ws(c);
	if (*c->p == '+' || *c->p == '-') {
		err = number(c, &neg, &hex, &m);
		*rel = neg ? -(int64_t)m : (int64_t)m;
		return err;
	}
	err = word(c, name, sizeof(name));
	if (err)
		return err;
	l = find_label(c->a, name);
	if (!l)
		return fail(c, "undefined label '%s'", name);
	*rel = (int64_t)l->slot - ((int64_t)c->a->slot + 1);
	return 0;
}

/* ---- encoding ----------------------------------------------------------- */

static void emit(struct actx *a, uint8_t code, uint8_t dst, uint8_t src,
		 int16_t off, int32_t imm)
{
	struct bpf_insn *i;

	if (a->nout == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->out = xrealloc(a->out, a->cap * sizeof(*a->out));
	}
	i = &a->out[a->nout++];
	memset(i, 0, sizeof(*i));
	i->code = code;
	i->dst_reg = dst & 0xf;
	i->src_reg = src & 0xf;
	i->off = off;
	i->imm = imm;
}

static int end_of_line(struct cur *c)
{
	skip_ws(c);
	return *c->p ? fail(c, "end of line expected") : 0;
}

/* The isa_table row of kind K (or kind K2) named MN, or ISA_NOPS. */
static enum isa_op by_mnemonic(const char *mn, enum isa_kind k,
			       enum isa_kind k2)
{
	for (int op = 0; op < ISA_NOPS; op++)
		if ((isa_table[op].kind == k || isa_table[op].kind == k2) &&
		    !strcmp(isa_table[op].mnemonic, mn))
			return (enum isa_op)op;
	return ISA_NOPS;
}

/* "b" "h" "w" "dw" -> size bits, or -1 */
static int size_bits(const char *s)
{
	if (!strcmp(s, "b"))
		return ISA_SZ_B;
	if (!strcmp(s, "h"))
		return ISA_SZ_H;
	if (!strcmp(s, "w"))
		return ISA_SZ_W;
	if (!strcmp(s, "dw"))
		return ISA_SZ_DW;
	return -1;
}

/* alu -> (add|sub|...)[32|64] reg ',' (reg|imm)  |  neg[32|64] reg */
static int enc_alu(struct cur *c, enum isa_op op, bool is32)
{
	uint8_t cls = is32 ? ISA_CLS_ALU : ISA_CLS_ALU64;
	uint8_t code = cls | isa_table[op].code, dst, src = 0;
	int16_t off = (op == ISA_SDIV || op == ISA_SMOD) ? 1 : 0;
	int32_t imm = 0;
	int err = reg(c, &dst);

	if (err)
		return err;
	if (op != ISA_NEG) {
		err = expect(c, ',');
		if (!err && at_reg(c)) {
			code |= ISA_SRC_X;
			err = reg(c, &src);
		} else if (!err) {
			err = imm32(c, &imm);
		}
		if (err)
			return err;
	}
	emit(c->a, code, dst, src, off, imm);
	return end_of_line(c);
}

/* movsx -> movsx(8|16|32)(32|64) reg ',' reg */
static int enc_movsx(struct cur *c, const char *digits)
{
	static const struct { const char *d; int w; uint8_t cls; } forms[] = {
		{ "832", 8, ISA_CLS_ALU }, { "864", 8, ISA_CLS_ALU64 },
		{ "1632", 16, ISA_CLS_ALU }, { "1664", 16, ISA_CLS_ALU64 },
		{ "3232", 32, ISA_CLS_ALU }, { "3264", 32, ISA_CLS_ALU64 },
	};
	uint8_t dst, src;
	int err;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (strcmp(forms[i].d, digits))
			continue;
		err = reg(c, &dst) ?: expect(c, ',') ?: reg(c, &src);
		if (err)
			return err;
		emit(c->a, forms[i].cls | ISA_SRC_X | isa_table[ISA_MOVSX].code,
		     dst, src, (int16_t)forms[i].w, 0);
		return end_of_line(c);
	}
	return fail(c, "unknown mnemonic 'movsx%s'", digits);
}

/* end -> (le|be|bswap|swap)(16|32|64) reg */
static int enc_end(struct cur *c, enum isa_op op, const char *digits)
{
	uint8_t cls = op == ISA_BSWAP ? ISA_CLS_ALU64 : ISA_CLS_ALU;
	uint8_t src = op == ISA_BE ? ISA_SRC_X : ISA_SRC_K;
	int width = atoi(digits);
	uint8_t dst;
	int err;

	if (width != 16 && width != 32 && width != 64)
		return fail(c, "byte swap width 16, 32 or 64 expected");
	err = reg(c, &dst);
	if (err)
		return err;
	emit(c->a, cls | src | isa_table[op].code, dst, 0, 0, width);
	return end_of_line(c);
}

/* jcond -> j<cc>[32] reg ',' (reg|imm) ',' target */
static int enc_jcond(struct cur *c, enum isa_op op, bool is32)
{
	uint8_t code = (is32 ? ISA_CLS_JMP32 : ISA_CLS_JMP) | isa_table[op].code;
	uint8_t dst, src = 0;
	int32_t imm = 0;
	int16_t off = 0;
	int64_t rel = 0;
	int err = reg(c, &dst) ?: expect(c, ',');

	if (!err && at_reg(c)) {
		code |= ISA_SRC_X;
		err = reg(c, &src);
	} else if (!err) {
		err = imm32(c, &imm);
	}
	err = err ?: expect(c, ',') ?: target(c, &rel) ?: off16(c, rel, &off);
	if (err)
		return err;
	emit(c->a, code, dst, src, off, imm);
	return end_of_line(c);
}

/* ja -> ja target (off)  |  ja32 target (gotol: imm) */
static int enc_ja(struct cur *c, bool is32)
{
	int16_t off = 0;
	int64_t rel;
	int err = target(c, &rel);

	if (err)
		return err;
	if (is32) {
		if (rel < INT32_MIN || rel > INT32_MAX)
			return fail(c, "jump out of range");
		emit(c->a, ISA_CLS_JMP32 | isa_table[ISA_JA].code, 0, 0, 0,
		     (int32_t)rel);
	} else {
		err = off16(c, rel, &off);
		if (err)
			return err;
		emit(c->a, ISA_CLS_JMP | isa_table[ISA_JA].code, 0, 0, off, 0);
	}
	return end_of_line(c);
}

/* call -> call reg | call local target | call [helper|kfunc] imm */
static int enc_call(struct cur *c)
{
	uint8_t code = ISA_CLS_JMP | isa_table[ISA_CALL].code, r, src = 0;
	const char *save;
	char kw[16];
	int32_t imm;
	int64_t rel;
	int err;

	if (at_reg(c)) {
		err = reg(c, &r);
		if (err)
			return err;
		emit(c->a, code | ISA_SRC_X, r, 0, 0, 0);
		return end_of_line(c);
	}
	skip_ws(c);
	save = c->p;
	if (isalpha((unsigned char)*c->p) && !word(c, kw, sizeof(kw))) {
		if (!strcmp(kw, "local")) {
			err = target(c, &rel);
			if (err)
				return err;
			emit(c->a, code, 0, ISA_CALL_LOCAL, 0, (int32_t)rel);
			return end_of_line(c);
		}
		if (!strcmp(kw, "kfunc"))
			src = ISA_CALL_KFUNC;
		else if (strcmp(kw, "helper"))
			c->p = save;
	}
	err = imm32(c, &imm);
	if (err)
		return err;
	emit(c->a, code, 0, src, 0, imm);
	return end_of_line(c);
}

/* lock -> lock [fetch] (add|or|and|xor|xchg|cmpxchg)[32] mem ',' reg */
static int enc_lock(struct cur *c)
{
	char w[32], *digits;
	bool fetch = false, is32;
	uint8_t dst, src;
	int16_t off;
	int a, err = word(c, w, sizeof(w));

	if (!err && !strcmp(w, "fetch")) {
		fetch = true;
		err = word(c, w, sizeof(w));
	}
	if (err)
		return err;
	digits = w + strcspn(w, "0123456789");
	is32 = !strcmp(digits, "32");
	if (*digits && !is32 && strcmp(digits, "64"))
		return fail(c, "unknown atomic operation '%s'", w);
	*digits = '\0';
	for (a = 0; a < ISA_NATOMICS; a++)
		if (!strcmp(isa_atomic_table[a].mnemonic, w))
			break;
	if (a == ISA_NATOMICS)
		return fail(c, "unknown atomic operation '%s'", w);
	if (a == ISA_ATOMIC_XCHG || a == ISA_ATOMIC_CMPXCHG)
		fetch = true;
	err = mem(c, &dst, &off) ?: expect(c, ',') ?: reg(c, &src);
	if (err)
		return err;
	emit(c->a, ISA_CLS_STX | ISA_MODE_ATOMIC | (is32 ? ISA_SZ_W : ISA_SZ_DW),
	     dst, src, off, isa_atomic_table[a].imm | (fetch ? ISA_FETCH : 0));
	return end_of_line(c);
}

/* lddw -> lddw reg ',' imm64 */
static int enc_lddw(struct cur *c)
{
	uint8_t dst;
	uint64_t v;
	int err = reg(c, &dst) ?: expect(c, ',') ?: imm64(c, &v);

	if (err)
		return err;
	emit(c->a, ISA_CLS_LD | ISA_MODE_IMM | ISA_SZ_DW, dst, 0, 0,
	     (int32_t)(uint32_t)v);
	emit(c->a, 0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
	return end_of_line(c);
}

/* .raw -> '.raw' imm64: one slot, little-endian word layout of README */
static int enc_raw(struct cur *c)
{
	uint64_t w;
	int err = imm64(c, &w);

	if (err)
		return err;
	emit(c->a, (uint8_t)w, (w >> 8) & 0xf, (w >> 12) & 0xf,
	     (int16_t)(w >> 16), (int32_t)(w >> 32));
	return end_of_line(c);
}

/* .insn -> '.insn' CODE ',' DST ',' SRC ',' OFF ',' IMM: one slot by fields */
static int enc_fields(struct cur *c)
{
	int64_t v[5];

	for (int i = 0; i < 5; i++) {
		bool neg, hex;
		uint64_t m;
		int err = (i ? expect(c, ',') : 0) ?: number(c, &neg, &hex, &m);

		if (err)
			return err;
		v[i] = neg ? -(int64_t)m : (int64_t)m;
	}
	if (v[0] < 0 || v[0] > 0xff || v[1] < 0 || v[1] > 15 || v[2] < 0 ||
	    v[2] > 15 || v[3] < INT16_MIN || v[3] > INT16_MAX ||
	    v[4] < INT32_MIN || v[4] > UINT32_MAX)
		return fail(c, "field out of range");
	emit(c->a, (uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (int16_t)v[3],
	     (int32_t)(uint32_t)v[4]);
	return end_of_line(c);
}

/* memory ops: ldx/ldxs reg ',' mem | st mem ',' imm | stx mem ',' reg |
 * ldabs imm | ldind reg ',' imm  (each with a b/h/w/dw suffix) */
static int enc_memop(struct cur *c, enum isa_op op, int size)
{
	uint8_t dst = 0, src = 0;
	int16_t off = 0;
	int32_t imm = 0;
	uint8_t code = (uint8_t)size | isa_table[op].code;
	int err;

	if (op == ISA_LDX || op == ISA_LDXSX) {
		code |= ISA_CLS_LDX;
		err = reg(c, &dst) ?: expect(c, ',') ?: mem(c, &src, &off);
	} else if (op == ISA_ST) {
		code |= ISA_CLS_ST;
		err = mem(c, &dst, &off) ?: expect(c, ',') ?: imm32(c, &imm);
	} else if (op == ISA_STX) {
		code |= ISA_CLS_STX;
		err = mem(c, &dst, &off) ?: expect(c, ',') ?: reg(c, &src);
	} else if (op == ISA_LDABS) {
		code |= ISA_CLS_LD;
		err = imm32(c, &imm);
	} else {
		code |= ISA_CLS_LD;
		err = reg(c, &src) ?: expect(c, ',') ?: imm32(c, &imm);
	}
	if (err)
		return err;
	emit(c->a, code, dst, src, off, imm);
	return end_of_line(c);
}

/* A mnemonic made of a table prefix and a size suffix ("ldxsb"). */
static bool split_memop(const char *mn, enum isa_op *op, int *size)
{
	static const enum isa_op ops[] = {
		ISA_LDX, ISA_LDXSX, ISA_ST, ISA_STX, ISA_LDABS, ISA_LDIND,
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const char *p = isa_table[ops[i]].mnemonic;
		size_t n = strlen(p);

		if (!strncmp(mn, p, n) && size_bits(mn + n) >= 0) {
			*op = ops[i];
			*size = size_bits(mn + n);
			return true;
		}
	}
	return false;
}

/* insn -> MNEMONIC operands */
static int enc_insn(struct cur *c)
{
	char mn[64], base[64], *digits;
	enum isa_op op;
	int size, err = word(c, mn, sizeof(mn));
	bool is32;

	if (err)
		return err;
	if (!strcmp(mn, "lock"))
		return enc_lock(c);
	if (!strcmp(mn, "call"))
		return enc_call(c);
	if (!strcmp(mn, "exit")) {
		emit(c->a, ISA_CLS_JMP | isa_table[ISA_EXIT].code, 0, 0, 0, 0);
		return end_of_line(c);
	}
	if (!strcmp(mn, "lddw"))
		return enc_lddw(c);
	if (!strcmp(mn, ".raw"))
		return enc_raw(c);
	if (!strcmp(mn, ".insn"))
		return enc_fields(c);
	if (split_memop(mn, &op, &size))
		return enc_memop(c, op, size);

	strcpy(base, mn);
	digits = base + strcspn(base, "0123456789");
	is32 = !strcmp(digits, "32");
	if (!strncmp(base, "movsx", 5) && digits == base + 5)
		return enc_movsx(c, digits);
	if (!strncmp(base, "swap", 4) && digits == base + 4)
		return enc_end(c, ISA_BSWAP, digits);
	{
		char d[8];

		snprintf(d, sizeof(d), "%s", digits);
		*digits = '\0';
		op = by_mnemonic(base, ISA_K_END, ISA_K_END);
		if (op != ISA_NOPS)
			return enc_end(c, op, d);
		if (d[0] && !is32 && strcmp(d, "64"))
			return fail(c, "unknown mnemonic '%s'", mn);
	}
	op = by_mnemonic(base, ISA_K_ALU, ISA_K_NEG);
	if (op != ISA_NOPS)
		return enc_alu(c, op, is32);
	op = by_mnemonic(base, ISA_K_JCOND, ISA_K_JCOND);
	if (op != ISA_NOPS)
		return enc_jcond(c, op, is32);
	if (!strcmp(base, "ja"))
		return enc_ja(c, is32);
	return fail(c, "unknown mnemonic '%s'", mn);
}

/* ---- the two passes ----------------------------------------------------- */

/* line -> { LABEL ':' } [ insn ]: strips leading labels in place, adding
 * them at SLOT when DEFINE. */
static int labels_of(struct actx *a, struct line *l, bool define)
{
	for (;;) {
		const char *p = l->text;
		size_t n = 0;

		while (is_word(p[n]))
			n++;
		if (!n || p[n] != ':')
			return 0;
		if (define) {
			char *name = xstrndup(p, n);
			struct cur c = { p, a };

			if (find_label(a, name)) {
				free(name);
				return fail(&c, "label defined twice");
			}
			a->labels = xrealloc(a->labels,
					     (a->nlabels + 1) * sizeof(*a->labels));
			a->labels[a->nlabels].name = name;
			a->labels[a->nlabels++].slot = l->slot;
		}
		p += n + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		memmove(l->text, p, strlen(p) + 1);
	}
}

static void add_label(struct actx *a, const char *name, uint32_t slot)
{
	a->labels = xrealloc(a->labels, (a->nlabels + 1) * sizeof(*a->labels));
	a->labels[a->nlabels].name = xstrndup(name, strlen(name));
	a->labels[a->nlabels++].slot = slot;
}

static bool first_word_is(const char *text, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(text, w, n) && !is_word(text[n]);
}

/* pass 1: slots and labels; the first exit is labelled "exit" */
static int place(struct actx *a)
{
	uint32_t slot = 0;
	int64_t first_exit = -1;

	for (size_t i = 0; i < a->nlines; i++) {
		struct line *l = &a->lines[i];
		int err;

		l->slot = slot;
		a->lineno = l->lineno;
		err = labels_of(a, l, true);
		if (err)
			return err;
		if (!*l->text)
			continue;
		if (first_exit < 0 && first_word_is(l->text, "exit"))
			first_exit = slot;
		slot += first_word_is(l->text, "lddw") ? 2 : 1;
	}
	if (first_exit >= 0 && !find_label(a, "exit"))
		add_label(a, "exit", (uint32_t)first_exit);
	return 0;
}

/* pass 2: encode */
static int encode(struct actx *a)
{
	for (size_t i = 0; i < a->nlines; i++) {
		struct line *l = &a->lines[i];
		struct cur c = { l->text, a };
		int err;

		if (!*l->text)
			continue;
		a->lineno = l->lineno;
		a->slot = l->slot;
		err = enc_insn(&c);
		if (err)
			return err;
	}
	return 0;
}

/* Cut a '#' comment and surrounding blanks off S in place. */
static char *strip(char *s, bool comments)
{
	char *e;

	if (comments && (e = strchr(s, '#')))
		*e = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void split_lines(struct actx *a, const char *text, unsigned first)
{
	unsigned lineno = first;

	for (const char *p = text; *p; lineno++) {
		size_t n = strcspn(p, "\n");
		char *raw = xstrndup(p, n), *s = strip(raw, true);

		a->lines = xrealloc(a->lines, (a->nlines + 1) * sizeof(*a->lines));
		a->lines[a->nlines].text = xstrndup(s, strlen(s));
		a->lines[a->nlines++].lineno = lineno;
		free(raw);
		p += n;
		if (*p)
			p++;
	}
}

static void actx_free(struct actx *a)
{
	for (size_t i = 0; i < a->nlines; i++)
		free(a->lines[i].text);
	for (size_t i = 0; i < a->nlabels; i++)
		free(a->labels[i].name);
	free(a->lines);
	free(a->labels);
}

int asm_assemble_alloc(const char *text, const char *name, unsigned first_line,
		       struct bpf_insn **out, uint32_t *n, char *err,
		       size_t errlen)
{
	struct actx a = { .name = name, .err = err, .errlen = errlen };
	int rc;

	split_lines(&a, text, first_line);
	rc = place(&a) ?: encode(&a);
	actx_free(&a);
	if (rc) {
		free(a.out);
		return rc;
	}
	*out = a.out ? a.out : xrealloc(NULL, 1);
	*n = a.nout;
	return 0;
}

int asm_assemble(const char *text, struct bpf_insn *out, uint32_t max,
		 char *err, size_t errlen)
{
	struct bpf_insn *p;
	uint32_t n;
	int rc = asm_assemble_alloc(text, "<asm>", 1, &p, &n, err, errlen);

	if (rc)
		return rc;
	if (n > max) {
		snprintf(err, errlen, "<asm>: %u slots do not fit in %u", n, max);
		free(p);
		return -E2BIG;
	}
	memcpy(out, p, n * sizeof(*p));
	free(p);
	return (int)n;
}

/* ---- .data files -------------------------------------------------------- */

__attribute__((format(printf, 5, 6)))
static int perr(char *err, size_t errlen, const char *name, unsigned line,
		const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%u: %s", name, line, msg);
	return -EINVAL;
}

/* file -> preamble { '--' NAME NL lines } */
static void split_sections(struct asm_test *t, const char *text)
{
	struct asm_section *cur = NULL;
	unsigned lineno = 1;

	for (const char *p = text; *p; lineno++) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n), *s = strip(line, false);

		if (!strncmp(s, "--", 2)) {
			t->sections = xrealloc(t->sections, (t->nsections + 1) *
					       sizeof(*t->sections));
			cur = &t->sections[t->nsections++];
			s = strip(s + 2, false);
			cur->name = xstrndup(s, strlen(s));
			cur->text = xstrndup("", 0);
			cur->line = lineno;
		} else if (cur) {
			size_t old = strlen(cur->text);

			cur->text = xrealloc(cur->text, old + n + 2);
			memcpy(cur->text + old, p, n);
			cur->text[old + n] = '\n';
			cur->text[old + n + 1] = '\0';
		}
		free(line);
		p += n;
		if (*p)
			p++;
	}
}

static const struct asm_section *find_section(const struct asm_test *t,
					      const char *name)
{
	for (unsigned i = 0; i < t->nsections; i++)
		if (!strcmp(t->sections[i].name, name))
			return &t->sections[i];
	return NULL;
}

const char *asm_test_section(const struct asm_test *t, const char *name)
{
	const struct asm_section *s = find_section(t, name);

	return s ? s->text : NULL;
}

/* Call FN on every non-blank, comment-stripped line of S; stops at an error. */
static int each_line(const struct asm_section *s, struct asm_test *t,
		     int (*fn)(struct asm_test *, char *, unsigned, char *, size_t),
		     char *err, size_t errlen)
{
	unsigned lineno = s->line + 1;
	int rc = 0;

	for (const char *p = s->text; *p && !rc; lineno++) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n), *l = strip(line, true);

		if (*l)
			rc = fn(t, l, lineno, err, errlen);
		free(line);
		p += n;
		if (*p)
			p++;
	}
	return rc;
}

static int raw_line(struct asm_test *t, char *l, unsigned lineno, char *err,
		    size_t errlen)
{
	struct bpf_insn *i;
	uint64_t w;
	char *end;

	errno = 0;
	w = strtoull(l, &end, 16);
	if (errno || *strip(end, true))
		return perr(err, errlen, t->name, lineno, "bad raw word '%s'", l);
	t->insns = xrealloc(t->insns, (t->ninsns + 1) * sizeof(*t->insns));
	i = &t->insns[t->ninsns++];
	memset(i, 0, sizeof(*i));
	i->code = (uint8_t)w;
	i->dst_reg = (w >> 8) & 0xf;
	i->src_reg = (w >> 12) & 0xf;
	i->off = (int16_t)(w >> 16);
	i->imm = (int32_t)(w >> 32);
	return 0;
}

static int mem_line(struct asm_test *t, char *l, unsigned lineno, char *err,
		    size_t errlen)
{
	for (char *tok = strtok(l, " \t"); tok; tok = strtok(NULL, " \t")) {
		char *end;
		unsigned long b = strtoul(tok, &end, 16);

		if (*end || b > 0xff)
			return perr(err, errlen, t->name, lineno,
				    "bad memory byte '%s'", tok);
		t->mem = xrealloc(t->mem, t->mem_len + 1);
		t->mem[t->mem_len++] = (uint8_t)b;
	}
	return 0;
}

static int result_line(struct asm_test *t, char *l, unsigned lineno,
		       char *err, size_t errlen)
{
	char *end;

	errno = 0;
	if (l[0] == '-')
		t->result = (uint64_t)strtoll(l, &end, 0);
	else
		t->result = strtoull(l, &end, 0);
	if (errno || *end)
		return perr(err, errlen, t->name, lineno, "bad result '%s'", l);
	t->has_result = true;
	return 0;
}

static int interpret(struct asm_test *t, char *err, size_t errlen)
{
	const struct asm_section *s;
	int rc = 0;

	if ((s = find_section(t, "asm"))) {
		t->has_asm = true;
		rc = asm_assemble_alloc(s->text, t->name, s->line + 1,
					&t->asm_insns, &t->nasm_insns, err,
					errlen);
	}
	if (!rc && (s = find_section(t, "raw"))) {
		t->has_raw = true;
		rc = each_line(s, t, raw_line, err, errlen);
	}
	if (!rc && !t->has_raw && t->has_asm) {
		t->insns = xrealloc(NULL, (t->nasm_insns + 1) * sizeof(*t->insns));
		memcpy(t->insns, t->asm_insns, t->nasm_insns * sizeof(*t->insns));
		t->ninsns = t->nasm_insns;
	}
	if (!rc && (s = find_section(t, "mem"))) {
		t->has_mem = true;
		rc = each_line(s, t, mem_line, err, errlen);
	}
	if (!rc && (s = find_section(t, "result")))
		rc = each_line(s, t, result_line, err, errlen);
	if (!rc && (s = find_section(t, "error"))) {
		char *e = xstrndup(s->text, strlen(s->text));

		t->error = xstrndup(strip(e, false), strlen(strip(e, false)));
		free(e);
	}
	return rc;
}

int asm_parse_string(const char *text, const char *name, struct asm_test *out,
		     char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->name = xstrndup(name, strlen(name));
	split_sections(out, text);
	rc = interpret(out, err, errlen);
	if (rc)
		asm_test_free(out);
	return rc;
}

int asm_parse_file(const char *path, struct asm_test *out, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, got;
	char chunk[4096];
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		text = xrealloc(text, len + got + 1);
		memcpy(text + len, chunk, got);
		len += got;
	}
	fclose(f);
	text = xrealloc(text, len + 1);
	text[len] = '\0';
	rc = asm_parse_string(text, path, out, err, errlen);
	free(text);
	return rc;
}

void asm_test_free(struct asm_test *t)
{
	for (unsigned i = 0; i < t->nsections; i++) {
		free(t->sections[i].name);
		free(t->sections[i].text);
	}
	free(t->sections);
	free(t->name);
	free(t->insns);
	free(t->asm_insns);
	free(t->mem);
	free(t->error);
	memset(t, 0, sizeof(*t));
}
