/* sha256.h - SHA-256 (FIPS 180-4), for the --cache key. */
#ifndef INVCHECK_SHA256_H
#define INVCHECK_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t s[8];
	uint64_t len;             /* bytes hashed */
	uint8_t buf[64];
	unsigned nbuf;
};

void sha256_init(struct sha256 *h);
void sha256_update(struct sha256 *h, const void *data, size_t n);
void sha256_final(struct sha256 *h, uint8_t out[32]);

#endif
