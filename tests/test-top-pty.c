/*
 * test-top-pty - kjit-top in a real terminal (a detached tmux session,
 * read back with capture-pane): the known database's kernels and meters
 * on screen; sort, filter, detail, help, pause and quit keys; resizes,
 * down to the "too small" message and back; under the running run whose
 * results came from two GPUs, a line for each and one for the results
 * that name no device. Without NVML, the header's "power: n/a" and its
 * reason. Then kjit-top running while
 * four processes write telemetry through the real writer
 * (kjit__telemetry_*): their data shows within two refreshes and every
 * writer wrote every event, none dropped.
 *
 * Skips (77) when tmux is not installed.
 */
#include "testutil.h"
#include "test-top-db.h"

#include <math.h>
#include <sys/time.h>

#include "instr.h"

#define INTERVAL_S 0.2
#define N_WRITERS 4

static char sock[TU_PATH], top_bin[TU_PATH];
static const char *dir;
static pid_t owner;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Runs `tmux -S sock ARGS` and returns its exit status. */
static int tmux(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int tmux(const char *fmt, ...)
{
	char args[2048], cmd[TU_PATH + 2048 + 16];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "tmux -S '%s' %s", sock, args);
	fflush(NULL);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static void kill_server(void)
{
	if (getpid() == owner && sock[0])
		(void)tmux("kill-server >/dev/null 2>&1");
}

/* The screen as text, one line per row. */
static char *screen(void)
{
	static char buf[65536];
	char cmd[TU_PATH + 64];
	snprintf(cmd, sizeof cmd, "tmux -S '%s' capture-pane -p -t top", sock);
	fflush(NULL);
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	pclose(p);
	return buf;
}

/* Waits up to timeout_s for all of the NULL-terminated needles to be on
 * the screen (absent: none of them). Returns the seconds it took. */
static double wait_screen(double timeout_s, int absent, const char *const *needles)
{
	double t0 = now_s();
	for (;;) {
		const char *s = screen();
		int ok = 1;
		for (const char *const *n = needles; *n; n++)
			ok &= absent ? strstr(s, *n) == NULL : strstr(s, *n) != NULL;
		if (ok)
			return now_s() - t0;
		if (now_s() - t0 > timeout_s) {
			fprintf(stderr, "screen:\n%s\n", s);
			for (const char *const *n = needles; *n; n++)
				fprintf(stderr, "  %s \"%s\"\n", absent ? "must not show" : "must show", *n);
			TU_FAIL("the screen did not %s within %.1f s", absent ? "clear" : "show that",
			        timeout_s);
		}
		sleep_s(0.05);
	}
}

#define SHOWS(t, ...) wait_screen((t), 0, (const char *const[]){ __VA_ARGS__, NULL })
#define LACKS(t, ...) wait_screen((t), 1, (const char *const[]){ __VA_ARGS__, NULL })

/* The kernels table's first data row: the line after the one with
 * "KERNEL" and "LAUNCHES". */
static void first_row(char *out, size_t size)
{
	const char *s = screen();
	const char *t = strstr(s, "LAUNCHES");
	out[0] = '\0';
	if (!t || !(t = strchr(t, '\n')))
		return;
	size_t n = strcspn(t + 1, "\n");
	snprintf(out, size, "%.*s", (int)n, t + 1);
}

static void start_top(const char *args, int cols, int rows)
{
	char exit_file[TU_PATH];
	tu_path(exit_file, dir, "exit");
	unlink(exit_file);
	CHECK(tmux("new-session -d -s top -x %d -y %d \"'%s' %s; echo \\$? > '%s'\"", cols, rows,
	           top_bin, args, exit_file) == 0);
}

/* Waits for kjit-top to exit after q; returns its exit code. */
static int wait_exit(void)
{
	char exit_file[TU_PATH];
	tu_path(exit_file, dir, "exit");
	for (double t0 = now_s(); now_s() - t0 < 5; sleep_s(0.05))
		if (tu_exists(exit_file)) {
			sleep_s(0.05);
			char *s = tu_read_file(exit_file, NULL);
			int rc = atoi(s);
			free(s);
			return rc;
		}
	TU_FAIL("kjit-top did not exit");
}

/* TERM=dumb cannot move the cursor, TERM=bogus is no terminal curses
 * knows: kjit-top says so (not curses) and points to --once. */
static void unusable_terminal(const char *term, const char *want)
{
	char db[TU_PATH], exit_file[TU_PATH], err[TU_PATH];
	char name[64];
	snprintf(name, sizeof name, "%s.db", term);
	top_test_fill(tu_path(db, dir, name));
	tu_path(exit_file, dir, "exit");
	tu_path(err, dir, "dumb.err");
	unlink(exit_file);
	CHECK(tmux("new-session -d -s %s -x 80 -y 24 \"TERM=%s '%s' --db '%s' 2> '%s';"
	           " echo \\$? > '%s'\"", term, term, top_bin, db, err, exit_file) == 0);
	CHECK(wait_exit() == 1);
	char *msg = tu_read_file(err, NULL);
	CHECK_CONTAINS(msg, want);
	CHECK_CONTAINS(msg, "use --once or --json");
	CHECK_MSG(!strstr(msg, "Error opening terminal"), "%s", msg);
	OK("TERM=%s: exit 1, \"%.*s\"", term, (int)strcspn(msg, "\n"), msg);
	free(msg);
}

/* Without NVML the header says "power: n/a" and why, and the rest of
 * the screen is there: NVML turned off, then a library that is not
 * there. */
static void no_power(void)
{
	static const struct {
		const char *env, *shows;
	} cases[] = {
		{ "KJIT_NVML=off", "power: n/a (NVML turned off (KJIT_NVML=off))" },
		{ "KJIT_LIBNVML=/nonexistent/libnvidia-ml.so.1",
		  "power: n/a (no NVML: /nonexistent/libnvidia-ml.so.1 could not be opened" },
	};
	char db[TU_PATH], exit_file[TU_PATH];
	top_test_fill(tu_path(db, dir, "power.db"));
	tu_path(exit_file, dir, "exit");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unlink(exit_file);
		CHECK(tmux("new-session -d -s top -x 160 -y 30 \"%s '%s' --db '%s' --interval 0.2;"
		           " echo \\$? > '%s'\"", cases[i].env, top_bin, db, exit_file) == 0);
		SHOWS(5, cases[i].shows, "LAUNCHES", "saxpy", "run 1 saxpy");
		tmux("send-keys -t top q");
		CHECK(wait_exit() == 0);
		OK("%s: the header shows \"%s\"", cases[i].env, cases[i].shows);
	}
	(void)tmux("kill-server >/dev/null 2>&1");
}

