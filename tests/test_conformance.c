/* test_conformance.c - every conformance vector (../shared/conformance, see
 * its README.md) through every runner, as a semantics oracle.
 *
 * Usage: test_conformance DIR
 *
 * A vector is parsed (tests/asm.h) and decoded once (insn_decode, no
 * object); then each runner of the table `runners` judges it: pass, fail,
 * or skip with a reason. Per runner the test prints every failure and skip
 * with its reason, then exactly one summary line
 *     conformance NAME: P/313 passed, S skipped
 * and fails unless every runner saw all 313 vectors, P + S == 313, no
 * vector failed and every skip gave a reason. The runners: the
 * interpreter, the Z3 encoding, and the abstract-interpretation pre-pass
 * (absint.h: r0's abstract value must contain the result; the lift has
 * already folded unsigned ALU ops on two constants, so what the pass itself
 * computes here is signed div/mod, ARSH, unary ops, jumps on constants,
 * stack bytes, atomics, and everything after a load of "-- mem").
 *
 * The environment of a vector (from the README): r1 = the address of a copy
 * of "-- mem" and r2 = its length (both 0 without mem), r10 = the top of a
 * 512-byte stack; the result is all 64 bits of r0 at the outermost exit.
 * Helper 5 (callx.data, call_unwind_fail.data) is uBPF's "unwind" helper,
 * registered by uBPF's test harness as `unwind(x) = x` at index 5 and
 * marked as the unwind function: it returns its argument r1, and when it
 * returns 0 the program stops at once with r0 = 0. Both vectors pass
 * r1 = -1, so only the "continue" branch is exercised; they then expect 2.
 */
#include "absint.h"
#include "asm.h"
#include "interp.h"
#include "smt.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVECTORS 313
#define UNWIND_HELPER 5

struct vector {
	const char *name;            /* file name */
	struct asm_test t;
	struct insn *insns;          /* decoded, t.ninsns slots */
	bool decoded;
	char decode_msg[256];        /* why decoding failed */
};

enum verdict { V_PASS, V_FAIL, V_SKIP };

/* A runner judges one vector; WHY (LEN bytes) must say why for a fail or a
 * skip. */
struct runner {
	const char *name;
	enum verdict (*run)(const struct vector *v, char *why, size_t len);
};

/* ---- the interpreter runner ------------------------------------------- */

static int conf_call(void *arg, struct interp *ip, const struct insn *in,
		     int64_t id, const uint64_t args[5], uint64_t *ret)
{
	(void)arg;
	(void)in;
	if (id != UNWIND_HELPER) {
		interp_error(ip, INTERP_UNSUPPORTED, "helper %lld is not part of "
			     "the conformance environment", (long long)id);
		return -1;
	}
	*ret = args[0];
	return *ret == 0 ? INTERP_CALL_EXIT : INTERP_CALL_OK;
}

static enum verdict run_interp(const struct vector *v, char *why, size_t len)
{
	const struct interp_env env = { .call = conf_call };
	struct insn *secs[1] = { v->insns };
	uint32_t nslots[1] = { v->t.ninsns };
	struct interp_result r;
	uint64_t args[5] = {0};
	struct interp ip;
	bool want_error = v->t.error != NULL;
	enum verdict verdict;

