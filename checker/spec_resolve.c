/* spec_resolve.c - name resolution and type checking of specs (monitor.h).
 *
 * Three steps, in order:
 * 1. Files: the root spec, then its imports depth-first (each file once,
 *    by real path; a file being loaded that is imported again is a cycle).
 *    Per file, every import first, then its consts in order (each folded to
 *    a number at once) and a table of its invariants.
 * 2. Program blocks of the root: every selector must match a program of
 *    the object, every `check` name an invariant.
 * 3. Checks: for each selected program (in selection order), each block
 *    that selects it, each check/invariant/bound item in source order, one
 *    struct mon_check, resolved for that program (ctx fields and the packet
 *    depend on its type).
 *
 * Errors are one diagnostic "FILE:LINE:COL: error: ..." and unwind with
 * longjmp, as in the parser: everything is in the arena, and the one FILE
 * (expr_text's stream) is closed by spec_resolve, after resolve returned.
 */
#define _GNU_SOURCE            /* fopencookie */
#include "resolve_priv.h"
#include "xprog.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const builtins[] = {
	"ret", "arg1", "arg2", "arg3", "arg4", "arg5", "pkt", "pkt_end",
	"pkt_len", "pkt_written", "ctx", "global",
};

/* ---- errors -------------------------------------------------------------- */
static const char *where(struct resolver *r, const char *file, struct spec_pos at)
{
	return arena_printf(r->a, "%s:%u:%u", file ? file : "<spec>", at.line,
			    at.col);
}

/* expr_text's stream's writes: appended to textbuf */
static ssize_t text_write(void *arg, const char *buf, size_t size)
{
	struct resolver *r = arg;

	if (size > r->textcap - r->textlen) {
		size_t cap = r->textcap ? r->textcap : 256;
		char *p;

		while (size > cap - r->textlen)
			cap *= 2;
		p = realloc(r->textbuf, cap);
		if (!p)
			abort();
		r->textbuf = p;
		r->textcap = cap;
	}
	memcpy(r->textbuf + r->textlen, buf, size);
	r->textlen += size;
	return (ssize_t)size;
}

static const char *expr_text(struct resolver *r, const struct spec_expr *e)
{
	if (!r->text) {
		r->text = fopencookie(r, "w", (cookie_io_functions_t){ .write = text_write });
		if (!r->text)
			abort();
	}
	r->textlen = 0;
	spec_print_expr(e, r->text);
	if (fflush(r->text))
		abort();
	return arena_strndup(r->a, r->textbuf ? r->textbuf : "", r->textlen);
}

/* ---- statements and handlers ----------------------------------------------- */
static struct mon_stmt **rblock(struct resolver *r, const struct spec_block *b,
				unsigned *n);

struct site_text {
	const struct spec_stmt *s;
	const char *text, *msg;
};

/* The text and message of assert S: the same in every check (arena
 * strings, shared) */
static const struct site_text *site_text(struct resolver *r, const struct spec_stmt *s)
{
	struct site_text *t = r->site_texts.data;
	size_t i;

	for (i = 0; i < r->site_texts.len; i++)
		if (t[i].s == s)
			return &t[i];
	t = PUSH(r, r->site_texts, struct site_text);
	t->s = s;
	/* printed only for the message it makes (the packs' and examples'
	 * asserts have their own: printing them was 0.5% of a small
	 * example) */
	t->text = s->msg ? NULL : expr_text(r, s->expr);
	t->msg = s->msg ? s->msg : arena_cat3(r->a, "assertion failed: ", t->text, "");
	return t;
}

static unsigned add_site(struct resolver *r, const struct spec_stmt *s)
{
	struct mon_assert *as = PUSH(r, r->asserts, struct mon_assert);
	const struct site_text *t = site_text(r, s);

	as->pos = s->pos;
	as->file = r->f->path;
	as->text = t->text;
	as->msg = t->msg;
	as->handler = (unsigned)r->handlers.len;
	return (unsigned)r->asserts.len - 1;
}

static struct mon_stmt *rstmt(struct resolver *r, const struct spec_stmt *s)
{
	struct mon_stmt *m = arena_new_array(r->a, struct mon_stmt, 1);

