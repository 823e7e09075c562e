/* report.c - verdicts and counterexamples as text (compiler style) or JSON
 * (schema in docs/json-output.md).
 *
 * Its writers run on the main thread once the checks' threads are joined
 * (main.c, cexfile.c, artifacts.c, sarif.c), each stream theirs alone: the
 * *_unlocked calls skip stdio's lock, a third of a small report's fputs
 * and fwrite calls. */
#define _GNU_SOURCE            /* fputs_unlocked, fwrite_unlocked, fputc_unlocked */
#include "checker.h"
#include "models.h"
#include "smt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHOW_BYTES 128u

/* A source path as the user wants to read it: cleaned ("build/../x" ->
 * "x") and relative to the working directory when it lies below it. */
static const char *show_path(const char *in, char *out, size_t size)
{
	/* the working directory, asked once (a report showed 47 paths, each
	 * a getcwd system call); reports are written by one thread. On the
	 * heap, not 4 KiB of .bss between the small variables the run writes
	 * (each page of them a fault) */
	static char *cwd;
	static int have_cwd;           /* 0 not asked, 1 known, -1 unknown */
	/* cleaned straight into OUT (every caller's is 4 KiB: no temporary
	 * on the report's deepest stack, a fresh stack page), or IN as it
	 * is when too long for it */
	const char *p = path_clean(in, out, size);
	bool cleaned = p != in;
	size_t n;

	if (!have_cwd) {
		cwd = malloc(4096);
		have_cwd = cwd && getcwd(cwd, 4096) ? 1 : -1;
	}
	if (have_cwd > 0) {
		n = strlen(cwd);
		if (!strncmp(p, cwd, n) && p[n] == '/')
			p += n + 1;
	}
	if (cleaned)
		memmove(out, p, strlen(p) + 1);
	else
		snprintf(out, size, "%s", p);
	return out;
}

static const struct obj_line *line_of(const struct object *o, int sec, uint32_t slot)
{
	if (sec < 0 || (uint32_t)sec >= o->nsections)
		return NULL;
	return object_line_at(&o->sections[sec], slot);
}

/* The line of SEC's SLOT (line_of) through cursor C: a path's next step
 * is mostly in the record found last or the one after it (a binary
 * search a step was a tenth of a counterexample's JSON) */
struct line_cursor {
	int sec;
	const struct obj_line *at;      /* NULL: none */
};

static const struct obj_line *line_next(const struct object *o, struct line_cursor *c, int sec,
					uint32_t slot)
{
	if (c->at && sec == c->sec) {
		const struct obj_section *s = &o->sections[sec];
		const struct obj_line *end = s->lines + s->nlines, *a = c->at;

		/* the last record at or before SLOT, as object_line_at's */
		for (int k = 0; k < 2 && a < end && a->slot <= slot; k++, a++)
			if (a + 1 == end || a[1].slot > slot)
				return c->at = a;
	}
	c->sec = sec;
	return c->at = line_of(o, sec, slot);
}

/* Where the failing event happened: the last instruction the replay ran. */
static const struct obj_line *event_line(const struct object *o, const struct check_result *r)
{
	const struct replay_result *rr = &r->replay;
	size_t i;

	for (i = rr->npath; i-- > 0;) {
		const struct obj_line *ln = line_of(o, rr->path[i].sec, rr->path[i].slot);

		if (ln && ln->line)
			return ln;
	}
	return NULL;
}

static const char *call_name(const struct object *o, const struct cex_call *c)
{
	if (c->kfunc >= 0)
		return o->kfuncs[c->kfunc].name;
	return helper_name(c->helper) ? helper_name(c->helper) : "helper";
}

static bool returns_void(const struct object *o, const struct cex_call *c)
{
	const struct kfunc_model *k;
	const struct helper_model *h;

	if (c->kfunc >= 0) {
		k = model_kfunc(o->kfuncs[c->kfunc].name);
		return k && k->ret == MODEL_RET_VOID;
	}
	h = model_helper(c->helper);
	return h && h->ret == MODEL_RET_VOID;
}

/* " %s:%u" and "%s%02x" were most of a report's fprintf calls, each a
 * format parse: these write the same bytes (digits by base.h's
 * u64_digits). */
static void put_u64(FILE *out, uint64_t v)
{
	char b[24];

	b[sizeof(b) - 1] = 0;
	fputs_unlocked(u64_digits(b + sizeof(b) - 1, v), out);
}

