// SPDX-License-Identifier: GPL-2.0
/*
 * maps.bpf.c - fixtures for the map rules of the memory model (checked by
 * tests/data/e2e/maps.inv, expected verdicts in tests/e2e/expect.tsv):
 *   - an array lookup with a key below max_entries never returns NULL, one
 *     at or above it always does;
 *   - a hash lookup may return NULL or an entry;
 *   - two lookups of one array key return the same value, so a write
 *     through the first is read through the second; two lookups of one
 *     hash key need not (another CPU may delete and re-add the entry);
 *   - bpf_redirect_map returns XDP_REDIRECT or the action in its flags, and
 *     XDP_ABORTED for invalid flags.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

SEC("xdp")
int arr_in_range(struct xdp_md *ctx)
{
	__u32 key = 3;
	__u64 *v = bpf_map_lookup_elem(&arr, &key);

	return v ? XDP_PASS : XDP_ABORTED;
}

SEC("xdp")
int arr_out_of_range(struct xdp_md *ctx)
{
	__u32 key = 4;
	__u64 *v = bpf_map_lookup_elem(&arr, &key);

	return v ? XDP_ABORTED : XDP_PASS;
}

/* The key is the packet length: NULL exactly when it is 4 or more. */
SEC("xdp")
int arr_any_key(struct xdp_md *ctx)
{
	__u32 key = ctx->data_end - ctx->data;
	__u64 *v = bpf_map_lookup_elem(&arr, &key);

	return v ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int hash_lookup(struct xdp_md *ctx)
{
	__u32 key = 1;
	__u64 *v = bpf_map_lookup_elem(&hash, &key);

	return v ? XDP_PASS : XDP_DROP;
}

/* Write 5 through the first lookup, return what the second one reads. */
static __always_inline int write_then_read(void *map)
{
	__u32 key = 2;
	__u64 *a = bpf_map_lookup_elem(map, &key), *b;

	if (!a)
		return XDP_DROP;
	*a = 5;
	b = bpf_map_lookup_elem(map, &key);
	if (!b)
		return XDP_DROP;
	return *b == 5 ? XDP_PASS : XDP_ABORTED;
}

SEC("xdp")
int arr_alias(struct xdp_md *ctx)
{
	return write_then_read(&arr);
}

SEC("xdp")
int hash_alias(struct xdp_md *ctx)
{
	return write_then_read(&hash);
}

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} ports SEC(".maps");

/* bpf_redirect_map: XDP_REDIRECT, or the flags' action when the slot is
 * empty. */
SEC("xdp")
int redirect_or_pass(struct xdp_md *ctx)
{
	return bpf_redirect_map(&ports, 1, XDP_PASS);
}

/* Flags from the packet: bits outside the valid ones give XDP_ABORTED. */
SEC("xdp")
int redirect_any_flags(struct xdp_md *ctx)
{
	return bpf_redirect_map(&ports, 1, ctx->data_end - ctx->data);
}

char LICENSE[] SEC("license") = "GPL";
