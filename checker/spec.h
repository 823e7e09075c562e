/* spec.h - the spec language front end: tokens, AST, parser, printer.
 *
 * Contract (../shared/design/spec-language.md is the grammar):
 * - spec_parse() turns the text of one spec file into a struct spec whose
 *   every node lives in the caller's arena. It reports the first error only
 *   (one diagnostic with file:line:col through the diag sink) and returns
 *   -EINVAL; nothing is resolved against an object here.
 * - Every node carries the position (line, col; 1-based, columns in bytes)
 *   of its first token, for later semantic errors.
 * - spec_print() writes a canonical form: one item per line, indentation of
 *   two spaces, every operator application fully parenthesised. Printing a
 *   parsed print gives the same text again.
 */
#ifndef INVCHECK_SPEC_H
#define INVCHECK_SPEC_H

#include "base.h"

/* ---- tokens (spec_lex.c) ---------------------------------------------- */
/* X(kind, text): punctuation and operators; longest match wins. */
#define SPEC_PUNCT(X) \
	X(ARROW, "=>") X(SHL, "<<") X(SHR, ">>") X(LE, "<=") X(GE, ">=") \
	X(EQ, "==") X(NE, "!=") X(ANDAND, "&&") X(OROR, "||") \
	X(NOT, "!") X(TILDE, "~") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") \
	X(PLUS, "+") X(MINUS, "-") X(LT, "<") X(GT, ">") X(AMP, "&") \
	X(CARET, "^") X(PIPE, "|") X(QUESTION, "?") X(COLON, ":") \
	X(LBRACE, "{") X(RBRACE, "}") X(LPAREN, "(") X(RPAREN, ")") \
	X(LBRACKET, "[") X(RBRACKET, "]") X(COMMA, ",") X(SEMI, ";") \
	X(ASSIGN, "=") X(DOT, ".")

/* X(kind, text): reserved words. */
#define SPEC_KEYWORDS(X) \
	X(IMPORT, "import") X(CONST, "const") X(PROGRAM, "program") \
	X(SECTION, "section") X(STRUCT_OPS, "struct_ops") X(CHECK, "check") \
	X(ASSUME, "assume") X(INVARIANT, "invariant") X(STATE, "state") \
	X(ON, "on") X(ENTRY, "entry") X(EXIT, "exit") X(CALL, "call") \
	X(RETURN, "return") X(BOUND, "bound") X(INSNS, "insns") \
	X(ASSERT, "assert") X(IF, "if") X(ELSE, "else") X(IN, "in") \
	X(TRUE, "true") X(FALSE, "false") X(AND, "and") \
	SPEC_TYPES(X)

/* X(kind, text): the type names, also keywords; in order of enum spec_type. */
#define SPEC_TYPES(X) \
	X(BOOL, "bool") X(U8, "u8") X(U16, "u16") X(U32, "u32") X(U64, "u64") \
	X(S8, "s8") X(S16, "s16") X(S32, "s32") X(S64, "s64")

enum spec_tok_kind {
	TK_EOF,
	TK_ERROR,       /* a lexical error; its text is the message */
	TK_IDENT,
	TK_NUMBER,
	TK_STRING,
#define X(k, s) TK_##k,
	SPEC_PUNCT(X)
	SPEC_KEYWORDS(X)
#undef X
	TK__COUNT
};

struct spec_tok {
	enum spec_tok_kind kind;
	unsigned line, col;
	const char *src;        /* the token's bytes in the input */
	size_t len;
	const char *text;       /* IDENT: the name; STRING: decoded value
				 * (NUL-terminated, no NULs inside);
				 * ERROR: the message */
	uint64_t num;           /* NUMBER */
	bool hex;               /* NUMBER written in hex */
};

/* Tokenise TEXT: *OUT gets an array ending with TK_EOF, or with TK_ERROR
 * at the first lexical error (nothing follows it). Never fails otherwise;
 * the parser reports TK_ERROR when it reaches it. The array is malloc'd
 * (the caller frees it: the parser, once the AST is built, so its pages
 * are reused by what comes next); the tokens' texts are in ARENA. */
