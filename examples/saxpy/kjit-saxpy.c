/*
 * kjit-saxpy - compiles every variant of examples/saxpy/saxpy.cu (block
 * sizes 64-1024 x items per thread 1-8) into the kjit database, reports
 * compile latency and cache hits and, with a GPU, launches each variant,
 * checks its result and prints the fastest. --check-gpu says whether kjit
 * finds a GPU here (examples/saxpy/main-job asks it).
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kjit.h>

#ifndef SAXPY_SOURCE
#define SAXPY_SOURCE "saxpy.cu"
#endif

static const int block_sizes[] = { 64, 128, 256, 512, 1024 };
#define N_BLOCKS (sizeof block_sizes / sizeof block_sizes[0])
#define N_ITEMS 8
#define N_VARIANTS (N_BLOCKS * N_ITEMS)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: kjit-saxpy [options]\n"
	        "Compiles the 40 saxpy variants (BLOCK_SIZE 64..1024 x ITEMS_PER_THREAD 1..8)\n"
	        "into the kjit database, then launches, checks and times each on the GPU.\n\n"
	        "  -a, --arch sm_NN     target arch (default: $KJIT_ARCH, else the GPU's; one\n"
	        "                       of them is needed without a GPU)\n"
	        "  -d, --db PATH        database (default: $KJIT_DB, else ~/.cache/kjit/kjit.db)\n"
	        "  -n, --size N         elements (default 67108864 = 2^26)\n"
	        "  -r, --repeat R       timed launches per variant (default 20)\n"
	        "  -s, --source FILE    kernel source (default %s)\n"
	        "  -j, --threads P      compile threads (default: all CPUs)\n"
	        "  -g, --check-gpu      print the GPU kjit finds and exit 0, or why there is\n"
	        "                       none and exit 1; compiles nothing\n"
	        "  -h, --help           this text\n"
	        "  -V, --version        kjit version\n\n"
	        "Exit status: 0 success, 1 a failure (printed), 2 bad usage.\n",
	        SAXPY_SOURCE);
}

/* --check-gpu: an engine on no database, for the device's own arch. */
static int check_gpu(void)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	int gpu = st == KJIT_OK && kjit_engine_has_gpu(e);
	/* the library's message, less its hint: no arch is needed here */
	const char *m = kjit_last_error(), *hint = strstr(m, " and no target arch");
	if (gpu)
		printf("GPU: %s (%s)\n", kjit_engine_device_name(e), kjit_engine_arch(e));
	else if (st == KJIT_OK)
		printf("no GPU (%s)\n", kjit_engine_gpu_reason(e));
	else
		printf("%.*s\n", hint ? (int)(hint - m) : (int)strlen(m), m);
	kjit_engine_close(e);
	return gpu ? 0 : 1;
}

#define CHECK(call, what)                                                               \
	do {                                                                            \
		kjit_status st_ = (call);                                               \
		if (st_ != KJIT_OK) {                                                   \
			fprintf(stderr, "kjit-saxpy: %s: %s\n%s\n", what, kjit_status_str(st_), \
			        kjit_last_error());                                     \
			goto fail;                                                      \
		}                                                                       \
	} while (0)

