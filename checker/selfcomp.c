/* selfcomp.c - flow affinity as a two-run property (contract in selfcomp.h).
 *
 * The program is the "old" and the "new" version of diff.c at once: one Z3
 * context, inputs shared by name, helper answers paired by question. The
 * policy unpairs the answers of the three nondeterministic helpers and
 * compares only the redirect calls besides r0; diff.c replays a difference
 * for both runs and checks their environments agree (unpaired calls left
 * out).
 */
#include "selfcomp.h"
#include "object.h"
#include "ssa.h"

#include <linux/bpf.h>

static bool is_helper(const struct ssa_insn *v, int id)
{
	return v->ref->kind == INSN_REF_HELPER && v->imm == id;
}

/* Answers shared when the question is the same: all but the random
 * number, the CPU and the NUMA node. */
static bool sc_paired(const struct ssa_insn *v)
{
	return !is_helper(v, BPF_FUNC_get_prandom_u32) &&
	       !is_helper(v, BPF_FUNC_get_smp_processor_id) &&
	       !is_helper(v, BPF_FUNC_get_numa_node_id);
}

/* Where the frame goes: the redirect calls. */
static bool sc_compared(const struct ssa_insn *v)
{
	return is_helper(v, BPF_FUNC_redirect_map) || is_helper(v, BPF_FUNC_redirect) ||
	       is_helper(v, BPF_FUNC_redirect_peer) || is_helper(v, BPF_FUNC_redirect_neigh);
}

/* bpf_redirect_map answers from its map, which BPF programs cannot
 * change: the same map, key and flags get the same answer whenever asked. */
static bool sc_any_index(const struct ssa_insn *v)
{
	return is_helper(v, BPF_FUNC_redirect_map);
}

static bool percpu_map(uint32_t type)
{
	return type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH || type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
}

/* Per-CPU storage differs by CPU, but the two runs share all memory. */
static const char *sc_unsupported(const struct ssa_prog *p)
{
	uint32_t i;

	for (i = 0; i < p->nvalues; i++) {
		const struct ssa_insn *v = p->values[i];

		if (v->kind == SSA_ADDR && v->ref->kind == INSN_REF_MAP &&
		    (uint32_t)v->ref->index < p->o->nmaps && percpu_map(p->o->maps[v->ref->index].type))
			return "the program uses a per-CPU map: its contents depend on the CPU, and the two runs share every map's contents";
		if (v->kind == SSA_CALL && (is_helper(v, BPF_FUNC_this_cpu_ptr) ||
					    is_helper(v, BPF_FUNC_per_cpu_ptr)))
			return "the program reads per-CPU kernel data (bpf_this_cpu_ptr / bpf_per_cpu_ptr): it depends on the CPU, and the two runs share kernel memory";
	}
	return NULL;
}

static const struct diff_policy selfcomp_policy = {
	.paired = sc_paired,
	.compared = sc_compared,
	.any_index = sc_any_index,
	.unsupported = sc_unsupported,
};

int selfcomp_run(const struct loaded *l, const char *path, const char *program,
		 const struct diff_opts *opts, struct diff_report *out)
{
	struct diff_opts o = *opts;

	o.policy = &selfcomp_policy;
	return diff_run(l, path, l, path, program, &o, out);
}
