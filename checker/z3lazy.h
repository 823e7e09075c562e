/* z3lazy.h - the Z3 C API, opened on first use (implementation: z3lazy.c).
 *
 * Include this instead of <z3.h>. The binary does not link libz3: loading
 * it (and libstdc++) costs about 3 ms per process, more than a whole check
 * that the pre-pass or the concrete search decides, and more than a cache
 * hit. Every Z3 call the checker makes goes through a pointer of the
 * function's own type (z3_funcs.h, generated from z3_funcs.txt); the first
 * Z3_mk_config of the process opens the library (dlopen of the SONAME the
 * build found, as the dynamic linker would) and fills every pointer.
 *
 * Contract: Z3_mk_config returns NULL when the library cannot be opened or
 * lacks a function (z3lazy_error says why); every other Z3 function may
 * only be called with something made after a successful Z3_mk_config.
 */
#ifndef Z3LAZY_H
#define Z3LAZY_H

#include <z3.h>

#include "z3_funcs.h"

/* Z3_mk_config after opening the library (once per process, thread-safe);
 * NULL when it cannot be opened. */
Z3_config z3lazy_mk_config(void);

/* Why the library could not be opened: for a caller whose Z3_mk_config
 * returned NULL ("" when it was opened). */
const char *z3lazy_error(void);

/* The library opened (dlopen of Z3LAZY_SONAME: z3open.c), or NULL with
 * why in WHY; a static bpf-invcheck links its own (z3open_static.c: the
 * run is handed over to the solver build, handover.h). Called once, by
 * the first z3lazy_mk_config. */
void *z3lazy_open(char *why, size_t n);
/* Function NAME of the library H; NULL if it has none. */
void *z3lazy_sym(void *h, const char *name);

/* Z3LAZY_SONAME, the library's name, and Z3LAZY_PATH, the file the build
 * found it in, come from the build (checker/z3_soname.py). */

#endif
