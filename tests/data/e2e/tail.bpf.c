// SPDX-License-Identifier: GPL-2.0
/*
 * tail.bpf.c - a taken tail call runs another program, which may change
 * any memory before the invocation ends (tests/data/e2e/tail.inv).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} jmp SEC(".maps");

__u64 seen;

SEC("xdp")
int tail_caller(struct xdp_md *ctx)
{
	bpf_tail_call(ctx, &jmp, 0);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
