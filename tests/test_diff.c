/* test_diff.c - kernel differential test: random BPF programs run by the
 * kernel (BPF_PROG_TEST_RUN), by the interpreter (interp.h) and proved by
 * the Z3 encoding (smt.h); the three must agree on r0.
 *
 * Usage: test_diff [--programs N] [--packets K] [--seed S] [--verbose]
 *   default: 300 programs x 3 packets, seed 1 (the CI run, a few seconds).
 *   Long run: test_diff --programs 10000 --seed N
 * Exit: 0 = no disagreement, 1 = a disagreement (printed) or an internal
 * error, 77 (meson's skip) = bpf() not available (not root, EPERM, ENOSYS).
 *
 * Programs (a seeded xorshift64 generator, straight-line code plus forward
 * conditional jumps, ISA v4) are BPF_PROG_TYPE_XDP:
 *   prologue  r2 = *(u32 *)(r1 + 0)   ctx->data
 *             r3 = *(u32 *)(r1 + 4)   ctx->data_end
 *             r4 = r2; r4 += PKT_MIN; if r4 > r3 goto fail
 *             r0, r1, r3..r9, r2 (last) = constants (mov / LD imm64) or
 *             packet bytes *(u8/u16/u32/u64 *)(r2 + off), off + size <=
 *             PKT_MIN: from here on every register is a scalar
 *             the 4 stack slots r10-8 .. r10-32 stored from registers
 *   body      random ALU64/ALU32 (K and X, div/mod/sdiv/smod, shifts with
 *             in-range K, neg, movsx, le/be/bswap), stack stores (STX and
 *             ST) and loads of 1/2/4/8 bytes at aligned offsets inside the
 *             initialised slots, forward JMP/JMP32 conditional jumps (signed
 *             and unsigned, K and X) landing at most on the epilogue
 *   epilogue  r0 = rN; exit     fail: r0 = 0; exit
 * A program the verifier rejects is counted and skipped.
 *
 * The ctx/packet mapping that makes the three executions comparable:
 * the kernel gives XDP programs 32-bit ctx fields (struct xdp_md) that it
 * rewrites into 64-bit pointer loads. The interpreter and the encoding load
 * the 32-bit fields literally, so the packet is placed at an address below
 * 4 GiB, PKT_ADDR: the ctx region (24 bytes, struct xdp_md) holds data =
 * PKT_ADDR and data_end = PKT_ADDR + len, and a zero-extended 32-bit load
 * of them is the packet pointer itself. In the interpreter the packet is a
 * PACKET region with the explicit base PKT_ADDR and the ctx a CTX region at
 * its default base (r1); in the encoding r1 = CTX_ADDR and both the ctx
 * bytes and the packet bytes are fixed in the flat memory mem0
 * (smt_assume_bytes). The program only depends on the packet bytes, so the
 * kernel's real addresses never reach r0: the bounds check compares them,
 * with the same outcome everywhere (one packet in 8 is 14-15 bytes long,
 * shorter than PKT_MIN, and takes the fail path).
 *
 * Comparison: the kernel's retval is the low 32 bits of r0 (XDP actions are
 * u32; the verifier does not restrict XDP return values and test_run
 * returns any). The interpreter must EXIT with (u32)r0 == retval; the
 * encoding must prove "an exit is reached, no unwinding marker is, and
 * (u32)result == retval" (UNSAT of the negation).
 *
 * Prints `diff: P programs (R rejected by the verifier), K packets, D
 * disagreements` and fails unless D == 0.
 */
#include "insn.h"
#include "interp.h"
#include "smt.h"
#include "ssa.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SKIP_CODE 77
#define MAX_INSNS 160
#define PKT_MIN 16            /* the bounds check; loads stay below it */
#define ETH_HLEN 14           /* the shortest packet XDP test_run takes */
#define PKT_MAX 64
#define PKT_ADDR 0x10000000ull
#define CTX_ADDR 0x200000000ull
#define XDP_MD_SIZE 24
#define NSLOTS 4              /* initialised stack bytes: 8 * NSLOTS */
#define QUERY_MS 20000u

/* ---- the generator ---------------------------------------------------- */

struct gen {
	uint64_t s;                     /* xorshift64 state, never 0 */
	struct bpf_insn p[MAX_INSNS];
	unsigned n;
};

static uint64_t rnd(struct gen *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return g->s;
}

