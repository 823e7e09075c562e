/* pipeline.h - the pipeline: the stages called as a flat list, and the dumps.
 *
 * check_load():  object_open -> insn_decode_object
 * check_lift():  cfg_build (per function, on demand) -> ssa_build
 * Later stages (spec, instrument, encode, solve, replay) hang off the same
 * struct. Everything lives in the arena given to check_load().
 */
#ifndef INVCHECK_PIPELINE_H
#define INVCHECK_PIPELINE_H

#include "base.h"
#include "cfg.h"
#include "insn.h"
#include "object.h"
#include "ssa.h"

struct loaded {
	struct object *o;
	struct insn **insns;      /* per code section */
	struct ssa_cache *lifts;  /* instrument_lift's expansions (NULL: none) */
	uint64_t ns_open, ns_decode;  /* stats.h: object_open, insn_decode_object */
};

/* packdir.c: the built-in packs' directory (installed next to the
 * executable, else the source tree's invariants/). */
const char *invcheck_pack_dir(void);

int check_load(const char *path, struct arena *a, struct diag *d,
	       struct loaded *out);
/* The same from bytes in memory (tests, fuzzing); they must outlive L. */
int check_load_mem(const void *data, size_t size, const char *name,
		   struct arena *a, struct diag *d, struct loaded *out);
void check_unload(struct loaded *l);

/* Programs matching NAME (a glob on the function name; NULL = every
 * program). Writes their function indices to OUT (o->nfuncs entries
 * suffice) and returns how many. */
int check_select(const struct object *o, const char *name, int *out);

enum dump_stage { DUMP_OBJECT, DUMP_INSNS, DUMP_CFG, DUMP_SSA };

/* Parse "object", "insns", "cfg", "ssa"; -1 if unknown. */
int dump_stage_parse(const char *s);
/* Write the dump of the selected programs (and, for insns and cfg, the
 * functions they call) to OUT. Lifting errors are diagnostics. */
int dump_programs(const struct loaded *l, enum dump_stage stage, const int *progs,
		  int nprogs, const struct ssa_opts *opts, struct arena *a,
		  struct diag *d, FILE *out);

#endif
