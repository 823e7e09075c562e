/* object_relocs.c - the object loader's relocations of code sections
 * (calls, function addresses, maps, globals, kfuncs and other externs),
 * and the kfuncs' and externs' tables (object.c calls collect_relocs after
 * the functions and maps, finish_externs after .BTF.ext). Every offset and
 * index is checked before it is used, as in object.c.
 */
#include "isa.h"
#include "object_priv.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R_BPF_64_64 1
#define R_BPF_64_32 10
#define CODE_LDDW (BPF_LD | BPF_IMM | BPF_DW)
#define CODE_CALL (BPF_JMP | BPF_CALL)

/* ---- relocations of code sections ------------------------------------ */

static int kfunc_index(struct loader *l, const char *name)
{
	struct obj_kfunc *k = l->kfuncs.data;
	size_t i;

	for (i = 0; i < l->kfuncs.len; i++)
		if (!strcmp(k[i].name, name))
			return (int)i;
	k = vec_push(l->a, &l->kfuncs, sizeof(*k));
	k->name = name;
	k->btf_id = (uint32_t)btf_find_func(l->o->btf, name);
	return (int)i;
}

static int extern_index(struct loader *l, const char *name)
{
	struct obj_extern *e = l->externs.data;
	size_t i;

	for (i = 0; i < l->externs.len; i++)
		if (!strcmp(e[i].name, name))
			return (int)i;
	e = vec_push(l->a, &l->externs, sizeof(*e));
	e->name = name;
	e->is_func = btf_find_func(l->o->btf, name) > 0;
	return (int)i;
}

/* What one relocation is being resolved, for messages. */
struct rsite {
	/* for site_where: "section 'xdp': relocation 3 at offset 0x58" */
	const char *sec;
	size_t idx;
	unsigned long long off;
	const struct lsym *sym;
	const struct bpf_insn *insn;
	bool lddw;
};

/* RS's place for a message, made for an error only (an snprintf a
 * relocation was a twentieth of loading a small object) */
static const char *site_where(struct loader *l, const struct rsite *rs)
{
	return arena_printf(l->a, "section '%s': relocation %zu at offset 0x%llx", rs->sec,
			    rs->idx, rs->off);
}

/* A function address or call into code section TS. */
static int reloc_code(struct loader *l, const struct rsite *rs, const struct lsec *ts,
		      struct obj_reloc *r)
{
	int64_t st_value = (int64_t)rs->sym->s.st_value, slot;
	int f;

	if (rs->lddw) {
		int64_t addr = (int64_t)((uint64_t)st_value + (uint64_t)(int64_t)rs->insn->imm);

		if (addr < 0 || addr % 8 || (uint64_t)addr >= ts->size)
			return loader_fail(l, "%s: address 0x%llx is outside section '%s'",
					   site_where(l, rs), (long long)addr, ts->name);
		slot = addr / 8;
		r->kind = OBJ_RELO_FUNC_ADDR;
	} else {
		if (st_value % 8)
			return loader_fail(l, "%s: call target '%s' is not at an instruction boundary",
					   site_where(l, rs), rs->sym->name);
		slot = st_value / 8 + rs->insn->imm + 1;
		if (slot < 0 || (uint64_t)slot >= ts->size / 8)
			return loader_fail(l, "%s: call target slot %lld is outside section '%s'",
					   site_where(l, rs), (long long)slot, ts->name);
		r->kind = OBJ_RELO_CALL;
	}
	f = loader_func_starting(l, ts->idx, (uint32_t)slot);
	if (f < 0)
		return loader_fail(l, "%s: no function starts at slot %lld of section '%s'",
				   site_where(l, rs), (long long)slot, ts->name);
	r->target = f;
	return 0;
}

