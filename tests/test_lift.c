/* test_lift.c - every example object loads, decodes, and every function's
 * CFG and every program's SSA pass their verifiers; specific lifting facts
 * (loops, unwinding markers, stack phis, inlined frames) on named examples.
 *
 * usage: test_lift EXAMPLES_DIR OBJECT...
 */
#include "pipeline.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static char **objects;
static int nobjects;
static const char *examples_dir;

static void sink(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

struct lifted {
	struct arena *a;
	struct diag d;
	struct loaded l;
};

static void load(struct lifted *t, const char *path)
{
	t->a = arena_new();
	t->d = (struct diag){ .sink = sink };
	ck_assert_msg(check_load(path, t->a, &t->d, &t->l) == 0, "%s does not load", path);
}

static void unload(struct lifted *t)
{
	check_unload(&t->l);
	arena_free(t->a);
}

static char *example(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s.bpf.o", examples_dir, name);
	return buf;
}

static struct ssa_prog *lift(struct lifted *t, const char *prog, unsigned bound)
{
	struct ssa_opts o = { .loop_bound = bound };
	struct ssa_prog *p = NULL;
	int f = object_find_func(t->l.o, prog);
	const char *bad;

	ck_assert_msg(f >= 0, "no function %s", prog);
	ck_assert_int_eq(ssa_build(t->l.o, f, t->l.insns, &o, t->a, &t->d, &p), 0);
	bad = ssa_verify(p);
	ck_assert_msg(!bad, "%s: ssa_verify: %s", prog, bad);
	return p;
}

static char *print_to_string(struct ssa_prog *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ssa_print(p, f);
	fclose(f);
	return buf;
}

START_TEST(every_example_lifts)
{
	int i;

	for (i = 0; i < nobjects; i++) {
		struct lifted t;
		uint32_t f;

		load(&t, objects[i]);
		for (f = 0; f < t.l.o->nfuncs; f++) {
			const struct obj_func *fn = &t.l.o->funcs[f];
			struct cfg *g;
			const char *bad;

			ck_assert_int_eq(cfg_build(t.l.o, (int)f, t.l.insns[fn->sec], t.a, &t.d, &g), 0);
			bad = cfg_verify(g);
			ck_assert_msg(!bad, "%s: %s: cfg_verify: %s", objects[i], fn->name, bad);
			if (fn->is_prog) {
				struct ssa_prog *p = lift(&t, fn->name, 0);

				ck_assert_msg(!p->unsupported, "%s: %s: unsupported: %s",
					      objects[i], fn->name, p->unsupported);
			}
		}
		ck_assert_int_eq(t.d.errors, 0);
		unload(&t);
	}
}
END_TEST

/* loop_sum keeps a real loop: its CFG has a loop, the unrolled SSA has one
 * unwinding marker per loop with the default bound, and phis that merge the
 * loop's registers and stack. */
START_TEST(loop_is_unrolled_with_marker)
{
	struct lifted t;
	struct ssa_prog *small, *big;
	char *text;
	uint32_t f;
	int loops = 0;

	load(&t, example("loop_sum"));
	for (f = 0; f < t.l.o->nfuncs; f++) {
		struct cfg *g;
		const struct obj_func *fn = &t.l.o->funcs[f];

		ck_assert_int_eq(cfg_build(t.l.o, (int)f, t.l.insns[fn->sec], t.a, &t.d, &g), 0);
		loops += g->nloops;
	}
	ck_assert_int_ge(loops, 1);
	small = lift(&t, "loop_sum", 2);
	big = lift(&t, "loop_sum", 64);
	ck_assert_int_ge(small->nunwind, 1);
	ck_assert_uint_gt(big->nblocks, small->nblocks);
	text = print_to_string(big);
	ck_assert_ptr_nonnull(strstr(text, " = phi "));
	/* the loop's sum, spilled to the stack for bpf_loop's context */
	ck_assert_ptr_nonnull(strstr(text, "    ; fp0-8\n"));
	ck_assert_ptr_nonnull(strstr(text, "  unwind"));
	free(text);
	unload(&t);
}
END_TEST

/* xdp_lb calls subprograms: each call is inlined in a frame of its own. */
START_TEST(calls_are_inlined_in_frames)
{
	struct lifted t;
	struct ssa_prog *p;
	uint32_t i, callee_frames = 0;

	load(&t, example("xdp_lb"));
	p = lift(&t, "xdp_lb", 0);
	for (i = 0; i < p->nframes; i++)
		callee_frames += p->frames[i].parent >= 0;
	ck_assert_uint_ge(callee_frames, 2);
	unload(&t);
}
END_TEST

/* A static function in the program's own section that the program calls
 * is a subprogram, inlined, not a second entry program. */
START_TEST(same_section_static_callee_is_a_subprogram)
{
	struct lifted t;
	int progs[8], n, f;
	struct ssa_prog *p;

	load(&t, example("xdp_samesec"));
	f = object_find_func(t.l.o, "samesec_classify");
	ck_assert_int_ge(f, 0);
	ck_assert(!t.l.o->funcs[f].is_prog);
	n = check_select(t.l.o, NULL, progs);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(t.l.o->funcs[progs[0]].name, "xdp_samesec");
	p = lift(&t, "xdp_samesec", 0);
	ck_assert_uint_eq(p->nframes, 2);
	unload(&t);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("lift");
	TCase *tc = tcase_create("examples");
	SRunner *sr;
	int failed;

	if (argc < 3) {
		fprintf(stderr, "usage: %s EXAMPLES_DIR OBJECT...\n", argv[0]);
		return 2;
	}
	examples_dir = argv[1];
	objects = argv + 2;
	nobjects = argc - 2;
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_example_lifts);
	tcase_add_test(tc, loop_is_unrolled_with_marker);
	tcase_add_test(tc, calls_are_inlined_in_frames);
	tcase_add_test(tc, same_section_static_callee_is_a_subprogram);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
