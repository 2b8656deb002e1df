/*
 * bench-online - online tuning (KJIT_TUNE=online) of saxpy
 * (examples/saxpy/saxpy.json, 40 configurations; budget 32 x 3 launches)
 * on n = 2^24, on a fresh database:
 *   - launches until the search committed (info);
 *   - the first launch, which compiles the 32 trial variants (info);
 *   - the host time of a launch + synchronize during the search against
 *     the same for the default configuration (policy off, same problem,
 *     measured in the same run): the overhead of tuning while serving
 *     (info);
 *   - the committed configuration against the default, launch +
 *     synchronize after the search (info; below 1 is a gain).
 * Needs a GPU; without one it prints why and exits 0.
 */
#include "config.h"

#include "benchutil.h"

#define N (1LL << 24)

static double launch_sync_us(kjit_engine *e, kjit_kernel *k, void **args)
{
	int64_t p = N;
	uint64_t t0 = bench_now_ns();
	BENCH_KJIT(kjit_launch(k, &p, 1, args, NULL));
	BENCH_KJIT(kjit_synchronize(e));
	return (double)(bench_now_ns() - t0) * 1e-3;
}

static kjit_engine *open_policy(const char *db, kjit_tune_policy tune)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.tune = tune;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	if (st != KJIT_OK && st != KJIT_ERR_NO_GPU)
		BENCH_KJIT(st);
	return e;
}

/* Median us of launch + synchronize over reps launches. */
static double steady(kjit_engine *e, kjit_kernel *k, void **args, int reps)
{
	double *t = bench_malloc((size_t)reps * sizeof *t);
	for (int i = 0; i < reps; i++)
		t[i] = launch_sync_us(e, k, args);
	double m = bench_median(t, (size_t)reps);
	free(t);
	return m;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-online [-r REPS]\n"
	           "Online tuning of saxpy: launches to converge, overhead against the default.\n"
	           "  -r, --reps N  launches timed for each steady figure (default 200)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-online";
	int reps = 200;
	const bench_opt opts[] = { { "reps", 'r', &reps, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 1, usage);
	if (rc >= 0)
		return rc;
	char spec[BENCH_PATH_MAX], db[BENCH_PATH_MAX];
	snprintf(spec, sizeof spec, "%s", bench_saxpy_path());
	char *dot = strrchr(spec, '.');
	if (!dot || strcmp(dot, ".cu") != 0)
		bench_die("%s: expected a .cu path next to saxpy.json", spec);
	strcpy(dot, ".json");
	printf("== bench-online: online tuning of saxpy, n = 2^24 ==\n");
	bench_tmp_path(db, sizeof db, "online.db");
	kjit_engine *e = open_policy(db, KJIT_TUNE_OFF);
	if (!e || !kjit_engine_has_gpu(e)) {
		bench_skip("online", e ? kjit_engine_gpu_reason(e) : kjit_last_error());
		kjit_engine_close(e);
		return 0;
	}
	bench_print_engine(e);
	kjit_devptr dx, dy;
	long long n = N;
	float a = 1.0f;
	BENCH_KJIT(kjit_mem_alloc(e, (size_t)N * sizeof(float), &dx));
	BENCH_KJIT(kjit_mem_alloc(e, (size_t)N * sizeof(float), &dy));
	void *args[] = { &n, &a, &dx, &dy };

	/* The default configuration, policy off. */
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_spec(e, spec, &k));
	launch_sync_us(e, k, args);
	double def = steady(e, k, args, reps);

	/* Online, a second engine on the same context (the buffers stay). */
	kjit_engine *eo = open_policy(db, KJIT_TUNE_ONLINE);
	kjit_kernel *ko;
	BENCH_KJIT(kjit_kernel_create_from_spec(eo, spec, &ko));
	int64_t p = N;
	kjit_explanation x;
	double first = launch_sync_us(eo, ko, args);
	double *trial = bench_malloc(4096 * sizeof *trial);
	size_t n_trial = 0;
	for (;;) {
		BENCH_KJIT(kjit_explain(ko, &p, 1, &x));
		if (!x.tuning || n_trial == 4096)
			break;
		trial[n_trial++] = launch_sync_us(eo, ko, args);
	}
	size_t launches = n_trial + 1;
	printf("  default %s: %.1f us per launch + synchronize\n", "{BLOCK_SIZE 256, ITEMS 1}", def);
	printf("  search: %zu launches; the first (compiles the trials) %.1f ms\n", launches,
	       first * 1e-3);
	bench_stats st = bench_print_stats("launch + sync during the search", trial, n_trial, "us");
	double tuned = steady(eo, ko, args, reps);
	printf("  committed %s (%s, stored %.0f ns): %.1f us per launch + synchronize\n", x.config,
	       x.rule, x.median_ns, tuned);
	bench_result("online-launches", (double)launches, "launches", -1, "info");
	bench_result("online-first-launch", first * 1e-3, "ms", -1, "info");
	bench_result("online-search-overhead", st.median, "us", def, "info");
	bench_result("online-tuned-vs-default", tuned, "us", def, "info");
	free(trial);
	kjit_engine_close(eo);
	BENCH_KJIT(kjit_mem_free(e, dx));
	BENCH_KJIT(kjit_mem_free(e, dy));
	kjit_engine_close(e);
	return 0;
}
