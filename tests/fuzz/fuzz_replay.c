/* fuzz_replay.c - libFuzzer target: the check up to the solver, without
 * Z3 (fuzz_check runs 10-45 inputs a second: every check makes a Z3
 * context and queries; this one runs thousands).
 *
 * Input: as fuzz_check (first byte < 0x80: a spec against example object
 * byte0 % N of FUZZ_OBJECTS; else an object against a fixed spec). For each
 * resolved check (at most 4):
 *   instrument_lift (loop bound 2)  -> ssa_verify of the instrumented SSA;
 *   concrete runs: replay_run with inputs drawn from a hash of the fuzz
 *   input (context bytes, a packet of 0..128 bytes, helper results), the
 *   calls answered as the program makes them: a run that stops at a call
 *   the inputs have no answer for is run again with one more answer (at
 *   most 16 calls), so the interpreter and the concrete monitor get past
 *   the first call; loads from memory no region covers (kernel objects
 *   behind BTF pointers) are answered the same way (at most 16).
 * The contract: the lift succeeds with SSA that passes ssa_verify, or fails
 * with exactly one error diagnostic; replay_run never refuses an input the
 * harness built (-EINVAL); any outcome of the run (an assert failing, an
 * exit, a fault, a divergence) is fine. Anything else aborts.
 */
#include "harness.h"
#include "instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool trace;      /* FUZZ_REPLAY_TRACE set: each run's outcome on stderr */

#define MAX_CALLS 16
#define MAX_READS 16
#define CTX_SIZE 256
#define PKT_MAX 128
#define VAL_SIZE 256
#define PKT_BASE 0x20000000ull      /* fits the 32-bit packet fields */
#define CTX_BASE INTERP_BASE(INTERP_MEM_CTX, 8)
#define VAL_BASE INTERP_BASE(INTERP_MEM_MAP_VALUE, 0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace = getenv("FUZZ_REPLAY_TRACE") != NULL;
	fuzz_load_objects("fuzz_replay");
	return 0;
}

/* splitmix64: the run's inputs from a hash of the fuzz input */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill(uint8_t *p, size_t n, uint64_t *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)next_rand(s);
}

static void put32(uint8_t *ctx, uint32_t off, uint64_t v)
{
	uint32_t w = (uint32_t)v;

	if (off + 4 <= CTX_SIZE)
		memcpy(ctx + off, &w, 4);
}

/* A helper result: a map lookup gets NULL or a pointer into the value
 * region; other calls 0, a small number, -1 or a pointer into the value
 * region. */
static uint64_t call_ret(int helper, uint64_t *s)
{
	uint64_t r = next_rand(s);

	if (helper == 1)
		return r & 1 ? VAL_BASE + ((r >> 8) & 0x38) : 0;
	switch (r & 3) {
	case 0: return 0;
	case 1: return (r >> 8) & 7;
	case 2: return (uint64_t)-1;
	default: return VAL_BASE + ((r >> 8) & 0x38);
	}
}

/* The load from memory no region covers that the last run stopped at
 * (replay.c's message gives its size and address), as the next read. */
static bool add_read(const struct replay_result *rr, struct cex_read *reads, unsigned *n,
		     uint64_t *s)
{
	unsigned long long addr;
	unsigned size;

	if (rr->outcome != REPLAY_DIVERGED || *n >= MAX_READS ||
	    !strstr(rr->msg, "has no more reads") ||
	    sscanf(rr->msg, "load of %u bytes at 0x%llx", &size, &addr) != 2)
		return false;
	reads[*n].addr = addr;
	reads[*n].size = size;
	reads[*n].value = next_rand(s) & 1 ? VAL_BASE + (next_rand(s) & 0x38) : next_rand(s);
	(*n)++;
	return true;
}

/* The call the last run stopped at (its last executed instruction), as the
 * answer list's next entry. False when the run did not stop at a call it
 * had no answer for. */
static bool add_call(const struct loaded *l, const struct replay_result *rr,
		     struct cex_call *calls, unsigned *n, uint64_t *s)
{
	const struct replay_step *st;
	const struct insn *in;
	int64_t id;

