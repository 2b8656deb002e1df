/*
 * bench-fresh - a cache hit in a fresh process: from the SQLite database to
 * a launchable function, against cuModuleLoadData of the same cubin.
 *
 * The parent compiles saxpy (BLOCK_SIZE=256, ITEMS_PER_THREAD=2) into a
 * fresh database, writes its cubin to a file and then runs itself again
 * (fork + exec of /proc/self/exe) --runs times. Each child:
 *   1. reads the kernel source and the cubin (untimed);
 *   2. opens the engine, timed apart (it includes dlopen of libcuda,
 *      cuInit, the primary context and the SQLite open);
 *   3. loads and unloads a module of an empty kernel (untimed), so that
 *      the driver's first-module costs fall on neither path;
 *   4. times, in an order that alternates between children:
 *        kjit:  kjit_kernel_create + kjit_variant_get, a disk hit (SQLite
 *               read, checksum, module load, the function looked up and
 *               loaded: cuFuncLoad);
 *        floor: cuModuleLoadData + cuModuleGetFunction of the same bytes
 *               through the same driver table (kjit__cu), then
 *               cuFuncLoad timed apart: under lazy loading the floor's
 *               function is not loaded yet, kjit's is;
 *   5. times a second disk hit (another stored variant) in the same
 *      process, to show what the first one paid once (info).
 * With a GPU, as many more children time a bare dlopen + cuInit +
 * cuDevicePrimaryCtxRetain + cuCtxSetCurrent: the floor of the engine open.
 *
 * Target: in each order (kjit first, floor first), kjit's median <= 2 x the
 * floor's; the result is the worse order's pair. The pooled medians are
 * printed as info: with an odd number of children they set one path's first
 * place against the other's second. So is the ratio to the floor with its
 * cuFuncLoad (the same work as kjit's side). Without a GPU the children time the
 * disk hit without a module load (reported as info) and the comparison is
 * skipped.
 */
#include "config.h"

#include <dlfcn.h>
#include <sys/wait.h>

#include "benchutil.h"

#define SAXPY_BLOCK "256"
#define SAXPY_ITEMS "2"

static const kjit_define saxpy_defs[] = { { "BLOCK_SIZE", SAXPY_BLOCK },
	                                  { "ITEMS_PER_THREAD", SAXPY_ITEMS } };
/* A second stored variant: a later disk hit in the same child (info). */
static const kjit_define second_defs[] = { { "BLOCK_SIZE", "128" },
	                                   { "ITEMS_PER_THREAD", SAXPY_ITEMS } };

/* ---- the child ------------------------------------------------------------- */

