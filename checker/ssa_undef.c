/* ssa_undef.c - uses of values that are not initialised on their path.
 *
 * Value 0 (UNDEF) is a register never written on its path, or stack bytes
 * never stored. The kernel's verifier rejects programs that read them; the
 * encoder gives UNDEF a fresh value at each use and the interpreter starts
 * registers and the stack at 0, so a counterexample that depends on one
 * would not replay. Such programs are unsupported (the verdict is unknown).
 *
 * The analysis follows undefined *bytes* through the SSA: each value gets
 * a mask of its bytes that are undefined on every path to it (must-undef:
 * a phi's mask is the AND of its operands', a select's the AND of its two
 * choices), through partial slot writes (INSERT) and reads (EXTRACT); an
 * ALU or other operation with an undefined operand byte gives a wholly
 * undefined result. A use is an error when a byte it reads is in the mask:
 * a memory access through the value, a value stored to memory other than
 * the stack, a branch operand, a value a monitor asserts or assumes (ret,
 * argN of a call), the argument registers a helper's prototype names
 * (helper_arity.h: not the variadic ones of bpf_trace_printk, which the
 * kernel never checks) and the parameters of a kfunc's BTF prototype.
 * Not uses: spills to the stack (slot updates), the exit value (void
 * struct_ops callbacks exit with r0 unset; a monitor reading ret is a
 * use), memory operands of calls.
 * "Must" keeps programs the verifier accepts checked: a value undefined on
 * some paths only (a phi of undef and a register) is accepted, as the
 * verifier does for correlated branches; docs/architecture.md says what
 * that leaves.
 */
#include "ssa_priv.h"

#include "helper_arity.h"

#include <stdlib.h>
#include <string.h>

static uint8_t low_bytes(unsigned size)
{
	return size >= 8 ? 0xff : (uint8_t)((1u << size) - 1);
}

static uint8_t any(const uint8_t *m, const struct ssa_insn *v, uint32_t from, uint32_t to)
{
	uint32_t i;

	for (i = from; i < to && i < v->nargs; i++)
		if (m[v->args[i]])
			return 0xff;
	return 0;
}

/* The parameters of kfunc prototype PROTO ("s32 f(u64, s32)", the
 * object's BTF) before any `...`, at most 5; 0 without a prototype. */
static unsigned kfunc_params(const char *proto)
{
	const char *q = proto ? strchr(proto, '(') : NULL;
	unsigned n = 1;
	int depth = 0;

	if (!q || !strncmp(q, "()", 2) || !strncmp(q, "(void)", 6))
		return 0;
	for (q++; *q && (*q != ')' || depth); q++) {
		if (!strncmp(q, "...", 3))
			return n - 1;
		if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		else if (*q == ',' && !depth)
			n++;
	}
	return *q && n <= 5 ? n : 0;
}

/* The argument registers call V reads: for a helper the parameters of
 * libbpf's prototype before any `...` (bpf_trace_printk's variadic ones
 * are not checked by the kernel), for a kfunc those of its BTF prototype;
 * 0 for a helper libbpf does not know or a kfunc without a prototype
 * (their arguments stay unchecked). */
static unsigned call_reads(const struct ssa_prog *p, const struct ssa_insn *v)
{
	unsigned n;

	if (v->ref->kind == INSN_REF_KFUNC)
		return p->o && v->ref->index >= 0 && (uint32_t)v->ref->index < p->o->nkfuncs
			? kfunc_params(p->o->kfuncs[v->ref->index].proto) : 0;
	if (v->imm < 0 || v->imm >= HELPER_ARITY_MAX)
		return 0;
	n = helper_named_args[v->imm];
	return n <= helper_arity[v->imm] && n <= 5 ? n : 0;
}

/* The value size of the map whose lookup (bpf_map_lookup_elem) gives
 * value ID of P, or 0 when ID is not such a lookup. */
static uint32_t lookup_value_size(const struct ssa_prog *p, uint32_t id)
{
	const struct ssa_insn *v = id < p->nvalues ? p->values[id] : NULL;
	const struct ssa_insn *m;
	const struct object *o = p->o;

	if (!v || v->kind != SSA_CALL || v->ref->kind == INSN_REF_KFUNC || v->imm != 1 ||
	    !v->nargs || v->args[0] >= p->nvalues)
		return 0;
	m = p->values[v->args[0]];
	if (!m || m->kind != SSA_ADDR || m->ref->kind != INSN_REF_MAP || !o ||
	    m->ref->index < 0 || (uint32_t)m->ref->index >= o->nmaps)
		return 0;
	return o->maps[m->ref->index].value_size;
}

/* Is V, a load, store or atomic, at a constant offset from a map lookup's
 * result that lies outside the map's value? The verifier rejects it; the
 * encoder reads and writes the bytes after the value (its memory model
 * has no bounds there) while the interpreter faults, so a counterexample
 * or a worst case through it would not replay (fuzz_check: a damaged
 * cgroup_skb with `lock *(u64 *)(r0 +154) += r1` on an 8-byte value). */
static bool map_value_oob(const struct ssa_prog *p, const struct ssa_insn *v)
{
	uint32_t vs = v->nargs ? lookup_value_size(p, v->args[0]) : 0;

	return vs && (v->imm < 0 || (uint64_t)v->imm + v->size > vs);
}

