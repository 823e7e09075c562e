// SPDX-License-Identifier: GPL-2.0
/*
 * scx_claims: idle claims and local inserts for the push rules' claim
 * slots (invariants/sched_ext.inv keeps the first 4 claims of a path;
 * tests/data/e2e/scx_claims.inv, verdicts in tests/e2e/sched_ext.tsv).
 *
 * c_first_of_two  claims cpu, then cpu ^ 1, inserts for cpu (holds: the
 *                 rule before the slots kept only the last claim)
 * c_fourth        four claims, inserts for the fourth (holds)
 * c_fifth         five claims, inserts for the fifth: a claim the pack
 *                 does not keep, reported as such (violated)
 * c_unclaimed     claims cpu ^ 1 only, inserts for cpu (violated)
 */
#include "../../../examples/include/scx_mini.h"

extern s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;

#define CLAIM(c) scx_bpf_test_and_clear_cpu_idle(c)
#define LOCAL_ON(p, c, f) scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | (c), SCX_SLICE_DFL, f)

void BPF_STRUCT_OPS(c_first_of_two, struct task_struct *p, u64 enq_flags)
{
	s32 cpu = scx_bpf_task_cpu(p);

	if (CLAIM(cpu) && CLAIM(cpu ^ 1)) {
		LOCAL_ON(p, cpu, enq_flags);
		return;
	}
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(c_fourth, struct task_struct *p, u64 enq_flags)
{
	if (CLAIM(1) && CLAIM(2) && CLAIM(3) && CLAIM(4)) {
		LOCAL_ON(p, 4, enq_flags);
		return;
	}
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(c_fifth, struct task_struct *p, u64 enq_flags)
{
	if (CLAIM(1) && CLAIM(2) && CLAIM(3) && CLAIM(4) && CLAIM(5)) {
		LOCAL_ON(p, 5, enq_flags);
		return;
	}
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(c_unclaimed, struct task_struct *p, u64 enq_flags)
{
	s32 cpu = scx_bpf_task_cpu(p);

	if (CLAIM(cpu ^ 1)) {
		LOCAL_ON(p, cpu, enq_flags);
		return;
	}
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

SEC(".struct_ops.link")
struct sched_ext_ops claims_ops = {
	.enqueue	= (void *)c_first_of_two,
	.name		= "claims",
};

char LICENSE[] SEC("license") = "GPL";
