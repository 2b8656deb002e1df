/*
 * mpi_ranks.c - rank 0's view of the other ranks: the run it tells them
 * at start-up and the roles they answer, the compiles they do for its
 * pool (each binary verified and stored in rank 0's database before the
 * job is done), and which binaries each has in its own database.
 */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ranks.h"

/* Seconds a rank has to answer SETUP: it starts its GPU workers (two in
 * turn when its default device is not 0), each with run/workers.c's 120 s. */
#define ROLE_S 250

/* The binaries a rank has: the low 64 bits of each key (as the store's
 * row id), in an open-addressing set. */
typedef struct keyset {
	uint64_t *v;
	size_t n, cap;
} keyset;

static struct {
	kt_role *roles;     /* [size], rank 0's empty */
	keyset *keys;       /* [size] */
	pthread_mutex_t lock;
} R = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- where a database is -------------------------------------------------------- */

/* statfs magic numbers of file systems that several hosts mount. */
static int network_fs(long type)
{
	static const unsigned long magic[] = {
		0x6969,     /* NFS */
		0x517B,     /* SMB */
		0xFF534D42, /* CIFS */
		0xFE534D42, /* SMB2 */
		0x0BD00BD0, /* Lustre */
		0x47504653, /* GPFS */
		0x19830326, /* BeeGFS */
		0x00C36400, /* CephFS */
		0x5346414F, /* AFS */
		0x01021997, /* 9P */
		0x65735546, /* FUSE (sshfs and others) */
	};
	for (size_t i = 0; i < sizeof magic / sizeof *magic; i++)
		if ((unsigned long)type == magic[i])
			return 1;
	return 0;
}

kjit_status kt_mpi_db_where(const char *db, char **real, int *shared)
{
	char *path = NULL, *copy = NULL, dir[PATH_MAX];
	*real = NULL;
	*shared = 0;
	kjit_status st = db ? ((path = strdup(db)) ? KJIT_OK
	                                            : kjit__error(KJIT_ERR_NOMEM, "out of memory"))
	                    : kjit_store_default_path(&path);
	if (st != KJIT_OK)
		return st;
	/* the file may not be there yet; its folder is, once opened */
	if (!(copy = strdup(path))) {
		free(path);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct statfs fs;
	if (realpath(dirname(copy), dir) && (*real = kjit__strdup_printf("%s/%s", dir, base))) {
		*shared = statfs(dir, &fs) == 0 && network_fs((long)fs.f_type);
		free(path);
	} else {
		*real = path;
	}
	free(copy);
	return KJIT_OK;
}

/* ---- set-up --------------------------------------------------------------------- */

/* Reads rank's role; an exit code. */
static int hear_role(int rank, kt_role *out)
{
	kt_buf b = { 0 };
	char why[256];
	int ret = KT_EXIT_OK;
	kt_frame_result fr = kt_mpi_recv(kt_mpi_control(rank), &b,
	                                 kjit__now_ns() + ROLE_S * 1000000000ull, NULL);
	if (fr == KT_FRAME_OK && kt_role_decode(&b, out) == KJIT_OK)
		ret = out->code;
	else if (fr == KT_FRAME_OK || fr == KT_FRAME_ERROR)
		fprintf(stderr, "kjit-tune: rank %d: %s\n", rank, kjit_last_error());
	else if (fr == KT_FRAME_EOF && kt_mpi_lost(rank, why, sizeof why))
		fprintf(stderr, "kjit-tune: %s before it reported its role\n", why);
	else
		fprintf(stderr, "kjit-tune: rank %d did not report its role in %d s\n", rank, ROLE_S);
	if (fr != KT_FRAME_OK || (ret == KT_EXIT_OK && !out->host))
		ret = KT_EXIT_RUNTIME;
	else if (ret != KT_EXIT_OK)
		fprintf(stderr, "kjit-tune: rank %d on %s: %s\n", rank, out->host,
		        out->error ? out->error : "(no detail)");
	kt_buf_free(&b);
	return ret;
}

/* One line per rank on stderr: what it does. */
static void print_role(int rank, const kt_role *r, const char *nvrtc)
{
	kjit__buf b = { 0 };
	char s[160];
	snprintf(s, sizeof s, "kjit-tune: rank %d on %s: ", rank, r->host);
	kjit__buf_str(&b, s);
	if (strcmp(r->nvrtc, nvrtc) == 0) {
		snprintf(s, sizeof s, "compiles %d at once", r->slots);
		kjit__buf_str(&b, s);
	} else {
		kjit__buf_str(&b, "compiles nothing (its NVRTC, ");
		kjit__buf_str(&b, r->nvrtc);
		kjit__buf_str(&b, ", makes other binary keys than rank 0's, ");
		kjit__buf_str(&b, nvrtc);
		kjit__buf_str(&b, ")");
	}
	for (uint32_t i = 0; i < r->n_hellos; i++) {
		kt_buf copy = { .data = r->hellos[i].data, .len = r->hellos[i].len };
		kt_hello h;
		if (kt_hello_decode(&copy, &h) != KJIT_OK)
			continue;
		snprintf(s, sizeof s, "%s device %d", i ? "," : "; measures on", h.device);
		kjit__buf_str(&b, s);
		kjit__buf_str(&b, " (");
		kjit__buf_str(&b, h.device_name);
		kjit__buf_str(&b, ")");
		kt_hello_clear(&h);
	}
	if (r->note) {
		kjit__buf_str(&b, r->n_hellos ? "; not on " : "; measures nowhere: ");
		kjit__buf_str(&b, r->note);
	}
	char *text = kjit__buf_done(&b);
	fprintf(stderr, "%s\n", text ? text : "kjit-tune: out of memory");
	free(text);
}

/* Two ranks on different hosts must not share a database on a network
 * file system: SQLite's locks do not hold across hosts there. */
static int check_databases(const char *host0, const char *db0, int shared0)
{
	int n = kt_mpi_size();
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			const char *ha = a ? R.roles[a].host : host0, *da = a ? R.roles[a].db : db0;
			int sa = a ? R.roles[a].db_shared : shared0;
			const kt_role *rb = &R.roles[b];
			if (strcmp(ha, rb->host) != 0 && strcmp(da, rb->db) == 0 &&
			    (sa || rb->db_shared)) {
				fprintf(stderr, "kjit-tune: rank %d on %s and rank %d on %s would both "
				        "write %s, which is on a network file system: give the ranks "
				        "other than 0 a database on their own host (leave out their --db: "
				        "$TMPDIR/kjit-UID/mpi.db, or --db PATH on a local disk, through "
				        "mpirun's MPMD form)\n", a, ha, b, rb->host, da);
				return KT_EXIT_USAGE;
			}
		}
	return KT_EXIT_OK;
}

