/* progress.c - the progress line (contract in progress.h). */
#include "progress.h"

#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* One line, cut to the terminal's width (a wrapped line cannot be
 * rewritten with \r). */
static void show(struct progress *p, const char *text)
{
	fprintf(stderr, "\r\033[K%.*s", (int)(p->width - 1), text);
	fflush(stderr);
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
	if (p->on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_mutex_destroy(&p->mu);
}
