/* A `static` entry program (libbpf 1.x refuses it), static and global
 * subprograms, a bpf_loop callback, global data in .data/.rodata/.bss and
 * a string literal. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int hits = 7;
__u64 table[4] = { 1, 2, 3, 4 };
const volatile __u32 limit = 100;
__u64 seen;
static __u32 calls;

static __attribute__((noinline)) int add_one(int x)
{
	calls++;
	return x + 1;
}

__attribute__((noinline)) int scale(int x)
{
	return x * (int)limit;
}

static int loop_cb(__u32 idx, void *ctx)
{
	seen += idx;
	return 0;
}

SEC("xdp") __attribute__((used))
static int xdp_static(struct xdp_md *ctx)
{
	int v = add_one(ctx->rx_queue_index);

	bpf_loop(4, loop_cb, 0, 0);
	bpf_printk("v=%d", v);
	hits++;
	return scale(v) + table[v & 3] > 5 ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
