/* spec_lex.c - the spec language tokeniser.
 *
 * The whole input is tokenised up front into an arena array ending with
 * TK_EOF; the first lexical error ends the array with a TK_ERROR token that
 * carries the message, and the parser reports it when it gets there (so an
 * earlier syntax error still wins). Lines and columns are 1-based; a column
 * counts bytes.
 */
#include "spec.h"

#include <string.h>

/* Lengths precomputed: the lexer compares only the entries of the
 * token's length (it ran strlen on each table entry per token; the spec
 * fuzzer spent most of its time there). */
static const struct { const char *s; unsigned char n; enum spec_tok_kind k; } punct[] = {
#define X(k, s) { s, sizeof(s) - 1, TK_##k },
	SPEC_PUNCT(X)
#undef X
};

static const struct { const char *s; unsigned char n; enum spec_tok_kind k; } keywords[] = {
#define X(k, s) { s, sizeof(s) - 1, TK_##k },
	SPEC_KEYWORDS(X)
#undef X
};

#define PUNCT_N ARRAY_SIZE(punct)
#define KEYWORDS_N ARRAY_SIZE(keywords)
_Static_assert(PUNCT_N < 256 && KEYWORDS_N < 256, "struct lexer indexes them in a byte");
#define X(k, s) _Static_assert(sizeof(s) == 2 || sizeof(s) == 3, "read_punct: one or two bytes");
SPEC_PUNCT(X)
#undef X

struct lexer {
	const char *p, *end;
	const char *line_start;
	unsigned line;
	struct arena *a;
	struct vec toks;
	/* per first byte, the first entry of punct[] and keywords[] that
	 * starts with it, then per entry the next one (index + 1, 0: none):
	 * a token is compared with the entries of its first byte only (a
	 * walk of both tables was two thirds of the lexer's instructions) */
	uint8_t punct_first[128], punct_next[PUNCT_N];
	uint8_t kw_first[128], kw_next[KEYWORDS_N];
};

static const char *const tok_names[TK__COUNT] = {
	[TK_EOF] = "<eof>",
	[TK_ERROR] = "<error>",
	[TK_IDENT] = "<name>",
	[TK_NUMBER] = "<number>",
	[TK_STRING] = "<string>",
#define X(k, s) [TK_##k] = "'" s "'",
	SPEC_PUNCT(X)
	SPEC_KEYWORDS(X)
#undef X
};

const char *spec_tok_name(enum spec_tok_kind k)
{
	return k < TK__COUNT ? tok_names[k] : "<?>";
}


static unsigned col_of(const struct lexer *lx, const char *p)
{
	return (unsigned)(p - lx->line_start) + 1;
}

/* A token of kind K from START to lx->p (inline: a call per token was a
 * sixth of the lexer's instructions). */
static inline struct spec_tok *push(struct lexer *lx, enum spec_tok_kind k,
			     const char *start)
{
	struct spec_tok *t = buf_push(&lx->toks, sizeof(*t));

	t->kind = k;
	t->line = lx->line;
	t->col = col_of(lx, start);
	t->src = start;
	t->len = (size_t)(lx->p - start);
	return t;
}

/* An error at AT (which is on the current line). Ends tokenising. */
static void lex_error(struct lexer *lx, const char *at, const char *msg)
{
	struct spec_tok *t = buf_push(&lx->toks, sizeof(*t));

	t->kind = TK_ERROR;
	t->line = lx->line;
	t->col = col_of(lx, at);
	t->src = at;
	t->text = msg;
}

/* The bytes' classes, one load a test (the range tests were a third of
 * the lexer's instructions) */
enum { C_START = 1, C_IDENT = 2, C_BLANK = 4, C_PLAIN = 8 };

/* C_PLAIN: printable ASCII but '"' and '\\' (a string's text as it is) */
static const uint8_t byte_class[256] = {
	['a' ... 'z'] = C_START | C_IDENT | C_PLAIN,
	['A' ... 'Z'] = C_START | C_IDENT | C_PLAIN,
	['_'] = C_START | C_IDENT | C_PLAIN,
	['0' ... '9'] = C_IDENT | C_PLAIN,
	[' '] = C_BLANK | C_PLAIN, ['\t'] = C_BLANK, ['\r'] = C_BLANK, ['\f'] = C_BLANK,
	['\v'] = C_BLANK,
	['!'] = C_PLAIN, ['#' ... '/'] = C_PLAIN, [':' ... '@'] = C_PLAIN, ['['] = C_PLAIN,
	[']' ... '^'] = C_PLAIN, ['`'] = C_PLAIN, ['{' ... '~'] = C_PLAIN,
};