int main(int argc, char **argv)
{
	const char *arch = NULL, *db = NULL, *source = SAXPY_SOURCE;
	long long n = 1LL << 26;
	int repeat = 20, threads = 0;
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },   { "db", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 'n' },   { "repeat", required_argument, NULL, 'r' },
		{ "source", required_argument, NULL, 's' }, { "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },         { "version", no_argument, NULL, 'V' },
		{ "check-gpu", no_argument, NULL, 'g' },    { NULL, 0, NULL, 0 }
	};
	for (int c; (c = getopt_long(argc, argv, "a:d:n:r:s:j:ghV", longopts, NULL)) != -1;) {
		char *end = NULL;
		switch (c) {
		case 'a': arch = optarg; break;
		case 'd': db = optarg; break;
		case 's': source = optarg; break;
		case 'n': n = strtoll(optarg, &end, 10); break;
		case 'r': repeat = (int)strtol(optarg, &end, 10); break;
		case 'j': threads = (int)strtol(optarg, &end, 10); break;
		case 'g': return check_gpu();
		case 'h': usage(stdout); return 0;
		case 'V': printf("kjit-saxpy (kjit) %s\n", kjit_version()); return 0;
		default: usage(stderr); return 2;
		}
		if (end && (*end || n <= 0 || repeat <= 0 || threads < 0)) {
			fprintf(stderr, "kjit-saxpy: invalid value '%s' for -%c\n", optarg, c);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "kjit-saxpy: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	kjit_engine *e = NULL;
	kjit_kernel *k = NULL;
	float *hx = NULL, *hy = NULL, *out = NULL;
	kjit_devptr dx = 0, dy = 0;
	int rc = 1;

	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = arch;
	o.compile_threads = threads;
	CHECK(kjit_engine_open(&o, &e), "opening the engine");
	printf("kjit %s, database %s\n", kjit_version(), kjit_engine_db_path(e));
	if (kjit_engine_has_gpu(e))
		printf("GPU: %s (%s)\n", kjit_engine_device_name(e), kjit_engine_arch(e));
	else
		printf("no GPU (%s): compiling for %s only\n", kjit_engine_gpu_reason(e),
		       kjit_engine_arch(e));

	const char *params[] = { "BLOCK_SIZE", "ITEMS_PER_THREAD" };
	CHECK(kjit_kernel_create_from_file(e, "saxpy", source, params, 2, &k), "reading the kernel");

	char values[N_VARIANTS][2][12];
	kjit_define defines[N_VARIANTS][2];
	kjit_variant_desc descs[N_VARIANTS];
	for (size_t b = 0; b < N_BLOCKS; b++)
		for (int it = 1; it <= N_ITEMS; it++) {
			size_t i = b * N_ITEMS + (size_t)(it - 1);
			snprintf(values[i][0], sizeof values[i][0], "%d", block_sizes[b]);
			snprintf(values[i][1], sizeof values[i][1], "%d", it);
			defines[i][0] = (kjit_define){ "BLOCK_SIZE", values[i][0] };
			defines[i][1] = (kjit_define){ "ITEMS_PER_THREAD", values[i][1] };
			descs[i] = (kjit_variant_desc){ defines[i], 2, NULL, 0 };
		}

	kjit_variant *vars[N_VARIANTS];
	kjit_status sts[N_VARIANTS];
	double t0 = now_s();
	CHECK(kjit_variants_get(k, descs, N_VARIANTS, threads, vars, sts, NULL), "compiling");
	double wall = now_s() - t0;
	kjit_engine_stats s;
	CHECK(kjit_engine_get_stats(e, &s), "reading stats");

	double lat[N_VARIANTS];
	size_t n_lat = 0;
	for (size_t i = 0; i < N_VARIANTS; i++) {
		kjit_variant_info info;
		CHECK(kjit_variant_get_info(vars[i], &info), "variant info");
		lat[n_lat++] = info.compile_ms;
	}
	qsort(lat, n_lat, sizeof lat[0], cmp_double);
	printf("\n%d variants in %.2f s: %llu compiled, %llu from the database, %llu from memory "
	       "(hit rate %.0f%%)\n",
	       (int)N_VARIANTS, wall, (unsigned long long)s.misses, (unsigned long long)s.disk_hits,
	       (unsigned long long)s.memory_hits,
	       100.0 * (double)(s.disk_hits + s.memory_hits) / N_VARIANTS);
	printf("compile latency (NVRTC, when compiled): p50 %.1f ms, max %.1f ms\n",
	       lat[n_lat / 2], lat[n_lat - 1]);

	if (!kjit_engine_has_gpu(e)) {
		printf("\ntiming: skipped (no GPU)\n");
		rc = 0;
		goto fail;
	}

	size_t bytes = (size_t)n * sizeof(float);
	hx = malloc(bytes);
	hy = malloc(bytes);
	out = malloc(bytes);
	if (!hx || !hy || !out) {
		fprintf(stderr, "kjit-saxpy: out of host memory for n = %lld\n", n);
		goto fail;
	}
	for (long long i = 0; i < n; i++) {
		hx[i] = (float)(i % 1024) * 0.25f;
		hy[i] = (float)(i % 77);
	}
	const float a = 2.0f;
	CHECK(kjit_mem_alloc(e, bytes, &dx), "cuMemAlloc x");
	CHECK(kjit_mem_alloc(e, bytes, &dy), "cuMemAlloc y");
	CHECK(kjit_memcpy_htod(e, dx, hx, bytes), "copying x");

	printf("\n%-10s %-6s %12s %10s  %s\n", "BLOCK_SIZE", "ITEMS", "time (us)", "GB/s", "check");
	double best = 1e30;
	size_t best_i = 0;
	int failures = 0;
	for (size_t i = 0; i < N_VARIANTS; i++) {
		int bs = atoi(values[i][0]), items = atoi(values[i][1]);
		unsigned per_block = (unsigned)(bs * items);
		unsigned grid[3] = { (unsigned)((n + per_block - 1) / per_block), 1, 1 };
		unsigned block[3] = { (unsigned)bs, 1, 1 };
		float fa = a;
		void *args[] = { &n, &fa, &dx, &dy };
		/* Correctness: one launch on fresh y. */
		CHECK(kjit_memcpy_htod(e, dy, hy, bytes), "copying y");
		CHECK(kjit_variant_launch(vars[i], grid, block, 0, NULL, args), "launching");
		CHECK(kjit_memcpy_dtoh(e, out, dy, bytes), "copying y back");
		long long bad = 0;
		for (long long j = 0; j < n; j++)
			if (out[j] != a * hx[j] + hy[j])
				bad++;
		/* Timing: warm-up, then repeat launches; y drifts, time does not. */
		CHECK(kjit_variant_launch(vars[i], grid, block, 0, NULL, args), "launching");
		CHECK(kjit_synchronize(e), "synchronizing");
		double t = now_s();
		for (int r = 0; r < repeat; r++)
			CHECK(kjit_variant_launch(vars[i], grid, block, 0, NULL, args), "launching");
		CHECK(kjit_synchronize(e), "synchronizing");
		double us = (now_s() - t) / repeat * 1e6;
		double gbs = 3.0 * (double)bytes / (us * 1e-6) / 1e9;
		printf("%-10d %-6d %12.1f %10.1f  %s\n", bs, items, us, gbs, bad ? "WRONG" : "ok");
		if (bad) {
			failures++;
			fprintf(stderr, "kjit-saxpy: BLOCK_SIZE=%d ITEMS_PER_THREAD=%d: %lld of %lld "
			        "elements wrong\n", bs, items, bad, n);
		} else if (us < best) {
			best = us;
			best_i = i;
		}
	}
	if (failures == (int)N_VARIANTS) {
		fprintf(stderr, "kjit-saxpy: every variant gave a wrong result\n");
		goto fail;
	}
	printf("\nfastest: BLOCK_SIZE=%s ITEMS_PER_THREAD=%s, %.1f us, %.0f GB/s (n = %lld, "
	       "host-timed over %d launches)\n",
	       values[best_i][0], values[best_i][1], best, 3.0 * (double)bytes / (best * 1e-6) / 1e9,
	       n, repeat);
	rc = failures ? 1 : 0;
fail:
	if (dx)
		kjit_mem_free(e, dx);
	if (dy)
		kjit_mem_free(e, dy);
	free(hx);
	free(hy);
	free(out);
	kjit_engine_close(e);
	return rc;
}
