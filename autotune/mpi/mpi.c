/*
 * mpi.c - MPI for kjit-tune --mpi: one communication thread per process
 * makes every MPI call between MPI_Init_thread() and MPI_Finalize(), with
 * nonblocking sends and receives that it polls; the other threads queue
 * messages and wait on mailboxes. One thread, not MPI_THREAD_MULTIPLE:
 * under Open MPI 4.1 a rank that dies is only silence (mpirun
 * --enable-recovery keeps the job alive but no call reports the dead
 * peer, and a receive from it never completes), so no thread may ever
 * block in MPI, and a rank's loss is decided in one place, by heartbeats
 * and a timeout. MPI_THREAD_SERIALIZED is then all it needs.
 */
#include "config.h"

#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ranks.h"

/* The channels below are the control channel and the links'. */
#define FIRST_CHANNEL (1 + KT_DEVICES_MAX)
/* Messages taken from MPI per round, so that the sends are not starved. */
#define PROBES 32
/* The communication thread's longest nap when idle, and its first. */
#define NAP_MAX_US 2000
#define NAP_MIN_US 50

/* A message queued, being sent, being received or in a mailbox. */
typedef struct msg {
	struct msg *next;
	int rank, channel;  /* to or from */
	size_t len;
	MPI_Request req;
	unsigned char data[];
} msg;

struct kt_mbox {
	int rank, channel;
	void (*hook)(void *, const kt_buf *);
	void *arg;
	msg *head, *tail;
	pthread_cond_t cond;
	kt_mbox *next;
};

typedef struct peer {
	uint64_t heard_ns;  /* its last message */
	int lost;
	char why[256];
} peer;

static struct {
	int on, rank, size, local_rank;
	uint64_t timeout_ns, beat_ns;
	MPI_Comm comm;
	int tag_ub, next_channel;
	pthread_t thread;
	pthread_mutex_t lock;   /* everything below */
	pthread_cond_t wake;    /* the communication thread: a send, the end */
	pthread_cond_t gone;    /* a peer was lost */
	msg *out, *out_tail;    /* queued by the other threads */
	kt_mbox *boxes;
	kt_mbox **control;      /* channel 0 of each rank watched */
	peer *peers;
	int quit;
	/* a rank was lost other than by its BYE (dead, or silent): Open MPI
	 * 4.1's MPI_Finalize() is a fence over every rank, which then can wait
	 * forever (seen in about one run in six under --enable-recovery), so
	 * no rank calls it; mpirun --enable-recovery takes that quietly */
	int unclean;
	/* the thread's, left when it ended: requests that may never complete
	 * (a dead peer's), freed after MPI_Finalize() */
	msg *left;
} g = { .size = 1, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	.gone = PTHREAD_COND_INITIALIZER };

static void mpi_text(int rc, const char *what, char *buf, size_t size)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof s, "MPI error %d", rc);
	snprintf(buf, size, "%s: %s", what, s);
}

static kjit_status mpi_fail(int rc, const char *what)
{
	char buf[MPI_MAX_ERROR_STRING + 64];
	mpi_text(rc, what, buf, sizeof buf);
	return kjit__error(KJIT_ERR_IO, "%s", buf);
}

/* Whether this process watches rank: rank 0 every other, the others 0. */
static int watched(int rank)
{
	return rank != g.rank && (g.rank == 0 || rank == 0);
}

/* Marks rank lost (left: by its BYE); the caller holds the lock. */
static void lose_locked(int rank, const char *why, int left)
{
	peer *p = &g.peers[rank];
	if (p->lost)
		return;
	p->lost = 1;
	g.unclean |= !left;
	snprintf(p->why, sizeof p->why, "%s", why);
	for (kt_mbox *m = g.boxes; m; m = m->next)
		if (m->rank == rank)
			pthread_cond_broadcast(&m->cond);
	pthread_cond_broadcast(&g.gone);
}

static void lose(int rank, const char *why)
{
	pthread_mutex_lock(&g.lock);
	lose_locked(rank, why, 0);
	pthread_mutex_unlock(&g.lock);
}

/* An MPI call on rank's message failed: the rank is lost. */
static void lose_rc(int rank, int rc, const char *what)
{
	char buf[MPI_MAX_ERROR_STRING + 64], why[MPI_MAX_ERROR_STRING + 128];
	mpi_text(rc, what, buf, sizeof buf);
	snprintf(why, sizeof why, "rank %d was lost (%s)", rank, buf);
	lose(rank, why);
}

