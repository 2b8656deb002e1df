/* store_binaries.c - the binaries table: the second tier of the compile
 * cache, with checksums and size-capped LRU eviction. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base.h"

static int prepare(kjit__store *s, sqlite3_stmt **st, const char *sql)
{
	if (*st) {
		sqlite3_reset(*st);
		sqlite3_clear_bindings(*st);
		return SQLITE_OK;
	}
	return sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
}

void kjit__store_finalize_binaries(kjit__store *s)
{
	sqlite3_stmt **all[] = { &s->bin_get, &s->bin_put, &s->kernel_put, &s->bin_del,
		                 &s->bin_touch, &s->bin_total, &s->bin_oldest,
		                 &s->manifest_get, &s->manifest_put };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		sqlite3_finalize(*all[i]);
		*all[i] = NULL;
	}
	free(s->touches);
	s->touches = NULL;
	s->n_touches = s->cap_touches = 0;
}

static const char bin_get_sql[] =
	"SELECT cubin, checksum, lowered_name, compile_ms, key FROM binaries WHERE id = ?1";

/* The row id of a key: its low 64 bits (the last 16 hex digits). */
static sqlite3_int64 key_id(const char *key)
{
	uint64_t v = 0;
	for (int i = 16; i < 32 && key[i]; i++) {
		char c = key[i];
		v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return (sqlite3_int64)v;
}

kjit_status kjit__store_prepare_binaries(kjit__store *s)
{
	int rc = prepare(s, &s->bin_get, bin_get_sql);
	if (rc != SQLITE_OK)
		return kjit__store_fail(s, rc, "preparing the binary lookup");
	/* One lookup of an id that no key has: it reads the table's root page
	 * and binds the code paths now, at open, rather than on the first
	 * real hit. */
	sqlite3_bind_int64(s->bin_get, 1, 0);
	rc = sqlite3_step(s->bin_get);
	sqlite3_reset(s->bin_get);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? KJIT_OK
	                                              : kjit__store_fail(s, rc, "reading the binaries");
}

void kjit__store_checksum(const void *data, size_t size, char out[33])
{
	kjit__hash_hex(kjit__hash(data, size, 0x6b6a6974u), out);
}

kjit_status kjit__store_binary_get(kjit__store *s, const char *key, void **cubin, size_t *size,
                                   char **lowered, double *compile_ms)
{
	*cubin = NULL;
	*lowered = NULL;
	kjit_status r;
	kjit__store_lock(s);
	int rc = prepare(s, &s->bin_get, bin_get_sql);
	if (rc != SQLITE_OK) {
		r = kjit__store_fail(s, rc, "preparing the binary lookup");
		goto out;
	}
	sqlite3_bind_int64(s->bin_get, 1, key_id(key));
	rc = sqlite3_step(s->bin_get);
	const char *row_key = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s->bin_get, 4) : NULL;
	if (rc == SQLITE_DONE || (rc == SQLITE_ROW && (!row_key || strcmp(row_key, key) != 0))) {
		/* A different key with the same low 64 bits is a miss; the put
		 * that follows takes the row over. */
		r = KJIT_ERR_NOT_FOUND;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		r = kjit__store_fail(s, rc, "reading a binary");
		goto out;
	}
	const void *blob = sqlite3_column_blob(s->bin_get, 0);
	size_t n = (size_t)sqlite3_column_bytes(s->bin_get, 0);
	const char *sum = (const char *)sqlite3_column_text(s->bin_get, 1);
	const char *low = (const char *)sqlite3_column_text(s->bin_get, 2);
	char have[33];
	kjit__store_checksum(blob ? blob : "", n, have);
	if (!blob || !sum || !low || strcmp(have, sum) != 0) {
		r = kjit__error(KJIT_ERR_CORRUPT, "binary %s in %s failed its checksum (stored %s, "
		                "computed %s)", key, s->path, sum ? sum : "none", have);
		goto out;
	}
	*cubin = malloc(n);
	*lowered = strdup(low);
	if (!*cubin || !*lowered) {
		free(*cubin);
		free(*lowered);
		*cubin = NULL;
		*lowered = NULL;
		r = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(*cubin, blob, n);
	*size = n;
	*compile_ms = sqlite3_column_double(s->bin_get, 3);
	r = KJIT_OK;
out:
	if (s->bin_get)
		sqlite3_reset(s->bin_get);
	kjit__store_unlock(s);
	return r;
}

/* The columns of a whole row, in the order of kjit__store_binary_read()'s
 * copies; cubin and checksum last. */
static const char bin_row_sql[] =
	"SELECT b.key, b.signature, k.name, k.source, k.params, b.options, b.arch, b.nvrtc,"
	" b.lowered_name, m.base_key, m.files, b.compile_ms, b.cubin, b.checksum"
	" FROM binaries b JOIN kernels k ON k.signature = b.signature"
	" LEFT JOIN manifests m ON m.key = b.key WHERE b.id = ?1 AND b.key = ?2";

/* Copies column col of s (NULL stays NULL) to *at, a NUL after it. */
static const char *copy_text(sqlite3_stmt *s, int col, char **at)
{
	const char *t = (const char *)sqlite3_column_text(s, col);
	if (!t)
		return NULL;
	size_t n = (size_t)sqlite3_column_bytes(s, col);
	char *out = memcpy(*at, t, n);
	out[n] = '\0';
	*at += n + 1;
	return out;
}

void kjit__binary_texts(kjit__binary *b, const char **out[KJIT__BINARY_TEXTS])
{
	const char **t[KJIT__BINARY_TEXTS] = { &b->key, &b->signature, &b->kernel_name,
		                               &b->source, &b->params, &b->options, &b->arch,
		                               &b->nvrtc, &b->lowered_name, &b->base_key,
		                               &b->manifest };
	memcpy(out, t, sizeof t);
}

kjit_status kjit__store_binary_read(kjit__store *s, const char *key, kjit__binary *b,
                                    char checksum[33], void **mem)
{
	enum { TEXTS = KJIT__BINARY_TEXTS, COMPILE_MS = TEXTS, CUBIN, SUM };
	sqlite3_stmt *st = NULL;
	kjit_status r;
	memset(b, 0, sizeof *b);
	*mem = NULL;
	kjit__store_lock(s);
	int rc = sqlite3_prepare_v2(s->db, bin_row_sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, key_id(key));
		sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_DONE) {
		r = kjit__error(KJIT_ERR_NOT_FOUND, "binary %s is not in %s", key, s->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		r = kjit__store_fail(s, rc, "reading a binary");
		goto out;
	}
	const void *blob = sqlite3_column_blob(st, CUBIN);
	size_t n = (size_t)sqlite3_column_bytes(st, CUBIN), total = n + 1;
	const char *sum = (const char *)sqlite3_column_text(st, SUM);
	kjit__store_checksum(blob ? blob : "", n, checksum);
	if (!blob || !sum || strcmp(checksum, sum) != 0) {
		r = kjit__error(KJIT_ERR_CORRUPT, "binary %s in %s failed its checksum (stored %s, "
		                "computed %s)", key, s->path, sum ? sum : "none", checksum);
		goto out;
	}
	for (int c = 0; c < TEXTS; c++)
		total += (size_t)sqlite3_column_bytes(st, c) + 1;
	char *at = *mem = malloc(total);
	if (!at) {
		r = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto out;
	}
	b->cubin = memcpy(at, blob, n);
	b->size = n;
	at += n + 1;
	const char **texts[TEXTS];
	kjit__binary_texts(b, texts);
	for (int c = 0; c < TEXTS; c++)
		*texts[c] = copy_text(st, c, &at);
	b->compile_ms = sqlite3_column_double(st, COMPILE_MS);
	r = KJIT_OK;
out:
	sqlite3_finalize(st);
	kjit__store_unlock(s);
	return r;
}

kjit_status kjit__store_manifest_get(kjit__store *s, const char *base_key, char **manifest)
{
	*manifest = NULL;
	kjit__store_lock(s);
	int rc = prepare(s, &s->manifest_get, "SELECT files FROM manifests WHERE base_key = ?1"
	                 " ORDER BY created DESC LIMIT 1");
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s->manifest_get, 1, base_key, -1, SQLITE_STATIC);
		rc = sqlite3_step(s->manifest_get);
	}
	kjit_status st = KJIT_ERR_NOT_FOUND;
	if (rc == SQLITE_ROW) {
		const char *files = (const char *)sqlite3_column_text(s->manifest_get, 0);
		st = files && (*manifest = strdup(files)) ? KJIT_OK
		                                          : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	} else if (rc != SQLITE_DONE) {
		st = kjit__store_fail(s, rc, "reading a header manifest");
	}
	if (s->manifest_get)
		sqlite3_reset(s->manifest_get);
	kjit__store_unlock(s);
	return st;
}

