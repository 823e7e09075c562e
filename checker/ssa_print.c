/* ssa_print.c - the SSA printer, the SSA verifier, and lifting of bare code
 * (no object) for the conformance vectors and tests. */
#include "ssa.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *ssa_kind_name(enum ssa_kind k)
{
	static const char *const names[] = {
#define X(n, t) [SSA_##n] = t,
		SSA_KINDS(X)
#undef X
	};

	return k < SSA_NKINDS ? names[k] : "?";
}

static const char *cond_text(uint8_t op)
{
	static const char *const text[ISA_NOPS] = {
		[ISA_JEQ] = "==", [ISA_JNE] = "!=", [ISA_JGT] = ">", [ISA_JGE] = ">=",
		[ISA_JLT] = "<", [ISA_JLE] = "<=", [ISA_JSGT] = "s>", [ISA_JSGE] = "s>=",
		[ISA_JSLT] = "s<", [ISA_JSLE] = "s<=", [ISA_JSET] = "&",
	};

	return op < ISA_NOPS && text[op] ? text[op] : "?";
}

static const char *uname(unsigned size, bool sx)
{
	static const char *const u[] = { "?", "u8", "u16", "?", "u32", "?", "?", "?", "u64" };
	static const char *const s[] = { "?", "s8", "s16", "?", "s32", "?", "?", "?", "s64" };

	return size <= 8 ? (sx ? s[size] : u[size]) : "?";
}

static void print_ref(const struct ssa_prog *p, const struct insn_ref *r, FILE *out)
{
	const struct object *o = p->o;

	switch (r->kind) {
	case INSN_REF_MAP:
		fprintf(out, "map %s", o->maps[r->index].name);
		break;
	case INSN_REF_MAP_VALUE:
		fprintf(out, "map_value %s+%" PRId64, o->maps[r->index].name, r->off);
		break;
	case INSN_REF_GLOBAL: {
		const struct obj_datasec *ds = &o->datasecs[r->index];
		const struct obj_var *v = object_var_at(ds, (uint32_t)r->off);

		fprintf(out, "global %s+%" PRId64, ds->name, r->off);
		if (v)
			fprintf(out, " <%s>", v->name);
		break;
	}
	case INSN_REF_CALLBACK:
	case INSN_REF_SUBPROG:
		fprintf(out, "func %s", o->funcs[r->index].name);
		break;
	case INSN_REF_KSYM:
		fprintf(out, "ksym %s", o->externs[r->index].name);
		break;
	case INSN_REF_KFUNC:
		fprintf(out, "%s (kfunc)", o->kfuncs[r->index].name);
		break;
	case INSN_REF_HELPER: {
		const char *n = helper_name(r->index);

		fprintf(out, "%s#%d", n ? n : "helper", r->index);
		break;
	}
	case INSN_REF_NONE:
		fputs("?", out);
		break;
	}
}

static void print_args(const struct ssa_insn *v, uint32_t from, uint32_t to, FILE *out)
{
	uint32_t i;

	for (i = from; i < to; i++)
		fprintf(out, "%sv%u", i > from ? ", " : "", v->args[i]);
}

