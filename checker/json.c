/* json.c - the JSON reader (contract in json.h): recursive descent, one
 * function per production. */
#include "json.h"

#include <errno.h>
#include <string.h>

struct jp {
	const char *p, *end;
	const char *file;
	unsigned line;
	const char *line_start;
	struct arena *a;
	struct diag *d;
	bool failed;
};

static unsigned col_of(const struct jp *j)
{
	return (unsigned)(j->p - j->line_start) + 1;
}

static void fail(struct jp *j, const char *what)
{
	if (!j->failed)
		diag_report(j->d, DIAG_ERROR, j->file, j->line, col_of(j), "%s", what);
	j->failed = true;
}

static void skip_ws(struct jp *j)
{
	for (; j->p < j->end; j->p++) {
		if (*j->p == '\n') {
			j->line++;
			j->line_start = j->p + 1;
		} else if (*j->p != ' ' && *j->p != '\t' && *j->p != '\r') {
			break;
		}
	}
}

static struct json *node(struct jp *j, enum json_kind k)
{
	struct json *v = arena_alloc(j->a, sizeof(*v));

	v->kind = k;
	v->line = j->line;
	v->col = col_of(j);
	return v;
}

static bool literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return false;
	j->p += n;
	return true;
}

static void put_utf8(struct jp *j, struct vec *b, unsigned cp)
{
	uint8_t u[4];
	int n, i;

	if (cp < 0x80) {
		u[0] = (uint8_t)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (uint8_t)(0xc0 | cp >> 6), u[1] = (uint8_t)(0x80 | (cp & 63)), n = 2;
	} else if (cp < 0x10000) {
		u[0] = (uint8_t)(0xe0 | cp >> 12), u[1] = (uint8_t)(0x80 | ((cp >> 6) & 63));
		u[2] = (uint8_t)(0x80 | (cp & 63)), n = 3;
	} else {
		u[0] = (uint8_t)(0xf0 | cp >> 18), u[1] = (uint8_t)(0x80 | ((cp >> 12) & 63));
		u[2] = (uint8_t)(0x80 | ((cp >> 6) & 63)), u[3] = (uint8_t)(0x80 | (cp & 63)), n = 4;
	}
	for (i = 0; i < n; i++)
		*(uint8_t *)vec_push(j->a, b, 1) = u[i];
}

static unsigned hex4(struct jp *j)
{
	unsigned v = 0;
	int i, h;

	for (i = 0; i < 4; i++) {
		h = j->p < j->end ? hex_digit(*j->p) : -1;
		if (h < 0) {
			fail(j, "bad \\u escape (expected 4 hex digits)");
			return 0;
		}
		v = v << 4 | (unsigned)h;
		j->p++;
	}
	return v;
}

/* string -> '"' chars '"' */
static struct json *string(struct jp *j)
{
	struct json *v = node(j, JSON_STRING);
	struct vec b = {0};
	unsigned cp;

	j->p++;
	while (!j->failed) {
		if (j->p >= j->end || *j->p == '\n') {
			fail(j, "unterminated string");
			break;
		}
		if (*j->p == '"') {
			j->p++;
			break;
		}
		if ((unsigned char)*j->p < 0x20) {
			fail(j, "control character in a string");
			break;
		}
		if (*j->p != '\\') {
			*(char *)vec_push(j->a, &b, 1) = *j->p++;
			continue;
		}
		j->p++;
		if (j->p >= j->end) {
			fail(j, "unterminated string");
			break;
		}
		switch (*j->p++) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			cp = hex4(j);
			if (cp >= 0xd800 && cp < 0xdc00 && literal(j, "\\u")) {
				unsigned lo = hex4(j);

				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					fail(j, "bad surrogate pair in a \\u escape");
			} else if (cp >= 0xd800 && cp < 0xe000) {
				fail(j, "lone surrogate in a \\u escape");
			}
			if (cp == 0)
				fail(j, "\\u0000 in a string");
			break;
		default:
			j->p--;
			fail(j, "bad escape in a string");
			cp = 0;
		}
		put_utf8(j, &b, cp);
	}
	v->len = b.len;
	*(char *)vec_push(j->a, &b, 1) = 0;
	v->str = b.data;
	return v;
}

/* number -> '-'? digits (integers only) */
static struct json *number(struct jp *j)
{
	struct json *v = node(j, JSON_INT);
	const char *start;

	if (*j->p == '-') {
		v->neg = true;
		j->p++;
	}
	start = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned dg = (unsigned)(*j->p++ - '0');

