/*
 * main.c - the kjit-tune command: option parsing, tuning on the GPU (tune.c)
 * and the other modes (--count, --compile-only, --replay, --ask, --export). Exit
 * codes are in doc/kjit-tune.1.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "ranks.h"
#include "results.h"
#include "worker.h"
#include "pool.h"
#include "search.h"
#include "wire.h"

/* NVRTC errors shown after a compile-only run. */
#define SHOW_ERRORS 3

static const char *prog = "kjit-tune";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: %s SPEC [options]\n"
	        "\n"
	        "Without a mode: tune SPEC on the GPU, recording every evaluation in the\n"
	        "database; configurations already evaluated there are skipped.\n"
	        "      --db PATH           database (default $KJIT_DB, else the user cache)\n"
	        "      --strategy NAME     search strategy (default: the spec's, else " KJIT_STRATEGY_DEFAULT "\n"
	        "                          with a budget, exhaustive without)\n"
	        "      --strategy-option NAME=VALUE  set an option of the strategy (repeatable;\n"
	        "                          each strategy's options and defaults are below)\n"
	        "      --budget N, --fraction F, --time-budget SEC, --seed S (as for --replay;\n"
	        "                          default: the spec's budget, else none)\n"
	        "      --problem I         only problem I of the spec (default: every one)\n"
	        "      --devices LIST      measure on these GPUs, a worker each: all, or\n"
	        "                          ordinals 0,2,... (default 0; devices of one model)\n"
	        "      --force             evaluate again what the database already has\n"
	        "      --timeout SEC       per variant, then the worker is killed (default 10)\n"
	        "      --early-stop F      stop measuring a variant certainly F times slower\n"
	        "                          than the best so far (default 1.5; 0 off, and the\n"
	        "                          energy race of --objective energy|edp with it)\n"
	        "      --warmup MS         warm-up of each measurement (default 5: in a tuning\n"
	        "                          run the GPU is busy and its clocks up already)\n"
	        "      --measure-budget MS stop measuring a variant after MS of timed runs and\n"
	        "                          6 samples (default 10, 0 off)\n"
	        "      --l2 warm|cold|both L2 cache state for the measurements (default warm)\n"
	        "      --objective OBJ     what the best is the least of: time (median), energy\n"
	        "                          (per launch) or edp (energy x time); results without\n"
	        "                          energy cannot win the last two and are measured\n"
	        "                          again for them; no energy at all exits 1 (default:\n"
	        "                          the spec's objective.metric, else time)\n"
	        "      --profile [best]    profile every configuration that ends ok (counters:\n"
	        "                          bytes, FLOPs, occupancy; energy with an energy\n"
	        "                          objective), or with best each problem's best after\n"
	        "                          its search; stored with the results\n"
	        "      --quiet             print only the final summary\n"
	        "      --json              the summary as JSON on stdout\n"
	        "      --verify MODE       compare each variant's outputs with: default (the\n"
	        "                          default configuration's), reference (the spec's\n"
	        "                          reference kernel's), data (T1 ReferenceArguments)\n"
	        "                          or none (default: the spec's)\n"
	        "      --atol A, --rtol R  tolerance |got - want| <= A + R |want| (default: the\n"
	        "                          spec's, else 1e-6 and 1e-5)\n"
	        "  Statuses: ok, compile_error, launch_error, crashed, timeout, wrong_result,\n"
	        "  stopped_early (see kjit-tune(1)).\n"
	        "\n"
	        "Other modes:\n"
	        "  --count                 print the size of the constrained space and of the\n"
	        "                          unconstrained product, per problem\n"
	        "  --compile-only          compile every valid variant into the cache (no GPU)\n"
	        "      --arch LIST         targets, comma-separated: sm_NN (a cubin each) or\n"
	        "                          compute_NN (PTX, which later GPUs compile)\n"
	        "                          (default $KJIT_ARCH)\n"
	        "      --db PATH           database (default $KJIT_DB, else the user cache)\n"
	        "      --budget N, --fraction F, --seed S  only that many of each problem's\n"
	        "                          valid variants, a random choice of the seed (a\n"
	        "                          space too large to hold needs one)\n"
	        "  -j, --jobs P            compile workers, here and when tuning (default:\n"
	        "                          online CPUs)\n"
	        "      --compile-pool MODE threads, processes (each with its own NVRTC: many\n"
	        "                          compile at once) or auto: processes for more than\n"
	        "                          %d workers (default auto)\n"
	        "      --json              the summary as JSON on stdout\n"
	        "  --replay RESULTS        run a strategy against known results (CSV or JSON)\n"
	        "      --strategy NAME     search strategy (default " KJIT_STRATEGY_DEFAULT ")\n"
	        "      --strategy-option NAME=VALUE  as when tuning\n"
	        "      --budget N          at most N evaluations\n"
	        "      --fraction F        at most this fraction of the space (0 < F <= 1)\n"
	        "      --time-budget SEC   at most this wall time\n"
	        "      --seed S            random seed (default 1)\n"
	        "      --batch B           B proposals outstanding, as with B measuring\n"
	        "                          workers; results arrive in an order of the seed\n"
	        "                          (1 to " KT_STR(KJIT_SEARCH_BATCH_MAX) ", default 1)\n"
	        "      -j P, --gpus G      a simulated clock instead: P compile workers and G\n"
	        "                          GPUs (default 1 each), from the results' columns\n"
	        "                          compile_ms and benchmark_ms; prints the simulated\n"
	        "                          time to within 5%% and 1%% of the best known\n"
	        "      --problem I         problem index of the spec (default 0)\n"
	        "  --replay-db             replay against the results table of the database\n"
	        "                          (--db) for the spec's kernel; also --replay db:PATH\n"
	        "      --device-key KEY    the device of the results (default: the only one)\n"
	        "  --ask                   run a strategy against answers on stdin: each\n"
	        "                          configuration it proposes is a line of value indices\n"
	        "                          on stdout, answered by a line: its objective (lower\n"
	        "                          is better) or fail; --strategy, --strategy-option,\n"
	        "                          --budget, --fraction, --time-budget, --seed,\n"
	        "                          --problem as when tuning\n"
	        "  --export FORMAT         print stored results as csv, json or t4 (BAT's T4\n"
	        "                          format) for the spec's kernel, --device-key and\n"
	        "                          --problem, or of one run with --run ID (uses --db)\n"
	        "\n"
	        "Many hosts (kjit-tune built --with-mpi; see kjit-tune(1), MPI):\n"
	        "  mpirun -n N %s SPEC --mpi [options]\n"
	        "                          rank 0 runs the tuning or --compile-only run and owns\n"
	        "                          --db; the other ranks compile for it and measure on\n"
	        "                          their --devices (default: local rank mod GPU count),\n"
	        "                          each on a database of its own (--db, else\n"
	        "                          $TMPDIR/kjit-UID/mpi.db)\n"
	        "      --mpi-timeout SEC   a rank silent this long is lost; its jobs go to the\n"
	        "                          others (default 10)\n"
	        "\n"
	        "Device limits:\n"
	        "  --max-threads N         threads per block (default the spec's, else "
	        KT_STR(KJIT__MAX_THREADS_DEFAULT) ")\n"
	        "  --max-shared BYTES      dynamic shared memory (default the spec's, else "
	        KT_STR(KJIT__MAX_SHARED_DEFAULT) ";\n"
	        "                          lowered to the GPU's when that is less)\n"
	        "\n"
	        "  -h, --help              this text\n"
	        "  -V, --version           the version\n"
	        "\n"
	        "Strategies:\n", prog, KT_POOL_AUTO_THREADS, prog);
	for (size_t i = 0; i < kjit_strategy_count(); i++) {
		const char *name, *summary;
		char *settings;
		if (kjit_strategy_describe(i, &name, &summary, &settings) != KJIT_OK)
			continue;
		fprintf(f, "  %-12s %s\n", name, summary);
		if (*settings)
			fprintf(f, "  %-12s options: %s\n", "", settings);
		free(settings);
	}
	fprintf(f, "  T1 names (Kernel Tuner's, KTT's: brute_force, bayes_opt, ...) name these too.\n");
	fprintf(f, "\nExit codes: 0 ok, 1 runtime error, 2 usage, 3 spec error, 130 interrupted.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return KT_EXIT_USAGE;
}