/* Byte B's two hex digits at hex_pairs[2 * B]: a copy a byte, where two
 * digit lookups were two thirds of a report's counterexample bytes. */
#define HEX_ROW(h) h "0" h "1" h "2" h "3" h "4" h "5" h "6" h "7" \
	h "8" h "9" h "a" h "b" h "c" h "d" h "e" h "f"
static const char hex_pairs[] =
	HEX_ROW("0") HEX_ROW("1") HEX_ROW("2") HEX_ROW("3") HEX_ROW("4") HEX_ROW("5")
	HEX_ROW("6") HEX_ROW("7") HEX_ROW("8") HEX_ROW("9") HEX_ROW("a") HEX_ROW("b")
	HEX_ROW("c") HEX_ROW("d") HEX_ROW("e") HEX_ROW("f");

static void hex(FILE *out, const uint8_t *b, uint32_t n, uint32_t max)
{
	char buf[3 * 64 + 1];
	uint32_t i, k = 0;

	for (i = 0; i < n && i < max; i++) {
		if (i)
			buf[k++] = ' ';
		memcpy(buf + k, hex_pairs + 2 * b[i], 2);
		k += 2;
		if (k > sizeof(buf) - 4) {
			fwrite_unlocked(buf, 1, k, out);
			k = 0;
		}
	}
	fwrite_unlocked(buf, 1, k, out);
	if (n > max)
		fprintf(out, " ... (%u more)", n - max);
}

static const struct cex_region *find_region(const struct cex *x, enum interp_mem_kind k)
{
	unsigned i;

	for (i = 0; i < x->nregions; i++)
		if (x->regions[i].kind == k)
			return &x->regions[i];
	return NULL;
}

static void text_globals(const struct object *o, const struct cex_region *g, FILE *out)
{
	const struct obj_datasec *ds = NULL;
	uint32_t i, j;

	for (i = 0; i < o->ndatasecs; i++)
		if (o->datasecs[i].map == g->map)
			ds = &o->datasecs[i];
	if (!ds)
		return;
	for (i = 0; i < ds->nvars; i++) {
		const struct obj_var *v = &ds->vars[i];
		uint64_t x = 0;

		if (v->off + v->size > g->size)
			continue;
		fprintf(out, "      %s %s = ", ds->name, v->name);
		if (v->size <= 8) {
			for (j = 0; j < v->size; j++)
				x |= (uint64_t)g->bytes[v->off + j] << (8 * j);
			fprintf(out, "%" PRIu64 " (%#" PRIx64 ")\n", x, x);
		} else {
			hex(out, g->bytes + v->off, v->size, 32);
			fputc_unlocked('\n', out);
		}
	}
}

static void text_path(const struct object *o, const struct replay_result *rr, FILE *out)
{
	const struct obj_line *prev = NULL;
	unsigned shown = 0;
	char pb[4096];
	size_t i;

	fputs_unlocked("    path:", out);
	for (i = 0; i < rr->npath; i++) {
		const struct obj_line *ln = line_of(o, rr->path[i].sec, rr->path[i].slot);

		if (!ln || !ln->line || ln == prev ||
		    (prev && prev->line == ln->line && !strcmp(prev->file, ln->file)))
			continue;
		if (shown++ % 8 == 0)
			fputs_unlocked("\n     ", out);
		fputc_unlocked(' ', out);
		if (!prev || strcmp(prev->file, ln->file))
			fputs_unlocked(show_path(ln->file, pb, sizeof(pb)), out);
		fputc_unlocked(':', out);
		put_u64(out, ln->line);
		prev = ln;
	}
	fputc_unlocked('\n', out);
}

/* Weak kfuncs the run found absent (bpf_ksym_exists false): the LD imm64s of
 * extern functions on the path whose address in the cex is 0. */
static void text_ksyms(const struct object *o, const struct cex *x,
		       const struct replay_result *rr, FILE *out)
{
	size_t k, m;
	uint32_t j;

	for (k = 0; x->ksyms && k < rr->npath; k++) {
		const struct replay_step *st = &rr->path[k];
		const struct obj_section *sec;

		if (st->sec < 0 || (uint32_t)st->sec >= o->nsections)
			continue;
		sec = &o->sections[st->sec];
		for (j = 0; j < sec->nrelocs; j++) {
			const struct obj_reloc *rl = &sec->relocs[j];
			bool seen = false;

			if (rl->slot != st->slot || rl->kind != OBJ_RELO_KSYM || rl->target < 0 ||
			    (unsigned)rl->target >= x->nksyms || x->ksyms[rl->target] ||
			    !o->externs[rl->target].is_func)
				continue;
			for (m = 0; m < k && !seen; m++)
				seen = rr->path[m].sec == st->sec && rr->path[m].slot == st->slot;
			if (!seen)
				fprintf(out, "    kfunc %s: absent (a weak kfunc the kernel lacks)\n",
					o->externs[rl->target].name);
		}
	}
}

