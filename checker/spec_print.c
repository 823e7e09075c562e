/* spec_print.c - the canonical text of a spec AST (tests, --dump=spec).
 *
 * One item, clause or statement per line, two spaces of indentation, every
 * operator application parenthesised: `(a + (b * c))`, `(-x)`, `((s32)r)`,
 * `(c ? a : b)`, `(e in {1, 2})`, `(e in [1, 2])`. Numbers keep their radix
 * (hex is printed lower case without leading zeros); strings are re-escaped.
 * `if` bodies are always printed as blocks. The output parses back to the
 * same AST.
 */
#include "spec.h"

#include <inttypes.h>

static const char *const type_names[] = {
#define X(k, s) s,
	SPEC_TYPES(X)
#undef X
};
static const char *const unop_names[] = {
#define X(k, s) s,
	SPEC_UNOPS(X)
#undef X
};
static const char *const binop_names[] = {
#define X(k, s) s,
	SPEC_BINOPS(X)
#undef X
};

const char *spec_type_name(enum spec_type t)
{
	return (size_t)t < ARRAY_SIZE(type_names) ? type_names[t] : "?";
}

const char *spec_unop_name(enum spec_unop op)
{
	return (size_t)op < ARRAY_SIZE(unop_names) ? unop_names[op] : "?";
}

const char *spec_binop_name(enum spec_binop op)
{
	return (size_t)op < ARRAY_SIZE(binop_names) ? binop_names[op] : "?";
}

static void print_string(const char *s, FILE *out)
{
	fputc('"', out);
	for (; *s; s++) {
		switch (*s) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default: fputc(*s, out); break;
		}
	}
	fputc('"', out);
}

static void print_list(struct spec_expr *const *v, size_t n, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		spec_print_expr(v[i], out);
	}
}

void spec_print_expr(const struct spec_expr *e, FILE *out)
{
	switch (e->kind) {
	case SPEC_E_NUM:
		if (e->hex)
			fprintf(out, "0x%" PRIx64, e->num);
		else
			fprintf(out, "%" PRIu64, e->num);
		break;
	case SPEC_E_BOOL:
		fputs(e->num ? "true" : "false", out);
		break;
	case SPEC_E_NAME:
		fputs(e->name, out);
		break;
	case SPEC_E_MEMBER:
		fputs(e->name, out);
		fputc('.', out);
		fputs(e->field, out);
		break;
	case SPEC_E_CALL:
		fputs(e->callee, out);
		fputc('(', out);
		print_list(e->args, e->nargs, out);
		fputc(')', out);
		break;
	case SPEC_E_UNARY:
		fputc('(', out);
		fputs(spec_unop_name(e->un.op), out);
		spec_print_expr(e->un.a, out);
		fputc(')', out);
		break;
	case SPEC_E_BINARY:
		fputc('(', out);
		spec_print_expr(e->bin.a, out);
		fputc(' ', out);
		fputs(spec_binop_name(e->bin.op), out);
		fputc(' ', out);
		spec_print_expr(e->bin.b, out);
		fputc(')', out);
		break;
	case SPEC_E_COND:
		fputc('(', out);
		spec_print_expr(e->cond.a, out);
		fputs(" ? ", out);
		spec_print_expr(e->cond.b, out);
		fputs(" : ", out);
		spec_print_expr(e->cond.c, out);
		fputc(')', out);
		break;
	case SPEC_E_CAST:
		fputs("((", out);
		fputs(spec_type_name(e->cast.type), out);
		fputc(')', out);
		spec_print_expr(e->cast.a, out);
		fputc(')', out);
		break;
	case SPEC_E_IN_SET:
		fputc('(', out);
		spec_print_expr(e->in, out);
		fputs(" in {", out);
		print_list(e->args, e->nargs, out);
		fputs("})", out);
		break;
	case SPEC_E_IN_RANGE:
		fputc('(', out);
		spec_print_expr(e->cond.a, out);
		fputs(" in [", out);
		spec_print_expr(e->cond.b, out);
		fputs(", ", out);
		spec_print_expr(e->cond.c, out);
		fputs("])", out);
		break;
	}
}

static void indent(unsigned n, FILE *out)
{
	fprintf(out, "%*s", (int)(2 * n), "");
}

static void print_block(const struct spec_block *b, unsigned depth, FILE *out);

static void print_stmt(const struct spec_stmt *s, unsigned depth, FILE *out)
{
	indent(depth, out);
	switch (s->kind) {
	case SPEC_S_ASSERT:
		fputs("assert ", out);
		spec_print_expr(s->expr, out);
		if (s->msg) {
			fputs(" : ", out);
			print_string(s->msg, out);
		}
		fputs(";\n", out);
		break;
	case SPEC_S_ASSUME:
		fputs("assume ", out);
		spec_print_expr(s->expr, out);
		fputs(";\n", out);
		break;
	case SPEC_S_ASSIGN:
		fprintf(out, "%s = ", s->name);
		spec_print_expr(s->expr, out);
		fputs(";\n", out);
		break;
	case SPEC_S_IF:
		fputs("if (", out);
		spec_print_expr(s->expr, out);
		fputs(") ", out);
		print_block(&s->then, depth, out);
		if (s->has_else) {
			indent(depth, out);
			fputs("else ", out);
			print_block(&s->els, depth, out);
		}
		break;
	}
}

