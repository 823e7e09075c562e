// SPDX-License-Identifier: GPL-2.0
/*
 * scx_percpu: a sched_ext scheduler with a user DSQ per CPU, the example of
 * the pack's per-CPU rules (examples/scx_percpu.inv, docs/packs.md,
 * "Per-CPU user DSQs").
 *
 * select_cpu  as scx_pack: the idle previous CPU (claimed with
 *             scx_bpf_test_and_clear_cpu_idle) or the kernel's idle search;
 *             a claimed CPU gets the task on its local DSQ.
 * enqueue     if the task's CPU is idle, claim it; when tasks are waiting
 *             in SHARED_DSQ, also claim the CPU's buddy (cpu ^ 1, its SMT
 *             sibling on most machines) and kick it so that it drains the
 *             backlog; then insert into SCX_DSQ_LOCAL_ON | cpu and kick
 *             cpu.  A path with two claims: the insert is for the first.
 *             Otherwise a task pinned to one CPU goes to that CPU's own DSQ
 *             (PCPU_DSQ(cpu) = PCPU_DSQ_BASE + cpu) and the CPU is kicked,
 *             the others to SHARED_DSQ.
 * dispatch    pulls from its own CPU's DSQ first, then SHARED_DSQ.
 * init        creates SHARED_DSQ and one DSQ per CPU (nr_cpus, set by user
 *             space; at most MAX_CPUS).
 *
 * Needs a kernel with CONFIG_SCHED_CLASS_EXT (6.12+); see scx_mini.h.
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec (examples/scx_percpu.inv, same function names):
 *
 * SCX_PERCPU_NOKICK_BUG (scx_percpu_nokick_bug.bpf.o): A task pinned to one
 * CPU is put on that CPU's own DSQ, but the CPU is not kicked: when it is
 * idle, the task waits until something else wakes it.  Violates:
 * percpu_enqueue.sched_ext.kick_after_cpu_insert (only).
 *
 * SCX_PERCPU_CLAIM_BUG (scx_percpu_claim_bug.bpf.o): When the buddy CPU's
 * claim is the one that succeeds (cpu was busy), the task still goes to
 * cpu's local DSQ: a busy CPU, while the claimed buddy idles.  Violates:
 * percpu_enqueue.sched_ext.push (only).
 */
#include "scx_pack.h"

#define MAX_CPUS	64
#define PCPU_DSQ_BASE	0x100
#define PCPU_DSQ(cpu)	(PCPU_DSQ_BASE + (u64)(cpu))

const volatile u64 slice_ns = SCX_SLICE_DFL;	/* set by user space */
const volatile u32 nr_cpus = 1;			/* set by user space */

s32 BPF_STRUCT_OPS(percpu_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu;

	if (scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
		return prev_cpu;
	}
	cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);
	if (is_idle)
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
	return cpu;
}

void BPF_STRUCT_OPS(percpu_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu = scx_bpf_task_cpu(p), buddy;

	if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
		buddy = cpu ^ 1;
		if (scx_bpf_dsq_nr_queued(SHARED_DSQ) > 0 &&
		    scx_bpf_test_and_clear_cpu_idle(buddy))
			scx_bpf_kick_cpu(buddy, SCX_KICK_IDLE);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice_ns, enq_flags);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
#ifdef SCX_PERCPU_CLAIM_BUG
	buddy = cpu ^ 1;
	if (scx_bpf_test_and_clear_cpu_idle(buddy)) {
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice_ns, enq_flags);	/* BUG: buddy */
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
#endif
	if (p->nr_cpus_allowed == 1 && cpu < MAX_CPUS) {
		scx_bpf_dsq_insert(p, PCPU_DSQ(cpu), slice_ns, enq_flags);
#ifdef SCX_PERCPU_NOKICK_BUG
		return;		/* BUG: no scx_bpf_kick_cpu(cpu) */
#else
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
#endif
	}
	scx_bpf_dsq_insert(p, SHARED_DSQ, slice_ns, enq_flags);
}

void BPF_STRUCT_OPS(percpu_dispatch, s32 cpu, struct task_struct *prev)
{
	if (cpu >= 0 && cpu < MAX_CPUS && scx_bpf_dsq_move_to_local(PCPU_DSQ(cpu)))
		return;
	scx_bpf_dsq_move_to_local(SHARED_DSQ);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(percpu_init)
{
	s32 err;
	u32 i;

	err = scx_bpf_create_dsq(SHARED_DSQ, -1);
	if (err)
		return err;
	for (i = 0; i < MAX_CPUS && i < nr_cpus; i++) {
		err = scx_bpf_create_dsq(PCPU_DSQ(i), -1);
		if (err)
			return err;
	}
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops percpu_ops = {
	.select_cpu	= (void *)percpu_select_cpu,
	.enqueue	= (void *)percpu_enqueue,
	.dispatch	= (void *)percpu_dispatch,
	.init		= (void *)percpu_init,
	.name		= "percpu",
};

char LICENSE[] SEC("license") = "GPL";
