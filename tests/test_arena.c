/* test_arena.c - the arena's contract (checker/base.h): allocations are
 * zeroed and aligned, a vector keeps its elements as it grows, grows in
 * place when its array is the arena's last allocation and moves when it is
 * not, and every slot it hands out starts zeroed; a reset arena hands
 * its memory out again zeroed; heap_on_huge_page puts
 * the blocks malloc hands out next on a transparent huge page; prefault's
 * helper populates big blocks without changing a byte, leaves a forgotten
 * range alone, and does not exist for small runs or on one CPU. */
#define _GNU_SOURCE            /* sched_getaffinity, CPU_COUNT, MAP_FIXED_NOREPLACE */
#include "base.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
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

/* arena_reset: the arena hands its memory out again as a new arena's:
 * zeroed and aligned although every byte before was written, its first
 * chunk kept (the first allocation after is where the first one before
 * was), the chunks and big blocks after it freed (the leaks test and
 * ASan see them), and a vector started after it grows as in a new arena. */
START_TEST(reset_hands_out_zeroed_memory_again)
{
	struct arena *a = arena_new();
	unsigned round, i, k;
	void *first = NULL;

	for (round = 0; round < 3; round++) {
		struct vec v = { 0 };
		unsigned char *p = arena_alloc(a, 100);

		if (round == 0)
			first = p;
		ck_assert_ptr_eq(p, first);
		for (i = 1; i < 4000; i += 13) {       /* past the first chunk */
			unsigned char any = 0;

			p = arena_alloc(a, i);
			ck_assert_uint_eq((uintptr_t)p % 16, 0);
			for (k = 0; k < i; k++)
				any |= p[k];
			ck_assert_uint_eq(any, 0);
			memset(p, 0xa5, i);
		}
		p = arena_alloc(a, 3u << 20);          /* a big block of its own */
		ck_assert_uint_eq(p[0] | p[(3u << 20) - 1], 0);
		memset(p, 0x5a, 3u << 20);
		for (i = 0; i < 5000; i++)
			*(uint32_t *)vec_push(a, &v, 4) = i + round;
		for (i = 0; i < 5000; i++)
			ck_assert_uint_eq(((uint32_t *)v.data)[i], i + round);
		arena_reset(a);
	}
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

/* ---- prefault.c: the helper thread ------------------------------------- */

/* The threads of this process (/proc/self/task). */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static bool two_cpus(const char *test)
{
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) >= 2)
		return true;
	fprintf(stderr, "%s: skipped (one CPU here: prefault has no helper)\n", test);
	return false;
}

/* A run that stays below 2 MiB a block gets no thread. */
START_TEST(prefault_no_thread_for_small_runs)
{
	struct arena *a = arena_new();
	struct vec v = { 0 };

	prefault_start();
	for (int i = 0; i < 200; i++)
		ck_assert_ptr_nonnull(arena_alloc(a, 4096));
	for (uint32_t i = 0; i < (1u << 20) / sizeof(uint64_t); i++)
		*(uint64_t *)buf_push(&v, sizeof(uint64_t)) = i;
	ck_assert_int_eq(threads(), 1);
	ck_assert_uint_eq(prefault_populated(), 0);
	buf_free(&v);
	arena_free(a);
}
END_TEST

/* Big blocks written while the helper populates them keep every byte
 * written (it never writes), and it did populate some: an array grown
 * past 4 MiB (buf_grow) and mapped arena chunks. */
START_TEST(prefault_populates_and_keeps_contents)
{
	struct arena *a = arena_new();
	struct vec v = { 0 };
	uint64_t *big[6];
	const uint32_t n = (32u << 20) / sizeof(uint64_t);
	const size_t words = (3u << 20) / sizeof(uint64_t);
	size_t wrong = 0;

	if (!two_cpus("prefault_populates_and_keeps_contents"))
		return;
	prefault_start();
	for (uint32_t i = 0; i < n; i++)
		*(uint64_t *)buf_push(&v, sizeof(uint64_t)) = i * 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < 6; k++) {
		big[k] = arena_alloc(a, words * sizeof(uint64_t));
		for (size_t i = 0; i < words; i++)
			big[k][i] = i ^ (uint64_t)k << 56;
	}
	if (!prefault_on()) {
		fprintf(stderr, "prefault_populates_and_keeps_contents: skipped (the kernel "
				"does not know MADV_POPULATE_WRITE)\n");
		buf_free(&v);
		arena_free(a);
		return;
	}
	/* (one ck_assert per word would write a record each) */
	for (uint32_t i = 0; i < n; i++)
		wrong += ((uint64_t *)v.data)[i] != i * 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < 6; k++)
		for (size_t i = 0; i < words; i++)
			wrong += big[k][i] != (i ^ (uint64_t)k << 56);
	ck_assert_uint_eq(wrong, 0);
	ck_assert_int_eq(threads(), 2);
	/* the helper works on its own time: wait for its first step */
	for (int t = 0; t < 1000 && !prefault_populated(); t++)
		sleep_ms(10);
	ck_assert_uint_gt(prefault_populated(), 0);
	buf_free(&v);
	arena_free(a);
}
END_TEST

