// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_fw: a small XDP firewall with a source-address blocklist.
 *
 * Policy, in this order:
 *   1. IPv4 TCP to destination port 22 (SSH) always passes, so a bad
 *      blocklist can never lock the operator out of the host.
 *   2. IPv4 packets whose source address is in blocked_ips are dropped.
 *   3. Everything else passes: non-IPv4, truncated and malformed frames
 *      are left to the kernel stack.
 *
 * Only the first fragment of a datagram carries the L4 header, so port
 * rules apply to it alone; later fragments are judged by source address.
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * XDP_FW_BUG (xdp_fw_bug.bpf.o): Off-by-one in is_ssh's TCP bounds check:
 * `>=` instead of `>` rejects a TCP header that ends exactly at data_end,
 * so a minimal 54-byte SSH segment is not recognised as SSH and falls
 * through to the blocklist: from a blocked source it is dropped. Violates:
 * xdp_fw.ipv4_tcp_ssh_passes (only). Passes the kernel verifier (the check
 * is stricter than needed).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define SSH_PORT	22
#define IP_FRAG_OFF	0x1fff	/* fragment offset bits of iphdr.frag_off */

/* Slots of the counters array. */
enum fw_counter {
	FW_PASS,	/* frames passed for any reason */
	FW_DROP,	/* frames dropped by the blocklist */
	FW_SSH,		/* of FW_PASS: SSH let through before the blocklist */
	FW_TCP,		/* IPv4 TCP first fragments seen */
	FW_UDP,		/* IPv4 UDP first fragments seen */
	FW_NR_COUNTERS,
};

/* IPv4 source (network byte order) -> number of frames dropped from it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __be32);
	__type(value, __u64);
} blocked_ips SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FW_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 slot)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &slot);

	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline int verdict(__u32 slot, int action)
{
	count(slot);
	return action;
}

/*
 * Return 1 when the IPv4 packet at iph is TCP to port 22.  Also counts
 * TCP and UDP first fragments; a truncated L4 header is not SSH.
 */
static __always_inline int is_ssh(struct iphdr *iph, void *data_end)
{
	void *l4 = (void *)iph + iph->ihl * 4;

	if (iph->frag_off & bpf_htons(IP_FRAG_OFF))
		return 0;

	if (iph->protocol == IPPROTO_TCP) {
		struct tcphdr *tcp = l4;

#ifdef XDP_FW_BUG
		if ((void *)(tcp + 1) >= data_end)	/* BUG: off by one */
#else
		if ((void *)(tcp + 1) > data_end)
#endif
			return 0;
		count(FW_TCP);
		return tcp->dest == bpf_htons(SSH_PORT);
	}

	if (iph->protocol == IPPROTO_UDP) {
		struct udphdr *udp = l4;

		if ((void *)(udp + 1) > data_end)
			return 0;
		count(FW_UDP);
	}
	return 0;
}

SEC("xdp")
int xdp_fw(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph;
	__be32 saddr;
	__u64 *hits;

	if ((void *)(eth + 1) > data_end)
		return verdict(FW_PASS, XDP_PASS);
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return verdict(FW_PASS, XDP_PASS);

	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end || iph->ihl < 5)
		return verdict(FW_PASS, XDP_PASS);

	if (is_ssh(iph, data_end)) {
		count(FW_SSH);
		return verdict(FW_PASS, XDP_PASS);
	}

	saddr = iph->saddr;
	hits = bpf_map_lookup_elem(&blocked_ips, &saddr);
	if (hits) {
		__sync_fetch_and_add(hits, 1);
		return verdict(FW_DROP, XDP_DROP);
	}
	return verdict(FW_PASS, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
