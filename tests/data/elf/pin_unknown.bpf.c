/* A BTF-defined map with a pinning value libbpf does not know. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, 7);
} pinned SEC(".maps");

SEC("tc")
int tc_prog(struct __sk_buff *skb)
{
	__u32 k = skb->mark;
	__u64 *v = bpf_map_lookup_elem(&pinned, &k);

	return v ? 1 : 0;
}

char _license[] SEC("license") = "GPL";
