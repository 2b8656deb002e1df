/*
 * bench-dispatch - kjit_launch() of a memoised problem against raw
 * cuLaunchKernel of the same CUfunction with the same grid, block and
 * arguments, and against CuPy's RawKernel launch of the same source
 * (bench/cupy-launch.py, when python3 has CuPy); then the first
 * kjit_launch() in a fresh process on a warm database.
 *
 * Dispatch: saxpy from examples/saxpy/saxpy.json on n = 1024 (one block),
 * default stream; --batches batches of --batch launches per path, the
 * paths alternating batch by batch, a synchronize (untimed) after each.
 * Figure: median batch us/launch. Target: kjit_launch <= 1.05 x raw.
 * CuPy: info (ratio < 1 is kjit faster).
 *
 * First launch: the parent records a tuned row for n = 2^20 and loads its
 * variant once (so the binary is in the database), then runs itself
 * --runs times; each child opens the engine (cuInit and the context,
 * timed apart and excluded) and times kjit_kernel_create_from_spec() and
 * the first kjit_launch() (the spec read, the selection, the database
 * hit, the module load, the launch). Target: median <= 2 ms.
 * Without a GPU, dispatch is skipped (saying why) and each child times
 * kjit_kernel_create_from_spec() and kjit_explain() instead: the spec
 * read and the selection, the first launch's part that needs no GPU
 * (first-choice-nogpu, info).
 */
#include "config.h"

#include <math.h>
#include <sys/wait.h>

#include "benchutil.h"

#define N_SMALL 1024

static char spec_path[BENCH_PATH_MAX];

static double batch_kjit(kjit_kernel *k, int n, void **args)
{
	int64_t p = N_SMALL;
	uint64_t t0 = bench_now_ns();
	for (int i = 0; i < n; i++) {
		kjit_status st = kjit_launch(k, &p, 1, args, NULL);
		if (st != KJIT_OK)
			BENCH_KJIT(st);
	}
	return (double)(bench_now_ns() - t0) * 1e-3 / n;
}

static double batch_raw(const kjit__cu_api *cu, const kjit__choice *c, int n, void **args)
{
	uint64_t t0 = bench_now_ns();
	for (int i = 0; i < n; i++) {
		CUresult r = cu->cuLaunchKernel(c->fn, c->grid[0], c->grid[1], c->grid[2], c->block[0],
		                                c->block[1], c->block[2], c->shared, NULL, args, NULL);
		if (r != CUDA_SUCCESS)
			BENCH_CU(r);
	}
	return (double)(bench_now_ns() - t0) * 1e-3 / n;
}

/* The CuPy peer's us/launch, or -1 when it cannot run here. */
static double cupy_peer(int batches, int per)
{
	/* bench/cupy-launch.py of the tree that holds examples/saxpy/saxpy.cu */
	char script[BENCH_PATH_MAX + 32], cmd[3 * BENCH_PATH_MAX];
	snprintf(script, sizeof script, "%s", bench_saxpy_path());
	for (int up = 0; up < 3; up++) {
		char *slash = strrchr(script, '/');
		if (!slash) {
			snprintf(script, sizeof script, ".");
			break;
		}
		*slash = '\0';
	}
	strcat(script, "/bench/cupy-launch.py");
	if (access(script, R_OK) != 0) {
		printf("  CuPy peer: %s not found\n", script);
		return -1;
	}
	snprintf(cmd, sizeof cmd, "python3 '%s' '%s' %d %d %d 2>&1", script, bench_saxpy_path(),
	         batches, per, N_SMALL);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char line[512];
	double us = -1;
	while (fgets(line, sizeof line, p)) {
		if (sscanf(line, "cupy_us_per_launch %lf", &us) == 1)
			continue;
		printf("  CuPy peer: %s", line);
	}
	pclose(p);
	return us;
}

