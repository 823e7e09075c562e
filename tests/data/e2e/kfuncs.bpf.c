// SPDX-License-Identifier: GPL-2.0
/*
 * kfuncs.bpf.c - fixtures for unknown kfuncs (tests/data/e2e/kfuncs.inv):
 * a kfunc may write what a pointer parameter points to, for the size of
 * the pointee its BTF prototype names, and nothing through a pointer to
 * const; other stack bytes keep their values.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pair {
	__u32 a, b;
};

extern void test_fill(struct pair *p) __ksym;
extern void test_read(const struct pair *p) __ksym;

/* The guard beside the struct survives the call; the struct does not. */
SEC("xdp")
int fill_keeps_neighbour(struct xdp_md *ctx)
{
	volatile __u64 guard = 7;
	struct pair p = { 1, 2 };

	test_fill(&p);
	if (guard != 7)
		return XDP_ABORTED;
	return p.a == 1 ? XDP_PASS : XDP_DROP;
}

/* A pointer to const: the struct keeps its values. */
SEC("xdp")
int read_keeps_struct(struct xdp_md *ctx)
{
	struct pair p = { 1, 2 };

	test_read(&p);
	return p.a == 1 && p.b == 2 ? XDP_PASS : XDP_ABORTED;
}

char LICENSE[] SEC("license") = "GPL";
