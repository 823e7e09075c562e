/* test_spec.c - the spec front end against data files in tests/data/spec:
 *   ok/NAME.inv   parses; its printed form equals ok/NAME.golden and
 *                 parses back to the same print (REGEN=1 rewrites goldens)
 *   bad/NAME.inv  first line "# expect: L:C: error: MSG"; exactly one
 *                 diagnostic "NAME.inv:L:C: error: MSG"
 *   prec.txt      pairs of lines "< EXPR" / "> PRINTED": precedence
 * plus positions on nodes and robustness (every prefix and byte mutations
 * of the ok files give either success or exactly one error), and, given the
 * source root as a second argument, the shipped specs: each
 * examples/NAME.inv and invariants/NAME.inv parses and prints back to a form that
 * parses to the same print, every `import "NAME"` names an existing
 * invariants/NAME.inv, and a pack holds only import/const/invariant items.
 */
#include "spec.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *data_dir;
static const char *src_root;    /* NULL: the shipped specs are not tested */

struct capture {
	unsigned n;
	char first[512];
};

static void sink(void *arg, const struct diag_msg *m)
{
	struct capture *c = arg;

	if (c->n++ == 0)
		diag_format(m, c->first, sizeof(c->first));
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap * 2 + 4096;
			buf = realloc(buf, cap + 1);
			ck_assert_ptr_nonnull(buf);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Sorted names in DIR ending with ".inv". */
static size_t list_inv(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".inv")) {
			v = realloc(v, (n + 1) * sizeof(*v));
			v[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*out = v;
	return n;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Parse TEXT; on success print it into a malloc'd string. */
static int parse_print(const char *text, size_t len, const char *file,
		       struct capture *c, char **printed)
{
	struct arena *a = arena_new();
	struct diag d = { .sink = sink, .arg = c };
	struct spec *s = NULL;
	size_t plen;
	int err;

	err = spec_parse(text, len, file, a, &d, &s);
	*printed = NULL;
	if (!err) {
		FILE *f = open_memstream(printed, &plen);
		spec_print(s, f);
		fclose(f);
	}
	ck_assert_uint_eq(d.errors, err ? 1 : 0);
	arena_free(a);
	return err;
}

START_TEST(test_ok)
{
	char dir[1024], path[1200], **names;
	size_t n;

	snprintf(dir, sizeof(dir), "%s/ok", data_dir);
	n = list_inv(dir, &names);
	ck_assert_uint_ge(n, 3);
	for (size_t i = 0; i < n; i++) {
		struct capture c = {0};
		char *text, *printed, *golden, *again;
		size_t len, glen;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		text = slurp(path, &len);
		ck_assert_ptr_nonnull(text);
		ck_assert_msg(!parse_print(text, len, names[i], &c, &printed),
			      "%s: %s", names[i], c.first);
		snprintf(path + strlen(path) - 4, 16, ".golden");
		if (getenv("REGEN")) {
			FILE *f = fopen(path, "w");
			fputs(printed, f);
			fclose(f);
		}
		golden = slurp(path, &glen);
		ck_assert_msg(golden != NULL, "missing %s", path);
		ck_assert_msg(!strcmp(golden, printed), "%s: printed form differs:\n%s",
			      names[i], printed);
		ck_assert_int_eq(parse_print(printed, strlen(printed), "printed", &c,
					     &again), 0);
		ck_assert_str_eq(again, printed);
		free(again);
		free(golden);
		free(printed);
		free(text);
	}
	free_list(names, n);
}
END_TEST

START_TEST(test_bad)
{
	char dir[1024], path[1200], want[600], **names;
	unsigned failed = 0;
	size_t n;

	snprintf(dir, sizeof(dir), "%s/bad", data_dir);
	n = list_inv(dir, &names);
	ck_assert_uint_ge(n, 30);
	for (size_t i = 0; i < n; i++) {
		struct capture c = {0};
		char *text, *printed, *nl;
		size_t len;
		int err;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		text = slurp(path, &len);
		ck_assert_ptr_nonnull(text);
		ck_assert_msg(!strncmp(text, "# expect: ", 10), "%s: no expect line",
			      names[i]);
		nl = strchr(text, '\n');
		ck_assert_ptr_nonnull(nl);
		snprintf(want, sizeof(want), "%s:%.*s", names[i],
			 (int)(nl - text - 10), text + 10);
		err = parse_print(text, len, names[i], &c, &printed);
		if (err != -EINVAL || c.n != 1 || strcmp(c.first, want)) {
			fprintf(stderr, "%s: want \"%s\"\n  got %d, %u messages, \"%s\"\n",
				names[i], want, err, c.n, c.first);
			failed++;
		}
		free(printed);
		free(text);
	}
	free_list(names, n);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_prec)
{
	char path[1200], *text, *line, *save = NULL, *input = NULL;
	unsigned failed = 0, cases = 0;
	size_t len;

	snprintf(path, sizeof(path), "%s/prec.txt", data_dir);
	text = slurp(path, &len);
	ck_assert_ptr_nonnull(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct arena *a;
		struct capture c = {0};
		struct diag d = { .sink = sink, .arg = &c };
		struct spec_expr *e = NULL;
		char *out = NULL;
		size_t olen;
		FILE *f;

		if (line[0] == '<') {
			input = line + 2;
			continue;
		}
		if (line[0] != '>')
			continue;
		ck_assert_ptr_nonnull(input);
		a = arena_new();
		f = open_memstream(&out, &olen);
		if (spec_parse_expr(input, strlen(input), "expr", a, &d, &e))
			fprintf(f, "error: %s", c.first);
		else
			spec_print_expr(e, f);
		fclose(f);
		if (strcmp(out, line + 2)) {
			fprintf(stderr, "prec: %s\n  want %s\n  got  %s\n", input,
				line + 2, out);
			failed++;
		}
		cases++;
		free(out);
		arena_free(a);
	}
	free(text);
	ck_assert_uint_ge(cases, 20);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_positions)
{
	static const char text[] =
		"const A = 1;\n"
		"program \"p\" {\n"
		"  invariant i {\n"
		"    on call f, g {\n"
		"      if (x) y = ctx.f + 2;\n"
		"    }\n"
		"  }\n"
		"}\n";
	struct arena *a = arena_new();
	struct diag d = {0};
	struct spec *s;
	const struct spec_clause *c;
	const struct spec_stmt *st, *as;

	ck_assert_int_eq(spec_parse(text, strlen(text), "t", a, &d, &s), 0);
	ck_assert_uint_eq(s->nitems, 2);
	ck_assert_uint_eq(s->items[1].pos.line, 2);
	ck_assert_uint_eq(s->items[1].pitems[0].inv.pos.col, 3);
	c = &s->items[1].pitems[0].inv.clauses[0];
	ck_assert_uint_eq(c->pos.line, 4);
	ck_assert_uint_eq(c->pos.col, 5);
	ck_assert_uint_eq(c->event.nnames, 2);
	ck_assert_str_eq(c->event.names[1], "g");
	st = c->body.stmts[0];
	ck_assert_int_eq(st->kind, SPEC_S_IF);
	ck_assert_uint_eq(st->pos.col, 7);
	ck_assert(!st->then.braced);
	as = st->then.stmts[0];
	ck_assert_int_eq(as->kind, SPEC_S_ASSIGN);
	ck_assert_uint_eq(as->pos.col, 14);
	ck_assert_int_eq(as->expr->kind, SPEC_E_BINARY);
	ck_assert_uint_eq(as->expr->pos.col, 18);       /* ctx.f */
	ck_assert_uint_eq(as->expr->bin.b->pos.col, 26); /* 2 */
	arena_free(a);
}
END_TEST

/* Any input: 0 with no message or -EINVAL with exactly one. */
static void robust(const char *text, size_t len)
{
	struct arena *a = arena_new();
	struct capture c = {0};
	struct diag d = { .sink = sink, .arg = &c };
	struct spec *s;
	int err = spec_parse(text, len, "fuzz", a, &d, &s);

	ck_assert(err == 0 || err == -EINVAL);
	ck_assert_uint_eq(c.n, err ? 1 : 0);
	arena_free(a);
}

START_TEST(test_robust)
{
	char dir[1024], path[1200], **names;
	static const char bytes[] = "{}()[];,.=<>!&|#\"\\\n 0xz*-?:\x80\xff";
	unsigned seed = 12345;
	size_t n;

	snprintf(dir, sizeof(dir), "%s/ok", data_dir);
	n = list_inv(dir, &names);
	for (size_t i = 0; i < n; i++) {
		char *text;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		text = slurp(path, &len);
		for (size_t k = 0; k <= len; k++)
			robust(text, k);            /* every prefix */
		for (unsigned k = 0; k < 3000 && len; k++) {
			char *m = malloc(len);
			memcpy(m, text, len);
			for (int j = 0; j < 3; j++) {
				seed = seed * 1103515245u + 12345u;
				m[(seed >> 8) % len] = bytes[(seed >> 20) % (sizeof(bytes) - 1)];
			}
			robust(m, len);
			free(m);
		}
		free(text);
	}
	free_list(names, n);
	/* no NUL terminator needed, NUL bytes inside */
	robust("const a = 1;\0const b = 2;", 25);
	robust("\"abc", 4);
}
END_TEST

/* Parse one shipped spec at DIR/NAME; PACK: it is imported, so only
 * import/const/invariant items.  Returns the number of failures (printed). */
static unsigned check_shipped(const char *dir, const char *name, bool pack)
{
	char path[1200], ipath[1400];
	struct capture c = {0};
	struct diag d = { .sink = sink, .arg = &c };
	struct arena *a = arena_new();
	struct spec *s = NULL;
	unsigned failed = 0;
	char *text, *printed = NULL, *again = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = slurp(path, &len);
	ck_assert_msg(text != NULL, "cannot read %s", path);
	if (spec_parse(text, len, path, a, &d, &s)) {
		fprintf(stderr, "%s\n", c.first);
		failed++;
		goto out;
	}
	for (size_t i = 0; i < s->nitems; i++) {
		const struct spec_item *it = &s->items[i];

		if (pack && it->kind == SPEC_I_PROGRAM) {
			fprintf(stderr, "%s:%u:%u: error: a pack may hold only import, "
				"const and invariant items\n", path, it->pos.line, it->pos.col);
			failed++;
		}
		if (it->kind != SPEC_I_IMPORT || strchr(it->str, '/'))
			continue;
		snprintf(ipath, sizeof(ipath), "%s/invariants/%s.inv", src_root, it->str);
		if (access(ipath, R_OK)) {
			fprintf(stderr, "%s:%u:%u: error: import \"%s\": no %s\n", path,
				it->pos.line, it->pos.col, it->str, ipath);
			failed++;
		}
	}
	if (parse_print(text, len, path, &c, &printed) ||
	    parse_print(printed, strlen(printed), "printed", &c, &again) ||
	    strcmp(printed, again)) {
		fprintf(stderr, "%s: the printed form does not parse back to itself\n", path);
		failed++;
	}
out:
	free(again);
	free(printed);
	free(text);
	arena_free(a);
	return failed;
}

START_TEST(test_shipped)
{
	static const char *const dirs[] = { "examples", "invariants" };
	unsigned failed = 0, seen[2] = {0};
	char dir[1024], **names;
	size_t n;

	if (!src_root)
		return;
	for (unsigned k = 0; k < 2; k++) {
		snprintf(dir, sizeof(dir), "%s/%s", src_root, dirs[k]);
		n = list_inv(dir, &names);
		for (size_t i = 0; i < n; i++)
			failed += check_shipped(dir, names[i], k == 1);
		seen[k] = n;
		free_list(names, n);
	}
	ck_assert_uint_ge(seen[0], 7);   /* one spec per example */
	ck_assert_uint_ge(seen[1], 4);   /* xdp, tc, sched_ext, tracing */
	ck_assert_msg(failed == 0, "%u shipped spec problems (see stderr)", failed);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("spec");
	SRunner *sr;
	int failed;

	data_dir = argc > 1 ? argv[1] : "tests/data/spec";
	src_root = argc > 2 ? argv[2] : NULL;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ok);
	tcase_add_test(tc, test_bad);
	tcase_add_test(tc, test_prec);
	tcase_add_test(tc, test_positions);
	tcase_add_test(tc, test_robust);
	tcase_add_test(tc, test_shipped);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