static unsigned pick(struct gen *g, unsigned n)
{
	return (unsigned)(rnd(g) % n);
}

static void emit(struct gen *g, uint8_t code, uint8_t dst, uint8_t src,
		 int16_t off, int32_t imm)
{
	struct bpf_insn in = { .code = code, .dst_reg = dst, .src_reg = src,
			       .off = off, .imm = imm };

	if (g->n >= MAX_INSNS)
		abort();
	g->p[g->n++] = in;
}

/* An interesting immediate: small, boundary, or random. */
static int32_t rimm(struct gen *g)
{
	static const int32_t edge[] = { 0, 1, -1, 2, 7, 8, 31, 32, 63, 64,
					0x7fffffff, INT32_MIN, 0xff, 0xffff };

	switch (pick(g, 3)) {
	case 0: return edge[pick(g, ARRAY_SIZE(edge))];
	case 1: return (int32_t)pick(g, 256) - 128;
	default: return (int32_t)rnd(g);
	}
}

static uint64_t rimm64(struct gen *g)
{
	static const uint64_t edge[] = { 0, 1, ~0ull, 0x8000000000000000ull,
					 0x7fffffffffffffffull, 0xffffffffull,
					 0x100000000ull };

	return pick(g, 2) ? edge[pick(g, ARRAY_SIZE(edge))] : rnd(g);
}

static unsigned rreg(struct gen *g)
{
	return pick(g, 10);
}

static const uint8_t ldsz[4] = { BPF_B, BPF_H, BPF_W, BPF_DW };

/* dst = constant or a packet load through r2. */
static void gen_init_reg(struct gen *g, unsigned dst)
{
	unsigned k = pick(g, 4), bytes = 1u << k;

	switch (pick(g, 3)) {
	case 0:
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, rimm(g));
		break;
	case 1: {
		uint64_t v = rimm64(g);

		emit(g, BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, (int32_t)v);
		emit(g, 0, 0, 0, 0, (int32_t)(v >> 32));
		break;
	}
	default:
		emit(g, BPF_LDX | BPF_MEM | ldsz[k], dst, 2, 0,
		     (int32_t)0 + 0);
		g->p[g->n - 1].off = (int16_t)pick(g, PKT_MIN - bytes + 1);
		break;
	}
}

static void gen_alu(struct gen *g)
{
	static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV,
		BPF_OR, BPF_AND, BPF_LSH, BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR,
		BPF_MOV, BPF_ARSH, BPF_END };
	uint8_t op = ops[pick(g, ARRAY_SIZE(ops))];
	bool is64 = pick(g, 2);
	uint8_t cls = is64 ? BPF_ALU64 : BPF_ALU;
	unsigned dst = rreg(g), src = rreg(g), width = is64 ? 64 : 32;
	bool x = pick(g, 2);
	int16_t off = 0;
	int32_t imm = rimm(g);

	switch (op) {
	case BPF_NEG:
		emit(g, cls | op | BPF_K, dst, 0, 0, 0);
		return;
	case BPF_END: {
		static const int32_t w[] = { 16, 32, 64 };

		/* BPF_ALU: le/be (to_le = K, to_be = X); ALU64 | K: bswap */
		emit(g, (pick(g, 3) ? BPF_ALU : BPF_ALU64) | BPF_END |
		     (pick(g, 2) ? BPF_X : BPF_K), dst, 0, 0, w[pick(g, 3)]);
		if ((g->p[g->n - 1].code & 0x07) == BPF_ALU64)
			g->p[g->n - 1].code = BPF_ALU64 | BPF_END | BPF_K;
		return;
	}
	case BPF_LSH: case BPF_RSH: case BPF_ARSH:
		imm = (int32_t)pick(g, width);
		break;
	case BPF_DIV: case BPF_MOD:
		off = pick(g, 2);            /* sdiv / smod */
		if (!x && imm == 0)
			imm = 3;             /* the verifier rejects K = 0 */
		break;
	case BPF_MOV:
		if (x && pick(g, 3) == 0) {  /* movsx */
			static const int16_t sx[] = { 8, 16, 32 };

			off = sx[pick(g, is64 ? 3 : 2)];
		}
		break;
	default:
		break;
	}
	emit(g, cls | op | (x ? BPF_X : BPF_K), dst, x ? src : 0, off,
	     x ? 0 : imm);
}

