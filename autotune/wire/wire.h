/*
 * wire.h - how kjit-tune's processes talk (wire/): the exit codes, the
 * worker protocol and the messages between MPI ranks (wire.c), links to
 * measuring workers and the worker process on this host (link_local.c),
 * and the child processes and threads at either end (child.c).
 */
#ifndef KJIT_TUNE_WIRE_H
#define KJIT_TUNE_WIRE_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#include "tools.h"
#include "kjit.h"

/* Exit codes of kjit-tune (doc/kjit-tune.1). */
enum { KT_EXIT_OK = 0, KT_EXIT_RUNTIME = 1, KT_EXIT_USAGE = 2, KT_EXIT_SPEC = 3,
       KT_EXIT_INTERRUPTED = 130 };

/* ---- the worker protocol (wire.c) ------------------------------------- */

/* A message under construction or being read; zero-initialise. bad is
 * set when a read runs past the end (a truncated message), or a field
 * is out of its bounds (why then says which). */
typedef struct kt_buf {
	unsigned char *data;
	size_t len, cap, pos;
	int bad, oom;
	const char *why;
} kt_buf;
void kt_buf_free(kt_buf *b);
/* Replaces b's contents with a copy of len bytes (KJIT_ERR_NOMEM). */
kjit_status kt_buf_set(kt_buf *b, const void *data, size_t len);

enum { KT_MSG_HELLO = 1, KT_MSG_REQUEST, KT_MSG_BEGIN, KT_MSG_REPLY, KT_MSG_COMPILE,
       KT_MSG_COMPILED };

/* The worker's first message: its device, or why it has none. */
typedef struct kt_hello {
	char *error;  /* NULL when the worker is ready */
	char *arch, *device_name, *device_key;
	char *device_uuid;     /* "GPU-8-4-4-4-12 hex digits", as nvidia-smi writes it */
	int64_t max_threads, max_shared;
	int32_t device;        /* the worker's device ordinal */
	int32_t device_count;  /* the devices its driver sees */
} kt_hello;

/* Evaluate one configuration (parameter value indices) of a problem; or,
 * with prepare set and no configuration, only make the problem's buffers
 * and expected outputs (while the tuner compiles the first variants). */
typedef struct kt_request {
	int32_t prepare;
	uint32_t problem;
	uint32_t n_config;
	uint16_t *config;
	int32_t cold_l2;
	double best_ns, early_factor, max_ms;
	double warmup_ms; /* the protocol's warm-up; < 0: its default */
	double best_hi_ns; /* the best's ci_high (0: unknown), for early stop */
	double budget_ms;  /* the protocol's time budget (0: none) */
	uint32_t profile;  /* KT_PROF_*: what to profile once it ends ok */
	/* an energy race (with KT_PROF_ENERGY): the best so far under the
	 * objective, J (energy) or J ns (edp); 0: none */
	double race_j, race_jns;
} kt_request;

/* What a request asks profiled (kjit_variant_profile()) of a
 * configuration that ends ok. */
#define KT_PROF_COUNTERS 0x1u
#define KT_PROF_ENERGY 0x2u

/* --profile: collect a profile (kjit_variant_profile(): counters, and
 * energy for an energy objective) for every configuration that ends ok,
 * or for each problem's best once its search is over. */
typedef enum kt_profile_mode { KT_PROFILE_OFF = 0, KT_PROFILE_ALL, KT_PROFILE_BEST } kt_profile_mode;

/* The answer: how the evaluation ended (its word on the wire, parsed
 * where it is decoded) and the measurement. has_status: status is set,
 * by the worker's reply or, where none came, by the tuner (a timeout, a
 * crash). fatal: the worker exits after sending it (a sticky CUDA
 * error). setup: the problem's arguments or expected outputs could not
 * be made, so no configuration of it can be evaluated (message says
 * why). */
