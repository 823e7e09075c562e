/* harness.c - the shared part of fuzz_check and fuzz_replay (harness.h). */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const obj_paths[] = { FUZZ_OBJECTS };
#define NOBJ (sizeof(obj_paths) / sizeof(obj_paths[0]))
static struct loaded objs[NOBJ];
static struct arena *obj_arena;

static const char fixed_spec[] =
	"program * {\n"
	"  invariant small_ret { on exit { assert ret < 3 : \"r\"; } }\n"
	"  invariant no_call { on call bpf_map_lookup_elem { assert arg2 != 0; } }\n"
	"  bound insns <= 24;\n"
	"}\n";

void fuzz_sink(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
}

void fuzz_load_objects(const char *who)
{
	struct diag d = { .sink = fuzz_sink };
	unsigned i;

	obj_arena = arena_new();
	for (i = 0; i < NOBJ; i++)
		if (!obj_arena || check_load(obj_paths[i], obj_arena, &d, &objs[i])) {
			fprintf(stderr, "%s: cannot load %s\n", who, obj_paths[i]);
			abort();
		}
}

struct mon_set *fuzz_resolve(const struct loaded *l, const char *text, size_t len,
			     struct arena *a, struct diag *d)
{
	static const char *const dirs[] = { FUZZ_PACKS };
	struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
	struct mon_set *set;
	struct spec *s;
	int err;

	err = spec_parse(text, len, "fuzz.inv", a, d, &s);
	if (!err)
		err = spec_resolve(s, l->o, &ro, a, d, &set);
	if (err) {
		if (err != -EINVAL || d->errors != 1)
			abort();
		return NULL;
	}
	if (d->errors)
		abort();
	return set;
}

void fuzz_one(const uint8_t *data, size_t size, fuzz_run_fn *run, void *arg)
{
	struct arena *a;

	if (!size)
		return;
	a = arena_new();
	if (!a)
		abort();
	if (data[0] < 0x80) {
		run(&objs[data[0] % NOBJ], (const char *)data + 1, size - 1, a, arg);
	} else {
		struct diag d = { .sink = fuzz_sink };
		struct loaded l;

		if (check_load_mem(data + 1, size - 1, "fuzz.o", a, &d, &l) == 0) {
			run(&l, fixed_spec, strlen(fixed_spec), a, arg);
			check_unload(&l);
		} else if (d.errors != 1) {
			abort();
		}
	}
	arena_free(a);
}