int kt_mpi_setup(const kt_setup *s, const char *db, int quiet)
{
	int n = kt_mpi_size(), ret = KT_EXIT_OK;
	if (n < 2)
		return KT_EXIT_OK;
	kt_buf b = { 0 };
	char host[256] = "", *real = NULL;
	int shared = 0;
	R.roles = calloc((size_t)n, sizeof *R.roles);
	R.keys = calloc((size_t)n, sizeof *R.keys);
	if (!R.roles || !R.keys) {
		fprintf(stderr, "kjit-tune: out of memory\n");
		return KT_EXIT_RUNTIME;
	}
	kt_setup_encode(&b, s);
	for (int r = 1; r < n && ret == KT_EXIT_OK; r++)
		if (kt_mpi_send(r, 0, &b) != KJIT_OK) {
			fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
			ret = KT_EXIT_RUNTIME;
		}
	kt_buf_free(&b);
	for (int r = 1; r < n; r++) {
		/* every answer is read, so that each failure is told */
		int code = hear_role(r, &R.roles[r]);
		ret = ret == KT_EXIT_OK ? code : ret;
	}
	if (ret == KT_EXIT_OK && kt_mpi_db_where(db, &real, &shared) != KJIT_OK) {
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
		ret = KT_EXIT_RUNTIME;
	}
	gethostname(host, sizeof host - 1);
	if (ret == KT_EXIT_OK)
		ret = check_databases(host, real, shared);
	free(real);
	for (int r = 1; ret == KT_EXIT_OK && !quiet && r < n; r++)
		print_role(r, &R.roles[r], kjit_nvrtc_id());
	return ret;
}

const kt_role *kt_mpi_role(int rank)
{
	return R.roles && rank > 0 && rank < kt_mpi_size() && R.roles[rank].host ? &R.roles[rank]
	                                                                         : NULL;
}

size_t kt_mpi_compilers(int *ranks, int *slots, size_t max)
{
	size_t k = 0;
	for (int r = 1; r < kt_mpi_size() && k < max; r++) {
		const kt_role *role = kt_mpi_role(r);
		if (!role || role->slots < 1 || strcmp(role->nvrtc, kjit_nvrtc_id()) != 0 ||
		    kt_mpi_lost(r, NULL, 0))
			continue;
		ranks[k] = r;
		slots[k++] = role->slots;
	}
	return k;
}