static void keys_and_resizes(void)
{
	char db[TU_PATH], args[TU_PATH + 64];
	top_test_fill(tu_path(db, dir, "known.db"));
	setenv("KJIT_TOP_NOW", TOP_TEST_NOW_TEXT, 1);
	snprintf(args, sizeof args, "--db '%s' --interval 0.2", db);
	start_top(args, 100, 30);
	SHOWS(5, "kjit-top", "compile p50 50.0 ms", "hit 90.6% mem 81.2 disk 3.1 ptx 6.2", "launches 25.0/s",
	      "writers 3", "run 1 saxpy", "saxpy", "reduce", "gemm_tiled", "transpose",
	      "compiles/s", "EVALUATED", "ok 30 ce 5 cr 2 to 3");
	OK("100x30: meters, run progress, history, the four kernels and the runs table");
	SHOWS(2, "gpu 0 8c4e2a1f    17 evaluated  best 1.00 us  last 24s ago  ok 15 cr 1 to 1",
	      "gpu 1 3f9d7b25    18 evaluated  best 1.10 us  last 22s ago  ok 15 cr 1 to 2",
	      "unknown device     5 evaluated  best -        last 32s ago  ce 5");
	{
		const char *s = screen(), *run1 = strstr(s, "40/100 running");
		const char *g0 = strstr(s, "gpu 0 "), *g1 = strstr(s, "gpu 1 ");
		const char *none = strstr(s, "unknown device"), *run2 = strstr(s, "20/20 done");
		CHECK_MSG(run1 && g0 && g1 && none && run2 && run1 < g0 && g0 < g1 && g1 < none &&
		          none < run2, "screen:\n%s", s);
	}
	OK("run 1's devices under it: gpu 0 and gpu 1 (ordinal, short UUID, evaluated, best, "
	   "age, counts), then its results of no device");
	char row[256];
	first_row(row, sizeof row);
	CHECK_CONTAINS(row, "saxpy");
	tmux("send-keys -t top s");
	SHOWS(2, "sort: name");
	first_row(row, sizeof row);
	CHECK_CONTAINS(row, "gemm_tiled");
	OK("s sorts by name: gemm_tiled first");
	tmux("send-keys -t top / s a x Enter");
	LACKS(2, "gemm_tiled");
	SHOWS(2, "filter: sax");
	OK("/sax filters the kernels table");
	tmux("send-keys -t top Enter");
	SHOWS(2, "40 variants", "cache hit 95.0% mem 90.0 disk 5.0 ptx 0.0", "rule: exact",
	      "samples of variant 1: 4", "CONFIGURATION");
	tmux("send-keys -t top j");
	SHOWS(2, "samples of variant 2");
	OK("Enter opens saxpy's detail: variants, its lookups by tier, the rule, the histogram; "
	   "j moves");
	tmux("send-keys -t top Escape");
	SHOWS(2, "LAUNCHES", "saxpy");
	tmux("send-keys -t top Escape");
	SHOWS(2, "gemm_tiled");
	OK("Esc goes back, a second Esc clears the filter");
	tmux("send-keys -t top ?");
	SHOWS(2, "Keys", "filter kernels by name", "RUNS results: ok ok, ce compile_error,",
	      "le launch_error", "crashed", "to timeout", "wr wrong_result", "se stopped_early",
	      "Narrow: RECENT, then COMPILE, make way for BEST CONFIG.");
	tmux("send-keys -t top ?");
	SHOWS(2, "LAUNCHES");
	tmux("send-keys -t top p");
	SHOWS(2, "[PAUSED]");
	tmux("send-keys -t top p");
	LACKS(2, "[PAUSED]");
	OK("? shows the help (with the run status codes), p pauses and resumes");

	CHECK(tmux("resize-window -t top -x 80 -y 24") == 0);
	SHOWS(3, "KERNEL", "saxpy", "launches 25.0/s");
	CHECK(tmux("resize-window -t top -x 40 -y 10") == 0);
	SHOWS(3, "terminal too small");
	CHECK(tmux("resize-window -t top -x 120 -y 40") == 0);
	SHOWS(3, "KERNEL", "BEST CONFIG", "transpose");
	LACKS(1, "too small");
	OK("resized to 80x24, 40x10 (too small) and 120x40");
	tmux("send-keys -t top q");
	CHECK(wait_exit() == 0);
	OK("q quits with status 0");
	unsetenv("KJIT_TOP_NOW");
	(void)tmux("kill-server >/dev/null 2>&1");
}

