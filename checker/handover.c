/* handover.c - a static bpf-invcheck hands a run needing Z3 over to the
 * solver build (contract: handover.h).
 *
 * Process-wide state (style.md asks for none in the library): it is the
 * process's, like stderr itself, written by handover_init before any
 * thread and by handover_commit from the main thread after the checks'
 * threads are joined; handover_exec reads it under z3lazy's pthread_once.
 */
#define _GNU_SOURCE            /* fopencookie */
#include "handover.h"
#include "base.h"
#include "stats.h"
#include "z3lazy.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define ENV_NAME "BPF_INVCHECK_HANDOVER"
#define SOLVER_NAME "bpf-invcheck-z3"

static char **saved_argv;
static uint64_t start_ns;
static bool armed;             /* a handover may still happen */
static bool looped;            /* this static process was itself handed a run */
static struct {
	char *buf;
	size_t len, cap;
	bool on;
	bool caught;           /* on_crash is the handler of the ends */
} held;

/* a process that cannot open libz3 itself (the static build) */
static bool handover_static(void)
{
	/* no program interpreter: nothing mapped libc.so, nothing can */
	return getauxval(AT_BASE) == 0;
}

static void catch_ends(void);

static ssize_t hold_write(void *cookie, const char *p, size_t n)
{
	(void)cookie;
	if (!held.on)
		return write_full(STDERR_FILENO, p, n) ? -1 : (ssize_t)n;
	if (!held.caught)
		catch_ends();
	if (held.len + n > held.cap) {
		size_t cap = held.cap ? held.cap : 4096;
		char *b;

		while (cap < held.len + n)
			cap *= 2;
		b = realloc(held.buf, cap);
		if (!b)
			abort();
		held.buf = b;
		held.cap = cap;
	}
	memcpy(held.buf + held.len, p, n);
	held.len += n;                 /* after the bytes: on_crash reads up to it */
	return (ssize_t)n;
}

/* A crash (an assertion's abort included), or a signal that ends the
 * run (Ctrl-C, a timeout's SIGTERM), shows what is held, then dies as it
 * would have: write(2) is async-signal-safe, and a buffer being grown
 * shows its old length. */
static void on_crash(int sig)
{
	if (held.on && held.len)
		(void)write_full(STDERR_FILENO, held.buf, held.len);
	held.on = false;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The signals that end the run, caught by on_crash from the first byte
 * held: before it a crash has nothing to show, and dying of the signal's
 * default action is all on_crash would do (a run that holds nothing, the
 * usual one, saves nine system calls: about 10 us here). */
static void catch_ends(void)
{
	static const int ends[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				    SIGINT, SIGTERM, SIGHUP, SIGXCPU };
	struct sigaction sa;
	unsigned i;

	held.caught = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESTART;      /* as signal() */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		struct sigaction old;

		/* one ignored (nohup) stays ignored: set back (one system call
		 * a signal where nothing is ignored, not a query and a set) */
		if (sigaction(ends[i], &sa, &old) == 0 && old.sa_handler == SIG_IGN)
			sigaction(ends[i], &old, NULL);
	}
}

/* stderr held in memory until the commit: what was shown could not be
 * taken back by the process the run is handed over to, which shows it
 * again */
static void hold_stderr(void)
{
	static const cookie_io_functions_t io = { .write = hold_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (!f)
		return;                /* not held: no handover either */
	setvbuf(f, NULL, _IONBF, 0);
	held.on = true;
	stderr = f;
	armed = true;
	atexit(handover_commit);
}

void handover_init(char **argv, uint64_t start)
{
	const char *e = getenv(ENV_NAME);
	uint64_t now = stats_now(), t;
	char *end;

	saved_argv = argv;
	start_ns = start;
	if (e) {
		/* the start of the static process that handed this run over
		 * (the same clock; never in the future) */
		errno = 0;
		t = strtoull(e, &end, 10);
		if (!errno && end != e && !*end && t <= now)
			start_ns = t;
		unsetenv(ENV_NAME);
	}
	if (!handover_static())
		return;
	/* a static process started by a handover: the solver build in its
	 * place is static too; handing over again would loop */
	looped = e != NULL;
	if (!looped)
		hold_stderr();
}

uint64_t handover_start_ns(void)
{
	return start_ns;
}

void handover_commit(void)
{
	armed = false;
	if (!held.on)
		return;
	fflush(stderr);
	held.on = false;
	if (held.len)
		(void)write_full(STDERR_FILENO, held.buf, held.len);
	free(held.buf);
	held.buf = NULL;
	held.len = held.cap = 0;
}

/* DIR of this executable + "/" + SOLVER_NAME into OUT; false if unknown */
static bool solver_path(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (k <= 0)
		return false;
	self[k] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return snprintf(out, n, "%s/%s", self, SOLVER_NAME) < (int)n;
}

void handover_exec(char *why, size_t n)
{
	char path[PATH_MAX + sizeof(SOLVER_NAME) + 1], env[32];
	int err;

	if (looped) {
		snprintf(why, n, "this bpf-invcheck is a static build started with %s set, as by a "
			 "handover (is %s a static build too?): it cannot open the solver library %s, "
			 "and does not hand the run over again", ENV_NAME, SOLVER_NAME, Z3LAZY_SONAME);
		return;
	}
	if (!armed) {
		snprintf(why, n, "this bpf-invcheck is a static build and cannot open the solver "
			 "library %s: it can hand a run over to %s only before its output is final",
			 Z3LAZY_SONAME, SOLVER_NAME);
		return;
	}
	if (!solver_path(path, sizeof(path))) {
		snprintf(why, n, "this bpf-invcheck is a static build: it runs %s for checks that need "
			 "the solver library %s, but cannot find its own directory (/proc/self/exe): %s",
			 SOLVER_NAME, Z3LAZY_SONAME, strerror(errno));
		return;
	}
	snprintf(env, sizeof(env), "%" PRIu64, start_ns);
	if (setenv(ENV_NAME, env, 1) == 0) {
		/* what stderr holds is not shown: the solver build shows it */
		execv(path, saved_argv);
		err = errno;
		unsetenv(ENV_NAME);
	} else {
		err = errno;
	}
	snprintf(why, n, "this bpf-invcheck is a static build: it runs %s (the same program, "
		 "which opens the solver library %s) for checks that need it, but cannot run %s: %s",
		 SOLVER_NAME, Z3LAZY_SONAME, path, strerror(err));
}
