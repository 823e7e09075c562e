/* test_mutate.c - damaged objects through the whole front end: load,
 * decode, CFG and SSA of every program. Each mutant either fails with
 * exactly one error (and no crash, leak or hang: CI runs this under ASan and
 * UBSan) or lifts to SSA that passes ssa_verify. Mutations are seeded, so a
 * failure names a reproducible (object, seed).
 *
 * usage: test_mutate [--count N] [--seed S] OBJECT...
 */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

struct code_range {
	size_t off, size;
};

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static unsigned char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Executable sections of a little-endian ELF64 (bounds-checked: the input
 * is one of our own examples). */
static int code_ranges(const unsigned char *d, size_t size, struct code_range *out, int max)
{
	uint64_t shoff;
	uint16_t shnum;
	int n = 0, i;

	if (size < 64)
		return 0;
	memcpy(&shoff, d + 0x28, 8);
	memcpy(&shnum, d + 0x3c, 2);
	for (i = 0; i < shnum && n < max; i++) {
		const unsigned char *sh = d + shoff + (size_t)i * 64;
		uint32_t type;
		uint64_t flags, off, sz;

		if (shoff + (size_t)(i + 1) * 64 > size)
			break;
		memcpy(&type, sh + 4, 4);
		memcpy(&flags, sh + 8, 8);
		memcpy(&off, sh + 24, 8);
		memcpy(&sz, sh + 32, 8);
		if (type == 1 && (flags & 4) && sz && off + sz <= size)
			out[n++] = (struct code_range){ off, sz };
	}
	return n;
}

/* One mutant: 0 if it behaved (one error, or a verified lift); *lifted
 * counts the programs lifted. */
static int run_one(const unsigned char *m, size_t size, const char *name,
		   unsigned long *lifted)
{
	struct arena *a = arena_new();
	struct diag d = {0};
	struct loaded l;
	struct ssa_opts o = { .loop_bound = 3 };
	int bad = 0;

	if (check_load_mem(m, size, name, a, &d, &l)) {
		bad = d.errors != 1;
	} else {
		uint32_t f;

		for (f = 0; f < l.o->nfuncs && !bad; f++) {
			struct ssa_prog *p;
			unsigned before = d.errors;

			if (!l.o->funcs[f].is_prog)
				continue;
			if (ssa_build(l.o, (int)f, l.insns, &o, a, &d, &p))
				bad = d.errors != before + 1;
			else if (!(bad = ssa_verify(p) != NULL))
				(*lifted)++;
		}
		check_unload(&l);
	}
	arena_free(a);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long count = 2000, seed = 1, i, failed = 0, passed = 0, lifted = 0;
	int first = 1, nobj, o;

	while (first < argc && !strncmp(argv[first], "--", 2)) {
		if (first + 1 < argc && !strcmp(argv[first], "--count"))
			count = strtoul(argv[first + 1], NULL, 10);
		else if (first + 1 < argc && !strcmp(argv[first], "--seed"))
			seed = strtoul(argv[first + 1], NULL, 10);
		else
			return fprintf(stderr, "usage: %s [--count N] [--seed S] OBJECT...\n", argv[0]), 2;
		first += 2;
	}
	nobj = argc - first;
	if (nobj <= 0)
		return fprintf(stderr, "usage: %s [--count N] [--seed S] OBJECT...\n", argv[0]), 2;
	for (o = 0; o < nobj; o++) {
		size_t size = 0;
		unsigned char *orig = read_all(argv[first + o], &size), *m;
		struct code_range cr[32];
		int ncr;

		if (!orig)
			return fprintf(stderr, "cannot read %s\n", argv[first + o]), 2;
		ncr = code_ranges(orig, size, cr, 32);
		m = malloc(size);
		for (i = 0; i < count / (unsigned long)nobj && ncr; i++) {
			uint64_t x = (seed << 32) ^ (i * 2654435761u) ^ ((uint64_t)o << 20) ^ 0x9e3779b97f4a7c15ull;
			int k, nflip = 1 + (int)(next(&x) % 3);

			memcpy(m, orig, size);
			for (k = 0; k < nflip; k++) {
				const struct code_range *r = &cr[next(&x) % (uint64_t)ncr];
				size_t at = r->off + next(&x) % r->size;

				if (next(&x) & 1)
					m[at] = (unsigned char)next(&x);
				else
					m[at] ^= (unsigned char)(1u << (next(&x) % 8));
			}
			if (run_one(m, size, argv[first + o], &lifted)) {
				fprintf(stderr, "FAIL: %s mutant %lu (seed %lu) did not give one error or a verified lift\n",
					argv[first + o], i, seed);
				failed++;
			} else {
				passed++;
			}
		}
		free(m);
		free(orig);
	}
	printf("mutate: %lu programs of the mutants lifted and verified\n", lifted);
	printf("mutate: %lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