typedef struct kt_reply {
	kjit_result_status status;
	int32_t has_status;
	char *message, *timer, *stop;
	int32_t regs, fatal, setup;
	double median_ns, spread_ns, min_ns, max_ns, ci_high_ns;
	double *samples;
	uint32_t n_samples;
	/* where the worker's time went, ms: the problem's buffers and
	 * expected outputs (the first request of a problem), the variant's
	 * load, the checked run (outputs restored, launch, comparison), the
	 * protocol's warm-up and timed batches */
	double setup_ms, load_ms, check_ms, warmup_ms, timed_ms;
	/* The variant's profile (kjit_variant_profile()), when has_profile.
	 * Its figures are NAN (unknown) or finite and >= 0; each reason at
	 * most KT_REASON_MAX bytes. Decoded, the reasons point at
	 * reasons[2], which the reply owns. */
	int32_t has_profile;
	kjit_profile profile;
	char *reasons[2];
} kt_reply;

#define KT_REASON_MAX 1024

/* A macro's value as a string literal, for messages that name a bound. */
#define KT_STR_(x) #x
#define KT_STR(x) KT_STR_(x)

/* Encoders start a new message in b (type byte first). Decoders read a
 * whole message of that type from b; KJIT_ERR_CORRUPT when it is
 * truncated, of another type or has bytes left over. Decoded strings and
 * arrays are malloc'ed: free with the *_clear functions. */
void kt_hello_encode(kt_buf *b, const kt_hello *h);
kjit_status kt_hello_decode(kt_buf *b, kt_hello *h);
void kt_hello_clear(kt_hello *h);
void kt_request_encode(kt_buf *b, const kt_request *q);
kjit_status kt_request_decode(kt_buf *b, kt_request *q);
void kt_request_clear(kt_request *q);
void kt_reply_encode(kt_buf *b, const kt_reply *r);
kjit_status kt_reply_decode(kt_buf *b, kt_reply *r);
void kt_reply_clear(kt_reply *r);
void kt_begin_encode(kt_buf *b);
/* The type of the message in b (its first byte), 0 when empty. */
int kt_msg_type(const kt_buf *b);

/* A compile worker's job (KT_MSG_COMPILE: a configuration's value
 * indices) and its answer (KT_MSG_COMPILED). */
typedef struct kt_compiled {
	int32_t status;     /* a kjit_status */
	char *key;          /* the binary key, NULL on a failure */
	char *error;        /* the NVRTC log or why, NULL on success */
	double compile_ms;
	int32_t compiled;   /* 1: NVRTC ran; 0: a cache hit */
	int32_t broken;     /* 1: the database failed for good */
} kt_compiled;
void kt_compile_encode(kt_buf *b, const uint16_t *config, uint32_t n_config);
/* *config (n_config + 1 entries) is malloc'ed. */
kjit_status kt_compile_decode(kt_buf *b, uint16_t **config, uint32_t *n_config);
/* A configuration's value indices as kjit-tune carries them, as the
 * library's configuration to compile and launch (kjit_config_new();
 * config NULL: the defaults) (values.c). */
kjit_status kt_config_open(const kjit__spec *spec, const uint16_t *config, kjit_config **out);
/* Configuration index of space as kjit-tune carries it, into
 * config[n_params] (kjit_space_config()). */
kjit_status kt_space_config(const kjit__space *space, size_t index, uint16_t *config);
void kt_compiled_encode(kt_buf *b, const kt_compiled *c);
kjit_status kt_compiled_decode(kt_buf *b, kt_compiled *c);
void kt_compiled_clear(kt_compiled *c);

/* A frame is a 4-byte little-endian length and the message. */
kjit_status kt_frame_write(int fd, const kt_buf *b);
typedef enum { KT_FRAME_OK = 0, KT_FRAME_EOF, KT_FRAME_TIMEOUT, KT_FRAME_STOP,
               KT_FRAME_ERROR } kt_frame_result;
/* Reads one frame into b (replacing its contents) before deadline_ns
 * (kjit__now_ns() clock; 0: none). *stop (may be NULL) is polled every
 * 100 ms: KT_FRAME_STOP when it becomes non-zero. KT_FRAME_ERROR (detail
 * in the last error): a read error or an oversized frame. */
kt_frame_result kt_frame_read(int fd, kt_buf *b, uint64_t deadline_ns,
                              const atomic_int *stop);

/* ---- the messages between MPI ranks (wire.c) -------------------------- */

/* The rank messages. Rank 0 sends SETUP, QUIT and RCOMPILE, and on a
 * link's channel LSTART, LSTOP, LFRAME and LBINARY; the other ranks send
 * ROLE, BYE and RCOMPILED, and LFRAME, LEOF and LSTORED; both BEAT. */
