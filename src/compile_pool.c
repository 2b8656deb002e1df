/* compile_pool.c - runs independent jobs (NVRTC compiles) on P threads. */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "engine.h"

struct pool {
	void (*fn)(void *, size_t);
	void *ctx;
	size_t n;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
		p->fn(p->ctx, i);
	return NULL;
}

int kjit__cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

void kjit__pool_run(int threads, size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pool p = { fn, ctx, n, 0 };
	if (threads < 1)
		threads = 1;
	if ((size_t)threads > n)
		threads = (int)n;
	pthread_t *tids = threads > 1 ? calloc((size_t)threads - 1, sizeof *tids) : NULL;
	int started = 0;
	for (int t = 0; tids && t < threads - 1; t++, started++)
		if (pthread_create(&tids[t], NULL, worker, &p) != 0)
			break; /* fewer threads, same work */
	worker(&p);
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(tids);
}
