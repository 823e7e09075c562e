/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mini.h: the few sched_ext types, constants and kfuncs that
 * scx_mini.bpf.c uses, declared by hand.
 *
 * A real scheduler includes a vmlinux.h generated from a sched_ext kernel's
 * BTF; the kernel these examples are built and checked on has no sched_ext
 * types, so this header stands in for it.  Layouts follow the kernel's
 * (6.12 - 6.18) in field order but are trimmed: task_struct and
 * scx_exit_info carry preserve_access_index, so their field offsets are
 * CO-RE relocations that libbpf would fix against the real kernel, as with
 * vmlinux.h.  sched_ext_ops is the struct_ops map's value type and is laid
 * out as declared here.
 */
#ifndef SCX_MINI_H
#define SCX_MINI_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;

/* DSQ ids: built-in queues have bit 63 set; user DSQs are below 2^63. */
#define SCX_DSQ_FLAG_BUILTIN	(1ULL << 63)
#define SCX_DSQ_GLOBAL		0x8000000000000001ULL
#define SCX_DSQ_LOCAL		0x8000000000000002ULL
#define SCX_DSQ_LOCAL_ON	0xc000000000000000ULL	/* | cpu */

#define SCX_SLICE_DFL		20000000ULL		/* 20 ms */
#define SCX_OPS_NAME_LEN	128

enum scx_kick_flags {
	SCX_KICK_IDLE		= 1,
	SCX_KICK_PREEMPT	= 2,
	SCX_KICK_WAIT		= 4,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct sched_ext_entity {
	u32 dsq_flags;
	u32 flags;
	u32 weight;		/* 1 .. 10000, 100 for nice 0 */
	s32 sticky_cpu;
	s32 holding_cpu;
	u64 slice;		/* remaining slice, ns */
	u64 dsq_vtime;		/* key for vtime-ordered DSQs */
};

struct task_struct {
	int prio;
	int nr_cpus_allowed;
	struct sched_ext_entity scx;
	int pid;
	int tgid;
	char comm[16];
};

struct scx_exit_info {
	int kind;		/* enum scx_exit_kind */
	s64 exit_code;
	const char *reason;
	unsigned long *bt;
	u32 bt_len;
	char *msg;
	char *dump;
};

#pragma clang attribute pop

struct cpumask;
struct rq;
struct cgroup;
struct scx_init_task_args;
struct scx_exit_task_args;
struct scx_cpu_acquire_args;
struct scx_cpu_release_args;
struct scx_dump_ctx;

/* The operations a BPF scheduler implements; NULL fields use defaults. */
struct sched_ext_ops {
	s32 (*select_cpu)(struct task_struct *p, s32 prev_cpu, u64 wake_flags);
	void (*enqueue)(struct task_struct *p, u64 enq_flags);
	void (*dequeue)(struct task_struct *p, u64 deq_flags);
	void (*dispatch)(s32 cpu, struct task_struct *prev);
	void (*tick)(struct task_struct *p);
	void (*runnable)(struct task_struct *p, u64 enq_flags);
	void (*running)(struct task_struct *p);
	void (*stopping)(struct task_struct *p, bool runnable);
	void (*quiescent)(struct task_struct *p, u64 deq_flags);
	bool (*yield)(struct task_struct *from, struct task_struct *to);
	bool (*core_sched_before)(struct task_struct *a, struct task_struct *b);
	void (*set_weight)(struct task_struct *p, u32 weight);
	void (*set_cpumask)(struct task_struct *p, const struct cpumask *cpumask);
	void (*update_idle)(s32 cpu, bool idle);
	void (*cpu_acquire)(s32 cpu, struct scx_cpu_acquire_args *args);
	void (*cpu_release)(s32 cpu, struct scx_cpu_release_args *args);
	s32 (*init_task)(struct task_struct *p, struct scx_init_task_args *args);
	void (*exit_task)(struct task_struct *p, struct scx_exit_task_args *args);
	void (*enable)(struct task_struct *p);
	void (*disable)(struct task_struct *p);
	void (*dump)(struct scx_dump_ctx *ctx);
	void (*dump_cpu)(struct scx_dump_ctx *ctx, s32 cpu, bool idle);
	void (*dump_task)(struct scx_dump_ctx *ctx, struct task_struct *p);
	void (*cpu_online)(s32 cpu);
	void (*cpu_offline)(s32 cpu);
	s32 (*init)(void);
	void (*exit)(struct scx_exit_info *info);
	u32 dispatch_max_batch;
	u64 flags;
	u32 timeout_ms;
	u32 exit_dump_len;
	u64 hotplug_seq;
	char name[SCX_OPS_NAME_LEN];
};

/* kfuncs (6.13+ names). */
extern s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu,
				  u64 wake_flags, bool *is_idle) __ksym;
extern void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice,
			       u64 enq_flags) __ksym;
extern void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq_id,
				     u64 slice, u64 vtime, u64 enq_flags) __ksym;
extern bool scx_bpf_dsq_move_to_local(u64 dsq_id) __ksym;
extern s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym;
extern void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym;
extern s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym;
extern bool scx_bpf_test_and_clear_cpu_idle(s32 cpu) __ksym;

/*
 * One struct_ops callback: SEC("struct_ops/NAME") plus BPF_PROG's unpacking
 * of the u64 *ctx argument array into typed arguments.  The _SLEEPABLE form
 * is for callbacks the kernel calls where sleeping is allowed (init).
 */
#define BPF_STRUCT_OPS(name, args...) \
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) \
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

#endif /* SCX_MINI_H */
