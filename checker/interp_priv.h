/* interp_priv.h - what interp.c (the run: its accesses, calls and
 * instructions) and interp_mem.c (the regions: their table and setup, an
 * address's region for an environment, an access's fault) share.
 * Contract: interp.h. */
#ifndef INVCHECK_INTERP_PRIV_H
#define INVCHECK_INTERP_PRIV_H

#include "interp.h"

/* [ADDR, ADDR + SIZE) lies in R */
static inline bool contains(const struct interp_region *r, uint64_t addr,
			    uint32_t size)
{
	return addr >= r->base && addr - r->base <= r->size &&
	       size <= r->size - (addr - r->base);
}

/* interp_mem.c: an access by the current instruction (WHAT: "load",
 * "store", "atomic") of SIZE bytes at ADDR to region R (find's: NULL when
 * none contains it) is a FAULT, its message naming R or the region
 * nearest; NULL */
uint8_t *interp_access_fault(struct interp *ip, const struct interp_region *r, uint64_t addr,
			     uint32_t size, const char *what);
#endif