/* --strategy: one of kjit-tune's strategies, or a T1 name of one (as a
 * spec's Search.Name); NULL, having said which names there are, when
 * neither. */
static const char *strategy_arg(const char *name)
{
	const char *canonical = kjit_strategy_canonical(name);
	if (canonical)
		return canonical;
	fprintf(stderr, "%s: --strategy: unknown strategy '%s': expected one of", prog, name);
	for (size_t i = 0; i < kjit_strategy_count(); i++) {
		const char *s, *summary;
		if (kjit_strategy_describe(i, &s, &summary, NULL) == KJIT_OK)
			fprintf(stderr, "%s %s", i ? "," : "", s);
	}
	fprintf(stderr, ", or a T1 name of one such as brute_force or bayes_opt\nTry '%s --help'.\n",
	        prog);
	return NULL;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

typedef struct opts {
	const char *spec;
	int count, compile_only, ask;
	const char *arch, *db, *replay, *strategy;
	const char *replay_db; /* the database of --replay-db or --replay db:PATH */
	int replay_from_db;
	size_t batch;          /* --batch; 0: not given */
	size_t gpus;           /* --gpus, the simulated clock's; 0: not given */
	const char *device_key, *export_format;
	uint64_t run_id;
	int jobs;
	kt_pool_mode pool;
	kt_budget budget;
	uint64_t seed, problem;
	int problem_set;
	uint64_t given;      /* given_bit() of each option given */
	/* --strategy-option NAME=VALUE, in order (one past the most, which
	 * kjit_strategy_new() refuses) */
	const char *strategy_args[KJIT_STRATEGY_SETTINGS_MAX + 1];
	size_t n_strategy_args;
	const char *verify; /* NULL, atol and rtol NaN: the spec's */
	double atol, rtol;
	kjit_space_options limits;
	double mpi_timeout;  /* --mpi: a rank silent this long is lost */
	kt_tune_opts tune;
} opts;

/* The limits a space is built with when no device says them. */
static kjit_space_options limits_of(const kjit__spec *spec, const opts *o)
{
	kjit_space_options l = o->limits;
	if (!l.max_threads)
		l.max_threads = spec->max_threads;
	if (!l.max_shared)
		l.max_shared = spec->max_shared;
	return l;
}

/* One problem's count as a line (an estimate says so; one whose draws
 * found nothing says only how many there may be) and as an entry of the
 * --json object in b. */
static void count_out(const kjit__spec *spec, size_t p, int first, int json,
                      const kjit_space_count *c, kjit__buf *b)
{
	char line[200];
	char *key = NULL, *pj = NULL;
	if (kjit_spec_problem_text(spec, p, KJIT_PROBLEM_KEY, &key) != KJIT_OK ||
	    kjit_spec_problem_text(spec, p, KJIT_PROBLEM_JSON, &pj) != KJIT_OK)
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
	const char *name = key && *key ? key : "(none)";
	int none_drawn = isinf(c->rel_error);
	if (!json && none_drawn)
		printf("problem %s: valid unknown (none in random draws: estimated at most about "
		       "%.3g), product %.0f\n", name, c->upper, c->product);
	else if (!json && c->rel_error > 0)
		printf("problem %s: valid about %.4g (estimated from random draws, relative "
		       "standard error %.2g), product %.0f\n", name, c->valid, c->rel_error, c->product);
	else if (!json)
		printf("problem %s: valid %.0f, product %.0f\n", name, c->valid, c->product);
	kjit__buf_str(b, first ? "{\"problem\": " : ", {\"problem\": ");
	kjit__buf_str(b, pj ? pj : "null");
	if (none_drawn)
		snprintf(line, sizeof line, ", \"valid\": null, \"product\": %.0f, \"estimated\": true, "
		         "\"relative_error\": null, \"valid_at_most\": %.3g}", c->product, c->upper);
	else
		snprintf(line, sizeof line, ", \"valid\": %.0f, \"product\": %.0f, \"estimated\": %s, "
		         "\"relative_error\": %.3g}", c->valid, c->product,
		         c->rel_error > 0 ? "true" : "false", c->rel_error);
	kjit__buf_str(b, line);
	free(key);
	free(pj);
}

/* --count: each problem's space (only --problem's when given), as lines
 * or with --json one object {"spec", "problems": [{"problem", "valid",
 * "product", "estimated", "relative_error"}]} ("valid" null and
 * "valid_at_most" where random draws found none); a problem with no
 * valid configuration (by an exact count) is a spec error, said after
 * the counts. */
static int do_count(const kjit__spec *spec, const opts *o)
{
	if (o->problem_set && o->problem >= spec->n_problems)
		return usage_error("--problem: the spec %s has fewer problems", spec->path);
	size_t first = o->problem_set ? (size_t)o->problem : 0;
	size_t end = o->problem_set ? first + 1 : spec->n_problems;
	size_t empty = 0; /* 1 + the first problem with no valid configuration */
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "{\"spec\": ");
	kjit__buf_json_str(&b, spec->path);
	kjit__buf_str(&b, ", \"problems\": [");
	for (size_t p = first; p < end; p++) {
		kjit_space_count c;
		if (kjit_spec_count(spec, p, &o->limits, &c) != KJIT_OK) {
			fprintf(stderr, "%s: %s: %s\n", prog, spec->path, kjit_last_error());
			free(kjit__buf_done(&b));
			return KT_EXIT_SPEC;
		}
		count_out(spec, p, p == first, o->tune.json, &c, &b);
		if (c.valid == 0 && c.rel_error == 0 && !empty)
			empty = p + 1;
	}
	kjit__buf_str(&b, "]}");
	char *text = kjit__buf_done(&b);
	if (o->tune.json)
		printf("%s\n", text ? text : "null");
	free(text);
	if (!empty)
		return KT_EXIT_OK;
	kjit_space_options l = limits_of(spec, o);
	kt_space_empty(spec, empty - 1, &l);
	fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
	return KT_EXIT_SPEC;
}

/* ---- compile-only ---------------------------------------------------------- */

/* Targets of one --arch list (more would be a typo, not a plan); the
 * message of open_targets() says the number. */
#define MAX_TARGETS 16

/* A configuration to compile, and its compile options as text (the key
 * that makes configurations of several problems compile once). */
typedef struct variant {
	char *text;
	uint16_t *config;
} variant;

static int cmp_variant(const void *a, const void *b)
{
	return strcmp(((const variant *)a)->text, ((const variant *)b)->text);
}

static void variant_free(variant *v)
{
	free(v->text);
	free(v->config);
}

static void variants_free(variant *vs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		variant_free(&vs[i]);
	free(vs);
}

/* Which of size configurations a budget of n takes: a uniform random
 * choice of the seed, as a byte per configuration (NULL: out of memory).
 * Draws the smaller of the chosen and the left out, so that it ends soon. */
static uint8_t *budget_pick(size_t size, size_t n, uint64_t seed)
{
	uint8_t *in = malloc(size + 1);
	int flip = n > size / 2;  /* draw the ones left out instead */
	kjit__rng rng;
	if (!in)
		return NULL;
	memset(in, flip, size);
	kjit__rng_seed(&rng, seed);
	for (size_t k = 0, want = flip ? size - n : n; k < want;) {
		size_t i = (size_t)kjit__rng_below(&rng, size);
		if (in[i] == flip) {
			in[i] = (uint8_t)!flip;
			k++;
		}
	}
	return in;
}

/* The valid configurations of every problem (a restriction may read a
 * size), each once, into *out (n_out of them; the caller frees them with
 * variants_free()); with a budget, that many of each problem's, a random
 * choice of --seed (of a random sample where the space is too large to
 * hold). Returns an exit code. */