/* ---- compiles for rank 0 -------------------------------------------------------- */

int kt_mpi_compile(int rank, const char *arch, const uint16_t *config, uint32_t n_config,
                   kjit_engine *e, kt_compiled *c, const atomic_int *stop, char *why,
                   size_t why_size)
{
	kt_buf b = { 0 };
	kt_mbox *box = NULL;
	int ch = kt_mpi_channel(), ret = 0;
	memset(c, 0, sizeof *c);
	kt_rjob j = { .channel = (uint32_t)ch, .arch = (char *)arch, .config = (uint16_t *)config,
		      .n_config = n_config };
	kt_rjob_encode(&b, &j);
	kjit_status st = kt_mpi_mbox_open(rank, ch, NULL, NULL, &box);
	if (st == KJIT_OK)
		st = kt_mpi_send(rank, 0, &b);
	kt_frame_result fr = st == KJIT_OK ? kt_mpi_recv(box, &b, 0, stop)
	                     : kt_mpi_lost(rank, NULL, 0) ? KT_FRAME_EOF : KT_FRAME_ERROR;
	kt_mpi_mbox_close(box);
	if (fr == KT_FRAME_STOP) {
		ret = -2;
	} else if (fr == KT_FRAME_EOF) {
		kt_mpi_lost(rank, why, why_size);
	} else if (fr != KT_FRAME_OK) {
		snprintf(why, why_size, "rank %d: %s", rank, kjit_last_error());
	} else {
		const void *blob;
		size_t size;
		char got[33];
		ret = 1;
		if ((st = kt_rcompiled_decode(&b, c, &blob, &size)) != KJIT_OK) {
			c->status = st;
			c->error = kjit__strdup_printf("rank %d: %s", rank, kjit_last_error());
		} else if (c->status == KJIT_OK &&
		           ((st = kjit_engine_binary_import(e, blob, size, got)) != KJIT_OK ||
		            strcmp(got, c->key) != 0)) {
			if (st == KJIT_OK)
				st = kjit__error(KJIT_ERR_CORRUPT, "rank %d: a compile's answer for %s with "
				                 "the binary of %s", rank, c->key, got);
			free(c->key);
			c->key = NULL;
			c->status = st;
			c->error = strdup(kjit_last_error());
			c->broken = kjit_engine_store_broken(e, st);
		} else if (c->status == KJIT_OK) {
			kt_mpi_add_binary(rank, c->key);
		}
	}
	kt_buf_free(&b);
	return ret;
}

/* ---- the binaries each rank has --------------------------------------------------- */

static uint64_t key_bits(const char *key)
{
	uint64_t v = 0;
	for (int i = 16; i < 32 && key[i]; i++) {
		char c = key[i];
		v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v ? v : 1; /* 0 marks an empty slot */
}

/* Slot of v in s (its own, or the empty one it would take). */
static size_t slot_of(const keyset *s, uint64_t v)
{
	size_t i = (size_t)(v * 0x9e3779b97f4a7c15ull) & (s->cap - 1);
	while (s->v[i] && s->v[i] != v)
		i = (i + 1) & (s->cap - 1);
	return i;
}

int kt_mpi_has_binary(int rank, const char *key)
{
	if (!R.keys || rank <= 0 || rank >= kt_mpi_size())
		return 0;
	pthread_mutex_lock(&R.lock);
	const keyset *s = &R.keys[rank];
	int has = s->cap && s->v[slot_of(s, key_bits(key))];
	pthread_mutex_unlock(&R.lock);
	return has;
}

void kt_mpi_add_binary(int rank, const char *key)
{
	if (!R.keys || rank <= 0 || rank >= kt_mpi_size())
		return;
	pthread_mutex_lock(&R.lock);
	keyset *s = &R.keys[rank];
	if (2 * (s->n + 1) > s->cap) {
		/* a lost entry only ships that binary again */
		keyset g = { calloc(s->cap ? 2 * s->cap : 64, sizeof *g.v), s->n,
			     s->cap ? 2 * s->cap : 64 };
		if (g.v) {
			for (size_t i = 0; i < s->cap; i++)
				if (s->v[i])
					g.v[slot_of(&g, s->v[i])] = s->v[i];
			free(s->v);
			*s = g;
		}
	}
	if (2 * (s->n + 1) <= s->cap) {
		size_t i = slot_of(s, key_bits(key));
		s->n += !s->v[i];
		s->v[i] = key_bits(key);
	}
	pthread_mutex_unlock(&R.lock);
}
