/*
 * fuzz-store: libFuzzer target for the store's readers of rows that other
 * processes write (binaries, kernels, manifests, best, profiles). Each
 * input starts from well-formed rows, written by the store itself, then
 * rewrites columns as the input says, with any SQLite type (NULL, integer,
 * real, text, blob; a checksum that matches a rewritten cubin), and runs every
 * read path on them: a binary's lookup, its whole row, the manifest of a
 * base key, and a kernel's best rows parsed against its spec, with each
 * one's profile. Each text is also handed to the record room as a
 * result's configuration, which it stores only in the store's form (a
 * JSON object, sorted keys, no spaces) and otherwise refuses.
 *
 * Input: records of 4 bytes and data: table, column, type, length, then
 * length bytes.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "tuning.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define KEY "0123456789abcdef0123456789abcdef"
#define BASE "fedcba9876543210fedcba9876543210"
#define SIG "sig"

static const struct {
	const char *table;
	const char *const columns[14];
} tables[] = {
	{ "binaries", { "id", "key", "signature", "options", "arch", "nvrtc", "lowered_name", "size",
	                "checksum", "compile_ms", "created", "last_used", "cubin" } },
	{ "kernels", { "signature", "name", "source", "params", "created" } },
	{ "manifests", { "key", "base_key", "files", "created" } },
	{ "best", { "signature", "device_key", "problem", "arch", "config", "result_id",
	            "median_ns", "nvrtc", "stale", "updated" } },
	{ "profiles", { "result_id", "dram_read_bytes", "flop_fp32", "passes", "registers",
	                "energy_j", "counters_reason", "energy_reason", "created" } },
};

/* The store's own rows: a binary with its kernel and manifest, a best row
 * and its result's profile (as kjit-tune --profile writes it). */
static void write_rows(kjit__store *s)
{
	static const char cubin[] = "\x7f" "ELF fuzz";
	kjit__binary b = { .key = KEY, .signature = SIG, .kernel_name = "k", .source = "src",
		           .params = "B", .options = "-DB=64", .arch = "sm_90", .nvrtc = "12.4",
		           .lowered_name = "k", .cubin = cubin, .size = sizeof cubin,
		           .compile_ms = 1, .base_key = BASE, .manifest = "- - - a.h\n" };
	if (kjit__store_binary_put(s, &b, 0) != KJIT_OK)
		abort();
	double samples[2] = { 1, 2 };
	kjit_eval t = { .config = "{\"B\":64}", .status = KJIT_RESULT_OK, .binary_key = KEY,
		         .timer = "events", .median_ns = 1.5, .objective = 1.5,
		         .compile_ms = NAN, .message = "online", .samples = samples, .n_samples = 2,
		         .arch = "sm_90",
		         .nvrtc = kjit_nvrtc_id() };
	if (kjit__record_search(s, SIG, "sm_90|fuzz|1|1", "{\"n\":1024}", KJIT_OBJECTIVE_TIME, &t, 1,
	                        0) != KJIT_OK)
		abort();
	if (sqlite3_exec(kjit__store_db(s), "INSERT INTO profiles(result_id, dram_read_bytes,"
	                 " flop_fp32, passes, registers, energy_j, counters_reason, energy_reason,"
	                 " created) SELECT result_id, 8e6, 2e6, 9, 32, 0.1, '', '', 0 FROM best",
	                 NULL, NULL, NULL) != SQLITE_OK)
		abort();
}

/* A text as a result's configuration: refused, or stored as a JSON
 * object. */
static void record_config(kjit__store *s, const unsigned char *v, size_t len)
{
	char *text = malloc(len + 1);
	if (!text)
		abort();
	memcpy(text, v, len);
	text[len] = '\0';
	kjit_eval t = { .config = text, .status = KJIT_RESULT_OK, .timer = "events",
		        .median_ns = 2, .objective = 2, .compile_ms = NAN, .arch = "sm_90",
		        .nvrtc = kjit_nvrtc_id() };
	kjit_status st = kjit__record_search(s, SIG, "sm_90|fuzz|1|1", "{\"n\":1024}",
	                                     KJIT_OBJECTIVE_TIME, &t, 1, 0);
	if (st == KJIT_OK) { /* the text up to its first NUL, as a C string is read */
		kjit__json *j = NULL;
		if (kjit__json_parse(text, strlen(text), "config", &j) != KJIT_OK ||
		    j->type != KJIT__JSON_OBJECT)
			abort();
		kjit__json_free(j);
	}
	free(text);
}

