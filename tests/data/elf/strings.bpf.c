/* A string literal clang puts in .rodata.str1.1 (a data section with no
 * variables) and custom .data.* / .rodata.* sections. libbpf opens it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char out[16];
int tuned SEC(".data.tuning") = 42;
const volatile int knob SEC(".rodata.knobs") = 9;

SEC("socket")
int strs(void *ctx)
{
	bpf_probe_read_kernel_str(out, sizeof(out), "hello, world");
	return tuned + knob;
}

char _license[] SEC("license") = "GPL";
