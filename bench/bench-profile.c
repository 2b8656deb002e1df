/*
 * bench-profile - what kjit_variant_profile() costs against Nsight
 * Compute reading the same counters of the same kernel.
 *
 * The kernel: saxpy (examples/saxpy/saxpy.cu, BLOCK_SIZE 256,
 * ITEMS_PER_THREAD 4) on 2^24 floats (2^L with --log2n L: a small one
 * shows what a profile costs beyond the passes). kjit: the wall time of one
 * kjit_variant_profile() with counters on, the first (which sets up the
 * profiler) apart, then the median of --reps more. Nsight Compute: this
 * program re-run as `--launch N` (N launches, nothing else) under
 * `ncu --clock-control none --metrics <the profiler's metrics>`, for N = 1
 * and N = 1 + --ncu-kernels, in --ncu-pairs pairs whose order alternates;
 * its cost per kernel is a pair's difference over --ncu-kernels (ncu's
 * own start and the program's cancel), the median over the pairs. ncu's
 * start (1.4-2 s) moves by hundreds of ms from run to run: with 20 kernels
 * a run and 3 pairs the per-kernel figure moved between 12 and 117 ms from
 * one run to the next; 60 and 5 (the defaults) keep that out of it. Figure:
 * profile-vs-ncu = kjit's median / ncu's per kernel, target <= 0.5.
 *
 * ncu is $KJIT_BENCH_NCU, else ncu on PATH, else /usr/local/cuda/bin/ncu;
 * without it the comparison is SKIP. Needs a GPU (without one the
 * engine's message says why, as for bench-measure).
 */
#include "config.h"

#include <math.h>
#include <sys/wait.h>

#include "benchutil.h"
#include "instr.h"

/* log2 of the vector's length: --log2n */
static int log2_n = 24;

typedef struct saxpy {
	kjit_engine *e;
	kjit_variant *v;
	long long n;
	float a;
	kjit_devptr x, y;
	unsigned grid[3], block[3];
} saxpy;

static void setup(saxpy *s, const char *db)
{
	memset(s, 0, sizeof *s);
	s->e = bench_engine_open(db, NULL, 0);
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_file(s->e, "saxpy", bench_saxpy_path(),
	                                        bench_saxpy_params(), 2, &k));
	kjit_define defs[2] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "4" } };
	kjit_variant_desc desc;
	memset(&desc, 0, sizeof desc);
	desc.defines = defs;
	desc.n_defines = 2;
	BENCH_KJIT(kjit_variant_get(k, &desc, &s->v, NULL));
	s->n = 1ll << log2_n;
	s->a = 2.0f;
	size_t bytes = (size_t)s->n * sizeof(float);
	BENCH_KJIT(kjit_mem_alloc(s->e, bytes, &s->x));
	BENCH_KJIT(kjit_mem_alloc(s->e, bytes, &s->y));
	float *host = bench_malloc(bytes);
	for (long long i = 0; i < s->n; i++)
		host[i] = (float)(i % 1000);
	BENCH_KJIT(kjit_memcpy_htod(s->e, s->x, host, bytes));
	BENCH_KJIT(kjit_memcpy_htod(s->e, s->y, host, bytes));
	free(host);
	s->grid[0] = (unsigned)((s->n + 1023) / 1024);
	s->grid[1] = s->grid[2] = 1;
	s->block[0] = 256;
	s->block[1] = s->block[2] = 1;
}

static void teardown(saxpy *s)
{
	BENCH_KJIT(kjit_mem_free(s->e, s->x));
	BENCH_KJIT(kjit_mem_free(s->e, s->y));
	kjit_engine_close(s->e);
}

static void args_of(saxpy *s, void **args)
{
	args[0] = &s->n;
	args[1] = &s->a;
	args[2] = &s->x;
	args[3] = &s->y;
}

/* The child under ncu: n launches, synchronised, nothing else. */
static int launch_main(const char *db, int n)
{
	saxpy s;
	setup(&s, db);
	void *args[4];
	args_of(&s, args);
	for (int i = 0; i < n; i++)
		BENCH_KJIT(kjit_variant_launch(s.v, s.grid, s.block, 0, NULL, args));
	BENCH_KJIT(kjit_synchronize(s.e));
	teardown(&s);
	return 0;
}

static const char *find_ncu(void)
{
	const char *env = getenv("KJIT_BENCH_NCU");
	if (env && *env)
		return access(env, X_OK) == 0 ? env : NULL;
	if (system("command -v ncu > /dev/null 2>&1") == 0)
		return "ncu";
	return access("/usr/local/cuda/bin/ncu", X_OK) == 0 ? "/usr/local/cuda/bin/ncu" : NULL;
}

