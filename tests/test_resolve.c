/* test_resolve.c - spec resolution against the example objects
 * (spec_resolve.c, spec_expr.c). Arguments: the source root, then the
 * example objects (build/examples/NAME.bpf.o). Fixture packs live in
 * tests/data/resolve/packs (the pack path of every test), files for the
 * import errors in tests/data/resolve/bad. Specs written inline are parsed
 * as DATA/t.inv, so their diagnostics read "DATA/t.inv:L:C: error: ...".
 * Every ```inv block of docs/spec-language.md that starts with
 * "# object: NAME" is resolved against NAME as well.
 */
#define _GNU_SOURCE  /* mkstemps */
#include "monitor.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *src_root;
static char data_dir[1024];
static char *const *objs;
static int nobjs;

struct capture {
	unsigned n;
	char first[1024];
};

static void sink(void *arg, const struct diag_msg *m)
{
	struct capture *c = arg;

	if (c->n++ == 0)
		diag_format(m, c->first, sizeof(c->first));
}

static const char *obj_path(const char *name)
{
	char want[256];

	snprintf(want, sizeof(want), "/%s.bpf.o", name);
	for (int i = 0; i < nobjs; i++) {
		size_t l = strlen(objs[i]), w = strlen(want);

		if (l >= w && !strcmp(objs[i] + l - w, want))
			return objs[i];
	}
	ck_abort_msg("no object %s among the arguments", name);
	return NULL;
}

/* Objects opened by load(), closed (their BTF freed) by done(). */
static struct object *opened[256];
static unsigned nopened;

static struct object *load(struct arena *a, const char *name)
{
	struct diag d = {0};
	struct object *o = NULL;

	ck_assert_int_eq(object_open(obj_path(name), a, &d, &o), 0);
	ck_assert_uint_lt(nopened, ARRAY_SIZE(opened));
	opened[nopened++] = o;
	return o;
}

static void done(struct arena *a)
{
	while (nopened)
		object_close(opened[--nopened]);
	arena_free(a);
}

static int func_of(const struct object *o, const char *name)
{
	int i = object_find_func(o, name);

	ck_assert_msg(i >= 0, "no function %s", name);
	return i;
}

static struct resolve_opts default_opts(void)
{
	static char packs[1100];
	static const char *dirs[1];

	snprintf(packs, sizeof(packs), "%s/packs", data_dir);
	dirs[0] = packs;
	return (struct resolve_opts){ .pack_dirs = dirs, .npack_dirs = 1 };
}

/* Resolve TEXT (as DATA/t.inv) against O; C gets the diagnostic. */
static int run(const char *text, const struct object *o,
	       const struct resolve_opts *opts, struct arena *a,
	       struct capture *c, struct mon_set **set)
{
	struct diag d = { .sink = sink, .arg = c };
	struct resolve_opts def = default_opts();
	char *file = arena_printf(a, "%s/t.inv", data_dir);
	struct spec *s = NULL;
	int err;

	memset(c, 0, sizeof(*c));
	ck_assert_msg(!spec_parse(text, strlen(text), file, a, &d, &s),
		      "parse: %s", c->first);
	*set = NULL;
	err = spec_resolve(s, o, opts ? opts : &def, a, &d, set);
	ck_assert_uint_eq(d.errors, err ? 1 : 0);
	if (!err)
		ck_assert_ptr_nonnull(*set);
	return err;
}

static struct mon_set *ok(const char *text, const struct object *o,
			  const struct resolve_opts *opts, struct arena *a)
{
	struct capture c;
	struct mon_set *set;

	ck_assert_msg(!run(text, o, opts, a, &c, &set), "%s\nfor:\n%s", c.first, text);
	return set;
}

/* EXPECT with $D -> the data directory, $O -> PATH; "L:C: ..." alone means
 * "$D/t.inv:L:C: ...". */
static void expand(const char *expect, const char *path, char *out, size_t size)
{
	size_t n = 0;

	if (strncmp(expect, "$D", 2))
		n = (size_t)snprintf(out, size, "%s/t.inv:", data_dir);
	for (const char *p = expect; *p && n + 1 < size; p++) {
		if (p[0] == '$' && (p[1] == 'D' || p[1] == 'O')) {
			n += (size_t)snprintf(out + n, size - n, "%s",
					      p[1] == 'D' ? data_dir : path);
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n < size ? n : size - 1] = 0;
}

static void bad(const char *text, const struct object *o, const char *expect)
{
	struct arena *a = arena_new();
	struct capture c;
	struct mon_set *set;
	char want[2048];

	expand(expect, o->path, want, sizeof(want));
	ck_assert_msg(run(text, o, NULL, a, &c, &set) == -EINVAL,
		      "resolved, expected %s", want);
	ck_assert_str_eq(c.first, want);
	arena_free(a);
}

static const struct mon_check *find_check(const struct mon_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->checks[i].name, name))
			return &s->checks[i];
	ck_abort_msg("no check %s", name);
	return NULL;
}

/* ---- the contract's first example ------------------------------------------ */
static const char example[] =
	"import \"xdp\";\n"
	"\n"
	"const ETH_P_IP = 0x0800;\n"
	"\n"
	"program \"xdp_fw\" {\n"
	"  check xdp.never_abort;\n"
	"\n"
	"  invariant ipv4_tcp_ssh_passes {\n"
	"    on exit {\n"
	"      if (pkt_len >= 54 && be16(pkt + 12) == ETH_P_IP && u8(pkt + 14) == 0x45\n"
	"          && u8(pkt + 23) == 6 && be16(pkt + 36) == 22)\n"
	"        assert ret == XDP_PASS : \"SSH to this host must always get through\";\n"
	"    }\n"
	"  }\n"
	"\n"
	"  invariant no_user_writes {\n"
	"    on call bpf_probe_write_user { assert false : \"never writes user memory\"; }\n"
	"  }\n"
	"\n"
	"  bound insns <= 2000;\n"
	"}\n";