/* argv: --child DB ARCH SOURCE CUBIN WARM_CUBIN ORDER */
static int child_main(char **argv)
{
	const char *db = argv[0], *arch = argv[1], *source_path = argv[2];
	const char *cubin_path = argv[3], *warm_path = argv[4];
	int kjit_first = atoi(argv[5]) == 0;

	char *source = bench_read_file(source_path, NULL);
	size_t cubin_size = 0;
	char *cubin = bench_read_file(cubin_path, &cubin_size);
	char *warm = bench_read_file(warm_path, NULL);

	uint64_t t0 = bench_now_ns();
	kjit_engine *e = bench_engine_open(db, arch, 0);
	uint64_t t1 = bench_now_ns();
	double open_ms = (double)(t1 - t0) * 1e-6;
	int gpu = kjit_engine_has_gpu(e);

	const kjit__cu_api *cu = NULL;
	if (gpu) {
		kjit_status st;
		if (!(cu = kjit__cu(&st)))
			BENCH_KJIT(st);
		BENCH_KJIT(kjit_engine_make_current(e));
		CUmodule wm;
		CUfunction wf;
		BENCH_CU(cu->cuModuleLoadData(&wm, warm));
		BENCH_CU(cu->cuModuleGetFunction(&wf, wm, "empty"));
		BENCH_CU(cu->cuModuleUnload(wm));
	}

	double kjit_us = -1, bare_us = -1, create_us = -1, second_us = -1, fload_us = 0;
	kjit_kernel *k = NULL;
	for (int step = 0; step < 2; step++) {
		int do_kjit = (step == 0) == kjit_first;
		if (do_kjit) {
			kjit_variant *v;
			kjit_cache_tier tier;
			kjit_variant_desc d = { saxpy_defs, 2, NULL, 0 };
			uint64_t a = bench_now_ns();
			BENCH_KJIT(kjit_kernel_create(e, "saxpy", source, bench_saxpy_params(), 2, &k));
			uint64_t m = bench_now_ns();
			BENCH_KJIT(kjit_variant_get(k, &d, &v, &tier));
			uint64_t b = bench_now_ns();
			kjit_us = (double)(b - a) * 1e-3;
			create_us = (double)(m - a) * 1e-3;
			if (tier != KJIT_TIER_DISK)
				bench_die("child: expected a disk hit, got tier %d", (int)tier);
			const void *data;
			size_t size;
			BENCH_KJIT(kjit_variant_cubin(v, &data, &size));
			if (size != cubin_size || memcmp(data, cubin, size) != 0)
				bench_die("child: the stored cubin differs from %s", cubin_path);
			if (gpu) {
				void *fn = NULL;
				BENCH_KJIT(kjit_variant_function(v, &fn));
			}
		} else if (gpu) {
			CUmodule m;
			CUfunction f;
			uint64_t a = bench_now_ns();
			BENCH_CU(cu->cuModuleLoadData(&m, cubin));
			BENCH_CU(cu->cuModuleGetFunction(&f, m, "saxpy"));
			uint64_t b = bench_now_ns();
			bare_us = (double)(b - a) * 1e-3;
			if (cu->cuFuncLoad) {
				BENCH_CU(cu->cuFuncLoad(f));
				fload_us = (double)(bench_now_ns() - b) * 1e-3;
			}
			BENCH_CU(cu->cuModuleUnload(m));
		}
	}
	{ /* a second disk hit, now that the statement is prepared (info) */
		kjit_variant *v;
		kjit_cache_tier tier;
		kjit_variant_desc d = { second_defs, 2, NULL, 0 };
		uint64_t a = bench_now_ns();
		BENCH_KJIT(kjit_variant_get(k, &d, &v, &tier));
		uint64_t b = bench_now_ns();
		if (tier != KJIT_TIER_DISK)
			bench_die("child: expected a second disk hit, got tier %d", (int)tier);
		second_us = (double)(b - a) * 1e-3;
	}
	printf("CHILD gpu=%d open_ms=%.6f kjit_us=%.6f bare_us=%.6f create_us=%.6f second_us=%.6f "
	       "fload_us=%.6f\n", gpu, open_ms, kjit_us, bare_us, create_us, second_us, fload_us);
	kjit_engine_close(e);
	free(source);
	free(cubin);
	free(warm);
	return 0;
}

/* The floor of the engine open: the driver and the primary context, bare. */
static int open_floor_main(void)
{
	const char *path = getenv("KJIT_LIBCUDA");
	if (!path || !*path)
		path = "libcuda.so.1";
	uint64_t t0 = bench_now_ns();
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		bench_die("dlopen %s: %s", path, dlerror());
	__typeof__(cuInit) *init = (__typeof__(cuInit) *)dlsym(lib, "cuInit");
	__typeof__(cuDeviceGet) *dev_get = (__typeof__(cuDeviceGet) *)dlsym(lib, "cuDeviceGet");
	__typeof__(cuDevicePrimaryCtxRetain) *retain =
		(__typeof__(cuDevicePrimaryCtxRetain) *)dlsym(lib, "cuDevicePrimaryCtxRetain");
	__typeof__(cuCtxSetCurrent) *set_current =
		(__typeof__(cuCtxSetCurrent) *)dlsym(lib, "cuCtxSetCurrent");
	if (!init || !dev_get || !retain || !set_current)
		bench_die("%s lacks cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain or cuCtxSetCurrent",
		          path);
	CUdevice dev;
	CUcontext ctx;
	BENCH_CU(init(0));
	BENCH_CU(dev_get(&dev, 0));
	BENCH_CU(retain(&ctx, dev));
	BENCH_CU(set_current(ctx));
	uint64_t t1 = bench_now_ns();
	printf("OPENFLOOR ms=%.6f\n", (double)(t1 - t0) * 1e-6);
	return 0;
}

/* ---- the parent ------------------------------------------------------------ */

/* Runs /proc/self/exe with args (NULL-terminated, args[0] the program
 * name) and returns the first stdout line starting with prefix. */
