// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_lb: a small layer-4 XDP load balancer.
 *
 * IPv4 TCP and UDP packets to a service (vip, port, proto) listed in the
 * services map are sent back out of the receiving interface (XDP_TX) to one
 * of the service's backends: destination MAC and IP are rewritten and the IP
 * and L4 checksums updated incrementally.  The backend is chosen by a hash
 * of the 5-tuple, so one flow always reaches the same backend as long as the
 * maps do not change.  Everything that is not service traffic passes
 * untouched; a service whose backend range is empty or outside the
 * backends array is dropped (misconfiguration).
 *
 * Packets with IP options or fragments are not balanced (they pass).
 *
 * BPF-to-BPF calls, on purpose:
 *   xdp_lb (section "xdp") -> lb_flow_hash  global function in .text
 *   xdp_lb (section "xdp") -> lb_rewrite    static __noinline in .text
 *   lb_flow_hash (.text)   -> lb_mix        static __noinline in .text
 * The first two carry an R_BPF_64_32 relocation; the last is a call inside
 * one section and has none.
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * XDP_LB_BUG (xdp_lb_bug.bpf.o): The backend range is read as inclusive,
 * backends[first .. first + count]: `hash % (count + 1)` instead of `hash %
 * count`, so one flow in count + 1 goes to the backend after the service's
 * last one (another service's backend), or is dropped when that index is
 * past the backends array. Violates: xdp_lb.service_reaches_backend (only).
 * Passes the kernel verifier.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define MAX_SERVICES	256
#define MAX_BACKENDS	256
#define IP_FRAG_MASK	0x3fff	/* MF flag and fragment offset */

struct vip_key {
	__be32 vip;
	__be16 port;
	__u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	__u8 pad;
};

/* A service owns backends[first .. first + count - 1]. */
struct service {
	__u32 first;
	__u32 count;
};

struct backend {
	__be32 ip;
	__u8 mac[ETH_ALEN];
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_SERVICES);
	__type(key, struct vip_key);
	__type(value, struct service);
} services SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_BACKENDS);
	__type(key, __u32);
	__type(value, struct backend);
} backends SEC(".maps");

/* One round of a multiply-rotate hash (the mixing step of murmur3). */
static __noinline __u32 lb_mix(__u32 h, __u32 v)
{
	v *= 0xcc9e2d51;
	v = (v << 15) | (v >> 17);
	v *= 0x1b873593;
	h ^= v;
	h = (h << 13) | (h >> 19);
	return h * 5 + 0xe6546b64;
}

/*
 * Hash of the 5-tuple.  A global function: the kernel verifies it on its
 * own, with every argument an unknown scalar.
 */
__noinline __u32 lb_flow_hash(__be32 saddr, __be32 daddr, __be16 sport,
			      __be16 dport, __u8 proto)
{
	__u32 h = 0x5bd1e995;

	h = lb_mix(h, saddr);
	h = lb_mix(h, daddr);
	h = lb_mix(h, ((__u32)sport << 16) | dport);
	h = lb_mix(h, proto);
	h ^= h >> 16;
	return h;
}

/* RFC 1624: update a 16-bit one's complement checksum for a new 32-bit word. */
static __always_inline void csum_replace4(__sum16 *csum, __be32 from, __be32 to)
{
	__u32 sum = (__u16)~*csum;

	sum += (__u16)~from + (__u16)(~from >> 16);
	sum += (to & 0xffff) + (to >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*csum = (__sum16)~sum;
}

/*
 * Point the frame at backend be.  The caller has bounds-checked eth, iph and
 * the L4 header holding l4_check, the TCP or UDP checksum; l4_check is NULL
 * for UDP sent without a checksum.  (The caller passes the checksum pointer
 * rather than letting this function re-read iph->protocol: the verifier
 * checks each call path on its own and cannot know that a re-read protocol
 * matches the header length the caller checked.)
 */
static __noinline int lb_rewrite(struct ethhdr *eth, struct iphdr *iph,
				 __sum16 *l4_check, const struct backend *be)
{
	__be32 old = iph->daddr;

	__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, be->mac, ETH_ALEN);

	iph->daddr = be->ip;
	csum_replace4(&iph->check, old, be->ip);

	if (l4_check)
		csum_replace4(l4_check, old, be->ip);
	return XDP_TX;
}

SEC("xdp")
int xdp_lb(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct vip_key key = {};
	struct service *svc;
	struct backend *be;
	struct iphdr *iph;
	__sum16 *l4_check;
	__be16 sport, dport;
	void *l4;
	__u32 idx;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;

	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end)
		return XDP_PASS;
	if (iph->ihl != 5 || (iph->frag_off & bpf_htons(IP_FRAG_MASK)))
		return XDP_PASS;

	l4 = iph + 1;
	if (iph->protocol == IPPROTO_TCP) {
		struct tcphdr *tcp = l4;

		if ((void *)(tcp + 1) > data_end)
			return XDP_PASS;
		sport = tcp->source;
		dport = tcp->dest;
		l4_check = &tcp->check;
	} else if (iph->protocol == IPPROTO_UDP) {
		struct udphdr *udp = l4;

		if ((void *)(udp + 1) > data_end)
			return XDP_PASS;
		sport = udp->source;
		dport = udp->dest;
		l4_check = udp->check ? &udp->check : NULL; /* 0: none (IPv4) */
	} else {
		return XDP_PASS;
	}

	key.vip = iph->daddr;
	key.port = dport;
	key.proto = iph->protocol;
	svc = bpf_map_lookup_elem(&services, &key);
	if (!svc)
		return XDP_PASS;
	if (svc->count == 0)
		return XDP_DROP;

	idx = lb_flow_hash(iph->saddr, iph->daddr, sport, dport, iph->protocol);
#ifdef XDP_LB_BUG
	idx = svc->first + idx % (svc->count + 1);	/* BUG: range taken as inclusive */
#else
	idx = svc->first + idx % svc->count;
#endif
	be = bpf_map_lookup_elem(&backends, &idx);
	if (!be)
		return XDP_DROP;

	return lb_rewrite(eth, iph, l4_check, be);
}

char LICENSE[] SEC("license") = "GPL";