static void expect_load(const struct mon_expr *e, unsigned size, bool be,
			uint64_t off)
{
	ck_assert_int_eq(e->kind, MON_LOAD);
	ck_assert_uint_eq(e->size, size);
	ck_assert(e->be == be);
	ck_assert_int_eq(e->a[0]->kind, MON_BINARY);
	ck_assert_int_eq(e->a[0]->op, SPEC_BIN_ADD);
	ck_assert_int_eq(e->a[0]->a[0]->kind, MON_PKT);
	ck_assert_int_eq(e->a[0]->a[1]->kind, MON_NUM);
	ck_assert_uint_eq(e->a[0]->a[1]->num, off);
}

static void check_ssh(const struct mon_check *c, const char *file)
{
	const struct mon_stmt *s, *as;
	const struct mon_expr *e;

	ck_assert_str_eq(c->prog, "xdp_fw");
	ck_assert_str_eq(c->inv, "ipv4_tcp_ssh_passes");
	ck_assert_str_eq(c->file, file);
	ck_assert_uint_eq(c->pos.line, 8);
	ck_assert_uint_eq(c->pos.col, 3);
	ck_assert_uint_eq(c->nvars, 0);
	ck_assert_uint_eq(c->nhandlers, 1);
	ck_assert_int_eq(c->handlers[0].ev, SPEC_EV_EXIT);
	ck_assert_uint_eq(c->handlers[0].n, 1);
	s = c->handlers[0].body[0];
	ck_assert_int_eq(s->kind, MON_S_IF);
	ck_assert_uint_eq(s->nthen, 1);
	ck_assert_uint_eq(s->nels, 0);
	/* ((((len >= 54 && be16) && u8) && u8) && be16(pkt + 36) == 22) */
	e = s->e;
	ck_assert_int_eq(e->kind, MON_BINARY);
	ck_assert_int_eq(e->op, SPEC_BIN_LAND);
	ck_assert(e->is_bool && !e->sign);
	ck_assert_int_eq(e->a[1]->op, SPEC_BIN_EQ);
	expect_load(e->a[1]->a[0], 2, true, 36);
	ck_assert_uint_eq(e->a[1]->a[1]->num, 22);
	expect_load(e->a[0]->a[1]->a[0], 1, false, 23);
	expect_load(e->a[0]->a[0]->a[1]->a[0], 1, false, 14);
	expect_load(e->a[0]->a[0]->a[0]->a[1]->a[0], 2, true, 12);
	ck_assert_int_eq(e->a[0]->a[0]->a[0]->a[1]->a[1]->kind, MON_NUM);
	ck_assert_uint_eq(e->a[0]->a[0]->a[0]->a[1]->a[1]->num, 0x800); /* ETH_P_IP */
	e = e->a[0]->a[0]->a[0]->a[0];
	ck_assert_int_eq(e->op, SPEC_BIN_GE);
	ck_assert_int_eq(e->a[0]->kind, MON_PKT_LEN);
	as = s->then[0];
	ck_assert_int_eq(as->kind, MON_S_ASSERT);
	ck_assert_uint_eq(as->site, 0);
	ck_assert_int_eq(as->e->a[0]->kind, MON_RET);
	ck_assert_int_eq(as->e->a[1]->kind, MON_NUM);
	ck_assert_uint_eq(as->e->a[1]->num, 2);  /* XDP_PASS, from the pack */
	ck_assert_uint_eq(c->nasserts, 1);
	ck_assert_str_eq(c->asserts[0].msg, "SSH to this host must always get through");
	/* printed only for an assert without a message (monitor.h) */
	ck_assert_ptr_null(c->asserts[0].text);
	ck_assert_str_eq(c->asserts[0].file, file);
	ck_assert_uint_eq(c->asserts[0].pos.line, 12);
	ck_assert_uint_eq(c->asserts[0].pos.col, 9);
	ck_assert_uint_eq(c->asserts[0].handler, 0);
	ck_assert(!c->has_bound && !c->uses_insns);
}

