/* spec_parse.c - recursive-descent parser for spec files, in Lua's manner.
 *
 * One function per grammar rule, its first line the production. The
 * primitives are testnext (consume if it matches), check (must match),
 * checknext (must match, consume) and check_match (a closing token, with
 * "(to close 'X' at line N)" when the opener is on another line). The first
 * error is reported with file:line:col and "near <token>" and unwinds with
 * longjmp: every node is in the arena, so nothing leaks. Binary operators
 * use precedence climbing over a {left, right} table; `=>` (lowest,
 * right-assoc) and `?:` sit above it. Nesting is limited to SPEC_MAX_DEPTH.
 *
 * Precondition: none on the input (any bytes); output is syntax only.
 */
#include "spec.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const struct spec_tok *t;       /* the current token */
	struct spec_tok *toks;          /* all of them (malloc'd: spec_lex) */
	const char *file;
	struct arena *a;
	struct diag *d;
	unsigned depth;
	jmp_buf fail;
};

/* ---- errors and primitives --------------------------------------------- */
static void near(const struct spec_tok *t, char *buf, size_t size)
{
	if (t->kind == TK_EOF)
		snprintf(buf, size, "<eof>");
	else if (t->len > 40)
		snprintf(buf, size, "'%.37s...'", t->src);
	else
		snprintf(buf, size, "'%.*s'", (int)t->len, t->src);
}

static void lex_fail(struct parser *p) __attribute__((noreturn));
static void lex_fail(struct parser *p)
{
	diag_report(p->d, DIAG_ERROR, p->file, p->t->line, p->t->col, "%s",
		    p->t->text);
	longjmp(p->fail, 1);
}

