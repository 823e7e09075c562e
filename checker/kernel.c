/* kernel.c - run a counterexample in the kernel with BPF_PROG_TEST_RUN
 * (--replay-kernel; contract in checker.h).
 *
 * The object is opened with libbpf, every program but the counterexample's
 * is set not to load, and the rest is loaded as libbpf would (maps created,
 * relocations done). Should that load fail (a prog array initialised with
 * programs needs them), the object is loaded once more with every program
 * libbpf loads by default. The inputs the kernel can be told come from the
 * cex:
 * - global data: .rodata (frozen by libbpf at load) gets its bytes as the
 *   map's initial value before the load; writable sections (.data, .bss,
 *   .data.*) are written with bpf_map_update_elem(key 0) after it;
 * - map values a lookup returned: arrays at key = slot index (stride:
 *   value_size rounded up to 8), hash maps at the key the lookup read (the
 *   cex records it); a lookup that returned NULL deletes its key. Per-CPU
 *   maps get the same value on every CPU;
 * - the packet (data_in) and for XDP ingress_ifindex / rx_queue_index, for
 *   tc the __sk_buff fields the kernel takes (mark, priority, ingress_ifindex,
 *   ifindex, cb[]) from the cex's context (ctx_in). When the kernel refuses
 *   the context (EINVAL, ENODEV), the run is retried without it and the
 *   message says so. A tc program that reads the packet with
 *   bpf_skb_load_bytes instead of direct access gets a packet of ctx.len
 *   bytes with the ethertype of ctx.protocol and the bytes those calls
 *   returned at their offsets (only as long as those need when ctx.len is
 *   more than test_run takes). A packet shorter than the 14 bytes test_run
 *   needs is padded with zeros. XDP metadata (data_meta < data) is not
 *   passed: the run has none.
 * - bpf_redirect_map's answer (XDP): the DEVMAP / CPUMAP entry the cex's
 *   call found is made (and the map's other keys: the kernel's own random
 *   number or CPU id may pick another), a key it missed is deleted
 *   (fill_redirects());
 *   XSKMAP entries need an AF_XDP socket and are not made.
 * Other helper results (random numbers, time, ...) are the kernel's own
 * choice: the message names them. The retval is compared with the low 32
 * bits of the interpreter's r0 (test_run's retval is a u32).
 *
 * An assert that fails at a call or at entry is not observable by a test
 * run: check.c says so without calling kernel_replay() (it knows the
 * replay's event, kernel_replay() only the cex).
 *
 * Nothing is printed: main.c silences libbpf (libbpf_set_print(NULL)) when
 * --replay-kernel is given, before any check runs.
 */
#include "checker.h"
#include "smt.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ETH_HLEN_MIN 14u
#define XDP_MD_SIZE 24u
#define SKB_MAX_DATA 3600u        /* about what test_run takes for an skb (a page
                                   * less headroom and skb_shared_info) */
#define SKB_CTX_SIZE 192u         /* struct __sk_buff as of 6.x */
#define SKB_LEN 0u                /* __sk_buff offsets */
#define SKB_MARK 8u
#define SKB_PROTOCOL 16u
#define SKB_PRIORITY 32u
#define SKB_INGRESS_IFINDEX 36u
#define SKB_IFINDEX 40u
#define SKB_CB 48u
#define SKB_CB_SIZE 20u
#define XDP_INGRESS_IFINDEX 12u
#define XDP_RX_QUEUE_INDEX 16u

struct kr {
	const struct loaded *l;
	const struct cex *x;
	struct bpf_object *obj;
	char *msg;
	size_t len;
	int ncpus;
	bool redirects;            /* fill_redirects() made bpf_redirect_map's answers */
};

static int fail(struct kr *k, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct kr *k, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->msg, k->len, fmt, ap);
	va_end(ap);
	return err;
}

static const struct cex_region *region_kind(const struct cex *x, enum interp_mem_kind kind)
{
	unsigned i;

	for (i = 0; i < x->nregions; i++)
		if (x->regions[i].kind == kind)
			return &x->regions[i];
	return NULL;
}

static uint32_t get_u32(const struct cex_region *r, uint32_t off)
{
	uint32_t v = 0;

	if (r && off + 4 <= r->size)
		memcpy(&v, r->bytes + off, 4);
	return v;
}

/* libbpf's map of datasec DS: an internal map whose name ends in the
 * section name ("xdp_fw.rodata", ".data.cfg"). */