/* " at FILE:LINE" with its own path buffer, out of line: text_cex
 * inlines text_path's, and the two made its frame 8 KiB (a fresh stack
 * page on the way down to show_path) */
static __attribute__((noinline)) void text_at(FILE *out, const struct obj_line *ln)
{
	char pb[4096];

	fprintf(out, " at %s:%u", show_path(ln->file, pb, sizeof(pb)), ln->line);
}

static void text_cex(const struct object *o, const struct check_result *r,
		     const struct cex *x, const struct replay_result *rr, const char *header,
		     FILE *out)
{
	const struct cex_region *pk = find_region(x, INTERP_MEM_PACKET), *ctx;
	bool brief = x != r->cex;   /* a worst-case input: packet and path */
	unsigned i;

	fprintf(out, "  %s:\n", header);
	if (pk && x->pkt) {
		uint32_t len = (uint32_t)(x->pkt_end - x->pkt);

		fprintf(out, "    packet: %u bytes:", len);
		if (len) {
			fputc_unlocked(' ', out);
			hex(out, pk->bytes + (x->pkt - pk->base), len, brief ? 32 : SHOW_BYTES);
		}
		fputc_unlocked('\n', out);
	}
	if (brief)
		goto path;
	ctx = find_region(x, INTERP_MEM_CTX);
	if (ctx) {
		bool any = false;

		for (i = 0; i + 4 <= 64 && i + 4 <= ctx->size; i += 4) {
			uint32_t w;

			memcpy(&w, ctx->bytes + i, 4);
			if (!w || (x->pkt && (w == (uint32_t)x->pkt || w == (uint32_t)x->pkt_end)))
				continue;
			fprintf(out, "%s ctx+%u = %u", any ? "," : "    context (u32 words):", i, w);
			any = true;
		}
		if (any)
			fputc_unlocked('\n', out);
	}
	for (i = 0; i < x->nregions; i++) {
		const struct cex_region *g = &x->regions[i];

		if (g->kind == INTERP_MEM_GLOBAL && g->base == SMT_MAP_BASE(g->map)) {
			fprintf(out, "    globals of %s:\n", g->name);
			text_globals(o, g, out);
		} else if (g->kind == INTERP_MEM_MAP_VALUE || (g->kind == INTERP_MEM_GLOBAL)) {
			fprintf(out, "    %s holds: ", g->name);
			hex(out, g->bytes, g->size, 32);
			fputc_unlocked('\n', out);
		}
	}
	for (i = 0; i < x->ncalls; i++) {
		const struct cex_call *c = &x->calls[i];
		const struct obj_line *ln = line_of(o, c->sec, c->slot);

		fprintf(out, "    call %s", call_name(o, c));
		if (c->key && c->key_size) {
			fputs_unlocked(" with key ", out);
			hex(out, c->key, c->key_size, 32);
		}
		if (ln && ln->line)
			text_at(out, ln);
		if (c->helper == BPF_FUNC_loop) {
			fputs_unlocked(": run\n", out);
		} else if (c->helper == BPF_FUNC_map_lookup_elem || c->helper == BPF_FUNC_ringbuf_reserve) {
			const struct cex_region *g = NULL;
			unsigned k;

			for (k = 0; k < x->nregions; k++)
				if (x->regions[k].base == c->ret && c->ret)
					g = &x->regions[k];
			if (!c->ret)
				fputs_unlocked(" returns NULL\n", out);
			else if (g)
				fprintf(out, " returns %s\n", g->name);
			else
				fprintf(out, " returns %#" PRIx64 "\n", c->ret);
		}
		else if (c->tail_taken)
			fprintf(out, ": taken, the called program returns %" PRIu64 "\n", c->tail_ret);
		else if (returns_void(o, c))
			fputs_unlocked("\n", out);
		else
			fprintf(out, " returns %" PRId64 " (%#" PRIx64 ")\n", (int64_t)c->ret, c->ret);
	}
	for (i = 0; i < x->nreads; i++)
		fprintf(out, "    kernel memory at %#" PRIx64 " (%u bytes) reads %#" PRIx64 "\n",
			x->reads[i].addr, x->reads[i].size, x->reads[i].value);
	text_ksyms(o, x, rr, out);
path:
	text_path(o, rr, out);
	if (rr->outcome == REPLAY_EXITED)
		fprintf(out, "    %s\n", rr->msg);
	else
		fprintf(out, "    %s after %" PRIu64 " instructions\n", rr->msg, rr->steps);
	if (x == r->cex && r->kernel_tried)
		fprintf(out, "    kernel (BPF_PROG_TEST_RUN): %s\n", r->kernel_msg);
}

