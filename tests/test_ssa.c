/* test_ssa.c - CFG and SSA lifting on hand-written instruction sequences:
 * the exact dump of a small program with a loop, a stack slot and a call;
 * unrolling and its marker; bpf_loop and tail calls; partial stack access
 * and atomics; and each construct the lift rejects or marks unsupported.
 */
#include "ssa.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* struct bpf_insn initialisers: code, dst, src, off, imm */
#define MOV64_IMM(d, i)       { 0xb7, d, 0, 0, i }
#define MOV64_REG(d, s)       { 0xbf, d, s, 0, 0 }
#define MOV32_REG(d, s)       { 0xbc, d, s, 0, 0 }
#define STX_W(d, s, o)        { 0x63, d, s, o, 0 }
#define LDX_DW(d, s, o)       { 0x79, d, s, o, 0 }
#define ADD64_IMM(d, i)       { 0x07, d, 0, 0, i }
#define ADD64_REG(d, s)       { 0x0f, d, s, 0, 0 }
#define STX_DW(d, s, o)       { 0x7b, d, s, o, 0 }
#define STX_B(d, s, o)        { 0x73, d, s, o, 0 }
#define ST_W(d, o, i)         { 0x62, d, 0, o, i }
#define LDX_W(d, s, o)        { 0x61, d, s, o, 0 }
#define LDX_H(d, s, o)        { 0x69, d, s, o, 0 }
#define LDX_B(d, s, o)        { 0x71, d, s, o, 0 }
#define JLT_IMM(d, i, o)      { 0xa5, d, 0, o, i }
#define JEQ_IMM(d, i, o)      { 0x15, d, 0, o, i }
#define JGT_IMM(d, i, o)      { 0x25, d, 0, o, i }
#define JA(o)                 { 0x05, 0, 0, o, 0 }
#define CALL_HELPER(id)       { 0x85, 0, 0, 0, id }
#define CALL_LOCAL(rel)       { 0x85, 0, 1, 0, rel }
#define LDDW_FUNC(d, rel)     { 0x18, d, 4, 0, rel }, { 0, 0, 0, 0, 0 }
#define ATOMIC_DW(d, s, o, op) { 0xdb, d, s, o, op }
#define EXIT()                { 0x95, 0, 0, 0, 0 }

struct run {
	struct arena *a;
	struct diag d;
	char msg[512];
	struct ssa_prog *p;
	int err;
};

static void sink(void *arg, const struct diag_msg *m)
{
	struct run *r = arg;

	diag_format(m, r->msg, sizeof(r->msg));
}

static void lift_cb(struct run *r, const struct bpf_insn *raw, uint32_t n,
		    unsigned bound, uint32_t max_blocks, unsigned cb_bound)
{
	struct insn *in = calloc(n, sizeof(*in));
	struct ssa_opts o = { .loop_bound = bound, .max_blocks = max_blocks,
			      .cb_bound = cb_bound };
	const char *bad;

	memset(r, 0, sizeof(*r));
	r->a = arena_new();
	r->d.sink = sink;
	r->d.arg = r;
	ck_assert_int_eq(insn_decode(raw, n, in, "<code>", "code", &r->d), 0);
	r->err = ssa_build_code(in, n, &o, r->a, &r->d, &r->p);
	free(in);
	if (!r->err) {
		bad = ssa_verify(r->p);
		ck_assert_msg(!bad, "ssa_verify: %s", bad);
	}
}

static void lift(struct run *r, const struct bpf_insn *raw, uint32_t n,
		 unsigned bound, uint32_t max_blocks)
{
	lift_cb(r, raw, n, bound, max_blocks, 0);
}

static char *dump(struct run *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ssa_print(r->p, f);
	fclose(f);
	return buf;
}

static void done(struct run *r)
{
	arena_free(r->a);
}

/* r0 = r2; r1 = 0; do { r0 += r1; *(u64 *)(r10 - 8) = r0; r1 += 1; }
 * while (r1 < 5); r0 = *(u32 *)(r10 - 8); r0 = f(r1); exit;
 * f: r0 = r1 + 1; exit */
static const struct bpf_insn loop_prog[] = {
	MOV64_REG(0, 2), MOV64_IMM(1, 0),
	ADD64_REG(0, 1), STX_DW(10, 0, -8), ADD64_IMM(1, 1), JLT_IMM(1, 5, -4),
	LDX_W(0, 10, -8), CALL_LOCAL(1), EXIT(),
	MOV64_REG(0, 1), ADD64_IMM(0, 1), EXIT(),
};