	if (!v->decoded) {
		if (want_error)
			return V_PASS;
		snprintf(why, len, "decode: %s", v->decode_msg);
		return V_FAIL;
	}
	if (interp_init(&ip, secs, nslots, 1, &env) < 0) {
		snprintf(why, len, "interp_init failed");
		return V_FAIL;
	}
	if (v->t.has_mem && v->t.mem_len) {
		int m = interp_add_region(&ip, INTERP_MEM_USER, "mem", 0,
					  (uint32_t)v->t.mem_len, NULL, true);

		if (m < 0) {
			snprintf(why, len, "cannot add the mem region");
			interp_fini(&ip);
			return V_FAIL;
		}
		memcpy(interp_region(&ip, m)->bytes, v->t.mem, v->t.mem_len);
		args[0] = interp_region(&ip, m)->base;
		args[1] = v->t.mem_len;
	}
	interp_run(&ip, 0, 0, args, &r);
	if (want_error)
		verdict = r.status == INTERP_EXIT ? V_FAIL : V_PASS;
	else if (r.status != INTERP_EXIT)
		verdict = V_FAIL;
	else
		verdict = r.r0 == v->t.result ? V_PASS : V_FAIL;
	if (verdict == V_FAIL && want_error)
		snprintf(why, len, "expected the error '%s', got exit r0 = "
			 "0x%llx", v->t.error, (unsigned long long)r.r0);
	else if (verdict == V_FAIL && r.status != INTERP_EXIT)
		snprintf(why, len, "%s: %s", interp_status_name(r.status),
			 r.msg);
	else if (verdict == V_FAIL)
		snprintf(why, len, "r0 = 0x%llx, expected 0x%llx",
			 (unsigned long long)r.r0,
			 (unsigned long long)v->t.result);
	interp_fini(&ip);
	return verdict;
}

/* ---- the smt runner (the Z3 encoding, smt.h) -------------------------- */

/* The vector's environment in the solver: r1 = SMT_MEM_ADDR, whose bytes
 * in mem0 are the "-- mem" bytes, r2 = their length (both free without
 * mem). A vector passes when no unwinding marker is reachable, an exit is
 * reachable, and "an exit is reached with r0 != result" is UNSAT. While a
 * marker is reachable the vector is lifted again with a bigger loop bound.
 * Helper calls are over-approximated (r0 any value): helper 5's "stop when
 * it returns 0" path is not modelled, so call_unwind_fail.data proves the
 * result for every helper return value, which includes the real one. */
#define SMT_MEM_ADDR 0x100000000ull
#define SMT_QUERY_MS 20000u

/* One lift + encoding under loop bound BOUND. Returns true when a bigger
 * bound is needed. */
static bool smt_try(const struct vector *v, unsigned bound, enum verdict *out,
		    char *why, size_t len)
{
	struct arena *a = arena_new();
	struct ssa_opts o = { .loop_bound = bound };
	struct smt_input in = {0};
	struct diag d = {0};
	struct ssa_prog *p = NULL;
	struct smt_prog *e = NULL;
	struct smt_result r = {0};
	struct smt *s = NULL;
	uint64_t got = 0;
	bool again = false;

	*out = V_FAIL;
	if (ssa_build_code(v->insns, v->t.ninsns, &o, a, &d, &p) < 0) {
		snprintf(why, len, "ssa_build_code failed");
		goto out;
	}
	if (p->unsupported) {
		*out = V_SKIP;
		snprintf(why, len, "the lift does not model it: %s", p->unsupported);
		goto out;
	}
	s = smt_new();
	if (!s) {
		snprintf(why, len, "no Z3 context");
		goto out;
	}
	if (v->t.has_mem) {
		in.reg[1] = smt_bv64(s, SMT_MEM_ADDR);
		in.reg[2] = smt_bv64(s, v->t.mem_len);
	}
	if (smt_encode(s, p, &in, a, &e) < 0) {
		snprintf(why, len, "encode: %s", smt_error(s) ? smt_error(s) : "failed");
		goto out;
	}
	if (v->t.has_mem)
		smt_assume_bytes(s, e, SMT_MEM_ADDR, v->t.mem, v->t.mem_len);
	smt_prove(s, smt_not(s, e->reach_unwind), SMT_QUERY_MS, &r);
	if (r.verdict != SMT_HOLDS) {
		again = r.verdict == SMT_VIOLATED;
		snprintf(why, len, "loop bound %u: unwinding marker %s%s", bound,
			 again ? "reachable" : "unknown: ", r.reason);
		goto out;
	}
	smt_prove(s, smt_not(s, e->reach_exit), SMT_QUERY_MS, &r);
	smt_release(s, &r);
	if (r.verdict != SMT_VIOLATED) {
		snprintf(why, len, "no exit is reachable (%s%s%s)", smt_verdict_name(r.verdict),
			 r.reason[0] ? ": " : "", r.reason);
		goto out;
	}
	smt_prove(s, smt_implies(s, e->reach_exit, smt_eq(s, e->result, smt_bv64(s, v->t.result))),
		  SMT_QUERY_MS, &r);
	if (r.verdict == SMT_HOLDS) {
		*out = V_PASS;
	} else if (r.verdict == SMT_VIOLATED) {
		smt_eval_u64(s, r.model, e->result, &got);
		snprintf(why, len, "r0 can be 0x%llx, expected 0x%llx",
			 (unsigned long long)got, (unsigned long long)v->t.result);
	} else {
		snprintf(why, len, "unknown: %s", r.reason);
	}
out:
	if (s) {
		smt_release(s, &r);
		smt_free(s);
	}
	arena_free(a);
	return again;
}