static void text_one(const struct loaded *l, const struct check_result *r, bool quiet, FILE *out)
{
	const struct mon_check *c = r->c;
	const struct obj_line *ln;
	const struct mon_assert *as;
	char pb[4096];

	switch (r->verdict) {
	case CHECK_HOLDS:
		if (quiet)
			return;
		fputs_unlocked(c->name, out);
		fputs_unlocked(": holds", out);
		if (r->has_worst)
			fprintf(out, " (worst case %" PRIu64 " instructions)", r->worst);
		else if (r->has_worst_max)
			fprintf(out, " (worst case at most %" PRIu64 " instructions, not searched out)",
				r->worst_max);
		fputc_unlocked('\n', out);
		if (r->witness)
			text_cex(l->o, r, r->witness, &r->wreplay,
				 "an input that runs the worst case (replayed; --format=json has all of it)",
				 out);
		break;
	case CHECK_UNKNOWN:
		fprintf(out, "%s:%u:%u: warning: invariant %s unknown: %s\n", c->file, c->pos.line,
			c->pos.col, c->name, r->reason);
		break;
	case CHECK_ERROR:
		fprintf(out, "%s:%u:%u: error: invariant %s: %s\n", c->file, c->pos.line, c->pos.col,
			c->name, r->reason);
		break;
	case CHECK_VIOLATED:
		as = &c->asserts[r->site];
		ln = event_line(l->o, r);
		if (ln)
			fprintf(out, "%s:%u:%u: ", show_path(ln->file, pb, sizeof(pb)), ln->line, ln->col);
		else
			fprintf(out, "%s: ", l->o->path);
		fprintf(out, "error: invariant %s violated: %s\n", c->name, as->msg);
		fprintf(out, "%s:%u:%u: note: the assert that fails\n", as->file, as->pos.line,
			as->pos.col);
		if (r->has_worst)
			fprintf(out, "  worst case: %" PRIu64 " instructions\n", r->worst);
		else if (r->has_worst_max)
			fprintf(out, "  worst case: at most %" PRIu64 " instructions (not searched out)\n",
				r->worst_max);
		text_cex(l->o, r, r->cex, &r->replay,
			 "counterexample (replayed in the interpreter: it fails the same assert)", out);
		break;
	}
}

/* The notes of all checks, each once (they repeat per check). */
static void text_notes(const struct mon_set *s, const struct check_result *r, FILE *out)
{
	unsigned i, j, k, m;

	for (i = 0; i < s->n; i++)
		for (j = 0; j < r[i].nnotes; j++) {
			bool seen = false;

			for (k = 0; k <= i && !seen; k++)
				for (m = 0; m < (k == i ? j : r[k].nnotes) && !seen; m++)
					seen = !strcmp(r[k].notes[m], r[i].notes[j]);
			if (!seen)
				fprintf(out, "note: %s\n", r[i].notes[j]);
		}
}

/* ---- JSON ---------------------------------------------------------------- */

/* The JSON report is made in one growing buffer and written with one
 * fwrite: a small example's report was ~300 stdio calls (fputs's strlen
 * and its stream's bookkeeping each) for pieces of a few bytes, which
 * are copies of known length here. Not zeroed: only its N bytes are read. */
struct jw {
	char *b;
	size_t n, cap;
};

static __attribute__((noinline)) void jw_grow(struct jw *w, size_t more)
{
	size_t cap = w->cap ? 2 * w->cap : 256;

	while (cap - w->n < more)
		cap *= 2;
	w->b = realloc(w->b, cap);
	if (!w->b)
		abort();
	w->cap = cap;
}

/* Room for N more bytes, at the returned pointer (w->n not moved) */
static inline char *jw_room(struct jw *w, size_t n)
{
	if (w->cap - w->n < n)
		jw_grow(w, n);
	return w->b + w->n;
}

