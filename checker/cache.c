/* cache.c - --cache DIR (contract in cache.h). */
#include "cache.h"
#include "checker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <z3_version.h>

#define MAGIC "bpf-invcheck-cache 1\n"

int cache_open(struct cache *c, const char *dir, struct diag *d)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->dir = dir;
	if (mkdir(dir, 0777) && errno != EEXIST)
		return diag_fail(d, dir, "cannot create the cache directory: %s", strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return diag_fail(d, dir, "the cache is not a directory");
	if (access(dir, W_OK | X_OK))
		return diag_fail(d, dir, "cannot write to the cache directory: %s", strerror(errno));
	return 0;
}

/* A field of the key: its length, then its bytes (so fields cannot run
 * into each other). */
static void field(struct cache *c, const void *p, size_t n)
{
	uint64_t len = n;

	sha256_update(&c->h, &len, sizeof(len));
	sha256_update(&c->h, p, n);
}

static void str(struct cache *c, const char *s)
{
	field(c, s, strlen(s));
}

static void checker_id(struct cache *c)
{
	struct utsname u;
	struct stat st;
	char buf[256];

	str(c, "bpf-invcheck " INVCHECK_VERSION);
	if (stat("/proc/self/exe", &st) == 0) {
		snprintf(buf, sizeof(buf), "exe %lld %lld.%09ld %llu", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (unsigned long long)st.st_ino);
		str(c, buf);
	}
	/* the solver: its version at build time and the library file's
	 * identity, without opening it (z3lazy.h: a hit must not pay for it) */
	snprintf(buf, sizeof(buf), "z3 %s %s", Z3_FULL_VERSION, Z3LAZY_SONAME);
	str(c, buf);
	if (stat(Z3LAZY_PATH, &st) == 0) {
		snprintf(buf, sizeof(buf), "z3 file %lld %lld.%09ld %llu", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (unsigned long long)st.st_ino);
		str(c, buf);
	}
	if (uname(&u) == 0)
		str(c, u.release);
}

static bool is_cache_opt(const char *a, bool *takes_next)
{
	*takes_next = !strcmp(a, "--cache");
	return *takes_next || !strncmp(a, "--cache=", 8) || !strcmp(a, "--stats");
}

/* The bytes of the file at PATH into the key. */
static int hash_file(struct cache *c, const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!f)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sha256_update(&c->h, buf, n);
	n = ferror(f);
	fclose(f);
	return n ? -EIO : 0;
}

int cache_begin(struct cache *c, int argc, char *const *argv, const char *object)
{
	bool next;
	int i;

	sha256_init(&c->h);
	str(c, MAGIC);
	checker_id(c);
	for (i = 1; i < argc; i++) {
		if (is_cache_opt(argv[i], &next)) {
			i += next;
			continue;
		}
		str(c, argv[i]);
	}
	str(c, "object");
	return hash_file(c, object);
}

int cache_file(struct cache *c, const char *path)
{
	str(c, "file");
	str(c, path);
	return hash_file(c, path);
}

void cache_text(void *arg, const char *path, const char *text, size_t len)
{
	struct cache *c = arg;

	str(c, "spec");
	str(c, path);
	field(c, text, len);
}

void cache_finish(struct cache *c)
{
	uint8_t d[32];
	unsigned i;

	sha256_final(&c->h, d);
	for (i = 0; i < 32; i++)
		snprintf(c->key + 2 * i, 3, "%02x", d[i]);
}

int cache_lookup(const struct cache *c, FILE *out, int *code)
{
	char path[4096], line[64], l2[64], l3[64];
	unsigned long long len;
	char end;
	int hit = 0;
	char *data;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->dir, c->key);
	f = fopen(path, "rb");
	if (!f)
		return 0;
	/* line by line: the stored output may start with white space */
	if (!fgets(line, sizeof(line), f) || strcmp(line, MAGIC) ||
	    !fgets(l2, sizeof(l2), f) || sscanf(l2, "exit %d%c", code, &end) != 2 || end != '\n' ||
	    !fgets(l3, sizeof(l3), f) || sscanf(l3, "bytes %llu%c", &len, &end) != 2 ||
	    end != '\n' || len > (1ull << 32)) {
		fclose(f);
		return 0;
	}
	data = malloc(len ? len : 1);
	if (data && fread(data, 1, len, f) == len && fgetc(f) == EOF) {
		fwrite(data, 1, len, out);
		hit = 1;
	}
	free(data);
	fclose(f);
	return hit;
}

bool cache_storable(const struct check_result *r, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (r[i].verdict == CHECK_ERROR)
			return false;
		/* only what the program decides: a construct not modelled, a
		 * loop bound reached; not a solver that gave up, a timeout, a
		 * deadline or a memory cap (the machine decided those) */
		if (r[i].verdict == CHECK_UNKNOWN && strncmp(r[i].reason, "not modelled: ", 14) &&
		    strncmp(r[i].reason, "loop bound ", 11))
			return false;
	}
	return true;
}

int cache_store(const struct cache *c, const char *out, size_t len, int code)
{
	char tmp[4096], path[4096];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", c->dir, c->key);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%ld", c->dir, c->key, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return -errno;
	fprintf(f, MAGIC "exit %d\nbytes %zu\n", code, len);
	fwrite(out, 1, len, f);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
