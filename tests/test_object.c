/* test_object.c - the object loader (checker/object.c, object_maps.c,
 * btf_ext.c) and the helper table (checker/helpers.c).
 *
 * Usage: test_object OBJECT...   (the fixtures of tests/data/elf and the
 * examples, found by basename, e.g. "static_prog.bpf.o")
 *   fixtures   objects libbpf 1.1.2 refuses (legacy maps, a static entry
 *              program, unknown pinning / map member, struct_ops.s) load,
 *              and libbpf really refuses them; no BTF; string and custom
 *              data sections; e_machine 0
 *   malformed  mutations of a good object in memory: -EINVAL, exactly one
 *              error, the exact message; a mutation sweep that must never
 *              crash, leak, make libbpf print, or report != 1 error
 *   examples   programs, maps, globals, relocations, kfuncs, struct_ops
 *              roles and line info of examples/, and parity with libbpf
 *   helpers    ids and names from <linux/bpf.h>
 * Set CK_FORK=no to run under valgrind.
 */
#include "object.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nobjs;
static char **objs;
static int libbpf_prints;

/* ---- helpers ------------------------------------------------------------ */

struct capture {
	struct diag d;
	char first[1200];       /* the first message, formatted as the CLI does */
	char all[8192];         /* every message, one per line */
};

static void sink(void *arg, const struct diag_msg *m)
{
	struct capture *c = arg;
	char line[1200];
	size_t n = strlen(c->all);

	diag_format(m, line, sizeof(line));
	if (!c->first[0])
		snprintf(c->first, sizeof(c->first), "%s", line);
	snprintf(c->all + n, sizeof(c->all) - n, "%s\n", line);
}

static void capture_init(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->d.sink = sink;
	c->d.arg = c;
}

static int count_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	(void)fmt;
	(void)ap;
	if (lvl != LIBBPF_DEBUG)
		libbpf_prints++;
	return 0;
}

static const char *obj_path(const char *base)
{
	size_t n = strlen(base);

	for (int i = 0; i < nobjs; i++) {
		size_t m = strlen(objs[i]);

		if (m >= n && !strcmp(objs[i] + m - n, base) &&
		    (m == n || objs[i][m - n - 1] == '/'))
			return objs[i];
	}
	ck_abort_msg("object %s was not passed to the test", base);
	return NULL;
}

/* An open object with its arena and diagnostics. */
struct loaded {
	struct arena *a;
	struct capture c;
	struct object *o;
};

static void load(struct loaded *l, const char *base)
{
	int err;

	l->a = arena_new();
	capture_init(&l->c);
	err = object_open(obj_path(base), l->a, &l->c.d, &l->o);
	ck_assert_msg(err == 0, "%s: err %d: %s", base, err, l->c.all);
	ck_assert_uint_eq(l->c.d.errors, 0);
}

static void unload(struct loaded *l)
{
	object_close(l->o);
	arena_free(l->a);
}

static int find_sec(const struct object *o, const char *name)
{
	for (uint32_t i = 0; i < o->nsections; i++)
		if (!strcmp(o->sections[i].name, name))
			return (int)i;
	ck_abort_msg("no code section %s", name);
	return -1;
}

static const struct obj_map *find_map(const struct object *o, const char *name)
{
	for (uint32_t i = 0; i < o->nmaps; i++)
		if (!strcmp(o->maps[i].name, name))
			return &o->maps[i];
	ck_abort_msg("no map %s", name);
	return NULL;
}

static int find_ds(const struct object *o, const char *name)
{
	for (uint32_t i = 0; i < o->ndatasecs; i++)
		if (!strcmp(o->datasecs[i].name, name))
			return (int)i;
	ck_abort_msg("no data section %s", name);
	return -1;
}

static const struct obj_var *find_var(const struct obj_datasec *ds, const char *name)
{
	for (uint32_t i = 0; i < ds->nvars; i++)
		if (!strcmp(ds->vars[i].name, name))
			return &ds->vars[i];
	ck_abort_msg("no variable %s in %s", name, ds->name);
	return NULL;
}

static const struct obj_func *func(const struct object *o, const char *name)
{
	int f = object_find_func(o, name);

	ck_assert_msg(f >= 0, "no function %s", name);
	return &o->funcs[f];
}

static void check_prog(const struct object *o, const char *name, const char *sec,
		       enum bpf_prog_type type)
{
	const struct obj_func *f = func(o, name);

	ck_assert(f->is_prog);
	ck_assert_str_eq(o->sections[f->sec].name, sec);
	ck_assert_int_eq(f->prog_type, type);
}

static void check_map(const struct object *o, const char *name, uint32_t type,
		      uint32_t key, uint32_t value, uint32_t max)
{
	const struct obj_map *m = find_map(o, name);

	ck_assert_msg(m->type == type && m->key_size == key && m->value_size == value &&
		      m->max_entries == max,
		      "map %s: type %u key %u value %u max %u", name, m->type,
		      m->key_size, m->value_size, m->max_entries);
}

/* The relocations of function F whose symbol is SYM (count, first one). */
static int relocs_of(const struct object *o, const char *fname, const char *sym,
		     const struct obj_reloc **first)
{
	const struct obj_func *f = func(o, fname);
	const struct obj_section *s = &o->sections[f->sec];
	int n = 0;

	*first = NULL;
	for (uint32_t i = 0; i < s->nrelocs; i++) {
		const struct obj_reloc *r = &s->relocs[i];

		if (r->slot < f->start || r->slot >= f->start + f->nslots || strcmp(r->sym, sym))
			continue;
		if (!n++)
			*first = r;
	}
	return n;
}

/* The first relocation of function F against SYM with kind KIND. */
static const struct obj_reloc *reloc_of(const struct object *o, const char *fname,
					const char *sym, enum obj_reloc_kind kind)
{
	const struct obj_func *f = func(o, fname);
	const struct obj_section *s = &o->sections[f->sec];

	for (uint32_t i = 0; i < s->nrelocs; i++) {
		const struct obj_reloc *r = &s->relocs[i];

		if (r->slot >= f->start && r->slot < f->start + f->nslots &&
		    !strcmp(r->sym, sym) && r->kind == kind)
			return r;
	}
	ck_abort_msg("%s: no relocation '%s' of kind %d", fname, sym, kind);
	return NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Line LINE of FILE, without its newline, into BUF. */
static bool source_line(const char *file, unsigned line, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");
	unsigned n = 0;
	bool ok = false;

	if (!f)
		return false;
	while (fgets(buf, (int)size, f))
		if (++n == line) {
			buf[strcspn(buf, "\n")] = 0;
			ok = true;
			break;
		}
	fclose(f);
	return ok;
}

/* The line record at SLOT of function F names FILE_TAIL, and its text is
 * really that line of the source; returns the line. */
static unsigned check_line(const struct object *o, const char *fname, uint32_t slot,
			   const char *file_tail)
{
	const struct obj_func *f = func(o, fname);
	const struct obj_line *ln = object_line_at(&o->sections[f->sec], f->start + slot);
	char src[512];

	ck_assert_ptr_nonnull(ln);
	ck_assert_msg(ends_with(ln->file, file_tail), "line file %s", ln->file);
	ck_assert_uint_gt(ln->line, 0);
	ck_assert_msg(source_line(ln->file, ln->line, src, sizeof(src)),
		      "cannot read line %u of %s", ln->line, ln->file);
	ck_assert_str_eq(src, ln->text);
	return ln->line;
}

static void *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *p;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return p;
}

static bool libbpf_opens(const char *base)
{
	struct bpf_object *bo = bpf_object__open_file(obj_path(base), NULL);

	if (!bo)
		return false;
	bpf_object__close(bo);
	return true;
}

/* ---- fixtures ----------------------------------------------------------- */

