/* packdir.c - where the built-in invariant packs are.
 *
 * An installed bpf-invcheck (meson install: BINDIR/bpf-invcheck, packs in
 * DATADIR/bpf-invcheck/invariants) finds them relative to its own
 * executable, so a relocated or DESTDIR install works too; a binary run
 * from the build tree has no such directory next to it and uses the source
 * tree's invariants/ (INVCHECK_PACK_DIR, set by meson.build). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline.h"

/* on the heap, not 4 KiB of .bss between the small variables the run
 * writes (each page of them a fault): NULL or the directory found */
static char *installed;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find(void)
{
	char exe[PATH_MAX];
	struct stat st;
	ssize_t n;
	char *slash;
	int len;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	installed = malloc(PATH_MAX);
	if (!installed)
		return;
	len = snprintf(installed, PATH_MAX, "%s/%s", exe, INVCHECK_REL_PACK_DIR);
	if (len < 0 || (size_t)len >= PATH_MAX || stat(installed, &st) || !S_ISDIR(st.st_mode))
		installed[0] = 0;
}

const char *invcheck_pack_dir(void)
{
	pthread_once(&once, find);
	return installed && installed[0] ? installed : INVCHECK_PACK_DIR;
}
