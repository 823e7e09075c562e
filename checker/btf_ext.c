/* btf_ext.c - stage 1, part 3: the object's BTF and .BTF.ext (contract:
 * object.h).
 *
 * .BTF is parsed by libbpf (btf__new) after a check of our own, so that bad
 * input gets one precise diagnostic and libbpf never prints. libbpf 1.1.2
 * does not check type references, so every btf__type_by_id() result here is
 * tested. .BTF.ext is parsed here: func_info, line_info and core_relo
 * records, each insn_off a byte offset into its ELF section.
 */
#include "object_priv.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPE_DEPTH 32

/* ---- .BTF ------------------------------------------------------------- */

/* Bytes of the type record after struct btf_type, -1 for an unknown kind. */
static long type_extra(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case BTF_KIND_FWD:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	default:
		return -1;
	}
}

/* The names of type [ID] and of its members, parameters or enumerators
 * (each record of EXTRA bytes starts with a name offset) are strings. */
static int check_btf_names(struct loader *l, uint32_t id, const struct btf_type *t,
			   const uint8_t *rec, long extra, uint32_t str_len)
{
	unsigned kind = BTF_INFO_KIND(t->info), vlen = BTF_INFO_VLEN(t->info), k;
	uint32_t off;

	if (t->name_off >= str_len)
		return loader_fail(l, "section '.BTF': type [%u]: bad name offset 0x%x", id,
				   t->name_off);
	if (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION && kind != BTF_KIND_ENUM &&
	    kind != BTF_KIND_ENUM64 && kind != BTF_KIND_FUNC_PROTO)
		return 0;
	for (k = 0; k < vlen; k++) {
		memcpy(&off, rec + (size_t)k * (size_t)(extra / vlen), sizeof(off));
		if (off >= str_len)
			return loader_fail(l, "section '.BTF': type [%u] member %u: bad name offset 0x%x",
					   id, k, off);
	}
	return 0;
}