static int collect_variants(const kjit__spec *spec, const opts *o, variant **out, size_t *n_out)
{
	variant *vs = NULL;
	size_t n = 0, cap = 0;
	int budgeted = o->budget.evaluations || o->budget.fraction > 0;
	kjit_space_options lim = o->limits;
	*out = NULL;
	*n_out = 0;
	if (budgeted) {
		lim.sample = KJIT__SPACE_SAMPLE;
		lim.seed = o->seed;
	}
	for (size_t p = 0; p < spec->n_problems; p++) {
		kjit__space *space;
		uint8_t *in = NULL;
		if (kjit_space_build(spec, p, &lim, &space) != KJIT_OK) {
			fprintf(stderr, "%s: %s: %s\n", prog, spec->path, kjit_last_error());
			variants_free(vs, n);
			return KT_EXIT_SPEC;
		}
		if (space->size == 0) {
			kjit_space_options l = limits_of(spec, o);
			kjit_space_free(space);
			kt_space_empty(spec, p, &l);
			fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
			variants_free(vs, n);
			return KT_EXIT_SPEC;
		}
		if (budgeted &&
		    !(in = budget_pick(space->size, kt_budget_evaluations(&o->budget, space->size),
		                       o->seed + p))) {
			kjit_space_free(space);
			variants_free(vs, n);
			fprintf(stderr, "%s: out of memory\n", prog);
			return KT_EXIT_RUNTIME;
		}
		for (size_t i = 0; i < space->size; i++) {
			if (in && !in[i])
				continue;
			variant v = { NULL, malloc((spec->n_params + 1) * sizeof *v.config) };
			if (v.config && kt_space_config(space, i, v.config) == KJIT_OK)
				v.text = kt_variant_text(spec, v.config);
			variant *nv = n == cap ? realloc(vs, (cap = cap ? 2 * cap : 256) * sizeof *nv)
			                       : vs;
			if (nv)
				vs = nv;
			if (!v.text || !v.config || !nv) {
				variant_free(&v);
				kjit_space_free(space);
				free(in);
				variants_free(vs, n);
				fprintf(stderr, "%s: out of memory\n", prog);
				return KT_EXIT_RUNTIME;
			}
			vs[n++] = v;
		}
		kjit_space_free(space);
		free(in);
	}
	if (n)
		qsort(vs, n, sizeof *vs, cmp_variant);
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && strcmp(vs[u - 1].text, vs[i].text) == 0)
			variant_free(&vs[i]);
		else
			vs[u++] = vs[i];
	}
	n = u;
	/* Processes compiling one space at once work on it in different orders,
	 * so that each finds much of the others' work already stored. */
	uint64_t r = kjit__now_ns() ^ ((uint64_t)getpid() << 32);
	for (size_t i = n; i > 1; i--) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		size_t k = (size_t)((r >> 33) % i);
		variant t = vs[i - 1];
		vs[i - 1] = vs[k];
		vs[k] = t;
	}
	*out = vs;
	*n_out = n;
	return KT_EXIT_OK;
}

/* One target of --compile-only: its engine on the database (compile
 * only, for that arch) and the spec's kernel there. */
typedef struct target {
	const char *arch;
	kjit_engine *engine;
	kjit_kernel *kernel;
} target;

/* Splits the --arch list (commas, in buf: a copy the caller frees) into
 * targets[] and opens each one's engine and kernel; nothing is compiled
 * until every target is known good. Returns an exit code: usage for a
 * target that is empty, given twice or not an arch NVRTC compiles for,
 * naming it. */
static int open_targets(const kjit__spec *spec, const opts *o, const char *list, char **buf,
                        target *targets, size_t *n)
{
	*n = 0;
	if (!(*buf = strdup(list))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return KT_EXIT_RUNTIME;
	}
	for (char *s = *buf, *comma; s; s = comma) {
		if ((comma = strchr(s, ',')))
			*comma++ = '\0';
		if (!*s)
			return usage_error("--arch '%s': an empty target (expected sm_NN or "
			                   "compute_NN, separated by commas)", list);
		for (size_t i = 0; i < *n; i++)
			if (strcmp(targets[i].arch, s) == 0)
				return usage_error("--arch: target %s given twice", s);
		if (*n == MAX_TARGETS)
			return usage_error("--arch '%s': too many targets (16 at most)", list);
		targets[(*n)++] = (target){ s, NULL, NULL };
	}
	char *def = NULL;
	if (!o->db && kjit_store_default_path(&def) != KJIT_OK)
		return usage_error("%s; or give one with --db PATH", kjit_last_error());
	free(def);
	int ret = KT_EXIT_OK;
	for (size_t t = 0; t < *n && ret == KT_EXIT_OK; t++) {
		kjit_engine_options eo;
		kjit_engine_options_init(&eo);
		eo.db_path = o->db;
		eo.arch = targets[t].arch;
		eo.compile_threads = o->jobs;
		eo.flags = KJIT_ENGINE_NO_GPU;
		kjit_status st = kjit_engine_open(&eo, &targets[t].engine);
		if (st == KJIT_OK)
			st = kjit_spec_kernel(targets[t].engine, spec, 0, &targets[t].kernel);
		if (st == KJIT_ERR_INVALID_ARG && !targets[t].engine) {
			ret = usage_error("--arch: %s", kjit_last_error());
		} else if (st != KJIT_OK) {
			fprintf(stderr, "%s: %s: %s\n", prog, targets[t].arch, kjit_last_error());
			ret = KT_EXIT_RUNTIME;
		}
	}
	return ret;
}

/* What one target's run found, for its summary. */
typedef struct compile_tally {
	size_t done, failed;
	size_t compiled, cached;     /* of the variants stored: NVRTC ran, or a cache hit */
	size_t n_other;              /* failures not a variant's compile or link error */
	char *other;                 /* the first of those, malloc'ed */
	size_t n_kept;
	char *kept[SHOW_ERRORS];     /* the first failures' logs, malloc'ed */
	int broken;                  /* the database failed for good: the run stopped */
} compile_tally;

static atomic_int interrupted; /* set by the signal handler: lock-free */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Takes the answer of j into t and frees its log. A database that failed
 * for good is said at once, here, and stops the run. */
static void tally_job(compile_tally *t, const char *arch, kt_compile_job *j)
{
	t->done++;
	t->compiled += j->status == KJIT_OK && j->compiled;
	t->cached += j->status == KJIT_OK && !j->compiled;
	if (j->status != KJIT_OK)
		t->failed++;
	if (j->broken) {
		t->broken = 1;
		fprintf(stderr, "%s: %s: stopping: the database cannot keep binaries: %s\n", prog,
		        arch, j->error ? j->error : kjit_status_str(j->status));
	} else if (j->status != KJIT_OK) {
		if (j->status != KJIT_ERR_COMPILE && j->status != KJIT_ERR_LINK && !t->n_other++)
			t->other = strdup(j->error ? j->error : kjit_status_str(j->status));
		if (t->n_kept < SHOW_ERRORS && j->error) {
			t->kept[t->n_kept++] = j->error;
			j->error = NULL;
		}
	}
	free(j->error);
	j->error = NULL;
}

/* Compiles the n variants for arch on pool, a window ahead, with a
 * progress line: on a terminal at most every 0.1 s, else every 10 s and at
 * the end. Returns 1 when stopped (Ctrl-C, SIGTERM, a database that
 * failed for good): the jobs not compiled are dropped; what was stored
 * stays. */
static int compile_all(kt_pool *pool, const char *arch, const variant *vs, size_t n, int quiet,
                       compile_tally *t)
{
	kt_compile_job *jobs = calloc(n + 1, sizeof *jobs);
	if (!jobs) {
		t->n_other = n;
		t->failed = t->done = n;
		t->other = strdup("out of memory");
		return 0;
	}
	int tty = isatty(STDERR_FILENO);
	uint64_t t0 = kjit__now_ns(), shown = t0;
	size_t next = 0;
	while (t->done < n && !interrupted) {
		for (size_t w = kt_pool_window(pool, 0); next < n && next - t->done < w; next++) {
			jobs[next].config = vs[next].config;
			kt_pool_submit(pool, &jobs[next]);
		}
		/* a job that failed for the interrupt (its worker stopped) is not counted */
		if (!kt_pool_wait(pool, &jobs[t->done], &interrupted, NULL) ||
		    (interrupted && jobs[t->done].status != KJIT_OK &&
		     jobs[t->done].status != KJIT_ERR_COMPILE && jobs[t->done].status != KJIT_ERR_LINK))
			break;
		if (tty && !quiet && jobs[t->done].broken)
			fprintf(stderr, "\r\033[K");
		tally_job(t, arch, &jobs[t->done]);
		if (t->broken)
			break;
		uint64_t now = kjit__now_ns();
		double el = (double)(now - t0) * 1e-9, rate = el > 0 ? (double)t->done / el : 0;
		if (!quiet && (t->done == n || now - shown >= (tty ? 100000000ull : 10000000000ull))) {
			fprintf(stderr, "%s%s: %s %zu/%zu variants, %zu failed, %.1f/s, %.0f s, ETA %.0f s%s",
			        tty ? "\r\033[K" : "", prog, arch, t->done, n, t->failed, rate, el,
			        rate > 0 ? (double)(n - t->done) / rate : 0, tty ? "" : "\n");
			shown = now;
		}
	}
	int stopped = t->done < n;
	if (stopped)
		kt_pool_drop(pool, 1);
	for (size_t i = t->done; i < next; i++)
		free(jobs[i].error);
	free(jobs);
	if (tty && !quiet && n)
		fprintf(stderr, "\n");
	return stopped;
}

