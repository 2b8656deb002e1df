/*
 * mpirun.h - what the MPI tests of kjit-tune share (include it after
 * testutil.h): mpirun found on PATH (the test skips without it or without
 * a kjit-tune built --with-mpi), an mpirun command line run to the end or
 * in the background, and the kjit-tune rank processes it started.
 */
#ifndef KJIT_TEST_MPIRUN_H
#define KJIT_TEST_MPIRUN_H

#include <dirent.h>

static char tu_mpirun[TU_PATH];

/* mpirun on PATH into tu_mpirun; exit 77 (skip) without it or without MPI. */
static inline void tu_require_mpi(void)
{
#ifndef KJIT_HAVE_MPI
	printf("SKIP: kjit-tune was built without MPI (configure --with-mpi)\n");
	exit(77);
#endif
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		snprintf(tu_mpirun, sizeof tu_mpirun, "%.*s/mpirun", (int)n, p);
		if (n && access(tu_mpirun, X_OK) == 0)
			return;
		p += n + (colon != NULL);
	}
	printf("SKIP: no mpirun on PATH (Open MPI: openmpi-bin)\n");
	exit(77);
}

/* Starts mpirun with args (NULL-terminated; after the options every run
 * takes: --bind-to none, as kjit-tune(1) says, --oversubscribe, and as
 * root --allow-run-as-root), stdout into out, stderr into err. */
static inline pid_t tu_mpirun_start(const char *out, const char *err, const char *const *args)
{
	const char *argv[96] = { tu_mpirun, "--bind-to", "none", "--oversubscribe" };
	int n = 4;
	if (geteuid() == 0)
		argv[n++] = "--allow-run-as-root";
	for (; *args; args++) {
		CHECK(n < 95);
		argv[n++] = *args;
	}
	argv[n] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		/* Open MPI's libraries keep no frame pointers: the fast unwinder
		 * stops in them, and tests/lsan.supp could not tell their leaks */
		const char *asan = getenv("ASAN_OPTIONS");
		char opts[1024];
		snprintf(opts, sizeof opts, "%s:fast_unwind_on_malloc=0", asan ? asan : "");
		if (asan && setenv("ASAN_OPTIONS", opts, 1) != 0)
			_exit(126);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(tu_mpirun, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* The pid of the process running tool with word among its arguments (a
 * rank's --db path) and not as a worker; 0 when there is none. */
static inline pid_t tu_rank_pid(const char *tool, const char *word)
{
	DIR *d = opendir("/proc");
	CHECK(d != NULL);
	pid_t found = 0;
	for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
		char path[300], line[8192];
		long pid = atol(e->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(line, 1, sizeof line - 1, f);
		fclose(f);
		line[len] = '\0';
		if (strcmp(line, tool) != 0 || strlen(line) + 1 >= len)
			continue;
		const char *arg1 = line + strlen(line) + 1;
		if (strncmp(arg1, "--", 2) == 0) /* --worker, --compile-worker */
			continue;
		for (const char *a = arg1; a < line + len; a += strlen(a) + 1)
			if (strcmp(a, word) == 0)
				found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

#endif /* KJIT_TEST_MPIRUN_H */
