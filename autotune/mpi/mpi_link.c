/*
 * mpi_link.c - rank 0's links to the GPU workers of the other ranks: the
 * worker protocol's frames travel in LFRAME messages on the link's
 * channel, which the rank relays to and from its worker (run/serve.c).
 * Each start of the worker is a generation: what an earlier one sends
 * after a restart or a kill is dropped.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ranks.h"

/* Seconds a rank has to store a binary shipped to it. */
#define STORE_S 120

typedef struct remote {
	int rank;
	kt_mbox *box;
	kjit_engine *const *engine; /* rank 0's, whose store the binaries come from */
	uint32_t gen;
	int channel, running, started;
	int hello;             /* the role's hello is read() next */
	kt_buf first;          /* that hello */
	kt_buf held;           /* a frame that came while binary() waited */
	int holding;
	kt_end end;
	char why[320];
} remote;

/* The rank was lost: the link ends with it. */
static void lost(remote *r)
{
	char why[256];
	if (!kt_mpi_lost(r->rank, why, sizeof why))
		snprintf(why, sizeof why, "rank %d was lost", r->rank);
	snprintf(r->why, sizeof r->why, "%s", why);
	r->end = KT_END_LOST;
	r->running = 0;
}

static kjit_status send_note(remote *r, int type, int32_t num)
{
	kt_buf b = { 0 };
	kt_note n = { .gen = r->gen, .num = num };
	kt_note_encode(&b, type, &n);
	kjit_status st = kt_mpi_send(r->rank, r->channel, &b);
	kt_buf_free(&b);
	return st;
}

static kjit_status remote_start(kt_link *l)
{
	remote *r = l->ctx;
	r->holding = 0;
	if (!r->started) {
		/* the worker the rank started for its role */
		r->started = r->hello = r->running = 1;
		return KJIT_OK;
	}
	r->gen++;
	if (send_note(r, KT_MSG_LSTART, 0) != KJIT_OK) {
		lost(r);
		return KJIT_ERR_IO;
	}
	r->running = 1;
	return KJIT_OK;
}

static kjit_status remote_write(kt_link *l, const kt_buf *b)
{
	remote *r = l->ctx;
	kt_buf m = { 0 };
	kt_lframe_encode(&m, r->gen, b);
	kjit_status st = kt_mpi_send(r->rank, r->channel, &m);
	kt_buf_free(&m);
	if (st != KJIT_OK)
		lost(r);
	return st;
}

/* A message on the link: 1 a frame of this worker (into b), -1 its end,
 * 0 nothing for the tuner (a stale generation's). */
static int take(remote *r, kt_buf *m, kt_buf *b)
{
	uint32_t gen;
	kt_note n;
	int type = kt_msg_type(m), ret = 0;
	if (type == KT_MSG_LFRAME && kt_lframe_decode(m, &gen, b) == KJIT_OK)
		return gen == r->gen;
	if (type == KT_MSG_LEOF && kt_note_decode(m, KT_MSG_LEOF, &n) == KJIT_OK) {
		if (n.gen == r->gen) {
			r->end = n.num == KT_END_SIGNAL ? KT_END_SIGNAL : KT_END_EXIT;
			snprintf(r->why, sizeof r->why, "%s", n.text ? n.text : "the worker ended");
			r->running = 0;
			ret = -1;
		}
		kt_note_clear(&n);
	}
	return ret;
}

static kt_frame_result remote_read(kt_link *l, kt_buf *b, uint64_t deadline_ns,
                                   const atomic_int *stop)
{
	remote *r = l->ctx;
	if (r->hello) {
		r->hello = 0;
		return kt_buf_set(b, r->first.data, r->first.len) == KJIT_OK ? KT_FRAME_OK
		                                                             : KT_FRAME_ERROR;
	}
	kt_buf m = { 0 };
	kt_frame_result fr;
	for (;;) {
		if (r->holding) {
			r->holding = 0;
			m = r->held;
			memset(&r->held, 0, sizeof r->held);
		} else if ((fr = kt_mpi_recv(r->box, &m, deadline_ns, stop)) != KT_FRAME_OK) {
			if (fr == KT_FRAME_EOF)
				lost(r);
			break;
		}
		int t = take(r, &m, b);
		if (t) {
			fr = t == 1 ? KT_FRAME_OK : KT_FRAME_EOF;
			break;
		}
	}
	kt_buf_free(&m);
	return fr;
}

static void remote_stop(kt_link *l, int kill_it)
{
	remote *r = l->ctx;
	r->gen++;
	r->hello = r->holding = 0;
	kt_buf_free(&r->held);
	/* a rank lost has no worker to stop */
	send_note(r, KT_MSG_LSTOP, kill_it);
	r->running = 0;
}

static kt_end remote_reason(kt_link *l, char *buf, size_t size)
{
	remote *r = l->ctx;
	snprintf(buf, size, "%s", r->why);
	return r->end;
}

static int remote_running(kt_link *l)
{
	remote *r = l->ctx;
	return r->running && !kt_mpi_lost(r->rank, NULL, 0);
}

/* Waits for the rank's LSTORED of this generation; a frame of the worker
 * that comes first is held for read(). */