static msg *msg_new(int rank, int channel, const void *data, size_t len)
{
	msg *m = malloc(sizeof *m + (len ? len : 1));
	if (m) {
		m->next = NULL;
		m->rank = rank;
		m->channel = channel;
		m->len = len;
		if (len && data)
			memcpy(m->data, data, len);
	}
	return m;
}

static void push(msg **head, msg *m)
{
	m->next = *head;
	*head = m;
}

static void free_list(msg *m)
{
	while (m) {
		msg *next = m->next;
		free(m);
		m = next;
	}
}

/* ---- the communication thread ---------------------------------------------- */

/* Hands a message received to its mailbox; heartbeats and a rank's BYE
 * are the thread's own. */
static void deliver(msg *m)
{
	kt_buf view = { .data = m->data, .len = m->len, .cap = m->len };
	int type = kt_msg_type(&view);
	pthread_mutex_lock(&g.lock);
	peer *p = &g.peers[m->rank];
	if (p->lost) {
		pthread_mutex_unlock(&g.lock);
		free(m);
		return;
	}
	p->heard_ns = kjit__now_ns();
	if (m->channel == 0 && type == KT_MSG_BEAT) {
		pthread_mutex_unlock(&g.lock);
		free(m);
		return;
	}
	if (m->channel == 0 && type == KT_MSG_QUIT && g.rank != 0) {
		kt_buf copy = view;
		kt_note n;
		if (kt_note_decode(&copy, KT_MSG_QUIT, &n) == KJIT_OK)
			g.unclean |= n.num != 0;
		kt_note_clear(&n);
	}
	if (m->channel == 0 && type == KT_MSG_BYE && g.rank == 0) {
		kt_note n;
		char why[512];
		if (kt_note_decode(&view, KT_MSG_BYE, &n) == KJIT_OK && n.text)
			snprintf(why, sizeof why, "rank %d left: %s", m->rank, n.text);
		else
			snprintf(why, sizeof why, "rank %d has ended", m->rank);
		kt_note_clear(&n);
		lose_locked(m->rank, why, 1);
		pthread_mutex_unlock(&g.lock);
		free(m);
		return;
	}
	kt_mbox *box = g.boxes;
	while (box && (box->rank != m->rank || box->channel != m->channel))
		box = box->next;
	if (box) {
		if (box->hook)
			box->hook(box->arg, &view);
		m->next = NULL;
		if (box->tail)
			box->tail->next = m;
		else
			box->head = m;
		box->tail = m;
		pthread_cond_broadcast(&box->cond);
		m = NULL;
	}
	pthread_mutex_unlock(&g.lock);
	free(m); /* for no mailbox: an answer nobody waits for any more */
}

/* Starts the sends of q (its order kept) into *sending. */
static int post_sends(msg *q, msg **sending)
{
	int any = q != NULL;
	while (q) {
		msg *m = q;
		q = q->next;
		if (g.peers[m->rank].lost) {
			free(m);
			continue;
		}
		int rc = MPI_Isend(m->data, (int)m->len, MPI_BYTE, m->rank, m->channel, g.comm,
		                   &m->req);
		if (rc != MPI_SUCCESS) {
			lose_rc(m->rank, rc, "MPI_Isend");
			free(m);
			continue;
		}
		push(sending, m);
	}
	return any;
}

/* Tests the requests of *list: the ones done leave it (sends freed,
 * receives delivered). A lost peer's stay untouched: they may never end. */
static int test_list(msg **list, int receiving)
{
	int any = 0;
	for (msg **at = list; *at;) {
		msg *m = *at;
		int done = 0, rc = MPI_SUCCESS;
		if (!g.peers[m->rank].lost)
			rc = MPI_Test(&m->req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			lose_rc(m->rank, rc, receiving ? "MPI_Test of a receive" : "MPI_Test of a send");
		if (!done) {
			at = &m->next;
			continue;
		}
		*at = m->next;
		any = 1;
		if (receiving)
			deliver(m);
		else
			free(m);
	}
	return any;
}

/* Matches the messages that have arrived and starts their receives. */
static int probe(msg **receiving)
{
	int any = 0;
	for (int i = 0; i < PROBES; i++) {
		int flag = 0, count = 0;
		MPI_Message mm;
		MPI_Status st;
		int rc = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, g.comm, &flag, &mm, &st);
		if (rc != MPI_SUCCESS) {
			/* no rank to blame: the communicator is gone for all */
			for (int r = 0; r < g.size; r++)
				if (watched(r))
					lose_rc(r, rc, "MPI_Improbe");
			return any;
		}
		if (!flag)
			return any;
		any = 1;
		if ((rc = MPI_Get_count(&st, MPI_BYTE, &count)) != MPI_SUCCESS || count < 0)
			count = 0; /* received anyway (a matched message must be), then dropped */
		msg *m = msg_new(st.MPI_SOURCE, st.MPI_TAG, NULL, (size_t)count);
		if (!m) {
			lose(st.MPI_SOURCE, "out of memory receiving a message");
			continue;
		}
		m->len = (size_t)count;
		if ((rc = MPI_Imrecv(m->data, count, MPI_BYTE, &mm, &m->req)) != MPI_SUCCESS) {
			lose_rc(m->rank, rc, "MPI_Imrecv");
			free(m);
			continue;
		}
		push(receiving, m);
	}
	return any;
}