/* Rewrites one column as a record says; the length of the record read. */
static size_t rewrite(kjit__store *s, const unsigned char *d, size_t n)
{
	sqlite3 *db = kjit__store_db(s);
	if (n < 4)
		return n;
	size_t t = d[0] % (sizeof tables / sizeof tables[0]), c = d[1], len = d[3];
	size_t cols = 0;
	while (cols < 14 && tables[t].columns[cols])
		cols++;
	c %= cols;
	if (len > n - 4)
		len = n - 4;
	const unsigned char *v = d + 4;
	char sql[128];
	snprintf(sql, sizeof sql, "UPDATE %s SET %s = ?1", tables[t].table, tables[t].columns[c]);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		abort();
	char sum[33];
	long long i = 0;
	switch (d[2] % 6) {
	case 0: sqlite3_bind_null(st, 1); break;
	case 1:
		memcpy(&i, v, len < sizeof i ? len : sizeof i);
		sqlite3_bind_int64(st, 1, i);
		break;
	case 2: {
		double x = 0;
		memcpy(&x, v, len < sizeof x ? len : sizeof x);
		sqlite3_bind_double(st, 1, x);
		break;
	}
	case 3:
		sqlite3_bind_text(st, 1, (const char *)v, (int)len, SQLITE_TRANSIENT);
		record_config(s, v, len);
		break;
	case 4: sqlite3_bind_blob(st, 1, v, (int)len, SQLITE_TRANSIENT); break;
	default: /* a cubin's checksum, so that a rewritten cubin reads */
		kjit__store_checksum(v, len, sum);
		sqlite3_bind_text(st, 1, sum, -1, SQLITE_TRANSIENT);
	}
	(void)sqlite3_step(st); /* a NOT NULL or UNIQUE column may refuse it */
	sqlite3_finalize(st);
	return 4 + len;
}

static void read_rows(kjit__store *s, const kjit__spec *spec)
{
	void *cubin, *mem;
	size_t size;
	char *lowered, *manifest, checksum[33];
	double ms;
	if (kjit__store_binary_get(s, KEY, &cubin, &size, &lowered, &ms) == KJIT_OK) {
		free(cubin);
		free(lowered);
	}
	kjit__binary b;
	(void)kjit__store_binary_read(s, KEY, &b, checksum, &mem);
	free(mem);
	if (kjit__store_manifest_get(s, BASE, &manifest) == KJIT_OK)
		free(manifest);
	static const char *const names[] = { "n" };
	kjit__best_row *rows;
	size_t n;
	if (kjit__store_best_read(s, spec, names, 1, SIG, "sm_90", &rows, &n) == KJIT_OK) {
		for (size_t i = 0; i < n; i++)
			(void)kjit__store_best_profile(s, &rows[i]);
		kjit__best_rows_free(rows, n);
	}
}

/* A fresh database at path (any file there removed first). */
static kjit__store *fresh_store(const char *path)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	kjit__store *s;
	for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
		char p[160];
		snprintf(p, sizeof p, "%s%s", path, sides[i]);
		(void)unlink(p);
	}
	if (kjit__store_open(path, &s) != KJIT_OK)
		abort();
	sqlite3_exec(kjit__store_db(s), "PRAGMA synchronous = OFF", NULL, NULL, NULL);
	return s;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static kjit__store *s;
	static kjit__spec *spec;
	static char db_path[96];
	if (!s) {
		char dir[64], path[96];
		snprintf(dir, sizeof dir, "/tmp/kjit-fuzz-store-%ld", (long)getpid());
		if (mkdir(dir, 0700) != 0)
			abort();
		snprintf(path, sizeof path, "%s/k.cu", dir);
		FILE *f = fopen(path, "w");
		if (!f || fputs("extern \"C\" __global__ void k() {}\n", f) < 0 || fclose(f))
			abort();
		snprintf(path, sizeof path, "%s/spec.json", dir);
		f = fopen(path, "w");
		if (!f || fputs("{ \"kernel\": { \"source\": \"k.cu\", \"entry\": \"k\" },\n"
		                "  \"parameters\": [ { \"name\": \"B\", \"values\": [64, 128] } ],\n"
		                "  \"problems\": [ { \"n\": 1024 } ] }\n", f) < 0 || fclose(f))
			abort();
		if (kjit__spec_load(path, &spec) != KJIT_OK)
			abort();
		snprintf(db_path, sizeof db_path, "%s/kjit.db", dir);
		s = fresh_store(db_path);
	}
	/* rows that a rewrite left undeletable would stop every later input:
	 * start again from a fresh database then */
	if (sqlite3_exec(kjit__store_db(s), "DELETE FROM profiles; DELETE FROM best; DELETE FROM results;"
	                 " DELETE FROM manifests; DELETE FROM binaries; DELETE FROM kernels;",
	                 NULL, NULL, NULL) != SQLITE_OK) {
		(void)kjit__store_close(s);
		s = fresh_store(db_path);
	}
	write_rows(s);
	for (size_t at = 0; at < size;)
		at += rewrite(s, data + at, size - at);
	read_rows(s, spec);
	return 0;
}
