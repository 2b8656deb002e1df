/*
 * kjit-api-demo - kjit_launch() at several problem sizes: saxpy described
 * by its kjit-tune spec (examples/saxpy/saxpy.json), SGEMM described in C
 * (examples/api/sgemm.cu, a grid callback). For each problem it launches,
 * checks the result and prints the variant chosen and why:
 *
 *     saxpy n=1048576 -> nearest {"BLOCK_SIZE":512,...} (tuned for {"n":67108864}, 41230 ns)
 *
 * Results tuned by kjit-tune (or by KJIT_TUNE=online in an earlier run)
 * are found in the database; without them the default configuration runs.
 * With KJIT_TUNE=online and a repeat count (kjit-api-demo DIR 200), the
 * repeated launches of each problem tune it while they serve it. Without a
 * GPU it prints the choices only.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kjit.h>

static int repeat = 1;

#ifndef KJIT_EXAMPLES
#define KJIT_EXAMPLES "examples"
#endif

static int check(kjit_status st, const char *what)
{
	if (st != KJIT_OK)
		fprintf(stderr, "kjit-api-demo: %s: %s: %s\n", what, kjit_status_str(st),
		        kjit_last_error());
	return st == KJIT_OK;
}

static void report(kjit_kernel *k, const char *name, const int64_t *p, size_t n,
                   const char *problem)
{
	kjit_explanation x;
	if (!check(kjit_explain(k, p, n, &x), "kjit_explain"))
		return;
	printf("%-6s %-22s -> %-9s %s", name, problem, x.rule, x.config);
	if (!isnan(x.median_ns))
		printf(" (tuned for %s, %.0f ns%s)", x.problem, x.median_ns, x.stale ? ", stale" : "");
	if (x.tuning)
		printf(" [online tuning under way]");
	printf("\n");
}

/* saxpy: y = 2 x + y on n elements, checked. */
static int run_saxpy(kjit_engine *e, kjit_kernel *k, long long n, int gpu)
{
	int64_t p = n;
	char problem[64];
	snprintf(problem, sizeof problem, "n=%lld", n);
	if (gpu) {
		float *h = malloc((size_t)n * sizeof *h);
		kjit_devptr dx = 0, dy = 0;
		int ok = h && check(kjit_mem_alloc(e, (size_t)n * 4, &dx), "alloc") &&
		         check(kjit_mem_alloc(e, (size_t)n * 4, &dy), "alloc");
		for (long long i = 0; ok && i < n; i++)
			h[i] = (float)(i % 100);
		ok = ok && check(kjit_memcpy_htod(e, dx, h, (size_t)n * 4), "copy") &&
		     check(kjit_memcpy_htod(e, dy, h, (size_t)n * 4), "copy");
		float a = 2.0f;
		void *args[] = { &n, &a, &dx, &dy };
		a = 0.0f; /* the repeats leave y as it is */
		for (int r = 1; ok && r < repeat; r++)
			ok = check(kjit_launch(k, &p, 1, args, NULL), "kjit_launch saxpy");
		a = 2.0f;
		ok = ok && check(kjit_launch(k, &p, 1, args, NULL), "kjit_launch saxpy") &&
		     check(kjit_memcpy_dtoh(e, h, dy, (size_t)n * 4), "copy");
		for (long long i = 0; ok && i < n; i++)
			if (h[i] != 3.0f * (float)(i % 100)) {
				fprintf(stderr, "kjit-api-demo: saxpy %s: y[%lld] = %g\n", problem, i, h[i]);
				ok = 0;
			}
		if (dx)
			kjit_mem_free(e, dx);
		if (dy)
			kjit_mem_free(e, dy);
		free(h);
		if (!ok)
			return 0;
	}
	report(k, "saxpy", &p, 1, problem);
	return 1;
}

/* The SGEMM grid: config[0] is TILE (the first parameter). */
static int sgemm_grid(const int64_t *problem, const int64_t *config, unsigned grid[3],
                      void *user)
{
	(void)user;
	int64_t m = problem[0], n = problem[1], tile = config[0];
	grid[0] = (unsigned)((n + tile - 1) / tile);
	grid[1] = (unsigned)((m + tile - 1) / tile);
	grid[2] = 1;
	return 0;
}