static struct bpf_map *datasec_map(struct kr *k, const struct obj_datasec *ds)
{
	size_t n = strlen(ds->name), m;
	struct bpf_map *map;

	bpf_object__for_each_map(map, k->obj) {
		const char *name = bpf_map__name(map);

		m = strlen(name);
		if (bpf_map__is_internal(map) && m >= n && !strcmp(name + m - n, ds->name))
			return map;
	}
	return NULL;
}

static struct bpf_map *obj_map_of(struct kr *k, int mi)
{
	const struct object *o = k->l->o;

	if (mi < 0 || (uint32_t)mi >= o->nmaps)
		return NULL;
	if (o->maps[mi].datasec >= 0)
		return datasec_map(k, &o->datasecs[o->maps[mi].datasec]);
	return bpf_object__find_map_by_name(k->obj, o->maps[mi].name);
}

static bool is_percpu(uint32_t type)
{
	return type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static bool is_array(uint32_t type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* .rodata before the load: its initial value. */
static int set_rodata(struct kr *k)
{
	const struct cex *x = k->x;
	const struct object *o = k->l->o;
	unsigned i;

	for (i = 0; i < x->nregions; i++) {
		const struct cex_region *g = &x->regions[i];
		const struct obj_datasec *ds;
		struct bpf_map *map;
		int err;

		if (g->kind != INTERP_MEM_GLOBAL || g->map < 0 || g->base != SMT_MAP_BASE(g->map) ||
		    o->maps[g->map].datasec < 0)
			continue;
		ds = &o->datasecs[o->maps[g->map].datasec];
		if (!ds->readonly)
			continue;
		map = datasec_map(k, ds);
		if (!map)       /* not a map for libbpf: the program cannot read it */
			continue;
		err = bpf_map__set_initial_value(map, g->bytes, g->size);
		if (err)
			return fail(k, err, "cannot set the initial value of %s: %s", ds->name,
				    strerror(-err));
	}
	return 0;
}

/* Write VALUE (value_size bytes) at KEY, on every CPU of a per-CPU map. */
static int put(struct kr *k, struct bpf_map *map, uint32_t type, const void *key,
	       const uint8_t *value, uint32_t vsize)
{
	uint32_t stride = (vsize + 7) & ~7u;
	uint8_t *buf;
	int err, c, n = is_percpu(type) ? k->ncpus : 1;

	buf = calloc((size_t)n, is_percpu(type) ? stride : vsize);
	if (!buf)
		return -ENOMEM;
	for (c = 0; c < n; c++)
		memcpy(buf + (size_t)c * stride, value, vsize);
	err = bpf_map_update_elem(bpf_map__fd(map), key, buf, BPF_ANY);
	free(buf);
	return err < 0 ? -errno : 0;
}

static const struct cex_call *lookup_of(const struct cex *x, uint64_t ret)
{
	unsigned i;

	for (i = 0; i < x->ncalls; i++)
		if (x->calls[i].helper == BPF_FUNC_map_lookup_elem && x->calls[i].ret == ret &&
		    x->calls[i].key)
			return &x->calls[i];
	return NULL;
}

/* Global data and map values after the load. */
static int fill_maps(struct kr *k)
{
	const struct cex *x = k->x;
	const struct object *o = k->l->o;
	uint32_t zero = 0, key;
	unsigned i;
	int err;

	/* lookups that returned NULL: their key must be absent (first:
	 * an entry another lookup found wins) */
	for (i = 0; i < x->ncalls; i++) {
		const struct cex_call *c = &x->calls[i];
		struct bpf_map *map;
		uint32_t mi;

		if (c->helper != BPF_FUNC_map_lookup_elem || c->ret || !c->key ||
		    (c->args[0] & 0xff00000000000000ull) != REPLAY_MAP_HANDLE(0))
			continue;
		mi = (uint32_t)(c->args[0] >> 32) & 0xffffff;
		if (mi >= o->nmaps || is_array(o->maps[mi].type))
			continue;
		map = obj_map_of(k, (int)mi);
		if (map)
			bpf_map_delete_elem(bpf_map__fd(map), c->key);
	}
	for (i = 0; i < x->nregions; i++) {
		const struct cex_region *g = &x->regions[i];
		const struct obj_map *om;
		const struct cex_call *c;
		struct bpf_map *map;
		uint32_t stride;

		if ((g->kind != INTERP_MEM_GLOBAL && g->kind != INTERP_MEM_MAP_VALUE) || g->map < 0)
			continue;
		om = &o->maps[g->map];
		map = obj_map_of(k, g->map);
		if (!map && om->datasec >= 0)
			continue;
		if (!map)
			return fail(k, -ENOENT, "libbpf has no map %s", om->name);
		if (om->datasec >= 0) {
			if (o->datasecs[om->datasec].readonly || g->base != SMT_MAP_BASE(g->map))
				continue;
			err = put(k, map, om->type, &zero, g->bytes, g->size);
			if (err)
				return fail(k, err, "cannot write %s: %s", om->name, strerror(-err));
			continue;
		}
		if (om->type == BPF_MAP_TYPE_XSKMAP)
			return fail(k, -EOPNOTSUPP, "an entry of XSKMAP %s needs an AF_XDP socket bound to a device queue, which the test run does not have",
				    om->name);
		stride = (om->value_size + 7) & ~7u;
		if (is_array(om->type)) {
			key = (uint32_t)((g->base - SMT_MAP_BASE(g->map)) / stride);
			err = put(k, map, om->type, &key, g->bytes, om->value_size);
		} else {
			c = lookup_of(x, g->base);
			if (!c)
				return fail(k, -EOPNOTSUPP, "the key of the entry of map %s is not known",
					    om->name);
			err = put(k, map, om->type, c->key, g->bytes, om->value_size);
		}
		if (err)
			return fail(k, err, "cannot write an entry of map %s: %s", om->name,
				    strerror(-err));
	}
	return 0;
}

/* bpf_redirect_map answers from its map: XDP_REDIRECT when the key has an
 * entry, the flags' fallback action when not. So the entry the cex's call
 * found is made (a DEVMAP/DEVMAP_HASH entry: the loopback device, ifindex
 * 1; a CPUMAP entry: a queue of 192 frames on that CPU) and a key the call
 * missed is deleted. An XSKMAP entry needs an AF_XDP socket bound to a
 * device queue: not made, *XSK says so. A key the kernel computes from
 * its own random number or CPU id may be another than the cex's, so every
 * other key of an array map a found entry is in gets one too (CPUMAP: each
 * possible CPU; DEVMAP: at most REDIRECT_FILL keys) before the cex's
 * calls are applied: the cex says nothing about those keys but what a
 * missed call deletes again. */
#define REDIRECT_FILL 64u

static bool redirect_target(const struct obj_map *om)
{
	return (om->type == BPF_MAP_TYPE_DEVMAP || om->type == BPF_MAP_TYPE_DEVMAP_HASH ||
		om->type == BPF_MAP_TYPE_CPUMAP) && om->value_size >= 4 &&
	       om->value_size <= 16 && om->key_size == 4;
}

/* Makes entry KEY of the redirect map MAP (OM) point somewhere valid. */
static int redirect_set(const struct obj_map *om, struct bpf_map *map, uint32_t key)
{
	uint8_t value[16] = {0};
	uint32_t v = om->type == BPF_MAP_TYPE_CPUMAP ? 192 : 1;  /* qsize, or ifindex of lo */

	memcpy(value, &v, 4);
	return bpf_map_update_elem(bpf_map__fd(map), &key, value, BPF_ANY) ? -errno : 0;
}

static int redirect_entry(struct kr *k, const struct obj_map *om, struct bpf_map *map,
			  uint32_t key)
{
	int err = redirect_set(om, map, key);

	if (err)
		return fail(k, err, "cannot make the entry %u of map %s that bpf_redirect_map found: %s",
			    key, om->name, strerror(-err));
	return 0;
}

/* the other keys of the array map OM (see fill_redirects): best effort,
 * quietly (the cex's own keys are made, with errors, in the second pass) */
static void redirect_fill(struct kr *k, const struct obj_map *om, struct bpf_map *map)
{
	uint32_t n = om->max_entries, key;

	if (om->type == BPF_MAP_TYPE_DEVMAP_HASH)
		return;                /* its keys are any u32: no "every other key" */
	if (om->type == BPF_MAP_TYPE_CPUMAP && n > (uint32_t)k->ncpus)
		n = (uint32_t)k->ncpus;
	if (n > REDIRECT_FILL)
		n = REDIRECT_FILL;
	for (key = 0; key < n; key++)
		(void)redirect_set(om, map, key);
}

/* One bpf_redirect_map call C of the cex: in PASS 0 the fill of its map's
 * other keys, in PASS 1 its own key's entry made or deleted. */
static int redirect_call(struct kr *k, const struct cex_call *c, unsigned pass, bool *xsk)
{
	const struct object *o = k->l->o;
	const struct obj_map *om;
	struct bpf_map *map;
	uint32_t mi, key = (uint32_t)c->args[1];

	if (c->helper != BPF_FUNC_redirect_map ||
	    (c->args[0] & 0xff00000000000000ull) != REPLAY_MAP_HANDLE(0) ||
	    (c->args[2] & ~0x1bull))          /* invalid flags: ABORTED at once */
		return 0;
	mi = (uint32_t)(c->args[0] >> 32) & 0xffffff;
	if (mi >= o->nmaps || !(map = obj_map_of(k, (int)mi)))
		return 0;
	om = &o->maps[mi];
	if (pass == 0) {
		if (c->ret == XDP_REDIRECT && redirect_target(om))
			redirect_fill(k, om, map);
		return 0;
	}
	if (c->ret != XDP_REDIRECT) {
		bpf_map_delete_elem(bpf_map__fd(map), &key);
		return 0;
	}
	if (om->type == BPF_MAP_TYPE_XSKMAP) {
		*xsk = true;
		return 0;
	}
	return redirect_target(om) ? redirect_entry(k, om, map, key) : 0;
}

static int fill_redirects(struct kr *k, bool *xsk)
{
	unsigned i, pass;
	int err;

	*xsk = false;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < k->x->ncalls; i++)
			if ((err = redirect_call(k, &k->x->calls[i], pass, xsk)))
				return err;
	return 0;
}

/* tc without direct packet access: the packet from ctx.len, ctx.protocol
 * and the bytes bpf_skb_load_bytes returned. Returns its size. */
static uint32_t skb_packet(const struct cex *x, const struct cex_region *ctx, uint8_t **out,
			   bool *shortened)
{
	uint32_t n = get_u32(ctx, SKB_LEN), proto = get_u32(ctx, SKB_PROTOCOL), need = ETH_HLEN_MIN;
	uint8_t *p;
	unsigned i, w;

	for (i = 0; i < x->ncalls; i++)
		if (x->calls[i].helper == BPF_FUNC_skb_load_bytes && !x->calls[i].ret &&
		    x->calls[i].args[1] + x->calls[i].args[3] <= n &&
		    x->calls[i].args[1] + x->calls[i].args[3] > need)
			need = (uint32_t)(x->calls[i].args[1] + x->calls[i].args[3]);
	*shortened = n > SKB_MAX_DATA;
	if (*shortened)
		n = need;
	if (n < ETH_HLEN_MIN)
		n = ETH_HLEN_MIN;
	p = calloc(1, n);
	if (!p)
		return 0;
	memcpy(p + 12, &proto, 2);     /* as the program sees it: network order */
	for (i = 0; i < x->ncalls; i++) {
		const struct cex_call *c = &x->calls[i];
		uint64_t off = c->args[1], dst = c->args[2], len = c->args[3], b;

		if (c->helper != BPF_FUNC_skb_load_bytes || c->ret || off + len > n)
			continue;
		for (w = 0; w < c->nwrites; w++) {
			const struct cex_write *wr = &c->writes[w];

			for (b = 0; b < len; b++)
				if (dst + b >= wr->addr && dst + b < wr->addr + wr->size)
					p[off + b] = wr->bytes[dst + b - wr->addr];
		}
	}
	*out = p;
	return n;
}

/* test_run takes at least an Ethernet header: pad a shorter packet with
 * zeros (the program sees a longer packet: the message says so). */
static int pad(uint8_t **data, uint32_t *size, uint8_t **own, char *note, size_t len)
{
	uint8_t *p = calloc(1, ETH_HLEN_MIN);

	if (!p)
		return -ENOMEM;
	if (*size)
		memcpy(p, *data, *size);
	snprintf(note, len, " (the %u-byte packet padded to %u: test_run needs that)", *size,
		 ETH_HLEN_MIN);
	*data = *own = p;
	*size = ETH_HLEN_MIN;
	return 0;
}

/* The helper calls whose results the kernel chooses itself. */
static void own_results(const struct cex *x, bool built, bool redirects, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i, j;

	buf[0] = 0;
	for (i = 0; i < x->ncalls; i++) {
		const struct cex_call *c = &x->calls[i];
		const char *name;
		bool seen = false;

		if (c->helper == BPF_FUNC_map_lookup_elem || c->helper == BPF_FUNC_loop ||
		    (built && c->helper == BPF_FUNC_skb_load_bytes) ||
		    (redirects && c->helper == BPF_FUNC_redirect_map))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = x->calls[j].helper == c->helper && x->calls[j].kfunc == c->kfunc;
		if (seen)
			continue;
		if (c->helper >= 0)
			name = helper_name(c->helper);
		else
			name = NULL;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? ", " : "", name ? name : "a kfunc");
		if (used >= len)
			break;
	}
}