	if (rr->outcome != REPLAY_DIVERGED || rr->event != SPEC_EV_CALL || !rr->npath ||
	    !strstr(rr->msg, "has no more calls") || *n >= MAX_CALLS)
		return false;
	st = &rr->path[rr->npath - 1];
	in = &l->insns[st->sec][st->slot];
	id = in->ref.kind == INSN_REF_HELPER || in->ref.kind == INSN_REF_KFUNC
		     ? in->ref.index : in->imm;
	memset(&calls[*n], 0, sizeof(calls[*n]));
	calls[*n].sec = st->sec;
	calls[*n].slot = st->slot;
	calls[*n].helper = -1;
	calls[*n].kfunc = -1;
	if (in->op != ISA_CALLX && (in->ref.kind == INSN_REF_KFUNC || in->src == ISA_CALL_KFUNC))
		calls[*n].kfunc = (int)id;
	else
		calls[*n].helper = (int)id;
	calls[*n].ret = call_ret(calls[*n].helper, s);
	(*n)++;
	return true;
}

static void run_concrete(const struct loaded *l, const struct mon_check *c, uint64_t seed)
{
	const struct obj_func *f = &l->o->funcs[c->func];
	uint8_t ctx[CTX_SIZE], pkt[PKT_MAX], val[VAL_SIZE];
	struct cex_region regs[3] = {
		{ INTERP_MEM_CTX, "ctx", CTX_BASE, CTX_SIZE, ctx, true, -1 },
		{ INTERP_MEM_MAP_VALUE, "value", VAL_BASE, VAL_SIZE, val, true, -1 },
		{ INTERP_MEM_PACKET, "packet", PKT_BASE, 0, pkt, true, -1 },
	};
	struct cex_call calls[MAX_CALLS];
	struct cex_read reads[MAX_READS];
	struct cex x = { .func = c->func, .args = { CTX_BASE }, .regions = regs,
			 .nregions = 2, .calls = calls, .reads = reads, .max_steps = 20000 };
	uint32_t data, data_end, data_meta;
	struct replay_result rr;
	uint64_t s = seed;
	unsigned k;

	fill(ctx, sizeof(ctx), &s);
	fill(val, sizeof(val), &s);
	if (instrument_pkt_fields(f->prog_type, &data, &data_end, &data_meta)) {
		uint32_t len = (uint32_t)(next_rand(&s) % (PKT_MAX + 1));

		fill(pkt, len, &s);
		regs[2].size = len ? len : 1;
		x.nregions = 3;
		x.pkt = PKT_BASE;
		x.pkt_end = PKT_BASE + len;
		put32(ctx, data, PKT_BASE);
		put32(ctx, data_end, PKT_BASE + len);
		put32(ctx, data_meta, PKT_BASE);
	}
	for (k = 1; k < 5; k++)
		x.args[k] = next_rand(&s);
	for (;;) {
		if (replay_run(l, c, &x, &rr)) {
			fprintf(stderr, "fuzz_replay: %s: the run's inputs were refused: %s\n",
				c->name, rr.msg);
			abort();
		}
		if (!add_call(l, &rr, calls, &x.ncalls, &s) &&
		    !add_read(&rr, reads, &x.nreads, &s)) {
			if (trace)
				fprintf(stderr, "fuzz_replay: %s: %u calls: %s: %s\n", c->name,
					x.ncalls, replay_outcome_name(rr.outcome), rr.msg);
			replay_result_free(&rr);
			return;
		}
		replay_result_free(&rr);
	}
}

static void run(const struct loaded *l, const char *text, size_t len, struct arena *a,
		void *arg)
{
	uint64_t seed = *(const uint64_t *)arg;
	struct ssa_opts so = { .loop_bound = 2 };
	struct diag d = { .sink = fuzz_sink };
	struct mon_set *set;
	unsigned i;

	set = fuzz_resolve(l, text, len, a, &d);
	if (!set)
		return;
	for (i = 0; i < set->n && i < 4; i++) {
		const struct mon_check *c = &set->checks[i];
		struct ssa_prog *p;
		const char *bad;

		if (c->relation || c->unknown)
			continue;       /* not lifted by check_run either */
		if (instrument_lift(l, c, &so, a, &d, &p)) {
			if (d.errors != 1)
				abort();
			return;         /* the program cannot be lifted: bad input */
		}
		if (d.errors)
			abort();
		bad = ssa_verify(p);
		if (bad) {
			fprintf(stderr, "fuzz_replay: %s: ssa_verify: %s\n", c->name, bad);
			abort();
		}
		run_concrete(l, c, seed + i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = 0xcbf29ce484222325ull;   /* FNV-1a of the input */
	size_t i;

	for (i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ull;
	fuzz_one(data, size, run, &seed);
	return 0;
}
