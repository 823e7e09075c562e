/* models.c - the helper model table (models.h).
 *
 * One row per modelled helper, sorted by id (tests/test_models.c checks the
 * order, so model_helper() can binary-search). Each row was written from the
 * helper's description in include/uapi/linux/bpf.h and the argument and
 * return types of its bpf_func_proto; docs/models.md is the same table in
 * prose, with the reasons for the non-obvious choices.
 *
 * Soundness first: a model may only be weaker than the kernel, never
 * stronger. The rules applied throughout:
 * - A return is ERRNO only when every path of the helper returns 0 or a
 *   negative errno; a helper returning an `int` or `long` count is RANGE
 *   [-4095, INT32_MAX] (signed), a u32 is RANGE [0, UINT32_MAX].
 * - The context is CTX only when the helper leaves every field the program
 *   can load from it unchanged; helpers that change a visible __sk_buff
 *   field (len, protocol, hash, vlan_tci, pkt_type, tstamp, ...) take the
 *   context as PTR: "may be written, size unknown". Packet data and
 *   data/data_end/data_meta are described by the MODEL_FX_* bits instead.
 * - Kernel objects (sockets, tasks, timers, spin locks, dynptrs, ringbuf
 *   samples) are PTR. Read-only memory without a size (constant format
 *   strings) is PTR too: READ always has a size.
 * - A helper that runs a callback is MODEL_FX_ALL (the callback may do
 *   anything); the lift inlines bpf_loop's callback, so its row is only the
 *   fallback for a call that was not expanded.
 */
#include "models.h"

#include <stdint.h>
#include <string.h>

#include <linux/bpf.h>

/* Argument kinds, short enough to keep one row on one line. */
#define SCA  MODEL_ARG_SCALAR
#define MAP  MODEL_ARG_MAP
#define CTX  MODEL_ARG_CTX
#define RD   MODEL_ARG_READ
#define WR   MODEL_ARG_WRITE
#define KEY  MODEL_ARG_KEY
#define VAL  MODEL_ARG_VALUE
#define PTR  MODEL_ARG_PTR
#define FUNC MODEL_ARG_FUNC

#define ARGS(...)   .arg = { __VA_ARGS__ }
#define SZARG(...)  .size_arg = { __VA_ARGS__ }    /* 1-based, per argument */
#define SZ(...)     .size = { __VA_ARGS__ }        /* constant, per argument */
#define FX(f)       .fx = (f)

#define ANY    .ret = MODEL_RET_ANY
#define VOID   .ret = MODEL_RET_VOID
#define ERRNO  .ret = MODEL_RET_ERRNO
#define KPTR   .ret = MODEL_RET_KPTR
#define RANGE(l, h, s) .ret = MODEL_RET_RANGE, .lo = (l), .hi = (h), .sign = (s)

/* Common ranges. */
#define RET_LONG    RANGE(-4095, INT32_MAX, true)  /* a count or -errno */
#define RET_U32     RANGE(0, UINT32_MAX, false)
#define RET_BOOL    RANGE(0, 1, false)
#define RET_ERR_U32 RANGE(-4095, UINT32_MAX, true) /* a u32 or -errno */
#define RET_ERR_1   RANGE(-4095, 1, true)          /* 0, 1 or -errno */

#define PKT    MODEL_FX_PACKET

/* Largest CONFIG_NR_CPUS any architecture's Kconfig accepts (x86-64 with
 * MAXSMP/CPUMASK_OFFSTACK, powerpc); smp_processor_id() < nr_cpu_ids <=
 * NR_CPUS. See docs/models.md. */
#define MAX_NR_CPUS 8192
/* include/linux/bpf.h: BPF_MAX_LOOPS (not in the uapi header). */
#define MAX_LOOPS   (1 << 23)

/* Newer than some <linux/bpf.h>; helpers.c names them by number too. */
#define FUNC_cgrp_storage_get    210
#define FUNC_cgrp_storage_delete 211

