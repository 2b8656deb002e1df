/*
 * test-gpu-devices: kjit-tune with several measuring workers, on the GPU.
 * Two workers share the one GPU a test machine may have (--devices 0,0):
 *  1. examples/saxpy's 40 variants: both workers measure, every result
 *     is recorded once with its device, one best over all of them.
 *  2. one worker killed (SIGKILL) mid-run: only that worker restarts, the
 *     run finishes every configuration, nothing reported is lost.
 *  3. SIGINT mid-run: exit 130, every worker stopped, the run marked
 *     interrupted, what was measured kept.
 *  4. a device that does not exist: a clear error naming it, exit 1.
 *  5. a strategy that waits for results proposes a batch: both workers
 *     measure a budgeted genetic run.
 * Skips (77) without a GPU.
 */
#include "testutil.h"

#include <dirent.h>
#include <signal.h>

static char tool[TU_PATH], db[TU_PATH], spec[TU_PATH];

static int tune(const char *args, const char **out)
{
	static char buf[1 << 16];
	char cmd[4 * TU_PATH];
	snprintf(cmd, sizeof cmd, "'%s' '%s' %s --db '%s' 2>&1", tool, spec, args, db);
	printf("$ kjit-tune saxpy.json %s\n", args);
	fflush(stdout);
	int code = tu_run(cmd, buf, sizeof buf);
	printf("%s", buf);
	*out = buf;
	return code;
}

/* The pids of parent's children started as `kjit-tune --worker`. */
static size_t worker_pids(pid_t parent, pid_t *out, size_t cap)
{
	DIR *d = opendir("/proc");
	size_t n = 0;
	CHECK(d != NULL);
	for (struct dirent *e; (e = readdir(d)) && n < cap;) {
		char path[300], buf[512];
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = '\0';
		const char *rp = strrchr(buf, ')');
		int ppid = 0;
		char state;
		if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2 || ppid != parent)
			continue;
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
		if (!(f = fopen(path, "r")))
			continue;
		len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = '\0';
		if (len > strlen(buf) + 1 && strcmp(buf + strlen(buf) + 1, "--worker") == 0)
			out[n++] = pid;
	}
	closedir(d);
	return n;
}

static void test_two_workers(void)
{
	const char *out;
	CHECK(tune("--devices 0,0 --json --quiet --early-stop 0", &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 40);
	CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 40);
	CHECK(strcmp(tu_json_get(out, "$.workers[2].name"), "(null)") == 0);
	CHECK(strcmp(tu_json_get(out, "$.workers[1].name"), "device 0") == 0);
	long a = tu_json_int(out, "$.workers[0].evaluated"), b = tu_json_int(out, "$.workers[1].evaluated");
	CHECK_MSG(a > 0 && b > 0 && a + b == 40, "workers measured %ld and %ld", a, b);
	char uuid[64];
	snprintf(uuid, sizeof uuid, "%s", tu_json_get(out, "$.workers[0].uuid"));
	CHECK_MSG(strncmp(uuid, "GPU-", 4) == 0 && strlen(uuid) == 40, "uuid %s", uuid);
	CHECK_STREQ(tu_json_get(out, "$.workers[1].uuid"), uuid);
	sqlite3 *d = tu_db_open(db);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'ok'", NULL) == 40);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE device_ordinal = 0 AND device_uuid = ?",
	                uuid) == 40);
	CHECK(tu_db_int(d, "SELECT count(*) FROM best", NULL) == 1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM best b JOIN results r ON r.id = b.result_id"
	                   " WHERE b.median_ns = (SELECT min(median_ns) FROM results"
	                   " WHERE status = 'ok')", NULL) == 1);
	tu_db_close(d);
	OK("two workers on one GPU: %ld + %ld of 40 measured, one best, the lowest", a, b);
}

/* Starts a forced run on two workers of device 0 with a warm-up of
 * warmup ms, stdout into outpath, and waits until it has evaluated 4. */
static pid_t start_run(const char *outpath, const char *warmup, sqlite3 *d)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execl(tool, "kjit-tune", spec, "--devices", "0,0", "--json", "--quiet", "--force",
		      "--early-stop", "0", "--warmup", warmup, "--db", db, (char *)NULL);
		_exit(127);
	}
	const char *progress = "SELECT count(*) FROM runs WHERE status = 'running' AND evaluated >= 4";
	for (int i = 0; i < 1200 && tu_db_int(d, progress, NULL) == 0; i++)
		usleep(50000);
	CHECK_MSG(tu_db_int(d, progress, NULL) == 1, "the run never got to 4 evaluations");
	return pid;
}