/* C = A B with small integers (exact in float), checked against the host. */
static int run_sgemm(kjit_engine *e, kjit_kernel *k, int m, int n, int kk, int gpu)
{
	int64_t p[3] = { m, n, kk };
	char problem[64];
	snprintf(problem, sizeof problem, "m=%d,n=%d,k=%d", m, n, kk);
	if (gpu) {
		size_t sa = (size_t)m * kk, sb = (size_t)kk * n, sc = (size_t)m * n;
		float *a = malloc(sa * 4), *b = malloc(sb * 4), *c = calloc(sc, 4);
		kjit_devptr da = 0, db = 0, dc = 0;
		int ok = a && b && c && check(kjit_mem_alloc(e, sa * 4, &da), "alloc") &&
		         check(kjit_mem_alloc(e, sb * 4, &db), "alloc") &&
		         check(kjit_mem_alloc(e, sc * 4, &dc), "alloc");
		for (size_t i = 0; ok && i < sa; i++)
			a[i] = (float)((int)(i % 7) - 3);
		for (size_t i = 0; ok && i < sb; i++)
			b[i] = (float)((int)(i % 5) - 2);
		ok = ok && check(kjit_memcpy_htod(e, da, a, sa * 4), "copy") &&
		     check(kjit_memcpy_htod(e, db, b, sb * 4), "copy") &&
		     check(kjit_memcpy_htod(e, dc, c, sc * 4), "copy"); /* beta * C reads it */
		float alpha = 1.0f, beta = 0.0f;
		void *args[] = { &m, &n, &kk, &alpha, &da, &db, &beta, &dc };
		for (int r = 0; ok && r < repeat; r++) /* beta = 0: each computes C */
			ok = check(kjit_launch(k, p, 3, args, NULL), "kjit_launch sgemm");
		ok = ok &&
		     check(kjit_memcpy_dtoh(e, c, dc, sc * 4), "copy");
		for (int i = 0; ok && i < m; i += m / 7 + 1)
			for (int j = 0; ok && j < n; j += n / 7 + 1) {
				float want = 0;
				for (int q = 0; q < kk; q++)
					want += a[(size_t)i * kk + q] * b[(size_t)q * n + j];
				if (c[(size_t)i * n + j] != want) {
					fprintf(stderr, "kjit-api-demo: sgemm %s: C[%d][%d] = %g, expected %g\n",
					        problem, i, j, c[(size_t)i * n + j], want);
					ok = 0;
				}
			}
		if (da)
			kjit_mem_free(e, da);
		if (db)
			kjit_mem_free(e, db);
		if (dc)
			kjit_mem_free(e, dc);
		free(a);
		free(b);
		free(c);
		if (!ok)
			return 0;
	}
	report(k, "sgemm", p, 3, problem);
	return 1;
}

int main(int argc, char **argv)
{
	const char *dir = KJIT_EXAMPLES, *arch = NULL;
	int help = 0, bad = 0, n_pos = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			help = 1;
		else if ((!strcmp(argv[i], "-a") || !strcmp(argv[i], "--arch")) && i + 1 < argc)
			arch = argv[++i];
		else if (argv[i][0] == '-' || n_pos == 2)
			bad = 1;
		else if (n_pos++ == 0)
			dir = argv[i];
		else
			repeat = atoi(argv[i]);
	}
	if (help || bad || repeat < 1) {
		printf("usage: kjit-api-demo [--arch sm_NN] [EXAMPLES_DIR [REPEAT]]\n"
		       "Launches saxpy and SGEMM through kjit_launch() at several sizes (each\n"
		       "REPEAT times, default 1) and prints the variant chosen for each and why.\n"
		       "  -a, --arch sm_NN  target arch (default $KJIT_ARCH, else the GPU's; without\n"
		       "                    a GPU, one of them shows the choices for that arch)\n"
		       "KJIT_DB, KJIT_TUNE apply.\n");
		return help ? 0 : 2;
	}
	char saxpy_spec[4096], sgemm_src[4096];
	snprintf(saxpy_spec, sizeof saxpy_spec, "%s/saxpy/saxpy.json", dir);
	snprintf(sgemm_src, sizeof sgemm_src, "%s/api/sgemm.cu", dir);

	kjit_engine *e;
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.arch = arch;
	kjit_status st = kjit_engine_open(&o, &e);
	if (!check(st, "kjit_engine_open"))
		return 1;
	int gpu = kjit_engine_has_gpu(e);
	printf("engine: %s, arch %s, database %s%s\n", gpu ? kjit_engine_device_name(e) : "no GPU",
	       kjit_engine_arch(e), kjit_engine_db_path(e), gpu ? "" : " (choices only)");

	kjit_kernel *saxpy, *sgemm;
	static const char *const tiles[] = { "8", "16", "32" };
	static const char *const fast[] = { "", "--use_fast_math" };
	static const char *const sizes[] = { "m", "n", "k" };
	const kjit_param params[] = {
		{ "TILE", tiles, 3, 1, KJIT_ROLE_BLOCK_X | KJIT_ROLE_BLOCK_Y | KJIT_ROLE_DEFINE },
		{ "FAST", fast, 2, 0, KJIT_ROLE_FLAGS },
	};
	kjit_tunable_desc d = { 0 };
	d.entry = "sgemm";
	d.source_path = sgemm_src;
	d.params = params;
	d.n_params = 2;
	d.grid_fn = sgemm_grid;
	d.shared = "0"; /* static shared memory only */
	d.problem_names = sizes;
	d.n_problem = 3;
	int ok = check(kjit_kernel_create_from_spec(e, saxpy_spec, &saxpy), saxpy_spec) &&
	         check(kjit_kernel_create_tunable(e, &d, &sgemm), sgemm_src);
	static const long long saxpy_n[] = { 1000, 1 << 20, 67108864, 100000000 };
	for (size_t i = 0; ok && i < sizeof saxpy_n / sizeof *saxpy_n; i++)
		ok = run_saxpy(e, saxpy, saxpy_n[i], gpu);
	static const int gemm[][3] = { { 128, 128, 128 }, { 512, 512, 512 }, { 1000, 700, 300 },
		                       { 2048, 2048, 2048 } };
	for (size_t i = 0; ok && i < sizeof gemm / sizeof *gemm; i++)
		ok = run_sgemm(e, sgemm, gemm[i][0], gemm[i][1], gemm[i][2], gpu);
	kjit_engine_close(e);
	return ok ? 0 : 1;
}
