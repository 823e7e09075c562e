/* disasm.c - insn_format(): one decoded instruction as text, in the syntax
 * of the kernel verifier log and `bpftool prog dump xlated` (without the
 * "(code)" prefix), with names from the object when one is given.
 *
 * The syntax, by kind ("r" registers are 64-bit, "w" the low 32 bits):
 *
 *   ALU64 K        r1 += 5               imm in signed decimal
 *   ALU64 X        r1 += r2
 *   ALU32          w1 += 5   w1 += w2
 *     operators    += -= *= /= s/= |= &= <<= >>= %= s%= ^= = s>>=
 *   NEG            r1 = -r1  w1 = -w1
 *   MOVSX          r1 = (s8)r2  w1 = (s16)w2
 *   END            r1 = le16 r1  r1 = be32 r1  r1 = bswap64 r1
 *   JA / gotol     goto pc+2  gotol pc-100
 *   JCOND K        if r1 > 0x5 goto pc+3     imm as 32-bit hex
 *   JCOND X        if r1 s< r2 goto pc-7     JMP32: if w1 s< w2 goto pc-7
 *     operators    == > >= & != s> s>= < <= s< s<=
 *   helper call    call #1                   no object
 *                  call bpf_map_lookup_elem#1  with an object
 *                  call #9999                unknown helper id
 *   local call     call pc+12                no object
 *                  call pc+12 <name>         with an object, same section
 *                  call <name>               relocated into another section
 *   kfunc call     call kfunc#-1             no object / unresolved (imm)
 *                  call scx_bpf_dsq_insert (kfunc)
 *   callx          callx r2
 *   exit           exit
 *   LD imm64       r1 = 0x1122334455667788
 *     by pseudo    r1 = map[fd:3]  r1 = map[fd:3][0]+8  r1 = btf_id[7]
 *     (no object)  r1 = func pc+5  r1 = map[idx:1]  r1 = map[idx:1][0]+8
 *     resolved     r1 = map[xdp_fw_blocked]  r1 = map[counts][0]+8
 *                  r1 = global .data+8 <var>  r1 = global .bss+12 <var+4>
 *                  r1 = global .rodata+40    (no variable there)
 *                  r1 = func <callback>  r1 = ksym <bpf_prog_active>
 *     2nd slot     "" (empty: printers skip continuation slots)
 *   LD_ABS/IND     r0 = *(u8 *)skb[12]  r0 = *(u16 *)skb[r6 +14]
 *   LDX            r1 = *(u32 *)(r2 +4)   LDXSX: r1 = *(s16 *)(r2 -2)
 *   ST             *(u32 *)(r10 -4) = 0      imm in signed decimal
 *   STX            *(u64 *)(r10 -8) = r1
 *   ATOMIC         lock *(u64 *)(r10 -8) += r1     (+= |= &= ^=)
 *                  r1 = atomic64_fetch_add((u64 *)(r10 -8), r1)
 *                  r1 = atomic_fetch_or((u32 *)(r10 -4), r1)    32-bit
 *                  r1 = atomic64_xchg((u64 *)(r10 -8), r1)
 *                  r0 = atomic64_cmpxchg((u64 *)(r10 -8), r0, r1)
 *
 * Offsets are written "%+d" ("+0", "-8"); atomics name registers "r"
 * whatever the width, as the kernel does.
 */
#include "insn.h"

#include <stdio.h>

static const char *const alu_sym[ISA_NOPS] = {
	[ISA_ADD] = "+=", [ISA_SUB] = "-=", [ISA_MUL] = "*=",
	[ISA_DIV] = "/=", [ISA_SDIV] = "s/=", [ISA_OR] = "|=",
	[ISA_AND] = "&=", [ISA_LSH] = "<<=", [ISA_RSH] = ">>=",
	[ISA_MOD] = "%=", [ISA_SMOD] = "s%=", [ISA_XOR] = "^=",
	[ISA_MOV] = "=", [ISA_ARSH] = "s>>=",
	[ISA_JEQ] = "==", [ISA_JGT] = ">", [ISA_JGE] = ">=",
	[ISA_JSET] = "&", [ISA_JNE] = "!=", [ISA_JSGT] = "s>",
	[ISA_JSGE] = "s>=", [ISA_JLT] = "<", [ISA_JLE] = "<=",
	[ISA_JSLT] = "s<", [ISA_JSLE] = "s<=",
};

static const char *const atomic_sym[ISA_NATOMICS] = {
	[ISA_ATOMIC_ADD] = "+=", [ISA_ATOMIC_OR] = "|=",
	[ISA_ATOMIC_AND] = "&=", [ISA_ATOMIC_XOR] = "^=",
};