/* At 80x24: the header's miss share; a kernel whose configurations are
 * wider than the detail's column shows its miss share and each
 * configuration whole, over three lines, in numeric order (block_size_y
 * 1, 2, 4: not 1, 16, 2); the help's
 * history span is what 80 columns hold. */
static void eighty_columns(void)
{
	char db_path[TU_PATH], args[TU_PATH + 64], sql[1024];
	top_test_fill(tu_path(db_path, dir, "eighty.db"));
	sqlite3 *db = tu_db_open(db_path);
	tu_db_exec(db, "INSERT INTO kernels VALUES ('7e57000000000000000000000000000a', 'tile2d',"
	               " 'src', 'block_size_x,block_size_y,tile_size_x,tile_size_y,use_padding,"
	               "use_shared', 0)");
	static const int ys[] = { 16, 2, 8, 1, 4 };
	for (int i = 0; i < 5; i++) {
		snprintf(sql, sizeof sql, "INSERT INTO binaries(id, key, signature, options, arch,"
		         " nvrtc, lowered_name, size, checksum, compile_ms, created, last_used, cubin)"
		         " VALUES (%d, '%032d', '7e57000000000000000000000000000a', '-Dblock_size_x=32\n"
		         "-Dblock_size_y=%d\n-Dtile_size_x=4\n-Dtile_size_y=2\n-Duse_padding=1\n"
		         "-Duse_shared=0\n-arch=sm_90', 'sm_90', '13.0', 'tile2d', 4, 'x', 50, 0, 0,"
		         " x'00000000')", 10 + i, 7000 + i, ys[i]);
		tu_db_exec(db, sql);
	}
	tu_db_close(db);
	setenv("KJIT_TOP_NOW", TOP_TEST_NOW_TEXT, 1);
	snprintf(args, sizeof args, "--db '%s' --interval 0.2", db_path);
	start_top(args, 80, 24);
	SHOWS(5, "hit 90.6% mem 81.2 disk 3.1 ptx 6.2 miss 9.4 | compile p50", "compiles 10/min");
	/* the title and the footer whole: words dropped, none cut (a capture
	 * taken while the screen is redrawn may hold no title yet) */
	const char *t = screen();
	for (double t0 = now_s(); (*t == ' ' || *t == '\n') && now_s() - t0 < 2; sleep_s(0.05))
		t = screen();
	const char *nl = strchr(t, '\n');
	CHECK_MSG(nl, "%s", t);
	size_t len = (size_t)(nl - t);
	while (len && t[len - 1] == ' ')
		len--;
	/* whole words: the line ends with a word of the title's own ending */
	CHECK_MSG(len > 5 && (memcmp(t + len - 3, " ms", 3) == 0 ||
	                      memcmp(t + len - 3, ".db", 3) == 0 || t[len - 1] == ')' || len < 78),
	          "title cut mid-word:\n%.*s", (int)(nl - t), t);
	SHOWS(1, " kernels\n");
	OK("80x24: the header shows the cache shares, miss 9.4 among them, first; the title and "
	   "the footer whole");
	/* the selected kernel's best configuration, cut in its column, whole
	 * on a line of its own; none for one the column holds */
	SHOWS(1, "BLOCK_SIZE=256 ITEMS_PER_TH~", "best of saxpy: BLOCK_SIZE=256 ITEMS_PER_THREAD=4");
	tmux("send-keys -t top j");
	LACKS(2, "best of");
	tmux("send-keys -t top k");
	SHOWS(2, "best of saxpy:");
	OK("80x24: the selected kernel's cut best configuration whole on its own line");
	tmux("send-keys -t top / t i l e 2 Enter Enter");
	SHOWS(3, "tile2d", "CONFIGURATION", "use_shared=0", "block_size_y=4 ",
	      "miss 0.0  7e57");
	const char *s = screen();
	const char *y1 = strstr(s, "block_size_y=1 "), *y2 = strstr(s, "block_size_y=2 ");
	const char *y4 = strstr(s, "block_size_y=4 "), *y8 = strstr(s, "block_size_y=8 ");
	const char *y16 = strstr(s, "block_size_y=16 ");
	CHECK_MSG(y1 && y2 && y4 && y1 < y2 && y2 < y4 && (!y8 || y4 < y8) &&
	          (!y16 || (y8 && y8 < y16)), "not in numeric order:\n%s", s);
	int whole = 0;
	for (const char *p = s; (p = strstr(p, "use_shared=0")) != NULL; p++)
		whole++;
	CHECK_MSG(whole >= 3 && !strstr(s, "use_sha~") && !strstr(s, "use_padding=~"),
	          "%d whole configurations:\n%s", whole, s);
	OK("80x24 detail: the kernel's miss share; %d configurations whole over three lines "
	   "each, block_size_y 1, 2, 4", whole);
	tmux("send-keys -t top Escape Escape / s a x Enter Enter");
	SHOWS(3, "GB/S", "FLOP/S", "PEAK", "OCC", "ENERGY", "ITEMS_PER_THREAD=1",
	      " 3410  2.00T  71%  75% 1.23mJ", "    -      -    -    - 2.50mJ");
	LACKS(1, "ITEMS_PER_THREA~");
	OK("80x24 detail with stored profiles: GB/s, FLOP/s, share of the peak, occupancy and "
	   "energy per launch, the configurations whole; \"-\" where the counters were refused");
	tmux("send-keys -t top Escape Escape ?");
	SHOWS(2, "44 here: the last 220 s (at most 600 s)");
	OK("the help says 80 columns hold 220 s of history");
	tmux("send-keys -t top q");
	CHECK(wait_exit() == 0);
	unsetenv("KJIT_TOP_NOW");
	(void)tmux("kill-server >/dev/null 2>&1");
}

