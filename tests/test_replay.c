/* test_replay.c - counterexample replay with the concrete monitor (replay.h):
 * every outcome with its exact message, site and event; the expression
 * semantics of the concrete monitor (replay_priv.h) value by value; the
 * event counters (insns, called) on programs of known length; calls answered
 * from the cex with their writes; bpf_loop run and tail calls taken on the
 * examples; globals written by the program; the interpreter's load_unmapped
 * hook. Monitors are built by hand (no spec resolver involved).
 * Arguments: the example objects.
 */
#include "asm.h"
#include "checker.h"
#include "pipeline.h"
#include "replay.h"
#include "replay_priv.h"
#include "smt.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXSLOTS 256

static char **objects;
static int nobjects;
static struct arena *A;     /* per test (setup / teardown) */

static void setup(void) { A = arena_new(); }
static void teardown(void) { arena_free(A); A = NULL; }

static const char *example(const char *name)
{
	char want[64];
	int i;

	snprintf(want, sizeof(want), "/%s.bpf.o", name);
	for (i = 0; i < nobjects; i++) {
		size_t n = strlen(objects[i]), w = strlen(want);

		if (n >= w && !strcmp(objects[i] + n - w, want))
			return objects[i];
	}
	ck_abort_msg("example %s not given", name);
	return NULL;
}

/* ---- monitors by hand ------------------------------------------------- */

static struct mon_expr *ex(enum mon_ekind k, unsigned n, ...)
{
	struct mon_expr *e = arena_alloc(A, sizeof(*e));
	va_list ap;
	unsigned i;

	e->kind = k;
	e->n = n;
	e->a = arena_new_array(A, struct mon_expr *, n + 1);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		e->a[i] = va_arg(ap, struct mon_expr *);
	va_end(ap);
	return e;
}

static struct mon_expr *num(uint64_t v)
{
	struct mon_expr *e = ex(MON_NUM, 0);

	e->num = v;
	return e;
}

static struct mon_expr *idx(enum mon_ekind k, int index)
{
	struct mon_expr *e = ex(k, 0);

	e->index = index;
	return e;
}

static struct mon_expr *bin(enum spec_binop op, struct mon_expr *a,
			    struct mon_expr *b)
{
	struct mon_expr *e = ex(MON_BINARY, 2, a, b);

	e->op = (int)op;
	return e;
}

static struct mon_expr *sbin(enum spec_binop op, struct mon_expr *a,
			     struct mon_expr *b)
{
	struct mon_expr *e = bin(op, a, b);

	e->sign = true;
	return e;
}

static struct mon_expr *eq(struct mon_expr *a, uint64_t v)
{
	return bin(SPEC_BIN_EQ, a, num(v));
}

static struct mon_expr *un(enum spec_unop op, struct mon_expr *a)
{
	struct mon_expr *e = ex(MON_UNARY, 1, a);

	e->op = (int)op;
	return e;
}

static struct mon_expr *cast(enum spec_type t, struct mon_expr *a)
{
	struct mon_expr *e = ex(MON_CAST, 1, a);

	e->type = t;
	return e;
}

static struct mon_expr *load(uint32_t size, bool be, struct mon_expr *p)
{
	struct mon_expr *e = ex(MON_LOAD, 1, p);

	e->size = size;
	e->be = be;
	return e;
}

static struct mon_expr *sized(enum mon_ekind k, int index, int ds,
			      uint32_t off, uint32_t size)
{
	struct mon_expr *e = idx(k, index);

	e->datasec = ds;
	e->off = off;
	e->size = size;
	return e;
}

static struct mon_stmt *stmt(enum mon_skind k, struct mon_expr *e)
{
	struct mon_stmt *s = arena_alloc(A, sizeof(*s));

	s->kind = k;
	s->e = e;
	return s;
}

static struct mon_stmt *sassert(unsigned site, struct mon_expr *e)
{
	struct mon_stmt *s = stmt(MON_S_ASSERT, e);

	s->site = site;
	return s;
}

static struct mon_stmt *sassign(int var, struct mon_expr *e)
{
	struct mon_stmt *s = stmt(MON_S_ASSIGN, e);

	s->var = var;
	return s;
}

static struct mon_check *check_new(int func)
{
	struct mon_check *c = arena_alloc(A, sizeof(*c));

	c->func = func;
	c->handlers = arena_new_array(A, struct mon_handler, 32);
	c->vars = arena_new_array(A, struct mon_var, 16);
	c->counters = arena_new_array(A, struct mon_counter, 16);
	c->assumes = arena_new_array(A, struct mon_expr *, 16);
	return c;
}

/* A handler of EV; for CALL / RETURN matching HELPER (-1: any call). */
static struct mon_handler *on(struct mon_check *c, enum spec_event_kind ev,
			      int helper)
{
	struct mon_handler *h = &c->handlers[c->nhandlers++];

	h->ev = ev;
	h->body = arena_new_array(A, struct mon_stmt *, 32);
	if (helper < 0) {
		h->calls.any = true;
	} else {
		h->calls.helpers = arena_new_array(A, int, 1);
		h->calls.helpers[0] = helper;
		h->calls.nhelpers = 1;
	}
	return h;
}

static void add(struct mon_handler *h, struct mon_stmt *s)
{
	h->body[h->n++] = s;
}

static int counter(struct mon_check *c, int helper)
{
	struct mon_counter *k = &c->counters[c->ncounters];

	k->name = "counter";
	if (helper < 0) {
		k->calls.any = true;
	} else {
		k->calls.helpers = arena_new_array(A, int, 1);
		k->calls.helpers[0] = helper;
		k->calls.nhelpers = 1;
	}
	return (int)c->ncounters++;
}

static int var(struct mon_check *c, enum spec_type t, unsigned width,
	       bool sign, struct mon_expr *init)
{
	struct mon_var *v = &c->vars[c->nvars];

	v->name = "v";
	v->type = t;
	v->width = width;
	v->sign = sign;
	v->init = init;
	return (int)c->nvars++;
}

/* ---- programs in assembly, with a small object around them ------------ */

struct aprog {
	struct bpf_insn raw[MAXSLOTS];
	struct insn insns[MAXSLOTS];
	struct insn *secs[1];
	struct obj_section sec;
	struct obj_func func;
	struct obj_map map;
	struct obj_datasec ds;
	uint8_t init[16];
	struct obj_kfunc kf;
	struct object o;
	struct loaded l;
};

/* One section "asm", one program "prog", map 0 = datasec 0 ".bss" (16
 * bytes, initial byte 0 = 9), kfunc 0 "bpf_test_kfunc". */
static struct aprog *aprog(const char *text)
{
	struct aprog *p = arena_alloc(A, sizeof(*p));
	struct diag d = {0};
	char err[256];
	int n = asm_assemble(text, p->raw, MAXSLOTS, err, sizeof(err));

	ck_assert_msg(n > 0, "asm: %s", err);
	ck_assert_int_eq(insn_decode(p->raw, (uint32_t)n, p->insns, "test",
				     "asm", &d), 0);
	p->secs[0] = p->insns;
	p->sec.name = "asm";
	p->sec.nslots = (uint32_t)n;
	p->func = (struct obj_func){ .name = "prog", .sec = 0, .start = 0,
				     .nslots = (uint32_t)n, .is_prog = true };
	p->map = (struct obj_map){ .name = "t.bss", .section = ".bss",
				   .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				   .value_size = 16, .max_entries = 1,
				   .datasec = 0 };
	p->init[0] = 9;
	p->ds = (struct obj_datasec){ .name = ".bss", .size = 16,
				      .init = p->init, .map = 0 };
	p->kf.name = "bpf_test_kfunc";
	p->o = (struct object){ .path = "test", .sections = &p->sec,
				.nsections = 1, .funcs = &p->func, .nfuncs = 1,
				.maps = &p->map, .nmaps = 1, .datasecs = &p->ds,
				.ndatasecs = 1, .kfuncs = &p->kf, .nkfuncs = 1 };
	p->l.o = &p->o;
	p->l.insns = p->secs;
	return p;
}

static struct replay_result R;

static enum replay_outcome replay(const struct loaded *l,
				  const struct mon_check *c,
				  const struct cex *x)
{
	replay_result_free(&R);
	ck_assert_int_eq(replay_run(l, c, x, &R), 0);
	return R.outcome;
}

#define MSG(want) ck_assert_str_eq(R.msg, want)

/* ---- outcomes --------------------------------------------------------- */

START_TEST(outcome_names)
{
	ck_assert_str_eq(replay_outcome_name(REPLAY_ASSERT_FAILED), "assert failed");
	ck_assert_str_eq(replay_outcome_name(REPLAY_ASSUME_FAILED), "assume failed");
	ck_assert_str_eq(replay_outcome_name(REPLAY_EXITED), "exited");
	ck_assert_str_eq(replay_outcome_name(REPLAY_DIVERGED), "diverged");
	ck_assert_str_eq(replay_outcome_name(REPLAY_INTERP), "interpreter");
}
END_TEST

START_TEST(assert_fails_at_exit_with_its_site)
{
	struct aprog *p = aprog("mov %r0, 1\nexit\n");
	struct mon_check *c = check_new(0);
	struct mon_handler *h = on(c, SPEC_EV_EXIT, -1);
	struct cex x = { .func = 0 };

	add(h, sassert(0, eq(ex(MON_RET, 0), 1)));
	add(h, sassert(1, eq(ex(MON_RET, 0), 2)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 1);
	ck_assert_int_eq(R.event, SPEC_EV_EXIT);
	ck_assert_uint_eq(R.r0, 1);
	ck_assert_uint_eq(R.steps, 2);
	ck_assert_uint_eq(R.npath, 2);
	ck_assert_int_eq(R.path[0].sec, 0);
	ck_assert_uint_eq(R.path[0].slot, 0);
	ck_assert_uint_eq(R.path[1].slot, 1);
	MSG("assert 1 failed at exit: r0 = 1");

	/* without the failing one: it exits */
	h->n = 1;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_EXITED);
	ck_assert_int_eq(R.event, SPEC_EV_EXIT);
	ck_assert_uint_eq(R.r0, 1);
	MSG("exited with r0 = 1 after 2 instructions, no assert failed");
	replay_result_free(&R);
	ck_assert_ptr_null(R.path);
}
END_TEST

