/* progress.c - the progress line (contract in progress.h). */
#include "progress.h"

#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Straight to the terminal: stderr may be held (handover.h), and a
 * progress line is not output to hold. */
static void put(const char *s, size_t n)
{
	(void)write_full(STDERR_FILENO, s, n);
}

/* One line, cut to the terminal's width (a wrapped line cannot be
 * rewritten with \r). */
static void show(struct progress *p, const char *text)
{
	char buf[600];
	int n;

	fflush(stderr);                /* what was written before it (not held) */
	n = snprintf(buf, sizeof(buf), "\r\033[K%.*s", (int)(p->width - 1), text);
	put(buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void step(void *arg, unsigned done, unsigned total, const struct mon_check *c)
{
	struct progress *p = arg;
	char buf[512];

	snprintf(buf, sizeof(buf), "[%u/%u] %s done", done, total, c->name);
	pthread_mutex_lock(&p->mu);
	show(p, buf);
	pthread_mutex_unlock(&p->mu);
}

void progress_start(struct progress *p, unsigned total, const char *object,
		    struct check_opts *o)
{
	struct winsize ws;
	char buf[512];

	pthread_mutex_init(&p->mu, NULL);
	p->on = total > 1 && isatty(STDERR_FILENO);
	if (!p->on)
		return;
	p->width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10 ? ws.ws_col : 80;
	o->progress = step;
	o->progress_arg = p;
	snprintf(buf, sizeof(buf), "[0/%u] checking %s", total, object);
	show(p, buf);
}

void progress_end(struct progress *p)
{
	if (p->on)
		put("\r\033[K", 4);
	pthread_mutex_destroy(&p->mu);
}