/* One writer process: events for kernel writer_<i> for `seconds`, through
 * the real telemetry writer; exits 0 when every event was written. */
static int writer(const char *db, int i, int ready_fd, double seconds)
{
	kjit__telemetry_opts o;
	kjit__telemetry_defaults(&o);
	o.interval_ms = 100;
	kjit__telemetry *t = NULL;
	if (kjit__telemetry_open(db, &o, &t) != KJIT_OK) {
		fprintf(stderr, "writer %d: %s\n", i, kjit_last_error());
		return 1;
	}
	kjit__event ev;
	memset(&ev, 0, sizeof ev);
	snprintf(ev.kernel, sizeof ev.kernel, "writer_%d", i);
	snprintf(ev.signature, sizeof ev.signature, "%032d", i);
	double t0 = now_s();
	for (int n = 0; now_s() - t0 < seconds; n++) {
		ev.kind = KJIT__EV_CACHE;
		snprintf(ev.tier, sizeof ev.tier, n % 10 ? "memory" : "miss");
		ev.count = 10;
		ev.value = 0;
		kjit__telemetry_record(t, &ev);
		ev.kind = KJIT__EV_LAUNCH;
		ev.tier[0] = '\0';
		ev.count = 100;
		kjit__telemetry_record(t, &ev);
		ev.count = 1;
		ev.value = 1000.0 * (i + 1);
		snprintf(ev.variant, sizeof ev.variant, "%032d", 100 + i);
		kjit__telemetry_record(t, &ev);
		ev.variant[0] = '\0';
		if (n % 20 == 0) {
			ev.kind = KJIT__EV_COMPILE;
			snprintf(ev.tier, sizeof ev.tier, "miss");
			ev.value = 5 + i;
			kjit__telemetry_record(t, &ev);
		}
		if (n == 0) {
			if (kjit__telemetry_flush(t) != KJIT_OK || write(ready_fd, "r", 1) != 1)
				return 1;
		}
		sleep_s(0.01);
	}
	if (kjit__telemetry_flush(t) != KJIT_OK) {
		fprintf(stderr, "writer %d: flush: %s\n", i, kjit_last_error());
		return 1;
	}
	kjit__telemetry_stats s;
	kjit__telemetry_get_stats(t, &s);
	kjit__telemetry_close(t);
	printf("  writer %d: recorded %llu written %llu dropped %llu in %llu batches\n", i,
	       (unsigned long long)s.recorded, (unsigned long long)s.written,
	       (unsigned long long)s.dropped, (unsigned long long)s.batches);
	return s.dropped == 0 && s.written == s.recorded && s.recorded > 0 ? 0 : 1;
}

