/* diag.c - the one diagnostics sink of the library. */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *diag_level_name(enum diag_level lvl)
{
	switch (lvl) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	case DIAG_NOTE:
		return "note";
	}
	return "?";
}

void diag_vreport(struct diag *d, enum diag_level lvl, const char *file,
		  unsigned line, unsigned col, const char *fmt, va_list ap)
{
	char text[1024];
	struct diag_msg m = { lvl, file, line, col, text };

	vsnprintf(text, sizeof(text), fmt, ap);
	switch (lvl) {
	case DIAG_ERROR:
		d->errors++;
		break;
	case DIAG_WARNING:
		d->warnings++;
		break;
	case DIAG_NOTE:
		d->notes++;
		break;
	}
	if (d->sink)
		d->sink(d->arg, &m);
}

void diag_report(struct diag *d, enum diag_level lvl, const char *file,
		 unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, lvl, file, line, col, fmt, ap);
	va_end(ap);
}

int diag_fail(struct diag *d, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_ERROR, file, 0, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int diag_format(const struct diag_msg *m, char *out, size_t size)
{
	const char *lvl = diag_level_name(m->level);

	if (m->file && m->line && m->col)
		return snprintf(out, size, "%s:%u:%u: %s: %s", m->file, m->line,
				m->col, lvl, m->text);
	if (m->file && m->line)
		return snprintf(out, size, "%s:%u: %s: %s", m->file, m->line,
				lvl, m->text);
	if (m->file)
		return snprintf(out, size, "%s: %s: %s", m->file, lvl, m->text);
	return snprintf(out, size, "bpf-invcheck: %s: %s", lvl, m->text);
}

/* "00" to "99": two digits a division (a counterexample's addresses
 * have 19 or 20) */
#define DIG_ROW(d) d "0" d "1" d "2" d "3" d "4" d "5" d "6" d "7" d "8" d "9"
static const char digit_pairs[] =
	DIG_ROW("0") DIG_ROW("1") DIG_ROW("2") DIG_ROW("3") DIG_ROW("4")
	DIG_ROW("5") DIG_ROW("6") DIG_ROW("7") DIG_ROW("8") DIG_ROW("9");

/* base.h */
char *u64_digits(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* base.h */
size_t str_append(char *buf, size_t cap, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n > cap - 1 - len)
		n = cap - 1 - len;
	memcpy(buf + len, s, n);
	len += n;
	buf[len] = 0;
	return len;
}

/* Lexically normalise a path for messages: drop "." components and fold
 * "dir/.." pairs ("/src/build/../examples/a.c" -> "/src/examples/a.c"),
 * as compilers print them. Never touches the file system. */
const char *path_clean(const char *in, char *out, size_t size)
{
	size_t starts[256], n = 0, len = 0;
	const char *p = in;
	bool abs = *in == '/';

	if (!size)
		return in;
	if (abs && len + 1 < size)
		out[len++] = '/';
	while (*p) {
		const char *e = p;
		size_t clen;

		while (*e && *e != '/')
			e++;
		clen = (size_t)(e - p);
		if (clen == 0 || (clen == 1 && p[0] == '.')) {
			/* skip */
		} else if (clen == 2 && p[0] == '.' && p[1] == '.' && n &&
			   !(out[starts[n - 1]] == '.' && out[starts[n - 1] + 1] == '.' &&
			     (starts[n - 1] + 2 == len || out[starts[n - 1] + 2] == '/'))) {
			len = starts[--n];
			if (len > (size_t)abs)
				len--; /* the separator before it */
		} else if (n < ARRAY_SIZE(starts) && len + clen + 2 < size) {
			if (len > (size_t)abs)
				out[len++] = '/';
			starts[n++] = len;
			memcpy(out + len, p, clen);
			len += clen;
		} else {
			return in; /* too long: print it as it is */
		}
		p = *e ? e + 1 : e;
	}
	if (!len)
		out[len++] = '.';
	out[len] = 0;
	return out;
}

void diag_print_stderr(void *arg, const struct diag_msg *m)
{
	char buf[1400];

	(void)arg;
	diag_format(m, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

int parse_uint_range(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int write_full(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
