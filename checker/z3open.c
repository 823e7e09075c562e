/* z3open.c - libz3 opened with dlopen (contract: z3lazy.h). A file of its
 * own: a static bpf-invcheck defines these two functions itself
 * (z3open_static.c), and the linker then never takes this one from the
 * library's archive (glibc warns when a static binary links dlopen). */
#include "z3lazy.h"

#include <dlfcn.h>
#include <stdio.h>

void *z3lazy_open(char *why, size_t n)
{
	void *h = dlopen(Z3LAZY_SONAME, RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		snprintf(why, n, "cannot open the solver library %s: %s", Z3LAZY_SONAME, dlerror());
	return h;
}

void *z3lazy_sym(void *h, const char *name)
{
	return dlsym(h, name);
}