size_t spec_lex(const char *text, size_t len, struct arena *a,
		struct spec_tok **out);
const char *spec_tok_name(enum spec_tok_kind k);   /* "'{'", "<ident>", ... */

/* ---- AST --------------------------------------------------------------- */
struct spec_pos {
	unsigned line, col;
};

enum spec_type {
#define X(k, s) SPEC_TY_##k,
	SPEC_TYPES(X)
#undef X
};
const char *spec_type_name(enum spec_type t);

/* X(op, text): unary and binary operators of expressions. */
#define SPEC_UNOPS(X) X(NEG, "-") X(LNOT, "!") X(BNOT, "~")
#define SPEC_BINOPS(X) \
	X(MUL, "*") X(DIV, "/") X(MOD, "%") X(ADD, "+") X(SUB, "-") \
	X(SHL, "<<") X(SHR, ">>") X(LT, "<") X(LE, "<=") X(GT, ">") \
	X(GE, ">=") X(EQ, "==") X(NE, "!=") X(BAND, "&") X(BXOR, "^") \
	X(BOR, "|") X(LAND, "&&") X(LOR, "||") X(IMPLIES, "=>")

enum spec_unop {
#define X(k, s) SPEC_UN_##k,
	SPEC_UNOPS(X)
#undef X
};
enum spec_binop {
#define X(k, s) SPEC_BIN_##k,
	SPEC_BINOPS(X)
#undef X
};
const char *spec_unop_name(enum spec_unop op);
const char *spec_binop_name(enum spec_binop op);

enum spec_expr_kind {
	SPEC_E_NUM,     /* num (hex: written in hex) */
	SPEC_E_BOOL,    /* num is 0 or 1 */
	SPEC_E_NAME,    /* name: ret, pkt, a const or state name, insns ... */
	SPEC_E_MEMBER,  /* name '.' field: ctx.FIELD, global.NAME */
	SPEC_E_CALL,    /* name '(' args ')': u8(p), be16(p), called(NAME) */
	SPEC_E_UNARY,   /* unop a */
	SPEC_E_BINARY,  /* a binop b */
	SPEC_E_COND,    /* a ? b : c */
	SPEC_E_CAST,    /* '(' type ')' a */
	SPEC_E_IN_SET,  /* a in { args } */
	SPEC_E_IN_RANGE /* a in [ b, c ] (inclusive) */
};

struct spec_expr {
	enum spec_expr_kind kind;
	struct spec_pos pos;
	union {
		struct { uint64_t num; bool hex; };
		struct { const char *name; const char *field; };
		struct spec_unary { enum spec_unop op; struct spec_expr *a; } un;
		struct spec_binary {
			enum spec_binop op;
			struct spec_expr *a, *b;
		} bin;
		struct spec_cond { struct spec_expr *a, *b, *c; } cond;
		struct spec_cast { enum spec_type type; struct spec_expr *a; } cast;
	};
	/* CALL: the arguments; IN_SET: a, then the members (args[0..nargs));
	 * IN_RANGE uses cond.a (value), cond.b (lo), cond.c (hi). */
	const char *callee;     /* CALL */
	struct spec_expr *in;   /* IN_SET: the tested value */
	struct spec_expr **args;
	size_t nargs;
};

enum spec_stmt_kind {
	SPEC_S_ASSERT,  /* assert expr [: msg] */
	SPEC_S_ASSUME,  /* assume expr */
	SPEC_S_ASSIGN,  /* name = expr */
	SPEC_S_IF       /* if (expr) then [else] */
};

struct spec_block {
	struct spec_stmt **stmts;
	size_t n;
	bool braced;    /* written as '{ ... }' (a bare statement otherwise) */
};

struct spec_stmt {
	enum spec_stmt_kind kind;
	struct spec_pos pos;
	struct spec_expr *expr;         /* every kind */
	const char *name;               /* ASSIGN */
	const char *msg;                /* ASSERT: NULL when absent */
	struct spec_block then, els;    /* IF; els.n == 0 && !has_else: none */
	bool has_else;
};

enum spec_event_kind { SPEC_EV_ENTRY, SPEC_EV_EXIT, SPEC_EV_CALL, SPEC_EV_RETURN };

