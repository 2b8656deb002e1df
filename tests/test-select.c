/*
 * test-select: which configuration kjit_launch() chooses (src/select.c,
 * src/launch.c, src/store_best.c), on a real database file that the test
 * fills: the exact problem on this device, the nearest one (log distance),
 * another device of the same architecture (after this device's nearest,
 * even when that device's row is exact), the default; ties; rows of
 * another NVRTC, stale rows and configurations outside the space never
 * chosen; the selection memoised (the database read once per problem),
 * also under 16 threads; the signature of a C description equal to
 * kjit-tune's for the same spec; online results written and read back;
 * bad descriptions and KJIT_TUNE values refused with their names.
 */
#include "testutil.h"

#include <math.h>
#include <pthread.h>

#include "tuning_private.h"

#define DEV "sm_90|NVIDIA H200|132|13000"
#define OTHER "sm_90|NVIDIA H100 80GB HBM3|132|13000"

static char db_path[TU_PATH], spec_path[TU_PATH];

static kjit_engine *engine_as(const char *device_key)
{
	kjit_engine *e = tu_engine_cpu(db_path, "sm_90", 2);
	/* No GPU here: the device key is the one a GPU engine would have. */
	snprintf(e->device_key, sizeof e->device_key, "%s", device_key);
	return e;
}

