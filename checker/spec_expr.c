/* spec_expr.c - spec expressions: names, types and constants (monitor.h),
 * and what resolution knows about program types and calls.
 *
 * Type rules: every expression is bool or an integer (64-bit); `sign` says
 * it has a signed type (a cast to s8..s64, a signed state variable, or an
 * operator with a signed operand). Arithmetic and bitwise operators, unary
 * - and ~, and the pointer of a memory read need integers; comparisons,
 * `in`, && || => and ! take both and give bool.
 *
 * Context layouts come from the installed <linux/bpf.h> by offsetof/sizeof,
 * so they are exactly the kernel ABI the object was built for. Array fields
 * are split into one field per element: cb[5] is cb0..cb4, remote_ip6[4]
 * is remote_ip6_0..remote_ip6_3 (an underscore when the name ends in a
 * digit). Pointer fields (flow_keys, sk) are not scalars and are left out.
 * kprobe contexts are x86-64's struct pt_regs whatever the host is: the
 * layout is written out below (checked against <asm/ptrace.h> on x86-64).
 */
#include "resolve_priv.h"

#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------------- */
void resolve_fail(struct resolver *r, const char *file, struct spec_pos at,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(r->d, DIAG_ERROR, file, at.line, at.col, fmt, ap);
	va_end(ap);
	longjmp(r->fail, 1);
}

/* ---- program types and calls ------------------------------------------------ */
#define FSIZE(type, f) ((uint32_t)sizeof(((type *)0)->f))
#define FIELD(type, f) { #f, offsetof(type, f), FSIZE(type, f), false }
#define PTR(type, f) { #f, offsetof(type, f), FSIZE(type, f), true }
#define ELEM(type, f, name, i) \
	{ name, offsetof(type, f) + (i) * FSIZE(type, f[0]), FSIZE(type, f[0]), false }

static const struct mon_ctx_field xdp_fields[] = {
	PTR(struct xdp_md, data),
	PTR(struct xdp_md, data_end),
	PTR(struct xdp_md, data_meta),
	FIELD(struct xdp_md, ingress_ifindex),
	FIELD(struct xdp_md, rx_queue_index),
	FIELD(struct xdp_md, egress_ifindex),
};

#define SKB(f) FIELD(struct __sk_buff, f)
#define SKB_ELEM(f, name, i) ELEM(struct __sk_buff, f, name, i)
static const struct mon_ctx_field skb_fields[] = {
	SKB(len), SKB(pkt_type), SKB(mark), SKB(queue_mapping),
	SKB(protocol), SKB(vlan_present), SKB(vlan_tci), SKB(vlan_proto),
	SKB(priority), SKB(ingress_ifindex), SKB(ifindex), SKB(tc_index),
	SKB_ELEM(cb, "cb0", 0), SKB_ELEM(cb, "cb1", 1), SKB_ELEM(cb, "cb2", 2),
	SKB_ELEM(cb, "cb3", 3), SKB_ELEM(cb, "cb4", 4),
	SKB(hash), SKB(tc_classid),
	PTR(struct __sk_buff, data), PTR(struct __sk_buff, data_end),
	SKB(napi_id), SKB(family), SKB(remote_ip4), SKB(local_ip4),
	SKB_ELEM(remote_ip6, "remote_ip6_0", 0),
	SKB_ELEM(remote_ip6, "remote_ip6_1", 1),
	SKB_ELEM(remote_ip6, "remote_ip6_2", 2),
	SKB_ELEM(remote_ip6, "remote_ip6_3", 3),
	SKB_ELEM(local_ip6, "local_ip6_0", 0),
	SKB_ELEM(local_ip6, "local_ip6_1", 1),
	SKB_ELEM(local_ip6, "local_ip6_2", 2),
	SKB_ELEM(local_ip6, "local_ip6_3", 3),
	SKB(remote_port), SKB(local_port),
	PTR(struct __sk_buff, data_meta),
	SKB(tstamp), SKB(wire_len), SKB(gso_segs), SKB(gso_size),
	SKB(tstamp_type), SKB(hwtstamp),
};

