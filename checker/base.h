/* base.h - what every stage shares: the arena, growable arrays, diagnostics.
 *
 * Contract:
 * - One arena per check owns every IR object; arena_free() releases all of it
 *   at once. Arena memory is zeroed. Allocation failure aborts (tier 3: the
 *   process cannot continue meaningfully without memory).
 * - Library code never prints. Bad input is reported through a struct diag
 *   (the one diagnostics sink) and the function returns -EINVAL; system and
 *   library failures return -errno; internal bugs assert.
 */
#ifndef INVCHECK_BASE_H
#define INVCHECK_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The low BITS bits of V, sign- or zero-extended to 64 (1 <= BITS). */
static inline uint64_t val_sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	if (bits >= 64)
		return v;
	v &= (m << 1) - 1;
	return (v ^ m) - m;
}

static inline uint64_t val_zext(uint64_t v, unsigned bits)
{
	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

/* The value of hex digit C (either case), -1 for any other character. */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- arena.c ---------------------------------------------------------- */
struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* A's memory handed back for its next allocations, as a new arena's:
 * its first chunk kept (unless mapped), the rest freed. */
void arena_reset(struct arena *a);
/* The free bytes of the arena's current chunk: the first member of struct
 * arena (arena.c), so that an allocation that fits is a few instructions
 * inline (the lift makes one per value: at a million instructions, a call
 * each was 8-10% of its instructions). ZEROED: the chunk is a fresh
 * mapping, else each allocation is cleared. */
struct arena_fast {
	unsigned char *next, *end;
	bool zeroed;
};
/* The arena_alloc family: the inline fast path is arena_bump, a new
 * chunk (or the current one's rest, what the fast path handed out taken
 * back first) arena_alloc_slow, out of line and shared: SIZE bytes at a
 * multiple of ALIGN (8 or 16), zeroed when ZERO. */
void *arena_alloc_slow(struct arena *a, size_t size, size_t align, bool zero);

/* *P: NEED bytes (SIZE rounded up to ALIGN, a power of two) at a
 * multiple of ALIGN in the current chunk, zeroed only where the chunk is
 * (zeroed); false: they do not fit (the caller's arena_alloc_slow).
 * Always inline: as a plain inline function it cost loop_sum 7K
 * instructions (ssa_build's code around it). */
__attribute__((always_inline))
static inline bool arena_bump(struct arena *a, size_t need, size_t align, void **p)
{
	struct arena_fast *f = (struct arena_fast *)(void *)a;
	uintptr_t at = ((uintptr_t)f->next + align - 1) & ~(uintptr_t)(align - 1);
	unsigned char *q = (unsigned char *)at;

	if (!f->next || q > f->end || (size_t)(f->end - q) < need)
		return false;
	f->next = q + need;
	*p = q;
	return true;
}

static inline void *arena_alloc_align(struct arena *a, size_t size, size_t align)
{
	size_t need = (size + align - 1) & ~(align - 1);
	void *p;

	if (!arena_bump(a, need, align, &p))
		return arena_alloc_slow(a, size, align, true);
	if (!((struct arena_fast *)(void *)a)->zeroed)
		__builtin_memset(p, 0, need);
	return p;
}

/* 8-aligned and NOT zeroed: for an object whose every byte the caller
 * writes (an SSA value: a memset call each was a tenth of its making) */
static inline void *arena_alloc8_unzeroed(struct arena *a, size_t size)
{
	void *p;

	if (!arena_bump(a, (size + 7) & ~(size_t)7, 8, &p))
		return arena_alloc_slow(a, size, 8, false);
	return p;
}

/* zeroed, 16-aligned */
static inline void *arena_alloc(struct arena *a, size_t size)
{
	return arena_alloc_align(a, size, 16);
}

/* zeroed, 8-aligned: many small objects */
static inline void *arena_alloc8(struct arena *a, size_t size)
{
	return arena_alloc_align(a, size, 8);
}

/* SIZE bytes, 16-aligned, NOT zeroed: for bytes written at once (a file
 * read in: zeroing an object's 13 KiB first was 1.5% of a small example) */
void *arena_alloc_raw(struct arena *a, size_t size);
void *arena_dup(struct arena *a, const void *p, size_t size);
/* Give the arena malloc'd block P (SIZE bytes, for arena_used): it is freed
 * with the arena. Returns P. For arrays grown by realloc (buf_push), which
 * a large array does without the copies vec_push leaves behind. */
void *arena_adopt(struct arena *a, void *p, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* X, Y and Z in one string (names made at every lift or check: arena_printf's
 * two vsnprintf calls cost more than the copies) */
char *arena_cat3(struct arena *a, const char *x, const char *y, const char *z);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
size_t arena_used(const struct arena *a);                 /* bytes handed out */

/* zeroed, aligned for TYPE: 8 bytes unless it needs more (session 22: an
 * array of one or two ints took 16 bytes, a CFG block's preds and a
 * loop's members and latches) */
#define arena_new_array(a, type, n) \
	((type *)arena_alloc_align((a), sizeof(type) * (size_t)(n), \
				   _Alignof(type) > 8 ? _Alignof(type) : 8))

/* A growable array whose storage lives in an arena (old storage is simply
 * abandoned when it grows; the arena frees it with everything else).
 * Usage: struct vec v = {0}; *(T *)vec_push(a, &v, sizeof(T)) = x; */
struct vec {
	void *data;
	size_t len, cap;
};
void *vec_push(struct arena *a, struct vec *v, size_t elem_size);

/* A growable array in malloc'd memory, for scratch work outside an arena.
 * buf_free() releases it. buf_push: a zeroed new element; inline for the
 * common case (room left: a constant ELEM_SIZE's memset is a store; the
 * lift pushes three per SSA value), buf_grow when full. */
void *buf_grow(struct vec *v, size_t elem_size);
static inline void *buf_push(struct vec *v, size_t elem_size)
{
	void *slot;

	if (v->len == v->cap)
		return buf_grow(v, elem_size);
	slot = (char *)v->data + elem_size * v->len++;
	__builtin_memset(slot, 0, elem_size);
	return slot;
}
void buf_free(struct vec *v);
/* Room for N elements in V at once (its len kept): for an array whose
 * usual size is known, instead of reallocs from 8 by doubling. */
void buf_reserve(struct vec *v, size_t n, size_t elem_size);
/* calloc for a scratch array (released with free; aborts when out of
 * memory): from 4 MiB it is marked for transparent huge pages like
 * buf_push's arrays; up to 1 KiB it comes from malloc's thread cache. */
void *calloc_big(size_t n, size_t size);
/* For a process's main (the CLI; not the library's business otherwise):
 * let the small allocations that follow come from a heap region marked
 * for a transparent huge page, and keep what is freed instead of giving
 * it back. One 2 MiB fault instead of a hundred 4 KiB ones
 * (docs/architecture.md, "The heap on a huge page"). glibc only; a no-op
 * elsewhere and where huge pages are off. Call it before any thread. */
void heap_on_huge_page(void);

/* ---- prefault.c ------------------------------------------------------- */
/* Fresh memory faulted in ahead of its first write by a helper thread on
 * another CPU (docs/architecture.md, "Prefaulting on another CPU"); the
 * contents are never touched. For a process's main, like
 * heap_on_huge_page: until prefault_start the other calls do nothing (no
 * thread); with one CPU it does nothing. Not for a process that forks and
 * goes on running this code in the child (the helper's lock may be held
 * at the fork; the CLI only spawns programs). */
void prefault_start(void);
/* Populate [P, P + N) (its whole 4 KiB pages; from 2 MiB) soon: a hint. */
void prefault(void *p, size_t n);
/* Before [P, P + N) is unmapped or freed: no step of the helper lands there
 * after this returns. */
void prefault_forget(void *p, size_t n);
/* Whether prefault does anything: started, more than one CPU, and the
 * kernel knew MADV_POPULATE_WRITE so far (tests). */
bool prefault_on(void);
/* Bytes the helper populated so far (tests, bench_lift). */
unsigned long prefault_populated(void);
/* Where the program's own pages were populated (--stats image=): by the
 * static executable's entry before libc's start-up (entry_static.c,
 * x86-64), by prefault_image in main, or not at all (the kernel does not
 * know the advice, or a segment failed). */
enum image_populate { IMAGE_NONE, IMAGE_MAIN, IMAGE_ENTRY };
/* The program's text and constants mapped and the stack's next pages
 * faulted in, one system call each (the CLI's main, first thing), unless
 * the entry did it all already: IMAGE_ENTRY then, else IMAGE_MAIN when
 * the kernel populated every read-only segment of the program. */
enum image_populate prefault_image(void);
/* The time the static executable's entry spent populating (ns; 0 where
 * it has none): main's --stats total counts it. */
uint64_t prefault_entry_ns(void);
/* ... its part for one object (dl_iterate_phdr's INFO): every read-only
 * PT_LOAD segment populated (tests). */
struct dl_phdr_info;
bool prefault_object(const struct dl_phdr_info *info);

/* ---- diag.c ----------------------------------------------------------- */
enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

struct diag_msg {
	enum diag_level level;
	const char *file;       /* may be NULL */
	unsigned line, col;     /* 0 when unknown */
	const char *text;       /* the message, no trailing newline */
};

typedef void (*diag_sink_fn)(void *arg, const struct diag_msg *m);

struct diag {
	diag_sink_fn sink;      /* NULL: messages are only counted */
	void *arg;
	unsigned errors, warnings, notes;
};

void diag_report(struct diag *d, enum diag_level lvl, const char *file,
		 unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void diag_vreport(struct diag *d, enum diag_level lvl, const char *file,
		  unsigned line, unsigned col, const char *fmt, va_list ap);
/* Shorthand: an error in FILE without a position. Returns -EINVAL so callers
 * can write `return diag_fail(d, path, "...")`. */
int diag_fail(struct diag *d, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Format a message the way the CLI prints it: "file:line:col: error: text". */
int diag_format(const struct diag_msg *m, char *out, size_t size);
/* A diag sink for the command lines: each message formatted, on stderr. */
void diag_print_stderr(void *arg, const struct diag_msg *m);
/* A command-line number: decimal digits only, LO <= value <= HI. */
int parse_uint_range(const char *s, unsigned lo, unsigned hi, unsigned *out);
const char *diag_level_name(enum diag_level lvl);
/* All N bytes of P to FD (write(2) again after EINTR or a short write);
 * -1 on an error. Async-signal-safe. */
int write_full(int fd, const void *p, size_t n);
/* The decimal digits of V ending at END, no NUL (returns their start; 20
 * at most): for numbers written without a printf format parse. */
char *u64_digits(char *end, uint64_t v);
/* S appended to the string of LEN bytes in BUF (CAP bytes), cut where it
 * would not fit with a NUL after it; returns the new length (BUF stays
 * NUL-terminated). */
size_t str_append(char *buf, size_t cap, size_t len, const char *s);
/* "a/b/../c" -> "a/c": lexical clean-up of a path for messages; returns OUT,
 * or IN when it does not fit. */
const char *path_clean(const char *in, char *out, size_t size);

#endif
