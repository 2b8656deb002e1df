/*
 * main.c - the kjit-tune command: option parsing and the three modes of
 * this version (--count, --compile-only, --replay, --export). Exit codes are in
 * doc/kjit-tune.1.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune.h"

/* Variants compiled per kjit_variants_get() call: large enough to keep
 * the pool busy, small enough for a live progress line. */
#define BATCH 32
/* NVRTC errors shown after a compile-only run. */
#define SHOW_ERRORS 3

static const char *prog = "kjit-tune";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: %s SPEC [options]\n"
	        "\n"
	        "Modes (GPU tuning comes in a later version):\n"
	        "  --count                 print the size of the constrained space and of the\n"
	        "                          unconstrained product, per problem\n"
	        "  --compile-only          compile every valid variant into the cache (no GPU)\n"
	        "      --arch sm_NN        target architecture (default $KJIT_ARCH)\n"
	        "      --db PATH           database (default $KJIT_DB, else the user cache)\n"
	        "  -j, --jobs P            compile threads (default: online CPUs)\n"
	        "  --replay RESULTS        run a strategy against known results (CSV or JSON)\n"
	        "      --strategy NAME     search strategy (default random)\n"
	        "      --budget N          at most N evaluations\n"
	        "      --fraction F        at most this fraction of the space (0 < F <= 1)\n"
	        "      --time-budget SEC   at most this wall time\n"
	        "      --seed S            random seed (default 1)\n"
	        "      --problem I         problem index of the spec (default 0)\n"
	        "  --replay-db             replay against the results table of the database\n"
	        "                          (--db) for the spec's kernel; also --replay db:PATH\n"
	        "      --device-key KEY    the device of the results (default: the only one)\n"
	        "  --export FORMAT         print stored results as csv, json or t4 (BAT's T4\n"
	        "                          format) for the spec's kernel, --device-key and\n"
	        "                          --problem, or of one run with --run ID (uses --db)\n"
	        "\n"
	        "Device limits:\n"
	        "  --max-threads N         threads per block (default the spec's, else 1024)\n"
	        "  --max-shared BYTES      dynamic shared memory (default the spec's, else 49152)\n"
	        "\n"
	        "  -h, --help              this text\n"
	        "  -V, --version           the version\n"
	        "\n"
	        "Strategies:\n", prog);
	for (size_t i = 0; kt_strategies[i]; i++)
		fprintf(f, "  %-12s %s\n", kt_strategies[i]->name, kt_strategies[i]->summary);
	fprintf(f, "\nExit codes: 0 ok, 1 runtime error, 2 usage, 3 spec error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return KT_EXIT_USAGE;
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
	int count, compile_only;
	const char *arch, *db, *replay, *strategy;
	const char *replay_db; /* the database of --replay-db or --replay db:PATH */
	int replay_from_db;
	const char *device_key, *export_format;
	uint64_t run_id;
	int jobs;
	kt_budget budget;
	uint64_t seed, problem;
	kjit__limits limits;
} opts;

static int do_count(const kjit__spec *spec, const opts *o)
{
	for (size_t p = 0; p < spec->n_problems; p++) {
		kjit__space *space;
		char *key = kjit__problem_key(&spec->problems[p]);
		if (kjit__space_build(spec, p, &o->limits, &space) != KJIT_OK) {
			fprintf(stderr, "%s: %s: %s\n", prog, spec->path, kjit_last_error());
			free(key);
			return KT_EXIT_SPEC;
		}
		printf("problem %s: valid %zu, product %.0f\n", key && *key ? key : "(none)",
		       space->size, space->product);
		free(key);
		kjit__space_free(space);
	}
	return KT_EXIT_OK;
}

/* ---- compile-only ---------------------------------------------------------- */

/* The compile options of a configuration, as one string, so that
 * configurations that differ only in launch settings compile once. */
