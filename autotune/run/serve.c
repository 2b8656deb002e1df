/*
 * serve.c - the run of a rank other than 0. It takes rank 0's run (SETUP), says
 * what it can do (ROLE), compiles the jobs rank 0 sends on a compile pool
 * of its own (its cores, its database) and answers each with its binary,
 * and relays the frames of the GPU workers of its host, storing each
 * binary rank 0 ships before the request that needs it reaches the
 * worker. It ends on rank 0's QUIT, on rank 0's loss, or on SIGINT or
 * SIGTERM, and says BYE last.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "ranks.h"
#include "results.h"
#include "pool.h"
#include "wire.h"

/* Seconds a GPU worker has to say hello (workers.c's SETUP_S). */
#define HELLO_S 120
/* Targets (archs) rank 0 may ask for in one run: --arch's limit. */
#define MAX_TARGETS 16

static atomic_int interrupted; /* SIGINT, SIGTERM: lock-free */
static atomic_int ending;      /* the compiles and the relays stop */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* One arch's compile pool, on an engine of this rank's database. */
typedef struct target {
	char *arch;
	kjit_engine *engine;
	kjit_kernel *kernel;
	kt_pool *pool;
	kjit_status st;        /* of its opening: every job of it gets the error */
	char *error;
} target;

typedef struct cjob {
	kt_rjob j;
	struct cjob *next;
} cjob;

typedef struct server server;

/* A GPU worker of this host and its channel to rank 0. */
typedef struct relay {
	server *s;
	int channel;
	kt_link *link;
	kt_buf hello;          /* its first hello, for the role */
	kt_mbox *box;
	kjit_engine *engine;   /* this rank's database, where shipped binaries go */
	atomic_int kill;       /* rank 0 asked for a restart or a kill */
	uint32_t gen;
	pthread_t thread;
	int started;
} relay;

struct server {
	const kt_serve_opts *o;
	int rank;
	kt_setup setup;
	kjit__spec *spec;
	char *db;
	kt_role role;
	pthread_mutex_t lock;  /* the queue, the targets */
	pthread_cond_t cond;
	cjob *head, *tail;
	target targets[MAX_TARGETS];
	size_t n_targets;
	pthread_t *threads;
	int n_threads;
	relay *relays;
	size_t n_relays;
};

/* ---- compiles ------------------------------------------------------------------ */

/* The target of arch, opened on first use (under s->lock). */
static target *target_for(server *s, const char *arch)
{
	for (size_t i = 0; i < s->n_targets; i++)
		if (strcmp(s->targets[i].arch, arch) == 0)
			return &s->targets[i];
	if (s->n_targets == MAX_TARGETS)
		return NULL;
	target *t = &s->targets[s->n_targets];
	if (!(t->arch = strdup(arch)))
		return NULL;
	s->n_targets++;
	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = s->db;
	eo.arch = arch;
	eo.compile_threads = s->role.slots;
	eo.flags = KJIT_ENGINE_NO_GPU;
	t->st = kjit_engine_open(&eo, &t->engine);
	if (t->st == KJIT_OK)
		t->st = kjit_spec_kernel(t->engine, s->spec, 0, &t->kernel);
	kt_pool_opts po = { .spec = s->spec, .spec_path = s->setup.spec_path, .engine = t->engine,
		            .kernel = t->kernel, .workers = s->role.slots, .mode = s->o->pool };
	if (t->st == KJIT_OK)
		t->st = kt_pool_open(&po, &t->pool);
	if (t->st != KJIT_OK)
		t->error = kjit__strdup_printf("rank %d, arch %s: %s", s->rank, arch,
		                               kjit_last_error());
	return t;
}

/* Compiles j (or finds it in this rank's cache) and sends rank 0 the
 * answer with the binary; none once the rank is ending, so that rank 0
 * gives the job to another worker. */