		if (v->mag > (UINT64_MAX - dg) / 10)
			v->too_big = true;
		v->mag = v->mag * 10 + dg;
	}
	if (j->p == start)
		fail(j, "expected a digit");
	else if (*start == '0' && j->p - start > 1)
		fail(j, "a number with a leading zero");
	else if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
		fail(j, "expected an integer (no fractions or exponents here)");
	return v;
}

static struct json *value(struct jp *j, unsigned depth);

/* array -> '[' (value (',' value)*)? ']' */
static struct json *array(struct jp *j, unsigned depth)
{
	struct json *v = node(j, JSON_ARRAY);
	struct vec items = {0};

	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return v;
	}
	while (!j->failed) {
		*(struct json **)vec_push(j->a, &items, sizeof(struct json *)) = value(j, depth + 1);
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']')
			j->p++;
		else
			fail(j, "expected ',' or ']' in an array");
		break;
	}
	v->items = items.data;
	v->n = (unsigned)items.len;
	return v;
}

/* object -> '{' (string ':' value (',' string ':' value)*)? '}' */
static struct json *object(struct jp *j, unsigned depth)
{
	struct json *v = node(j, JSON_OBJECT), *k;
	struct vec keys = {0}, vals = {0};

	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return v;
	}
	while (!j->failed) {
		if (j->p >= j->end || *j->p != '"') {
			fail(j, "expected a string (a key) in an object");
			break;
		}
		k = string(j);
		if (json_get(&(struct json){ .kind = JSON_OBJECT, .keys = keys.data,
					     .items = vals.data, .n = (unsigned)keys.len }, k->str)) {
			if (!j->failed)
				diag_report(j->d, DIAG_ERROR, j->file, k->line, k->col,
					    "duplicate key '%s' in an object", k->str);
			j->failed = true;
		}
		*(const char **)vec_push(j->a, &keys, sizeof(char *)) = k->str;
		skip_ws(j);
		if (j->p >= j->end || *j->p != ':') {
			fail(j, "expected ':' after a key");
			break;
		}
		j->p++;
		*(struct json **)vec_push(j->a, &vals, sizeof(struct json *)) = value(j, depth + 1);
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			skip_ws(j);
			continue;
		}
		if (j->p < j->end && *j->p == '}')
			j->p++;
		else
			fail(j, "expected ',' or '}' in an object");
		break;
	}
	v->keys = keys.data;
	v->items = vals.data;
	v->n = (unsigned)keys.len;
	return v;
}

/* value -> object | array | string | number | true | false | null */
static struct json *value(struct jp *j, unsigned depth)
{
	struct json *v;

	skip_ws(j);
	if (depth > JSON_MAX_DEPTH) {
		fail(j, "nested too deeply");
		return node(j, JSON_NULL);
	}
	if (j->p >= j->end) {
		fail(j, "unexpected end of file (expected a value)");
		return node(j, JSON_NULL);
	}
	switch (*j->p) {
	case '{': return object(j, depth);
	case '[': return array(j, depth);
	case '"': return string(j);
	case '-': return number(j);
	default: break;
	}
	if (*j->p >= '0' && *j->p <= '9')
		return number(j);
	v = node(j, JSON_BOOL);
	if (literal(j, "true")) {
		v->b = true;
	} else if (literal(j, "false")) {
		v->b = false;
	} else if (literal(j, "null")) {
		v->kind = JSON_NULL;
	} else {
		fail(j, "expected a value (object, array, string, integer, true, false or null)");
	}
	return v;
}

int json_parse(const char *text, size_t size, const char *file, struct arena *a,
	       struct diag *d, struct json **out)
{
	struct jp j = { .p = text, .end = text + size, .file = file, .line = 1,
			.line_start = text, .a = a, .d = d };
	struct json *v;

	if (memchr(text, 0, size)) {
		j.p = memchr(text, 0, size);
		for (const char *q = text; q < j.p; q++)
			if (*q == '\n')
				j.line++, j.line_start = q + 1;
		fail(&j, "a NUL byte (not a text file)");
		return -EINVAL;
	}
	v = value(&j, 0);
	skip_ws(&j);
	if (!j.failed && j.p < j.end)
		fail(&j, "text after the end of the value");
	if (j.failed)
		return -EINVAL;
	*out = v;
	return 0;
}

const struct json *json_get(const struct json *v, const char *key)
{
	unsigned i;

	if (!v || v->kind != JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

const char *json_kind_name(enum json_kind k)
{
	switch (k) {
	case JSON_NULL: return "null";
	case JSON_BOOL: return "a boolean";
	case JSON_INT: return "an integer";
	case JSON_STRING: return "a string";
	case JSON_ARRAY: return "an array";
	case JSON_OBJECT: return "an object";
	}
	return "?";
}
