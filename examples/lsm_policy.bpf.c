// SPDX-License-Identifier: GPL-2.0
/*
 * lsm_policy: a per-user exec policy on the bprm_check_security LSM hook.
 *
 * User space fills the `policy` hash map with one entry per restricted uid:
 * POLICY_DENY entries make every execve of that user fail with -EPERM,
 * POLICY_AUDIT entries only count the attempts.  Users without an entry are
 * never affected.  With `enforce` cleared (set before load) the program is
 * permissive: DENY entries are counted like AUDIT entries and nothing is
 * denied.
 *
 * vmlinux-free: the hook's only argument, struct linux_binprm *, is never
 * dereferenced, so a forward declaration is enough; the uid comes from
 * bpf_get_current_uid_gid().
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * LSM_POLICY_BUG (lsm_policy_bug.bpf.o): The lookup's NULL check was folded
 * into the audit test, `if (p && (...)) return 0; return -EPERM;`, so a uid
 * WITHOUT a policy entry falls through to the deny: every unrestricted
 * user's execve fails. Violates lsm.deny_only_on_hit and
 * lsm.deny_only_on_first_hit (a deny on the path where the policy lookup
 * returned NULL) and the spec's permissive_never_denies (with enforce == 0
 * a miss still denies).
 *
 * LSM_POLICY_RET_BUG (lsm_policy_ret_bug.bpf.o): `return EPERM;` - the
 * minus sign is missing, so a denied exec returns +1, which is neither 0
 * nor a negative errno (the caller treats it as an error of no known kind;
 * kernels since 6.9 refuse to load the program). Violates lsm.returns_errno
 * and the spec's deny_is_eperm.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define EPERM 1

struct linux_binprm;

enum policy_mode {
	POLICY_DENY = 1,
	POLICY_AUDIT = 2,
};

struct policy_entry {
	__u32 mode;	/* enum policy_mode */
	__u32 pad;
	__u64 hits;	/* exec attempts seen for this uid */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);			/* uid */
	__type(value, struct policy_entry);
} policy SEC(".maps");

const volatile __u32 enforce = 1;		/* 0: permissive (audit only) */

SEC("lsm/bprm_check_security")
int BPF_PROG(lsm_policy, struct linux_binprm *bprm)
{
	__u32 uid = (__u32)bpf_get_current_uid_gid();
	struct policy_entry *p;

	p = bpf_map_lookup_elem(&policy, &uid);
#if defined(LSM_POLICY_BUG)
	if (p) {
		__sync_fetch_and_add(&p->hits, 1);
		if (p->mode != POLICY_DENY || !enforce)
			return 0;		/* audit only */
	}
	return -EPERM;			/* BUG: a miss (p == NULL) denies too */
#elif defined(LSM_POLICY_RET_BUG)
	if (!p)
		return 0;			/* no entry: not restricted */

	__sync_fetch_and_add(&p->hits, 1);
	if (p->mode != POLICY_DENY || !enforce)
		return 0;			/* audit only */
	return EPERM;			/* BUG: should be -EPERM */
#else
	if (!p)
		return 0;			/* no entry: not restricted */

	__sync_fetch_and_add(&p->hits, 1);
	if (p->mode != POLICY_DENY || !enforce)
		return 0;			/* audit only */
	return -EPERM;
#endif
}

char LICENSE[] SEC("license") = "GPL";