/* x86-64 struct pt_regs: 21 8-byte registers in this order. Each has its
 * uapi name (<asm/ptrace.h> without __KERNEL__) and the kernel's name,
 * which bpf_tracing.h's PT_REGS_PARM1() etc. use. */
static const struct mon_ctx_field regs_fields[] = {
	{ "r15", 0, 8, false }, { "r14", 8, 8, false }, { "r13", 16, 8, false },
	{ "r12", 24, 8, false }, { "bp", 32, 8, false }, { "bx", 40, 8, false },
	{ "r11", 48, 8, false }, { "r10", 56, 8, false }, { "r9", 64, 8, false },
	{ "r8", 72, 8, false }, { "ax", 80, 8, false }, { "cx", 88, 8, false },
	{ "dx", 96, 8, false }, { "si", 104, 8, false }, { "di", 112, 8, false },
	{ "orig_ax", 120, 8, false }, { "ip", 128, 8, false },
	{ "cs", 136, 8, false }, { "flags", 144, 8, false },
	{ "sp", 152, 8, false }, { "ss", 160, 8, false },
	/* the uapi names of the same registers (r8..r15, cs, ss are shared) */
	{ "rbp", 32, 8, false }, { "rbx", 40, 8, false }, { "rax", 80, 8, false },
	{ "rcx", 88, 8, false }, { "rdx", 96, 8, false }, { "rsi", 104, 8, false },
	{ "rdi", 112, 8, false }, { "orig_rax", 120, 8, false },
	{ "rip", 128, 8, false }, { "eflags", 144, 8, false },
	{ "rsp", 152, 8, false },
};

#if defined(__x86_64__)
#include <asm/ptrace.h>
_Static_assert(offsetof(struct pt_regs, rdi) == 112, "x86-64 pt_regs layout");
_Static_assert(offsetof(struct pt_regs, rip) == 128, "x86-64 pt_regs layout");
_Static_assert(sizeof(struct pt_regs) == 168, "x86-64 pt_regs layout");
#endif

const struct mon_ctx_field *mon_ctx_fields(enum bpf_prog_type t, unsigned *n)
{
	switch ((int)t) { /* a subset of the program types */
	case BPF_PROG_TYPE_XDP:
		*n = ARRAY_SIZE(xdp_fields);
		return xdp_fields;
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_CGROUP_SKB:
		*n = ARRAY_SIZE(skb_fields);
		return skb_fields;
	case BPF_PROG_TYPE_KPROBE:
		*n = ARRAY_SIZE(regs_fields);
		return regs_fields;
	default:
		*n = 0;
		return NULL;
	}
}

bool mon_prog_has_pkt(enum bpf_prog_type t)
{
	switch ((int)t) { /* a subset of the program types */
	case BPF_PROG_TYPE_XDP:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_LWT_SEG6LOCAL:
	case BPF_PROG_TYPE_SK_SKB:
		return true;
	default:
		return false;
	}
}

const char *mon_prog_type_name(enum bpf_prog_type t)
{
	const char *s = libbpf_bpf_prog_type_str(t);

	return s ? s : "unknown";
}

bool mon_kfunc_matches(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) &&
	       (sym[n] == 0 || !strncmp(sym + n, "___", 3));
}

static bool has_int(const int *v, unsigned n, int x)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool mon_calls_match(const struct mon_calls *c, int helper, int kfunc)
{
	if (c->any)
		return true;
	if (helper >= 0)
		return has_int(c->helpers, c->nhelpers, helper);
	if (kfunc >= 0)
		return has_int(c->kfuncs, c->nkfuncs, kfunc);
	return false;
}

/* ---- constant folding ------------------------------------------------------ */
unsigned spec_type_width(enum spec_type t)
{
	switch (t) {
	case SPEC_TY_BOOL:
	case SPEC_TY_U8:
	case SPEC_TY_S8:
		return 1;
	case SPEC_TY_U16:
	case SPEC_TY_S16:
		return 2;
	case SPEC_TY_U32:
	case SPEC_TY_S32:
		return 4;
	case SPEC_TY_U64:
	case SPEC_TY_S64:
		return 8;
	}
	return 8;
}

