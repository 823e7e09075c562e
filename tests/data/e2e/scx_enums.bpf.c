// SPDX-License-Identifier: GPL-2.0
/*
 * scx_enums: sched_ext's enum values read from `__SCX_*` .rodata variables,
 * as the scx headers do (0 in the ELF; user space fills them from the
 * kernel's BTF before the load).  The checker pins them to a kernel's values
 * (kprofile.c): the built-in profile, or --kernel-btf FILE
 * (tests/data/kbtf/scx_7.c: SCX_ENQ_HEAD is 0x10000 there, as in 7.0).
 * Spec: tests/data/e2e/scx_enums.inv; verdicts: tests/e2e/sched_ext.tsv
 * (built-in) and tests/kernel_btf.sh (--kernel-btf).
 */
#include "../../../examples/include/scx_mini.h"

const volatile u64 __SCX_DSQ_LOCAL __weak;
const volatile u64 __SCX_DSQ_LOCAL_ON __weak;
const volatile u64 __SCX_ENQ_HEAD __weak;
const volatile u64 __SCX_SLICE_DFL __weak;
const volatile u64 __SCX_NO_SUCH_ENUM __weak;	/* no kernel has it: stays free */

#define E_DSQ_LOCAL	__SCX_DSQ_LOCAL
#define E_DSQ_LOCAL_ON	__SCX_DSQ_LOCAL_ON
#define E_ENQ_HEAD	__SCX_ENQ_HEAD
#define E_SLICE_DFL	__SCX_SLICE_DFL

/* local insert after a successful claim: push_strict holds only when
 * E_DSQ_LOCAL is SCX_DSQ_LOCAL (free, it could be LOCAL_ON | any cpu) */
s32 BPF_STRUCT_OPS(e_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);

	if (is_idle)
		scx_bpf_dsq_insert(p, E_DSQ_LOCAL, E_SLICE_DFL, 0);
	return cpu;
}

/* head-of-queue requeues go to the front of the shared DSQ */
void BPF_STRUCT_OPS(e_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, 0, E_SLICE_DFL, enq_flags & E_ENQ_HEAD);
}

void BPF_STRUCT_OPS(e_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local(0);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(e_init)
{
	return scx_bpf_create_dsq(__SCX_NO_SUCH_ENUM ? 0 : 0, -1);
}

SEC(".struct_ops.link")
struct sched_ext_ops enums_ops = {
	.select_cpu	= (void *)e_select_cpu,
	.enqueue	= (void *)e_enqueue,
	.dispatch	= (void *)e_dispatch,
	.init		= (void *)e_init,
	.name		= "enums",
};

char LICENSE[] SEC("license") = "GPL";
