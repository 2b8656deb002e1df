/*
 * bench-pool - the compile pool: 64 distinct saxpy variants (BLOCK_SIZE 64,
 * 128, 256, 512 x ITEMS_PER_THREAD 1, 2, 4, 8 x 4 values of a salt define)
 * through one kjit_variants_get(threads=P) call, for P in 1, 2, 4, 8, 16,
 * each into a fresh database and a fresh engine (opened untimed), so that
 * every variant is a miss.
 *
 * The floor at each P: the same 64 compiles, bare NVRTC (create, compile,
 * fetch the cubin) on P plain threads taking the next job from an atomic
 * counter, run next to the kjit pass (order alternating with P).
 *
 * Figures: wall time at each P against the floor at that P (info), and the
 * speed-up at the largest P, kjit (1-thread wall / P-thread wall) against
 * the bare speed-up. Target: kjit speed-up >= 8 at 16 threads.
 *
 * --source/--entry/--tag run the same with another kernel that takes the
 * same parameters (bench/heavy.cu: a compile that NVRTC spends its time
 * optimising, where saxpy's is mostly per-program overhead).
 */
#include "config.h"

#include <getopt.h>

#include "benchutil.h"

#define MAX_THREADS 256
#define MAX_P 16

static const char *const blocks[] = { "64", "128", "256", "512" };
static const char *const items[] = { "1", "2", "4", "8" };

struct variants {
	size_t n;
	kjit_variant_desc *descs;
	kjit_define *defs;  /* 3 per variant */
	char (*salts)[16];
	char (*canon)[256]; /* the option list kjit builds, for the floor */
};

static void make_variants(struct variants *vs, size_t n, int salt_base, const char *arch)
{
	vs->n = n;
	vs->descs = bench_malloc(n * sizeof *vs->descs);
	vs->defs = bench_malloc(3 * n * sizeof *vs->defs);
	vs->salts = bench_malloc(n * sizeof *vs->salts);
	vs->canon = bench_malloc(n * sizeof *vs->canon);
	for (size_t i = 0; i < n; i++) {
		const char *b = blocks[i % 4], *it = items[(i / 4) % 4];
		snprintf(vs->salts[i], sizeof vs->salts[i], "%d", salt_base + (int)(i / 16));
		kjit_define *d = &vs->defs[3 * i];
		d[0] = (kjit_define){ "BLOCK_SIZE", b };
		d[1] = (kjit_define){ "ITEMS_PER_THREAD", it };
		d[2] = (kjit_define){ "KJIT_BENCH_SALT", vs->salts[i] };
		vs->descs[i] = (kjit_variant_desc){ d, 3, NULL, 0 };
		snprintf(vs->canon[i], sizeof vs->canon[i],
		         "-DBLOCK_SIZE=%s\n-DITEMS_PER_THREAD=%s\n-DKJIT_BENCH_SALT=%s\n-arch=%s", b, it,
		         vs->salts[i], arch);
	}
}

static void free_variants(struct variants *vs)
{
	free(vs->descs);
	free(vs->defs);
	free(vs->salts);
	free(vs->canon);
}

/* ---- the floor: bare NVRTC on P threads ------------------------------------- */

struct bare_pool {
	const char *source;
	const struct variants *vs;
	atomic_size_t next;
};

static void *bare_worker(void *arg)
{
	struct bare_pool *p = arg;
	for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->vs->n;) {
		char *copy;
		const char *opts[8];
		int n = bench_split_options(p->vs->canon[i], &copy, opts, 8);
		bench_bare_nvrtc(p->source, "saxpy.cu", opts, n);
		free(copy);
	}
	return NULL;
}

static double run_bare(const char *source, const struct variants *vs, int threads)
{
	struct bare_pool p = { source, vs, 0 };
	pthread_t tids[MAX_THREADS];
	int extra = threads - 1;
	uint64_t t0 = bench_now_ns();
	for (int t = 0; t < extra; t++) {
		int rc = pthread_create(&tids[t], NULL, bare_worker, &p);
		if (rc != 0)
			bench_die("pthread_create: %s", strerror(rc));
	}
	bare_worker(&p);
	for (int t = 0; t < extra; t++)
		pthread_join(tids[t], NULL);
	uint64_t t1 = bench_now_ns();
	return (double)(t1 - t0) * 1e-6;
}

/* ---- kjit ------------------------------------------------------------------ */

static const char *entry = "saxpy";

static double run_kjit(const char *source, const struct variants *vs, int threads, int *gpu)
{
	char name[64];
	snprintf(name, sizeof name, "pool-%d.db", threads);
	char db[BENCH_PATH_MAX];
	bench_tmp_path(db, sizeof db, name);
	bench_remove_db(db);
	kjit_engine *e = bench_engine_open(db, NULL, 0);
	*gpu = kjit_engine_has_gpu(e);
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create(e, entry, source, bench_saxpy_params(), 2, &k));
	kjit_variant **out = bench_malloc(vs->n * sizeof *out);
	kjit_status *status = bench_malloc(vs->n * sizeof *status);
	char **errors = bench_malloc(vs->n * sizeof *errors);
	uint64_t t0 = bench_now_ns();
	kjit_status st = kjit_variants_get(k, vs->descs, vs->n, threads, out, status, errors);
	uint64_t t1 = bench_now_ns();
	for (size_t i = 0; i < vs->n; i++)
		if (status[i] != KJIT_OK)
			bench_die("variant %zu (%s) failed: %s\n%s", i, vs->canon[i],
			          kjit_status_str(status[i]), errors[i] ? errors[i] : "");
	if (st != KJIT_OK)
		bench_die("kjit_variants_get: %s\n  detail: %s", kjit_status_str(st), kjit_last_error());
	kjit_engine_stats stats;
	BENCH_KJIT(kjit_engine_get_stats(e, &stats));
	if (stats.misses != vs->n)
		bench_die("expected %zu misses at %d threads, the engine counted %llu", vs->n, threads,
		          (unsigned long long)stats.misses);
	kjit_engine_close(e);
	bench_remove_db(db);
	free(out);
	free(status);
	free(errors);
	return (double)(t1 - t0) * 1e-6;
}

