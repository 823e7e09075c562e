/* artifacts.h - counterexamples as files (--cex-dir, --cex-dot, --replay;
 * formats in docs/cex-files.md).
 *
 * artifacts_write(): for every violated check of a report, in DIR (made if
 * missing):
 *   CHECK.replay.json  the counterexample (every input of struct cex, the
 *                      check, the spec and pack directories to resolve it
 *                      again), read back by cexfile_replay();
 *   CHECK.pcap         for programs with a packet: the packet at entry as
 *                      one record of a classic pcap file (Ethernet, or raw
 *                      IP for cgroup_skb programs, whose data starts there);
 *   CHECK.dot          with dot: the CFG of every function on the path,
 *                      the executed blocks and edges highlighted, the
 *                      failing block red; CHECK.svg when Graphviz's `dot`
 *                      runs (*dot_missing set when it is not installed).
 * CHECK is the check's name with characters other than [A-Za-z0-9._-]
 * replaced by '_'. System errors are a diagnostic naming the file and
 * -errno.
 *
 * cexfile_replay(): read a replay file, resolve its spec (SPEC if given,
 * else the recorded one) against the object L, find the recorded check,
 * rebuild the counterexample and replay it (replay_run). Returns the exit
 * code: 1 when it fails the recorded assert (the report is written to OUT
 * as the checker writes a violation), 0 when the program runs to its end
 * without failing an assert, 3 when the counterexample does not apply
 * (another assert or an assume fails, a call diverges, a fault: a line on
 * OUT says which), or -EINVAL after one diagnostic for a bad file
 * (FILE:LINE:COL where there is one).
 */
#ifndef INVCHECK_ARTIFACTS_H
#define INVCHECK_ARTIFACTS_H

#include "checker.h"

struct artifact_opts {
	const char *dir;
	bool dot;                       /* also CHECK.dot (and .svg) */
	const char *spec;               /* the spec as given on the command line */
	const char *const *pack_dirs;   /* -I directories as given */
	unsigned npack_dirs;
};

int artifacts_write(const struct loaded *l, const struct mon_set *s,
		    const struct check_result *r, const struct artifact_opts *o,
		    struct arena *a, struct diag *d, bool *dot_missing);

/* The CFG picture of CHECK's failing path (artifacts_dot.c). */
int artifacts_dot(const struct loaded *l, const struct check_result *r, FILE *out,
		  struct arena *a, struct diag *d);

int cexfile_replay(const char *file, const struct loaded *l, const char *spec,
		   const char *const *pack_dirs, unsigned npack_dirs,
		   enum report_format f, struct arena *a, struct diag *d, FILE *out);

#endif