START_TEST(assume_and_entry)
{
	struct aprog *p = aprog("mov %r0, 1\nexit\n");
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	struct cex x = { .func = 0, .pkt = 0x1000, .pkt_end = 0x1040 };
	int v8, vs8, vb;

	/* state initialisers truncate / sign-extend, then assumes, then entry */
	v8 = var(c, SPEC_TY_U8, 1, false, num(0x1ff));
	vs8 = var(c, SPEC_TY_S8, 1, true, num(0x1ff));
	vb = var(c, SPEC_TY_BOOL, 1, false, num(5));
	c->assumes[c->nassumes++] = bin(SPEC_BIN_GE, ex(MON_PKT_LEN, 0), num(64));
	h = on(c, SPEC_EV_ENTRY, -1);
	add(h, sassert(0, eq(idx(MON_STATE, v8), 0xff)));
	add(h, sassert(1, eq(idx(MON_STATE, vs8), ~0ull)));
	add(h, sassert(2, eq(idx(MON_STATE, vb), 1)));
	add(h, sassert(3, eq(ex(MON_INSNS, 0), 0)));
	add(h, sassert(5, num(0)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 5);
	ck_assert_int_eq(R.event, SPEC_EV_ENTRY);
	ck_assert_uint_eq(R.steps, 0);
	ck_assert_uint_eq(R.npath, 0);
	MSG("assert 5 failed at entry");

	/* a program assume that is false stops before the entry handlers */
	c->assumes[0] = bin(SPEC_BIN_GE, ex(MON_PKT_LEN, 0), num(65));
	c->assumes[0]->pos = (struct spec_pos){ 3, 7 };
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSUME_FAILED);
	ck_assert_int_eq(R.event, SPEC_EV_ENTRY);
	MSG("assume at 3:7 failed at entry");

	/* an assume in a handler: at exit */
	c->nassumes = 0;
	h->n = 4;
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, stmt(MON_S_ASSUME, eq(ex(MON_RET, 0), 0)));
	h->body[0]->pos = (struct spec_pos){ 9, 2 };
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSUME_FAILED);
	ck_assert_int_eq(R.event, SPEC_EV_EXIT);
	ck_assert_uint_eq(R.steps, 2);
	MSG("assume at 9:2 failed at exit: r0 = 1");
	/* assignments and if/else at an event */
	h->body[0] = sassign(v8, bin(SPEC_BIN_ADD, ex(MON_RET, 0), num(0x100)));
	h->body[1] = stmt(MON_S_IF, eq(idx(MON_STATE, v8), 1));
	h->body[1]->then = arena_new_array(A, struct mon_stmt *, 1);
	h->body[1]->then[0] = sassert(6, num(0));
	h->body[1]->nthen = 1;
	h->body[1]->els = arena_new_array(A, struct mon_stmt *, 1);
	h->body[1]->els[0] = sassert(7, num(0));
	h->body[1]->nels = 1;
	h->n = 2;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 6);
	h->body[1]->e = eq(idx(MON_STATE, v8), 0x101);
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 7);
	replay_result_free(&R);
}
END_TEST

/* lookup (slot 2) then update (slot 4); r0 = *(u64 *)lookup's result */
static const char *calls_asm =
	"mov %r1, 11\n"
	"mov %r2, 22\n"
	"call 1\n"
	"mov %r6, %r0\n"
	"call 2\n"
	"ldxdw %r0, [%r6+0]\n"
	"exit\n";

#define MVBASE INTERP_BASE(INTERP_MEM_MAP_VALUE, 9)

static uint8_t mv_bytes[8];
static uint8_t w_bytes[8] = { 0x55 };
static struct cex_region mv_region = { INTERP_MEM_MAP_VALUE, "value", MVBASE,
				       8, mv_bytes, true, -1 };
static struct cex_write w55 = { MVBASE, 8, w_bytes };

static void calls_cex(struct cex *x, struct cex_call *calls)
{
	memset(x, 0, sizeof(*x));
	calls[0] = (struct cex_call){ .sec = 0, .slot = 2, .helper = 1,
				      .kfunc = -1, .ret = MVBASE,
				      .writes = &w55, .nwrites = 1 };
	calls[1] = (struct cex_call){ .sec = 0, .slot = 4, .helper = 2,
				      .kfunc = -1, .ret = 0 };
	x->calls = calls;
	x->ncalls = 2;
	x->regions = &mv_region;
	x->nregions = 1;
}

START_TEST(calls_args_ret_insns_called)
{
	struct aprog *p = aprog(calls_asm);
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	struct cex_call calls[3];
	struct cex x;
	int lookups, all;
	char want[128];

	calls_cex(&x, calls);
	lookups = counter(c, 1);
	all = counter(c, -1);
	h = on(c, SPEC_EV_CALL, 1);
	add(h, sassert(0, eq(idx(MON_ARG, 1), 11)));
	add(h, sassert(1, eq(idx(MON_ARG, 2), 22)));
	add(h, sassert(2, eq(ex(MON_INSNS, 0), 2)));
	add(h, sassert(3, eq(idx(MON_CALLED, lookups), 1)));
	add(h, sassert(4, eq(load(8, false, num(MVBASE)), 0)));
	h = on(c, SPEC_EV_RETURN, 1);
	add(h, sassert(5, eq(ex(MON_RET, 0), MVBASE)));
	add(h, sassert(6, eq(load(8, false, ex(MON_RET, 0)), 0x55)));
	add(h, sassert(7, eq(ex(MON_INSNS, 0), 3)));
	add(h, sassert(8, eq(idx(MON_ARG, 2), 22)));
	h = on(c, SPEC_EV_CALL, 2);
	add(h, sassert(9, eq(ex(MON_INSNS, 0), 4)));
	add(h, sassert(10, eq(idx(MON_CALLED, lookups), 1)));
	add(h, sassert(11, eq(idx(MON_CALLED, all), 2)));
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(12, eq(ex(MON_INSNS, 0), 7)));
	add(h, sassert(13, eq(ex(MON_RET, 0), 0x55)));
	add(h, sassert(14, eq(idx(MON_CALLED, all), 2)));
	add(h, sassert(15, num(0)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	MSG("assert 15 failed at exit: r0 = 85");
	ck_assert_uint_eq(R.site, 15);
	ck_assert_uint_eq(R.steps, 7);
	ck_assert_uint_eq(R.r0, 0x55);

	/* the same counters seen failing: insns at return is 3, not 2 */
	c->handlers[1].body[2] = sassert(7, eq(ex(MON_INSNS, 0), 2));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 7);
	ck_assert_int_eq(R.event, SPEC_EV_RETURN);
	snprintf(want, sizeof(want), "assert 7 failed at return of "
		 "bpf_map_lookup_elem at asm+2: ret = %llu",
		 (unsigned long long)MVBASE);
	MSG(want);
	c->handlers[1].body[2] = sassert(7, eq(ex(MON_INSNS, 0), 3));
	/* called() at the second call counts it */
	c->handlers[2].body[2] = sassert(11, eq(idx(MON_CALLED, all), 1));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 11);
	ck_assert_int_eq(R.event, SPEC_EV_CALL);
	ck_assert_uint_eq(R.steps, 5);
	ck_assert_uint_eq(R.npath, 5);
	ck_assert_uint_eq(R.path[4].slot, 4);
	MSG("assert 11 failed at call bpf_map_update_elem at asm+4");
	replay_result_free(&R);
}
END_TEST

START_TEST(diverged)
{
	struct aprog *p = aprog(calls_asm);
	struct mon_check *c = check_new(0);
	struct cex_call calls[3];
	struct cex x;

	calls_cex(&x, calls);
	calls[0].helper = 2;       /* the wrong helper */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	ck_assert_int_eq(R.event, SPEC_EV_CALL);
	ck_assert_uint_eq(R.steps, 3);
	MSG("call at asm+2 is bpf_map_lookup_elem, the counterexample expected "
	    "bpf_map_update_elem");

	calls_cex(&x, calls);
	calls[0].slot = 4;         /* the right helper elsewhere */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	MSG("call at asm+2 is bpf_map_lookup_elem, the counterexample expected "
	    "bpf_map_lookup_elem at asm+4 (call 0)");

	calls_cex(&x, calls);
	x.ncalls = 1;              /* an extra call */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	ck_assert_int_eq(R.event, SPEC_EV_CALL);
	MSG("call at asm+4 is bpf_map_update_elem, the counterexample has no "
	    "more calls (1 made)");

	calls_cex(&x, calls);
	calls[2] = calls[1];
	x.ncalls = 3;              /* a call the program does not make */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	ck_assert_int_eq(R.event, SPEC_EV_EXIT);
	MSG("the program exited (r0 = 85) after 2 of the counterexample's 3 "
	    "calls");

	calls_cex(&x, calls);      /* the right one exits */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_EXITED);
	ck_assert_uint_eq(R.r0, 0x55);
	replay_result_free(&R);
}
END_TEST

