/* object.c - stage 1: read a BPF ELF object (contract: object.h).
 *
 * Reads the ELF with libelf, never with bpf_object__open(). Order of work in
 * object_open_mem(): header, section headers, symbols, BTF, code sections,
 * functions, data sections and maps (object_maps.c), code relocations,
 * struct_ops roles, .BTF.ext (btf_ext.c), kfunc prototypes, license. Every
 * offset taken from the file is checked before it is used; the first bad one
 * is reported once through the diag sink and the open fails with -EINVAL.
 */
#include "isa.h"
#include "object_priv.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the object loader reads little-endian BPF objects in place"
#endif

#ifndef EM_BPF
#define EM_BPF 247
#endif

#define R_BPF_64_64 1
#define R_BPF_64_32 10
#define CODE_LDDW (BPF_LD | BPF_IMM | BPF_DW)
#define CODE_CALL (BPF_JMP | BPF_CALL)

/* ---- diagnostics ------------------------------------------------------ */

int loader_fail(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(l->d, DIAG_ERROR, l->path, 0, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void loader_warn(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(l->d, DIAG_WARNING, l->path, 0, 0, fmt, ap);
	va_end(ap);
}

/* ---- ELF header and sections ----------------------------------------- */

static int check_ehdr(struct loader *l, const uint8_t *p, size_t size)
{
	Elf64_Ehdr eh;

	if (size == 0)
		return loader_fail(l, "empty file");
	if (size < SELFMAG || memcmp(p, ELFMAG, SELFMAG) != 0)
		return loader_fail(l, "not an ELF file");
	if (size < sizeof(eh))
		return loader_fail(l, "truncated ELF header (%zu of %zu bytes)",
				   size, sizeof(eh));
	memcpy(&eh, p, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return loader_fail(l, "ELF class %u is not supported (BPF objects are ELF64)",
				   eh.e_ident[EI_CLASS]);
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		return loader_fail(l, "big-endian BPF objects are not supported");
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return loader_fail(l, "unknown ELF data encoding %u", eh.e_ident[EI_DATA]);
	if (eh.e_type != ET_REL)
		return loader_fail(l, "ELF type %u is not a relocatable object (ET_REL)",
				   eh.e_type);
	if (eh.e_machine != EM_BPF && eh.e_machine != EM_NONE)
		return loader_fail(l, "e_machine %u is not BPF (%u)", eh.e_machine, EM_BPF);
	if (eh.e_shoff == 0)
		return loader_fail(l, "no section header table");
	if (eh.e_shentsize != sizeof(Elf64_Shdr))
		return loader_fail(l, "section header entry size %u, expected %zu",
				   eh.e_shentsize, sizeof(Elf64_Shdr));
	if (eh.e_shoff > size || (size - eh.e_shoff) / sizeof(Elf64_Shdr) <
				 (eh.e_shnum ? eh.e_shnum : 1))
		return loader_fail(l, "section header table (%u entries at offset 0x%llx) is outside the file (%zu bytes)",
				   eh.e_shnum, (unsigned long long)eh.e_shoff, size);
	return 0;
}

static int open_elf(struct loader *l, const void *data, size_t size)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return loader_fail(l, "libelf: %s", elf_errmsg(-1));
	/* elf_memory() wants a writable image but only reads a native one. */
	l->elf = elf_memory((char *)data, size);
	if (!l->elf || elf_kind(l->elf) != ELF_K_ELF)
		return loader_fail(l, "cannot read ELF: %s", elf_errmsg(-1));
	return 0;
}

static bool has_pfx(const char *s, const char *pfx)
{
	return strncmp(s, pfx, strlen(pfx)) == 0;
}

/* NAME or NAME.<anything> */
static bool is_sec_family(const char *s, const char *base)
{
	size_t n = strlen(base);

	return strncmp(s, base, n) == 0 && (s[n] == 0 || s[n] == '.');
}

static enum lsec_kind sec_kind(const struct lsec *s)
{
	const GElf_Shdr *sh = &s->sh;
	bool data_type = sh->sh_type == SHT_PROGBITS || sh->sh_type == SHT_NOBITS;

	if (sh->sh_type == SHT_SYMTAB)
		return LSEC_SYMTAB;
	if (sh->sh_type == SHT_REL)
		return LSEC_REL;
	if (!data_type)
		return LSEC_OTHER;
	if (sh->sh_flags & SHF_EXECINSTR)
		return sh->sh_type == SHT_PROGBITS ? LSEC_CODE : LSEC_OTHER;
	if (!strcmp(s->name, ".maps"))
		return LSEC_MAPS;
	if (!strcmp(s->name, "maps") || has_pfx(s->name, "maps/"))
		return LSEC_LEGACY_MAPS;
	if (!strcmp(s->name, ".struct_ops") || !strcmp(s->name, ".struct_ops.link"))
		return LSEC_STRUCT_OPS;
	if (!strcmp(s->name, "license"))
		return LSEC_LICENSE;
	if (!strcmp(s->name, ".BTF"))
		return LSEC_BTF;
	if (!strcmp(s->name, ".BTF.ext"))
		return LSEC_BTF_EXT;
	if (sh->sh_size && (is_sec_family(s->name, ".rodata") ||
			    is_sec_family(s->name, ".data") ||
			    is_sec_family(s->name, ".bss")))
		return LSEC_DATA;
	return LSEC_OTHER;
}

/* Header, bounds and name of section I. */
static int read_shdr(struct loader *l, size_t i, size_t fsize)
{
	struct lsec *s = &l->secs[i];
	Elf_Scn *scn = elf_getscn(l->elf, i);

	if (!scn || !gelf_getshdr(scn, &s->sh))
		return loader_fail(l, "section %zu: cannot read its header: %s", i,
				   elf_errmsg(-1));
	if (s->sh.sh_type != SHT_NOBITS && s->sh.sh_type != SHT_NULL &&
	    (s->sh.sh_offset > fsize || s->sh.sh_size > fsize - s->sh.sh_offset))
		return loader_fail(l, "section %zu: contents (offset 0x%llx, size 0x%llx) are outside the file (%zu bytes)",
				   i, (unsigned long long)s->sh.sh_offset,
				   (unsigned long long)s->sh.sh_size, fsize);
	return 0;
}

static int name_sections(struct loader *l, size_t shstrndx)
{
	size_t i;

	if (shstrndx == 0 || shstrndx >= l->nsecs ||
	    l->secs[shstrndx].sh.sh_type != SHT_STRTAB)
		return loader_fail(l, "section name table (section %zu) is not a string table",
				   shstrndx);
	for (i = 1; i < l->nsecs; i++) {
		const char *n = elf_strptr(l->elf, shstrndx, l->secs[i].sh.sh_name);

		if (!n)
			return loader_fail(l, "section %zu: bad name offset 0x%x", i,
					   l->secs[i].sh.sh_name);
		l->secs[i].name = arena_strdup(l->a, n);
	}
	l->secs[0].name = "";
	return 0;
}

static int check_sec(struct loader *l, size_t i)
{
	struct lsec *s = &l->secs[i];
	unsigned long long size = s->sh.sh_size;

	switch (s->kind) {
	case LSEC_CODE:
		if (size % sizeof(struct bpf_insn))
			return loader_fail(l, "section '%s': size 0x%llx is not a multiple of the instruction size (8)",
					   s->name, size);
		break;
	case LSEC_SYMTAB:
		if (l->symtab)
			return loader_fail(l, "more than one symbol table");
		if (size % sizeof(Elf64_Sym))
			return loader_fail(l, "symbol table: size 0x%llx is not a multiple of %zu",
					   size, sizeof(Elf64_Sym));
		if (s->sh.sh_entsize != sizeof(Elf64_Sym))
			return loader_fail(l, "symbol table: entry size %llu, expected %zu",
					   (unsigned long long)s->sh.sh_entsize, sizeof(Elf64_Sym));
		l->symtab = i;
		break;
	case LSEC_REL:
		if (size % sizeof(Elf64_Rel))
			return loader_fail(l, "relocation section '%s': size 0x%llx is not a multiple of %zu",
					   s->name, size, sizeof(Elf64_Rel));
		if (s->sh.sh_entsize != sizeof(Elf64_Rel))
			return loader_fail(l, "relocation section '%s': entry size %llu, expected %zu",
					   s->name, (unsigned long long)s->sh.sh_entsize,
					   sizeof(Elf64_Rel));
		break;
	case LSEC_BTF:
	case LSEC_BTF_EXT:
		if (s->kind == LSEC_BTF ? l->btf_sec : l->btf_ext_sec)
			return loader_fail(l, "more than one '%s' section", s->name);
		*(s->kind == LSEC_BTF ? &l->btf_sec : &l->btf_ext_sec) = i;
		break;
	case LSEC_DATA:
		/* its initial bytes are materialised (a .bss too) and copied
		 * per check and replay: a fuzzed 2 GiB .bss took seconds */
		if (size > OBJ_MAX_DATASEC)
			return loader_fail(l, "section '%s': size 0x%llx is too large (at most %u MiB)",
					   s->name, size, OBJ_MAX_DATASEC >> 20);
		break;
	case LSEC_OTHER:
	case LSEC_MAPS:
	case LSEC_LEGACY_MAPS:
	case LSEC_STRUCT_OPS:
	case LSEC_LICENSE:
		break;
	}
	return 0;
}

static int sec_data(struct loader *l, size_t i)
{
	struct lsec *s = &l->secs[i];

	if (s->kind == LSEC_OTHER || s->sh.sh_type == SHT_NOBITS || !s->sh.sh_size)
		return 0;
	s->ed = elf_getdata(elf_getscn(l->elf, i), NULL);
	if (!s->ed || s->ed->d_size != s->sh.sh_size || !s->ed->d_buf)
		return loader_fail(l, "section '%s': cannot read contents: %s", s->name,
				   elf_errmsg(-1));
	s->data = s->ed->d_buf;
	s->size = s->ed->d_size;
	return 0;
}

static int read_sections(struct loader *l, size_t fsize)
{
	size_t n, shstrndx, i;
	GElf_Ehdr eh;
	int err = 0;

	if (!gelf_getehdr(l->elf, &eh) || elf_getshdrnum(l->elf, &n) ||
	    elf_getshdrstrndx(l->elf, &shstrndx))
		return loader_fail(l, "cannot read section headers: %s", elf_errmsg(-1));
	/* the count may come from section 0 (extended numbering) */
	if (n > (fsize - eh.e_shoff) / sizeof(Elf64_Shdr))
		return loader_fail(l, "section header table (%zu entries at offset 0x%llx) is outside the file (%zu bytes)",
				   n, (unsigned long long)eh.e_shoff, fsize);
	l->nsecs = n;
	l->secs = arena_new_array(l->a, struct lsec, n ? n : 1);
	for (i = 1; i < n && !err; i++)
		err = read_shdr(l, i, fsize);
	err = err ?: name_sections(l, shstrndx);
	for (i = 1; i < n && !err; i++) {
		l->secs[i].idx = -1;
		l->secs[i].kind = sec_kind(&l->secs[i]);
		err = check_sec(l, i) ?: sec_data(l, i);
	}
	return err;
}

/* ---- symbols ---------------------------------------------------------- */

static int read_sym(struct loader *l, const struct lsec *st, size_t strtab, size_t i)
{
	struct lsym *y = &l->syms[i];
	const char *name;

	if (!gelf_getsym(st->ed, (int)i, &y->s))
		return loader_fail(l, "symbol %zu: cannot read it: %s", i, elf_errmsg(-1));
	name = elf_strptr(l->elf, strtab, y->s.st_name);
	if (!name)
		return loader_fail(l, "symbol %zu: bad name offset 0x%x", i, y->s.st_name);
	y->name = GELF_ST_TYPE(y->s.st_info) == STT_SECTION ? "" : arena_strdup(l->a, name);
	if (y->s.st_shndx == SHN_XINDEX)
		return loader_fail(l, "symbol '%s': extended section indices are not supported",
				   name);
	if (y->s.st_shndx != SHN_UNDEF && y->s.st_shndx < SHN_LORESERVE &&
	    y->s.st_shndx >= l->nsecs)
		return loader_fail(l, "symbol '%s': section index %u is out of range (%zu sections)",
				   name, y->s.st_shndx, l->nsecs);
	return 0;
}

static int read_symbols(struct loader *l)
{
	const struct lsec *st;
	size_t strtab, i;
	int err = 0;

	if (!l->symtab)
		return 0;
	st = &l->secs[l->symtab];
	strtab = st->sh.sh_link;
	if (strtab == 0 || strtab >= l->nsecs || l->secs[strtab].sh.sh_type != SHT_STRTAB)
		return loader_fail(l, "symbol table: linked section %zu is not a string table",
				   strtab);
	l->nsyms = st->size / sizeof(Elf64_Sym);
	l->syms = arena_new_array(l->a, struct lsym, l->nsyms ? l->nsyms : 1);
	for (i = 0; i < l->nsyms && !err; i++)
		err = read_sym(l, st, strtab, i);
	return err;
}

/* A symbol that names a variable or map (not a section, file or label). */
bool loader_sym_is_object(const struct lsym *s)
{
	return GELF_ST_TYPE(s->s.st_info) == STT_OBJECT;
}

/* ---- code sections and functions -------------------------------------- */

static void collect_code(struct loader *l)
{
	struct object *o = l->o;
	size_t i;

	for (i = 1; i < l->nsecs; i++)
		if (l->secs[i].kind == LSEC_CODE)
			o->nsections++;
	o->sections = arena_new_array(l->a, struct obj_section, o->nsections ? o->nsections : 1);
	o->nsections = 0;
	for (i = 1; i < l->nsecs; i++) {
		struct lsec *ls = &l->secs[i];
		struct obj_section *s;

		if (ls->kind != LSEC_CODE)
			continue;
		ls->idx = (int)o->nsections;
		s = &o->sections[o->nsections++];
		s->name = ls->name;
		s->elf_index = (unsigned)i;
		s->raw = arena_dup(l->a, ls->data, ls->size);
		s->nslots = (uint32_t)(ls->size / sizeof(struct bpf_insn));
	}
}

static int func_cmp(const void *pa, const void *pb)
{
	const struct obj_func *a = pa, *b = pb;

	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->nslots != b->nslots)
		return a->nslots < b->nslots ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* "fentry.s/x", "lsm.s/y", "struct_ops.s/z", "syscall" */
static bool sec_sleepable(const char *sec)
{
	size_t n = strcspn(sec, "/");

	return (n >= 2 && sec[n - 2] == '.' && sec[n - 1] == 's') ||
	       (n == 7 && !strncmp(sec, "syscall", 7));
}

static void set_prog_type(struct obj_func *f, const char *sec)
{
	enum bpf_prog_type t;
	enum bpf_attach_type at;
	char plain[256];
	size_t n = strcspn(sec, "/");

	f->sleepable = sec_sleepable(sec);
	if (!libbpf_prog_type_by_name(sec, &t, &at))
		goto found;
	/* libbpf 1.1 does not know every sleepable prefix (struct_ops.s/):
	 * ask again for the plain one. */
	if (!f->sleepable || strlen(sec) >= sizeof(plain) || !strncmp(sec, "syscall", 7))
		return;
	snprintf(plain, sizeof(plain), "%.*s%s", (int)(n - 2), sec, sec + n);
	if (libbpf_prog_type_by_name(plain, &t, &at))
		return;
found:
	f->prog_type = t;
	f->attach_type = at;
}

static int add_func(struct loader *l, struct vec *v, const struct lsym *y)
{
	const struct lsec *ls = &l->secs[y->s.st_shndx];
	unsigned long long off = y->s.st_value, size = y->s.st_size;
	struct obj_func *f;

	if (off % 8 || size % 8)
		return loader_fail(l, "function '%s': offset 0x%llx or size 0x%llx in section '%s' is not a multiple of 8",
				   y->name, off, size, ls->name);
	if (off > ls->size || size > ls->size - off)
		return loader_fail(l, "function '%s': range 0x%llx+0x%llx is outside section '%s' (0x%zx bytes)",
				   y->name, off, size, ls->name, ls->size);
	f = vec_push(l->a, v, sizeof(*f));
	f->name = y->name;
	f->sec = ls->idx;
	f->start = (uint32_t)(off / 8);
	f->nslots = (uint32_t)(size / 8);
	f->global = GELF_ST_BIND(y->s.st_info) != STB_LOCAL;
	f->is_prog = strcmp(ls->name, ".text") != 0;
	f->struct_ops = -1;
	if (f->is_prog)
		set_prog_type(f, ls->name);
	return 0;
}

/* Functions whose symbol has st_size 0 (nslots 0) reach up to the next
 * function or the section end; the others must not overlap. */
static int fix_func_sizes(struct loader *l, struct obj_func *fs, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct obj_func *f = &fs[i];
		uint32_t end = l->o->sections[f->sec].nslots;

		if (i + 1 < n && fs[i + 1].sec == f->sec)
			end = fs[i + 1].start;
		if (!f->nslots) {
			f->nslots = end - f->start;
			if (!f->nslots)    /* another function starts there, or the section ends */
				return loader_fail(l, "function '%s' at insn %u of section '%s' has size 0 and no instructions before %s",
						   f->name, f->start, l->o->sections[f->sec].name,
						   i + 1 < n && fs[i + 1].sec == f->sec ? "the next function" : "the section's end");
		} else if (f->start + f->nslots > end)
			return loader_fail(l, "functions '%s' and '%s' overlap in section '%s'",
					   f->name, fs[i + 1].name, l->o->sections[f->sec].name);
	}
	return 0;
}

static int collect_funcs(struct loader *l)
{
	struct vec v = { 0 };
	size_t i;
	int err = 0;

	for (i = 1; i < l->nsyms && !err; i++) {
		const struct lsym *y = &l->syms[i];

		if (GELF_ST_TYPE(y->s.st_info) != STT_FUNC || y->s.st_shndx == SHN_UNDEF ||
		    y->s.st_shndx >= SHN_LORESERVE || l->secs[y->s.st_shndx].kind != LSEC_CODE)
			continue;
		err = add_func(l, &v, y);
	}
	if (err)
		return err;
	loader_sort(v.data, v.len, sizeof(struct obj_func), func_cmp);
	l->o->funcs = v.data;
	l->o->nfuncs = (uint32_t)v.len;
	return fix_func_sizes(l, l->o->funcs, l->o->nfuncs);
}

/* First function with (sec, start) >= (SEC, SLOT). */
static uint32_t func_lower_bound(const struct object *o, int sec, uint32_t slot)
{
	uint32_t lo = 0, hi = o->nfuncs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct obj_func *f = &o->funcs[mid];

		if (f->sec < sec || (f->sec == sec && f->start < slot))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int loader_func_starting(const struct loader *l, int sec, uint32_t slot)
{
	const struct object *o = l->o;
	uint32_t i = func_lower_bound(o, sec, slot);

	if (i < o->nfuncs && o->funcs[i].sec == sec && o->funcs[i].start == slot)
		return (int)i;
	return -1;
}

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
	char where[160];            /* "section 'xdp': relocation 3 at offset 0x58" */
	const struct lsym *sym;
	const struct bpf_insn *insn;
	bool lddw;
};

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
					   rs->where, (long long)addr, ts->name);
		slot = addr / 8;
		r->kind = OBJ_RELO_FUNC_ADDR;
	} else {
		if (st_value % 8)
			return loader_fail(l, "%s: call target '%s' is not at an instruction boundary",
					   rs->where, rs->sym->name);
		slot = st_value / 8 + rs->insn->imm + 1;
		if (slot < 0 || (uint64_t)slot >= ts->size / 8)
			return loader_fail(l, "%s: call target slot %lld is outside section '%s'",
					   rs->where, (long long)slot, ts->name);
		r->kind = OBJ_RELO_CALL;
	}
	f = loader_func_starting(l, ts->idx, (uint32_t)slot);
	if (f < 0)
		return loader_fail(l, "%s: no function starts at slot %lld of section '%s'",
				   rs->where, (long long)slot, ts->name);
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
				   rs->where, rs->sym->name, shn);
	ts = &l->secs[shn];
	switch (ts->kind) {
	case LSEC_CODE:
		return reloc_code(l, rs, ts, r);
	case LSEC_MAPS:
	case LSEC_LEGACY_MAPS:
		if (!rs->lddw)
			return loader_fail(l, "%s: call to map '%s'", rs->where, rs->sym->name);
		r->kind = OBJ_RELO_MAP;
		r->target = addr < 0 ? -1 : maps_find(l, shn, (uint64_t)addr);
		if (r->target < 0)
			return loader_fail(l, "%s: no map at offset 0x%llx of section '%s'",
					   rs->where, (long long)addr, ts->name);
		return 0;
	case LSEC_DATA:
		if (!rs->lddw)
			return loader_fail(l, "%s: call to data symbol '%s'", rs->where,
					   rs->sym->name);
		if (addr < 0 || (uint64_t)addr > ts->sh.sh_size)
			return loader_fail(l, "%s: offset %lld is outside section '%s'",
					   rs->where, (long long)addr, ts->name);
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
			   rs->where, rs->sym->name, ts->name);
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

	if (!gelf_getrel(rs->ed, (int)i, &rel))
		return loader_fail(l, "section '%s': cannot read relocation %zu: %s",
				   rs->name, i, elf_errmsg(-1));
	off = rel.r_offset;
	type = (unsigned)GELF_R_TYPE(rel.r_info);
	symi = GELF_R_SYM(rel.r_info);
	snprintf(site.where, sizeof(site.where), "section '%s': relocation %zu at offset 0x%llx",
		 cs->name, i, (unsigned long long)off);
	if (off >= cs->size || cs->size - off < sizeof(struct bpf_insn))
		return loader_fail(l, "%s is outside the section", site.where);
	if (off % sizeof(struct bpf_insn))
		return loader_fail(l, "%s is not at an instruction boundary", site.where);
	if (symi == 0 || symi >= l->nsyms)
		return loader_fail(l, "%s: symbol index %zu is out of range (%zu symbols)",
				   site.where, symi, l->nsyms);
	site.sym = &l->syms[symi];
	site.insn = &s->raw[off / 8];
	site.lddw = type == R_BPF_64_64;
	if (type == R_BPF_64_64 && site.insn->code != CODE_LDDW)
		return loader_fail(l, "%s: R_BPF_64_64 on an instruction that is not LD imm64 (code 0x%02x)",
				   site.where, site.insn->code);
	if (type == R_BPF_64_64 && cs->size - off < 2 * sizeof(struct bpf_insn))
		return loader_fail(l, "%s: LD imm64 is cut off by the end of the section",
				   site.where);
	if (type == R_BPF_64_32 && site.insn->code != CODE_CALL)
		return loader_fail(l, "%s: R_BPF_64_32 on an instruction that is not a call (code 0x%02x)",
				   site.where, site.insn->code);
	if (type != R_BPF_64_64 && type != R_BPF_64_32)
		return loader_fail(l, "%s: unsupported relocation type %u", site.where, type);
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

