/*
 * bench-tune - how good and how fast kjit-tune's GPU tuning is.
 *
 * (1) The floors: bench-floors (copy bandwidth, cuBLAS SGEMM), run first.
 * (2) Quality. kjit-tune SPEC --json --strategy exhaustive on each example
 *     (a fresh database each); the best configuration's GB/s (or
 *     GFLOP/s) from the --json summary over the floor:
 *       saxpy      GB/s over the copy floor, target >= 0.95
 *       reduction  GB/s (bytes read) over the copy floor, >= 0.90
 *       transpose  GB/s over the copy floor, >= 0.85
 *       stencil    GB/s over the copy floor, info
 *       sgemm      TFLOP/s over cuBLAS SGEMM, >= 0.75
 * (3) Speed. The SGEMM space: wall time of the problem and variants per
 *     second (info). The 32-configuration saxpy space
 *     (bench/saxpy-32.json): the problem's wall time, compiling, measuring
 *     and verifying, with a cold cache (a fresh database) and a warm one
 *     (the same database with its results, runs and best rows deleted, so
 *     that every binary is cached but every configuration runs again);
 *     target <= 0.5 s each. Against bench-tune-serial on the same space
 *     (kjit_variant_get then kjit_variant_measure per configuration, cold
 *     cache, no verification): ratio = kjit-tune / serial, target <= 1.
 *     The same comparison on the first 48 configurations of the SGEMM
 *     space (sgemm48, cold cache): the whole space serially would take
 *     over half an hour. Each run against its floor too (the --json
 *     summary's problems[0].floor_s: the larger of the compile time over
 *     the cores and 3 x the kernels' medians): tune_TAG_vs_floor (cold)
 *     and tune_TAG_warm_vs_floor, info. The --json time breakdown of each
 *     run is printed.
 *
 * (4) Several GPUs (the part "devices", not in the default parts: it tunes
 *     the SGEMM space twice more). The SGEMM example's whole space
 *     (exhaustive) and a 200-configuration random budget of the T1 GEMM
 *     space (bench/t1/gemm.json, seed 1), each with --devices all and then
 *     --devices 0 (the later run finds the machine warmer), a fresh
 *     database each: devices_TAG_speedup = wall
 *     time on device 0 over wall time on all (target >= 1.8 on two GPUs)
 *     and devices_TAG_best = best median on all over best on device 0
 *     (target <= 1.01). SKIPs on a machine with one GPU.
 *
 * The times are the --json summary's problems[0].wall_s (the process start,
 * the driver and the worker's start are outside it); the process wall time
 * is printed too. Needs a GPU; without one it SKIPs and exits 0.
 *
 * The SGEMM space alone takes a few minutes (about 130 s of compiling on
 * the H200 machine's 16 threads, then about 1400 measurements): run it with
 * KJIT_BENCH_TIMEOUT=600 under run-benchmarks.
 *
 * Environment: KJIT_BENCH_SRCDIR (the source tree, for the specs),
 * KJIT_BENCH_BINDIR (bench-floors, bench-tune-serial; default ./bench),
 * KJIT_BENCH_TUNE (kjit-tune; default ./autotune/kjit-tune), KJIT_BENCH_KEEP
 * (a folder: the examples' databases are written there and kept, so that a
 * run's results can be exported or replayed later; default: a temporary
 * folder removed at exit), KJIT_BENCH_TUNE_PARTS (names of the parts to run,
 * separated by spaces: the examples' names, saxpy32, sgemm48 and devices;
 * default all but devices).
 */
#include "config.h"

#include <sqlite3.h>
#include <sys/wait.h>

#include "benchutil.h"

typedef struct example {
	const char *name, *spec; /* spec relative to the source tree */
	int flops;               /* 1: GFLOP/s against cuBLAS; 0: GB/s against copy */
	const char *target;
} example;

static const example examples[] = {
	{ "saxpy", "examples/saxpy/saxpy.json", 0, "ratio>=0.95" },
	{ "reduction", "examples/reduction/reduction.json", 0, "ratio>=0.90" },
	{ "transpose", "examples/transpose/transpose.json", 0, "ratio>=0.85" },
	{ "stencil", "examples/stencil/stencil.json", 0, "info" },
	{ "sgemm", "examples/sgemm/sgemm.json", 1, "ratio>=0.75" },
};

/* What the --json summary says of problem 0. */
typedef struct summary {
	double wall_s, evaluated, space, gbps, gflops, median_ns, floor_s;
	int workers;
	char config[512], statuses[512], times[1024];
} summary;

static const char *srcdir, *bindir, *kjit_tune, *parts;
static int failures;