static void gen_stack(struct gen *g)
{
	unsigned k = pick(g, 4), bytes = 1u << k;
	int16_t off = (int16_t)-(int)(bytes * (1 + pick(g, 8 * NSLOTS / bytes)));

	switch (pick(g, 3)) {
	case 0:
		emit(g, BPF_STX | BPF_MEM | ldsz[k], 10, rreg(g), off, 0);
		break;
	case 1:
		emit(g, BPF_ST | BPF_MEM | ldsz[k], 10, 0, off, rimm(g));
		break;
	default:
		emit(g, BPF_LDX | BPF_MEM | ldsz[k], rreg(g), 10, off, 0);
		break;
	}
}

static void gen_jump(struct gen *g, unsigned left)
{
	static const uint8_t ops[] = { BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET,
		BPF_JNE, BPF_JSGT, BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT,
		BPF_JSLE };
	uint8_t cls = pick(g, 2) ? BPF_JMP : BPF_JMP32;
	bool x = pick(g, 2);

	emit(g, cls | ops[pick(g, ARRAY_SIZE(ops))] | (x ? BPF_X : BPF_K),
	     rreg(g), x ? rreg(g) : 0, (int16_t)pick(g, left + 1),
	     x ? 0 : rimm(g));
}

/* One program into g->p[0..n). */
static void gen_program(struct gen *g)
{
	static const unsigned order[] = { 0, 1, 3, 4, 5, 6, 7, 8, 9, 2 };
	unsigned i, body, fixup;

	g->n = 0;
	emit(g, BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0);
	emit(g, BPF_LDX | BPF_MEM | BPF_W, 3, 1, 4, 0);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0);
	emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, PKT_MIN);
	fixup = g->n;
	emit(g, BPF_JMP | BPF_JGT | BPF_X, 4, 3, 0, 0);
	for (i = 0; i < ARRAY_SIZE(order); i++)
		gen_init_reg(g, order[i]);
	for (i = 0; i < NSLOTS; i++)
		emit(g, BPF_STX | BPF_MEM | BPF_DW, 10, rreg(g),
		     (int16_t)(-8 * (int)(i + 1)), 0);
	body = 8 + pick(g, 60);
	for (i = 0; i < body; i++) {
		unsigned r = pick(g, 10);

		if (r < 6)
			gen_alu(g);
		else if (r < 8)
			gen_stack(g);
		else
			gen_jump(g, body - i - 1);
	}
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 0, rreg(g), 0, 0);
	emit(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	g->p[fixup].off = (int16_t)(g->n - fixup - 1);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	emit(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/* ---- the three runners ------------------------------------------------ */

struct packet {
	uint8_t bytes[PKT_MAX];
	uint32_t len;
};

static void ctx_bytes(const struct packet *pk, uint8_t ctx[XDP_MD_SIZE])
{
	uint32_t data = (uint32_t)PKT_ADDR, end = data + pk->len;

	memset(ctx, 0, XDP_MD_SIZE);
	memcpy(ctx, &data, 4);
	memcpy(ctx + 4, &end, 4);
}

static int run_kernel(int fd, const struct packet *pk, uint32_t *retval,
		      char *why, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pk->bytes,
		    .data_size_in = pk->len, .repeat = 1);
	int err = bpf_prog_test_run_opts(fd, &o);

	if (err < 0) {
		snprintf(why, len, "BPF_PROG_TEST_RUN: %s", strerror(-err));
		return -1;
	}
	*retval = o.retval;
	return 0;
}

static int run_interp(const struct insn *insns, uint32_t n,
		      const struct packet *pk, uint64_t *r0, char *why, size_t len)
{
	struct insn *secs[1] = { (struct insn *)insns };
	uint32_t nslots[1] = { n };
	struct packet copy = *pk;
	uint8_t ctx[XDP_MD_SIZE];
	struct interp_result r;
	uint64_t args[5] = {0};
	struct interp ip;
	int c, rc = -1;

	ctx_bytes(pk, ctx);
	if (interp_init(&ip, secs, nslots, 1, NULL) < 0) {
		snprintf(why, len, "interp_init failed");
		return -1;
	}
	c = interp_add_region(&ip, INTERP_MEM_CTX, "ctx", 0, XDP_MD_SIZE, ctx,
			      false);
	if (c < 0 || interp_add_region(&ip, INTERP_MEM_PACKET, "packet",
				       PKT_ADDR, pk->len, copy.bytes, true) < 0) {
		snprintf(why, len, "cannot add the ctx / packet regions");
		goto out;
	}
	args[0] = interp_region(&ip, c)->base;
	interp_run(&ip, 0, 0, args, &r);
	if (r.status != INTERP_EXIT) {
		snprintf(why, len, "%s at insn %u: %s",
			 interp_status_name(r.status), r.slot, r.msg);
		goto out;
	}
	*r0 = r.r0;
	rc = 0;
out:
	interp_fini(&ip);
	return rc;
}

/* Prove "exit reached, no unwind, (u32)r0 == WANT" for packet PK. Returns
 * 0 when it holds; else WHY says what the solver found. */
static int run_smt(const struct ssa_prog *p, const struct packet *pk,
		   uint32_t want, char *why, size_t len)
{
	struct arena *a = arena_new();
	struct smt *s = smt_new();
	struct smt_input in = {0};
	struct smt_prog *e = NULL;
	struct smt_result r = {0};
	uint8_t ctx[XDP_MD_SIZE];
	uint64_t got = 0;
	Z3_context z;
	Z3_ast low, claim;
	int rc = -1;

	if (!s) {
		snprintf(why, len, "no Z3 context");
		goto out;
	}
	z = smt_ctx(s);
	in.reg[1] = smt_bv64(s, CTX_ADDR);
	if (smt_encode(s, p, &in, a, &e) < 0) {
		snprintf(why, len, "encode: %s", smt_error(s) ? smt_error(s) : "failed");
		goto out;
	}
	ctx_bytes(pk, ctx);
	smt_assume_bytes(s, e, CTX_ADDR, ctx, XDP_MD_SIZE);
	smt_assume_bytes(s, e, PKT_ADDR, pk->bytes, pk->len);
	low = Z3_mk_bvand(z, e->result, smt_bv64(s, 0xffffffffull));
	claim = smt_and(s, smt_and(s, e->reach_exit, smt_not(s, e->reach_unwind)),
			smt_eq(s, low, smt_bv64(s, want)));
	smt_prove(s, claim, QUERY_MS, &r);
	if (r.verdict == SMT_HOLDS) {
		rc = 0;
	} else if (r.verdict == SMT_VIOLATED) {
		smt_eval_u64(s, r.model, e->result, &got);
		snprintf(why, len, "violated: r0 can be 0x%llx",
			 (unsigned long long)got);
	} else {
		snprintf(why, len, "unknown: %s", r.reason);
	}
out:
	if (s) {
		smt_release(s, &r);
		smt_free(s);
	}
	arena_free(a);
	return rc;
}

/* ---- reporting -------------------------------------------------------- */

static void print_program(const struct gen *g, const struct insn *insns)
{
	char buf[256];
	unsigned i;

	printf("program (%u slots):\n", g->n);
	for (i = 0; i < g->n; i++) {
		const struct bpf_insn *b = &g->p[i];
		uint64_t w;

		memcpy(&w, b, sizeof(w));
		buf[0] = 0;
		if (!insns[i].cont)
			insn_format(NULL, &insns[i], i, buf, sizeof(buf));
		printf("  %3u: %016llx  %s\n", i, (unsigned long long)w, buf);
	}
}

static void print_packet(const struct packet *pk)
{
	uint32_t i;

	printf("packet (%u bytes):", pk->len);
	for (i = 0; i < pk->len; i++)
		printf("%s%02x", i % 16 ? " " : "\n  ", pk->bytes[i]);
	printf("\n");
}

/* ---- main ------------------------------------------------------------- */

static int load_prog(const struct bpf_insn *p, unsigned n, char *log, size_t len)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
		    .log_size = (unsigned)len, .log_level = log ? 1 : 0);

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "diff", "GPL", p, n,
			     log ? &o : NULL);
}