START_TEST(test_example)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "xdp_fw");
	struct mon_set *s = ok(example, o, NULL, a);
	const struct mon_check *c;
	char file[1100], pack[1100];

	snprintf(file, sizeof(file), "%s/t.inv", data_dir);
	snprintf(pack, sizeof(pack), "%s/packs/xdp.inv", data_dir);
	ck_assert_uint_eq(s->n, 4);
	ck_assert_str_eq(s->checks[0].name, "xdp_fw.xdp.never_abort");
	ck_assert_str_eq(s->checks[1].name, "xdp_fw.ipv4_tcp_ssh_passes");
	ck_assert_str_eq(s->checks[2].name, "xdp_fw.no_user_writes");
	ck_assert_str_eq(s->checks[3].name, "xdp_fw.bound_insns");
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(s->checks[i].func, func_of(o, "xdp_fw"));
		ck_assert_uint_eq(s->checks[i].nassumes, 0);
	}

	c = &s->checks[0];
	ck_assert_str_eq(c->inv, "xdp.never_abort");
	ck_assert_str_eq(c->file, pack);
	ck_assert_uint_eq(c->pos.line, 8);
	ck_assert_uint_eq(c->nasserts, 1);
	ck_assert_str_eq(c->asserts[0].msg, "assertion failed: (ret != XDP_ABORTED)");
	ck_assert_str_eq(c->asserts[0].text, "(ret != XDP_ABORTED)");
	ck_assert_str_eq(c->asserts[0].file, pack);
	ck_assert_uint_eq(c->asserts[0].pos.line, 9);
	ck_assert_uint_eq(c->asserts[0].pos.col, 13);

	check_ssh(&s->checks[1], file);

	c = &s->checks[2];
	ck_assert_uint_eq(c->nhandlers, 1);
	ck_assert_int_eq(c->handlers[0].ev, SPEC_EV_CALL);
	ck_assert_uint_eq(c->handlers[0].pos.line, 17);
	ck_assert_uint_eq(c->handlers[0].pos.col, 5);
	ck_assert(!c->handlers[0].calls.any);
	ck_assert_uint_eq(c->handlers[0].calls.nhelpers, 1);
	ck_assert_int_eq(c->handlers[0].calls.helpers[0], BPF_FUNC_probe_write_user);
	ck_assert_int_eq(c->handlers[0].calls.helpers[0], 36);
	ck_assert_uint_eq(c->handlers[0].calls.nkfuncs, 0);
	ck_assert(mon_calls_match(&c->handlers[0].calls, 36, -1));
	ck_assert(!mon_calls_match(&c->handlers[0].calls, 1, -1));
	ck_assert_str_eq(c->asserts[0].msg, "never writes user memory");
	ck_assert_ptr_null(c->asserts[0].text);
	ck_assert_uint_eq(c->asserts[0].pos.col, 36);
	ck_assert(c->handlers[0].body[0]->e->is_bool);

	c = &s->checks[3];
	ck_assert_str_eq(c->inv, "bound_insns");
	ck_assert(c->has_bound && c->uses_insns);
	ck_assert_uint_eq(c->bound, 2000);
	ck_assert_uint_eq(c->nhandlers, 0);
	ck_assert_uint_eq(c->nasserts, 1);
	ck_assert_uint_eq(c->bound_site, 0);
	ck_assert_str_eq(c->asserts[0].msg, "bound insns <= 2000 exceeded");
	ck_assert_str_eq(c->asserts[0].text, "insns <= 2000");
	ck_assert_uint_eq(c->asserts[0].pos.line, 20);
	ck_assert_uint_eq(c->asserts[0].pos.col, 3);
	done(a);
}
END_TEST

/* The same example from a file, through spec_resolve_file(). */
START_TEST(test_file)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "xdp_fw");
	struct resolve_opts opts = default_opts();
	char path[1100];
	struct diag d = {0};
	struct mon_set *s = NULL;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_resolve.XXXXXX.inv");
	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(example, f);
	fclose(f);
	ck_assert_int_eq(spec_resolve_file(path, o, &opts, a, &d, &s), 0);
	remove(path);
	ck_assert_uint_eq(s->n, 4);
	check_ssh(&s->checks[1], path);
	ck_assert_int_eq(spec_resolve_file(path, o, &opts, a, &d, &s), -EINVAL);
	ck_assert_uint_eq(d.errors, 1);
	done(a);
}
END_TEST

/* ---- selectors --------------------------------------------------------------- */
static unsigned count_sel(const struct object *o, const char *sel,
			  const struct resolve_opts *opts, const char **progs)
{
	struct arena *a = arena_new();
	char text[512];
	struct mon_set *s;
	unsigned n;

	snprintf(text, sizeof(text),
		 "program %s { invariant t { on exit { assert true; } } }\n", sel);
	s = ok(text, o, opts, a);
	n = s->n;
	for (unsigned i = 0; i < n; i++) {
		ck_assert_str_eq(s->checks[i].prog, progs[i]);
		ck_assert_str_eq(s->checks[i].name,
				 arena_printf(a, "%s.t", progs[i]));
		ck_assert_str_eq(s->checks[i].prog, o->funcs[s->checks[i].func].name);
	}
	arena_free(a);
	return n;
}