	m->pos = s->pos;
	switch (s->kind) {
	case SPEC_S_ASSERT:
		m->kind = MON_S_ASSERT;
		m->e = resolve_expr(r, s->expr);
		m->site = add_site(r, s);
		break;
	case SPEC_S_ASSUME:
		m->kind = MON_S_ASSUME;
		m->e = resolve_expr(r, s->expr);
		break;
	case SPEC_S_ASSIGN:
		m->kind = MON_S_ASSIGN;
		m->var = resolve_find_var(r, s->name);
		if (m->var < 0)
			fail(r, s->pos, "'%s' is not a state variable of invariant '%s'",
			     s->name, r->inv);
		m->e = resolve_expr(r, s->expr);
		resolve_value(r, &((struct mon_var *)r->vars.data)[m->var], m->e);
		break;
	case SPEC_S_IF:
		m->kind = MON_S_IF;
		m->e = resolve_expr(r, s->expr);
		m->then = rblock(r, &s->then, &m->nthen);
		m->els = rblock(r, &s->els, &m->nels);
		break;
	}
	return m;
}

static struct mon_stmt **rblock(struct resolver *r, const struct spec_block *b,
				unsigned *n)
{
	struct mon_stmt **v = arena_new_array(r->a, struct mon_stmt *, b->n);

	for (size_t i = 0; i < b->n; i++)
		v[i] = rstmt(r, b->stmts[i]);
	*n = (unsigned)b->n;
	return v;
}

/* on EVENT { ... } */
static void rhandler(struct resolver *r, const struct spec_clause *cl)
{
	const struct spec_event *ev = &cl->event;
	struct mon_handler h = { .ev = ev->kind, .pos = cl->pos };

	if (ev->kind == SPEC_EV_CALL || ev->kind == SPEC_EV_RETURN)
		h.calls = resolve_calls(r, ev->names, ev->nnames, ev->any, ev->pos);
	r->scope = SC_EVENT;
	r->ev = ev->kind;
	h.body = rblock(r, &cl->body, &h.n);
	*PUSH(r, r->handlers, struct mon_handler) = h;
}

static void reserved(struct resolver *r, const char *name, struct spec_pos at)
{
	/* the first byte before a call to strcmp (a call per built-in name was
	 * 0.3% of tc_classifier) */
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (name[0] == builtins[i][0] && !strcmp(name, builtins[i]))
			fail(r, at, "'%s' is a built-in name", name);
}

/* state { TYPE NAME = init; ... }: initialisers see earlier variables */
static void declare_var(struct resolver *r, const struct spec_var *sv)
{
	const struct cst *k = resolve_find_const(r->f, sv->name);
	struct mon_var v = { sv->name, sv->pos, sv->type };
	int i = resolve_find_var(r, sv->name);

	reserved(r, sv->name, sv->pos);
	if (i >= 0)
		fail(r, sv->pos, "duplicate state variable '%s' (first declared at %u:%u)",
		     sv->name, ((struct mon_var *)r->vars.data)[i].pos.line,
		     ((struct mon_var *)r->vars.data)[i].pos.col);
	if (k)
		fail(r, sv->pos, "state variable '%s' hides const '%s' (%s)", sv->name,
		     sv->name, where(r, k->file, k->pos));
	v.width = spec_type_width(sv->type);
	v.sign = spec_type_signed(sv->type);
	*PUSH(r, r->vars, struct mon_var) = v;
}

/* Variable I's initialiser, at entry: it sees the variables before it. */
static void init_var(struct resolver *r, unsigned i, const struct spec_var *sv)
{
	struct mon_var *v = &((struct mon_var *)r->vars.data)[i];

	r->scope = SC_ENTRY;
	r->nvisible = i;
	v->init = resolve_expr(r, sv->init);
	resolve_value(r, v, v->init);
}

/* The assert site of `bound insns <= N` at AT: checked at every exit. */
static void add_bound(struct resolver *r, const struct spec_bound *b)
{
	struct mon_check *c = r->c;
	struct mon_assert *as;
	char num[24], *d;

	c->bound = resolve_const(r, b->max, "bound");
	c->has_bound = true;
	c->uses_insns = true;
	c->bound_site = (unsigned)r->asserts.len;
	as = PUSH(r, r->asserts, struct mon_assert);
	as->pos = b->pos;
	as->file = r->f->path;
	/* the bound's digits copied, not formatted (two arena_printf a
	 * check were 0.2% of cgroup_skb) */
	num[sizeof(num) - 1] = 0;
	d = u64_digits(num + sizeof(num) - 1, c->bound);
	as->text = arena_cat3(r->a, "insns <= ", d, "");
	as->msg = arena_cat3(r->a, "bound insns <= ", d, " exceeded");
	as->handler = UINT_MAX;
}

