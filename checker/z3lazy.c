/* z3lazy.c - opening libz3 on first use (contract: z3lazy.h).
 *
 * The pointer table is the one piece of process-wide state in the library
 * (style.md asks for none): it is written once, under pthread_once, before
 * any context exists, and only read after that, as the dynamic linker's
 * own table of a linked libz3 would be.
 */
#define Z3LAZY_IMPL
#include "z3lazy.h"

#include <pthread.h>
#include <stdio.h>

#define X(f) __typeof__(f) *z3lazy_##f;
Z3LAZY_FUNCS(X)
#undef X

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[512];
static int loaded;

static void load(void)
{
	void *h = z3lazy_open(why, sizeof(why));

	if (!h)
		return;
#define X(f)                                                                   \
	if (!(z3lazy_##f = (__typeof__(f) *)z3lazy_sym(h, #f))) {              \
		snprintf(why, sizeof(why), "the solver library %s has no %s",  \
			 Z3LAZY_SONAME, #f);                                   \
		return;                                                        \
	}
	Z3LAZY_FUNCS(X)
#undef X
	loaded = 1;
}

Z3_config z3lazy_mk_config(void)
{
	pthread_once(&once, load);
	return loaded ? z3lazy_Z3_mk_config() : NULL;
}

const char *z3lazy_error(void)
{
	return why;      /* written in load(): pthread_once made it visible */
}
