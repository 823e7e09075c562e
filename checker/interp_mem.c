/* interp_mem.c - the interpreter's regions (contract: interp.h): their
 * table (added, dropped, the stacks set up by interp_init, freed), the
 * region of an address for an environment (interp_region_at) and an
 * access's FAULT with its message. The accesses themselves, the run's
 * and interp_mem's, and the tracking of their bytes (interp_track) are
 * interp.c's. */
#include "interp_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- regions ---------------------------------------------------------- */

int interp_nregions(const struct interp *ip)
{
	return (int)ip->regions.len;
}

static int region_any(const struct interp *ip, uint64_t addr, uint32_t size,
		      bool need_live)
{
	const struct interp_region *r = ip->regions.data;
	size_t i;

	for (i = 0; i < ip->regions.len; i++)
		if ((r[i].live || !need_live) && contains(&r[i], addr, size))
			return (int)i;
	return -1;
}

/* Regions do not overlap: a range of SIZE > 0 bytes is in one at most,
 * so the region an access found last (hit) and the current frame's stack
 * are tried first (a helper's pointers mostly point into one of them),
 * then each in order as before. */
int interp_region_at(const struct interp *ip, uint64_t addr, uint32_t size)
{
	const struct interp_region *r = ip->regions.data;
	size_t f = ip->depth - 1, n = ip->regions.len;

	if (size && (size_t)ip->hit < n && r[ip->hit].live && contains(&r[ip->hit], addr, size))
		return ip->hit;
	if (size && f < n && r[f].live && contains(&r[f], addr, size))
		return (int)f;
	return region_any(ip, addr, size, true);
}

/* A region that overlaps none (interp_add_region checked, or a stack in a
 * window of its own: interp_init), as region N = ip->regions.len */
static int push_region(struct interp *ip, enum interp_mem_kind kind, const char *name,
		       uint64_t base, uint32_t size, void *bytes, bool writable)
{
	size_t n = ip->regions.len;
	struct interp_region *r = buf_push(&ip->regions, sizeof(*r));

	r->kind = kind;
	r->base = base;
	r->size = size;
	r->writable = writable;
	r->live = true;
	r->name = name ? name : interp_mem_kind_name(kind);
	r->owned = !bytes;
	r->seen = NULL;
	r->seen_off = r->seen_len = 0;
	r->bytes = bytes ? bytes : calloc(1, size);
	if (!r->bytes)
		abort(); /* out of memory: tier 3 (base.h) */
	return (int)n;
}

int interp_add_region(struct interp *ip, enum interp_mem_kind kind,
		      const char *name, uint64_t base, uint32_t size,
		      void *bytes, bool writable)
{
	const struct interp_region *old = ip->regions.data;
	size_t i, n = ip->regions.len;

	if (size == 0 || size > INTERP_REGION_MAX_SIZE)
		return -EINVAL;
	if (!base)
		base = INTERP_BASE(kind, n);
	if (base + size < base)
		return -EINVAL;
	/* regions 0..7 are the stacks (interp_init), at INTERP_BASE(STACK,
	 * 0..7): a region outside those windows overlaps none of them (the
	 * search adds its context, packet and globals every try, past 8
	 * stacks each time) */
	i = n >= INTERP_MAX_FRAMES &&
	    (base >= INTERP_BASE(INTERP_MEM_STACK, INTERP_MAX_FRAMES) ||
	     base + size <= INTERP_BASE(INTERP_MEM_STACK, 0)) ? INTERP_MAX_FRAMES : 0;
	for (; i < n; i++)
		if (base < old[i].base + old[i].size &&
		    old[i].base < base + size)
			return -EINVAL;
	return push_region(ip, kind, name, base, size, bytes, writable);
}