START_TEST(test_selectors)
{
	struct arena *a = arena_new();
	struct object *tail = load(a, "tailcall"), *scx = load(a, "scx_mini");
	struct object *tr = load(a, "trace_exec"), *lb = load(a, "xdp_lb");
	const char *t3[] = { "tail_tcp", "tail_udp", "tail_entry" };
	const char *t1[] = { "tail_udp" };
	const char *enq[] = { "mini_enqueue" };
	const char *all_scx[] = { "mini_select_cpu", "mini_enqueue", "mini_dispatch",
				  "mini_init", "mini_exit" };
	const char *sleepable[] = { "mini_init" };
	const char *kp[] = { "trace_exit" };
	const char *lbp[] = { "xdp_lb" };
	struct resolve_opts opts = default_opts();
	int pick[2];

	ck_assert_uint_eq(count_sel(tail, "\"tail_*\"", NULL, t3), 3);
	ck_assert_uint_eq(count_sel(tail, "\"tail_udp\"", NULL, t1), 1);
	ck_assert_uint_eq(count_sel(tail, "\"tail_[u]dp\"", NULL, t1), 1);
	ck_assert_uint_eq(count_sel(tail, "section \"xdp\"", NULL, t3), 3);
	ck_assert_uint_eq(count_sel(tail, "*", NULL, t3), 3);
	ck_assert_uint_eq(count_sel(scx, "struct_ops \"sched_ext_ops.enqueue\"", NULL, enq), 1);
	ck_assert_uint_eq(count_sel(scx, "struct_ops \"sched_ext_ops.*\"", NULL, all_scx), 5);
	ck_assert_uint_eq(count_sel(scx, "section \"struct_ops/*\"", NULL,
				    (const char *[]){ "mini_select_cpu", "mini_enqueue",
						      "mini_dispatch", "mini_exit" }), 4);
	ck_assert_uint_eq(count_sel(scx, "section \"struct_ops.s/*\"", NULL, sleepable), 1);
	ck_assert_uint_eq(count_sel(tr, "section \"kprobe/*\"", NULL, kp), 1);
	/* subprograms in .text are never selected */
	ck_assert_uint_eq(count_sel(lb, "*", NULL, lbp), 1);

	/* --program: only those, in that order; an empty intersection is fine */
	pick[0] = func_of(tail, "tail_udp");
	opts.progs = pick;
	opts.nprogs = 1;
	ck_assert_uint_eq(count_sel(tail, "*", &opts, t1), 1);
	ck_assert_uint_eq(count_sel(tail, "\"tail_tcp\"", &opts, NULL), 0);
	pick[0] = func_of(tail, "tail_entry");
	pick[1] = func_of(tail, "tail_tcp");
	opts.nprogs = 2;
	ck_assert_uint_eq(count_sel(tail, "*", &opts,
				    (const char *[]){ "tail_entry", "tail_tcp" }), 2);

	bad("program \"nope\" { }\n", tail,
	    "1:9: error: program selector \"nope\" matches no program in $O");
	bad("program section \"tc\" { }\n", tail,
	    "1:9: error: program selector section \"tc\" matches no program in $O");
	bad("program struct_ops \"sched_ext_ops.enqueue\" { }\n", tail,
	    "1:9: error: program selector struct_ops \"sched_ext_ops.enqueue\" matches no program in $O");
	bad("program struct_ops \"mini_ops.*\" { }\n", scx,
	    "1:9: error: program selector struct_ops \"mini_ops.*\" matches no program in $O");
	/* a function in .text is not a program */
	bad("program \"lb_mix\" { }\n", lb,
	    "1:9: error: program selector \"lb_mix\" matches no program in $O");
	done(a);
}
END_TEST

/* Checks are ordered by program, then by source order; assumes belong to
 * their block. */
START_TEST(test_order)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "tailcall");
	struct mon_set *s = ok(
		"invariant top { on exit { assert ret < 10; } }\n"
		"program \"tail_entry\" { check top; assume pkt_len > 20; }\n"
		"program \"tail_*\" {\n"
		"  bound insns <= 100;\n"
		"  invariant b { bound insns <= 7; on entry { assert insns == 0; } }\n"
		"  assume pkt_len >= 14;\n"
		"  assume pkt_len < 1500;\n"
		"}\n", o, NULL, a);
	const char *names[] = {
		"tail_tcp.bound_insns", "tail_tcp.b", "tail_udp.bound_insns",
		"tail_udp.b", "tail_entry.top", "tail_entry.bound_insns",
		"tail_entry.b",
	};
	const struct mon_check *c;

	ck_assert_uint_eq(s->n, ARRAY_SIZE(names));
	for (unsigned i = 0; i < s->n; i++)
		ck_assert_str_eq(s->checks[i].name, names[i]);
	c = find_check(s, "tail_entry.top");
	ck_assert_uint_eq(c->nassumes, 1);
	ck_assert_int_eq(c->assumes[0]->op, SPEC_BIN_GT);
	ck_assert_int_eq(c->assumes[0]->a[0]->kind, MON_PKT_LEN);
	ck_assert(!c->uses_insns);
	c = find_check(s, "tail_udp.b");
	ck_assert_uint_eq(c->nassumes, 2);
	ck_assert_uint_eq(c->assumes[1]->a[1]->num, 1500);
	ck_assert(c->has_bound && c->uses_insns);
	ck_assert_uint_eq(c->bound, 7);
	ck_assert_uint_eq(c->nasserts, 2);
	ck_assert_uint_eq(c->bound_site, 0);
	ck_assert_str_eq(c->asserts[0].msg, "bound insns <= 7 exceeded");
	ck_assert_uint_eq(c->asserts[0].pos.line, 5);
	ck_assert_uint_eq(c->asserts[0].pos.col, 17);
	ck_assert_str_eq(c->asserts[1].msg, "assertion failed: (insns == 0)");
	ck_assert_uint_eq(c->asserts[1].handler, 0);
	ck_assert_int_eq(c->handlers[0].body[0]->e->a[0]->kind, MON_INSNS);
	c = find_check(s, "tail_tcp.bound_insns");
	ck_assert_uint_eq(c->nassumes, 2);
	ck_assert_uint_eq(c->bound, 100);
	done(a);
}
END_TEST

