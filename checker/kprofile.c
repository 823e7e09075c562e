/* kprofile.c - kernel values of the `__SCX_*` .rodata variables (contract:
 * kprofile.h).
 *
 * The scx headers read sched_ext's enum values (DSQ ids, enqueue and kick
 * flags, slices) from `const volatile u64 __SCX_NAME __weak` variables that
 * user space fills from the running kernel's BTF before the load; in the ELF
 * they are 0. Left free (as .rodata is), a check would consider every value,
 * so that SCX_DSQ_LOCAL could be any DSQ. kprofile_apply() pins each such
 * variable to the value of enumerator SCX_NAME of the chosen kernel: from a
 * BTF file (--kernel-btf, or /sys/kernel/btf/vmlinux when it has sched_ext's
 * types) or from the built-in profile below. A variable whose enumerator the
 * source lacks stays free (every value: sound).
 */
#include "kprofile.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_BTF "/sys/kernel/btf/vmlinux"
#define PREFIX "__SCX_"

/* The built-in profile: Linux 6.12 - 6.18 (include/linux/sched/ext.h,
 * kernel/sched/ext.c). ENQ flags change in later kernels (SCX_ENQ_HEAD is
 * 0x10000 in 7.0): give those kernels' BTF with --kernel-btf. */
static const struct { const char *name; uint64_t v; } builtin[] = {
	{ "SCX_DSQ_FLAG_BUILTIN", 1ull << 63 },
	{ "SCX_DSQ_FLAG_LOCAL_ON", 1ull << 62 },
	{ "SCX_DSQ_INVALID", 1ull << 63 },
	{ "SCX_DSQ_GLOBAL", (1ull << 63) | 1 },
	{ "SCX_DSQ_LOCAL", (1ull << 63) | 2 },
	{ "SCX_DSQ_LOCAL_ON", (1ull << 63) | (1ull << 62) },
	{ "SCX_DSQ_LOCAL_CPU_MASK", 0xffffffffull },
	{ "SCX_SLICE_DFL", 20000000ull },
	{ "SCX_SLICE_INF", ~0ull },
	{ "SCX_KICK_IDLE", 1 },
	{ "SCX_KICK_PREEMPT", 2 },
	{ "SCX_KICK_WAIT", 4 },
	{ "SCX_ENQ_WAKEUP", 1 },
	{ "SCX_ENQ_HEAD", 1ull << 4 },
	{ "SCX_ENQ_CPU_SELECTED", 1ull << 10 },
	{ "SCX_ENQ_PREEMPT", 1ull << 32 },
	{ "SCX_ENQ_REENQ", 1ull << 40 },
	{ "SCX_ENQ_LAST", 1ull << 41 },
	{ "SCX_ENQ_CLEAR_OPSS", 1ull << 56 },
	{ "SCX_ENQ_DSQ_PRIQ", 1ull << 57 },
};

/* Enumerator NAME in B: 1 with *V, or 0. */
static int btf_enumerator(const struct btf *b, const char *name, uint64_t *v)
{
	uint32_t n = btf__type_cnt(b), id, i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(b, e[i].name_off), name)) {
					*v = btf_kflag(t) ? (uint64_t)(int64_t)e[i].val
							  : (uint64_t)(uint32_t)e[i].val;
					return 1;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(b, e[i].name_off), name)) {
					*v = btf_enum64_value(&e[i]);
					return 1;
				}
		}
	}
	return 0;
}

static bool has_scx_var(const struct object *o)
{
	uint32_t i, j;

	for (i = 0; i < o->ndatasecs; i++)
		for (j = 0; o->datasecs[i].readonly && j < o->datasecs[i].nvars; j++)
			if (!strncmp(o->datasecs[i].vars[j].name, PREFIX, strlen(PREFIX)))
				return true;
	return false;
}

int kprofile_open(const char *path, const struct object *o, struct diag *d,
		  struct kprofile *k)
{
	uint64_t v;
	int err;

