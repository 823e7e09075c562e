/* pipeline.c - the pipeline, stage after stage. */
#include "pipeline.h"
#include "stats.h"

#include <fnmatch.h>

/* A static function in a program section that other code calls is a
 * subprogram placed there (as older libbpf allowed), not an entry program:
 * only the relocated calls tell the two apart, so this runs after
 * insn_decode_object(). */
static void mark_subprograms(struct loaded *l)
{
	struct object *o = l->o;
	uint32_t f, s;

	for (f = 0; f < o->nfuncs; f++) {
		const struct obj_func *fn = &o->funcs[f];

		for (s = fn->start; s < fn->start + fn->nslots; s++) {
			const struct insn *in = &l->insns[fn->sec][s];
			struct obj_func *t;

			if (in->ref.kind != INSN_REF_SUBPROG && in->ref.kind != INSN_REF_CALLBACK)
				continue;
			t = &o->funcs[in->ref.index];
			if (t->is_prog && !t->global && (uint32_t)in->ref.index != f)
				t->is_prog = false;
		}
	}
}

/* The stages after the object is open: decode, resolve, classify. */
static int finish_load(struct loaded *out, struct diag *d, int err)
{
	uint64_t t0 = stats_now();

	err = err ?: insn_decode_object(out->o, &out->insns, d);
	if (!err) {
		mark_subprograms(out);
		out->lifts = ssa_cache_new();
	}
	out->ns_decode = stats_now() - t0;
	if (err && out->o) {
		object_close(out->o);
		out->o = NULL;
	}
	return err;
}

int check_load(const char *path, struct arena *a, struct diag *d,
	       struct loaded *out)
{
	uint64_t t0 = stats_now();
	int err;

	out->o = NULL;
	out->insns = NULL;
	out->lifts = NULL;
	err = object_open(path, a, d, &out->o);
	out->ns_open = stats_now() - t0;
	return finish_load(out, d, err);
}

int check_load_mem(const void *data, size_t size, const char *name,
		   struct arena *a, struct diag *d, struct loaded *out)
{
	out->o = NULL;
	out->insns = NULL;
	out->lifts = NULL;
	return finish_load(out, d, object_open_mem(data, size, name, a, d, &out->o));
}

void check_unload(struct loaded *l)
{
	if (l->o)
		object_close(l->o);
	l->o = NULL;
	ssa_cache_free(l->lifts);
	l->lifts = NULL;
}

int check_select(const struct object *o, const char *name, int *out)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < o->nfuncs; i++) {
		const struct obj_func *f = &o->funcs[i];

		if (!f->is_prog)
			continue;
		if (name && fnmatch(name, f->name, 0) != 0)
			continue;
		out[n++] = (int)i;
	}
	return n;
}
