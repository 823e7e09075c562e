/* handover.bpf.c - tests/handover.py: an object whose load warns (a map
 * member libbpf does not know) and whose one invariant only Z3 proves (an
 * odd square is 1 modulo 8: neither the pre-pass's known bits nor a
 * search of inputs shows it), so that a static bpf-invcheck hands the run
 * over to bpf-invcheck-z3 after writing (holding) a warning. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	int colour;                    /* not a map attribute: the loader warns */
} painted SEC(".maps");

SEC("xdp")
int odd_square(struct xdp_md *ctx)
{
	__u32 y = (__u8)ctx->ingress_ifindex | 1;

	return ((y * y) & 7) == 1 ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
