// SPDX-License-Identifier: GPL-2.0
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
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * TRACE_EXEC_BUG (trace_exec_bug.bpf.o): The error path of
 * bpf_probe_read_user_str returns early and forgets the ring buffer
 * reservation: neither submitted nor discarded. Violates:
 * trace_exec.tracing.ringbuf_balanced (only). The kernel verifier rejects
 * this one ("Unreleased reference"): the checker and the verifier agree,
 * which makes it a cross-check of the checker's ring buffer model.
 *
 * TRACE_EXEC_ENFORCE_BUG (trace_exec_enforce_bug.bpf.o): The observer was
 * turned into an enforcer. trace_exec blanks the first byte of the user's
 * filename string with bpf_probe_write_user when the ring buffer is full,
 * and trace_exit sends SIGKILL (bpf_send_signal) to the exiting task's
 * process for a negative exit code and then returns 1. Violates
 * tracing.no_user_writes (trace_exec), tracing.observer_only and
 * tracing.returns_zero (trace_exit).
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
#ifdef TRACE_EXEC_ENFORCE_BUG
		char nul = 0;

#endif
		stat_add(STAT_LOST, 1);
#ifdef TRACE_EXEC_ENFORCE_BUG
		/* BUG: writes user memory */
		bpf_probe_write_user((void *)args->filename, &nul, 1);
#endif
		return 0;
	}

	id = bpf_get_current_pid_tgid();
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (bpf_probe_read_user_str(e->filename, sizeof(e->filename),
				    args->filename) < 0)
#ifdef TRACE_EXEC_BUG
		return 0;	/* BUG: leaks the reservation e */
#else
		e->filename[0] = '\0';
#endif

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
#ifdef TRACE_EXEC_ENFORCE_BUG
	if (code < 0) {
		bpf_send_signal(9);	/* BUG: SIGKILL from an observer */
		return 1;		/* BUG: non-zero */
	}
#endif
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