static int collect_relocs(struct loader *l)
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

static void finish_externs(struct loader *l)
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

static void read_license(struct loader *l)
{
	size_t i;

	for (i = 1; i < l->nsecs; i++) {
		const struct lsec *s = &l->secs[i];

		if (s->kind != LSEC_LICENSE)
			continue;
		l->o->license = s->data ? arena_strndup(l->a, (const char *)s->data,
							strnlen((const char *)s->data, s->size))
					: "";
		return;
	}
}

/* ---- API -------------------------------------------------------------- */

int object_open_mem(const void *data, size_t size, const char *name,
		    struct arena *a, struct diag *d, struct object **out)
{
	struct object *o = arena_alloc(a, sizeof(*o));
	struct loader l = { .o = o, .a = a, .d = d };
	int err;

	*out = NULL;
	o->path = arena_strdup(a, name ? name : "<memory>");
	o->arena = a;
	l.path = o->path;
	err = check_ehdr(&l, data, size);
	err = err ?: open_elf(&l, data, size);
	err = err ?: read_sections(&l, size);
	err = err ?: read_symbols(&l);
	err = err ?: btf_load(&l);
	if (!err)
		collect_code(&l);
	err = err ?: collect_funcs(&l);
	err = err ?: maps_collect_datasecs(&l);
	err = err ?: maps_collect(&l);
	err = err ?: collect_relocs(&l);
	err = err ?: maps_struct_ops_roles(&l);
	err = err ?: btf_ext_load(&l);
	if (!err) {
		finish_externs(&l);
		read_license(&l);
	}
	if (l.elf)
		elf_end(l.elf);
	if (err) {
		btf__free(o->btf);
		o->btf = NULL;
		return err;
	}
	*out = o;
	return 0;
}

