/* A BTF-defined map with a member libbpf does not know. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__uint(key_size, 4);
	__uint(value_size, 16);
	__uint(colour, 3);
} painted SEC(".maps");

SEC("xdp")
int xdp_paint(struct xdp_md *ctx)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&painted, &k) ? XDP_PASS : XDP_ABORTED;
}

char _license[] SEC("license") = "GPL";
