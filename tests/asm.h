/* asm.h - test assembler for the conformance ".data" format (shared test
 * infrastructure; see ../shared/conformance/README.md for the syntax).
 *
 * A .data file is a list of sections, each opened by a line "-- NAME". Text
 * before the first section is a comment. Sections:
 *   asm     the program (assembled into insns unless raw is present)
 *   raw     one 64-bit instruction word per line
 *   mem     input memory as hex bytes
 *   result  expected r0 (the last line counts)
 *   error   expected error text
 *   any other name (expect, spec, c, "no register offset", ...) is kept
 *   verbatim for the test that wants it: asm_test_section().
 * In asm/raw/mem/result a '#' starts a comment; other sections keep '#'.
 *
 * Assembler syntax: the upstream conformance assembler (registers %r0..%r10,
 * "mnemonic dst, src", memory "[%rN+off]", labels "name:", targets label or
 * +N/-N, the first exit is labelled "exit"), plus these extensions:
 *   ldabs{b,h,w,dw} IMM         legacy packet load, r0 = skb[IMM]
 *   ldind{b,h,w,dw} %rS, IMM    legacy packet load, r0 = skb[rS + IMM]
 *   call kfunc N                call with src=2, imm=N
 *   call helper N               same as call N
 *   ldxsdw, movsx3232 ...       encodable though invalid (for decoder tests)
 *   .raw 0xWORD                 one raw slot (anything the syntax lacks:
 *                               LD imm64 pseudo sources, reserved fields)
 *   .insn CODE, DST, SRC, OFF, IMM   one raw slot by fields (numbers)
 * Registers are %r0..%r15 (4-bit fields; r11..r15 only for invalid-encoding
 * tests); the % is optional.
 *
 * All functions report bad input as "NAME:LINE: message" in ERR and return
 * -EINVAL (-E2BIG when OUT is too small, -errno for I/O).
 */
#ifndef INVCHECK_TESTS_ASM_H
#define INVCHECK_TESTS_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

struct asm_section {
	char *name;             /* "asm", "expect", "no register offset" */
	char *text;             /* lines as written, '\n'-terminated */
	unsigned line;          /* line of the "-- NAME" header */
};

struct asm_test {
	char *name;             /* path or name given */
	struct bpf_insn *insns; /* the program: raw if present, else asm */
	uint32_t ninsns;
	bool has_asm, has_raw;
	struct bpf_insn *asm_insns; /* the assembled asm section (if any) */
	uint32_t nasm_insns;
	uint8_t *mem;           /* -- mem bytes (NULL if none) */
	size_t mem_len;
	bool has_mem;
	uint64_t result;        /* -- result */
	bool has_result;
	char *error;            /* -- error text (trimmed), or NULL */
	struct asm_section *sections; /* every section, in file order */
	unsigned nsections;
};

/* Parse and assemble a .data file. On failure OUT is left empty. */
int asm_parse_file(const char *path, struct asm_test *out, char *err,
		   size_t errlen);
/* The same from text in memory; NAME is used in messages. */
int asm_parse_string(const char *text, const char *name, struct asm_test *out,
		     char *err, size_t errlen);
void asm_test_free(struct asm_test *t);

/* Text of the first section called NAME, or NULL. */
const char *asm_test_section(const struct asm_test *t, const char *name);

/* Assemble an inline snippet into OUT (MAX slots). Returns the number of
 * slots, or a negative errno with the message in ERR. */
int asm_assemble(const char *text, struct bpf_insn *out, uint32_t max,
		 char *err, size_t errlen);

/* Assemble TEXT into a malloc'd array (*OUT, free() it); NAME and
 * FIRST_LINE (the line number of TEXT's first line) are for messages. */
int asm_assemble_alloc(const char *text, const char *name, unsigned first_line,
		       struct bpf_insn **out, uint32_t *n, char *err,
		       size_t errlen);

#endif