static inline void jw_put(struct jw *w, const void *s, size_t n)
{
	memcpy(jw_room(w, n), s, n);
	w->n += n;
}

/* a string literal, its length known when compiling */
#define JW_LIT(w, lit) jw_put((w), "" lit, sizeof(lit) - 1)

static inline void jw_c(struct jw *w, char c)
{
	*jw_room(w, 1) = c;
	w->n++;
}

static void jw_s(struct jw *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

static void jw_u64(struct jw *w, uint64_t v)
{
	char b[24], *d = u64_digits(b + sizeof(b), v);

	jw_put(w, d, (size_t)(b + sizeof(b) - d));
}

/* a literal field name, then V (a JSON field's name and number) */
#define JW_FIELD(w, lit, v) (JW_LIT(w, lit), jw_u64((w), (v)))

/* The buffer written to OUT and freed */
static void jw_flush(struct jw *w, FILE *out)
{
	fwrite_unlocked(w->b, 1, w->n, out);
	free(w->b);
	*w = (struct jw){0};
}

/* Seconds S as "%.3f" writes them: "%.3f" of a double was a tenth of a
 * small example's report. The exact decimal value of S rounds as S * 1000
 * does when that is not within 1e-6 of a half (below 1e9 its error is
 * under 2^-22); ties, negative or large S and NaN go to snprintf. */
static void jw_seconds(struct jw *w, double s)
{
	double y = s * 1000, f = 0;
	uint64_t ms = 0;
	char b[512];

	if (!signbit(s) && s < 1e6) {
		ms = (uint64_t)y;
		f = y - (double)ms;
	}
	if (signbit(s) || !(s < 1e6) || fabs(f - 0.5) <= 1e-6) {
		int n = snprintf(b, sizeof(b), "%.3f", s);

		if (n < 0 || (size_t)n >= sizeof(b))
			abort();    /* "%.3f" of a double fits: internal error */
		jw_put(w, b, (size_t)n);
		return;
	}
	ms += f > 0.5;
	jw_u64(w, ms / 1000);
	b[0] = '.';
	b[1] = (char)('0' + ms / 100 % 10);
	b[2] = (char)('0' + ms / 10 % 10);
	b[3] = (char)('0' + ms % 10);
	jw_put(w, b, 4);
}

/* The bytes a JSON string escapes, and its end */
static const uint8_t jesc[256] = { [0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1 };

/* Written as runs of bytes: a counterexample's regions are hundreds of
 * bytes and its path dozens of locations, and a fprintf a byte was a
 * fifth of a small example's instructions. NULL is "". */
static void jstr(struct jw *w, const char *s)
{
	jw_c(w, '"');
	while (s) {
		const char *run = s;
		unsigned char ch;

		while (!jesc[(unsigned char)*s])
			s++;
		jw_put(w, run, (size_t)(s - run));
		ch = (unsigned char)*s++;
		if (!ch)
			break;
		if (ch == '"' || ch == '\\') {
			char e[2] = { '\\', (char)ch };

			jw_put(w, e, 2);
		} else {
			char e[6] = { '\\', 'u', '0', '0', hex_pairs[2 * ch], hex_pairs[2 * ch + 1] };

			jw_put(w, e, 6);
		}
	}
	jw_c(w, '"');
}

static void jhex(struct jw *w, const uint8_t *b, uint32_t n)
{
	char *p = jw_room(w, 2 * (size_t)n + 2);
	uint32_t i;

	*p++ = '"';
	/* four bytes a step (the loop's own count was half of it) */
	for (i = 0; i + 4 <= n; i += 4, p += 8) {
		memcpy(p, hex_pairs + 2 * b[i], 2);
		memcpy(p + 2, hex_pairs + 2 * b[i + 1], 2);
		memcpy(p + 4, hex_pairs + 2 * b[i + 2], 2);
		memcpy(p + 6, hex_pairs + 2 * b[i + 3], 2);
	}
	for (; i < n; i++, p += 2)
		memcpy(p, hex_pairs + 2 * b[i], 2);
	*p = '"';
	w->n += 2 * (size_t)n + 2;
}

/* The length of S when it needs no escape in a JSON string, else -1. */
static long jplain(const char *s)
{
	size_t n = strlen(s), k;

	for (k = 0; k < n; k++)
		if ((unsigned char)s[k] < 0x20 || s[k] == '"' || s[k] == '\\')
			return -1;
	return (long)n;
}

/* NAME then V's digits appended at B + K: the new length */
static inline size_t cat_field(char *b, size_t k, const char *name, unsigned v)
{
	char num[12], *d = u64_digits(num + sizeof(num), v);
	size_t n = strlen(name), m = (size_t)(num + sizeof(num) - d);

	memcpy(b + k, name, n);
	memcpy(b + k + n, d, m);
	return k + n + m;
}

/* A location whose file is shown as SHOWN (show_path's), PLAIN its
 * jplain: one copy where it needs no escape (a counterexample's path is
 * dozens of locations, mostly of one file, whose PLAIN its caller keeps). */
static void jloc_shown(struct jw *w, const char *shown, long plain, unsigned line,
		       unsigned col)
{
	char *b;
	size_t k;

	if (plain < 0 || plain > 200) {
		JW_LIT(w, "{\"file\": ");
		jstr(w, shown);
		JW_FIELD(w, ", \"line\": ", line);
		JW_FIELD(w, ", \"column\": ", col);
		jw_c(w, '}');
		return;
	}
	b = jw_room(w, 320);
	memcpy(b, "{\"file\": \"", 10);
	memcpy(b + 10, shown, (size_t)plain);
	k = cat_field(b, 10 + (size_t)plain, "\", \"line\": ", line);
	k = cat_field(b, k, ", \"column\": ", col);
	b[k++] = '}';
	w->n += k;
}

static void jloc(struct jw *w, const char *file, unsigned line, unsigned col)
{
	char pb[4096];
	const char *shown = show_path(file, pb, sizeof(pb));

	jloc_shown(w, shown, jplain(shown), line, col);
}

/* A file's shown path kept for the locations that follow in it (a
 * counterexample's path is dozens of locations, mostly of one file; a
 * report's checks and asserts name one spec file): FILE's SHOWN and PLAIN
 * (jplain), cleaned into PB of SIZE bytes. */
struct shown_file {
	const char *file;
	const char *shown;
	long plain;
	char *pb;
	size_t size;
	/* where PLAIN is 0..200: the location's text up to its line number,
	 * copied whole for each location (jloc_shown's pieces were 170
	 * instructions a location) */
	char pre[10 + 200 + 11];
	size_t npre;
};

/* A location in FILE through C: cleaned once for the run of locations in
 * one file. A FILE too long for C's buffer (path_clean needs its length
 * and 2 more) goes through jloc and its 4 KiB buffer, not kept. */
static void jloc_cached(struct jw *w, struct shown_file *c, const char *file, unsigned line,
			unsigned col)
{
	if (c->file != file) {
		if (strlen(file) + 8 > c->size) {
			jloc(w, file, line, col);
			return;
		}
		c->file = file;
		c->shown = show_path(file, c->pb, c->size);
		c->plain = jplain(c->shown);
		if (c->plain >= 0 && c->plain <= 200) {
			memcpy(c->pre, "{\"file\": \"", 10);
			memcpy(c->pre + 10, c->shown, (size_t)c->plain);
			memcpy(c->pre + 10 + c->plain, "\", \"line\": ", 11);
			c->npre = 10 + (size_t)c->plain + 11;
		}
	}
	if (c->plain >= 0 && c->plain <= 200) {
		/* jloc_shown's bytes */
		char *b = jw_room(w, sizeof(c->pre) + 48);
		size_t k;

		memcpy(b, c->pre, c->npre);
		k = cat_field(b, c->npre, "", line);
		k = cat_field(b, k, ", \"column\": ", col);
		b[k++] = '}';
		w->n += k;
		return;
	}
	jloc_shown(w, c->shown, c->plain, line, col);
}

static void json_cex(const struct object *o, const struct check_result *r,
		     const struct cex *x, const struct replay_result *rr, const char *key,
		     struct shown_file *sf, struct jw *w)
{
	const struct cex_region *pk = find_region(x, INTERP_MEM_PACKET);
	const struct obj_line *prev = NULL;
	struct line_cursor lc = { -1, NULL };
	unsigned i, n = 0;
	size_t k;

	JW_LIT(w, ", \"");
	jw_s(w, key);
	JW_FIELD(w, "\": {\"replayed\": true, \"steps\": ", rr->steps);
	if (rr->outcome == REPLAY_EXITED || rr->event == SPEC_EV_EXIT)
		JW_FIELD(w, ", \"r0\": ", rr->r0);
	if (pk && x->pkt) {
		JW_FIELD(w, ", \"packet_len\": ", x->pkt_end - x->pkt);
		JW_LIT(w, ", \"packet\": ");
		jhex(w, pk->bytes + (x->pkt - pk->base), (uint32_t)(x->pkt_end - x->pkt));
	}
	JW_LIT(w, ", \"regions\": [");
	for (i = 0; i < x->nregions; i++) {
		if (i)
			JW_LIT(w, ", ");
		JW_LIT(w, "{\"name\": ");
		jstr(w, x->regions[i].name);
		JW_LIT(w, ", \"kind\": \"");
		jw_s(w, interp_mem_kind_name(x->regions[i].kind));
		JW_FIELD(w, "\", \"address\": ", x->regions[i].base);
		JW_LIT(w, ", \"bytes\": ");
		jhex(w, x->regions[i].bytes, x->regions[i].size);
		jw_c(w, '}');
	}
	JW_LIT(w, "], \"calls\": [");
	for (i = 0; i < x->ncalls; i++) {
		const struct obj_line *ln = line_of(o, x->calls[i].sec, x->calls[i].slot);

		if (i)
			JW_LIT(w, ", ");
		JW_LIT(w, "{\"name\": ");
		jstr(w, call_name(o, &x->calls[i]));
		JW_FIELD(w, ", \"result\": ", x->calls[i].ret);
		if (x->calls[i].tail_taken)
			JW_LIT(w, ", \"tail_call_taken\": true");
		else
			JW_LIT(w, ", \"tail_call_taken\": false");
		if (x->calls[i].key && x->calls[i].key_size) {
			JW_LIT(w, ", \"key\": ");
			jhex(w, x->calls[i].key, x->calls[i].key_size);
		}
		if (ln && ln->line) {
			JW_LIT(w, ", \"location\": ");
			jloc_cached(w, sf, ln->file, ln->line, ln->col);
		}
		jw_c(w, '}');
	}
	JW_LIT(w, "], \"kernel_reads\": [");
	for (i = 0; i < x->nreads; i++) {
		if (i)
			JW_LIT(w, ", ");
		JW_FIELD(w, "{\"address\": ", x->reads[i].addr);
		JW_FIELD(w, ", \"size\": ", x->reads[i].size);
		JW_FIELD(w, ", \"value\": ", x->reads[i].value);
		jw_c(w, '}');
	}
	JW_LIT(w, "], \"path\": [");
	for (k = 0; k < rr->npath; k++) {
		const struct obj_line *ln = line_next(o, &lc, rr->path[k].sec, rr->path[k].slot);

		if (!ln || !ln->line || ln == prev)
			continue;
		prev = ln;
		if (n++)
			JW_LIT(w, ", ");
		jloc_cached(w, sf, ln->file, ln->line, ln->col);
	}
	JW_LIT(w, "]}");
	if (x == r->cex && r->kernel_tried) {
		if (r->kernel_reproduced)
			JW_LIT(w, ", \"kernel_replay\": {\"reproduced\": true, \"message\": ");
		else
			JW_LIT(w, ", \"kernel_replay\": {\"reproduced\": false, \"message\": ");
		jstr(w, r->kernel_msg);
		jw_c(w, '}');
	}
}

/* SPEC, SRC: the shown spec and source files, kept for the report */
static void json_one(const struct loaded *l, const struct check_result *r,
		     struct shown_file *spec, struct shown_file *src, struct jw *w)
{
	const struct mon_check *c = r->c;
	const struct obj_line *ln;
	unsigned i;

	JW_LIT(w, "{\"check\": ");
	jstr(w, c->name);
	JW_LIT(w, ", \"program\": ");
	jstr(w, c->prog);
	JW_LIT(w, ", \"invariant\": ");
	jstr(w, c->inv);
	JW_LIT(w, ", \"verdict\": \"");
	jw_s(w, check_verdict_name(r->verdict));
	JW_LIT(w, "\", \"spec_location\": ");
	jloc_cached(w, spec, c->file, c->pos.line, c->pos.col);
	JW_LIT(w, ", \"seconds\": ");
	jw_seconds(w, r->seconds);
	if (r->verdict == CHECK_UNKNOWN || r->verdict == CHECK_ERROR) {
		JW_LIT(w, ", \"reason\": ");
		jstr(w, r->reason);
	}
	if (r->has_worst)
		JW_FIELD(w, ", \"worst_case_insns\": ", r->worst);
	else if (r->has_worst_max)
		JW_FIELD(w, ", \"worst_case_insns_at_most\": ", r->worst_max);
	if (r->witness)
		json_cex(l->o, r, r->witness, &r->wreplay, "worst_case_input", src, w);
	if (r->verdict == CHECK_VIOLATED) {
		const struct mon_assert *as = &c->asserts[r->site];

		JW_LIT(w, ", \"message\": ");
		jstr(w, as->msg);
		JW_LIT(w, ", \"assert_location\": ");
		jloc_cached(w, spec, as->file, as->pos.line, as->pos.col);
		ln = event_line(l->o, r);
		if (ln) {
			JW_LIT(w, ", \"location\": ");
			jloc_cached(w, src, ln->file, ln->line, ln->col);
		}
		json_cex(l->o, r, r->cex, &r->replay, "counterexample", src, w);
	}
	JW_LIT(w, ", \"notes\": [");
	for (i = 0; i < r->nnotes; i++) {
		if (i)
			JW_LIT(w, ", ");
		jstr(w, r->notes[i]);
	}
	JW_LIT(w, "]}");
}

static void json_write(const struct loaded *l, const struct mon_set *s,
		       const struct check_result *r, const unsigned n[4], FILE *out)
{
	/* the spec's and the source's shown paths where they are under
	 * 200 bytes, kept for the whole report (a source's was cleaned
	 * again for every counterexample), the rest through jloc (a 4 KiB
	 * buffer in this frame was a fresh stack page a run) */
	char pb[208], spb[208];
	struct shown_file spec = { .pb = pb, .size = sizeof(pb) };
	struct shown_file src = { .pb = spb, .size = sizeof(spb) };
	struct jw w = {0};
	unsigned i;

	jw_grow(&w, 16384);     /* a small example's report fits */
	JW_LIT(&w, "{\"tool\": \"bpf-invcheck\", \"version\": \"" INVCHECK_VERSION "\", \"object\": ");
	jstr(&w, l->o->path);
	JW_LIT(&w, ", \"results\": [");
	for (i = 0; i < s->n; i++) {
		if (i)
			jw_c(&w, ',');
		JW_LIT(&w, "\n  ");
		json_one(l, &r[i], &spec, &src, &w);
	}
	JW_FIELD(&w, "\n], \"summary\": {\"holds\": ", n[CHECK_HOLDS]);
	JW_FIELD(&w, ", \"violated\": ", n[CHECK_VIOLATED]);
	JW_FIELD(&w, ", \"unknown\": ", n[CHECK_UNKNOWN]);
	JW_FIELD(&w, ", \"errors\": ", n[CHECK_ERROR]);
	JW_LIT(&w, "}}\n");
	jw_flush(&w, out);
}

void report_write(const struct loaded *l, const struct mon_set *s,
		  const struct check_result *r, enum report_format f, bool quiet, FILE *out)
{
	unsigned n[4] = {0}, i;

	if (f == REPORT_SARIF) {
		report_sarif(l, s, r, out);
		return;
	}
	for (i = 0; i < s->n; i++)
		n[r[i].verdict]++;
	if (f == REPORT_JSON) {
		json_write(l, s, r, n, out);
		return;
	}
	for (i = 0; i < s->n; i++)
		text_one(l, &r[i], quiet, out);
	if (!quiet)
		text_notes(s, r, out);
	if (!quiet)
		fprintf(out, "%u check%s: %u hold, %u violated, %u unknown%s\n", s->n,
			s->n == 1 ? "" : "s", n[CHECK_HOLDS], n[CHECK_VIOLATED], n[CHECK_UNKNOWN],
			n[CHECK_ERROR] ? ", some internal errors" : "");
}

void report_inputs_text(const struct object *o, const struct cex *x,
			const struct replay_result *rr, const char *header, FILE *out)
{
	struct check_result r = { .cex = (struct cex *)x };

	text_cex(o, &r, x, rr, header, out);
}

/* For the other writers (sarif.c, artifacts.c): the same paths, lines and
 * strings as here. */
const char *report_path(const char *in, char *out, size_t size)
{
	return show_path(in, out, size);
}

const struct obj_line *report_line_at(const struct object *o, int sec, uint32_t slot)
{
	return line_of(o, sec, slot);
}

const struct obj_line *report_event_line(const struct object *o, const struct check_result *r)
{
	return event_line(o, r);
}

void report_json_str(FILE *out, const char *s)
{
	struct jw w = {0};

	jstr(&w, s);
	jw_flush(&w, out);
}

void report_json_hex(FILE *out, const uint8_t *b, uint32_t n)
{
	struct jw w = {0};

	jhex(&w, b, n);
	jw_flush(&w, out);
}
