/* arena.c - bump allocator owning all IR of one check.
 *
 * Chunks double from 64 KiB up to 32 MiB. Memory is handed out once and
 * never reused, and zeroed (but arena_alloc_raw's, which the caller
 * writes over at once: a file read in, a copy, a string): a chunk of 2 MiB and more is fresh pages of an
 * anonymous mapping (no memset at all); a smaller one is malloc'd and each
 * allocation zeroed as it is handed out, so an arena pays for the bytes it
 * uses, not for its first 64 KiB (calloc cleared whole chunks: the search
 * makes an arena per input and uses a few KiB of it, and the memset was
 * two thirds of a check that the search decides). Chunks of 2 MiB
 * and more are mappings of their own, aligned to 2 MiB and marked for
 * transparent huge pages: a lift of a million instructions touches a few
 * hundred MB, and taking it in 4 KiB page faults was a third of its time
 * (docs/performance.md). Where huge pages are off, madvise is a no-op. */
#include "base.h"

#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHUNK_MIN (64 * 1024)
#define CHUNK_MAX (512 * CHUNK_MIN)  /* chunks double up to this size */
#define HUGE_PAGE (2u << 20)

struct chunk {
	struct chunk *next;
	size_t size, used;
	size_t mapped;      /* length of its own mapping, 0: malloc'd (not zeroed) */
	_Alignas(16) unsigned char data[];
};

/* malloc'd blocks the arena frees with its chunks (arena_adopt) */
struct owned {
	struct owned *next;
	void *p;
};

struct arena {
	struct arena_fast fast;     /* first (base.h): head's free bytes */
	struct chunk *head;
	struct owned *owned;
	size_t handed_out;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort(); /* out of memory: tier-3 failure, see base.h */
	return p;
}

struct arena *arena_new(void)
{
	struct arena *a = xmalloc(sizeof(*a));

	a->fast.next = a->fast.end = NULL;
	a->fast.zeroed = false;
	a->head = NULL;
	a->owned = NULL;
	a->handed_out = 0;
	return a;
}

/* free, after the prefault helper is done with P's bytes (a block of 2
 * MiB and more may be one it was given; glibc unmaps the largest) */
static void free_big(void *p)
{
	size_t n = p ? malloc_usable_size(p) : 0;

	if (n >= HUGE_PAGE)
		prefault_forget(p, n);
	free(p);
}

/* A's big blocks and chunks freed, but its first chunk (the list's
 * last) when KEEP_FIRST and it is malloc'd: that one, or NULL. */
static struct chunk *release(struct arena *a, bool keep_first)
{
	struct chunk *c, *next, *keep = NULL;

	for (struct owned *o = a->owned; o; o = o->next)
		free_big(o->p);
	for (c = a->head; c; c = next) {
		next = c->next;
		if (keep_first && !next && !c->mapped) {
			keep = c;
		} else if (c->mapped) {
			prefault_forget(c, c->mapped);
			munmap(c, c->mapped);
		} else {
			free(c);
		}
	}
	return keep;
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	release(a, false);
	free(a);
}

static void fast_resume(struct arena *a);

void arena_reset(struct arena *a)
{
	/* the first chunk kept (a search's probe: one reset a try) */
	struct chunk *keep = release(a, true);

	a->owned = NULL;
	a->head = keep;
	a->handed_out = 0;
	if (keep) {
		keep->used = 0;    /* malloc'd: zeroed as it is handed out */
		fast_resume(a);
	} else {
		a->fast.next = a->fast.end = NULL;
		a->fast.zeroed = false;
	}
}

/* A chunk of CSIZE bytes: zeroed when mapped, else (c->mapped 0) not. */
static struct chunk *chunk_new(size_t csize)
{
	size_t total = sizeof(struct chunk) + csize;
	struct chunk *c;