static kjit_status write_touches(kjit__store *s, double now)
{
	for (size_t i = 0; i < s->n_touches; i++) {
		int rc = prepare(s, &s->bin_touch, "UPDATE binaries SET last_used = ?2 WHERE id = ?1");
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(s->bin_touch, 1, key_id(s->touches[i]));
			sqlite3_bind_double(s->bin_touch, 2, now);
			rc = sqlite3_step(s->bin_touch);
		}
		if (rc != SQLITE_DONE)
			return kjit__store_fail(s, rc, "recording binary use");
	}
	s->n_touches = 0;
	return KJIT_OK;
}

/* The cache's size from the blobs themselves (length() reads no blob),
 * written back as the count: for a count that is missing or cannot be. */
static kjit_status recount(kjit__store *s, int64_t *total)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "SELECT coalesce(sum(length(cubin)), 0) FROM binaries",
	                            -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*total = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return kjit__store_fail(s, rc, "summing the cache size");
	rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO cache_size(id, bytes) VALUES(1, ?1)",
	                        -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, *total);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(s, rc, "recording the cache size");
}

/* The cache size as counted: *total, or -1 when the count is missing,
 * not an integer, negative or more than the file could hold. */
static kjit_status counted(kjit__store *s, int64_t *total)
{
	int rc = prepare(s, &s->bin_total, "SELECT (SELECT bytes FROM cache_size WHERE id = 1),"
	                 " (SELECT page_count * page_size FROM pragma_page_count, pragma_page_size)");
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s->bin_total);
	if (rc != SQLITE_ROW)
		return kjit__store_fail(s, rc, "summing the cache size");
	int64_t n = sqlite3_column_int64(s->bin_total, 0), file = sqlite3_column_int64(s->bin_total, 1);
	int integer = sqlite3_column_type(s->bin_total, 0) == SQLITE_INTEGER;
	sqlite3_reset(s->bin_total);
	*total = integer && n >= 0 && n <= file ? n : -1;
	return KJIT_OK;
}