START_TEST(diverged_kfunc)
{
	struct aprog *p = aprog("call kfunc 0\nexit\n");
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	struct cex_call call = { .sec = 0, .slot = 0, .helper = 5, .kfunc = -1 };
	struct cex x = { .func = 0, .calls = &call, .ncalls = 1 };

	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	MSG("call at asm+0 is bpf_test_kfunc, the counterexample expected "
	    "bpf_ktime_get_ns");
	call.helper = -1;
	call.kfunc = 0;
	call.ret = 42;
	h = on(c, SPEC_EV_RETURN, -1);
	add(h, sassert(0, eq(ex(MON_RET, 0), 41)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	MSG("assert 0 failed at return of bpf_test_kfunc at asm+0: ret = 42");
	/* a kfunc handler by index */
	h->calls.any = false;
	h->calls.kfuncs = arena_new_array(A, int, 1);
	h->calls.nkfuncs = 1;
	h->calls.kfuncs[0] = 1;    /* another kfunc: not matched */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_EXITED);
	ck_assert_uint_eq(R.r0, 42);
	h->calls.kfuncs[0] = 0;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	replay_result_free(&R);
}
END_TEST

START_TEST(interp_outcomes)
{
	struct aprog *p = aprog("mov %r1, 0x1000\nstxdw [%r1+0], %r1\nexit\n");
	struct aprog *q = aprog("mov %r0, 0\nja -1\nexit\n");
	struct mon_check *c = check_new(0);
	struct cex x = { .func = 0 };

	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_INTERP);
	ck_assert_uint_eq(R.steps, 2);
	MSG("interpreter fault at asm+1: slot 1: store of 8 bytes at 0x1000: "
	    "not in any region");
	x.max_steps = 10;
	ck_assert_int_eq(replay(&q->l, c, &x), REPLAY_INTERP);
	ck_assert_uint_eq(R.steps, 10);
	ck_assert_uint_eq(R.npath, 10);
	MSG("interpreter step limit at asm+1: slot 1: step limit of 10 "
	    "instructions reached");
	replay_result_free(&R);
}
END_TEST

START_TEST(bad_cex_is_einval)
{
	struct aprog *p = aprog("mov %r0, 1\nexit\n");
	struct mon_check *c = check_new(0);
	struct cex_region regs[2] = {
		{ INTERP_MEM_CTX, "ctx", 0x5000, 16, NULL, true, -1 },
		{ INTERP_MEM_PACKET, "packet", 0x5008, 16, NULL, true, -1 },
	};
	struct cex x = { .func = 0, .regions = regs, .nregions = 2 };

	ck_assert_int_eq(replay_run(&p->l, c, &x, &R), -EINVAL);
	MSG("counterexample region 1 (packet, 0x5008, 16 bytes) cannot be set up");
	ck_assert_ptr_null(R.path);
	regs[1].base = 0;
	ck_assert_int_eq(replay_run(&p->l, c, &x, &R), -EINVAL);
	regs[1].base = 0x6000;
	ck_assert_int_eq(replay_run(&p->l, c, &x, &R), 0);
	replay_result_free(&R);
	x.func = 1;
	ck_assert_int_eq(replay_run(&p->l, c, &x, &R), -EINVAL);
	MSG("counterexample for function 1, check for function 0 (1 functions)");
	replay_result_free(&R);
}
END_TEST

/* ---- expressions ------------------------------------------------------ */

static uint8_t pkt_bytes[8] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0 };

struct evalenv {
	struct interp ip;
	struct mon_check c;
	struct mon_eval m;
	uint64_t vars[2], counters[1];
	uint8_t ctx[4];
};

static struct evalenv *evalenv(void)
{
	struct evalenv *v = arena_alloc(A, sizeof(*v));

	ck_assert_int_eq(interp_init(&v->ip, NULL, NULL, 0, NULL), 0);
	ck_assert_int_ge(interp_add_region(&v->ip, INTERP_MEM_PACKET, "pkt",
					   0x1000, 8, pkt_bytes, false), 0);
	v->c.nvars = 2;
	v->c.ncounters = 1;
	v->vars[0] = 77;
	v->vars[1] = 78;
	v->counters[0] = 3;
	v->ctx[0] = 0xaa;
	v->ctx[1] = 0xbb;
	v->m = (struct mon_eval){ .c = &v->c, .ip = &v->ip, .pkt = 0x1000,
				  .pkt_end = 0x1008, .ctx = v->ctx,
				  .ctx_size = 4, .vars = v->vars,
				  .counters = v->counters, .ret = 5,
				  .args = { 1, 2, 3, 4, 5 }, .insns = 99 };
	return v;
}

#define EV(e, want) ck_assert_uint_eq(mon_eval_expr(&v->m, (e)), (uint64_t)(want))
#define N(x) num((uint64_t)(x))

START_TEST(expr_arith_and_division)
{
	struct evalenv *v = evalenv();

	EV(bin(SPEC_BIN_ADD, N(~0ull), N(2)), 1);
	EV(bin(SPEC_BIN_SUB, N(1), N(2)), ~0ull);
	EV(bin(SPEC_BIN_MUL, N(1ull << 63), N(2)), 0);
	EV(bin(SPEC_BIN_DIV, N(7), N(2)), 3);
	EV(bin(SPEC_BIN_DIV, N(7), N(0)), 0);
	EV(bin(SPEC_BIN_MOD, N(7), N(0)), 7);
	EV(bin(SPEC_BIN_MOD, N(7), N(4)), 3);
	EV(bin(SPEC_BIN_DIV, N(-7), N(2)), 0x7ffffffffffffffcull);
	EV(sbin(SPEC_BIN_DIV, N(-7), N(2)), -3);
	EV(sbin(SPEC_BIN_MOD, N(-7), N(2)), -1);
	EV(sbin(SPEC_BIN_MOD, N(7), N(-2)), 1);
	EV(sbin(SPEC_BIN_DIV, N(-7), N(0)), 0);
	EV(sbin(SPEC_BIN_MOD, N(-7), N(0)), -7);
	EV(sbin(SPEC_BIN_DIV, N(INT64_MIN), N(-1)), INT64_MIN);
	EV(sbin(SPEC_BIN_MOD, N(INT64_MIN), N(-1)), 0);
	EV(bin(SPEC_BIN_SHL, N(1), N(63)), 1ull << 63);
	/* shift amounts masked to 0..63, as BPF's ALU (the instrumentation) */
	EV(bin(SPEC_BIN_SHL, N(1), N(64)), 1);
	EV(bin(SPEC_BIN_SHL, N(1), N(65)), 2);
	EV(bin(SPEC_BIN_SHR, N(-8), N(1)), 0x7ffffffffffffffcull);
	EV(sbin(SPEC_BIN_SHR, N(-8), N(1)), -4);
	EV(sbin(SPEC_BIN_SHR, N(-8), N(63)), ~0ull);
	EV(bin(SPEC_BIN_SHR, N(-8), N(63)), 1);
	EV(bin(SPEC_BIN_SHR, N(-8), N(64)), -8);
	EV(sbin(SPEC_BIN_SHR, N(-8), N(66)), -2);
	EV(sbin(SPEC_BIN_SHR, N(8), N(70)), 0);
	EV(bin(SPEC_BIN_BAND, N(0xf0f0), N(0xff00)), 0xf000);
	EV(bin(SPEC_BIN_BOR, N(0xf0f0), N(0xff00)), 0xfff0);
	EV(bin(SPEC_BIN_BXOR, N(0xf0f0), N(0xff00)), 0x0ff0);
	EV(un(SPEC_UN_NEG, N(1)), ~0ull);
	EV(un(SPEC_UN_BNOT, N(0)), ~0ull);
	EV(un(SPEC_UN_LNOT, N(0)), 1);
	EV(un(SPEC_UN_LNOT, N(42)), 0);
	interp_fini(&v->ip);
}
END_TEST

START_TEST(expr_compare_logic_cast)
{
	struct evalenv *v = evalenv();

	EV(bin(SPEC_BIN_LT, N(-1), N(0)), 0);
	EV(sbin(SPEC_BIN_LT, N(-1), N(0)), 1);
	EV(bin(SPEC_BIN_GT, N(-1), N(0)), 1);
	EV(sbin(SPEC_BIN_GT, N(-1), N(0)), 0);
	EV(bin(SPEC_BIN_LE, N(3), N(3)), 1);
	EV(bin(SPEC_BIN_LE, N(4), N(3)), 0);
	EV(sbin(SPEC_BIN_GE, N(-3), N(-3)), 1);
	EV(sbin(SPEC_BIN_GE, N(-4), N(-3)), 0);
	EV(bin(SPEC_BIN_GE, N(-4), N(-3)), 0);
	EV(bin(SPEC_BIN_EQ, N(5), N(5)), 1);
	EV(bin(SPEC_BIN_NE, N(5), N(5)), 0);
	EV(bin(SPEC_BIN_LAND, N(2), N(3)), 1);
	EV(bin(SPEC_BIN_LAND, N(2), N(0)), 0);
	EV(bin(SPEC_BIN_LOR, N(0), N(7)), 1);
	EV(bin(SPEC_BIN_LOR, N(0), N(0)), 0);
	EV(bin(SPEC_BIN_IMPLIES, N(0), N(0)), 1);
	EV(bin(SPEC_BIN_IMPLIES, N(1), N(0)), 0);
	EV(bin(SPEC_BIN_IMPLIES, N(1), N(9)), 1);
	EV(ex(MON_COND, 3, N(1), N(10), N(20)), 10);
	EV(ex(MON_COND, 3, N(0), N(10), N(20)), 20);
	EV(cast(SPEC_TY_U8, N(0x1ff)), 0xff);
	EV(cast(SPEC_TY_U16, N(0x12345)), 0x2345);
	EV(cast(SPEC_TY_U32, N(-1)), 0xffffffffull);
	EV(cast(SPEC_TY_U64, N(-1)), ~0ull);
	EV(cast(SPEC_TY_S8, N(0x80)), 0xffffffffffffff80ull);
	EV(cast(SPEC_TY_S8, N(0x17f)), 0x7f);
	EV(cast(SPEC_TY_S16, N(0x8000)), 0xffffffffffff8000ull);
	EV(cast(SPEC_TY_S32, N(0xffffffff)), ~0ull);
	EV(cast(SPEC_TY_S64, N(5)), 5);
	EV(cast(SPEC_TY_BOOL, N(0x100)), 1);
	EV(cast(SPEC_TY_BOOL, N(0)), 0);
	/* (s32)ret < 0 for ret = 0xffffffff */
	v->m.ret = 0xffffffff;
	EV(sbin(SPEC_BIN_LT, cast(SPEC_TY_S32, ex(MON_RET, 0)), N(0)), 1);
	EV(bin(SPEC_BIN_LT, ex(MON_RET, 0), N(0)), 0);
	interp_fini(&v->ip);
}
END_TEST