static kjit_status stored(remote *r, const char *key)
{
	kt_buf m = { 0 };
	kjit_status st = KJIT_ERR_IO;
	uint64_t deadline = kjit__now_ns() + STORE_S * 1000000000ull;
	for (;;) {
		kt_frame_result fr = kt_mpi_recv(r->box, &m, deadline, NULL);
		kt_note n;
		if (fr == KT_FRAME_EOF) {
			lost(r);
			st = kjit__error(KJIT_ERR_IO, "%s", r->why);
			break;
		}
		if (fr != KT_FRAME_OK) {
			st = kjit__error(KJIT_ERR_IO, "rank %d did not store binary %s in %d s",
			                 r->rank, key, STORE_S);
			break;
		}
		int type = kt_msg_type(&m);
		if (type == KT_MSG_LSTORED && kt_note_decode(&m, KT_MSG_LSTORED, &n) == KJIT_OK) {
			int mine = n.gen == r->gen;
			st = n.num == KJIT_OK
			             ? KJIT_OK
			             : kjit__error((kjit_status)n.num, "rank %d could not store binary %s: "
			                           "%s", r->rank, key, n.text ? n.text : "(no detail)");
			kt_note_clear(&n);
			if (mine)
				break;
		} else if (!r->holding && (type == KT_MSG_LFRAME || type == KT_MSG_LEOF)) {
			r->held = m;
			r->holding = 1;
			memset(&m, 0, sizeof m);
		}
	}
	kt_buf_free(&m);
	return st;
}

static kjit_status remote_binary(kt_link *l, const char *key)
{
	remote *r = l->ctx;
	if (kt_mpi_has_binary(r->rank, key))
		return KJIT_OK;
	void *blob = NULL;
	size_t size = 0;
	kt_buf m = { 0 };
	kjit_status st = kjit_engine_binary_export(*r->engine, key, &blob, &size);
	if (st == KJIT_OK) {
		kt_lbinary_encode(&m, r->gen, blob, size);
		if ((st = kt_mpi_send(r->rank, r->channel, &m)) != KJIT_OK)
			lost(r);
	}
	free(blob);
	kt_buf_free(&m);
	if (st == KJIT_OK && (st = stored(r, key)) == KJIT_OK)
		kt_mpi_add_binary(r->rank, key);
	return st;
}

static void remote_free(kt_link *l)
{
	if (!l)
		return;
	remote *r = l->ctx;
	if (r) {
		kt_mpi_mbox_close(r->box);
		kt_buf_free(&r->first);
		kt_buf_free(&r->held);
		free(r);
	}
	free(l);
}

static const kt_link_ops remote_ops = {
	.start = remote_start, .write = remote_write, .read = remote_read, .stop = remote_stop,
	.reason = remote_reason, .running = remote_running, .binary = remote_binary,
	.free = remote_free,
};

/* A link to worker i of rank, whose hello is the role's. */
static kjit_status link_new(const kt_link_args *a, int rank, uint32_t i, const kt_buf *hello,
                            kt_link **out)
{
	kt_link *l = calloc(1, sizeof *l);
	remote *r = calloc(1, sizeof *r);
	kt_buf copy = { .data = hello->data, .len = hello->len };
	kt_hello h = { 0 };
	*out = NULL;
	if (l) {
		l->ops = &remote_ops;
		l->ctx = r;
	}
	kjit_status st = l && r ? kt_hello_decode(&copy, &h)
	                        : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK) {
		r->rank = rank;
		r->channel = 1 + (int)i;
		snprintf(l->name, sizeof l->name, "rank %d device %d", rank, h.device);
		st = kt_buf_set(&r->first, hello->data, hello->len);
	}
	if (st == KJIT_OK)
		st = kt_mpi_mbox_open(rank, r->channel, NULL, NULL, &r->box);
	if (st == KJIT_OK && !(r->engine = a->engine))
		st = kjit__error(KJIT_ERR_INVALID_ARG, "a link to rank %d without an engine", rank);
	kt_hello_clear(&h);
	if (st != KJIT_OK) {
		if (l && r) {
			remote_free(l);
		} else {
			free(l);
			free(r);
		}
		return st;
	}
	*out = l;
	return KJIT_OK;
}

kjit_status kt_mpi_links(const kt_link_args *a, kt_link ***out, size_t *n)
{
	size_t cap = 0, k = 0;
	*out = NULL;
	*n = 0;
	for (int rank = 1; rank < kt_mpi_size(); rank++)
		cap += kt_mpi_role(rank) ? kt_mpi_role(rank)->n_hellos : 0;
	if (!cap)
		return KJIT_OK;
	kt_link **links = calloc(cap, sizeof *links);
	if (!links)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit_status st = KJIT_OK;
	for (int rank = 1; rank < kt_mpi_size() && st == KJIT_OK; rank++) {
		const kt_role *role = kt_mpi_role(rank);
		for (uint32_t i = 0; role && i < role->n_hellos && st == KJIT_OK; i++)
			if (!kt_mpi_lost(rank, NULL, 0) &&
			    (st = link_new(a, rank, i, &role->hellos[i], &links[k])) == KJIT_OK)
				k++;
	}
	if (st != KJIT_OK) {
		while (k--)
			links[k]->ops->free(links[k]);
		free(links);
		return st;
	}
	*out = links;
	*n = k;
	return KJIT_OK;
}