/* A lift-based runner: TRY at growing loop bounds while it asks for more
 * (the walk or the encoding met an unwinding marker). */
typedef bool (*try_fn)(const struct vector *v, unsigned bound, enum verdict *out, char *why,
		       size_t len);

static enum verdict run_bounded(const struct vector *v, try_fn try, char *why, size_t len)
{
	static const unsigned bounds[] = { SSA_DEFAULT_LOOP_BOUND, 256, 1024 };
	enum verdict verdict = V_FAIL;
	size_t i;

	if (v->t.error) {
		snprintf(why, len, "expects an error: not a property of r0");
		return V_SKIP;
	}
	if (!v->decoded) {
		snprintf(why, len, "decode: %s", v->decode_msg);
		return V_FAIL;
	}
	for (i = 0; i < ARRAY_SIZE(bounds); i++)
		if (!try(v, bounds[i], &verdict, why, len))
			break;
	return verdict;
}

static enum verdict run_smt(const struct vector *v, char *why, size_t len)
{
	return run_bounded(v, smt_try, why, len);
}

/* ---- the absint runner (the pre-pass's domain, absint.h) ------------- */

/* The pre-pass walks every path of the lift: a vector passes when the walk
 * completes (no unwinding marker, in the budget), reaches an exit, and the
 * join of r0 over the exits contains the expected result. That is the
 * soundness of every transfer function the vector uses; memory is "any
 * value" of the load's width, so vectors reading "-- mem" are only checked
 * for containment; every other vector must give r0 as exactly the expected
 * constant (all its values are constants: folding must be exact). */

static unsigned absint_exact;

static bool absint_try(const struct vector *v, unsigned bound, enum verdict *out, char *why,
		       size_t len)
{
	struct arena *a = arena_new();
	struct ssa_opts o = { .loop_bound = bound };
	struct diag d = {0};
	struct ssa_prog *p = NULL;
	struct absint_result r;
	char buf[160];
	uint64_t c;
	bool again = false;

	*out = V_FAIL;
	if (ssa_build_code(v->insns, v->t.ninsns, &o, a, &d, &p) < 0) {
		snprintf(why, len, "ssa_build_code failed");
	} else if (p->unsupported) {
		*out = V_SKIP;
		snprintf(why, len, "the lift does not model it: %s", p->unsupported);
	} else {
		absint_prove(p, NULL, &r);
		absint_format(&r.r0, buf, sizeof(buf));
		again = r.verdict != ABSINT_PROVED && r.unwinds;
		if (r.verdict != ABSINT_PROVED)
			snprintf(why, len, "loop bound %u: %s", bound, r.reason);
		else if (!r.exits)
			snprintf(why, len, "no exit reached");
		else if (!absint_contains(&r.r0, v->t.result))
			snprintf(why, len, "r0 is %s, which lacks the expected 0x%llx", buf,
				 (unsigned long long)v->t.result);
		else
			*out = V_PASS;
		if (*out == V_PASS && absint_is_const(&r.r0, &c)) {
			absint_exact++;
		} else if (*out == V_PASS && !v->t.has_mem) {
			*out = V_FAIL;
			snprintf(why, len, "r0 is %s: not the constant 0x%llx (no memory is read)",
				 buf, (unsigned long long)v->t.result);
		}
	}
	arena_free(a);
	return again;
}