/* ---- calls and kfunc flavours ---------------------------------------------------- */
START_TEST(test_kfuncs)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "scx_mini"), fake;
	struct obj_kfunc kf[] = {
		{ "scx_bpf_dsq_insert___v1" }, { "scx_bpf_dsq_insert___v2___compat" },
		{ "scx_bpf_dsq_insertx" }, { "scx_bpf_dsq_insert" },
		{ "scx_bpf_dsq_insert__v3" }, { "scx_bpf_dsq" },
	};
	const struct mon_check *c;
	const struct mon_handler *h;
	struct mon_set *s;
	int ins = -1;

	for (uint32_t i = 0; i < o->nkfuncs; i++)
		if (!strcmp(o->kfuncs[i].name, "scx_bpf_dsq_insert"))
			ins = (int)i;
	ck_assert_int_ge(ins, 0);
	s = ok("import \"sched_ext\";\n"
	       "program struct_ops \"sched_ext_ops.enqueue\" { check sched_ext.enqueue_inserts; }\n",
	       o, NULL, a);
	ck_assert_uint_eq(s->n, 1);
	c = &s->checks[0];
	ck_assert_str_eq(c->name, "mini_enqueue.sched_ext.enqueue_inserts");
	ck_assert_uint_eq(c->nvars, 1);
	ck_assert_str_eq(c->vars[0].name, "inserted");
	ck_assert_int_eq(c->vars[0].type, SPEC_TY_U32);
	ck_assert_uint_eq(c->vars[0].width, 4);
	ck_assert(!c->vars[0].sign);
	ck_assert_int_eq(c->vars[0].init->kind, MON_NUM);
	h = &c->handlers[0];
	/* scx_bpf_dsq_insert_vtime, scx_bpf_dispatch*: neither helpers nor
	 * kfuncs of this object: accepted, they match nothing */
	ck_assert_uint_eq(h->calls.nhelpers, 0);
	ck_assert_uint_eq(h->calls.nkfuncs, 1);
	ck_assert_int_eq(h->calls.kfuncs[0], ins);
	ck_assert(mon_calls_match(&h->calls, -1, ins));
	ck_assert(!mon_calls_match(&h->calls, -1, ins ? 0 : 1));
	ck_assert(!mon_calls_match(&h->calls, ins, -1));
	ck_assert_int_eq(h->body[0]->kind, MON_S_ASSIGN);
	ck_assert_int_eq(h->body[0]->var, 0);
	ck_assert_str_eq(c->asserts[0].msg, "enqueue must insert the task exactly once");

	/* flavours: NAME or NAME___suffix, nothing else */
	fake = *o;
	fake.kfuncs = kf;
	fake.nkfuncs = ARRAY_SIZE(kf);
	s = ok("program \"mini_enqueue\" { invariant f {\n"
	       "  on call scx_bpf_dsq_insert { assert called(scx_bpf_dsq_insert) < 2; }\n"
	       "  on return * { assert called(bpf_get_smp_processor_id) + called(scx_bpf_dsq_insert) >= 0; }\n"
	       "} }\n", &fake, NULL, a);
	c = &s->checks[0];
	h = &c->handlers[0];
	ck_assert_uint_eq(h->calls.nkfuncs, 3);
	ck_assert_int_eq(h->calls.kfuncs[0], 0);
	ck_assert_int_eq(h->calls.kfuncs[1], 1);
	ck_assert_int_eq(h->calls.kfuncs[2], 3);
	ck_assert(!mon_calls_match(&h->calls, -1, 2));
	ck_assert(!mon_calls_match(&h->calls, -1, 4));
	ck_assert(!mon_calls_match(&h->calls, -1, 5));
	ck_assert(mon_calls_match(&c->handlers[1].calls, 7, -1));
	ck_assert(mon_calls_match(&c->handlers[1].calls, -1, 5));
	ck_assert(c->handlers[1].calls.any);
	ck_assert_int_eq(c->handlers[1].ev, SPEC_EV_RETURN);
	/* one counter per distinct name */
	ck_assert_uint_eq(c->ncounters, 2);
	ck_assert_str_eq(c->counters[0].name, "scx_bpf_dsq_insert");
	ck_assert_uint_eq(c->counters[0].calls.nkfuncs, 3);
	ck_assert_str_eq(c->counters[1].name, "bpf_get_smp_processor_id");
	ck_assert_uint_eq(c->counters[1].calls.nhelpers, 1);
	ck_assert_int_eq(c->counters[1].calls.helpers[0], BPF_FUNC_get_smp_processor_id);
	ck_assert_int_eq(h->body[0]->e->a[0]->kind, MON_CALLED);
	ck_assert_int_eq(h->body[0]->e->a[0]->index, 0);
	ck_assert_int_eq(c->handlers[1].body[0]->e->a[0]->a[1]->index, 0);
	ck_assert_int_eq(c->handlers[1].body[0]->e->a[0]->a[0]->index, 1);

	ck_assert(mon_kfunc_matches("a___b", "a"));
	ck_assert(!mon_kfunc_matches("a__b", "a"));
	ck_assert(!mon_kfunc_matches("ab", "a"));
	ck_assert(!mon_kfunc_matches("a", "ab"));
	done(a);
}
END_TEST

/* ---- names: ctx, pkt, globals, ret/args --------------------------------------------- */
/* The first assert of the first check of "program SEL { invariant t {
 * on EV { assert EXPR; } } }" on O. */
static const struct mon_expr *expr_of(struct arena *a, const struct object *o,
				      const char *sel, const char *ev,
				      const char *expr)
{
	char *text = arena_printf(a, "program %s { invariant t { on %s { assert %s; } } }\n",
				  sel, ev, expr);
	struct mon_set *s = ok(text, o, NULL, a);

	return s->checks[0].handlers[0].body[0]->e;
}

