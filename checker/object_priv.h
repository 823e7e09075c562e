/* object_priv.h - state shared by the files of the object loader (object.c,
 * object_maps.c, btf_ext.c). Not a stage contract: nothing outside the
 * loader includes it.
 *
 * The loader reads the ELF with libelf into struct loader, builds struct
 * object in the arena, and drops the Elf handle before returning, so every
 * byte the object keeps is copied into the arena (or owned by the BTF).
 */
#ifndef INVCHECK_OBJECT_PRIV_H
#define INVCHECK_OBJECT_PRIV_H

#include "object.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

enum lsec_kind {
	LSEC_OTHER,
	LSEC_CODE,          /* SHT_PROGBITS + SHF_EXECINSTR */
	LSEC_DATA,          /* .rodata*, .data*, .bss* */
	LSEC_MAPS,          /* .maps (BTF-defined maps) */
	LSEC_LEGACY_MAPS,   /* maps, maps/... (struct bpf_map_def) */
	LSEC_STRUCT_OPS,    /* .struct_ops, .struct_ops.link */
	LSEC_LICENSE,
	LSEC_BTF,
	LSEC_BTF_EXT,
	LSEC_SYMTAB,
	LSEC_REL,
};

struct lsec {
	const char *name;           /* arena copy */
	GElf_Shdr sh;
	Elf_Data *ed;               /* libelf's data descriptor; NULL: none, or
	                             * read in place (object.c in_place) */
	const uint8_t *data;        /* its bytes: the image's, or libelf's (valid
	                             * until elf_end); NULL: none */
	size_t size;                /* bytes at data (0 for NOBITS) */
	enum lsec_kind kind;
	int idx;                    /* CODE: index in o->sections; DATA: in o->datasecs */
};

struct lsym {
	const char *name;           /* arena copy, "" for section symbols */
	GElf_Sym s;
};

struct loader {
	struct object *o;
	struct arena *a;
	struct diag *d;
	const char *path;
	const uint8_t *image;       /* the ELF image, IMAGE_SIZE bytes */
	size_t image_size;
	bool image_kept;            /* IMAGE lives as long as the object (object_open:
	                             * in its arena), so code may point into it */
	Elf *elf;                   /* NULL: read in place (object.c in_place) */
	struct lsec *secs;
	size_t nsecs;
	struct lsym *syms;
	size_t nsyms;
	size_t symtab;              /* index of .symtab (0: none) */
	size_t btf_sec, btf_ext_sec; /* 0: absent */
	const char *btf_strs;       /* .BTF's string table in the image (check_btf) */
	uint32_t btf_str_len;
	struct vec kfuncs;          /* struct obj_kfunc, while being built */
	struct vec externs;         /* struct obj_extern */
	struct vec maps;            /* struct obj_map */
	struct vec map_shndx;       /* unsigned: ELF section of each map */
	struct vec sops;            /* struct obj_struct_ops */
	struct vec sops_sym;        /* size_t: symbol of each struct_ops entry */
	struct vec sops_map;        /* int: map of each struct_ops entry */
};

/* Relocation I of REL section RS (I < its size / sizeof(Elf64_Rel), a
 * multiple: check_sec): gelf_getrel's, or its copy in place. False: libelf
 * failed (a section flagged compressed), elf_errmsg says why. */
static inline bool loader_rel(const struct lsec *rs, size_t i, GElf_Rel *rel)
{
	if (rs->ed)
		return gelf_getrel(rs->ed, (int)i, rel) != NULL;
	memcpy(rel, rs->data + i * sizeof(Elf64_Rel), sizeof(Elf64_Rel));
	return true;
}

/* qsort() that accepts an empty (NULL) array. */
static inline void loader_sort(void *base, size_t n, size_t size,
			       int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* object.c */
int loader_fail(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void loader_warn(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A string S of the image as the object keeps it: S itself where it lies,
 * terminated, in an image that outlives the object (object_open), else an
 * arena copy (a copy per section, symbol and line name was 0.6% of a small
 * example). */
const char *loader_str(struct loader *l, const char *s);
/* The function of code section SEC (index in o->sections) starting at SLOT. */
int loader_func_starting(const struct loader *l, int sec, uint32_t slot);
/* object_relocs.c: the code sections' relocations; then the kfuncs' and
 * externs' tables into the object (their prototypes from BTF) */
int collect_relocs(struct loader *l);
void finish_externs(struct loader *l);
bool loader_sym_is_object(const struct lsym *s);

/* object_maps.c */
int maps_collect_datasecs(struct loader *l);
int maps_collect(struct loader *l);
/* The map defined at byte OFF of ELF section SHNDX, or -1. */
int maps_find(const struct loader *l, unsigned shndx, uint64_t off);
int maps_struct_ops_roles(struct loader *l);

/* btf_ext.c */
int btf_load(struct loader *l);
int btf_ext_load(struct loader *l);
const char *btf_str(struct loader *l, uint32_t off);  /* loader_str, NULL if bad */
/* Skip typedefs and modifiers; NULL (and *id untouched) on a bad id. */
const struct btf_type *btf_skip_mods(const struct btf *btf, uint32_t *id);
int btf_find_func(const struct btf *btf, const char *name);   /* id or 0 */
const char *btf_format_proto(struct loader *l, uint32_t func_id);

#endif