	memset(k, 0, sizeof(*k));
	if (path) {
		struct stat st;

		/* btf__parse would block on a FIFO (a blocking open) and read
		 * a directory as an error of its own */
		if (stat(path, &st))
			return diag_fail(d, path, "cannot read kernel BTF: %s", strerror(errno));
		if (!S_ISREG(st.st_mode))
			return diag_fail(d, path, "cannot read kernel BTF: not a regular file");
		k->btf = btf__parse(path, NULL);
		err = libbpf_get_error(k->btf);
		if (err) {
			char why[128];

			k->btf = NULL;
			if (libbpf_strerror(err, why, sizeof(why)))
				snprintf(why, sizeof(why), "%s", strerror(-err));
			return diag_fail(d, path, "cannot read kernel BTF: %s", why);
		}
		snprintf(k->source, sizeof(k->source), "kernel BTF %s", path);
		return 0;
	}
	snprintf(k->source, sizeof(k->source), "the built-in kernel profile (Linux 6.12 - 6.18)");
	if (!has_scx_var(o))
		return 0;
	k->btf = btf__parse(DEFAULT_BTF, NULL);
	if (libbpf_get_error(k->btf)) {
		k->btf = NULL;
		return 0;
	}
	if (!btf_enumerator(k->btf, "SCX_DSQ_LOCAL", &v)) {   /* no sched_ext here */
		btf__free(k->btf);
		k->btf = NULL;
		return 0;
	}
	snprintf(k->source, sizeof(k->source), "kernel BTF " DEFAULT_BTF);
	return 0;
}

void kprofile_close(struct kprofile *k)
{
	btf__free(k->btf);
	k->btf = NULL;
}

int kprofile_value(const struct kprofile *k, const char *enumerator, uint64_t *v)
{
	size_t i;

	if (k->btf)
		return btf_enumerator(k->btf, enumerator, v);
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(builtin[i].name, enumerator)) {
			*v = builtin[i].v;
			return 1;
		}
	return 0;
}

static struct mon_expr *pin(struct arena *a, const struct object *o, uint32_t ds,
			    const struct obj_var *var, uint64_t v)
{
	struct mon_expr *g = arena_alloc(a, sizeof(*g)), *n = arena_alloc(a, sizeof(*n)),
			*eq = arena_alloc(a, sizeof(*eq));

	g->kind = MON_GLOBAL;
	g->index = o->datasecs[ds].map;
	g->datasec = (int)ds;
	g->off = var->off;
	g->size = var->size;
	n->kind = MON_NUM;
	n->num = var->size == 8 ? v : v & ((1ull << (var->size * 8)) - 1);
	eq->kind = MON_BINARY;
	eq->op = SPEC_BIN_EQ;
	eq->is_bool = true;
	eq->a = arena_alloc(a, 2 * sizeof(*eq->a));
	eq->a[0] = g;
	eq->a[1] = n;
	eq->n = 2;
	return eq;
}

int kprofile_apply(const struct object *o, const struct kprofile *k, struct mon_set *s,
		   struct arena *a, struct mon_expr ***out, unsigned *nout)
{
	struct mon_expr **pins = arena_alloc(a, 64 * sizeof(*pins));
	const char *note;
	unsigned npins = 0, i, j;
	uint32_t ds, vi;
	uint64_t v;

	for (ds = 0; ds < o->ndatasecs; ds++) {
		const struct obj_datasec *sec = &o->datasecs[ds];

		for (vi = 0; sec->readonly && vi < sec->nvars; vi++) {
			const struct obj_var *var = &sec->vars[vi];
			unsigned sz = var->size;

			if (strncmp(var->name, PREFIX, strlen(PREFIX)) ||
			    !(sz == 1 || sz == 2 || sz == 4 || sz == 8) ||
			    !kprofile_value(k, var->name + 2, &v))
				continue;
			if (npins == 64)
				break;
			pins[npins++] = pin(a, o, ds, var, v);
		}
	}
	*out = pins;
	*nout = npins;
	if (!npins && !has_scx_var(o))
		return 0;
	note = npins ? arena_printf(a, "%u __SCX_* .rodata values from %s", npins, k->source)
		     : arena_printf(a, "no __SCX_* .rodata value in %s: they are free (any value)",
				    k->source);
	for (i = 0; i < s->n; i++) {
		struct mon_check *c = &s->checks[i];
		struct mon_expr **all = arena_alloc(a, (c->nassumes + npins) * sizeof(*all));

		for (j = 0; j < c->nassumes; j++)
			all[j] = c->assumes[j];
		for (j = 0; j < npins; j++)
			all[c->nassumes + j] = pins[j];
		c->assumes = all;
		c->nassumes += npins;
		c->note = note;
	}
	return 0;
}