static const char loop_golden[] =
	"; program main: 8 blocks, 20 values, 2 frames, loop bound 3, 1 unwinding markers\n"
	"; frame 1: func@9, called from frame 0 at insn 7\n"
	"b0:    ; main frame 0\n"
	"  v1 = input r1 (context)\n"
	"  v2 = input r2\n"
	"  v3 = input r3\n"
	"  v4 = input r4\n"
	"  v5 = input r5\n"
	"  v6 = frame 0 (r10)\n"
	"  v7 = const 0\n"
	"  v9 = const 0x1\n"
	"  v10 = const 0x5\n"
	"  v12 = const 0x2\n"
	"  v14 = const 0x3\n"
	"  goto b1\n"
	"b1: <- b0    ; main frame 0\n"
	"  v8 = add64 v2, v7    ; insn 2\n"
	"  if v9 < v10 goto b2 else b5\n"
	"b2: <- b1 [v9 < v10]    ; main frame 0\n"
	"  v11 = add64 v8, v9    ; insn 2\n"
	"  if v12 < v10 goto b3 else b5\n"
	"b3: <- b2 [v12 < v10]    ; main frame 0\n"
	"  v13 = add64 v11, v12    ; insn 2\n"
	"  if v14 < v10 goto b4 else b5\n"
	"b4: <- b3 [v14 < v10]    ; main frame 0, loop bound reached\n"
	"  unwind    ; loop bound reached: must be unreachable\n"
	"b5: <- b1 [!(v9 < v10)], b2 [!(v12 < v10)], b3 [!(v14 < v10)]    ; main frame 0\n"
	"  v15 = phi [b1: v8], [b2: v11], [b3: v13]    ; r0, fp0-8\n"
	"  v16 = phi [b1: v9], [b2: v12], [b3: v14]    ; r1\n"
	"  v17 = extract.u32 v15 @0    ; insn 6\n"
	"  goto b6\n"
	"b6: <- b5    ; func@9 frame 1\n"
	"  v18 = frame 1 (r10)\n"
	"  v19 = add64 v16, v9    ; insn 10\n"
	"  goto b7\n"
	"b7: <- b6    ; main frame 0\n"
	"  exit v19\n";

START_TEST(loop_stack_call_dump)
{
	struct run r;
	char *text;

	lift(&r, loop_prog, ARRAY_SIZE(loop_prog), 3, 0);
	ck_assert_int_eq(r.err, 0);
	text = dump(&r);
	ck_assert_str_eq(text, loop_golden);
	free(text);
	done(&r);
}
END_TEST

/* Each extra unit of bound adds one copy of the loop body (one block). */
START_TEST(unrolling_is_linear_in_bound)
{
	struct run r5, r10;

	lift(&r5, loop_prog, ARRAY_SIZE(loop_prog), 5, 0);
	lift(&r10, loop_prog, ARRAY_SIZE(loop_prog), 10, 0);
	ck_assert_uint_eq(r5.p->nunwind, 1);
	ck_assert_uint_eq(r10.p->nunwind, 1);
	ck_assert_uint_eq(r10.p->nblocks - r5.p->nblocks, 5);
	done(&r5);
	done(&r10);
}
END_TEST

START_TEST(too_many_blocks_is_unsupported)
{
	struct run r;

	lift(&r, loop_prog, ARRAY_SIZE(loop_prog), 1000, 100);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "the program is too large after inlining and loop unrolling");
	done(&r);
}
END_TEST

/* 65536 calls of one function: a frame each and the program's own, 65537,
 * one more than the IR's 16-bit frame numbers hold (two frames' stacks
 * would alias): unsupported. */
START_TEST(frames_beyond_16_bits_are_unsupported)
{
	const uint32_t ncalls = 65536, n = ncalls + 3;
	struct bpf_insn *code = calloc(n, sizeof(*code));
	struct run r;
	uint32_t i;

	ck_assert_ptr_nonnull(code);
	for (i = 0; i < ncalls; i++)
		code[i] = (struct bpf_insn)CALL_LOCAL((int32_t)(ncalls - i));
	code[ncalls] = (struct bpf_insn)EXIT();
	code[ncalls + 1] = (struct bpf_insn)MOV64_IMM(0, 0);
	code[ncalls + 2] = (struct bpf_insn)EXIT();
	lift(&r, code, n, 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "more than 65536 call frames after inlining and loop unrolling");
	done(&r);
	/* one call fewer: every frame has its number, and it lifts */
	lift(&r, code + 1, n - 1, 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_msg(!r.p->unsupported, "unsupported: %s", r.p->unsupported);
	ck_assert_uint_eq(r.p->nframes, 65536);
	done(&r);
	free(code);
}
END_TEST

/* The kernel accepts it (its verifier explores states, it needs no loop
 * nesting); the lift does not model it: unsupported, no error. */
START_TEST(irreducible_is_not_modelled)
{
	static const struct bpf_insn raw[] = {
		MOV64_IMM(0, 0),
		JEQ_IMM(1, 0, 2),       /* -> 4: enter the cycle at B */
		ADD64_IMM(0, 1),        /* A */
		JGT_IMM(0, 10, 2),      /* -> 6 */
		ADD64_IMM(0, 2),        /* B */
		JA(-4),                 /* -> 2: B -> A */
		EXIT(),
	};
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported, "function 'main': insn 3: irreducible control flow "
			 "(a cycle entered other than through its header)");
	ck_assert_str_eq(r.msg, "");
	done(&r);
}
END_TEST

