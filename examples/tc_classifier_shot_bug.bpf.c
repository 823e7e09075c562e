// SPDX-License-Identifier: GPL-2.0
/*
 * BUG VARIANT of tc_classifier.bpf.c (examples/tc_classifier.inv, same
 * function names).
 * "Fail closed": an IPv4 TCP/UDP packet whose ports cannot be read (a
 * truncated L4 header) is shot, although no denied_ports entry says so.
 * Violates: tc_classifier.tc.shot_only_on_hit, and the spec's own form of
 * the same rule, tc_classifier.shot_only_denied.  Passes the kernel
 * verifier.
 */
/*
 * tc_classifier: an egress port policy for tc (direct-action mode).
 *
 * IPv4 TCP and UDP packets to a (proto, destination port) listed in
 * denied_ports are shot, unless the skb carries TRUSTED_MARK (set by an
 * earlier hook for traffic that is exempt).  Every other packet, and every
 * packet whose headers cannot be read, gets TC_ACT_OK.
 *
 * The headers are copied out with bpf_skb_load_bytes rather than read
 * through direct packet access, so non-linear skbs are handled too.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TRUSTED_MARK	0x7e57
#define IP_FRAG_OFF	0x1fff

struct port_key {
	__u16 port;		/* host byte order */
	__u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	__u8 pad;
};

/* (proto, port) -> packets shot so far. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct port_key);
	__type(value, __u64);
} denied_ports SEC(".maps");

SEC("tc")
int tc_classifier(struct __sk_buff *skb)
{
	struct port_key key = {};
	struct iphdr iph;
	__be16 ports[2];	/* source, destination: same place in TCP and UDP */
	__u64 *shot;
	__u32 off;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	if (skb->mark == TRUSTED_MARK)
		return TC_ACT_OK;
	if (skb->len < ETH_HLEN + sizeof(iph))
		return TC_ACT_OK;

	if (bpf_skb_load_bytes(skb, ETH_HLEN, &iph, sizeof(iph)) < 0)
		return TC_ACT_OK;
	if (iph.protocol != IPPROTO_TCP && iph.protocol != IPPROTO_UDP)
		return TC_ACT_OK;
	if (iph.ihl < 5 || (iph.frag_off & bpf_htons(IP_FRAG_OFF)))
		return TC_ACT_OK;

	off = ETH_HLEN + iph.ihl * 4;
	if (bpf_skb_load_bytes(skb, off, ports, sizeof(ports)) < 0)
		return TC_ACT_SHOT;	/* BUG: no policy says so */

	key.port = bpf_ntohs(ports[1]);
	key.proto = iph.protocol;
	shot = bpf_map_lookup_elem(&denied_ports, &key);
	if (!shot)
		return TC_ACT_OK;

	__sync_fetch_and_add(shot, 1);
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