/* snprintf-style appending: LEN counts what would have been written. */
struct out {
	char *buf;
	size_t size;
	int len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	size_t at = (size_t)o->len < o->size ? (size_t)o->len : o->size;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf ? o->buf + at : NULL, o->buf ? o->size - at : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += n;
}

static char reg_prefix(const struct insn *in)
{
	return in->is64 ? 'r' : 'w';
}

/* "u32" / "s16": the C type of a memory access */
static void put_type(struct out *o, const struct insn *in, bool sign)
{
	put(o, "%c%u", sign ? 's' : 'u', in->size * 8u);
}

/* "*(u32 *)(r2 +4)" */
static void put_mem(struct out *o, const struct insn *in, unsigned base,
		    bool sign)
{
	put(o, "*(");
	put_type(o, in, sign);
	put(o, " *)(r%u %+d)", base, in->off);
}

static void fmt_alu(struct out *o, const struct insn *in)
{
	char p = reg_prefix(in);

	if (in->srcreg)
		put(o, "%c%u %s %c%u", p, in->dst, alu_sym[in->op], p, in->src);
	else
		put(o, "%c%u %s %d", p, in->dst, alu_sym[in->op], in->imm);
}

static void fmt_jcond(struct out *o, const struct insn *in)
{
	char p = reg_prefix(in);

	put(o, "if %c%u %s ", p, in->dst, alu_sym[in->op]);
	if (in->srcreg)
		put(o, "%c%u", p, in->src);
	else
		put(o, "0x%x", (uint32_t)in->imm);
	put(o, " goto pc%+d", in->off);
}

static void fmt_call(struct out *o, const struct object *ob,
		     const struct insn *in, uint32_t slot)
{
	const struct insn_ref *r = &in->ref;
	const char *name;

	if (ob && r->kind == INSN_REF_KFUNC) {
		put(o, "call %s (kfunc)", ob->kfuncs[r->index].name);
	} else if (in->src == ISA_CALL_KFUNC) {
		put(o, "call kfunc#%d", in->imm);
	} else if (in->src == ISA_CALL_HELPER) {
		name = ob ? helper_name(in->imm) : NULL;
		put(o, "call %s#%d", name ? name : "", in->imm);
	} else if (ob && r->kind == INSN_REF_SUBPROG) {
		name = ob->funcs[r->index].name;
		if (r->target == insn_jump_target(in, slot))
			put(o, "call pc%+d <%s>", in->imm, name);
		else
			put(o, "call <%s>", name);
	} else {
		put(o, "call pc%+d", in->imm);
	}
}

/* "global .data+8 <var+4>" */
static void fmt_global(struct out *o, const struct object *ob,
		       const struct insn_ref *r)
{
	const struct obj_datasec *ds = &ob->datasecs[r->index];

	put(o, "global %s%+lld", ds->name, (long long)r->off);
	for (uint32_t i = 0; i < ds->nvars; i++) {
		const struct obj_var *v = &ds->vars[i];

		if (r->off < v->off || r->off - v->off >= (v->size ? v->size : 1))
			continue;
		if (r->off == v->off)
			put(o, " <%s>", v->name);
		else
			put(o, " <%s+%lld>", v->name,
			    (long long)(r->off - v->off));
		return;
	}
}

/* an LD imm64 with a relocation; false if there is none to print */
static bool fmt_lddw_ref(struct out *o, const struct object *ob,
			 const struct insn *in)
{
	const struct insn_ref *r = &in->ref;

	if (!ob)
		return false;
	switch (r->kind) {
	case INSN_REF_MAP:
		put(o, "map[%s]", ob->maps[r->index].name);
		return true;
	case INSN_REF_MAP_VALUE:
		put(o, "map[%s][0]+%lld", ob->maps[r->index].name,
		    (long long)r->off);
		return true;
	case INSN_REF_GLOBAL:
		fmt_global(o, ob, r);
		return true;
	case INSN_REF_CALLBACK:
		put(o, "func <%s>", ob->funcs[r->index].name);
		return true;
	case INSN_REF_KSYM:
		put(o, "ksym <%s>", ob->externs[r->index].name);
		return true;
	case INSN_REF_NONE:
	case INSN_REF_HELPER:
	case INSN_REF_SUBPROG:
	case INSN_REF_KFUNC:
		break;
	}
	return false;
}

