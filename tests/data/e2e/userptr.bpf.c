// SPDX-License-Identifier: GPL-2.0
/*
 * userptr.bpf.c - a spec may read memory through a number that is not a
 * kernel pointer (here a user address in a kprobe argument): the read is
 * any value, and it must not narrow the inputs (tests/data/e2e/userptr.inv).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("kprobe/do_sys_openat2")
int user_ptr(void *ctx)
{
	unsigned long di = ((unsigned long *)ctx)[14];   /* pt_regs->di (x86-64) */

	/* a user-space address */
	if (di > 0x10000 && di < 0x7fffffffffffull)
		return 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
