/* test_specmut.c - damaged specs through parse and resolution: each
 * mutant of a shipped spec either resolves or fails with exactly one error
 * diagnostic (with a position), and never crashes, leaks or hangs (CI runs
 * this under ASan and UBSan). Mutations are seeded: a failure names a
 * reproducible (spec, seed).
 *
 * usage: test_specmut SOURCE_ROOT [--count N] [--seed S] (OBJECT SPEC)...
 * A SPEC path is relative to SOURCE_ROOT; imports resolve from
 * SOURCE_ROOT/invariants.
 */
#include "monitor.h"
#include "pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Pieces of the language a mutation may splice in. */
static const char *const pieces[] = {
	"{", "}", "(", ")", ";", ":", ",", ".", "==", "=>", "in", "[", "]", "&&", "!",
	"assert", "assume", "if", "else", "on", "call", "return", "entry", "exit",
	"state", "invariant", "program", "check", "bound", "insns", "<=", "import",
	"const", "ret", "arg9", "pkt", "ctx.", "global.", "u8(", "be16(", "called(",
	"\"", "#", "0x", "99999999999999999999", "-", "(s32)", "bpf_nope", "*",
	"struct_ops", "section", "u64", "bool", "true", "\n", "\t", "\xff",
};

static void mutate(char *out, size_t *n, const char *in, size_t len, uint64_t *rng)
{
	size_t at = len ? next(rng) % len : 0, k;
	const char *p;

	switch (next(rng) % 4) {
	case 0: /* flip a byte */
		memcpy(out, in, len);
		out[at] = (char)(next(rng) & 0x7f);
		*n = len;
		break;
	case 1: /* delete a run */
		k = 1 + next(rng) % 16;
		if (at + k > len)
			k = len - at;
		memcpy(out, in, at);
		memcpy(out + at, in + at + k, len - at - k);
		*n = len - k;
		break;
	default: /* splice in a piece */
		p = pieces[next(rng) % (sizeof(pieces) / sizeof(pieces[0]))];
		k = strlen(p);
		memcpy(out, in, at);
		memcpy(out + at, p, k);
		memcpy(out + at + k, in + at, len - at);
		*n = len + k;
		break;
	}
}

struct count {
	unsigned errors, with_pos;
};

static void sink(void *arg, const struct diag_msg *m)
{
	struct count *c = arg;

	if (m->level == DIAG_ERROR) {
		c->errors++;
		if (m->line)
			c->with_pos++;
	}
}

int main(int argc, char **argv)
{
	unsigned long count = 300, seed = 1, fails = 0, ok = 0, bad = 0, i;
	const char *root;
	int a;

	if (argc < 2)
		return 2;
	root = argv[1];
	for (a = 2; a + 1 < argc && argv[a][0] == '-'; a += 2) {
		if (!strcmp(argv[a], "--count"))
			count = strtoul(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--seed"))
			seed = strtoul(argv[a + 1], NULL, 10);
	}
	for (; a + 1 < argc; a += 2) {
		char packs[4096], path[4096], tmp[] = "/tmp/specmut.XXXXXX";
		const char *dirs[1] = { packs };
		struct resolve_opts ro = { .pack_dirs = dirs, .npack_dirs = 1 };
		struct arena *oa = arena_new();
		struct diag od = {0};
		struct loaded l;
		size_t len, n;
		char *text, *buf;
		uint64_t rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)a;
		int fd;

		snprintf(packs, sizeof(packs), "%s/invariants", root);
		snprintf(path, sizeof(path), "%s/%s", root, argv[a + 1]);
		if (check_load(argv[a], oa, &od, &l)) {
			fprintf(stderr, "cannot load %s\n", argv[a]);
			return 1;
		}
		text = read_all(path, &len);
		if (!text) {
			fprintf(stderr, "cannot read %s\n", path);
			return 1;
		}
		buf = malloc(len + 256);
		fd = mkstemp(tmp);
		if (!buf || fd < 0)
			return 1;
		for (i = 0; i < count; i++) {
			struct count c = {0};
			struct diag d = { .sink = sink, .arg = &c };
			struct arena *ar = arena_new();
			struct mon_set *set;
			FILE *f;
			int err;

			mutate(buf, &n, text, len, &rng);
			f = fopen(tmp, "wb");
			if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
				return 1;
			/* a mutant importing itself by path would read tmp: fine */
			err = spec_resolve_file(tmp, l.o, &ro, ar, &d, &set);
			if (err == 0 && c.errors == 0) {
				ok++;
			} else if (err == -EINVAL && c.errors == 1 && c.with_pos == 1) {
				bad++;
			} else if (err == -EINVAL && c.errors == 1) {
				bad++;  /* a file-level error (unreadable import) has no position */
			} else {
				printf("FAIL %s seed %lu mutant %lu: returned %d with %u errors\n",
				       argv[a + 1], seed, i, err, c.errors);
				fails++;
			}
			arena_free(ar);
		}
		unlink(tmp);
		close(fd);
		free(buf);
		free(text);
		check_unload(&l);
		arena_free(oa);
	}
	printf("specmut: %lu mutants resolved, %lu rejected with one error, %lu failures\n",
	       ok, bad, fails);
	return fails ? 1 : 0;
}