/* After prefault_forget a range is left alone: a mapping made at its
 * address afterwards stays unpopulated. */
START_TEST(prefault_forget_leaves_the_range)
{
	const size_t len = 64u << 20;
	unsigned char *p, *q, *vec;
	size_t resident = 0;

	if (!two_cpus("prefault_forget_leaves_the_range"))
		return;
	prefault_start();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	for (int k = 0; k < 20; k++) {        /* queued behind others: never reached */
		prefault(p, len);
		prefault_forget(p, len);
	}
	ck_assert_int_eq(munmap(p, len), 0);
	q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	ck_assert_ptr_eq(q, p);
	sleep_ms(200);
	vec = malloc(len / 4096);
	ck_assert_int_eq(mincore(q, len, vec), 0);
	for (size_t i = 0; i < len / 4096; i++)
		resident += vec[i] & 1;
	ck_assert_uint_eq(resident, 0);
	free(vec);
	munmap(q, len);
}
END_TEST

/* With one CPU there is no helper: nothing populated, no thread. */
START_TEST(prefault_off_on_one_cpu)
{
	cpu_set_t one;
	struct vec v = { 0 };

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	prefault_start();
	ck_assert(!prefault_on());
	for (uint32_t i = 0; i < (16u << 20) / sizeof(uint64_t); i++)
		*(uint64_t *)buf_push(&v, sizeof(uint64_t)) = i;
	ck_assert_int_eq(threads(), 1);
	ck_assert_uint_eq(prefault_populated(), 0);
	buf_free(&v);
}
END_TEST

/* Whether page I of the mapping at P is mapped in this process
 * (/proc/self/pagemap: bit 63, present). */
static bool page_present(int pagemap, const unsigned char *p, size_t i)
{
	uint64_t e = 0;

	ck_assert_int_eq(pread(pagemap, &e, sizeof(e), (off_t)(((uintptr_t)p / 4096 + i) * 8)),
			 (ssize_t)sizeof(e));
	return e >> 63;
}

/* prefault_object maps every page of an object's read-only segments (the
 * CLI's text and constants, prefault_image) and none of a writable one
 * nor of other headers: here an object of three over a file mapped
 * afresh, untouched (pages 1-127 read-only; 128-191 writable; 192-255 a
 * note). The kernel maps up to 16 pages around each fault (fault-around),
 * so the pages past 160 tell whether the writable segment was taken. */
START_TEST(prefault_object_maps_read_only_segments)
{
	const size_t len = 1u << 20;
	char path[] = "/tmp/test_arena_XXXXXX";
	ElfW(Phdr) ph[3] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_vaddr = 0x1000,
		  .p_memsz = len / 2 - 0x1800 },
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_vaddr = len / 2, .p_memsz = len / 4 },
		{ .p_type = PT_NOTE, .p_flags = PF_R, .p_vaddr = 3 * len / 4, .p_memsz = len / 4 },
	};
	struct dl_phdr_info info = { .dlpi_phdr = ph, .dlpi_phnum = 3 };
	unsigned char *p;
	size_t i;
	int fd = mkstemp(path), pm = open("/proc/self/pagemap", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(pm, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, (off_t)len), 0);
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	for (i = 0; i < len / 4096; i++)
		ck_assert_msg(!page_present(pm, p, i), "page %zu mapped before", i);
	info.dlpi_addr = (ElfW(Addr))(uintptr_t)p;
	if (!prefault_object(&info)) {
		printf("prefault_object_maps_read_only_segments: skipped: the kernel does not populate (MADV_POPULATE_READ, Linux 5.14)\n");
	} else {
		for (i = 1; i < 128; i++)
			ck_assert_msg(page_present(pm, p, i), "page %zu not mapped", i);
		for (i = 160; i < len / 4096; i++)
			ck_assert_msg(!page_present(pm, p, i), "page %zu mapped", i);
	}
	munmap(p, len);
	close(fd);
	close(pm);
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
	tcase_add_test(tc, reset_hands_out_zeroed_memory_again);
	tcase_add_test(tc, heap_on_huge_page_backs_blocks);
	tcase_add_test(tc, prefault_no_thread_for_small_runs);
	tcase_add_test(tc, prefault_populates_and_keeps_contents);
	tcase_add_test(tc, prefault_forget_leaves_the_range);
	tcase_add_test(tc, prefault_off_on_one_cpu);
	tcase_add_test(tc, prefault_object_maps_read_only_segments);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
