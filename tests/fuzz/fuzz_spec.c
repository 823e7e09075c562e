/* fuzz_spec.c - libFuzzer target: spec text -> parse -> resolve against an
 * example object (FUZZ_OBJECT, built by meson; the environment variable
 * INVCHECK_FUZZ_OBJECT overrides it) with the built-in packs for imports.
 *
 * The contract: success with no error, or -EINVAL after exactly one error
 * diagnostic; the printer must print what parsed. Anything else aborts.
 */
#include "monitor.h"
#include "pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct loaded obj;
static struct arena *obj_arena;
static FILE *null_out; /* the printer's output, opened once */

static void sink(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
}

/* Once per process: the object and /dev/null (an open per input was a
 * syscall pair in every execution). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("INVCHECK_FUZZ_OBJECT");
	struct diag d = { .sink = sink };

	(void)argc;
	(void)argv;
	if (!path)
		path = FUZZ_OBJECT;
	obj_arena = arena_new();
	null_out = fopen("/dev/null", "w");
	if (!obj_arena || !null_out || check_load(path, obj_arena, &d, &obj)) {
		fprintf(stderr, "fuzz_spec: cannot load %s or open /dev/null\n", path);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dirs[] = { FUZZ_PACKS };
	struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
	struct diag d = { .sink = sink };
	struct mon_set *set;
	struct spec *s;
	struct arena *a;
	int err;

	a = arena_new();
	if (!a)
		abort();
	err = spec_parse((const char *)data, size, "fuzz.inv", a, &d, &s);
	if (err) {
		if (err != -EINVAL || d.errors != 1)
			abort();
		arena_free(a);
		return 0;
	}
	spec_print(s, null_out);
	err = spec_resolve(s, obj.o, &ro, a, &d, &set);
	if (err ? err != -EINVAL || d.errors != 1 : d.errors != 0)
		abort();
	arena_free(a);
	return 0;
}