/* Is bpf() usable? A trivial XDP program must load and test-run. */
static int probe(char *why, size_t len)
{
	static const struct bpf_insn p[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct packet pk = { .len = PKT_MIN };
	uint32_t ret = 0;
	int fd = load_prog(p, 2, NULL, 0);

	if (fd < 0) {
		snprintf(why, len, "BPF_PROG_LOAD: %s", strerror(-fd));
		return -1;
	}
	if (run_kernel(fd, &pk, &ret, why, len) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

struct opts {
	unsigned programs, packets;
	uint64_t seed;
	bool verbose;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int i;

	*o = (struct opts){ .programs = 300, .packets = 3, .seed = 1 };
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--verbose"))
			o->verbose = true;
		else if (i + 1 < argc && !strcmp(argv[i], "--programs"))
			o->programs = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "--packets"))
			o->packets = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "--seed"))
			o->seed = strtoull(argv[++i], NULL, 0);
		else
			return -1;
	}
	return 0;
}

/* Run one accepted program (kernel fd FD) on O->packets packets; returns
 * the number of disagreements. */
static unsigned check_program(struct gen *g, int fd, const struct opts *o,
			      unsigned *npackets)
{
	static struct insn insns[MAX_INSNS];
	struct diag d = {0};
	struct arena *a = arena_new();
	struct ssa_prog *p = NULL;
	struct ssa_opts so = { .loop_bound = SSA_DEFAULT_LOOP_BOUND };
	char why_k[256], why_i[256], why_s[256];
	unsigned k, bad = 0;

	memset(insns, 0, sizeof(insns));
	if (insn_decode(g->p, g->n, insns, "test_diff", "program", &d) < 0 ||
	    ssa_build_code(insns, g->n, &so, a, &d, &p) < 0 || p->unsupported) {
		printf("DISAGREEMENT: decode or lift failed%s%s\n",
		       p && p->unsupported ? ": " : "",
		       p && p->unsupported ? p->unsupported : "");
		print_program(g, insns);
		arena_free(a);
		return 1;
	}
	for (k = 0; k < o->packets; k++) {
		struct packet pk;
		uint32_t ret = 0, i;
		uint64_t r0 = 0;
		int ek, ei, es;

		/* one packet in 8 is shorter than the bounds check (the kernel's
		 * minimum is ETH_HLEN): the fail path returns 0 */
		pk.len = pick(g, 8) ? PKT_MIN + pick(g, PKT_MAX - PKT_MIN + 1)
				    : ETH_HLEN + pick(g, PKT_MIN - ETH_HLEN);
		for (i = 0; i < pk.len; i++)
			pk.bytes[i] = (uint8_t)(pick(g, 4) ? rnd(g) : pick(g, 3) ? 0 : 0xff);
		why_k[0] = why_i[0] = why_s[0] = 0;
		ek = run_kernel(fd, &pk, &ret, why_k, sizeof(why_k));
		ei = run_interp(insns, g->n, &pk, &r0, why_i, sizeof(why_i));
		es = ek < 0 ? -1 : run_smt(p, &pk, ret, why_s, sizeof(why_s));
		(*npackets)++;
		if (ek == 0 && ei == 0 && es == 0 && (uint32_t)r0 == ret)
			continue;
		bad++;
		printf("DISAGREEMENT\n");
		print_program(g, insns);
		print_packet(&pk);
		printf("kernel: %s", ek ? why_k : "");
		if (!ek)
			printf("retval 0x%08x", ret);
		printf("\ninterpreter: %s", ei ? why_i : "");
		if (!ei)
			printf("r0 0x%016llx", (unsigned long long)r0);
		printf("\nsmt: %s\n", ek ? "not run" : es ? why_s : "(u32)r0 == retval holds");
	}
	arena_free(a);
	return bad;
}

int main(int argc, char **argv)
{
	static char log[1 << 16];
	struct opts o;
	struct gen g;
	char why[256];
	unsigned i, rejected = 0, npackets = 0, bad = 0;

	if (parse(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: %s [--programs N] [--packets K] "
			"[--seed S] [--verbose]\n", argv[0]);
		return 2;
	}
	if (probe(why, sizeof(why)) < 0) {
		printf("skipped: bpf() not available: %s\n", why);
		return SKIP_CODE;
	}
	g.s = o.seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	if (!g.s)
		g.s = 1;
	for (i = 0; i < o.programs; i++) {
		int fd;

		gen_program(&g);
		fd = load_prog(g.p, g.n, o.verbose ? log : NULL, sizeof(log));
		if (fd < 0) {
			rejected++;
			if (o.verbose)
				printf("program %u rejected: %s\n%s\n", i,
				       strerror(-fd), log);
			continue;
		}
		bad += check_program(&g, fd, &o, &npackets);
		close(fd);
	}
	printf("diff: %u programs (%u rejected by the verifier), %u packets, "
	       "%u disagreements\n", o.programs, rejected, npackets, bad);
	return bad ? 1 : 0;
}