static enum verdict run_absint(const struct vector *v, char *why, size_t len)
{
	return run_bounded(v, absint_try, why, len);
}

static const struct runner runners[] = {
	{ "interpreter", run_interp },
	{ "smt", run_smt },
	{ "absint", run_absint },
};

/* ---- loading ---------------------------------------------------------- */

static void keep_first(void *arg, const struct diag_msg *m)
{
	char *buf = arg;

	if (!buf[0])
		snprintf(buf, 256, "%s", m->text);
}

static int load_vector(const char *dir, const char *name, struct vector *v)
{
	char path[4096], err[512];
	struct diag d = { keep_first, v->decode_msg, 0, 0, 0 };

	memset(v, 0, sizeof(*v));
	v->name = name;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (asm_parse_file(path, &v->t, err, sizeof(err)) < 0) {
		printf("ERROR %s: %s\n", name, err);
		return -1;
	}
	if (!v->t.has_result && !v->t.error) {
		printf("ERROR %s: no -- result\n", name);
		return -1;
	}
	v->insns = calloc(v->t.ninsns ? v->t.ninsns : 1, sizeof(*v->insns));
	if (!v->insns)
		abort();
	v->decoded = v->t.ninsns && insn_decode(v->t.insns, v->t.ninsns,
					   v->insns, name, "program", &d) == 0;
	if (!v->t.ninsns)
		snprintf(v->decode_msg, sizeof(v->decode_msg), "empty program");
	return 0;
}

static void free_vector(struct vector *v)
{
	free(v->insns);
	asm_test_free(&v->t);
}

static int is_data(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && strcmp(e->d_name + n - 5, ".data") == 0;
}

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct dirent **names;
	struct vector *vecs;
	unsigned pass[ARRAY_SIZE(runners)] = {0}, skip[ARRAY_SIZE(runners)] = {0};
	unsigned fail[ARRAY_SIZE(runners)] = {0};
	int n, i, loaded = 0, bad = 0;
	size_t k;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CONFORMANCE_DIR\n", argv[0]);
		return 2;
	}
	n = scandir(argv[1], &names, is_data, alphasort);
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	vecs = calloc(n ? (size_t)n : 1, sizeof(*vecs));
	if (!vecs)
		abort();
	for (i = 0; i < n; i++)
		if (load_vector(argv[1], names[i]->d_name, &vecs[loaded]) == 0)
			loaded++;
		else
			bad++;
	for (k = 0; k < ARRAY_SIZE(runners); k++) {
		for (i = 0; i < loaded; i++) {
			char why[512] = "";
			enum verdict v = runners[k].run(&vecs[i], why, sizeof(why));

			if (v == V_PASS) {
				pass[k]++;
				continue;
			}
			if (!why[0]) {
				printf("FAIL %s [%s]: %s without a reason\n",
				       vecs[i].name, runners[k].name,
				       v == V_SKIP ? "skipped" : "failed");
				fail[k]++;
			} else if (v == V_SKIP) {
				printf("SKIP %s [%s]: %s\n", vecs[i].name,
				       runners[k].name, why);
				skip[k]++;
			} else {
				printf("FAIL %s [%s]: %s\n", vecs[i].name,
				       runners[k].name, why);
				fail[k]++;
			}
		}
	}
	if (n != NVECTORS)
		printf("ERROR: found %d vectors in %s, expected %d\n", n,
		       argv[1], NVECTORS);
	for (k = 0; k < ARRAY_SIZE(runners); k++) {
		printf("conformance %s: %u/%d passed, %u skipped\n",
		       runners[k].name, pass[k], NVECTORS, skip[k]);
		if (fail[k] || pass[k] + skip[k] != NVECTORS)
			bad++;
	}
	printf("conformance absint: r0 exact in %u\n", absint_exact);
	for (i = 0; i < loaded; i++)
		free_vector(&vecs[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(vecs);
	return bad || n != NVECTORS ? 1 : 0;
}
