/* prefault.c - fresh memory faulted in on another CPU (base.h).
 *
 * A lift of a million instructions writes 130-450 MB of fresh memory, and
 * the kernel zeroing each new page (clear_page) was 20% of it in this
 * machine's calm minutes and up to 70% in its slow ones
 * (docs/architecture.md, "Prefaulting on another CPU"). The big blocks
 * are known before they are written: an arena chunk of 2 MiB and more
 * when it is mapped, the part of a grown array past its length when it
 * is reallocated. prefault() hands such a range to one helper thread,
 * which asks the kernel to populate it (madvise MADV_POPULATE_WRITE:
 * the pages are allocated and zeroed as a write would, and nothing in
 * them is read or written), 2 MiB at a time, ahead of the thread that
 * fills it. The contents never change, so a range populated late, or
 * freed meanwhile, costs memory at most: the result is the same with
 * or without the helper. Memory about to be unmapped is taken back first
 * (prefault_forget), so that a step never lands on a mapping that
 * reused the address.
 *
 * Off until prefault_start (the CLI's main; bench_lift): a library user
 * gets no thread. Off with one CPU (the helper would take turns with the
 * thread it helps), and for good at the first EINVAL (a kernel before
 * 5.14 does not know the advice).
 */
#define _GNU_SOURCE            /* sched_getaffinity, CPU_COUNT */
#include "base.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>

#define PF_QUEUE 32                  /* ranges waiting; more are dropped */
#define PF_STEP ((uintptr_t)2 << 20) /* populated per madvise */
#define PF_PAGE ((uintptr_t)4096)

struct pf_range {
	uintptr_t start, end;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work;           /* a range was queued */
	pthread_cond_t step_done;      /* the helper finished a step */
	struct pf_range q[PF_QUEUE];   /* a ring: head, n */
	unsigned head, n;
	uintptr_t busy_start, busy_end;   /* the step in progress, or 0, 0 */
	bool enabled;                  /* prefault_start said so */
	bool started;                  /* the helper runs */
	bool off;                      /* no helper after all */
	unsigned long populated;       /* bytes asked for (prefault_populated) */
} pf = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.step_done = PTHREAD_COND_INITIALIZER,
};

/* Called with pf.mu held: the next step of the oldest range, taken off
 * the queue as it is handed out. */
static bool next_step(uintptr_t *s, uintptr_t *e)
{
	struct pf_range *r;

	if (!pf.n)
		return false;
	r = &pf.q[pf.head];
	*s = r->start;
	*e = r->end - r->start > PF_STEP ? r->start + PF_STEP : r->end;
	r->start = *e;
	if (r->start >= r->end) {
		pf.head = (pf.head + 1) % PF_QUEUE;
		pf.n--;
	}
	return true;
}

static void *helper(void *arg)
{
	uintptr_t s, e;
	int rc, err;

	(void)arg;
	pthread_mutex_lock(&pf.mu);
	for (;;) {
		while (!next_step(&s, &e))
			pthread_cond_wait(&pf.work, &pf.mu);
		pf.busy_start = s;
		pf.busy_end = e;
		pthread_mutex_unlock(&pf.mu);
		rc = madvise((void *)s, e - s, MADV_POPULATE_WRITE);
		err = errno;
		pthread_mutex_lock(&pf.mu);
		pf.busy_start = pf.busy_end = 0;
		if (rc == 0)
			pf.populated += e - s;
		else if (err == EINVAL) {      /* the kernel does not know the advice */
			pf.off = true;
			pf.n = 0;
		}
		pthread_cond_broadcast(&pf.step_done);
	}
	return NULL;
}

void prefault_start(void)
{
	pthread_mutex_lock(&pf.mu);
	__atomic_store_n(&pf.enabled, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pf.mu);
}

/* The helper would take turns with the thread it helps. Asked at the
 * first big block, not at prefault_start: a run without one makes no
 * system call for it. */
static bool one_cpu(void)
{
	cpu_set_t cpus;

	return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) < 2;
}

/* Called with pf.mu held: the helper runs, or pf.off. */
static void start_helper(void)
{
	pthread_attr_t at;
	pthread_t t;

	__atomic_store_n(&pf.started, true, __ATOMIC_RELAXED);
	if (one_cpu()) {
		pf.off = true;
		return;
	}
	if (pthread_attr_init(&at)) {
		pf.off = true;
		return;
	}
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 << 10);
	if (pthread_create(&t, &at, helper, NULL))
		pf.off = true;
	pthread_attr_destroy(&at);
}

