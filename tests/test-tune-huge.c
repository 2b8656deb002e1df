/*
 * test-tune-huge: kjit-tune on a space too large to hold
 * (tests/t1/huge_space.json: 8.65e12 configurations, 4.6e12 valid) in
 * bounded memory and time. --count runs under `ulimit -v` 256 MB. The
 * --compile-only runs (real NVRTC, no GPU) cannot: libnvrtc alone maps
 * 109 MB and each thread's stack and malloc arena reserve more address
 * space than they use, so their peak resident memory is measured instead
 * (wait4() of the child) and must stay at or under 256 MB. A budget
 * compiles that many configurations of a random sample; without one, or
 * exhaustive, the run stops at once asking for a budget. Budgets of
 * --compile-only on a space held whole (saxpy) take that many. Under a
 * sanitizer (whose shadow memory reserves terabytes of address space and
 * doubles what is resident) the memory bounds are not checked: the rest is.
 * A spec of 200,000 one-value parameters is read and counted in about ten
 * times the time of one of 20,000: linear, within a bound generous enough
 * for a loaded machine.
 */
#include "testutil.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define MEMORY_MB 256

/* the address-space limit of the --count run: none under a sanitizer */
#define LIMIT (KJIT__SANITIZED ? "true" : "ulimit -v 262144")

static char tool[TU_PATH], huge[TU_PATH], saxpy[TU_PATH], dir[TU_PATH];

/* Runs `sh -c cmd` with its stdout and stderr in out[cap]; returns the
 * exit status, and the peak resident memory of the child or its
 * descendants in *rss_mb and the wall time in *secs. */
static int run_measured(const char *cmd, char *out, size_t cap, double *rss_mb, double *secs)
{
	char log[TU_PATH];
	tu_path(log, dir, "out.log");
	double t0 = tu_now();
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		FILE *f = freopen(log, "w", stdout);
		if (!f || dup2(fileno(stdout), 2) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		CHECK_MSG(errno == EINTR, "wait4: %s", strerror(errno));
	*secs = tu_now() - t0;
	*rss_mb = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
	CHECK_MSG(WIFEXITED(status), "%s: status 0x%x", cmd, status);
	size_t len = 0;
	char *text = tu_read_file(log, &len);
	snprintf(out, cap, "%s", text ? text : "");
	free(text);
	return WEXITSTATUS(status);
}

#define RUN(want, ...)                                                                \
	do {                                                                          \
		char cmd_[4 * TU_PATH];                                               \
		snprintf(cmd_, sizeof cmd_, __VA_ARGS__);                             \
		rc = run_measured(cmd_, out, sizeof out, &rss, &secs);                \
		CHECK_MSG(rc == (want), "%s: exit %d, wanted %d:\n%s", cmd_, rc, want, out); \
	} while (0)

/* A header of 8 MiB named 200 times, and 8 link inputs naming one file of
 * 250 MiB (sparse: a link input is read as bytes): refused by the totals,
 * naming them, in bounded memory. */
static void test_totals(void)
{
	char path[TU_PATH], spec[TU_PATH], db[TU_PATH], out[8192];
	double rss, secs;
	int rc;
	size_t len = (size_t)8 << 20;
	char *text = malloc(len);
	CHECK(text);
	for (size_t i = 0; i < len; i++)
		text[i] = i % 64 == 63 ? '\n' : i % 64 < 2 ? '/' : 'h';
	tu_write_file(tu_path(path, dir, "big.h"), text, len);
	free(text);
	FILE *f = fopen(tu_path(spec, dir, "headers.json"), "w");
	CHECK(f);
	fputs("{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\", \"headers\": {", f);
	for (int i = 0; i < 200; i++)
		fprintf(f, "%s\"h%d.h\": {\"path\": \"big.h\"}", i ? ", " : "", i);
	fputs("}}, \"parameters\": [{\"name\": \"P\", \"values\": [1]}]}\n", f);
	CHECK(fclose(f) == 0);
	RUN(3, "exec '%s' '%s' --count", tool, spec);
	CHECK_CONTAINS(out, "headers of one spec or kernel would pass 256 MiB in all");
	CHECK_MSG(KJIT__SANITIZED || rss < 512, "%.0f MB resident", rss);
	OK("a header of 8 MiB named 200 times: refused at 256 MiB in all, %.0f MB resident", rss);

	int fd = open(tu_path(path, dir, "big.ltoir"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)250 << 20) == 0 && close(fd) == 0);
	f = fopen(tu_path(spec, dir, "links.json"), "w");
	CHECK(f);
	fputs("{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\", \"link\": [", f);
	for (int i = 0; i < 8; i++)
		fprintf(f, "%s\"big.ltoir\"", i ? ", " : "");
	fputs("]}, \"parameters\": [{\"name\": \"P\", \"values\": [1]}]}\n", f);
	CHECK(fclose(f) == 0);
	tu_path(db, dir, "links.db");
	char cmd[4 * TU_PATH];
	snprintf(cmd, sizeof cmd, "exec '%s' '%s' --compile-only --arch sm_90 -j 1 --db '%s'", tool,
	         spec, db);
	rc = run_measured(cmd, out, sizeof out, &rss, &secs);
	CHECK_MSG(rc != 0, "exit 0:\n%s", out);
	CHECK_CONTAINS(out, "link inputs of one spec or kernel would pass 1024 MiB in all");
	CHECK_MSG(KJIT__SANITIZED || rss <= MEMORY_MB, "%.0f MB resident", rss);
	OK("8 link inputs naming one file of 250 MiB: refused at 1024 MiB in all before any is "
	   "read (exit %d), %.0f MB resident", rc, rss);
}