static void print_insn(const struct ssa_prog *p, const struct ssa_block *b,
		       const struct ssa_insn *v, FILE *out)
{
	uint32_t i;
	int sec;

	fprintf(out, "  v%u = ", v->id);
	switch (v->kind) {
	case SSA_UNDEF:
		fputs("undef", out);
		break;
	case SSA_CONST:
		fprintf(out, "const %#" PRIx64, (uint64_t)v->imm);
		break;
	case SSA_INPUT:
		fprintf(out, "input r%" PRId64 "%s", v->imm, v->imm == 1 ? " (context)" : "");
		break;
	case SSA_FRAME:
		fprintf(out, "frame %" PRId64 " (r10)", v->imm);
		break;
	case SSA_ALU:
		if (v->op == ISA_MOV)
			fprintf(out, "mov%d v%u", v->is64 ? 64 : 32, v->args[1]);
		else
			fprintf(out, "%s%d v%u, v%u", isa_table[v->op].mnemonic,
				v->is64 ? 64 : 32, v->args[0], v->args[1]);
		break;
	case SSA_UNARY:
		if (v->op == ISA_NEG)
			fprintf(out, "neg%d v%u", v->is64 ? 64 : 32, v->args[0]);
		else if (v->op == ISA_MOVSX)
			fprintf(out, "movsx%d_%d v%u", v->size * 8, v->is64 ? 64 : 32, v->args[0]);
		else
			fprintf(out, "%s%d v%u", isa_table[v->op].mnemonic, v->size * 8, v->args[0]);
		break;
	case SSA_ADDR:
		fputs("addr ", out);
		print_ref(p, v->ref, out);
		break;
	case SSA_LOAD:
		fprintf(out, "load.%s [v%u %+" PRId64 "]", uname(v->size, v->sx), v->args[0], v->imm);
		break;
	case SSA_STORE:
		fprintf(out, "store.%s [v%u %+" PRId64 "], v%u", uname(v->size, false),
			v->args[0], v->imm, v->args[1]);
		break;
	case SSA_ATOMIC:
		fprintf(out, "atomic.%s%s.%s [v%u %+" PRId64 "], v%u", isa_atomic_table[v->op].mnemonic,
			v->fetch ? ".fetch" : "", uname(v->size, false), v->args[0], v->imm, v->args[1]);
		if (v->op == ISA_ATOMIC_CMPXCHG)
			fprintf(out, ", expect v%u", v->args[2]);
		break;
	case SSA_LDPKT:
		fprintf(out, "ldpkt.%s skb v%u [", uname(v->size, false), v->args[0]);
		if (v->args[1])
			fprintf(out, "v%u + ", v->args[1]);
		fprintf(out, "%" PRId64 "]", v->imm);
		break;
	case SSA_EXTRACT:
		fprintf(out, "extract.%s v%u @%" PRId64, uname(v->size, v->sx), v->args[0], v->imm);
		break;
	case SSA_INSERT:
		fprintf(out, "insert.%s v%u @%" PRId64 ", v%u", uname(v->size, false),
			v->args[0], v->imm, v->args[1]);
		break;
	case SSA_SLOTLOAD:
		fprintf(out, "slotload.%s [v%u %+" PRId64 "] in frame %u's stack", uname(v->size, v->sx),
			v->args[0], v->imm, v->tframe);
		break;
	case SSA_SLOTSTORE:
		fprintf(out, "slotstore.%s fp%u%d: v%u, [v%u %+" PRId64 "] = v%u", uname(v->size, false),
			v->tframe, (int)v->tslot * 8 - ISA_STACK_SIZE, v->args[0], v->args[1], v->imm,
			v->args[2]);
		break;
	case SSA_SELECT:
		fprintf(out, "select.%s v%u == v%u ? v%u : v%u", uname(v->size, false),
			v->args[0], v->args[1], v->args[2], v->args[3]);
		break;
	case SSA_CALL:
		fputs("call ", out);
		print_ref(p, v->ref, out);
		fputs("(", out);
		print_args(v, 0, 5, out);
		fputs(")", out);
		for (i = 0; i < v->nmem; i++)
			fprintf(out, " r%u->fp%u%+d[%u slots%s]", v->mem[i].argno, v->mem[i].frame,
				v->mem[i].off, v->mem[i].nslots, v->mem[i].written ? ", written" : "");
		break;
	case SSA_HAVOC:
		fprintf(out, "havoc (written by v%" PRId64 ")", v->imm);
		break;
	case SSA_TAILRET:
		fputs("tailret", out);
		break;
	case SSA_PKTW:
		fputs("pktwritten", out);
		break;
	case SSA_PHI:
		fputs("phi", out);
		for (i = 0; i < v->nargs; i++)
			fprintf(out, "%s [b%u: v%u]", i ? "," : "", b->preds[i], v->args[i]);
		if (v->var)
			fprintf(out, "    ; %s", v->var);
		break;
	case SSA_CMP:
		fprintf(out, "cmp %s v%u, v%u", isa_table[v->op].mnemonic, v->args[0], v->args[1]);
		break;
	case SSA_ASSUME:
		fprintf(out, "assume v%u", v->args[0]);
		break;
	case SSA_ASSERT:
		fprintf(out, "assert v%u (site %" PRId64 ")", v->args[0], v->imm);
		if (v->nargs > 1)
			fprintf(out, " observe v%u", v->args[1]);
		break;
	case SSA_NKINDS:
		break;
	}
	sec = ssa_value_sec(p, v);
	if (v->kind != SSA_PHI && v->kind != SSA_CONST && v->kind != SSA_INPUT &&
	    v->kind != SSA_FRAME && sec >= 0) {
		const struct obj_line *ln = object_line_at(&p->o->sections[sec], v->slot);

		fprintf(out, "    ; insn %u", v->slot);
		char path[512];

		if (ln && ln->line)
			fprintf(out, " %s:%u:%u", path_clean(ln->file, path, sizeof(path)),
				ln->line, ln->col);
	}
	fputc('\n', out);
}

