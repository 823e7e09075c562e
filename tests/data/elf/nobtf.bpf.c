/* Compiled without -g: no .BTF, no .BTF.ext. Global data still loads. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int counter = 3;

SEC("tracepoint/syscalls/sys_enter_getpid")
int count_getpid(void *ctx)
{
	counter++;
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
