/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_pack.h: what scx_pack.bpf.c (and its buggy variants) need beyond
 * scx_mini.h: the per-task context map, a few more kfuncs and the
 * scx_bpf_error() macro of the scx headers (simplified: no format
 * arguments).
 */
#ifndef SCX_PACK_H
#define SCX_PACK_H

#include "scx_mini.h"

#ifndef ENOMEM
#define ENOMEM 12
#endif

extern s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;
extern void scx_bpf_error_bstr(char *fmt, unsigned long long *data,
			       u32 data__sz) __ksym;

/* scx_bpf_error(fmt): abort the scheduler with a message (the kernel
 * unloads it and every task goes back to the fair class). */
#define scx_bpf_error(fmt)						\
	({								\
		static char ___fmt[] = fmt;				\
		scx_bpf_error_bstr(___fmt, NULL, 0);			\
	})

/* DSQs of the pack scheduler. */
#define SHARED_DSQ		0	/* vtime-ordered, every batch task */
#define INTERACTIVE_DSQ		1	/* FIFO, tasks marked interactive */

struct task_ctx {
	u64 interactive;	/* set by user space (or a later callback) */
	u64 nr_enqueues;
};

#endif /* SCX_PACK_H */
