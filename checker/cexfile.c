/* cexfile.c - --replay FILE OBJECT: a replay file of --cex-dir read back
 * into a struct cex and run in the interpreter (contract in artifacts.h,
 * format in docs/cex-files.md). Every field is checked (kind, range, hex,
 * sizes); the first bad one is the one diagnostic, at its position. */
#include "artifacts.h"
#include "json.h"
#include "pipeline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 4096u
#define MAX_REGION_SIZE (1u << 24)
#define MAX_CALLS (1u << 20)
#define MAX_WRITES 4096u
#define MAX_PACK_DIRS 16u
#define MAX_STEPS (1ull << 26)   /* a replay stays a matter of seconds */

struct rf {
	const char *file;
	const struct object *o;
	struct arena *a;
	struct diag *d;
	bool failed;
};

static void bad(struct rf *f, const struct json *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(struct rf *f, const struct json *at, const char *fmt, ...)
{
	va_list ap;

	if (f->failed)
		return;
	f->failed = true;
	va_start(ap, fmt);
	diag_vreport(f->d, DIAG_ERROR, f->file, at ? at->line : 0, at ? at->col : 0, fmt, ap);
	va_end(ap);
}

/* OBJ.KEY of kind K, or NULL after a diagnostic. */
static const struct json *need(struct rf *f, const struct json *obj, const char *where,
			       const char *key, enum json_kind k)
{
	const struct json *v = json_get(obj, key);

	if (f->failed)
		return NULL;
	if (!v) {
		bad(f, obj, "%s%s'%s' is missing (%s)", where, *where ? ": " : "", key, json_kind_name(k));
		return NULL;
	}
	if (v->kind != k) {
		bad(f, v, "%s%s'%s' must be %s, not %s", where, *where ? ": " : "", key,
		    json_kind_name(k), json_kind_name(v->kind));
		return NULL;
	}
	return v;
}

static uint64_t u64(struct rf *f, const struct json *obj, const char *where, const char *key,
		    uint64_t max)
{
	const struct json *v = need(f, obj, where, key, JSON_INT);

	if (v && (v->neg || v->too_big || v->mag > max)) {
		bad(f, v, "%s: '%s' must be from 0 to %llu", where, key, (unsigned long long)max);
		return 0;
	}
	return v ? v->mag : 0;
}

/* -1 .. MAX-1 (an index or -1 for none) */
static int index_or_none(struct rf *f, const struct json *obj, const char *where, const char *key,
			 uint32_t max, const char *what)
{
	const struct json *v = need(f, obj, where, key, JSON_INT);

	if (!v)
		return -1;
	if (v->neg && v->mag == 1)
		return -1;
	if (v->neg || v->too_big || v->mag >= max) {
		bad(f, v, "%s: '%s' must be -1 or %s below %u (%s)", where, key, what, max,
		    f->o->path);
		return -1;
	}
	return (int)v->mag;
}

static bool boolean(struct rf *f, const struct json *obj, const char *where, const char *key)
{
	const struct json *v = need(f, obj, where, key, JSON_BOOL);

	return v && v->b;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static uint8_t *hexbytes(struct rf *f, const struct json *v, const char *where, uint32_t *len)
{
	uint8_t *b;
	size_t i;

	if (!v)
		return NULL;
	if (v->len % 2 || v->len / 2 > MAX_REGION_SIZE) {
		bad(f, v, "%s: expected an even number of lowercase hex digits (at most %u bytes)",
		    where, MAX_REGION_SIZE);
		return NULL;
	}
	b = arena_alloc(f->a, v->len / 2 + 1);
	for (i = 0; i < v->len; i += 2) {
		int h = hexval(v->str[i]), l = hexval(v->str[i + 1]);

		if (h < 0 || l < 0) {
			bad(f, v, "%s: '%c%c' is not a hex byte", where, v->str[i], v->str[i + 1]);
			return NULL;
		}
		b[i / 2] = (uint8_t)(h << 4 | l);
	}
	*len = (uint32_t)(v->len / 2);
	return b;
}

static void u64_array(struct rf *f, const struct json *obj, const char *where, const char *key,
		      uint64_t *out, unsigned n)
{
	const struct json *v = need(f, obj, where, key, JSON_ARRAY);
	char w[96];
	unsigned i;

	if (!v)
		return;
	if (v->n != n) {
		bad(f, v, "%s: '%s' must have %u numbers, not %u", where, key, n, v->n);
		return;
	}
	for (i = 0; i < n && !f->failed; i++) {
		const struct json *e = v->items[i];

		snprintf(w, sizeof(w), "%s.%s[%u]", where, key, i);
		if (e->kind != JSON_INT || e->neg || e->too_big)
			bad(f, e, "%s: expected a number from 0 to 2^64-1", w);
		else
			out[i] = e->mag;
	}
}

static const struct json *list(struct rf *f, const struct json *obj, const char *where,
			       const char *key, unsigned max)
{
	const struct json *v = need(f, obj, where, key, JSON_ARRAY);

	if (v && v->n > max) {
		bad(f, v, "%s: '%s' has %u entries (at most %u)", where, key, v->n, max);
		return NULL;
	}
	return v;
}

static const struct json *item(struct rf *f, const struct json *arr, unsigned i, const char *w)
{
	if (arr->items[i]->kind != JSON_OBJECT) {
		bad(f, arr->items[i], "%s: expected an object, not %s", w,
		    json_kind_name(arr->items[i]->kind));
		return NULL;
	}
	return arr->items[i];
}

static void region(struct rf *f, const struct json *v, const char *w, struct cex_region *g)
{
	const struct json *kind = need(f, v, w, "kind", JSON_STRING);
	const struct json *name = need(f, v, w, "name", JSON_STRING);
	int k;

	g->base = u64(f, v, w, "base", UINT64_MAX);
	g->writable = boolean(f, v, w, "writable");
	g->map = index_or_none(f, v, w, "map", f->o->nmaps, "a map index");
	g->bytes = hexbytes(f, need(f, v, w, "bytes", JSON_STRING), w, &g->size);
	if (f->failed)
		return;
	g->name = name->str;
	for (k = INTERP_MEM_STACK; k <= INTERP_MEM_USER; k++)
		if (!strcmp(kind->str, interp_mem_kind_name((enum interp_mem_kind)k)))
			break;
	if (k > INTERP_MEM_USER || k == INTERP_MEM_STACK)
		bad(f, kind, "%s: unknown region kind '%s'", w, kind->str);
	g->kind = (enum interp_mem_kind)k;
}

static void call(struct rf *f, const struct json *v, const char *w, struct cex_call *c)
{
	const struct json *writes, *key;
	char ww[128];
	unsigned i;

	c->sec = index_or_none(f, v, w, "sec", f->o->nsections, "a section index");
	c->slot = (uint32_t)u64(f, v, w, "slot", UINT32_MAX);
	c->helper = index_or_none(f, v, w, "helper", 1u << 20, "a helper id");
	c->kfunc = index_or_none(f, v, w, "kfunc", f->o->nkfuncs, "a kfunc index");
	c->ret = u64(f, v, w, "ret", UINT64_MAX);
	c->tail_taken = boolean(f, v, w, "tail_taken");
	c->tail_ret = u64(f, v, w, "tail_ret", UINT64_MAX);
	u64_array(f, v, w, "args", c->args, 5);
	key = json_get(v, "key");
	if (!f->failed && key && key->kind != JSON_NULL) {
		if (key->kind != JSON_STRING)
			bad(f, key, "%s: 'key' must be a hex string or null", w);
		else
			c->key = hexbytes(f, key, w, &c->key_size);
	}
	writes = list(f, v, w, "writes", MAX_WRITES);
	if (!writes)
		return;
	c->nwrites = writes->n;
	c->writes = arena_new_array(f->a, struct cex_write, writes->n + 1);
	for (i = 0; i < writes->n && !f->failed; i++) {
		const struct json *e;

		snprintf(ww, sizeof(ww), "%s.writes[%u]", w, i);
		e = item(f, writes, i, ww);
		if (!e)
			return;
		c->writes[i].addr = u64(f, e, ww, "addr", UINT64_MAX);
		c->writes[i].bytes = hexbytes(f, need(f, e, ww, "bytes", JSON_STRING), ww,
					      &c->writes[i].size);
	}
}

static void cex_of(struct rf *f, const struct json *v, struct cex *x)
{
	const struct json *regs, *calls, *reads, *e;
	char w[96];
	unsigned i;

	u64_array(f, v, "cex", "args", x->args, 5);
	x->pkt = u64(f, v, "cex", "pkt", UINT64_MAX);
	x->pkt_end = u64(f, v, "cex", "pkt_end", UINT64_MAX);
	x->max_steps = u64(f, v, "cex", "max_steps", MAX_STEPS);
	regs = list(f, v, "cex", "regions", MAX_REGIONS);
	calls = list(f, v, "cex", "calls", MAX_CALLS);
	reads = list(f, v, "cex", "reads", MAX_CALLS);
	if (f->failed)
		return;
	if (x->pkt > x->pkt_end)
		bad(f, json_get(v, "pkt"), "cex: 'pkt' is above 'pkt_end'");
	x->regions = arena_new_array(f->a, struct cex_region, regs->n + 1);
	x->nregions = regs->n;
	for (i = 0; i < regs->n && !f->failed; i++) {
		snprintf(w, sizeof(w), "cex.regions[%u]", i);
		if ((e = item(f, regs, i, w)))
			region(f, e, w, &x->regions[i]);
	}
	x->calls = arena_new_array(f->a, struct cex_call, calls->n + 1);
	x->ncalls = calls->n;
	for (i = 0; i < calls->n && !f->failed; i++) {
		snprintf(w, sizeof(w), "cex.calls[%u]", i);
		if ((e = item(f, calls, i, w)))
			call(f, e, w, &x->calls[i]);
	}
	x->reads = arena_new_array(f->a, struct cex_read, reads->n + 1);
	x->nreads = reads->n;
	for (i = 0; i < reads->n && !f->failed; i++) {
		snprintf(w, sizeof(w), "cex.reads[%u]", i);
		if (!(e = item(f, reads, i, w)))
			break;
		x->reads[i].addr = u64(f, e, w, "addr", UINT64_MAX);
		x->reads[i].size = (uint32_t)u64(f, e, w, "size", 8);
		x->reads[i].value = u64(f, e, w, "value", UINT64_MAX);
		if (!f->failed && x->reads[i].size != 1 && x->reads[i].size != 2 &&
		    x->reads[i].size != 4 && x->reads[i].size != 8)
			bad(f, json_get(e, "size"), "%s: 'size' must be 1, 2, 4 or 8", w);
	}
}

static char *read_all(const char *path, size_t *size, struct arena *a, struct diag *d)
{
	FILE *fp = fopen(path, "rb");
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *tmp, *out = NULL;

	if (!fp) {
		diag_fail(d, path, "cannot read: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			tmp = cap > (256u << 20) ? NULL : realloc(buf, cap);
			if (!tmp) {
				diag_fail(d, path, "larger than 128 MiB: not a replay file");
				goto done;
			}
			buf = tmp;
		}
		n = fread(buf + len, 1, cap - len, fp);
		if (!n)
			break;
		len += n;
	}
	if (ferror(fp)) {
		diag_fail(d, path, "cannot read: %s", strerror(errno));
		goto done;
	}
	out = arena_alloc(a, len + 1);
	if (len)
		memcpy(out, buf, len);
	*size = len;
done:
	free(buf);
	fclose(fp);
	return out;
}

/* The recorded check of the resolved spec. */
static const struct mon_check *find_check(struct rf *f, const struct json *top, const char *spec,
					  const char *const *cli_dirs, unsigned ncli)
{
	const char *dirs[2 * MAX_PACK_DIRS + 2];
	struct resolve_opts ro = { .pack_dirs = dirs };
	const struct json *pd = list(f, top, "", "pack_dirs", MAX_PACK_DIRS);
	const struct json *name = need(f, top, "", "check", JSON_STRING);
	const struct json *prog = need(f, top, "", "program", JSON_STRING);
	uint64_t site = u64(f, top, "", "site", UINT32_MAX);
	struct mon_set *set;
	unsigned i;

	for (i = 0; i < ncli && i < MAX_PACK_DIRS; i++)
		dirs[ro.npack_dirs++] = cli_dirs[i];
	for (i = 0; pd && i < pd->n && !f->failed; i++) {
		if (pd->items[i]->kind != JSON_STRING)
			bad(f, pd->items[i], "'pack_dirs[%u]' must be a string", i);
		else
			dirs[ro.npack_dirs++] = pd->items[i]->str;
	}
	dirs[ro.npack_dirs++] = invcheck_pack_dir();
	if (f->failed)
		return NULL;
	if (spec_resolve_file(spec, f->o, &ro, f->a, f->d, &set)) {
		f->failed = true;
		return NULL;
	}
	for (i = 0; i < set->n; i++) {
		const struct mon_check *c = &set->checks[i];

		if (strcmp(c->name, name->str))
			continue;
		if (strcmp(c->prog, prog->str))
			bad(f, prog, "'program' is '%s' but check %s is of program %s", prog->str,
			    c->name, c->prog);
		else if (site >= c->nasserts && !c->nasserts)
			bad(f, json_get(top, "site"), "'site' %llu: check %s has no asserts",
			    (unsigned long long)site, c->name);
		else if (site >= c->nasserts)
			bad(f, json_get(top, "site"), "'site' %llu: check %s has asserts 0 to %u",
			    (unsigned long long)site, c->name, c->nasserts - 1);
		return f->failed ? NULL : c;
	}
	bad(f, name, "check '%s' is not in %s (against %s)", name->str, spec, f->o->path);
	return NULL;
}

static int run(const char *file, const struct loaded *l, const struct mon_check *c,
	       struct cex *x, enum report_format fmt, struct diag *d, FILE *out)
{
	struct check_result r = { .c = c, .verdict = CHECK_VIOLATED, .site = x->site, .cex = x };
	struct mon_set one = { .checks = (struct mon_check *)c, .n = 1 };
	int code;

	if (replay_run(l, c, x, &r.replay)) {
		diag_fail(d, file, "the counterexample cannot be set up: %s", r.replay.msg);
		replay_result_free(&r.replay);
		return -EINVAL;
	}
	if (r.replay.outcome == REPLAY_ASSERT_FAILED && r.replay.site == x->site) {
		report_write(l, &one, &r, fmt, true, out);
		code = 1;
	} else if (r.replay.outcome == REPLAY_EXITED) {
		fprintf(out, "%s: %s no longer fails: %s\n", file, c->name, r.replay.msg);
		code = 0;
	} else {
		fprintf(out, "%s: the counterexample of %s does not apply: %s\n", file, c->name,
			r.replay.msg);
		code = 3;
	}
	replay_result_free(&r.replay);
	return code;
}

int cexfile_replay(const char *file, const struct loaded *l, const char *spec,
		   const char *const *pack_dirs, unsigned npack_dirs,
		   enum report_format fmt, struct arena *a, struct diag *d, FILE *out)
{
	struct rf f = { .file = file, .o = l->o, .a = a, .d = d };
	const struct json *format, *version, *sp, *cx;
	const struct mon_check *c;
	struct json *top;
	struct cex *x;
	size_t size;
	char *text;

	text = read_all(file, &size, a, d);
	if (!text || json_parse(text, size, file, a, d, &top))
		return -EINVAL;
	if (top->kind != JSON_OBJECT) {
		bad(&f, top, "a replay file is a JSON object, not %s", json_kind_name(top->kind));
		return -EINVAL;
	}
	format = need(&f, top, "", "format", JSON_STRING);
	if (format && strcmp(format->str, "bpf-invcheck replay"))
		bad(&f, format, "'format' is '%s', not 'bpf-invcheck replay'", format->str);
	version = need(&f, top, "", "version", JSON_INT);
	if (version && (version->neg || version->mag != 1))
		bad(&f, version, "unsupported version %s%llu (this bpf-invcheck reads version 1)",
		    version->neg ? "-" : "", (unsigned long long)version->mag);
	sp = need(&f, top, "", "spec", JSON_STRING);
	cx = need(&f, top, "", "cex", JSON_OBJECT);
	if (f.failed)
		return -EINVAL;
	x = arena_alloc(a, sizeof(*x));
	cex_of(&f, cx, x);
	if (f.failed)
		return -EINVAL;
	c = find_check(&f, top, spec ? spec : sp->str, pack_dirs, npack_dirs);
	if (!c)
		return -EINVAL;
	x->func = c->func;
	x->site = (unsigned)json_get(top, "site")->mag;
	return run(file, l, c, x, fmt, d, out);
}
