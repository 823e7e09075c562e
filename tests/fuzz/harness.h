/* harness.h - what fuzz_check and fuzz_replay share: the example objects
 * (FUZZ_OBJECTS, built by meson), the fixed spec an object input is
 * checked against, how an input is split (first byte < 0x80: a spec
 * against example object byte0 % N; else an object against the fixed
 * spec) and the parse + resolve step with its contract.
 */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include "checker.h"
#include "monitor.h"

#include <stddef.h>
#include <stdint.h>

/* Formats a diagnostic and drops it (formatting is part of what runs). */
void fuzz_sink(void *arg, const struct diag_msg *m);

/* Loads every FUZZ_OBJECTS object once; aborts (naming `who`) when one
 * cannot be loaded. */
void fuzz_load_objects(const char *who);

/* Parses `text` and resolves it against `l` with the built-in packs
 * (FUZZ_PACKS). Returns the checks, or NULL for bad input, which must be
 * exactly one error diagnostic in `d`; anything else aborts. */
struct mon_set *fuzz_resolve(const struct loaded *l, const char *text, size_t len,
			     struct arena *a, struct diag *d);

/* One spec (text, len) against one object, in arena `a`. */
typedef void fuzz_run_fn(const struct loaded *l, const char *text, size_t len,
			 struct arena *a, void *arg);

/* Splits the input and calls `run` once (not at all for an empty input or
 * an object that does not load, which must be one error diagnostic), in
 * a fresh arena freed afterwards. */
void fuzz_one(const uint8_t *data, size_t size, fuzz_run_fn *run, void *arg);

#endif
