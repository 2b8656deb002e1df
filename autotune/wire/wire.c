/*
 * wire.c - the messages between kjit-tune and its worker processes (GPU, compile):
 * length-prefixed frames on pipes, fields in a fixed order per message
 * type, little-endian integers and doubles, strings with a length (or
 * none: NULL); and those between MPI ranks, in the same encoding.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"

/* A frame above this is a broken peer, not a message. */
#define MAX_FRAME (64u << 20)
#define NO_STRING 0xffffffffu

void kt_buf_free(kt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

static void put(kt_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *d = realloc(b->data, cap);
		if (!d) {
			b->oom = 1;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

kjit_status kt_buf_set(kt_buf *b, const void *data, size_t len)
{
	b->len = b->pos = 0;
	b->bad = b->oom = 0;
	if (len)
		put(b, data, len);
	return b->oom ? kjit__error(KJIT_ERR_NOMEM, "out of memory copying a message") : KJIT_OK;
}

static void put_u64(kt_buf *b, uint64_t v, int bytes)
{
	unsigned char le[8];
	for (int i = 0; i < bytes; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, (size_t)bytes);
}

static void put_u32(kt_buf *b, uint32_t v) { put_u64(b, v, 4); }

static void put_f64(kt_buf *b, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	put_u64(b, u, 8);
}

static void put_str(kt_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put_u32(b, s ? (uint32_t)n : NO_STRING);
	if (s)
		put(b, s, n);
}

static void start(kt_buf *b, int type)
{
	unsigned char t = (unsigned char)type;
	b->len = b->pos = 0;
	b->bad = b->oom = 0;
	put(b, &t, 1);
}

static uint64_t get_u64(kt_buf *b, int bytes)
{
	uint64_t v = 0;
	if (b->bad || b->len - b->pos < (size_t)bytes) {
		b->bad = 1;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b->data[b->pos + (size_t)i] << (8 * i);
	b->pos += (size_t)bytes;
	return v;
}

static uint32_t get_u32(kt_buf *b) { return (uint32_t)get_u64(b, 4); }

static double get_f64(kt_buf *b)
{
	uint64_t u = get_u64(b, 8);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* A string and the length it was sent with (NO_STRING: none). */
static char *get_str_len(kt_buf *b, uint32_t *len)
{
	uint32_t n = *len = get_u32(b);
	if (b->bad || n == NO_STRING)
		return NULL;
	if (b->len - b->pos < n) {
		b->bad = 1;
		return NULL;
	}
	char *s = malloc((size_t)n + 1);
	if (!s) {
		b->oom = 1;
		return NULL;
	}
	memcpy(s, b->data + b->pos, n);
	s[n] = '\0';
	b->pos += n;
	return s;
}

static char *get_str(kt_buf *b)
{
	uint32_t len;
	return get_str_len(b, &len);
}

int kt_msg_type(const kt_buf *b)
{
	return b->len ? b->data[0] : 0;
}

/* Positions b after the type byte; 0 when the type is not want. */
static int open_msg(kt_buf *b, int want)
{
	b->pos = 1;
	b->bad = b->oom = 0;
	b->why = NULL;
	if (kt_msg_type(b) != want)
		b->bad = 1;
	return !b->bad;
}

static kjit_status close_msg(kt_buf *b, const char *what)
{
	if (b->oom)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory reading a %s message", what);
	if (b->bad && b->why)
		return kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a %s message with %s (%zu "
		                   "bytes)", what, b->why, b->len);
	if (b->bad || b->pos != b->len)
		return kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a %s message that is %s "
		                   "(%zu bytes)", what, b->bad ? "truncated or of another type"
		                                               : "too long", b->len);
	return KJIT_OK;
}

/* ---- messages --------------------------------------------------------------- */

void kt_hello_encode(kt_buf *b, const kt_hello *h)
{
	start(b, KT_MSG_HELLO);
	put_str(b, h->error);
	put_str(b, h->arch);
	put_str(b, h->device_name);
	put_str(b, h->device_key);
	put_u64(b, (uint64_t)h->max_threads, 8);
	put_u64(b, (uint64_t)h->max_shared, 8);
	put_str(b, h->device_uuid);
	put_u32(b, (uint32_t)h->device);
	put_u32(b, (uint32_t)h->device_count);
}

kjit_status kt_hello_decode(kt_buf *b, kt_hello *h)
{
	memset(h, 0, sizeof *h);
	if (open_msg(b, KT_MSG_HELLO)) {
		h->error = get_str(b);
		h->arch = get_str(b);
		h->device_name = get_str(b);
		h->device_key = get_str(b);
		h->max_threads = (int64_t)get_u64(b, 8);
		h->max_shared = (int64_t)get_u64(b, 8);
		h->device_uuid = get_str(b);
		h->device = (int32_t)get_u32(b);
		h->device_count = (int32_t)get_u32(b);
	}
	kjit_status st = close_msg(b, "hello");
	if (st == KJIT_OK && !h->error && (!h->arch || !h->device_name || !h->device_key))
		st = kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a hello without a device");
	if (st != KJIT_OK)
		kt_hello_clear(h);
	return st;
}

void kt_hello_clear(kt_hello *h)
{
	free(h->error);
	free(h->arch);
	free(h->device_name);
	free(h->device_key);
	free(h->device_uuid);
	memset(h, 0, sizeof *h);
}

/* A configuration: a count and that many 16-bit value indices. */
static void put_config(kt_buf *b, const uint16_t *config, uint32_t n)
{
	put_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		put_u64(b, config[i], 2);
}

/* malloc'ed, n + 1 entries; NULL with b->bad or b->oom set on a failure. */
static uint16_t *get_config(kt_buf *b, uint32_t *n)
{
	uint16_t *config = NULL;
	*n = get_u32(b);
	if (!b->bad && *n > (b->len - b->pos) / 2)
		b->bad = 1;
	else if (!b->bad && !(config = calloc(*n + 1, sizeof *config)))
		b->oom = 1;
	for (uint32_t i = 0; config && i < *n; i++)
		config[i] = (uint16_t)get_u64(b, 2);
	return config;
}

void kt_request_encode(kt_buf *b, const kt_request *q)
{
	start(b, KT_MSG_REQUEST);
	put_u32(b, (uint32_t)q->prepare);
	put_u32(b, q->problem);
	put_config(b, q->config, q->n_config);
	put_u32(b, (uint32_t)q->cold_l2);
	put_f64(b, q->best_ns);
	put_f64(b, q->early_factor);
	put_f64(b, q->max_ms);
	put_f64(b, q->warmup_ms);
	put_f64(b, q->best_hi_ns);
	put_f64(b, q->budget_ms);
	put_u32(b, q->profile);
	put_f64(b, q->race_j);
	put_f64(b, q->race_jns);
}

kjit_status kt_request_decode(kt_buf *b, kt_request *q)
{
	memset(q, 0, sizeof *q);
	if (open_msg(b, KT_MSG_REQUEST)) {
		q->prepare = (int32_t)get_u32(b);
		q->problem = get_u32(b);
		q->config = get_config(b, &q->n_config);
		q->cold_l2 = (int32_t)get_u32(b);
		q->best_ns = get_f64(b);
		q->early_factor = get_f64(b);
		q->max_ms = get_f64(b);
		q->warmup_ms = get_f64(b);
		q->best_hi_ns = get_f64(b);
		q->budget_ms = get_f64(b);
		q->profile = get_u32(b);
		q->race_j = get_f64(b);
		q->race_jns = get_f64(b);
		if (q->profile & ~(KT_PROF_COUNTERS | KT_PROF_ENERGY)) {
			b->bad = 1;
			b->why = "profile: unknown bits";
		} else if (!(q->race_j >= 0 && q->race_j < INFINITY && q->race_jns >= 0 &&
		             q->race_jns < INFINITY)) {
			b->bad = 1;
			b->why = "an energy race's best that is negative or not finite";
		}
	}
	kjit_status st = close_msg(b, "request");
	if (st != KJIT_OK)
		kt_request_clear(q);
	return st;
}

void kt_request_clear(kt_request *q)
{
	free(q->config);
	memset(q, 0, sizeof *q);
}

/* A profile: a flag, then each figure of KJIT__PROFILE_FIELDS and the
 * two reasons (at most KT_REASON_MAX bytes each: longer ones are cut). */
static void put_profile(kt_buf *b, const kjit_profile *p)
{
	put_u32(b, p != NULL);
	if (!p)
		return;
	size_t n;
	kjit_profile_fields(&n);
	for (size_t i = 0; i < n; i++)
		put_f64(b, kjit_profile_get(p, i));
	const char *reasons[] = { p->counters_reason, p->energy_reason };
	for (int k = 0; k < 2; k++) {
		size_t len = reasons[k] ? strlen(reasons[k]) : 0;
		put_u32(b, reasons[k] ? (uint32_t)(len > KT_REASON_MAX ? KT_REASON_MAX : len)
		                      : NO_STRING);
		if (reasons[k])
			put(b, reasons[k], len > KT_REASON_MAX ? KT_REASON_MAX : len);
	}
}

/* The profile of a reply: a figure that is neither NAN nor finite and
 * >= 0, a flag other than 0 or 1, or a reason too long or holding a NUL
 * makes the message bad. */
static void get_profile(kt_buf *b, kt_reply *r)
{
	uint32_t has = get_u32(b);
	if (has > 1)
		b->bad = 1;
	if (b->bad || !has)
		return;
	r->has_profile = 1;
	kjit_profile_clear(&r->profile);
	size_t n;
	kjit_profile_fields(&n);
	for (size_t i = 0; i < n; i++) {
		double v = get_f64(b);
		if (!b->bad && !isnan(v) && !(isfinite(v) && v >= 0)) {
			b->bad = 1;
			b->why = "a profile figure that is negative or infinite";
		}
		kjit_profile_set(&r->profile, i, v);
	}
	for (int k = 0; k < 2 && !b->bad; k++) {
		uint32_t len;
		r->reasons[k] = get_str_len(b, &len);
		if (r->reasons[k] && (len > KT_REASON_MAX || strlen(r->reasons[k]) != len)) {
			b->bad = 1;
			b->why = "a profile reason longer than " KT_STR(KT_REASON_MAX)
			         " bytes or with a NUL";
		}
	}
	r->profile.counters_reason = r->reasons[0];
	r->profile.energy_reason = r->reasons[1];
}

void kt_reply_encode(kt_buf *b, const kt_reply *r)
{
	start(b, KT_MSG_REPLY);
	put_str(b, kjit_result_status_name(r->status));
	put_str(b, r->message);
	put_str(b, r->timer);
	put_str(b, r->stop);
	put_u32(b, (uint32_t)r->regs);
	put_u32(b, (uint32_t)r->fatal);
	put_u32(b, (uint32_t)r->setup);
	put_f64(b, r->median_ns);
	put_f64(b, r->spread_ns);
	put_f64(b, r->min_ns);
	put_f64(b, r->max_ns);
	put_f64(b, r->ci_high_ns);
	const double times[] = { r->setup_ms, r->load_ms, r->check_ms, r->warmup_ms, r->timed_ms };
	for (size_t i = 0; i < sizeof times / sizeof *times; i++)
		put_f64(b, times[i]);
	put_u32(b, r->n_samples);
	for (uint32_t i = 0; i < r->n_samples; i++)
		put_f64(b, r->samples[i]);
	put_profile(b, r->has_profile ? &r->profile : NULL);
}

kjit_status kt_reply_decode(kt_buf *b, kt_reply *r)
{
	memset(r, 0, sizeof *r);
	char *status = NULL;
	if (open_msg(b, KT_MSG_REPLY)) {
		status = get_str(b);
		r->message = get_str(b);
		r->timer = get_str(b);
		r->stop = get_str(b);
		r->regs = (int32_t)get_u32(b);
		r->fatal = (int32_t)get_u32(b);
		r->setup = (int32_t)get_u32(b);
		r->median_ns = get_f64(b);
		r->spread_ns = get_f64(b);
		r->min_ns = get_f64(b);
		r->max_ns = get_f64(b);
		r->ci_high_ns = get_f64(b);
		double *times[] = { &r->setup_ms, &r->load_ms, &r->check_ms, &r->warmup_ms,
			            &r->timed_ms };
		for (size_t i = 0; i < sizeof times / sizeof *times; i++)
			*times[i] = get_f64(b);
		r->n_samples = get_u32(b);
		if (!b->bad && r->n_samples > (b->len - b->pos) / 8)
			b->bad = 1;
		else if (!b->bad && r->n_samples &&
		         !(r->samples = malloc(r->n_samples * sizeof *r->samples)))
			b->oom = 1;
		for (uint32_t i = 0; r->samples && i < r->n_samples; i++)
			r->samples[i] = get_f64(b);
		get_profile(b, r);
	}
	kjit_status st = close_msg(b, "reply");
	if (st == KJIT_OK && kjit_result_status_parse(status, &r->status) != KJIT_OK)
		st = kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a reply with status '%s'",
		                 status ? status : "(none)");
	free(status);
	r->has_status = st == KJIT_OK;
	if (st != KJIT_OK)
		kt_reply_clear(r);
	return st;
}

void kt_reply_clear(kt_reply *r)
{
	free(r->message);
	free(r->timer);
	free(r->stop);
	free(r->samples);
	free(r->reasons[0]);
	free(r->reasons[1]);
	memset(r, 0, sizeof *r);
}

void kt_begin_encode(kt_buf *b)
{
	start(b, KT_MSG_BEGIN);
}

void kt_compile_encode(kt_buf *b, const uint16_t *config, uint32_t n_config)
{
	start(b, KT_MSG_COMPILE);
	put_config(b, config, n_config);
}

kjit_status kt_compile_decode(kt_buf *b, uint16_t **config, uint32_t *n_config)
{
	*config = NULL;
	*n_config = 0;
	if (open_msg(b, KT_MSG_COMPILE))
		*config = get_config(b, n_config);
	kjit_status st = close_msg(b, "compile");
	if (st != KJIT_OK) {
		free(*config);
		*config = NULL;
	}
	return st;
}

void kt_compiled_encode(kt_buf *b, const kt_compiled *c)
{
	start(b, KT_MSG_COMPILED);
	put_u32(b, (uint32_t)c->status);
	put_str(b, c->key);
	put_str(b, c->error);
	put_f64(b, c->compile_ms);
	put_u32(b, (uint32_t)c->compiled);
	put_u32(b, (uint32_t)c->broken);
}

kjit_status kt_compiled_decode(kt_buf *b, kt_compiled *c)
{
	memset(c, 0, sizeof *c);
	if (open_msg(b, KT_MSG_COMPILED)) {
		c->status = (int32_t)get_u32(b);
		c->key = get_str(b);
		c->error = get_str(b);
		c->compile_ms = get_f64(b);
		c->compiled = (int32_t)get_u32(b);
		c->broken = (int32_t)get_u32(b);
	}
	kjit_status st = close_msg(b, "compiled");
	if (st == KJIT_OK && c->status == KJIT_OK && (!c->key || strlen(c->key) != 32))
		st = kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a compiled message without a "
		                 "binary key");
	if (st != KJIT_OK)
		kt_compiled_clear(c);
	return st;
}

void kt_compiled_clear(kt_compiled *c)
{
	free(c->key);
	free(c->error);
	memset(c, 0, sizeof *c);
}

/* ---- frames ----------------------------------------------------------------- */

kjit_status kt_frame_write(int fd, const kt_buf *b)
{
	if (b->oom)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory building a message");
	unsigned char head[4];
	for (int i = 0; i < 4; i++)
		head[i] = (unsigned char)(b->len >> (8 * i));
	const unsigned char *parts[2] = { head, b->data };
	size_t sizes[2] = { 4, b->len };
	for (int k = 0; k < 2; k++)
		for (size_t done = 0; done < sizes[k];) {
			ssize_t w = write(fd, parts[k] + done, sizes[k] - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return kjit__error(KJIT_ERR_IO, "writing to the worker pipe: %s",
				                   strerror(errno));
			done += (size_t)w;
		}
	return KJIT_OK;
}

/* Reads n bytes into p; see kt_frame_read. */
static kt_frame_result read_all(int fd, unsigned char *p, size_t n, uint64_t deadline_ns,
                                const atomic_int *stop)
{
	size_t done = 0;
	while (done < n) {
		if (stop && *stop)
			return KT_FRAME_STOP;
		int wait_ms = 100;
		if (deadline_ns) {
			uint64_t now = kjit__now_ns();
			if (now >= deadline_ns)
				return KT_FRAME_TIMEOUT;
			if (deadline_ns - now < 100000000u)
				wait_ms = (int)((deadline_ns - now) / 1000000u) + 1;
		}
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r = poll(&pfd, 1, wait_ms);
		if (r < 0 && errno != EINTR) {
			kjit__error(KJIT_ERR_IO, "poll on the worker pipe: %s", strerror(errno));
			return KT_FRAME_ERROR;
		}
		if (r <= 0)
			continue;
		ssize_t got = read(fd, p + done, n - done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			kjit__error(KJIT_ERR_IO, "reading the worker pipe: %s", strerror(errno));
			return KT_FRAME_ERROR;
		}
		if (got == 0)
			return KT_FRAME_EOF;
		done += (size_t)got;
	}
	return KT_FRAME_OK;
}

kt_frame_result kt_frame_read(int fd, kt_buf *b, uint64_t deadline_ns, const atomic_int *stop)
{
	unsigned char head[4];
	b->len = b->pos = 0;
	b->bad = b->oom = 0;
	kt_frame_result r = read_all(fd, head, 4, deadline_ns, stop);
	if (r != KT_FRAME_OK)
		return r;
	size_t n = (size_t)head[0] | (size_t)head[1] << 8 | (size_t)head[2] << 16 |
	           (size_t)head[3] << 24;
	if (n == 0 || n > MAX_FRAME) {
		kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a frame of %zu bytes", n);
		return KT_FRAME_ERROR;
	}
	if (n > b->cap) {
		unsigned char *d = realloc(b->data, n);
		if (!d) {
			kjit__error(KJIT_ERR_NOMEM, "out of memory reading a frame");
			return KT_FRAME_ERROR;
		}
		b->data = d;
		b->cap = n;
	}
	r = read_all(fd, b->data, n, deadline_ns, stop);
	if (r == KT_FRAME_EOF) {
		kjit__error(KJIT_ERR_CORRUPT, "worker protocol: a frame cut short");
		return KT_FRAME_EOF;
	}
	if (r == KT_FRAME_OK)
		b->len = n;
	return r;
}

/* ---- between MPI ranks ---------------------------------------------------- */

/* Bytes with a length. */
static void put_blob(kt_buf *b, const void *p, size_t n)
{
	put_u32(b, (uint32_t)n);
	put(b, p, n);
}

/* A blob, in place: *n bytes at the returned pointer (NULL with b->bad). */
static const unsigned char *get_blob(kt_buf *b, size_t *n)
{
	*n = get_u32(b);
	if (b->bad || b->len - b->pos < *n) {
		b->bad = 1;
		return NULL;
	}
	const unsigned char *p = b->data + b->pos;
	b->pos += *n;
	return p;
}

void kt_setup_encode(kt_buf *b, const kt_setup *s)
{
	start(b, KT_MSG_SETUP);
	put_str(b, s->spec_path);
	put_str(b, s->signature);
	put_str(b, s->verify);
	put_f64(b, s->atol);
	put_f64(b, s->rtol);
	put_u32(b, (uint32_t)s->compile_only);
}

kjit_status kt_setup_decode(kt_buf *b, kt_setup *s)
{
	memset(s, 0, sizeof *s);
	if (open_msg(b, KT_MSG_SETUP)) {
		s->spec_path = get_str(b);
		s->signature = get_str(b);
		s->verify = get_str(b);
		s->atol = get_f64(b);
		s->rtol = get_f64(b);
		s->compile_only = (int32_t)get_u32(b);
	}
	kjit_status st = close_msg(b, "setup");
	if (st == KJIT_OK && (!s->spec_path || !s->signature || !s->verify))
		st = kjit__error(KJIT_ERR_CORRUPT, "rank protocol: a setup without a spec");
	if (st != KJIT_OK)
		kt_setup_clear(s);
	return st;
}

void kt_setup_clear(kt_setup *s)
{
	free(s->spec_path);
	free(s->signature);
	free(s->verify);
	memset(s, 0, sizeof *s);
}

void kt_role_encode(kt_buf *b, const kt_role *r)
{
	start(b, KT_MSG_ROLE);
	put_u32(b, (uint32_t)r->code);
	put_str(b, r->error);
	put_str(b, r->host);
	put_str(b, r->nvrtc);
	put_str(b, r->db);
	put_u32(b, (uint32_t)r->db_shared);
	put_u32(b, (uint32_t)r->slots);
	put_str(b, r->note);
	put_u32(b, r->n_hellos);
	for (uint32_t i = 0; i < r->n_hellos; i++)
		put_blob(b, r->hellos[i].data, r->hellos[i].len);
}

kjit_status kt_role_decode(kt_buf *b, kt_role *r)
{
	memset(r, 0, sizeof *r);
	if (open_msg(b, KT_MSG_ROLE)) {
		r->code = (int32_t)get_u32(b);
		r->error = get_str(b);
		r->host = get_str(b);
		r->nvrtc = get_str(b);
		r->db = get_str(b);
		r->db_shared = (int32_t)get_u32(b);
		r->slots = (int32_t)get_u32(b);
		r->note = get_str(b);
		uint32_t n = get_u32(b);
		/* each hello takes its length at least */
		if (!b->bad && n > (b->len - b->pos) / 4)
			b->bad = 1;
		else if (!b->bad && n && !(r->hellos = calloc(n, sizeof *r->hellos)))
			b->oom = 1;
		for (uint32_t i = 0; r->hellos && i < n && !b->bad && !b->oom; i++) {
			size_t len;
			const unsigned char *p = get_blob(b, &len);
			if (p && len)
				put(&r->hellos[i], p, len);
			else
				b->bad = 1;
			b->oom |= r->hellos[i].oom;
			r->n_hellos = i + 1;
		}
	}
	kjit_status st = close_msg(b, "role");
	if (st == KJIT_OK && (!r->host || !r->nvrtc || !r->db))
		st = kjit__error(KJIT_ERR_CORRUPT, "rank protocol: a role without a host");
	if (st != KJIT_OK)
		kt_role_clear(r);
	return st;
}

void kt_role_clear(kt_role *r)
{
	free(r->error);
	free(r->host);
	free(r->nvrtc);
	free(r->db);
	free(r->note);
	for (uint32_t i = 0; i < r->n_hellos; i++)
		kt_buf_free(&r->hellos[i]);
	free(r->hellos);
	memset(r, 0, sizeof *r);
}

void kt_note_encode(kt_buf *b, int type, const kt_note *n)
{
	start(b, type);
	put_u32(b, n->gen);
	put_u32(b, (uint32_t)n->num);
	put_str(b, n->text);
}

kjit_status kt_note_decode(kt_buf *b, int type, kt_note *n)
{
	memset(n, 0, sizeof *n);
	if (open_msg(b, type)) {
		n->gen = get_u32(b);
		n->num = (int32_t)get_u32(b);
		n->text = get_str(b);
	}
	kjit_status st = close_msg(b, "rank");
	if (st != KJIT_OK)
		kt_note_clear(n);
	return st;
}

void kt_note_clear(kt_note *n)
{
	free(n->text);
	memset(n, 0, sizeof *n);
}

void kt_lframe_encode(kt_buf *b, uint32_t gen, const kt_buf *frame)
{
	start(b, KT_MSG_LFRAME);
	put_u32(b, gen);
	put_blob(b, frame->data, frame->len);
}

kjit_status kt_lframe_decode(kt_buf *b, uint32_t *gen, kt_buf *frame)
{
	size_t n = 0;
	const unsigned char *p = NULL;
	if (open_msg(b, KT_MSG_LFRAME)) {
		*gen = get_u32(b);
		p = get_blob(b, &n);
	}
	kjit_status st = close_msg(b, "link frame");
	if (st == KJIT_OK && !n)
		st = kjit__error(KJIT_ERR_CORRUPT, "rank protocol: an empty link frame");
	return st == KJIT_OK ? kt_buf_set(frame, p, n) : st;
}

void kt_rjob_encode(kt_buf *b, const kt_rjob *j)
{
	start(b, KT_MSG_RCOMPILE);
	put_u32(b, j->channel);
	put_str(b, j->arch);
	put_config(b, j->config, j->n_config);
}

kjit_status kt_rjob_decode(kt_buf *b, kt_rjob *j)
{
	memset(j, 0, sizeof *j);
	if (open_msg(b, KT_MSG_RCOMPILE)) {
		j->channel = get_u32(b);
		j->arch = get_str(b);
		j->config = get_config(b, &j->n_config);
	}
	kjit_status st = close_msg(b, "remote compile");
	if (st == KJIT_OK && !j->arch)
		st = kjit__error(KJIT_ERR_CORRUPT, "rank protocol: a compile without an arch");
	if (st != KJIT_OK)
		kt_rjob_clear(j);
	return st;
}

void kt_rjob_clear(kt_rjob *j)
{
	free(j->arch);
	free(j->config);
	memset(j, 0, sizeof *j);
}

void kt_rcompiled_encode(kt_buf *b, const kt_compiled *c, const void *blob, size_t size)
{
	start(b, KT_MSG_RCOMPILED);
	put_u32(b, (uint32_t)c->status);
	put_str(b, c->key);
	put_str(b, c->error);
	put_f64(b, c->compile_ms);
	put_u32(b, (uint32_t)c->compiled);
	put_u32(b, (uint32_t)c->broken);
	put_u32(b, blob != NULL);
	if (blob)
		put_blob(b, blob, size);
}

kjit_status kt_rcompiled_decode(kt_buf *b, kt_compiled *c, const void **blob, size_t *size)
{
	int has = 0;
	memset(c, 0, sizeof *c);
	*blob = NULL;
	*size = 0;
	if (open_msg(b, KT_MSG_RCOMPILED)) {
		c->status = (int32_t)get_u32(b);
		c->key = get_str(b);
		c->error = get_str(b);
		c->compile_ms = get_f64(b);
		c->compiled = (int32_t)get_u32(b);
		c->broken = (int32_t)get_u32(b);
		if ((has = (int)get_u32(b)))
			*blob = get_blob(b, size);
	}
	kjit_status st = close_msg(b, "remote compiled");
	if (st == KJIT_OK && c->status == KJIT_OK && (!c->key || !has))
		st = kjit__error(KJIT_ERR_CORRUPT, "rank protocol: a compile's answer without its "
		                 "binary");
	if (st != KJIT_OK) {
		kt_compiled_clear(c);
		*blob = NULL;
		*size = 0;
	}
	return st;
}

void kt_lbinary_encode(kt_buf *b, uint32_t gen, const void *blob, size_t size)
{
	start(b, KT_MSG_LBINARY);
	put_u32(b, gen);
	put_blob(b, blob, size);
}

kjit_status kt_lbinary_decode(kt_buf *b, uint32_t *gen, const void **blob, size_t *size)
{
	*blob = NULL;
	*size = 0;
	if (open_msg(b, KT_MSG_LBINARY)) {
		*gen = get_u32(b);
		*blob = get_blob(b, size);
	}
	kjit_status st = close_msg(b, "link binary");
	if (st != KJIT_OK) {
		*blob = NULL;
		*size = 0;
	}
	return st;
}