START_TEST(falling_off_the_end_is_an_error)
{
	static const struct bpf_insn raw[] = { MOV64_IMM(0, 0), JEQ_IMM(1, 0, -2) };
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, -EINVAL);
	ck_assert_str_eq(r.msg, "<code>: error: function 'main': insn 1: control falls off the end of the function");
	done(&r);
}
END_TEST

/* bpf_loop(3, cb, 0, 0) with cb returning 0: the callback is inlined once
 * per iteration up to the bound, then the unwinding marker. */
START_TEST(bpf_loop_callback_is_inlined)
{
	static const struct bpf_insn raw[] = {
		MOV64_IMM(1, 3), LDDW_FUNC(2, 5), MOV64_IMM(3, 0), MOV64_IMM(4, 0),
		CALL_HELPER(BPF_FUNC_loop), EXIT(),
		MOV64_IMM(0, 0), EXIT(),
	};
	struct run r;
	uint32_t i, cbs = 0;
	char *text;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_ptr_null(r.p->unsupported);
	for (i = 0; i < r.p->nframes; i++)
		cbs += r.p->frames[i].callback;
	ck_assert_uint_eq(cbs, 4);
	ck_assert_uint_eq(r.p->nunwind, 1);
	text = dump(&r);
	ck_assert_ptr_nonnull(strstr(text, "bpf_loop: next iteration?"));
	ck_assert_ptr_nonnull(strstr(text, "bpf_loop: done, r0 = iterations"));
	free(text);
	done(&r);
}
END_TEST

/* ssa_opts.cb_bound: the callback's iterations cut before the loop bound
 * (check.c's first lift), the marker after them, and the program says so */
START_TEST(bpf_loop_callback_cut)
{
	static const struct bpf_insn raw[] = {
		MOV64_IMM(1, 3), LDDW_FUNC(2, 5), MOV64_IMM(3, 0), MOV64_IMM(4, 0),
		CALL_HELPER(BPF_FUNC_loop), EXIT(),
		MOV64_IMM(0, 0), EXIT(),
	};
	static const unsigned cut[][3] = {   /* cb_bound, frames, cut */
		{ 2, 2, 1 }, { 1, 1, 1 }, { 4, 4, 0 }, { 9, 4, 0 }, { 0, 4, 0 },
	};
	struct run r;
	uint32_t i, k, cbs;

	for (k = 0; k < ARRAY_SIZE(cut); k++) {
		lift_cb(&r, raw, ARRAY_SIZE(raw), 4, 0, cut[k][0]);
		ck_assert_int_eq(r.err, 0);
		for (i = 0, cbs = 0; i < r.p->nframes; i++)
			cbs += r.p->frames[i].callback;
		ck_assert_uint_eq(cbs, cut[k][1]);
		ck_assert_uint_eq(r.p->nunwind, 1);
		ck_assert_int_eq(r.p->cb_limited, (int)cut[k][2]);
		done(&r);
	}
}
END_TEST

START_TEST(tail_call_may_not_return)
{
	static const struct bpf_insn raw[] = {
		CALL_HELPER(BPF_FUNC_tail_call), MOV64_IMM(0, 1), EXIT(),
	};
	struct run r;
	uint32_t i, exits = 0, tailrets = 0;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	for (i = 0; i < r.p->nblocks; i++)
		exits += r.p->blocks[i]->term == SSA_TERM_EXIT;
	for (i = 0; i < r.p->nvalues; i++)
		tailrets += r.p->values[i]->kind == SSA_TAILRET;
	ck_assert_uint_eq(exits, 2);
	ck_assert_uint_eq(tailrets, 1);
	ck_assert_int_eq(r.p->blocks[0]->term, SSA_TERM_BRANCH);
	ck_assert_int_eq(r.p->blocks[0]->cond_op, ISA_JEQ);
	done(&r);
}
END_TEST

