/* test_insn.c - the decoder, resolver and disassembler (checker/insn.c,
 * disasm.c) and the test assembler (tests/asm.c).
 *
 * Usage: test_insn CONFORMANCE_DIR GOLDEN_DIR
 *   conformance  every vector of CONFORMANCE_DIR assembles, decodes and
 *                resolves (as one program whose call-local targets are
 *                functions); the count must be 313
 *   golden       GOLDEN_DIR/<name>.data: "-- asm" disassembles to exactly
 *                the lines of "-- expect"
 *   invalid      hand-made bad encodings: -EINVAL, one error, exact text
 *   resolve      a hand-built object: relocations, names, bad references
 *   coverage     every isa_table row was decoded by some test above
 * Runs without fork so the coverage record spans all tests.
 */
#include "asm.h"
#include "insn.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 1024

static const char *conf_dir, *golden_dir;
static char *conf_files[MAX_FILES], *golden_files[MAX_FILES];
static int nconf, ngolden;
static int conf_ok;
static bool seen[ISA_NOPS];

/* ---- helpers ------------------------------------------------------------ */

struct capture {
	struct diag d;
	char msg[512];          /* text of the last message */
};

static void sink(void *arg, const struct diag_msg *m)
{
	struct capture *c = arg;

	snprintf(c->msg, sizeof(c->msg), "%s", m->text);
}

static void capture_init(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->d.sink = sink;
	c->d.arg = c;
}

static void record(const struct insn *in, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!in[i].cont && in[i].op < ISA_NOPS)
			seen[in[i].op] = true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every DIR/ *.data, sorted */