bool spec_type_signed(enum spec_type t)
{
	return t >= SPEC_TY_S8;
}

/* MON_CAST's semantics: truncate, then sign-extend if signed. */
static uint64_t cast_eval(enum spec_type t, uint64_t x)
{
	unsigned bits = spec_type_width(t) * 8;
	uint64_t m;

	if (t == SPEC_TY_BOOL)
		return x != 0;
	if (bits == 64)
		return x;
	m = (UINT64_C(1) << bits) - 1;
	x &= m;
	if (spec_type_signed(t) && (x >> (bits - 1)))
		x |= ~m;
	return x;
}

bool mon_less(bool sign, uint64_t x, uint64_t y)
{
	return sign ? (int64_t)x < (int64_t)y : x < y;
}

static uint64_t div_eval(bool sign, bool mod, uint64_t x, uint64_t y)
{
	if (!y)
		return mod ? x : 0;             /* BPF's rules */
	if (!sign)
		return mod ? x % y : x / y;
	if (y == UINT64_MAX)                    /* -1: no INT64_MIN / -1 trap */
		return mod ? 0 : -x;
	return mod ? (uint64_t)((int64_t)x % (int64_t)y)
		   : (uint64_t)((int64_t)x / (int64_t)y);
}

uint64_t mon_binop_eval(enum spec_binop op, bool sign, uint64_t x, uint64_t y)
{
	switch (op) {
	case SPEC_BIN_MUL: return x * y;
	case SPEC_BIN_DIV: return div_eval(sign, false, x, y);
	case SPEC_BIN_MOD: return div_eval(sign, true, x, y);
	case SPEC_BIN_ADD: return x + y;
	case SPEC_BIN_SUB: return x - y;
	case SPEC_BIN_SHL: return x << (y & 63);
	case SPEC_BIN_SHR:
		return sign ? (uint64_t)((int64_t)x >> (y & 63)) : x >> (y & 63);
	case SPEC_BIN_LT: return mon_less(sign, x, y);
	case SPEC_BIN_LE: return !mon_less(sign, y, x);
	case SPEC_BIN_GT: return mon_less(sign, y, x);
	case SPEC_BIN_GE: return !mon_less(sign, x, y);
	case SPEC_BIN_EQ: return x == y;
	case SPEC_BIN_NE: return x != y;
	case SPEC_BIN_BAND: return x & y;
	case SPEC_BIN_BXOR: return x ^ y;
	case SPEC_BIN_BOR: return x | y;
	case SPEC_BIN_LAND: return x && y;
	case SPEC_BIN_LOR: return x || y;
	case SPEC_BIN_IMPLIES: return !x || y;
	}
	return 0;
}

static bool fold(const struct mon_expr *e, uint64_t *v);

static bool fold_all(const struct mon_expr *e, uint64_t *v)
{
	for (unsigned i = 0; i < e->n; i++)
		if (!fold(e->a[i], &v[i]))
			return false;
	return true;
}

/* The value of E if it is constant. */
static bool fold(const struct mon_expr *e, uint64_t *v)
{
	uint64_t x[3];
	unsigned i;

	if (e->kind == MON_NUM) {
		*v = e->num;
		return true;
	}
	if (e->kind == MON_IN_SET) {
		if (!fold(e->a[0], &x[0]))
			return false;
		*v = 0;
		for (i = 1; i < e->n; i++) {
			if (!fold(e->a[i], &x[1]))
				return false;
			*v |= x[0] == x[1];
		}
		return true;
	}
	if (e->n > 3 || !fold_all(e, x))
		return false;
	switch ((int)e->kind) { /* the operators; leaves are not constant */
	case MON_UNARY:
		*v = e->op == SPEC_UN_NEG ? -x[0] : e->op == SPEC_UN_LNOT ? !x[0] : ~x[0];
		return true;
	case MON_BINARY:
		*v = mon_binop_eval((enum spec_binop)e->op, e->sign, x[0], x[1]);
		return true;
	case MON_COND:
		*v = x[0] ? x[1] : x[2];
		return true;
	case MON_CAST:
		*v = cast_eval(e->type, x[0]);
		return true;
	case MON_IN_RANGE:
		*v = !mon_less(e->sign, x[0], x[1]) && !mon_less(e->sign, x[2], x[0]);
		return true;
	default:
		return false;
	}
}