START_TEST(partial_stack_access)
{
	static const struct bpf_insn raw[] = {
		ST_W(10, -8, 1), STX_B(10, 1, -7), LDX_H(0, 10, -8), EXIT(),
	};
	struct run r;
	char *text;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	text = dump(&r);
	ck_assert_ptr_nonnull(strstr(text, "  v8 = insert.u32 v0 @0, v7    ; insn 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "  v9 = insert.u8 v8 @1, v1    ; insn 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "  v10 = extract.u16 v9 @0    ; insn 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "  exit v10\n"));
	free(text);
	done(&r);
}
END_TEST

START_TEST(stack_atomics_are_read_modify_write)
{
	static const struct bpf_insn raw[] = {
		STX_DW(10, 1, -8),
		ATOMIC_DW(10, 2, -8, 0x01),       /* fetch add: r2 = old */
		ATOMIC_DW(10, 3, -8, 0xf1),       /* cmpxchg: r0 = old */
		ADD64_REG(0, 2), EXIT(),
	};
	struct run r;
	char *text;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	text = dump(&r);
	ck_assert_ptr_nonnull(strstr(text, "  v7 = add64 v1, v2    ; insn 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "  v8 = select.u64 v7 == v0 ? v3 : v7    ; insn 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "  v9 = add64 v7, v1    ; insn 3\n"));
	free(text);
	done(&r);
}
END_TEST

START_TEST(variable_stack_offset)
{
	static const struct bpf_insn raw[] = {
		MOV64_REG(2, 10), ADD64_REG(2, 1), STX_B(2, 1, -2), LDX_B(0, 2, -1), EXIT(),
	};
	struct run r;
	char *text;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_ptr_null(r.p->unsupported);
	text = dump(&r);
	ck_assert_ptr_nonnull(strstr(text, "  v8 = slotstore.u8 fp0-512: v0, [v7 -2] = v1    ; insn 2\n"));
	ck_assert_ptr_nonnull(strstr(text, " = slotstore.u8 fp0-8: v0, [v7 -2] = v1    ; insn 2\n"));
	ck_assert_ptr_nonnull(strstr(text, " = slotload.u8 [v7 -1] in frame 0's stack    ; insn 3\n"));
	free(text);
	done(&r);
}
END_TEST

START_TEST(pointer_stack_on_some_paths_is_unsupported)
{
	static const struct bpf_insn raw[] = {
		JEQ_IMM(1, 0, 3), MOV64_REG(2, 10), ADD64_IMM(2, -8), JA(1),
		MOV64_REG(2, 1), LDX_B(0, 2, 0), EXIT(),
	};
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "insn 5: access through a pointer that is a stack pointer on some paths only");
	done(&r);
}
END_TEST

/* A load or a branch through a register no path has written (r6..r9 at
 * entry are undef): the first such block in topological order gives the
 * reason. */
START_TEST(undef_use_is_unsupported)
{
	static const struct bpf_insn load[] = {
		JEQ_IMM(1, 0, 2), LDX_B(0, 6, 0), EXIT(), MOV64_IMM(0, 1), EXIT(),
	};
	static const struct bpf_insn branch_then_load[] = {
		JGT_IMM(7, 3, 1), LDX_B(0, 6, 0), MOV64_IMM(0, 2), EXIT(),
	};
	static const struct bpf_insn fine[] = {
		MOV64_IMM(6, 0), JEQ_IMM(1, 0, 2), LDX_B(0, 1, 0), EXIT(), MOV64_REG(0, 6), EXIT(),
	};
	struct run r;

	lift(&r, load, ARRAY_SIZE(load), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "a memory access through a register that is not initialised on its path");
	done(&r);
	lift(&r, branch_then_load, ARRAY_SIZE(branch_then_load), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "a branch on a register that is not initialised on its path");
	done(&r);
	lift(&r, fine, ARRAY_SIZE(fine), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_ptr_null(r.p->unsupported);
	done(&r);
}
END_TEST

/* Memory behind a dynptr of program memory is not modelled. */
START_TEST(dynptr_from_mem_is_unsupported)
{
	static const struct bpf_insn raw[] = {
		MOV64_REG(1, 10), ADD64_IMM(1, -32), MOV64_IMM(2, 16), MOV64_IMM(3, 0),
		MOV64_REG(4, 10), ADD64_IMM(4, -16), CALL_HELPER(BPF_FUNC_dynptr_from_mem),
		MOV64_IMM(0, 0), EXIT(),
	};
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "insn 6: bpf_dynptr_from_mem: memory behind a dynptr is not modelled");
	done(&r);
}
END_TEST

/* A callback the helper runs itself is not analysed. */
START_TEST(for_each_callback_is_unsupported)
{
	static const struct bpf_insn raw[] = {
		MOV64_IMM(1, 0), MOV64_IMM(2, 0), MOV64_IMM(3, 0), MOV64_IMM(4, 0),
		CALL_HELPER(BPF_FUNC_for_each_map_elem), EXIT(),
	};
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "insn 4: bpf_for_each_map_elem runs a callback that is not analysed");
	done(&r);
}
END_TEST