/* The jobs each rank did (with --mpi): a line "ranks: 0 on HOST 12 (12
 * compiled), ..." of the summary, or the JSON array "ranks". */
static void put_ranks(kjit__buf *b, kt_pool *pool, int json)
{
	char host[256] = "", s[384];
	gethostname(host, sizeof host - 1);
	kjit__buf_str(b, json ? ", \"ranks\": [" : "ranks:");
	for (int r = 0; r < kt_mpi_size(); r++) {
		size_t compiled = 0, jobs = kt_pool_rank_jobs(pool, r, &compiled);
		const kt_role *role = kt_mpi_role(r);
		const char *h = r == 0 ? host : role ? role->host : "?";
		if (json) {
			snprintf(s, sizeof s, "%s{\"rank\": %d, \"host\": ", r ? ", " : "", r);
			kjit__buf_str(b, s);
			kjit__buf_json_str(b, h);
			snprintf(s, sizeof s, ", \"jobs\": %zu, \"compiled\": %zu}", jobs, compiled);
		} else {
			snprintf(s, sizeof s, "%s %d on %s %zu (%zu compiled)", r ? "," : "", r, h, jobs,
			         compiled);
		}
		kjit__buf_str(b, s);
	}
	kjit__buf_str(b, json ? "]" : "\n");
}

/* Compiles the n variants for one target on a compile pool, with its
 * progress line and summary line, or its object of the --json summary in
 * json. Returns an exit code; *broken is set when the database failed for
 * good (the next target's binaries cannot be kept either). */
static int compile_target(const kjit__spec *spec, const opts *o, const variant *vs, size_t n,
                          const target *t, kjit__buf *json, int *broken)
{
	compile_tally tally = { 0 };
	kt_pool_opts po = { .spec = spec, .spec_path = o->spec, .engine = t->engine,
		            .kernel = t->kernel, .workers = o->jobs, .mode = o->pool };
	kt_pool *pool = NULL;
	if (kt_pool_open(&po, &pool) != KJIT_OK) {
		fprintf(stderr, "%s: %s: %s\n", prog, t->arch, kjit_last_error());
		return KT_EXIT_RUNTIME;
	}
	int stopped = compile_all(pool, t->arch, vs, n, o->tune.quiet, &tally);
	kt_pool_stats ps;
	kt_pool_get_stats(pool, &ps);
	/* what was taken, not what the pool did ahead: an interrupted run
	 * counts only the variants it saw stored or failed */
	size_t compiled = tally.compiled, cached = tally.cached;
	const char *kind = kjit_engine_binary_kind(t->engine) == KJIT_BINARY_PTX ? "PTX" : "cubin";
	kjit__buf b = { 0 };
	char line[512];
	if (json) {
		snprintf(line, sizeof line, "{\"arch\": \"%s\", \"kind\": \"%s\", \"variants\": %zu, "
		         "\"compiled\": %zu, \"cached\": %zu, \"failed\": %zu, \"interrupted\": %s, "
		         "\"database_failed\": %s, \"pool\": \"%s\", \"workers\": %d", t->arch, kind, n,
		         compiled, cached, tally.failed, stopped && !tally.broken ? "true" : "false",
		         tally.broken ? "true" : "false", ps.mode, ps.workers);
		kjit__buf_str(json, line);
		put_ranks(json, pool, 1);
		kjit__buf_str(json, "}");
	} else {
		printf("variants %zu: compiled %zu, cached %zu, failed %zu (arch %s, %s, db %s)%s\n", n,
		       compiled, cached, tally.failed, t->arch, kind, kjit_engine_db_path(t->engine),
		       tally.broken ? ", stopped: the database failed" : stopped ? ", interrupted" : "");
		if (o->tune.mpi) {
			put_ranks(&b, pool, 0);
			char *text = kjit__buf_done(&b);
			fputs(text ? text : "", stdout);
			free(text);
		}
	}
	kt_pool_close(pool);
	/* arguments that do not fit: the spec's fault, said once */
	int refused = !tally.broken && !stopped && tally.n_other && n &&
	              kt_pool_args_refused(t->kernel, spec, vs[0].config);
	for (size_t i = 0; i < tally.n_kept; i++) {
		if (!refused)
			fprintf(stderr, "%s: %s: failed variant %zu: %s\n", prog, t->arch, i + 1,
			        tally.kept[i]);
		free(tally.kept[i]);
	}
	/* A variant that does not compile is a result; nothing compiled, or a
	 * failure of anything else (the database, an option), is not. */
	int ret = KT_EXIT_OK;
	if (tally.broken) {
		*broken = 1;
		ret = KT_EXIT_RUNTIME; /* said when it happened */
	} else if (stopped) {
		ret = KT_EXIT_INTERRUPTED;
	} else if (refused) {
		fprintf(stderr, "%s: %s: %s\n", prog, spec->path,
		        tally.other ? tally.other : kjit_last_error());
		ret = KT_EXIT_SPEC;
	} else if (tally.n_other) {
		fprintf(stderr, "%s: %s: %zu variants failed for another reason than their own "
		        "compile error; the first: %s\n", prog, t->arch, tally.n_other,
		        tally.other ? tally.other : "out of memory");
		ret = KT_EXIT_RUNTIME;
	} else if (n && tally.failed == n) {
		fprintf(stderr, "%s: %s: no variant compiled\n", prog, t->arch);
		ret = KT_EXIT_RUNTIME;
	}
	free(tally.other);
	return ret;
}

/* --compile-only: every variant for each target of --arch, one after
 * the other, on one database; Ctrl-C stops it. */
static int do_compile(const kjit__spec *spec, const opts *o)
{
	const char *list = o->arch ? o->arch : kjit__env(KJIT__ENV_ARCH);
	if (!list || !*list) {
		fprintf(stderr, "%s: --compile-only needs a target arch: give one with --arch sm_NN "
		        "or $KJIT_ARCH (a list such as sm_80,sm_90,compute_90 for several)\n", prog);
		return KT_EXIT_USAGE;
	}
	target targets[MAX_TARGETS];
	size_t n_targets = 0, n = 0;
	char *buf = NULL;
	variant *vs = NULL;
	int ret = open_targets(spec, o, list, &buf, targets, &n_targets);
	if (ret == KT_EXIT_OK)
		ret = collect_variants(spec, o, &vs, &n);
	int ready = ret == KT_EXIT_OK;
	kjit__buf json = { 0 };
	if (ready && o->tune.json) {
		kjit__buf_str(&json, "{\"spec\": ");
		kjit__buf_json_str(&json, spec->path);
		kjit__buf_str(&json, ", \"db\": ");
		kjit__buf_json_str(&json, kjit_engine_db_path(targets[0].engine));
		kjit__buf_str(&json, ", \"targets\": [");
	}
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int broken = 0;
	for (size_t t = 0; ready && t < n_targets && ret != KT_EXIT_INTERRUPTED && !broken; t++) {
		if (t && o->tune.json)
			kjit__buf_str(&json, ", ");
		int r = compile_target(spec, o, vs, n, &targets[t], o->tune.json ? &json : NULL,
		                       &broken);
		ret = ret == KT_EXIT_OK || r == KT_EXIT_INTERRUPTED ? r : ret;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (ready && o->tune.json) {
		kjit__buf_str(&json, "]}");
		char *text = kjit__buf_done(&json);
		printf("%s\n", text ? text : "null");
		free(text);
	}
	for (size_t t = 0; t < n_targets; t++)
		kjit_engine_close(targets[t].engine);
	variants_free(vs, n);
	free(buf);
	return ret;
}

/* ---- replay ------------------------------------------------------------------ */

/* A refusal of the record room that --device-key answers: without one,
 * the kernel's results are on several devices. */
static kjit_status device_hint(kjit_status st, const opts *o)
{
	if (st != KJIT_ERR_INVALID_ARG || o->device_key)
		return st;
	char *msg = kjit__strdup_printf("%s (--device-key KEY)", kjit_last_error());
	if (msg) {
		kjit__error(st, "%s", msg);
		free(msg);
	}
	return st;
}

/* The objective table from the database's results of the spec's kernel. */
static kjit_status load_from_db(const kjit__spec *spec, const kjit__space *space, const opts *o,
                                double **obj, size_t *ignored)
{
	kjit_records *res = NULL;
	char *sig = NULL;
	kjit_status st = kjit_spec_signature(spec, &sig);
	if (st == KJIT_OK)
		st = kjit_records_open(o->replay_db, 1, &res);
	if (st == KJIT_OK)
		st = device_hint(kjit_record_load(res, space, sig, o->device_key,
		                                  kt_objective_of(&o->tune, spec), obj, NULL, ignored),
		                 o);
	free(sig);
	kjit_records_close(res);
	return st;
}

/* The results to replay against, and the simulated clock's costs when
 * -j or --gpus ask for it (a CSV with the columns compile_ms and
 * benchmark_ms). */
static kjit_status replay_load(const kjit__spec *spec, const kjit__space *space, const opts *o,
                               double **obj, double **costs, size_t *ignored)
{
	int clock = o->jobs || o->gpus;
	if (o->replay_from_db && clock)
		return kjit__error(KJIT_ERR_INVALID_ARG, "the simulated clock (-j, --gpus) needs "
		                   "a results file with compile_ms and benchmark_ms, not the database");
	if (o->replay_from_db)
		return load_from_db(spec, space, o, obj, ignored);
	if (!clock)
		return kt_replay_load(space, o->replay, obj, ignored);
	kjit_status st = kt_replay_load_costs(space, o->replay, obj, &costs[0], &costs[1], ignored);
	if (st == KJIT_OK && !costs[0])
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: the simulated clock (-j, --gpus) needs "
		                 "the columns compile_ms and benchmark_ms", o->replay);
	return st;
}