/* "{\n" stmts "}\n", the braces at DEPTH. */
static void print_block(const struct spec_block *b, unsigned depth, FILE *out)
{
	fputs("{\n", out);
	for (size_t i = 0; i < b->n; i++)
		print_stmt(b->stmts[i], depth + 1, out);
	indent(depth, out);
	fputs("}\n", out);
}

static void print_bound(const struct spec_bound *b, unsigned depth, FILE *out)
{
	indent(depth, out);
	fputs("bound insns <= ", out);
	spec_print_expr(b->max, out);
	fputs(";\n", out);
}

static void print_event(const struct spec_event *ev, FILE *out)
{
	switch (ev->kind) {
	case SPEC_EV_ENTRY: fputs("entry", out); return;
	case SPEC_EV_EXIT: fputs("exit", out); return;
	case SPEC_EV_CALL: fputs("call ", out); break;
	case SPEC_EV_RETURN: fputs("return ", out); break;
	}
	if (ev->any)
		fputc('*', out);
	for (size_t i = 0; i < ev->nnames; i++)
		fprintf(out, "%s%s", i ? ", " : "", ev->names[i]);
}

static void print_clause(const struct spec_clause *c, unsigned depth, FILE *out)
{
	switch (c->kind) {
	case SPEC_C_STATE:
		indent(depth, out);
		fputs("state {\n", out);
		for (size_t i = 0; i < c->nvars; i++) {
			indent(depth + 1, out);
			fprintf(out, "%s %s = ", spec_type_name(c->vars[i].type),
				c->vars[i].name);
			spec_print_expr(c->vars[i].init, out);
			fputs(";\n", out);
		}
		indent(depth, out);
		fputs("}\n", out);
		break;
	case SPEC_C_ON:
		indent(depth, out);
		fputs("on ", out);
		print_event(&c->event, out);
		fputc(' ', out);
		print_block(&c->body, depth, out);
		break;
	case SPEC_C_BOUND:
		print_bound(&c->bound, depth, out);
		break;
	}
}

static void print_invariant(const struct spec_invariant *inv, unsigned depth,
			    FILE *out)
{
	indent(depth, out);
	fprintf(out, "invariant %s {\n", inv->name);
	for (size_t i = 0; i < inv->nclauses; i++)
		print_clause(&inv->clauses[i], depth + 1, out);
	indent(depth, out);
	fputs("}\n", out);
}

static void print_pitem(const struct spec_pitem *pi, FILE *out)
{
	switch (pi->kind) {
	case SPEC_P_CHECK:
	case SPEC_P_RELATE:
		fputs(pi->kind == SPEC_P_CHECK ? "  check " : "  relate ", out);
		for (size_t i = 0; i < pi->nchecks; i++) {
			const struct spec_qname *q = &pi->checks[i];

			fprintf(out, "%s%s%s%s", i ? ", " : "", q->pack ? q->pack : "",
				q->pack ? "." : "", q->name);
			for (size_t j = 0; j < q->nparams; j++) {
				fprintf(out, "%s%s = ", j ? ", " : "(", q->params[j].name);
				spec_print_expr(q->params[j].expr, out);
			}
			if (q->nparams)
				fputc(')', out);
		}
		fputs(";\n", out);
		break;
	case SPEC_P_ASSUME:
		fputs("  assume ", out);
		spec_print_expr(pi->expr, out);
		fputs(";\n", out);
		break;
	case SPEC_P_INVARIANT:
		print_invariant(&pi->inv, 1, out);
		break;
	case SPEC_P_BOUND:
		print_bound(&pi->bound, 1, out);
		break;
	}
}

static void print_program(const struct spec_item *it, FILE *out)
{
	fputs("program ", out);
	switch (it->sel) {
	case SPEC_SEL_NAME:
		break;
	case SPEC_SEL_SECTION:
		fputs("section ", out);
		break;
	case SPEC_SEL_STRUCT_OPS:
		fputs("struct_ops ", out);
		break;
	case SPEC_SEL_ALL:
		fputc('*', out);
		break;
	}
	if (it->pattern)
		print_string(it->pattern, out);
	fputs(" {\n", out);
	for (size_t i = 0; i < it->npitems; i++)
		print_pitem(&it->pitems[i], out);
	fputs("}\n", out);
}

void spec_print(const struct spec *s, FILE *out)
{
	for (size_t i = 0; i < s->nitems; i++) {
		const struct spec_item *it = &s->items[i];

		switch (it->kind) {
		case SPEC_I_IMPORT:
			fputs("import ", out);
			print_string(it->str, out);
			fputs(";\n", out);
			break;
		case SPEC_I_CONST:
			fprintf(out, "const %s = ", it->str);
			spec_print_expr(it->expr, out);
			fputs(";\n", out);
			break;
		case SPEC_I_INVARIANT:
			print_invariant(&it->inv, 0, out);
			break;
		case SPEC_I_PROGRAM:
			print_program(it, out);
			break;
		}
	}
}