static void test_kill_one(void)
{
	char outpath[TU_PATH + 8];
	snprintf(outpath, sizeof outpath, "%s.out", db);
	sqlite3 *d = tu_db_open(db);
	pid_t pid = start_run(outpath, "100", d);
	pid_t w[4];
	size_t n = worker_pids(pid, w, 4);
	CHECK_MSG(n == 2, "%zu worker processes found", n);
	long before = tu_db_int(d, "SELECT evaluated FROM runs ORDER BY id DESC LIMIT 1", NULL);
	CHECK(kill(w[1], SIGKILL) == 0);
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
	size_t len;
	char *text = tu_read_file(outpath, &len);
	printf("%s", text);
	CHECK(tu_json_int(text, "$.problems[0].evaluated") == 40);
	long crashed = tu_json_int(text, "$.problems[0].statuses.crashed");
	long ok = tu_json_int(text, "$.problems[0].statuses.ok");
	CHECK_MSG(crashed <= 1 && ok + crashed == 40, "ok %ld, crashed %ld", ok, crashed);
	long r0 = tu_json_int(text, "$.workers[0].restarts"), r1 = tu_json_int(text, "$.workers[1].restarts");
	CHECK_MSG(r0 + r1 == 1, "restarts %ld and %ld", r0, r1);
	free(text);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results", NULL) == 40);
	CHECK(tu_db_int(d, "SELECT status = 'done' FROM runs ORDER BY id DESC LIMIT 1", NULL) == 1);
	tu_db_close(d);
	OK("a worker killed after %ld evaluations: only it restarted (%ld, %ld), 40 recorded, "
	   "%ld crashed", before, r0, r1, crashed);
}

static void test_interrupt(void)
{
	char outpath[TU_PATH + 8];
	snprintf(outpath, sizeof outpath, "%s.out", db);
	sqlite3 *d = tu_db_open(db);
	pid_t pid = start_run(outpath, "300", d);
	pid_t w[4];
	CHECK(worker_pids(pid, w, 4) == 2);
	CHECK(kill(pid, SIGINT) == 0);
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status 0x%x", status);
	for (int i = 0; i < 2; i++)
		CHECK_MSG(kill(w[i], 0) != 0, "worker %d still runs", (int)w[i]);
	size_t len;
	char *text = tu_read_file(outpath, &len);
	printf("%s", text);
	CHECK(strcmp(tu_json_get(text, "$.interrupted"), "1") == 0);
	long done = tu_json_int(text, "$.problems[0].evaluated");
	CHECK(done >= 4 && done < 40);
	free(text);
	CHECK(tu_db_int(d, "SELECT status = 'interrupted' FROM runs ORDER BY id DESC LIMIT 1", NULL) ==
	      1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'ok'", NULL) >= 39);
	tu_db_close(d);
	OK("SIGINT: exit 130 after %ld evaluations, both workers gone, the run interrupted", done);
}

static void test_no_such_device(void)
{
	const char *out;
	CHECK(tune("--devices 0,7 --quiet", &out) == 1);
	CHECK_CONTAINS(out, "device 7");
	CHECK_CONTAINS(out, "CUDA_ERROR_INVALID_DEVICE");
	OK("--devices 0,7 on a machine without device 7: exit 1, it is named");
}

static void test_batch(void)
{
	const char *out;
	CHECK(tune("--devices 0,0 --json --quiet --force --strategy genetic --budget 16", &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 16);
	long a = tu_json_int(out, "$.workers[0].evaluated"), b = tu_json_int(out, "$.workers[1].evaluated");
	CHECK_MSG(a > 0 && b > 0, "workers measured %ld and %ld", a, b);
	OK("genetic, budget 16: both workers measured (%ld, %ld)", a, b);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_gpu();
	tu_kjit_tune(tool);
	tu_path(db, tu_tmpdir(), "devices.db");
	tu_path(spec, tu_srcdir(), "examples/saxpy/saxpy.json");
	test_two_workers();
	test_kill_one();
	test_interrupt();
	test_no_such_device();
	test_batch();
	return 0;
}
