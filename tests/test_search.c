/* test_search.c - the concrete search before Z3 (checker/search.h): the
 * exact counterexample it finds for a known bug, that it is the same on
 * every run, that the replay agrees with it, and that it finds nothing
 * for checks that hold.
 *
 * usage: test_search SOURCE_ROOT xdp_fw.bpf.o xdp_fw_bug.bpf.o
 */
#include "pipeline.h"
#include "replay.h"
#include "search.h"
#include "smt.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static const char *src, *fw_obj, *bug_obj;

struct env {
	struct arena *a;
	struct loaded l;
	struct mon_set *set;
};

static void env_open(struct env *e, const char *obj)
{
	char spec[4096], packs[4096];
	const char *dirs[2] = { packs, NULL };
	struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
	struct diag d = { 0 };

	snprintf(spec, sizeof(spec), "%s/examples/xdp_fw.inv", src);
	snprintf(packs, sizeof(packs), "%s/invariants", src);
	e->a = arena_new();
	ck_assert_int_eq(check_load(obj, e->a, &d, &e->l), 0);
	ck_assert_int_eq(spec_resolve_file(spec, e->l.o, &ro, e->a, &d, &e->set), 0);
}

static void env_close(struct env *e)
{
	check_unload(&e->l);
	arena_free(e->a);
}

static const struct mon_check *find(const struct env *e, const char *name)
{
	unsigned i;

	for (i = 0; i < e->set->n; i++)
		if (!strcmp(e->set->checks[i].name, name))
			return &e->set->checks[i];
	ck_abort_msg("no check %s", name);
	return NULL;
}

static int map_named(const struct object *o, const char *name)
{
	unsigned i;

	for (i = 0; i < o->nmaps; i++)
		if (!strcmp(o->maps[i].name, name))
			return (int)i;
	ck_abort_msg("no map %s", name);
	return -1;
}

static const struct cex_region *region(const struct cex *x, enum interp_mem_kind k)
{
	unsigned i;

	for (i = 0; i < x->nregions; i++)
		if (x->regions[i].kind == k)
			return &x->regions[i];
	return NULL;
}

/* xdp_fw_bug lets a 54-byte SSH frame reach the blocklist (its bounds check
 * is off by one): the search finds exactly that frame, all other bytes 0,
 * and a blocklist hit. */