/* The lines of a replay: what ran, what it found, and how soon it came
 * within 5% and 1% of the best known (the second from a replay of the
 * same seed, which runs the same way). */
static kjit_status replay_print(const kjit__space *space, const kjit_strategy *strategy,
                                const opts *o, kt_replay_opts *ro, const double *obj,
                                const kt_replay_result *r, size_t ignored)
{
	size_t missing = 0;
	for (size_t i = 0; i < space->size; i++)
		missing += isinf(obj[i]);
	printf("strategy %s, seed %llu, budget %zu of %zu configurations\n",
	       kjit_strategy_name(strategy),
	       (unsigned long long)o->seed, kt_budget_evaluations(&o->budget, space->size),
	       space->size);
	if (o->batch > 1)
		printf("batch: %zu proposals outstanding\n", o->batch);
	if (ro->compile_ms)
		printf("simulated clock: %zu compile workers, %zu GPUs; %.1f simulated seconds in "
		       "all\n", ro->workers, ro->gpus, r->seconds);
	printf("results: %zu rows outside the space, %zu configurations without a time\n",
	       ignored, missing);
	printf("evaluations: %zu\n", r->evaluations);
	if (r->best_found < 0) {
		printf("best found: none (every evaluated configuration failed)\n");
	} else {
		char *c = NULL;
		kjit_space_config_json(space, (size_t)r->best_found, &c);
		printf("best found: %s %g after %zu evaluations\n", c ? c : "?", r->best_found_value,
		       r->evals_to_found);
		free(c);
	}
	if (r->best_known < 0)
		return KJIT_OK;
	char *c = NULL;
	kjit_space_config_json(space, (size_t)r->best_known, &c);
	printf("best known: %s %g\n", c ? c : "?", r->best_known_value);
	free(c);
	if (r->evals_to_known)
		printf("reached the best after %zu evaluations\n", r->evals_to_known);
	else
		printf("did not reach the best\n");
	kt_replay_result r1 = *r;
	for (int percent = 5; percent >= 1; percent -= 4) {
		ro->within = percent / 100.0;
		ro->until = 1;
		kjit_status st = percent == 5 ? KJIT_OK : kt_replay(space, strategy, ro, obj, &r1);
		if (st != KJIT_OK)
			return st;
		if (!r1.evals_to_within)
			printf("within %d%%: not reached\n", percent);
		else if (ro->compile_ms)
			printf("within %d%%: after %zu evaluations, %.1f simulated seconds\n", percent,
			       r1.evals_to_within, r1.seconds_to_within);
		else
			printf("within %d%%: after %zu evaluations\n", percent, r1.evals_to_within);
	}
	return KJIT_OK;
}

/* The space of --problem under lim into *out: KT_EXIT_OK, or the exit code
 * with the error printed (none with a problem the spec lacks, a space that
 * cannot be built or one with no valid configuration). */
static int problem_space(const kjit__spec *spec, const opts *o, const kjit_space_options *lim,
                         kjit__space **out)
{
	*out = NULL;
	if (o->problem >= spec->n_problems)
		return usage_error("--problem: the spec %s has fewer problems", spec->path);
	if (kjit_space_build(spec, (size_t)o->problem, lim, out) != KJIT_OK) {
		fprintf(stderr, "%s: %s: %s\n", prog, spec->path, kjit_last_error());
		return KT_EXIT_SPEC;
	}
	if ((*out)->size == 0) {
		kjit_space_free(*out);
		*out = NULL;
		kt_space_empty(spec, (size_t)o->problem, lim);
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
		return KT_EXIT_SPEC;
	}
	return KT_EXIT_OK;
}

static int do_replay(const kjit__spec *spec, const opts *o)
{
	kjit_strategy *strategy = NULL;
	kjit__space *space = NULL;
	double *obj = NULL, *costs[2] = { NULL, NULL };
	size_t ignored;
	kt_replay_result r;
	int ret = kt_strategy_make(o->strategy ? o->strategy : KJIT_STRATEGY_DEFAULT, spec,
	                           &o->budget, o->strategy_args, o->n_strategy_args, &strategy);
	if (ret != KT_EXIT_OK)
		return ret;
	kjit_space_options l = limits_of(spec, o);
	if ((ret = problem_space(spec, o, &l, &space)) != KT_EXIT_OK) {
		kjit_strategy_free(strategy);
		return ret;
	}
	ret = KT_EXIT_RUNTIME;
	kt_replay_opts ro = { .budget = &o->budget, .seed = o->seed, .batch = o->batch,
		              .within = 0.05, .compile_ms = NULL, .measure_ms = NULL,
		              .workers = o->jobs ? (size_t)o->jobs : 1, .gpus = o->gpus ? o->gpus : 1 };
	if (replay_load(spec, space, o, &obj, costs, &ignored) == KJIT_OK) {
		ro.compile_ms = costs[0];
		ro.measure_ms = costs[1];
		if (kt_replay(space, strategy, &ro, obj, &r) == KJIT_OK &&
		    replay_print(space, strategy, o, &ro, obj, &r, ignored) == KJIT_OK)
			ret = KT_EXIT_OK;
	}
	if (ret != KT_EXIT_OK)
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
	free(obj);
	free(costs[0]);
	free(costs[1]);
	kjit_strategy_free(strategy);
	kjit_space_free(space);
	return ret;
}

/* ---- ask --------------------------------------------------------------------- */

static int do_ask(const kjit__spec *spec, const opts *o)
{
	kjit_strategy *strategy = NULL;
	kjit__space *space = NULL;
	int ret = kt_strategy_make(o->strategy, spec, &o->budget, o->strategy_args,
	                           o->n_strategy_args, &strategy);
	if (ret != KT_EXIT_OK)
		return ret;
	kjit_space_options l = limits_of(spec, o);
	if ((ret = problem_space(spec, o, &l, &space)) == KT_EXIT_OK &&
	    kt_ask(space, strategy, &o->budget, o->seed, stdin, stdout) != KJIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
		ret = KT_EXIT_RUNTIME;
	}
	kjit_strategy_free(strategy);
	kjit_space_free(space);
	return ret;
}

/* ---- export ------------------------------------------------------------------ */