/* The check parameter of Q (NULL: none) for state variable NAME. */
static const struct spec_param *param_of(const struct spec_qname *q, const char *name)
{
	for (size_t i = 0; q && i < q->nparams; i++)
		if (!strcmp(q->params[i].name, name))
			return &q->params[i];
	return NULL;
}

/* Check parameters (`check I(x = 3)`, written in ROOT): each names a state
 * variable of the invariant, at most once. */
static void check_params(struct resolver *r, const struct spec_qname *q,
			 const struct sfile *root, const struct sfile *f)
{
	for (size_t i = 0; q && i < q->nparams; i++) {
		const struct spec_param *pa = &q->params[i];

		r->f = root;
		if (param_of(q, pa->name) != pa)
			fail(r, pa->pos, "duplicate parameter '%s'", pa->name);
		if (resolve_find_var(r, pa->name) < 0)
			fail(r, pa->pos, "invariant '%s' has no state variable '%s' (a check parameter sets one)",
			     q->name, pa->name);
	}
	r->f = f;
}

/* Variable I's value from check parameter PA: a constant of ROOT. */
static void param_var(struct resolver *r, unsigned i, const struct spec_param *pa,
		      const struct sfile *root)
{
	struct mon_var *v = &((struct mon_var *)r->vars.data)[i];
	const struct sfile *f = r->f;
	const char *what = arena_cat3(r->a, "parameter ", pa->name, "");

	r->f = root;
	r->nvisible = 0;
	resolve_const(r, pa->expr, what);
	r->scope = SC_CONST;
	r->what = what;
	v->init = resolve_expr(r, pa->expr);
	resolve_value(r, v, v->init);
	r->f = f;
}

/* INV, with the parameters of Q (NULL for an inline invariant) */
static void rinvariant(struct resolver *r, const struct spec_invariant *inv,
		       const struct spec_qname *q, const struct sfile *root)
{
	const struct spec_clause *cl = inv->clauses;
	const struct spec_param *pa;
	size_t i, j;

	unsigned k = 0;

	for (i = 0; i < inv->nclauses; i++)
		for (j = 0; cl[i].kind == SPEC_C_STATE && j < cl[i].nvars; j++)
			declare_var(r, &cl[i].vars[j]);
	check_params(r, q, root, r->f);
	for (i = 0; i < inv->nclauses; i++)
		for (j = 0; cl[i].kind == SPEC_C_STATE && j < cl[i].nvars; j++, k++)
			if ((pa = param_of(q, cl[i].vars[j].name)))
				param_var(r, k, pa, root);
			else
				init_var(r, k, &cl[i].vars[j]);
	r->nvisible = (unsigned)r->vars.len;
	for (i = 0; i < inv->nclauses; i++) {
		switch (cl[i].kind) {
		case SPEC_C_STATE:
			break;
		case SPEC_C_ON:
			rhandler(r, &cl[i]);
			break;
		case SPEC_C_BOUND:
			if (r->c->has_bound)
				fail(r, cl[i].pos, "duplicate bound in invariant '%s'",
				     inv->name);
			add_bound(r, &cl[i].bound);
			break;
		}
	}
}

/* ---- checks ------------------------------------------------------------------ */
static void begin_check(struct resolver *r, struct mon_check *c, int func,
			const char *inv, const struct sfile *f, struct spec_pos at)
{
	const struct mon_check *cs = r->checks.data;
	const char *prog = r->o->funcs[func].name;

	for (size_t i = 0; i < r->checks.len; i++)
		if (cs[i].func == func && !strcmp(cs[i].inv, inv))
			fail(r, at, "invariant '%s' is already checked on program '%s'",
			     inv, prog);
	memset(c, 0, sizeof(*c));
	c->func = func;
	c->prog = prog;
	c->inv = inv;
	c->name = arena_cat3(r->a, prog, ".", inv);
	c->file = f->path;
	c->pos = at;
	r->c = c;
	r->inv = inv;
	r->func = func;
	r->vars = r->handlers = r->asserts = r->counters = r->assumes =
		(struct vec){0};
	r->nvisible = 0;
}