static int run(struct kr *k, int fd, enum bpf_prog_type type, uint64_t expect_r0,
	       bool *reproduced)
{
	const struct cex *x = k->x;
	const struct cex_region *ctx = region_kind(x, INTERP_MEM_CTX);
	const struct cex_region *pkt = region_kind(x, INTERP_MEM_PACKET);
	uint8_t ctxb[SKB_CTX_SIZE] = {0}, *data = NULL, *own = NULL;
	uint32_t size = 0, ctx_size = 0, v;
	char who[160], buf[120] = "";
	bool shortened = false;
	const char *note = "", *cnote = "";
	int err;

	if (!ctx)
		return fail(k, -EINVAL, "the counterexample has no context");
	if (pkt && x->pkt >= pkt->base && x->pkt_end >= x->pkt &&
	    x->pkt_end <= pkt->base + pkt->size) {
		size = (uint32_t)(x->pkt_end - x->pkt);
		data = pkt->bytes + (x->pkt - pkt->base);
	}
	if (type == BPF_PROG_TYPE_XDP) {
		if (size < ETH_HLEN_MIN && pad(&data, &size, &own, buf, sizeof(buf)))
			return fail(k, -ENOMEM, "out of memory");
		note = buf;
		if (get_u32(ctx, XDP_INGRESS_IFINDEX) || get_u32(ctx, XDP_RX_QUEUE_INDEX)) {
			v = size;
			memcpy(ctxb + 4, &v, 4);             /* data_end */
			v = get_u32(ctx, XDP_INGRESS_IFINDEX);
			memcpy(ctxb + XDP_INGRESS_IFINDEX, &v, 4);
			v = get_u32(ctx, XDP_RX_QUEUE_INDEX);
			memcpy(ctxb + XDP_RX_QUEUE_INDEX, &v, 4);
			ctx_size = XDP_MD_SIZE;
		}
	} else {
		if (size < ETH_HLEN_MIN && get_u32(ctx, SKB_LEN) > size) {
			size = skb_packet(x, ctx, &own, &shortened);
			if (!size)
				return fail(k, -ENOMEM, "out of memory");
			data = own;
			if (shortened)
				snprintf(buf, sizeof(buf), " (packet: %u bytes from bpf_skb_load_bytes; ctx.len %u is too long for test_run)",
					 size, get_u32(ctx, SKB_LEN));
			else
				snprintf(buf, sizeof(buf), " (packet: ctx.len bytes from bpf_skb_load_bytes)");
			note = buf;
		} else if (size < ETH_HLEN_MIN) {
			if (pad(&data, &size, &own, buf, sizeof(buf)))
				return fail(k, -ENOMEM, "out of memory");
			note = buf;
		}
		memcpy(ctxb + SKB_MARK, ctx->bytes + SKB_MARK, 4);
		memcpy(ctxb + SKB_PRIORITY, ctx->bytes + SKB_PRIORITY, 4);
		memcpy(ctxb + SKB_INGRESS_IFINDEX, ctx->bytes + SKB_INGRESS_IFINDEX, 4);
		if (get_u32(ctx, SKB_IFINDEX) <= 1)
			memcpy(ctxb + SKB_IFINDEX, ctx->bytes + SKB_IFINDEX, 4);
		memcpy(ctxb + SKB_CB, ctx->bytes + SKB_CB, SKB_CB_SIZE);
		ctx_size = SKB_CTX_SIZE;
	}
	{
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = data, .data_size_in = size,
			    .ctx_in = ctx_size ? ctxb : NULL, .ctx_size_in = ctx_size, .repeat = 1);

		err = bpf_prog_test_run_opts(fd, &t);
		if (err && ctx_size && (errno == EINVAL || errno == ENODEV)) {
			t.ctx_in = NULL;
			t.ctx_size_in = 0;
			cnote = type == BPF_PROG_TYPE_XDP ?
				" (the kernel refused the context: run without ctx_in)" :
				" (the kernel refused the __sk_buff fields: run without ctx_in)";
			err = bpf_prog_test_run_opts(fd, &t);
		}
		if (err) {
			err = -errno;
			free(own);
			return fail(k, err, "BPF_PROG_TEST_RUN failed on a %u-byte packet: %s", size,
				    strerror(-err));
		}
		own_results(x, own != NULL, k->redirects, who, sizeof(who));
		free(own);
		*reproduced = t.retval == (uint32_t)expect_r0;
		if (*reproduced)
			snprintf(k->msg, k->len, "reproduced: retval %u (the interpreter's r0 = %u)%s%s%s%s",
				 t.retval, (uint32_t)expect_r0, note, cnote,
				 who[0] ? "; results the kernel chose itself: " : "", who);
		else
			snprintf(k->msg, k->len, "not reproduced: retval %u, the interpreter's r0 = %u%s%s%s%s",
				 t.retval, (uint32_t)expect_r0, note, cnote,
				 who[0] ? "; results the kernel chose itself: " : "", who);
	}
	return 0;
}

