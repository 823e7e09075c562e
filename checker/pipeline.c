/* pipeline.c - the pipeline, stage after stage. */
#include "pipeline.h"

#include <fnmatch.h>

int check_load(const char *path, struct arena *a, struct diag *d,
	       struct loaded *out)
{
	int err;

	out->o = NULL;
	out->insns = NULL;
	err = object_open(path, a, d, &out->o);
	err = err ?: insn_decode_object(out->o, &out->insns, d);
	if (err && out->o) {
		object_close(out->o);
		out->o = NULL;
	}
	return err;
}

void check_unload(struct loaded *l)
{
	if (l->o)
		object_close(l->o);
	l->o = NULL;
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
