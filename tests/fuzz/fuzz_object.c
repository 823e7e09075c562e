/* fuzz_object.c - libFuzzer target: bytes -> ELF -> programs -> SSA.
 *
 * The loader's contract: bad input is exactly one error diagnostic and a
 * non-zero return; good input decodes, and every program lifts to SSA that
 * passes ssa_verify (or fails with exactly one more error). Anything else
 * (a crash, a sanitizer report, a second message, an unverified lift)
 * aborts, which libFuzzer reports as a crash. docs/testing.md has the
 * commands.
 */
#include "pipeline.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Formats every message (the formatter is part of what is fuzzed). */
static void sink(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct diag d = { .sink = sink };
	/* a small unrolling budget: the loader is the target, not the solver */
	struct ssa_opts o = { .loop_bound = 2, .max_blocks = 20000 };
	struct loaded l;
	uint32_t f;

	if (!a)
		abort();
	if (check_load_mem(data, size, "fuzz.o", a, &d, &l)) {
		if (d.errors != 1)
			abort();
		arena_free(a);
		return 0;
	}
	if (d.errors)
		abort();
	for (f = 0; f < l.o->nfuncs; f++) {
		unsigned before = d.errors;
		struct ssa_prog *p;

		if (!l.o->funcs[f].is_prog)
			continue;
		if (ssa_build(l.o, (int)f, l.insns, &o, a, &d, &p)) {
			if (d.errors != before + 1)
				abort();
		} else if (ssa_verify(p) != NULL) {
			abort();
		}
	}
	check_unload(&l);
	arena_free(a);
	return 0;
}