static void expect_ctx(struct arena *a, const struct object *o, const char *prog,
		       const char *field, uint32_t off, uint32_t size)
{
	const struct mon_expr *e = expr_of(a, o, arena_printf(a, "\"%s\"", prog),
					   "entry", arena_printf(a, "ctx.%s", field));

	ck_assert_int_eq(e->kind, MON_CTX);
	ck_assert_msg(e->off == off, "ctx.%s: off %u, expected %u", field, e->off, off);
	ck_assert_msg(e->size == size, "ctx.%s: size %u, expected %u", field, e->size, size);
}

START_TEST(test_names)
{
	struct arena *a = arena_new();
	struct object *xdp = load(a, "xdp_fw"), *tc = load(a, "tc_classifier");
	struct object *tr = load(a, "trace_exec"), *ls = load(a, "loop_sum");
	const struct mon_expr *e;
	unsigned n;

	expect_ctx(a, xdp, "xdp_fw", "data", offsetof(struct xdp_md, data), 4);
	expect_ctx(a, xdp, "xdp_fw", "data_end", 4, 4);
	expect_ctx(a, xdp, "xdp_fw", "ingress_ifindex", 12, 4);
	expect_ctx(a, xdp, "xdp_fw", "egress_ifindex",
		   offsetof(struct xdp_md, egress_ifindex), 4);
	expect_ctx(a, tc, "tc_classifier", "len", 0, 4);
	expect_ctx(a, tc, "tc_classifier", "mark", 8, 4);
	expect_ctx(a, tc, "tc_classifier", "cb0", offsetof(struct __sk_buff, cb), 4);
	expect_ctx(a, tc, "tc_classifier", "cb4", offsetof(struct __sk_buff, cb) + 16, 4);
	expect_ctx(a, tc, "tc_classifier", "data", offsetof(struct __sk_buff, data), 4);
	expect_ctx(a, tc, "tc_classifier", "remote_ip6_3",
		   offsetof(struct __sk_buff, remote_ip6) + 12, 4);
	expect_ctx(a, tc, "tc_classifier", "local_ip6_0",
		   offsetof(struct __sk_buff, local_ip6), 4);
	expect_ctx(a, tc, "tc_classifier", "tstamp", offsetof(struct __sk_buff, tstamp), 8);
	expect_ctx(a, tc, "tc_classifier", "tstamp_type",
		   offsetof(struct __sk_buff, tstamp_type), 1);
	expect_ctx(a, tc, "tc_classifier", "hwtstamp", offsetof(struct __sk_buff, hwtstamp), 8);
	expect_ctx(a, tr, "trace_exit", "di", 112, 8);
	expect_ctx(a, tr, "trace_exit", "rdi", 112, 8);
	expect_ctx(a, tr, "trace_exit", "si", 104, 8);
	expect_ctx(a, tr, "trace_exit", "r8", 72, 8);
	expect_ctx(a, tr, "trace_exit", "ax", 80, 8);
	expect_ctx(a, tr, "trace_exit", "ip", 128, 8);
	expect_ctx(a, tr, "trace_exit", "sp", 152, 8);
	ck_assert_ptr_nonnull(mon_ctx_fields(BPF_PROG_TYPE_SOCKET_FILTER, &n));
	ck_assert_ptr_null(mon_ctx_fields(BPF_PROG_TYPE_TRACEPOINT, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert(mon_prog_has_pkt(BPF_PROG_TYPE_SK_SKB));
	ck_assert(!mon_prog_has_pkt(BPF_PROG_TYPE_KPROBE));

	e = expr_of(a, tc, "*", "entry", "pkt + pkt_len == pkt_end");
	ck_assert_int_eq(e->a[0]->a[0]->kind, MON_PKT);
	ck_assert_int_eq(e->a[0]->a[1]->kind, MON_PKT_LEN);
	ck_assert_int_eq(e->a[1]->kind, MON_PKT_END);

	e = expr_of(a, ls, "*", "exit", "global.salt + global.total_bytes + global.cfg_drop_above");
	for (int i = 0; i < 3; i++) {
		const struct mon_expr *g = i == 2 ? e->a[1] : i ? e->a[0]->a[1] : e->a[0]->a[0];
		const char *sec = i == 0 ? ".data" : i == 1 ? ".bss" : ".rodata";

		ck_assert_int_eq(g->kind, MON_GLOBAL);
		ck_assert_str_eq(ls->datasecs[g->datasec].name, sec);
		ck_assert_int_eq(g->index, ls->datasecs[g->datasec].map);
		ck_assert_uint_eq(g->size, i == 1 ? 8 : 4);
		ck_assert_uint_eq(g->off, i == 2 ? 4 : 0);
	}
	ck_assert_str_eq(ls->maps[e->a[1]->index].name, "loop_sum.rodata");

	e = expr_of(a, tr, "\"trace_exit\"", "return *", "ret + arg1 + arg5");
	ck_assert_int_eq(e->a[0]->a[0]->kind, MON_RET);
	ck_assert_int_eq(e->a[0]->a[1]->kind, MON_ARG);
	ck_assert_int_eq(e->a[0]->a[1]->index, 1);
	ck_assert_int_eq(e->a[1]->index, 5);
	e = expr_of(a, tr, "\"trace_exit\"", "call bpf_ringbuf_reserve", "arg2 > 0");
	ck_assert_int_eq(e->a[0]->index, 2);
	e = expr_of(a, tr, "\"trace_exit\"", "exit", "ret == 0 && insns < 100");
	ck_assert_int_eq(e->a[1]->a[0]->kind, MON_INSNS);
	done(a);
}
END_TEST

/* ---- types and constants --------------------------------------------------------------- */
START_TEST(test_types)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "xdp_fw");
	const struct mon_expr *e;
	const struct mon_check *c;
	struct mon_set *s;

	e = expr_of(a, o, "*", "exit", "(s32)ret < 0");
	ck_assert(e->sign && e->is_bool);
	ck_assert_int_eq(e->a[0]->kind, MON_CAST);
	ck_assert_int_eq(e->a[0]->type, SPEC_TY_S32);
	ck_assert(e->a[0]->sign && !e->a[0]->is_bool);
	e = expr_of(a, o, "*", "exit", "ret < 0");
	ck_assert(!e->sign);
	e = expr_of(a, o, "*", "exit", "((s8)ret + 1) / 2 > 0");
	ck_assert(e->sign && e->a[0]->sign && e->a[0]->a[0]->sign);
	e = expr_of(a, o, "*", "exit", "ret >> (s64)1");
	ck_assert(e->sign && !e->is_bool);
	e = expr_of(a, o, "*", "exit", "(s16)ret in [-5, 5]");
	ck_assert(e->sign && e->is_bool);
	ck_assert_int_eq(e->kind, MON_IN_RANGE);
	e = expr_of(a, o, "*", "exit", "ret in {1, 2, (s32)3}");
	ck_assert(e->sign && e->is_bool);
	ck_assert_uint_eq(e->n, 4);
	e = expr_of(a, o, "*", "exit", "!ret && !(ret == 1)");
	ck_assert(e->is_bool && e->a[0]->is_bool);
	e = expr_of(a, o, "*", "exit", "(bool)ret => ret != 0 ? true : false");
	ck_assert(e->a[0]->is_bool);
	ck_assert(e->a[1]->is_bool);
	ck_assert_int_eq(e->a[1]->kind, MON_COND);
	e = expr_of(a, o, "*", "exit", "-ret + ~ret");
	ck_assert(!e->sign && !e->is_bool);
	e = expr_of(a, o, "*", "exit", "ret");
	ck_assert_int_eq(e->kind, MON_RET);

	s = ok("const A = 3;\n"
	       "const B = A * 4 - 1;\n"                 /* 11 */
	       "const C = (s8)0xff < 0 ? -B : B;\n"    /* -11 */
	       "const D = -1 >> 60;\n"                  /* 15: unsigned */
	       "const E = (s64)-16 >> 2;\n"             /* -4 */
	       "const F = 7 / 0 + 7 % 0;\n"             /* 0 + 7 */
	       "const G = 1 << 65;\n"                   /* 2: amount mod 64 */
	       "const H = 5 in [1, 9] && 3 in {1, 2};\n"/* 0 */
	       "const I = (u8)0x1ff + (s8)-1 / (s8)-1;\n" /* 255 + 1 */
	       "program * { invariant t {\n"
	       "  state { s8 x = -128; u8 y = 255; bool b = 1; bool c = false; s64 z = C; u16 w = I; }\n"
	       "  on exit { x = (s8)ret; y = 0; b = 0; b = ret > 1; y = x; z = A + B + C + D + E + F + G + H; }\n"
	       "} }\n", o, NULL, a);
	c = &s->checks[0];
	ck_assert_uint_eq(c->nvars, 6);
	ck_assert(c->vars[0].sign && c->vars[0].width == 1);
	ck_assert_uint_eq(c->vars[0].init->a[0]->num, 128);
	ck_assert_int_eq(c->vars[2].type, SPEC_TY_BOOL);
	ck_assert_uint_eq(c->vars[2].width, 1);
	ck_assert_uint_eq(c->vars[4].init->num, (uint64_t)-11);
	ck_assert_uint_eq(c->vars[5].init->num, 256);
	e = c->handlers[0].body[5]->e;                 /* ((A + B) + ...) + H */
	{
		const uint64_t want[] = { 3, 11, (uint64_t)-11, 15, (uint64_t)-4, 7, 2, 0 };

		for (int i = 7; i >= 0; i--) {
			const struct mon_expr *k = i ? e->a[1] : e;

			ck_assert_int_eq(k->kind, MON_NUM);
			ck_assert_msg(k->num == want[i], "const %c = %" PRIu64,
				      'A' + i, k->num);
			if (i)
				e = e->a[0];
		}
	}
	ck_assert_int_eq(c->handlers[0].body[0]->var, 0);
	ck_assert(c->handlers[0].body[3]->e->is_bool);
	done(a);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------- */
#define IN_INV(body) "program * { invariant t {\n" body "\n} }\n"
#define ON(ev, x) IN_INV("  on " ev " { assert " x "; }")

static char *slurp(const char *path);

/* tests/data/resolve/errors.txt: "== OBJECT", the spec, "-- EXPECTED". */
START_TEST(test_errors)
{
	char path[1100], *data, *p;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/errors.txt", data_dir);
	data = slurp(path);
	for (p = strstr(data, "\n== "); p; n++) {
		struct arena *a = arena_new();
		char *obj = p + 4, *text, *expect, *end;

		text = strchr(obj, '\n');
		ck_assert_ptr_nonnull(text);
		*text++ = 0;
		expect = strstr(text, "\n-- ");
		ck_assert_ptr_nonnull(expect);
		expect[1] = 0;
		expect += 4;
		end = strchr(expect, '\n');
		ck_assert_ptr_nonnull(end);
		*end = 0;
		p = strstr(end + 1, "== ") == end + 1 ? end : NULL;
		bad(text, load(a, obj), expect);
		done(a);
	}
	free(data);
	ck_assert_uint_ge(n, 86);
}
END_TEST

/* Errors that need an object the examples do not have. */
START_TEST(test_global_errors)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "loop_sum"), fake = *o;
	struct obj_datasec *ds = arena_new_array(a, struct obj_datasec, o->ndatasecs);
	int bss = -1;

	for (uint32_t d = 0; d < o->ndatasecs; d++) {
		ds[d] = o->datasecs[d];
		ds[d].vars = arena_dup(a, o->datasecs[d].vars,
				       sizeof(struct obj_var) * o->datasecs[d].nvars);
		if (!strcmp(ds[d].name, ".bss"))
			bss = (int)d;
	}
	ck_assert_int_ge(bss, 0);
	ck_assert_str_eq(ds[bss].vars[0].name, "total_bytes");
	ds[bss].vars[0].size = 12;
	ds[bss].vars[1].name = "salt";
	fake.datasecs = ds;
	bad(ON("exit", "global.total_bytes"), &fake,
	    "2:20: error: global total_bytes is 12 bytes; only 1/2/4/8-byte globals can be read");
	bad(ON("exit", "global.salt"), &fake,
	    "2:20: error: ambiguous global 'salt': in .data and .bss");
	done(a);
}
END_TEST