static const char *num_text(struct resolver *r, uint64_t v, bool sign)
{
	if (sign || (int64_t)v < 0)
		return arena_printf(r->a, "%" PRId64, (int64_t)v);
	return arena_printf(r->a, "%" PRIu64, v);
}

/* ---- expressions ----------------------------------------------------------- */
static struct mon_expr *mk(struct resolver *r, enum mon_ekind k,
			   struct spec_pos at, unsigned n)
{
	struct mon_expr *m = arena_new_array(r->a, struct mon_expr, 1);

	m->kind = k;
	m->pos = at;
	m->n = n;
	if (n)
		m->a = arena_new_array(r->a, struct mon_expr *, n);
	return m;
}

static struct mon_expr *mknum(struct resolver *r, uint64_t v, struct spec_pos at)
{
	struct mon_expr *m = mk(r, MON_NUM, at, 0);

	m->num = v;
	return m;
}

static void not_const(struct resolver *r, struct spec_pos at)
	__attribute__((noreturn));
static void not_const(struct resolver *r, struct spec_pos at)
{
	fail(r, at, "%s: not a constant expression", r->what);
}

/* The lookups test the first byte before a call to strcmp (a call per
 * const of the file was 0.4% of tc_classifier). */
const struct cst *resolve_find_const(const struct sfile *f, const char *name)
{
	const struct cst *c = f->consts.data;

	for (size_t i = 0; i < f->consts.len; i++)
		if (c[i].name[0] == name[0] && !strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

int resolve_find_var(const struct resolver *r, const char *name)
{
	const struct mon_var *v = r->vars.data;

	for (size_t i = 0; i < r->vars.len; i++)
		if (v[i].name[0] == name[0] && !strcmp(v[i].name, name))
			return (int)i;
	return -1;
}

static struct mon_expr *rstate(struct resolver *r, const struct spec_expr *e,
			       int i)
{
	const struct mon_var *v = &((const struct mon_var *)r->vars.data)[i];
	struct mon_expr *m;

	if ((unsigned)i >= r->nvisible)
		fail(r, e->pos, "state variable '%s' is used before it is initialised",
		     e->name);
	m = mk(r, MON_STATE, e->pos, 0);
	m->index = i;
	m->is_bool = v->type == SPEC_TY_BOOL;
	m->sign = v->sign;
	return m;
}

static const struct obj_func *prog(const struct resolver *r)
{
	return &r->o->funcs[r->func];
}

static struct mon_expr *rpkt(struct resolver *r, const struct spec_expr *e,
			     enum mon_ekind k)
{
	const struct obj_func *fn = prog(r);

	if (!mon_prog_has_pkt(fn->prog_type))
		fail(r, e->pos, "'%s' is not available in program '%s' (type %s has no packet)",
		     e->name, fn->name, mon_prog_type_name(fn->prog_type));
	return mk(r, k, e->pos, 0);
}

static int arg_index(const char *name)
{
	if (strncmp(name, "arg", 3) || name[3] < '1' || name[3] > '5' || name[4])
		return 0;
	return name[3] - '0';
}

/* name -> state | const | insns | ret | argN | pkt | pkt_end | pkt_len | pkt_written */
static struct mon_expr *rname(struct resolver *r, const struct spec_expr *e)
{
	const struct cst *c = resolve_find_const(r->f, e->name);
	int i = r->scope == SC_CONST ? -1 : resolve_find_var(r, e->name);
	struct mon_expr *m;

	if (i >= 0)
		return rstate(r, e, i);
	if (c)
		return mknum(r, c->val, e->pos);
	if (r->scope == SC_CONST)
		not_const(r, e->pos);
	if (!strcmp(e->name, "insns")) {
		r->c->uses_insns = true;
		return mk(r, MON_INSNS, e->pos, 0);
	}
	if (!strcmp(e->name, "ret")) {
		if (r->scope != SC_EVENT || (r->ev != SPEC_EV_EXIT && r->ev != SPEC_EV_RETURN))
			fail(r, e->pos, "'ret' is only available in 'on exit' and 'on return' handlers");
		return mk(r, MON_RET, e->pos, 0);
	}
	if (arg_index(e->name)) {
		if (r->scope != SC_EVENT || (r->ev != SPEC_EV_CALL && r->ev != SPEC_EV_RETURN))
			fail(r, e->pos, "'%s' is only available in 'on call' and 'on return' handlers",
			     e->name);
		m = mk(r, MON_ARG, e->pos, 0);
		m->index = arg_index(e->name);
		return m;
	}
	if (!strcmp(e->name, "pkt"))
		return rpkt(r, e, MON_PKT);
	if (!strcmp(e->name, "pkt_end"))
		return rpkt(r, e, MON_PKT_END);
	if (!strcmp(e->name, "pkt_len"))
		return rpkt(r, e, MON_PKT_LEN);
	if (!strcmp(e->name, "pkt_written")) {
		m = rpkt(r, e, MON_PKT_WRITTEN);
		m->is_bool = true;
		return m;
	}
	fail(r, e->pos, "unknown name '%s'", e->name);
}

/* ctx.FIELD: by the program type's context struct */
static struct mon_expr *rctx(struct resolver *r, const struct spec_expr *e)
{
	const struct obj_func *fn = prog(r);
	const struct mon_ctx_field *t;
	struct mon_expr *m;
	unsigned n;

	t = mon_ctx_fields(fn->prog_type, &n);
	if (!t)
		fail(r, e->pos, "program type %s has no context fields in v1",
		     mon_prog_type_name(fn->prog_type));
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(t[i].name, e->field))
			continue;
		m = mk(r, MON_CTX, e->pos, 0);
		m->off = t[i].off;
		m->size = t[i].size;
		return m;
	}
	fail(r, e->pos, "program type %s has no context field '%s'",
	     mon_prog_type_name(fn->prog_type), e->field);
}