enum { KT_MSG_SETUP = 32, KT_MSG_ROLE, KT_MSG_BEAT, KT_MSG_QUIT, KT_MSG_BYE, KT_MSG_RCOMPILE,
       KT_MSG_RCOMPILED, KT_MSG_LSTART, KT_MSG_LSTOP, KT_MSG_LFRAME, KT_MSG_LEOF,
       KT_MSG_LBINARY, KT_MSG_LSTORED };

/* What rank 0 tells every rank at start-up: the spec (a path every host
 * reads), its kernel signature (the same file everywhere), the mode, and
 * the verification the workers run with. */
typedef struct kt_setup {
	char *spec_path, *signature, *verify;
	double atol, rtol;
	int32_t compile_only;
} kt_setup;
void kt_setup_encode(kt_buf *b, const kt_setup *s);
kjit_status kt_setup_decode(kt_buf *b, kt_setup *s);
void kt_setup_clear(kt_setup *s);

/* A rank's answer: where it runs and what it does. */
typedef struct kt_role {
	int32_t code;        /* 0: ready; else the exit code of why it is not (error) */
	char *error;
	char *host, *nvrtc;  /* kjit_nvrtc_id(): binaries of the same keys as rank 0's */
	char *db;            /* its database, a real path */
	int32_t db_shared;   /* db is on a network file system */
	int32_t slots;       /* compile jobs it takes at once */
	char *note;          /* devices it cannot measure on, and why; NULL none */
	uint32_t n_hellos;
	kt_buf *hellos;      /* the hello of each worker it measures with, as sent */
} kt_role;
void kt_role_encode(kt_buf *b, const kt_role *r);
kjit_status kt_role_decode(kt_buf *b, kt_role *r);
void kt_role_clear(kt_role *r);

/* The short messages: BEAT and QUIT (nothing), BYE (text: why it leaves
 * before a QUIT, NULL after one), LSTART (gen), LSTOP (gen; num: kill
 * first), LEOF (gen; num: a kt_end; text: why), LSTORED (gen; num: a
 * kjit_status; text: why not). gen numbers a link's worker: a message of
 * an earlier worker is stale. */
typedef struct kt_note {
	uint32_t gen;
	int32_t num;
	char *text;
} kt_note;
void kt_note_encode(kt_buf *b, int type, const kt_note *n);
kjit_status kt_note_decode(kt_buf *b, int type, kt_note *n);
void kt_note_clear(kt_note *n);

/* LFRAME: a worker-protocol message on a link; *frame gets a copy. */
void kt_lframe_encode(kt_buf *b, uint32_t gen, const kt_buf *frame);
kjit_status kt_lframe_decode(kt_buf *b, uint32_t *gen, kt_buf *frame);

/* RCOMPILE: a configuration to compile for arch, answered on channel. */
typedef struct kt_rjob {
	uint32_t channel;
	char *arch;
	uint16_t *config;   /* n_config + 1 entries */
	uint32_t n_config;
} kt_rjob;
void kt_rjob_encode(kt_buf *b, const kt_rjob *j);
kjit_status kt_rjob_decode(kt_buf *b, kt_rjob *j);
void kt_rjob_clear(kt_rjob *j);

/* A binary travels as the bytes of kjit_engine_binary_export(), which
 * kjit_engine_binary_import() checks as it stores them. RCOMPILED is a
 * compile's answer, with its binary (blob NULL: none) when c->status is
 * KJIT_OK; LBINARY a binary for a link's rank to store. The decoders
 * leave *blob in b: valid while b is. */
void kt_rcompiled_encode(kt_buf *b, const kt_compiled *c, const void *blob, size_t size);
kjit_status kt_rcompiled_decode(kt_buf *b, kt_compiled *c, const void **blob, size_t *size);
void kt_lbinary_encode(kt_buf *b, uint32_t gen, const void *blob, size_t size);
kjit_status kt_lbinary_decode(kt_buf *b, uint32_t *gen, const void **blob, size_t *size);

/* ---- links to measuring workers (link_local.c; mpi/ for other ranks) */

/* A GPU worker as the tuner sees it: a worker process on this host over
 * two pipes, or one on another MPI rank that the rank relays. The tuner
 * speaks the worker protocol over it (the hello, requests, begin marks,
 * replies), one request at a time, from one thread per link. */