/* spec_resolve_file: the root's own errors; a cycle through the root. */
START_TEST(test_file_errors)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "xdp_fw");
	struct resolve_opts opts = default_opts();
	struct capture c = {0};
	struct diag d = { .sink = sink, .arg = &c };
	struct mon_set *s;
	char path[1100], want[4096];

	snprintf(path, sizeof(path), "%s/bad/none.inv", data_dir);
	ck_assert_int_eq(spec_resolve_file(path, o, &opts, a, &d, &s), -EINVAL);
	expand("$D/bad/none.inv: error: cannot read: No such file or directory", "", want, sizeof(want));
	ck_assert_str_eq(c.first, want);
	memset(&c, 0, sizeof(c));
	snprintf(path, sizeof(path), "%s/bad/cycle_a.inv", data_dir);
	ck_assert_int_eq(spec_resolve_file(path, o, &opts, a, &d, &s), -EINVAL);
	expand("$D/bad/cycle_b.inv:1:1: error: import cycle: $D/bad/cycle_a.inv -> $D/bad/cycle_b.inv -> $D/bad/cycle_a.inv",
	       "", want, sizeof(want));
	ck_assert_str_eq(c.first, want);
	ck_assert_uint_eq(c.n, 1);
	done(a);
}
END_TEST

/* Imports: consts through a shared import are one const; packs by path. */
START_TEST(test_imports)
{
	struct arena *a = arena_new();
	struct object *o = load(a, "xdp_fw");
	struct mon_set *s = ok(
		"import \"net\";\n"
		"import \"net2\";\n"
		"import \"packs/xdp.inv\";\n"
		"import \"xdp\";\n"
		"program \"xdp_fw\" { check xdp.verdict_known; invariant t {\n"
		"  state { u64 k = COMMON_ONE + ETH_HLEN + IPPROTO_TCP + XDP_TX; }\n"
		"} }\n", o, NULL, a);

	ck_assert_uint_eq(s->n, 2);
	ck_assert_str_eq(s->checks[0].name, "xdp_fw.xdp.verdict_known");
	ck_assert_str_eq(s->checks[0].asserts[0].msg, "unknown XDP verdict");
	ck_assert_int_eq(s->checks[1].vars[0].init->a[1]->num, 3);
	ck_assert_int_eq(s->checks[1].vars[0].init->a[0]->a[0]->a[0]->num, 1);
	done(a);
}
END_TEST