/* Heartbeats to the ranks watched; a rank silent too long is lost. */
static void beat_and_watch(msg **sending, uint64_t now, uint64_t *last_beat)
{
	kt_buf b = { 0 };
	kt_note none = { 0 };
	msg *q = NULL;
	if (now - *last_beat >= g.beat_ns) {
		*last_beat = now;
		kt_note_encode(&b, KT_MSG_BEAT, &none);
		for (int r = g.size - 1; r >= 0; r--) {
			msg *m = watched(r) && !g.peers[r].lost && !b.oom
			                 ? msg_new(r, 0, b.data, b.len) : NULL;
			if (m)
				push(&q, m);
		}
		kt_buf_free(&b);
		post_sends(q, sending);
	}
	pthread_mutex_lock(&g.lock);
	for (int r = 0; r < g.size; r++)
		if (watched(r) && !g.peers[r].lost && now - g.peers[r].heard_ns > g.timeout_ns) {
			char why[128];
			snprintf(why, sizeof why, "rank %d was lost: no message in %g s", r,
			         (double)g.timeout_ns * 1e-9);
			lose_locked(r, why, 0);
		}
	pthread_mutex_unlock(&g.lock);
}

/* 1 when nothing is left to send to a rank that is still there. */
static int flushed(const msg *sending)
{
	for (; sending; sending = sending->next)
		if (!g.peers[sending->rank].lost)
			return 0;
	return 1;
}

static void *comm_main(void *arg)
{
	(void)arg;
	msg *sending = NULL, *receiving = NULL;
	uint64_t last_beat = 0, quit_at = 0;
	long nap_us = NAP_MIN_US;
	for (;;) {
		pthread_mutex_lock(&g.lock);
		msg *q = g.out;
		g.out = g.out_tail = NULL;
		int quit = g.quit;
		pthread_mutex_unlock(&g.lock);
		int busy = post_sends(q, &sending);
		busy |= test_list(&sending, 0);
		busy |= probe(&receiving);
		busy |= test_list(&receiving, 1);
		uint64_t now = kjit__now_ns();
		beat_and_watch(&sending, now, &last_beat);
		if (quit && !quit_at)
			quit_at = now;
		/* the last messages (a BYE, a QUIT) leave before MPI_Finalize() */
		if (quit && !busy && (flushed(sending) || now - quit_at > g.timeout_ns))
			break;
		if (busy) {
			nap_us = NAP_MIN_US;
			continue;
		}
		pthread_mutex_lock(&g.lock);
		if (!g.out && !g.quit)
			kt_cond_wait_ns(&g.wake, &g.lock, (uint64_t)nap_us * 1000);
		pthread_mutex_unlock(&g.lock);
		nap_us = nap_us * 2 < NAP_MAX_US ? nap_us * 2 : NAP_MAX_US;
	}
	while (sending) {
		msg *m = sending;
		sending = m->next;
		push(&g.left, m);
	}
	while (receiving) {
		msg *m = receiving;
		receiving = m->next;
		push(&g.left, m);
	}
	return NULL;
}

/* ---- mailboxes ------------------------------------------------------------------ */

static kt_mbox *box_new(int rank, int channel, void (*hook)(void *, const kt_buf *), void *arg)
{
	kt_mbox *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->rank = rank;
	m->channel = channel;
	m->hook = hook;
	m->arg = arg;
	pthread_cond_init(&m->cond, NULL);
	pthread_mutex_lock(&g.lock);
	m->next = g.boxes;
	g.boxes = m;
	pthread_mutex_unlock(&g.lock);
	return m;
}

