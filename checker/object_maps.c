/* object_maps.c - stage 1, part 2: global data and maps (contract: object.h).
 *
 * Data sections (.rodata*, .data*, .bss*) with their variables; maps in the
 * order BTF-defined (.maps) and legacy (maps, maps/...) as their sections
 * come, then one array map per data section as libbpf creates them, then
 * one STRUCT_OPS map per variable of .struct_ops / .struct_ops.link. Last,
 * the relocations of the struct_ops sections give each program its role.
 */
#include "object_priv.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef BPF_F_LINK
#define BPF_F_LINK (1U << 13)      /* linux 6.4; absent from older headers */
#endif

#define R_BPF_64_ABS64 2
#define PIN_BY_NAME 1              /* LIBBPF_PIN_BY_NAME (bpf_helpers.h): the largest known */
#define LEGACY_DEF_MIN 20          /* type, key_size, value_size, max_entries, map_flags */

/* The type of variable VAR in BTF DATASEC SEC (0 when unknown). */
static uint32_t datasec_var_type(const struct btf *btf, const char *sec, const char *var)
{
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	int id;
	uint16_t i;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
	t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	if (!t)
		return 0;
	vs = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *v = btf__type_by_id(btf, vs[i].type);
		const char *n = v && btf_is_var(v) ? btf__name_by_offset(btf, v->name_off) : NULL;

		if (n && !strcmp(n, var))
			return v->type;
	}
	return 0;
}

/* ---- data sections ---------------------------------------------------- */

