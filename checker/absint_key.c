/* absint_key.c - the words a walk reads of a program and its options
 * (contract: absint.h absint_key), compared whole by check.c's walk_memo:
 * two programs with equal keys are walked alike, step for step. A field
 * absint comes to read must be written here. */
#include "absint.h"
#include "ssa.h"

#include <stdint.h>
#include <stdlib.h>

/* the words absint_key writes (one pass to count them, one to write) */
static size_t key_len(const struct ssa_prog *p)
{
	size_t n = 4 + 5 * (size_t)p->nvalues + 3 * (size_t)p->nblocks;
	uint32_t id, b;

	for (id = 0; id < p->nvalues; id++) {
		const struct ssa_insn *v = p->values[id];

		n += v->nargs + (v->kind == SSA_CALL ? 1u + v->nmem : 0u);
	}
	for (b = 0; b < p->nblocks; b++) {
		const struct ssa_block *blk = p->blocks[b];

		n += (blk->term == SSA_TERM_BRANCH) + blk->nsucc + blk->npreds + blk->ninsns;
	}
	return n;
}

size_t absint_key(const struct ssa_prog *p, const struct absint_opts *o, uint64_t **key)
{
	size_t len = key_len(p);
	uint64_t *k = malloc(sizeof(*k) * len), *at = k;
	uint32_t id, b, i;

	if (!k)
		abort();
	*at++ = (uint64_t)(uintptr_t)p->o;
	*at++ = (uint64_t)(uint32_t)p->func << 32 | p->bare;
	*at++ = (uint64_t)p->nvalues << 32 | p->nblocks;
	*at++ = (uint64_t)(o->ptr_loads != NULL) << 1 | (o->mem != NULL);
	for (id = 0; id < p->nvalues; id++) {
		const struct ssa_insn *v = p->values[id];

		*at++ = (uint64_t)v->kind | (uint64_t)v->op << 8 | (uint64_t)v->size << 16 |
			(uint64_t)v->is64 << 24 | (uint64_t)v->sx << 25 |
			(uint64_t)(o->ptr_loads ? o->ptr_loads[id] : 0) << 32 |
			(uint64_t)(o->mem ? o->mem[id] : 0) << 40;
		*at++ = (uint64_t)v->id << 32 | v->nargs;
		*at++ = (uint64_t)v->imm;
		*at++ = (uint64_t)v->ref->kind << 32 | (uint32_t)v->ref->index;
		*at++ = (uint64_t)v->ref->off;
		for (i = 0; i < v->nargs; i++)
			*at++ = v->args[i];
		if (v->kind == SSA_CALL) {
			*at++ = v->nmem;
			for (i = 0; i < v->nmem; i++)
				*at++ = (uint64_t)v->mem[i].argno << 32 | v->mem[i].first;
		}
	}
	for (b = 0; b < p->nblocks; b++) {
		const struct ssa_block *blk = p->blocks[b];

		*at++ = (uint64_t)blk->term | (uint64_t)blk->nsucc << 8 | (uint64_t)blk->ninsns << 32;
		*at++ = blk->npreds;
		if (blk->term == SSA_TERM_BRANCH)
			*at++ = (uint64_t)blk->cond_op | (uint64_t)blk->cond64 << 8;
		*at++ = (uint64_t)blk->a << 32 | blk->b;
		for (i = 0; i < blk->nsucc; i++)
			*at++ = blk->succ[i];
		for (i = 0; i < blk->npreds; i++)
			*at++ = blk->preds[i];
		for (i = 0; i < blk->ninsns; i++)
			*at++ = blk->insns[i]->id;
	}
	if ((size_t)(at - k) != len)
		abort();
	*key = k;
	return len;
}