START_TEST(call_depth_over_8_is_unsupported)
{
	/* nine functions, each calling the next */
	static const struct bpf_insn raw[] = {
		CALL_LOCAL(1), EXIT(), CALL_LOCAL(1), EXIT(), CALL_LOCAL(1), EXIT(),
		CALL_LOCAL(1), EXIT(), CALL_LOCAL(1), EXIT(), CALL_LOCAL(1), EXIT(),
		CALL_LOCAL(1), EXIT(), CALL_LOCAL(1), EXIT(), MOV64_IMM(0, 0), EXIT(),
	};
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_str_eq(r.p->unsupported, "call depth exceeds 8 frames");
	done(&r);
	/* eight frames are fine */
	lift(&r, raw + 2, ARRAY_SIZE(raw) - 2, 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_ptr_null(r.p->unsupported);
	ck_assert_uint_eq(r.p->nframes, 8);
	done(&r);
}
END_TEST

/* One value per distinct constant, in the entry block (lift_const): 100
 * immediates added twice, the second time after a branch, and the branch's
 * 50 (one of them) make 100 constants: more than the table's first 64
 * slots hold. */
START_TEST(constants_are_shared_in_the_entry_block)
{
	struct bpf_insn raw[2 * 100 + 4];
	uint32_t n = 0, i, nconst = 0, b;
	struct run r;

	raw[n++] = (struct bpf_insn)MOV64_REG(0, 1);
	for (i = 1; i <= 100; i++)
		raw[n++] = (struct bpf_insn)ADD64_IMM(0, (int32_t)i);
	raw[n++] = (struct bpf_insn)JLT_IMM(2, 50, 100);   /* to the exit or through */
	for (i = 1; i <= 100; i++)
		raw[n++] = (struct bpf_insn)ADD64_IMM(0, (int32_t)i);
	raw[n++] = (struct bpf_insn)EXIT();
	lift(&r, raw, n, 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_uint_gt(r.p->nblocks, 2);
	for (i = 1; i < r.p->nvalues; i++) {
		const struct ssa_insn *v = r.p->values[i], *w;
		uint32_t j;

		if (v->kind != SSA_CONST)
			continue;
		nconst++;
		ck_assert_uint_eq(v->block, 0);
		for (j = 1; j < i; j++) {
			w = r.p->values[j];
			ck_assert_msg(w->kind != SSA_CONST || w->imm != v->imm,
				      "v%u and v%u are both const %lld", j, i, (long long)v->imm);
		}
	}
	ck_assert_uint_eq(nconst, 100);
	for (b = 0; b < r.p->blocks[0]->ninsns; b++)
		if (r.p->blocks[0]->insns[b]->kind == SSA_CONST)
			nconst--;
	ck_assert_uint_eq(nconst, 0);
	done(&r);
}
END_TEST

/* What a value points to is kept for the stack's pointers only (lift_ptr,
 * lifter.ptab): 200 pointers r10 - 8k, more than the table's first 64
 * entries, each stored through and read back: every access a stack slot
 * (no memory load or store), and the value read is the last one written. */
START_TEST(many_stack_pointers_resolve)
{
	struct bpf_insn raw[3 * 200 + 3];
	uint32_t n = 0, i, nmem = 0;
	struct run r;

	for (i = 0; i < 200; i++) {
		raw[n++] = (struct bpf_insn)MOV64_REG(3, 10);
		raw[n++] = (struct bpf_insn)ADD64_IMM(3, -8 * (int32_t)(i % 64 + 1));
		raw[n++] = (struct bpf_insn)STX_DW(3, 2, 0);
	}
	raw[n++] = (struct bpf_insn)MOV64_REG(3, 10);
	raw[n++] = (struct bpf_insn)LDX_DW(0, 3, -8);
	raw[n++] = (struct bpf_insn)EXIT();
	lift(&r, raw, n, 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_ptr_null(r.p->unsupported);
	for (i = 1; i < r.p->nvalues; i++)
		if (r.p->values[i]->kind == SSA_LOAD || r.p->values[i]->kind == SSA_STORE)
			nmem++;
	ck_assert_uint_eq(nmem, 0);
	ck_assert_uint_eq(r.p->blocks[r.p->nblocks - 1]->a, 2);   /* r2's input */
	done(&r);
}
END_TEST

/* A slot written in one arm only, after the branch's state was shared,
 * reaches the join as a phi of the written value and UNDEF, whichever way
 * it was written: a full store, a partial one, a helper writing through a
 * stack pointer (a havoc), a store at a variable offset (every slot). The
 * state copies skip the slots below the lowest one written so far
 * (lifter.slot_lo): a write that did not lower it would be lost at the
 * join (fp-8 read back as UNDEF). */
START_TEST(stack_written_in_one_arm_joins)
{
	static const struct {
		struct bpf_insn w[6];
		unsigned n;
		enum ssa_kind kind;
	} arms[] = {
		{ { MOV64_IMM(2, 1), STX_DW(10, 2, -8) }, 2, SSA_CONST },
		{ { MOV64_IMM(2, 1), STX_W(10, 2, -8) }, 2, SSA_INSERT },
		{ { MOV64_REG(1, 10), ADD64_IMM(1, -8), MOV64_IMM(2, 8), MOV64_IMM(3, 0),
		    CALL_HELPER(113) }, 5, SSA_HAVOC },     /* bpf_probe_read_kernel */
		{ { MOV64_REG(4, 10), { 0x57, 1, 0, 0, 8 } /* r1 &= 8 */, ADD64_REG(4, 1),
		    MOV64_IMM(2, 1), STX_DW(4, 2, -16) }, 5, SSA_SLOTSTORE },
	};

	for (unsigned k = 0; k < ARRAY_SIZE(arms); k++) {
		struct bpf_insn raw[16];
		uint32_t n = 0;
		struct run r;
		const struct ssa_insn *v, *w;

		raw[n++] = (struct bpf_insn)MOV64_IMM(0, 0);
		raw[n++] = (struct bpf_insn)JGT_IMM(1, 5, (int16_t)(arms[k].n + 1));
		for (unsigned i = 0; i < arms[k].n; i++)
			raw[n++] = arms[k].w[i];
		raw[n++] = (struct bpf_insn)JA(1);
		raw[n++] = (struct bpf_insn)MOV64_IMM(3, 2);   /* the other arm writes no slot */
		raw[n++] = (struct bpf_insn)LDX_DW(0, 10, -8);
		raw[n++] = (struct bpf_insn)EXIT();
		lift(&r, raw, n, 4, 0);
		ck_assert_int_eq(r.err, 0);
		ck_assert_msg(!r.p->unsupported, "arm %u: %s", k, r.p->unsupported);
		v = r.p->values[r.p->blocks[r.p->nblocks - 1]->a];
		ck_assert_msg(v->kind == SSA_PHI && v->nargs == 2, "arm %u: r0 is not a phi of two", k);
		ck_assert_msg((v->args[0] == 0) != (v->args[1] == 0), "arm %u: phi %u, %u", k,
			      v->args[0], v->args[1]);
		w = r.p->values[v->args[0] ? v->args[0] : v->args[1]];
		ck_assert_msg(w->kind == arms[k].kind, "arm %u: kind %d", k, (int)w->kind);
		done(&r);
	}
}
END_TEST

/* Two constants fold to a constant with BPF's rules. */
START_TEST(constants_fold)
{
	static const struct bpf_insn raw[] = {
		{ 0xb4, 1, 0, 0, -1 },       /* w1 = -1 */
		{ 0x04, 1, 0, 0, 1 },        /* w1 += 1: wraps to 0, zero-extended */
		{ 0xb7, 2, 0, 0, 7 },        /* r2 = 7 */
		{ 0x3f, 2, 1, 0, 0 },        /* r2 /= r1: division by zero is 0 */
		{ 0xb7, 0, 0, 0, 9 },
		{ 0x9f, 0, 1, 0, 0 },        /* r0 %= r1: modulo by zero keeps r0 */
		{ 0x0f, 0, 2, 0, 0 },        /* r0 += r2 */
		EXIT(),
	};
	struct run r;
	struct ssa_insn *v;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	v = r.p->values[r.p->blocks[r.p->nblocks - 1]->a];
	ck_assert_int_eq(v->kind, SSA_CONST);
	ck_assert_int_eq(v->imm, 9);
	done(&r);
}
END_TEST

START_TEST(callx_of_a_constant_is_that_helper)
{
	static const struct bpf_insn raw[] = {
		MOV64_IMM(2, BPF_FUNC_ktime_get_ns), { 0x8d, 2, 0, 0, 0 }, EXIT(),
	};
	struct run r;
	char *text;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_int_eq(r.err, 0);
	ck_assert_ptr_null(r.p->unsupported);
	text = dump(&r);
	ck_assert_ptr_nonnull(strstr(text, "= call bpf_ktime_get_ns#5("));
	free(text);
	done(&r);
}
END_TEST

START_TEST(callx_of_an_unknown_target_is_unsupported)
{
	static const struct bpf_insn raw[] = { { 0x8d, 1, 0, 0, 0 }, EXIT() };
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_str_eq(r.p->unsupported, "insn 0: indirect call (callx) to an unknown target");
	done(&r);
}
END_TEST

START_TEST(legacy_packet_load_is_unsupported)
{
	static const struct bpf_insn raw[] = {
		MOV64_REG(6, 1), { 0x30, 0, 0, 0, 12 } /* r0 = *(u8 *)skb[12] */, EXIT(),
	};
	struct run r;

	lift(&r, raw, ARRAY_SIZE(raw), 4, 0);
	ck_assert_str_eq(r.p->unsupported,
			 "insn 1: legacy packet load (LD_ABS/LD_IND): its out-of-bounds exit is not modelled");
	done(&r);
}
END_TEST

/* Uses of values not initialised on their path (ssa_undef.c): through
 * copies, arithmetic, spills and fills, partial slots and joins where every
 * incoming value is undefined; and what stays checked. */
#define UNDEF_ACCESS "a memory access through a register that is not initialised on its path"
#define UNDEF_STORE "a store of a register that is not initialised on its path"
#define UNDEF_BRANCH "a branch on a register that is not initialised on its path"
#define UNDEF_HELPER "a helper call with an argument register that is not initialised on its path"

static const struct undef_case {
	const char *name;
	struct bpf_insn raw[8];
	uint32_t n;
	const char *unsupported;   /* NULL: checked */
} undef_cases[] = {
	{ "load through r0", { LDX_B(0, 0, 0), EXIT() }, 2, UNDEF_ACCESS },
	{ "copy then add", { MOV64_REG(2, 0), ADD64_IMM(2, 1), LDX_B(0, 2, 0), EXIT() }, 4,
	  UNDEF_ACCESS },
	{ "mov32 copy", { MOV32_REG(2, 6), LDX_B(0, 2, 0), EXIT() }, 3, UNDEF_ACCESS },
	{ "spill and fill", { STX_DW(10, 7, -8), LDX_DW(2, 10, -8), LDX_B(0, 2, 0), EXIT() }, 4,
	  UNDEF_ACCESS },
	{ "32-bit spill and fill", { STX_W(10, 7, -8), LDX_W(2, 10, -8), LDX_B(0, 2, 0), EXIT() },
	  4, UNDEF_ACCESS },
	{ "never-written stack", { LDX_W(2, 10, -8), LDX_B(0, 2, 0), EXIT() }, 3, UNDEF_ACCESS },
	{ "half-written slot read whole", { ST_W(10, -8, 1), LDX_DW(2, 10, -8), LDX_B(0, 2, 0), EXIT() },
	  4, UNDEF_ACCESS },
	{ "stored to memory", { MOV64_IMM(0, 0), STX_DW(1, 6, 0), EXIT() }, 3, UNDEF_STORE },
	{ "cmpxchg with r0 unset", { MOV64_IMM(3, 1), ATOMIC_DW(1, 3, 0, 0xf1), EXIT() }, 3,
	  UNDEF_STORE },
	{ "branch on arithmetic", { ADD64_IMM(6, 1), MOV64_IMM(0, 0), JEQ_IMM(6, 0, 0), EXIT() }, 4,
	  UNDEF_BRANCH },
	/* r6 is undefined on both paths: a join of two undefined values */
	{ "join of undefined values", { JEQ_IMM(1, 0, 2), MOV64_REG(6, 7), JA(1), ADD64_IMM(6, 1),
	  LDX_B(0, 6, 0), EXIT() }, 6, UNDEF_ACCESS },
	/* a call leaves r1-r5 unset: map_lookup_elem reads r1 and r2,
	 * map_update_elem r1-r4 */
	{ "helper argument unset", { CALL_HELPER(7), MOV64_IMM(1, 0), CALL_HELPER(1), EXIT() }, 4,
	  UNDEF_HELPER },
	{ "fourth helper argument unset", { CALL_HELPER(7), MOV64_IMM(1, 0), MOV64_REG(2, 10),
	  ADD64_IMM(2, -8), MOV64_REG(3, 2), CALL_HELPER(2), EXIT() }, 7,
	  UNDEF_HELPER },
	{ "helper argument undefined on every path", { CALL_HELPER(7), JEQ_IMM(0, 0, 1),
	  MOV64_REG(2, 6), MOV64_IMM(1, 0), CALL_HELPER(1), EXIT() }, 6, UNDEF_HELPER },
	/* checked: */
	{ "helper arguments set", { CALL_HELPER(7), ST_W(10, -8, 0), ST_W(10, -4, 0),
	  MOV64_IMM(1, 0), MOV64_REG(2, 10), ADD64_IMM(2, -8), CALL_HELPER(1), EXIT() }, 8, NULL },
	{ "helper argument undefined on one path", { CALL_HELPER(7), MOV64_IMM(2, 0),
	  JEQ_IMM(0, 0, 1), MOV64_IMM(1, 0), CALL_HELPER(1), EXIT() }, 6, NULL },
	/* bpf_trace_printk(fmt, size, ...): the kernel checks two */
	{ "trace_printk without its variadic arguments", { CALL_HELPER(7), ST_W(10, -8, 0),
	  MOV64_REG(1, 10), ADD64_IMM(1, -8), MOV64_IMM(2, 1), CALL_HELPER(6), EXIT() }, 7, NULL },
	{ "join of undefined and defined", { JEQ_IMM(1, 0, 1), MOV64_REG(6, 1), LDX_B(0, 6, 0), EXIT() },
	  4, NULL },
	{ "written part of a slot", { ST_W(10, -8, 1), LDX_W(2, 10, -8), MOV64_REG(0, 2), EXIT() }, 4,
	  NULL },
	{ "mov32 of a half-written slot", { ST_W(10, -8, 1), LDX_DW(2, 10, -8), MOV32_REG(2, 2),
	  JEQ_IMM(2, 0, 0), MOV64_IMM(0, 0), EXIT() }, 6, NULL },
	{ "fetch add with r0 unset", { MOV64_IMM(3, 1), ATOMIC_DW(1, 3, 0, 0x01), MOV64_IMM(0, 0),
	  EXIT() }, 4, NULL },
	{ "spill never filled", { STX_DW(10, 6, -8), MOV64_IMM(0, 0), EXIT() }, 3, NULL },
	{ "exit with r0 unset", { EXIT() }, 1, NULL },
	{ "helper arguments unset", { CALL_HELPER(7), CALL_HELPER(7), EXIT() }, 3, NULL },
};

START_TEST(undefined_uses)
{
	const struct undef_case *u = &undef_cases[_i];
	struct run r;

	lift(&r, u->raw, u->n, 4, 0);
	ck_assert_int_eq(r.err, 0);
	if (u->unsupported)
		ck_assert_msg(r.p->unsupported && !strcmp(r.p->unsupported, u->unsupported),
			      "%s: %s", u->name, r.p->unsupported ? r.p->unsupported : "(checked)");
	else
		ck_assert_msg(!r.p->unsupported, "%s: %s", u->name, r.p->unsupported);
	done(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ssa");
	TCase *tc = tcase_create("lift");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, loop_stack_call_dump);
	tcase_add_test(tc, constants_are_shared_in_the_entry_block);
	tcase_add_test(tc, many_stack_pointers_resolve);
	tcase_add_test(tc, stack_written_in_one_arm_joins);
	tcase_add_test(tc, unrolling_is_linear_in_bound);
	tcase_add_test(tc, too_many_blocks_is_unsupported);
	tcase_add_test(tc, irreducible_is_not_modelled);
	tcase_add_test(tc, falling_off_the_end_is_an_error);
	tcase_add_test(tc, bpf_loop_callback_is_inlined);
	tcase_add_test(tc, bpf_loop_callback_cut);
	tcase_add_test(tc, tail_call_may_not_return);
	tcase_add_test(tc, partial_stack_access);
	tcase_add_test(tc, stack_atomics_are_read_modify_write);
	tcase_add_test(tc, variable_stack_offset);
	tcase_add_test(tc, pointer_stack_on_some_paths_is_unsupported);
	tcase_add_test(tc, call_depth_over_8_is_unsupported);
	tcase_add_test(tc, dynptr_from_mem_is_unsupported);
	tcase_add_test(tc, for_each_callback_is_unsupported);
	tcase_add_test(tc, constants_fold);
	tcase_add_test(tc, callx_of_a_constant_is_that_helper);
	tcase_add_test(tc, callx_of_an_unknown_target_is_unsupported);
	tcase_add_test(tc, frames_beyond_16_bits_are_unsupported);
	tcase_add_test(tc, legacy_packet_load_is_unsupported);
	tcase_add_loop_test(tc, undefined_uses, 0, (int)ARRAY_SIZE(undef_cases));
	tcase_add_test(tc, undef_use_is_unsupported);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