static bool is_ident_start(int c)
{
	return byte_class[(unsigned char)c] & C_START;
}

static bool is_ident_char(int c)
{
	return byte_class[(unsigned char)c] & C_IDENT;
}

/* The N bytes at A and B equal (a keyword's few bytes past the first:
 * memcmp's call was most of a keyword's lookup) */
static inline bool same(const char *a, const char *b, size_t n)
{
	while (n && *a == *b)
		a++, b++, n--;
	return !n;
}

/* ident -> [A-Za-z_][A-Za-z0-9_]*, a keyword when it spells one */
static void read_ident(struct lexer *lx)
{
	const char *start = lx->p, *p = start + 1, *end = lx->end, *text = NULL;
	enum spec_tok_kind k = TK_IDENT;
	struct spec_tok *t;
	size_t n;

	/* in locals: through LX, each byte was a store and a load */
	while (p < end && is_ident_char((unsigned char)*p))
		p++;
	lx->p = p;
	n = (size_t)(p - start);
	for (unsigned i = lx->kw_first[(unsigned char)start[0]]; i; i = lx->kw_next[i - 1])
		if (keywords[i - 1].n == n && same(keywords[i - 1].s + 1, start + 1, n - 1)) {
			k = keywords[i - 1].k;
			text = keywords[i - 1].s;
			break;
		}
	t = push(lx, k, start);
	t->text = text ? text : arena_strndup(lx->a, start, n);
}

/* number -> [0-9]+ | '0' [xX] [0-9a-fA-F]+ ; 64-bit unsigned */
static bool read_number(struct lexer *lx)
{
	const char *start = lx->p;
	unsigned base = 10;
	uint64_t v = 0;
	bool digits = false, big = false;
	struct spec_tok *t;

	if (lx->end - lx->p >= 2 && lx->p[0] == '0' &&
	    (lx->p[1] == 'x' || lx->p[1] == 'X')) {
		base = 16;
		lx->p += 2;
	}
	for (; lx->p < lx->end; lx->p++) {
		int d = hex_digit((unsigned char)*lx->p);

		if (d < 0 || (unsigned)d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			big = true;
		v = v * base + (uint64_t)d;
		digits = true;
	}
	if (!digits || (lx->p < lx->end && is_ident_char((unsigned char)*lx->p))) {
		while (lx->p < lx->end && is_ident_char((unsigned char)*lx->p))
			lx->p++;
		lex_error(lx, start, arena_printf(lx->a, "malformed number '%.*s'",
						  (int)(lx->p - start), start));
		return false;
	}
	if (big) {
		lex_error(lx, start, "number too large");
		return false;
	}
	t = push(lx, TK_NUMBER, start);
	t->num = v;
	t->hex = base == 16;
	return true;
}

/* The length of the valid UTF-8 sequence at P (2..4), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n;
	uint32_t cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* string -> '"' (char | '\' ["\\nt])* '"' ; UTF-8, on one line */
static bool read_string(struct lexer *lx)
{
	const char *start = lx->p++, *q = lx->p;
	struct vec buf = {0};
	struct spec_tok *t;

	/* most strings are printable ASCII without escapes: their text is
	 * their bytes (the loop below pushes them one at a time; a class
	 * load a byte, five tests were 0.3% of xdp_redirect) */
	while (q < lx->end && (byte_class[(unsigned char)*q] & C_PLAIN))
		q++;
	if (q < lx->end && *q == '"') {
		lx->p = q + 1;
		t = push(lx, TK_STRING, start);
		t->text = arena_strndup(lx->a, start + 1, (size_t)(q - start - 1));
		return true;
	}
	for (;;) {
		unsigned char c;

		if (lx->p >= lx->end || *lx->p == '\n') {
			lex_error(lx, start, "unterminated string");
			return false;
		}
		c = (unsigned char)*lx->p;
		if (c == '"')
			break;
		if (c == '\\') {
			char e = lx->p + 1 < lx->end ? lx->p[1] : 0;
			char v = e == '"' ? '"' : e == '\\' ? '\\' :
				 e == 'n' ? '\n' : e == 't' ? '\t' : 0;

			if (!v) {
				if (e == '\n' || !e) {
					lex_error(lx, start, "unterminated string");
				} else if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f) {
					lex_error(lx, lx->p, arena_printf(lx->a,
						  "invalid escape '\\%c' in string", e));
				} else {
					lex_error(lx, lx->p, "invalid escape in string");
				}
				return false;
			}
			*(char *)vec_push(lx->a, &buf, 1) = v;
			lx->p += 2;
		} else if (c < 0x20 && c != '\t') {
			lex_error(lx, lx->p, arena_printf(lx->a,
				  "unexpected byte 0x%02x in string", c));
			return false;
		} else if (c < 0x80) {
			*(char *)vec_push(lx->a, &buf, 1) = (char)c;
			lx->p++;
		} else {
			size_t n = utf8_len((const unsigned char *)lx->p,
					    (const unsigned char *)lx->end);

			if (!n) {
				lex_error(lx, lx->p, arena_printf(lx->a,
					  "invalid UTF-8 byte 0x%02x in string", c));
				return false;
			}
			for (size_t i = 0; i < n; i++)
				*(char *)vec_push(lx->a, &buf, 1) = lx->p[i];
			lx->p += n;
		}
	}
	lx->p++;
	*(char *)vec_push(lx->a, &buf, 1) = 0;
	t = push(lx, TK_STRING, start);
	t->text = buf.data;
	return true;
}