static void add_row(sqlite3 *db, const char *sig, const char *dev, int64_t n, int block,
                    int items, double median, const char *nvrtc, int stale)
{
	char sql[1024];
	snprintf(sql, sizeof sql,
	         "INSERT OR REPLACE INTO best(signature, device_key, problem, arch, config,"
	         " median_ns, nvrtc, stale, updated) VALUES('%s', '%s', '{\"n\":%lld}', 'sm_90',"
	         " '{\"BLOCK_SIZE\":%d,\"ITEMS_PER_THREAD\":%d}', %g, '%s', %d, 0)",
	         sig, dev, (long long)n, block, items, median, nvrtc, stale);
	CHECK_SQL(db, sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
}

static kjit_explanation explain(kjit_kernel *k, int64_t n)
{
	kjit_explanation x;
	CHECK_OK(kjit_explain(k, &n, 1, &x));
	return x;
}

static void expect(kjit_kernel *k, int64_t n, const char *rule, const char *config,
                   const char *problem, const char *device)
{
	kjit_explanation x = explain(k, n);
	CHECK_MSG(strcmp(x.rule, rule) == 0, "n=%lld: rule %s, expected %s", (long long)n, x.rule,
	          rule);
	CHECK_MSG(strcmp(x.config, config) == 0, "n=%lld: config %s, expected %s", (long long)n,
	          x.config, config);
	CHECK_STREQ(x.problem, problem);
	CHECK_STREQ(x.device_key, device);
	OK("n=%lld -> %s %s (tuned for %s on %s)", (long long)n, x.rule, x.config,
	   *x.problem ? x.problem : "-", *x.device_key ? x.device_key : "-");
}

/* The saxpy spec as a C description. */
static const char *const blocks[] = { "64", "128", "256", "512", "1024" };
static const char *const items[] = { "1", "2", "3", "4", "5", "6", "7", "8" };
static const char *const sizes[] = { "n" };

static kjit_tunable_desc saxpy_desc(kjit_param params[2])
{
	params[0] = (kjit_param){ "BLOCK_SIZE", blocks, 5, 2, KJIT_ROLE_BLOCK_X | KJIT_ROLE_DEFINE };
	params[1] = (kjit_param){ "ITEMS_PER_THREAD", items, 8, 0, KJIT_ROLE_DEFINE };
	kjit_tunable_desc d = { 0 };
	d.entry = "saxpy";
	d.source_path = tu_saxpy_path();
	d.params = params;
	d.n_params = 2;
	d.grid[0] = "(n + BLOCK_SIZE * ITEMS_PER_THREAD - 1) / (BLOCK_SIZE * ITEMS_PER_THREAD)";
	d.problem_names = sizes;
	d.n_problem = 1;
	return d;
}

/* ---- threads ------------------------------------------------------------ */

#define THREADS 16
#define PROBLEMS 300

typedef struct worker {
	kjit_kernel *k;
	int id;
	const char *seen[PROBLEMS];
} worker;

static void *work(void *arg)
{
	worker *w = arg;
	for (int i = 0; i < 2000; i++) {
		int p = (i * 7 + w->id * 13) % PROBLEMS;
		int64_t n = 1000 + p;
		kjit_explanation x;
		if (kjit_explain(w->k, &n, 1, &x) != KJIT_OK)
			return "explain failed";
		if (w->seen[p] && w->seen[p] != x.config)
			return "two configurations for one problem";
		w->seen[p] = x.config;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	tu_path(db_path, dir, "kjit.db");
	snprintf(spec_path, sizeof spec_path, "%s/examples/saxpy/saxpy.json", tu_srcdir());

	/* Signatures: spec file, C description and kjit-tune agree. */
	kjit_engine *e = engine_as(DEV);
	kjit_kernel *ks, *kc;
	kjit_param params[2];
	kjit_tunable_desc d = saxpy_desc(params);
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &ks));
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &kc));
	kjit__spec *spec;
	char *tune_sig;
	CHECK_OK(kjit__spec_load(spec_path, &spec));
	CHECK_OK(kjit_spec_signature(spec, &tune_sig));
	kjit__spec_free(spec);
	CHECK_STREQ(kjit_kernel_signature(ks), tune_sig);
	CHECK_STREQ(kjit_kernel_signature(kc), tune_sig);
	size_t nn;
	const char *const *names = kjit_kernel_problem_names(ks, &nn);
	CHECK(nn == 1 && strcmp(names[0], "n") == 0);
	OK("signature %s: the spec, the C description and kjit-tune agree", tune_sig);

	/* The database: rows of this device, another H100, another NVRTC. */
	const char *nv = kjit_nvrtc_id();
	sqlite3 *db;
	CHECK_SQL(db, sqlite3_open(db_path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	add_row(db, tune_sig, DEV, 1 << 20, 512, 2, 1000, nv, 0);
	add_row(db, tune_sig, DEV, 1 << 16, 128, 1, 500, nv, 0);
	add_row(db, tune_sig, DEV, 1 << 24, 1024, 4, 9000, nv, 0);
	add_row(db, tune_sig, DEV, 1 << 26, 256, 4, 9000, nv, 0);
	add_row(db, tune_sig, DEV, 2048, 1024, 8, 100, "nvrtc-12.0+older", 0);
	add_row(db, tune_sig, DEV, 8192, 256, 8, 100, nv, 1);
	add_row(db, tune_sig, OTHER, 4096, 64, 1, 700, nv, 0);
	add_row(db, tune_sig, OTHER, 300, 64, 2, 700, nv, 0);
	/* a configuration outside the space (96 is not a BLOCK_SIZE value) */
	char sql[512];
	snprintf(sql, sizeof sql, "INSERT INTO best VALUES('%s', '" DEV "', '{\"n\":100}', 'sm_90',"
	         " '{\"BLOCK_SIZE\":96,\"ITEMS_PER_THREAD\":1}', NULL, 10, '%s', 0, 0, 'time')", tune_sig,
	         nv);
	CHECK_SQL(db, sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	/* rows written by others, exact for 200, 400 and 600: a key twice, an
	 * array as a key (SQLite's own JSON reader read freed memory on it), a
	 * size that is not an integer, a size or a parameter under another
	 * name */
	static const char *const hostile[][2] = {
		{ "{\"n\":200}", "{\"BLOCK_SIZE\":64,\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}" },
		{ "{\"n\":400}", "{[\"BLOCK_SIZE\"]:64,\"ITEMS_PER_THREAD\":1}" },
		{ "{\"n\":600.5}", "{\"BLOCK_SIZE\":64,\"ITEMS_PER_THREAD\":1}" },
		{ "{\"N\":200}", "{\"BLOCK_SIZE\":64,\"ITEMS_PER_THREAD\":1}" },
		{ "{\"n\":600}", "{\"BLOCK_SIZE\":64,\"ITEMS\":1}" },
	};
	for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		snprintf(sql, sizeof sql, "INSERT INTO best VALUES('%s', '" DEV "', '%s', 'sm_90',"
		         " '%s', NULL, 10, '%s', 0, 0, 'time')", tune_sig, hostile[i][0],
		         hostile[i][1], nv);
		CHECK_SQL(db, sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}

	/* the 2^20 row's result has a profile, as kjit-tune --profile stores it */
	CHECK_SQL(db, sqlite3_exec(db, "UPDATE best SET result_id = 7 WHERE problem ="
	                           " '{\"n\":1048576}'; INSERT INTO profiles(result_id,"
	                           " dram_read_bytes, dram_write_bytes, energy_j, passes,"
	                           " counters_reason, energy_reason, created)"
	                           " VALUES(7, 8e6, 4e6, 0.5, 9, '', 'energy: no NVML', 0)",
	                           NULL, NULL, NULL),
	          SQLITE_OK);

	/* Exact. */
	expect(ks, 1 << 20, "exact", "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":2}",
	       "{\"n\":1048576}", DEV);
	kjit_explanation x = explain(ks, 1 << 20);
	CHECK(x.median_ns == 1000 && !x.stale && !x.tuning);
	CHECK(x.profile && x.profile->dram_read_bytes == 8e6 && x.profile->dram_write_bytes == 4e6);
	CHECK(x.profile->passes == 9 && x.profile->energy_j == 0.5 && isnan(x.profile->flop_fp32));
	CHECK_STREQ(x.profile->counters_reason, "");
	CHECK_STREQ(x.profile->energy_reason, "energy: no NVML");
	CHECK(explain(ks, 1 << 17).profile == NULL);
	OK("kjit_explain() gives the chosen row's stored profile, NULL for a row without one");
	/* Nearest in log distance: 2^17 is nearer 2^16 than 2^20. */
	expect(ks, 1 << 17, "nearest", "{\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}",
	       "{\"n\":65536}", DEV);
	/* This device first: the H100's exact row for 4096 (tuned on another
	 * machine, shipped in this database) ranks after this device's nearest. */
	expect(ks, 4096, "nearest", "{\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}",
	       "{\"n\":65536}", DEV);
	/* The row of another NVRTC (exact for 2048) is never used. */
	expect(ks, 2048, "nearest", "{\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}",
	       "{\"n\":65536}", DEV);
	/* Nor a stale row (exact for 8192), nor a configuration outside the
	 * space (exact for 100). */
	expect(ks, 8192, "nearest", "{\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}",
	       "{\"n\":65536}", DEV);
	expect(ks, 100, "nearest", "{\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}",
	       "{\"n\":65536}", DEV);
	for (int64_t n = 200; n <= 600; n += 200)
		expect(ks, n, "nearest", "{\"BLOCK_SIZE\":128,\"ITEMS_PER_THREAD\":1}",
		       "{\"n\":65536}", DEV);
	OK("rows whose JSON is malformed (a key twice, an array as a key, a size not an "
	   "integer, a key under another name) are never chosen");
	/* Ties: 2^22 is as far from 2^20 as from 2^24: the lower median wins;
	 * 2^25 between 2^24 and 2^26 at equal medians: the problem text. */
	expect(ks, 1 << 22, "nearest", "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":2}",
	       "{\"n\":1048576}", DEV);
	expect(ks, 1 << 25, "nearest", "{\"BLOCK_SIZE\":1024,\"ITEMS_PER_THREAD\":4}",
	       "{\"n\":16777216}", DEV);
	/* The C description finds the same rows. */
	expect(kc, 1 << 20, "exact", "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":2}",
	       "{\"n\":1048576}", DEV);

	/* Memoised: a changed row is not read again for a known problem. */
	CHECK_SQL(db, sqlite3_exec(db, "UPDATE best SET config ="
	                           " '{\"BLOCK_SIZE\":64,\"ITEMS_PER_THREAD\":8}'"
	                           " WHERE problem = '{\"n\":1048576}'", NULL, NULL, NULL),
	          SQLITE_OK);
	x = explain(ks, 1 << 20);
	CHECK_STREQ(x.config, "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":2}");
	OK("the choice of a known problem is memoised (the database is not read again)");

	/* Bad problems. */
	int64_t two[2] = { 1, 2 }, zero = 0;
	CHECK_ST(kjit_explain(ks, two, 2, &x), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "takes 1 problem sizes, got 2");
	CHECK_ST(kjit_explain(ks, &zero, 1, &x), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "no valid configuration for problem {\"n\":0}");
	kjit_kernel *plain;
	CHECK_OK(kjit_kernel_create(e, "saxpy", "extern \"C\" __global__ void saxpy() {}", NULL, 0,
	                            &plain));
	CHECK_ST(kjit_launch(plain, two, 1, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "is not tunable");
	/* Without a GPU a launch compiles the variant and says why it stops. */
	int64_t n20 = 1 << 20;
	CHECK_ST(kjit_launch(ks, &n20, 1, NULL, NULL), KJIT_ERR_NO_GPU);
	CHECK(tu_stats(e).compiles == 1);
	OK("bad problems, plain kernels and a launch without a GPU are refused with the reason");
	kjit_engine_close(e);

	/* Same architecture, another device: the nearest of every sm_90 row
	 * (the H100's 4096 for 4096; for 2^20, the H200's exact row). */
	e = engine_as("sm_90|NVIDIA GH200 480GB|132|13000");
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &ks));
	expect(ks, 4096, "same_arch", "{\"BLOCK_SIZE\":64,\"ITEMS_PER_THREAD\":1}",
	       "{\"n\":4096}", OTHER);
	expect(ks, 1 << 20, "same_arch", "{\"BLOCK_SIZE\":64,\"ITEMS_PER_THREAD\":8}",
	       "{\"n\":1048576}", DEV);
	kjit_engine_close(e);

	/* Another architecture: the default configuration. */
	e = tu_engine_cpu(db_path, "sm_80", 2);
	snprintf(e->device_key, sizeof e->device_key, "sm_80|NVIDIA A100|108|13000");
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &ks));
	expect(ks, 1 << 20, "default", "{\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":1}", "", "");
	x = explain(ks, 1 << 20);
	CHECK(isnan(x.median_ns));
	kjit_engine_close(e);

	/* Online results: written by the engine's store, read as exact. */
	e = engine_as(DEV);
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &ks));
	double s1[3] = { 900, 910, 905 }, s2[3] = { 800, 790, 795 };
	kjit_eval tr[2] = {
		{ .config = "{\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":1}", .status = KJIT_RESULT_OK,
		  .binary_key = "k1", .timer = "cupti", .median_ns = 905, .spread_ns = NAN,
		  .min_ns = 900, .max_ns = 910, .samples = s1, .n_samples = 3, .objective = 905,
		  .compile_ms = NAN, .message = "online", .arch = "sm_90",
		  .nvrtc = kjit_nvrtc_id() },
		{ .config = "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":4}", .status = KJIT_RESULT_OK,
		  .binary_key = "k2", .timer = "cupti", .median_ns = 795, .spread_ns = NAN,
		  .min_ns = 790, .max_ns = 800, .samples = s2, .n_samples = 3, .objective = 795,
		  .compile_ms = NAN, .message = "online", .arch = "sm_90",
		  .nvrtc = kjit_nvrtc_id() },
	};
	CHECK_OK(kjit__record_search(e->store, tune_sig, DEV, "{\"n\":123456}", KJIT_OBJECTIVE_TIME, tr,
	                             2, 1));
	expect(ks, 123456, "exact", "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":4}",
	       "{\"n\":123456}", DEV);
	CHECK(explain(ks, 123456).median_ns == 795);
	sqlite3_stmt *q;
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT count(*), sum(n_samples) FROM results WHERE"
	                                 " problem = '{\"n\":123456}' AND message = 'online'", -1,
	                                 &q, NULL), SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 2 &&
	      sqlite3_column_int(q, 1) == 6);
	sqlite3_finalize(q);
	/* measured again online: no longer the device's that measured it before */
	CHECK_SQL(db, sqlite3_exec(db, "UPDATE results SET device_ordinal = 1, device_uuid = 'GPU-1'"
	                           " WHERE message = 'online'", NULL, NULL, NULL), SQLITE_OK);
	CHECK_OK(kjit__record_search(e->store, tune_sig, DEV, "{\"n\":123456}", KJIT_OBJECTIVE_TIME, tr,
	                             2, 1));
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT count(*) FROM results WHERE message = 'online'"
	                                 " AND device_ordinal IS NULL AND device_uuid IS NULL", -1,
	                                 &q, NULL), SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 2);
	sqlite3_finalize(q);
	/* Drift: sampled times within the threshold leave the row; beyond
	 * it over a full window, the entry and (at the writer's tick) the
	 * row turn stale. */
	int64_t pn = 123456;
	kjit__memo_entry *en;
	CHECK_OK(kjit__memo_get(ks, &pn, &en));
	for (int i = 0; i < 16; i++)
		kjit__drift_sample(e, en->tag, 795 * 1.25);
	CHECK(!explain(ks, 123456).stale);
	for (int i = 0; i < 7; i++)
		kjit__drift_sample(e, en->tag, 795 * 2.0);
	CHECK(!explain(ks, 123456).stale); /* the median is still within */
	for (int i = 0; i < 16; i++)
		kjit__drift_sample(e, en->tag, 795 * 2.0);
	CHECK(explain(ks, 123456).stale);
	CHECK(atomic_load(&en->retune) == 0); /* policy off: no re-tune */
	kjit__drift_flush(e);
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT stale FROM best WHERE"
	                                 " problem = '{\"n\":123456}'", -1, &q, NULL), SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	OK("drift: 1.25x keeps the row, 2x over the window marks the entry and the row stale");
	kjit_engine_close(e);
	e = engine_as(DEV);
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &ks));
	CHECK(strcmp(explain(ks, 123456).rule, "exact") != 0);
	OK("online results: results rows and the best row written, read back, stale rows skipped");

	/* 16 threads over 300 problems: one entry (one configuration
	 * pointer) per problem, the table grown under them. */
	worker w[THREADS];
	pthread_t th[THREADS];
	memset(w, 0, sizeof w);
	for (int i = 0; i < THREADS; i++) {
		w[i].k = ks;
		w[i].id = i;
		CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
	}
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		CHECK_MSG(r == NULL, "thread %d: %s", i, (const char *)r);
	}
	for (int p = 0; p < PROBLEMS; p++)
		for (int i = 1; i < THREADS; i++)
			CHECK(!w[i].seen[p] || !w[0].seen[p] || w[i].seen[p] == w[0].seen[p]);
	OK("%d threads, %d problems: one memo entry per problem", THREADS, PROBLEMS);
	kjit_engine_close(e);
	sqlite3_close(db);

	/* Bad descriptions, each named. */
	e = engine_as(DEV);
	kjit_kernel *k;
	d = saxpy_desc(params);
	params[0].default_index = 9;
	CHECK_ST(kjit_kernel_create_tunable(e, &d, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "params[0] (BLOCK_SIZE): default_index 9");
	d = saxpy_desc(params);
	params[1].name = "ITEMS PER";
	CHECK_ST(kjit_kernel_create_tunable(e, &d, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "params[1].name: expected an identifier");
	d = saxpy_desc(params);
	params[0].values = items + 7; /* "8" */
	params[0].n_values = 1;
	params[0].default_index = 0;
	params[1].values = (const char *const[]){ "fast" };
	params[1].n_values = 1;
	params[1].roles = KJIT_ROLE_BLOCK_Y;
	CHECK_ST(kjit_kernel_create_tunable(e, &d, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "positive integers for a block dimension (got fast)");
	d = saxpy_desc(params);
	const char *restr[] = { "BLOCK_SIZE * WIDTH <= 4096" };
	d.restrictions = restr;
	d.n_restrictions = 1;
	CHECK_ST(kjit_kernel_create_tunable(e, &d, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "restrictions[0]");
	CHECK_CONTAINS(kjit_last_error(), "unknown name 'WIDTH'");
	d = saxpy_desc(params);
	d.source_path = "/nonexistent/saxpy.cu";
	CHECK_ST(kjit_kernel_create_tunable(e, &d, &k), KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), "/nonexistent/saxpy.cu");
	char bad_spec[TU_PATH];
	tu_path(bad_spec, dir, "bad.json");
	tu_write_file(bad_spec, "{\"kernel\": {}}", 14);
	CHECK_ST(kjit_kernel_create_from_spec(e, bad_spec, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "bad.json: kernel.source");
	OK("bad descriptions and specs are refused, naming the field");
	/* A kernel keyed by no size at all: one problem. */
	d = saxpy_desc(params);
	d.grid[0] = "1";
	d.n_problem = 0;
	d.problem_names = NULL;
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &k));
	CHECK_OK(kjit_explain(k, NULL, 0, &x));
	CHECK(strcmp(x.rule, "default") == 0 && strcmp(x.config, "{\"BLOCK_SIZE\":256,"
	                                                   "\"ITEMS_PER_THREAD\":1}") == 0);
	OK("a kernel with no problem sizes: one choice");
	kjit_engine_close(e);

	/* KJIT_TUNE and KJIT_DRIFT. */
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db_path;
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	setenv("KJIT_TUNE", "sometimes", 1);
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_TUNE='sometimes': expected off, online or background");
	setenv("KJIT_TUNE", "background", 1);
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK(e->tune == KJIT_TUNE_BACKGROUND && e->drift_threshold == 1.3);
	kjit_engine_close(e);
	o.tune = KJIT_TUNE_OFF;
	setenv("KJIT_DRIFT", "0.5", 1);
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_DRIFT='0.5'");
	unsetenv("KJIT_DRIFT");
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK(e->tune == KJIT_TUNE_OFF);
	kjit_engine_close(e);
	unsetenv("KJIT_TUNE");
	OK("KJIT_TUNE and KJIT_DRIFT: bad values refused, named");
	free(tune_sig);
	return 0;
}