static void dispatch(kjit_engine *e, int batches, int per)
{
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_spec(e, spec_path, &k));
	kjit_devptr dx, dy;
	BENCH_KJIT(kjit_mem_alloc(e, N_SMALL * sizeof(float), &dx));
	BENCH_KJIT(kjit_mem_alloc(e, N_SMALL * sizeof(float), &dy));
	long long n = N_SMALL;
	float a = 2.5f;
	void *args[] = { &n, &a, &dx, &dy };
	int64_t p = N_SMALL;
	BENCH_KJIT(kjit_launch(k, &p, 1, args, NULL)); /* first sight: choose, compile, load */
	kjit__memo_entry *en;
	BENCH_KJIT(kjit__memo_get(k, &p, &en));
	const kjit__choice *c = atomic_load(&en->choice);
	kjit_status st;
	const kjit__cu_api *cu = kjit__cu(&st);
	if (!cu)
		BENCH_KJIT(st);
	kjit_explanation x;
	BENCH_KJIT(kjit_explain(k, &p, 1, &x));
	printf("  saxpy n=%d: %s %s, grid %u, block %u; %d batches x %d launches per path\n",
	       N_SMALL, x.rule, x.config, c->grid[0], c->block[0], batches, per);
	for (int w = 0; w < 5; w++) {
		batch_kjit(k, per, args);
		batch_raw(cu, c, per, args);
		BENCH_KJIT(kjit_synchronize(e));
	}
	double *kj = bench_malloc((size_t)batches * sizeof *kj);
	double *raw = bench_malloc((size_t)batches * sizeof *raw);
	for (int b = 0; b < batches; b++) {
		for (int half = 0; half < 2; half++) {
			if ((b + half) % 2)
				kj[b] = batch_kjit(k, per, args);
			else
				raw[b] = batch_raw(cu, c, per, args);
			BENCH_KJIT(kjit_synchronize(e));
		}
	}
	bench_stats sr = bench_print_stats("raw cuLaunchKernel (floor)", raw, (size_t)batches, "us");
	bench_stats sk = bench_print_stats("kjit_launch (memoised)", kj, (size_t)batches, "us");
	printf("  overhead: %.1f ns per launch\n", (sk.median - sr.median) * 1e3);
	bench_result("dispatch", sk.median, "us", sr.median, "ratio<=1.05");
	double cupy = cupy_peer(batches / 2 > 0 ? batches / 2 : 1, per);
	if (cupy > 0) {
		printf("  CuPy RawKernel launch: %.3f us (measured 6.1 us before)\n", cupy);
		bench_result("dispatch-vs-cupy", sk.median, "us", cupy, "info");
	} else {
		printf("SKIP dispatch-vs-cupy python3 with CuPy not available\n");
	}
	free(kj);
	free(raw);
	BENCH_KJIT(kjit_mem_free(e, dx));
	BENCH_KJIT(kjit_mem_free(e, dy));
}

/* ---- the first launch in a fresh process ---------------------------------- */

/* argv: --child DB; prints "first_ms X open_ms Y". */
static int child_main(const char *db)
{
	uint64_t t0 = bench_now_ns();
	kjit_engine *e = bench_engine_open(db, NULL, 0);
	uint64_t t1 = bench_now_ns();
	int gpu = kjit_engine_has_gpu(e);
	kjit_devptr dx = 0, dy = 0;
	long long n = 1 << 20;
	if (gpu) {
		BENCH_KJIT(kjit_mem_alloc(e, (size_t)n * sizeof(float), &dx));
		BENCH_KJIT(kjit_mem_alloc(e, (size_t)n * sizeof(float), &dy));
	}
	float a = 2.5f;
	void *args[] = { &n, &a, &dx, &dy };
	int64_t p = n;
	kjit_kernel *k;
	kjit_explanation x;
	uint64_t t2 = bench_now_ns();
	BENCH_KJIT(kjit_kernel_create_from_spec(e, spec_path, &k));
	if (gpu)
		BENCH_KJIT(kjit_launch(k, &p, 1, args, NULL));
	else
		BENCH_KJIT(kjit_explain(k, &p, 1, &x));
	uint64_t t3 = bench_now_ns();
	if (gpu)
		BENCH_KJIT(kjit_synchronize(e));
	BENCH_KJIT(kjit_explain(k, &p, 1, &x));
	kjit_engine_stats s;
	BENCH_KJIT(kjit_engine_get_stats(e, &s));
	printf("first_ms %.4f open_ms %.2f rule %s compiles %llu\n", (double)(t3 - t2) * 1e-6,
	       (double)(t1 - t0) * 1e-6, x.rule, (unsigned long long)s.compiles);
	kjit_engine_close(e);
	return 0;
}

