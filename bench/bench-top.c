/*
 * bench-top - kjit-top's cost on a large database: one million events
 * spread over the last hour (about 280 a second, so the last minute holds
 * some 17000 of them and the last 10 minutes 170000) and a thousand
 * kernels with a best configuration each.
 *
 *  - top_frame_ms: one frame's queries (data changed, history kept in its
 *    ring), the median of --frames of them; target <= 20 ms.
 *  - top_cpu_pct: CPU of the real kjit-top (./tui/kjit-top, or
 *    $KJIT_BENCH_TOP) in a pseudo-terminal at a 1 s interval, from
 *    getrusage of the child: a run of --seconds refreshes less a run of
 *    one (the start and the first frame, which reads 10 minutes of
 *    events); target <= 2% of one core. top_cpu_pct_run (info): the
 *    whole run, start included.
 *  - the same two with four processes writing telemetry meanwhile
 *    (top_frame_ms_writers, top_cpu_pct_writers).
 *  - top_first_frame_ms (info): the first frame, which reads the whole
 *    10 minutes of history.
 *
 * No GPU needed. Run it from the build folder: ./bench/bench-top.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <pty.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "benchutil.h"
#include "instr.h"
#include "tui.h"

static double wall_now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		bench_die("%s: %s", sql, msg ? msg : sqlite3_errmsg(db));
}

static void check_rc(sqlite3 *db, int rc, int want, const char *what)
{
	if (rc != want)
		bench_die("%s: %s", what, sqlite3_errmsg(db));
}

/* The database: schema from libkjit's store, then kernels, best rows,
 * five tuning runs with 200 results each, and n_events events. */