/* Open and load the object: only PROG_NAME, or (ALL) every program libbpf
 * would load. *PROG: the program. */
static int open_load(struct kr *k, const char *name, bool all, struct bpf_program **prog)
{
	struct bpf_program *p;
	enum bpf_prog_type type;
	int err;

	k->obj = bpf_object__open_file(k->l->o->path, NULL);
	if (!k->obj) {
		err = -errno;
		return fail(k, err, "libbpf cannot open %s: %s", k->l->o->path, strerror(-err));
	}
	*prog = bpf_object__find_program_by_name(k->obj, name);
	if (!*prog)
		return fail(k, -ENOENT, "libbpf has no program %s", name);
	type = bpf_program__type(*prog);
	if (type != BPF_PROG_TYPE_XDP && type != BPF_PROG_TYPE_SCHED_CLS &&
	    type != BPF_PROG_TYPE_SCHED_ACT)
		return fail(k, -EOPNOTSUPP, "not supported for %s programs (only xdp and tc)",
			    mon_prog_type_name(type));
	if (!all) {
		bpf_object__for_each_program(p, k->obj)
			bpf_program__set_autoload(p, p == *prog);
	} else {
		bpf_program__set_autoload(*prog, true);
	}
	err = set_rodata(k);
	if (err)
		return err;
	err = bpf_object__load(k->obj);
	if (err == -EPERM || err == -ENOSYS || err == -EACCES)
		return fail(k, err, "not available: bpf(): %s (needs root or CAP_BPF)",
			    strerror(-err));
	if (err)
		return fail(k, err, "the kernel did not load %s: %s", name, strerror(-err));
	return 0;
}