kjit_status kt_mpi_mbox_open(int rank, int channel, void (*hook)(void *, const kt_buf *),
                             void *arg, kt_mbox **out)
{
	*out = NULL;
	if (!g.on || !watched(rank) || channel <= 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "no channel %d of MPI rank %d to hear from",
		                   channel, rank);
	if (!(*out = box_new(rank, channel, hook, arg)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	return KJIT_OK;
}

kt_mbox *kt_mpi_control(int rank)
{
	return g.on && watched(rank) ? g.control[rank] : NULL;
}

void kt_mpi_mbox_close(kt_mbox *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&g.lock);
	kt_mbox **at = &g.boxes;
	while (*at != m)
		at = &(*at)->next;
	*at = m->next;
	pthread_mutex_unlock(&g.lock);
	free_list(m->head);
	pthread_cond_destroy(&m->cond);
	free(m);
}

int kt_mpi_channel(void)
{
	pthread_mutex_lock(&g.lock);
	int c = g.next_channel;
	g.next_channel = c >= g.tag_ub ? FIRST_CHANNEL : c + 1;
	pthread_mutex_unlock(&g.lock);
	return c;
}

kt_frame_result kt_mpi_recv(kt_mbox *m, kt_buf *b, uint64_t deadline_ns,
                            const atomic_int *stop)
{
	kt_frame_result r;
	pthread_mutex_lock(&g.lock);
	for (;;) {
		if (m->head) {
			r = KT_FRAME_OK;
			break;
		}
		if (g.peers[m->rank].lost) {
			r = KT_FRAME_EOF;
			break;
		}
		if (stop && *stop) {
			r = KT_FRAME_STOP;
			break;
		}
		uint64_t now = kjit__now_ns();
		if (deadline_ns && now >= deadline_ns) {
			r = KT_FRAME_TIMEOUT;
			break;
		}
		/* stop is polled every 100 ms, as kt_frame_read() does */
		uint64_t wait_ns = 100000000u;
		if (deadline_ns && deadline_ns - now < wait_ns)
			wait_ns = deadline_ns - now;
		kt_cond_wait_ns(&m->cond, &g.lock, wait_ns);
	}
	msg *got = r == KT_FRAME_OK ? m->head : NULL;
	if (got && !(m->head = got->next))
		m->tail = NULL;
	pthread_mutex_unlock(&g.lock);
	if (!got)
		return r;
	kjit_status st = kt_buf_set(b, got->data, got->len);
	free(got);
	return st == KJIT_OK ? KT_FRAME_OK : KT_FRAME_ERROR;
}

kjit_status kt_mpi_send(int rank, int channel, const kt_buf *b)
{
	if (b->oom)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory building a message");
	if (!g.on || rank < 0 || rank >= g.size || rank == g.rank)
		return kjit__error(KJIT_ERR_INVALID_ARG, "no MPI rank %d to send to", rank);
	msg *m = msg_new(rank, channel, b->data, b->len);
	if (!m)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	pthread_mutex_lock(&g.lock);
	if (g.peers[rank].lost) {
		kjit_status st = kjit__error(KJIT_ERR_IO, "%s", g.peers[rank].why);
		pthread_mutex_unlock(&g.lock);
		free(m);
		return st;
	}
	if (g.out_tail)
		g.out_tail->next = m;
	else
		g.out = m;
	g.out_tail = m;
	pthread_cond_signal(&g.wake);
	pthread_mutex_unlock(&g.lock);
	return KJIT_OK;
}

int kt_mpi_lost(int rank, char *why, size_t size)
{
	if (!g.on || rank < 0 || rank >= g.size || rank == g.rank)
		return 0;
	pthread_mutex_lock(&g.lock);
	int lost = g.peers[rank].lost;
	if (lost && why)
		snprintf(why, size, "%s", g.peers[rank].why);
	pthread_mutex_unlock(&g.lock);
	return lost;
}

/* ---- set-up and the end ------------------------------------------------------- */

static void close_control(void)
{
	for (int r = 0; g.control && r < g.size; r++)
		kt_mpi_mbox_close(g.control[r]);
	free(g.control);
	free(g.peers);
	g.control = NULL;
	g.peers = NULL;
}

kjit_status kt_mpi_init(int *argc, char ***argv, double timeout_s)
{
	int provided = 0, rc = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
	if (rc != MPI_SUCCESS)
		return mpi_fail(rc, "MPI_Init_thread");
	kjit_status st = KJIT_OK;
	MPI_Comm node = MPI_COMM_NULL;
	int *ub = NULL, flag = 0;
	if (provided < MPI_THREAD_SERIALIZED)
		st = kjit__error(KJIT_ERR_IO, "the MPI library gives thread level %d; "
		                 "kjit-tune --mpi needs MPI_THREAD_SERIALIZED (a thread of its own "
		                 "makes the MPI calls)", provided);
	else if ((rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)) != MPI_SUCCESS)
		st = mpi_fail(rc, "MPI_Comm_set_errhandler");
	else if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &g.comm)) != MPI_SUCCESS)
		st = mpi_fail(rc, "MPI_Comm_dup");
	else if ((rc = MPI_Comm_set_errhandler(g.comm, MPI_ERRORS_RETURN)) != MPI_SUCCESS)
		st = mpi_fail(rc, "MPI_Comm_set_errhandler");
	else if ((rc = MPI_Comm_rank(g.comm, &g.rank)) != MPI_SUCCESS ||
	         (rc = MPI_Comm_size(g.comm, &g.size)) != MPI_SUCCESS)
		st = mpi_fail(rc, "MPI_Comm_rank");
	/* the ranks of one host, for the default device (local rank mod count) */
	else if ((rc = MPI_Comm_split_type(g.comm, MPI_COMM_TYPE_SHARED, g.rank, MPI_INFO_NULL,
	                                   &node)) != MPI_SUCCESS ||
	         (rc = MPI_Comm_rank(node, &g.local_rank)) != MPI_SUCCESS ||
	         (rc = MPI_Comm_free(&node)) != MPI_SUCCESS)
		st = mpi_fail(rc, "MPI_Comm_split_type");
	else if ((rc = MPI_Comm_get_attr(g.comm, MPI_TAG_UB, &ub, &flag)) != MPI_SUCCESS)
		st = mpi_fail(rc, "MPI_Comm_get_attr(MPI_TAG_UB)");
	else if (!(g.peers = calloc((size_t)g.size, sizeof *g.peers)) ||
	         !(g.control = calloc((size_t)g.size, sizeof *g.control)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	/* before any message can come: rank 0's SETUP may be on its way */
	for (int r = 0; st == KJIT_OK && r < g.size; r++)
		if (watched(r) && !(g.control[r] = box_new(r, 0, NULL, NULL)))
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st != KJIT_OK) {
		close_control();
		MPI_Finalize();
		g.size = 1;
		g.rank = 0;
		return st;
	}
	/* 32767: the least the standard allows */
	g.tag_ub = flag && ub && *ub > FIRST_CHANNEL ? *ub : 32767;
	g.next_channel = FIRST_CHANNEL;
	g.timeout_ns = (uint64_t)(timeout_s * 1e9);
	g.beat_ns = g.timeout_ns / 4 < 1000000000u ? g.timeout_ns / 4 : 1000000000u;
	uint64_t now = kjit__now_ns();
	for (int r = 0; r < g.size; r++)
		g.peers[r].heard_ns = now;
	if ((rc = kt_thread_start(&g.thread, comm_main, NULL)) != 0) {
		MPI_Finalize();
		close_control();
		g.size = 1;
		g.rank = 0;
		return kjit__error(KJIT_ERR_NOMEM, "cannot start the MPI thread: %s", strerror(rc));
	}
	g.on = 1;
	return KJIT_OK;
}

