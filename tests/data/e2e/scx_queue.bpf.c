// SPDX-License-Identifier: GPL-2.0
/*
 * scx_queue: enqueue keeps tasks in a BPF queue map (by pid) that dispatch
 * drains, as scx_qmap does; checked with sched_ext.enqueue_hands_off_queue
 * (tests/data/e2e/scx_queue.inv).
 *
 * q_enqueue      pushes the pid; when the queue is full the task goes to
 *                SCX_DSQ_GLOBAL instead: one hand-off on every path (holds).
 * q_enqueue_bug  ignores a failed push: the task is nowhere (violated).
 */
#include "../../../examples/include/scx_mini.h"

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 4096);
	__type(value, s32);
} fifo SEC(".maps");

void BPF_STRUCT_OPS(q_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 pid = p->pid;

	if (bpf_map_push_elem(&fifo, &pid, 0))
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(q_enqueue_bug, struct task_struct *p, u64 enq_flags)
{
	s32 pid = p->pid;

	bpf_map_push_elem(&fifo, &pid, 0);	/* BUG: a full queue strands p */
}

SEC(".struct_ops.link")
struct sched_ext_ops q_ops = {
	.enqueue	= (void *)q_enqueue,
	.name		= "queue",
};

char LICENSE[] SEC("license") = "GPL";
