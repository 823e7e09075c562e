/* sarif.c - the report as SARIF 2.1.0 (docs/sarif.md): one run, the
 * invariants as rules, one result per violated or unknown check.
 *
 * A violated check is a result of kind "fail", level "error", located at
 * the program's source line of the failing event (the spec's assert when
 * the object has no line info), with the failing assert in the spec as a
 * related location and the replayed path as a codeFlow. An unknown check
 * is kind "open" (the tool could not decide), level "none" as SARIF
 * requires for kinds other than "fail", located at the invariant in the
 * spec, its reason in the message. Internal errors are tool execution
 * notifications and make executionSuccessful false. Checks that hold are
 * not results.
 */
#include "checker.h"

#include <string.h>

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

/* A path as a URI reference: relative paths stay relative (to the
 * directory the checker ran in), absolute ones become file:// URIs. */
static void uri(FILE *out, const char *file)
{
	char pb[4096];
	const char *p = report_path(file, pb, sizeof(pb));

	fputc('"', out);
	if (*p == '/')
		fputs("file://", out);
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    strchr("-._~/", ch))
			fputc(ch, out);
		else
			fprintf(out, "%%%02X", ch);
	}
	fputc('"', out);
}

/* A location object; ID >= 0 and MSG are for related locations. */
static void loc(FILE *out, const char *file, unsigned line, unsigned col, int id,
		const char *msg)
{
	fputc('{', out);
	if (id >= 0)
		fprintf(out, "\"id\": %d, ", id);
	if (msg) {
		fputs("\"message\": {\"text\": ", out);
		report_json_str(out, msg);
		fputs("}, ", out);
	}
	fputs("\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
	uri(out, file);
	fputc('}', out);
	if (line) {
		fprintf(out, ", \"region\": {\"startLine\": %u", line);
		if (col)
			fprintf(out, ", \"startColumn\": %u", col);
		fputc('}', out);
	}
	fputs("}}", out);
}

static void phys(FILE *out, const char *file, unsigned line, unsigned col)
{
	loc(out, file, line, col, -1, NULL);
}

static void text_msg(FILE *out, const char *key, const char *text)
{
	fprintf(out, "\"%s\": {\"text\": ", key);
	report_json_str(out, text);
	fputc('}', out);
}

static bool first_of_inv(const struct mon_set *s, unsigned i)
{
	unsigned j;

	for (j = 0; j < i; j++)
		if (!strcmp(s->checks[j].inv, s->checks[i].inv))
			return false;
	return true;
}

/* The rule of check C: its invariant's index among the distinct ones, in
 * check order (as rules() lists them). */
static unsigned rule_of(const struct mon_set *s, unsigned c)
{
	unsigned i, k = 0;

	for (i = 0; i < s->n; i++) {
		if (!first_of_inv(s, i))
			continue;
		if (!strcmp(s->checks[i].inv, s->checks[c].inv))
			return k;
		k++;
	}
	return k;
}

static void rules(const struct mon_set *s, FILE *out)
{
	unsigned i, n = 0;
	char buf[1024], pb[4096];

	fputs("\"rules\": [", out);
	for (i = 0; i < s->n; i++) {
		const struct mon_check *c = &s->checks[i];

		if (!first_of_inv(s, i))
			continue;
		fputs(n++ ? ",\n      " : "\n      ", out);
		fputs("{\"id\": ", out);
		report_json_str(out, c->inv);
		fputs(", \"name\": ", out);
		report_json_str(out, c->inv);
		snprintf(buf, sizeof(buf), "invariant %s (%s:%u)", c->inv, report_path(c->file, pb, sizeof(pb)), c->pos.line);
		fputs(", ", out);
		text_msg(out, "shortDescription", buf);
		fputs(", \"defaultConfiguration\": {\"level\": \"error\"}}", out);
	}
	fputs("]", out);
}

/* The replayed path: each source line once per consecutive run. */
static void code_flow(const struct object *o, const struct check_result *r, FILE *out)
{
	const struct replay_result *rr = &r->replay;
	const struct obj_line *prev = NULL;
	unsigned n = 0;
	size_t k;

	fputs(", \"codeFlows\": [{", out);
	text_msg(out, "message", "the counterexample's path, replayed in the interpreter");
	fputs(", \"threadFlows\": [{\"locations\": [", out);
	for (k = 0; k < rr->npath; k++) {
		const struct obj_line *ln = report_line_at(o, rr->path[k].sec, rr->path[k].slot);

		if (!ln || !ln->line || ln == prev ||
		    (prev && prev->line == ln->line && !strcmp(prev->file, ln->file)))
			continue;
		prev = ln;
		fputs(n++ ? ", " : "", out);
		fputs("{\"location\": ", out);
		phys(out, ln->file, ln->line, ln->col);
		fputc('}', out);
	}
	if (!n) {   /* no line info: the failing assert is the one step */
		const struct mon_assert *as = &r->c->asserts[r->site];

		fputs("{\"location\": ", out);
		phys(out, as->file, as->pos.line, as->pos.col);
		fputc('}', out);
	}
	fputs("]}]}]", out);
}

static void violated(const struct loaded *l, const struct check_result *r, FILE *out)
{
	const struct mon_check *c = r->c;
	const struct mon_assert *as = &c->asserts[r->site];
	const struct obj_line *ln = report_event_line(l->o, r);
	char buf[1024];

	snprintf(buf, sizeof(buf), "invariant %s violated: %s", c->name, as->msg);
	fputs(", \"kind\": \"fail\", \"level\": \"error\", ", out);
	text_msg(out, "message", buf);
	fputs(", \"locations\": [", out);
	if (ln)
		phys(out, ln->file, ln->line, ln->col);
	else
		phys(out, as->file, as->pos.line, as->pos.col);
	fputs("], \"relatedLocations\": [", out);
	loc(out, as->file, as->pos.line, as->pos.col, 0, "the assert that fails");
	fputs("]", out);
	code_flow(l->o, r, out);
}

static void unknown(const struct check_result *r, FILE *out)
{
	const struct mon_check *c = r->c;
	char buf[1024];

	snprintf(buf, sizeof(buf), "invariant %s unknown: %s", c->name, r->reason);
	fputs(", \"kind\": \"open\", \"level\": \"none\", ", out);
	text_msg(out, "message", buf);
	fputs(", \"locations\": [", out);
	phys(out, c->file, c->pos.line, c->pos.col);
	fputs("]", out);
}

static void result(const struct loaded *l, const struct mon_set *s, unsigned i,
		   const struct check_result *r, FILE *out)
{
	fputs("{\"ruleId\": ", out);
	report_json_str(out, r->c->inv);
	fprintf(out, ", \"ruleIndex\": %u", rule_of(s, i));
	if (r->verdict == CHECK_VIOLATED)
		violated(l, r, out);
	else
		unknown(r, out);
	fputs(", \"properties\": {\"check\": ", out);
	report_json_str(out, r->c->name);
	fputs(", \"program\": ", out);
	report_json_str(out, r->c->prog);
	fprintf(out, ", \"verdict\": \"%s\"}}", check_verdict_name(r->verdict));
}

static void invocation(const struct mon_set *s, const struct check_result *r, FILE *out)
{
	unsigned i, n = 0;
	char buf[1024];

	for (i = 0; i < s->n; i++)
		n += r[i].verdict == CHECK_ERROR;
	fprintf(out, "\"invocations\": [{\"executionSuccessful\": %s", n ? "false" : "true");
	if (n) {
		fputs(", \"toolExecutionNotifications\": [", out);
		for (i = 0, n = 0; i < s->n; i++) {
			if (r[i].verdict != CHECK_ERROR)
				continue;
			snprintf(buf, sizeof(buf), "internal error in %s: %s", r[i].c->name, r[i].reason);
			fputs(n++ ? ", {\"level\": \"error\", " : "{\"level\": \"error\", ", out);
			text_msg(out, "message", buf);
			fputs(", \"locations\": [", out);
			phys(out, r[i].c->file, r[i].c->pos.line, r[i].c->pos.col);
			fputs("]}", out);
		}
		fputc(']', out);
	}
	fputs("}]", out);
}

void report_sarif(const struct loaded *l, const struct mon_set *s,
		  const struct check_result *r, FILE *out)
{
	unsigned i, n = 0;

	fputs("{\"$schema\": \"" SARIF_SCHEMA "\",\n \"version\": \"2.1.0\",\n \"runs\": [{\n", out);
	fputs("  \"tool\": {\"driver\": {\"name\": \"bpf-invcheck\", \"version\": \"" INVCHECK_VERSION
	      "\",\n    ", out);
	rules(s, out);
	fputs("}},\n  ", out);
	invocation(s, r, out);
	fputs(",\n  \"results\": [", out);
	for (i = 0; i < s->n; i++) {
		if (r[i].verdict != CHECK_VIOLATED && r[i].verdict != CHECK_UNKNOWN)
			continue;
		fputs(n++ ? ",\n    " : "\n    ", out);
		result(l, s, i, &r[i], out);
	}
	fputs("]\n }]}\n", out);
}