int kernel_replay(const struct loaded *l, const struct cex *x, uint64_t expect_r0,
		  bool *reproduced, char *msg, size_t len)
{
	const struct obj_func *f = &l->o->funcs[x->func];
	struct kr k = { .l = l, .x = x, .msg = msg, .len = len };
	struct bpf_program *prog;
	bool xsk = false;
	int err;

	*reproduced = false;
	msg[0] = 0;
	if (f->prog_type != BPF_PROG_TYPE_XDP && f->prog_type != BPF_PROG_TYPE_SCHED_CLS &&
	    f->prog_type != BPF_PROG_TYPE_SCHED_ACT)
		return fail(&k, -EOPNOTSUPP, "not supported for %s programs (only xdp and tc)",
			    mon_prog_type_name(f->prog_type));
	k.ncpus = libbpf_num_possible_cpus();
	if (k.ncpus <= 0)
		k.ncpus = 1;
	err = open_load(&k, f->name, false, &prog);
	if (err && err != -EOPNOTSUPP && err != -EPERM && err != -ENOSYS && err != -EACCES) {
		/* a map initialised with programs (a prog array's .values)
		 * needs them loaded too: try as libbpf would load the object */
		bpf_object__close(k.obj);
		err = open_load(&k, f->name, true, &prog);
	}
	if (err)
		goto out;
	err = fill_maps(&k);
	if (!err && f->prog_type == BPF_PROG_TYPE_XDP) {
		err = fill_redirects(&k, &xsk);
		k.redirects = !xsk;
	}
	if (err)
		goto out;
	err = run(&k, bpf_program__fd(prog), bpf_program__type(prog), expect_r0, reproduced);
	if (!err && xsk && !*reproduced) {
		size_t n = strlen(msg);

		snprintf(msg + n, len - n, " (an XSKMAP entry needs an AF_XDP socket: the run has none)");
	}
out:
	bpf_object__close(k.obj);
	return err;
}