START_TEST(finds_the_ssh_bug_exactly)
{
	struct env e;
	const struct mon_check *c;
	struct arena *a = arena_new(), *b = arena_new();
	struct cex *x = NULL, *y = NULL;
	struct replay_result rr;
	const struct cex_region *pk;
	uint8_t want[54] = { 0 };
	unsigned runs = 0, runs2 = 0, i;
	int blocked, counters;

	env_open(&e, bug_obj);
	c = find(&e, "xdp_fw.ipv4_tcp_ssh_passes");
	blocked = map_named(e.l.o, "blocked_ips");
	counters = map_named(e.l.o, "counters");
	ck_assert(search_run(&e.l, c, a, &x, &runs));
	ck_assert_uint_gt(runs, 0);
	ck_assert_uint_le(runs, SEARCH_BUDGET + 400);
	ck_assert_uint_eq(x->site, 0);
	want[12] = 0x08;                 /* IPv4 */
	want[14] = 0x45;                 /* version 4, ihl 5 */
	want[23] = 6;                    /* TCP */
	want[37] = 22;                   /* destination port 22 */
	ck_assert_uint_eq(x->pkt, SMT_PKT_BASE + SMT_PKT_HEADROOM);
	ck_assert_uint_eq(x->pkt_end - x->pkt, 54);
	pk = region(x, INTERP_MEM_PACKET);
	ck_assert_ptr_nonnull(pk);
	ck_assert_uint_eq(pk->base, SMT_PKT_BASE);
	ck_assert_uint_eq(pk->size, SMT_PKT_HEADROOM + 54 + 64);
	for (i = 0; i < 54; i++)
		ck_assert_msg(pk->bytes[SMT_PKT_HEADROOM + i] == want[i], "packet byte %u is %#x", i,
			      pk->bytes[SMT_PKT_HEADROOM + i]);
	/* the blocklist lookup (key = saddr 0.0.0.0) hits, then FW_DROP's counter */
	ck_assert_uint_eq(x->ncalls, 2);
	ck_assert_int_eq(x->calls[0].helper, 1);
	ck_assert_uint_eq(x->calls[0].ret, SMT_MAP_BASE(blocked));
	ck_assert_uint_eq(x->calls[0].key_size, 4);
	ck_assert_mem_eq(x->calls[0].key, "\0\0\0\0", 4);
	ck_assert_uint_eq(x->calls[1].ret, SMT_MAP_BASE(counters) + 8);
	ck_assert_uint_eq(x->nreads, 0);
	ck_assert_int_eq(replay_run(&e.l, c, x, &rr), 0);
	ck_assert_int_eq(rr.outcome, REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(rr.site, 0);
	ck_assert_uint_eq(rr.r0, 1);     /* XDP_DROP */
	ck_assert_str_eq(rr.msg, "assert 0 failed at exit: r0 = 1");
	replay_result_free(&rr);
	/* the same again */
	ck_assert(search_run(&e.l, c, b, &y, &runs2));
	ck_assert_uint_eq(runs, runs2);
	ck_assert_uint_eq(y->nregions, x->nregions);
	for (i = 0; i < x->nregions; i++) {
		ck_assert_uint_eq(y->regions[i].base, x->regions[i].base);
		ck_assert_uint_eq(y->regions[i].size, x->regions[i].size);
		ck_assert_mem_eq(y->regions[i].bytes, x->regions[i].bytes, x->regions[i].size);
	}
	arena_free(a);
	arena_free(b);
	env_close(&e);
}
END_TEST

/* Checks that hold (Z3 proves them): the search must come back empty. */
START_TEST(nothing_for_checks_that_hold)
{
	static const char *const fw[] = { "xdp_fw.xdp.never_abort", "xdp_fw.ipv4_tcp_ssh_passes",
					  "xdp_fw.drop_only_ipv4", "xdp_fw.no_user_writes",
					  "xdp_fw.xdp.drops_only_if" };
	static const char *const bug[] = { "xdp_fw.xdp.never_abort", "xdp_fw.drop_only_ipv4",
					   "xdp_fw.no_user_writes" };
	struct env e;
	unsigned i, runs;
	struct cex *x = NULL;

	env_open(&e, fw_obj);
	for (i = 0; i < sizeof(fw) / sizeof(fw[0]); i++) {
		ck_assert_msg(!search_run(&e.l, find(&e, fw[i]), e.a, &x, &runs), "%s", fw[i]);
		ck_assert_uint_gt(runs, 0);
		ck_assert_uint_le(runs, SEARCH_BUDGET);   /* no minimisation: nothing found */
	}
	env_close(&e);
	env_open(&e, bug_obj);
	for (i = 0; i < sizeof(bug) / sizeof(bug[0]); i++)
		ck_assert_msg(!search_run(&e.l, find(&e, bug[i]), e.a, &x, &runs), "%s", bug[i]);
	env_close(&e);
}
END_TEST

/* A bound-only check (the worst-case search: no monitor, only the
 * instruction count): the minimisation zeroes every input byte the
 * failing run did not touch without running it (search.c zero_bytes,
 * interp_track), so the witness comes with fewer runs (without a guide
 * here: check_worst.c's worst_guide makes it 53 runs); the witness runs exactly
 * the 64 instructions of xdp_fw's longest path. */
START_TEST(worst_case_skips_untouched_bytes)
{
	struct env e;
	struct mon_check longer;
	struct cex *x = NULL;
	struct replay_result rr;
	unsigned runs = 0;

	env_open(&e, fw_obj);
	longer = *find(&e, "xdp_fw.bound_insns");
	ck_assert(longer.has_bound);
	longer.bound = 63;
	ck_assert(search_run_budget(&e.l, &longer, SEARCH_WORST_BUDGET, e.a, &x, &runs));
	/* 433 when every range was run; 418 before a longer run had its
	 * packet lengths tried again (search.c expand, flip_len) */
	ck_assert_uint_eq(runs, 432);
	ck_assert_int_eq(replay_run(&e.l, &longer, x, &rr), 0);
	ck_assert_int_eq(rr.outcome, REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(rr.steps, 64);
	replay_result_free(&rr);
	env_close(&e);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("search");
	TCase *tc = tcase_create("search");
	SRunner *sr;
	int failed;

	if (argc != 4) {
		fprintf(stderr, "usage: test_search SOURCE_ROOT xdp_fw.bpf.o xdp_fw_bug.bpf.o\n");
		return 2;
	}
	src = argv[1];
	fw_obj = argv[2];
	bug_obj = argv[3];
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, finds_the_ssh_bug_exactly);
	tcase_add_test(tc, nothing_for_checks_that_hold);
	tcase_add_test(tc, worst_case_skips_untouched_bytes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