static void live_writers(void)
{
	char db[TU_PATH], args[TU_PATH + 64];
	tu_path(db, dir, "live.db");
	snprintf(args, sizeof args, "--db '%s' --interval %.1f", db, INTERVAL_S);
	start_top(args, 120, 30);
	SHOWS(5, "no database at", "run a kjit program first");
	kjit__store *s = NULL;
	CHECK_OK(kjit__store_open(db, &s));
	kjit__store_close(s);
	SHOWS(5, "no kernels yet");
	OK("a missing database: the message, then the database once a program made it");
	int fds[2];
	CHECK(pipe(fds) == 0);
	pid_t pids[N_WRITERS];
	fflush(NULL);
	for (int i = 0; i < N_WRITERS; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			close(fds[0]);
			_exit(writer(db, i, fds[1], 3.0));
		}
	}
	close(fds[1]);
	char c;
	for (int i = 0; i < N_WRITERS; i++)
		CHECK(read(fds[0], &c, 1) == 1);
	close(fds[0]);
	/* every writer has committed its first events: two refreshes later
	 * (and a capture's latency) they are on screen */
	double took = SHOWS(2 * INTERVAL_S + 1.0, "writer_0", "writer_1", "writer_2", "writer_3",
	                    "writers 4");
	printf("  the four writers' data on screen %.2f s after their first commit "
	       "(refresh every %.1f s)\n", took, INTERVAL_S);
	CHECK(took <= 2 * INTERVAL_S + 0.5);
	OK("kjit-top shows four live writers within two refreshes");
	for (int i = 0; i < N_WRITERS; i++)
		CHECK_MSG(tu_wait(pids[i]) == 0, "writer %d lost events", i);
	OK("no writer dropped an event or failed a write while kjit-top read");
	SHOWS(3, "launches ");
	tmux("send-keys -t top q");
	CHECK(wait_exit() == 0);
}