START_TEST(expr_sets_ranges_names)
{
	struct evalenv *v = evalenv();
	struct mon_expr *r;

	EV(ex(MON_IN_SET, 4, N(3), N(1), N(2), N(3)), 1);
	EV(ex(MON_IN_SET, 4, N(4), N(1), N(2), N(3)), 0);
	EV(ex(MON_IN_SET, 1, N(4)), 0);
	EV(ex(MON_IN_RANGE, 3, N(5), N(5), N(9)), 1);
	EV(ex(MON_IN_RANGE, 3, N(9), N(5), N(9)), 1);
	EV(ex(MON_IN_RANGE, 3, N(10), N(5), N(9)), 0);
	EV(ex(MON_IN_RANGE, 3, N(4), N(5), N(9)), 0);
	EV(ex(MON_IN_RANGE, 3, N(-1), N(-2), N(2)), 0);
	r = ex(MON_IN_RANGE, 3, N(-1), N(-2), N(2));
	r->sign = true;
	EV(r, 1);
	EV(ex(MON_RET, 0), 5);
	EV(idx(MON_ARG, 1), 1);
	EV(idx(MON_ARG, 5), 5);
	EV(ex(MON_PKT, 0), 0x1000);
	EV(ex(MON_PKT_END, 0), 0x1008);
	EV(ex(MON_PKT_LEN, 0), 8);
	EV(ex(MON_INSNS, 0), 99);
	EV(idx(MON_STATE, 1), 78);
	EV(idx(MON_CALLED, 0), 3);
	EV(sized(MON_CTX, 0, -1, 0, 2), 0xbbaa);
	EV(sized(MON_CTX, 0, -1, 1, 1), 0xbb);
	EV(sized(MON_CTX, 0, -1, 2, 4), 0);  /* past the ctx */
	interp_fini(&v->ip);
}
END_TEST

START_TEST(expr_loads)
{
	struct evalenv *v = evalenv();
	struct mon_expr *pkt = ex(MON_PKT, 0);

	EV(load(1, false, pkt), 0x12);
	EV(load(2, false, pkt), 0x3412);
	EV(load(2, true, pkt), 0x1234);
	EV(load(4, false, pkt), 0x78563412);
	EV(load(4, true, pkt), 0x12345678);
	EV(load(8, false, pkt), 0xf0debc9a78563412ull);
	EV(load(8, true, pkt), 0x123456789abcdef0ull);
	EV(load(2, true, bin(SPEC_BIN_ADD, pkt, N(6))), 0xdef0);
	EV(load(4, true, bin(SPEC_BIN_ADD, pkt, N(2))), 0x56789abc);
	EV(load(2, true, bin(SPEC_BIN_ADD, pkt, N(7))), 0);   /* straddles the end */
	EV(load(1, false, N(0x999999)), 0);                  /* no region */
	interp_fini(&v->ip);
}
END_TEST

/* ---- context, packet and globals in a run ------------------------------ */

START_TEST(ctx_at_entry_memory_at_event)
{
	struct aprog *p = aprog("mov %r2, 7\nstxw [%r1+0], %r2\nmov %r0, 0\n"
				"exit\n");
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	uint8_t ctxb[8] = { 1, 0, 0, 0, 2, 0, 0, 0 };
	uint64_t cb = INTERP_BASE(INTERP_MEM_CTX, 8);
	struct cex_region reg = { INTERP_MEM_CTX, "ctx", cb, 8, ctxb, true, -1 };
	struct cex x = { .func = 0, .args = { cb }, .regions = &reg,
			 .nregions = 1 };

	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(0, eq(sized(MON_CTX, 0, -1, 0, 4), 1)));
	add(h, sassert(1, eq(load(4, false, num(cb)), 7)));
	add(h, sassert(2, eq(sized(MON_CTX, 0, -1, 4, 4), 2)));
	add(h, sassert(3, num(0)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 3);
	ck_assert_uint_eq(ctxb[0], 1);      /* the cex is not written */
	replay_result_free(&R);
}
END_TEST

/* pkt_written: a store into the packet region sets it (not one into the
 * context), and so does a call the cex marks pkt_written; false at entry. */
START_TEST(pkt_written_stores_and_calls)
{
	/* r1 = ctx, r2 = packet (kept in r6: r1-r5 are unset after a call):
	 * ctx store, call 5 (slot 2), packet store, call 5 again (slot 4) */
	struct aprog *p = aprog("mov %r6, %r2\nstw [%r1+0], 7\ncall 5\n"
				"stb [%r6+1], 7\ncall 5\nmov %r0, 2\nexit\n");
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	uint8_t ctxb[8] = {0}, pktb[16] = {0};
	uint64_t cb = INTERP_BASE(INTERP_MEM_CTX, 8);
	uint64_t pb = INTERP_BASE(INTERP_MEM_PACKET, 0);
	struct cex_region regs[2] = {
		{ INTERP_MEM_CTX, "ctx", cb, 8, ctxb, true, -1 },
		{ INTERP_MEM_PACKET, "packet", pb, 16, pktb, true, -1 },
	};
	struct cex_call calls[2] = {
		{ .sec = 0, .slot = 2, .helper = 5, .kfunc = -1, .ret = 1 },
		{ .sec = 0, .slot = 4, .helper = 5, .kfunc = -1, .ret = 1 },
	};
	struct cex x = { .func = 0, .args = { cb, pb }, .regions = regs,
			 .nregions = 2, .calls = calls, .ncalls = 2 };
	struct mon_expr *w = ex(MON_PKT_WRITTEN, 0);
	unsigned n = 0;

	h = on(c, SPEC_EV_ENTRY, -1);
	add(h, sassert(n++, eq(w, 0)));
	h = on(c, SPEC_EV_CALL, 5);
	add(h, sassert(n++, num(1)));
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(n++, eq(w, 0)));
	/* the packet store before the second call: seen at the exit */
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 2);
	MSG("assert 2 failed at exit: r0 = 2");
	/* at the first call only the ctx store ran; at the second, both */
	c->handlers[1].body[0] = sassert(1, eq(w, 0));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 1);
	MSG("assert 1 failed at call bpf_ktime_get_ns at asm+4");

	/* a call marked pkt_written sets it for its return and after */
	p = aprog("call 5\nmov %r0, 2\nexit\n");
	c = check_new(0);
	calls[0] = (struct cex_call){ .sec = 0, .slot = 0, .helper = 5,
				      .kfunc = -1, .ret = 1, .pkt_written = true };
	x.ncalls = 1;
	h = on(c, SPEC_EV_CALL, 5);
	add(h, sassert(0, eq(w, 0)));
	h = on(c, SPEC_EV_RETURN, 5);
	add(h, sassert(1, eq(w, 0)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 1);
	ck_assert_int_eq(R.event, SPEC_EV_RETURN);
	calls[0].pkt_written = false;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_EXITED);
	replay_result_free(&R);
}
END_TEST

START_TEST(globals_from_the_object_or_the_cex)
{
	/* r0 = ++(.bss+0) */
	struct aprog *p = aprog("lddw %r1, 0\nldxdw %r0, [%r1+0]\nadd %r0, 1\n"
				"stxdw [%r1+0], %r0\nexit\n");
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	uint8_t bss[16] = { 40 };
	uint64_t gb = INTERP_BASE(INTERP_MEM_GLOBAL, 0);
	struct cex_region reg = { INTERP_MEM_GLOBAL, ".bss", gb, 16, bss, true, 0 };
	struct cex x = { .func = 0 };
	struct mon_expr *g = sized(MON_GLOBAL, 0, 0, 0, 8);

	p->insns[0].ref = (struct insn_ref){ .kind = INSN_REF_GLOBAL,
					      .index = 0, .off = 0 };
	h = on(c, SPEC_EV_ENTRY, -1);
	add(h, sassert(0, eq(g, 9)));      /* the object's initial bytes */
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(1, eq(g, 10)));
	add(h, sassert(2, eq(ex(MON_RET, 0), 10)));
	add(h, sassert(3, num(0)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 3);
	ck_assert_uint_eq(p->init[0], 9);

	/* with a region in the cex */
	x.regions = &reg;
	x.nregions = 1;
	c->handlers[0].body[0] = sassert(0, eq(g, 40));
	c->handlers[1].body[0] = sassert(1, eq(g, 41));
	c->handlers[1].body[1] = sassert(2, eq(ex(MON_RET, 0), 41));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 3);
	ck_assert_uint_eq(R.r0, 41);
	/* the address is the region's base + off */
	p->insns[0].ref.off = 8;
	c->handlers[1].body[0] = sassert(1, eq(sized(MON_GLOBAL, 0, 0, 8, 8), 1));
	c->handlers[1].body[1] = sassert(2, eq(g, 40));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 3);
	replay_result_free(&R);
}
END_TEST

/* ---- unmapped loads --------------------------------------------------- */

static int unmapped_calls;

static int answer(void *arg, struct interp *ip, uint64_t addr, uint32_t size,
		  uint64_t *value)
{
	(void)arg;
	(void)ip;
	unmapped_calls++;
	if (addr == 0xbad)
		return -1;
	*value = 0xffffffffffffff00ull | (addr & 0xff) | size;
	return 0;
}