void prefault(void *p, size_t n)
{
	uintptr_t s = ((uintptr_t)p + PF_PAGE - 1) & ~(PF_PAGE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(PF_PAGE - 1);

	/* read without the lock: a stale answer drops a hint or takes the
	 * lock for nothing */
	if (!__atomic_load_n(&pf.enabled, __ATOMIC_RELAXED) || e <= s || e - s < PF_STEP)
		return;
	pthread_mutex_lock(&pf.mu);
	if (!pf.started)
		start_helper();
	if (!pf.off && pf.n < PF_QUEUE) {
		pf.q[(pf.head + pf.n) % PF_QUEUE] = (struct pf_range){ s, e };
		pf.n++;
		pthread_cond_signal(&pf.work);
	}
	pthread_mutex_unlock(&pf.mu);
}

void prefault_forget(void *p, size_t n)
{
	uintptr_t s = (uintptr_t)p, e = s + n;
	unsigned i;

	if (!__atomic_load_n(&pf.started, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&pf.mu);
	for (i = 0; i < pf.n; i++) {
		struct pf_range *r = &pf.q[(pf.head + i) % PF_QUEUE];

		if (r->end <= s || e <= r->start)
			continue;
		/* what is left below or above [s, e); a range that holds
		 * [s, e) in its middle keeps its lower part (a hint) */
		if (r->start < s)
			r->end = s;
		else if (r->end > e)
			r->start = e;
		else
			r->end = r->start;      /* nothing left: popped when reached */
	}
	while (pf.busy_start < e && s < pf.busy_end)
		pthread_cond_wait(&pf.step_done, &pf.mu);
	pthread_mutex_unlock(&pf.mu);
}

bool prefault_on(void)
{
	bool on;

	pthread_mutex_lock(&pf.mu);
	on = pf.enabled && !pf.off && (pf.started || !one_cpu());
	pthread_mutex_unlock(&pf.mu);
	return on;
}

unsigned long prefault_populated(void)
{
	unsigned long n;

	pthread_mutex_lock(&pf.mu);
	n = pf.populated;
	pthread_mutex_unlock(&pf.mu);
	return n;
}

/* ---- the program's own pages ---------------------------------------------
 *
 * A page of the executable's text or constants that a run touches first
 * faults it in: a trap into the kernel for every 64 KiB window of text
 * (fault-around) and every page of constants, 10-13 us each in the
 * benchmark's VM, where one madvise(MADV_POPULATE_READ) over the whole
 * 1.4 MB of text maps it for about 35 us; about 12 windows were faulted
 * after main's start (docs/architecture.md, "Pages touched"). Likewise
 * the stack's next pages, which a run's deepest calls reach (the pre-pass
 * and the search: two faults a run). Shared page-cache pages and page
 * tables only: the memory is the file's; RSS counts it. Errors are
 * ignored (a hint: a kernel before 5.14 does not know the advice). */

#define PF_STACK (8 * PF_PAGE)        /* stack populated below main's frame (the
                                       * lift's scratch, session 28: 19 KiB deep) */

bool prefault_object(const struct dl_phdr_info *info)
{
	bool done = true;
	uint16_t i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s, e;

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		s = (info->dlpi_addr + ph->p_vaddr) & ~(PF_PAGE - 1);
		e = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + PF_PAGE - 1) & ~(PF_PAGE - 1);
		if (madvise((void *)s, e - s, MADV_POPULATE_READ))
			done = false;
	}
	return done;
}

/* dl_iterate_phdr's callback: the first object is the program itself */
static int image_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(bool *)arg = prefault_object(info);
	return 1;
}

/* set by the static executable's entry (entry_static.c) where it has
 * one; the address is null elsewhere (the solver build, a library user) */
extern enum image_populate entry_done __attribute__((weak));
extern uint64_t entry_ns __attribute__((weak));

uint64_t prefault_entry_ns(void)
{
	return &entry_ns ? entry_ns : 0;
}

enum image_populate prefault_image(void)
{
	bool done = false;
	char here;
	uintptr_t sp = (uintptr_t)&here & ~(PF_PAGE - 1);

	if (&entry_done && entry_done == IMAGE_ENTRY)
		return IMAGE_ENTRY;
	dl_iterate_phdr(image_segments, &done);
	madvise((void *)(sp - PF_STACK), PF_STACK, MADV_POPULATE_WRITE);
	return done ? IMAGE_MAIN : IMAGE_NONE;
}