static void answer(server *s, const kt_rjob *j, kt_buf *out)
{
	kt_compiled c = { 0 };
	void *blob = NULL;
	size_t size = 0;
	int fits = j->n_config == s->spec->n_params;
	for (uint32_t i = 0; fits && i < j->n_config; i++)
		fits = j->config[i] < s->spec->params[i].n_values;
	pthread_mutex_lock(&s->lock);
	target *t = target_for(s, j->arch);
	pthread_mutex_unlock(&s->lock);
	kt_compile_job job = { .config = j->config };
	if (!t) {
		c.status = KJIT_ERR_NOMEM;
		c.error = kjit__strdup_printf("rank %d: no room for arch %s", s->rank, j->arch);
	} else if (t->st != KJIT_OK) {
		c.status = t->st;
		c.error = strdup(t->error ? t->error : "");
	} else if (!fits) {
		c.status = KJIT_ERR_INVALID_ARG;
		c.error = strdup("a configuration of another spec");
	} else {
		kt_pool_submit(t->pool, &job);
		kt_pool_wait(t->pool, &job, NULL, NULL);
		c.status = job.status;
		c.error = job.error;
		c.compile_ms = job.compile_ms;
		c.compiled = job.compiled;
		c.broken = job.broken;
		if (c.status == KJIT_OK &&
		    (c.status = kjit_engine_binary_export(t->engine, job.key, &blob, &size)) !=
		            KJIT_OK) {
			c.error = strdup(kjit_last_error());
			c.broken = kjit_engine_store_broken(t->engine, c.status);
		}
		if (c.status == KJIT_OK)
			c.key = strdup(job.key);
	}
	if (!ending) {
		kt_rcompiled_encode(out, &c, c.status == KJIT_OK ? blob : NULL, size);
		if (kt_mpi_send(0, (int)j->channel, out) != KJIT_OK)
			fprintf(stderr, "kjit-tune (rank %d): %s\n", s->rank, kjit_last_error());
	}
	free(blob);
	kt_compiled_clear(&c);
}

static void *compile_main(void *arg)
{
	server *s = arg;
	kt_buf out = { 0 };
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !ending)
			pthread_cond_wait(&s->cond, &s->lock);
		if (ending)
			break;
		cjob *q = s->head;
		if (!(s->head = q->next))
			s->tail = NULL;
		pthread_mutex_unlock(&s->lock);
		answer(s, &q->j, &out);
		kt_rjob_clear(&q->j);
		free(q);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	kt_buf_free(&out);
	return NULL;
}

