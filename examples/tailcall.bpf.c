// SPDX-License-Identifier: GPL-2.0
/*
 * tailcall: an XDP dispatcher that hands IPv4 TCP and UDP frames to a
 * per-protocol program through a BPF_MAP_TYPE_PROG_ARRAY.
 *
 * tail_entry  parses Ethernet/IPv4 and tail-calls jmp_table[slot]; when the
 *             slot is empty (or the tail-call limit is hit) bpf_tail_call
 *             returns and the frame passes, counted in tail_misses.
 * tail_tcp    drops TCP segments with both SYN and FIN set, passes the rest.
 * tail_udp    drops UDP datagrams to port 0, passes the rest.
 *
 * jmp_table is filled declaratively (.values), so libbpf installs the two
 * targets after loading; the ELF records them as relocations in .rel.maps.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

enum { SLOT_TCP, SLOT_UDP, NR_SLOTS };

__u64 tail_misses;

/* Return the L4 header of an IPv4 first fragment in the frame, or NULL. */
static __always_inline void *l4_header(struct xdp_md *ctx, __u8 *proto)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	struct iphdr *iph = (void *)(eth + 1);

	if ((void *)(iph + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return NULL;
	if (iph->ihl < 5 || (iph->frag_off & bpf_htons(0x1fff)))
		return NULL;
	*proto = iph->protocol;
	return (void *)iph + iph->ihl * 4;
}

SEC("xdp")
int tail_tcp(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct tcphdr *tcp;
	__u8 proto;

	tcp = l4_header(ctx, &proto);
	if (!tcp || proto != IPPROTO_TCP || (void *)(tcp + 1) > data_end)
		return XDP_PASS;
	if (tcp->syn && tcp->fin)
		return XDP_DROP;
	return XDP_PASS;
}

SEC("xdp")
int tail_udp(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct udphdr *udp;
	__u8 proto;

	udp = l4_header(ctx, &proto);
	if (!udp || proto != IPPROTO_UDP || (void *)(udp + 1) > data_end)
		return XDP_PASS;
	if (udp->dest == 0)
		return XDP_DROP;
	return XDP_PASS;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, NR_SLOTS);
	__uint(key_size, sizeof(__u32));	/* no BTF key: prog arrays refuse it */
	__array(values, int (struct xdp_md *));
} jmp_table SEC(".maps") = {
	.values = {
		[SLOT_TCP] = (void *)&tail_tcp,
		[SLOT_UDP] = (void *)&tail_udp,
	},
};

SEC("xdp")
int tail_entry(struct xdp_md *ctx)
{
	__u32 slot;
	__u8 proto;

	if (!l4_header(ctx, &proto))
		return XDP_PASS;

	if (proto == IPPROTO_TCP)
		slot = SLOT_TCP;
	else if (proto == IPPROTO_UDP)
		slot = SLOT_UDP;
	else
		return XDP_PASS;

	bpf_tail_call(ctx, &jmp_table, slot);

	/* Only reached when the tail call did not happen. */
	__sync_fetch_and_add(&tail_misses, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
