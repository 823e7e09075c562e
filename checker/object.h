/* object.h - stage 1: read a BPF ELF object (libelf + libbpf's BTF parser).
 *
 * The loader never loads anything into the kernel and never depends on
 * bpf_object__open() succeeding: it reads the ELF itself, so objects libbpf
 * refuses (legacy "maps" sections, static entry programs, unknown pinning,
 * no BTF, e_machine 0) still load.
 *
 * Preconditions: none on the file. Postconditions on success: every code
 * section's raw instructions are available, every relocation of a code
 * section is classified and resolved to a map / global / function / kfunc /
 * extern, every function knows its section, slot range and (for programs)
 * program type; line info is per slot. All memory hangs off the arena given
 * to object_open(); object_close() releases what libbpf owns (BTF).
 *
 * Indices: "slot" is an 8-byte instruction slot counted from the start of a
 * code section (LD imm64 takes two slots). Functions, maps, data sections,
 * kfuncs and externs are referred to by their index in struct object.
 */
#ifndef INVCHECK_OBJECT_H
#define INVCHECK_OBJECT_H

#include "base.h"

#include <linux/bpf.h>

struct btf;

/* The largest global data section (.data, .rodata, .bss) object_open
 * accepts: its bytes are materialised and copied per check. */
#define OBJ_MAX_DATASEC (64u << 20)

enum obj_reloc_kind {
	OBJ_RELO_MAP,        /* LDDW: a map (target = map index) */
	OBJ_RELO_GLOBAL,     /* LDDW: global data (target = datasec, off = byte offset) */
	OBJ_RELO_FUNC_ADDR,  /* LDDW: a function's address, e.g. a bpf_loop callback
	                      * (target = func index) */
	OBJ_RELO_CALL,       /* call: a subprogram (target = func index) */
	OBJ_RELO_KFUNC,      /* call: a kfunc (target = kfunc index) */
	OBJ_RELO_KSYM,       /* LDDW: an extern kernel variable or a kfunc address
	                      * (bpf_ksym_exists) (target = extern index) */
};

struct obj_reloc {
	uint32_t slot;              /* instruction slot in its code section */
	enum obj_reloc_kind kind;
	int target;                 /* index, by kind (see above) */
	int64_t off;                /* GLOBAL: byte offset into the datasec */
	const char *sym;            /* the ELF symbol's name ("" for section symbols) */
	uint32_t elf_type;          /* R_BPF_* type */
};

struct obj_core_relo {
	uint32_t slot;
	uint32_t type_id;           /* root type in the object's BTF */
	const char *type_name;
	const char *access;         /* access string, "0:1:2" */
	uint32_t kind;              /* enum bpf_core_relo_kind */
	const char *kind_name;      /* "byte_off", "type_exists", ... */
};

struct obj_line {
	uint32_t slot;              /* first slot this line applies to */
	const char *file;
	unsigned line, col;
	const char *text;           /* the source line, may be "" */
};

struct obj_section {                /* a code section (SHF_EXECINSTR) */
	const char *name;           /* "xdp", ".text", "struct_ops/enqueue" */
	unsigned elf_index;
	const struct bpf_insn *raw;  /* nslots instructions */
	uint32_t nslots;
	struct obj_reloc *relocs;    /* sorted by slot */
	uint32_t nrelocs;
	struct obj_line *lines;      /* sorted by slot */
	uint32_t nlines;
	struct obj_core_relo *core;  /* sorted by slot */
	uint32_t ncore;
};

struct obj_func {
	const char *name;
	int sec;                     /* index into object.sections */
	uint32_t start, nslots;      /* slot range within the section */
	bool global;                 /* STB_GLOBAL (else static) */
	bool is_prog;                /* an entry program (not in .text) */
	enum bpf_prog_type prog_type;       /* programs only (BPF_PROG_TYPE_UNSPEC if unknown) */
	enum bpf_attach_type attach_type;
	bool sleepable;
	/* struct_ops programs: which field of which struct_ops map they fill */
	int struct_ops;              /* index into object.struct_ops, or -1 */
	const char *struct_ops_type; /* "sched_ext_ops" */
	const char *struct_ops_member; /* "enqueue" */
	uint32_t btf_func_id;        /* FUNC type in the object's BTF, or 0 */
};

