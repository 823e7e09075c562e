// SPDX-License-Identifier: GPL-2.0
/*
 * affinity: flow affinity as a two-run property (`bpf-invcheck diff
 * --flow-affinity`, checker/selfcomp.h; tests/diff_cli.sh).
 *
 * a_sampled     counts one frame in 64, picked by bpf_get_prandom_u32, and
 *               redirects by the destination address: independent (the
 *               per-path rule xdp.flow_affinity is violated: prandom on a
 *               REDIRECT path, tests/data/e2e/affinity.inv)
 * a_spray       picks the redirect key from the CPU id: depends
 * a_drop_random drops one frame in 2^32 at random: depends (the verdict)
 * a_percpu      reads a per-CPU map: unknown (per-CPU contents)
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} weights SEC(".maps");

static __always_inline int port_of(struct xdp_md *ctx, __u32 *port)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 *eth = data;

	if (data + ETH_HLEN > end)
		return -1;
	*port = eth[5] & 15;	/* the last byte of the destination MAC */
	return 0;
}

SEC("xdp")
int a_sampled(struct xdp_md *ctx)
{
	__u32 port, zero = 0;
	__u64 *n;

	if (port_of(ctx, &port))
		return XDP_PASS;
	if ((bpf_get_prandom_u32() & 63) == 0) {
		n = bpf_map_lookup_elem(&samples, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	return bpf_redirect_map(&ports, port, XDP_PASS);
}

SEC("xdp")
int a_spray(struct xdp_md *ctx)
{
	__u32 port;

	if (port_of(ctx, &port))
		return XDP_PASS;
	return bpf_redirect_map(&ports, bpf_get_smp_processor_id() & 15, XDP_PASS);
}

SEC("xdp")
int a_drop_random(struct xdp_md *ctx)
{
	__u32 port;

	if (port_of(ctx, &port))
		return XDP_PASS;
	if (bpf_get_prandom_u32() == 0)
		return XDP_DROP;
	return bpf_redirect_map(&ports, port, XDP_PASS);
}

SEC("xdp")
int a_percpu(struct xdp_md *ctx)
{
	__u32 port, zero = 0, *w;

	if (port_of(ctx, &port))
		return XDP_PASS;
	w = bpf_map_lookup_elem(&weights, &zero);
	if (w && *w)
		port = (port + *w) & 15;
	return bpf_redirect_map(&ports, port, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
