// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_redirect: an XDP front end that steers frames by redirect_map.
 *
 * Two programs:
 *
 * xdp_redirect, a router front end, in this order:
 *   1. Runt and non-IPv4 frames, and IPv4 with options, pass to the
 *      kernel stack untouched.
 *   2. IPv4 to a destination listed in routes is sent out of the route's
 *      port (tx_ports, a DEVMAP) with its TTL decremented and the next
 *      hop's MAC addresses written into the frame; a port that has gone
 *      away falls back to XDP_PASS (the low bits of bpf_redirect_map's
 *      flags).  A frame whose TTL runs out passes to the stack, which
 *      answers with ICMP time exceeded.
 *   3. Other IPv4 frames are spread over CPUs by a hash of the addresses
 *      (cpus, a CPUMAP), falling back to XDP_PASS for a CPU without a
 *      queue.
 *   So every frame gets PASS or REDIRECT (never DROP or ABORTED), and the
 *   port or CPU a flow goes to depends only on the frame and the maps.
 *
 * xdp_xsk, the classic AF_XDP steering program: IPv4 UDP to port 4791
 * goes to the AF_XDP socket of its rx queue (xsks, an XSKMAP) when the
 * queue has one: the queue's entry is looked up first, then redirected
 * with flags 0.  Everything else passes.
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec (examples/xdp_redirect.inv, same function names):
 *
 * XDP_REDIRECT_ROUTE_BUG (xdp_redirect_route_bug.bpf.o): A routed frame
 * whose TTL runs out is dropped instead of passed to the stack, so the
 * sender never gets ICMP time exceeded (traceroute through the router
 * shows nothing, path MTU problems are silent).  Violates:
 * xdp_redirect.xdp.always_route (only).  Passes the kernel verifier.
 *
 * XDP_REDIRECT_AFFINITY_BUG (xdp_redirect_affinity_bug.bpf.o): Frames
 * without a route are spread over the CPUs at random instead of by a hash
 * of the addresses, so the packets of one flow land on different CPUs (and
 * get reordered).  Violates: xdp_redirect.xdp.flow_affinity (only).  Passes
 * the kernel verifier.
 *
 * XDP_REDIRECT_FALLBACK_BUG (xdp_redirect_fallback_bug.bpf.o): xdp_xsk asks
 * a queue-configuration array (qidconf, filled by the loader) whether the
 * queue is in use instead of looking the queue up in xsks itself, then
 * redirects with flags 0: a queue that is configured but has no socket
 * (yet, or any more) gets XDP_ABORTED.  Violates:
 * xdp_xsk.xdp.redirect_fallback (only).  Passes the kernel verifier.
 *
 * XDP_REDIRECT_VLAN_BUG (xdp_redirect_vlan_bug.bpf.o): xdp_redirect pops an
 * 802.1Q tag before it looks at the ethertype, also from frames it then
 * passes to the stack: a tagged ARP or IPv6 frame reaches the kernel
 * without its tag (on the wrong VLAN), and a tagged IPv4 frame is routed
 * although the router does not serve VLANs.  Violates:
 * xdp_redirect.xdp.passes_unchanged (only).  Passes the kernel verifier.
 *
 * XDP_REDIRECT_ACTION_BUG (xdp_redirect_action_bug.bpf.o): A frame too
 * short for an Ethernet header gets -1, a C-style "error", which is no XDP
 * action: the driver warns (bpf_warn_invalid_xdp_action) and drops the
 * frame.  Violates: xdp_redirect.xdp.valid_action (only).  Passes the
 * kernel verifier (it does not check XDP return values).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define MAX_QUEUES	64
#define MAX_PORTS	64
#define MAX_CPUS	64
#define XSK_UDP_PORT	4791
#ifdef XDP_REDIRECT_VLAN_BUG
#define VLAN_HLEN	4
#endif

struct route {
	__u32 port;		/* tx_ports slot */
	__u8 dmac[ETH_ALEN];
	__u8 smac[ETH_ALEN];
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} tx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} cpus SEC(".maps");

#ifdef XDP_REDIRECT_FALLBACK_BUG
/* rx queue -> 1 when an AF_XDP socket is configured for it */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} qidconf SEC(".maps");
#endif

/* IPv4 destination (network byte order) -> where to send it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __be32);
	__type(value, struct route);
} routes SEC(".maps");

/* Number of CPUs in cpus (set by the loader; 0 is taken as 1). */
const volatile __u32 nr_cpus = 1;

/* TTL - 1 with the header checksum updated incrementally (RFC 1624). */
static __always_inline void ip_decrease_ttl(struct iphdr *iph)
{
	__u32 check = iph->check;

	check += bpf_htons(0x0100);
	iph->check = (__sum16)(check + (check >= 0xffff));
	iph->ttl--;
}

SEC("xdp")
int xdp_redirect(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph;
	struct route *rt;
	__be32 daddr;
	__u32 n, cpu;
#ifdef XDP_REDIRECT_VLAN_BUG
	__u8 macs[2 * ETH_ALEN];
#endif

#if defined(XDP_REDIRECT_ACTION_BUG)
	if ((void *)(eth + 1) > data_end)
		return -1;	/* BUG: not an XDP action */
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
#elif defined(XDP_REDIRECT_VLAN_BUG)
	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_8021Q)) {
		/* BUG: the tag is popped before the frame is known to be ours */
		__builtin_memcpy(macs, data, sizeof(macs));
		if (bpf_xdp_adjust_head(ctx, VLAN_HLEN))
			return XDP_PASS;
		data_end = (void *)(long)ctx->data_end;
		data = (void *)(long)ctx->data;
		eth = data;
		if ((void *)(eth + 1) > data_end)
			return XDP_PASS;
		__builtin_memcpy(data, macs, sizeof(macs));
	}
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
#else
	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
#endif
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end || iph->ihl != 5)
		return XDP_PASS;

	daddr = iph->daddr;
	rt = bpf_map_lookup_elem(&routes, &daddr);
	if (rt) {
		if (iph->ttl <= 1)
#ifdef XDP_REDIRECT_ROUTE_BUG
			return XDP_DROP;	/* BUG: the stack should send ICMP time exceeded */
#else
			return XDP_PASS;	/* the stack sends ICMP time exceeded */
#endif
		ip_decrease_ttl(iph);
		__builtin_memcpy(eth->h_dest, rt->dmac, ETH_ALEN);
		__builtin_memcpy(eth->h_source, rt->smac, ETH_ALEN);
		return bpf_redirect_map(&tx_ports, rt->port, XDP_PASS);
	}

	n = nr_cpus ? nr_cpus : 1;
#ifdef XDP_REDIRECT_AFFINITY_BUG
	cpu = bpf_get_prandom_u32() % n;	/* BUG: not per flow */
#else
	cpu = (bpf_ntohl(iph->saddr) ^ bpf_ntohl(iph->daddr)) % n;
#endif
	return bpf_redirect_map(&cpus, cpu, XDP_PASS);
}

SEC("xdp")
int xdp_xsk(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *udp = (void *)(iph + 1);
	__u32 q = ctx->rx_queue_index;

	if ((void *)(udp + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    iph->ihl != 5 || iph->protocol != IPPROTO_UDP ||
	    udp->dest != bpf_htons(XSK_UDP_PORT))
		return XDP_PASS;
#ifdef XDP_REDIRECT_FALLBACK_BUG
	__u32 *on = bpf_map_lookup_elem(&qidconf, &q);	/* BUG: not xsks */

	if (on && *on)
#else
	if (bpf_map_lookup_elem(&xsks, &q))
#endif
		return bpf_redirect_map(&xsks, q, 0);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