struct obj_map {
	const char *name;
	const char *section;         /* ".maps", "maps", ".rodata", ... */
	uint32_t type;               /* enum bpf_map_type */
	uint32_t key_size, value_size, max_entries, flags;
	uint32_t btf_key_id, btf_value_id;  /* 0 when unknown */
	bool legacy;                 /* struct bpf_map_def in "maps" */
	int datasec;                 /* global-data map: index of its datasec, else -1 */
	uint32_t sym_off;            /* offset of the map's symbol in its section */
};

struct obj_var {
	const char *name;
	uint32_t off, size;
	uint32_t btf_type_id;        /* the variable's type (not its VAR); 0 without BTF */
	bool global;
};

struct obj_datasec {                 /* .rodata, .data, .bss, .data.*, .rodata.* */
	const char *name;
	unsigned elf_index;
	uint32_t size;
	const uint8_t *init;         /* initial bytes; all zero for .bss (never NULL) */
	bool readonly;
	struct obj_var *vars;        /* sorted by offset */
	uint32_t nvars;
	int map;                     /* its map in object.maps */
};

struct obj_kfunc {
	const char *name;            /* extern symbol, flavour suffix kept */
	uint32_t btf_id;             /* FUNC in the object's raw BTF, or 0 */
	const char *proto;           /* "s32 scx_bpf_create_dsq(u64 dsq_id, s32 node)", or NULL;
	                              * parameters without a BTF name print as the type only */
};

struct obj_extern {                  /* extern kernel variable (.ksyms/.kconfig) */
	const char *name;
	bool is_func;
};

struct obj_struct_ops {
	const char *map_name;        /* the variable in .struct_ops(.link) */
	const char *type_name;       /* "sched_ext_ops" */
	const char *section;
	bool link;                   /* section .struct_ops.link */
};

struct object {
	const char *path;
	struct arena *arena;
	struct btf *btf;             /* raw .BTF as in the file, or NULL */
	const char *license;         /* NULL without a "license" section */
	struct obj_section *sections;  uint32_t nsections;
	struct obj_func *funcs;        uint32_t nfuncs;    /* sorted by (sec, start) */
	struct obj_map *maps;          uint32_t nmaps;     /* in libbpf's order: .maps/maps
	                                                    * by offset, data, struct_ops */
	struct obj_datasec *datasecs;  uint32_t ndatasecs;
	struct obj_kfunc *kfuncs;      uint32_t nkfuncs;
	struct obj_extern *externs;    uint32_t nexterns;
	struct obj_struct_ops *struct_ops; uint32_t nstruct_ops;
};

/* Open and fully resolve PATH. Bad input: one diagnostic naming the file and
 * what is wrong, returns -EINVAL. */
int object_open(const char *path, struct arena *a, struct diag *d,
		struct object **out);
/* The same, from bytes in memory (fuzzing, tests); NAME is used in messages.
 * The bytes must outlive the object. */
int object_open_mem(const void *data, size_t size, const char *name,
		    struct arena *a, struct diag *d, struct object **out);
void object_close(struct object *o);

/* Lookups (NULL / -1 when absent). */
int object_find_func(const struct object *o, const char *name);
int object_func_at(const struct object *o, int sec, uint32_t slot); /* function containing slot */
const struct obj_reloc *object_reloc_at(const struct obj_section *s, uint32_t slot);
const struct obj_line *object_line_at(const struct obj_section *s, uint32_t slot);
const struct obj_core_relo *object_core_at(const struct obj_section *s, uint32_t slot);
/* The variable of datasec DS containing byte OFF, or NULL. */
const struct obj_var *object_var_at(const struct obj_datasec *ds, uint32_t off);
/* Kfunc KFUNC's pointer parameter ARGNO (1-based) from its BTF prototype:
 * 0 for a pointer to const (read only), the bytes it points to (at most
 * ISA_STACK_SIZE), or -1 (unknown: no BTF, not a pointer, no size). */
int64_t object_kfunc_written(const struct object *o, int kfunc, unsigned argno);

/* helpers.c: helper id -> "bpf_map_lookup_elem", NULL if unknown; and back. */
const char *helper_name(int id);
int helper_id(const char *name);
int helper_count(void);       /* one past the highest known id */

#endif
