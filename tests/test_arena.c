/* test_arena.c - the arena's contract (checker/base.h): allocations are
 * zeroed and aligned, a vector keeps its elements as it grows, grows in
 * place when its array is the arena's last allocation and moves when it is
 * not, and every slot it hands out starts zeroed; heap_on_huge_page puts
 * the blocks malloc hands out next on a transparent huge page. */
#include "base.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(alloc_is_zeroed_and_aligned)
{
	struct arena *a = arena_new();
	unsigned i, k;

	for (i = 1; i < 300; i += 7) {
		unsigned char *p = arena_alloc(a, i);

		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		for (k = 0; k < i; k++)
			ck_assert_uint_eq(p[k], 0);
		for (k = 0; k < i; k++)
			p[k] = 0xff;           /* the next allocation must not see this */
	}
	ck_assert_uint_eq((uintptr_t)arena_alloc8(a, 3) % 8, 0);
	arena_free(a);
}
END_TEST

/* One vector filled alone grows where it is: its array keeps its address
 * from the first growth on (8 -> 16 -> ... elements of 12 bytes, not a
 * multiple of the alignment), and every element is kept. */
START_TEST(vector_alone_grows_in_place)
{
	struct arena *a = arena_new();
	struct vec v = { 0 };
	uint32_t *first = NULL;
	size_t used = 0;
	unsigned i;

	for (i = 0; i < 1000; i++) {
		uint32_t *e = vec_push(a, &v, 12);

		ck_assert_uint_eq(e[0] | e[1] | e[2], 0);
		e[0] = i;
		e[1] = ~i;
		e[2] = i * 3;
		if (i == 0) {
			first = v.data;
			used = arena_used(a);
		}
	}
	ck_assert_ptr_eq(v.data, first);
	ck_assert_uint_eq(v.cap, 1024);
	/* the handed-out bytes are the array's, 1024 * 12, nothing left behind */
	ck_assert_uint_eq(arena_used(a) - used, 1024 * 12 - 8 * 12);
	for (i = 0; i < 1000; i++) {
		const uint32_t *e = (const uint32_t *)v.data + 3 * i;

		ck_assert_uint_eq(e[0], i);
		ck_assert_uint_eq(e[1], ~i);
		ck_assert_uint_eq(e[2], i * 3);
	}
	arena_free(a);
}
END_TEST

/* Two vectors filled in turn: the one whose array is not the last
 * allocation moves, and both keep their elements; a slot handed out after a
 * growth is zero even where the arena's memory was used before. */
START_TEST(interleaved_vectors_move_and_keep)
{
	struct arena *a = arena_new();
	struct vec v = { 0 }, w = { 0 };
	void *v0 = NULL;
	unsigned i;

	for (i = 0; i < 5000; i++) {
		uint64_t *x = vec_push(a, &v, 8), *y;

		ck_assert_uint_eq(*x, 0);
		*x = i;
		if (i == 8)
			v0 = v.data;
		y = vec_push(a, &w, 8);
		ck_assert_uint_eq(*y, 0);
		*y = (uint64_t)i << 32;
	}
	ck_assert_ptr_ne(v.data, v0);
	ck_assert_uint_eq(v.len, 5000);
	ck_assert_uint_eq(w.len, 5000);
	for (i = 0; i < 5000; i++) {
		ck_assert_uint_eq(((uint64_t *)v.data)[i], i);
		ck_assert_uint_eq(((uint64_t *)w.data)[i], (uint64_t)i << 32);
	}
	arena_free(a);
}
END_TEST

/* Past the chunk: a vector bigger than the first chunk (64 KiB) moves to a
 * new chunk and keeps its elements. */
START_TEST(vector_past_a_chunk)
{
	struct arena *a = arena_new();
	struct vec v = { 0 };
	unsigned i;

	for (i = 0; i < 100000; i++)
		*(uint32_t *)vec_push(a, &v, 4) = i * 7;
	for (i = 0; i < 100000; i++)
		ck_assert_uint_eq(((uint32_t *)v.data)[i], i * 7);
	arena_free(a);
}
END_TEST

/* heap_on_huge_page: the blocks malloc hands out next are in one 2 MiB
 * transparent huge page once touched (the pad before it untouched: a 4 KiB
 * page there kept the whole range in 4 KiB pages). Only where huge pages
 * are on for madvise'd memory and glibc's malloc is the allocator. */
static long huge_kb_at(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	long kb = -1;
	bool in = false;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

START_TEST(heap_on_huge_page_backs_blocks)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	unsigned char *p;

	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
#if defined(__SANITIZE_ADDRESS__)
	mode[0] = 0;                   /* the sanitizer's allocator, not glibc's */
#endif
	if (!strstr(mode, "[always]") && !strstr(mode, "[madvise]")) {
		fprintf(stderr, "heap_on_huge_page_backs_blocks: skipped (no transparent huge "
				"pages for madvise'd memory here, or not glibc's malloc)\n");
		return;
	}
	heap_on_huge_page();
	heap_on_huge_page();           /* once only: the second call does nothing */
	p = malloc(256 << 10);
	ck_assert_ptr_nonnull(p);
	memset(p, 1, 256 << 10);
	ck_assert_int_ge(huge_kb_at(p + (255 << 10)), 2048);  /* its first bytes may be in the page before */
	free(p);
	/* beyond the first 64 MiB, and after the blocks before are freed
	 * (session 21): 9 blocks of 8 MiB (the heap's: below M_MMAP_THRESHOLD)
	 * twice; the last one's mapping still has huge pages (it had none
	 * where the heap grew past a 64 MiB reservation, or where a free
	 * trimmed it and it grew again unmarked) */
	for (int round = 0; round < 2; round++) {
		unsigned char *b[9];

		for (int i = 0; i < 9; i++) {
			b[i] = malloc(8 << 20);
			ck_assert_ptr_nonnull(b[i]);
			memset(b[i], 1, 8 << 20);
		}
		ck_assert_int_ge(huge_kb_at(b[8] + (4 << 20)), 2048);
		for (int i = 0; i < 9; i++)
			free(b[i]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("arena");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, alloc_is_zeroed_and_aligned);
	tcase_add_test(tc, vector_alone_grows_in_place);
	tcase_add_test(tc, interleaved_vectors_move_and_keep);
	tcase_add_test(tc, vector_past_a_chunk);
	tcase_add_test(tc, heap_on_huge_page_backs_blocks);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
