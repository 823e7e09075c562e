/* object.c - stage 1: read a BPF ELF object (contract: object.h).
 *
 * Reads the ELF in place or with libelf (in_place), never with
 * bpf_object__open(). Order of work in
 * object_open_mem(): header, section headers, symbols, BTF, code sections,
 * functions, data sections and maps (object_maps.c), code relocations
 * (object_relocs.c), struct_ops roles, .BTF.ext (btf_ext.c), kfunc
 * prototypes, license. Every offset taken from the file is checked before
 * it is used; the first bad one is reported once through the diag sink and
 * the open fails with -EINVAL.
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

/* A well-formed object is read in place, without libelf (l->elf NULL):
 * its section headers, names and contents are the image's bytes at the
 * offsets check_ehdr and read_shdr bound, which is what libelf hands out
 * for them on a little-endian host (it converts nothing and copies no
 * section; its elf_strptr's checks are str_at's). libelf reads the rest:
 * extended section numbering, a compressed section, an EI_VERSION it
 * refuses, so that their errors stay its own. elf_memory (a calloc'd
 * descriptor per section), elf_getscn, elf_getdata, elf_strptr and
 * elf_end were 2% of a small example. */
static bool in_place(const uint8_t *p)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	size_t i;

	memcpy(&eh, p, sizeof(eh));
	if (eh.e_ident[EI_VERSION] != EV_CURRENT || !eh.e_shnum || eh.e_shstrndx == SHN_XINDEX)
		return false;
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, p + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_flags & SHF_COMPRESSED)
			return false;
	}
	return true;
}

static int open_elf(struct loader *l, const void *data, size_t size)
{
	if (in_place(data))
		return 0;
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
	/* by the name's first bytes: each name compared with each of the
	 * names below (a dozen .debug_* sections) was 0.4% of trace_exec */
	if (s->name[0] == 'm')
		return !strcmp(s->name, "maps") || has_pfx(s->name, "maps/") ? LSEC_LEGACY_MAPS
									  : LSEC_OTHER;
	if (s->name[0] == 'l')
		return !strcmp(s->name, "license") ? LSEC_LICENSE : LSEC_OTHER;
	if (s->name[0] != '.')
		return LSEC_OTHER;
	switch (s->name[1]) {
	case 'm':
		return !strcmp(s->name, ".maps") ? LSEC_MAPS : LSEC_OTHER;
	case 's':
		return !strcmp(s->name, ".struct_ops") || !strcmp(s->name, ".struct_ops.link") ?
			       LSEC_STRUCT_OPS : LSEC_OTHER;
	case 'B':
		return !strcmp(s->name, ".BTF") ? LSEC_BTF :
		       !strcmp(s->name, ".BTF.ext") ? LSEC_BTF_EXT : LSEC_OTHER;
	case 'r':
		return sh->sh_size && is_sec_family(s->name, ".rodata") ? LSEC_DATA : LSEC_OTHER;
	case 'd':
		return sh->sh_size && is_sec_family(s->name, ".data") ? LSEC_DATA : LSEC_OTHER;
	case 'b':
		return sh->sh_size && is_sec_family(s->name, ".bss") ? LSEC_DATA : LSEC_OTHER;
	default:
		break;
	}
	return LSEC_OTHER;
}

/* The string at OFF of string table STRNDX (a section whose header is
 * read), or NULL: elf_strptr, or its checks in place (a string table, OFF
 * inside it, a NUL at or after OFF in it; read_shdr bounded its bytes). */
static const char *str_at(const struct loader *l, size_t strndx, size_t off)
{
	const struct lsec *s = &l->secs[strndx];
	const char *p;

	if (l->elf)
		return elf_strptr(l->elf, strndx, off);
	if (s->sh.sh_type != SHT_STRTAB || off >= s->sh.sh_size)
		return NULL;
	p = (const char *)l->image + s->sh.sh_offset + off;
	return memchr(p, 0, s->sh.sh_size - off) ? p : NULL;
}

/* A name str_at found, kept: read in place from a kept image, it is the
 * image's own, NUL-terminated inside it (loader_str's check again was a
 * memchr a name), else loader_str's */
static const char *name_str(struct loader *l, const char *s)
{
	return !l->elf && l->image_kept ? s : loader_str(l, s);
}

