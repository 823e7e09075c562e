/* isa.h - the one BPF instruction-set table (RFC 9669, ISA v4).
 *
 * Every stage that needs to know about opcodes (decoder, disassembler,
 * interpreter, SMT encoder, test assembler) expands these X-macros, so they
 * cannot disagree about which operations exist or what they are called.
 *
 * ISA_OPS(X): X(ID, KIND, CODE, MNEMONIC)
 *   ID        the operation: enum isa_op value ISA_<ID>
 *   KIND      its operand shape: enum isa_kind value ISA_K_<KIND>
 *   CODE      the operation bits of the opcode byte (code & 0xf0 for ALU and
 *             JMP classes, the mode bits code & 0xe0 for loads and stores)
 *   MNEMONIC  the name used by the conformance assembler
 * Operations that share CODE are told apart by another field:
 *   DIV/SDIV and MOD/SMOD by off (0 / 1); MOV/MOVSX by off (0 / 8,16,32);
 *   LE/BE/BSWAP by class and source bit; JA/gotol by class (JMP / JMP32);
 *   CALL/CALLX by the source bit.
 */
#ifndef INVCHECK_ISA_H
#define INVCHECK_ISA_H

/* instruction classes (code & 0x07); ISA_CLS_ so they do not clash with
 * the operation names ISA_LDX, ISA_ST, ISA_STX of enum isa_op */
#define ISA_CLS_LD    0x00
#define ISA_CLS_LDX   0x01
#define ISA_CLS_ST    0x02
#define ISA_CLS_STX   0x03
#define ISA_CLS_ALU   0x04
#define ISA_CLS_JMP   0x05
#define ISA_CLS_JMP32 0x06
#define ISA_CLS_ALU64 0x07

/* source bit (code & 0x08) for ALU and JMP classes */
#define ISA_SRC_K 0x00
#define ISA_SRC_X 0x08

/* size bits (code & 0x18) for loads and stores */
#define ISA_SZ_W  0x00
#define ISA_SZ_H  0x08
#define ISA_SZ_B  0x10
#define ISA_SZ_DW 0x18

/* mode bits (code & 0xe0) for loads and stores */
#define ISA_MODE_IMM    0x00
#define ISA_MODE_ABS    0x20
#define ISA_MODE_IND    0x40
#define ISA_MODE_MEM    0x60
#define ISA_MODE_MEMSX  0x80
#define ISA_MODE_ATOMIC 0xc0

/* pseudo source registers of LD imm64 (src field) */
#define ISA_PSEUDO_NONE          0 /* plain 64-bit immediate */
#define ISA_PSEUDO_MAP_FD        1 /* map by fd (or, in an ELF, by relocation) */
#define ISA_PSEUDO_MAP_VALUE     2 /* address of a map value + offset */
#define ISA_PSEUDO_BTF_ID        3 /* address of a kernel variable */
#define ISA_PSEUDO_FUNC          4 /* address of a BPF function */
#define ISA_PSEUDO_MAP_IDX       5 /* map by index */
#define ISA_PSEUDO_MAP_IDX_VALUE 6 /* map value by index + offset */

/* call source (src field of call) */
#define ISA_CALL_HELPER 0
#define ISA_CALL_LOCAL  1
#define ISA_CALL_KFUNC  2

#define ISA_NREGS 11   /* r0..r10 */
#define ISA_REG_FP 10  /* r10: read-only frame pointer */
#define ISA_STACK_SIZE 512

