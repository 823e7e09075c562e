/* dump.c - --dump=object|insns|cfg|ssa: a printer for every stage. */
#include "pipeline.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int dump_stage_parse(const char *s)
{
	static const char *const names[] = {
		[DUMP_OBJECT] = "object", [DUMP_INSNS] = "insns",
		[DUMP_CFG] = "cfg", [DUMP_SSA] = "ssa",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

static const char *prog_type_name(enum bpf_prog_type t)
{
	const char *s = libbpf_bpf_prog_type_str(t);

	return s ? s : "unknown";
}

/* Mark FUNC and every function it calls or passes as a callback. */
static void mark_callees(const struct loaded *l, int func, uint8_t *seen)
{
	const struct obj_func *f = &l->o->funcs[func];
	const struct insn *insns = l->insns[f->sec];
	uint32_t s;

	if (seen[func])
		return;
	seen[func] = 1;
	for (s = f->start; s < f->start + f->nslots; s++)
		if (insns[s].ref.kind == INSN_REF_SUBPROG ||
		    insns[s].ref.kind == INSN_REF_CALLBACK)
			mark_callees(l, insns[s].ref.index, seen);
}

static void dump_object(const struct object *o, FILE *out)
{
	uint32_t i, j;

	fprintf(out, "object %s: %u programs and functions, %u maps, license %s\n", o->path,
		o->nfuncs, o->nmaps, o->license ? o->license : "(none)");
	for (i = 0; i < o->nfuncs; i++) {
		const struct obj_func *f = &o->funcs[i];

		fprintf(out, "%s %s: section %s, insns %u-%u, %s", f->is_prog ? "program" : "function",
			f->name, o->sections[f->sec].name, f->start, f->start + f->nslots - 1,
			f->global ? "global" : "static");
		if (f->is_prog)
			fprintf(out, ", type %s", prog_type_name(f->prog_type));
		if (f->struct_ops_type)
			fprintf(out, ", struct_ops %s.%s (map %s)", f->struct_ops_type,
				f->struct_ops_member,
				f->struct_ops >= 0 ? o->struct_ops[f->struct_ops].map_name : "?");
		if (f->sleepable)
			fputs(", sleepable", out);
		fputc('\n', out);
	}
	for (i = 0; i < o->nmaps; i++) {
		const struct obj_map *m = &o->maps[i];
		const char *t = libbpf_bpf_map_type_str(m->type);

		fprintf(out, "map %s: %s, key %u, value %u, max_entries %u, flags %#x%s\n", m->name,
			t ? t : "unknown", m->key_size, m->value_size, m->max_entries, m->flags,
			m->legacy ? ", legacy" : "");
	}
	for (i = 0; i < o->ndatasecs; i++) {
		const struct obj_datasec *ds = &o->datasecs[i];

		fprintf(out, "data %s: %u bytes%s\n", ds->name, ds->size, ds->readonly ? ", read-only" : "");
		for (j = 0; j < ds->nvars; j++)
			fprintf(out, "  var %s: offset %u, size %u\n", ds->vars[j].name,
				ds->vars[j].off, ds->vars[j].size);
	}
	for (i = 0; i < o->nkfuncs; i++)
		fprintf(out, "kfunc %s: %s\n", o->kfuncs[i].name,
			o->kfuncs[i].proto ? o->kfuncs[i].proto : "(no BTF prototype)");
	for (i = 0; i < o->nstruct_ops; i++)
		fprintf(out, "struct_ops %s: struct %s, section %s\n", o->struct_ops[i].map_name,
			o->struct_ops[i].type_name, o->struct_ops[i].section);
}

static void dump_func_insns(const struct loaded *l, int func, FILE *out)
{
	const struct object *o = l->o;
	const struct obj_func *f = &o->funcs[func];
	const struct obj_section *sec = &o->sections[f->sec];
	const struct obj_line *last = NULL;
	const struct obj_core_relo *core;
	char buf[256];
	uint32_t s;

	fprintf(out, "%s %s: section %s", f->is_prog ? "program" : "function", f->name, sec->name);
	if (f->is_prog)
		fprintf(out, ", type %s", prog_type_name(f->prog_type));
	if (f->struct_ops_type)
		fprintf(out, ", struct_ops %s.%s", f->struct_ops_type, f->struct_ops_member);
	fputc('\n', out);
	for (s = f->start; s < f->start + f->nslots; s++) {
		const struct insn *in = &l->insns[f->sec][s];
		const struct obj_line *ln = object_line_at(sec, s);

		if (in->cont)
			continue;
		if (ln && ln != last && ln->line && ln->slot == s) {
			char path[512];

			fprintf(out, "; %s:%u:%u %s\n",
				path_clean(ln->file, path, sizeof(path)), ln->line, ln->col,
				ln->text ? ln->text : "");
			last = ln;
		}
		insn_format(o, in, s, buf, sizeof(buf));
		fprintf(out, "%5u: %s", s, buf);
		core = object_core_at(sec, s);
		if (core)
			fprintf(out, "    ; CO-RE %s %s %s", core->kind_name,
				core->type_name ? core->type_name : "?", core->access);
		fputc('\n', out);
	}
}

static int dump_ssa(const struct loaded *l, int prog, const struct ssa_opts *opts,
		    struct arena *a, struct diag *d, FILE *out)
{
	struct ssa_prog *p;
	const char *bad;
	int err = ssa_build(l->o, prog, l->insns, opts, a, d, &p);

	if (err)
		return err;
	bad = ssa_verify(p);
	if (bad) {
		diag_report(d, DIAG_ERROR, l->o->path, 0, 0,
			    "internal error: program '%s': SSA verification failed: %s",
			    l->o->funcs[prog].name, bad);
		return -EINVAL;
	}
	ssa_print(p, out);
	return 0;
}

int dump_programs(const struct loaded *l, enum dump_stage stage, const int *progs,
		  int nprogs, const struct ssa_opts *opts, struct arena *a,
		  struct diag *d, FILE *out)
{
	const struct object *o = l->o;
	uint8_t *seen = arena_alloc(a, o->nfuncs + 1);
	struct cfg *g;
	uint32_t f;
	int i, err = 0;

	if (stage == DUMP_OBJECT) {
		dump_object(o, out);
		return 0;
	}
	if (stage == DUMP_SSA) {
		for (i = 0; i < nprogs && !err; i++) {
			if (i)
				fputc('\n', out);
			err = dump_ssa(l, progs[i], opts, a, d, out);
		}
		return err;
	}
	for (i = 0; i < nprogs; i++)
		mark_callees(l, progs[i], seen);
	if (stage == DUMP_CFG)
		fputs("digraph cfg {\n  node [fontname=\"monospace\"];\n", out);
	for (f = 0; f < o->nfuncs && !err; f++) {
		if (!seen[f])
			continue;
		if (stage == DUMP_INSNS) {
			dump_func_insns(l, (int)f, out);
			continue;
		}
		err = cfg_build(o, (int)f, l->insns[o->funcs[f].sec], a, d, &g);
		if (!err)
			cfg_dot(g, out);
	}
	if (stage == DUMP_CFG)
		fputs("}\n", out);
	return err;
}