/* global.NAME: a variable of one of the object's data sections */
static struct mon_expr *rglobal(struct resolver *r, const struct spec_expr *e)
{
	const struct object *o = r->o;
	const struct obj_var *var = NULL;
	struct mon_expr *m;
	int ds = -1;

	for (uint32_t d = 0; d < o->ndatasecs; d++)
		for (uint32_t i = 0; i < o->datasecs[d].nvars; i++) {
			if (strcmp(o->datasecs[d].vars[i].name, e->field))
				continue;
			if (var)
				fail(r, e->pos, "ambiguous global '%s': in %s and %s",
				     e->field, o->datasecs[ds].name,
				     o->datasecs[d].name);
			var = &o->datasecs[d].vars[i];
			ds = (int)d;
		}
	if (!var)
		fail(r, e->pos, "unknown global '%s'", e->field);
	if (var->size != 1 && var->size != 2 && var->size != 4 && var->size != 8)
		fail(r, e->pos, "global %s is %u bytes; only 1/2/4/8-byte globals can be read",
		     e->field, var->size);
	m = mk(r, MON_GLOBAL, e->pos, 0);
	m->index = o->datasecs[ds].map;
	m->datasec = ds;
	m->off = var->off;
	m->size = var->size;
	return m;
}

static struct mon_expr *rmember(struct resolver *r, const struct spec_expr *e)
{
	if (r->scope == SC_CONST)
		not_const(r, e->pos);
	if (!strcmp(e->name, "ctx"))
		return rctx(r, e);
	if (!strcmp(e->name, "global"))
		return rglobal(r, e);
	fail(r, e->pos, "unknown name '%s.%s'", e->name, e->field);
}

/* The calls NAMES (helpers or kfuncs) match; AT for the errors. */
struct mon_calls resolve_calls(struct resolver *r, const char *const *names,
			       size_t n, bool any, struct spec_pos at)
{
	struct vec h = {0}, k = {0};
	struct mon_calls c = { .any = any };

	for (size_t i = 0; i < n; i++) {
		int id = helper_id(names[i]);
		bool found = id > 0;

		if (found)
			*PUSH(r, h, int) = id;
		for (uint32_t j = 0; j < r->o->nkfuncs; j++)
			if (mon_kfunc_matches(r->o->kfuncs[j].name, names[i])) {
				*PUSH(r, k, int) = (int)j;
				found = true;
			}
		if (!found && !strncmp(names[i], "bpf_", 4))
			fail(r, at, "unknown helper '%s'", names[i]);
	}
	c.helpers = h.data;
	c.nhelpers = (unsigned)h.len;
	c.kfuncs = k.data;
	c.nkfuncs = (unsigned)k.len;
	return c;
}