static void fmt_lddw(struct out *o, const struct object *ob,
		     const struct insn *in)
{
	uint32_t hi = (uint32_t)(in->imm64 >> 32);

	put(o, "r%u = ", in->dst);
	if (fmt_lddw_ref(o, ob, in))
		return;
	switch (in->src) {
	case ISA_PSEUDO_MAP_FD:
		put(o, "map[fd:%d]", in->imm);
		break;
	case ISA_PSEUDO_MAP_VALUE:
		put(o, "map[fd:%d][0]+%u", in->imm, hi);
		break;
	case ISA_PSEUDO_BTF_ID:
		put(o, "btf_id[%d]", in->imm);
		break;
	case ISA_PSEUDO_FUNC:
		put(o, "func pc%+d", in->imm);
		break;
	case ISA_PSEUDO_MAP_IDX:
		put(o, "map[idx:%d]", in->imm);
		break;
	case ISA_PSEUDO_MAP_IDX_VALUE:
		put(o, "map[idx:%d][0]+%u", in->imm, hi);
		break;
	default:
		put(o, "0x%llx", (unsigned long long)in->imm64);
		break;
	}
}

static void fmt_ldpkt(struct out *o, const struct insn *in)
{
	put(o, "r0 = *(");
	put_type(o, in, false);
	if (in->op == ISA_LDIND)
		put(o, " *)skb[r%u %+d]", in->src, in->imm);
	else
		put(o, " *)skb[%d]", in->imm);
}

static void fmt_atomic(struct out *o, const struct insn *in)
{
	const char *w = in->size == 8 ? "64" : "";

	if (!in->fetch) {
		put(o, "lock ");
		put_mem(o, in, in->dst, false);
		put(o, " %s r%u", atomic_sym[in->aop], in->src);
		return;
	}
	if (in->aop == ISA_ATOMIC_CMPXCHG)
		put(o, "r0 = atomic%s_cmpxchg((", w);
	else if (in->aop == ISA_ATOMIC_XCHG)
		put(o, "r%u = atomic%s_xchg((", in->src, w);
	else
		put(o, "r%u = atomic%s_fetch_%s((", in->src, w,
		    isa_atomic_table[in->aop].mnemonic);
	put_type(o, in, false);
	put(o, " *)(r%u %+d), ", in->dst, in->off);
	if (in->aop == ISA_ATOMIC_CMPXCHG)
		put(o, "r0, ");
	put(o, "r%u)", in->src);
}

static void fmt_kind(struct out *o, const struct object *ob,
		     const struct insn *in, uint32_t slot)
{
	char p = reg_prefix(in);

	switch (isa_table[in->op].kind) {
	case ISA_K_ALU:
		fmt_alu(o, in);
		break;
	case ISA_K_NEG:
		put(o, "%c%u = -%c%u", p, in->dst, p, in->dst);
		break;
	case ISA_K_MOVSX:
		put(o, "%c%u = (s%d)%c%u", p, in->dst, in->off, p, in->src);
		break;
	case ISA_K_END:
		put(o, "r%u = %s%d r%u", in->dst, isa_table[in->op].mnemonic,
		    in->imm, in->dst);
		break;
	case ISA_K_JA:
		if (in->is64)
			put(o, "goto pc%+d", in->off);
		else
			put(o, "gotol pc%+d", in->imm);
		break;
	case ISA_K_JCOND:
		fmt_jcond(o, in);
		break;
	case ISA_K_CALL:
		fmt_call(o, ob, in, slot);
		break;
	case ISA_K_CALLX:
		put(o, "callx r%u", in->dst);
		break;
	case ISA_K_EXIT:
		put(o, "exit");
		break;
	case ISA_K_LDDW:
		fmt_lddw(o, ob, in);
		break;
	case ISA_K_LDPKT:
		fmt_ldpkt(o, in);
		break;
	case ISA_K_LDX:
		put(o, "r%u = ", in->dst);
		put_mem(o, in, in->src, in->op == ISA_LDXSX);
		break;
	case ISA_K_ST:
		put_mem(o, in, in->dst, false);
		put(o, " = %d", in->imm);
		break;
	case ISA_K_STX:
		put_mem(o, in, in->dst, false);
		put(o, " = r%u", in->src);
		break;
	case ISA_K_ATOMIC:
		fmt_atomic(o, in);
		break;
	case ISA_NKINDS:
		break;
	}
}

int insn_format(const struct object *o, const struct insn *in, uint32_t slot,
		char *buf, size_t size)
{
	struct out out = { buf, size, 0 };

	if (buf && size)
		buf[0] = '\0';
	if (in->cont || in->op >= ISA_NOPS)
		return 0;
	fmt_kind(&out, o, in, slot);
	return out.len;
}
