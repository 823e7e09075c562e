// SPDX-License-Identifier: GPL-2.0
/*
 * scx_mini: a minimal global-FIFO sched_ext scheduler.
 *
 * select_cpu  asks the kernel's default idle-CPU search for a CPU; when it
 *             found (and claimed) an idle one, the task goes straight to that
 *             CPU's local DSQ and enqueue is skipped.
 * enqueue     puts every other task at the tail of one shared user DSQ.
 * dispatch    called when a CPU runs out of work: moves the first task of the
 *             shared DSQ to this CPU's local DSQ.
 * init        creates the shared DSQ (sleepable).
 * exit        records why the scheduler was unloaded.
 *
 * Needs a kernel with CONFIG_SCHED_CLASS_EXT (6.12+); see scx_mini.h.
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * SCX_MINI_BUG (scx_mini_bug.bpf.o): Dispatch "batches": it pulls only when
 * at least two tasks are queued, so with a single runnable task in the
 * shared DSQ every CPU can go idle while the task waits (the classic
 * low-load stall; the watchdog eventually kicks the scheduler out).
 * Violates: mini_dispatch.sched_ext.dispatch_pulls (only). Cannot be loaded
 * on this kernel (no sched_ext), like scx_mini.
 */
#include "scx_mini.h"

#define SHARED_DSQ	0

enum mini_stat {
	STAT_LOCAL,	/* tasks inserted into a local DSQ by select_cpu */
	STAT_SHARED,	/* tasks inserted into SHARED_DSQ by enqueue */
	STAT_NR,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_NR);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

int exit_kind;		/* scx_exit_info.kind seen by mini_exit */

static __always_inline void stat_inc(u32 slot)
{
	u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		(*v)++;
}

s32 BPF_STRUCT_OPS(mini_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu;

	cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);
	if (is_idle) {
		stat_inc(STAT_LOCAL);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, 0);
	}
	return cpu;
}

void BPF_STRUCT_OPS(mini_enqueue, struct task_struct *p, u64 enq_flags)
{
	stat_inc(STAT_SHARED);
	scx_bpf_dsq_insert(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(mini_dispatch, s32 cpu, struct task_struct *prev)
{
#ifdef SCX_MINI_BUG
	if (scx_bpf_dsq_nr_queued(SHARED_DSQ) < 2)	/* BUG: strands a lone task */
		return;
#endif
	scx_bpf_dsq_move_to_local(SHARED_DSQ);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(mini_init)
{
	return scx_bpf_create_dsq(SHARED_DSQ, -1);
}

void BPF_STRUCT_OPS(mini_exit, struct scx_exit_info *ei)
{
	exit_kind = ei->kind;
}

SEC(".struct_ops.link")
struct sched_ext_ops mini_ops = {
	.select_cpu	= (void *)mini_select_cpu,
	.enqueue	= (void *)mini_enqueue,
	.dispatch	= (void *)mini_dispatch,
	.init		= (void *)mini_init,
	.exit		= (void *)mini_exit,
	.name		= "mini",
};

char LICENSE[] SEC("license") = "GPL";