START_TEST(legacy_maps)
{
	struct loaded l;
	const struct obj_map *m;
	const struct obj_reloc *r;

	ck_assert(!libbpf_opens("legacy_maps.bpf.o"));
	load(&l, "legacy_maps.bpf.o");
	check_prog(l.o, "count_packets", "socket", BPF_PROG_TYPE_SOCKET_FILTER);
	ck_assert_uint_eq(l.o->nmaps, 2);
	check_map(l.o, "counters", BPF_MAP_TYPE_ARRAY, 4, 8, 16);
	check_map(l.o, "flows", BPF_MAP_TYPE_HASH, 8, 24, 1024);
	m = find_map(l.o, "flows");
	ck_assert(m->legacy);
	ck_assert_str_eq(m->section, "maps");
	ck_assert_uint_eq(m->flags, BPF_F_NO_PREALLOC);
	ck_assert_uint_eq(m->sym_off, 20);
	ck_assert_int_eq(m->datasec, -1);
	r = reloc_of(l.o, "count_packets", "counters", OBJ_RELO_MAP);
	ck_assert_str_eq(l.o->maps[r->target].name, "counters");
	r = reloc_of(l.o, "count_packets", "flows", OBJ_RELO_MAP);
	ck_assert_str_eq(l.o->maps[r->target].name, "flows");
	ck_assert_str_eq(l.o->license, "GPL");
	unload(&l);
}
END_TEST

START_TEST(static_prog)
{
	struct loaded l;
	const struct obj_reloc *r;
	const struct obj_datasec *data, *ro, *bss;
	const struct obj_var *v;
	const struct btf_type *t;
	const struct obj_func *xdp;
	int sec;
	uint32_t hits, i;
	uint64_t table[4];

	ck_assert(!libbpf_opens("static_prog.bpf.o"));
	load(&l, "static_prog.bpf.o");
	/* funcs sorted by (section, start) */
	ck_assert_uint_eq(l.o->nfuncs, 4);
	ck_assert_str_eq(l.o->funcs[0].name, "scale");
	ck_assert_str_eq(l.o->funcs[1].name, "add_one");
	ck_assert_str_eq(l.o->funcs[2].name, "loop_cb");
	ck_assert_str_eq(l.o->funcs[3].name, "xdp_static");
	for (i = 1; i < l.o->nfuncs; i++)
		ck_assert(l.o->funcs[i - 1].sec < l.o->funcs[i].sec ||
			  (l.o->funcs[i - 1].sec == l.o->funcs[i].sec &&
			   l.o->funcs[i - 1].start < l.o->funcs[i].start));
	check_prog(l.o, "xdp_static", "xdp", BPF_PROG_TYPE_XDP);
	xdp = func(l.o, "xdp_static");
	ck_assert(!xdp->global);
	ck_assert_int_eq(xdp->attach_type, BPF_XDP);
	ck_assert_uint_ne(xdp->btf_func_id, 0);
	ck_assert(func(l.o, "scale")->global && !func(l.o, "scale")->is_prog);
	ck_assert(!func(l.o, "add_one")->global && !func(l.o, "add_one")->is_prog);
	ck_assert_int_eq(func(l.o, "scale")->prog_type, BPF_PROG_TYPE_UNSPEC);

	/* calls: via the .text section symbol (static) and via 'scale' */
	r = reloc_of(l.o, "xdp_static", "", OBJ_RELO_CALL);
	ck_assert_str_eq(l.o->funcs[r->target].name, "add_one");
	ck_assert_uint_eq(r->elf_type, 10);
	r = reloc_of(l.o, "xdp_static", "scale", OBJ_RELO_CALL);
	ck_assert_str_eq(l.o->funcs[r->target].name, "scale");
	ck_assert_int_eq(func(l.o, "xdp_static")->sec, find_sec(l.o, "xdp"));

	/* every relocation, by slot */
	sec = find_sec(l.o, "xdp");
	for (i = 0; i < l.o->sections[sec].nrelocs; i++) {
		r = &l.o->sections[sec].relocs[i];
		ck_assert_ptr_eq(object_reloc_at(&l.o->sections[sec], r->slot), r);
		ck_assert_ptr_null(object_reloc_at(&l.o->sections[sec], r->slot + 1));
		if (i)
			ck_assert_uint_lt(r[-1].slot, r->slot);
		if (r->kind == OBJ_RELO_FUNC_ADDR)
			ck_assert_str_eq(l.o->funcs[r->target].name, "loop_cb");
	}
	ck_assert_uint_eq(l.o->sections[sec].nrelocs, 6);

	/* globals: own symbols and section symbols + imm */
	data = &l.o->datasecs[find_ds(l.o, ".data")];
	ro = &l.o->datasecs[find_ds(l.o, ".rodata")];
	bss = &l.o->datasecs[find_ds(l.o, ".bss")];
	r = reloc_of(l.o, "xdp_static", "hits", OBJ_RELO_GLOBAL);
	ck_assert_ptr_eq(&l.o->datasecs[r->target], data);
	ck_assert_int_eq(r->off, 0);
	r = reloc_of(l.o, "xdp_static", "table", OBJ_RELO_GLOBAL);
	ck_assert_int_eq(r->off, 8);
	r = reloc_of(l.o, "add_one", "", OBJ_RELO_GLOBAL);       /* static 'calls' */
	ck_assert_ptr_eq(&l.o->datasecs[r->target], bss);
	ck_assert_int_eq(r->off, 8);
	ck_assert_str_eq(object_var_at(bss, (uint32_t)r->off)->name, "calls");
	r = reloc_of(l.o, "xdp_static", "", OBJ_RELO_GLOBAL);    /* the format string */
	ck_assert_ptr_eq(&l.o->datasecs[r->target], ro);
	ck_assert_str_eq(object_var_at(ro, (uint32_t)r->off)->name, "xdp_static.____fmt");
	ck_assert_mem_eq(ro->init + r->off, "v=%d", 5);

	ck_assert_uint_eq(data->size, 40);
	ck_assert(!data->readonly && ro->readonly);
	v = find_var(data, "hits");
	ck_assert(v->off == 0 && v->size == 4 && v->global);
	memcpy(&hits, data->init + v->off, 4);
	ck_assert_uint_eq(hits, 7);
	v = find_var(data, "table");
	ck_assert(v->off == 8 && v->size == 32);
	memcpy(table, data->init + v->off, sizeof(table));
	ck_assert(table[0] == 1 && table[1] == 2 && table[2] == 3 && table[3] == 4);
	ck_assert_ptr_eq(object_var_at(data, 12), v);
	ck_assert_ptr_null(object_var_at(data, 5));     /* padding */
	ck_assert_ptr_null(object_var_at(data, 40));
	t = btf__type_by_id(l.o->btf, find_var(data, "hits")->btf_type_id);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(btf__name_by_offset(l.o->btf, t->name_off), "int");
	v = find_var(bss, "calls");
	ck_assert(!v->global && v->off == 8 && v->size == 4);
	ck_assert_uint_eq(bss->size, 12);
	for (i = 0; i < bss->size; i++)
		ck_assert_uint_eq(bss->init[i], 0);
	ck_assert_uint_eq(find_var(ro, "limit")->size, 4);
	ck_assert_uint_eq(*(const uint32_t *)ro->init, 100);

	/* one array map per data section, named like libbpf's */
	check_map(l.o, "static_prog.data", BPF_MAP_TYPE_ARRAY, 4, 40, 1);
	check_map(l.o, "static_prog.rodata", BPF_MAP_TYPE_ARRAY, 4, 9, 1);
	check_map(l.o, "static_prog.bss", BPF_MAP_TYPE_ARRAY, 4, 12, 1);
	ck_assert_int_eq(l.o->maps[data->map].datasec, find_ds(l.o, ".data"));
	ck_assert_str_eq(l.o->maps[ro->map].section, ".rodata");

	/* lookups */
	ck_assert_int_eq(object_func_at(l.o, sec, 10), object_find_func(l.o, "xdp_static"));
	ck_assert_int_eq(object_func_at(l.o, func(l.o, "add_one")->sec,
					func(l.o, "add_one")->start),
			 object_find_func(l.o, "add_one"));
	ck_assert_int_eq(object_func_at(l.o, sec, l.o->sections[sec].nslots), -1);
	ck_assert_int_eq(object_find_func(l.o, "nope"), -1);
	check_line(l.o, "xdp_static", 0, "static_prog.bpf.c");
	check_line(l.o, "loop_cb", 2, "static_prog.bpf.c");
	unload(&l);
}
END_TEST