static int check_btf_types(struct loader *l, const uint8_t *p, size_t len, uint32_t str_len)
{
	size_t pos = 0;
	uint32_t id = 1;
	int err;

	while (len - pos >= sizeof(struct btf_type)) {
		struct btf_type t;
		long extra;

		memcpy(&t, p + pos, sizeof(t));
		extra = type_extra(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
		if (extra < 0)
			return loader_fail(l, "section '.BTF': type [%u] has unknown kind %u",
					   id, BTF_INFO_KIND(t.info));
		if ((size_t)extra > len - pos - sizeof(t))
			return loader_fail(l, "section '.BTF': type [%u] is cut off", id);
		err = check_btf_names(l, id, &t, p + pos + sizeof(t), extra, str_len);
		if (err)
			return err;
		pos += sizeof(t) + (size_t)extra;
		id++;
	}
	if (pos != len)
		return loader_fail(l, "section '.BTF': %zu stray bytes after type [%u]",
				   len - pos, id - 1);
	return 0;
}

/* What libbpf's parser requires, reported by us (libbpf would print). */
static int check_btf(struct loader *l, const uint8_t *p, size_t size)
{
	struct btf_header h;
	uint64_t meta;
	const uint8_t *strs;

	if (size < sizeof(h))
		return loader_fail(l, "section '.BTF': truncated header (%zu bytes)", size);
	memcpy(&h, p, sizeof(h));
	if (h.magic == 0x9feb)
		return loader_fail(l, "section '.BTF': big-endian BTF is not supported");
	if (h.magic != BTF_MAGIC)
		return loader_fail(l, "section '.BTF': bad magic 0x%04x", h.magic);
	if (h.version != BTF_VERSION)
		return loader_fail(l, "section '.BTF': unsupported version %u", h.version);
	if (h.hdr_len < sizeof(h) || h.hdr_len > size)
		return loader_fail(l, "section '.BTF': bad header length %u", h.hdr_len);
	meta = size - h.hdr_len;
	if ((uint64_t)h.str_off + h.str_len > meta ||
	    (uint64_t)h.type_off + h.type_len > h.str_off || h.type_off % 4)
		return loader_fail(l, "section '.BTF': types (0x%x+0x%x) or strings (0x%x+0x%x) are misplaced",
				   h.type_off, h.type_len, h.str_off, h.str_len);
	strs = p + h.hdr_len + h.str_off;
	if (!h.str_len || strs[0] || strs[h.str_len - 1])
		return loader_fail(l, "section '.BTF': bad string table");
	l->btf_strs = (const char *)strs;
	l->btf_str_len = h.str_len;
	return check_btf_types(l, p + h.hdr_len + h.type_off, h.type_len, h.str_len);
}

int btf_load(struct loader *l)
{
	const struct lsec *s;
	struct btf *btf;
	int err;

	if (!l->btf_sec) {
		if (l->btf_ext_sec)
			return loader_fail(l, "section '.BTF.ext' needs a '.BTF' section");
		return 0;
	}
	s = &l->secs[l->btf_sec];
	err = check_btf(l, s->data, s->size);
	if (err)
		return err;
	btf = btf__new(s->data, (uint32_t)s->size);
	if (!btf) {
		err = -errno;
		if (err == -ENOMEM)
			return err;
		return loader_fail(l, "section '.BTF': corrupt BTF (%s)", strerror(-err));
	}
	l->o->btf = btf;
	return 0;
}

const char *btf_str(struct loader *l, uint32_t off)
{
	/* the string btf__name_by_offset finds, read from the image (libbpf's
	 * is its copy) */
	if (!l->o->btf || off >= l->btf_str_len)
		return NULL;
	return loader_str(l, l->btf_strs + off);
}

const struct btf_type *btf_skip_mods(const struct btf *btf, uint32_t *id)
{
	uint32_t cur = *id;
	int depth;

	for (depth = 0; depth < MAX_TYPE_DEPTH; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, cur);

		if (!t)
			return NULL;
		if (!btf_is_typedef(t) && !btf_is_mod(t)) {
			*id = cur;
			return t;
		}
		cur = t->type;
	}
	return NULL;
}

int btf_find_func(const struct btf *btf, const char *name)
{
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;

	return id > 0 ? id : 0;
}

/* ---- prototypes: "s32 scx_bpf_create_dsq(u64 dsq_id, s32 node)" -------- */

struct sbuf {
	char s[512];
	size_t len;
};

static void sput(struct sbuf *b, const char *s)
{
	b->len = str_append(b->s, sizeof(b->s), b->len, s);
}

static bool ends_with_star(const struct sbuf *b)
{
	return b->len && b->s[b->len - 1] == '*';
}

static const char *tname(const struct btf *btf, const struct btf_type *t)
{
	const char *n = btf__name_by_offset(btf, t->name_off);

	return n && *n ? n : "(anon)";
}

/* The C spelling of type ID, in the simple cases BPF prototypes use. */
static void put_type(const struct btf *btf, uint32_t id, struct sbuf *b, int depth)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;

	if (!id) {
		sput(b, "void");
		return;
	}
	if (!t || depth > MAX_TYPE_DEPTH) {
		sput(b, "?");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		put_type(btf, t->type, b, depth + 1);
		sput(b, ends_with_star(b) ? "*" : " *");
		return;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		sput(b, btf_is_const(t) ? "const " : btf_is_volatile(t) ? "volatile " : "restrict ");
		put_type(btf, t->type, b, depth + 1);
		return;
	case BTF_KIND_TYPE_TAG:
		put_type(btf, t->type, b, depth + 1);
		return;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		sput(b, btf_is_struct(t) || (btf_is_fwd(t) && !btf_kflag(t)) ? "struct " :
			btf_is_union(t) || btf_is_fwd(t) ? "union " : "enum ");
		sput(b, tname(btf, t));
		return;
	case BTF_KIND_ARRAY:
		put_type(btf, btf_array(t)->type, b, depth + 1);
		sput(b, "[]");
		return;
	case BTF_KIND_FUNC_PROTO:
		sput(b, "void");    /* function pointers print as void * */
		return;
	default:
		sput(b, tname(btf, t));  /* int, float, typedef */
		return;
	}
}