static int read_file(const char *path, struct arena *a, struct diag *d,
		     uint8_t **buf, size_t *size)
{
	struct stat st;
	size_t got = 0;
	int fd, err = 0;

	/* non-blocking: opening a FIFO would wait for a writer (it is then
	 * refused as not a regular file) */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		diag_report(d, DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		diag_report(d, DIAG_ERROR, path, 0, 0, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		diag_report(d, DIAG_ERROR, path, 0, 0, "not a regular file");
		goto out;
	}
	*buf = arena_alloc(a, (size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read: %s",
				    n < 0 ? strerror(errno) : "file shrank while reading");
			goto out;
		}
		got += (size_t)n;
	}
	*size = got;
out:
	close(fd);
	return err;
}

int object_open(const char *path, struct arena *a, struct diag *d,
		struct object **out)
{
	uint8_t *buf = NULL;
	size_t size = 0;
	int err;

	*out = NULL;
	err = read_file(path, a, d, &buf, &size);
	if (err)
		return err;
	return object_open_mem(buf, size, path, a, d, out);
}

void object_close(struct object *o)
{
	if (!o)
		return;
	btf__free(o->btf);
	o->btf = NULL;
}

/* ---- lookups ---------------------------------------------------------- */

int object_find_func(const struct object *o, const char *name)
{
	uint32_t i;

	for (i = 0; i < o->nfuncs; i++)
		if (!strcmp(o->funcs[i].name, name))
			return (int)i;
	return -1;
}