static void print_guard(const struct ssa_prog *p, uint32_t pred, uint32_t to, FILE *out)
{
	const struct ssa_block *b = p->blocks[pred];

	if (b->term != SSA_TERM_BRANCH) {
		fprintf(out, "b%u", pred);
		return;
	}
	if (b->succ[0] == b->succ[1])
		fprintf(out, "b%u", pred);
	else
		fprintf(out, "b%u [%sv%u %s%s v%u%s]", pred, b->succ[0] == to ? "" : "!(",
			b->a, cond_text(b->cond_op), b->cond64 ? "" : "32", b->b,
			b->succ[0] == to ? "" : ")");
}

void ssa_print(const struct ssa_prog *p, FILE *out)
{
	const struct object *o = p->o;
	uint32_t i, j;
	int f;

	fprintf(out, "; program %s: %u blocks, %u values, %u frames, loop bound %u, %u unwinding markers\n",
		o ? o->funcs[p->func].name : "<code>", p->nblocks, p->nvalues, p->nframes,
		p->loop_bound, p->nunwind);
	for (i = 0; i < p->nframes; i++)
		if (p->frames[i].parent >= 0)
			fprintf(out, "; frame %u: %s%s, called from frame %d at insn %u\n", i,
				o ? o->funcs[p->frames[i].func].name : "func",
				p->frames[i].callback ? " (bpf_loop callback)" : "",
				p->frames[i].parent, p->frames[i].slot);
	if (p->unsupported)
		fprintf(out, "; unsupported: %s\n", p->unsupported);
	for (i = 0; i < p->nnotes; i++)
		fprintf(out, "; note: %s\n", p->notes[i]);
	for (i = 0; i < p->nblocks; i++) {
		const struct ssa_block *b = p->blocks[i];

		fprintf(out, "b%u:", i);
		if (b->npreds) {
			fputs(" <-", out);
			for (j = 0; j < b->npreds; j++) {
				fputs(j ? ", " : " ", out);
				print_guard(p, b->preds[j], i, out);
			}
		}
		f = ssa_block_func(p, b);
		fprintf(out, "    ; %s frame %u",
			o && f >= 0 && (uint32_t)f < o->nfuncs ? o->funcs[f].name : "code", b->frame);
		if (b->note)
			fprintf(out, ", %s", ssa_note_text(b->note));
		fputc('\n', out);
		for (j = 0; j < b->ninsns; j++)
			print_insn(p, b, b->insns[j], out);
		switch (b->term) {
		case SSA_TERM_JUMP:
			fprintf(out, "  goto b%u\n", b->succ[0]);
			break;
		case SSA_TERM_BRANCH:
			fprintf(out, "  if v%u %s%s v%u goto b%u else b%u\n", b->a,
				cond_text(b->cond_op), b->cond64 ? "" : "32", b->b, b->succ[0],
				b->succ[1]);
			break;
		case SSA_TERM_EXIT:
			fprintf(out, "  exit v%u\n", b->a);
			break;
		case SSA_TERM_UNWIND:
			fputs("  unwind    ; loop bound reached: must be unreachable\n", out);
			break;
		}
	}
}

/* The function running in frame FRAME of P, -1 for no such frame. */
static int frame_func(const struct ssa_prog *p, uint16_t frame)
{
	return frame < p->nframes ? p->frames[frame].func : -1;
}