typedef struct kt_link kt_link;
/* How a worker ended: of itself, by a signal (the variant's doing, as a
 * fault), or with its link (a rank lost: the request was not the cause
 * and goes to another worker). */
typedef enum { KT_END_EXIT, KT_END_SIGNAL, KT_END_LOST } kt_end;
typedef struct kt_link_ops {
	/* Starts the worker (again, after it ended); its hello is the first
	 * frame read() then gives. */
	kjit_status (*start)(kt_link *l);
	kjit_status (*write)(kt_link *l, const kt_buf *b);
	/* As kt_frame_read(); KT_FRAME_EOF when the worker ended. */
	kt_frame_result (*read)(kt_link *l, kt_buf *b, uint64_t deadline_ns,
	                        const atomic_int *stop);
	/* Ends the worker, killed first when kill_it; start() may follow. */
	void (*stop)(kt_link *l, int kill_it);
	/* After read() gave KT_FRAME_EOF: why the worker ended ("the worker
	 * process was killed by signal 9 (Killed)", "rank 2 was lost"). */
	kt_end (*reason)(kt_link *l, char *buf, size_t size);
	/* 1 while the worker runs. */
	int (*running)(kt_link *l);
	/* Before a request: makes the binary of key (in the tuner's
	 * database) available to the worker; NULL when the worker reads the
	 * tuner's database itself. */
	kjit_status (*binary)(kt_link *l, const char *key);
	void (*free)(kt_link *l);
} kt_link_ops;

struct kt_link {
	const kt_link_ops *ops;
	void *ctx;
	char name[64]; /* for messages: "device 1", "rank 2 device 0" */
};

/* What a worker is started with: the spec, the database it opens (on its
 * own host), the verification the tuner runs with, the device ordinal. */
typedef struct kt_link_args {
	const char *spec_path, *db;
	/* where rank 0's engine is once opened (after the links: its arch is
	 * theirs), whose store a link to another rank ships binaries from */
	kjit_engine *const *engine;
	const char *verify;
	double atol, rtol;
	int device;
} kt_link_args;

/* The devices of --devices: "all", "none" (measure nowhere: compile
 * only, for an MPI rank), or a comma list of ordinals (one may repeat:
 * two workers share that GPU). Zero-initialised: not given. */
#define KT_DEVICES_MAX 64
typedef struct kt_devices {
	int all, none;
	size_t n;
	int list[KT_DEVICES_MAX];
} kt_devices;
/* KJIT_ERR_INVALID_ARG naming the fault for anything else. */
kjit_status kt_devices_parse(const char *s, kt_devices *out);

/* A worker process on this host for a->device (the strings are copied).
 * *out is freed with its ops->free. */
kjit_status kt_link_local(const kt_link_args *a, kt_link **out);

/* ---- child processes (child.c) ------------------------------------------ */

/* A worker process on two pipes: the parent writes requests to `to` and
 * reads answers from `from`; the child has them as these descriptors. */
enum { KT_CHILD_IN_FD = 3, KT_CHILD_OUT_FD = 4 };
typedef struct kt_child {
	pid_t pid;  /* 0: none */
	int to, from;
} kt_child;

/* fork + exec of exe (NULL: this program) with argv. The child ignores
 * SIGINT (the parent stops it), and is killed when the thread that
 * started it ends. */
kjit_status kt_child_start(kt_child *c, const char *exe, char *const argv[]);
/* Closes the pipes and waits for the child, SIGKILLed first when kill_it. */
void kt_child_stop(kt_child *c, int kill_it);
/* After its pipe closed: waits for the child and says why it ended ("the
 * WHAT process was killed by signal 11 (Segmentation fault)"); 1 when a
 * signal ended it. */
int kt_child_reason(kt_child *c, const char *what, char *buf, size_t size);
/* pthread_create() of a thread that does not take SIGINT and SIGTERM:
 * they are to interrupt the waits of the main thread. Returns its code. */
int kt_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);
/* pthread_cond_timedwait() for at most ns nanoseconds: the waits that
 * also poll a stop flag. */
void kt_cond_wait_ns(pthread_cond_t *c, pthread_mutex_t *m, uint64_t ns);

#endif /* KJIT_TUNE_WIRE_H */
