/* kload.c - the kernel verifier's load time of an object, for the benchmark.
 *
 * kload OBJECT [REPS]: bpf_object__open_file (not timed), then
 * bpf_object__load timed with CLOCK_MONOTONIC (map creation, BTF load and
 * BPF_PROG_LOAD of every program: the verifier), then close; REPS times
 * (default 5). Prints one line:
 *   kload: ok median=S min=S reps=N
 *   kload: refused: ERROR (the verifier: ITS LAST LOG LINE)  (exit 1: the
 *     kernel rejects it; the log comes from a second load with log level 1)
 *   kload: skipped: bpf() not available  (exit 77)
 *
 * kload --process OBJECT: one open + load + close and exit (0: loaded,
 * 1: refused or unreadable): the benchmark times this whole process, the
 * kernel's side of the process-vs-process comparison (as `bpftool prog
 * loadall` would do it, without pinning). A load prints one line,
 *   kload: ok inproc=S
 * S the time from main's start to the object's close (CLOCK_MONOTONIC):
 * the kernel's side of the in-process comparison, measured as the
 * checker's --stats total is (from its main's start, in a fresh process,
 * the object read and every program loaded once). Linked as bpf-invcheck
 * is (tests/bench/meson.build): static where it is, a PIE where it is one.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int quiet(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l;
	(void)fmt;
	(void)ap;
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Can this process load a program at all? (r0 = 0; exit) */
static bool bpf_works(void)
{
	struct bpf_insn code[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", code, 2, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Why the kernel refused PATH: the load again with the verifier's log, its
 * last line before the statistics ("verification time", "processed"). */
static void refusal(const char *path, char *why, size_t len)
{
	size_t size = 64u << 20;
	char *log = calloc(size, 1), *line, *save, *last = NULL;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = log, .kernel_log_size = size,
		    .kernel_log_level = 1);
	struct bpf_object *o;

	*why = 0;
	if (!log)
		return;
	o = bpf_object__open_file(path, &oo);
	if (o) {
		bpf_object__load(o);
		bpf_object__close(o);
	}
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "verification time", 17) || !strncmp(line, "processed ", 10))
			break;
		if (line[0] != ' ' && line[0] != '\t')
			last = line;
	}
	/* only a log that reached the verifier's statistics names its reason */
	if (last && line)
		snprintf(why, len, " (the verifier: %s)", last);
	free(log);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* kload --process OBJECT */
static int load_once(const char *path)
{
	struct bpf_object *o = bpf_object__open_file(path, NULL);
	int err;

	if (!o)
		return 1;
	err = bpf_object__load(o);
	bpf_object__close(o);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	double start = now();          /* first: the in-process time's start */
	int reps = argc > 2 ? atoi(argv[2]) : 5, i, err;
	double *t;

	if (argc == 3 && !strcmp(argv[1], "--process")) {
		libbpf_set_print(quiet);
		err = load_once(argv[2]);
		if (!err)
			printf("kload: ok inproc=%.6f\n", now() - start);
		return err;
	}
	if (argc < 2 || reps < 1) {
		fprintf(stderr, "usage: kload OBJECT [REPS] | kload --process OBJECT\n");
		return 2;
	}
	libbpf_set_print(quiet);
	if (!bpf_works()) {
		printf("kload: skipped: bpf() not available (%s)\n", strerror(errno));
		return 77;
	}
	t = calloc((size_t)reps, sizeof(*t));
	if (!t)
		return 2;
	for (i = 0; i < reps; i++) {
		struct bpf_object *o = bpf_object__open_file(argv[1], NULL);
		double t0;

		if (!o) {
			printf("kload: refused: libbpf cannot open it: %s\n", strerror(errno));
			free(t);
			return 1;
		}
		t0 = now();
		err = bpf_object__load(o);
		t[i] = now() - t0;
		bpf_object__close(o);
		if (err) {
			char why[512];

			refusal(argv[1], why, sizeof(why));
			printf("kload: refused: %s%s\n", strerror(-err), why);
			free(t);
			return 1;
		}
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp);
	printf("kload: ok median=%.6f min=%.6f reps=%d\n", t[reps / 2], t[0], reps);
	free(t);
	return 0;
}
