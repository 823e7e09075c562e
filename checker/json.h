/* json.h - a small JSON reader for the checker's own files (the replay
 * files of --cex-dir, docs/cex-files.md).
 *
 * Contract: json_parse() reads RFC 8259 JSON into a tree in the arena, with
 * the line and column of every value. Numbers must be integers (an
 * optional '-' and digits: the files hold addresses and byte counts, never
 * fractions); strings are kept as bytes, \uXXXX escapes above 0x7f are
 * UTF-8 encoded, \u0000 is refused. Nesting is limited to JSON_MAX_DEPTH.
 * Bad input is one diagnostic "FILE:LINE:COL: error: ..." and -EINVAL.
 * The getters never fail: a missing key is NULL.
 */
#ifndef INVCHECK_JSON_H
#define INVCHECK_JSON_H

#include "base.h"

#define JSON_MAX_DEPTH 32

enum json_kind { JSON_NULL, JSON_BOOL, JSON_INT, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_kind kind;
	unsigned line, col;
	bool b;                     /* BOOL */
	bool neg;                   /* INT: had a '-' */
	uint64_t mag;               /* INT: the magnitude (saturated at UINT64_MAX + flag) */
	bool too_big;               /* INT: more than 64 bits */
	const char *str;            /* STRING (NUL-terminated, no NULs inside) */
	size_t len;
	struct json **items;        /* ARRAY items, OBJECT values */
	const char **keys;          /* OBJECT */
	unsigned n;
};

int json_parse(const char *text, size_t size, const char *file, struct arena *a,
	       struct diag *d, struct json **out);
/* The value of KEY in object V, or NULL (a key repeated in an object is a
 * parse error). */
const struct json *json_get(const struct json *v, const char *key);
const char *json_kind_name(enum json_kind k);

#endif