static const struct helper_model models[] = {
	{ BPF_FUNC_map_lookup_elem, .ret = MODEL_RET_MAP_VALUE, ARGS(MAP, KEY) },
	{ BPF_FUNC_map_update_elem, ERRNO, ARGS(MAP, KEY, VAL, SCA), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_map_delete_elem, ERRNO, ARGS(MAP, KEY), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_probe_read, ERRNO, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_ktime_get_ns, ANY },
	{ BPF_FUNC_trace_printk, RET_LONG, ARGS(RD, SCA, SCA, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_get_prandom_u32, RET_U32 },
	{ BPF_FUNC_get_smp_processor_id, RANGE(0, MAX_NR_CPUS - 1, false) },
	{ BPF_FUNC_skb_store_bytes, ERRNO, ARGS(PTR, SCA, RD, SCA, SCA), SZARG(0, 0, 4), FX(PKT) },
	{ BPF_FUNC_l3_csum_replace, ERRNO, ARGS(CTX, SCA, SCA, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_l4_csum_replace, ERRNO, ARGS(CTX, SCA, SCA, SCA, SCA), FX(PKT) },
	/* RET_VOID in the kernel (r0 unreadable after a failed tail call);
	 * ERRNO only selects the lift's taken (r0 == 0) / failed branch. */
	{ BPF_FUNC_tail_call, ERRNO, ARGS(CTX, MAP, SCA) },
	/* Ingress redirect returns netif_rx()'s NET_RX_DROP (1): not ERRNO. */
	{ BPF_FUNC_clone_redirect, RET_LONG, ARGS(PTR, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_get_current_pid_tgid, ANY },
	{ BPF_FUNC_get_current_uid_gid, ANY },
	{ BPF_FUNC_get_current_comm, ERRNO, ARGS(WR, SCA), SZARG(2) },
	{ BPF_FUNC_get_cgroup_classid, RET_U32, ARGS(CTX) },
	{ BPF_FUNC_skb_vlan_push, ERRNO, ARGS(PTR, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_skb_vlan_pop, ERRNO, ARGS(PTR), FX(PKT) },
	{ BPF_FUNC_skb_get_tunnel_key, ERRNO, ARGS(CTX, WR, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_skb_set_tunnel_key, ERRNO, ARGS(CTX, RD, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_perf_event_read, ANY, ARGS(MAP, SCA) },
	{ BPF_FUNC_redirect, .ret = MODEL_RET_REDIRECT, ARGS(SCA, SCA) },
	{ BPF_FUNC_get_route_realm, RET_U32, ARGS(CTX) },
	{ BPF_FUNC_perf_event_output, ERRNO, ARGS(CTX, MAP, SCA, RD, SCA), SZARG(0, 0, 0, 5) },
	{ BPF_FUNC_skb_load_bytes, .ret = MODEL_RET_SKB_LOAD, ARGS(CTX, SCA, WR, SCA), SZARG(0, 0, 4) },
	/* Writes the stack map (arg2), which programs cannot read: the
	 * verifier allows no other helper on a STACK_TRACE map. */
	{ BPF_FUNC_get_stackid, RET_ERR_U32, ARGS(CTX, MAP, SCA) },
	{ BPF_FUNC_csum_diff, RET_ERR_U32, ARGS(RD, SCA, RD, SCA, SCA), SZARG(2, 0, 4) },
	{ BPF_FUNC_skb_get_tunnel_opt, RET_LONG, ARGS(CTX, WR, SCA), SZARG(0, 3) },
	{ BPF_FUNC_skb_set_tunnel_opt, ERRNO, ARGS(CTX, RD, SCA), SZARG(0, 3) },
	{ BPF_FUNC_skb_change_proto, ERRNO, ARGS(PTR, SCA, SCA), FX(PKT) },
	/* The kernel does not count change_type as changing packet data;
	 * PACKET over-approximates. */
	{ BPF_FUNC_skb_change_type, ERRNO, ARGS(PTR, SCA), FX(PKT) },
	{ BPF_FUNC_skb_under_cgroup, RET_ERR_1, ARGS(CTX, MAP, SCA) },
	{ BPF_FUNC_get_hash_recalc, RET_U32, ARGS(PTR) },
	{ BPF_FUNC_get_current_task, ANY },
	/* Writes user memory only (copy_to_user_nofault), never the
	 * program's: the destination is a number here. */
	{ BPF_FUNC_probe_write_user, ERRNO, ARGS(SCA, RD, SCA), SZARG(0, 3) },
	{ BPF_FUNC_current_task_under_cgroup, RET_ERR_1, ARGS(MAP, SCA) },
	{ BPF_FUNC_skb_change_tail, ERRNO, ARGS(PTR, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_skb_pull_data, ERRNO, ARGS(PTR, SCA), FX(PKT) },
	/* skb->csum or -ENOTSUPP, converted to u32 by the conditional. */
	{ BPF_FUNC_csum_update, RET_ERR_U32, ARGS(CTX, SCA) },
	{ BPF_FUNC_set_hash_invalid, VOID, ARGS(PTR) },
	{ BPF_FUNC_get_numa_node_id, RANGE(0, INT32_MAX, false) },
	{ BPF_FUNC_skb_change_head, ERRNO, ARGS(PTR, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_xdp_adjust_head, ERRNO, ARGS(CTX, SCA), FX(PKT | MODEL_FX_HEAD) },
	{ BPF_FUNC_probe_read_str, RET_LONG, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_get_socket_cookie, ANY, ARGS(CTX) },
	{ BPF_FUNC_get_socket_uid, RET_U32, ARGS(CTX) },
	{ BPF_FUNC_set_hash, RANGE(0, 0, false), ARGS(PTR, SCA) },
	{ BPF_FUNC_setsockopt, ERRNO, ARGS(PTR, SCA, SCA, RD, SCA), SZARG(0, 0, 0, 5) },
	{ BPF_FUNC_skb_adjust_room, ERRNO, ARGS(PTR, SCA, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_redirect_map, .ret = MODEL_RET_REDIRECT_MAP, ARGS(MAP, SCA, SCA) },
	{ BPF_FUNC_sk_redirect_map, RET_BOOL, ARGS(CTX, MAP, SCA, SCA) },
	{ BPF_FUNC_xdp_adjust_meta, ERRNO, ARGS(CTX, SCA), FX(PKT | MODEL_FX_META) },
	{ BPF_FUNC_perf_event_read_value, ERRNO, ARGS(MAP, SCA, WR, SCA), SZARG(0, 0, 4) },
	{ BPF_FUNC_perf_prog_read_value, ERRNO, ARGS(CTX, WR, SCA), SZARG(0, 3) },
	{ BPF_FUNC_getsockopt, ERRNO, ARGS(PTR, SCA, SCA, WR, SCA), SZARG(0, 0, 0, 5) },
	{ BPF_FUNC_override_return, ERRNO, ARGS(PTR, SCA) },
	{ BPF_FUNC_msg_redirect_map, RET_BOOL, ARGS(CTX, MAP, SCA, SCA) },
	{ BPF_FUNC_msg_apply_bytes, ERRNO, ARGS(CTX, SCA) },
	{ BPF_FUNC_msg_cork_bytes, ERRNO, ARGS(CTX, SCA) },
	{ BPF_FUNC_msg_pull_data, ERRNO, ARGS(PTR, SCA, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_xdp_adjust_tail, ERRNO, ARGS(CTX, SCA), FX(PKT | MODEL_FX_TAIL) },
	{ BPF_FUNC_get_stack, RET_LONG, ARGS(CTX, WR, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_skb_load_bytes_relative, ERRNO, ARGS(CTX, SCA, WR, SCA, SCA), SZARG(0, 0, 4) },
	{ BPF_FUNC_fib_lookup, RANGE(-4095, BPF_FIB_LKUP_RET_NO_SRC_ADDR, true),
	  ARGS(CTX, WR, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_skb_cgroup_id, ANY, ARGS(CTX) },
	{ BPF_FUNC_get_current_cgroup_id, ANY },
	/* Never NULL, but not keyed by a stack key: not MAP_VALUE. */
	{ BPF_FUNC_get_local_storage, KPTR, ARGS(MAP, SCA) },
	{ BPF_FUNC_skb_ancestor_cgroup_id, ANY, ARGS(CTX, SCA) },
	{ BPF_FUNC_sk_lookup_tcp, KPTR, ARGS(CTX, RD, SCA, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_sk_lookup_udp, KPTR, ARGS(CTX, RD, SCA, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_sk_release, ERRNO, ARGS(PTR) },
	{ BPF_FUNC_map_push_elem, ERRNO, ARGS(MAP, VAL, SCA), FX(MODEL_FX_MAP) },
	/* value_size bytes are written: size 0 = the whole region. */
	{ BPF_FUNC_map_pop_elem, ERRNO, ARGS(MAP, WR), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_map_peek_elem, ERRNO, ARGS(MAP, WR) },
	{ BPF_FUNC_msg_push_data, ERRNO, ARGS(PTR, SCA, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_msg_pop_data, ERRNO, ARGS(PTR, SCA, SCA, SCA), FX(PKT) },
	{ BPF_FUNC_spin_lock, VOID, ARGS(PTR) },
	{ BPF_FUNC_spin_unlock, VOID, ARGS(PTR) },
	{ BPF_FUNC_sk_fullsock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_tcp_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_skb_ecn_set_ce, RET_BOOL, ARGS(CTX), FX(PKT) },
	{ BPF_FUNC_get_listener_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_skc_lookup_tcp, KPTR, ARGS(CTX, RD, SCA, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_sysctl_get_name, RET_LONG, ARGS(CTX, WR, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_sysctl_get_current_value, RET_LONG, ARGS(CTX, WR, SCA), SZARG(0, 3) },
	{ BPF_FUNC_sysctl_get_new_value, RET_LONG, ARGS(CTX, WR, SCA), SZARG(0, 3) },
	{ BPF_FUNC_sysctl_set_new_value, ERRNO, ARGS(CTX, RD, SCA), SZARG(0, 3) },
	{ BPF_FUNC_strtol, RET_LONG, ARGS(RD, SCA, SCA, WR), SZARG(2), SZ(0, 0, 0, 8) },
	{ BPF_FUNC_strtoul, RET_LONG, ARGS(RD, SCA, SCA, WR), SZARG(2), SZ(0, 0, 0, 8) },
	/* Local storage: the value is keyed by a kernel object, not by key
	 * bytes, and is created on demand (F_CREATE): KPTR, map changes. */
	{ BPF_FUNC_sk_storage_get, KPTR, ARGS(MAP, PTR, VAL, SCA), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_sk_storage_delete, ERRNO, ARGS(MAP, PTR), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_send_signal, ERRNO, ARGS(SCA) },
	{ BPF_FUNC_probe_read_user, ERRNO, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_probe_read_kernel, ERRNO, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_probe_read_user_str, RET_LONG, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_probe_read_kernel_str, RET_LONG, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_send_signal_thread, ERRNO, ARGS(SCA) },
	{ BPF_FUNC_jiffies64, ANY },
	{ BPF_FUNC_get_ns_current_pid_tgid, ERRNO, ARGS(SCA, SCA, WR, SCA), SZARG(0, 0, 4) },
	{ BPF_FUNC_xdp_output, ERRNO, ARGS(CTX, MAP, SCA, RD, SCA), SZARG(0, 0, 0, 5) },
	{ BPF_FUNC_get_netns_cookie, ANY, ARGS(CTX) },
	{ BPF_FUNC_get_current_ancestor_cgroup_id, ANY, ARGS(SCA) },
	{ BPF_FUNC_ktime_get_boot_ns, ANY },
	{ BPF_FUNC_sk_cgroup_id, ANY, ARGS(PTR) },
	{ BPF_FUNC_sk_ancestor_cgroup_id, ANY, ARGS(PTR, SCA) },
	{ BPF_FUNC_ringbuf_output, ERRNO, ARGS(MAP, RD, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_ringbuf_reserve, .ret = MODEL_RET_RINGBUF, ARGS(MAP, SCA, SCA) },
	{ BPF_FUNC_ringbuf_submit, VOID, ARGS(PTR, SCA) },
	{ BPF_FUNC_ringbuf_discard, VOID, ARGS(PTR, SCA) },
	{ BPF_FUNC_ringbuf_query, ANY, ARGS(MAP, SCA) },
	/* QUERY returns the 2-bit skb->csum_level. */
	{ BPF_FUNC_csum_level, RANGE(-4095, 3, true), ARGS(PTR, SCA) },
	{ BPF_FUNC_skc_to_tcp6_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_skc_to_tcp_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_skc_to_tcp_timewait_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_skc_to_tcp_request_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_skc_to_udp6_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_get_task_stack, RET_LONG, ARGS(PTR, WR, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_inode_storage_get, KPTR, ARGS(MAP, PTR, VAL, SCA), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_inode_storage_delete, ERRNO, ARGS(MAP, PTR), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_d_path, RET_LONG, ARGS(PTR, WR, SCA), SZARG(0, 3) },
	{ BPF_FUNC_copy_from_user, ERRNO, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_redirect_neigh, .ret = MODEL_RET_REDIRECT, ARGS(SCA, RD, SCA, SCA), SZARG(0, 3) },
	{ BPF_FUNC_per_cpu_ptr, KPTR, ARGS(PTR, SCA) },
	{ BPF_FUNC_this_cpu_ptr, KPTR, ARGS(PTR) },
	{ BPF_FUNC_redirect_peer, .ret = MODEL_RET_REDIRECT, ARGS(SCA, SCA) },
	{ BPF_FUNC_task_storage_get, KPTR, ARGS(MAP, PTR, VAL, SCA), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_task_storage_delete, ERRNO, ARGS(MAP, PTR), FX(MODEL_FX_MAP) },
	{ BPF_FUNC_get_current_task_btf, KPTR },
	{ BPF_FUNC_ktime_get_coarse_ns, ANY },
	{ BPF_FUNC_check_mtu, RANGE(-4095, BPF_MTU_CHK_RET_SEGS_TOOBIG, true),
	  ARGS(CTX, SCA, WR, SCA, SCA), SZ(0, 0, 4) },
	{ BPF_FUNC_for_each_map_elem, RET_ERR_U32, ARGS(MAP, FUNC, PTR, SCA), FX(MODEL_FX_ALL) },
	{ BPF_FUNC_snprintf, RET_LONG, ARGS(WR, SCA, PTR, RD, SCA), SZARG(2, 0, 0, 5) },
	{ BPF_FUNC_timer_init, ERRNO, ARGS(PTR, MAP, SCA) },
	{ BPF_FUNC_timer_set_callback, ERRNO, ARGS(PTR, FUNC) },
	{ BPF_FUNC_timer_start, ERRNO, ARGS(PTR, SCA, SCA) },
	{ BPF_FUNC_timer_cancel, RET_ERR_1, ARGS(PTR) },
	{ BPF_FUNC_get_func_ip, ANY, ARGS(CTX) },
	{ BPF_FUNC_get_attach_cookie, ANY, ARGS(CTX) },
	{ BPF_FUNC_task_pt_regs, KPTR, ARGS(PTR) },
	{ BPF_FUNC_get_branch_snapshot, RET_LONG, ARGS(WR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_skc_to_unix_sock, KPTR, ARGS(PTR) },
	{ BPF_FUNC_find_vma, ERRNO, ARGS(PTR, SCA, FUNC, PTR, SCA), FX(MODEL_FX_ALL) },
	/* Iterations done, -E2BIG or -EINVAL. */
	{ BPF_FUNC_loop, RANGE(-4095, MAX_LOOPS, true), ARGS(SCA, FUNC, PTR, SCA), FX(MODEL_FX_ALL) },
	/* The kernel's strncmp(): any int. */
	{ BPF_FUNC_strncmp, RANGE(INT32_MIN, INT32_MAX, true), ARGS(RD, SCA, PTR), SZARG(2) },
	{ BPF_FUNC_get_func_arg, ERRNO, ARGS(CTX, SCA, WR), SZ(0, 0, 8) },
	{ BPF_FUNC_get_func_ret, ERRNO, ARGS(CTX, WR), SZ(0, 8) },
	{ BPF_FUNC_get_func_arg_cnt, ANY, ARGS(CTX) },
	{ BPF_FUNC_get_retval, ANY },
	{ BPF_FUNC_set_retval, ERRNO, ARGS(SCA) },
	{ BPF_FUNC_xdp_get_buff_len, ANY, ARGS(CTX) },
	{ BPF_FUNC_xdp_load_bytes, ERRNO, ARGS(CTX, SCA, WR, SCA), SZARG(0, 0, 4) },
	{ BPF_FUNC_xdp_store_bytes, ERRNO, ARGS(CTX, SCA, RD, SCA), SZARG(0, 0, 4), FX(PKT) },
	{ BPF_FUNC_copy_from_user_task, ERRNO, ARGS(WR, SCA, SCA, PTR, SCA), SZARG(2) },
	{ BPF_FUNC_skb_set_tstamp, ERRNO, ARGS(PTR, SCA, SCA) },
	{ BPF_FUNC_kptr_xchg, KPTR, ARGS(PTR, PTR) },
	/* NULL for cpu >= nr_cpu_ids even on arrays: not MAP_VALUE. */
	{ BPF_FUNC_map_lookup_percpu_elem, KPTR, ARGS(MAP, KEY, SCA) },
	{ BPF_FUNC_skc_to_mptcp_sock, KPTR, ARGS(PTR) },
	/* Dynptrs: the memory behind a dynptr is not tracked, so writing
	 * through one may change anything. */
	{ BPF_FUNC_dynptr_from_mem, ERRNO, ARGS(PTR, SCA, SCA, PTR) },
	{ BPF_FUNC_ringbuf_reserve_dynptr, ERRNO, ARGS(MAP, SCA, SCA, PTR) },
	{ BPF_FUNC_ringbuf_submit_dynptr, VOID, ARGS(PTR, SCA) },
	{ BPF_FUNC_ringbuf_discard_dynptr, VOID, ARGS(PTR, SCA) },
	{ BPF_FUNC_dynptr_read, ERRNO, ARGS(WR, SCA, PTR, SCA, SCA), SZARG(2) },
	{ BPF_FUNC_dynptr_write, ERRNO, ARGS(PTR, SCA, RD, SCA, SCA), SZARG(0, 0, 4),
	  FX(MODEL_FX_ALL) },
	{ BPF_FUNC_dynptr_data, KPTR, ARGS(PTR, SCA, SCA) },
	{ BPF_FUNC_ktime_get_tai_ns, ANY },
	{ BPF_FUNC_user_ringbuf_drain, ANY, ARGS(MAP, FUNC, PTR, SCA), FX(MODEL_FX_ALL) },
	{ FUNC_cgrp_storage_get, KPTR, ARGS(MAP, PTR, VAL, SCA), FX(MODEL_FX_MAP) },
	{ FUNC_cgrp_storage_delete, ERRNO, ARGS(MAP, PTR), FX(MODEL_FX_MAP) },
};

bool model_redirect_array(uint32_t type)
{
	return type == BPF_MAP_TYPE_DEVMAP || type == BPF_MAP_TYPE_CPUMAP ||
	       type == BPF_MAP_TYPE_XSKMAP;
}

bool model_skb_load_exact(uint32_t type)
{
	return type == BPF_PROG_TYPE_SCHED_CLS || type == BPF_PROG_TYPE_SCHED_ACT ||
	       type == BPF_PROG_TYPE_CGROUP_SKB || type == BPF_PROG_TYPE_SOCKET_FILTER;
}

const struct helper_model *model_helper(int id)
{
	size_t lo = 0, hi = ARRAY_SIZE(models);

	/* The ids increase from models[0].id, so ID's row is at most
	 * ID - models[0].id in, and exactly there while the ids before it
	 * have no gap (the common helpers': most lookups end here). */
	if (id >= models[0].id && (uint64_t)id - (uint64_t)models[0].id < hi) {
		size_t at = (size_t)((uint64_t)id - (uint64_t)models[0].id);

		if (models[at].id == id)
			return &models[at];
		hi = at;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (models[mid].id == id)
			return &models[mid];
		if (models[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

unsigned model_count(void)
{
	return (unsigned)ARRAY_SIZE(models);
}

const struct helper_model *model_at(unsigned i)
{
	return i < ARRAY_SIZE(models) ? &models[i] : NULL;
}

/* ---- kfuncs --------------------------------------------------------------
 * By name (the extern's symbol up to a "___" flavour suffix). Pointer
 * parameters are not described here: the lift sizes what a kfunc may write
 * through a stack pointer from its BTF prototype, and non-stack memory it
 * gets a pointer to is havocked as for an unknown kfunc. CPU ids are below
 * 8192 (the largest NR_CPUS a kernel configuration allows, as for
 * bpf_get_smp_processor_id above). Sources: kernel/sched/ext.c,
 * kernel/bpf/helpers.c. */
static const struct kfunc_model kfuncs[] = {
	{ "bpf_rcu_read_lock", MODEL_RET_VOID, 0, 0, false },
	{ "bpf_rcu_read_unlock", MODEL_RET_VOID, 0, 0, false },
	{ "bpf_task_acquire", MODEL_RET_KPTR, 0, 0, false },
	{ "bpf_task_release", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_consume", MODEL_RET_RANGE, 0, 1, false },           /* bool */
	{ "scx_bpf_create_dsq", MODEL_RET_ERRNO, 0, 0, false },
	{ "scx_bpf_destroy_dsq", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_dispatch", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_dispatch_vtime", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_dsq_insert", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_dsq_insert_vtime", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_dsq_move_to_local", MODEL_RET_RANGE, 0, 1, false }, /* bool */
	{ "scx_bpf_dsq_nr_queued", MODEL_RET_RANGE, -4095, INT32_MAX, true }, /* or -ENOENT */
	{ "scx_bpf_error_bstr", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_exit_bstr", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_kick_cpu", MODEL_RET_VOID, 0, 0, false },
	{ "scx_bpf_nr_cpu_ids", MODEL_RET_RANGE, 1, 8192, false },
	{ "scx_bpf_pick_any_cpu", MODEL_RET_RANGE, -4095, 8191, true }, /* or -EBUSY */
	{ "scx_bpf_pick_idle_cpu", MODEL_RET_RANGE, -4095, 8191, true },
	{ "scx_bpf_select_cpu_dfl", MODEL_RET_RANGE, 0, 8191, true },  /* a CPU id */
	{ "scx_bpf_task_cpu", MODEL_RET_RANGE, 0, 8191, true },
	{ "scx_bpf_test_and_clear_cpu_idle", MODEL_RET_RANGE, 0, 1, false },
};

const struct kfunc_model *model_kfunc(const char *sym)
{
	size_t n = strlen(sym), i;
	const char *flav = strstr(sym, "___");

	if (flav)
		n = (size_t)(flav - sym);
	for (i = 0; i < ARRAY_SIZE(kfuncs); i++)
		if (strlen(kfuncs[i].name) == n && !strncmp(kfuncs[i].name, sym, n))
			return &kfuncs[i];
	return NULL;
}

unsigned model_kfunc_count(void)
{
	return (unsigned)ARRAY_SIZE(kfuncs);
}

const struct kfunc_model *model_kfunc_at(unsigned i)
{
	return i < ARRAY_SIZE(kfuncs) ? &kfuncs[i] : NULL;
}