int object_func_at(const struct object *o, int sec, uint32_t slot)
{
	uint32_t i = func_lower_bound(o, sec, slot + 1);

	/* funcs[i - 1] is the last one starting at or before SLOT. */
	while (i > 0 && o->funcs[i - 1].sec == sec) {
		const struct obj_func *f = &o->funcs[i - 1];

		if (slot < f->start + f->nslots)
			return (int)(i - 1);
		if (f->nslots)
			break;   /* skip empty functions at the same start */
		i--;
	}
	return -1;
}

const struct obj_reloc *object_reloc_at(const struct obj_section *s, uint32_t slot)
{
	uint32_t lo = 0, hi = s->nrelocs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->relocs[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nrelocs && s->relocs[lo].slot == slot ? &s->relocs[lo] : NULL;
}

const struct obj_line *object_line_at(const struct obj_section *s, uint32_t slot)
{
	uint32_t lo = 0, hi = s->nlines;

	/* first record with slot > SLOT; the one before it applies */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->lines[mid].slot <= slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &s->lines[lo - 1] : NULL;
}

const struct obj_core_relo *object_core_at(const struct obj_section *s, uint32_t slot)
{
	uint32_t lo = 0, hi = s->ncore;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->core[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ncore && s->core[lo].slot == slot ? &s->core[lo] : NULL;
}

const struct obj_var *object_var_at(const struct obj_datasec *ds, uint32_t off)
{
	uint32_t lo = 0, hi = ds->nvars;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ds->vars[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct obj_var *v = &ds->vars[--lo];

		if (off - v->off < v->size)
			return v;
		if (v->size)
			break;
	}
	return NULL;
}

int64_t object_kfunc_written(const struct object *o, int kfunc, unsigned argno)
{
	const struct btf_type *t;
	const struct btf_param *prm;
	__s64 size;
	uint32_t id;

	if (!o || !o->btf || kfunc < 0 || (uint32_t)kfunc >= o->nkfuncs ||
	    !o->kfuncs[kfunc].btf_id || argno == 0)
		return -1;
	t = btf__type_by_id(o->btf, o->kfuncs[kfunc].btf_id);
	if (!t || !btf_is_func(t) || !(t = btf__type_by_id(o->btf, t->type)) ||
	    !btf_is_func_proto(t) || argno > btf_vlen(t))
		return -1;
	prm = btf_params(t);
	id = prm[argno - 1].type;
	t = btf__type_by_id(o->btf, id);
	while (t && (btf_is_typedef(t) || btf_is_volatile(t) || btf_is_restrict(t)))
		t = btf__type_by_id(o->btf, t->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	id = t->type;
	t = btf__type_by_id(o->btf, id);
	if (t && btf_is_const(t))
		return 0;
	size = btf__resolve_size(o->btf, id);
	return size > 0 && size <= ISA_STACK_SIZE ? size : -1;
}
