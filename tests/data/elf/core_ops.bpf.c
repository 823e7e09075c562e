/* CO-RE relocations, kfunc and ksym externs, and struct_ops roles with a
 * sleepable struct_ops section. Types are declared here (no vmlinux.h). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
} __attribute__((preserve_access_index));

struct demo_ops {
	int (*init)(void);
	void (*tick)(struct task_struct *p);
	int (*sleepy)(int x);
	char name[16];
};

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern const int bpf_prog_active __ksym;

SEC("struct_ops/demo_init")
int demo_init(void)
{
	return 0;
}

SEC("struct_ops/demo_tick")
void demo_tick(struct task_struct *p)
{
	struct task_struct *t;

	if (bpf_core_field_exists(p->flags) && BPF_CORE_READ(p, pid) == 1)
		return;
	t = bpf_task_acquire(p);
	if (t)
		bpf_task_release(t);
}

SEC("struct_ops.s/demo_sleepy")
int demo_sleepy(int x)
{
	return x + (int)(long)&bpf_prog_active;
}

SEC(".struct_ops")
struct demo_ops demo = {
	.init = (void *)demo_init,
	.tick = (void *)demo_tick,
	.sleepy = (void *)demo_sleepy,
	.name = "demo",
};

char _license[] SEC("license") = "GPL";
