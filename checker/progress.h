/* progress.h - the command line's progress line (part of the executable,
 * not the library: it prints). On a terminal only (isatty(stderr)) and
 * only for more than one check: "[DONE/TOTAL] CHECK done" rewritten in
 * place after each check, cleared before the report is written. Piped or
 * redirected stderr never sees it. */
#ifndef INVCHECK_PROGRESS_H
#define INVCHECK_PROGRESS_H

#include "checker.h"

#include <pthread.h>

struct progress {
	pthread_mutex_t mu;
	bool on;
	unsigned width;        /* the terminal's columns */
};

/* Start (prints "[0/TOTAL] checking ..." when on) and hook into O. */
void progress_start(struct progress *p, unsigned total, const char *object,
		    struct check_opts *o);
void progress_end(struct progress *p);

#endif
