/* artifacts.c - --cex-dir: each counterexample as a replay file, a pcap and
 * (--cex-dot) a CFG picture (contract in artifacts.h). */
#include "artifacts.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101

static void u64s(FILE *out, const uint64_t *v, unsigned n)
{
	unsigned i;

	fputc('[', out);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? ", " : "", v[i]);
	fputc(']', out);
}

/* An absolute path for the replay file (it may be run from elsewhere). */
static void abs_path(FILE *out, const char *p)
{
	char buf[PATH_MAX];

	report_json_str(out, realpath(p, buf) ? buf : p);
}

static void write_call(FILE *out, const struct cex_call *c)
{
	unsigned k;

	fprintf(out, "{\"sec\": %d, \"slot\": %u, \"helper\": %d, \"kfunc\": %d, \"ret\": %" PRIu64
		", \"tail_taken\": %s, \"tail_ret\": %" PRIu64 ", \"args\": ",
		c->sec, c->slot, c->helper, c->kfunc, c->ret, c->tail_taken ? "true" : "false",
		c->tail_ret);
	u64s(out, c->args, 5);
	fputs(", \"key\": ", out);
	if (c->key)
		report_json_hex(out, c->key, c->key_size);
	else
		fputs("null", out);
	fputs(", \"writes\": [", out);
	for (k = 0; k < c->nwrites; k++) {
		fprintf(out, "%s{\"addr\": %" PRIu64 ", \"bytes\": ", k ? ", " : "", c->writes[k].addr);
		report_json_hex(out, c->writes[k].bytes, c->writes[k].size);
		fputc('}', out);
	}
	fputs("]}", out);
}

static void write_cex(FILE *out, const struct cex *x)
{
	unsigned i;

	fputs("  \"cex\": {\"args\": ", out);
	u64s(out, x->args, 5);
	fprintf(out, ", \"pkt\": %" PRIu64 ", \"pkt_end\": %" PRIu64 ", \"max_steps\": %" PRIu64 ",\n",
		x->pkt, x->pkt_end, x->max_steps);
	fputs("    \"regions\": [", out);
	for (i = 0; i < x->nregions; i++) {
		const struct cex_region *g = &x->regions[i];

		fputs(i ? ",\n      {\"name\": " : "\n      {\"name\": ", out);
		report_json_str(out, g->name);
		fprintf(out, ", \"kind\": \"%s\", \"base\": %" PRIu64 ", \"writable\": %s, \"map\": %d, \"bytes\": ",
			interp_mem_kind_name(g->kind), g->base, g->writable ? "true" : "false", g->map);
		report_json_hex(out, g->bytes, g->size);
		fputc('}', out);
	}
	fputs("],\n    \"calls\": [", out);
	for (i = 0; i < x->ncalls; i++) {
		fputs(i ? ",\n      " : "\n      ", out);
		write_call(out, &x->calls[i]);
	}
	fputs("],\n    \"reads\": [", out);
	for (i = 0; i < x->nreads; i++)
		fprintf(out, "%s{\"addr\": %" PRIu64 ", \"size\": %u, \"value\": %" PRIu64 "}", i ? ", " : "",
			x->reads[i].addr, x->reads[i].size, x->reads[i].value);
	fputs("]}\n", out);
}

static void write_replay(FILE *out, const struct loaded *l, const struct check_result *r,
			 const struct artifact_opts *o)
{
	const struct mon_check *c = r->c;
	const struct mon_assert *as = &c->asserts[r->site];
	char pb[4096];
	unsigned i;

	fputs("{\"format\": \"bpf-invcheck replay\", \"version\": 1,\n  \"object\": ", out);
	abs_path(out, l->o->path);
	fputs(", \"spec\": ", out);
	abs_path(out, o->spec);
	fputs(", \"pack_dirs\": [", out);
	for (i = 0; i < o->npack_dirs; i++) {
		fputs(i ? ", " : "", out);
		abs_path(out, o->pack_dirs[i]);
	}
	fputs("],\n  \"check\": ", out);
	report_json_str(out, c->name);
	fputs(", \"program\": ", out);
	report_json_str(out, c->prog);
	fprintf(out, ", \"site\": %u, \"message\": ", r->site);
	report_json_str(out, as->msg);
	fputs(", \"assert_location\": {\"file\": ", out);
	report_json_str(out, report_path(as->file, pb, sizeof(pb)));
	fprintf(out, ", \"line\": %u, \"column\": %u}, \"steps\": %" PRIu64 ",\n", as->pos.line,
		as->pos.col, r->replay.steps);
	write_cex(out, r->cex);
	fputs("}\n", out);
}

static void le32(FILE *out, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	fwrite(b, 1, 4, out);
}

/* Classic pcap (little-endian, microseconds): the global header, then one
 * record with the whole packet (timestamp 0). */