START_TEST(interp_load_unmapped_hook)
{
	struct interp_env env = { .load_unmapped = answer };
	struct aprog *p = aprog("lddw %r1, 0x7000\nldxsb %r0, [%r1+0x81]\nexit\n");
	struct aprog *q = aprog("lddw %r1, 0x7000\nldxw %r0, [%r1+0x10]\nexit\n");
	struct aprog *s = aprog("mov %r1, 0xbad\nldxb %r0, [%r1+0]\nexit\n");
	struct aprog *t = aprog("mov %r1, 0x7000\nldxdw %r0, [%r1+4]\nexit\n");
	struct aprog *u = aprog("mov %r1, 0x9000\nstxb [%r1+0], %r1\nexit\n");
	struct interp ip;
	struct interp_result res;

	unmapped_calls = 0;
	ck_assert_int_eq(interp_init(&ip, p->secs, &p->sec.nslots, 1, &env), 0);
	ck_assert_int_eq(interp_run(&ip, 0, 0, NULL, &res), INTERP_EXIT);
	ck_assert_uint_eq(res.r0, 0xffffffffffffff81ull);  /* 0x81 sign-extended */
	interp_fini(&ip);
	ck_assert_int_eq(interp_init(&ip, q->secs, &q->sec.nslots, 1, &env), 0);
	ck_assert_int_eq(interp_run(&ip, 0, 0, NULL, &res), INTERP_EXIT);
	ck_assert_uint_eq(res.r0, 0xffffff14u);            /* zero-extended to 32 */
	interp_fini(&ip);
	ck_assert_int_eq(unmapped_calls, 2);
	/* the hook refuses: the usual fault */
	ck_assert_int_eq(interp_init(&ip, s->secs, &s->sec.nslots, 1, &env), 0);
	ck_assert_int_eq(interp_run(&ip, 0, 0, NULL, &res), INTERP_FAULT);
	ck_assert_str_eq(res.msg, "slot 1: load of 1 bytes at 0xbad: not in any "
			 "region");
	ck_assert_uint_eq(res.addr, 0xbad);
	interp_fini(&ip);
	ck_assert_int_eq(unmapped_calls, 3);
	/* partly in a region: a fault, the hook is not asked */
	ck_assert_int_eq(interp_init(&ip, t->secs, &t->sec.nslots, 1, &env), 0);
	ck_assert_int_ge(interp_add_region(&ip, INTERP_MEM_KERNEL, "k", 0x7000, 8,
					   NULL, false), 0);
	ck_assert_int_eq(interp_run(&ip, 0, 0, NULL, &res), INTERP_FAULT);
	ck_assert_str_eq(res.msg, "slot 1: load of 8 bytes at 0x7004: outside "
			 "region 'k' (offset 4, size 8)");
	interp_fini(&ip);
	/* stores never go to the hook */
	ck_assert_int_eq(interp_init(&ip, u->secs, &u->sec.nslots, 1, &env), 0);
	ck_assert_int_eq(interp_run(&ip, 0, 0, NULL, &res), INTERP_FAULT);
	interp_fini(&ip);
	ck_assert_int_eq(unmapped_calls, 3);
}
END_TEST

/* Accesses outside the memory of a counterexample's inputs. The replay's
 * context is a region of SMT_CTX_SIZE bytes, the encoder's was an
 * unbounded array: a load at ctx - 5 (fuzz_check: tailcall's tail_tcp
 * with the offset of its data load damaged) read free bytes there, the
 * replay's load fell outside every region and was answered from the
 * kernel loads: "diverged", an internal error. Accesses outside the
 * context or at an offset that is not constant (the verifier rejects
 * both) are not modelled now, by the encoder and its precheck alike; the
 * last word inside is modelled. An unchecked packet access too far past
 * the packet (or before it) is found in the model's run (cex.c): unknown,
 * not a counterexample that cannot replay. */
static const char *verdict_of(const char *text, enum check_verdict *verdict, const char **pre)
{
	struct aprog *p = aprog(text);
	struct mon_check *c = check_new(0);
	struct mon_handler *h = on(c, SPEC_EV_EXIT, -1);
	struct check_opts co = { .loop_bound = 2, .timeout_ms = 10000, .no_search = true,
				 .no_absint = true };
	struct ssa_opts so = { .loop_bound = 2 };
	struct diag d = {0};
	struct smt_precheck pc;
	struct check_result r;
	struct ssa_prog *sp;
	static char reason[sizeof(r.reason)];

	p->func.prog_type = BPF_PROG_TYPE_XDP;
	c->prog = "prog";
	c->inv = "small_ret";
	c->name = "prog.small_ret";
	c->file = "test.inv";
	c->asserts = arena_alloc(A, sizeof(*c->asserts));
	c->asserts[0] = (struct mon_assert){ .file = "test.inv", .msg = "r", .text = "ret < 3" };
	c->nasserts = 1;
	add(h, sassert(0, bin(SPEC_BIN_LT, ex(MON_RET, 0), num(3))));
	ck_assert_int_eq(ssa_build(&p->o, 0, p->l.insns, &so, A, &d, &sp), 0);
	ck_assert_ptr_null(sp->unsupported);
	smt_precheck(sp, A, &pc);
	*pre = pc.unsupported ? pc.unsupported : "";
	check_run(&p->l, c, &co, &r);
	*verdict = r.verdict;
	snprintf(reason, sizeof(reason), "%s", r.reason);
	check_result_free(&r);
	return reason;
}

/* ssa_undef.c: a kfunc's argument registers (its BTF prototype's
 * parameters) must be set; without a prototype they are not checked. */
static const char *kfunc_lift(const char *proto, const char *text)
{
	struct aprog *p = aprog(text);
	struct ssa_opts so = { .loop_bound = 2 };
	struct diag d = {0};
	struct ssa_prog *sp;
	uint32_t i;

	p->kf.proto = proto;
	for (i = 0; i < p->sec.nslots; i++)      /* as insn_resolve() does */
		if (p->insns[i].op == ISA_CALL && p->insns[i].src == 2)
			p->insns[i].ref = (struct insn_ref){ .kind = INSN_REF_KFUNC, .index = 0 };
	ck_assert_int_eq(ssa_build(&p->o, 0, p->l.insns, &so, A, &d, &sp), 0);
	return sp->unsupported ? sp->unsupported : "";
}

START_TEST(kfunc_arguments_must_be_set)
{
	static const char unset[] = "a kfunc call with an argument register that is not initialised on its path";
	/* the second call: r1-r5 are unset after the first, r1 is set again */
	static const char one[] = "call kfunc 0\nmov %r1, 1\ncall kfunc 0\nmov %r0, 0\nexit\n";
	static const char two[] = "call kfunc 0\nmov %r1, 1\nmov %r2, 2\ncall kfunc 0\nmov %r0, 0\nexit\n";
	static const char none[] = "call kfunc 0\ncall kfunc 0\nmov %r0, 0\nexit\n";

	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64, u64)", one), unset);
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64, u64)", two), "");
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64 (*)(u64, u64), u64)", one), unset);
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64 (*)(u64, u64), u64)", two), "");
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64, ...)", one), "");
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64)", one), "");
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(u64)", none), unset);
	ck_assert_str_eq(kfunc_lift("void bpf_test_kfunc(void)", none), "");
	ck_assert_str_eq(kfunc_lift(NULL, none), "");
}
END_TEST

/* Registers the verifier calls NOT_INIT, read on some paths only (a
 * fuzzed program the verifier rejects): the SSA value undef, 0 in the
 * encoder and in the interpreter alike. TEXT is an XDP program whose
 * local calls go to the function at "f:" (resolved as the loader does);
 * the spec is "ret OP K" at the exit; the whole pipeline (search, absint,
 * Z3, replay). Each program reads the register only when the context's
 * ingress_ifindex (offset 12) is 7 and returns 1 otherwise; the value
 * physically left in the register is 2. When the encoder gave undef a
 * fresh value and the interpreter kept registers as they were, "ret > 0"
 * was an internal error (the model's 0 replayed as 2) and "ret < 2" was
 * violated by the kept 2 (the concrete search's input). */
static void undef_verdict(const char *text, enum spec_binop op, uint64_t k,
			  struct check_result *r)
{
	struct aprog *p = aprog(text);
	struct mon_check *c = check_new(0);
	struct mon_handler *h = on(c, SPEC_EV_EXIT, -1);
	struct check_opts co = { .loop_bound = 2, .timeout_ms = 10000 };
	struct obj_func *fn = arena_new_array(A, struct obj_func, 2);
	uint32_t i, fstart = 0;

	for (i = 0; i < p->sec.nslots; i++)
		if (p->insns[i].op == ISA_CALL && p->insns[i].src == ISA_CALL_LOCAL)
			fstart = i + 1 + (uint32_t)p->insns[i].imm;
	for (i = 0; i < p->sec.nslots; i++) {
		if (p->insns[i].op != ISA_CALL)
			continue;
		if (p->insns[i].src == ISA_CALL_LOCAL)
			p->insns[i].ref = (struct insn_ref){ .kind = INSN_REF_SUBPROG, .index = 1,
							     .sec = 0, .target = fstart };
		else
			p->insns[i].ref = (struct insn_ref){ .kind = INSN_REF_HELPER,
							     .index = p->insns[i].imm };
	}
	fn[0] = p->func;
	fn[0].prog_type = BPF_PROG_TYPE_XDP;
	fn[0].struct_ops = -1;
	if (fstart) {
		fn[0].nslots = fstart;
		fn[1] = (struct obj_func){ .name = "f", .sec = 0, .start = fstart,
					   .nslots = p->sec.nslots - fstart, .struct_ops = -1 };
	}
	p->o.funcs = fn;
	p->o.nfuncs = fstart ? 2 : 1;
	c->prog = "prog";
	c->inv = "ret";
	c->name = "prog.ret";
	c->file = "test.inv";
	c->asserts = arena_alloc(A, sizeof(*c->asserts));
	c->asserts[0] = (struct mon_assert){ .file = "test.inv", .msg = "r", .text = "ret OP K" };
	c->nasserts = 1;
	add(h, sassert(0, bin(op, ex(MON_RET, 0), num(k))));
	check_run(&p->l, c, &co, r);
}

/* The counterexample of R: ingress_ifindex 7, replayed to r0 = 0. */
static void undef_cex(const struct check_result *r)
{
	const struct cex_region *ctx = NULL;
	unsigned i;

	ck_assert_msg(r->verdict == CHECK_VIOLATED, "%s: %s", check_verdict_name(r->verdict),
		      r->reason);
	ck_assert_uint_eq(r->site, 0);
	ck_assert_int_eq(r->replay.outcome, REPLAY_ASSERT_FAILED);
	ck_assert_int_eq(r->replay.event, SPEC_EV_EXIT);
	ck_assert_uint_eq(r->replay.r0, 0);
	ck_assert_str_eq(r->replay.msg, "assert 0 failed at exit: r0 = 0");
	for (i = 0; i < r->cex->nregions; i++)
		if (r->cex->regions[i].kind == INTERP_MEM_CTX)
			ctx = &r->cex->regions[i];
	ck_assert_ptr_nonnull(ctx);
	ck_assert_uint_ge(ctx->size, 16);
	ck_assert_uint_eq(ctx->bytes[12] | ctx->bytes[13] << 8 | ctx->bytes[14] << 16 |
			  (uint32_t)ctx->bytes[15] << 24, 7);
}