struct spec_event {
	enum spec_event_kind kind;
	struct spec_pos pos;
	const char **names;     /* CALL/RETURN: helper/kfunc names */
	size_t nnames;
	bool any;               /* CALL/RETURN written as '*' (names empty) */
};

struct spec_bound {
	struct spec_pos pos;
	struct spec_expr *max;  /* bound insns <= max */
};

struct spec_var {
	struct spec_pos pos;
	enum spec_type type;
	const char *name;
	struct spec_expr *init;
};

enum spec_clause_kind { SPEC_C_STATE, SPEC_C_ON, SPEC_C_BOUND };

struct spec_clause {
	enum spec_clause_kind kind;
	struct spec_pos pos;
	struct spec_var *vars;          /* STATE */
	size_t nvars;
	struct spec_event event;        /* ON */
	struct spec_block body;         /* ON */
	struct spec_bound bound;        /* BOUND */
};

struct spec_invariant {
	struct spec_pos pos;
	const char *name;
	struct spec_clause *clauses;
	size_t nclauses;
};

enum spec_selector_kind {
	SPEC_SEL_NAME,          /* STRING: function name glob */
	SPEC_SEL_SECTION,       /* section STRING */
	SPEC_SEL_STRUCT_OPS,    /* struct_ops STRING */
	SPEC_SEL_ALL            /* '*' */
};

/* A check parameter (extension, docs/spec-language.md section 13):
 * `NAME = expr` replaces the initialiser of the invariant's state
 * variable NAME by the constant expr. */
struct spec_param {
	struct spec_pos pos;
	const char *name;
	struct spec_expr *expr;
};

/* A qualified name: "pack.name" has pack "pack"; a plain one pack NULL.
 * In a `check`, optionally with parameters. */
struct spec_qname {
	struct spec_pos pos;
	const char *pack, *name;
	struct spec_param *params;
	size_t nparams;
};

enum spec_pitem_kind { SPEC_P_CHECK, SPEC_P_ASSUME, SPEC_P_INVARIANT, SPEC_P_BOUND,
		       SPEC_P_RELATE };   /* extension: `relate NAME;` (xprog.c) */

struct spec_pitem {
	enum spec_pitem_kind kind;
	struct spec_pos pos;
	struct spec_qname *checks;      /* CHECK; RELATE: the relation names */
	size_t nchecks;
	struct spec_expr *expr;         /* ASSUME */
	struct spec_invariant inv;      /* INVARIANT */
	struct spec_bound bound;        /* BOUND */
};

enum spec_item_kind { SPEC_I_IMPORT, SPEC_I_CONST, SPEC_I_INVARIANT, SPEC_I_PROGRAM };

struct spec_item {
	enum spec_item_kind kind;
	struct spec_pos pos;
	const char *str;                /* IMPORT: the path; CONST: the name */
	struct spec_expr *expr;         /* CONST */
	struct spec_invariant inv;      /* INVARIANT */
	enum spec_selector_kind sel;    /* PROGRAM */
	struct spec_pos sel_pos;        /* PROGRAM: the selector's first token */
	const char *pattern;            /* PROGRAM: NULL for SEL_ALL */
	struct spec_pitem *pitems;      /* PROGRAM */
	size_t npitems;
};

struct spec {
	const char *file;
	struct spec_item *items;
	size_t nitems;
};

/* ---- spec_parse.c ------------------------------------------------------ */
#define SPEC_MAX_DEPTH 200      /* nested expressions / statements */

/* Parse one spec file. FILE names it in diagnostics (may be NULL). 0 with
 * *OUT set, or -EINVAL after exactly one diagnostic. */
int spec_parse(const char *text, size_t len, const char *file,
	       struct arena *a, struct diag *d, struct spec **out);
/* Parse TEXT as one expression (followed only by end of input). */
int spec_parse_expr(const char *text, size_t len, const char *file,
		    struct arena *a, struct diag *d, struct spec_expr **out);

/* ---- spec_print.c ------------------------------------------------------ */
void spec_print(const struct spec *s, FILE *out);
void spec_print_expr(const struct spec_expr *e, FILE *out);

#endif