/* The program block's `assume`s, at entry, in the root's scope. */
static void rassumes(struct resolver *r, const struct spec_item *blk,
		     const struct sfile *root)
{
	struct vec vars = r->vars;

	r->vars = (struct vec){0};      /* no invariant's state is in scope */
	for (size_t i = 0; i < blk->npitems; i++) {
		if (blk->pitems[i].kind != SPEC_P_ASSUME)
			continue;
		r->f = root;
		r->scope = SC_ENTRY;
		r->nvisible = 0;
		*PUSH(r, r->assumes, struct mon_expr *) =
			resolve_expr(r, blk->pitems[i].expr);
	}
	r->vars = vars;
}

static void end_check(struct resolver *r, struct mon_check *c)
{
	c->vars = r->vars.data;
	c->nvars = (unsigned)r->vars.len;
	c->handlers = r->handlers.data;
	c->nhandlers = (unsigned)r->handlers.len;
	c->asserts = r->asserts.data;
	c->nasserts = (unsigned)r->asserts.len;
	c->counters = r->counters.data;
	c->ncounters = (unsigned)r->counters.len;
	c->assumes = r->assumes.data;
	c->nassumes = (unsigned)r->assumes.len;
	*PUSH(r, r->checks, struct mon_check) = *c;
}

/* INV (written in F, applied as NAME) on program FUNC of block BLK */
static void make_check(struct resolver *r, int func, const struct spec_item *blk,
		       const struct sfile *root, const struct sfile *f,
		       const struct spec_invariant *inv, const char *name,
		       const struct spec_qname *q, struct spec_pos at)
{
	struct mon_check c;

	r->f = root;
	begin_check(r, &c, func, name, f, at);
	c.pos = inv->pos;
	r->f = f;
	rinvariant(r, inv, q, root);
	rassumes(r, blk, root);
	end_check(r, &c);
}

/* extension: `relate NAME;` - a placeholder that xprog_expand() fills in */
static void make_relation(struct resolver *r, int func, const struct spec_item *blk,
			  const struct sfile *root, const struct spec_qname *q)
{
	const struct obj_func *fn = &r->o->funcs[func];
	struct mon_check c;

	r->f = root;
	if (q->pack || !xprog_relation_known(q->name))
		fail(r, q->pos, "unknown relation '%s%s%s' (known: %s)", q->pack ? q->pack : "",
		     q->pack ? "." : "", q->name, xprog_relation_names());
	if (!xprog_relation_applies(q->name, fn))
		fail(r, q->pos, "relation '%s' does not apply to program '%s' (%s)", q->name,
		     fn->name, xprog_relation_needs(q->name));
	begin_check(r, &c, func, q->name, root, q->pos);
	c.relation = q->name;
	rassumes(r, blk, root);
	end_check(r, &c);
}

/* program-level `bound insns <= N;` */
static void make_bound(struct resolver *r, int func, const struct spec_item *blk,
		       const struct sfile *root, const struct spec_bound *b)
{
	struct mon_check c;

	r->f = root;
	begin_check(r, &c, func, "bound_insns", root, b->pos);
	add_bound(r, b);
	rassumes(r, blk, root);
	end_check(r, &c);
}

static const struct spec_invariant *find_inv(const struct sfile *f,
					     const char *name)
{
	for (size_t i = 0; i < f->s->nitems; i++) {
		const struct spec_item *it = &f->s->items[i];

		if (it->kind == SPEC_I_INVARIANT && !strcmp(it->inv.name, name))
			return &it->inv;
	}
	return NULL;
}

static const struct sfile *find_pack(const struct sfile *f, const char *pack)
{
	struct sfile *const *v = f->imports.data;

	for (size_t i = 0; i < f->imports.len; i++)
		if (!strcmp(v[i]->pack, pack))
			return v[i];
	return NULL;
}