	if (total < HUGE_PAGE) {
		c = xmalloc(total);
		c->mapped = 0;
	} else {
		/* map one huge page more, keep the aligned part */
		size_t len = (total + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
		char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *start;
		size_t head;

		if (m == MAP_FAILED)
			abort();
		start = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
		head = (size_t)(start - m);
		if (head)
			munmap(m, head);
		munmap(start + len, HUGE_PAGE - head);
		madvise(start, len, MADV_HUGEPAGE);
		c = (struct chunk *)start;
		c->mapped = len;
		/* the first huge page is written now (this header, the
		 * allocation that asked for the chunk); the helper, if any,
		 * takes the rest */
		prefault(start + HUGE_PAGE, len - HUGE_PAGE);
		csize = len - sizeof(struct chunk);
	}
	c->size = csize;
	c->used = 0;
	return c;
}

/* What the inline fast path (base.h) handed out of the current chunk,
 * into its used and the arena's count. */
static void fast_sync(struct arena *a)
{
	struct chunk *c = a->head;
	size_t used;

	if (!c)
		return;
	used = (size_t)(a->fast.next - c->data);
	a->handed_out += used - c->used;
	c->used = used;
}

/* The fast path resumes where the current chunk's used ends. */
static void fast_resume(struct arena *a)
{
	struct chunk *c = a->head;

	a->fast.next = c->data + c->used;
	a->fast.end = c->data + c->size;
	a->fast.zeroed = c->mapped != 0;
}

/* the out-of-line path of the arena_alloc family (base.h): SIZE bytes
 * at a multiple of ALIGN (8 or 16) in the current chunk, or in a fresh
 * one, zeroed when ZERO */
void *arena_alloc_slow(struct arena *a, size_t size, size_t align, bool zero)
{
	struct chunk *c;
	size_t need = (size + align - 1) & ~(align - 1), at = 0;
	void *p;

	fast_sync(a);
	c = a->head;
	if (c)
		at = (c->used + align - 1) & ~(align - 1);
	if (!c || at > c->size || c->size - at < need) {
		size_t csize = need > CHUNK_MIN ? need : CHUNK_MIN;

		if (c && c->size * 2 > csize && c->size < CHUNK_MAX)
			csize = c->size * 2 > need ? c->size * 2 : need;
		c = chunk_new(csize);
		c->next = a->head;
		a->head = c;
		at = 0;
	}
	p = c->data + at;
	if (zero && !c->mapped)
		memset(p, 0, need);
	a->handed_out += need + (at - c->used);
	c->used = at + need;
	fast_resume(a);
	return p;
}

void *arena_alloc_raw(struct arena *a, size_t size)
{
	void *p;

	if (!arena_bump(a, (size + 15) & ~(size_t)15, 16, &p))
		return arena_alloc_slow(a, size, 16, false);
	return p;
}

void *arena_adopt(struct arena *a, void *p, size_t size)
{
	struct owned *o = arena_alloc8(a, sizeof(*o));

	o->p = p;
	o->next = a->owned;
	a->owned = o;
	a->handed_out += size;
	return p;
}

void *arena_dup(struct arena *a, const void *p, size_t size)
{
	void *q = arena_alloc_raw(a, size ? size : 1);

	if (size)
		memcpy(q, p, size);
	return q;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *q = arena_alloc_raw(a, n + 1);

	memcpy(q, s, n);
	q[n] = 0;
	return q;
}

char *arena_cat3(struct arena *a, const char *x, const char *y, const char *z)
{
	size_t nx = strlen(x), ny = strlen(y), nz = strlen(z);
	char *s = arena_alloc_raw(a, nx + ny + nz + 1);

	memcpy(s, x, nx);
	memcpy(s + nx, y, ny);
	memcpy(s + nx + ny, z, nz + 1);
	return s;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char first[256];          /* most texts fit: one formatting, a copy */
	int n;
	char *q;

	if (!fmt)
		abort(); /* also tells GCC's -Wformat-truncation under UBSan */
	va_start(ap, fmt);
	n = vsnprintf(first, sizeof(first), fmt, ap);
	va_end(ap);
	q = arena_alloc_raw(a, (size_t)n + 1);
	if ((size_t)n < sizeof(first)) {
		memcpy(q, first, (size_t)n + 1);
		return q;
	}
	va_start(ap, fmt);
	vsnprintf(q, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return q;
}

size_t arena_used(const struct arena *a)
{
	const struct chunk *c = a->head;

	return a->handed_out + (c ? (size_t)(a->fast.next - c->data) - c->used : 0);
}

/* Grow V to NCAP elements where it is: true when its array is the last
 * allocation of A's current chunk and the chunk has room (the common case
 * of one vector filled at a time: no copy, and the old array is not left
 * behind as pages touched for nothing). */
static bool vec_grow_in_place(struct arena *a, struct vec *v, size_t ncap, size_t elem_size)
{
	struct chunk *c = a->head;
	size_t old = (v->cap * elem_size + 15) & ~(size_t)15;
	size_t need = (ncap * elem_size + 15) & ~(size_t)15;

	fast_sync(a);
	if (!c || !v->cap || (unsigned char *)v->data + old != c->data + c->used ||
	    c->size - c->used < need - old)
		return false;
	if (!c->mapped)
		memset(c->data + c->used, 0, need - old);
	c->used += need - old;
	a->handed_out += need - old;
	fast_resume(a);
	v->cap = ncap;
	return true;
}

void *vec_push(struct arena *a, struct vec *v, size_t elem_size)
{
	if (v->len == v->cap && !vec_grow_in_place(a, v, v->cap * 2, elem_size)) {
		size_t ncap = v->cap ? v->cap * 2 : 8;
		void *nd = arena_alloc(a, ncap * elem_size);

		if (v->len)
			memcpy(nd, v->data, v->len * elem_size);
		v->data = nd;
		v->cap = ncap;
	}
	return (char *)v->data + elem_size * v->len++;
}

/* A large array grown by realloc is a mapping of its own that malloc made
 * with 4 KiB pages, whose faults cost about four times as much per byte
 * as 2 MiB ones on the benchmark's machine (docs/performance.md): mark the
 * whole mapping for transparent huge pages (the next realloc moves it with
 * mremap, which keeps the mark). That is where P looks like the start of
 * such a mapping (malloc's 16-byte header at a page boundary); else P is
 * in the heap (heap_on_huge_page keeps blocks up to 32 MiB there), and the
 * 2 MiB pages inside the block are marked (the heap's mapping is split
 * there; malloc does not mind). The advice changes no contents or
 * addresses, so a wrong guess costs at most a split mapping. A no-op
 * where huge pages are off. */
static void advise_huge(void *p)
{
	uintptr_t s = (uintptr_t)p - 16, e = (uintptr_t)p + malloc_usable_size(p);

	if (s % 4096 == 0) {
		madvise((void *)s, ((e + 4095) & ~(uintptr_t)4095) - s, MADV_HUGEPAGE);
		return;
	}
	s = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	e &= ~(uintptr_t)(HUGE_PAGE - 1);
	if (s < e)
		madvise((void *)s, e - s, MADV_HUGEPAGE);
}

/* V's array made room for NCAP elements (its LEN kept): a large array's
 * pages marked for huge pages and the part past its elements queued for
 * the prefault helper (written from here on) */
static void buf_resize(struct vec *v, size_t ncap, size_t elem_size)
{
	void *nd;

	if (v->cap * elem_size >= HUGE_PAGE)
		prefault_forget(v->data, v->cap * elem_size);
	nd = realloc(v->data, ncap * elem_size);
	if (!nd)
		abort();
	if (ncap * elem_size >= 2 * HUGE_PAGE) {
		advise_huge(nd);
		prefault((char *)nd + v->len * elem_size, (ncap - v->len) * elem_size);
	}
	v->data = nd;
	v->cap = ncap;
}

void *buf_grow(struct vec *v, size_t elem_size)
{
	void *slot;

	if (v->len == v->cap)
		buf_resize(v, v->cap ? v->cap * 2 : 8, elem_size);
	slot = (char *)v->data + elem_size * v->len++;
	memset(slot, 0, elem_size);
	return slot;
}

/* Up to this size a zeroed block is a malloc and a clear, not a calloc:
 * glibc's calloc skips the thread's cache of freed chunks, which holds
 * blocks this small (a calloc and a free were about 400 instructions, a
 * malloc and a free 140). explicit_bzero, not memset, which GCC folds
 * with the malloc back into a calloc. */
#define ZALLOC_CACHED 1024

void *calloc_big(size_t n, size_t size)
{
	void *p;

	if (n && size && n <= ZALLOC_CACHED / size) {
		p = malloc(n * size);
		if (!p)
			abort();
		explicit_bzero(p, n * size);
		return p;
	}
	p = calloc(n ? n : 1, size);
	if (!p)
		abort();
	if (n * size >= 2 * HUGE_PAGE)
		advise_huge(p);
	return p;
}

void buf_reserve(struct vec *v, size_t n, size_t elem_size)
{
	if (v->cap < n)
		buf_resize(v, n, elem_size);
}

void buf_free(struct vec *v)
{
	free_big(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}

/* heap_on_huge_page's assumptions: glibc's malloc (mallopt, mallinfo2:
 * 2.33) and transparent huge pages */
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && defined(M_TOP_PAD) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define HEAP_HUGE_PAGE 1
/* glibc's values (the dynamic mmap threshold stays off once set) */
static void malloc_defaults(void)
{
	mallopt(M_TOP_PAD, 128 << 10);
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
}
#endif

/* Where a page touched for the first time costs 11-16 us (a VM whose
 * hypervisor shadows the page tables: docs/architecture.md, "Pages
 * touched"), a check that needs no solver was mostly page faults: 100 to
 * 130 fresh 4 KiB pages of malloc'd memory (the object, the spec's AST,
 * each check's IR, pre-pass and search, reused from check to check), about
 * 1.4 ms, against about 0.15 ms for one 2 MiB transparent huge page; and a
 * check with Z3 took 10,000-20,000 of them. glibc's main heap grows at its
 * top chunk: the heap is grown by heap_reserve at once (virtual memory:
 * only what is touched is backed), a pad fills it up to the next 2 MiB boundary
 * (never touched, never freed), and the rest is marked MADV_HUGEPAGE, so
 * that the allocations that follow fault in 2 MiB at a time. Freed memory
 * is kept (a trim would split huge pages, and a heap trimmed below the
 * reservation grows again unmarked), and blocks up to 32 MiB come
 * from the heap instead of mappings of their own (glibc's default starts
 * at 128 KiB and follows the largest block freed up to 32 MiB; setting any
 * of these turns that off: Z3's blocks of 8-32 MiB were mapped afresh each
 * time). Under a limit on the address space or the data segment
 * (ulimit -v, -d) below 1 GiB it does nothing. When an assumption does
 * not hold (another allocator: mallopt fails; no huge pages; the heap
 * cannot grow), nothing is advised and the process runs as before: only
 * its page faults depend on it (docs/architecture.md, "The heap on a huge
 * page"). */
/* The heap reserved on huge pages: 1 GiB where neither limit is set (a
 * million-instruction lift reallocates arrays of 10-50 MiB in the heap:
 * beyond 64 MiB they faulted 4 KiB pages, most of its time), else 64 MiB
 * (heap_on_huge_page returns before this below 1 GiB). Virtual memory:
 * backed where touched. */
static size_t heap_reserve(const struct rlimit *as, const struct rlimit *data)
{
	return as->rlim_cur == RLIM_INFINITY && data->rlim_cur == RLIM_INFINITY ? (size_t)1 << 30
										    : (size_t)64 << 20;
}

void heap_on_huge_page(void)
{
#ifdef HEAP_HUGE_PAGE
	/* the pad, reachable (leak checkers); written once, before any thread */
	static void *pad;
	const uintptr_t huge = HUGE_PAGE;
	uintptr_t end, top, at, keep;
	struct rlimit as, data;
	size_t reserve;

	/* not under a limit on the address space or the data segment below
	 * 1 GiB (ulimit -v, -d): the 64 MiB would come off what the run may
	 * use (loop_sum's libz3 no longer fitted under ulimit -v 80000) */
	if (getrlimit(RLIMIT_AS, &as) || getrlimit(RLIMIT_DATA, &data) ||
	    (as.rlim_cur != RLIM_INFINITY && as.rlim_cur < (1ull << 30)) ||
	    (data.rlim_cur != RLIM_INFINITY && data.rlim_cur < (1ull << 30)))
		return;
	reserve = heap_reserve(&as, &data);
	/* mallopt answers 1 where glibc's malloc is the one in use; the three
	 * are set together or not at all (a 64 MiB pad left for every later
	 * growth would fail under a limit, see below) */
	if (pad || mallopt(M_TOP_PAD, (int)reserve) != 1)
		return;
	if (mallopt(M_TRIM_THRESHOLD, (int)(reserve + (64 << 20))) != 1 ||
	    mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1) {
		malloc_defaults();
		return;
	}
	free(malloc(1));               /* malloc set up (its own first block) */
	end = (uintptr_t)sbrk(0);
	keep = mallinfo2().keepcost;
	top = end - keep;              /* the top chunk: where the next blocks come from */
	at = (top + 2 * 4096 + huge - 1) & ~(huge - 1);
	/* the pad is bigger than the top chunk, so that taking it grows the
	 * heap by 64 MiB (a top chunk of the 128 KiB glibc grows by that
	 * covers the pad when TOP is that close below a boundary: one run in
	 * 16 got no huge page) */
	while (at - top - 4096 <= keep + 4096)
		at += huge;
	/* the pad's chunk ends a page before AT, and so does the header malloc
	 * writes after it: no page of the region is touched before the advice
	 * (a 4 KiB page there would keep its 2 MiB from being one huge page) */
	pad = malloc(at - top - 4096);
	/* later growth pads as glibc does by default: 64 MiB more at every
	 * step would fail where a limit on the data segment (ulimit -d, -v)
	 * leaves room for what is asked but not for the pad */
	mallopt(M_TOP_PAD, 128 << 10);
	end = (uintptr_t)sbrk(0);
	if (pad && (uintptr_t)pad < at && end >= at + huge) {
		madvise((void *)at, (end - at) & ~(huge - 1), MADV_HUGEPAGE);
		return;
	}
	/* the heap did not grow so far (such a limit): glibc's defaults */
	malloc_defaults();
#endif
}
