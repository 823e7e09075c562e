/* kprofile.h - the kernel values of `__SCX_*` .rodata variables (sched_ext's
 * enums, filled by user space from the kernel's BTF before the load; 0 in
 * the ELF). Source, in order: --kernel-btf FILE; /sys/kernel/btf/vmlinux
 * when it has sched_ext's types (enumerator SCX_DSQ_LOCAL); the built-in
 * profile (Linux 6.12 - 6.18). kprofile_apply() adds `global.__SCX_X ==
 * value of enumerator SCX_X` to the entry assumptions of every check (and a
 * note naming the source); variables the source has no enumerator for stay
 * free. Only read-only data sections (.rodata*) and 1/2/4/8-byte variables.
 */
#ifndef INVCHECK_KPROFILE_H
#define INVCHECK_KPROFILE_H

#include "monitor.h"

struct btf;

struct kprofile {
	struct btf *btf;          /* NULL: the built-in profile */
	char source[300];         /* "kernel BTF FILE", "the built-in kernel profile (...)" */
};

/* PATH: a BTF file (raw or ELF; an error diagnostic if unreadable), or NULL
 * for the default (the running kernel's BTF is only read when O has a
 * `__SCX_*` variable). */
int kprofile_open(const char *path, const struct object *o, struct diag *d,
		  struct kprofile *k);
void kprofile_close(struct kprofile *k);
/* Enumerator NAME's value: 1 with *V, 0 if the source has none. */
int kprofile_value(const struct kprofile *k, const char *name, uint64_t *v);
/* Also gives the pins (the added assumptions, in A) in *OUT, *NOUT: at most
 * 64 variables are pinned. */
int kprofile_apply(const struct object *o, const struct kprofile *k, struct mon_set *s,
		   struct arena *a, struct mon_expr ***out, unsigned *nout);

#endif
