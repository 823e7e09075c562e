// SPDX-License-Identifier: GPL-2.0
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
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * TC_CLASSIFIER_BUG (tc_classifier_bug.bpf.o): Byte-order mix-up in the
 * exemption: skb->mark is in host order, but the program compares it with
 * bpf_htonl(TRUSTED_MARK), so traffic marked 0x7e57 is no longer exempt and
 * can be shot. Violates: tc_classifier.trusted_mark_passes (only). Passes
 * the kernel verifier.
 *
 * TC_CLASSIFIER_RET_BUG (tc_classifier_ret_bug.bpf.o): A failing
 * bpf_skb_load_bytes of the ports is passed on as the verdict (`return
 * err;`): a negative errno is no tc action (the kernel treats undocumented
 * codes like TC_ACT_OK today, but that is not a contract). Violates:
 * tc_classifier.tc.valid_action (only). Passes the kernel verifier.
 *
 * TC_CLASSIFIER_SHOT_BUG (tc_classifier_shot_bug.bpf.o): "Fail closed": an
 * IPv4 TCP/UDP packet whose ports cannot be read (a truncated L4 header) is
 * shot, although no denied_ports entry says so. Violates:
 * tc_classifier.tc.shot_only_on_hit, and the spec's own form of the same
 * rule, tc_classifier.shot_only_denied. Passes the kernel verifier.
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
#ifdef TC_CLASSIFIER_RET_BUG
	long err;
#endif

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
#ifdef TC_CLASSIFIER_BUG
	if (skb->mark == bpf_htonl(TRUSTED_MARK))	/* BUG: mark is host order */
#else
	if (skb->mark == TRUSTED_MARK)
#endif
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
#if defined(TC_CLASSIFIER_RET_BUG)
	err = bpf_skb_load_bytes(skb, off, ports, sizeof(ports));
	if (err < 0)
		return err;	/* BUG: an errno is not a tc action */
#elif defined(TC_CLASSIFIER_SHOT_BUG)
	if (bpf_skb_load_bytes(skb, off, ports, sizeof(ports)) < 0)
		return TC_ACT_SHOT;	/* BUG: no policy says so */
#else
	if (bpf_skb_load_bytes(skb, off, ports, sizeof(ports)) < 0)
		return TC_ACT_OK;
#endif

	key.port = bpf_ntohs(ports[1]);
	key.proto = iph.protocol;
	shot = bpf_map_lookup_elem(&denied_ports, &key);
	if (!shot)
		return TC_ACT_OK;

	__sync_fetch_and_add(shot, 1);
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
