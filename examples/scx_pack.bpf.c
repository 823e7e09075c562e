// SPDX-License-Identifier: GPL-2.0
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
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec (examples/scx_pack.inv, same function names).  None
 * can be loaded on this kernel (no sched_ext), like scx_pack.
 *
 * SCX_PACK_NOINSERT_BUG (scx_pack_noinsert_bug.bpf.o): enqueue returns
 * early when the task context is missing, without scx_bpf_error: the task
 * is in no DSQ and stalls silently.  Violates:
 * pack_enqueue.sched_ext.enqueue_hands_off (only).
 *
 * SCX_PACK_LOWLOAD_BUG (scx_pack_lowload_bug.bpf.o): dispatch "batches": it
 * pulls only when at least two tasks are queued, so a lone runnable task
 * waits while every CPU idles (the low-load stall).  Violates:
 * pack_dispatch.sched_ext.dispatch_pulls (only).
 *
 * SCX_PACK_NONIDLE_BUG (scx_pack_nonidle_bug.bpf.o): enqueue's fast path
 * takes "nothing queued on the task's CPU" for "idle": it inserts into
 * SCX_DSQ_LOCAL_ON | cpu without claiming the CPU, so the task can wait
 * behind a running task while another CPU idles.  Violates:
 * pack_enqueue.sched_ext.push (only).
 *
 * SCX_PACK_BUSYLOCAL_BUG (scx_pack_busylocal_bug.bpf.o): select_cpu inserts
 * into SCX_DSQ_LOCAL also when the idle search found no idle CPU: the task
 * waits on a busy CPU's local DSQ, where no CPU that goes idle later can
 * take it.  Violates: pack_select_cpu.sched_ext.push_strict (only; the
 * plain push rule allows a local insert when no CPU is idle).
 *
 * SCX_PACK_NOKICK_BUG (scx_pack_nokick_bug.bpf.o): enqueue's fast path
 * inserts into SCX_DSQ_LOCAL_ON | cpu but does not kick the CPU: on kernels
 * that do not wake it themselves the task waits on an idle CPU's local DSQ
 * until something else wakes that CPU.  Violates:
 * pack_enqueue.sched_ext.kick_after_local_on (only).
 *
 * SCX_PACK_NOPOP_BUG (scx_pack_nopop_bug.bpf.o): dispatch pulls only from
 * SHARED_DSQ: interactive tasks that enqueue puts in INTERACTIVE_DSQ are
 * never moved to a CPU and stall.  Violates: pack_dispatch.drains_every_dsq
 * (only).
 *
 * SCX_PACK_NOCREATE_BUG (scx_pack_nocreate_bug.bpf.o): init creates
 * SHARED_DSQ only: enqueue's inserts into INTERACTIVE_DSQ fail (the kernel
 * aborts the scheduler on an insert into a DSQ that does not exist).
 * Violates: pack_init.creates_every_dsq (only).
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
#ifdef SCX_PACK_BUSYLOCAL_BUG
	scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);	/* BUG: is_idle ignored */
#else
	if (is_idle)
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
#endif
	return cpu;
}

void BPF_STRUCT_OPS(pack_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx;
	s32 cpu;

	tctx = bpf_task_storage_get(&task_ctxs, p, 0, 0);
#ifdef SCX_PACK_NOINSERT_BUG
	if (!tctx)
		return;		/* BUG: the task is stranded */
#else
	if (!tctx) {
		scx_bpf_error("scx_pack: task context missing");
		return;
	}
#endif
	cpu = scx_bpf_task_cpu(p);
#ifdef SCX_PACK_NONIDLE_BUG
	if (scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu) == 0) {	/* BUG: not a claim */
#else
	if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
#endif
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice_ns, enq_flags);
#ifdef SCX_PACK_NOKICK_BUG
		/* BUG: no scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE) */
#else
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
#endif
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
#ifdef SCX_PACK_LOWLOAD_BUG
	if (scx_bpf_dsq_nr_queued(INTERACTIVE_DSQ) +
	    scx_bpf_dsq_nr_queued(SHARED_DSQ) < 2)
		return;		/* BUG: strands a lone task */
#endif
#ifdef SCX_PACK_NOPOP_BUG
	/* BUG: INTERACTIVE_DSQ is never popped */
#else
	if (scx_bpf_dsq_move_to_local(INTERACTIVE_DSQ))
		return;
#endif
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
#ifdef SCX_PACK_NOCREATE_BUG
	return err;	/* BUG: INTERACTIVE_DSQ is never created */
#else
	if (err)
		return err;
	return scx_bpf_create_dsq(INTERACTIVE_DSQ, -1);
#endif
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
