// SPDX-License-Identifier: GPL-2.0
/*
 * scx_flow: the sched_ext_dsqs relation (`relate`, xprog.c) on three
 * struct_ops maps of one object (examples/scx_dsqs.inv):
 *   two_ops     enqueue picks DSQ 5 or 7; init creates both, dispatch
 *               pulls both: the ids are enumerated through the choice (holds)
 *   cpu_ops     enqueue inserts into the DSQ numbered by the task's CPU
 *               (up to 8192 ids): not enumerable (unknown)
 *   nodisp_ops  no dispatch callback: DSQ 3 is never drained (unknown)
 *   hidden_ops  __scx_bpf_dsq_insert_vtime: the id is behind a pointer (unknown)
 *   loop_ops    enqueue loops 100 times, more than the loop bound (unknown)
 */
#include "../../../examples/include/scx_mini.h"

extern s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;

void BPF_STRUCT_OPS(two_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, enq_flags & 1 ? 5 : 7, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(two_dispatch, s32 cpu, struct task_struct *prev)
{
	if (!scx_bpf_dsq_move_to_local(5))
		scx_bpf_dsq_move_to_local(7);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(two_init)
{
	s32 err = scx_bpf_create_dsq(5, -1);

	return err ? err : scx_bpf_create_dsq(7, -1);
}

void BPF_STRUCT_OPS(cpu_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, scx_bpf_task_cpu(p), SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(cpu_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local(cpu);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(cpu_init)
{
	return scx_bpf_create_dsq(0, -1);
}

void BPF_STRUCT_OPS(nodisp_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, 3, SCX_SLICE_DFL, enq_flags);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(nodisp_init)
{
	return scx_bpf_create_dsq(3, -1);
}

/* the newest kernels' vtime insert keeps the DSQ id in a struct: unknown */
struct scx_insert_args { u64 dsq_id, slice, vtime, enq_flags; };
extern void __scx_bpf_dsq_insert_vtime(struct task_struct *p,
				       struct scx_insert_args *args) __ksym;

void BPF_STRUCT_OPS(hidden_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct scx_insert_args args = { 0, SCX_SLICE_DFL, 0, enq_flags };

	__scx_bpf_dsq_insert_vtime(p, &args);
}

void BPF_STRUCT_OPS(hidden_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local(0);
}

/* a callback with a loop longer than the loop bound: unknown */
void BPF_STRUCT_OPS(loop_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 dsq = 0;

	for (int i = 0; i < 100; i++)
		if (enq_flags >> (i & 63) & 1)
			dsq = 2;
	scx_bpf_dsq_insert(p, dsq, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(loop_dispatch, s32 cpu, struct task_struct *prev)
{
	if (!scx_bpf_dsq_move_to_local(0))
		scx_bpf_dsq_move_to_local(2);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(loop_init)
{
	s32 err = scx_bpf_create_dsq(0, -1);

	return err ? err : scx_bpf_create_dsq(2, -1);
}

SEC(".struct_ops.link")
struct sched_ext_ops hidden_ops = {
	.enqueue	= (void *)hidden_enqueue,
	.dispatch	= (void *)hidden_dispatch,
	.name		= "hidden",
};

SEC(".struct_ops.link")
struct sched_ext_ops loop_ops = {
	.enqueue	= (void *)loop_enqueue,
	.dispatch	= (void *)loop_dispatch,
	.init		= (void *)loop_init,
	.name		= "loop",
};

SEC(".struct_ops.link")
struct sched_ext_ops two_ops = {
	.enqueue	= (void *)two_enqueue,
	.dispatch	= (void *)two_dispatch,
	.init		= (void *)two_init,
	.name		= "two",
};

SEC(".struct_ops.link")
struct sched_ext_ops cpu_ops = {
	.enqueue	= (void *)cpu_enqueue,
	.dispatch	= (void *)cpu_dispatch,
	.init		= (void *)cpu_init,
	.name		= "cpu",
};

SEC(".struct_ops.link")
struct sched_ext_ops nodisp_ops = {
	.enqueue	= (void *)nodisp_enqueue,
	.init		= (void *)nodisp_init,
	.name		= "nodisp",
};

char LICENSE[] SEC("license") = "GPL";