/* check NAME | check PACK.NAME */
static const struct spec_invariant *lookup(struct resolver *r,
					   const struct sfile *root,
					   const struct spec_qname *q,
					   const struct sfile **in)
{
	const struct spec_invariant *inv;

	r->f = root;
	*in = q->pack ? find_pack(root, q->pack) : root;
	if (!*in)
		fail(r, q->pos, "unknown pack '%s' (not imported)", q->pack);
	inv = find_inv(*in, q->name);
	if (!inv && q->pack)
		fail(r, q->pos, "pack '%s' has no invariant '%s'", q->pack, q->name);
	if (!inv)
		fail(r, q->pos, "unknown invariant '%s'", q->name);
	return inv;
}

static void block_checks(struct resolver *r, int func, const struct spec_item *blk,
			 const struct sfile *root)
{
	struct mon_check none = {0};
	size_t n = r->checks.len;

	for (size_t i = 0; i < blk->npitems; i++) {
		const struct spec_pitem *pi = &blk->pitems[i];
		const struct spec_invariant *inv;
		const struct sfile *f;
		const char *name;

		switch (pi->kind) {
		case SPEC_P_CHECK:
			for (size_t j = 0; j < pi->nchecks; j++) {
				const struct spec_qname *q = &pi->checks[j];

				inv = lookup(r, root, q, &f);
				name = q->pack ? arena_cat3(r->a, q->pack, ".", q->name) : q->name;
				make_check(r, func, blk, root, f, inv, name, q, q->pos);
			}
			break;
		case SPEC_P_INVARIANT:
			make_check(r, func, blk, root, root, &pi->inv,
				   pi->inv.name, NULL, pi->inv.pos);
			break;
		case SPEC_P_BOUND:
			make_bound(r, func, blk, root, &pi->bound);
			break;
		case SPEC_P_RELATE:
			for (size_t j = 0; j < pi->nchecks; j++)
				make_relation(r, func, blk, root, &pi->checks[j]);
			break;
		case SPEC_P_ASSUME:
			break;
		}
	}
	if (r->checks.len == n) {       /* no checks: still resolve the assumes */
		r->c = &none;
		r->func = func;
		r->counters = r->assumes = (struct vec){0};
		rassumes(r, blk, root);
	}
}

/* ---- program selectors -------------------------------------------------------- */
static bool sel_match(const struct object *o, const struct spec_item *it,
		      const struct obj_func *fn)
{
	char role[512];

	switch (it->sel) {
	case SPEC_SEL_NAME:
		return !fnmatch(it->pattern, fn->name, 0);
	case SPEC_SEL_SECTION:
		return !fnmatch(it->pattern, o->sections[fn->sec].name, 0);
	case SPEC_SEL_STRUCT_OPS:
		if (!fn->struct_ops_type || !fn->struct_ops_member)
			return false;
		snprintf(role, sizeof(role), "%s.%s", fn->struct_ops_type,
			 fn->struct_ops_member);
		return !fnmatch(it->pattern, role, 0);
	case SPEC_SEL_ALL:
		return true;
	}
	return false;
}

static const char *sel_text(struct resolver *r, const struct spec_item *it)
{
	switch (it->sel) {
	case SPEC_SEL_NAME:
		return arena_cat3(r->a, "\"", it->pattern, "\"");
	case SPEC_SEL_SECTION:
		return arena_cat3(r->a, "section \"", it->pattern, "\"");
	case SPEC_SEL_STRUCT_OPS:
		return arena_cat3(r->a, "struct_ops \"", it->pattern, "\"");
	case SPEC_SEL_ALL:
		return "*";
	}
	return "?";
}

/* Every selector matches a program; every `check` names an invariant. */
static void check_blocks(struct resolver *r, const struct sfile *root)
{
	const struct object *o = r->o;
	const struct sfile *f;

	for (size_t i = 0; i < root->s->nitems; i++) {
		const struct spec_item *it = &root->s->items[i];
		uint32_t j;

		if (it->kind != SPEC_I_PROGRAM)
			continue;
		for (j = 0; j < o->nfuncs; j++)
			if (o->funcs[j].is_prog && sel_match(o, it, &o->funcs[j]))
				break;
		r->f = root;
		if (j == o->nfuncs)
			fail(r, it->sel_pos, "program selector %s matches no program in %s",
			     sel_text(r, it), o->path);
		for (j = 0; j < it->npitems; j++)
			for (size_t k = 0; it->pitems[j].kind == SPEC_P_CHECK &&
			     k < it->pitems[j].nchecks; k++)
				lookup(r, root, &it->pitems[j].checks[k], &f);
	}
}