static void fill(const char *path, long n_events, int n_kernels, double span_s)
{
	kjit__store *s = NULL;
	BENCH_KJIT(kjit__store_open(path, &s));
	kjit__store_close(s);
	sqlite3 *db = NULL;
	check_rc(db, sqlite3_open(path, &db), SQLITE_OK, "opening the database");
	exec_sql(db, "BEGIN");
	sqlite3_stmt *st = NULL;
	check_rc(db, sqlite3_prepare_v2(db, "INSERT INTO kernels VALUES(printf('%032x', ?1),"
	                                " printf('kernel_%04d', ?1), 'src', 'BLOCK', 0)",
	                                -1, &st, NULL), SQLITE_OK, "preparing");
	for (int k = 0; k < n_kernels; k++) {
		sqlite3_bind_int(st, 1, k);
		check_rc(db, sqlite3_step(st), SQLITE_DONE, "inserting a kernel");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	exec_sql(db, "INSERT INTO best(signature, device_key, problem, arch, config, median_ns,"
	             " nvrtc, stale, updated) SELECT signature, 'sm_90|H200', '{\"n\":1048576}',"
	             " 'sm_90', '{\"BLOCK\":' || (64 << (rowid % 5)) || '}', 1000 + rowid,"
	             " '13.0', rowid % 17 = 0, 0 FROM kernels");
	double now = wall_now();
	for (int r = 1; r <= 5; r++) {
		char sql[512];
		snprintf(sql, sizeof sql, "INSERT INTO runs(id, signature, device_key, kernel, strategy,"
		         " problem, status, total, evaluated, started, updated) VALUES(%d,"
		         " printf('%%032x', %d), 'sm_90|H200', printf('kernel_%%04d', %d), 'random',"
		         " '{}', '%s', 400, 200, %f, %f)", r, r, r, r <= 2 ? "running" : "done",
		         now - 300, now - 1);
		exec_sql(db, sql);
		snprintf(sql, sizeof sql, "WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1"
		         " FROM i WHERE x < 200) INSERT INTO results(run_id, signature, device_key,"
		         " problem, config, status, median_ns, created) SELECT %d, printf('%%032x', %d),"
		         " 'sm_90|H200', '{}', '{\"V\":' || x || '}', CASE WHEN x %% 10 = 0 THEN"
		         " 'timeout' ELSE 'ok' END, 1000 + x, 0 FROM i", r, r);
		exec_sql(db, sql);
	}
	static const char *const kinds[] = { "cache", "launch", "launch", "cache", "compile" };
	static const char *const tiers[] = { "memory", NULL, NULL, "miss", "miss" };
	check_rc(db, sqlite3_prepare_v2(db, "INSERT INTO events(ts, pid, kind, signature, kernel,"
	                                " variant, tier, value, count) VALUES(?1, ?2, ?3,"
	                                " printf('%032x', ?4), printf('kernel_%04d', ?4), ?5, ?6,"
	                                " ?7, ?8)", -1, &st, NULL), SQLITE_OK, "preparing");
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < n_events; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int kind = (int)(x % 100);
		/* 60% memory hits, 25% launch counts, 10% timed launches, 3% misses, 2% compiles */
		int k = kind < 60 ? 0 : kind < 85 ? 1 : kind < 95 ? 2 : kind < 98 ? 3 : 4;
		int kernel = (int)((x >> 20) % (uint64_t)n_kernels);
		sqlite3_bind_double(st, 1, now - span_s + span_s * (double)i / (double)n_events);
		sqlite3_bind_int(st, 2, 1000 + (int)((x >> 40) % 8));
		sqlite3_bind_text(st, 3, kinds[k], -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, kernel);
		if (k == 2)
			sqlite3_bind_text(st, 5, "0123456789abcdef0123456789abcdef", -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		if (tiers[k])
			sqlite3_bind_text(st, 6, tiers[k], -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 6);
		if (k == 2 || k == 4)
			sqlite3_bind_double(st, 7, k == 2 ? 1000.0 + (double)(x % 200) : 50.0);
		else
			sqlite3_bind_null(st, 7);
		sqlite3_bind_int(st, 8, k == 2 || k == 4 ? 1 : 1 + (int)(x % 64));
		check_rc(db, sqlite3_step(st), SQLITE_DONE, "inserting an event");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	exec_sql(db, "COMMIT");
	exec_sql(db, "PRAGMA wal_checkpoint(TRUNCATE)");
	check_rc(db, sqlite3_close(db), SQLITE_OK, "closing");
}

/* A writer process: 50 kernels, a cache and a launch row each per 250 ms
 * tick (the engine's aggregation), a few timed launches, for seconds. */
static void writer(const char *db, int w, double seconds)
{
	kjit__telemetry *t = NULL;
	BENCH_KJIT(kjit__telemetry_open(db, NULL, &t));
	kjit__event ev;
	memset(&ev, 0, sizeof ev);
	uint64_t t0 = bench_now_ns();
	while ((double)(bench_now_ns() - t0) * 1e-9 < seconds) {
		for (int k = 0; k < 50; k++) {
			int kernel = (w * 50 + k) % 1000;
			snprintf(ev.kernel, sizeof ev.kernel, "kernel_%04d", kernel);
			snprintf(ev.signature, sizeof ev.signature, "%032x", kernel);
			ev.kind = KJIT__EV_CACHE;
			snprintf(ev.tier, sizeof ev.tier, "memory");
			ev.count = 40;
			ev.value = 0;
			kjit__telemetry_record(t, &ev);
			ev.kind = KJIT__EV_LAUNCH;
			ev.tier[0] = '\0';
			kjit__telemetry_record(t, &ev);
			if (k % 10 == 0) {
				ev.count = 1;
				ev.value = 1000 + k;
				kjit__telemetry_record(t, &ev);
			}
		}
		struct timespec ts = { 0, 250000000 };
		nanosleep(&ts, NULL);
	}
	kjit__telemetry_stats s;
	BENCH_KJIT(kjit__telemetry_flush(t));
	kjit__telemetry_get_stats(t, &s);
	kjit__telemetry_close(t);
	_exit(s.dropped == 0 && s.written == s.recorded ? 0 : 1);
}

static void start_writers(const char *db, pid_t *pids, int n, double seconds)
{
	fflush(NULL);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			bench_die("fork: %s", strerror(errno));
		if (pids[i] == 0)
			writer(db, i, seconds);
	}
}

static void stop_writers(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		int status = 0;
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bench_die("writer %d dropped events or failed", i);
	}
}

/* Median of frames frame builds, a new event committed before each so
 * that data_version changes, as with live writers. */
static double frame_ms(const char *db, int frames, double *first_ms)
{
	top_model m;
	top_model_init(&m, db);
	if (top_model_refresh(&m, wall_now(), 1) != 1)
		bench_die("kjit-top's model cannot read %s: %s", db, m.message);
	*first_ms = m.build_ms;
	sqlite3 *w = NULL;
	check_rc(w, sqlite3_open(db, &w), SQLITE_OK, "opening");
	sqlite3_busy_timeout(w, 5000);
	double *ms = bench_malloc((size_t)frames * sizeof *ms);
	for (int i = 0; i < frames; i++) {
		char sql[200];
		snprintf(sql, sizeof sql, "INSERT INTO events(ts, pid, kind, kernel, tier, count)"
		         " VALUES(%f, 1, 'cache', 'kernel_0001', 'memory', 1)", wall_now());
		exec_sql(w, sql);
		if (top_model_refresh(&m, wall_now(), 0) != 1)
			bench_die("a frame was not built: %s", m.message);
		ms[i] = m.build_ms;
	}
	sqlite3_close(w);
	double med = bench_print_stats("frame", ms, (size_t)frames, "ms").median;
	free(ms);
	top_model_close(&m);
	return med;
}

