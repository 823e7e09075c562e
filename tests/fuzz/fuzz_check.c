/* fuzz_check.c - libFuzzer target: the whole check (resolve, lift,
 * instrument, encode, solve, extract, replay) on small inputs with a tight
 * solver timeout (100 ms per query, loop bound 2, at most 4 checks).
 *
 * Input: the first byte chooses the mode.
 *   byte0 < 0x80: the rest is a spec, checked against example object
 *                 byte0 % N of FUZZ_OBJECTS (built by meson);
 *   otherwise:    the rest is an object, checked against a fixed spec for
 *                 every program (a return-value invariant and a bound).
 * The contract: a check never ends in CHECK_ERROR (that is an internal
 * error: a counterexample that does not replay, a worst case the
 * interpreter disagrees with); bad input is one diagnostic. Anything else
 * aborts.
 */
#include "checker.h"
#include "monitor.h"
#include "xprog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const obj_paths[] = { FUZZ_OBJECTS };
#define NOBJ (sizeof(obj_paths) / sizeof(obj_paths[0]))
static struct loaded objs[NOBJ];
static struct arena *obj_arena;
static bool trace;      /* FUZZ_CHECK_TRACE set: each check's verdict and time on stderr */

static const char fixed_spec[] =
	"program * {\n"
	"  invariant small_ret { on exit { assert ret < 3 : \"r\"; } }\n"
	"  invariant no_call { on call bpf_map_lookup_elem { assert arg2 != 0; } }\n"
	"  bound insns <= 24;\n"
	"}\n";

static void sink(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
}

static void load_objects(void)
{
	struct diag d = { .sink = sink };
	unsigned i;

	trace = getenv("FUZZ_CHECK_TRACE") != NULL;
	obj_arena = arena_new();
	for (i = 0; i < NOBJ; i++)
		if (!obj_arena || check_load(obj_paths[i], obj_arena, &d, &objs[i])) {
			fprintf(stderr, "fuzz_check: cannot load %s\n", obj_paths[i]);
			abort();
		}
}

static void run(const struct loaded *l, const char *text, size_t len, struct arena *a)
{
	static const char *const dirs[] = { FUZZ_PACKS };
	struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
	struct check_opts co = { .loop_bound = 2, .timeout_ms = 100, .jobs = 1 };
	struct diag d = { .sink = sink };
	struct check_result r;
	struct mon_set *set;
	struct spec *s;
	unsigned i;
	int err;

	err = spec_parse(text, len, "fuzz.inv", a, &d, &s);
	if (!err)
		err = spec_resolve(s, l->o, &ro, a, &d, &set);
	if (err) {
		if (err != -EINVAL || d.errors != 1)
			abort();
		return;
	}
	/* as the CLI does after resolving: `relate` placeholders filled in
	 * (without it every `relate` was an unexpanded relation, an internal
	 * error of the harness, not of the checker) */
	if (xprog_expand(l, set, &co, NULL, 0, a) || d.errors)
		abort();
	for (i = 0; i < set->n && i < 4; i++) {
		check_run(l, &set->checks[i], &co, &r);
		if (trace)
			fprintf(stderr, "fuzz_check: %s: %s%s%s %.1f ms%s%s\n", set->checks[i].name,
				check_verdict_name(r.verdict), r.by_absint ? " (absint)" : "",
				r.by_search ? " (search)" : "", r.seconds * 1e3,
				r.reason[0] ? ": " : "", r.reason);
		if (r.verdict == CHECK_ERROR) {
			fprintf(stderr, "fuzz_check: %s: %s\n", set->checks[i].name, r.reason);
			abort();
		}
		check_result_free(&r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a;

	if (!size)
		return 0;
	if (!obj_arena)
		load_objects();
	a = arena_new();
	if (!a)
		abort();
	if (data[0] < 0x80) {
		run(&objs[data[0] % NOBJ], (const char *)data + 1, size - 1, a);
	} else {
		struct diag d = { .sink = sink };
		struct loaded l;

		if (check_load_mem(data + 1, size - 1, "fuzz.o", a, &d, &l) == 0) {
			run(&l, fixed_spec, strlen(fixed_spec), a);
			check_unload(&l);
		} else if (d.errors != 1) {
			abort();
		}
	}
	arena_free(a);
	return 0;
}
