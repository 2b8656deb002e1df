/*
 * bench-tune-serial - the plain way to tune a space with libkjit's public
 * API, which bench-tune compares kjit-tune with: for each configuration of
 * a spec's space, in order, kjit_variant_get() (compiled on a miss) then
 * kjit_variant_measure() (default protocol with kjit-tune's 5 ms warm-up,
 * warm L2). Results are not verified (kjit-tune's run verifies each one;
 * this loop does not).
 *
 *   bench-tune-serial SPEC [--problem I] [--tag NAME] [--limit N]
 *
 * The database is a fresh temporary one (a cold cache). Prints the wall
 * time of the whole loop (engine and buffers set up before the clock
 * starts), its compile and measure parts, and
 *   RESULT tune_serial_NAME <seconds> s floor=n/a ratio=n/a target=info
 * Arguments, compile options and launch geometry come from the same code
 * as kjit-tune's (kt_args_build, kjit__config_desc_make,
 * kjit__config_dims). Needs a GPU; without one it SKIPs and exits 0.
 */
#include "config.h"

#include <math.h>

#include "benchutil.h"
#include "worker.h"

#define MAX_ARGS 32

static const char *tag = "space";
static size_t limit; /* 0: the whole space */

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-tune-serial SPEC [--problem I] [--tag NAME] [--limit N]\n"
	           "  --limit N   only the first N configurations of the space\n");
}

int main(int argc, char **argv)
{
	int problem = 0;
	bench_prog = "bench-tune-serial";
	if (argc < 2 || argv[1][0] == '-') {
		usage(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
		return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc) {
			problem = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--tag") == 0 && i + 1 < argc) {
			tag = argv[++i];
		} else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
			limit = strtoull(argv[++i], NULL, 10);
		} else {
			usage(stderr);
			return 2;
		}
	}
	char name[128];
	snprintf(name, sizeof name, "tune_serial_%s", tag);

	kjit__spec *spec;
	kjit__space *space;
	BENCH_KJIT(kjit__spec_load(argv[1], &spec));
	if (problem < 0 || (size_t)problem >= spec->n_problems)
		bench_die("--problem %d: %s has %zu problems", problem, argv[1], spec->n_problems);
	if (spec->n_args > MAX_ARGS)
		bench_die("%s: more than %d arguments", argv[1], MAX_ARGS);
	BENCH_KJIT(kjit__space_build(spec, (size_t)problem, NULL, &space));

	char db[BENCH_PATH_MAX];
	kjit_engine *e = bench_engine_open(bench_tmp_path(db, sizeof db, "serial.db"), NULL, 0);
	printf("bench-tune-serial: %s, %zu configurations, get then measure each\n", argv[1],
	       limit && limit < space->size ? limit : space->size);
	bench_print_engine(e);
	if (!kjit_engine_has_gpu(e)) {
		bench_skip(name, kjit_engine_gpu_reason(e));
		kjit_engine_close(e);
		kjit__space_free(space);
		kjit__spec_free(spec);
		return 0;
	}

	/* the arguments, as kjit-tune's worker makes them */
	kt_args *ka;
	BENCH_KJIT(kt_args_build(spec, (size_t)problem, &ka));
	const char **names = bench_malloc((spec->n_params + 1) * sizeof *names);
	for (size_t i = 0; i < spec->n_params; i++)
		names[i] = spec->params[i].name;
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_file(e, spec->entry, spec->source_path, names,
	                                        spec->n_params, &k));
	kjit_devptr bufs[MAX_ARGS] = { 0 };
	void *args[MAX_ARGS];
	size_t n_args = 0;
	for (size_t a = 0; a < ka->n; a++) {
		const kt_arg *arg = &ka->a[a];
		if (arg->spec->symbol) {
			BENCH_KJIT(kjit_kernel_set_symbol(k, arg->spec->name, arg->host, arg->bytes));
			continue;
		}
		if (!arg->spec->is_buffer) {
			args[n_args++] = arg->host;
			continue;
		}
		BENCH_KJIT(kjit_mem_alloc(e, arg->bytes + 1, &bufs[a]));
		BENCH_KJIT(kjit_memcpy_htod(e, bufs[a], arg->host, arg->bytes));
		args[n_args++] = &bufs[a];
	}
	double get_ns = 0, measure_ns = 0, best = INFINITY;
	size_t failed = 0;
	uint64_t t0 = bench_now_ns();
	size_t count = limit && limit < space->size ? limit : space->size;
	for (size_t c = 0; c < count; c++) {
		const uint16_t *cfg = kjit__space_config(space, c);
		unsigned grid[3], block[3], sh;
		kjit__config_desc d;
		BENCH_KJIT(kjit__config_desc_make(spec, cfg, &d));
		BENCH_KJIT(kjit__config_dims(spec, (size_t)problem, cfg, grid, block, &sh));
		kjit_variant *v;
		uint64_t t1 = bench_now_ns();
		kjit_status st = kjit_variant_get(k, &d.desc, &v, NULL);
		kjit__config_desc_free(&d);
		uint64_t t2 = bench_now_ns();
		get_ns += (double)(t2 - t1);
		if (st != KJIT_OK) {
			failed++;
			continue;
		}
		kjit_measure_options o;
		kjit_measurement m;
		kjit_measure_options_init(&o);
		o.warmup_ms = 5; /* kjit-tune's default */
		st = kjit_variant_measure(v, grid, block, sh, NULL, args, &o, &m);
		measure_ns += (double)(bench_now_ns() - t2);
		if (st != KJIT_OK) {
			failed++;
			continue;
		}
		if (m.median_ns < best)
			best = m.median_ns;
		kjit_measurement_free(&m);
	}
	double wall = (double)(bench_now_ns() - t0) * 1e-9;
	printf("  %zu configurations (%zu failed) in %.3f s: get %.3f s, measure %.3f s, "
	       "best median %.1f us\n",
	       count, failed, wall, get_ns * 1e-9, measure_ns * 1e-9, best / 1e3);
	bench_result(name, wall, "s", -1, "info");

	for (size_t a = 0; a < ka->n; a++)
		if (bufs[a])
			BENCH_KJIT(kjit_mem_free(e, bufs[a]));
	kt_args_free(ka);
	free(names);
	kjit_engine_close(e);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
