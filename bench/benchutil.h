/*
 * benchutil.h - what the benchmarks share: a monotonic clock, medians,
 * checks that abort with a clear message, temporary databases, the kernel
 * sources, opening an engine, and the RESULT / SKIP lines that
 * bench/run-benchmarks collects.
 *
 * Every function is static: each benchmark is one translation unit.
 * Include "config.h" before this header (it enables the POSIX and GNU
 * declarations under -std=c11).
 *
 * Output contract (bench/run-benchmarks parses it):
 *   RESULT <name> <value> <unit> floor=<value|n/a> ratio=<x|n/a> target=<text>
 *   SKIP <name> <reason...>
 * target is "ratio<=X", "ratio>=X", "value<=X", "value>=X" or "info".
 */
#ifndef KJIT_BENCHUTIL_H
#define KJIT_BENCHUTIL_H

#include <dirent.h>
#include <getopt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nvrtc.h>

#include "tuning_private.h"

/* ---- failing loudly ------------------------------------------------------ */

static const char *bench_prog = "bench";

static inline void bench_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static inline void bench_die(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s: error: ", bench_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A kjit call that must succeed. */
#define BENCH_KJIT(call)                                                              \
	do {                                                                          \
		kjit_status st_ = (call);                                             \
		if (st_ != KJIT_OK)                                                   \
			bench_die("%s:%d: %s failed: %s\n  detail: %s", __FILE__,     \
			          __LINE__, #call, kjit_status_str(st_), kjit_last_error()); \
	} while (0)

/* A driver call (through the kjit__cu table) that must succeed. */
#define BENCH_CU(call)                                                                \
	do {                                                                          \
		CUresult r_ = (call);                                                 \
		if (r_ != CUDA_SUCCESS)                                               \
			bench_die("%s:%d: %s failed: %s (%d)", __FILE__, __LINE__, #call, \
			          kjit__cu_error_name(r_), (int)r_);                    \
	} while (0)

/* An NVRTC call that must succeed (compile failures are handled apart,
 * so that the log can be printed). */
#define BENCH_NVRTC(call)                                                             \
	do {                                                                          \
		nvrtcResult r_ = (call);                                              \
		if (r_ != NVRTC_SUCCESS)                                              \
			bench_die("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,  \
			          nvrtcGetErrorString(r_));                           \
	} while (0)

static inline void *bench_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		bench_die("out of memory (%zu bytes)", n);
	return p;
}

static inline char *bench_strdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		bench_die("out of memory");
	return p;
}

/* ---- clocks and statistics ----------------------------------------------- */

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A numeric option of a benchmark: --name N or -letter N, N >= min. */
typedef struct bench_opt {
	const char *name;
	int letter;
	int *value;
	int min;
} bench_opt;

/* Parses argv into opts (at most 8), with --help. Returns -1 to go on,
 * else the exit status: 0 after --help, 2 on a bad option or value. */
static inline int bench_parse_options(int argc, char **argv, const bench_opt *opts, size_t n,
                                      void (*usage)(FILE *))
{
	struct option longopts[10];
	char shortopts[20];
	size_t k = 0, s = 0;
	for (size_t i = 0; i < n && i < 8; i++) {
		longopts[k++] = (struct option){ opts[i].name, required_argument, NULL, opts[i].letter };
		shortopts[s++] = (char)opts[i].letter;
		shortopts[s++] = ':';
	}
	longopts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[k] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[s++] = 'h';
	shortopts[s] = '\0';
	for (int ch; (ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1;) {
		if (ch == 'h') {
			usage(stdout);
			return 0;
		}
		size_t i = 0;
		while (i < n && opts[i].letter != ch)
			i++;
		char *end = NULL;
		long v = i < n ? strtol(optarg, &end, 10) : 0;
		if (i == n || !end || *end || v < opts[i].min || v > 1000000000L) {
			usage(stderr);
			return 2;
		}
		*opts[i].value = (int)v;
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

typedef struct bench_stats {
	double median, min, max;
	size_t n;
} bench_stats;

/* Median, min and max of v[0..n) (v is left unchanged). */
static inline bench_stats bench_stats_of(const double *v, size_t n)
{
	bench_stats s = { 0, 0, 0, n };
	if (!n)
		return s;
	double *c = bench_malloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	kjit__sort_doubles(c, n);
	s.median = kjit__median_sorted(c, n);
	s.min = c[0];
	s.max = c[n - 1];
	free(c);
	return s;
}

static inline double bench_median(const double *v, size_t n)
{
	return bench_stats_of(v, n).median;
}

/* "label: median 12.3 ms (min 11.9, max 14.0, n=15)" */
static inline bench_stats bench_print_stats(const char *label, const double *v, size_t n,
                                            const char *unit)
{
	bench_stats s = bench_stats_of(v, n);
	printf("  %-34s median %10.3f %s  (min %.3f, max %.3f, n=%zu)\n", label, s.median, unit,
	       s.min, s.max, s.n);
	return s;
}

/* ---- result lines -------------------------------------------------------- */

/* floor < 0 prints floor=n/a ratio=n/a. */
static inline void bench_result(const char *name, double value, const char *unit,
                                double floor_value, const char *target)
{
	if (floor_value > 0)
		printf("RESULT %s %.6g %s floor=%.6g ratio=%.4f target=%s\n", name, value, unit,
		       floor_value, value / floor_value, target);
	else
		printf("RESULT %s %.6g %s floor=n/a ratio=n/a target=%s\n", name, value, unit,
		       target);
	fflush(stdout);
}

/* As bench_result() with a ratio that is not value / floor. */
static inline void bench_result_ratio(const char *name, double value, const char *unit,
                                      double floor_value, double ratio, const char *target)
{
	printf("RESULT %s %.6g %s floor=%.6g ratio=%.4f target=%s\n", name, value, unit,
	       floor_value, ratio, target);
	fflush(stdout);
}

static inline void bench_skip(const char *name, const char *reason)
{
	printf("skipped: no GPU (%s)\n", reason);
	printf("SKIP %s no GPU: %s\n", name, reason);
	fflush(stdout);
}

/* ---- temporary files ------------------------------------------------------ */

#define BENCH_PATH_MAX 4096

static char bench_tmp_dir[1024];

/* Removes the temporary folder and everything in it (registered with
 * atexit by bench_tmp_path()); never called in a forked child. */
static inline void bench_tmp_cleanup(void)
{
	if (!bench_tmp_dir[0])
		return;
	DIR *d = opendir(bench_tmp_dir);
	if (d) {
		struct dirent *de;
		char path[BENCH_PATH_MAX];
		while ((de = readdir(d)) != NULL) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(path, sizeof path, "%s/%s", bench_tmp_dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(bench_tmp_dir);
	bench_tmp_dir[0] = '\0';
}

/* Writes <tmp>/<name> into out[cap], in this process's temporary folder
 * (made on first use under $TMPDIR or /tmp, removed at exit), and
 * returns out. */
static inline char *bench_tmp_path(char *out, size_t cap, const char *name)
{
	if (!bench_tmp_dir[0]) {
		const char *base = getenv("TMPDIR");
		if (!base || !*base)
			base = "/tmp";
		int n = snprintf(bench_tmp_dir, sizeof bench_tmp_dir, "%s/kjit-bench-XXXXXX", base);
		if (n < 0 || (size_t)n >= sizeof bench_tmp_dir)
			bench_die("TMPDIR is too long: %s", base);
		if (!mkdtemp(bench_tmp_dir))
			bench_die("cannot create a temporary folder under %s: %s", base,
			          strerror(errno));
		atexit(bench_tmp_cleanup);
	}
	int n = snprintf(out, cap, "%s/%s", bench_tmp_dir, name);
	if (n < 0 || (size_t)n >= cap)
		bench_die("temporary path too long: %s/%s", bench_tmp_dir, name);
	return out;
}

/* Deletes a database and its WAL and shared-memory files. */
static inline void bench_remove_db(const char *db)
{
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
	char path[BENCH_PATH_MAX + 16];
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		snprintf(path, sizeof path, "%s%s", db, suffixes[i]);
		unlink(path);
	}
}

/* Reads a whole file (text or binary) into a malloc'ed buffer with a NUL
 * after the last byte. */
static inline char *bench_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		bench_die("cannot open %s: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = bench_malloc(cap + 1);
	for (size_t n; (n = fread(buf + len, 1, cap - len, f)) > 0;) {
		len += n;
		if (len == cap) {
			cap *= 2;
			char *p = realloc(buf, cap + 1);
			if (!p)
				bench_die("out of memory reading %s", path);
			buf = p;
		}
	}
	if (ferror(f))
		bench_die("cannot read %s: %s", path, strerror(errno));
	fclose(f);
	buf[len] = '\0';
	if (size)
		*size = len;
	return buf;
}

static inline void bench_write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		bench_die("cannot write %s: %s", path, strerror(errno));
}

/* ---- kernels -------------------------------------------------------------- */

/* examples/saxpy/saxpy.cu: $KJIT_BENCH_SAXPY, else the source tree this
 * was configured from (bench/run-benchmarks sets the variable). */
static inline const char *bench_saxpy_path(void)
{
	const char *p = getenv("KJIT_BENCH_SAXPY");
	if (p && *p)
		return p;
#ifdef KJIT_BENCH_SRCDIR
	static char path[4096];
	snprintf(path, sizeof path, "%s/examples/saxpy/saxpy.cu", KJIT_BENCH_SRCDIR);
	if (access(path, R_OK) == 0)
		return path;
#endif
	bench_die("cannot find examples/saxpy/saxpy.cu: set KJIT_BENCH_SAXPY to its path "
	          "(bench/run-benchmarks does)");
}

/* The names of saxpy's tunable parameters (2 of them). */
static inline const char *const *bench_saxpy_params(void)
{
	static const char *const names[] = { "BLOCK_SIZE", "ITEMS_PER_THREAD" };
	return names;
}

/* A kernel with nothing to do, for launch overhead and warm-ups. */
static inline const char *bench_empty_source(void)
{
	return "extern \"C\" __global__ void empty(int x)\n"
	       "{\n"
	       "\t(void)x;\n"
	       "}\n";
}

/* ---- engines -------------------------------------------------------------- */

/*
 * Opens an engine on db, with the GPU when there is one. arch NULL:
 * $KJIT_ARCH, else the device's; without a GPU one of them is needed, and
 * the library's message says so. no_gpu: never touch the driver. Prints
 * nothing.
 */
static inline kjit_engine *bench_engine_open(const char *db, const char *arch, int no_gpu)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = arch;
	if (no_gpu)
		o.flags |= KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	if (st != KJIT_OK)
		bench_die("kjit_engine_open(%s) failed: %s\n  detail: %s", db, kjit_status_str(st),
		          kjit_last_error());
	return e;
}

static inline void bench_print_engine(kjit_engine *e)
{
	if (kjit_engine_has_gpu(e))
		printf("  engine: GPU %s, arch %s\n", kjit_engine_device_name(e),
		       kjit_engine_arch(e));
	else
		printf("  engine: no GPU (%s), arch %s\n", kjit_engine_gpu_reason(e),
		       kjit_engine_arch(e));
}

/*
 * For a benchmark that times compiles: makes each one a compile. In a
 * process that sees a GPU, NVRTC and nvJitLink reuse the code generation of
 * an earlier compile of the same code from the driver's compute cache
 * (~/.nv/ComputeCache), which a salt in a define or a comment does not
 * change; on one machine a whole-program compile took 15-21 ms with it and
 * 53-54 ms without. CUDA_CACHE_DISABLE=0 in the environment keeps the cache,
 * to show what it gives. Call before anything opens the driver.
 */
static inline void bench_compiles_uncached(void)
{
	if (setenv("CUDA_CACHE_DISABLE", "1", 0) != 0)
		bench_die("setenv(CUDA_CACHE_DISABLE): %s", strerror(errno));
	printf("  the driver's compute cache: %s (CUDA_CACHE_DISABLE=%s)\n",
	       strcmp(getenv("CUDA_CACHE_DISABLE"), "1") == 0 ? "off, every compile is new"
	                                                      : "as the environment says",
	       getenv("CUDA_CACHE_DISABLE"));
}

/* ---- bare NVRTC (the floor of every compile) ------------------------------ */

/*
 * Compiles source with exactly opts and nothing else kjit adds (no name
 * expression, no cache): create, compile, fetch the cubin, destroy.
 * Returns the wall time in ms; the cubin is discarded.
 */
static inline double bench_bare_nvrtc(const char *source, const char *program,
                               const char *const *opts, int n_opts)
{
	uint64_t t0 = bench_now_ns();
	nvrtcProgram prog;
	BENCH_NVRTC(nvrtcCreateProgram(&prog, source, program, 0, NULL, NULL));
	nvrtcResult r = nvrtcCompileProgram(prog, n_opts, opts);
	if (r != NVRTC_SUCCESS) {
		size_t n = 0;
		char *log = NULL;
		if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
			log = bench_malloc(n);
			if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
				log[0] = '\0';
		}
		bench_die("bare nvrtcCompileProgram of %s failed: %s\n%s", program,
		          nvrtcGetErrorString(r), log ? log : "");
	}
	size_t size = 0;
	BENCH_NVRTC(nvrtcGetCUBINSize(prog, &size));
	if (size == 0)
		bench_die("bare NVRTC produced no cubin for %s", program);
	char *cubin = bench_malloc(size);
	BENCH_NVRTC(nvrtcGetCUBIN(prog, cubin));
	BENCH_NVRTC(nvrtcDestroyProgram(&prog));
	uint64_t t1 = bench_now_ns();
	free(cubin);
	return (double)(t1 - t0) * 1e-6;
}

/*
 * Splits a canonical option list (one option per line, as
 * kjit_variant_info.options) into opts[], pointing into a copy that the
 * caller frees. Returns the number of options.
 */
static inline int bench_split_options(const char *canon, char **copy, const char **opts,
                                      int max)
{
	*copy = bench_strdup(canon);
	int n = 0;
	for (char *s = *copy, *nl; s && *s; s = nl) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = '\0';
		if (n == max)
			bench_die("more than %d options in '%s'", max, canon);
		opts[n++] = s;
	}
	return n;
}

#endif /* KJIT_BENCHUTIL_H */
