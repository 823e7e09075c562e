/* entry_static.c - the static executable's entry point on x86-64: the
 * program's own pages mapped before libc's start-up runs (base.h,
 * prefault_image; docs/architecture.md "The program's own pages").
 *
 * libc's start-up (_start, __libc_start_main: tunables, CPU features, the
 * string functions' IRELATIVE resolvers spread over the text, TLS, the
 * GOT and the tunables written) took about 30 page faults of the
 * executable's text, constants, data and bss before main, 10-13 us each
 * in the benchmark's VM, and prefault_image in main could only spare the
 * faults after it. invcheck_entry runs first (the link's -e): it asks the
 * kernel to populate every PT_LOAD segment of the program (text and
 * constants read, data and bss written: MADV_POPULATE_READ/_WRITE), the
 * vDSO's page (libc reads its ELF header, the clock's code is there) and
 * the stack's next 32 KiB (a system call each, and two clock_gettime
 * that time them: entry_ns), then jumps to libc's
 * _start with the registers the kernel gave, as if it had been entered
 * directly.
 *
 * Nothing of libc may run here (no TLS, no errno: the system calls are
 * made inline), and nothing is written but entry_done and entry_ns (the
 * populate's time, which --stats total counts: main's start is moved
 * back by it, so that the in-process comparison of the benchmark still
 * holds all of the checker's own work). The calls are a
 * hint: a kernel without the advice (before 5.14) answers EINVAL, and the
 * run goes on as before, with prefault_image in main doing what it can.
 * Linked into the static executable only (meson.build: the link's -e),
 * where -fstack-protector would find no TLS guard yet: not used by this
 * build's flags (GCC's default off, no -fstack-protector in meson.build).
 */
#include "base.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#define PAGE ((uintptr_t)4096)
/* the stack below the entry's frame: libc's start-up, main's frames and
 * the run's deepest (the lift's scratch, 19 KiB); 24 KiB left one or two
 * faults a run */
#define ENTRY_STACK (32 * 1024)

/* defined by the linker (GNU ld, gold, lld); hidden, so that the static
 * PIE reaches them PC-relative before it has relocated itself */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
extern const char etext[] __attribute__((visibility("hidden")));

/* read by prefault_image and prefault_entry_ns (prefault.c), in main,
 * after libc has started */
__attribute__((visibility("hidden"))) enum image_populate entry_done;
__attribute__((visibility("hidden"))) uint64_t entry_ns;   /* the populate's time */

/* System call NR with three arguments, made inline (libc's wrappers
 * set errno, which is TLS libc has not set up yet) */
static long raw_syscall3(long nr, uintptr_t a, uintptr_t b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static long raw_madvise(uintptr_t start, uintptr_t len, long advice)
{
	return raw_syscall3(SYS_madvise, start, len, advice);
}

/* CLOCK_MONOTONIC in ns (the system call: the vDSO's clock is libc's to
 * set up) */
static uint64_t raw_now(void)
{
	struct timespec t = { 0, 0 };

	(void)raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (uintptr_t)&t, 0);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The value of auxiliary vector entry TYPE (0 if none): on the stack
 * the kernel made, above argc, argv and envp, each list ending in a null. */
static uintptr_t auxv_value(uintptr_t sp, uintptr_t type)
{
	const uintptr_t *p = (const uintptr_t *)sp;

	p += 1 + p[0] + 1;             /* argc, argv, its null */
	while (*p)
		p++;                   /* envp */
	for (p++; p[0] != AT_NULL; p += 2)
		if (p[0] == type)
			return p[1];
	return 0;
}

/* invcheck_entry's work; SP is the kernel's stack pointer (argc). The
 * first call covers the ELF header's page through the end of the text
 * from the linker's symbols alone: reading the program headers first
 * would fault on that page. */
__attribute__((used, visibility("hidden"))) void entry_populate(uintptr_t sp);
void entry_populate(uintptr_t sp)
{
	uintptr_t head = (uintptr_t)&__ehdr_start & ~(PAGE - 1);
	uintptr_t text_end = ((uintptr_t)etext + PAGE - 1) & ~(PAGE - 1);
	const ElfW(Phdr) *ph;
	uintptr_t bias = 0, vdso;
	uint64_t t0 = raw_now();
	bool ok;
	int i;

	ok = raw_madvise(head, text_end - head, MADV_POPULATE_READ) == 0;
	ph = (const ElfW(Phdr) *)((const char *)&__ehdr_start + __ehdr_start.e_phoff);
	for (i = 0; i < __ehdr_start.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			bias = (uintptr_t)&__ehdr_start - ph[i].p_vaddr;
	for (i = 0; i < __ehdr_start.e_phnum; i++) {
		uintptr_t s = (bias + ph[i].p_vaddr) & ~(PAGE - 1);
		uintptr_t e = (bias + ph[i].p_vaddr + ph[i].p_memsz + PAGE - 1) & ~(PAGE - 1);
		bool w = ph[i].p_flags & PF_W;

		if (ph[i].p_type != PT_LOAD)
			continue;
		if (!w && s < text_end)        /* populated above, up to text_end */
			s = text_end;
		if (s < e && raw_madvise(s, e - s, w ? MADV_POPULATE_WRITE : MADV_POPULATE_READ))
			ok = false;
	}
	vdso = auxv_value(sp, AT_SYSINFO_EHDR);
	if (vdso)
		raw_madvise(vdso, PAGE, MADV_POPULATE_READ);
	sp &= ~(PAGE - 1);
	raw_madvise(sp - ENTRY_STACK, ENTRY_STACK, MADV_POPULATE_WRITE);
	entry_done = ok ? IMAGE_ENTRY : IMAGE_NONE;
	entry_ns = raw_now() - t0;
}

/* The kernel enters with the stack pointer at argc (16-byte aligned) and
 * %rdx the function for atexit (0 for a static program); _start reads
 * both and nothing else. %rbx and %r12 are callee-saved across the call,
 * and are zero again when _start runs, as the kernel left them. */
__asm__(".text\n"
	".globl invcheck_entry\n"
	".type invcheck_entry, @function\n"
	"invcheck_entry:\n"
	"	mov %rsp, %rbx\n"
	"	mov %rdx, %r12\n"
	"	mov %rsp, %rdi\n"
	"	call entry_populate\n"
	"	mov %rbx, %rsp\n"
	"	mov %r12, %rdx\n"
	"	xor %ebx, %ebx\n"
	"	xor %r12d, %r12d\n"
	"	jmp _start\n"
	".size invcheck_entry, . - invcheck_entry\n");