/* Header, bounds and name of section I (of the table at SHOFF). */
static int read_shdr(struct loader *l, size_t i, size_t fsize, uint64_t shoff)
{
	struct lsec *s = &l->secs[i];
	Elf_Scn *scn;

	s->ed = NULL;          /* sec_data's, for the sections it reads */
	s->data = NULL;
	s->size = 0;
	if (!l->elf) {
		memcpy(&s->sh, l->image + shoff + i * sizeof(Elf64_Shdr), sizeof(Elf64_Shdr));
	} else if (!(scn = elf_getscn(l->elf, i)) || !gelf_getshdr(scn, &s->sh)) {
		return loader_fail(l, "section %zu: cannot read its header: %s", i,
				   elf_errmsg(-1));
	}
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
		const char *n = str_at(l, shstrndx, l->secs[i].sh.sh_name);

		if (!n)
			return loader_fail(l, "section %zu: bad name offset 0x%x", i,
					   l->secs[i].sh.sh_name);
		l->secs[i].name = name_str(l, n);
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
	if (!l->elf) {
		s->data = l->image + s->sh.sh_offset;     /* bounded by read_shdr */
		s->size = s->sh.sh_size;
		return 0;
	}
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

	if (!l->elf) {
		memcpy(&eh, l->image, sizeof(eh));     /* in_place: neither is extended */
		n = eh.e_shnum;
		shstrndx = eh.e_shstrndx;
	} else if (!gelf_getehdr(l->elf, &eh) || elf_getshdrnum(l->elf, &n) ||
		   elf_getshdrstrndx(l->elf, &shstrndx)) {
		return loader_fail(l, "cannot read section headers: %s", elf_errmsg(-1));
	}
	/* the count may come from section 0 (extended numbering) */
	if (n > (fsize - eh.e_shoff) / sizeof(Elf64_Shdr))
		return loader_fail(l, "section header table (%zu entries at offset 0x%llx) is outside the file (%zu bytes)",
				   n, (unsigned long long)eh.e_shoff, fsize);
	l->nsecs = n;
	/* not zeroed but the first (each written before it is read, from
	 * read_shdr on: 3 KB of an object's loading) */
	l->secs = arena_alloc_raw(l->a, sizeof(struct lsec) * (n ? n : 1));
	memset(&l->secs[0], 0, sizeof(l->secs[0]));
	for (i = 1; i < n && !err; i++)
		err = read_shdr(l, i, fsize, eh.e_shoff);
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

	/* I < st->size / sizeof(Elf64_Sym): gelf_getsym's copy in place */
	if (!st->ed)
		memcpy(&y->s, st->data + i * sizeof(Elf64_Sym), sizeof(Elf64_Sym));
	else if (!gelf_getsym(st->ed, (int)i, &y->s))
		return loader_fail(l, "symbol %zu: cannot read it: %s", i, elf_errmsg(-1));
	name = str_at(l, strtab, y->s.st_name);
	if (!name)
		return loader_fail(l, "symbol %zu: bad name offset 0x%x", i, y->s.st_name);
	y->name = GELF_ST_TYPE(y->s.st_info) == STT_SECTION ? "" : name_str(l, name);
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
	/* not zeroed: read_sym writes each whole */
	l->syms = arena_alloc_raw(l->a, sizeof(struct lsym) * (l->nsyms ? l->nsyms : 1));
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

/* Are the N bytes at P in the image, and does it outlive the object? */
static bool kept(const struct loader *l, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, img = (uintptr_t)l->image;

	return l->image_kept && p && a >= img && n <= l->image_size &&
	       a - img <= l->image_size - n;
}

const char *loader_str(struct loader *l, const char *s)
{
	if (kept(l, s, 1) &&
	    memchr(s, 0, l->image_size - (size_t)((uintptr_t)s - (uintptr_t)l->image)))
		return s;
	return arena_strdup(l->a, s);
}

/* A code section's instructions: in the image itself where it outlives the
 * object and the section's bytes are there, aligned (libelf hands out the
 * image's own bytes for a section it need not convert), else a copy (the
 * raw code of a million-instruction program is 8 MB; it is only read). */
static const struct bpf_insn *code_of(const struct loader *l, const struct lsec *ls)
{
	if (kept(l, ls->data, ls->size) && (uintptr_t)ls->data % _Alignof(struct bpf_insn) == 0)
		return (const struct bpf_insn *)ls->data;
	return arena_dup(l->a, ls->data, ls->size);
}

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
		s->raw = code_of(l, ls);
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

/* ---- license ---------------------------------------------------------- */

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

static int open_image(const void *data, size_t size, const char *name, bool kept,
		      struct arena *a, struct diag *d, struct object **out)
{
	struct object *o = arena_alloc(a, sizeof(*o));
	struct loader l = { .o = o, .a = a, .d = d, .image = data, .image_size = size,
			    .image_kept = kept };
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

int object_open_mem(const void *data, size_t size, const char *name,
		    struct arena *a, struct diag *d, struct object **out)
{
	return open_image(data, size, name, false, a, d, out);
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
	/* not zeroed: read over at once, its last byte a terminator */
	*buf = arena_alloc_raw(a, (size_t)st.st_size + 1);
	(*buf)[st.st_size] = 0;
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
	return open_image(buf, size, path, true, a, d, out);   /* BUF is in A */
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