START_TEST(pin_unknown)
{
	struct loaded l;
	char want[512];

	ck_assert(!libbpf_opens("pin_unknown.bpf.o"));
	load(&l, "pin_unknown.bpf.o");
	check_prog(l.o, "tc_prog", "tc", BPF_PROG_TYPE_SCHED_CLS);
	check_map(l.o, "pinned", BPF_MAP_TYPE_HASH, 4, 8, 64);
	ck_assert_uint_ne(find_map(l.o, "pinned")->btf_key_id, 0);
	ck_assert_uint_ne(find_map(l.o, "pinned")->btf_value_id, 0);
	ck_assert_uint_eq(l.c.d.warnings, 1);
	snprintf(want, sizeof(want), "%s: warning: map 'pinned': unknown pinning value 7 ignored",
		 obj_path("pin_unknown.bpf.o"));
	ck_assert_str_eq(l.c.first, want);
	unload(&l);
}
END_TEST

START_TEST(unknown_member)
{
	struct loaded l;

	ck_assert(!libbpf_opens("unknown_member.bpf.o"));
	load(&l, "unknown_member.bpf.o");
	check_map(l.o, "painted", BPF_MAP_TYPE_ARRAY, 4, 16, 8);
	ck_assert_uint_eq(find_map(l.o, "painted")->btf_key_id, 0);
	ck_assert_uint_eq(l.c.d.warnings, 1);
	ck_assert_msg(strstr(l.c.first, "map 'painted': unknown member 'colour' ignored"),
		      "%s", l.c.first);
	unload(&l);
}
END_TEST

START_TEST(no_btf)
{
	struct loaded l;
	const struct obj_datasec *ds;
	uint32_t v;

	ck_assert(libbpf_opens("nobtf.bpf.o"));
	load(&l, "nobtf.bpf.o");
	ck_assert_ptr_null(l.o->btf);
	check_prog(l.o, "count_getpid", "tracepoint/syscalls/sys_enter_getpid",
		   BPF_PROG_TYPE_TRACEPOINT);
	ck_assert_uint_eq(func(l.o, "count_getpid")->btf_func_id, 0);
	ck_assert_uint_eq(l.o->sections[func(l.o, "count_getpid")->sec].nlines, 0);
	ck_assert_ptr_null(object_line_at(&l.o->sections[func(l.o, "count_getpid")->sec], 0));
	ds = &l.o->datasecs[find_ds(l.o, ".data")];
	ck_assert_uint_eq(find_var(ds, "counter")->btf_type_id, 0);
	memcpy(&v, ds->init, 4);
	ck_assert_uint_eq(v, 3);
	reloc_of(l.o, "count_getpid", "counter", OBJ_RELO_GLOBAL);
	check_map(l.o, "nobtf.data", BPF_MAP_TYPE_ARRAY, 4, 4, 1);
	ck_assert_str_eq(l.o->license, "Dual BSD/GPL");
	unload(&l);
}
END_TEST

START_TEST(core_ops)
{
	struct loaded l;
	const struct obj_section *s;
	const struct obj_core_relo *c;
	const struct obj_reloc *r;
	const struct obj_func *f;
	const struct obj_map *m;

	ck_assert(!libbpf_opens("core_ops.bpf.o"));
	load(&l, "core_ops.bpf.o");
	/* CO-RE: bpf_core_field_exists(p->flags), BPF_CORE_READ(p, pid) */
	s = &l.o->sections[find_sec(l.o, "struct_ops/demo_tick")];
	ck_assert_uint_eq(s->ncore, 2);
	c = &s->core[0];
	ck_assert_str_eq(c->type_name, "task_struct");
	ck_assert_str_eq(c->access, "0:2");
	ck_assert_uint_eq(c->kind, BPF_CORE_FIELD_EXISTS);
	ck_assert_str_eq(c->kind_name, "field_exists");
	ck_assert_ptr_eq(object_core_at(s, c->slot), c);
	c = &s->core[1];
	ck_assert_str_eq(c->access, "0:0");
	ck_assert_str_eq(c->kind_name, "byte_off");
	ck_assert_ptr_null(object_core_at(s, c->slot + 1));
	/* kfuncs (clang 14 keeps no parameter names of extern functions) */
	ck_assert_uint_eq(l.o->nkfuncs, 2);
	ck_assert_str_eq(l.o->kfuncs[0].name, "bpf_task_acquire");
	ck_assert_str_eq(l.o->kfuncs[0].proto,
			 "struct task_struct *bpf_task_acquire(struct task_struct *)");
	ck_assert_str_eq(l.o->kfuncs[1].proto, "void bpf_task_release(struct task_struct *)");
	r = reloc_of(l.o, "demo_tick", "bpf_task_release", OBJ_RELO_KFUNC);
	ck_assert_int_eq(r->target, 1);
	/* a typed ksym */
	ck_assert_uint_eq(l.o->nexterns, 1);
	ck_assert_str_eq(l.o->externs[0].name, "bpf_prog_active");
	ck_assert(!l.o->externs[0].is_func);
	reloc_of(l.o, "demo_sleepy", "bpf_prog_active", OBJ_RELO_KSYM);
	/* struct_ops */
	ck_assert_uint_eq(l.o->nstruct_ops, 1);
	ck_assert_str_eq(l.o->struct_ops[0].map_name, "demo");
	ck_assert_str_eq(l.o->struct_ops[0].type_name, "demo_ops");
	ck_assert(!l.o->struct_ops[0].link);
	m = find_map(l.o, "demo");
	ck_assert_uint_eq(m->type, BPF_MAP_TYPE_STRUCT_OPS);
	ck_assert_uint_eq(m->value_size, 40);
	ck_assert_str_eq(m->section, ".struct_ops");
	f = func(l.o, "demo_tick");
	ck_assert_int_eq(f->struct_ops, 0);
	ck_assert_str_eq(f->struct_ops_type, "demo_ops");
	ck_assert_str_eq(f->struct_ops_member, "tick");
	ck_assert_str_eq(func(l.o, "demo_init")->struct_ops_member, "init");
	f = func(l.o, "demo_sleepy");
	ck_assert_str_eq(f->struct_ops_member, "sleepy");
	ck_assert(f->sleepable);
	ck_assert_int_eq(f->prog_type, BPF_PROG_TYPE_STRUCT_OPS);  /* libbpf 1.1: unknown */
	ck_assert(!func(l.o, "demo_init")->sleepable);
	unload(&l);
}
END_TEST

/* String literals (.rodata.str1.1) and custom data sections. */
START_TEST(strings)
{
	struct loaded l;
	const struct obj_datasec *str, *tun;
	const struct obj_reloc *r;

	ck_assert(libbpf_opens("strings.bpf.o"));
	load(&l, "strings.bpf.o");
	str = &l.o->datasecs[find_ds(l.o, ".rodata.str1.1")];
	ck_assert_uint_eq(str->nvars, 0);
	ck_assert(str->readonly);
	ck_assert_uint_eq(str->size, 13);
	ck_assert_str_eq((const char *)str->init, "hello, world");
	ck_assert_ptr_null(object_var_at(str, 0));
	r = reloc_of(l.o, "strs", "", OBJ_RELO_GLOBAL);
	ck_assert_ptr_eq(&l.o->datasecs[r->target], str);
	ck_assert_int_eq(r->off, 0);
	tun = &l.o->datasecs[find_ds(l.o, ".data.tuning")];
	ck_assert(!tun->readonly);
	ck_assert_uint_eq(*(const int *)(tun->init + find_var(tun, "tuned")->off), 42);
	ck_assert(l.o->datasecs[find_ds(l.o, ".rodata.knobs")].readonly);
	check_map(l.o, ".rodata.str1.1", BPF_MAP_TYPE_ARRAY, 4, 13, 1);
	check_map(l.o, ".data.tuning", BPF_MAP_TYPE_ARRAY, 4, 4, 1);
	check_map(l.o, "strings.bss", BPF_MAP_TYPE_ARRAY, 4, 16, 1);
	unload(&l);
}
END_TEST

