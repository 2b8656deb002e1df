/*
 * bench-cworkers - kjit-tune's compile pool as processes against threads:
 * kjit-tune --compile-only of a spec of 64 distinct saxpy variants
 * (BLOCK_SIZE 64, 128, 256, 512 x ITEMS_PER_THREAD 1, 2, 4, 8 x 4 values
 * of a salt define) into a fresh database, with -j P --compile-pool
 * processes and -j P --compile-pool threads, for P in 1, 2, 4, 8, 16. The
 * wall time is the whole command's: start-up, every worker's exec and
 * engine, the compiles and the stores. Each pass has fresh salts and a
 * fresh database, so that every variant is a miss.
 *
 * The floor at each P: the same 64 compiles, bare NVRTC (create, compile,
 * fetch the cubin) in P forked processes, each taking every P-th variant
 * (this process never touches NVRTC itself, so a fork is safe).
 *
 * Figures: wall time at each P for processes and threads against the
 * floor (info), and the speed-ups at the largest P against 1 process.
 * Target: processes >= 8x at 16 workers.
 *
 * KJIT_BENCH_TUNE names the kjit-tune to run (default ./autotune/kjit-tune).
 */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <sys/wait.h>

#include "benchutil.h"

#define MAX_P 16
#define N_SALTS 4

static const char *tool, *arch = "sm_90";

/* The canonical option list of variant i of a pass (salt_base), as kjit
 * builds it, for the floor. */
static void variant_options(char *out, size_t cap, size_t i, int salt_base)
{
	static const char *const blocks[] = { "64", "128", "256", "512" };
	static const char *const items[] = { "1", "2", "4", "8" };
	snprintf(out, cap, "-DBLOCK_SIZE=%s\n-DITEMS_PER_THREAD=%s\n-DKJIT_BENCH_SALT=%d\n-arch=%s",
	         blocks[i % 4], items[(i / 4) % 4], salt_base + (int)(i / 16), arch);
}

/* A spec of 16 x N_SALTS variants of the saxpy kernel (salts from
 * salt_base); its path. */
static const char *write_spec(int salt_base, char *path, size_t cap)
{
	char name[64], text[BENCH_PATH_MAX + 1024];
	snprintf(name, sizeof name, "cworkers-%d.json", salt_base);
	bench_tmp_path(path, cap, name);
	snprintf(text, sizeof text,
	         "{\"kernel\": {\"source\": \"%s\", \"entry\": \"saxpy\"},\n"
	         " \"parameters\": [\n"
	         "  {\"name\": \"BLOCK_SIZE\", \"values\": [64, 128, 256, 512],"
	         " \"roles\": [\"block_x\", \"define\"]},\n"
	         "  {\"name\": \"ITEMS_PER_THREAD\", \"values\": [1, 2, 4, 8], \"roles\": [\"define\"]},\n"
	         "  {\"name\": \"KJIT_BENCH_SALT\", \"values\": [%d, %d, %d, %d],"
	         " \"roles\": [\"define\"]}],\n"
	         " \"problems\": [{\"n\": 1024}]}\n",
	         bench_saxpy_path(), salt_base, salt_base + 1, salt_base + 2, salt_base + 3);
	bench_write_file(path, text, strlen(text));
	return path;
}