static void write_pcap(FILE *out, const uint8_t *pkt, uint32_t len, uint32_t linktype)
{
	le32(out, 0xa1b2c3d4);
	le32(out, 2 | 4u << 16);   /* version 2.4 */
	le32(out, 0);              /* thiszone */
	le32(out, 0);              /* sigfigs */
	le32(out, 65535);          /* snaplen */
	le32(out, linktype);
	le32(out, 0);              /* ts_sec */
	le32(out, 0);              /* ts_usec */
	le32(out, len);            /* incl_len */
	le32(out, len);            /* orig_len */
	fwrite(pkt, 1, len, out);
}

static const struct cex_region *packet_of(const struct cex *x)
{
	unsigned i;

	if (!x->pkt)
		return NULL;
	for (i = 0; i < x->nregions; i++)
		if (x->regions[i].kind == INTERP_MEM_PACKET && x->pkt >= x->regions[i].base &&
		    x->pkt_end <= x->regions[i].base + x->regions[i].size && x->pkt <= x->pkt_end)
			return &x->regions[i];
	return NULL;
}

static FILE *create(const char *dir, const char *name, const char *ext, char *path,
		    size_t size, struct diag *d)
{
	FILE *f;

	snprintf(path, size, "%s/%s%s", dir, name, ext);
	f = fopen(path, "wb");
	if (!f)
		diag_fail(d, path, "cannot write: %s", strerror(errno));
	return f;
}

static int finish(FILE *f, const char *path, struct diag *d)
{
	int bad = ferror(f);

	if (fclose(f) || bad)
		return diag_fail(d, path, "writing failed");
	return 0;
}

/* dot -Tsvg -o SVG DOT; 1 when dot is not installed. */
static int render(const char *dotfile, struct diag *d)
{
	char svg[PATH_MAX + 8];
	char *argv[] = { "dot", "-Tsvg", "-o", svg, (char *)dotfile, NULL };
	size_t n = strlen(dotfile);
	int st, err;
	pid_t pid;

	snprintf(svg, sizeof(svg), "%.*s.svg", (int)(n - 4), dotfile);
	err = posix_spawnp(&pid, "dot", NULL, NULL, argv, environ);
	if (err == ENOENT)
		return 1;
	if (err)
		return diag_fail(d, dotfile, "cannot run dot: %s", strerror(err));
	if (waitpid(pid, &st, 0) < 0)
		return diag_fail(d, dotfile, "waiting for dot: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return 1;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return diag_fail(d, dotfile, "dot -Tsvg failed (status %d)", st);
	return 0;
}

static int one(const struct loaded *l, const struct check_result *r, const struct artifact_opts *o,
	       struct arena *a, struct diag *d, bool *dot_missing)
{
	const struct cex_region *pk = packet_of(r->cex);
	char name[256], path[PATH_MAX + 300];
	int err = 0, i;
	FILE *f;

	snprintf(name, sizeof(name), "%s", r->c->name);
	for (i = 0; name[i]; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || strchr("._-", name[i])))
			name[i] = '_';
	f = create(o->dir, name, ".replay.json", path, sizeof(path), d);
	if (!f)
		return -EIO;
	write_replay(f, l, r, o);
	err = finish(f, path, d);
	if (!err && pk) {
		f = create(o->dir, name, ".pcap", path, sizeof(path), d);
		if (!f)
			return -EIO;
		write_pcap(f, pk->bytes + (r->cex->pkt - pk->base),
			   (uint32_t)(r->cex->pkt_end - r->cex->pkt),
			   l->o->funcs[r->c->func].prog_type == BPF_PROG_TYPE_CGROUP_SKB ?
			   LINKTYPE_RAW : LINKTYPE_ETHERNET);
		err = finish(f, path, d);
	}
	if (!err && o->dot) {
		f = create(o->dir, name, ".dot", path, sizeof(path), d);
		if (!f)
			return -EIO;
		err = artifacts_dot(l, r, f, a, d);
		err = finish(f, path, d) ?: err;
		if (!err && !*dot_missing) {
			err = render(path, d);
			if (err == 1) {
				*dot_missing = true;
				err = 0;
			}
		}
	}
	return err;
}

int artifacts_write(const struct loaded *l, const struct mon_set *s,
		    const struct check_result *r, const struct artifact_opts *o,
		    struct arena *a, struct diag *d, bool *dot_missing)
{
	struct stat st;
	unsigned i;
	int err = 0;

	*dot_missing = false;
	if (mkdir(o->dir, 0777) && errno != EEXIST)
		return diag_fail(d, o->dir, "cannot make the directory: %s", strerror(errno));
	if (stat(o->dir, &st) || !S_ISDIR(st.st_mode))
		return diag_fail(d, o->dir, "not a directory");
	for (i = 0; i < s->n && !err; i++)
		if (r[i].verdict == CHECK_VIOLATED && r[i].cex)
			err = one(l, &r[i], o, a, d, dot_missing);
	return err;
}