int kt_mpi_rank(void) { return g.rank; }
int kt_mpi_size(void) { return g.size; }
int kt_mpi_local_rank(void) { return g.local_rank; }

void kt_mpi_finalize(void)
{
	if (!g.on)
		return;
	if (g.rank == 0) {
		kt_buf b = { 0 };
		pthread_mutex_lock(&g.lock);
		kt_note quit = { .num = g.unclean };
		pthread_mutex_unlock(&g.lock);
		kt_note_encode(&b, KT_MSG_QUIT, &quit);
		for (int r = 1; r < g.size; r++)
			kt_mpi_send(r, 0, &b); /* a rank lost needs none */
		kt_buf_free(&b);
		/* each answers BYE once its workers have ended, or is lost */
		pthread_mutex_lock(&g.lock);
		for (int r = 1; r < g.size; r++)
			while (!g.peers[r].lost)
				pthread_cond_wait(&g.gone, &g.lock);
		pthread_mutex_unlock(&g.lock);
	}
	pthread_mutex_lock(&g.lock);
	g.quit = 1;
	pthread_cond_signal(&g.wake);
	pthread_mutex_unlock(&g.lock);
	pthread_join(g.thread, NULL);
	int rc = g.unclean ? MPI_SUCCESS : MPI_Finalize();
	if (rc != MPI_SUCCESS) {
		char buf[MPI_MAX_ERROR_STRING + 64];
		mpi_text(rc, "MPI_Finalize", buf, sizeof buf);
		fprintf(stderr, "kjit-tune (rank %d): %s\n", g.rank, buf);
	}
	free_list(g.left);
	free_list(g.out);
	g.left = g.out = g.out_tail = NULL;
	close_control();
	g.on = 0;
}