static kjit_status evict(kjit__store *s, int64_t max_bytes)
{
	for (int fresh = 0;;) {
		int64_t total = -1;
		kjit_status st = counted(s, &total);
		if (st == KJIT_OK && total < 0) {
			st = recount(s, &total);
			fresh = 1;
		}
		if (st != KJIT_OK || total <= max_bytes)
			return st;
		/* Oldest first, one at a time, never the newest entry. */
		int rc = prepare(s, &s->bin_oldest,
		                 "DELETE FROM binaries WHERE id IN (SELECT id FROM binaries"
		                 " ORDER BY last_used LIMIT 1)"
		                 " AND id <> (SELECT id FROM binaries ORDER BY last_used DESC LIMIT 1)");
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s->bin_oldest);
		if (rc != SQLITE_DONE)
			return kjit__store_fail(s, rc, "evicting old binaries");
		/* the newest alone over the cap: the count is right, or it is
		 * made so, once, from the one blob left */
		if (sqlite3_changes(s->db) == 0)
			return fresh ? KJIT_OK : recount(s, &total);
	}
}

struct put_args {
	const kjit__binary *b;
	int64_t max_bytes;
};

static kjit_status put_in_tx(kjit__store *s, void *arg)
{
	const struct put_args *a = arg;
	const kjit__binary *b = a->b;
	double now = kjit__wall_time();
	int rc = prepare(s, &s->kernel_put,
	                 "INSERT OR IGNORE INTO kernels(signature, name, source, params, created)"
	                 " VALUES(?1, ?2, ?3, ?4, ?5)");
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s->kernel_put, 1, b->signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->kernel_put, 2, b->kernel_name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->kernel_put, 3, b->source, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->kernel_put, 4, b->params ? b->params : "", -1, SQLITE_STATIC);
		sqlite3_bind_double(s->kernel_put, 5, now);
		rc = sqlite3_step(s->kernel_put);
	}
	if (rc != SQLITE_DONE)
		return kjit__store_fail(s, rc, "recording the kernel");

	char sum[33];
	kjit__store_checksum(b->cubin, b->size, sum);
	/* An upsert, not REPLACE: REPLACE deletes without firing the trigger
	 * that keeps the cache size. */
	rc = prepare(s, &s->bin_put,
	             "INSERT INTO binaries(key, signature, options, arch, nvrtc,"
	             " lowered_name, cubin, size, checksum, compile_ms, created, last_used, id)"
	             " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12)"
	             " ON CONFLICT(id) DO UPDATE SET key = excluded.key,"
	             " signature = excluded.signature,"
	             " options = excluded.options, arch = excluded.arch, nvrtc = excluded.nvrtc,"
	             " lowered_name = excluded.lowered_name, cubin = excluded.cubin,"
	             " size = excluded.size, checksum = excluded.checksum,"
	             " compile_ms = excluded.compile_ms, created = excluded.created,"
	             " last_used = excluded.last_used");
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s->bin_put, 1, b->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->bin_put, 2, b->signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->bin_put, 3, b->options, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->bin_put, 4, b->arch, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->bin_put, 5, b->nvrtc, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->bin_put, 6, b->lowered_name, -1, SQLITE_STATIC);
		sqlite3_bind_blob64(s->bin_put, 7, b->cubin, b->size, SQLITE_STATIC);
		sqlite3_bind_int64(s->bin_put, 8, (sqlite3_int64)b->size);
		sqlite3_bind_text(s->bin_put, 9, sum, -1, SQLITE_STATIC);
		sqlite3_bind_double(s->bin_put, 10, b->compile_ms);
		sqlite3_bind_double(s->bin_put, 11, now);
		sqlite3_bind_int64(s->bin_put, 12, key_id(b->key));
		rc = sqlite3_step(s->bin_put);
	}
	if (rc != SQLITE_DONE)
		return kjit__store_fail(s, rc, "storing the binary");
	if (b->manifest) {
		rc = prepare(s, &s->manifest_put,
		             "INSERT INTO manifests(key, base_key, files, created) VALUES(?1, ?2, ?3, ?4)"
		             " ON CONFLICT(key) DO UPDATE SET base_key = excluded.base_key,"
		             " files = excluded.files, created = excluded.created");
		if (rc == SQLITE_OK) {
			sqlite3_bind_text(s->manifest_put, 1, b->key, -1, SQLITE_STATIC);
			sqlite3_bind_text(s->manifest_put, 2, b->base_key, -1, SQLITE_STATIC);
			sqlite3_bind_text(s->manifest_put, 3, b->manifest, -1, SQLITE_STATIC);
			sqlite3_bind_double(s->manifest_put, 4, now);
			rc = sqlite3_step(s->manifest_put);
		}
		if (rc != SQLITE_DONE)
			return kjit__store_fail(s, rc, "storing the binary's header manifest");
	}
	kjit_status st = write_touches(s, now);
	return st == KJIT_OK ? evict(s, a->max_bytes) : st;
}