START_TEST(undefined_on_some_paths)
{
	static const char *const progs[] = {
		/* (a) a callee's r0 before it writes it (the caller's r0 is 2) */
		"ldxw %r2, [%r1+12]\nmov %r0, 2\ncall local f\nexit\n"
		"f:\njeq %r2, 7, +1\nmov %r0, 1\nexit\n",
		/* (b) a callee's r6 (the caller's is 2) */
		"ldxw %r2, [%r1+12]\nmov %r6, 2\ncall local f\nexit\n"
		"f:\nmov %r0, 1\njne %r2, 7, +1\nmov %r0, %r6\nexit\n",
		/* (c) r2 after a helper call (2 before it) */
		"ldxw %r6, [%r1+12]\nmov %r2, 2\ncall 7\nmov %r0, 1\n"
		"jne %r6, 7, +1\nmov %r0, %r2\nexit\n",
		/* (d) r1 after a subprogram returns (2, the callee keeps it) */
		"ldxw %r6, [%r1+12]\nmov %r1, 2\ncall local f\nmov %r0, 1\n"
		"jne %r6, 7, +1\nmov %r0, %r1\nexit\n"
		"f:\nmov %r0, 5\nexit\n",
	};
	struct check_result r;
	unsigned i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		/* ret > 0: violated where the register is read (0) */
		undef_verdict(progs[i], SPEC_BIN_GT, 0, &r);
		undef_cex(&r);
		check_result_free(&r);
		/* ret < 2: holds (0 or 1; never a kept 2) */
		undef_verdict(progs[i], SPEC_BIN_LT, 2, &r);
		ck_assert_msg(r.verdict == CHECK_HOLDS, "prog %u: %s: %s", i,
			      check_verdict_name(r.verdict), r.reason);
		check_result_free(&r);
	}
}
END_TEST

/* The bound insns <= BOUND of TEXT (an XDP program), with Z3. */
static void bound_of(const char *text, uint64_t bound, struct check_result *r)
{
	struct aprog *p = aprog(text);
	struct mon_check *c = check_new(0);
	struct check_opts co = { .loop_bound = 2, .timeout_ms = 10000 };

	p->func.prog_type = BPF_PROG_TYPE_XDP;
	c->prog = "prog";
	c->inv = "bound_insns";
	c->name = "prog.bound_insns";
	c->file = "test.inv";
	c->asserts = arena_alloc(A, sizeof(*c->asserts));
	c->asserts[0] = (struct mon_assert){ .file = "test.inv", .text = "insns <= N",
					     .msg = "bound exceeded", .handler = UINT_MAX };
	c->nasserts = 1;
	c->has_bound = true;
	c->bound = bound;
	c->uses_insns = true;
	check_run(&p->l, c, &co, r);
}

START_TEST(accesses_outside_are_not_modelled)
{
	static const char outside[] = "a context access outside the context (the verifier rejects it)";
	static const char *const cases[] = {
		/* the fuzzer's program, reduced: a pointer loaded from ctx - 5 */
		"ldxw %r2, [%r1-5]\nldxb %r0, [%r2+12]\nexit\n",
		/* the first byte past the context, a word across its end, the
		 * offset added first, a store and an atomic before it */
		"ldxb %r0, [%r1+256]\nexit\n",
		"ldxw %r0, [%r1+253]\nexit\n",
		"add %r1, 200\nldxdw %r0, [%r1+49]\nexit\n",
		"mov %r0, 0\nstw [%r1-4], 0\nexit\n",
		"mov %r0, 0\nmov %r2, 1\nlock add [%r1-8], %r2\nexit\n",
	};
	enum check_verdict v;
	const char *pre;
	char want[300];
	unsigned i;

	snprintf(want, sizeof(want), "not modelled: %s", outside);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_str_eq(verdict_of(cases[i], &v, &pre), want);
		ck_assert_int_eq(v, CHECK_UNKNOWN);
		ck_assert_str_eq(pre, outside);
	}
	/* an offset from the context's bytes: not constant */
	ck_assert_str_eq(verdict_of("ldxb %r2, [%r1+16]\nadd %r1, %r2\nldxb %r0, [%r1+0]\nexit\n",
				    &v, &pre),
			 "not modelled: a context access at an offset that is not constant (the verifier rejects it)");
	ck_assert_str_eq(pre, "a context access at an offset that is not constant (the verifier rejects it)");
	/* the last word inside is modelled: a counterexample that replays */
	ck_assert_str_eq(verdict_of("ldxw %r0, [%r1+252]\nexit\n", &v, &pre), "");
	ck_assert_int_eq(v, CHECK_VIOLATED);
	ck_assert_str_eq(pre, "");
	/* unchecked packet loads: 500 bytes past data (the model's packet is
	 * shorter: at most 64 bytes preferred) and 300 before it (data is 256
	 * past the packet's base) */
	ck_assert_str_eq(verdict_of("ldxw %r2, [%r1+0]\nldxb %r0, [%r2+500]\nexit\n", &v, &pre),
			 "not modelled: a load of 1 bytes at 0x400002f4 through a pointer into the packet "
			 "outside its memory on the model's path (the verifier rejects it)");
	ck_assert_int_eq(v, CHECK_UNKNOWN);
	ck_assert_str_eq(pre, "");
	ck_assert_str_eq(verdict_of("ldxw %r2, [%r1+0]\nldxb %r0, [%r2-300]\nexit\n", &v, &pre),
			 "not modelled: a load of 1 bytes at 0x3fffffd4 through a pointer into the packet "
			 "outside its memory on the model's path (the verifier rejects it)");
	/* a checked one is modelled */
	ck_assert_str_eq(verdict_of("ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r0, 0\n"
				    "mov %r4, %r2\nadd %r4, 501\njgt %r4, %r3, +1\n"
				    "ldxb %r0, [%r2+500]\nexit\n", &v, &pre), "");
	ck_assert_int_eq(v, CHECK_VIOLATED);
}
END_TEST

/* A bound's worst case through an unchecked packet load: the bound holds
 * (every run of the model is within it), the worst case is not reported;
 * a violated bound through it is unknown. With the load checked, the
 * worst case and its input. */
START_TEST(worst_case_outside_is_not_reported)
{
	static const char unchecked[] = "ldxw %r2, [%r1+0]\nldxb %r0, [%r2+500]\nexit\n";
	static const char why[] = "a load of 1 bytes at 0x400002f4 through a pointer into the packet "
				  "outside its memory on the model's path (the verifier rejects it)";
	struct check_result r;
	char want[300];

	bound_of(unchecked, 10, &r);
	ck_assert_int_eq(r.verdict, CHECK_HOLDS);
	ck_assert(!r.has_worst);
	ck_assert_ptr_null(r.witness);
	ck_assert_uint_eq(r.nnotes, 1);
	snprintf(want, sizeof(want), "the worst case is not known: %s", why);
	ck_assert_str_eq(r.notes[0], want);
	check_result_free(&r);

	bound_of(unchecked, 2, &r);
	ck_assert_int_eq(r.verdict, CHECK_UNKNOWN);
	snprintf(want, sizeof(want), "not modelled: %s", why);
	ck_assert_str_eq(r.reason, want);
	ck_assert_ptr_null(r.cex);
	check_result_free(&r);

	bound_of("ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r0, 0\nmov %r4, %r2\n"
		 "add %r4, 501\njgt %r4, %r3, +1\nldxb %r0, [%r2+500]\nexit\n", 10, &r);
	ck_assert_int_eq(r.verdict, CHECK_HOLDS);
	ck_assert(r.has_worst);
	ck_assert_uint_eq(r.worst, 8);
	ck_assert_ptr_nonnull(r.witness);
	ck_assert_uint_eq(r.nnotes, 0);
	check_result_free(&r);
}
END_TEST

START_TEST(replay_reads_in_order)
{
	struct aprog *p = aprog("lddw %r1, 0xdead0000\nldxw %r0, [%r1+4]\n"
				"ldxb %r2, [%r1+0]\nadd %r0, %r2\nexit\n");
	struct mon_check *c = check_new(0);
	struct cex_read reads[2] = { { 0xdead0004, 4, 0x100 },
				     { 0xdead0000, 1, 0x1ff } };
	struct cex x = { .func = 0, .reads = reads, .nreads = 2 };

	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_EXITED);
	ck_assert_uint_eq(R.r0, 0x1ff);    /* 0x100 + (u8)0x1ff */
	reads[1].addr = 0xdead0001;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	MSG("load of 1 bytes at 0xdead0000 (asm+3) is in no region, the "
	    "counterexample expected 1 bytes at 0xdead0001 (read 1)");
	x.nreads = 1;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	ck_assert_int_eq(R.event, SPEC_EV_EXIT);
	MSG("load of 1 bytes at 0xdead0000 (asm+3) is in no region, the "
	    "counterexample has no more reads (1 made)");
	replay_result_free(&R);
}
END_TEST

/* ---- bpf_loop --------------------------------------------------------- */

/* bpf_loop(5, cb, 0, FLAGS); cb calls get_prandom_u32 and stops at k = 2 */
#define LOOP_ASM(flags) \
	"mov %r1, 5\n" \
	"lddw %r2, 0\n" \
	"mov %r3, 0\n" \
	"mov %r4, " flags "\n" \
	"call 181\n" \
	"exit\n" \
	"mov %r6, %r1\n" \
	"call 7\n" \
	"mov %r0, 0\n" \
	"jne %r6, 2, +1\n" \
	"mov %r0, 1\n" \
	"exit\n"

