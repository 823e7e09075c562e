// SPDX-License-Identifier: GPL-2.0
/*
 * BUG VARIANT of scx_pack.bpf.c (examples/scx_pack.inv, same function
 * names).  enqueue returns early when the task context is missing, without
 * scx_bpf_error: the task is in no DSQ and stalls silently.
 * Violates: pack_enqueue.sched_ext.enqueue_hands_off (only).
 * Cannot be loaded on this kernel (no sched_ext), like scx_pack.
 */
/*
 * scx_pack: a two-queue sched_ext scheduler, the pack example of
 * invariants/sched_ext.inv (examples/scx_pack.inv, docs/packs.md).
 *
 * select_cpu  keeps a task on its previous CPU when that CPU is idle (the
 *             claim: scx_bpf_test_and_clear_cpu_idle), else asks the
 *             kernel's idle search; either way a claimed idle CPU gets the
 *             task on its local DSQ directly and enqueue is skipped.
 * enqueue     needs the task's context (created in init_task; missing is a
 *             scheduler bug: scx_bpf_error).  Local fast path: if the CPU
 *             the task is on is idle, claim it, insert into its local DSQ
 *             (SCX_DSQ_LOCAL_ON | cpu) and kick it awake.  Otherwise
 *             interactive tasks go to the FIFO INTERACTIVE_DSQ with half a
 *             slice, the others to the vtime-ordered SHARED_DSQ.
 * dispatch    pulls from INTERACTIVE_DSQ first, then SHARED_DSQ.
 * init        creates both DSQs (sleepable); init_task the task context.
 * running     advances the global vtime; exit records the exit kind.
 *
 * Needs a kernel with CONFIG_SCHED_CLASS_EXT (6.12+); see scx_mini.h.
 */
#include "scx_pack.h"

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

const volatile u64 slice_ns = SCX_SLICE_DFL;	/* set by user space */

u64 vtime_now;		/* the largest vtime of a running task */
int exit_kind;		/* scx_exit_info.kind seen by pack_exit */

s32 BPF_STRUCT_OPS(pack_select_cpu, struct task_struct *p, s32 prev_cpu,
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

void BPF_STRUCT_OPS(pack_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx;
	s32 cpu;

	tctx = bpf_task_storage_get(&task_ctxs, p, 0, 0);
	if (!tctx)
		return;		/* BUG: the task is stranded */
	cpu = scx_bpf_task_cpu(p);
	if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice_ns, enq_flags);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	if (tctx->interactive)
		scx_bpf_dsq_insert(p, INTERACTIVE_DSQ, slice_ns / 2, enq_flags);
	else
		scx_bpf_dsq_insert_vtime(p, SHARED_DSQ, slice_ns,
					 p->scx.dsq_vtime, enq_flags);
}

void BPF_STRUCT_OPS(pack_dispatch, s32 cpu, struct task_struct *prev)
{
	if (scx_bpf_dsq_move_to_local(INTERACTIVE_DSQ))
		return;
	scx_bpf_dsq_move_to_local(SHARED_DSQ);
}

void BPF_STRUCT_OPS(pack_running, struct task_struct *p)
{
	if (p->scx.dsq_vtime > vtime_now)
		vtime_now = p->scx.dsq_vtime;
}

s32 BPF_STRUCT_OPS(pack_init_task, struct task_struct *p,
		   struct scx_init_task_args *args)
{
	if (!bpf_task_storage_get(&task_ctxs, p, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE))
		return -ENOMEM;
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(pack_init)
{
	s32 err;

	err = scx_bpf_create_dsq(SHARED_DSQ, -1);
	if (err)
		return err;
	return scx_bpf_create_dsq(INTERACTIVE_DSQ, -1);
}

void BPF_STRUCT_OPS(pack_exit, struct scx_exit_info *ei)
{
	exit_kind = ei->kind;
}

SEC(".struct_ops.link")
struct sched_ext_ops pack_ops = {
	.select_cpu	= (void *)pack_select_cpu,
	.enqueue	= (void *)pack_enqueue,
	.dispatch	= (void *)pack_dispatch,
	.running	= (void *)pack_running,
	.init_task	= (void *)pack_init_task,
	.init		= (void *)pack_init,
	.exit		= (void *)pack_exit,
	.name		= "pack",
};

char LICENSE[] SEC("license") = "GPL";