/* kjit-top in a pseudo-terminal at a 1 s interval for n refreshes; its
 * CPU seconds (getrusage of the child) and wall seconds. */
static void run_top(const char *top, const char *db, int n, double *cpu, double *wall)
{
	char count[16];
	snprintf(count, sizeof count, "%d", n);
	struct winsize ws = { 30, 120, 0, 0 };
	int master = -1;
	double t0 = wall_now();
	fflush(NULL);
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0)
		bench_die("forkpty: %s", strerror(errno));
	if (pid == 0) {
		setenv("TERM", "xterm", 1);
		execl(top, top, "--db", db, "--interval", "1", "-n", count, (char *)NULL);
		_exit(127);
	}
	char buf[65536];
	size_t bytes = 0;
	for (ssize_t r; (r = read(master, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR);)
		bytes += r > 0 ? (size_t)r : 0;
	int status = 0;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		bench_die("%s did not run (status %d): is it built? set KJIT_BENCH_TOP", top, status);
	close(master);
	*wall = wall_now() - t0;
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	printf("  kjit-top -n %d: %.3f s CPU over %.1f s, %zu bytes to the terminal\n", n, *cpu,
	       *wall, bytes);
}

/* CPU use in % of one core: over the whole run of `seconds` refreshes
 * (start and first frame included, *total) and in the steady state (the
 * run less one of a single refresh). */
static double cpu_pct(const char *top, const char *db, int seconds, double *total)
{
	double cpu1, wall1, cpu, wall;
	run_top(top, db, 1, &cpu1, &wall1);
	run_top(top, db, seconds, &cpu, &wall);
	*total = 100 * cpu / wall;
	return wall > wall1 ? 100 * (cpu - cpu1) / (wall - wall1) : *total;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-top [-e EVENTS] [-k KERNELS] [-f FRAMES] [-s SECONDS]\n"
	           "kjit-top's frame time and CPU use on a large database.\n"
	           "  -e, --events N    events in the database (default 1000000)\n"
	           "  -k, --kernels N   kernels (default 1000)\n"
	           "  -f, --frames N    frames timed (default 50)\n"
	           "  -s, --seconds N   seconds of kjit-top at a 1 s interval (default 10)\n"
	           "  -d, --db PATH     fill PATH and keep it (default: a temporary file)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-top";
	long events = 1000000;
	int kernels = 1000, frames = 50, seconds = 10;
	const char *keep = NULL;
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "kernels", required_argument, NULL, 'k' },
		{ "frames", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	for (int ch; (ch = getopt_long(argc, argv, "e:k:f:s:d:h", longopts, NULL)) != -1;) {
		switch (ch) {
		case 'e': events = atol(optarg); break;
		case 'k': kernels = atoi(optarg); break;
		case 'f': frames = atoi(optarg); break;
		case 's': seconds = atoi(optarg); break;
		case 'd': keep = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (events < 1 || kernels < 1 || frames < 1 || seconds < 1) {
		usage(stderr);
		return 2;
	}
	const char *top = getenv("KJIT_BENCH_TOP");
	top = top && *top ? top : "./tui/kjit-top";
	if (access(top, X_OK) != 0)
		bench_die("%s not found: run from the build folder or set KJIT_BENCH_TOP", top);

	char db[BENCH_PATH_MAX];
	if (keep) {
		snprintf(db, sizeof db, "%s", keep);
		bench_remove_db(db);
	} else {
		bench_tmp_path(db, sizeof db, "top.db");
	}
	uint64_t t0 = bench_now_ns();
	fill(db, events, kernels, 3600);
	printf("  database: %ld events over the last hour, %d kernels (filled in %.1f s)\n", events,
	       kernels, (double)(bench_now_ns() - t0) * 1e-9);

	double first = 0;
	double idle = frame_ms(db, frames, &first);
	bench_result("top_first_frame_ms", first, "ms", -1, "info");
	bench_result("top_frame_ms", idle, "ms", -1, "value<=20");
	double total;
	double steady = cpu_pct(top, db, seconds, &total);
	bench_result("top_cpu_pct_run", total, "%", -1, "info");
	bench_result("top_cpu_pct", steady, "%", -1, "value<=2");

	pid_t pids[4];
	start_writers(db, pids, 4, seconds + 12.0 + frames * 0.05);
	double busy = frame_ms(db, frames, &first);
	bench_result("top_frame_ms_writers", busy, "ms", -1, "value<=20");
	steady = cpu_pct(top, db, seconds, &total);
	bench_result("top_cpu_pct_run_writers", total, "%", -1, "info");
	bench_result("top_cpu_pct_writers", steady, "%", -1, "value<=2");
	stop_writers(pids, 4);
	printf("  the four writers wrote every event, none dropped\n");
	return 0;
}