/* An error at the current token: "MSG near 'TOK'". */
static void error(struct parser *p, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
static void error(struct parser *p, const char *fmt, ...)
{
	char msg[256], tok[64];
	va_list ap;

	if (p->t->kind == TK_ERROR)
		lex_fail(p);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	near(p->t, tok, sizeof(tok));
	diag_report(p->d, DIAG_ERROR, p->file, p->t->line, p->t->col,
		    "%s near %s", msg, tok);
	longjmp(p->fail, 1);
}

static void next(struct parser *p)
{
	if (p->t->kind != TK_EOF)
		p->t++;
	if (p->t->kind == TK_ERROR)
		lex_fail(p);
}

static bool testnext(struct parser *p, enum spec_tok_kind k)
{
	if (p->t->kind != k)
		return false;
	next(p);
	return true;
}

static void check(struct parser *p, enum spec_tok_kind k)
{
	if (p->t->kind != k)
		error(p, "%s expected", spec_tok_name(k));
}

static void checknext(struct parser *p, enum spec_tok_kind k)
{
	check(p, k);
	next(p);
}

static void check_match(struct parser *p, enum spec_tok_kind what,
			enum spec_tok_kind who, unsigned line)
{
	if (p->t->kind == what) {
		next(p);
		return;
	}
	if (line == p->t->line)
		error(p, "%s expected", spec_tok_name(what));
	error(p, "%s expected (to close %s at line %u)", spec_tok_name(what),
	      spec_tok_name(who), line);
}

static struct spec_pos pos(const struct parser *p)
{
	return (struct spec_pos){ p->t->line, p->t->col };
}

static const char *str_checkname(struct parser *p)
{
	const char *s;

	check(p, TK_IDENT);
	s = p->t->text;
	next(p);
	return s;
}

static const char *str_checkstring(struct parser *p)
{
	const char *s;

	check(p, TK_STRING);
	s = p->t->text;
	next(p);
	return s;
}

static void enter(struct parser *p, const char *what)
{
	if (++p->depth > SPEC_MAX_DEPTH)
		error(p, "%s nested too deeply", what);
}

static void leave(struct parser *p)
{
	p->depth--;
}

#define NEW(p, type) arena_new_array((p)->a, type, 1)
#define PUSH(p, v, type) ((type *)vec_push((p)->a, &(v), sizeof(type)))

static bool is_type(enum spec_tok_kind k)
{
	return k >= TK_BOOL && k <= TK_S64;    /* SPEC_TYPES, in order */
}

static enum spec_type tok_type(enum spec_tok_kind k)
{
	return (enum spec_type)(k - TK_BOOL);
}

/* ---- expressions -------------------------------------------------------- */
static struct spec_expr *expr(struct parser *p);

static struct spec_expr *mkexpr(struct parser *p, enum spec_expr_kind k,
				struct spec_pos at)
{
	struct spec_expr *e = NEW(p, struct spec_expr);

	e->kind = k;
	e->pos = at;
	return e;
}

/* exprlist -> expr (',' expr)* ; into E->args */
static void exprlist(struct parser *p, struct spec_expr *e)
{
	struct vec v = {0};

	do
		*PUSH(p, v, struct spec_expr *) = expr(p);
	while (testnext(p, TK_COMMA));
	e->args = v.data;
	e->nargs = v.len;
}

/* callargs -> '(' [exprlist] ')' */
static struct spec_expr *callargs(struct parser *p, const char *name,
				  struct spec_pos at)
{
	struct spec_expr *e = mkexpr(p, SPEC_E_CALL, at);
	unsigned line = p->t->line;

	e->callee = name;
	checknext(p, TK_LPAREN);
	if (p->t->kind != TK_RPAREN)
		exprlist(p, e);
	check_match(p, TK_RPAREN, TK_LPAREN, line);
	return e;
}

/* field -> '.' (IDENT | keyword) */
static const char *field(struct parser *p)
{
	const char *s;

	checknext(p, TK_DOT);
	if (p->t->kind == TK_IDENT || (p->t->kind >= TK_IMPORT && p->t->kind < TK__COUNT)) {
		s = arena_strndup(p->a, p->t->src, p->t->len);
		next(p);
		return s;
	}
	error(p, "field name expected");
}

/* nameexp -> IDENT [field | callargs] | TYPE callargs | 'insns' */
static struct spec_expr *nameexp(struct parser *p)
{
	struct spec_pos at = pos(p);
	struct spec_expr *e;
	const char *name = p->t->text;

	if (is_type(p->t->kind)) {
		next(p);
		return callargs(p, name, at);
	}
	next(p);
	if (p->t->kind == TK_LPAREN)
		return callargs(p, name, at);
	if (p->t->kind == TK_DOT) {
		e = mkexpr(p, SPEC_E_MEMBER, at);
		e->name = name;
		e->field = field(p);
		return e;
	}
	e = mkexpr(p, SPEC_E_NAME, at);
	e->name = name;
	return e;
}

static struct spec_expr *parenexp(struct parser *p);

/* primary -> NUMBER | 'true' | 'false' | nameexp | parenexp */
static struct spec_expr *primary(struct parser *p)
{
	struct spec_pos at = pos(p);
	struct spec_expr *e;

	switch ((int)p->t->kind) { /* token dispatch: a subset */
	case TK_NUMBER:
		e = mkexpr(p, SPEC_E_NUM, at);
		e->num = p->t->num;
		e->hex = p->t->hex;
		next(p);
		return e;
	case TK_TRUE:
	case TK_FALSE:
		e = mkexpr(p, SPEC_E_BOOL, at);
		e->num = p->t->kind == TK_TRUE;
		next(p);
		return e;
	case TK_IDENT:
	case TK_INSNS:
		return nameexp(p);
	case TK_LPAREN:
		return parenexp(p);
	default:
		if (is_type(p->t->kind))
			return nameexp(p);
		error(p, "expression expected");
	}
}

/* unary -> ('-' | '!' | '~') unary | primary */
static struct spec_expr *unary(struct parser *p)
{
	struct spec_pos at = pos(p);
	struct spec_expr *e;
	enum spec_unop op;

	switch ((int)p->t->kind) {
	case TK_MINUS: op = SPEC_UN_NEG; break;
	case TK_NOT: op = SPEC_UN_LNOT; break;
	case TK_TILDE: op = SPEC_UN_BNOT; break;
	default: return primary(p);
	}
	next(p);
	enter(p, "expression");
	e = mkexpr(p, SPEC_E_UNARY, at);
	e->un.op = op;
	e->un.a = unary(p);
	leave(p);
	return e;
}

/* parenexp -> '(' TYPE ')' unary | '(' expr ')' */
static struct spec_expr *parenexp(struct parser *p)
{
	struct spec_pos at = pos(p);
	unsigned line = p->t->line;
	struct spec_expr *e;

	enter(p, "expression");
	checknext(p, TK_LPAREN);
	if (is_type(p->t->kind) && p->t[1].kind == TK_RPAREN) {
		e = mkexpr(p, SPEC_E_CAST, at);
		e->cast.type = tok_type(p->t->kind);
		next(p);
		next(p);
		e->cast.a = unary(p);
	} else {
		e = expr(p);
		check_match(p, TK_RPAREN, TK_LPAREN, line);
	}
	leave(p);
	return e;
}

/* Binary operators by token: priority {left, right}; right < left is
 * right-assoc; left 0: not a binary operator (below every limit). */
static const struct { enum spec_binop op; unsigned char left, right; } binops[TK__COUNT] = {
	[TK_STAR] = { SPEC_BIN_MUL, 11, 11 }, [TK_SLASH] = { SPEC_BIN_DIV, 11, 11 },
	[TK_PERCENT] = { SPEC_BIN_MOD, 11, 11 },
	[TK_PLUS] = { SPEC_BIN_ADD, 10, 10 }, [TK_MINUS] = { SPEC_BIN_SUB, 10, 10 },
	[TK_SHL] = { SPEC_BIN_SHL, 9, 9 }, [TK_SHR] = { SPEC_BIN_SHR, 9, 9 },
	[TK_LT] = { SPEC_BIN_LT, 8, 8 }, [TK_LE] = { SPEC_BIN_LE, 8, 8 },
	[TK_GT] = { SPEC_BIN_GT, 8, 8 }, [TK_GE] = { SPEC_BIN_GE, 8, 8 },
	[TK_EQ] = { SPEC_BIN_EQ, 7, 7 }, [TK_NE] = { SPEC_BIN_NE, 7, 7 },
	[TK_AMP] = { SPEC_BIN_BAND, 6, 6 }, [TK_CARET] = { SPEC_BIN_BXOR, 5, 5 },
	[TK_PIPE] = { SPEC_BIN_BOR, 4, 4 }, [TK_ANDAND] = { SPEC_BIN_LAND, 3, 3 },
	[TK_OROR] = { SPEC_BIN_LOR, 2, 2 },
};
#define IN_PRIORITY 8   /* `e in {..}` / `e in [..]`: a relational operator */

/* inexp -> e 'in' ('{' exprlist '}' | '[' expr ',' expr ']') */
static struct spec_expr *inexp(struct parser *p, struct spec_expr *v)
{
	struct spec_expr *e;
	unsigned line;

	checknext(p, TK_IN);
	line = p->t->line;
	if (testnext(p, TK_LBRACE)) {
		e = mkexpr(p, SPEC_E_IN_SET, v->pos);
		e->in = v;
		exprlist(p, e);
		check_match(p, TK_RBRACE, TK_LBRACE, line);
		return e;
	}
	if (!testnext(p, TK_LBRACKET))
		error(p, "'{' or '[' expected after 'in'");
	e = mkexpr(p, SPEC_E_IN_RANGE, v->pos);
	e->cond.a = v;
	e->cond.b = expr(p);
	checknext(p, TK_COMMA);
	e->cond.c = expr(p);
	check_match(p, TK_RBRACKET, TK_LBRACKET, line);
	return e;
}

/* subexpr -> unary (binop subexpr | inexp)* ; operators above LIMIT */
static struct spec_expr *subexpr(struct parser *p, unsigned limit)
{
	struct spec_expr *e;

	enter(p, "expression");
	e = unary(p);
	for (;;) {
		enum spec_tok_kind k = p->t->kind;
		struct spec_expr *b;

		if (p->t->kind == TK_IN && IN_PRIORITY > limit) {
			e = inexp(p, e);
			continue;
		}
		if (binops[k].left <= limit)
			break;
		next(p);
		b = mkexpr(p, SPEC_E_BINARY, e->pos);
		b->bin.op = binops[k].op;
		b->bin.a = e;
		b->bin.b = subexpr(p, binops[k].right);
		e = b;
	}
	leave(p);
	return e;
}

/* condexp -> subexpr ['?' expr ':' condexp] */
static struct spec_expr *condexp(struct parser *p)
{
	struct spec_expr *c = subexpr(p, 0), *e;

	if (!testnext(p, TK_QUESTION))
		return c;
	enter(p, "expression");
	e = mkexpr(p, SPEC_E_COND, c->pos);
	e->cond.a = c;
	e->cond.b = expr(p);
	checknext(p, TK_COLON);
	e->cond.c = condexp(p);
	leave(p);
	return e;
}

/* expr -> condexp ['=>' expr] */
static struct spec_expr *expr(struct parser *p)
{
	struct spec_expr *a, *e;

	enter(p, "expression");
	a = condexp(p);
	if (testnext(p, TK_ARROW)) {
		e = mkexpr(p, SPEC_E_BINARY, a->pos);
		e->bin.op = SPEC_BIN_IMPLIES;
		e->bin.a = a;
		e->bin.b = expr(p);
		a = e;
	}
	leave(p);
	return a;
}

/* ---- statements --------------------------------------------------------- */
static struct spec_stmt *stmt(struct parser *p);

/* block -> '{' stmt* '}' */
static struct spec_block block(struct parser *p)
{
	struct spec_block b = { .braced = true };
	unsigned line = p->t->line;
	struct vec v = {0};

	checknext(p, TK_LBRACE);
	while (p->t->kind != TK_RBRACE && p->t->kind != TK_EOF)
		*PUSH(p, v, struct spec_stmt *) = stmt(p);
	check_match(p, TK_RBRACE, TK_LBRACE, line);
	b.stmts = v.data;
	b.n = v.len;
	return b;
}

/* body -> block | stmt */
static struct spec_block body(struct parser *p)
{
	struct spec_block b = {0};

	if (p->t->kind == TK_LBRACE)
		return block(p);
	b.stmts = arena_new_array(p->a, struct spec_stmt *, 1);
	b.stmts[0] = stmt(p);
	b.n = 1;
	return b;
}

/* ifstat -> 'if' '(' expr ')' body ['else' body] */
static void ifstat(struct parser *p, struct spec_stmt *s)
{
	unsigned line;

	checknext(p, TK_IF);
	line = p->t->line;
	checknext(p, TK_LPAREN);
	s->expr = expr(p);
	check_match(p, TK_RPAREN, TK_LPAREN, line);
	s->then = body(p);
	if (testnext(p, TK_ELSE)) {
		s->has_else = true;
		s->els = body(p);
	}
}

/* stmt -> 'assert' expr [':' STRING] ';' | 'assume' expr ';'
 *       | IDENT '=' expr ';' | ifstat */
static struct spec_stmt *stmt(struct parser *p)
{
	struct spec_stmt *s = NEW(p, struct spec_stmt);

	s->pos = pos(p);
	enter(p, "statement");
	switch ((int)p->t->kind) {
	case TK_ASSERT:
		s->kind = SPEC_S_ASSERT;
		next(p);
		s->expr = expr(p);
		if (testnext(p, TK_COLON))
			s->msg = str_checkstring(p);
		checknext(p, TK_SEMI);
		break;
	case TK_ASSUME:
		s->kind = SPEC_S_ASSUME;
		next(p);
		s->expr = expr(p);
		checknext(p, TK_SEMI);
		break;
	case TK_IDENT:
		s->kind = SPEC_S_ASSIGN;
		s->name = str_checkname(p);
		checknext(p, TK_ASSIGN);
		s->expr = expr(p);
		checknext(p, TK_SEMI);
		break;
	case TK_IF:
		s->kind = SPEC_S_IF;
		ifstat(p, s);
		break;
	default:
		error(p, "statement expected");
	}
	leave(p);
	return s;
}

/* ---- invariants ---------------------------------------------------------- */
/* bound -> 'bound' 'insns' '<=' expr ';' */
static struct spec_bound bound(struct parser *p)
{
	struct spec_bound b = { .pos = pos(p) };

	checknext(p, TK_BOUND);
	checknext(p, TK_INSNS);
	checknext(p, TK_LE);
	b.max = expr(p);
	checknext(p, TK_SEMI);
	return b;
}

/* names -> '*' | IDENT (',' IDENT)* */
static void names(struct parser *p, struct spec_event *ev)
{
	struct vec v = {0};

	if (testnext(p, TK_STAR)) {
		ev->any = true;
		return;
	}
	if (p->t->kind != TK_IDENT)
		error(p, "helper or kfunc name expected");
	do
		*PUSH(p, v, const char *) = str_checkname(p);
	while (testnext(p, TK_COMMA));
	ev->names = v.data;
	ev->nnames = v.len;
}

/* event -> 'entry' | 'exit' | 'call' names | 'return' names */
static struct spec_event event(struct parser *p)
{
	struct spec_event ev = { .pos = pos(p) };

	switch ((int)p->t->kind) {
	case TK_ENTRY: ev.kind = SPEC_EV_ENTRY; next(p); break;
	case TK_EXIT: ev.kind = SPEC_EV_EXIT; next(p); break;
	case TK_CALL: ev.kind = SPEC_EV_CALL; next(p); names(p, &ev); break;
	case TK_RETURN: ev.kind = SPEC_EV_RETURN; next(p); names(p, &ev); break;
	default:
		error(p, "event ('entry', 'exit', 'call' or 'return') expected");
	}
	return ev;
}

/* state -> 'state' '{' (TYPE IDENT '=' expr ';')* '}' */
static void state(struct parser *p, struct spec_clause *c)
{
	struct vec v = {0};
	unsigned line;

	checknext(p, TK_STATE);
	line = p->t->line;
	checknext(p, TK_LBRACE);
	while (p->t->kind != TK_RBRACE && p->t->kind != TK_EOF) {
		struct spec_var *var = PUSH(p, v, struct spec_var);

		var->pos = pos(p);
		if (!is_type(p->t->kind))
			error(p, "type expected");
		var->type = tok_type(p->t->kind);
		next(p);
		var->name = str_checkname(p);
		checknext(p, TK_ASSIGN);
		var->init = expr(p);
		checknext(p, TK_SEMI);
	}
	check_match(p, TK_RBRACE, TK_LBRACE, line);
	c->vars = v.data;
	c->nvars = v.len;
}

/* clause -> state | 'on' event block | bound */
static void clause(struct parser *p, struct spec_clause *c)
{
	c->pos = pos(p);
	switch ((int)p->t->kind) {
	case TK_STATE:
		c->kind = SPEC_C_STATE;
		state(p, c);
		break;
	case TK_ON:
		c->kind = SPEC_C_ON;
		next(p);
		c->event = event(p);
		c->body = block(p);
		break;
	case TK_BOUND:
		c->kind = SPEC_C_BOUND;
		c->bound = bound(p);
		break;
	default:
		error(p, "'state', 'on', 'bound' or '}' expected");
	}
}

/* invariant -> 'invariant' IDENT '{' clause* '}' */
static struct spec_invariant invariant(struct parser *p)
{
	struct spec_invariant inv = { .pos = pos(p) };
	struct vec v = {0};
	unsigned line;

	checknext(p, TK_INVARIANT);
	inv.name = str_checkname(p);
	line = p->t->line;
	checknext(p, TK_LBRACE);
	while (p->t->kind != TK_RBRACE && p->t->kind != TK_EOF)
		clause(p, PUSH(p, v, struct spec_clause));
	check_match(p, TK_RBRACE, TK_LBRACE, line);
	inv.clauses = v.data;
	inv.nclauses = v.len;
	return inv;
}

/* ---- programs and items -------------------------------------------------- */
/* qname -> IDENT ['.' IDENT] */
static struct spec_qname qname(struct parser *p)
{
	struct spec_qname q = { .pos = pos(p) };

	q.name = str_checkname(p);
	if (p->t->kind == TK_DOT) {
		q.pack = q.name;
		q.name = field(p);
	}
	return q;
}

/* param -> IDENT '=' expr */
static struct spec_param param(struct parser *p)
{
	struct spec_param pa = { .pos = pos(p) };

	pa.name = str_checkname(p);
	checknext(p, TK_ASSIGN);
	pa.expr = expr(p);
	return pa;
}

/* qcheck -> qname ['(' param (',' param)* ')']   (parameters: an extension) */
static struct spec_qname qcheck(struct parser *p)
{
	struct spec_qname q = qname(p);
	struct vec v = {0};
	unsigned line = p->t->line;

	if (!testnext(p, TK_LPAREN))
		return q;
	do
		*PUSH(p, v, struct spec_param) = param(p);
	while (testnext(p, TK_COMMA));
	check_match(p, TK_RPAREN, TK_LPAREN, line);
	q.params = v.data;
	q.nparams = v.len;
	return q;
}

/* pitem -> 'check' qcheck (',' qcheck)* ';' | 'assume' expr ';'
 *        | invariant | bound | 'relate' IDENT (',' IDENT)* ';'
 * ('relate' is an extension and a contextual keyword: an IDENT here) */
static void pitem(struct parser *p, struct spec_pitem *pi)
{
	struct vec v = {0};

	pi->pos = pos(p);
	switch ((int)p->t->kind) {
	case TK_CHECK:
		pi->kind = SPEC_P_CHECK;
		next(p);
		do
			*PUSH(p, v, struct spec_qname) = qcheck(p);
		while (testnext(p, TK_COMMA));
		pi->checks = v.data;
		pi->nchecks = v.len;
		checknext(p, TK_SEMI);
		break;
	case TK_ASSUME:
		pi->kind = SPEC_P_ASSUME;
		next(p);
		pi->expr = expr(p);
		checknext(p, TK_SEMI);
		break;
	case TK_INVARIANT:
		pi->kind = SPEC_P_INVARIANT;
		pi->inv = invariant(p);
		break;
	case TK_BOUND:
		pi->kind = SPEC_P_BOUND;
		pi->bound = bound(p);
		break;
	case TK_IDENT:
		if (!strcmp(p->t->text, "relate")) {
			pi->kind = SPEC_P_RELATE;
			next(p);
			do
				*PUSH(p, v, struct spec_qname) = qname(p);
			while (testnext(p, TK_COMMA));
			pi->checks = v.data;
			pi->nchecks = v.len;
			checknext(p, TK_SEMI);
			break;
		}
		/* fall through */
	default:
		error(p, "'check', 'assume', 'invariant', 'bound' or '}' expected");
	}
}

/* selector -> STRING | 'section' STRING | 'struct_ops' STRING | '*' */
static void selector(struct parser *p, struct spec_item *it)
{
	it->sel_pos = pos(p);
	switch ((int)p->t->kind) {
	case TK_STRING:
		it->sel = SPEC_SEL_NAME;
		break;
	case TK_SECTION:
		it->sel = SPEC_SEL_SECTION;
		next(p);
		break;
	case TK_STRUCT_OPS:
		it->sel = SPEC_SEL_STRUCT_OPS;
		next(p);
		break;
	case TK_STAR:
		it->sel = SPEC_SEL_ALL;
		next(p);
		return;
	default:
		error(p, "program selector (a string, 'section', 'struct_ops' or '*') expected");
	}
	it->pattern = str_checkstring(p);
}

/* program -> 'program' selector '{' pitem* '}' */
static void program(struct parser *p, struct spec_item *it)
{
	struct vec v = {0};
	unsigned line;

	checknext(p, TK_PROGRAM);
	selector(p, it);
	line = p->t->line;
	checknext(p, TK_LBRACE);
	while (p->t->kind != TK_RBRACE && p->t->kind != TK_EOF)
		pitem(p, PUSH(p, v, struct spec_pitem));
	check_match(p, TK_RBRACE, TK_LBRACE, line);
	it->pitems = v.data;
	it->npitems = v.len;
}

/* item -> 'import' STRING ';' | 'const' IDENT '=' expr ';'
 *       | invariant | program */
static void item(struct parser *p, struct spec_item *it)
{
	it->pos = pos(p);
	switch ((int)p->t->kind) {
	case TK_IMPORT:
		it->kind = SPEC_I_IMPORT;
		next(p);
		it->str = str_checkstring(p);
		checknext(p, TK_SEMI);
		break;
	case TK_CONST:
		it->kind = SPEC_I_CONST;
		next(p);
		it->str = str_checkname(p);
		checknext(p, TK_ASSIGN);
		it->expr = expr(p);
		checknext(p, TK_SEMI);
		break;
	case TK_INVARIANT:
		it->kind = SPEC_I_INVARIANT;
		it->inv = invariant(p);
		break;
	case TK_PROGRAM:
		it->kind = SPEC_I_PROGRAM;
		program(p, it);
		break;
	default:
		error(p, "'import', 'const', 'invariant' or 'program' expected");
	}
}

/* spec -> item* */
static struct spec *spec(struct parser *p)
{
	struct spec *s = NEW(p, struct spec);
	struct vec v = {0};

	while (p->t->kind != TK_EOF)
		item(p, PUSH(p, v, struct spec_item));
	s->items = v.data;
	s->nitems = v.len;
	return s;
}

static void parser_init(struct parser *p, const char *text, size_t len,
			const char *file, struct arena *a, struct diag *d)
{
	struct spec_tok *toks;

	spec_lex(text, len, a, &toks);
	p->t = toks;
	p->toks = toks;
	p->file = file;
	p->a = a;
	p->d = d;
	p->depth = 0;
}

int spec_parse(const char *text, size_t len, const char *file,
	       struct arena *a, struct diag *d, struct spec **out)
{
	struct parser p;
	struct spec *volatile s = NULL;

	parser_init(&p, text, len, file, a, d);
	if (setjmp(p.fail)) {
		free(p.toks);           /* set before the setjmp, never after */
		return -EINVAL;
	}
	if (p.t->kind == TK_ERROR)
		lex_fail(&p);
	s = spec(&p);
	s->file = file;
	*out = s;
	free(p.toks);
	return 0;
}

int spec_parse_expr(const char *text, size_t len, const char *file,
		    struct arena *a, struct diag *d, struct spec_expr **out)
{
	struct parser p;
	struct spec_expr *volatile e = NULL;

	parser_init(&p, text, len, file, a, d);
	if (setjmp(p.fail)) {
		free(p.toks);
		return -EINVAL;
	}
	if (p.t->kind == TK_ERROR)
		lex_fail(&p);
	e = expr(&p);
	check(&p, TK_EOF);
	*out = e;
	free(p.toks);
	return 0;
}
