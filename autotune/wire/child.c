/*
 * child.c - starting and ending kjit-tune's workers: processes (the GPU
 * worker, the compile workers) by fork + exec on two pipes, so that a
 * child starts with no thread, lock or connection of the parent's
 * whichever thread of the parent starts it; and threads that leave the
 * signals to the main thread.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

kjit_status kt_child_start(kt_child *c, const char *exe, char *const argv[])
{
	int req[2], rep[2];
	if (pipe2(req, O_CLOEXEC) != 0)
		return kjit__error(KJIT_ERR_IO, "pipe: %s", strerror(errno));
	if (pipe2(rep, O_CLOEXEC) != 0) {
		close(req[0]);
		close(req[1]);
		return kjit__error(KJIT_ERR_IO, "pipe: %s", strerror(errno));
	}
	sigset_t none;
	sigemptyset(&none);
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(req[0]);
		close(req[1]);
		close(rep[0]);
		close(rep[1]);
		return kjit__error(KJIT_ERR_IO, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		/* Only async-signal-safe calls until exec: another thread of the
		 * parent may have held a lock at the fork. The pipe ends go
		 * above the descriptors they may be, then to KT_CHILD_IN_FD and
		 * KT_CHILD_OUT_FD. */
		int i = fcntl(req[0], F_DUPFD, 10), o = fcntl(rep[1], F_DUPFD, 10);
		if (i < 0 || o < 0 || dup2(i, KT_CHILD_IN_FD) < 0 || dup2(o, KT_CHILD_OUT_FD) < 0)
			_exit(127);
		close(i);
		close(o);
		/* Ctrl-C is the parent's to handle; the child dies with it. The
		 * mask is the starting thread's, which may block signals. */
		sigprocmask(SIG_SETMASK, &none, NULL);
		sigaction(SIGINT, &ign, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(exe ? exe : "/proc/self/exe", argv);
		_exit(127);
	}
	close(req[0]);
	close(rep[1]);
	c->pid = pid;
	c->to = req[1];
	c->from = rep[0];
	return KJIT_OK;
}

/* Closes the pipes and reaps the child; *status its wait status, -1 when
 * waitpid failed. */
static void reap(kt_child *c, int kill_it, int *status)
{
	close(c->to);
	if (kill_it)
		kill(c->pid, SIGKILL);
	pid_t r;
	while ((r = waitpid(c->pid, status, 0)) < 0 && errno == EINTR)
		;
	if (r < 0)
		*status = -1;
	close(c->from);
	c->pid = 0;
}

void kt_child_stop(kt_child *c, int kill_it)
{
	int status;
	if (c->pid > 0)
		reap(c, kill_it, &status);
}

int kt_child_reason(kt_child *c, const char *what, char *buf, size_t size)
{
	int status = -1;
	if (c->pid > 0)
		reap(c, 0, &status);
	if (status == -1)
		snprintf(buf, size, "the %s process ended", what);
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "the %s process was killed by signal %d (%s)", what,
		         WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "the %s process exited with status %d", what,
		         WEXITSTATUS(status));
	return status != -1 && WIFSIGNALED(status);
}

int kt_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void kt_cond_wait_ns(pthread_cond_t *c, pthread_mutex_t *m, uint64_t ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000u);
	ts.tv_nsec += (long)(ns % 1000000000u);
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(c, m, &ts);
}