static char *variant_text(const kjit__space *space, size_t index)
{
	const kjit__spec *spec = space->spec;
	const uint16_t *c = kjit__space_config(space, index);
	size_t len = 1;
	for (size_t i = 0; i < spec->n_params; i++)
		len += strlen(spec->params[i].name) + strlen(spec->params[i].values[c[i]].text) + 3;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < spec->n_params; i++) {
		const kjit__param *pa = &spec->params[i];
		if (pa->roles & KJIT__ROLE_DEFINE)
			p += sprintf(p, "D%s=%s\n", pa->name, pa->values[c[i]].text);
		if (pa->roles & KJIT__ROLE_FLAGS)
			p += sprintf(p, "F%s\n", pa->values[c[i]].text);
	}
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One variant description built from variant_text(): the strings point
 * into text, which the description owns. */
typedef struct desc_store {
	char *text;
	kjit_define defines[256];
	const char *flags[256];
} desc_store;

static void fill_desc(const kjit__spec *spec, desc_store *d, kjit_variant_desc *out)
{
	size_t nd = 0, nf = 0;
	for (size_t i = 0; i < spec->n_flags && nf < 256; i++)
		d->flags[nf++] = spec->flags[i];
	for (char *save = NULL, *line = strtok_r(d->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == 'D' && nd < 256) {
			char *eq = strchr(line, '=');
			*eq = '\0';
			d->defines[nd].name = line + 1;
			d->defines[nd++].value = eq + 1;
		} else if (line[0] == 'F') {
			for (char *s2 = NULL, *tok = strtok_r(line + 1, " ", &s2); tok && nf < 256;
			     tok = strtok_r(NULL, " ", &s2))
				d->flags[nf++] = tok;
		}
	}
	out->defines = d->defines;
	out->n_defines = nd;
	out->flags = d->flags;
	out->n_flags = nf;
}

static int do_compile(const kjit__spec *spec, const opts *o)
{
	char **texts = NULL;
	size_t n = 0, cap = 0;
	int ret = KT_EXIT_RUNTIME;
	kjit_engine *engine = NULL;
	kjit_kernel *kernel = NULL;
	desc_store *store = NULL;
	kjit_variant_desc *descs = NULL;
	kjit_variant **vars = NULL;
	kjit_status *status = NULL;
	char **errors = NULL;
	size_t n_failed = 0;
	const char *arch = o->arch ? o->arch : getenv("KJIT_ARCH");

	if (!arch || !*arch) {
		fprintf(stderr, "%s: --compile-only needs --arch sm_NN (or $KJIT_ARCH)\n", prog);
		return KT_EXIT_USAGE;
	}
	/* The union over the problems (a restriction may read a size). */
	for (size_t p = 0; p < spec->n_problems; p++) {
		kjit__space *space;
		if (kjit__space_build(spec, p, &o->limits, &space) != KJIT_OK) {
			fprintf(stderr, "%s: %s: %s\n", prog, spec->path, kjit_last_error());
			ret = KT_EXIT_SPEC;
			goto done;
		}
		for (size_t i = 0; i < space->size; i++) {
			char *t = variant_text(space, i);
			char **nt = n == cap ? realloc(texts, (cap = cap ? 2 * cap : 256) * sizeof *nt)
			                     : texts;
			if (!t || !nt) {
				free(t);
				kjit__space_free(space);
				fprintf(stderr, "%s: out of memory\n", prog);
				goto done;
			}
			texts = nt;
			texts[n++] = t;
		}
		kjit__space_free(space);
	}
	if (n)
		qsort(texts, n, sizeof *texts, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && strcmp(texts[u - 1], texts[i]) == 0)
			free(texts[i]);
		else
			texts[u++] = texts[i];
	}
	n = u;

	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = o->db;
	eo.arch = arch;
	eo.compile_threads = o->jobs;
	eo.flags = KJIT_ENGINE_NO_GPU;
	const char **names = calloc(spec->n_params + 1, sizeof *names);
	for (size_t i = 0; names && i < spec->n_params; i++)
		names[i] = spec->params[i].name;
	if (!names || kjit_engine_open(&eo, &engine) != KJIT_OK ||
	    kjit_kernel_create_from_file(engine, spec->entry, spec->source_path, names,
	                                 spec->n_params, &kernel) != KJIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, names ? kjit_last_error() : "out of memory");
		free(names);
		goto done;
	}
	free(names);
	store = calloc(BATCH, sizeof *store);
	descs = calloc(BATCH, sizeof *descs);
	vars = calloc(BATCH, sizeof *vars);
	status = calloc(BATCH, sizeof *status);
	errors = calloc(BATCH, sizeof *errors);
	if (!store || !descs || !vars || !status || !errors) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto done;
	}
	kjit_engine_stats before, after;
	kjit_engine_get_stats(engine, &before);
	int tty = isatty(STDERR_FILENO);
	char *kept[SHOW_ERRORS] = { NULL };
	for (size_t start = 0; start < n; start += BATCH) {
		size_t m = n - start < BATCH ? n - start : BATCH;
		for (size_t i = 0; i < m; i++) {
			store[i].text = texts[start + i];
			fill_desc(spec, &store[i], &descs[i]);
		}
		kjit_variants_get(kernel, descs, m, o->jobs, vars, status, errors);
		for (size_t i = 0; i < m; i++) {
			if (status[i] != KJIT_OK) {
				if (n_failed < SHOW_ERRORS) {
					kept[n_failed] = errors[i];
					errors[i] = NULL;
				}
				n_failed++;
			}
			free(errors[i]);
			errors[i] = NULL;
		}
		if (tty)
			fprintf(stderr, "\r%s: %zu/%zu variants", prog, start + m, n);
	}
	if (tty && n)
		fprintf(stderr, "\n");
	kjit_engine_get_stats(engine, &after);
	size_t compiled = (size_t)(after.compiles - before.compiles); /* failed ones too */
	size_t cached = (size_t)(after.memory_hits - before.memory_hits + after.disk_hits -
	                         before.disk_hits);
	printf("variants %zu: compiled %zu, cached %zu, failed %zu (arch %s, db %s)\n", n,
	       compiled >= n_failed ? compiled - n_failed : 0, cached, n_failed, arch,
	       kjit_engine_db_path(engine));
	for (size_t i = 0; i < SHOW_ERRORS && i < n_failed; i++) {
		fprintf(stderr, "%s: failed variant %zu: %s\n", prog, i + 1,
		        kept[i] ? kept[i] : "(no detail)");
		free(kept[i]);
	}
	ret = KT_EXIT_OK;