static int reloc_target(struct loader *l, const struct rsite *rs, struct obj_reloc *r)
{
	unsigned shn = rs->sym->s.st_shndx;
	/* wrapping: st_value is any 64-bit number in a damaged object
	 * (fuzz_object: INT64_MIN + -1 overflowed) */
	int64_t addr = (int64_t)(rs->sym->s.st_value + (uint64_t)(int64_t)rs->insn->imm);
	const struct lsec *ts;

	if (shn == SHN_UNDEF) {
		r->kind = rs->lddw ? OBJ_RELO_KSYM : OBJ_RELO_KFUNC;
		r->target = rs->lddw ? extern_index(l, rs->sym->name) : kfunc_index(l, rs->sym->name);
		return 0;
	}
	if (shn >= SHN_LORESERVE)
		return loader_fail(l, "%s: symbol '%s' has no section (index 0x%x)",
				   site_where(l, rs), rs->sym->name, shn);
	ts = &l->secs[shn];
	switch (ts->kind) {
	case LSEC_CODE:
		return reloc_code(l, rs, ts, r);
	case LSEC_MAPS:
	case LSEC_LEGACY_MAPS:
		if (!rs->lddw)
			return loader_fail(l, "%s: call to map '%s'", site_where(l, rs), rs->sym->name);
		r->kind = OBJ_RELO_MAP;
		r->target = addr < 0 ? -1 : maps_find(l, shn, (uint64_t)addr);
		if (r->target < 0)
			return loader_fail(l, "%s: no map at offset 0x%llx of section '%s'",
					   site_where(l, rs), (long long)addr, ts->name);
		return 0;
	case LSEC_DATA:
		if (!rs->lddw)
			return loader_fail(l, "%s: call to data symbol '%s'", site_where(l, rs),
					   rs->sym->name);
		if (addr < 0 || (uint64_t)addr > ts->sh.sh_size)
			return loader_fail(l, "%s: offset %lld is outside section '%s'",
					   site_where(l, rs), (long long)addr, ts->name);
		r->kind = OBJ_RELO_GLOBAL;
		r->target = ts->idx;
		r->off = addr;
		return 0;
	case LSEC_OTHER:
	case LSEC_STRUCT_OPS:
	case LSEC_LICENSE:
	case LSEC_BTF:
	case LSEC_BTF_EXT:
	case LSEC_SYMTAB:
	case LSEC_REL:
		break;
	}
	return loader_fail(l, "%s: symbol '%s' is in section '%s', which holds no code, maps or data",
			   site_where(l, rs), rs->sym->name, ts->name);
}

/* Relocation I of REL section RS, applying to code section CS. */
static int code_reloc(struct loader *l, const struct lsec *rs, size_t i,
		      const struct lsec *cs, struct vec *out)
{
	const struct obj_section *s = &l->o->sections[cs->idx];
	struct rsite site;
	struct obj_reloc *r;
	GElf_Rel rel;
	uint64_t off;
	unsigned type;
	size_t symi;

	if (!loader_rel(rs, i, &rel))
		return loader_fail(l, "section '%s': cannot read relocation %zu: %s",
				   rs->name, i, elf_errmsg(-1));
	off = rel.r_offset;
	type = (unsigned)GELF_R_TYPE(rel.r_info);
	symi = GELF_R_SYM(rel.r_info);
	site.sec = cs->name;
	site.idx = i;
	site.off = (unsigned long long)off;
	if (off >= cs->size || cs->size - off < sizeof(struct bpf_insn))
		return loader_fail(l, "%s is outside the section", site_where(l, &site));
	if (off % sizeof(struct bpf_insn))
		return loader_fail(l, "%s is not at an instruction boundary", site_where(l, &site));
	if (symi == 0 || symi >= l->nsyms)
		return loader_fail(l, "%s: symbol index %zu is out of range (%zu symbols)",
				   site_where(l, &site), symi, l->nsyms);
	site.sym = &l->syms[symi];
	site.insn = &s->raw[off / 8];
	site.lddw = type == R_BPF_64_64;
	if (type == R_BPF_64_64 && site.insn->code != CODE_LDDW)
		return loader_fail(l, "%s: R_BPF_64_64 on an instruction that is not LD imm64 (code 0x%02x)",
				   site_where(l, &site), site.insn->code);
	if (type == R_BPF_64_64 && cs->size - off < 2 * sizeof(struct bpf_insn))
		return loader_fail(l, "%s: LD imm64 is cut off by the end of the section",
				   site_where(l, &site));
	if (type == R_BPF_64_32 && site.insn->code != CODE_CALL)
		return loader_fail(l, "%s: R_BPF_64_32 on an instruction that is not a call (code 0x%02x)",
				   site_where(l, &site), site.insn->code);
	if (type != R_BPF_64_64 && type != R_BPF_64_32)
		return loader_fail(l, "%s: unsupported relocation type %u", site_where(l, &site), type);
	r = vec_push(l->a, out, sizeof(*r));
	r->slot = (uint32_t)(off / 8);
	r->sym = site.sym->name;
	r->elf_type = type;
	return reloc_target(l, &site, r);
}