static void first_launch(int runs)
{
	char db[BENCH_PATH_MAX];
	bench_tmp_path(db, sizeof db, "first.db");
	kjit_engine *e = bench_engine_open(db, NULL, 0);
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_spec(e, spec_path, &k));
	/* A tuned row for 2^20, as online tuning or kjit-tune writes it. */
	double s[1] = { 10000 };
	kjit_eval tr = { .config = "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":2}", .status = KJIT_RESULT_OK,
		          .binary_key = "", .timer = "cupti", .median_ns = 10000, .min_ns = 10000,
		          .max_ns = 10000, .samples = s, .n_samples = 1, .objective = 10000,
		          .compile_ms = NAN, .message = "online", .arch = e->arch,
		          .nvrtc = kjit_nvrtc_id() };
	/* without a GPU, as another machine of the same arch would ship it */
	int gpu = kjit_engine_has_gpu(e);
	char other[64];
	snprintf(other, sizeof other, "%s|a GPU of this arch|132|13000", e->arch);
	BENCH_KJIT(kjit__record_search(e->store, kjit_kernel_signature(k), gpu ? e->device_key : other,
	                               "{\"n\":1048576}", KJIT_OBJECTIVE_TIME, &tr, 1, 0));
	if (gpu) { /* the binary into the database */
		long long n = 1 << 20;
		kjit_devptr dx, dy;
		BENCH_KJIT(kjit_mem_alloc(e, (size_t)n * sizeof(float), &dx));
		BENCH_KJIT(kjit_mem_alloc(e, (size_t)n * sizeof(float), &dy));
		float a = 2.5f;
		void *args[] = { &n, &a, &dx, &dy };
		int64_t p = n;
		BENCH_KJIT(kjit_launch(k, &p, 1, args, NULL));
		BENCH_KJIT(kjit_synchronize(e));
	}
	kjit_engine_close(e);

	char self[BENCH_PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		bench_die("readlink /proc/self/exe: %s", strerror(errno));
	self[len] = '\0';
	double *first = bench_malloc((size_t)runs * sizeof *first);
	double *open = bench_malloc((size_t)runs * sizeof *open);
	for (int r = 0; r < runs; r++) {
		char cmd[2 * BENCH_PATH_MAX + 32];
		snprintf(cmd, sizeof cmd, "'%s' --child '%s'", self, db);
		FILE *f = popen(cmd, "r");
		char line[512], rule[32] = "";
		unsigned long long compiles = 1;
		first[r] = open[r] = -1;
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "first_ms %lf open_ms %lf rule %31s compiles %llu", &first[r],
			           &open[r], rule, &compiles) != 4)
				printf("  child: %s", line);
		if (!f || pclose(f) != 0 || first[r] < 0)
			bench_die("child %d failed", r);
		const char *want = gpu ? "exact" : "same_arch";
		if (strcmp(rule, want) != 0 || compiles != 0)
			bench_die("child %d: rule %s, %llu compiles (expected %s, 0)", r, rule,
			          compiles, want);
	}
	bench_print_stats("engine open (excluded)", open, (size_t)runs, "ms");
	bench_stats sf = bench_print_stats(gpu ? "create_from_spec + first launch"
	                                       : "create_from_spec + explain (no GPU)",
	                                   first, (size_t)runs, "ms");
	if (gpu)
		bench_result("first-launch", sf.median, "ms", -1, "value<=2");
	else
		bench_result("first-choice-nogpu", sf.median, "ms", -1, "info");
	free(first);
	free(open);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-dispatch [-b BATCHES] [-s BATCH] [-r RUNS]\n"
	           "kjit_launch() dispatch against raw cuLaunchKernel and CuPy; first launch.\n"
	           "  -b, --batches N  timed batches per path (default 400)\n"
	           "  -s, --batch N    launches per batch (default 200)\n"
	           "  -r, --runs N     fresh processes for the first launch (default 9)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-dispatch";
	snprintf(spec_path, sizeof spec_path, "%s", bench_saxpy_path());
	char *dot = strrchr(spec_path, '.');
	if (!dot || strcmp(dot, ".cu") != 0)
		bench_die("%s: expected a .cu path next to saxpy.json", spec_path);
	strcpy(dot, ".json");
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	int batches = 400, per = 200, runs = 9;
	const bench_opt opts[] = { { "batches", 'b', &batches, 1 }, { "batch", 's', &per, 1 },
		                   { "runs", 'r', &runs, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 3, usage);
	if (rc >= 0)
		return rc;

	printf("== bench-dispatch: kjit_launch vs raw cuLaunchKernel and CuPy; first launch ==\n");
	char db[BENCH_PATH_MAX];
	kjit_engine *e = bench_engine_open(bench_tmp_path(db, sizeof db, "dispatch.db"), NULL, 0);
	bench_print_engine(e);
	if (kjit_engine_has_gpu(e))
		dispatch(e, batches, per);
	else
		bench_skip("dispatch", kjit_engine_gpu_reason(e));
	kjit_engine_close(e);
	first_launch(runs);
	return 0;
}