static int do_export(const kjit__spec *spec, const opts *o)
{
	kt_export_format fmt;
	if (strcmp(o->export_format, "csv") == 0)
		fmt = KT_EXPORT_CSV;
	else if (strcmp(o->export_format, "json") == 0)
		fmt = KT_EXPORT_JSON;
	else if (strcmp(o->export_format, "t4") == 0)
		fmt = KT_EXPORT_T4;
	else
		return usage_error("--export: expected csv, json or t4, got '%s'", o->export_format);
	if (o->problem >= spec->n_problems)
		return usage_error("--problem: the spec %s has fewer problems", spec->path);
	kjit_records *res = NULL;
	char *sig = NULL, *problem = NULL;
	kjit_status st = kjit_spec_problem_text(spec, o->problem, KJIT_PROBLEM_JSON, &problem);
	if (st == KJIT_OK)
		st = kjit_spec_signature(spec, &sig);
	if (st == KJIT_OK)
		st = kjit_records_open(o->db, 1, &res);
	if (st == KJIT_OK) {
		const char *problems[1] = { problem };
		st = device_hint(kt_results_export(res, spec, (int64_t)o->run_id, sig,
		                                   o->device_key, problems, 1, fmt, stdout), o);
		if (fflush(stdout) != 0 && st == KJIT_OK)
			st = kjit__error(KJIT_ERR_IO, "writing to stdout: %s", strerror(errno));
	}
	if (st != KJIT_OK)
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
	free(sig);
	free(problem);
	kjit_records_close(res);
	return st == KJIT_OK ? KT_EXIT_OK : KT_EXIT_RUNTIME;
}

/* --mpi: tells the other ranks the run (the spec by its real path, which
 * every host reads) and hears their roles. Returns an exit code. */
static int mpi_setup(const kjit__spec *spec, const opts *o)
{
	char *sig = NULL, *path = realpath(o->spec, NULL);
	int ret = KT_EXIT_RUNTIME;
	if (!path)
		fprintf(stderr, "%s: %s: %s\n", prog, o->spec, strerror(errno));
	else if (kjit_spec_signature(spec, &sig) != KJIT_OK)
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
	else {
		kt_setup s = { .spec_path = path, .signature = sig, .verify = spec->verify,
			       .atol = spec->atol, .rtol = spec->rtol,
			       .compile_only = o->compile_only };
		ret = kt_mpi_setup(&s, o->db, o->tune.quiet);
	}
	free(path);
	free(sig);
	return ret;
}

/* Reads the spec and runs the mode the options name. */
static int run(opts *o)
{
	kjit__spec *spec;
	if (o->strategy && !(o->strategy = strategy_arg(o->strategy)))
		return KT_EXIT_USAGE;
	if (kjit_spec_load(o->spec, &spec) != KJIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
		return KT_EXIT_SPEC;
	}
	/* what the reader could not use, whatever the mode and --quiet: a
	 * field ignored changes what is tuned */
	for (size_t i = 0; i < spec->n_warnings; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, spec->warnings[i]);
	int ret = KT_EXIT_SPEC;
	int space_only = o->count || o->ask; /* the kernel is not compiled */
	if (kt_verify_override(spec, o->verify, o->atol, o->rtol) != KJIT_OK) {
		fprintf(stderr, "%s: %s\nTry '%s --help'.\n", prog, kjit_last_error(), prog);
		ret = KT_EXIT_USAGE;
	} else if (spec->source_missing && !space_only) {
		fprintf(stderr, "%s: %s\n", prog, spec->source_missing);
	} else if (access(spec->source_path, R_OK) != 0 && !space_only) {
		fprintf(stderr, "%s: %s: kernel source %s: %s\n", prog, spec->path,
		        spec->source_path, strerror(errno));
	} else if (spec->unrunnable && !space_only && !o->export_format) {
		fprintf(stderr, "%s: %s; --count reads its space\n", prog, spec->unrunnable);
	} else if (o->tune.mpi && (ret = mpi_setup(spec, o)) != KT_EXIT_OK) {
		/* a rank cannot take part: kt_mpi_setup() said which and why */
	} else if (o->count) {
		/* a space is counted without its kernel, but not silently */
		if (access(spec->source_path, R_OK) != 0)
			fprintf(stderr, "%s: warning: %s: kernel source %s: %s (the space is counted; "
			        "nothing can be compiled)\n", prog, spec->path, spec->source_path,
			        strerror(errno));
		else if (spec->unrunnable)
			fprintf(stderr, "%s: warning: %s (the space is counted; nothing can be "
			        "compiled)\n", prog, spec->unrunnable);
		ret = do_count(spec, o);
	} else if (o->compile_only) {
		ret = do_compile(spec, o);
	} else if (o->replay) {
		ret = do_replay(spec, o);
	} else if (o->ask) {
		ret = do_ask(spec, o);
	} else if (o->export_format) {
		ret = do_export(spec, o);
	} else {
		o->tune.spec_path = o->spec;
		o->tune.db = o->db;
		o->tune.strategy = o->strategy;
		o->tune.strategy_args = o->strategy_args;
		o->tune.n_strategy_args = o->n_strategy_args;
		o->tune.budget = o->budget;
		o->tune.seed = o->seed;
		o->tune.problem = o->problem_set ? (int64_t)o->problem : -1;
		o->tune.limits = o->limits;
		o->tune.jobs = o->jobs;
		o->tune.pool = o->pool;
		ret = kt_tune(spec, &o->tune);
	}
	kjit_spec_free(spec);
	return ret;
}

/* --mpi-timeout: seconds from 1 to 3600, else -1. */
static double parse_mpi_timeout(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	return *end || end == s || !(v >= 1 && v <= 3600) ? -1 : v;
}

/* --mpi: MPI_Init_thread(); then rank 0 runs the mode (run()) and a rank
 * other than 0 serves rank 0 with rank 0's spec and mode, and this host's
 * database, devices and cores. Returns the exit code. */
static int run_mpi(opts *o, int *argc, char ***argv)
{
	kjit_status st = kt_mpi_init(argc, argv, o->mpi_timeout);
	if (st == KJIT_ERR_INVALID_ARG)
		return usage_error("%s", kjit_last_error());
	if (st != KJIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
		return KT_EXIT_RUNTIME;
	}
	kt_serve_opts so = { .db = o->db, .devices = &o->tune.devices, .jobs = o->jobs,
		             .pool = o->pool };
	int ret = kt_mpi_rank() == 0 ? run(o) : kt_mpi_serve(&so);
	kt_mpi_finalize();
	return ret;
}

/* The long options of kjit-tune, past the ASCII of the short ones. */
enum { O_COUNT = 256, O_COMPILE, O_ARCH, O_DB, O_REPLAY, O_STRATEGY, O_BUDGET,
       O_FRACTION, O_TIME, O_SEED, O_PROBLEM, O_MAXT, O_MAXS, O_REPLAY_DB, O_DEVKEY,
       O_EXPORT, O_RUN, O_FORCE, O_TIMEOUT, O_EARLY, O_WARMUP, O_MBUDGET, O_L2, O_QUIET, O_JSON,
       O_VERIFY, O_ATOL, O_RTOL, O_POOL, O_DEVICES, O_BATCH, O_GPUS, O_MPI, O_MPI_TIMEOUT,
       O_OBJECTIVE, O_PROFILE, O_ASK, O_STRATEGY_OPTION };

static const struct option longopts[] = {
	{ "count", no_argument, NULL, O_COUNT },
	{ "compile-only", no_argument, NULL, O_COMPILE },
	{ "arch", required_argument, NULL, O_ARCH },
	{ "db", required_argument, NULL, O_DB },
	{ "jobs", required_argument, NULL, 'j' },
	{ "compile-pool", required_argument, NULL, O_POOL },
	{ "devices", required_argument, NULL, O_DEVICES },
	{ "mpi", no_argument, NULL, O_MPI },
	{ "mpi-timeout", required_argument, NULL, O_MPI_TIMEOUT },
	{ "replay", required_argument, NULL, O_REPLAY },
	{ "replay-db", no_argument, NULL, O_REPLAY_DB },
	{ "ask", no_argument, NULL, O_ASK },
	{ "device-key", required_argument, NULL, O_DEVKEY },
	{ "export", required_argument, NULL, O_EXPORT },
	{ "run", required_argument, NULL, O_RUN },
	{ "strategy", required_argument, NULL, O_STRATEGY },
	{ "strategy-option", required_argument, NULL, O_STRATEGY_OPTION },
	{ "budget", required_argument, NULL, O_BUDGET },
	{ "fraction", required_argument, NULL, O_FRACTION },
	{ "time-budget", required_argument, NULL, O_TIME },
	{ "seed", required_argument, NULL, O_SEED },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "gpus", required_argument, NULL, O_GPUS },
	{ "problem", required_argument, NULL, O_PROBLEM },
	{ "max-threads", required_argument, NULL, O_MAXT },
	{ "max-shared", required_argument, NULL, O_MAXS },
	{ "force", no_argument, NULL, O_FORCE },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "early-stop", required_argument, NULL, O_EARLY },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "measure-budget", required_argument, NULL, O_MBUDGET },
	{ "l2", required_argument, NULL, O_L2 },
	{ "objective", required_argument, NULL, O_OBJECTIVE },
	{ "profile", optional_argument, NULL, O_PROFILE },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "json", no_argument, NULL, O_JSON },
	{ "verify", required_argument, NULL, O_VERIFY },
	{ "atol", required_argument, NULL, O_ATOL },
	{ "rtol", required_argument, NULL, O_RTOL },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* The modes, and the modes each option goes with: one home for what
 * check_modes() refuses, so that no option is silently left unused. */