static int parse_threads(const char *list, int *out, int max)
{
	int n = 0;
	char *copy = bench_strdup(list);
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		int p = atoi(tok);
		if (p < 1 || p > MAX_THREADS || n == max) {
			free(copy);
			return -1;
		}
		out[n++] = p;
	}
	free(copy);
	return n;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-pool [-t LIST] [-v N] [-s FILE -e ENTRY -g TAG]\n"
	           "Compile pool: N distinct variants through kjit_variants_get(threads=P),\n"
	           "against bare NVRTC on P threads.\n"
	           "  -t, --threads LIST  thread counts, comma-separated, first is the base\n"
	           "                      of the speed-up (default 1,2,4,8,16)\n"
	           "  -v, --variants N    variants per pass, a multiple of 16 (default 64)\n"
	           "  -s, --source FILE   kernel source with BLOCK_SIZE and ITEMS_PER_THREAD\n"
	           "                      (default: examples/saxpy/saxpy.cu)\n"
	           "  -e, --entry NAME    its entry point (default saxpy)\n"
	           "  -g, --tag TAG       suffix of the result names (default none)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-pool";
	int threads[MAX_P], n_threads = 0;
	int n_variants = 64;
	const char *source_path = NULL, *tag = NULL;
	n_threads = parse_threads("1,2,4,8,16", threads, MAX_P);
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "variants", required_argument, NULL, 'v' },
		{ "source", required_argument, NULL, 's' },
		{ "entry", required_argument, NULL, 'e' },
		{ "tag", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	for (int ch; (ch = getopt_long(argc, argv, "t:v:s:e:g:h", longopts, NULL)) != -1;) {
		switch (ch) {
		case 't':
			n_threads = parse_threads(optarg, threads, MAX_P);
			break;
		case 'v':
			n_variants = atoi(optarg);
			break;
		case 's':
			source_path = optarg;
			break;
		case 'e':
			entry = optarg;
			break;
		case 'g':
			tag = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (n_threads < 1 || n_variants < 16 || n_variants % 16) {
		usage(stderr);
		return 2;
	}

	if (!source_path)
		source_path = bench_saxpy_path();
	printf("== bench-pool: %d distinct variants of %s (%s), kjit_variants_get(threads=P) vs "
	       "bare NVRTC on P threads ==\n", n_variants, entry, source_path);
	bench_compiles_uncached();
	char *source = bench_read_file(source_path, NULL);
	/* The arch every pass compiles for (the engine's). */
	char arch[32];
	{
		char db[BENCH_PATH_MAX];
		kjit_engine *e = bench_engine_open(bench_tmp_path(db, sizeof db, "probe.db"), NULL, 0);
		bench_print_engine(e);
		snprintf(arch, sizeof arch, "%s", kjit_engine_arch(e));
		kjit_engine_close(e);
	}
	printf("  %d online CPUs\n", kjit__cpu_count());
	{ /* warm-up: NVRTC's first compile in a process loads its builtins */
		struct variants w;
		make_variants(&w, 16, 999000, arch);
		char *copy;
		const char *opts[8];
		int n = bench_split_options(w.canon[0], &copy, opts, 8);
		bench_bare_nvrtc(source, "saxpy.cu", opts, n);
		free(copy);
		free_variants(&w);
	}

	double kj[MAX_P], bare[MAX_P];
	int gpu = 0;
	for (int t = 0; t < n_threads; t++) {
		struct variants vs;
		/* Fresh salts per pass as well as a fresh database. */
		make_variants(&vs, (size_t)n_variants, 1000 * (t + 1), arch);
		for (int step = 0; step < 2; step++) {
			if ((step == 0) == (t % 2 == 0))
				bare[t] = run_bare(source, &vs, threads[t]);
			else
				kj[t] = run_kjit(source, &vs, threads[t], &gpu);
		}
		free_variants(&vs);
		printf("  P=%-3d  kjit %9.1f ms (speed-up %5.2fx)   bare NVRTC %9.1f ms (speed-up "
		       "%5.2fx)   kjit/bare %.3f\n", threads[t], kj[t], kj[0] / kj[t], bare[t],
		       bare[0] / bare[t], kj[t] / bare[t]);
		fflush(stdout);
	}
	printf("  the kjit passes %s module loads (%s)\n", gpu ? "include" : "exclude",
	       gpu ? "GPU present" : "no GPU");
	for (int t = 0; t < n_threads; t++) {
		char name[64];
		snprintf(name, sizeof name, "pool_wall_t%d%s%s", threads[t], tag ? "_" : "",
		         tag ? tag : "");
		bench_result(name, kj[t], "ms", bare[t], "info");
	}
	int last = n_threads - 1;
	char name[64];
	snprintf(name, sizeof name, "pool_speedup_t%d%s%s", threads[last], tag ? "_" : "",
	         tag ? tag : "");
	/* The target is for 16 threads against 1. */
	const char *target = threads[0] == 1 && threads[last] == 16 ? "value>=8" : "info";
	double sk = kj[0] / kj[last], sb = bare[0] / bare[last];
	bench_result_ratio(name, sk, "x", sb, sk / sb, target);
	free(source);
	return 0;
}