/* A spec of n parameters of one value each, in dir. */
static void write_many(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");
	CHECK(f);
	fputs("{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, \"parameters\": [", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s{\"name\": \"P%zu\", \"values\": [1]}", i ? ", " : "", i);
	fputs("]}\n", f);
	CHECK(fclose(f) == 0);
}

#define FEW_PARAMS 20000
#define MANY_PARAMS 200000

static void test_many_params(void)
{
	char few[TU_PATH], many[TU_PATH], out[4096];
	double rss, secs, few_secs;
	int rc;
	tu_write_file(tu_path(few, dir, "k.cu"), "extern \"C\" __global__ void k() {}\n", 35);
	write_many(tu_path(few, dir, "few.json"), FEW_PARAMS);
	write_many(tu_path(many, dir, "many.json"), MANY_PARAMS);
	RUN(0, "exec '%s' '%s' --count", tool, few);
	CHECK_CONTAINS(out, "valid 1, product 1");
	few_secs = secs;
	/* linear: about 10 times; quadratic would be 100 */
	int bound = 5 + (int)(30 * few_secs);
	RUN(0, "exec timeout %d '%s' '%s' --count", bound, tool, many);
	CHECK_CONTAINS(out, "valid 1, product 1");
	OK("--count of a spec of %d one-value parameters: %.2f s, of %d: %.2f s (at most %d s)",
	   FEW_PARAMS, few_secs, MANY_PARAMS, secs, bound);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_kjit_tune(tool);
	snprintf(huge, sizeof huge, "%s/tests/t1/huge_space.json", tu_srcdir());
	snprintf(saxpy, sizeof saxpy, "%s/examples/saxpy/saxpy.json", tu_srcdir());
	snprintf(dir, sizeof dir, "%s", tu_tmpdir());
	char out[65536];
	double rss, secs;
	int rc;

	test_many_params();
	test_totals();
	RUN(0, "%s && exec '%s' '%s' --count", LIMIT, tool, huge);
	CHECK_CONTAINS(out, "valid 4613203125000, product 8649755859375");
	CHECK_MSG(secs < 10, "--count took %.1f s", secs);
	OK("--count of 8.65e12 configurations (%s): %.2f s, %.0f MB resident", LIMIT, secs, rss);

	RUN(0, "exec '%s' '%s' --compile-only --budget 20 --arch sm_90 -j 1 --db '%s/h.db'",
	    tool, huge, dir);
	CHECK_CONTAINS(out, "variants 20: compiled 20, cached 0, failed 0 (arch sm_90");
	CHECK_MSG(KJIT__SANITIZED || rss <= MEMORY_MB, "--compile-only --budget 20: %.0f MB resident", rss);
	double first = rss;
	RUN(0, "exec '%s' '%s' --compile-only --budget 20 --arch sm_90 -j 1 --db '%s/h.db'",
	    tool, huge, dir);
	CHECK_CONTAINS(out, "variants 20: compiled 0, cached 20, failed 0");
	RUN(0, "exec '%s' '%s' --compile-only --budget 20 --seed 2 --arch sm_90 -j 1 --db "
	    "'%s/h.db'", tool, huge, dir);
	CHECK_MSG(strstr(out, "variants 20: compiled ") && !strstr(out, "compiled 0,"),
	          "--seed 2 drew the sample of seed 1 again:\n%s", out);
	OK("--compile-only --budget 20 (NVRTC): 20 of a random sample, %.0f MB peak resident "
	   "(at most %d: ulimit -v cannot hold NVRTC's mappings); the same 20 again for the same "
	   "seed, others for another", first, MEMORY_MB);

	RUN(3, "exec '%s' '%s' --compile-only --arch sm_90 --db '%s/h.db'", tool, huge, dir);
	CHECK_CONTAINS(out, "the space is too large to hold whole");
	CHECK_CONTAINS(out, "give a budget");
	CHECK_MSG(secs < 10 && (KJIT__SANITIZED || rss <= MEMORY_MB), "refusing took %.1f s and %.0f MB",
	          secs, rss);
	double refused = secs;
	char csv[TU_PATH];
	tu_path(csv, dir, "r.csv");
	tu_write_file(csv, "block_size_x,time\n", 18);
	RUN(3, "exec '%s' '%s' --replay '%s' --strategy exhaustive", tool, huge, csv);
	CHECK_CONTAINS(out, "give a budget");
	RUN(2, "exec '%s' '%s' --compile-only --time-budget 5 --arch sm_90", tool, huge);
	CHECK_CONTAINS(out, "--compile-only takes --budget N or --fraction F");
	OK("without a budget, --compile-only and an exhaustive replay stop at once asking for one "
	   "(%.2f s); --time-budget is refused", refused);

	RUN(0, "exec '%s' '%s' --compile-only --budget 5 --arch sm_90 -j 1 --db '%s/s.db'", tool,
	    saxpy, dir);
	CHECK_CONTAINS(out, "variants 5: compiled 5, cached 0");
	RUN(0, "exec '%s' '%s' --compile-only --fraction 0.75 --arch sm_90 -j 1 --db '%s/s.db'",
	    tool, saxpy, dir);
	CHECK_CONTAINS(out, "variants 30: ");
	RUN(0, "exec '%s' '%s' --compile-only --arch sm_90 -j 1 --db '%s/s.db'", tool, saxpy, dir);
	CHECK_CONTAINS(out, "variants 40: ");
	OK("--compile-only on saxpy (40): --budget 5 takes 5, --fraction 0.75 30, no budget 40");
	return 0;
}