static int reloc_cmp(const void *pa, const void *pb)
{
	const struct obj_reloc *a = pa, *b = pb;

	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

static int rel_section(struct loader *l, size_t ri, struct vec *per_sec)
{
	const struct lsec *rs = &l->secs[ri];
	size_t tgt = rs->sh.sh_info, i, n = rs->size / sizeof(Elf64_Rel);
	const struct lsec *cs;
	int err = 0;

	if (tgt == 0 || tgt >= l->nsecs)
		return loader_fail(l, "relocation section '%s' applies to section %zu, which does not exist",
				   rs->name, tgt);
	cs = &l->secs[tgt];
	if (cs->kind != LSEC_CODE)
		return 0;   /* .BTF, .BTF.ext, .debug_*, .maps: not needed */
	if (!l->symtab || rs->sh.sh_link != l->symtab)
		return loader_fail(l, "relocation section '%s' does not use the symbol table",
				   rs->name);
	for (i = 0; i < n && !err; i++)
		err = code_reloc(l, rs, i, cs, &per_sec[cs->idx]);
	return err;
}

static int finish_relocs(struct loader *l, struct obj_section *s, struct vec *v)
{
	struct obj_reloc *r = v->data;
	size_t i;

	loader_sort(r, v->len, sizeof(*r), reloc_cmp);
	for (i = 1; i < v->len; i++)
		if (r[i].slot == r[i - 1].slot)
			return loader_fail(l, "section '%s': two relocations at offset 0x%llx",
					   s->name, (unsigned long long)r[i].slot * 8);
	s->relocs = r;
	s->nrelocs = (uint32_t)v->len;
	return 0;
}

int collect_relocs(struct loader *l)
{
	struct object *o = l->o;
	struct vec *per_sec = arena_new_array(l->a, struct vec, o->nsections + 1);
	size_t i;
	int err = 0;

	for (i = 1; i < l->nsecs && !err; i++) {
		const struct lsec *s = &l->secs[i];

		if (s->kind == LSEC_REL)
			err = rel_section(l, i, per_sec);
		else if (s->sh.sh_type == SHT_RELA && s->sh.sh_info < l->nsecs &&
			 l->secs[s->sh.sh_info].kind == LSEC_CODE)
			err = loader_fail(l, "relocation section '%s': RELA relocations are not supported",
					  s->name);
	}
	for (i = 0; i < o->nsections && !err; i++)
		err = finish_relocs(l, &o->sections[i], &per_sec[i]);
	return err;
}

/* ---- kfuncs, externs, license ----------------------------------------- */

void finish_externs(struct loader *l)
{
	struct object *o = l->o;
	uint32_t i;

	o->kfuncs = l->kfuncs.data;
	o->nkfuncs = (uint32_t)l->kfuncs.len;
	o->externs = l->externs.data;
	o->nexterns = (uint32_t)l->externs.len;
	for (i = 0; i < o->nkfuncs; i++)
		if (o->kfuncs[i].btf_id)
			o->kfuncs[i].proto = btf_format_proto(l, o->kfuncs[i].btf_id);
}