const char *interp_mem_kind_name(enum interp_mem_kind k)
{
	switch (k) {
	case INTERP_MEM_STACK: return "stack";
	case INTERP_MEM_CTX: return "ctx";
	case INTERP_MEM_PACKET: return "packet";
	case INTERP_MEM_MAP_VALUE: return "map value";
	case INTERP_MEM_GLOBAL: return "global";
	case INTERP_MEM_RINGBUF: return "ringbuf";
	case INTERP_MEM_KERNEL: return "kernel object";
	case INTERP_MEM_USER: return "user";
	}
	return "?";
}

/* ---- faults ----------------------------------------------------------- */

/* The region nearest to ADDR (within its 4 GiB window), for messages. */
static const struct interp_region *nearest(const struct interp *ip,
					   uint64_t addr)
{
	const struct interp_region *r = ip->regions.data, *best = NULL;
	uint64_t bestd = 1ull << 32, dist;
	size_t i;

	for (i = 0; i < ip->regions.len; i++) {
		dist = addr < r[i].base ? r[i].base - addr
					: addr - (r[i].base + r[i].size);
		if (addr >= r[i].base && addr < r[i].base + r[i].size)
			dist = 0;
		if (dist < bestd) {
			bestd = dist;
			best = &r[i];
		}
	}
	return best;
}

uint8_t *interp_access_fault(struct interp *ip, const struct interp_region *r, uint64_t addr,
			     uint32_t size, const char *what)
{
	unsigned long long a = addr;

	ip->res.addr = addr;
	ip->res.size = size;
	if (r && !r->live)
		interp_error(ip, INTERP_FAULT, "slot %u: %s of %u bytes at 0x%llx: "
			     "region '%s' is dead (a returned frame)", ip->pc, what,
			     size, a, r->name);
	else if (r)
		interp_error(ip, INTERP_FAULT, "slot %u: %s of %u bytes at 0x%llx: "
			     "region '%s' is read-only", ip->pc, what, size, a,
			     r->name);
	else if ((r = nearest(ip, addr)))
		interp_error(ip, INTERP_FAULT, "slot %u: %s of %u bytes at 0x%llx: "
			     "outside region '%s' (offset %lld, size %u)", ip->pc,
			     what, size, a, r->name, (long long)(addr - r->base),
			     r->size);
	else
		interp_error(ip, INTERP_FAULT, "slot %u: %s of %u bytes at 0x%llx: "
			     "not in any region", ip->pc, what, size, a);
	return NULL;
}

/* ---- setup ------------------------------------------------------------ */

int interp_init(struct interp *ip, struct insn *const *secs,
		const uint32_t *nslots, int nsecs, const struct interp_env *env)
{
	unsigned f;

	if (!ip || nsecs < 0 || (nsecs && (!secs || !nslots)))
		return -EINVAL;
	memset(ip, 0, sizeof(*ip));
	ip->secs = secs;
	ip->nslots = nslots;
	ip->nsecs = nsecs;
	ip->packet = -1;
	if (env)
		ip->env = *env;
	/* the stacks, each in its window (INTERP_BASE): no overlap to look for */
	for (f = 0; f < INTERP_MAX_FRAMES; f++)
		push_region(ip, INTERP_MEM_STACK, "stack", INTERP_BASE(INTERP_MEM_STACK, f),
			    ISA_STACK_SIZE, ip->stacks[f], true);
	return 0;
}

void interp_drop_regions(struct interp *ip, int n)
{
	struct interp_region *r = ip->regions.data;
	size_t i;

	if (n < INTERP_MAX_FRAMES || (size_t)n >= ip->regions.len)
		return;
	for (i = (size_t)n; i < ip->regions.len; i++)
		if (r[i].owned)
			free(r[i].bytes);
	ip->regions.len = (size_t)n;
}

void interp_fini(struct interp *ip)
{
	struct interp_region *r = ip->regions.data;
	size_t i;

	for (i = 0; i < ip->regions.len; i++)
		if (r[i].owned)
			free(r[i].bytes);
	buf_free(&ip->regions);
}