START_TEST(bpf_loop_in_asm)
{
	struct aprog *p, *q;
	struct mon_check *c = check_new(0);
	struct mon_handler *h;
	struct cex_call calls[4];
	struct cex x = { .func = 0, .calls = calls, .ncalls = 4 };
	int rnd;
	unsigned i;

	p = aprog(LOOP_ASM("0"));
	q = aprog(LOOP_ASM("1"));
	p->insns[1].ref = (struct insn_ref){ .kind = INSN_REF_CALLBACK,
					      .index = 0, .sec = 0, .target = 7 };
	q->insns[1].ref = p->insns[1].ref;
	calls[0] = (struct cex_call){ .sec = 0, .slot = 5, .helper = 181,
				      .kfunc = -1, .ret = 12345 };
	for (i = 1; i < 4; i++)
		calls[i] = (struct cex_call){ .sec = 0, .slot = 8, .helper = 7,
					      .kfunc = -1, .ret = i };
	rnd = counter(c, 7);
	h = on(c, SPEC_EV_CALL, 181);
	add(h, sassert(0, eq(idx(MON_ARG, 2), REPLAY_FUNC_ADDR(0, 7))));
	add(h, sassert(1, eq(ex(MON_INSNS, 0), 4)));
	h = on(c, SPEC_EV_RETURN, 181);
	add(h, sassert(2, eq(ex(MON_RET, 0), 3)));
	add(h, sassert(3, eq(ex(MON_INSNS, 0), 21)));
	add(h, sassert(4, eq(idx(MON_CALLED, rnd), 3)));
	add(h, sassert(5, eq(idx(MON_ARG, 1), 5)));
	h = on(c, SPEC_EV_RETURN, 7);
	add(h, sassert(6, bin(SPEC_BIN_LE, ex(MON_RET, 0), num(3))));
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(7, eq(ex(MON_INSNS, 0), 22)));
	add(h, sassert(8, num(0)));
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_ASSERT_FAILED);
	MSG("assert 8 failed at exit: r0 = 3");
	ck_assert_uint_eq(R.steps, 22);
	ck_assert_uint_eq(R.npath, 22);
	ck_assert_uint_eq(R.path[5].slot, 7);    /* into the callback */
	ck_assert_uint_eq(R.path[21].slot, 6);
	/* a callback call the cex does not have */
	x.ncalls = 3;
	ck_assert_int_eq(replay(&p->l, c, &x), REPLAY_DIVERGED);
	MSG("call at asm+8 is bpf_get_prandom_u32, the counterexample has no "
	    "more calls (3 made)");
	/* flags != 0: -EINVAL, the callback does not run */
	x.ncalls = 1;
	c->handlers[1].n = 0;
	c->handlers[3].body[0] = sassert(7, eq(ex(MON_INSNS, 0), 6));
	ck_assert_int_eq(replay(&q->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 8);
	ck_assert_uint_eq(R.r0, (uint64_t)-EINVAL);
	replay_result_free(&R);
}
END_TEST

/* ---- the examples ----------------------------------------------------- */

struct exo {
	struct diag d;
	struct loaded l;
	int func;
};

static struct exo *ex_open(const char *name, const char *prog)
{
	struct exo *e = arena_alloc(A, sizeof(*e));

	ck_assert_int_eq(check_load(example(name), A, &e->d, &e->l), 0);
	e->func = object_find_func(e->l.o, prog);
	ck_assert_int_ge(e->func, 0);
	return e;
}

static int map_named(const struct object *o, const char *suffix)
{
	uint32_t i;
	size_t n = strlen(suffix);

	for (i = 0; i < o->nmaps; i++) {
		size_t m = strlen(o->maps[i].name);

		if (m >= n && !strcmp(o->maps[i].name + m - n, suffix))
			return (int)i;
	}
	ck_abort_msg("no map %s", suffix);
	return -1;
}

#define PKT_BASE 0x20000000ull
#define CTX_BASE INTERP_BASE(INTERP_MEM_CTX, 8)

/* xdp_md { data, data_end, data_meta, ingress_ifindex, rx_queue_index,
 * egress_ifindex } over PKT of LEN bytes */
static void xdp_ctx(uint8_t ctx[24], uint32_t len)
{
	uint32_t data = (uint32_t)PKT_BASE, end = data + len;

	memset(ctx, 0, 24);
	memcpy(ctx, &data, 4);
	memcpy(ctx + 4, &end, 4);
	memcpy(ctx + 8, &data, 4);
	ctx[12] = 3;                       /* ingress_ifindex */
}

/* Ethernet + IPv4 (ihl 5) + L4 header with protocol PROTO, dport DPORT. */
static void ipv4_packet(uint8_t *pkt, uint8_t proto, uint16_t dport)
{
	memset(pkt, 0, 64);
	pkt[12] = 0x08;
	pkt[14] = 0x45;
	pkt[23] = proto;
	pkt[26] = 10;
	pkt[36] = (uint8_t)(dport >> 8);
	pkt[37] = (uint8_t)dport;
}

START_TEST(xdp_fw_ssh_passes)
{
	struct exo *e = ex_open("xdp_fw", "xdp_fw");
	int cmap = map_named(e->l.o, "counters");
	uint64_t vb = INTERP_BASE(INTERP_MEM_MAP_VALUE, cmap);
	uint8_t ctx[24], pkt[64], vals[3][8] = {{0}};
	struct cex_region regs[5] = {
		{ INTERP_MEM_CTX, "ctx", CTX_BASE, 24, ctx, false, -1 },
		{ INTERP_MEM_PACKET, "packet", PKT_BASE, 64, pkt, true, -1 },
		{ INTERP_MEM_MAP_VALUE, "counters[3]", vb + 24, 8, vals[0], true, cmap },
		{ INTERP_MEM_MAP_VALUE, "counters[2]", vb + 16, 8, vals[1], true, cmap },
		{ INTERP_MEM_MAP_VALUE, "counters[0]", vb, 8, vals[2], true, cmap },
	};
	struct cex_call calls[3] = {
		{ .sec = 0, .slot = 64, .helper = 1, .kfunc = -1, .ret = vb + 24 },
		{ .sec = 0, .slot = 76, .helper = 1, .kfunc = -1, .ret = vb + 16 },
		{ .sec = 0, .slot = 86, .helper = 1, .kfunc = -1, .ret = vb },
	};
	struct cex x = { .func = e->func, .args = { CTX_BASE }, .regions = regs,
			 .nregions = 5, .pkt = PKT_BASE, .pkt_end = PKT_BASE + 64,
			 .calls = calls, .ncalls = 3 };
	struct mon_check *c = check_new(e->func);
	struct mon_handler *h;
	struct mon_expr *pkt_e = ex(MON_PKT, 0), *cond;
	struct mon_stmt *s;
	int lookups = counter(c, 1);
	unsigned i;

	xdp_ctx(ctx, 64);
	ipv4_packet(pkt, 6, 22);
	for (i = 0; i < 3; i++)
		calls[i].sec = e->l.o->funcs[e->func].sec;
	/* if (pkt_len >= 54 && be16(pkt + 12) == 0x800 && u8(pkt + 14) == 0x45
	 *     && u8(pkt + 23) == 6 && be16(pkt + 36) == 22) assert ret == 2 */
	cond = bin(SPEC_BIN_LAND,
		   bin(SPEC_BIN_LAND,
		       bin(SPEC_BIN_GE, ex(MON_PKT_LEN, 0), num(54)),
		       eq(load(2, true, bin(SPEC_BIN_ADD, pkt_e, num(12))), 0x800)),
		   bin(SPEC_BIN_LAND,
		       bin(SPEC_BIN_LAND,
			   eq(load(1, false, bin(SPEC_BIN_ADD, pkt_e, num(14))), 0x45),
			   eq(load(1, false, bin(SPEC_BIN_ADD, pkt_e, num(23))), 6)),
		       eq(load(2, true, bin(SPEC_BIN_ADD, pkt_e, num(36))), 22)));
	s = stmt(MON_S_IF, cond);
	s->then = arena_new_array(A, struct mon_stmt *, 1);
	s->then[0] = sassert(0, eq(ex(MON_RET, 0), 2));
	s->nthen = 1;
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, s);
	add(h, sassert(1, eq(load(8, false, num(vb + 24)), 1)));
	add(h, sassert(2, eq(load(8, false, num(vb + 16)), 1)));
	add(h, sassert(3, eq(load(8, false, num(vb)), 1)));
	add(h, sassert(4, eq(idx(MON_CALLED, lookups), 3)));
	add(h, sassert(5, eq(ex(MON_INSNS, 0), 64)));
	add(h, sassert(6, eq(sized(MON_CTX, 0, -1, 12, 4), 3)));
	h = on(c, SPEC_EV_CALL, 1);
	add(h, sassert(7, eq(idx(MON_ARG, 1), REPLAY_MAP_HANDLE(cmap))));
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_EXITED);
	MSG("exited with r0 = 2 after 64 instructions, no assert failed");
	ck_assert_uint_eq(vals[0][0], 0);  /* the cex's bytes stay */

	/* the same run against ret == XDP_DROP */
	s->then[0] = sassert(0, eq(ex(MON_RET, 0), 1));
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 0);
	MSG("assert 0 failed at exit: r0 = 2");
	/* not SSH: the if does not apply (the run diverges at the 2nd call) */
	pkt[37] = 23;
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_DIVERGED);
	MSG("call at xdp+107 is bpf_map_lookup_elem, the counterexample "
	    "expected bpf_map_lookup_elem at xdp+76 (call 1)");
	replay_result_free(&R);
	check_unload(&e->l);
}
END_TEST