/* Value V: its mask into M, or the reason when it uses an undefined byte
 * (one switch a value: the kinds with a mask compute and use nothing, the
 * kinds that use are defined, their mask 0 as M holds it already); *OOB
 * set when V is a map_value_oob access. */
static const char *step(const struct ssa_prog *p, uint8_t *m, const struct ssa_insn *v,
			bool *oob)
{
	static const char access[] =
		"a memory access through a register that is not initialised on its path";
	static const char store[] =
		"a store of a register that is not initialised on its path";
	uint8_t r = 0;
	uint32_t i;

	switch (v->kind) {
	case SSA_UNDEF:
		r = 0xff;
		break;
	case SSA_ALU:       /* args[0] op args[1]; a mov reads args[1] only */
		if (v->nargs < 2) {
			r = any(m, v, 0, v->nargs);
			break;
		}
		r = v->op == ISA_MOV ? m[v->args[1]] : m[v->args[0]] | m[v->args[1]];
		if (v->is64)
			r = r ? 0xff : 0;
		else
			r = r & 0x0f ? 0x0f : 0;   /* 32-bit: the upper half is zero */
		break;
	case SSA_UNARY:
		r = any(m, v, 0, 1);
		break;
	case SSA_CMP:
		r = any(m, v, 0, 2);
		break;
	case SSA_SELECT:
		if (v->nargs < 4)
			r = any(m, v, 0, v->nargs);
		else
			r = any(m, v, 0, 2) | (m[v->args[2]] & m[v->args[3]]);
		break;
	case SSA_PHI:
		r = v->nargs ? 0xff : 0;
		for (i = 0; i < v->nargs; i++)
			r &= m[v->args[i]];
		break;
	case SSA_INSERT:
		if (v->nargs < 2 || v->imm < 0 || v->imm + v->size > 8)
			r = 0;
		else
			r = (uint8_t)((m[v->args[0]] & ~(low_bytes(v->size) << v->imm)) |
				      ((m[v->args[1]] & low_bytes(v->size)) << v->imm));
		break;
	case SSA_EXTRACT:
		if (v->nargs < 1 || v->imm < 0 || v->imm + v->size > 8) {
			r = 0;
			break;
		}
		r = (uint8_t)((m[v->args[0]] >> v->imm) & low_bytes(v->size));
		if (v->sx && v->size && (r >> (v->size - 1)) & 1)
			r |= (uint8_t)~low_bytes(v->size);
		break;
	case SSA_LOAD:
		if (v->nargs && m[v->args[0]])
			return access;
		*oob = *oob || map_value_oob(p, v);
		return NULL;
	case SSA_STORE:
	case SSA_ATOMIC:
		if (v->nargs && m[v->args[0]])
			return access;
		/* args[2], r0, is read by cmpxchg only */
		if (any(m, v, 1, v->kind == SSA_ATOMIC && v->op == ISA_ATOMIC_CMPXCHG ? 3 : 2))
			return store;
		*oob = *oob || map_value_oob(p, v);
		return NULL;
	case SSA_SLOTLOAD:
		return v->nargs && m[v->args[0]] ? access : NULL;
	case SSA_SLOTSTORE:
		return v->nargs > 1 && m[v->args[1]] ? access : NULL;
	case SSA_CALL:     /* the verifier: "R1 !read_ok" */
		if (!any(m, v, 0, call_reads(p, v)))
			return NULL;
		return v->ref->kind == INSN_REF_KFUNC
			? "a kfunc call with an argument register that is not initialised on its path"
			: "a helper call with an argument register that is not initialised on its path";
	case SSA_ASSERT:
	case SSA_ASSUME:
		return any(m, v, 0, v->nargs)
			? "an invariant reads a value that is not initialised on its path"
			: NULL;
	case SSA_CONST:    /* inputs, constants, memory: defined, no use */
	case SSA_INPUT:
	case SSA_FRAME:
	case SSA_ADDR:
	case SSA_LDPKT:
	case SSA_HAVOC:
	case SSA_TAILRET:
	case SSA_PKTW:
	case SSA_NKINDS:
		return NULL;
	}
	if (v->id < p->nvalues)
		m[v->id] = v->id ? r : 0xff;
	return NULL;
}

const char *ssa_undef_use(const struct ssa_prog *p, uint8_t *buf, size_t size, bool *oob)
{
	uint8_t *m = p->nvalues <= size ? memset(buf, 0, p->nvalues) : calloc_big(p->nvalues, 1);
	const char *why = NULL;
	uint32_t b, i;

	m[0] = 0xff;
	for (b = 0; b < p->nblocks && !why; b++) {
		const struct ssa_block *bl = p->blocks[b];

		for (i = 0; i < bl->ninsns && !why; i++) {
			const struct ssa_insn *v = bl->insns[i];

			why = step(p, m, v, oob);
		}
		if (!why && bl->term == SSA_TERM_BRANCH && (m[bl->a] || m[bl->b]))
			why = "a branch on a register that is not initialised on its path";
	}
	if (m != buf)
		free(m);
	return why;
}