/* Seconds of `ncu ... /proc/self/exe --launch n db`; aborts if it fails. */
static double ncu_seconds(const char *ncu, const char *metrics, const char *db, int n)
{
	char count[16], size[16];
	snprintf(count, sizeof count, "%d", n);
	snprintf(size, sizeof size, "%d", log2_n);
	uint64_t t0 = bench_now_ns();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		char *argv[] = { (char *)ncu, (char *)"--clock-control", (char *)"none",
			         (char *)"--metrics", (char *)metrics, (char *)"/proc/self/exe",
			         (char *)"--launch", count, (char *)db, size, NULL };
		/* /proc/self/exe would name ncu in the child: pass our own path */
		char self[BENCH_PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
		if (len <= 0)
			_exit(125);
		self[len] = '\0';
		argv[5] = self;
		execvp(ncu, argv);
		fprintf(stderr, "bench-profile: exec %s: %s\n", ncu, strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			bench_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_die("%s --launch %d under ncu failed (status %d)", "bench-profile", n, status);
	return (double)(bench_now_ns() - t0) / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-profile [--reps N] [--ncu-kernels K] [--ncu-pairs P] [--log2n L]\n"
	           "  kjit_variant_profile() against ncu --clock-control none, same metrics,\n"
	           "  same kernel (saxpy)\n"
	           "  -n, --reps N         kjit profiles timed after the first (default 5)\n"
	           "  -k, --ncu-kernels K  kernels of ncu's long run beyond its short one's\n"
	           "                       one (default 60)\n"
	           "  -p, --ncu-pairs P    ncu's short and long runs, alternated (default 5)\n"
	           "  -l, --log2n L        saxpy of 2^L floats, 10 to 28 (default 24): what\n"
	           "                       a profile costs beyond the kernel's own passes\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-profile";
	if (argc == 5 && strcmp(argv[1], "--launch") == 0) {
		log2_n = atoi(argv[4]);
		return launch_main(argv[3], atoi(argv[2]));
	}
	int reps = 5, kernels = 60, pairs = 5;
	const bench_opt opts[] = { { "reps", 'n', &reps, 1 },
		                   { "ncu-kernels", 'k', &kernels, 1 },
		                   { "ncu-pairs", 'p', &pairs, 1 },
		                   { "log2n", 'l', &log2_n, 10 } };
	int rc = bench_parse_options(argc, argv, opts, 4, usage);
	if (rc >= 0)
		return rc;
	if (log2_n > 28) {
		fprintf(stderr, "bench-profile: --log2n %d: expected 10 to 28\n", log2_n);
		return 2;
	}
	printf("== bench-profile: kjit_variant_profile() against Nsight Compute ==\n");
	char db[BENCH_PATH_MAX];
	bench_tmp_path(db, sizeof db, "profile.db");
	saxpy s;
	setup(&s, db);
	bench_print_engine(s.e);
	void *args[4];
	args_of(&s, args);
	kjit_profile_options po;
	kjit_profile_options_init(&po);
	kjit_profile p;
	double *wall = bench_malloc((size_t)(reps + 1) * sizeof *wall);
	for (int i = 0; i <= reps; i++) {
		uint64_t t0 = bench_now_ns();
		BENCH_KJIT(kjit_variant_profile(s.v, s.grid, s.block, 0, NULL, args, &po, &p));
		wall[i] = (double)(bench_now_ns() - t0) / 1e9;
		if (*p.counters_reason) {
			printf("SKIP profile-vs-ncu counters refused: %s\n", p.counters_reason);
			teardown(&s);
			return 0;
		}
	}
	printf("kjit, saxpy of 2^%d floats: first profile %.3f s, then median %.4f s over %d; "
	       "%u passes; DRAM %.1f MB (%.2f%% of 12n); %.0f GB/s of %.0f peak\n",
	       log2_n, wall[0], bench_median(wall + 1, (size_t)reps), reps, p.passes,
	       (p.dram_read_bytes + p.dram_write_bytes) / 1e6,
	       100.0 * (p.dram_read_bytes + p.dram_write_bytes) / (12.0 * (double)s.n),
	       p.dram_bytes_per_s / 1e9, p.peak_dram_bytes_per_s / 1e9);
	double kjit_s = bench_median(wall + 1, (size_t)reps);
	teardown(&s);

	const char *ncu = find_ncu();
	if (!ncu) {
		printf("SKIP profile-vs-ncu no ncu ($KJIT_BENCH_NCU, PATH, /usr/local/cuda/bin)\n");
		free(wall);
		return 0;
	}
	size_t n_metrics;
	const char *const *names = kjit__counters_metric_names(&n_metrics);
	char metrics[4096] = "";
	for (size_t i = 0; i < n_metrics; i++)
		snprintf(metrics + strlen(metrics), sizeof metrics - strlen(metrics), "%s%s",
		         i ? "," : "", names[i]);
	double *per = bench_malloc((size_t)pairs * sizeof *per), first_one = 0;
	for (int i = 0; i < pairs; i++) {
		double one, many;
		if (i % 2 == 0) {
			one = ncu_seconds(ncu, metrics, db, 1);
			many = ncu_seconds(ncu, metrics, db, 1 + kernels);
		} else {
			many = ncu_seconds(ncu, metrics, db, 1 + kernels);
			one = ncu_seconds(ncu, metrics, db, 1);
		}
		if (i == 0)
			first_one = one;
		per[i] = (many - one) / kernels;
		printf("ncu pair %d: 1 launch %.2f s, %d launches %.2f s: %.4f s per kernel\n", i + 1,
		       one, 1 + kernels, many, per[i]);
	}
	double per_kernel = bench_median(per, (size_t)pairs);
	printf("ncu: %.4f s per kernel (median of %d pairs)\n", per_kernel, pairs);
	bench_result("profile-vs-ncu", kjit_s * 1e3, "ms", per_kernel * 1e3, "ratio<=0.5");
	bench_result("profile-first", wall[0] * 1e3, "ms", first_one * 1e3, "info");
	free(per);
	free(wall);
	return 0;
}