/* ---- demo: a realistic database for the screenshot ------------------------- */

static const struct {
	const char *name;
	double ns;      /* best median */
	double drift;   /* recent against best */
	int stale;
} demo_kernels[] = {
	{ "gemm_tiled", 182000, 0.012, 0 },  { "saxpy", 9400, -0.004, 0 },
	{ "reduce_sum", 21300, 0.127, 0 },   { "softmax_rows", 48700, 0.031, 0 },
	{ "layernorm_fwd", 35100, 0.002, 0 }, { "transpose_2d", 15800, 0.0, 1 },
	{ "conv2d_nhwc", 412000, 0.0, 0 },   { "histogram_256", 27600, 0.0, 0 },
};
#define DEMO_N (sizeof demo_kernels / sizeof demo_kernels[0])

static void demo_sig(int k, char out[33])
{
	const char *n = demo_kernels[k].name;
	kjit__hash_hex(kjit__hash(n, strlen(n), 42), out);
}

static double demo_noise(unsigned *seed)
{
	return (double)rand_r(seed) / RAND_MAX - 0.5;
}

/* Kernels, best rows and tuning runs as kjit-tune would leave them. */
static void demo_fill(const char *db_path)
{
	kjit__store *s = NULL;
	CHECK_OK(kjit__store_open(db_path, &s));
	kjit__store_close(s);
	sqlite3 *db = tu_db_open(db_path);
	double now = kjit__wall_time();
	char sql[2048], sig[33];
	tu_db_exec(db, "BEGIN");
	for (size_t k = 0; k < DEMO_N; k++) {
		demo_sig((int)k, sig);
		snprintf(sql, sizeof sql, "INSERT INTO kernels VALUES('%s', '%s', 'src', 'BLOCK', %f)",
		         sig, demo_kernels[k].name, now - 3600);
		tu_db_exec(db, sql);
		if (k >= 6) /* conv2d and histogram are not tuned yet */
			continue;
		snprintf(sql, sizeof sql, "INSERT INTO best(signature, device_key, problem, arch,"
		         " config, median_ns, nvrtc, stale, updated) VALUES('%s', 'sm_90|NVIDIA H200|132',"
		         " '{\"n\":16777216}', 'sm_90', '{\"BLOCK\":%d,\"ITEMS\":%d}', %f, '13.0', %d, %f)",
		         sig, 128 << (k % 3), 1 + (int)k % 4, demo_kernels[k].ns, demo_kernels[k].stale,
		         now - 1800);
		tu_db_exec(db, sql);
	}
	static const struct { int k; const char *strategy, *status; int total, evaluated; double age; }
	runs[] = { { 6, "random", "running", 400, 152, 260 }, { 7, "anneal", "running", -1, 41, 90 },
		   { 3, "grid", "done", 64, 64, 400 } };
	unsigned seed = 7;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		demo_sig(runs[r].k, sig);
		char total[16] = "NULL";
		if (runs[r].total >= 0)
			snprintf(total, sizeof total, "%d", runs[r].total);
		snprintf(sql, sizeof sql, "INSERT INTO runs(id, signature, device_key, kernel, strategy,"
		         " problem, status, total, evaluated, started, updated) VALUES(%zu, '%s',"
		         " 'sm_90|NVIDIA H200|132', '%s', '%s', '{\"n\":16777216}', '%s', %s, %d, %f, %f)",
		         r + 1, sig, demo_kernels[runs[r].k].name, runs[r].strategy, runs[r].status, total,
		         runs[r].evaluated, now - runs[r].age, now - (r == 2 ? 200 : 2));
		tu_db_exec(db, sql);
		for (int i = 0; i < runs[r].evaluated; i++) {
			static const char *const st[] = { "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok",
				                          "ok", "ok", "ok", "stopped_early", "stopped_early",
				                          "compile_error", "timeout", "wrong_result" };
			const char *status = st[rand_r(&seed) % 16];
			char median[32] = "NULL", samples[25 * 16 + 8] = "NULL";
			if (strcmp(status, "ok") == 0) {
				double t = demo_kernels[runs[r].k].ns * (1.0 + 0.8 * (demo_noise(&seed) + 0.5));
				snprintf(median, sizeof median, "%.0f", t);
				/* 25 samples around the median, float64 little-endian */
				size_t n = (size_t)snprintf(samples, sizeof samples, "x'");
				for (int j = 0; j < 25; j++) {
					double x = t * (1 + 0.03 * demo_noise(&seed) * demo_noise(&seed) * 4);
					uint64_t bits;
					memcpy(&bits, &x, sizeof bits);
					for (int b = 0; b < 8; b++)
						n += (size_t)snprintf(samples + n, sizeof samples - n, "%02x",
						                      (unsigned)(bits >> (8 * b)) & 0xffu);
				}
				snprintf(samples + n, sizeof samples - n, "'");
			}
			snprintf(sql, sizeof sql, "INSERT INTO results(run_id, signature, device_key, problem,"
			         " config, status, median_ns, samples, n_samples, created) VALUES(%zu, '%s',"
			         " 'sm_90|NVIDIA H200|132', '{\"n\":16777216}', '{\"BLOCK\":%d,\"ITEMS\":%d,"
			         "\"UNROLL\":%d}', '%s', %s, %s, 25, %f)", r + 1, sig, 32 << (i % 6),
			         1 + i / 6 % 8, 1 + i / 48, status, median, samples, now);
			tu_db_exec(db, sql);
		}
	}
	/* the last 10 minutes, so that the history has a shape: compile
	 * bursts when new processes started, a slow wave in kernel times */
	for (int ago = 600; ago > 0; ago -= 5)
		for (size_t k = 0; k < DEMO_N; k++) {
			demo_sig((int)k, sig);
			int burst = ago == 545 || ago == 300 || ago == 120;
			int n = 200 + rand_r(&seed) % 200, miss = burst ? 3 : rand_r(&seed) % 12 == 0;
			double ns = demo_kernels[k].ns * (1 + 0.15 * sin(ago / 60.0 + (double)k));
			snprintf(sql, sizeof sql, "INSERT INTO events(ts, pid, kind, signature, kernel,"
			         " variant, tier, value, count) VALUES"
			         " (%f, 900, 'cache', '%s', '%s', NULL, 'memory', 0, %d),"
			         " (%f, 900, 'cache', '%s', '%s', NULL, 'miss', 0, %d),"
			         " (%f, 900, 'launch', '%s', '%s', NULL, NULL, 0, %d),"
			         " (%f, 900, 'launch', '%s', '%s', NULL, NULL, %f, 1)",
			         now - ago, sig, demo_kernels[k].name, n, now - ago, sig,
			         demo_kernels[k].name, miss, now - ago, sig, demo_kernels[k].name, n,
			         now - ago + 1, sig, demo_kernels[k].name, ns);
			tu_db_exec(db, sql);
			for (int c = 0; c < miss; c++) {
				snprintf(sql, sizeof sql, "INSERT INTO events(ts, pid, kind, signature,"
				         " kernel, tier, value, count) VALUES(%f, 900, 'compile', '%s', '%s',"
				         " 'miss', %f, 1)", now - ago + 2, sig, demo_kernels[k].name,
				         120 + 300 * (demo_noise(&seed) + 0.5) + (k == 6 ? 900 : 0));
				tu_db_exec(db, sql);
			}
		}
	tu_db_exec(db, "COMMIT");
	tu_db_close(db);
}