static bool read_punct(struct lexer *lx)
{
	size_t left = (size_t)(lx->end - lx->p);
	const char *start = lx->p;
	unsigned char c = (unsigned char)*lx->p;

	/* the entries of C, a longer one first: the first byte matches */
	for (unsigned i = c < 128 ? lx->punct_first[c] : 0; i; i = lx->punct_next[i - 1]) {
		size_t n = punct[i - 1].n;

		if (n == 1 || (left >= 2 && lx->p[1] == punct[i - 1].s[1])) {
			lx->p += n;
			push(lx, punct[i - 1].k, start);
			return true;
		}
	}
	if (c > 0x20 && c < 0x7f)
		lex_error(lx, start, arena_printf(lx->a, "unexpected character '%c'", c));
	else
		lex_error(lx, start, arena_printf(lx->a, "unexpected byte 0x%02x", c));
	return false;
}

/* Skip blanks, newlines and '#' comments (in locals: through LX, each
 * byte was a store and a load). */
static void skip_space(struct lexer *lx)
{
	const char *p = lx->p, *end = lx->end;

	while (p < end) {
		char c = *p;

		if (c == '\n') {
			p++;
			lx->line++;
			lx->line_start = p;
		} else if (byte_class[(unsigned char)c] & C_BLANK) {
			p++;
		} else if (c == '#') {
			/* the packs are mostly comments: memchr, not a byte a step */
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			p = nl ? nl : end;
		} else {
			break;
		}
	}
	lx->p = p;
}

/* The tables' entries chained by first byte, in table order (the first
 * match wins: a longer punctuation before its prefix). */
static void index_tables(struct lexer *lx)
{
	size_t i;

	for (i = PUNCT_N; i-- > 0;) {
		lx->punct_next[i] = lx->punct_first[(unsigned char)punct[i].s[0]];
		lx->punct_first[(unsigned char)punct[i].s[0]] = (uint8_t)(i + 1);
	}
	for (i = KEYWORDS_N; i-- > 0;) {
		lx->kw_next[i] = lx->kw_first[(unsigned char)keywords[i].s[0]];
		lx->kw_first[(unsigned char)keywords[i].s[0]] = (uint8_t)(i + 1);
	}
}

size_t spec_lex(const char *text, size_t len, struct arena *a,
		struct spec_tok **out)
{
	struct lexer lx = {
		.p = text, .end = text + len, .line_start = text, .line = 1, .a = a,
	};
	bool ok = true;

	index_tables(&lx);
	/* about a token per 8 bytes in the packs and examples (grown from 8
	 * by doubling, the copies were a tenth of the lexer) */
	buf_reserve(&lx.toks, len / 8 + 16, sizeof(struct spec_tok));
	while (ok) {
		unsigned char c;

		skip_space(&lx);
		if (lx.p >= lx.end)
			break;
		c = (unsigned char)*lx.p;
		if (is_ident_start(c))
			read_ident(&lx);
		else if (c >= '0' && c <= '9')
			ok = read_number(&lx);
		else if (c == '"')
			ok = read_string(&lx);
		else
			ok = read_punct(&lx);
	}
	if (ok)
		push(&lx, TK_EOF, lx.p);
	*out = lx.toks.data;
	return lx.toks.len;
}
