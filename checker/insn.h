/* insn.h - stage 2: decode raw BPF instructions (from the isa.h table),
 * attach what the object resolved, and disassemble.
 *
 * Preconditions: raw little-endian struct bpf_insn slots. Postconditions of
 * insn_decode(): out[i] describes slot i; an LD imm64 occupies slots i and
 * i+1, and out[i+1].op is ISA_NOPS with .cont = true (a jump to it is
 * invalid). Every field combination the kernel would reject as a reserved
 * encoding is an error naming the instruction index.
 */
#ifndef INVCHECK_INSN_H
#define INVCHECK_INSN_H

#include "base.h"
#include "isa.h"
#include "object.h"

enum insn_ref_kind {
	INSN_REF_NONE,
	INSN_REF_HELPER,     /* call: index = helper id */
	INSN_REF_SUBPROG,    /* call / LDDW func addr: index = func, target = slot */
	INSN_REF_KFUNC,      /* call: index = object kfunc index */
	INSN_REF_MAP,        /* LDDW: index = map */
	INSN_REF_MAP_VALUE,  /* LDDW src=2/6 with a map: index = map, off = offset */
	INSN_REF_GLOBAL,     /* LDDW: index = datasec, off = byte offset */
	INSN_REF_CALLBACK,   /* LDDW: address of function index (bpf_loop callback) */
	INSN_REF_KSYM,       /* LDDW: extern kernel symbol, index = extern */
};

/* 16 bytes: the target (SUBPROG, CALLBACK) and the offset (GLOBAL,
 * MAP_VALUE) share their 8 bytes; every other kind leaves them 0. */
struct insn_ref {
	enum insn_ref_kind kind;
	int index;
	union {
		struct {
			int sec;             /* SUBPROG / CALLBACK: section of the target */
			uint32_t target;     /* SUBPROG / CALLBACK: target slot in that section */
		};
		int64_t off;         /* GLOBAL / MAP_VALUE: byte offset */
	};
};

/* 40 bytes (48 until session 21: insn_ref's union), no padding inside but
 * after fast (session 27: in what was padding): one per instruction slot of the object (a million at
 * the benchmark's largest; docs/architecture.md "Lift memory layout"). */
struct insn {
	enum isa_op op : 8;  /* ISA_NOPS for the second slot of LD imm64 */
	uint8_t code, dst, src;
	int16_t off;
	uint8_t size;        /* bytes: memory access width; END and MOVSX: operand width */
	uint8_t aop;         /* ATOMIC: enum isa_atomic */
	int32_t imm;
	bool is64 : 1;       /* ALU64 / JMP (vs ALU / JMP32); END: true for BSWAP */
	bool srcreg : 1;     /* second operand is register src (X), not imm (K) */
	bool cont : 1;       /* second slot of an LD imm64 */
	bool fetch : 1;      /* ATOMIC: returns the old value */
	/* INSN_FAST(op, is64, srcreg) for an ALU, NEG, MOVSX, JA or JCOND
	 * operation that cannot fault where it is (its registers exist, dst
	 * is not r10 for a write, its next slot or targets are instructions
	 * of the section), INSN_FAST(op, 0, 0) for such an LDX, LDXSX, ST or
	 * STX (of width 1, 2, 4 or 8), else 0: the interpreter runs it
	 * without those checks (interp.c run_loop). Set by insn_decode and insn_decode_object over
	 * a whole section; code that changes a decoded instruction's
	 * operation, operands or neighbours must set it 0 (0 is always right). */
	uint8_t fast;
	uint64_t imm64;      /* LDDW: the 64-bit immediate; else (u64)(s64)imm */
	struct insn_ref ref; /* filled by insn_resolve() */
};

#define INSN_FAST(op, is64, srcreg) (1 + 4 * (unsigned)(op) + 2 * (unsigned)(is64) + \
					   (unsigned)(srcreg))
_Static_assert(INSN_FAST(ISA_NOPS, 1, 1) <= UINT8_MAX, "struct insn's fast fits 8 bits");

/* Decode N raw slots into OUT (N entries). WHERE names the code in messages
 * ("xdp_fw" or "section 'xdp'"); FILE is the object path. On an invalid
 * encoding: one error "FILE: error: WHERE: insn N: <what>" and -EINVAL. */
int insn_decode(const struct bpf_insn *raw, uint32_t n, struct insn *out,
		const char *file, const char *where, struct diag *d);

/* Attach the object's relocations of section SEC to its decoded slots, and
 * resolve what needs no relocation (pc-relative calls inside a section,
 * helper ids). Bad references (a call into the middle of an LD imm64,
 * outside its section, a relocation on the wrong instruction) are errors. */
int insn_resolve(const struct object *o, int sec, struct insn *insns,
		 struct diag *d);

/* Decode and resolve every code section of O. Result: per section an array
 * of nslots decoded instructions, in the object's arena. */
int insn_decode_object(const struct object *o, struct insn ***out,
		       struct diag *d);

/* Write one instruction in bpftool's syntax, with names from O when given
 * (map, global, helper, kfunc, subprogram). Returns bytes written as snprintf. */
int insn_format(const struct object *o, const struct insn *in, uint32_t slot,
		char *buf, size_t size);

/* Jump target slot of a JA/JCOND/gotol at SLOT (no range check). */
int64_t insn_jump_target(const struct insn *in, uint32_t slot);

#endif