kjit_status kjit__store_binary_put(kjit__store *s, const kjit__binary *b, int64_t max_bytes)
{
	struct put_args a = { b, max_bytes };
	kjit__store_lock(s);
	kjit_status st = kjit__store_transaction(s, put_in_tx, &a);
	kjit__store_unlock(s);
	return st;
}

static kjit_status delete_in_tx(kjit__store *s, void *arg)
{
	int rc = prepare(s, &s->bin_del, "DELETE FROM binaries WHERE id = ?1 AND key = ?2");
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s->bin_del, 1, key_id(arg));
		sqlite3_bind_text(s->bin_del, 2, arg, -1, SQLITE_STATIC);
		rc = sqlite3_step(s->bin_del);
	}
	return rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(s, rc, "deleting a binary");
}

kjit_status kjit__store_binary_delete(kjit__store *s, const char *key)
{
	kjit__store_lock(s);
	kjit_status st = kjit__store_transaction(s, delete_in_tx, (void *)key);
	kjit__store_unlock(s);
	return st;
}

void kjit__store_binary_touch(kjit__store *s, const char *key)
{
	kjit__store_lock(s);
	if (s->n_touches == s->cap_touches) {
		size_t cap = s->cap_touches ? 2 * s->cap_touches : 16;
		void *p = realloc(s->touches, cap * sizeof *s->touches);
		if (!p) { /* a lost touch only ages an entry early */
			kjit__store_unlock(s);
			return;
		}
		s->touches = p;
		s->cap_touches = cap;
	}
	memcpy(s->touches[s->n_touches++], key, 33);
	kjit__store_unlock(s);
}

static kjit_status touches_in_tx(kjit__store *s, void *arg)
{
	(void)arg;
	return write_touches(s, kjit__wall_time());
}

kjit_status kjit__store_flush_touches(kjit__store *s)
{
	kjit__store_lock(s);
	kjit_status st = s->n_touches ? kjit__store_transaction(s, touches_in_tx, NULL) : KJIT_OK;
	kjit__store_unlock(s);
	return st;
}
