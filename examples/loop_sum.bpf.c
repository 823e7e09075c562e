// SPDX-License-Identifier: GPL-2.0
/*
 * loop_sum: loops and global data in one XDP program.
 *
 * Sums the first NR_BYTES bytes of the frame in a bounded loop that clang is
 * told not to unroll, so the object keeps a real backward jump; stirs the
 * sum with a salt in cfg_rounds rounds of bpf_loop; and keeps running totals
 * in global variables:
 *
 *   .rodata  cfg_rounds, cfg_drop_above  const volatile, set by the loader
 *   .data    salt                        initialised, read and rewritten
 *   .bss     total_bytes, nr_frames      zero-initialised, incremented
 *
 * nr_frames is static: clang relocates its LDDW against the .bss section
 * symbol with the variable's offset in the instruction's imm, while the
 * global variables are relocated against their own symbols.
 *
 * Verdict: XDP_DROP when cfg_drop_above is set and the byte sum exceeds it,
 * XDP_PASS otherwise.  Frames shorter than NR_BYTES are summed as far as
 * they go.
 *
 * Buggy variants: examples/meson.build compiles this file again with
 * -D<NAME> into <name>.bpf.o (the code under #ifdef <NAME>), checked
 * against the same spec:
 *
 * LOOP_SUM_BUG (loop_sum_bug.bpf.o): Off-by-one in the loop bound: `i <=
 * NR_BYTES` sums 17 bytes of a frame that has them, one more than the 16
 * the program promises. Violates: loop_sum.sum_bounded (only). Passes the
 * kernel verifier (17 iterations, each still bounds-checked).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define NR_BYTES	16

const volatile __u32 cfg_rounds = 4;		/* bpf_loop iterations */
const volatile __u32 cfg_drop_above = 0;	/* 0: never drop */

__u32 salt = 0x9e3779b9;
__u64 total_bytes;
static __u64 nr_frames;

struct stir_ctx {
	__u32 acc;
	__u32 salt;
};

/* bpf_loop callback: one FNV-style round.  Returning 0 continues the loop. */
static long stir_round(__u32 idx, void *data)
{
	struct stir_ctx *s = data;

	s->acc = (s->acc ^ (s->salt + idx)) * 0x01000193;
	return 0;
}

SEC("xdp")
int loop_sum(struct xdp_md *ctx)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *p = (__u8 *)(long)ctx->data;
	struct stir_ctx s;
	__u32 sum = 0;
	int i;

#pragma clang loop unroll(disable)
#ifdef LOOP_SUM_BUG
	for (i = 0; i <= NR_BYTES; i++) {	/* BUG: off by one */
#else
	for (i = 0; i < NR_BYTES; i++) {
#endif
		if (p + i + 1 > data_end)
			break;
		sum += p[i];
	}

	s.acc = sum;
	s.salt = salt;
	bpf_loop(cfg_rounds, stir_round, &s, 0);
	salt = s.acc;

	__sync_fetch_and_add(&total_bytes, sum);
	__sync_fetch_and_add(&nr_frames, 1);

	if (cfg_drop_above && sum > cfg_drop_above)
		return XDP_DROP;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