enum { M_TUNE = 1, M_COUNT = 2, M_COMPILE = 4, M_REPLAY = 8, M_ASK = 16, M_EXPORT = 32 };
static const char *const mode_words[] = { "tuning", "--count", "--compile-only", "--replay",
	                                  "--ask", "--export" };
static const struct {
	int opt;
	unsigned modes;
} option_modes[] = {
	{ O_ARCH, M_COMPILE },
	{ O_DB, M_TUNE | M_COMPILE | M_REPLAY | M_EXPORT },
	{ 'j', M_TUNE | M_COMPILE | M_REPLAY },
	{ O_POOL, M_TUNE | M_COMPILE },
	{ O_DEVICES, M_TUNE },
	{ O_MPI, M_TUNE | M_COMPILE },
	{ O_MPI_TIMEOUT, M_TUNE | M_COMPILE },
	{ O_DEVKEY, M_REPLAY | M_EXPORT },
	{ O_RUN, M_EXPORT },
	{ O_STRATEGY, M_TUNE | M_REPLAY | M_ASK },
	{ O_STRATEGY_OPTION, M_TUNE | M_REPLAY | M_ASK },
	{ O_BUDGET, M_TUNE | M_COMPILE | M_REPLAY | M_ASK },
	{ O_FRACTION, M_TUNE | M_COMPILE | M_REPLAY | M_ASK },
	{ O_SEED, M_TUNE | M_COMPILE | M_REPLAY | M_ASK },
	{ O_TIME, M_TUNE | M_REPLAY | M_ASK },
	{ O_BATCH, M_REPLAY },
	{ O_GPUS, M_REPLAY },
	{ O_PROBLEM, M_TUNE | M_COUNT | M_REPLAY | M_ASK | M_EXPORT },
	{ O_MAXT, M_TUNE | M_COUNT | M_COMPILE | M_REPLAY | M_ASK },
	{ O_MAXS, M_TUNE | M_COUNT | M_COMPILE | M_REPLAY | M_ASK },
	{ O_OBJECTIVE, M_TUNE | M_REPLAY },
	{ O_QUIET, M_TUNE | M_COMPILE },
	{ O_JSON, M_TUNE | M_COUNT | M_COMPILE },
	{ O_FORCE, M_TUNE }, { O_TIMEOUT, M_TUNE }, { O_EARLY, M_TUNE }, { O_WARMUP, M_TUNE },
	{ O_MBUDGET, M_TUNE }, { O_L2, M_TUNE }, { O_PROFILE, M_TUNE }, { O_VERIFY, M_TUNE },
	{ O_ATOL, M_TUNE }, { O_RTOL, M_TUNE },
};

/* An option's bit in opts.given ('j' has the last). */
static uint64_t given_bit(int opt)
{
	return (uint64_t)1 << (opt == 'j' ? 63 : opt - O_COUNT);
}

/* An option of how each configuration is measured and judged into *t;
 * KT_EXIT_OK, or KT_EXIT_USAGE having said why. --profile's argument is
 * optional: "--profile best" takes the next word when it is all or best. */
static int measure_option(int c, char *arg, int argc, char **argv, kt_tune_opts *t)
{
	char *end;
	switch (c) {
	case O_TIMEOUT:
		t->timeout_s = strtod(arg, &end);
		if (*end || end == arg || !(t->timeout_s > 0 && t->timeout_s <= 86400))
			return usage_error("--timeout: expected seconds > 0, got '%s'", arg);
		return KT_EXIT_OK;
	case O_EARLY:
		t->early_stop = strtod(arg, &end);
		if (*end || end == arg ||
		    !(t->early_stop == 0 || (t->early_stop >= 1 && t->early_stop < 1e6)))
			return usage_error("--early-stop: expected 0 (off) or a factor >= 1, got '%s'",
			                   arg);
		return KT_EXIT_OK;
	case O_WARMUP:
		t->warmup_ms = strtod(arg, &end);
		if (*end || end == arg || !(t->warmup_ms >= 0 && t->warmup_ms <= 60000))
			return usage_error("--warmup: expected milliseconds >= 0, got '%s'", arg);
		return KT_EXIT_OK;
	case O_MBUDGET:
		t->budget_ms = strtod(arg, &end);
		if (*end || end == arg || !(t->budget_ms >= 0 && t->budget_ms <= 600000))
			return usage_error("--measure-budget: expected milliseconds >= 0, got '%s'", arg);
		return KT_EXIT_OK;
	case O_L2:
		if (strcmp(arg, "warm") == 0)
			t->l2 = 1;
		else if (strcmp(arg, "cold") == 0)
			t->l2 = 2;
		else if (strcmp(arg, "both") == 0)
			t->l2 = 3;
		else
			return usage_error("--l2: expected warm, cold or both, got '%s'", arg);
		return KT_EXIT_OK;
	case O_OBJECTIVE:
		if (kjit_objective_parse(arg, &t->objective) != KJIT_OK)
			return usage_error("--objective: expected time, energy or edp, got '%s'", arg);
		t->objective_set = 1;
		return KT_EXIT_OK;
	case O_PROFILE:
		if (!arg && optind < argc && (strcmp(argv[optind], "all") == 0 ||
		                              strcmp(argv[optind], "best") == 0))
			arg = argv[optind++];
		if (kt_profile_mode_parse(arg, &t->profile) != KJIT_OK)
			return usage_error("%s", kjit_last_error());
		return KT_EXIT_OK;
	}
	return KT_EXIT_OK;
}

/* The modes and the options that go with one, once all are parsed. */
static int check_modes(opts *o)
{
	if (o->replay && strncmp(o->replay, "db:", 3) == 0) {
		if (o->replay_from_db)
			return usage_error("%s", "--replay db:PATH and --replay-db do not combine");
		o->replay_from_db = 1;
		o->replay_db = o->replay + 3;
		if (!*o->replay_db)
			return usage_error("%s", "--replay db:PATH: expected a database path");
	} else if (o->replay_from_db) {
		if (o->replay)
			return usage_error("%s", "--replay FILE and --replay-db do not combine");
		o->replay_db = o->db;
		o->replay = "(database)";
	}
	if (o->count + o->compile_only + (o->replay != NULL) + o->ask +
	    (o->export_format != NULL) > 1)
		return usage_error("%s", "--count, --compile-only, --replay, --ask and --export do "
		                         "not combine");
	if (o->compile_only && o->budget.seconds > 0)
		return usage_error("%s", "--compile-only takes --budget N or --fraction F, not "
		                         "--time-budget");
	size_t mode = o->count ? 1 : o->compile_only ? 2 : o->replay ? 3 : o->ask ? 4
	              : o->export_format ? 5 : 0; /* its index in mode_words */
	for (size_t i = 0; i < sizeof option_modes / sizeof *option_modes; i++) {
		unsigned modes = option_modes[i].modes;
		if (!(o->given & given_bit(option_modes[i].opt)) || (modes & (1u << mode)))
			continue;
		char list[128] = "";
		size_t left = 0;
		for (unsigned m = modes; m; m &= m - 1)
			left++;
		for (size_t m = 0; m < sizeof mode_words / sizeof *mode_words; m++)
			if (modes & (1u << m))
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				         mode_words[m], --left > 1 ? ", " : left == 1 ? " and " : "");
		size_t k = 0; /* every option of the table has a long name */
		while (longopts[k].val != option_modes[i].opt)
			k++;
		char text[256];
		snprintf(text, sizeof text, "--%s goes with %s, not %s", longopts[k].name, list,
		         mode_words[mode]);
		return usage_error("%s", text);
	}
	if (o->batch && o->replay && (o->gpus || o->jobs))
		return usage_error("%s", "--batch and the simulated clock (-j, --gpus) do not "
		                         "combine: the clock keeps P + G proposals outstanding");
	return KT_EXIT_OK;
}

