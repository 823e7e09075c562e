/* resolve_priv.h - what spec_resolve.c (files, programs, checks,
 * statements) and spec_expr.c (expressions, types, context tables) share.
 * Internal to spec resolution; the contract is monitor.h.
 */
#ifndef INVCHECK_RESOLVE_PRIV_H
#define INVCHECK_RESOLVE_PRIV_H

#include "monitor.h"

#include <setjmp.h>

struct cst {                    /* a const visible in a file */
	const char *name;
	uint64_t val;
	const char *file;       /* where it is defined */
	struct spec_pos pos;
};

struct sfile {                  /* one spec file */
	const struct spec *s;
	const char *path;       /* as in its diagnostics */
	const char *id;         /* real path: the file's identity */
	const char *dir;        /* imports by path are relative to it */
	const char *pack;       /* "xdp"; NULL for the root */
	struct vec consts;      /* struct cst: imported ones, then its own */
	struct vec imports;     /* struct sfile *: direct imports */
	bool busy;              /* being loaded */
};

enum scope {
	SC_CONST,               /* consts and literals only (const, bound) */
	SC_ENTRY,               /* state initialisers, program assumes */
	SC_EVENT,               /* a handler of event r->ev */
};

struct resolver {
	const struct object *o;
	const struct resolve_opts *opts;
	struct arena *a;
	struct diag *d;
	jmp_buf fail;
	struct vec files;       /* struct sfile *: every file loaded */
	struct vec stack;       /* struct sfile *: files being loaded */
	struct vec checks;      /* struct mon_check */
	/* what an expression is resolved in */
	const struct sfile *f;  /* consts and the file of diagnostics */
	enum scope scope;
	const char *what;       /* SC_CONST: "const X", "bound" */
	enum spec_event_kind ev;
	int func;               /* the program */
	/* the check being built */
	struct mon_check *c;
	const char *inv;        /* its invariant's name as written */
	struct vec vars, handlers, asserts, counters, assumes;
	unsigned nvisible;      /* state variables an expression may use */
	/* expr_text's stream, reused for every text: a cookie stream
	 * appending to textbuf (an open_memstream zeroes a fresh 8 KiB
	 * buffer, a fopencookie's stdio buffer is malloc'd: each was 0.6% of
	 * a small example's run); closed by spec_resolve after resolve
	 * returns, failed or not */
	FILE *text;
	char *textbuf;
	size_t textlen, textcap;
	/* struct site_text: an assert's text and message, made at its first
	 * check (a pack's assert is resolved again for every program that
	 * checks its invariant; printing it was 1.4% of xdp_redirect) */
	struct vec site_texts;
};

#define PUSH(r, v, type) ((type *)vec_push((r)->a, &(v), sizeof(type)))

/* One diagnostic at FILE:AT, then longjmp(r->fail). */
void resolve_fail(struct resolver *r, const char *file, struct spec_pos at,
		  const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));
#define fail(r, at, ...) resolve_fail((r), (r)->f->path, (at), __VA_ARGS__)

/* ---- spec_expr.c ---- */
struct mon_expr *resolve_expr(struct resolver *r, const struct spec_expr *e);
/* E folded to a number in SC_CONST; WHAT names it in errors ("const X"). */
uint64_t resolve_const(struct resolver *r, const struct spec_expr *e,
		       const char *what);
/* May VAL be stored in V (initialiser, assignment)? Fails if not. */
void resolve_value(struct resolver *r, const struct mon_var *v,
		   const struct mon_expr *val);
/* The calls NAMES match; AT for an unknown helper. */
struct mon_calls resolve_calls(struct resolver *r, const char *const *names,
			       size_t n, bool any, struct spec_pos at);
const struct cst *resolve_find_const(const struct sfile *f, const char *name);
int resolve_find_var(const struct resolver *r, const char *name);
unsigned spec_type_width(enum spec_type t);
bool spec_type_signed(enum spec_type t);

#endif
