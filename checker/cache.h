/* cache.h - --cache DIR: a run's report, keyed by everything it depends on.
 *
 * The key is the SHA-256 (sha256.c) of: a format tag; the checker (its
 * version, the executable's size, mtime and inode: a rebuilt checker is
 * another checker; Z3's version); the kernel release (for --replay-kernel);
 * the command line without --cache and --stats (options such as
 * --loop-bound and --timeout, the paths as given: they are printed); the
 * object's bytes; and the path and text of every spec file resolution read
 * (the spec after its imports; resolve_opts.on_text); the bytes of a
 * --kernel-btf FILE (cache_file; without one, the kernel release stands
 * for /sys/kernel/btf/vmlinux). An entry is
 * DIR/<64 hex digits>: "bpf-invcheck-cache 1\n", "exit CODE\n",
 * "bytes N\n", then the N bytes of stdout, written to a temporary file and
 * renamed, so a reader sees a whole entry or none.
 *
 * With --replay-kernel (the running kernel answers), --dump, --replay and
 * --cex-dir (its files are not stdout) the cache is not used (main.c); the
 * directory is checked all the same.
 *
 * Only runs whose verdicts do not depend on the machine are stored: not
 * when a check ended in an internal error, nor when any verdict is unknown
 * because the solver gave up or ran out of time (cache_storable); such a
 * run is checked afresh every time, so a timeout's unknown is never reused,
 * with a larger timeout or any other.
 */
#ifndef INVCHECK_CACHE_H
#define INVCHECK_CACHE_H

#include "base.h"
#include "sha256.h"

struct check_result;

struct cache {
	const char *dir;
	struct sha256 h;
	char key[65];             /* hex, after cache_finish */
};

/* Make DIR (one level) if it does not exist. Bad input (not a directory, not
 * writable): a diagnostic and -EINVAL. */
int cache_open(struct cache *c, const char *dir, struct diag *d);
/* The checker, the command line (ARGV before getopt permutes it) and the
 * object at OBJECT (bytes read here: -errno if it cannot be read). */
int cache_begin(struct cache *c, int argc, char *const *argv, const char *object);
/* Another file the verdicts depend on (--kernel-btf FILE): its bytes.
 * -errno if it cannot be read (then the cache is not used). */
int cache_file(struct cache *c, const char *path);
/* resolve_opts.on_text: one spec file. */
void cache_text(void *c, const char *path, const char *text, size_t len);
void cache_finish(struct cache *c);
/* A stored entry: its stdout written to OUT, *CODE its exit code; 1 on a
 * hit, 0 on a miss (a damaged entry is a miss; nothing is written then). */
int cache_lookup(const struct cache *c, FILE *out, int *code);
/* May the run with these results be stored? */
bool cache_storable(const struct check_result *r, unsigned n);
/* Store the run's stdout (LEN bytes) and exit code. -errno on failure (the
 * caller warns; the run's output is unaffected). */
int cache_store(const struct cache *c, const char *out, size_t len, int code);

#endif