/* ---- the reference's examples ------------------------------------------------------- */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Every ```inv block starting with "# object: NAME" resolves against NAME. */
START_TEST(test_doc_examples)
{
	char path[1100];
	char *doc, *p;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/docs/spec-language.md", src_root);
	doc = slurp(path);
	for (p = doc; (p = strstr(p, "```inv\n# object: ")); ) {
		struct arena *a = arena_new();
		char name[64], *text, *end;
		size_t len;

		p += strlen("```inv\n# object: ");
		len = strcspn(p, " \n");
		ck_assert_uint_lt(len, sizeof(name));
		memcpy(name, p, len);
		name[len] = 0;
		end = strstr(p, "```");
		ck_assert_ptr_nonnull(end);
		text = arena_strndup(a, p - strlen("# object: "),
				     (size_t)(end - p) + strlen("# object: "));
		ok(text, load(a, name), NULL, a);
		done(a);
		p = end;
		n++;
	}
	free(doc);
	ck_assert_uint_ge(n, 5);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("resolve");
	SRunner *sr;
	int failed;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SRCROOT OBJECT...\n", argv[0]);
		return EXIT_FAILURE;
	}
	src_root = argv[1];
	{
		char raw[1024];

		snprintf(raw, sizeof(raw), "%s/tests/data/resolve", src_root);
		snprintf(data_dir, sizeof(data_dir), "%s",
			 path_clean(raw, (char[1024]){0}, 1024));
	}
	objs = argv + 2;
	nobjs = argc - 2;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_example);
	tcase_add_test(tc, test_file);
	tcase_add_test(tc, test_selectors);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_kfuncs);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_types);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_global_errors);
	tcase_add_test(tc, test_file_errors);
	tcase_add_test(tc, test_imports);
	tcase_add_test(tc, test_doc_examples);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