static void run_self(char *const *args, const char *prefix, char *line, size_t cap)
{
	int fd[2];
	if (pipe(fd) != 0)
		bench_die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fd[0]);
		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(126);
		close(fd[1]);
		execv("/proc/self/exe", args);
		fprintf(stderr, "%s: exec /proc/self/exe: %s\n", bench_prog, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	if (!f)
		bench_die("fdopen: %s", strerror(errno));
	char buf[1024];
	int found = 0;
	size_t plen = strlen(prefix);
	while (fgets(buf, sizeof buf, f)) {
		if (!found && strncmp(buf, prefix, plen) == 0) {
			snprintf(line, cap, "%s", buf);
			found = 1;
		} else {
			fputs(buf, stdout); /* anything else the child said */
		}
	}
	fclose(f);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			bench_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_die("child %s failed (%s %d)", args[1],
		          WIFEXITED(status) ? "exit status" : "signal",
		          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	if (!found)
		bench_die("child %s printed no %s line", args[1], prefix);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-fresh [-n RUNS]\n"
	           "Cache hit in a fresh process (SQLite to launchable function) against\n"
	           "cuModuleLoadData of the same cubin; engine open against a bare cuInit.\n"
	           "  -n, --runs N   child processes (default 31)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-fresh";
	if (argc == 8 && !strcmp(argv[1], "--child"))
		return child_main(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "--open-floor"))
		return open_floor_main();

	int runs = 31;
	const bench_opt opts[] = { { "runs", 'n', &runs, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 1, usage);
	if (rc >= 0)
		return rc;

	printf("== bench-fresh: cache hit in a fresh process, SQLite to launchable function ==\n");
	const char *source_path = bench_saxpy_path();
	char *source = bench_read_file(source_path, NULL);
	char db[BENCH_PATH_MAX], cubin_path[BENCH_PATH_MAX], warm_path[BENCH_PATH_MAX], arch[32];
	bench_tmp_path(db, sizeof db, "fresh.db");
	bench_tmp_path(cubin_path, sizeof cubin_path, "saxpy.cubin");
	bench_tmp_path(warm_path, sizeof warm_path, "empty.cubin");

	kjit_engine *e = bench_engine_open(db, NULL, 0);
	bench_print_engine(e);
	int gpu = kjit_engine_has_gpu(e);
	char reason[512];
	snprintf(reason, sizeof reason, "%s", kjit_engine_gpu_reason(e));
	snprintf(arch, sizeof arch, "%s", kjit_engine_arch(e));
	kjit_kernel *k, *ke;
	kjit_variant *v, *ve;
	kjit_cache_tier tier;
	kjit_variant_desc d = { saxpy_defs, 2, NULL, 0 };
	BENCH_KJIT(kjit_kernel_create(e, "saxpy", source, bench_saxpy_params(), 2, &k));
	BENCH_KJIT(kjit_variant_get(k, &d, &v, &tier));
	kjit_variant_desc d2 = { second_defs, 2, NULL, 0 };
	kjit_variant *v2;
	BENCH_KJIT(kjit_variant_get(k, &d2, &v2, &tier));
	BENCH_KJIT(kjit_kernel_create(e, "empty", bench_empty_source(), NULL, 0, &ke));
	BENCH_KJIT(kjit_variant_get(ke, NULL, &ve, &tier));
	const void *data;
	size_t size;
	BENCH_KJIT(kjit_variant_cubin(v, &data, &size));
	bench_write_file(cubin_path, data, size);
	BENCH_KJIT(kjit_variant_cubin(ve, &data, &size));
	bench_write_file(warm_path, data, size);
	kjit_variant_info info;
	BENCH_KJIT(kjit_variant_get_info(v, &info));
	if (strcmp(info.lowered_name, "saxpy") != 0)
		bench_die("unexpected lowered name %s", info.lowered_name);
	printf("  saxpy cubin %zu bytes, %d child processes, database %s\n", info.cubin_size,
	       runs, db);
	kjit_engine_close(e);

	double *open_ms = bench_malloc((size_t)runs * sizeof *open_ms);
	double *floor_open = bench_malloc((size_t)runs * sizeof *floor_open);
	double *kj = bench_malloc((size_t)runs * sizeof *kj);
	double *bare = bench_malloc((size_t)runs * sizeof *bare);
	double *create = bench_malloc((size_t)runs * sizeof *create);
	double *second = bench_malloc((size_t)runs * sizeof *second);
	double *fload = bench_malloc((size_t)runs * sizeof *fload);
	double *kj_by_order[2], *bare_by_order[2], *loaded_by_order[2];
	size_t n_order[2] = { 0, 0 };
	for (int o = 0; o < 2; o++) {
		kj_by_order[o] = bench_malloc((size_t)runs * sizeof(double));
		bare_by_order[o] = bench_malloc((size_t)runs * sizeof(double));
		loaded_by_order[o] = bench_malloc((size_t)runs * sizeof(double));
	}
	for (int c = 0; c < runs; c++) {
		char order[8], line[1024];
		snprintf(order, sizeof order, "%d", c % 2);
		char *args[] = { argv[0], "--child", db, arch, (char *)source_path, cubin_path,
			         warm_path, order, NULL };
		run_self(args, "CHILD ", line, sizeof line);
		int child_gpu = -1;
		if (sscanf(line, "CHILD gpu=%d open_ms=%lf kjit_us=%lf bare_us=%lf create_us=%lf "
		                 "second_us=%lf fload_us=%lf", &child_gpu, &open_ms[c], &kj[c], &bare[c],
		           &create[c], &second[c], &fload[c]) != 7)
			bench_die("cannot parse the child's line: %s", line);
		if (child_gpu != gpu)
			bench_die("the parent %s a GPU, a child %s", gpu ? "had" : "had no",
			          child_gpu ? "had one" : "did not");
		kj_by_order[c % 2][n_order[c % 2]] = kj[c];
		loaded_by_order[c % 2][n_order[c % 2]] = bare[c] + fload[c];
		bare_by_order[c % 2][n_order[c % 2]++] = bare[c];
		if (gpu) {
			char *fargs[] = { argv[0], "--open-floor", NULL };
			run_self(fargs, "OPENFLOOR ", line, sizeof line);
			if (sscanf(line, "OPENFLOOR ms=%lf", &floor_open[c]) != 1)
				bench_die("cannot parse the child's line: %s", line);
		}
	}

	bench_stats so = bench_print_stats("engine open (in child)", open_ms, (size_t)runs, "ms");
	double fo = -1;
	if (gpu)
		fo = bench_print_stats("bare dlopen+cuInit+primary ctx", floor_open, (size_t)runs,
		                       "ms").median;
	bench_stats sk = bench_print_stats(gpu ? "kjit create+get, disk hit"
	                                       : "kjit create+get, disk hit, no load",
	                                   kj, (size_t)runs, "us");
	bench_print_stats("  of which kjit_kernel_create", create, (size_t)runs, "us");
	bench_print_stats("a 2nd disk hit, same process", second, (size_t)runs, "us");
	if (gpu) {
		bench_stats sb = bench_print_stats("cuModuleLoadData+GetFunction", bare, (size_t)runs,
		                                   "us");
		/* Whichever path runs first in a child pays the process's first real
		 * module load, so each is compared with the floor at its own place:
		 * pooled medians would set one path's first against the other's second. */
		bench_print_stats("  then cuFuncLoad (0: the driver lacks it)", fload, (size_t)runs,
		                  "us");
		double worst_kj = 0, worst_bare = 1, worst_lkj = 0, worst_loaded = 1;
		for (int o = 0; o < 2; o++) {
			if (!n_order[o])
				continue;
			double a = bench_median(kj_by_order[o], n_order[o]);
			double b = bench_median(bare_by_order[o], n_order[o]);
			double l = bench_median(loaded_by_order[o], n_order[o]);
			printf("  %s first: kjit median %.3f us, floor median %.3f us, ratio %.3f; "
			       "with its cuFuncLoad %.3f us, ratio %.3f (n=%zu)\n",
			       o == 0 ? "kjit" : "floor", a, b, a / b, l, a / l, n_order[o]);
			if (a / b > worst_kj / worst_bare) {
				worst_kj = a;
				worst_bare = b;
			}
			if (a / l > worst_lkj / worst_loaded) {
				worst_lkj = a;
				worst_loaded = l;
			}
		}
		bench_result("engine_open", so.median, "ms", fo, "info");
		bench_result("hit_fresh_process_pooled", sk.median, "us", sb.median, "info");
		bench_result("hit_fresh_process", worst_kj, "us", worst_bare, "ratio<=2");
		bench_result("hit_fresh_process_same_work", worst_lkj, "us", worst_loaded, "info");
	} else {
		printf("  (no GPU: the disk hit is timed without a module load, no floor)\n");
		bench_result("engine_open_nogpu", so.median, "ms", -1, "info");
		bench_result("hit_fresh_process_nogpu", sk.median, "us", -1, "info");
		bench_skip("hit_fresh_process", reason);
	}

	for (int o = 0; o < 2; o++) {
		free(kj_by_order[o]);
		free(bare_by_order[o]);
		free(loaded_by_order[o]);
	}
	free(open_ms);
	free(floor_open);
	free(kj);
	free(bare);
	free(create);
	free(fload);
	free(second);
	free(source);
	return 0;
}