static void put_decl(const struct btf *btf, uint32_t type, const char *name, struct sbuf *b)
{
	put_type(btf, type, b, 0);
	if (name && *name) {
		if (!ends_with_star(b))
			sput(b, " ");
		sput(b, name);
	}
}

const char *btf_format_proto(struct loader *l, uint32_t func_id)
{
	const struct btf *btf = l->o->btf;
	const struct btf_type *fn = btf__type_by_id(btf, func_id);
	const struct btf_type *proto = fn && btf_is_func(fn) ? btf__type_by_id(btf, fn->type) : NULL;
	const struct btf_param *p;
	struct sbuf b = { .len = 0 };
	uint16_t i, n;

	if (!proto || !btf_is_func_proto(proto))
		return NULL;
	put_decl(btf, proto->type, btf__name_by_offset(btf, fn->name_off), &b);
	sput(&b, "(");
	p = btf_params(proto);
	n = btf_vlen(proto);
	for (i = 0; i < n; i++) {
		if (i)
			sput(&b, ", ");
		if (i == n - 1 && !p[i].type)
			sput(&b, "...");
		else
			put_decl(btf, p[i].type, btf__name_by_offset(btf, p[i].name_off), &b);
	}
	sput(&b, n ? ")" : "void)");
	return arena_strdup(l->a, b.s);
}

/* ---- .BTF.ext --------------------------------------------------------- */

struct ext_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};

struct lline {
	struct obj_line ln;
	uint32_t seq;                /* record order, to keep the sort stable */
};

struct lcore {
	struct obj_core_relo cr;
	uint32_t seq;
};

struct ext {
	struct loader *l;
	const uint8_t *base;         /* start of the subsections (after the header) */
	struct vec *lines, *cores;   /* per code section */
	uint32_t file_off;           /* last file name looked up, and its copy */
	const char *file;
	uint32_t seq;
};

typedef int (*ext_rec_fn)(struct ext *x, int sec, const uint8_t *rec, uint32_t i);

