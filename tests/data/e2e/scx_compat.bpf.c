// SPDX-License-Identifier: GPL-2.0
/*
 * scx_compat: the kfunc names of several kernels, as the scx compat headers
 * emit them (tests/data/e2e/scx_compat.inv): libbpf flavours (___v1, ___v2,
 * ___compat: the kernel's name is the part before the last "___"), the
 * legacy names of 6.12 (scx_bpf_dispatch, scx_bpf_consume), and a
 * bpf_ksym_exists() choice between a new and an old kfunc (both branches are
 * in the ELF; the checker lets the ksym be present or absent).
 */
#include "../../../examples/include/scx_mini.h"

#define SHARED_DSQ 0
#define ksym_exists(sym) (!!(sym))

extern bool scx_bpf_dsq_insert___v2(struct task_struct *p, u64 dsq_id, u64 slice,
				    u64 enq_flags) __ksym __weak;
extern void scx_bpf_dsq_insert___compat(struct task_struct *p, u64 dsq_id, u64 slice,
					u64 enq_flags) __ksym __weak;
extern void scx_bpf_dispatch___compat(struct task_struct *p, u64 dsq_id, u64 slice,
				      u64 enq_flags) __ksym __weak;
extern void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice,
			     u64 enq_flags) __ksym;
extern bool scx_bpf_consume(u64 dsq_id) __ksym;
extern bool scx_bpf_dsq_move_to_local___v1(u64 dsq_id) __ksym __weak;
extern s32 scx_bpf_select_cpu_dfl___compat(struct task_struct *p, s32 prev_cpu,
					   u64 wake_flags, bool *is_idle) __ksym __weak;

/* enqueue through the ___v2 flavour (holds) */
void BPF_STRUCT_OPS(c_enqueue_v2, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert___v2(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

/* the new name if the kernel has it, else the 6.12 one (holds) */
void BPF_STRUCT_OPS(c_enqueue_compat, struct task_struct *p, u64 enq_flags)
{
	if (ksym_exists(scx_bpf_dsq_insert___compat))
		scx_bpf_dsq_insert___compat(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
	else
		scx_bpf_dispatch___compat(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

/* BUG: the compat choice falls through: two inserts with the new kfunc */
void BPF_STRUCT_OPS(c_enqueue_compat_bug, struct task_struct *p, u64 enq_flags)
{
	if (ksym_exists(scx_bpf_dsq_insert___compat))
		scx_bpf_dsq_insert___compat(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
	scx_bpf_dispatch___compat(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

/* BUG: nothing on kernels without the new kfunc (the counterexample has
 * the weak ksym absent: 0) */
void BPF_STRUCT_OPS(c_enqueue_compat_old_bug, struct task_struct *p, u64 enq_flags)
{
	if (ksym_exists(scx_bpf_dsq_insert___compat))
		scx_bpf_dsq_insert___compat(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

/* 6.12 name (holds) */
void BPF_STRUCT_OPS(c_enqueue_legacy, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dispatch(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

/* legacy dispatch into the local DSQ with a flavoured idle search (holds) */
s32 BPF_STRUCT_OPS(c_select_compat, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl___compat(p, prev_cpu, wake_flags, &is_idle);

	if (is_idle)
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, 0);
	return cpu;
}

/* BUG: legacy local dispatch without any idle search */
s32 BPF_STRUCT_OPS(c_select_legacy_bug, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	scx_bpf_dispatch(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, 0);
	return prev_cpu;
}

extern s32 scx_bpf_pick_idle_cpu(const struct cpumask *cpus_allowed, u64 flags) __ksym;

/* claim through scx_bpf_pick_idle_cpu: the picked CPU's local DSQ, or the
 * current one when none is idle (push holds; push_strict does not allow
 * the second) - the cpumask is NULL: a fixture, never loaded */
s32 BPF_STRUCT_OPS(c_select_pick, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cpu = scx_bpf_pick_idle_cpu(NULL, 0);

	if (cpu >= 0) {
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL_ON | cpu, SCX_SLICE_DFL, 0);
		return cpu;
	}
	scx_bpf_dispatch(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, 0);
	return prev_cpu;
}

/* BUG: picks an idle CPU but puts the task on prev_cpu's local DSQ */
s32 BPF_STRUCT_OPS(c_select_pick_bug, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cpu = scx_bpf_pick_idle_cpu(NULL, 0);

	if (cpu >= 0)
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL_ON | prev_cpu, SCX_SLICE_DFL, 0);
	return cpu;
}

/* legacy pull (holds) */
void BPF_STRUCT_OPS(c_dispatch_legacy, s32 cpu, struct task_struct *prev)
{
	scx_bpf_consume(SHARED_DSQ);
}

/* ___v1 flavour of the pull (holds) */
void BPF_STRUCT_OPS(c_dispatch_v1, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local___v1(SHARED_DSQ);
}

/* BUG: low-load, legacy names */
void BPF_STRUCT_OPS(c_dispatch_legacy_bug, s32 cpu, struct task_struct *prev)
{
	if (scx_bpf_dsq_nr_queued(SHARED_DSQ) >= 2)
		scx_bpf_consume(SHARED_DSQ);
}

SEC(".struct_ops.link")
struct sched_ext_ops compat_ops = {
	.select_cpu	= (void *)c_select_compat,
	.enqueue	= (void *)c_enqueue_compat,
	.dispatch	= (void *)c_dispatch_legacy,
	.name		= "compat",
};

char LICENSE[] SEC("license") = "GPL";