done:
	kjit_engine_close(engine);
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(store);
	free(descs);
	free(vars);
	free(status);
	free(errors);
	return ret;
}

/* ---- replay ------------------------------------------------------------------ */

/* The objective table from the database's results of the spec's kernel. */
static kjit_status load_from_db(const kjit__spec *spec, const kjit__space *space, const opts *o,
                                double **obj, size_t *ignored)
{
	kt_results *res = NULL;
	char *sig = NULL, *dev = NULL;
	kjit_status st = kt_spec_signature(spec, &sig);
	if (st == KJIT_OK)
		st = kt_results_open(o->replay_db, &res);
	if (st == KJIT_OK && !o->device_key)
		st = kt_results_only_device(res, sig, &dev);
	if (st == KJIT_OK)
		st = kt_results_load(res, space, sig, o->device_key ? o->device_key : dev, obj,
		                     NULL, ignored);
	free(sig);
	free(dev);
	kt_results_close(res);
	return st;
}

static int do_replay(const kjit__spec *spec, const opts *o)
{
	const kt_strategy *strategy = kt_strategy_find(o->strategy ? o->strategy : "random");
	kjit__space *space = NULL;
	double *obj = NULL;
	size_t ignored, missing = 0;
	kt_replay_result r;
	int ret = KT_EXIT_RUNTIME;
	if (!strategy)
		return usage_error("unknown strategy '%s' (see --help)", o->strategy);
	if (o->problem >= spec->n_problems)
		return usage_error("--problem: the spec %s has fewer problems", spec->path);
	if (kjit__space_build(spec, (size_t)o->problem, &o->limits, &space) != KJIT_OK) {
		fprintf(stderr, "%s: %s: %s\n", prog, spec->path, kjit_last_error());
		return KT_EXIT_SPEC;
	}
	if (o->replay_from_db) {
		if (load_from_db(spec, space, o, &obj, &ignored) != KJIT_OK)
			goto fail;
	} else if (kt_replay_load(space, o->replay, &obj, &ignored) != KJIT_OK) {
		goto fail;
	}
	if (kt_replay_run(space, strategy, &o->budget, o->seed, obj, &r) != KJIT_OK) {
	fail:
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
		goto done;
	}
	for (size_t i = 0; i < space->size; i++)
		missing += isinf(obj[i]);
	printf("strategy %s, seed %llu, budget %zu of %zu configurations\n", strategy->name,
	       (unsigned long long)o->seed, kt_budget_evaluations(&o->budget, space->size),
	       space->size);
	printf("results: %zu rows outside the space, %zu configurations without a time\n",
	       ignored, missing);
	printf("evaluations: %zu\n", r.evaluations);
	if (r.best_found < 0) {
		printf("best found: none (every evaluated configuration failed)\n");
	} else {
		char *c = kjit__space_config_json(space, (size_t)r.best_found);
		printf("best found: %s %g after %zu evaluations\n", c ? c : "?", r.best_found_value,
		       r.evals_to_found);
		free(c);
	}
	if (r.best_known >= 0) {
		char *c = kjit__space_config_json(space, (size_t)r.best_known);
		printf("best known: %s %g\n", c ? c : "?", r.best_known_value);
		free(c);
		if (r.evals_to_known)
			printf("reached the best after %zu evaluations\n", r.evals_to_known);
		else
			printf("did not reach the best\n");
	}
	ret = KT_EXIT_OK;
done:
	free(obj);
	kjit__space_free(space);
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
	kt_results *res = NULL;
	char *sig = NULL, *dev = NULL, *problem = kjit__problem_json(&spec->problems[o->problem]);
	kjit_status st = problem ? kt_spec_signature(spec, &sig)
	                         : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK)
		st = kt_results_open(o->db, &res);
	if (st == KJIT_OK && !o->device_key && !o->run_id)
		st = kt_results_only_device(res, sig, &dev);
	if (st == KJIT_OK) {
		st = kt_results_export(res, spec, (int64_t)o->run_id, sig,
		                       o->device_key ? o->device_key : dev, problem, fmt, stdout);
		if (fflush(stdout) != 0 && st == KJIT_OK)
			st = kjit__error(KJIT_ERR_IO, "writing to stdout: %s", strerror(errno));
	}
	if (st != KJIT_OK)
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
	free(sig);
	free(dev);
	free(problem);
	kt_results_close(res);
	return st == KJIT_OK ? KT_EXIT_OK : KT_EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
	enum { O_COUNT = 256, O_COMPILE, O_ARCH, O_DB, O_REPLAY, O_STRATEGY, O_BUDGET,
	       O_FRACTION, O_TIME, O_SEED, O_PROBLEM, O_MAXT, O_MAXS, O_REPLAY_DB, O_DEVKEY,
	       O_EXPORT, O_RUN };
	static const struct option longopts[] = {
		{ "count", no_argument, NULL, O_COUNT },
		{ "compile-only", no_argument, NULL, O_COMPILE },
		{ "arch", required_argument, NULL, O_ARCH },
		{ "db", required_argument, NULL, O_DB },
		{ "jobs", required_argument, NULL, 'j' },
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "replay-db", no_argument, NULL, O_REPLAY_DB },
		{ "device-key", required_argument, NULL, O_DEVKEY },
		{ "export", required_argument, NULL, O_EXPORT },
		{ "run", required_argument, NULL, O_RUN },
		{ "strategy", required_argument, NULL, O_STRATEGY },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "fraction", required_argument, NULL, O_FRACTION },
		{ "time-budget", required_argument, NULL, O_TIME },
		{ "seed", required_argument, NULL, O_SEED },
		{ "problem", required_argument, NULL, O_PROBLEM },
		{ "max-threads", required_argument, NULL, O_MAXT },
		{ "max-shared", required_argument, NULL, O_MAXS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	opts o = { .seed = 1 };
	uint64_t u;
	char *end;
	int c;
	while ((c = getopt_long(argc, argv, "j:hV", longopts, NULL)) != -1) {
		switch (c) {
		case O_COUNT: o.count = 1; break;
		case O_COMPILE: o.compile_only = 1; break;
		case O_ARCH: o.arch = optarg; break;
		case O_DB: o.db = optarg; break;
		case 'j':
			if (parse_u64(optarg, &u) || u > 1024)
				return usage_error("-j: expected a thread count, got '%s'", optarg);
			o.jobs = (int)u;
			break;
		case O_REPLAY: o.replay = optarg; break;
		case O_REPLAY_DB: o.replay_from_db = 1; break;
		case O_DEVKEY: o.device_key = optarg; break;
		case O_EXPORT: o.export_format = optarg; break;
		case O_RUN:
			if (parse_u64(optarg, &o.run_id) || o.run_id == 0 || o.run_id > INT64_MAX)
				return usage_error("--run: expected a run id, got '%s'", optarg);
			break;
		case O_STRATEGY: o.strategy = optarg; break;
		case O_BUDGET:
			if (parse_u64(optarg, &u) || u == 0)
				return usage_error("--budget: expected a positive count, got '%s'", optarg);
			o.budget.evaluations = (size_t)u;
			break;
		case O_FRACTION:
			o.budget.fraction = strtod(optarg, &end);
			if (*end || end == optarg || !(o.budget.fraction > 0 && o.budget.fraction <= 1))
				return usage_error("--fraction: expected 0 < F <= 1, got '%s'", optarg);
			break;
		case O_TIME:
			o.budget.seconds = strtod(optarg, &end);
			if (*end || end == optarg || !(o.budget.seconds > 0))
				return usage_error("--time-budget: expected seconds > 0, got '%s'", optarg);
			break;
		case O_SEED:
			if (parse_u64(optarg, &o.seed))
				return usage_error("--seed: expected an integer, got '%s'", optarg);
			break;
		case O_PROBLEM:
			if (parse_u64(optarg, &o.problem))
				return usage_error("--problem: expected an index, got '%s'", optarg);
			break;
		case O_MAXT:
			if (parse_u64(optarg, &u) || u == 0 || u > INT64_MAX)
				return usage_error("--max-threads: expected a positive count, got '%s'",
				                   optarg);
			o.limits.max_threads = (int64_t)u;
			break;
		case O_MAXS:
			if (parse_u64(optarg, &u) || u > INT64_MAX)
				return usage_error("--max-shared: expected bytes, got '%s'", optarg);
			o.limits.max_shared = (int64_t)u;
			break;
		case 'h': usage(stdout); return KT_EXIT_OK;
		case 'V': printf("kjit-tune %s (libkjit %s)\n", PACKAGE_VERSION, kjit_version());
			return KT_EXIT_OK;
		default: fprintf(stderr, "Try '%s --help'.\n", prog); return KT_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return usage_error("%s", optind < argc ? "expected one spec file, got several"
		                                       : "expected a spec file");
	if (o.replay && strncmp(o.replay, "db:", 3) == 0) {
		if (o.replay_from_db)
			return usage_error("%s", "--replay db:PATH and --replay-db do not combine");
		o.replay_from_db = 1;
		o.replay_db = o.replay + 3;
		if (!*o.replay_db)
			return usage_error("%s", "--replay db:PATH: expected a database path");
	} else if (o.replay_from_db) {
		if (o.replay)
			return usage_error("%s", "--replay FILE and --replay-db do not combine");
		o.replay_db = o.db;
		o.replay = "(database)";
	}
	if (o.count + o.compile_only + (o.replay != NULL) + (o.export_format != NULL) > 1)
		return usage_error("%s", "--count, --compile-only, --replay and --export do not "
		                         "combine");
	o.spec = argv[optind];

	kjit__spec *spec;
	if (kjit__spec_load(o.spec, &spec) != KJIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, kjit_last_error());
		return KT_EXIT_SPEC;
	}
	int ret;
	if (o.count) {
		ret = do_count(spec, &o);
	} else if (o.compile_only) {
		ret = do_compile(spec, &o);
	} else if (o.replay) {
		ret = do_replay(spec, &o);
	} else if (o.export_format) {
		ret = do_export(spec, &o);
	} else {
		fprintf(stderr, "%s: tuning on the GPU comes in a later version of kjit-tune; "
		                "this one does --count, --compile-only, --replay and --export\n", prog);
		ret = KT_EXIT_RUNTIME;
	}
	kjit__spec_free(spec);
	return ret;
}