static int var_cmp(const void *pa, const void *pb)
{
	const struct obj_var *a = pa, *b = pb;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

static int collect_vars(struct loader *l, size_t shndx, struct obj_datasec *ds)
{
	struct vec v = { 0 };
	size_t i;

	for (i = 1; i < l->nsyms; i++) {
		const struct lsym *y = &l->syms[i];
		struct obj_var *var;

		if (y->s.st_shndx != shndx || !loader_sym_is_object(y))
			continue;
		if (y->s.st_value > ds->size || y->s.st_size > ds->size - y->s.st_value)
			return loader_fail(l, "variable '%s' (offset 0x%llx, size %llu) is outside section '%s'",
					   y->name, (unsigned long long)y->s.st_value,
					   (unsigned long long)y->s.st_size, ds->name);
		var = vec_push(l->a, &v, sizeof(*var));
		var->name = y->name;
		var->off = (uint32_t)y->s.st_value;
		var->size = (uint32_t)y->s.st_size;
		var->global = GELF_ST_BIND(y->s.st_info) != STB_LOCAL;
		var->btf_type_id = datasec_var_type(l->o->btf, ds->name, y->name);
	}
	loader_sort(v.data, v.len, sizeof(struct obj_var), var_cmp);
	ds->vars = v.data;
	ds->nvars = (uint32_t)v.len;
	return 0;
}

int maps_collect_datasecs(struct loader *l)
{
	struct object *o = l->o;
	size_t i;
	int err = 0;

	for (i = 1; i < l->nsecs; i++)
		o->ndatasecs += l->secs[i].kind == LSEC_DATA;
	o->datasecs = arena_new_array(l->a, struct obj_datasec, o->ndatasecs ? o->ndatasecs : 1);
	o->ndatasecs = 0;
	for (i = 1; i < l->nsecs && !err; i++) {
		struct lsec *ls = &l->secs[i];
		struct obj_datasec *ds;

		if (ls->kind != LSEC_DATA)
			continue;
		ls->idx = (int)o->ndatasecs;
		ds = &o->datasecs[o->ndatasecs++];
		ds->name = ls->name;
		ds->elf_index = (unsigned)i;
		ds->size = (uint32_t)ls->sh.sh_size;
		ds->init = ls->data ? arena_dup(l->a, ls->data, ls->size)
				    : arena_alloc(l->a, ds->size ? ds->size : 1);
		ds->readonly = !strncmp(ls->name, ".rodata", 7);
		ds->map = -1;
		err = collect_vars(l, i, ds);
	}
	return err;
}

/* The symbols of section SHNDX accepted by KEEP, by offset (then by
 * index, so the order is stable). */
struct symlist {
	size_t *idx;
	size_t n;
};

struct symkey {
	uint64_t off;
	size_t idx;
};

static int symkey_cmp(const void *pa, const void *pb)
{
	const struct symkey *a = pa, *b = pb;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static struct symlist sec_syms(struct loader *l, size_t shndx,
			       bool (*keep)(const struct lsym *y))
{
	struct symkey *k = arena_new_array(l->a, struct symkey, l->nsyms + 1);
	struct symlist sl = { arena_new_array(l->a, size_t, l->nsyms + 1), 0 };
	size_t i;

	for (i = 1; i < l->nsyms; i++)
		if (l->syms[i].s.st_shndx == shndx && keep(&l->syms[i]))
			k[sl.n++] = (struct symkey){ l->syms[i].s.st_value, i };
	loader_sort(k, sl.n, sizeof(*k), symkey_cmp);
	for (i = 0; i < sl.n; i++)
		sl.idx[i] = k[i].idx;
	return sl;
}

/* ---- maps ------------------------------------------------------------- */

static struct obj_map *push_map(struct loader *l, size_t shndx, const char *name)
{
	struct obj_map *m = vec_push(l->a, &l->maps, sizeof(*m));

	*(unsigned *)vec_push(l->a, &l->map_shndx, sizeof(unsigned)) = (unsigned)shndx;
	m->name = name;
	m->section = l->secs[shndx].name;
	m->datasec = -1;
	return m;
}

int maps_find(const struct loader *l, unsigned shndx, uint64_t off)
{
	const struct obj_map *m = l->maps.data;
	const unsigned *sh = l->map_shndx.data;
	size_t i;

	for (i = 0; i < l->maps.len; i++)
		if (sh[i] == shndx && m[i].datasec < 0 && m[i].sym_off == off)
			return (int)i;
	return -1;
}

/* __uint(NAME, N) is `int (*NAME)[N]`. */
static int map_uint(struct loader *l, const struct obj_map *m, const char *name,
		    uint32_t type_id, uint32_t *val)
{
	const struct btf *btf = l->o->btf;
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_type *arr = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;

	if (!arr || !btf_is_array(arr))
		return loader_fail(l, "map '%s': member '%s' is not __uint(%s, N)",
				   m->name, name, name);
	*val = btf_array(arr)->nelems;
	return 0;
}

/* __type(key, T) is `T *key`. */
static int map_type(struct loader *l, struct obj_map *m, bool key, uint32_t type_id)
{
	const struct btf *btf = l->o->btf;
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const char *what = key ? "key" : "value";
	long long size;

	if (!t || !btf_is_ptr(t))
		return loader_fail(l, "map '%s': member '%s' is not __type(%s, T)",
				   m->name, what, what);
	size = btf__resolve_size(btf, t->type);
	if (size < 0 || size > UINT32_MAX)
		return loader_fail(l, "map '%s': cannot tell the size of the %s type [%u]",
				   m->name, what, t->type);
	*(key ? &m->key_size : &m->value_size) = (uint32_t)size;
	*(key ? &m->btf_key_id : &m->btf_value_id) = t->type;
	return 0;
}

static const char *const map_uint_members[] = {
	"type", "key_size", "value_size", "max_entries", "map_flags",
	"pinning", "numa_node", "map_extra",
};

static int map_member(struct loader *l, struct obj_map *m, const char *name,
		      uint32_t type_id)
{
	uint32_t v = 0, *dst[] = { &m->type, &m->key_size, &m->value_size,
			       &m->max_entries, &m->flags, NULL, NULL, NULL };
	size_t i;
	int err;

	if (!strcmp(name, "key") || !strcmp(name, "value"))
		return map_type(l, m, name[0] == 'k', type_id);
	if (!strcmp(name, "values")) {
		/* __array(values, ...): map-in-map / prog array contents; the
		 * value is a 4-byte fd or id, as libbpf sets it */
		m->value_size = 4;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(map_uint_members); i++)
		if (!strcmp(name, map_uint_members[i]))
			break;
	if (i == ARRAY_SIZE(map_uint_members)) {
		loader_warn(l, "map '%s': unknown member '%s' ignored", m->name, name);
		return 0;
	}
	err = map_uint(l, m, name, type_id, &v);
	if (err)
		return err;
	if (dst[i])
		*dst[i] = v;
	else if (!strcmp(name, "pinning") && v > PIN_BY_NAME)
		loader_warn(l, "map '%s': unknown pinning value %u ignored", m->name, v);
	return 0;
}

static int btf_map_def(struct loader *l, struct obj_map *m, uint32_t type_id)
{
	const struct btf *btf = l->o->btf;
	const struct btf_type *t = btf_skip_mods(btf, &type_id);
	const struct btf_member *mb;
	uint16_t i;
	int err = 0;

	if (!t || !btf_is_struct(t))
		return loader_fail(l, "map '%s': BTF type [%u] is not a struct", m->name, type_id);
	mb = btf_members(t);
	for (i = 0; i < btf_vlen(t) && !err; i++) {
		const char *name = btf__name_by_offset(btf, mb[i].name_off);

		if (!name)
			return loader_fail(l, "map '%s': member %u has a bad name offset",
					   m->name, i);
		err = map_member(l, m, name, mb[i].type);
	}
	return err;
}

static int btf_maps(struct loader *l, size_t shndx)
{
	const struct lsec *ls = &l->secs[shndx];
	struct symlist sl;
	size_t i;
	int err = 0;

	if (!l->o->btf)
		return loader_fail(l, "section '%s': maps defined there need BTF, and the object has no '.BTF'",
				   ls->name);
	if (btf__find_by_name_kind(l->o->btf, ls->name, BTF_KIND_DATASEC) <= 0)
		return loader_fail(l, "section '%s': no BTF DATASEC '%s'", ls->name, ls->name);
	sl = sec_syms(l, shndx, loader_sym_is_object);
	for (i = 0; i < sl.n && !err; i++) {
		const struct lsym *y = &l->syms[sl.idx[i]];
		uint32_t type;
		struct obj_map *m;

		if (y->s.st_value > ls->sh.sh_size)
			return loader_fail(l, "map '%s': offset 0x%llx is outside section '%s'",
					   y->name, (unsigned long long)y->s.st_value, ls->name);
		type = datasec_var_type(l->o->btf, ls->name, y->name);
		if (!type)
			return loader_fail(l, "map '%s': not in the BTF DATASEC '%s'", y->name,
					   ls->name);
		m = push_map(l, shndx, y->name);
		m->sym_off = (uint32_t)y->s.st_value;
		err = btf_map_def(l, m, type);
	}
	return err;
}

/* Any symbol but a section's or a file's names a legacy map. */
static bool is_legacy_map_sym(const struct lsym *y)
{
	unsigned t = GELF_ST_TYPE(y->s.st_info);

	return t != STT_SECTION && t != STT_FILE;
}

/* struct bpf_map_def records, one per symbol, all of one size. */
static int legacy_maps(struct loader *l, size_t shndx)
{
	const struct lsec *ls = &l->secs[shndx];
	unsigned long long size = ls->sh.sh_size, rec;
	struct symlist sl = sec_syms(l, shndx, is_legacy_map_sym);
	size_t i;

	if (!sl.n)
		return 0;
	rec = size / sl.n;
	if (size % sl.n || rec < LEGACY_DEF_MIN)
		return loader_fail(l, "section '%s': cannot tell the size of struct bpf_map_def (%llu bytes for %zu maps)",
				   ls->name, size, sl.n);
	for (i = 0; i < sl.n; i++) {
		const struct lsym *y = &l->syms[sl.idx[i]];
		uint32_t def[5] = { 0 };
		struct obj_map *m;

		if (y->s.st_value > size || size - y->s.st_value < LEGACY_DEF_MIN)
			return loader_fail(l, "map '%s': definition at offset 0x%llx is outside section '%s'",
					   y->name, (unsigned long long)y->s.st_value, ls->name);
		if (ls->data)
			memcpy(def, ls->data + y->s.st_value, sizeof(def));
		m = push_map(l, shndx, y->name);
		m->legacy = true;
		m->sym_off = (uint32_t)y->s.st_value;
		m->type = def[0];
		m->key_size = def[1];
		m->value_size = def[2];
		m->max_entries = def[3];
		m->flags = def[4];
	}
	return 0;
}

/* As libbpf names them: "<objname>.rodata" (objname is the file's basename
 * up to its first '.'), but custom sections keep their own name
 * (".rodata.str1.1", ".data.tuning"). */
static void data_maps(struct loader *l)
{
	struct object *o = l->o;
	const char *base = strrchr(o->path, '/');
	size_t n;
	uint32_t i;

	base = base ? base + 1 : o->path;
	n = strcspn(base, ".");
	for (i = 0; i < o->ndatasecs; i++) {
		struct obj_datasec *ds = &o->datasecs[i];
		struct obj_map *m;

		ds->map = (int)l->maps.len;
		m = push_map(l, ds->elf_index, strchr(ds->name + 1, '.') ? ds->name :
				arena_printf(l->a, "%.*s%s", (int)n, base, ds->name));
		m->type = BPF_MAP_TYPE_ARRAY;
		m->key_size = 4;
		m->value_size = ds->size;
		m->max_entries = 1;
		m->flags = ds->readonly ? BPF_F_RDONLY_PROG : 0;
		m->datasec = (int)i;
	}
}

/* ---- struct_ops ------------------------------------------------------- */

static int struct_ops_var(struct loader *l, size_t shndx, size_t symi)
{
	const struct lsec *ls = &l->secs[shndx];
	const struct lsym *y = &l->syms[symi];
	const struct btf *btf = l->o->btf;
	struct obj_struct_ops *so;
	const struct btf_type *t = NULL;
	uint32_t type = datasec_var_type(btf, ls->name, y->name);
	struct obj_map *m;

	if (y->s.st_value > ls->sh.sh_size || y->s.st_size > ls->sh.sh_size - y->s.st_value)
		return loader_fail(l, "struct_ops '%s' (offset 0x%llx, size %llu) is outside section '%s'",
				   y->name, (unsigned long long)y->s.st_value,
				   (unsigned long long)y->s.st_size, ls->name);
	if (btf && type)
		t = btf_skip_mods(btf, &type);
	if (btf && (!t || !btf_is_struct(t)))
		return loader_fail(l, "struct_ops '%s': no struct type for it in the BTF DATASEC '%s'",
				   y->name, ls->name);
	*(int *)vec_push(l->a, &l->sops_map, sizeof(int)) = (int)l->maps.len;
	*(size_t *)vec_push(l->a, &l->sops_sym, sizeof(size_t)) = symi;
	m = push_map(l, shndx, y->name);
	m->type = BPF_MAP_TYPE_STRUCT_OPS;
	m->key_size = 4;
	m->value_size = t ? t->size : (uint32_t)y->s.st_size;
	m->max_entries = 1;
	m->btf_value_id = t ? type : 0;
	m->sym_off = (uint32_t)y->s.st_value;
	so = vec_push(l->a, &l->sops, sizeof(*so));
	so->map_name = y->name;
	so->type_name = t ? btf_str(l, t->name_off) : NULL;
	so->section = ls->name;
	so->link = !strcmp(ls->name, ".struct_ops.link");
	m->flags = so->link ? BPF_F_LINK : 0;
	return 0;
}

static int struct_ops_maps(struct loader *l, size_t shndx)
{
	struct symlist sl = sec_syms(l, shndx, loader_sym_is_object);
	size_t i;
	int err = 0;

	for (i = 0; i < sl.n && !err; i++)
		err = struct_ops_var(l, shndx, sl.idx[i]);
	return err;
}

int maps_collect(struct loader *l)
{
	struct object *o = l->o;
	size_t i;
	int err = 0;

	for (i = 1; i < l->nsecs && !err; i++) {
		if (l->secs[i].kind == LSEC_MAPS)
			err = btf_maps(l, i);
		else if (l->secs[i].kind == LSEC_LEGACY_MAPS)
			err = legacy_maps(l, i);
	}
	if (err)
		return err;
	data_maps(l);
	for (i = 1; i < l->nsecs && !err; i++)
		if (l->secs[i].kind == LSEC_STRUCT_OPS)
			err = struct_ops_maps(l, i);
	o->maps = l->maps.data;
	o->nmaps = (uint32_t)l->maps.len;
	o->struct_ops = l->sops.data;
	o->nstruct_ops = (uint32_t)l->sops.len;
	return err;
}

/* The member of struct_ops entry K at byte OFF, NULL without BTF. */
static int sops_member(struct loader *l, uint32_t k, uint64_t off, const char **name)
{
	const struct btf *btf = l->o->btf;
	const struct obj_map *m = &l->o->maps[((int *)l->sops_map.data)[k]];
	const struct btf_type *t = btf ? btf__type_by_id(btf, m->btf_value_id) : NULL;
	uint16_t i;

	*name = NULL;
	if (!t)
		return 0;
	for (i = 0; i < btf_vlen(t); i++) {
		if (btf_member_bit_offset(t, i) != off * 8)
			continue;
		*name = btf_str(l, btf_members(t)[i].name_off);
		if (!*name)
			break;
		return 0;
	}
	return loader_fail(l, "struct_ops '%s': no member of '%s' at offset %llu",
			   m->name, l->o->struct_ops[k].type_name, (unsigned long long)off);
}

/* The struct_ops entry whose variable holds byte OFF of section SHNDX. */
static int sops_at(const struct loader *l, size_t shndx, uint64_t off)
{
	const size_t *sym = l->sops_sym.data;
	size_t k;

	for (k = 0; k < l->sops_sym.len; k++) {
		const GElf_Sym *s = &l->syms[sym[k]].s;

		if (s->st_shndx == shndx && off >= s->st_value && off - s->st_value < s->st_size)
			return (int)k;
	}
	return -1;
}

/* The function a struct_ops data relocation points at. */
static int sops_func(struct loader *l, const char *where, const struct lsec *ss,
		     uint64_t off, const struct lsym *y)
{
	const struct lsec *cs;
	uint64_t addend = 0, addr;
	int f;

	if (y->s.st_shndx == SHN_UNDEF || y->s.st_shndx >= SHN_LORESERVE ||
	    l->secs[y->s.st_shndx].kind != LSEC_CODE)
		return loader_fail(l, "%s: symbol '%s' is not a function", where, y->name);
	cs = &l->secs[y->s.st_shndx];
	if (ss->data)
		memcpy(&addend, ss->data + off, sizeof(addend));
	addr = y->s.st_value + addend;
	f = addr % 8 || addr >= cs->size ? -1 : loader_func_starting(l, cs->idx, (uint32_t)(addr / 8));
	if (f < 0)
		return loader_fail(l, "%s: no function starts at offset 0x%llx of section '%s'",
				   where, (unsigned long long)addr, cs->name);
	return f;
}

static int sops_reloc(struct loader *l, const struct lsec *rs, size_t i, size_t shndx)
{
	const struct lsec *ss = &l->secs[shndx];
	char where[160];
	const char *member;
	struct obj_func *fn;
	GElf_Rel rel;
	size_t symi;
	int k, f, err;

	if (!loader_rel(rs, i, &rel))
		return loader_fail(l, "section '%s': cannot read relocation %zu: %s",
				   rs->name, i, elf_errmsg(-1));
	symi = GELF_R_SYM(rel.r_info);
	snprintf(where, sizeof(where), "section '%s': relocation %zu at offset 0x%llx",
		 ss->name, i, (unsigned long long)rel.r_offset);
	if (rel.r_offset >= ss->sh.sh_size || ss->sh.sh_size - rel.r_offset < 8)
		return loader_fail(l, "%s is outside the section", where);
	if (GELF_R_TYPE(rel.r_info) != R_BPF_64_ABS64)
		return loader_fail(l, "%s: unsupported relocation type %u", where,
				   (unsigned)GELF_R_TYPE(rel.r_info));
	if (symi == 0 || symi >= l->nsyms)
		return loader_fail(l, "%s: symbol index %zu is out of range (%zu symbols)",
				   where, symi, l->nsyms);
	k = sops_at(l, shndx, rel.r_offset);
	if (k < 0)
		return loader_fail(l, "%s: no struct_ops variable there", where);
	f = sops_func(l, where, ss, rel.r_offset, &l->syms[symi]);
	if (f < 0)
		return f;
	err = sops_member(l, (uint32_t)k, rel.r_offset -
			  l->syms[((size_t *)l->sops_sym.data)[k]].s.st_value, &member);
	if (err)
		return err;
	fn = &l->o->funcs[f];
	if (fn->struct_ops >= 0)
		return 0;   /* one program in two maps: keep the first role */
	fn->struct_ops = k;
	fn->struct_ops_type = l->o->struct_ops[k].type_name;
	fn->struct_ops_member = member;
	return 0;
}

int maps_struct_ops_roles(struct loader *l)
{
	size_t i, j;
	int err = 0;

	for (i = 1; i < l->nsecs && !err; i++) {
		const struct lsec *rs = &l->secs[i];
		size_t tgt = rs->sh.sh_info;

		if (rs->kind != LSEC_REL || tgt >= l->nsecs ||
		    l->secs[tgt].kind != LSEC_STRUCT_OPS)
			continue;
		if (!l->symtab || rs->sh.sh_link != l->symtab)
			return loader_fail(l, "relocation section '%s' does not use the symbol table",
					   rs->name);
		for (j = 0; j < rs->size / sizeof(Elf64_Rel) && !err; j++)
			err = sops_reloc(l, rs, j, tgt);
	}
	return err;
}