START_TEST(loop_sum_bpf_loop_and_globals)
{
	struct exo *e = ex_open("loop_sum", "loop_sum");
	const struct object *o = e->l.o;
	int mro = map_named(o, ".rodata"), mda = map_named(o, ".data");
	int mbs = map_named(o, ".bss");
	uint8_t ctx[24], pkt[16], ro[8] = { 3 }, da[4] = { 5 };
	uint8_t bs[16] = { 100, 0, 0, 0, 0, 0, 0, 0, 7 };
	struct cex_region regs[5] = {
		{ INTERP_MEM_CTX, "ctx", CTX_BASE, 24, ctx, false, -1 },
		{ INTERP_MEM_PACKET, "packet", PKT_BASE, 16, pkt, true, -1 },
		{ INTERP_MEM_GLOBAL, ".rodata", INTERP_BASE(INTERP_MEM_GLOBAL, mro),
		  8, ro, false, mro },
		{ INTERP_MEM_GLOBAL, ".data", INTERP_BASE(INTERP_MEM_GLOBAL, mda),
		  4, da, true, mda },
		{ INTERP_MEM_GLOBAL, ".bss", INTERP_BASE(INTERP_MEM_GLOBAL, mbs),
		  16, bs, true, mbs },
	};
	struct cex_call call = { .sec = 1, .slot = 26, .helper = 181,
				 .kfunc = -1, .ret = 0 };
	struct cex x = { .func = e->func, .args = { CTX_BASE }, .regions = regs,
			 .nregions = 5, .pkt = PKT_BASE, .pkt_end = PKT_BASE + 16,
			 .calls = &call, .ncalls = 1 };
	struct mon_check *c = check_new(e->func);
	struct mon_handler *h;
	uint32_t acc = 136, i;
	int dsd = o->maps[mda].datasec, dsb = o->maps[mbs].datasec;

	for (i = 0; i < 16; i++)
		pkt[i] = (uint8_t)(i + 1);
	xdp_ctx(ctx, 16);
	for (i = 0; i < 3; i++)
		acc = (acc ^ (5 + i)) * 0x01000193u;
	ck_assert_str_eq(o->sections[o->funcs[e->func].sec].name, "xdp");
	call.sec = o->funcs[e->func].sec;
	h = on(c, SPEC_EV_CALL, 181);
	add(h, sassert(0, eq(ex(MON_INSNS, 0), 158)));
	add(h, sassert(1, eq(idx(MON_ARG, 1), 3)));
	h = on(c, SPEC_EV_RETURN, 181);
	add(h, sassert(2, eq(ex(MON_RET, 0), 3)));
	add(h, sassert(3, eq(ex(MON_INSNS, 0), 183)));
	add(h, sassert(4, eq(sized(MON_GLOBAL, mda, dsd, 0, 4), 5)));
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(5, eq(sized(MON_GLOBAL, mda, dsd, 0, 4), acc)));
	add(h, sassert(6, eq(sized(MON_GLOBAL, mbs, dsb, 0, 8), 236)));
	add(h, sassert(7, eq(sized(MON_GLOBAL, mbs, dsb, 8, 8), 8)));
	add(h, sassert(8, eq(ex(MON_INSNS, 0), 196)));
	add(h, sassert(9, eq(ex(MON_RET, 0), 2)));
	add(h, sassert(10, num(0)));
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_ASSERT_FAILED);
	MSG("assert 10 failed at exit: r0 = 2");
	ck_assert_uint_eq(R.steps, 196);
	ck_assert_uint_eq(R.npath, 196);
	ck_assert_int_eq(R.path[159].sec,        /* the callback in .text */
			 o->funcs[object_find_func(o, "stir_round")].sec);
	ck_assert_uint_eq(R.path[159].slot, 0);
	ck_assert_uint_eq(bs[8], 7);
	/* the bound: at exit, after the handlers */
	c->handlers[2].n = 5;
	c->has_bound = true;
	c->bound = 195;
	c->bound_site = 11;
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 11);
	ck_assert_int_eq(R.event, SPEC_EV_EXIT);
	c->bound = 196;
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_EXITED);
	replay_result_free(&R);
	check_unload(&e->l);
}
END_TEST

START_TEST(tailcall_taken_and_not)
{
	struct exo *e = ex_open("tailcall", "tail_entry");
	const struct object *o = e->l.o;
	int jt = map_named(o, "jmp_table");
	int mbs = map_named(o, ".bss"), dsb = o->maps[mbs].datasec;
	uint8_t ctx[24], pkt[64];
	struct cex_region regs[2] = {
		{ INTERP_MEM_CTX, "ctx", CTX_BASE, 24, ctx, false, -1 },
		{ INTERP_MEM_PACKET, "packet", PKT_BASE, 64, pkt, true, -1 },
	};
	struct cex_call call = { .sec = o->funcs[e->func].sec, .slot = 104,
				 .helper = 12, .kfunc = -1, .tail_taken = true,
				 .tail_ret = 1 };
	struct cex x = { .func = e->func, .args = { CTX_BASE }, .regions = regs,
			 .nregions = 2, .pkt = PKT_BASE, .pkt_end = PKT_BASE + 64,
			 .calls = &call, .ncalls = 1 };
	struct mon_check *c = check_new(e->func);
	struct mon_handler *h;

	xdp_ctx(ctx, 64);
	ipv4_packet(pkt, 6, 80);
	h = on(c, SPEC_EV_CALL, 12);
	add(h, sassert(0, eq(idx(MON_ARG, 1), CTX_BASE)));
	add(h, sassert(1, eq(idx(MON_ARG, 2), REPLAY_MAP_HANDLE(jt))));
	add(h, sassert(2, eq(idx(MON_ARG, 3), 0)));
	add(h, sassert(3, eq(ex(MON_INSNS, 0), 26)));
	h = on(c, SPEC_EV_RETURN, 12);
	add(h, sassert(4, eq(ex(MON_RET, 0), 0)));
	add(h, sassert(5, eq(ex(MON_INSNS, 0), 27)));
	h = on(c, SPEC_EV_EXIT, -1);
	add(h, sassert(6, eq(ex(MON_INSNS, 0), 27)));
	add(h, sassert(7, eq(sized(MON_GLOBAL, mbs, dsb, 0, 8), 0)));
	add(h, sassert(8, bin(SPEC_BIN_NE, ex(MON_RET, 0), num(1))));
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_ASSERT_FAILED);
	ck_assert_uint_eq(R.site, 8);
	ck_assert_uint_eq(R.steps, 27);
	ck_assert_uint_eq(R.r0, 1);
	MSG("assert 8 failed at exit: r0 = 1");
	ck_assert_uint_eq(R.path[R.npath - 1].slot, 104);

	/* not taken: r0 = the error, tail_misses counted in .bss, XDP_PASS */
	call.tail_taken = false;
	call.ret = (uint64_t)-2;
	c->handlers[1].body[0] = sassert(4, eq(ex(MON_RET, 0), (uint64_t)-2));
	c->handlers[2].body[0] = sassert(6, eq(ex(MON_INSNS, 0), 32));
	c->handlers[2].body[1] = sassert(7, eq(sized(MON_GLOBAL, mbs, dsb, 0, 8), 1));
	c->handlers[2].body[2] = sassert(8, eq(ex(MON_RET, 0), 2));
	ck_assert_int_eq(replay(&e->l, c, &x), REPLAY_EXITED);
	ck_assert_uint_eq(R.r0, 2);
	ck_assert_uint_eq(R.steps, 32);
	replay_result_free(&R);
	check_unload(&e->l);
}
END_TEST

/* The JSON writers of counterexamples (report.c): strings escaped byte by
 * byte where needed and copied in runs between, bytes as two lowercase hex
 * digits each, also across the writer's 128-byte buffer. */
START_TEST(json_strings_and_bytes)
{
	uint8_t b[300];
	char *buf = NULL, want[2 * 300 + 3];
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	report_json_str(f, "plain");
	report_json_str(f, "a\"b\\c\n\001d\"");
	report_json_str(f, "");
	report_json_str(f, NULL);
	fclose(f);
	ck_assert_str_eq(buf, "\"plain\"\"a\\\"b\\\\c\\u000a\\u0001d\\\"\"\"\"\"\"");
	free(buf);
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 7 + 3);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	report_json_hex(f, b, sizeof(b));
	report_json_hex(f, b, 0);
	fclose(f);
	want[0] = '"';
	for (i = 0; i < sizeof(b); i++)
		snprintf(want + 1 + 2 * i, 3, "%02x", b[i]);
	strcpy(want + 1 + 2 * sizeof(b), "\"");
	ck_assert_uint_eq(len, sizeof(want) - 1 + 2);
	ck_assert_int_eq(strncmp(buf, want, sizeof(want) - 1), 0);
	ck_assert_str_eq(buf + sizeof(want) - 1, "\"\"");
	free(buf);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("replay");
	SRunner *sr;
	int failed;

	objects = argv + 1;
	nobjects = argc - 1;
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, outcome_names);
	tcase_add_test(tc, json_strings_and_bytes);
	tcase_add_test(tc, assert_fails_at_exit_with_its_site);
	tcase_add_test(tc, assume_and_entry);
	tcase_add_test(tc, calls_args_ret_insns_called);
	tcase_add_test(tc, diverged);
	tcase_add_test(tc, diverged_kfunc);
	tcase_add_test(tc, interp_outcomes);
	tcase_add_test(tc, bad_cex_is_einval);
	tcase_add_test(tc, expr_arith_and_division);
	tcase_add_test(tc, expr_compare_logic_cast);
	tcase_add_test(tc, expr_sets_ranges_names);
	tcase_add_test(tc, expr_loads);
	tcase_add_test(tc, ctx_at_entry_memory_at_event);
	tcase_add_test(tc, pkt_written_stores_and_calls);
	tcase_add_test(tc, globals_from_the_object_or_the_cex);
	tcase_add_test(tc, interp_load_unmapped_hook);
	tcase_add_test(tc, replay_reads_in_order);
	tcase_add_test(tc, accesses_outside_are_not_modelled);
	tcase_add_test(tc, worst_case_outside_is_not_reported);
	tcase_add_test(tc, kfunc_arguments_must_be_set);
	tcase_add_test(tc, undefined_on_some_paths);
	tcase_add_test(tc, bpf_loop_in_asm);
	tcase_add_test(tc, xdp_fw_ssh_passes);
	tcase_add_test(tc, loop_sum_bpf_loop_and_globals);
	tcase_add_test(tc, tailcall_taken_and_not);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
