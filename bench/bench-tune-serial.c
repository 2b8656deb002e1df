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
 * Buffers are filled as the spec says (random, constant, sequence; file
 * is refused). Needs a GPU; without one it SKIPs and exits 0.
 */
#include "config.h"

#include <math.h>

#include "benchutil.h"

#define MAX_ARGS 32

static const char *tag = "space";
static size_t limit; /* 0: the whole space */

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-tune-serial SPEC [--problem I] [--tag NAME] [--limit N]\n"
	           "  --limit N   only the first N configurations of the space\n");
}

/* Evaluates a spec expression over the problem's sizes (names, slots). */
static double eval(kjit__expr_ctx *ctx, const char *text, const char *const *names,
                   const kjit__value *slots, size_t n, const char *what)
{
	kjit__expr *x;
	double v;
	BENCH_KJIT(kjit__expr_prepare(ctx, text, names, n, what, &x));
	BENCH_KJIT(kjit__expr_eval(x, slots, &v));
	kjit__expr_free(x);
	return v;
}

static size_t type_size(const char *type)
{
	return strcmp(type, "int32") == 0 || strcmp(type, "uint32") == 0 ||
	               strcmp(type, "float") == 0
	               ? 4 : 8;
}

/* Stores v as type at p. */
static void put(void *p, const char *type, double v)
{
	if (strcmp(type, "float") == 0)
		*(float *)p = (float)v;
	else if (strcmp(type, "double") == 0)
		*(double *)p = v;
	else if (strcmp(type, "int32") == 0)
		*(int32_t *)p = (int32_t)v;
	else if (strcmp(type, "uint32") == 0)
		*(uint32_t *)p = (uint32_t)v;
	else if (strcmp(type, "int64") == 0)
		*(int64_t *)p = (int64_t)v;
	else
		*(uint64_t *)p = (uint64_t)v;
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

	/* names and slots: the problem's sizes, then the parameters */
	const kjit__problem *prob = &spec->problems[problem];
	size_t n_names = prob->n + spec->n_params;
	const char **names = bench_malloc(n_names * sizeof *names);
	kjit__value *slots = bench_malloc(n_names * sizeof *slots);
	for (size_t i = 0; i < prob->n; i++) {
		names[i] = prob->names[i];
		slots[i] = (kjit__value){ .kind = SQLITE_INTEGER, .i = prob->values[i] };
	}
	for (size_t i = 0; i < spec->n_params; i++)
		names[prob->n + i] = spec->params[i].name;
	kjit__expr_ctx *ctx;
	BENCH_KJIT(kjit__expr_ctx_open(&ctx));

	/* the arguments */
	union { int64_t i; double d; char bytes[8]; } scalars[MAX_ARGS];
	kjit_devptr bufs[MAX_ARGS] = { 0 };
	void *args[MAX_ARGS];
	for (size_t a = 0; a < spec->n_args; a++) {
		const kjit__arg *arg = &spec->args[a];
		if (!arg->is_buffer) {
			put(scalars[a].bytes, arg->type,
			    eval(ctx, arg->value, names, slots, prob->n, arg->name));
			args[a] = scalars[a].bytes;
			continue;
		}
		if (arg->fill == KJIT__FILL_FILE)
			bench_die("%s: argument %s: fill \"file\" is not supported here", argv[1],
			          arg->name);
		size_t n = (size_t)eval(ctx, arg->length, names, slots, prob->n, arg->name);
		size_t es = type_size(arg->type);
		char *host = bench_malloc(n * es + 1);
		uint64_t s = arg->seed * 0x9e3779b97f4a7c15u + 1;
		for (size_t i = 0; i < n; i++) {
			double v = arg->constant;
			if (arg->fill == KJIT__FILL_SEQUENCE) {
				v += (double)i;
			} else if (arg->fill == KJIT__FILL_RANDOM) {
				s ^= s << 13, s ^= s >> 7, s ^= s << 17;
				v = (double)(s >> 11) / 9007199254740992.0; /* [0, 1) */
			}
			put(host + i * es, arg->type, v);
		}
		BENCH_KJIT(kjit_mem_alloc(e, n * es + 1, &bufs[a]));
		BENCH_KJIT(kjit_memcpy_htod(e, bufs[a], host, n * es));
		free(host);
		args[a] = &bufs[a];
	}

	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_file(e, spec->entry, spec->source_path,
	                                        (const char *const *)names + prob->n,
	                                        spec->n_params, &k));
	kjit__expr *grid_expr[3], *shared_expr;
	for (int d = 0; d < 3; d++)
		BENCH_KJIT(kjit__expr_prepare(ctx, spec->grid[d], names, n_names, "grid",
		                              &grid_expr[d]));
	BENCH_KJIT(kjit__expr_prepare(ctx, spec->shared, names, n_names, "shared_memory",
	                              &shared_expr));
	kjit_define *defs = bench_malloc((spec->n_params + 1) * sizeof *defs);
	double get_ns = 0, measure_ns = 0, best = INFINITY;
	size_t failed = 0;
	uint64_t t0 = bench_now_ns();
	size_t count = limit && limit < space->size ? limit : space->size;
	for (size_t c = 0; c < count; c++) {
		const uint16_t *cfg = kjit__space_config(space, c);
		unsigned block[3] = { 1, 1, 1 }, grid[3];
		size_t nd = 0;
		for (size_t p = 0; p < spec->n_params; p++) {
			const kjit__param *par = &spec->params[p];
			const kjit__value *v = &par->values[cfg[p]];
			slots[prob->n + p] = *v;
			if (par->roles & KJIT__ROLE_DEFINE)
				defs[nd++] = (kjit_define){ par->name, v->text };
			for (int d = 0; d < 3; d++)
				if (par->roles & (KJIT__ROLE_BLOCK_X << d))
					block[d] = (unsigned)v->i;
		}
		double g, sh;
		for (int d = 0; d < 3; d++) {
			BENCH_KJIT(kjit__expr_eval(grid_expr[d], slots, &g));
			grid[d] = (unsigned)g;
		}
		BENCH_KJIT(kjit__expr_eval(shared_expr, slots, &sh));
		kjit_variant_desc desc = { defs, nd, (const char *const *)spec->flags, spec->n_flags };
		kjit_variant *v;
		uint64_t t1 = bench_now_ns();
		kjit_status st = kjit_variant_get(k, &desc, &v, NULL);
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
		st = kjit_variant_measure(v, grid, block, (unsigned)sh, NULL, args, &o, &m);
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

	for (int d = 0; d < 3; d++)
		kjit__expr_free(grid_expr[d]);
	kjit__expr_free(shared_expr);
	kjit__expr_ctx_close(ctx);
	for (size_t a = 0; a < spec->n_args; a++)
		if (bufs[a])
			BENCH_KJIT(kjit_mem_free(e, bufs[a]));
	free(defs);
	free(names);
	free(slots);
	kjit_engine_close(e);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