static int list_data(const char *dir, char **out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < MAX_FILES) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 5, ".data"))
			continue;
		out[n] = malloc(strlen(dir) + len + 2);
		sprintf(out[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(out, n, sizeof(*out), by_name);
	return n;
}

/* decode an inline snippet, asserting success */
static uint32_t decode_ok(const char *text, struct insn *out, uint32_t max)
{
	struct bpf_insn raw[64];
	struct capture c;
	char err[256];
	int n = asm_assemble(text, raw, 64, err, sizeof(err));

	ck_assert_msg(n >= 0, "%s", err);
	ck_assert_uint_le((uint32_t)n, max);
	capture_init(&c);
	ck_assert_msg(insn_decode(raw, n, out, "t.o", "prog 't'", &c.d) == 0,
		      "%s", c.msg);
	record(out, n);
	return (uint32_t)n;
}

static const char *fmt(const struct object *o, const struct insn *in,
		       uint32_t slot)
{
	static char buf[256];

	insn_format(o, in, slot, buf, sizeof(buf));
	return buf;
}

/* ---- conformance vectors ----------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One section; functions at 0 and at every pc-relative call target. */
static void resolve_as_object(const char *path, const struct bpf_insn *raw,
			      struct insn *in, uint32_t n)
{
	uint32_t starts[64] = { 0 }, ns = 1;
	struct obj_func funcs[64];
	struct obj_section sec = { .name = "asm", .raw = raw, .nslots = n };
	struct object o = { .path = path, .sections = &sec, .nsections = 1,
			    .funcs = funcs };
	char names[64][32];
	struct capture c;

	for (uint32_t i = 0; i < n; i++)
		if (in[i].op == ISA_CALL && in[i].src == ISA_CALL_LOCAL &&
		    ns < 64)
			starts[ns++] = (uint32_t)insn_jump_target(&in[i], i);
	qsort(starts, ns, sizeof(*starts), cmp_u32);
	memset(funcs, 0, sizeof(funcs));
	for (uint32_t i = 0; i < ns; i++) {
		if (i && starts[i] == starts[i - 1])
			continue;
		snprintf(names[o.nfuncs], sizeof(names[0]), "f%u", starts[i]);
		funcs[o.nfuncs].name = names[o.nfuncs];
		funcs[o.nfuncs].start = starts[i];
		funcs[o.nfuncs].is_prog = i == 0;
		o.nfuncs++;
	}
	for (uint32_t i = 0; i < o.nfuncs; i++)
		funcs[i].nslots = (i + 1 < o.nfuncs ? funcs[i + 1].start : n) -
				  funcs[i].start;
	capture_init(&c);
	ck_assert_msg(insn_resolve(&o, 0, in, &c.d) == 0, "%s", c.msg);
}

START_TEST(test_conformance_file)
{
	const char *path = conf_files[_i];
	struct asm_test t;
	struct capture c;
	char err[512], line[256];
	struct insn *in;
	int rc = asm_parse_file(path, &t, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_gt(t.ninsns, 0);
	if (t.has_raw && t.has_asm) {
		/* the assembler must agree with the raw words */
		ck_assert_uint_eq(t.nasm_insns, t.ninsns);
		ck_assert(!memcmp(t.asm_insns, t.insns,
				  t.ninsns * sizeof(*t.insns)));
	}
	in = calloc(t.ninsns, sizeof(*in));
	capture_init(&c);
	rc = insn_decode(t.insns, t.ninsns, in, path, "prog 'entry'", &c.d);
	ck_assert_msg(rc == 0, "%s", c.msg);
	ck_assert_uint_eq(c.d.errors, 0);
	record(in, t.ninsns);
	resolve_as_object(path, t.insns, in, t.ninsns);
	for (uint32_t i = 0; i < t.ninsns; i++)
		ck_assert_int_eq(insn_format(NULL, &in[i], i, line, sizeof(line)) > 0,
				 !in[i].cont);
	conf_ok++;
	free(in);
	asm_test_free(&t);
}
END_TEST

START_TEST(test_conformance_count)
{
	printf("insn: conformance: %d/%d vectors assembled, decoded and "
	       "resolved\n", conf_ok, nconf);
	ck_assert_int_eq(nconf, 313);
	ck_assert_int_eq(conf_ok, 313);
}
END_TEST

/* ---- golden disassembly ------------------------------------------------- */

/* next non-blank line of *P (trailing blanks cut) into BUF; false at end */
static bool next_line(const char **p, char *buf, size_t size)
{
	while (**p) {
		size_t n = strcspn(*p, "\n");
		const char *s = *p;

		*p += n + (s[n] == '\n');
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (!n)
			continue;
		snprintf(buf, size, "%.*s", (int)n, s);
		return true;
	}
	return false;
}

START_TEST(test_golden_file)
{
	const char *path = golden_files[_i], *exp;
	struct asm_test t;
	struct capture c;
	char err[512], want[256], got[256];
	struct insn *in;
	unsigned lines = 0;
	int rc = asm_parse_file(path, &t, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	exp = asm_test_section(&t, "expect");
	ck_assert_msg(exp, "%s: no -- expect section", path);
	in = calloc(t.ninsns + 1, sizeof(*in));
	capture_init(&c);
	ck_assert_msg(insn_decode(t.insns, t.ninsns, in, path, "prog 't'",
				  &c.d) == 0, "%s", c.msg);
	record(in, t.ninsns);
	for (uint32_t i = 0; i < t.ninsns; i++) {
		if (in[i].cont)
			continue;
		insn_format(NULL, &in[i], i, got, sizeof(got));
		ck_assert_msg(next_line(&exp, want, sizeof(want)),
			      "%s: insn %u: unexpected '%s'", path, i, got);
		ck_assert_msg(!strcmp(want, got), "%s: insn %u: want '%s', got '%s'",
			      path, i, want, got);
		lines++;
	}
	ck_assert_msg(!next_line(&exp, want, sizeof(want)),
		      "%s: missing '%s'", path, want);
	ck_assert_uint_gt(lines, 0);
	free(in);
	asm_test_free(&t);
}
END_TEST

/* ---- invalid encodings -------------------------------------------------- */

static const struct bad_case {
	const char *text;       /* asm; ".insn CODE, DST, SRC, OFF, IMM" */
	const char *msg;        /* the one diagnostic */
} bad_cases[] = {
	{ ".insn 0xe4, 1, 0, 0, 0", "insn 0: invalid ALU opcode (code 0xe4)" },
	{ ".insn 0xf7, 1, 0, 0, 0", "insn 0: invalid ALU64 opcode (code 0xf7)" },
	{ ".insn 0xe5, 1, 0, 0, 0", "insn 0: invalid JMP opcode (code 0xe5)" },
	{ ".insn 0xf6, 1, 0, 0, 0", "insn 0: invalid JMP32 opcode (code 0xf6)" },
	{ ".insn 0x0f, 1, 2, 0, 5", "insn 0: ADD uses reserved fields (code 0x0f)" },
	{ ".insn 0x07, 1, 2, 0, 5", "insn 0: ADD uses reserved fields (code 0x07)" },
	{ ".insn 0x07, 1, 0, 1, 5", "insn 0: ADD uses reserved fields (code 0x07)" },
	{ ".insn 0x3f, 1, 2, 2, 0", "insn 0: DIV uses reserved fields (code 0x3f)" },
	{ ".insn 0xbf, 1, 2, 0, 7", "insn 0: MOV uses reserved fields (code 0xbf)" },
	{ ".insn 0x8f, 1, 2, 0, 0", "insn 0: NEG uses reserved fields (code 0x8f)" },
	{ ".insn 0x87, 1, 0, 0, 1", "insn 0: NEG uses reserved fields (code 0x87)" },
	{ ".insn 0xd4, 1, 0, 0, 24", "insn 0: invalid byte swap width 24 (code 0xd4)" },
	{ ".insn 0xd7, 1, 0, 0, 8", "insn 0: invalid byte swap width 8 (code 0xd7)" },
	{ ".insn 0xdf, 1, 0, 0, 16", "insn 0: invalid ALU64 opcode (code 0xdf)" },
	{ ".insn 0xdc, 1, 2, 0, 16", "insn 0: BE uses reserved fields (code 0xdc)" },
	{ ".insn 0xb7, 1, 0, 8, 0", "insn 0: MOVSX uses an immediate source (code 0xb7)" },
	{ "movsx3232 %r1, %r2", "insn 0: invalid MOVSX offset 32 (code 0xbc)" },
	{ ".insn 0xbf, 1, 2, 24, 0", "insn 0: invalid MOVSX offset 24 (code 0xbf)" },
	{ ".insn 0x86, 0, 0, 0, 1", "insn 0: invalid JMP32 opcode (code 0x86)" },
	{ ".insn 0x96, 0, 0, 0, 0", "insn 0: invalid JMP32 opcode (code 0x96)" },
	{ ".insn 0x8e, 1, 0, 0, 0", "insn 0: invalid JMP32 opcode (code 0x8e)" },
	{ ".insn 0x95, 0, 0, 0, 1", "insn 0: EXIT uses reserved fields (code 0x95)" },
	{ ".insn 0x95, 1, 0, 0, 0", "insn 0: EXIT uses reserved fields (code 0x95)" },
	{ ".insn 0x95, 0, 0, 3, 0", "insn 0: EXIT uses reserved fields (code 0x95)" },
	{ ".insn 0x9d, 0, 0, 0, 0", "insn 0: EXIT uses reserved fields (code 0x9d)" },
	{ ".insn 0x85, 0, 3, 0, 1", "insn 0: invalid call source 3 (code 0x85)" },
	{ ".insn 0x85, 1, 0, 0, 1", "insn 0: CALL uses reserved fields (code 0x85)" },
	{ ".insn 0x85, 0, 0, 1, 1", "insn 0: CALL uses reserved fields (code 0x85)" },
	{ ".insn 0x85, 0, 1, 2, 1", "insn 0: CALL uses reserved fields (code 0x85)" },
	{ ".insn 0x8d, 1, 0, 0, 1", "insn 0: CALLX uses reserved fields (code 0x8d)" },
	{ ".insn 0x8d, 11, 0, 0, 0", "insn 0: invalid register r11 (code 0x8d)" },
	{ ".insn 0x05, 0, 0, 1, 1", "insn 0: JA uses reserved fields (code 0x05)" },
	{ ".insn 0x0d, 0, 0, 1, 0", "insn 0: JA uses reserved fields (code 0x0d)" },
	{ ".insn 0x06, 0, 0, 1, 1", "insn 0: JA uses reserved fields (code 0x06)" },
	{ ".insn 0x15, 1, 2, 0, 0", "insn 0: JEQ uses reserved fields (code 0x15)" },
	{ ".insn 0x1d, 1, 2, 0, 3", "insn 0: JEQ uses reserved fields (code 0x1d)" },
	{ "mov %r0, 0\n.insn 0x18, 1, 0, 0, 1",
	  "insn 1: truncated LD imm64 (code 0x18)" },
	{ ".insn 0x18, 1, 0, 0, 1\n.insn 0x18, 0, 0, 0, 0\nexit",
	  "insn 0: invalid LD imm64 second slot (code 0x18)" },
	{ ".insn 0x18, 1, 0, 0, 1\n.insn 0, 0, 0, 1, 0\nexit",
	  "insn 0: invalid LD imm64 second slot (code 0x18)" },
	{ ".insn 0x18, 1, 7, 0, 1\n.insn 0, 0, 0, 0, 0\nexit",
	  "insn 0: unknown LD imm64 pseudo source 7 (code 0x18)" },
	{ ".insn 0x18, 1, 0, 1, 1\n.insn 0, 0, 0, 0, 0\nexit",
	  "insn 0: LDDW uses reserved fields (code 0x18)" },
	{ ".insn 0x18, 1, 1, 0, 3\n.insn 0, 0, 0, 0, 5\nexit",
	  "insn 0: LDDW uses reserved fields (code 0x18)" },
	{ "lddw %r10, 1", "insn 0: frame pointer is read-only (code 0x18)" },
	{ ".insn 0x00, 1, 0, 0, 0", "insn 0: invalid LD opcode (code 0x00)" },
	{ ".insn 0x60, 1, 0, 0, 0", "insn 0: invalid LD opcode (code 0x60)" },
	{ "ldabsdw 1", "insn 0: invalid LD opcode (code 0x38)" },
	{ ".insn 0x20, 0, 1, 0, 1", "insn 0: LDABS uses reserved fields (code 0x20)" },
	{ ".insn 0x50, 1, 2, 0, 1", "insn 0: LDIND uses reserved fields (code 0x50)" },
	{ "ldxsdw %r0, [%r1]", "insn 0: invalid LDX opcode (code 0x99)" },
	{ ".insn 0x21, 1, 2, 0, 0", "insn 0: invalid LDX opcode (code 0x21)" },
	{ ".insn 0x61, 1, 2, 0, 1", "insn 0: LDX uses reserved fields (code 0x61)" },
	{ ".insn 0x62, 10, 1, -4, 0", "insn 0: ST uses reserved fields (code 0x62)" },
	{ ".insn 0xc2, 10, 0, -4, 0", "insn 0: invalid ST opcode (code 0xc2)" },
	{ ".insn 0x63, 10, 1, -4, 1", "insn 0: STX uses reserved fields (code 0x63)" },
	{ ".insn 0x83, 10, 1, -4, 0", "insn 0: invalid STX opcode (code 0x83)" },
	{ ".insn 0xdb, 10, 1, -8, 0x10", "insn 0: invalid atomic operation 0x10 (code 0xdb)" },
	{ ".insn 0xdb, 10, 1, -8, 0xe0", "insn 0: invalid atomic operation 0xe0 (code 0xdb)" },
	{ ".insn 0xc3, 10, 1, -8, 0x100", "insn 0: invalid atomic operation 0x100 (code 0xc3)" },
	{ ".insn 0xd3, 10, 1, -8, 0", "insn 0: invalid atomic operand size (code 0xd3)" },
	{ ".insn 0xcb, 10, 1, -8, 1", "insn 0: invalid atomic operand size (code 0xcb)" },
	{ "mov %r11, 1", "insn 0: invalid register r11 (code 0xb7)" },
	{ "add %r1, %r12", "insn 0: invalid register r12 (code 0x0f)" },
	{ "jeq %r15, 0, +0", "insn 0: invalid register r15 (code 0x15)" },
	{ "stb [%r11+0], 1", "insn 0: invalid register r11 (code 0x72)" },
	{ "mov %r10, 1", "insn 0: frame pointer is read-only (code 0xb7)" },
	{ "neg32 %r10", "insn 0: frame pointer is read-only (code 0x84)" },
	{ "ldxdw %r10, [%r1]", "insn 0: frame pointer is read-only (code 0x79)" },
	{ "lock fetch add [%r1], %r10", "insn 0: frame pointer is read-only (code 0xdb)" },
	{ "lock xchg32 [%r1], %r10", "insn 0: frame pointer is read-only (code 0xc3)" },
};

START_TEST(test_invalid)
{
	const struct bad_case *bc = &bad_cases[_i];
	struct bpf_insn raw[8];
	struct insn in[8];
	struct capture c;
	char err[256], want[512];
	int n = asm_assemble(bc->text, raw, 8, err, sizeof(err));

	ck_assert_msg(n > 0, "%s", err);
	capture_init(&c);
	ck_assert_int_eq(insn_decode(raw, n, in, "t.o", "prog 'bad'", &c.d),
			 -EINVAL);
	ck_assert_uint_eq(c.d.errors, 1);
	snprintf(want, sizeof(want), "prog 'bad': %s", bc->msg);
	ck_assert_str_eq(c.msg, want);
}
END_TEST

/* still valid: stores through r10, kfunc calls with off, cmpxchg into r10's
 * value register is not written, and 0x8d with a register */
START_TEST(test_valid_edges)
{
	struct insn in[16];
	uint32_t n = decode_ok(
		"stxdw [%r10-8], %r10\n"
		"stdw [%r10-16], 1\n"
		"lock add [%r10-8], %r10\n"
		"lock cmpxchg [%r10-8], %r10\n"
		".insn 0x85, 0, 2, 1, 77\n"
		"call %r10\n"
		"lsh %r1, 64\n"
		"div %r1, 0\n"
		"exit", in, 16);

	ck_assert_uint_eq(n, 9);
	ck_assert_int_eq(in[4].op, ISA_CALL);
	ck_assert_int_eq(in[5].op, ISA_CALLX);
	ck_assert_str_eq(fmt(NULL, &in[4], 4), "call kfunc#77");
	ck_assert_str_eq(fmt(NULL, &in[5], 5), "callx r10");
}
END_TEST

/* ---- decoded fields ----------------------------------------------------- */

START_TEST(test_fields)
{
	struct insn in[32];
	uint32_t n = decode_ok(
		"lddw %r1, 0x1122334455667788\n"        /* 0, 1 */
		"mov32 %r2, -1\n"                       /* 2 */
		"add %r3, %r4\n"                        /* 3 */
		"be16 %r1\n"                            /* 4 */
		"bswap64 %r1\n"                         /* 5 */
		"movsx1664 %r1, %r2\n"                  /* 6 */
		"ldxsh %r1, [%r2-6]\n"                  /* 7 */
		"lock fetch xor32 [%r1+4], %r2\n"       /* 8 */
		"lock cmpxchg [%r1], %r2\n"             /* 9 */
		"ja32 +5\n"                             /* 10 */
		"ja -3\n"                               /* 11 */
		"jsgt32 %r1, %r2, +7\n"                 /* 12 */
		"sdiv %r1, 3\n"                         /* 13 */
		"exit", in, 32);

	ck_assert_uint_eq(n, 15);
	ck_assert_int_eq(in[0].op, ISA_LDDW);
	ck_assert_uint_eq(in[0].imm64, 0x1122334455667788ull);
	ck_assert(in[0].is64);
	ck_assert_uint_eq(in[0].size, 8);
	ck_assert(in[1].cont);
	ck_assert_int_eq(in[1].op, ISA_NOPS);
	ck_assert_int_eq(in[1].imm, 0x11223344);
	ck_assert_int_eq(in[2].op, ISA_MOV);
	ck_assert(!in[2].is64);
	ck_assert_uint_eq(in[2].imm64, UINT64_MAX);
	ck_assert(in[3].srcreg && in[3].is64);
	ck_assert_int_eq(in[4].op, ISA_BE);
	ck_assert(!in[4].is64 && !in[4].srcreg);
	ck_assert_uint_eq(in[4].size, 2);
	ck_assert_int_eq(in[5].op, ISA_BSWAP);
	ck_assert(in[5].is64);
	ck_assert_uint_eq(in[5].size, 8);
	ck_assert_int_eq(in[6].op, ISA_MOVSX);
	ck_assert_uint_eq(in[6].size, 2);
	ck_assert_int_eq(in[7].op, ISA_LDXSX);
	ck_assert_uint_eq(in[7].size, 2);
	ck_assert_int_eq(in[7].off, -6);
	ck_assert_int_eq(in[8].op, ISA_ATOMIC);
	ck_assert_uint_eq(in[8].aop, ISA_ATOMIC_XOR);
	ck_assert(in[8].fetch);
	ck_assert_uint_eq(in[8].size, 4);
	ck_assert_uint_eq(in[9].aop, ISA_ATOMIC_CMPXCHG);
	ck_assert(in[9].fetch);
	ck_assert_int_eq(in[10].op, ISA_JA);
	ck_assert(!in[10].is64);
	ck_assert_int_eq(insn_jump_target(&in[10], 10), 16);
	ck_assert_int_eq(insn_jump_target(&in[11], 11), 9);
	ck_assert_int_eq(in[12].op, ISA_JSGT);
	ck_assert(!in[12].is64 && in[12].srcreg);
	ck_assert_int_eq(insn_jump_target(&in[12], 12), 20);
	ck_assert_int_eq(in[13].op, ISA_SDIV);
	ck_assert_int_eq(in[14].op, ISA_EXIT);
}
END_TEST

START_TEST(test_table)
{
	/* the X-macro expansion: names, codes, and the lookups' order */
	ck_assert_str_eq(isa_table[ISA_ADD].name, "ADD");
	ck_assert_str_eq(isa_table[ISA_LDXSX].mnemonic, "ldxs");
	ck_assert_int_eq(isa_table[ISA_JSLE].code, 0xd0);
	ck_assert_int_eq(isa_table[ISA_ATOMIC].kind, ISA_K_ATOMIC);
	ck_assert_str_eq(isa_atomic_table[ISA_ATOMIC_CMPXCHG].name, "CMPXCHG");
	ck_assert_int_eq(isa_atomic_table[ISA_ATOMIC_XCHG].imm, 0xe0);
	for (int i = 0; i < ISA_NOPS; i++)
		ck_assert(isa_table[i].name && isa_table[i].mnemonic);
}
END_TEST

/* ---- the assembler ------------------------------------------------------ */

START_TEST(test_asm)
{
	struct bpf_insn raw[16];
	char err[256];
	int n;

	n = asm_assemble("start: mov %r0, 0xffffffff\n"
			 "jeq %r0, -1, exit # comment\n"
			 "call local start\n"
			 "exit\n", raw, 16, err, sizeof(err));
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(raw[0].imm, -1);
	ck_assert_int_eq(raw[1].off, 1);
	ck_assert_int_eq(raw[2].imm, -3);
	ck_assert_int_eq(raw[2].src_reg, 1);
	n = asm_assemble("mov %r0, 0x100000000", raw, 16, err, sizeof(err));
	ck_assert_int_eq(n, -EINVAL);
	ck_assert_str_eq(err, "<asm>:1: immediate out of range");
	n = asm_assemble("mov %r0, 1\nja nowhere", raw, 16, err, sizeof(err));
	ck_assert_int_eq(n, -EINVAL);
	ck_assert_str_eq(err, "<asm>:2: undefined label 'nowhere'");
	n = asm_assemble("frob %r0", raw, 16, err, sizeof(err));
	ck_assert_int_eq(n, -EINVAL);
	ck_assert_str_eq(err, "<asm>:1: unknown mnemonic 'frob' near '%r0'");
	n = asm_assemble("mov %r1 %r2", raw, 16, err, sizeof(err));
	ck_assert_int_eq(n, -EINVAL);
	ck_assert_str_eq(err, "<asm>:1: ',' expected near '%r2'");
	n = asm_assemble("a:\na: exit", raw, 16, err, sizeof(err));
	ck_assert_int_eq(n, -EINVAL);
	n = asm_assemble("lddw %r1, 1\nlddw %r1, 1", raw, 3, err, sizeof(err));
	ck_assert_int_eq(n, -E2BIG);
	n = asm_assemble(".raw 0x1122334400000018\n.raw 0\n", raw, 16, err,
			 sizeof(err));
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(raw[0].code, 0x18);
	ck_assert_int_eq(raw[0].imm, 0x11223344);
}
END_TEST

START_TEST(test_parse_sections)
{
	struct asm_test t;
	char err[256];
	int rc = asm_parse_string("# header\n-- asm\nmov %r0, 2 # two\nexit\n"
				  "-- mem\n01 02\nff\n-- result\n0x1\n0x2\n"
				  "-- expect\ncall x#1\n-- error\n  bad thing  \n",
				  "t.data", &t, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_eq(t.ninsns, 2);
	ck_assert(t.has_asm && !t.has_raw && t.has_mem && t.has_result);
	ck_assert_uint_eq(t.mem_len, 3);
	ck_assert_uint_eq(t.mem[2], 0xff);
	ck_assert_uint_eq(t.result, 2);
	ck_assert_str_eq(asm_test_section(&t, "expect"), "call x#1\n");
	ck_assert_str_eq(t.error, "bad thing");
	ck_assert_ptr_null(asm_test_section(&t, "spec"));
	asm_test_free(&t);
	rc = asm_parse_string("-- asm\nexit\n-- result\nzz\n", "u.data", &t,
			      err, sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err, "u.data:4: bad result 'zz'");
	rc = asm_parse_string("-- asm\n\nmov %r0\n", "v.data", &t, err,
			      sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err, "v.data:3: ',' expected");
}
END_TEST

/* ---- resolution against a hand-built object ----------------------------- */

/* Section 0 "xdp" holds prog xdp_fw; section 1 ".text" holds two static
 * functions. The programs, by slot:
 *
 * xdp:  0 lddw r1, map          (reloc MAP -> map 0 "blocked")
 *       2 lddw r2, global        (reloc GLOBAL -> .data + 12)
 *       4 lddw r3, callback      (reloc FUNC_ADDR -> func 2 "cb")
 *       6 lddw r4, ksym          (reloc KSYM -> extern 0)
 *       8 call helper 1
 *       9 call .text sub         (reloc CALL -> func 1 "sub")
 *      10 call kfunc             (reloc KFUNC -> kfunc 0)
 *      11 call local +1  (pc-relative, to slot 13 = func 3 "local")
 *      12 exit
 *      13 mov r0, 0        (func "local")
 *      14 exit
 * .text: 0 jeq r1, 0, +1; 1 mov r0, 1; 2 exit (func "sub"); 3 exit (func "cb")
 */
struct fixture {
	struct bpf_insn xdp[16], text[8];
	uint32_t nxdp, ntext;
	struct obj_section secs[2];
	struct obj_reloc relocs[8];
	struct obj_func funcs[4];
	struct obj_map maps[2];
	struct obj_datasec ds[1];
	struct obj_var vars[2];
	struct obj_kfunc kfuncs[1];
	struct obj_extern externs[1];
	struct object o;
};

static void fixture_init(struct fixture *f, const char *xdp, const char *text)
{
	char err[256];
	int n;

	memset(f, 0, sizeof(*f));
	n = asm_assemble(xdp, f->xdp, 16, err, sizeof(err));
	ck_assert_msg(n > 0, "%s", err);
	f->nxdp = (uint32_t)n;
	n = asm_assemble(text, f->text, 8, err, sizeof(err));
	ck_assert_msg(n > 0, "%s", err);
	f->ntext = (uint32_t)n;
	f->secs[0] = (struct obj_section){ .name = "xdp", .raw = f->xdp,
					   .nslots = f->nxdp };
	f->secs[1] = (struct obj_section){ .name = ".text", .raw = f->text,
					   .nslots = f->ntext };
	f->funcs[0] = (struct obj_func){ .name = "xdp_fw", .sec = 0, .start = 0,
					 .nslots = 13, .is_prog = true };
	f->funcs[1] = (struct obj_func){ .name = "sub", .sec = 1, .start = 0,
					 .nslots = 3 };
	f->funcs[2] = (struct obj_func){ .name = "cb", .sec = 1, .start = 3,
					 .nslots = 1 };
	f->funcs[3] = (struct obj_func){ .name = "local", .sec = 0, .start = 13,
					 .nslots = f->nxdp - 13 };
	f->maps[0] = (struct obj_map){ .name = "blocked", .datasec = -1 };
	f->maps[1] = (struct obj_map){ .name = "counts", .datasec = -1 };
	f->vars[0] = (struct obj_var){ .name = "limit", .off = 0, .size = 8 };
	f->vars[1] = (struct obj_var){ .name = "cfg", .off = 8, .size = 16 };
	f->ds[0] = (struct obj_datasec){ .name = ".data", .vars = f->vars,
					 .nvars = 2, .size = 24 };
	f->kfuncs[0] = (struct obj_kfunc){ .name = "scx_bpf_dsq_insert" };
	f->externs[0] = (struct obj_extern){ .name = "bpf_prog_active" };
	f->o = (struct object){
		.path = "fx.o", .sections = f->secs, .nsections = 2,
		.funcs = f->funcs, .nfuncs = 4, .maps = f->maps, .nmaps = 2,
		.datasecs = f->ds, .ndatasecs = 1, .kfuncs = f->kfuncs,
		.nkfuncs = 1, .externs = f->externs, .nexterns = 1,
	};
}

static void add_reloc(struct fixture *f, int sec, uint32_t slot,
		      enum obj_reloc_kind k, int target, int64_t off)
{
	struct obj_section *s = &f->secs[sec];

	if (!s->relocs)
		s->relocs = &f->relocs[sec == 0 ? 0 : 6];
	s->relocs[s->nrelocs++] = (struct obj_reloc){ .slot = slot, .kind = k,
						      .target = target, .off = off };
}

static const char fx_xdp[] =
	"lddw %r1, 0\nlddw %r2, 0\nlddw %r3, 0\nlddw %r4, 0\n"
	"call 1\ncall local -1\ncall local -1\ncall local +1\nexit\n"
	"mov %r0, 0\nexit\n";
static const char fx_text[] = "jeq %r1, 0, +1\nmov %r0, 1\nexit\nexit\n";

static void fixture_std(struct fixture *f)
{
	fixture_init(f, fx_xdp, fx_text);
	add_reloc(f, 0, 0, OBJ_RELO_MAP, 0, 0);
	add_reloc(f, 0, 2, OBJ_RELO_GLOBAL, 0, 12);
	add_reloc(f, 0, 4, OBJ_RELO_FUNC_ADDR, 2, 0);
	add_reloc(f, 0, 6, OBJ_RELO_KSYM, 0, 0);
	add_reloc(f, 0, 9, OBJ_RELO_CALL, 1, 0);
	add_reloc(f, 0, 10, OBJ_RELO_KFUNC, 0, 0);
}

START_TEST(test_resolve)
{
	static const char *const want[] = {
		[0] = "r1 = map[blocked]",
		[2] = "r2 = global .data+12 <cfg+4>",
		[4] = "r3 = func <cb>",
		[6] = "r4 = ksym <bpf_prog_active>",
		[9] = "call <sub>",
		[10] = "call scx_bpf_dsq_insert (kfunc)",
		[11] = "call pc+1 <local>",
		[12] = "exit",
	};
	struct fixture f;
	struct insn **secs;
	struct capture c;
	struct arena *a = arena_new();

	fixture_std(&f);
	f.o.arena = a;
	capture_init(&c);
	ck_assert_msg(insn_decode_object(&f.o, &secs, &c.d) == 0, "%s", c.msg);
	record(secs[0], f.nxdp);
	record(secs[1], f.ntext);
	ck_assert_int_eq(secs[0][0].ref.kind, INSN_REF_MAP);
	ck_assert_int_eq(secs[0][2].ref.kind, INSN_REF_GLOBAL);
	ck_assert_int_eq(secs[0][2].ref.off, 12);
	ck_assert_int_eq(secs[0][4].ref.kind, INSN_REF_CALLBACK);
	ck_assert_int_eq(secs[0][4].ref.sec, 1);
	ck_assert_uint_eq(secs[0][4].ref.target, 3);
	ck_assert_int_eq(secs[0][6].ref.kind, INSN_REF_KSYM);
	ck_assert_int_eq(secs[0][8].ref.kind, INSN_REF_HELPER);
	ck_assert_int_eq(secs[0][8].ref.index, 1);
	ck_assert_int_eq(secs[0][9].ref.kind, INSN_REF_SUBPROG);
	ck_assert_int_eq(secs[0][9].ref.index, 1);
	ck_assert_int_eq(secs[0][9].ref.sec, 1);
	ck_assert_int_eq(secs[0][10].ref.kind, INSN_REF_KFUNC);
	ck_assert_int_eq(secs[0][11].ref.kind, INSN_REF_SUBPROG);
	ck_assert_int_eq(secs[0][11].ref.index, 3);
	ck_assert_uint_eq(secs[0][11].ref.target, 13);
	for (uint32_t i = 0; i < ARRAY_SIZE(want); i++)
		if (want[i])
			ck_assert_str_eq(fmt(&f.o, &secs[0][i], i), want[i]);
	/* without the object: raw numbers */
	ck_assert_str_eq(fmt(NULL, &secs[0][0], 0), "r1 = 0x0");
	ck_assert_str_eq(fmt(NULL, &secs[0][8], 8), "call #1");
	ck_assert_str_eq(fmt(NULL, &secs[0][9], 9), "call pc-1");
	ck_assert_str_eq(fmt(NULL, &secs[0][11], 11), "call pc+1");
	ck_assert_str_eq(fmt(&f.o, &secs[1][0], 0), "if r1 == 0x0 goto pc+1");
	ck_assert_str_eq(fmt(&f.o, &secs[0][1], 1), "");
	arena_free(a);
}
END_TEST

START_TEST(test_resolve_map_value)
{
	struct fixture f;
	struct insn in[16];
	struct capture c;

	fixture_init(&f, ".insn 0x18, 1, 2, 0, 0\n.insn 0, 0, 0, 0, 16\n"
		     "lddw %r2, 0x28\nexit", "exit");
	f.funcs[0].nslots = f.nxdp;
	f.o.nfuncs = 1;
	add_reloc(&f, 0, 0, OBJ_RELO_MAP, 1, 0);
	add_reloc(&f, 0, 2, OBJ_RELO_GLOBAL, 0, 40);
	capture_init(&c);
	ck_assert_int_eq(insn_decode(f.xdp, f.nxdp, in, "fx.o", "x", &c.d), 0);
	ck_assert_msg(insn_resolve(&f.o, 0, in, &c.d) == 0, "%s", c.msg);
	ck_assert_int_eq(in[0].ref.kind, INSN_REF_MAP_VALUE);
	ck_assert_int_eq(in[0].ref.off, 16);
	ck_assert_str_eq(fmt(&f.o, &in[0], 0), "r1 = map[counts][0]+16");
	ck_assert_str_eq(fmt(NULL, &in[0], 0), "r1 = map[fd:0][0]+16");
	ck_assert_str_eq(fmt(&f.o, &in[2], 2), "r2 = global .data+40");
	ck_assert_str_eq(fmt(NULL, &in[2], 2), "r2 = 0x28");
}
END_TEST

/* helper names come from helpers.c when an object is given */
START_TEST(test_helper_names)
{
	struct fixture f;
	struct insn in[4];

	fixture_init(&f, "call 1\ncall 99999\nexit", "exit");
	decode_ok("call 1\ncall 99999\nexit", in, 4);
	ck_assert_str_eq(fmt(&f.o, &in[0], 0), "call bpf_map_lookup_elem#1");
	ck_assert_str_eq(fmt(&f.o, &in[1], 1), "call #99999");
}
END_TEST

static const struct resolve_bad {
	const char *xdp, *text;
	int rsec, rslot;                /* a relocation to add, rsec < 0: none */
	enum obj_reloc_kind rkind;
	int rtarget;
	int sec;                        /* section to resolve */
	const char *msg;
} resolve_bad[] = {
	{ "call local +2\nexit\nmov %r0, 0\nmov %r0, 0\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: call to insn 3 which is not a function" },
	{ "call local -5\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: call to insn -4 which is not a function" },
	{ ".insn 0x18, 1, 4, 0, 5\n.insn 0, 0, 0, 0, 0\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: address of insn 6 which is not a function" },
	{ "ja +5\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: jump out of range to 6" },
	{ "jeq %r1, 0, -2\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: jump out of range to -1" },
	{ "ja32 +100\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: jump out of range to 101" },
	{ "jne32 %r1, 1, +1\nlddw %r1, 5\nexit\n", "exit", -1, 0, 0, 0, 0,
	  "prog 'xdp_fw': insn 0: jump into the middle of LD imm64 at 2" },
	/* "sub" occupies .text 0..2; its jump to slot 3 lands in "cb" */
	{ "exit", "jeq %r1, 0, +2\nmov %r0, 1\nexit\nexit\n", -1, 0, 0, 0, 1,
	  "func 'sub': insn 0: jump out of range to 3" },
	{ "mov %r1, 0\nexit\n", "exit", 0, 0, OBJ_RELO_MAP, 0, 0,
	  "prog 'xdp_fw': insn 0: map relocation on a MOV instruction (code 0xb7)" },
	{ "lddw %r1, 0\nexit\n", "exit", 0, 0, OBJ_RELO_CALL, 1, 0,
	  "prog 'xdp_fw': insn 0: call relocation on a LDDW instruction (code 0x18)" },
	{ "call 1\nexit\n", "exit", 0, 0, OBJ_RELO_KFUNC, 0, 0,
	  "prog 'xdp_fw': insn 0: kfunc relocation on a CALL instruction (code 0x85)" },
	{ "lddw %r1, 0\nexit\n", "exit", 0, 1, OBJ_RELO_MAP, 0, 0,
	  "prog 'xdp_fw': insn 1: relocation on the second slot of an LD imm64" },
	{ "lddw %r1, 0\nexit\n", "exit", 0, 0, OBJ_RELO_MAP, 7, 0,
	  "prog 'xdp_fw': insn 0: map relocation to unknown index 7" },
	{ "lddw %r1, 0\nexit\n", "exit", 0, 9, OBJ_RELO_GLOBAL, 0, 0,
	  "section 'xdp': relocation past the end at insn 9" },
};

START_TEST(test_resolve_bad)
{
	const struct resolve_bad *rb = &resolve_bad[_i];
	struct fixture f;
	struct insn in[16];
	struct capture c;
	const struct obj_section *s;

	fixture_init(&f, rb->xdp, rb->text);
	f.funcs[0].nslots = f.nxdp;     /* one program fills "xdp" */
	f.funcs[3] = f.funcs[2];
	f.o.nfuncs = 3;
	if (rb->rsec >= 0)
		add_reloc(&f, rb->rsec, rb->rslot, rb->rkind, rb->rtarget, 0);
	s = &f.secs[rb->sec];
	capture_init(&c);
	ck_assert_int_eq(insn_decode(s->raw, s->nslots, in, "fx.o", "x", &c.d), 0);
	ck_assert_int_eq(insn_resolve(&f.o, rb->sec, in, &c.d), -EINVAL);
	ck_assert_uint_eq(c.d.errors, 1);
	ck_assert_str_eq(c.msg, rb->msg);
}
END_TEST

/* decode errors from insn_decode_object name the function and count from
 * its start; slots in no function are named by section */
START_TEST(test_decode_object_errors)
{
	struct fixture f;
	struct insn **secs;
	struct capture c;
	struct arena *a = arena_new();

	fixture_init(&f, "mov %r0, 0\nexit\nmov %r0, 1\n.insn 0xe4, 0, 0, 0, 0\nexit",
		     "exit");
	f.funcs[0].nslots = 2;
	f.funcs[3].start = 2;
	f.funcs[3].nslots = 3;
	f.o.arena = a;
	capture_init(&c);
	ck_assert_int_eq(insn_decode_object(&f.o, &secs, &c.d), -EINVAL);
	ck_assert_str_eq(c.msg, "func 'local': insn 1: invalid ALU opcode (code 0xe4)");
	f.o.nfuncs = 0;
	capture_init(&c);
	ck_assert_int_eq(insn_decode_object(&f.o, &secs, &c.d), -EINVAL);
	ck_assert_str_eq(c.msg, "section 'xdp': insn 3: invalid ALU opcode (code 0xe4)");
	/* an LD imm64 cannot straddle two functions */
	fixture_init(&f, "mov %r0, 0\nlddw %r1, 2\nexit", "exit");
	f.funcs[0].nslots = 2;
	f.funcs[3].start = 2;
	f.funcs[3].nslots = 2;
	f.o.arena = a;
	capture_init(&c);
	ck_assert_int_eq(insn_decode_object(&f.o, &secs, &c.d), -EINVAL);
	ck_assert_str_eq(c.msg, "prog 'xdp_fw': insn 1: truncated LD imm64 (code 0x18)");
	arena_free(a);
}
END_TEST

/* ---- coverage ----------------------------------------------------------- */

START_TEST(test_coverage)
{
	int missing = 0;

	for (int op = 0; op < ISA_NOPS; op++)
		if (!seen[op]) {
			printf("insn: %s never decoded by a test\n",
			       isa_table[op].name);
			missing++;
		}
	ck_assert_int_eq(missing, 0);
}
END_TEST

static Suite *insn_suite(void)
{
	Suite *s = suite_create("insn");
	TCase *tc = tcase_create("insn");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_asm);
	tcase_add_test(tc, test_parse_sections);
	tcase_add_loop_test(tc, test_conformance_file, 0, nconf);
	tcase_add_test(tc, test_conformance_count);
	tcase_add_loop_test(tc, test_golden_file, 0, ngolden);
	tcase_add_loop_test(tc, test_invalid, 0, (int)ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_valid_edges);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_resolve_map_value);
	tcase_add_test(tc, test_helper_names);
	tcase_add_loop_test(tc, test_resolve_bad, 0, (int)ARRAY_SIZE(resolve_bad));
	tcase_add_test(tc, test_decode_object_errors);
	tcase_add_test(tc, test_coverage);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CONFORMANCE_DIR GOLDEN_DIR\n", argv[0]);
		return 2;
	}
	conf_dir = argv[1];
	golden_dir = argv[2];
	nconf = list_data(conf_dir, conf_files);
	ngolden = list_data(golden_dir, golden_files);
	if (nconf < 0 || ngolden < 0) {
		fprintf(stderr, "%s: cannot read %s\n", argv[0],
			nconf < 0 ? conf_dir : golden_dir);
		return 2;
	}
	printf("insn: %d invalid encodings, %d golden files, %d bad references\n",
	       (int)ARRAY_SIZE(bad_cases), ngolden, (int)ARRAY_SIZE(resolve_bad));
	sr = srunner_create(insn_suite());
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < nconf; i++)
		free(conf_files[i]);
	for (int i = 0; i < ngolden; i++)
		free(golden_files[i]);
	return failed ? 1 : 0;
}
