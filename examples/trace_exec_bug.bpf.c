// SPDX-License-Identifier: GPL-2.0
/*
 * BUG VARIANT of trace_exec.bpf.c (examples/trace_exec.inv, same function
 * names).  The error path of bpf_probe_read_user_str returns early and
 * forgets the ring buffer reservation: neither submitted nor discarded.
 * Violates: trace_exec.tracing.ringbuf_balanced (only).  The kernel verifier
 * rejects this one ("Unreleased reference"): the checker and the verifier
 * agree, which makes it a cross-check of the checker's ring buffer model.
 */
/*
 * trace_exec: observe process execution and exit.
 *
 * trace_exec  (tracepoint/syscalls/sys_enter_execve) counts execve calls in
 *             a per-CPU array and sends one exec_event per call to user
 *             space through a ring buffer; when the ring buffer is full the
 *             event is counted as lost instead.
 * trace_exit  (kprobe/do_exit) counts task exits and remembers the last
 *             exit code seen on this CPU.
 *
 * Both are pure observers: they never write user memory, signal or change
 * a return value, and they return 0.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TASK_COMM_LEN	16
#define FILENAME_LEN	128

enum exec_stat {
	STAT_EXEC,	/* execve calls seen */
	STAT_LOST,	/* of those, events dropped: ring buffer full */
	STAT_EXIT,	/* do_exit calls seen */
	STAT_EXIT_CODE,	/* last exit code seen */
	STAT_NR,
};

struct exec_event {
	__u32 tgid;
	__u32 tid;
	__u64 ts_ns;
	char comm[TASK_COMM_LEN];
	char filename[FILENAME_LEN];
};

/*
 * Layout of the sys_enter_execve record, from
 * /sys/kernel/tracing/events/syscalls/sys_enter_execve/format.
 */
struct sys_enter_execve_args {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__s32 syscall_nr;
	__u32 pad;
	const char *filename;
	const char *const *argv;
	const char *const *envp;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		*v += n;	/* per-CPU slot: no atomic needed */
}

SEC("tracepoint/syscalls/sys_enter_execve")
int trace_exec(struct sys_enter_execve_args *args)
{
	struct exec_event *e;
	__u64 id;

	stat_add(STAT_EXEC, 1);

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_add(STAT_LOST, 1);
		return 0;
	}

	id = bpf_get_current_pid_tgid();
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (bpf_probe_read_user_str(e->filename, sizeof(e->filename),
				    args->filename) < 0)
		return 0;	/* BUG: leaks the reservation e */

	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("kprobe/do_exit")
int BPF_KPROBE(trace_exit, long code)
{
	__u32 slot = STAT_EXIT_CODE;
	__u64 *last;

	stat_add(STAT_EXIT, 1);
	last = bpf_map_lookup_elem(&stats, &slot);
	if (last)
		*last = code;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