static const char *const core_kind_names[] = {
	"byte_off", "byte_sz", "field_exists", "signed", "lshift_u64",
	"rshift_u64", "local_type_id", "target_type_id", "type_exists",
	"type_size", "enumval_exists", "enumval_value", "type_matches",
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The slot of INSN_OFF in code section SEC, checked. */
static int ext_slot(struct ext *x, int sec, const char *what, uint32_t i,
		    uint32_t insn_off, uint32_t *slot)
{
	const struct obj_section *s = &x->l->o->sections[sec];

	if (insn_off % 8 || insn_off / 8 >= s->nslots)
		return loader_fail(x->l, "section '.BTF.ext': %s record %u for section '%s': instruction offset 0x%x is not an instruction of the section",
				   what, i, s->name, insn_off);
	*slot = insn_off / 8;
	return 0;
}

static int func_rec(struct ext *x, int sec, const uint8_t *rec, uint32_t i)
{
	const struct btf_type *t = btf__type_by_id(x->l->o->btf, rd32(rec + 4));
	uint32_t slot = 0;
	int f, err = ext_slot(x, sec, "func_info", i, rd32(rec), &slot);

	if (err)
		return err;
	f = loader_func_starting(x->l, sec, slot);
	if (f < 0)
		return loader_fail(x->l, "section '.BTF.ext': func_info record %u for section '%s': no function starts at offset 0x%x",
				   i, x->l->o->sections[sec].name, rd32(rec));
	if (!t || !btf_is_func(t))
		return loader_fail(x->l, "section '.BTF.ext': func_info record %u: type [%u] is not a FUNC",
				   i, rd32(rec + 4));
	x->l->o->funcs[f].btf_func_id = rd32(rec + 4);
	return 0;
}

static int line_rec(struct ext *x, int sec, const uint8_t *rec, uint32_t i)
{
	struct lline *ll;
	uint32_t slot = 0, file_off = rd32(rec + 4), line_col = rd32(rec + 12);
	const char *text = btf_str(x->l, rd32(rec + 8));
	int err = ext_slot(x, sec, "line_info", i, rd32(rec), &slot);

	if (err)
		return err;
	if (!x->file || x->file_off != file_off) {
		x->file = btf_str(x->l, file_off);
		x->file_off = file_off;
	}
	if (!x->file || !text)
		return loader_fail(x->l, "section '.BTF.ext': line_info record %u for section '%s': bad string offset",
				   i, x->l->o->sections[sec].name);
	ll = vec_push(x->l->a, &x->lines[sec], sizeof(*ll));
	ll->ln.slot = slot;
	ll->ln.file = x->file;
	ll->ln.line = line_col >> 10;
	ll->ln.col = line_col & 0x3ff;
	ll->ln.text = text;
	ll->seq = x->seq++;
	return 0;
}

static int core_rec(struct ext *x, int sec, const uint8_t *rec, uint32_t i)
{
	struct loader *l = x->l;
	const struct btf_type *t = btf__type_by_id(l->o->btf, rd32(rec + 4));
	const char *access = btf_str(l, rd32(rec + 8));
	uint32_t slot = 0, kind = rd32(rec + 12);
	struct lcore *lc;
	int err = ext_slot(x, sec, "core_relo", i, rd32(rec), &slot);

	if (err)
		return err;
	if (!t || !access)
		return loader_fail(l, "section '.BTF.ext': core_relo record %u for section '%s': bad %s",
				   i, l->o->sections[sec].name, t ? "access string offset" : "type id");
	if (kind >= ARRAY_SIZE(core_kind_names))
		return loader_fail(l, "section '.BTF.ext': core_relo record %u: unknown kind %u",
				   i, kind);
	lc = vec_push(l->a, &x->cores[sec], sizeof(*lc));
	lc->cr.slot = slot;
	lc->cr.type_id = rd32(rec + 4);
	lc->cr.type_name = btf_str(l, t->name_off);
	lc->cr.access = access;
	lc->cr.kind = kind;
	lc->cr.kind_name = core_kind_names[kind];
	lc->seq = x->seq++;
	return 0;
}

static int code_sec_named(const struct object *o, const char *name)
{
	uint32_t i;

	for (i = 0; i < o->nsections; i++)
		if (!strcmp(o->sections[i].name, name))
			return (int)i;
	return -1;
}

/* One subsection: rec_size, then { sec_name_off, num_info, recs[] }... */
static int ext_sub(struct ext *x, const char *what, uint32_t off, uint32_t len,
		   uint32_t min_rec, ext_rec_fn fn)
{
	struct loader *l = x->l;
	const uint8_t *p = x->base + off;
	uint32_t rec_size, pos = 4, n = 0;
	int err = 0;

	if (!len)
		return 0;
	rec_size = len >= 4 ? rd32(p) : 0;
	if (rec_size < min_rec || rec_size % 4)
		return loader_fail(l, "section '.BTF.ext': %s: bad record size %u", what, rec_size);
	while (pos < len && !err) {
		uint32_t name_off, num, k;
		const char *name;
		int sec;

		if (len - pos < 8)
			return loader_fail(l, "section '.BTF.ext': %s: truncated section header", what);
		name_off = rd32(p + pos);
		num = rd32(p + pos + 4);
		pos += 8;
		name = l->o->btf ? btf__name_by_offset(l->o->btf, name_off) : NULL;
		if (!name)
			return loader_fail(l, "section '.BTF.ext': %s: bad section name offset 0x%x",
					   what, name_off);
		sec = code_sec_named(l->o, name);
		if (sec < 0)
			return loader_fail(l, "section '.BTF.ext': %s for '%s', which is not a code section",
					   what, name);
		if ((uint64_t)num * rec_size > len - pos)
			return loader_fail(l, "section '.BTF.ext': %s for '%s': %u records do not fit",
					   what, name, num);
		for (k = 0; k < num && !err; k++, n++)
			err = fn(x, sec, p + pos + (size_t)k * rec_size, n);
		pos += num * rec_size;
	}
	return err;
}

static int lline_cmp(const void *pa, const void *pb)
{
	const struct lline *a = pa, *b = pb;

	if (a->ln.slot != b->ln.slot)
		return a->ln.slot < b->ln.slot ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int lcore_cmp(const void *pa, const void *pb)
{
	const struct lcore *a = pa, *b = pb;

	if (a->cr.slot != b->cr.slot)
		return a->cr.slot < b->cr.slot ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void ext_finish(struct ext *x)
{
	struct object *o = x->l->o;
	uint32_t i, j;

	for (i = 0; i < o->nsections; i++) {
		struct obj_section *s = &o->sections[i];
		struct lline *ll = x->lines[i].data;
		struct lcore *lc = x->cores[i].data;

		loader_sort(ll, x->lines[i].len, sizeof(*ll), lline_cmp);
		loader_sort(lc, x->cores[i].len, sizeof(*lc), lcore_cmp);
		s->nlines = (uint32_t)x->lines[i].len;
		s->lines = arena_new_array(x->l->a, struct obj_line, s->nlines + 1);
		for (j = 0; j < s->nlines; j++)
			s->lines[j] = ll[j].ln;
		s->ncore = (uint32_t)x->cores[i].len;
		s->core = arena_new_array(x->l->a, struct obj_core_relo, s->ncore + 1);
		for (j = 0; j < s->ncore; j++)
			s->core[j] = lc[j].cr;
	}
}

static int ext_header(struct loader *l, const uint8_t *p, size_t size, struct ext_hdr *h)
{
	uint64_t room;

	memset(h, 0, sizeof(*h));
	if (size < 8)
		return loader_fail(l, "section '.BTF.ext': truncated header (%zu bytes)", size);
	memcpy(h, p, size < sizeof(*h) ? size : sizeof(*h));
	if (h->magic == 0x9feb)
		return loader_fail(l, "section '.BTF.ext': big-endian BTF is not supported");
	if (h->magic != BTF_MAGIC)
		return loader_fail(l, "section '.BTF.ext': bad magic 0x%04x", h->magic);
	if (h->version != 1)
		return loader_fail(l, "section '.BTF.ext': unsupported version %u", h->version);
	if (h->hdr_len < 24 || h->hdr_len > size)
		return loader_fail(l, "section '.BTF.ext': bad header length %u", h->hdr_len);
	if (h->hdr_len < 32)
		h->core_relo_off = h->core_relo_len = 0;
	room = size - h->hdr_len;
	if ((uint64_t)h->func_info_off + h->func_info_len > room ||
	    (uint64_t)h->line_info_off + h->line_info_len > room ||
	    (uint64_t)h->core_relo_off + h->core_relo_len > room)
		return loader_fail(l, "section '.BTF.ext': a subsection is outside the section");
	return 0;
}

int btf_ext_load(struct loader *l)
{
	const struct lsec *s;
	struct ext_hdr h;
	struct ext x = { .l = l };
	int err;

	if (!l->btf_ext_sec)
		return 0;
	s = &l->secs[l->btf_ext_sec];
	err = ext_header(l, s->data, s->size, &h);
	if (err)
		return err;
	x.base = s->data + h.hdr_len;
	x.lines = arena_new_array(l->a, struct vec, l->o->nsections + 1);
	x.cores = arena_new_array(l->a, struct vec, l->o->nsections + 1);
	err = ext_sub(&x, "func_info", h.func_info_off, h.func_info_len, 8, func_rec);
	err = err ?: ext_sub(&x, "line_info", h.line_info_off, h.line_info_len, 16, line_rec);
	err = err ?: ext_sub(&x, "core_relo", h.core_relo_off, h.core_relo_len, 16, core_rec);
	if (!err)
		ext_finish(&x);
	return err;
}
