/*
 * link_local.c - the link to a GPU worker process on this host: `kjit-tune
 * --worker` on two pipes (child.c), for one device ordinal.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

typedef struct local {
	kt_child c;
	char *spec_path, *db, *verify;
	char atol[32], rtol[32], device[16];
} local;

static kjit_status local_start(kt_link *l)
{
	local *w = l->ctx;
	char in[16], out[16];
	snprintf(in, sizeof in, "%d", KT_CHILD_IN_FD);
	snprintf(out, sizeof out, "%d", KT_CHILD_OUT_FD);
	char *argv[] = { "kjit-tune", "--worker", in, out, w->spec_path, w->db, w->verify,
		         w->atol, w->rtol, w->device, NULL };
	kt_child_stop(&w->c, 1);
	return kt_child_start(&w->c, NULL, argv);
}

static kjit_status local_write(kt_link *l, const kt_buf *b)
{
	local *w = l->ctx;
	return kt_frame_write(w->c.to, b);
}

static kt_frame_result local_read(kt_link *l, kt_buf *b, uint64_t deadline_ns,
                                  const atomic_int *stop)
{
	local *w = l->ctx;
	return kt_frame_read(w->c.from, b, deadline_ns, stop);
}

static void local_stop(kt_link *l, int kill_it)
{
	local *w = l->ctx;
	kt_child_stop(&w->c, kill_it);
}

static kt_end local_reason(kt_link *l, char *buf, size_t size)
{
	local *w = l->ctx;
	return kt_child_reason(&w->c, "worker", buf, size) ? KT_END_SIGNAL : KT_END_EXIT;
}

static int local_running(kt_link *l)
{
	local *w = l->ctx;
	return w->c.pid > 0;
}

static void local_free(kt_link *l)
{
	if (!l)
		return;
	local *w = l->ctx;
	if (w) {
		kt_child_stop(&w->c, 1);
		free(w->spec_path);
		free(w->db);
		free(w->verify);
		free(w);
	}
	free(l);
}

static const kt_link_ops local_ops = {
	.start = local_start, .write = local_write, .read = local_read, .stop = local_stop,
	.reason = local_reason, .running = local_running, .binary = NULL, .free = local_free,
};

kjit_status kt_link_local(const kt_link_args *a, kt_link **out)
{
	kt_link *l = calloc(1, sizeof *l);
	local *w = calloc(1, sizeof *w);
	*out = NULL;
	if (l) {
		l->ops = &local_ops;
		l->ctx = w;
	}
	if (!l || !w || !(w->spec_path = strdup(a->spec_path)) || !(w->db = strdup(a->db)) ||
	    !(w->verify = strdup(a->verify))) {
		if (l)
			local_free(l);
		else
			free(w);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	snprintf(w->atol, sizeof w->atol, "%.17g", a->atol);
	snprintf(w->rtol, sizeof w->rtol, "%.17g", a->rtol);
	snprintf(w->device, sizeof w->device, "%d", a->device);
	snprintf(l->name, sizeof l->name, "device %d", a->device);
	*out = l;
	return KJIT_OK;
}

kjit_status kt_devices_parse(const char *s, kt_devices *out)
{
	memset(out, 0, sizeof *out);
	if (strcmp(s, "all") == 0 || strcmp(s, "none") == 0) {
		out->all = s[0] == 'a';
		out->none = s[0] == 'n';
		return KJIT_OK;
	}
	for (const char *p = s;;) {
		char *end;
		errno = 0;
		long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
		if (v < 0 || errno || v > 1023 || (*end != ',' && *end != '\0'))
			return kjit__error(KJIT_ERR_INVALID_ARG, "--devices: expected all, none or a "
			                   "comma list of device ordinals, got '%s'", s);
		if (out->n == KT_DEVICES_MAX)
			return kjit__error(KJIT_ERR_INVALID_ARG, "--devices: more than %d devices in "
			                   "'%s'", KT_DEVICES_MAX, s);
		out->list[out->n++] = (int)v;
		if (*end == '\0')
			return KJIT_OK;
		p = end + 1;
	}
}