/* A process of the demo: kernels k0.. with launches, hits and sampled
 * times, a compile burst at the start, for seconds. */
static int demo_writer(const char *db, int w, double seconds)
{
	kjit__telemetry *t = NULL;
	if (kjit__telemetry_open(db, NULL, &t) != KJIT_OK)
		return 1;
	unsigned seed = 1234u + (unsigned)w;
	kjit__event ev;
	double t0 = now_s();
	for (int n = 0; now_s() - t0 < seconds; n++) {
		for (size_t k = (size_t)w; k < DEMO_N; k += 2) {
			memset(&ev, 0, sizeof ev);
			demo_sig((int)k, ev.signature);
			snprintf(ev.kernel, sizeof ev.kernel, "%s", demo_kernels[k].name);
			int cold = n < 3 || rand_r(&seed) % 60 == 0;
			ev.kind = KJIT__EV_CACHE;
			snprintf(ev.tier, sizeof ev.tier, cold ? (n % 2 ? "disk" : "miss") : "memory");
			ev.count = cold ? 1 : 20 + rand_r(&seed) % 60;
			kjit__telemetry_record(t, &ev);
			if (cold && ev.tier[1] == 'i') {
				ev.kind = KJIT__EV_COMPILE;
				ev.count = 1;
				ev.value = 90 + 300 * (demo_noise(&seed) + 0.5) + (k == 6 ? 900 : 0);
				kjit__telemetry_record(t, &ev);
			}
			ev.kind = KJIT__EV_LAUNCH;
			ev.tier[0] = '\0';
			ev.value = 0;
			ev.count = 20 + rand_r(&seed) % 60;
			kjit__telemetry_record(t, &ev);
			ev.count = 1;
			ev.value = demo_kernels[k].ns * (1 + demo_kernels[k].drift) *
			           (1 + 0.04 * demo_noise(&seed) * demo_noise(&seed) * 4);
			const char *name = demo_kernels[k].name;
			kjit__hash_hex(kjit__hash(name, strlen(name), 7), ev.variant);
			kjit__telemetry_record(t, &ev);
			ev.variant[0] = '\0';
		}
		sleep_s(0.05);
	}
	kjit__telemetry_close(t);
	return 0;
}