static void build(struct resolver *r, const struct sfile *root, int func)
{
	const struct obj_func *fn;

	if (func < 0 || (uint32_t)func >= r->o->nfuncs)
		return;
	fn = &r->o->funcs[func];
	if (!fn->is_prog)
		return;
	for (size_t i = 0; i < root->s->nitems; i++) {
		const struct spec_item *it = &root->s->items[i];

		if (it->kind == SPEC_I_PROGRAM && sel_match(r->o, it, fn))
			block_checks(r, func, it, root);
	}
}

/* ---- files and imports ----------------------------------------------------------- */
static const char *clean(struct resolver *r, const char *path)
{
	char buf[4096];

	return arena_strdup(r->a, path_clean(path, buf, sizeof(buf)));
}

static const char *dir_of(struct resolver *r, const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	return arena_strndup(r->a, path, (size_t)(slash - path));
}

static const char *join(struct resolver *r, const char *dir, const char *name)
{
	if (name[0] == '/')
		return clean(r, name);
	return clean(r, arena_cat3(r->a, dir, "/", name));
}

/* "dir/xdp.inv" -> "xdp" */
static const char *pack_of(struct resolver *r, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".inv"))
		n -= 4;
	return arena_strndup(r->a, base, n);
}

/* A spec file's identity (an import of it again, by another path or
 * through a link, is the same file): its device and inode, from the stat
 * of its open (ST) or of PATH; PATH itself where it names no file (a
 * spec given as text). One system call, where realpath's were one a
 * directory of the path. */
static const char *file_id(struct resolver *r, const char *path, const struct stat *st)
{
	struct stat own;

	if (!st && (!path || stat(path, &own)))
		return path ? arena_cat3(r->a, "name:", path, "") : "<spec>";
	if (!st)
		st = &own;
	return arena_printf(r->a, "file:%ju:%ju", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino);
}

#define SPEC_MAX_FILE (16u << 20)

/* PATH opened for reading if it is a regular file of at most 16 MiB, its
 * descriptor with *ST its stat, or -1 with *WHY saying why (a FIFO, a
 * device or a directory would block, never end or read as empty: found
 * with import "/dev/zero"). Opened non-blocking so that a FIFO cannot
 * hang the open itself. */
static int open_spec(const char *path, struct stat *st, const char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_size > SPEC_MAX_FILE) {
		*why = !S_ISREG(st->st_mode) ? "not a regular file" : "larger than 16 MiB";
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* The whole of FD (closed; ST its stat) in arena A, NUL-terminated (at
 * most SPEC_MAX_FILE bytes: the file may grow while it is read; a read
 * error ends it as the end of the file would). Read straight into the
 * text, the size the stat gave and a byte more in one read: a read that
 * comes back short once the stat's size is in is the end (no stdio: four
 * system calls a file where fdopen and fread made eight). */