/* called(NAME): one counter per distinct name in a check */
static struct mon_expr *rcalled(struct resolver *r, const struct spec_expr *e)
{
	struct mon_counter *cs = r->counters.data, *c;
	struct mon_expr *m = mk(r, MON_CALLED, e->pos, 0);
	const char *name;
	size_t i;

	if (e->nargs != 1 || e->args[0]->kind != SPEC_E_NAME)
		fail(r, e->pos, "called() takes one helper or kfunc name");
	name = e->args[0]->name;
	for (i = 0; i < r->counters.len; i++)
		if (!strcmp(cs[i].name, name))
			break;
	if (i == r->counters.len) {
		c = PUSH(r, r->counters, struct mon_counter);
		c->name = name;
		c->calls = resolve_calls(r, &name, 1, false, e->args[0]->pos);
	}
	m->index = (int)i;
	return m;
}

static const struct { const char *name; unsigned size; bool be; } loads[] = {
	{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false },
	{ "u64", 8, false }, { "be16", 2, true }, { "be32", 4, true },
	{ "be64", 8, true },
};

/* call -> LOAD '(' expr ')' | 'called' '(' NAME ')' */
static struct mon_expr *rcall(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m;

	if (r->scope == SC_CONST)
		not_const(r, e->pos);
	if (!strcmp(e->callee, "called"))
		return rcalled(r, e);
	for (size_t i = 0; i < ARRAY_SIZE(loads); i++) {
		if (strcmp(e->callee, loads[i].name))
			continue;
		if (e->nargs != 1)
			fail(r, e->pos, "%s() takes exactly one argument", e->callee);
		m = mk(r, MON_LOAD, e->pos, 1);
		m->size = loads[i].size;
		m->be = loads[i].be;
		m->a[0] = resolve_expr(r, e->args[0]);
		if (m->a[0]->is_bool)
			fail(r, e->args[0]->pos, "argument of %s() is a bool, not a pointer",
			     e->callee);
		return m;
	}
	fail(r, e->pos, "unknown function '%s'", e->callee);
}

static void need_int(struct resolver *r, const struct mon_expr *m,
		     const char *op, bool unary)
{
	if (m->is_bool)
		fail(r, m->pos, "operator '%s' needs %s, not bool", op,
		     unary ? "an integer operand" : "integer operands");
}

static struct mon_expr *runary(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m = mk(r, MON_UNARY, e->pos, 1);

	m->op = e->un.op;
	m->a[0] = resolve_expr(r, e->un.a);
	if (e->un.op == SPEC_UN_LNOT) {
		m->is_bool = true;
		return m;
	}
	need_int(r, m->a[0], spec_unop_name(e->un.op), true);
	m->sign = m->a[0]->sign;
	return m;
}

static struct mon_expr *rbinary(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m = mk(r, MON_BINARY, e->pos, 2);
	enum spec_binop op = e->bin.op;

	m->op = op;
	m->a[0] = resolve_expr(r, e->bin.a);
	m->a[1] = resolve_expr(r, e->bin.b);
	m->sign = m->a[0]->sign || m->a[1]->sign;
	if (op == SPEC_BIN_LAND || op == SPEC_BIN_LOR || op == SPEC_BIN_IMPLIES) {
		m->sign = false;
		m->is_bool = true;
	} else if (op >= SPEC_BIN_LT && op <= SPEC_BIN_NE) {
		m->is_bool = true;
	} else {
		need_int(r, m->a[0], spec_binop_name(op), false);
		need_int(r, m->a[1], spec_binop_name(op), false);
	}
	return m;
}