static void queue_job(server *s, kt_buf *b)
{
	cjob *q = calloc(1, sizeof *q);
	if (!q || kt_rjob_decode(b, &q->j) != KJIT_OK) {
		/* rank 0 waits in vain for this one until it loses the rank:
		 * say why here */
		fprintf(stderr, "kjit-tune (rank %d): a compile from rank 0: %s\n", s->rank,
		        q ? kjit_last_error() : "out of memory");
		free(q);
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (s->tail)
		s->tail->next = q;
	else
		s->head = q;
	s->tail = q;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* ---- the GPU workers ------------------------------------------------------------- */

/* Sends rank 0 a short message on r's channel. */
static void note(relay *r, int type, int32_t num, const char *text)
{
	kt_buf b = { 0 };
	kt_note n = { .gen = r->gen, .num = num, .text = (char *)text };
	kt_note_encode(&b, type, &n);
	kt_mpi_send(0, r->channel, &b); /* rank 0 lost: the relay ends with its mailbox */
	kt_buf_free(&b);
}

/* Why r's worker ended, in rank 0's words: the rank named. */
static void ended(relay *r)
{
	char why[256], text[320];
	kt_end end = r->link->ops->reason(r->link, why, sizeof why);
	static const char lead[] = "the worker process ";
	if (strncmp(why, lead, sizeof lead - 1) == 0)
		snprintf(text, sizeof text, "%son rank %d %s", lead, r->s->rank, why + sizeof lead - 1);
	else
		snprintf(text, sizeof text, "rank %d: %s", r->s->rank, why);
	note(r, KT_MSG_LEOF, (int32_t)end, text);
}

/* Forwards the worker's frames to rank 0 until one of type want (the
 * hello after a start, the reply to a request), its end, or a kill. */
static void pass(relay *r, int want)
{
	kt_buf frame = { 0 }, b = { 0 };
	for (;;) {
		kt_frame_result fr = r->link->ops->read(r->link, &frame, 0, &r->kill);
		if (fr == KT_FRAME_STOP)
			break; /* the LSTART or LSTOP that set kill is next */
		if (fr == KT_FRAME_EOF) {
			ended(r);
			break;
		}
		if (fr != KT_FRAME_OK) {
			char why[320];
			snprintf(why, sizeof why, "rank %d: %s (the worker was killed)", r->s->rank,
			         kjit_last_error());
			r->link->ops->stop(r->link, 1);
			note(r, KT_MSG_LEOF, KT_END_EXIT, why);
			break;
		}
		kt_lframe_encode(&b, r->gen, &frame);
		kt_mpi_send(0, r->channel, &b);
		if (kt_msg_type(&frame) == want)
			break;
	}
	kt_buf_free(&frame);
	kt_buf_free(&b);
}

/* Stores a binary rank 0 shipped and says how that went. */
static void store(relay *r, kt_buf *b)
{
	const void *blob;
	size_t size;
	uint32_t gen;
	kjit_status st = kt_lbinary_decode(b, &gen, &blob, &size);
	if (st == KJIT_OK)
		st = kjit_engine_binary_import(r->engine, blob, size, NULL);
	note(r, KT_MSG_LSTORED, (int32_t)st, st == KJIT_OK ? NULL : kjit_last_error());
}

static void *relay_main(void *arg)
{
	relay *r = arg;
	kt_buf in = { 0 }, frame = { 0 };
	while (kt_mpi_recv(r->box, &in, 0, &ending) == KT_FRAME_OK) {
		kt_note n = { 0 };
		uint32_t gen;
		switch (kt_msg_type(&in)) {
		case KT_MSG_LSTART:
			if (kt_note_decode(&in, KT_MSG_LSTART, &n) != KJIT_OK)
				break;
			r->gen = n.gen;
			r->kill = 0;
			if (r->link->ops->start(r->link) == KJIT_OK) {
				pass(r, KT_MSG_HELLO);
			} else {
				char why[320];
				snprintf(why, sizeof why, "rank %d: starting the worker: %s", r->s->rank,
				         kjit_last_error());
				note(r, KT_MSG_LEOF, KT_END_EXIT, why);
			}
			break;
		case KT_MSG_LSTOP:
			if (kt_note_decode(&in, KT_MSG_LSTOP, &n) != KJIT_OK)
				break;
			r->gen = n.gen;
			r->link->ops->stop(r->link, n.num);
			r->kill = 0;
			break;
		case KT_MSG_LFRAME:
			if (kt_lframe_decode(&in, &gen, &frame) != KJIT_OK || gen != r->gen)
				break;
			if (r->link->ops->write(r->link, &frame) != KJIT_OK) {
				/* gone: its pipe closed, its end is the reason */
				ended(r);
			} else if (kt_msg_type(&frame) == KT_MSG_REQUEST) {
				pass(r, KT_MSG_REPLY);
			}
			break;
		case KT_MSG_LBINARY:
			store(r, &in);
			break;
		}
		kt_note_clear(&n);
	}
	r->link->ops->stop(r->link, 1);
	kt_buf_free(&in);
	kt_buf_free(&frame);
	return NULL;
}

/* On the communication thread: a restart or a kill from rank 0 ends the
 * wait of a request in flight. */
static void relay_hook(void *arg, const kt_buf *b)
{
	relay *r = arg;
	kt_buf copy = *b;
	kt_note n;
	int type = kt_msg_type(b);
	if (type == KT_MSG_LSTART)
		r->kill = 1;
	else if (type == KT_MSG_LSTOP && kt_note_decode(&copy, KT_MSG_LSTOP, &n) == KJIT_OK) {
		if (n.num)
			r->kill = 1;
		kt_note_clear(&n);
	}
}

/* Starts the worker of device d as relay r and reads its hello (kept in
 * r->hello); *h its decoding. KJIT_ERR_NO_GPU with the worker's words
 * when it cannot measure. */
static kjit_status start_worker(server *s, relay *r, int d, kt_hello *h)
{
	kt_link_args la = { .spec_path = s->setup.spec_path, .db = s->db, .verify = s->setup.verify,
		            .atol = s->setup.atol, .rtol = s->setup.rtol, .device = d };
	memset(h, 0, sizeof *h);
	kjit_status st = kt_link_local(&la, &r->link);
	if (st == KJIT_OK)
		st = r->link->ops->start(r->link);
	kt_frame_result fr = st == KJIT_OK
	        ? r->link->ops->read(r->link, &r->hello, kjit__now_ns() + HELLO_S * 1000000000ull,
	                             &interrupted)
	        : KT_FRAME_ERROR;
	if (fr == KT_FRAME_OK) {
		kt_buf copy = { .data = r->hello.data, .len = r->hello.len };
		st = kt_hello_decode(&copy, h);
		if (st == KJIT_OK && h->error)
			st = kjit__error(KJIT_ERR_NO_GPU, "device %d: %s", d, h->error);
	} else if (st == KJIT_OK) {
		char why[256] = "no hello";
		if (fr == KT_FRAME_EOF)
			r->link->ops->reason(r->link, why, sizeof why);
		st = kjit__error(KJIT_ERR_NO_GPU, "device %d: the GPU worker did not start (%s)", d,
		                 why);
	}
	if (st != KJIT_OK && r->link) {
		r->link->ops->free(r->link);
		r->link = NULL;
	}
	return st;
}

/* Adds why a device cannot measure to the role's note. */
static void add_note(server *s, const char *why)
{
	char *n = s->role.note ? kjit__strdup_printf("%s; %s", s->role.note, why) : strdup(why);
	if (n) {
		free(s->role.note);
		s->role.note = n;
	}
}

/* Starts the worker of device d as the next relay; a device that cannot
 * measure goes to the role's note. */
static void add_worker(server *s, int d)
{
	kt_hello h;
	if (start_worker(s, &s->relays[s->n_relays], d, &h) == KJIT_OK)
		s->n_relays++;
	else
		add_note(s, kjit_last_error());
	kt_hello_clear(&h);
}

/* The devices of --devices: a list as given; "all" and the default take
 * device 0's hello for the count, and the default is the device (local
 * rank mod count), so that the ranks of a host spread over its GPUs. */
static void open_relays(server *s)
{
	const kt_devices *dv = s->o->devices;
	if (dv->none) {
		add_note(s, "--devices none");
		return;
	}
	if (!(s->relays = calloc(KT_DEVICES_MAX, sizeof *s->relays))) {
		add_note(s, "out of memory");
		return;
	}
	if (dv->n && !dv->all) {
		for (size_t i = 0; i < dv->n && !interrupted; i++)
			add_worker(s, dv->list[i]);
		return;
	}
	add_worker(s, 0);
	if (!s->n_relays)
		return;
	kt_buf copy = { .data = s->relays[0].hello.data, .len = s->relays[0].hello.len };
	kt_hello h;
	int count = kt_hello_decode(&copy, &h) == KJIT_OK ? h.device_count : 1;
	kt_hello_clear(&h);
	if (dv->all) {
		for (int d = 1; d < count && d < KT_DEVICES_MAX && !interrupted; d++)
			add_worker(s, d);
		return;
	}
	int mine = count > 0 ? kt_mpi_local_rank() % count : 0;
	if (mine == 0)
		return;
	/* the probe was device 0: this rank's is another */
	s->relays[0].link->ops->free(s->relays[0].link);
	kt_buf_free(&s->relays[0].hello);
	memset(&s->relays[0], 0, sizeof s->relays[0]);
	s->n_relays = 0;
	add_worker(s, mine);
}

/* Each relay's engine (where shipped binaries go), then, in their final
 * places (the role's order is the channels'), mailbox and thread. A relay
 * without an engine leaves the role; one without a thread fails it. */
static void start_relays(server *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n_relays; i++) {
		relay *r = &s->relays[i];
		kt_buf copy = { .data = r->hello.data, .len = r->hello.len };
		kt_hello h;
		kjit_engine_options eo;
		kjit_engine_options_init(&eo);
		eo.db_path = s->db;
		eo.flags = KJIT_ENGINE_NO_GPU;
		kjit_status st = kt_hello_decode(&copy, &h);
		eo.arch = h.arch;
		if (st == KJIT_OK)
			st = kjit_engine_open(&eo, &r->engine);
		kt_hello_clear(&h);
		if (st != KJIT_OK) {
			add_note(s, kjit_last_error());
			r->link->ops->free(r->link);
			kt_buf_free(&r->hello);
			continue;
		}
		s->relays[k++] = *r;
	}
	s->n_relays = k;
	for (size_t i = 0; i < s->n_relays && !s->role.code; i++) {
		relay *r = &s->relays[i];
		r->s = s;
		r->channel = 1 + (int)i;
		kjit_status st = kt_mpi_mbox_open(0, r->channel, relay_hook, r, &r->box);
		if (st == KJIT_OK && kt_thread_start(&r->thread, relay_main, r) != 0)
			st = kjit__error(KJIT_ERR_NOMEM, "cannot start a relay thread");
		if (st != KJIT_OK) {
			s->role.code = KT_EXIT_RUNTIME;
			s->role.error = strdup(kjit_last_error());
		}
		r->started = st == KJIT_OK;
	}
}

/* ---- the rank's part ------------------------------------------------------------- */

/* The database of a rank other than 0: --db, else $TMPDIR/kjit-UID/mpi.db
 * (not $KJIT_DB or the user cache: a home shared by the hosts would put
 * them on a network file system). */
static char *rank_db(const char *db)
{
	if (db)
		return strdup(db);
	const char *tmp = kjit__env(KJIT__ENV_TMPDIR);
	return kjit__strdup_printf("%s/kjit-%ld/mpi.db", tmp ? tmp : "/tmp", (long)getuid());
}

/* The CPUs this rank may run on: mpirun binds a rank to a core or a
 * socket unless told --bind-to none, and its compile workers inherit
 * that. */
static int cpus(void)
{
	cpu_set_t set;
	return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : kjit__cpu_count();
}

/* Fails the role with code and a message. */
static void refuse(server *s, int code, const char *why)
{
	s->role.code = code;
	s->role.error = strdup(why);
}

/* What this rank can do for the run: its spec (rank 0's, at the same path
 * and with the same signature), its database, its devices. */
static void prepare(server *s)
{
	kt_role *r = &s->role;
	const char *path = s->setup.spec_path;
	char host[256] = "", *sig = NULL, why[1024];
	int shared = 0, n = s->o->jobs > 0 ? s->o->jobs : cpus();
	kjit_records *rec = NULL;
	gethostname(host, sizeof host - 1);
	r->host = strdup(host);
	r->nvrtc = strdup(kjit_nvrtc_id());
	r->slots = n > KT_POOL_MAX_WORKERS ? KT_POOL_MAX_WORKERS : n;
	if (!(s->db = rank_db(s->o->db)) || !r->host || !r->nvrtc) {
		refuse(s, KT_EXIT_RUNTIME, "out of memory");
	} else if (access(path, R_OK) != 0) {
		snprintf(why, sizeof why, "cannot read the spec %s: %s (the spec and the files it "
		         "names must be at the same path on every host)", path, strerror(errno));
		refuse(s, KT_EXIT_SPEC, why);
	} else if (kjit_spec_load(path, &s->spec) != KJIT_OK) {
		refuse(s, KT_EXIT_SPEC, kjit_last_error());
	} else if (access(s->spec->source_path, R_OK) != 0) {
		snprintf(why, sizeof why, "%s: cannot read the kernel source %s: %s (the spec and "
		         "the files it names must be at the same path on every host)", path,
		         s->spec->source_path, strerror(errno));
		refuse(s, KT_EXIT_SPEC, why);
	} else if (kjit_spec_signature(s->spec, &sig) != KJIT_OK) {
		refuse(s, KT_EXIT_RUNTIME, kjit_last_error());
	} else if (strcmp(sig, s->setup.signature) != 0) {
		snprintf(why, sizeof why, "the spec %s here is not rank 0's: its kernel signature "
		         "is %s, rank 0's %s (every host needs the same files at the same path)",
		         path, sig, s->setup.signature);
		refuse(s, KT_EXIT_SPEC, why);
	} else if (kjit_records_open(s->db, 0, &rec) != KJIT_OK ||
	           kt_mpi_db_where(s->db, &r->db, &shared) != KJIT_OK) {
		refuse(s, KT_EXIT_RUNTIME, kjit_last_error());
	}
	if (rec && kjit_records_close(rec) != KJIT_OK && !r->code)
		refuse(s, KT_EXIT_RUNTIME, kjit_last_error());
	free(sig);
	r->db_shared = shared;
	if (!r->db)
		r->db = strdup(s->db ? s->db : "");
	if (!r->code && !s->setup.compile_only) {
		open_relays(s);
		start_relays(s);
	}
}

/* Sends the role, with the relays' hellos. */
static void report(server *s)
{
	kt_buf b = { 0 };
	kt_buf *hellos = s->n_relays ? calloc(s->n_relays, sizeof *hellos) : NULL;
	for (size_t i = 0; hellos && i < s->n_relays; i++)
		hellos[i] = s->relays[i].hello;
	s->role.hellos = hellos;
	s->role.n_hellos = hellos ? (uint32_t)s->n_relays : 0;
	kt_role_encode(&b, &s->role);
	s->role.hellos = NULL;
	s->role.n_hellos = 0;
	free(hellos);
	if (kt_mpi_send(0, 0, &b) != KJIT_OK)
		fprintf(stderr, "kjit-tune (rank %d): %s\n", s->rank, kjit_last_error());
	kt_buf_free(&b);
}

/* Rank 0's messages until its QUIT (KT_FRAME_OK), its loss or a signal. */
static kt_frame_result serve(server *s, kt_buf *b)
{
	for (;;) {
		kt_frame_result fr = kt_mpi_recv(kt_mpi_control(0), b, 0, &interrupted);
		if (fr != KT_FRAME_OK)
			return fr;
		int type = kt_msg_type(b);
		if (type == KT_MSG_QUIT)
			return KT_FRAME_OK;
		if (type == KT_MSG_RCOMPILE && !s->role.code)
			queue_job(s, b);
	}
}

static void start_compiles(server *s)
{
	if (!(s->threads = calloc((size_t)s->role.slots, sizeof *s->threads)))
		return;
	while (s->n_threads < s->role.slots &&
	       kt_thread_start(&s->threads[s->n_threads], compile_main, s) == 0)
		s->n_threads++;
}

/* Ends the compiles (answers not sent: rank 0 gives those jobs to others)
 * and the relays with their workers, then frees what the server holds. */
static void teardown(server *s)
{
	ending = 1;
	pthread_mutex_lock(&s->lock);
	pthread_cond_broadcast(&s->cond);
	size_t n = s->n_targets;
	pthread_mutex_unlock(&s->lock);
	for (size_t i = 0; i < n; i++)
		if (s->targets[i].pool)
			kt_pool_drop(s->targets[i].pool, 1);
	for (int i = 0; i < s->n_threads; i++)
		pthread_join(s->threads[i], NULL);
	free(s->threads);
	while (s->head) {
		cjob *q = s->head;
		s->head = q->next;
		kt_rjob_clear(&q->j);
		free(q);
	}
	for (size_t i = 0; i < s->n_relays; i++) {
		relay *r = &s->relays[i];
		r->kill = 1;
		if (r->started)
			pthread_join(r->thread, NULL);
		kt_mpi_mbox_close(r->box);
		r->link->ops->free(r->link);
		kjit_engine_close(r->engine);
		kt_buf_free(&r->hello);
	}
	free(s->relays);
	for (size_t i = 0; i < s->n_targets; i++) {
		target *t = &s->targets[i];
		kt_pool_close(t->pool);
		kjit_engine_close(t->engine);
		free(t->arch);
		free(t->error);
	}
	kjit_spec_free(s->spec);
	kt_setup_clear(&s->setup);
	kt_role_clear(&s->role);
	free(s->db);
}

int kt_mpi_serve(const kt_serve_opts *o)
{
	server s = { .o = o, .rank = kt_mpi_rank() };
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a worker that died is an EPIPE on its pipe, not the end of this rank */
	signal(SIGPIPE, SIG_IGN);
	kt_buf b = { 0 };
	int ret = KT_EXIT_OK;
	char why[256];
	kt_frame_result fr = kt_mpi_recv(kt_mpi_control(0), &b, 0, &interrupted);
	if (fr == KT_FRAME_OK && kt_msg_type(&b) == KT_MSG_SETUP) {
		if (kt_setup_decode(&b, &s.setup) != KJIT_OK) {
			refuse(&s, KT_EXIT_RUNTIME, kjit_last_error());
		} else {
			prepare(&s);
			if (!s.role.code)
				start_compiles(&s);
		}
		report(&s);
		ret = s.role.code;
		fr = serve(&s, &b);
	}
	/* else rank 0 ended before it set a run up (QUIT), or was lost */
	if (fr == KT_FRAME_EOF && kt_mpi_lost(0, why, sizeof why)) {
		fprintf(stderr, "kjit-tune (rank %d): %s; this rank ends\n", s.rank, why);
		ret = KT_EXIT_RUNTIME;
	} else if (fr == KT_FRAME_STOP) {
		ret = KT_EXIT_INTERRUPTED;
	} else if (fr != KT_FRAME_OK) {
		fprintf(stderr, "kjit-tune (rank %d): %s\n", s.rank, kjit_last_error());
		ret = KT_EXIT_RUNTIME;
	}
	teardown(&s);
	kt_note bye = { .text = fr == KT_FRAME_STOP ? "interrupted" : NULL };
	kt_note_encode(&b, KT_MSG_BYE, &bye);
	kt_mpi_send(0, 0, &b); /* rank 0 lost: nobody to tell */
	kt_buf_free(&b);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.cond);
	return ret;
}