#define ISA_OPS(X)                                  \
	/* ALU and ALU64 (dst op= src) */            \
	X(ADD,   ALU,    0x00, "add")                \
	X(SUB,   ALU,    0x10, "sub")                \
	X(MUL,   ALU,    0x20, "mul")                \
	X(DIV,   ALU,    0x30, "div")                \
	X(SDIV,  ALU,    0x30, "sdiv")               \
	X(OR,    ALU,    0x40, "or")                 \
	X(AND,   ALU,    0x50, "and")                \
	X(LSH,   ALU,    0x60, "lsh")                \
	X(RSH,   ALU,    0x70, "rsh")                \
	X(NEG,   NEG,    0x80, "neg")                \
	X(MOD,   ALU,    0x90, "mod")                \
	X(SMOD,  ALU,    0x90, "smod")               \
	X(XOR,   ALU,    0xa0, "xor")                \
	X(MOV,   ALU,    0xb0, "mov")                \
	X(MOVSX, MOVSX,  0xb0, "movsx")              \
	X(ARSH,  ALU,    0xc0, "arsh")               \
	X(LE,    END,    0xd0, "le")                 \
	X(BE,    END,    0xd0, "be")                 \
	X(BSWAP, END,    0xd0, "bswap")              \
	/* JMP and JMP32 */                          \
	X(JA,    JA,     0x00, "ja")                 \
	X(JEQ,   JCOND,  0x10, "jeq")                \
	X(JGT,   JCOND,  0x20, "jgt")                \
	X(JGE,   JCOND,  0x30, "jge")                \
	X(JSET,  JCOND,  0x40, "jset")               \
	X(JNE,   JCOND,  0x50, "jne")                \
	X(JSGT,  JCOND,  0x60, "jsgt")               \
	X(JSGE,  JCOND,  0x70, "jsge")               \
	X(CALL,  CALL,   0x80, "call")               \
	X(CALLX, CALLX,  0x80, "callx")              \
	X(EXIT,  EXIT,   0x90, "exit")               \
	X(JLT,   JCOND,  0xa0, "jlt")                \
	X(JLE,   JCOND,  0xb0, "jle")                \
	X(JSLT,  JCOND,  0xc0, "jslt")               \
	X(JSLE,  JCOND,  0xd0, "jsle")               \
	/* loads and stores */                       \
	X(LDDW,  LDDW,   0x00, "lddw")               \
	X(LDABS, LDPKT,  0x20, "ldabs")              \
	X(LDIND, LDPKT,  0x40, "ldind")              \
	X(LDX,   LDX,    0x60, "ldx")                \
	X(LDXSX, LDX,    0x80, "ldxs")               \
	X(ST,    ST,     0x60, "st")                 \
	X(STX,   STX,    0x60, "stx")                \
	X(ATOMIC, ATOMIC, 0xc0, "lock")

/* operand shapes */
#define ISA_KINDS(X) \
	X(ALU) X(NEG) X(MOVSX) X(END) X(JA) X(JCOND) X(CALL) X(CALLX) X(EXIT) \
	X(LDDW) X(LDPKT) X(LDX) X(ST) X(STX) X(ATOMIC)

/* ATOMIC operations, in imm: X(ID, IMM_WITHOUT_FETCH, MNEMONIC).
 * ADD/OR/AND/XOR may carry ISA_FETCH; XCHG and CMPXCHG always fetch. */
#define ISA_FETCH 0x01
#define ISA_ATOMIC_OPS(X)           \
	X(ADD,     0x00, "add")     \
	X(OR,      0x40, "or")      \
	X(AND,     0x50, "and")     \
	X(XOR,     0xa0, "xor")     \
	X(XCHG,    0xe0, "xchg")    \
	X(CMPXCHG, 0xf0, "cmpxchg")

enum isa_op {
#define X(id, kind, code, mn) ISA_##id,
	ISA_OPS(X)
#undef X
	ISA_NOPS
};

enum isa_kind {
#define X(k) ISA_K_##k,
	ISA_KINDS(X)
#undef X
	ISA_NKINDS
};

enum isa_atomic {
#define X(id, imm, mn) ISA_ATOMIC_##id,
	ISA_ATOMIC_OPS(X)
#undef X
	ISA_NATOMICS
};

struct isa_info {
	const char *name;      /* "ADD" */
	const char *mnemonic;  /* "add" */
	enum isa_kind kind;
	unsigned char code;
};

/* Indexed by enum isa_op; defined in insn.c. */
extern const struct isa_info isa_table[ISA_NOPS];
struct isa_atomic_info {
	const char *name;      /* "CMPXCHG" */
	const char *mnemonic;  /* "cmpxchg" */
	int imm;               /* imm without ISA_FETCH */
};

/* Indexed by enum isa_atomic; defined in insn.c. */
extern const struct isa_atomic_info isa_atomic_table[ISA_NATOMICS];

#endif