/* `test-top-pty demo DB SECONDS`: fills DB and writes telemetry from
 * two processes for SECONDS, for a look at kjit-top (or a screenshot). */
static int demo(const char *db, double seconds)
{
	demo_fill(db);
	pid_t pids[2];
	fflush(NULL);
	for (int w = 0; w < 2; w++)
		if ((pids[w] = fork()) == 0)
			_exit(demo_writer(db, w, seconds));
	int rc = 0;
	for (int w = 0; w < 2; w++)
		rc |= tu_wait(pids[w]);
	return rc;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	if (argc == 4 && strcmp(argv[1], "demo") == 0)
		return demo(argv[2], atof(argv[3]));
	if (system("command -v tmux >/dev/null 2>&1") != 0) {
		printf("SKIP: tmux is not installed\n");
		return 77;
	}
	const char *build = getenv("KJIT_BUILDDIR");
	CHECK_MSG(build && *build, "KJIT_BUILDDIR is not set: run through make check");
	snprintf(top_bin, sizeof top_bin, "%s/tui/kjit-top", build);
	dir = tu_tmpdir();
	tu_path(sock, dir, "tmux.sock");
	owner = getpid();
	atexit(kill_server);
	/* a plain terminal: no colours, the ASCII sparklines */
	setenv("TERM", "xterm", 1);
	unsetenv("TMUX");
	unsetenv("KJIT_DB");
	unusable_terminal("dumb", "TERM=dumb cannot show the live view: use --once or --json");
	unusable_terminal("bogus", "kjit-top: TERM=bogus: curses cannot use this terminal for the "
	                  "live view: use --once or --json");
	no_power();
	keys_and_resizes();
	eighty_columns();
	live_writers();
	printf("PASS\n");
	return 0;
}