/* e_machine 0 loads from memory; x86-64 does not. */
START_TEST(emachine_zero)
{
	size_t size;
	uint8_t *buf = read_all(obj_path("static_prog.bpf.o"), &size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	struct arena *a = arena_new();
	struct capture c;
	struct object *o;

	capture_init(&c);
	eh->e_machine = 0;
	ck_assert_int_eq(object_open_mem(buf, size, "zero.o", a, &c.d, &o), 0);
	ck_assert_uint_eq(o->nfuncs, 4);
	ck_assert_uint_eq(c.d.errors + c.d.warnings, 0);
	ck_assert_str_eq(o->path, "zero.o");
	check_map(o, "zero.bss", BPF_MAP_TYPE_ARRAY, 4, 12, 1);
	object_close(o);
	arena_free(a);
	free(buf);
}
END_TEST

/* ---- malformed inputs --------------------------------------------------- */

struct blob {
	uint8_t *p;
	size_t n;
};

static struct blob good(const char *base)
{
	struct blob b;

	b.p = read_all(obj_path(base), &b.n);
	return b;
}

static Elf64_Shdr *shdr(struct blob *b, unsigned i)
{
	return (Elf64_Shdr *)(b->p + ((Elf64_Ehdr *)b->p)->e_shoff) + i;
}

static unsigned shndx(struct blob *b, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;
	const char *strs = (const char *)b->p + shdr(b, eh->e_shstrndx)->sh_offset;

	for (unsigned i = 1; i < eh->e_shnum; i++)
		if (!strcmp(strs + shdr(b, i)->sh_name, name))
			return i;
	ck_abort_msg("no section %s", name);
	return 0;
}

static Elf64_Rel *rel(struct blob *b, const char *relsec, unsigned i)
{
	return (Elf64_Rel *)(b->p + shdr(b, shndx(b, relsec))->sh_offset) + i;
}

static Elf64_Sym *sym(struct blob *b, unsigned i)
{
	return (Elf64_Sym *)(b->p + shdr(b, shndx(b, ".symtab"))->sh_offset) + i;
}

static Elf64_Sym *sym_named(struct blob *b, const char *name)
{
	Elf64_Shdr *st = shdr(b, shndx(b, ".symtab"));
	const char *strs = (const char *)b->p + shdr(b, st->sh_link)->sh_offset;

	for (unsigned i = 1; i < st->sh_size / sizeof(Elf64_Sym); i++)
		if (!strcmp(strs + sym(b, i)->st_name, name))
			return sym(b, i);
	ck_abort_msg("no symbol %s", name);
	return NULL;
}

static uint8_t *sec_bytes(struct blob *b, const char *name)
{
	return b->p + shdr(b, shndx(b, name))->sh_offset;
}

/* Open B as "bad.o": -EINVAL, one error, exactly "bad.o: error: TEXT". */
static void expect_bad_n(struct blob *b, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void expect_bad_n(struct blob *b, size_t n, const char *fmt, ...)
{
	struct arena *a = arena_new();
	struct capture c;
	struct object *o = (struct object *)1;
	char want[1024], text[900];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(want, sizeof(want), "bad.o: error: %s", text);
	capture_init(&c);
	libbpf_prints = 0;
	err = object_open_mem(b->p, n, "bad.o", a, &c.d, &o);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(o);
	ck_assert_msg(c.d.errors == 1, "%u errors: %s", c.d.errors, c.all);
	ck_assert_str_eq(c.first, want);
	ck_assert_int_eq(libbpf_prints, 0);
	arena_free(a);
}

#define expect_bad(b, ...) expect_bad_n((b), (b)->n, __VA_ARGS__)

START_TEST(bad_header)
{
	struct blob b = good("static_prog.bpf.o");
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b.p, saved = *eh;
	unsigned long long shoff = eh->e_shoff;
	static const char junk[] = "this is not an object file at all";
	struct blob j = { (uint8_t *)junk, sizeof(junk) };

	expect_bad_n(&b, 0, "empty file");
	expect_bad(&j, "not an ELF file");
	expect_bad_n(&b, 3, "not an ELF file");
	expect_bad_n(&b, 10, "truncated ELF header (10 of 64 bytes)");
	expect_bad_n(&b, 63, "truncated ELF header (63 of 64 bytes)");
	for (size_t n = 64; n < b.n; n += (b.n - 64) / 5)
		expect_bad_n(&b, n, "section header table (%u entries at offset 0x%llx) is outside the file (%zu bytes)",
			     eh->e_shnum, shoff, n);
	expect_bad_n(&b, b.n - 1, "section header table (%u entries at offset 0x%llx) is outside the file (%zu bytes)",
		     eh->e_shnum, shoff, b.n - 1);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	expect_bad(&b, "ELF class 1 is not supported (BPF objects are ELF64)");
	*eh = saved;
	eh->e_ident[EI_DATA] = ELFDATA2MSB;
	expect_bad(&b, "big-endian BPF objects are not supported");
	*eh = saved;
	eh->e_machine = EM_X86_64;
	expect_bad(&b, "e_machine 62 is not BPF (247)");
	*eh = saved;
	eh->e_type = ET_EXEC;
	expect_bad(&b, "ELF type 2 is not a relocatable object (ET_REL)");
	*eh = saved;
	eh->e_shoff = b.n + 0x100;
	expect_bad(&b, "section header table (%u entries at offset 0x%zx) is outside the file (%zu bytes)",
		   eh->e_shnum, b.n + 0x100, b.n);
	*eh = saved;
	eh->e_shentsize = 40;
	expect_bad(&b, "section header entry size 40, expected 64");
	free(b.p);
}
END_TEST

START_TEST(bad_sections)
{
	struct blob b = good("static_prog.bpf.o");
	unsigned x = shndx(&b, "xdp");
	Elf64_Shdr *s = shdr(&b, x), saved = *s;

	s->sh_offset = b.n - 8;
	expect_bad(&b, "section %u: contents (offset 0x%zx, size 0x%llx) are outside the file (%zu bytes)",
		   x, b.n - 8, (unsigned long long)s->sh_size, b.n);
	*s = saved;
	s->sh_name = 0x7fffff;
	expect_bad(&b, "section %u: bad name offset 0x7fffff", x);
	*s = saved;
	s->sh_size -= 3;
	expect_bad(&b, "section 'xdp': size 0x%llx is not a multiple of the instruction size (8)",
		   (unsigned long long)s->sh_size);
	*s = saved;
	s->sh_size -= 8;   /* the function symbol no longer fits */
	expect_bad(&b, "function 'xdp_static': range 0x0+0x118 is outside section 'xdp' (0x110 bytes)");
	*s = saved;
	free(b.p);
}
END_TEST

START_TEST(bad_symbols)
{
	struct blob b = good("static_prog.bpf.o");
	Elf64_Sym *y = sym(&b, 5), saved = *y;   /* add_one */
	unsigned nsec = ((Elf64_Ehdr *)b.p)->e_shnum;

	y->st_name = 0xffffff;
	expect_bad(&b, "symbol 5: bad name offset 0xffffff");
	*y = saved;
	y->st_shndx = 200;
	expect_bad(&b, "symbol 'add_one': section index 200 is out of range (%u sections)", nsec);
	*y = saved;
	y->st_value = 4;
	expect_bad(&b, "function 'add_one': offset 0x4 or size 0x40 in section '.text' is not a multiple of 8");
	*y = saved;
	y->st_value = 0x20;    /* now overlaps 'scale' (0x0+0x28) */
	expect_bad(&b, "functions 'scale' and 'add_one' overlap in section '.text'");
	*y = saved;
	free(b.p);
}
END_TEST

START_TEST(bad_relocs)
{
	struct blob b = good("static_prog.bpf.o");
	Elf64_Rel *r0 = rel(&b, ".relxdp", 0), *r1 = rel(&b, ".relxdp", 1);
	Elf64_Rel s0 = *r0, s1 = *r1;
	unsigned nsyms = (unsigned)(shdr(&b, shndx(&b, ".symtab"))->sh_size / sizeof(Elf64_Sym));

	/* r0: call at 0x8 against .text; r1: LDDW at 0x20 against .text */
	r0->r_info = ELF64_R_INFO(999, ELF64_R_TYPE(s0.r_info));
	expect_bad(&b, "section 'xdp': relocation 0 at offset 0x8: symbol index 999 is out of range (%u symbols)",
		   nsyms);
	*r0 = s0;
	r0->r_info = ELF64_R_INFO(0, ELF64_R_TYPE(s0.r_info));
	expect_bad(&b, "section 'xdp': relocation 0 at offset 0x8: symbol index 0 is out of range (%u symbols)",
		   nsyms);
	*r0 = s0;
	r0->r_offset = 0x1000;
	expect_bad(&b, "section 'xdp': relocation 0 at offset 0x1000 is outside the section");
	r0->r_offset = 0x114;
	expect_bad(&b, "section 'xdp': relocation 0 at offset 0x114 is outside the section");
	r0->r_offset = 0xc;
	expect_bad(&b, "section 'xdp': relocation 0 at offset 0xc is not at an instruction boundary");
	r0->r_offset = 0x18;   /* r1 = 4 */
	expect_bad(&b, "section 'xdp': relocation 0 at offset 0x18: R_BPF_64_32 on an instruction that is not a call (code 0xb7)");
	*r0 = s0;
	r1->r_offset = 0x30;   /* r3 = 0 */
	expect_bad(&b, "section 'xdp': relocation 1 at offset 0x30: R_BPF_64_64 on an instruction that is not LD imm64 (code 0xb7)");
	*r1 = s1;
	r1->r_info = ELF64_R_INFO(ELF64_R_SYM(s1.r_info), 3);
	expect_bad(&b, "section 'xdp': relocation 1 at offset 0x20: unsupported relocation type 3");
	*r1 = s1;
	r1->r_offset = 0x8;    /* two relocations on one call */
	r1->r_info = s0.r_info;
	expect_bad(&b, "section 'xdp': two relocations at offset 0x8");
	*r1 = s1;
	/* the LDDW's imm moved the callback address off every function */
	memcpy(sec_bytes(&b, "xdp") + 0x20 + 4, &(int32_t){ 0x70 }, 4);
	expect_bad(&b, "section 'xdp': relocation 1 at offset 0x20: no function starts at slot 14 of section '.text'");
	memcpy(sec_bytes(&b, "xdp") + 0x20 + 4, &(int32_t){ 0x1000 }, 4);
	expect_bad(&b, "section 'xdp': relocation 1 at offset 0x20: address 0x1000 is outside section '.text'");
	free(b.p);
}
END_TEST

START_TEST(bad_btf)
{
	struct blob b = good("static_prog.bpf.o");
	uint8_t *btf = sec_bytes(&b, ".BTF"), *ext = sec_bytes(&b, ".BTF.ext");
	uint8_t bsave[64], esave[64];
	uint32_t hdr_len, line_off, v;

	memcpy(bsave, btf, sizeof(bsave));
	memcpy(esave, ext, sizeof(esave));
	btf[0] = 0x34;
	btf[1] = 0x12;
	expect_bad(&b, "section '.BTF': bad magic 0x1234");
	memcpy(btf, bsave, sizeof(bsave));
	memcpy(&v, btf + 24 + 4, 4);         /* type [1]: info */
	v = (v & ~(0x1fu << 24)) | (31u << 24);
	memcpy(btf + 24 + 4, &v, 4);
	expect_bad(&b, "section '.BTF': type [1] has unknown kind 31");
	memcpy(btf, bsave, sizeof(bsave));
	memcpy(&v, btf + 12, 4);             /* type_len past the strings */
	v += 0x10000;
	memcpy(btf + 12, &v, 4);
	{
		struct arena *a = arena_new();
		struct capture c;
		struct object *o;

		capture_init(&c);
		ck_assert_int_eq(object_open_mem(b.p, b.n, "bad.o", a, &c.d, &o), -EINVAL);
		ck_assert_uint_eq(c.d.errors, 1);
		ck_assert_msg(strstr(c.first, "bad.o: error: section '.BTF': types ("), "%s", c.first);
		arena_free(a);
	}
	memcpy(btf, bsave, sizeof(bsave));

	ext[0] = 0x34;
	ext[1] = 0x12;
	expect_bad(&b, "section '.BTF.ext': bad magic 0x1234");
	memcpy(ext, esave, sizeof(esave));
	ext[2] = 2;
	expect_bad(&b, "section '.BTF.ext': unsupported version 2");
	memcpy(ext, esave, sizeof(esave));
	memcpy(ext + 4, &(uint32_t){ 0x100000 }, 4);
	expect_bad(&b, "section '.BTF.ext': bad header length 1048576");
	memcpy(ext, esave, sizeof(esave));
	memcpy(ext + 20, &(uint32_t){ 0x100000 }, 4);   /* line_info_len */
	expect_bad(&b, "section '.BTF.ext': a subsection is outside the section");
	memcpy(ext, esave, sizeof(esave));
	/* the first line_info record points past its section */
	memcpy(&hdr_len, ext + 4, 4);
	memcpy(&line_off, ext + 16, 4);
	{
		uint8_t *sub = ext + hdr_len + line_off;
		uint32_t name_off, save;
		struct arena *a = arena_new();
		struct capture c;
		struct object *o;
		const char *secname;

		capture_init(&c);
		ck_assert_int_eq(object_open_mem(b.p, b.n, "good.o", a, &c.d, &o), 0);
		memcpy(&name_off, sub + 4, 4);
		secname = btf__name_by_offset(o->btf, name_off);
		ck_assert_ptr_nonnull(secname);
		memcpy(&save, sub + 12, 4);
		memcpy(sub + 12, &(uint32_t){ 0xfff0 }, 4);
		expect_bad(&b, "section '.BTF.ext': line_info record 0 for section '%s': instruction offset 0xfff0 is not an instruction of the section",
			   secname);
		memcpy(sub + 12, &(uint32_t){ 0x4 }, 4);
		expect_bad(&b, "section '.BTF.ext': line_info record 0 for section '%s': instruction offset 0x4 is not an instruction of the section",
			   secname);
		memcpy(sub + 12, &save, 4);
		memcpy(sub + 4, &(uint32_t){ 0x7fffffff }, 4);
		expect_bad(&b, "section '.BTF.ext': line_info: bad section name offset 0x7fffffff");
		memcpy(sub + 4, &name_off, 4);
		memcpy(sub, &(uint32_t){ 7 }, 4);
		expect_bad(&b, "section '.BTF.ext': line_info: bad record size 7");
		memcpy(sub, &(uint32_t){ 16 }, 4);
		object_close(o);
		arena_free(a);
	}
	free(b.p);
}
END_TEST

START_TEST(bad_struct_ops)
{
	struct blob b = good("core_ops.bpf.o");
	Elf64_Rel *r = rel(&b, ".rel.struct_ops", 0), saved = *r;

	r->r_offset = 4;
	expect_bad(&b, "struct_ops 'demo': no member of 'demo_ops' at offset 4");
	r->r_offset = 0x28;
	expect_bad(&b, "section '.struct_ops': relocation 0 at offset 0x28 is outside the section");
	*r = saved;
	r->r_info = ELF64_R_INFO(ELF64_R_SYM(saved.r_info), 1);
	expect_bad(&b, "section '.struct_ops': relocation 0 at offset 0x0: unsupported relocation type 1");
	*r = saved;
	free(b.p);
}
END_TEST

START_TEST(bad_maps)
{
	struct blob b = good("legacy_maps.bpf.o");
	Elf64_Shdr *s = shdr(&b, shndx(&b, "maps"));

	s->sh_size = 30;
	expect_bad(&b, "section 'maps': cannot tell the size of struct bpf_map_def (30 bytes for 2 maps)");
	free(b.p);
}
END_TEST

static uint32_t next_rand(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Damage one byte of B's copy M: in the contents of a random section or
 * in the section header table, so that every parser gets its share. */
static void damage(struct blob *g, uint8_t *m, uint32_t *seed)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)g->p;
	unsigned s = next_rand(seed) % (eh->e_shnum + 1u);
	size_t off = eh->e_shoff, len = (size_t)eh->e_shnum * sizeof(Elf64_Shdr), pos;

	if (s < eh->e_shnum) {
		off = shdr(g, s)->sh_offset;
		len = shdr(g, s)->sh_type == SHT_NOBITS ? 0 : shdr(g, s)->sh_size;
	}
	if (!len) {
		off = 0;
		len = sizeof(Elf64_Ehdr);
	}
	pos = off + next_rand(seed) % len;
	if (next_rand(seed) % 4 == 0)
		m[pos] = (uint8_t)next_rand(seed);
	else
		m[pos] ^= (uint8_t)(1u << (next_rand(seed) & 7));
}

/* A function symbol with st_size 0 reaches up to the next function, or
 * to the end of its section. */
START_TEST(zero_size_func)
{
	struct blob b = good("static_prog.bpf.o");
	struct arena *a = arena_new();
	struct capture c;
	struct object *o;

	sym_named(&b, "scale")->st_size = 0;
	sym_named(&b, "loop_cb")->st_size = 0;
	capture_init(&c);
	ck_assert_int_eq(object_open_mem(b.p, b.n, "zero.o", a, &c.d, &o), 0);
	ck_assert_uint_eq(func(o, "scale")->nslots, func(o, "add_one")->start);
	ck_assert_uint_eq(func(o, "loop_cb")->nslots,
			  o->sections[func(o, "loop_cb")->sec].nslots - func(o, "loop_cb")->start);
	object_close(o);
	arena_free(a);
	free(b.p);
}
END_TEST

/* Damaged and truncated copies of the fixtures: never a crash, a leak, a
 * libbpf print, or a failure without exactly one error. */
START_TEST(mutation_sweep)
{
	static const char *const bases[] = {
		"static_prog.bpf.o", "core_ops.bpf.o", "legacy_maps.bpf.o", "nobtf.bpf.o",
		"pin_unknown.bpf.o", "strings.bpf.o",
	};
	uint32_t seed = 12345;
	int fails = 0, oks = 0;

	for (size_t k = 0; k < ARRAY_SIZE(bases); k++) {
		struct blob g = good(bases[k]);
		uint8_t *m = malloc(g.n);

		for (int iter = 0; iter < 1000; iter++) {
			struct arena *a = arena_new();
			struct capture c;
			struct object *o;
			size_t n = g.n;
			int err;

			memcpy(m, g.p, g.n);
			for (int f = 0; f < 1 + iter % 3; f++)
				damage(&g, m, &seed);
			if (iter % 10 == 0)
				n = next_rand(&seed) % g.n;
			capture_init(&c);
			libbpf_prints = 0;
			err = object_open_mem(m, n, "mut.o", a, &c.d, &o);
			ck_assert_int_eq(libbpf_prints, 0);
			if (err) {
				ck_assert_int_eq(err, -EINVAL);
				ck_assert_msg(c.d.errors == 1, "%s iter %d: %u errors: %s",
					      bases[k], iter, c.d.errors, c.all);
				ck_assert_ptr_null(o);
				fails++;
			} else {
				ck_assert_uint_eq(c.d.errors, 0);
				object_close(o);
				oks++;
			}
			arena_free(a);
		}
		free(m);
		free(g.p);
	}
	ck_assert_int_gt(fails, 1000);
	ck_assert_int_gt(oks, 1000);
}
END_TEST

/* ---- examples ------------------------------------------------------------ */

START_TEST(ex_xdp_fw)
{
	struct loaded l;
	const struct obj_reloc *r;

	load(&l, "xdp_fw.bpf.o");
	ck_assert_uint_eq(l.o->nfuncs, 1);
	check_prog(l.o, "xdp_fw", "xdp", BPF_PROG_TYPE_XDP);
	ck_assert_uint_eq(l.o->nmaps, 2);
	check_map(l.o, "blocked_ips", BPF_MAP_TYPE_HASH, 4, 8, 4096);
	check_map(l.o, "counters", BPF_MAP_TYPE_ARRAY, 4, 8, 5);
	ck_assert_int_eq(relocs_of(l.o, "xdp_fw", "counters", &r), 9);
	ck_assert_int_eq(relocs_of(l.o, "xdp_fw", "blocked_ips", &r), 1);
	ck_assert_int_eq(r->kind, OBJ_RELO_MAP);
	ck_assert_str_eq(l.o->maps[r->target].name, "blocked_ips");
	ck_assert_uint_eq(l.o->sections[func(l.o, "xdp_fw")->sec].nrelocs, 10);
	check_line(l.o, "xdp_fw", 0, "examples/xdp_fw.bpf.c");
	check_line(l.o, "xdp_fw", r->slot - func(l.o, "xdp_fw")->start, "examples/xdp_fw.bpf.c");
	ck_assert_msg(strstr(object_line_at(&l.o->sections[func(l.o, "xdp_fw")->sec],
					    r->slot)->text, "blocked_ips"),
		      "line of the blocked_ips lookup");
	ck_assert_uint_eq(l.o->ndatasecs, 0);
	ck_assert_str_eq(l.o->license, "GPL");
	unload(&l);
}
END_TEST

START_TEST(ex_xdp_lb)
{
	struct loaded l;
	const struct obj_reloc *r;

	load(&l, "xdp_lb.bpf.o");
	check_prog(l.o, "xdp_lb", "xdp", BPF_PROG_TYPE_XDP);
	ck_assert(func(l.o, "lb_flow_hash")->global && !func(l.o, "lb_flow_hash")->is_prog);
	ck_assert(!func(l.o, "lb_mix")->global && !func(l.o, "lb_rewrite")->global);
	ck_assert_uint_eq(func(l.o, "lb_rewrite")->start, 0x128 / 8);
	r = reloc_of(l.o, "xdp_lb", "lb_flow_hash", OBJ_RELO_CALL);
	ck_assert_str_eq(l.o->funcs[r->target].name, "lb_flow_hash");
	r = reloc_of(l.o, "xdp_lb", "", OBJ_RELO_CALL);
	ck_assert_str_eq(l.o->funcs[r->target].name, "lb_rewrite");
	/* the calls to lb_mix inside .text need no relocation */
	ck_assert_uint_eq(l.o->sections[func(l.o, "lb_mix")->sec].nrelocs, 0);
	check_map(l.o, "services", BPF_MAP_TYPE_HASH, 8, 8, 256);
	check_map(l.o, "backends", BPF_MAP_TYPE_ARRAY, 4, 12, 256);
	check_line(l.o, "lb_rewrite", 3, "examples/xdp_lb.bpf.c");
	unload(&l);
}
END_TEST

START_TEST(ex_tc_trace)
{
	struct loaded l;

	load(&l, "tc_classifier.bpf.o");
	check_prog(l.o, "tc_classifier", "tc", BPF_PROG_TYPE_SCHED_CLS);
	check_map(l.o, "denied_ports", BPF_MAP_TYPE_HASH, 4, 8, 1024);
	reloc_of(l.o, "tc_classifier", "denied_ports", OBJ_RELO_MAP);
	unload(&l);

	load(&l, "trace_exec.bpf.o");
	check_prog(l.o, "trace_exec", "tracepoint/syscalls/sys_enter_execve",
		   BPF_PROG_TYPE_TRACEPOINT);
	check_prog(l.o, "trace_exit", "kprobe/do_exit", BPF_PROG_TYPE_KPROBE);
	check_map(l.o, "events", BPF_MAP_TYPE_RINGBUF, 0, 0, 262144);
	check_map(l.o, "stats", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4);
	reloc_of(l.o, "trace_exec", "events", OBJ_RELO_MAP);
	ck_assert_int_eq(reloc_of(l.o, "trace_exit", "stats", OBJ_RELO_MAP)->target,
			 (int)(find_map(l.o, "stats") - l.o->maps));
	unload(&l);
}
END_TEST

START_TEST(ex_loop_sum)
{
	struct loaded l;
	const struct obj_reloc *r;
	const struct obj_datasec *ro, *data, *bss;
	uint32_t salt, rounds;

	load(&l, "loop_sum.bpf.o");
	check_prog(l.o, "loop_sum", "xdp", BPF_PROG_TYPE_XDP);
	r = reloc_of(l.o, "loop_sum", "", OBJ_RELO_FUNC_ADDR);
	ck_assert_str_eq(l.o->funcs[r->target].name, "stir_round");
	ro = &l.o->datasecs[find_ds(l.o, ".rodata")];
	data = &l.o->datasecs[find_ds(l.o, ".data")];
	bss = &l.o->datasecs[find_ds(l.o, ".bss")];
	ck_assert(find_var(ro, "cfg_rounds")->off == 0 && find_var(ro, "cfg_rounds")->size == 4);
	ck_assert(find_var(ro, "cfg_drop_above")->off == 4);
	memcpy(&rounds, ro->init, 4);
	ck_assert_uint_eq(rounds, 4);
	memcpy(&salt, data->init + find_var(data, "salt")->off, 4);
	ck_assert_uint_eq(salt, 0x9e3779b9);
	ck_assert(!find_var(bss, "nr_frames")->global);
	ck_assert_uint_eq(find_var(bss, "total_bytes")->size, 8);
	r = reloc_of(l.o, "loop_sum", "salt", OBJ_RELO_GLOBAL);
	ck_assert_ptr_eq(&l.o->datasecs[r->target], data);
	r = reloc_of(l.o, "loop_sum", "cfg_drop_above", OBJ_RELO_GLOBAL);
	ck_assert_int_eq(r->off, 4);
	/* static nr_frames: the .bss section symbol plus imm */
	r = reloc_of(l.o, "loop_sum", "", OBJ_RELO_GLOBAL);
	ck_assert_ptr_eq(&l.o->datasecs[r->target], bss);
	ck_assert_int_eq(r->off, 8);
	ck_assert_str_eq(object_var_at(bss, (uint32_t)r->off)->name, "nr_frames");
	check_map(l.o, "loop_sum.rodata", BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	check_map(l.o, "loop_sum.data", BPF_MAP_TYPE_ARRAY, 4, 4, 1);
	check_map(l.o, "loop_sum.bss", BPF_MAP_TYPE_ARRAY, 4, 16, 1);
	ck_assert_uint_eq(find_map(l.o, "loop_sum.rodata")->flags, BPF_F_RDONLY_PROG);
	unload(&l);
}
END_TEST

START_TEST(ex_tailcall)
{
	struct loaded l;

	load(&l, "tailcall.bpf.o");
	check_prog(l.o, "tail_tcp", "xdp", BPF_PROG_TYPE_XDP);
	check_prog(l.o, "tail_udp", "xdp", BPF_PROG_TYPE_XDP);
	check_prog(l.o, "tail_entry", "xdp", BPF_PROG_TYPE_XDP);
	ck_assert_uint_eq(func(l.o, "tail_tcp")->start, 0);
	ck_assert_uint_eq(func(l.o, "tail_udp")->start, 0x148 / 8);
	ck_assert_uint_eq(func(l.o, "tail_entry")->start, 0x258 / 8);
	ck_assert_uint_eq(func(l.o, "tail_tcp")->nslots, 0x148 / 8);
	check_map(l.o, "jmp_table", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 2);
	reloc_of(l.o, "tail_entry", "jmp_table", OBJ_RELO_MAP);
	reloc_of(l.o, "tail_entry", "tail_misses", OBJ_RELO_GLOBAL);
	ck_assert_int_eq(object_func_at(l.o, func(l.o, "tail_udp")->sec, 0x148 / 8),
			 object_find_func(l.o, "tail_udp"));
	ck_assert_int_eq(object_func_at(l.o, func(l.o, "tail_udp")->sec, 0x148 / 8 - 1),
			 object_find_func(l.o, "tail_tcp"));
	unload(&l);
}
END_TEST

START_TEST(ex_scx_mini)
{
	static const struct {
		const char *func, *member;
	} roles[] = {
		{ "mini_select_cpu", "select_cpu" }, { "mini_enqueue", "enqueue" },
		{ "mini_dispatch", "dispatch" }, { "mini_init", "init" },
		{ "mini_exit", "exit" },
	};
	static const struct {
		const char *name, *proto;
	} kf[] = {
		{ "scx_bpf_select_cpu_dfl",
		  "s32 scx_bpf_select_cpu_dfl(struct task_struct *, s32, u64, _Bool *)" },
		{ "scx_bpf_dsq_insert", "void scx_bpf_dsq_insert(struct task_struct *, u64, u64, u64)" },
		{ "scx_bpf_dsq_move_to_local", "_Bool scx_bpf_dsq_move_to_local(u64)" },
		{ "scx_bpf_create_dsq", "s32 scx_bpf_create_dsq(u64, s32)" },
	};
	struct loaded l;
	const struct obj_map *m;
	const struct obj_section *s;
	const struct obj_reloc *r;
	unsigned line;

	load(&l, "scx_mini.bpf.o");
	for (size_t i = 0; i < ARRAY_SIZE(roles); i++) {
		const struct obj_func *f = func(l.o, roles[i].func);

		ck_assert(f->is_prog);
		ck_assert_int_eq(f->prog_type, BPF_PROG_TYPE_STRUCT_OPS);
		ck_assert_int_eq(f->struct_ops, 0);
		ck_assert_str_eq(f->struct_ops_type, "sched_ext_ops");
		ck_assert_str_eq(f->struct_ops_member, roles[i].member);
		ck_assert(f->sleepable == !strcmp(roles[i].func, "mini_init"));
	}
	ck_assert_str_eq(l.o->sections[func(l.o, "mini_init")->sec].name, "struct_ops.s/mini_init");
	ck_assert_uint_eq(l.o->nstruct_ops, 1);
	ck_assert_str_eq(l.o->struct_ops[0].map_name, "mini_ops");
	ck_assert_str_eq(l.o->struct_ops[0].section, ".struct_ops.link");
	ck_assert(l.o->struct_ops[0].link);
	m = find_map(l.o, "mini_ops");
	ck_assert_uint_eq(m->type, BPF_MAP_TYPE_STRUCT_OPS);
	ck_assert_uint_eq(m->value_size, 376);
	ck_assert_uint_ne(m->btf_value_id, 0);
	check_map(l.o, "stats", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 2);
	check_map(l.o, "scx_mini.bss", BPF_MAP_TYPE_ARRAY, 4, 4, 1);
	ck_assert_uint_eq(l.o->nkfuncs, ARRAY_SIZE(kf));
	for (size_t i = 0; i < ARRAY_SIZE(kf); i++) {
		ck_assert_str_eq(l.o->kfuncs[i].name, kf[i].name);
		ck_assert_uint_ne(l.o->kfuncs[i].btf_id, 0);
		ck_assert_str_eq(l.o->kfuncs[i].proto, kf[i].proto);
	}
	ck_assert_int_eq(relocs_of(l.o, "mini_select_cpu", "scx_bpf_dsq_insert", &r), 1);
	ck_assert_int_eq(r->kind, OBJ_RELO_KFUNC);
	ck_assert_str_eq(l.o->kfuncs[r->target].name, "scx_bpf_dsq_insert");
	ck_assert_int_eq(reloc_of(l.o, "mini_enqueue", "scx_bpf_dsq_insert", OBJ_RELO_KFUNC)->target,
			 r->target);
	reloc_of(l.o, "mini_exit", "exit_kind", OBJ_RELO_GLOBAL);
	ck_assert_uint_eq(l.o->nexterns, 0);
	/* the CO-RE relocation of ei->kind, at insn byte offset 8 */
	s = &l.o->sections[func(l.o, "mini_exit")->sec];
	ck_assert_uint_eq(s->ncore, 1);
	ck_assert_uint_eq(s->core[0].slot, 1);
	ck_assert_str_eq(s->core[0].type_name, "scx_exit_info");
	ck_assert_str_eq(s->core[0].kind_name, "byte_off");
	ck_assert_str_eq(s->core[0].access, "0:0");
	line = check_line(l.o, "mini_exit", 1, "examples/scx_mini.bpf.c");
	ck_assert_msg(strstr(object_line_at(s, 1)->text, "ei->kind"), "%s", object_line_at(s, 1)->text);
	ck_assert_uint_gt(line, 60);
	check_line(l.o, "mini_enqueue", 0, "examples/scx_mini.bpf.c");
	ck_assert_uint_ne(func(l.o, "mini_enqueue")->btf_func_id, 0);
	unload(&l);
}
END_TEST

START_TEST(ex_samesec)
{
	struct loaded l;

	ck_assert(!libbpf_opens("xdp_samesec.bpf.o"));
	load(&l, "xdp_samesec.bpf.o");
	ck_assert_uint_eq(l.o->nfuncs, 2);
	ck_assert_str_eq(l.o->funcs[1].name, "samesec_classify");
	ck_assert_uint_eq(l.o->funcs[1].start, 0x60 / 8);
	ck_assert(!l.o->funcs[1].global);
	unload(&l);
}
END_TEST

/* Whatever libbpf opens, we see the same programs and maps. */
START_TEST(libbpf_parity)
{
	static const char *const ex[] = {
		"xdp_fw.bpf.o", "xdp_lb.bpf.o", "tc_classifier.bpf.o", "trace_exec.bpf.o",
		"loop_sum.bpf.o", "tailcall.bpf.o", "scx_mini.bpf.o", "nobtf.bpf.o",
		"strings.bpf.o",
	};

	for (size_t k = 0; k < ARRAY_SIZE(ex); k++) {
		struct bpf_object *bo = bpf_object__open_file(obj_path(ex[k]), NULL);
		struct bpf_program *p;
		struct bpf_map *bm;
		struct loaded l;
		int nprogs = 0, nprog_funcs = 0;

		ck_assert_msg(bo, "libbpf cannot open %s", ex[k]);
		load(&l, ex[k]);
		bpf_object__for_each_program(p, bo) {
			const struct obj_func *f = func(l.o, bpf_program__name(p));

			nprogs++;
			ck_assert(f->is_prog);
			ck_assert_str_eq(l.o->sections[f->sec].name, bpf_program__section_name(p));
			ck_assert_uint_eq(f->nslots, bpf_program__insn_cnt(p));
			ck_assert_mem_eq(l.o->sections[f->sec].raw + f->start, bpf_program__insns(p),
					 f->nslots * sizeof(struct bpf_insn));
			if (bpf_program__type(p) != BPF_PROG_TYPE_UNSPEC)
				ck_assert_int_eq(f->prog_type, bpf_program__type(p));
		}
		for (uint32_t i = 0; i < l.o->nfuncs; i++)
			nprog_funcs += l.o->funcs[i].is_prog;
		ck_assert_int_eq(nprogs, nprog_funcs);
		bpf_object__for_each_map(bm, bo) {
			const struct obj_map *m = find_map(l.o, bpf_map__name(bm));

			ck_assert_uint_eq(m->type, bpf_map__type(bm));
			ck_assert_uint_eq(m->key_size, bpf_map__key_size(bm));
			ck_assert_uint_eq(m->value_size, bpf_map__value_size(bm));
			ck_assert_uint_eq(m->max_entries, bpf_map__max_entries(bm));
			if (bpf_map__is_internal(bm)) {
				size_t sz;
				const void *init = bpf_map__initial_value(bm, &sz);

				ck_assert_int_ge(m->datasec, 0);
				ck_assert_uint_eq(sz, l.o->datasecs[m->datasec].size);
				ck_assert_mem_eq(init, l.o->datasecs[m->datasec].init, sz);
			} else {
				ck_assert_uint_eq(m->btf_key_id, bpf_map__btf_key_type_id(bm));
				ck_assert_uint_eq(m->btf_value_id, bpf_map__btf_value_type_id(bm));
			}
		}
		unload(&l);
		bpf_object__close(bo);
	}
}
END_TEST

/* ---- helpers ------------------------------------------------------------- */

START_TEST(helpers)
{
	ck_assert_ptr_null(helper_name(0));
	ck_assert_ptr_null(helper_name(-1));
	ck_assert_str_eq(helper_name(BPF_FUNC_map_lookup_elem), "bpf_map_lookup_elem");
	ck_assert_str_eq(helper_name(BPF_FUNC_tail_call), "bpf_tail_call");
	ck_assert_str_eq(helper_name(181), "bpf_loop");
	ck_assert_str_eq(helper_name(BPF_FUNC_user_ringbuf_drain), "bpf_user_ringbuf_drain");
	ck_assert_str_eq(helper_name(210), "bpf_cgrp_storage_get");
	ck_assert_str_eq(helper_name(211), "bpf_cgrp_storage_delete");
	ck_assert_int_ge(helper_count(), 212);
	ck_assert_ptr_null(helper_name(helper_count()));
	ck_assert_int_eq(helper_id("bpf_ringbuf_reserve"), BPF_FUNC_ringbuf_reserve);
	ck_assert_int_eq(helper_id("bpf_cgrp_storage_delete"), 211);
	ck_assert_int_eq(helper_id("bpf_unspec"), -1);
	ck_assert_int_eq(helper_id("nope"), -1);
	for (int i = 1; i < helper_count(); i++)
		ck_assert_int_eq(helper_id(helper_name(i)), i);
}
END_TEST

static Suite *object_suite(void)
{
	Suite *s = suite_create("object");
	TCase *fx = tcase_create("fixtures"), *bad = tcase_create("malformed");
	TCase *ex = tcase_create("examples"), *hp = tcase_create("helpers");

	tcase_add_test(fx, legacy_maps);
	tcase_add_test(fx, static_prog);
	tcase_add_test(fx, pin_unknown);
	tcase_add_test(fx, unknown_member);
	tcase_add_test(fx, no_btf);
	tcase_add_test(fx, core_ops);
	tcase_add_test(fx, strings);
	tcase_add_test(fx, emachine_zero);
	tcase_add_test(bad, bad_header);
	tcase_add_test(bad, bad_sections);
	tcase_add_test(bad, bad_symbols);
	tcase_add_test(bad, bad_relocs);
	tcase_add_test(bad, bad_btf);
	tcase_add_test(bad, bad_struct_ops);
	tcase_add_test(bad, bad_maps);
	tcase_add_test(bad, zero_size_func);
	tcase_add_test(bad, mutation_sweep);
	tcase_set_timeout(bad, 120);
	tcase_add_test(ex, ex_xdp_fw);
	tcase_add_test(ex, ex_xdp_lb);
	tcase_add_test(ex, ex_tc_trace);
	tcase_add_test(ex, ex_loop_sum);
	tcase_add_test(ex, ex_tailcall);
	tcase_add_test(ex, ex_scx_mini);
	tcase_add_test(ex, ex_samesec);
	tcase_add_test(ex, libbpf_parity);
	tcase_add_test(hp, helpers);
	suite_add_tcase(s, fx);
	suite_add_tcase(s, bad);
	suite_add_tcase(s, ex);
	suite_add_tcase(s, hp);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	objs = argv + 1;
	nobjs = argc - 1;
	libbpf_set_print(count_print);
	sr = srunner_create(object_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