/* An option of what is searched, how far and within which limits into *o;
 * KT_EXIT_OK, or KT_EXIT_USAGE having said why. */
static int search_option(int c, const char *arg, opts *o)
{
	uint64_t u;
	char *end;
	switch (c) {
	case O_STRATEGY: o->strategy = arg; break;
	case O_STRATEGY_OPTION:
		if (o->n_strategy_args <= KJIT_STRATEGY_SETTINGS_MAX)
			o->strategy_args[o->n_strategy_args++] = arg;
		break;
	case O_BUDGET:
		if (parse_u64(arg, &u) || u == 0)
			return usage_error("--budget: expected a positive count, got '%s'", arg);
		o->budget.evaluations = (size_t)u;
		break;
	case O_FRACTION:
		o->budget.fraction = strtod(arg, &end);
		if (*end || end == arg || !(o->budget.fraction > 0 && o->budget.fraction <= 1))
			return usage_error("--fraction: expected 0 < F <= 1, got '%s'", arg);
		break;
	case O_TIME:
		o->budget.seconds = strtod(arg, &end);
		if (*end || end == arg || !(o->budget.seconds > 0))
			return usage_error("--time-budget: expected seconds > 0, got '%s'", arg);
		break;
	case O_SEED:
		if (parse_u64(arg, &o->seed))
			return usage_error("--seed: expected a non-negative integer, got '%s'",
			                   arg);
		break;
	case O_BATCH:
	case O_GPUS:
		if (parse_u64(arg, &u) || u == 0 || u > KJIT_SEARCH_BATCH_MAX)
			return usage_error(c == O_BATCH ? "--batch: expected a count from 1 to "
			                                  KT_STR(KJIT_SEARCH_BATCH_MAX) ", got '%s'"
			                                : "--gpus: expected a count from 1 to "
			                                  KT_STR(KJIT_SEARCH_BATCH_MAX) ", got '%s'", arg);
		*(c == O_BATCH ? &o->batch : &o->gpus) = (size_t)u;
		break;
	case O_PROBLEM:
		if (parse_u64(arg, &o->problem) || o->problem > INT64_MAX)
			return usage_error("--problem: expected an index, got '%s'", arg);
		o->problem_set = 1;
		break;
	case O_MAXT:
		if (parse_u64(arg, &u) || u == 0 || u > INT64_MAX)
			return usage_error("--max-threads: expected a positive count, got '%s'",
			                   arg);
		o->limits.max_threads = (int64_t)u;
		break;
	case O_MAXS:
		if (parse_u64(arg, &u) || u > INT64_MAX)
			return usage_error("--max-shared: expected bytes, got '%s'", arg);
		o->limits.max_shared = (int64_t)u;
		break;
	}
	return KT_EXIT_OK;
}

/* One option of the command line into *o; KT_EXIT_OK, or KT_EXIT_USAGE
 * having said why. */
static int option(int c, char *arg, int argc, char **argv, opts *o)
{
	uint64_t u;
	char *end;
	switch (c) {
	case O_COUNT: o->count = 1; break;
	case O_COMPILE: o->compile_only = 1; break;
	case O_ARCH: o->arch = arg; break;
	case O_DB: o->db = arg; break;
	case 'j':
		if (parse_u64(arg, &u) || u > 1024)
			return usage_error("-j: expected a thread count, got '%s'", arg);
		o->jobs = (int)u;
		break;
	case O_POOL:
		if (kt_pool_mode_parse(arg, &o->pool) != KJIT_OK)
			return usage_error("--compile-pool: %s", kjit_last_error());
		break;
	case O_DEVICES:
		if (kt_devices_parse(arg, &o->tune.devices) != KJIT_OK)
			return usage_error("%s", kjit_last_error());
		break;
	case O_MPI: o->tune.mpi = 1; break;
	case O_MPI_TIMEOUT:
		if ((o->mpi_timeout = parse_mpi_timeout(arg)) < 0)
			return usage_error("--mpi-timeout: expected 1 to 3600 seconds, got '%s'", arg);
		break;
	case O_REPLAY: o->replay = arg; break;
	case O_REPLAY_DB: o->replay_from_db = 1; break;
	case O_ASK: o->ask = 1; break;
	case O_DEVKEY: o->device_key = arg; break;
	case O_EXPORT: o->export_format = arg; break;
	case O_RUN:
		if (parse_u64(arg, &o->run_id) || o->run_id == 0 || o->run_id > INT64_MAX)
			return usage_error("--run: expected a run id, got '%s'", arg);
		break;
	case O_FORCE: o->tune.force = 1; break;
	case O_QUIET: o->tune.quiet = 1; break;
	case O_JSON: o->tune.json = 1; break;
	case O_VERIFY: o->verify = arg; break; /* checked against the spec */
	case O_ATOL:
	case O_RTOL: {
		double tol = strtod(arg, &end);
		if (*end || end == arg || !(tol >= 0 && isfinite(tol)))
			return usage_error(c == O_ATOL ? "--atol: expected a tolerance >= 0, got '%s'"
			                               : "--rtol: expected a tolerance >= 0, got '%s'",
			                   arg);
		*(c == O_ATOL ? &o->atol : &o->rtol) = tol;
		break;
	}
	case O_TIMEOUT: case O_EARLY: case O_WARMUP: case O_MBUDGET: case O_L2:
	case O_OBJECTIVE: case O_PROFILE:
		return measure_option(c, arg, argc, argv, &o->tune);
	case O_STRATEGY: case O_STRATEGY_OPTION: case O_BUDGET: case O_FRACTION: case O_TIME:
	case O_SEED: case O_BATCH: case O_GPUS: case O_PROBLEM: case O_MAXT: case O_MAXS:
		return search_option(c, arg, o);
	default: fprintf(stderr, "Try '%s --help'.\n", prog); return KT_EXIT_USAGE;
	}
	return KT_EXIT_OK;
}

int main(int argc, char **argv)
{
	/* The GPU worker: kjit-tune --worker IN_FD OUT_FD SPEC DB VERIFY ATOL RTOL
	 * DEVICE (wire/link_local.c). */
	if (argc == 10 && strcmp(argv[1], "--worker") == 0) {
		kt_worker_verify wv = { argv[6], strtod(argv[7], NULL), strtod(argv[8], NULL) };
		return kt_worker_main(argv[4], argv[5], &wv, atoi(argv[9]), atoi(argv[2]),
		                      atoi(argv[3]));
	}
	/* A compile worker: kjit-tune --compile-worker IN_FD OUT_FD SPEC DB ARCH
	 * (pool/pool.c). */
	if (argc == 7 && strcmp(argv[1], "--compile-worker") == 0)
		return kt_compile_worker_main(argv[4], argv[5], argv[6], atoi(argv[2]),
		                              atoi(argv[3]));
	opts o = { .seed = 1, .atol = NAN, .rtol = NAN, .mpi_timeout = 10,
		   .tune = { .timeout_s = 10, .early_stop = 1.5, .warmup_ms = 5, .budget_ms = 10,
		             .l2 = 1 } };
	int c;
	while ((c = getopt_long(argc, argv, "j:hV", longopts, NULL)) != -1) {
		if (c == 'j' || c >= O_COUNT)
			o.given |= given_bit(c);
		if (c == 'h') {
			usage(stdout);
			return KT_EXIT_OK;
		}
		if (c == 'V') {
			printf("kjit-tune %s (libkjit %s)\n", PACKAGE_VERSION, kjit_version());
			return KT_EXIT_OK;
		}
		int rc = option(c, optarg, argc, argv, &o);
		if (rc != KT_EXIT_OK)
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error("%s", optind < argc ? "expected one spec file, got several"
		                                       : "expected a spec file");
	int rc = check_modes(&o);
	if (rc != KT_EXIT_OK)
		return rc;
	o.spec = argv[optind];
	return o.tune.mpi ? run_mpi(&o, &argc, &argv) : run(&o);
}