static struct mon_expr *rcond(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m = mk(r, MON_COND, e->pos, 3);

	m->a[0] = resolve_expr(r, e->cond.a);
	m->a[1] = resolve_expr(r, e->cond.b);
	m->a[2] = resolve_expr(r, e->cond.c);
	m->is_bool = m->a[1]->is_bool && m->a[2]->is_bool;
	m->sign = m->a[1]->sign || m->a[2]->sign;
	return m;
}

static struct mon_expr *rcast(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m = mk(r, MON_CAST, e->pos, 1);

	m->type = e->cast.type;
	m->a[0] = resolve_expr(r, e->cast.a);
	m->is_bool = e->cast.type == SPEC_TY_BOOL;
	m->sign = spec_type_signed(e->cast.type);
	return m;
}

static struct mon_expr *rinset(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m = mk(r, MON_IN_SET, e->pos, (unsigned)e->nargs + 1);

	m->a[0] = resolve_expr(r, e->in);
	for (size_t i = 0; i < e->nargs; i++)
		m->a[i + 1] = resolve_expr(r, e->args[i]);
	for (unsigned i = 0; i < m->n; i++)
		m->sign |= m->a[i]->sign;
	m->is_bool = true;
	return m;
}

static struct mon_expr *rinrange(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m = mk(r, MON_IN_RANGE, e->pos, 3);
	uint64_t lo, hi;

	m->a[0] = resolve_expr(r, e->cond.a);
	m->a[1] = resolve_expr(r, e->cond.b);
	m->a[2] = resolve_expr(r, e->cond.c);
	m->sign = m->a[0]->sign || m->a[1]->sign || m->a[2]->sign;
	m->is_bool = true;
	if (fold(m->a[1], &lo) && fold(m->a[2], &hi) && mon_less(m->sign, hi, lo))
		fail(r, e->cond.b->pos, "empty range [%s, %s]: lo > hi",
		     num_text(r, lo, m->sign), num_text(r, hi, m->sign));
	return m;
}

struct mon_expr *resolve_expr(struct resolver *r, const struct spec_expr *e)
{
	struct mon_expr *m;

	switch (e->kind) {
	case SPEC_E_NUM:
		return mknum(r, e->num, e->pos);
	case SPEC_E_BOOL:
		m = mknum(r, e->num, e->pos);
		m->is_bool = true;
		return m;
	case SPEC_E_NAME:
		return rname(r, e);
	case SPEC_E_MEMBER:
		return rmember(r, e);
	case SPEC_E_CALL:
		return rcall(r, e);
	case SPEC_E_UNARY:
		return runary(r, e);
	case SPEC_E_BINARY:
		return rbinary(r, e);
	case SPEC_E_COND:
		return rcond(r, e);
	case SPEC_E_CAST:
		return rcast(r, e);
	case SPEC_E_IN_SET:
		return rinset(r, e);
	case SPEC_E_IN_RANGE:
		return rinrange(r, e);
	}
	abort();
}

/* E in SC_CONST, folded. WHAT names it in errors ("const X", "bound"). */
uint64_t resolve_const(struct resolver *r, const struct spec_expr *e,
			   const char *what)
{
	enum scope saved = r->scope;
	uint64_t v;

	r->scope = SC_CONST;
	r->what = what;
	if (!fold(resolve_expr(r, e), &v))
		not_const(r, e->pos);
	r->scope = saved;
	return v;
}


/* VAL may be stored in V (an initialiser or an assignment). */
void resolve_value(struct resolver *r, const struct mon_var *v,
			const struct mon_expr *val)
{
	const char *ty = spec_type_name(v->type);
	uint64_t x;
	bool k = fold(val, &x);

	if (v->type == SPEC_TY_BOOL) {
		if (!val->is_bool && !(k && x <= 1))
			fail(r, val->pos, "integer value for bool state variable '%s'",
			     v->name);
		return;
	}
	if (val->is_bool)
		fail(r, val->pos, "bool value for %s state variable '%s'", ty, v->name);
	if (k && cast_eval(v->type, x) != x)
		fail(r, val->pos, "constant %s does not fit in %s state variable '%s'",
		     num_text(r, x, false), ty, v->name);
}