int ssa_block_func(const struct ssa_prog *p, const struct ssa_block *b)
{
	return frame_func(p, b->frame);
}

/* The section of the function running in frame FRAME of P, -1 for none. */
static int frame_sec(const struct ssa_prog *p, uint16_t frame)
{
	int f = frame_func(p, frame);

	return p->o && f >= 0 && (uint32_t)f < p->o->nfuncs ? p->o->funcs[f].sec : -1;
}

int ssa_value_sec(const struct ssa_prog *p, const struct ssa_insn *v)
{
	return frame_sec(p, v->frame);
}

int ssa_block_sec(const struct ssa_prog *p, const struct ssa_block *b)
{
	return frame_sec(p, b->frame);
}

const char *ssa_note_text(unsigned note)
{
	static const char *const text[SSA_NOTE_N] = {
		[SSA_NOTE_BPF_LOOP] = "bpf_loop",
		[SSA_NOTE_LOOP_NEXT] = "bpf_loop: next iteration?",
		[SSA_NOTE_LOOP_STOP] = "bpf_loop: callback asked to stop?",
		[SSA_NOTE_LOOP_DONE] = "bpf_loop: done, r0 = iterations",
		[SSA_NOTE_TAIL_IF] = "bpf_tail_call: taken if r0 == 0",
		[SSA_NOTE_TAIL_TAKEN] =
			"bpf_tail_call taken: the program returns what the callee returns",
		[SSA_NOTE_UNWIND] = "loop bound reached",
	};

	return note < SSA_NOTE_N ? text[note] : NULL;
}

/* ---- verifier ---------------------------------------------------------- */

static uint32_t lca(const uint32_t *idom, uint32_t a, uint32_t b)
{
	while (a != b) {
		if (a > b)
			a = idom[a];
		else
			b = idom[b];
	}
	return a;
}

static bool dominates(const uint32_t *idom, uint32_t a, uint32_t b)
{
	while (b > a)
		b = idom[b];
	return a == b;
}

static const char *check_use(const struct ssa_prog *p, const uint32_t *idom,
			     uint32_t v, uint32_t at_block)
{
	if (v >= p->nvalues)
		return "operand out of range";
	if (v == 0 || p->values[v]->kind == SSA_CONST)
		return NULL;
	if (!dominates(idom, p->values[v]->block, at_block))
		return "operand not defined on every path to its use";
	return NULL;
}

static const char *verify_block(const struct ssa_prog *p, const uint32_t *idom,
				const struct ssa_block *b)
{
	const char *err;
	uint32_t j, k;
	bool phis = true;

	for (j = 0; j < b->ninsns; j++) {
		const struct ssa_insn *v = b->insns[j];

		if (v->kind == SSA_PHI) {
			if (!phis)
				return "phi after a non-phi instruction";
			if (v->nargs != b->npreds)
				return "phi with a wrong number of operands";
			for (k = 0; k < v->nargs; k++)
				if ((err = check_use(p, idom, v->args[k], b->preds[k])))
					return err;
			continue;
		}
		phis = false;
		if (p->values[v->id] != v)
			return "value table out of sync";
		if (v->kind == SSA_CONST && b->id != 0)
			return "constant outside the entry block";
		for (k = 0; k < v->nargs; k++)
			if ((err = check_use(p, idom, v->args[k], b->id)))
				return err;
	}
	switch (b->term) {
	case SSA_TERM_JUMP:
		return b->nsucc == 1 ? NULL : "jump without one successor";
	case SSA_TERM_BRANCH:
		if (b->nsucc != 2)
			return "branch without two successors";
		if ((err = check_use(p, idom, b->a, b->id)))
			return err;
		return check_use(p, idom, b->b, b->id);
	case SSA_TERM_EXIT:
		if (b->nsucc)
			return "exit with successors";
		return check_use(p, idom, b->a, b->id);
	case SSA_TERM_UNWIND:
		return b->nsucc ? "terminal block with successors" : NULL;
	}
	return "bad terminator";
}

