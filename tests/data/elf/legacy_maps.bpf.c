/* Legacy "maps" section with struct bpf_map_def, which libbpf 1.x refuses. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};

struct bpf_map_def SEC("maps") counters = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(__u64),
	.max_entries = 16,
};

struct bpf_map_def SEC("maps") flows = {
	.type = BPF_MAP_TYPE_HASH,
	.key_size = 8,
	.value_size = 24,
	.max_entries = 1024,
	.map_flags = BPF_F_NO_PREALLOC,
};

SEC("socket")
int count_packets(struct __sk_buff *skb)
{
	__u32 key = skb->protocol & 15;
	__u64 *val = bpf_map_lookup_elem(&counters, &key);
	__u64 fkey = skb->hash;

	if (val)
		__sync_fetch_and_add(val, 1);
	bpf_map_delete_elem(&flows, &fkey);
	return 0;
}

char _license[] SEC("license") = "GPL";
