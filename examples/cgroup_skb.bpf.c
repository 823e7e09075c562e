// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_skb: an egress blocklist for the sockets of one cgroup.
 *
 * User space fills `blocked` with IPv4 destination addresses (network byte
 * order) the cgroup's tasks must not reach; packets to them are dropped (0)
 * and counted in the entry.  Everything else is allowed (1): IPv6, packets
 * too short to carry an IPv4 header, and loopback traffic (127.0.0.0/8 as
 * source or destination), which is allowed before the blocklist is even
 * consulted, so a bad entry can never cut the host off from itself.
 *
 * A cgroup_skb program sees the packet from the IP header on (no Ethernet
 * header).
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * CGROUP_SKB_BUG (cgroup_skb_bug.bpf.o): Is_loopback() tests the address
 * without bpf_ntohl(), so on a little-endian machine it looks at the LAST
 * byte of the network-order address: 127.0.0.1 is not recognised as
 * loopback (and 10.0.0.127 is). A loopback destination that is in `blocked`
 * is dropped. Violates cgroup.never_drops_loopback.
 *
 * CGROUP_SKB_RET_BUG (cgroup_skb_ret_bug.bpf.o): The drop path returns 2,
 * TC_ACT_SHOT (copied from a tc program), instead of 0. 2 is not one of the
 * two documented verdicts. The kernel still loads it: libbpf loads
 * SEC("cgroup_skb/egress") with expected_attach_type
 * BPF_CGROUP_INET_EGRESS, where 2 means "drop and signal congestion" (the
 * socket's sender backs off instead of seeing a plain drop). Violates
 * cgroup.verdict.
 */
#include <linux/bpf.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define CGROUP_DROP	0
#define CGROUP_ALLOW	1

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* IPv4 destination, network order */
	__type(value, __u64);		/* packets dropped */
} blocked SEC(".maps");

static __always_inline int is_loopback(__u32 addr_be)
{
#ifdef CGROUP_SKB_BUG
	return (addr_be >> 24) == 127;	/* BUG: network order, no bpf_ntohl */
#else
	return (bpf_ntohl(addr_be) >> 24) == 127;
#endif
}

SEC("cgroup_skb/egress")
int cgroup_skb(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct iphdr *ip = data;
	__u32 daddr;
	__u64 *drops;

	if ((void *)(ip + 1) > data_end)
		return CGROUP_ALLOW;
	if (ip->version != 4)
		return CGROUP_ALLOW;
	if (is_loopback(ip->saddr) || is_loopback(ip->daddr))
		return CGROUP_ALLOW;

	daddr = ip->daddr;
	drops = bpf_map_lookup_elem(&blocked, &daddr);
	if (!drops)
		return CGROUP_ALLOW;
	__sync_fetch_and_add(drops, 1);
#ifdef CGROUP_SKB_RET_BUG
	return 2;			/* BUG: TC_ACT_SHOT, should be CGROUP_DROP (0) */
#else
	return CGROUP_DROP;
#endif
}

char LICENSE[] SEC("license") = "GPL";