static char *slurp(struct arena *a, int fd, const struct stat *st, size_t *len)
{
	size_t used = 0, cap = (size_t)st->st_size + 2;
	char *data = malloc(cap);
	ssize_t n;

	if (!data)
		abort();
	while (used < SPEC_MAX_FILE) {
		size_t want;

		if (used + 1 == cap) {
			cap *= 2;
			data = realloc(data, cap);
			if (!data)
				abort();
		}
		want = cap - 1 - used;
		n = read(fd, data + used, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
		if ((size_t)n < want && used >= (size_t)st->st_size)
			break;
	}
	close(fd);
	data[used] = '\0';
	*len = used;
	return arena_adopt(a, data, cap);
}

/* Open the file `import STR` names, from F (its descriptor; *ST its
 * stat). */
static int open_import(struct resolver *r, const struct sfile *f,
		       const struct spec_item *it, const char **path, struct stat *st)
{
	const char *s = it->str, *dirs = "", *why;
	size_t n = strlen(s);
	int fd;

	if (strchr(s, '/') || (n >= 4 && !strcmp(s + n - 4, ".inv"))) {
		*path = join(r, f->dir, s);
		if ((fd = open_spec(*path, st, &why)) < 0)
			fail(r, it->pos, "import \"%s\": cannot read %s: %s", s,
			     *path, why);
		return fd;
	}
	for (unsigned i = 0; i < r->opts->npack_dirs; i++) {
		const char *dir = r->opts->pack_dirs[i];

		*path = join(r, dir, arena_cat3(r->a, s, ".inv", ""));
		if ((fd = open_spec(*path, st, &why)) >= 0)
			return fd;
		if (errno != ENOENT && errno != ENOTDIR)
			fail(r, it->pos, "import \"%s\": cannot read %s: %s", s,
			     *path, why);
		dirs = arena_printf(r->a, "%s%s%s", dirs, i ? ", " : "", dir);
	}
	fail(r, it->pos, "import \"%s\": no %s.inv in the pack path (%s)", s, s,
	     r->opts->npack_dirs ? dirs : "empty");
}

static void load_items(struct resolver *r, struct sfile *f);

static struct sfile *new_file(struct resolver *r, const struct spec *s,
			      const char *path, const char *id, const char *pack)
{
	struct sfile *f = arena_new_array(r->a, struct sfile, 1);

	f->s = s;
	f->path = path;
	f->id = id;
	f->dir = dir_of(r, path);
	f->pack = pack;
	*PUSH(r, r->files, struct sfile *) = f;
	return f;
}

static struct sfile *find_file(struct resolver *r, const char *id)
{
	struct sfile *const *v = r->files.data;

	for (size_t i = 0; i < r->files.len; i++)
		if (!strcmp(v[i]->id, id))
			return v[i];
	return NULL;
}

/* "a.inv -> b.inv -> a.inv", from G's place on the stack */
static const char *cycle_text(struct resolver *r, const struct sfile *g)
{
	struct sfile *const *v = r->stack.data;
	const char *s = NULL;

	for (size_t i = 0; i < r->stack.len; i++)
		if (s || v[i] == g)
			s = s ? arena_printf(r->a, "%s -> %s", s, v[i]->path) : v[i]->path;
	return arena_printf(r->a, "%s -> %s", s, g->path);
}

/* Make C (from G, imported at AT) visible in F. */
static void import_const(struct resolver *r, struct sfile *f,
			 const struct cst *c, struct spec_pos at)
{
	const struct cst *old = resolve_find_const(f, c->name);

	if (!old) {
		*PUSH(r, f->consts, struct cst) = *c;
		return;
	}
	if (old->file == c->file && old->pos.line == c->pos.line &&
	    old->pos.col == c->pos.col)
		return;         /* the same const, imported twice */
	r->f = f;
	fail(r, at, "const '%s' (%s) conflicts with '%s' (%s)", c->name,
	     where(r, c->file, c->pos), c->name, where(r, old->file, old->pos));
}

/* import STR ; */
static void rimport(struct resolver *r, struct sfile *f, const struct spec_item *it)
{
	const char *path, *id;
	struct sfile *g, *const *v = f->imports.data;
	struct spec *s;
	struct stat st;
	size_t len;
	char *text;
	int fd;

	r->f = f;
	fd = open_import(r, f, it, &path, &st);
	id = file_id(r, path, &st);
	g = find_file(r, id);
	if (g) {
		close(fd);
	} else {
		text = slurp(r->a, fd, &st, &len);
		if (r->opts->on_text)
			r->opts->on_text(r->opts->text_arg, path, text, len);
		if (spec_parse(text, len, path, r->a, r->d, &s))
			longjmp(r->fail, 1);
		g = new_file(r, s, path, id, pack_of(r, path));
		load_items(r, g);
	}
	r->f = f;
	if (g->busy || !g->pack)
		fail(r, it->pos, "import cycle: %s", cycle_text(r, g));
	for (size_t i = 0; i < f->imports.len; i++) {
		if (v[i] == g)
			return;
		if (!strcmp(v[i]->pack, g->pack))
			fail(r, it->pos, "import \"%s\": pack '%s' is already imported from %s",
			     it->str, g->pack, v[i]->path);
	}
	*PUSH(r, f->imports, struct sfile *) = g;
	for (size_t i = 0; i < g->consts.len; i++)
		import_const(r, f, &((struct cst *)g->consts.data)[i], it->pos);
}

/* const NAME = expr ; */
static void rconst(struct resolver *r, struct sfile *f, const struct spec_item *it)
{
	struct cst c = { it->str, 0, f->path, it->pos };
	const struct cst *old = resolve_find_const(f, it->str);

	r->f = f;
	reserved(r, it->str, it->pos);
	if (old)
		fail(r, it->pos, "duplicate const '%s' (already defined at %s)",
		     it->str, where(r, old->file, old->pos));
	c.val = resolve_const(r, it->expr, arena_cat3(r->a, "const ", it->str, ""));
	*PUSH(r, f->consts, struct cst) = c;
}

static void rtop_invariant(struct resolver *r, struct sfile *f,
			   const struct spec_item *it)
{
	for (size_t i = 0; &f->s->items[i] != it; i++) {
		const struct spec_item *o = &f->s->items[i];

		r->f = f;
		if (o->kind == SPEC_I_INVARIANT && !strcmp(o->inv.name, it->inv.name))
			fail(r, it->inv.pos, "duplicate invariant '%s' (already defined at %u:%u)",
			     it->inv.name, o->inv.pos.line, o->inv.pos.col);
	}
}

/* Every import of F first, then its consts, invariants, programs in order. */
static void load_items(struct resolver *r, struct sfile *f)
{
	const struct spec *s = f->s;

	f->busy = true;
	*PUSH(r, r->stack, struct sfile *) = f;
	for (size_t i = 0; i < s->nitems; i++)
		if (s->items[i].kind == SPEC_I_IMPORT)
			rimport(r, f, &s->items[i]);
	for (size_t i = 0; i < s->nitems; i++) {
		const struct spec_item *it = &s->items[i];

		r->f = f;
		if (it->kind == SPEC_I_CONST)
			rconst(r, f, it);
		else if (it->kind == SPEC_I_INVARIANT)
			rtop_invariant(r, f, it);
		else if (it->kind == SPEC_I_PROGRAM && f->pack)
			fail(r, it->pos, "program block in pack '%s' (a pack may only hold import, const and invariant items)",
			     f->pack);
	}
	r->stack.len--;
	f->busy = false;
}

/* ---- entry points ------------------------------------------------------------------ */
static int resolve(struct resolver *r, const struct spec *s, struct mon_set **out)
{
	struct sfile *root;
	struct mon_set *set;
	const struct resolve_opts *opts = r->opts;

	if (setjmp(r->fail))
		return -EINVAL;
	root = new_file(r, s, s->file, file_id(r, s->file, NULL), NULL);
	load_items(r, root);
	check_blocks(r, root);
	if (opts->progs)
		for (int i = 0; i < opts->nprogs; i++)
			build(r, root, opts->progs[i]);
	else
		for (uint32_t i = 0; i < r->o->nfuncs; i++)
			build(r, root, (int)i);
	set = arena_new_array(r->a, struct mon_set, 1);
	set->checks = r->checks.data;
	set->n = (unsigned)r->checks.len;
	*out = set;
	return 0;
}

int spec_resolve(const struct spec *s, const struct object *o,
		 const struct resolve_opts *opts, struct arena *a,
		 struct diag *d, struct mon_set **out)
{
	static const struct resolve_opts none;
	struct resolver *r = arena_new_array(a, struct resolver, 1);
	int err;

	r->o = o;
	r->opts = opts ? opts : &none;
	r->a = a;
	r->d = d;
	err = resolve(r, s, out);
	if (r->text) {
		fclose(r->text);
		free(r->textbuf);
	}
	return err;
}

int spec_resolve_file(const char *spec_path, const struct object *o,
		      const struct resolve_opts *opts, struct arena *a,
		      struct diag *d, struct mon_set **out)
{
	const char *why;
	struct stat st;
	int fd = open_spec(spec_path, &st, &why);
	struct spec *s;
	size_t len;
	char *text;
	int err;

	if (fd < 0)
		return diag_fail(d, spec_path, "cannot read: %s", why);
	text = slurp(a, fd, &st, &len);
	if (opts && opts->on_text)
		opts->on_text(opts->text_arg, spec_path, text, len);
	err = spec_parse(text, len, spec_path, a, d, &s);
	return err ? err : spec_resolve(s, o, opts, a, d, out);
}
