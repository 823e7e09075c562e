/* test_sha256.c - the --cache key's hash against FIPS 180-4 / hashlib
 * digests, fed whole and in odd-sized pieces (the buffering paths). */
#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

static void expect(const char *what, const void *msg, size_t n, size_t piece, const char *hex)
{
	struct sha256 h;
	uint8_t d[32];
	char got[65];
	size_t i;

	sha256_init(&h);
	for (i = 0; i < n; i += piece)
		sha256_update(&h, (const char *)msg + i, n - i < piece ? n - i : piece);
	sha256_final(&h, d);
	for (i = 0; i < 32; i++)
		snprintf(got + 2 * i, 3, "%02x", d[i]);
	if (strcmp(got, hex)) {
		printf("FAIL: %s (pieces of %zu): %s, expected %s\n", what, piece, got, hex);
		fails++;
	}
}

int main(void)
{
	static const size_t pieces[] = { 1, 7, 63, 64, 65, 1000000 };
	char *a = malloc(1000000);
	unsigned char seq[768];
	size_t i;

	if (!a)
		return 2;
	memset(a, 'a', 1000000);
	for (i = 0; i < sizeof(seq); i++)
		seq[i] = (unsigned char)i;
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		expect("empty", "", 0, pieces[i],
		       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		expect("abc", "abc", 3, pieces[i],
		       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		expect("56 bytes", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, pieces[i],
		       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
		expect("a million a", a, 1000000, pieces[i],
		       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		expect("0..255 x3", seq, sizeof(seq), pieces[i],
		       "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363");
	}
	free(a);
	printf("sha256: %d failed\n", fails);
	return fails != 0;
}