/* kjit-tune --compile-only of a fresh pass with P workers of mode; ms. */
static double run_tool(int p, const char *mode, int salt_base)
{
	char spec[BENCH_PATH_MAX], db[BENCH_PATH_MAX], jobs[16], name[64];
	write_spec(salt_base, spec, sizeof spec);
	snprintf(name, sizeof name, "cworkers-%d.db", salt_base);
	bench_tmp_path(db, sizeof db, name);
	bench_remove_db(db);
	snprintf(jobs, sizeof jobs, "%d", p);
	char *argv[] = { (char *)tool, spec, "--compile-only", "--arch", (char *)arch, "--db", db,
		         "-j", jobs, "--compile-pool", (char *)mode, "--quiet", NULL };
	fflush(NULL);
	uint64_t t0 = bench_now_ns();
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
		execv(tool, argv);
		fprintf(stderr, "bench-cworkers: %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			bench_die("waitpid: %s", strerror(errno));
	uint64_t t1 = bench_now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_die("kjit-tune --compile-only -j %d --compile-pool %s failed (status 0x%x)", p,
		          mode, status);
	bench_remove_db(db);
	return (double)(t1 - t0) * 1e-6;
}

/* Bare NVRTC: the n variants in p forked processes; ms. */
static double run_bare(const char *source, int p, int salt_base, size_t n)
{
	fflush(NULL);
	uint64_t t0 = bench_now_ns();
	pid_t pids[MAX_P];
	for (int k = 0; k < p; k++) {
		if ((pids[k] = fork()) < 0)
			bench_die("fork: %s", strerror(errno));
		if (pids[k] == 0) {
			for (size_t i = (size_t)k; i < n; i += (size_t)p) {
				char canon[256], *copy;
				const char *opts[8];
				variant_options(canon, sizeof canon, i, salt_base);
				int m = bench_split_options(canon, &copy, opts, 8);
				bench_bare_nvrtc(source, "saxpy.cu", opts, m);
				free(copy);
			}
			_exit(0);
		}
	}
	for (int k = 0; k < p; k++) {
		int status;
		while (waitpid(pids[k], &status, 0) < 0)
			if (errno != EINTR)
				bench_die("waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bench_die("a bare NVRTC process failed (status 0x%x)", status);
	}
	return (double)(bench_now_ns() - t0) * 1e-6;
}

static int parse_list(const char *list, int *out)
{
	int n = 0;
	char *copy = bench_strdup(list);
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		int p = atoi(tok);
		if (p < 1 || p > MAX_P || n == MAX_P) {
			free(copy);
			return -1;
		}
		out[n++] = p;
	}
	free(copy);
	return n;
}

int main(int argc, char **argv)
{
	bench_prog = "bench-cworkers";
	int ps[MAX_P], n_p = parse_list("1,2,4,8,16", ps);
	static const struct option longopts[] = {
		{ "workers", required_argument, NULL, 't' },
		{ "arch", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	for (int ch; (ch = getopt_long(argc, argv, "t:a:h", longopts, NULL)) != -1;) {
		if (ch == 't') {
			n_p = parse_list(optarg, ps);
		} else if (ch == 'a') {
			arch = optarg;
		} else {
			fprintf(ch == 'h' ? stdout : stderr,
			        "usage: bench-cworkers [-t LIST] [-a sm_NN]\n"
			        "kjit-tune --compile-only of 64 saxpy variants, -j P with the compile\n"
			        "pool as processes and as threads, against bare NVRTC in P processes.\n"
			        "  -t, --workers LIST  worker counts, comma-separated, up to %d; the\n"
			        "                      first is the base of the speed-ups (default\n"
			        "                      1,2,4,8,16)\n"
			        "  -a, --arch sm_NN    the target (default sm_90)\n", MAX_P);
			return ch == 'h' ? 0 : 2;
		}
	}
	if (n_p < 1) {
		fprintf(stderr, "bench-cworkers: -t: expected counts from 1 to %d\n", MAX_P);
		return 2;
	}
	tool = getenv("KJIT_BENCH_TUNE");
	if (!tool || !*tool)
		tool = "./autotune/kjit-tune";
	if (access(tool, X_OK) != 0)
		bench_die("%s: %s (run from the build folder, or set KJIT_BENCH_TUNE)", tool,
		          strerror(errno));
	const size_t n = 16 * N_SALTS;
	char *source = bench_read_file(bench_saxpy_path(), NULL);
	printf("== bench-cworkers: kjit-tune --compile-only of %zu saxpy variants (%s), -j P, "
	       "processes vs threads vs bare NVRTC in P processes ==\n", n, arch);
	printf("  %ld online CPUs\n", sysconf(_SC_NPROCESSORS_ONLN));
	double procs[MAX_P], threads[MAX_P], bare[MAX_P];
	for (int t = 0; t < n_p; t++) {
		int salt = 1000 * (t + 1) * N_SALTS; /* fresh salts for each pass */
		procs[t] = run_tool(ps[t], "processes", salt);
		threads[t] = run_tool(ps[t], "threads", salt + 100);
		bare[t] = run_bare(source, ps[t], salt + 200, n);
		printf("  P=%-3d  processes %9.1f ms (speed-up %5.2fx)   threads %9.1f ms (speed-up "
		       "%5.2fx)   bare NVRTC processes %9.1f ms (speed-up %5.2fx)\n", ps[t], procs[t],
		       procs[0] / procs[t], threads[t], threads[0] / threads[t], bare[t],
		       bare[0] / bare[t]);
		fflush(stdout);
	}
	for (int t = 0; t < n_p; t++) {
		char name[64];
		snprintf(name, sizeof name, "cworkers_wall_p%d", ps[t]);
		bench_result(name, procs[t], "ms", bare[t], "info");
		snprintf(name, sizeof name, "cworkers_threads_wall_p%d", ps[t]);
		bench_result(name, threads[t], "ms", bare[t], "info");
	}
	int last = n_p - 1;
	char name[64];
	/* the target is for 16 workers against 1 */
	const char *target = ps[0] == 1 && ps[last] == 16 ? "value>=8" : "info";
	double sp = procs[0] / procs[last], sb = bare[0] / bare[last];
	snprintf(name, sizeof name, "cworkers_speedup_p%d", ps[last]);
	bench_result_ratio(name, sp, "x", sb, sp / sb, target);
	snprintf(name, sizeof name, "cworkers_threads_speedup_p%d", ps[last]);
	double st = threads[0] / threads[last];
	bench_result_ratio(name, st, "x", sb, st / sb, "info");
	free(source);
	return 0;
}
