// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_samesec: a FIXTURE, not a loadable example.
 *
 * The subprogram samesec_classify is placed in the program's own section
 * "xdp" instead of .text.  clang 14 compiles this: the call is pc-relative
 * inside the section and has no relocation, and the function is a LOCAL
 * FUNC symbol of section "xdp".  libbpf 1.1.2 refuses to open the object
 * ("sec 'xdp': program 'samesec_classify' is static and not supported"):
 * it takes every function in a program section to be a program and wants
 * subprograms in .text.  Made global instead, the function gets a call
 * relocation and libbpf fails with "bad call relo".  So a checker that opens
 * objects with libbpf must report this object as bad input, while one that
 * reads the ELF itself can analyse it.  See README.md.
 *
 * Semantics (for a reader that can load it): IPv4 passes, ARP passes,
 * anything else is dropped.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

static __noinline __attribute__((section("xdp")))
int samesec_classify(__u16 h_proto)
{
	if (h_proto == bpf_htons(ETH_P_IP) || h_proto == bpf_htons(ETH_P_ARP))
		return XDP_PASS;
	return XDP_DROP;
}

SEC("xdp")
int xdp_samesec(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	return samesec_classify(eth->h_proto);
}

char LICENSE[] SEC("license") = "GPL";