const char *ssa_verify(const struct ssa_prog *p)
{
	uint32_t *idom, i, j;
	const char *err = NULL;

	if (p->unsupported)
		return NULL; /* nothing to check: the program is not lifted */
	if (!p->nblocks || p->blocks[0]->npreds)
		return "entry block missing or with predecessors";
	idom = calloc(p->nblocks, sizeof(uint32_t));
	if (!idom)
		abort();
	for (i = 0; i < p->nblocks && !err; i++) {
		const struct ssa_block *b = p->blocks[i];

		if (b->id != i)
			err = "block ids out of order";
		for (j = 0; j < b->npreds && !err; j++) {
			if (b->preds[j] >= i)
				err = "blocks not in topological order";
			else
				idom[i] = j ? lca(idom, idom[i], b->preds[j]) : b->preds[j];
		}
		if (!err && i && !b->npreds)
			err = "unreachable block";
		for (j = 0; j < b->nsucc && !err; j++)
			if (b->succ[j] <= i || b->succ[j] >= p->nblocks)
				err = "successor not later in topological order";
		if (!err)
			err = verify_block(p, idom, b);
	}
	free(idom);
	return err;
}

/* ---- bare code --------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A pc-relative reference to a function: a local call, or an LD imm64 of a
 * function's address (src = ISA_PSEUDO_FUNC, imm relative like a call). */
static bool is_local_ref(const struct insn *in)
{
	return (in->op == ISA_CALL && in->src == ISA_CALL_LOCAL) ||
	       (in->op == ISA_LDDW && in->src == ISA_PSEUDO_FUNC);
}

int ssa_build_code(const struct insn *code, uint32_t nslots,
		   const struct ssa_opts *opts, struct arena *a, struct diag *d,
		   struct ssa_prog **out)
{
	struct object *o = arena_alloc(a, sizeof(*o));
	struct insn *insns = arena_dup(a, code, sizeof(*code) * nslots);
	struct insn **secs = arena_new_array(a, struct insn *, 1);
	uint32_t *starts = arena_new_array(a, uint32_t, nslots + 1), n = 0, i, j;
	int err;

	o->path = "<code>";
	o->arena = a;
	o->nsections = 1;
	o->sections = arena_alloc(a, sizeof(*o->sections));
	o->sections[0].name = ".text";
	o->sections[0].nslots = nslots;
	starts[n++] = 0;
	for (i = 0; i < nslots; i++) {
		int64_t t = (int64_t)i + insns[i].imm + 1;

		if (!is_local_ref(&insns[i]))
			continue;
		if (t < 0 || t >= nslots)
			return diag_fail(d, o->path, "insn %u: call out of range", i);
		starts[n++] = (uint32_t)t;
	}
	qsort(starts, n, sizeof(*starts), cmp_u32);
	o->funcs = arena_new_array(a, struct obj_func, n);
	for (i = 0; i < n; i++) {
		if (o->nfuncs && o->funcs[o->nfuncs - 1].start == starts[i])
			continue;
		o->funcs[o->nfuncs].name = arena_printf(a, i ? "func@%u" : "main", starts[i]);
		o->funcs[o->nfuncs].start = starts[i];
		o->funcs[o->nfuncs].struct_ops = -1;
		o->nfuncs++;
	}
	for (i = 0; i < o->nfuncs; i++)
		o->funcs[i].nslots = (i + 1 < o->nfuncs ? o->funcs[i + 1].start : nslots) -
				     o->funcs[i].start;
	for (i = 0; i < nslots; i++) {
		if (is_local_ref(&insns[i])) {
			uint32_t t = i + (uint32_t)insns[i].imm + 1;

			for (j = 0; j < o->nfuncs && o->funcs[j].start != t; j++)
				;
			insns[i].ref.kind = insns[i].op == ISA_CALL ? INSN_REF_SUBPROG
								    : INSN_REF_CALLBACK;
			insns[i].ref.index = (int)j;
			insns[i].ref.target = t;
		} else if (insns[i].op == ISA_CALL && insns[i].src == ISA_CALL_HELPER) {
			insns[i].ref.kind = INSN_REF_HELPER;
			insns[i].ref.index = insns[i].imm;
		}
	}
	secs[0] = insns;
	err = ssa_build(o, 0, secs, opts, a, d, out);
	if (!err)
		(*out)->bare = true;
	return err;
}