/* Whether KJIT_BENCH_TUNE_PARTS selects part (all but "devices" when
 * unset). */
static int selected(const char *part)
{
	if (!parts || !*parts)
		return strcmp(part, "devices") != 0;
	size_t n = strlen(part);
	for (const char *p = parts; (p = strstr(p, part)) != NULL; p += n)
		if ((p == parts || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Runs a shell command; its stdout lines are echoed and those starting
 * with "RESULT name " give *value. Returns the exit status. */
static int run_child(const char *cmd, const char *const *names, double *values, size_t n)
{
	FILE *p = popen(cmd, "r");
	char line[4096];
	if (!p)
		bench_die("cannot run %s: %s", cmd, strerror(errno));
	while (fgets(line, sizeof line, p)) {
		fputs(line, stdout);
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(names[i]);
			if (strncmp(line, "RESULT ", 7) == 0 && strncmp(line + 7, names[i], len) == 0 &&
			    line[7 + len] == ' ')
				values[i] = strtod(line + 8 + len, NULL);
		}
	}
	fflush(stdout);
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Runs kjit-tune --json --strategy exhaustive (and extra options) on spec
 * with db; 0 and *s on success. */
static int tune(const char *label, const char *spec, const char *db, const char *extra,
                summary *s)
{
	char out[BENCH_PATH_MAX], cmd[4 * BENCH_PATH_MAX];
	snprintf(out, sizeof out, "%s.json", db);
	snprintf(cmd, sizeof cmd, "'%s' '%s' --json --strategy exhaustive %s --db '%s' > '%s'",
	         kjit_tune, spec, extra, db, out);
	printf("  %s: %s\n", label, cmd);
	fflush(stdout);
	uint64_t t0 = bench_now_ns();
	int st = system(cmd);
	double wall = (double)(bench_now_ns() - t0) * 1e-9;
	if (st != 0) {
		printf("FAILED bench-tune %s: kjit-tune exit status %d\n", label,
		       WIFEXITED(st) ? WEXITSTATUS(st) : st);
		failures++;
		return -1;
	}
	size_t len;
	char *doc = bench_read_file(out, &len);
	sqlite3 *q;
	sqlite3_stmt *stmt;
	if (sqlite3_open(":memory:", &q) != SQLITE_OK ||
	    sqlite3_prepare_v2(q,
	                       "SELECT json_extract(?1, '$.problems[0].wall_s'),"
	                       " json_extract(?1, '$.problems[0].evaluated'),"
	                       " json_extract(?1, '$.problems[0].space'),"
	                       " json_extract(?1, '$.problems[0].best.gbps'),"
	                       " json_extract(?1, '$.problems[0].best.gflops'),"
	                       " json_extract(?1, '$.problems[0].best.median_ns'),"
	                       " json_extract(?1, '$.problems[0].best.config'),"
	                       " json_extract(?1, '$.problems[0].statuses'),"
	                       " json_extract(?1, '$.problems[0].floor_s'),"
	                       " json_extract(?1, '$.problems[0].time'),"
	                       " json_array_length(?1, '$.workers')"
	                       " WHERE json_valid(?1)",
	                       -1, &stmt, NULL) != SQLITE_OK)
		bench_die("SQLite: %s", sqlite3_errmsg(q));
	sqlite3_bind_text(stmt, 1, doc, (int)len, SQLITE_STATIC);
	int rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL &&
	    sqlite3_column_type(stmt, 5) != SQLITE_NULL) {
		s->wall_s = sqlite3_column_double(stmt, 0);
		s->evaluated = sqlite3_column_double(stmt, 1);
		s->space = sqlite3_column_double(stmt, 2);
		s->gbps = sqlite3_column_type(stmt, 3) == SQLITE_NULL ? -1 : sqlite3_column_double(stmt, 3);
		s->gflops = sqlite3_column_type(stmt, 4) == SQLITE_NULL ? -1
		                                                        : sqlite3_column_double(stmt, 4);
		s->median_ns = sqlite3_column_double(stmt, 5);
		const unsigned char *c = sqlite3_column_text(stmt, 6), *t = sqlite3_column_text(stmt, 7);
		snprintf(s->config, sizeof s->config, "%s", c ? (const char *)c : "?");
		snprintf(s->statuses, sizeof s->statuses, "%s", t ? (const char *)t : "?");
		s->floor_s = sqlite3_column_type(stmt, 8) == SQLITE_NULL ? -1
		                                                         : sqlite3_column_double(stmt, 8);
		const unsigned char *tm = sqlite3_column_text(stmt, 9);
		snprintf(s->times, sizeof s->times, "%s", tm ? (const char *)tm : "?");
		s->workers = sqlite3_column_int(stmt, 10);
		printf("  %s: %.0f of %.0f configurations in %.3f s (process %.3f s, floor %.3f s), "
		       "statuses %s\n"
		       "  %s: best %s, median %.1f us\n"
		       "  %s: time %s\n",
		       label, s->evaluated, s->space, s->wall_s, wall, s->floor_s, s->statuses, label,
		       s->config, s->median_ns / 1e3, label, s->times);
		rc = 0;
	} else {
		printf("FAILED bench-tune %s: %s: no problems[0].wall_s and best in the --json "
		       "summary\n", label, out);
		failures++;
		rc = -1;
	}
	sqlite3_finalize(stmt);
	sqlite3_close(q);
	free(doc);
	return rc;
}

/* Deletes the tuning results of db, keeping the cached binaries. */
static void forget_results(const char *db)
{
	sqlite3 *d;
	char *err = NULL;
	if (sqlite3_open(db, &d) != SQLITE_OK ||
	    sqlite3_exec(d, "DELETE FROM best; DELETE FROM results; DELETE FROM runs;", NULL,
	                 NULL, &err) != SQLITE_OK)
		bench_die("%s: deleting the results: %s", db, err ? err : sqlite3_errmsg(d));
	sqlite3_close(d);
}

/* kjit-tune on spec (its first limit configurations; 0: all), with a
 * fresh database and then, for a whole space, again with the binaries
 * cached; then bench-tune-serial on the same configurations. */
static void versus_serial(const char *tag, const char *spec, unsigned limit, const char *target)
{
	char db[BENCH_PATH_MAX], cmd[3 * BENCH_PATH_MAX], label[64], name[64], extra[64] = "";
	summary cold, warm;
	if (limit)
		snprintf(extra, sizeof extra, "--budget %u", limit);
	bench_tmp_path(db, sizeof db, tag);
	snprintf(label, sizeof label, "tune_%s_cold", tag);
	int have_cold = tune(label, spec, db, extra, &cold) == 0;
	if (have_cold) {
		bench_result(label, cold.wall_s, "s", -1, target);
		snprintf(label, sizeof label, "tune_%s_vs_floor", tag);
		bench_result(label, cold.wall_s, "s", cold.floor_s, "info");
		if (!limit) {
			forget_results(db);
			snprintf(label, sizeof label, "tune_%s_warm", tag);
			if (tune(label, spec, db, extra, &warm) == 0) {
				bench_result(label, warm.wall_s, "s", -1, target);
				snprintf(label, sizeof label, "tune_%s_warm_vs_floor", tag);
				bench_result(label, warm.wall_s, "s", warm.floor_s, "info");
			}
		}
	}
	snprintf(name, sizeof name, "tune_serial_%s", tag);
	const char *const serial_names[] = { name };
	double serial = -1;
	snprintf(cmd, sizeof cmd, "'%s/bench-tune-serial' '%s' --tag %s --limit %u", bindir, spec,
	         tag, limit);
	if (run_child(cmd, serial_names, &serial, 1) != 0 || serial <= 0) {
		printf("FAILED bench-tune: %s gave no result\n", cmd);
		failures++;
	} else if (have_cold) {
		snprintf(label, sizeof label, "tune_%s_vs_serial", tag);
		bench_result(label, cold.wall_s, "s", serial, "ratio<=1");
	}
}

/* (4): spec with extra on every device, then on device 0: the second
 * run has the warmer machine (file cache, clocks), which favours the
 * one device. */
static void versus_devices(const char *tag, const char *spec, const char *extra)
{
	char db[BENCH_PATH_MAX], label[64], name[64], args[256];
	summary one, all;
	snprintf(name, sizeof name, "devices_%s_all.db", tag);
	snprintf(args, sizeof args, "%s --devices all", extra);
	snprintf(label, sizeof label, "devices_%s_all", tag);
	if (tune(label, spec, bench_tmp_path(db, sizeof db, name), args, &all) != 0)
		return;
	snprintf(name, sizeof name, "devices_%s_one.db", tag);
	snprintf(args, sizeof args, "%s --devices 0", extra);
	snprintf(label, sizeof label, "devices_%s_one", tag);
	if (tune(label, spec, bench_tmp_path(db, sizeof db, name), args, &one) != 0)
		return;
	snprintf(label, sizeof label, "devices_%s", tag);
	if (all.workers < 2) {
		bench_skip(label, "one GPU: --devices all started one worker");
		return;
	}
	printf("  %s: %d workers\n", label, all.workers);
	snprintf(label, sizeof label, "devices_%s_speedup", tag);
	bench_result(label, one.wall_s / all.wall_s, "x", -1, "value>=1.8");
	snprintf(label, sizeof label, "devices_%s_best", tag);
	bench_result(label, all.median_ns, "ns", one.median_ns, "ratio<=1.01");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-tune\n(environment: KJIT_BENCH_SRCDIR, KJIT_BENCH_BINDIR, "
	           "KJIT_BENCH_TUNE)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-tune";
	int rc = bench_parse_options(argc, argv, NULL, 0, usage);
	if (rc >= 0)
		return rc;
	srcdir = getenv("KJIT_BENCH_SRCDIR");
	if (!srcdir || !*srcdir)
		srcdir = KJIT_BENCH_SRCDIR;
	bindir = getenv("KJIT_BENCH_BINDIR");
	if (!bindir || !*bindir)
		bindir = "./bench";
	const char *keep = getenv("KJIT_BENCH_KEEP");
	parts = getenv("KJIT_BENCH_TUNE_PARTS");
	kjit_tune = getenv("KJIT_BENCH_TUNE");
	if (!kjit_tune || !*kjit_tune)
		kjit_tune = "./autotune/kjit-tune";

	printf("bench-tune: kjit-tune %s on the examples of %s\n", kjit_tune, srcdir);
	char db[BENCH_PATH_MAX], path[BENCH_PATH_MAX], cmd[2 * BENCH_PATH_MAX];
	kjit_engine *e = bench_engine_open(bench_tmp_path(db, sizeof db, "probe.db"), NULL, 0);
	int gpu = kjit_engine_has_gpu(e);
	if (!gpu) {
		bench_skip("tune", kjit_engine_gpu_reason(e));
		kjit_engine_close(e);
		return 0;
	}
	kjit_engine_close(e); /* the GPU is the tuner's from here */

	/* (1) the floors, when an example is measured against them */
	static const char *const floor_names[] = { "floor_copy", "floor_sgemm" };
	double floors[2] = { -1, -1 };
	int any = 0;
	for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
		any |= selected(examples[i].name);
	snprintf(cmd, sizeof cmd, "'%s/bench-floors'", bindir);
	if (any && run_child(cmd, floor_names, floors, 2) != 0)
		bench_die("%s failed", cmd);
	double tflops_floor = floors[1] > 0 ? floors[1] * 1e3 : -1; /* GFLOP/s */

	/* (2) quality; the SGEMM run also gives (3)'s speed */
	for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
		const example *x = &examples[i];
		summary s;
		if (!selected(x->name))
			continue;
		char label[64], name[96];
		snprintf(label, sizeof label, "tune_%s", x->name);
		snprintf(path, sizeof path, "%s/%s", srcdir, x->spec);
		if (keep && *keep)
			snprintf(db, sizeof db, "%s/%s.db", keep, x->name);
		else
			bench_tmp_path(db, sizeof db, x->name);
		if (tune(label, path, db, "", &s) != 0)
			continue;
		snprintf(name, sizeof name, "tune_quality_%s", x->name);
		if (x->flops)
			bench_result(name, s.gflops / 1e3, "TFLOP/s",
			             tflops_floor > 0 ? tflops_floor / 1e3 : -1, x->target);
		else
			bench_result(name, s.gbps, "GB/s", floors[0], x->target);
		if (x->flops) {
			bench_result("tune_sgemm_wall", s.wall_s, "s", -1, "info");
			bench_result("tune_sgemm_rate", s.evaluated / s.wall_s, "variants/s", -1, "info");
		}
	}

	/* (3) kjit-tune against the serial loop: the 32-configuration saxpy
	 * space (cold and warm cache), and the first 48 configurations of the
	 * SGEMM space (cold) */
	char spec[BENCH_PATH_MAX];
	snprintf(spec, sizeof spec, "%s/bench/saxpy-32.json", srcdir);
	if (selected("saxpy32"))
		versus_serial("saxpy32", spec, 0, "value<=0.5");
	snprintf(spec, sizeof spec, "%s/examples/sgemm/sgemm.json", srcdir);
	if (selected("sgemm48"))
		versus_serial("sgemm48", spec, 48, "info");
	/* (4) several GPUs */
	if (selected("devices")) {
		snprintf(spec, sizeof spec, "%s/examples/sgemm/sgemm.json", srcdir);
		versus_devices("sgemm", spec, "");
		snprintf(spec, sizeof spec, "%s/bench/t1/gemm.json", srcdir);
		versus_devices("gemm200", spec, "--strategy random --budget 200 --seed 1");
	}
	return failures ? 1 : 0;
}
