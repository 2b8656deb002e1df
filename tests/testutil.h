/*
 * testutil.h - small helpers shared by the tests in tests/.
 *
 * Include it first in every test (it includes config.h). Everything here is
 * static so that each test stays one translation unit.
 *
 *  - CHECK(cond), CHECK_OK(call), CHECK_ST(call, status), CHECK_CONTAINS(s, sub),
 *    CHECK_SQL(rc): on failure print file:line, what failed and
 *    kjit_last_error(), then exit(1).
 *  - OK(fmt, ...): prints one line saying what was just checked.
 *  - tu_tmpdir(): a fresh mkdtemp folder, removed recursively at exit by the
 *    process that made it (not by forked children); KJIT_TEST_KEEP=1 keeps it.
 *  - tu_init(): names the test and clears the user's kjit settings from the
 *    environment (tu_clear_env()).
 *  - tu_skip_without_gpu(): exit 77 (the automake skip code) with the reason.
 *  - tu_saxpy_path(): examples/saxpy/saxpy.cu under $KJIT_SRCDIR.
 *  - tu_spawn_self(): fork + exec /proc/self/exe with a mode argument.
 *  - tu_db_*(): one-shot SQLite helpers, so that tests look at the file.
 */
#ifndef KJIT_TESTUTIL_H
#define KJIT_TESTUTIL_H

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tuning.h"
#include "kjit.h"

#define TU_PATH 4096

static const char *tu_prog = "test";

/* ---- checks --------------------------------------------------------------- */

static inline void tu_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static inline void tu_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s:%d: FAIL (%s, pid %ld): ", file, line, tu_prog, (long)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  kjit_last_error(): %s\n", kjit_last_error());
	fflush(stderr);
	exit(1);
}

#define TU_FAIL(...) tu_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond)                                                             \
	do {                                                                    \
		if (!(cond))                                                    \
			TU_FAIL("CHECK(%s)", #cond);                            \
	} while (0)

#define CHECK_MSG(cond, ...)                                                    \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "  ");                                  \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, "\n");                                  \
			TU_FAIL("CHECK(%s)", #cond);                            \
		}                                                               \
	} while (0)

#define CHECK_OK(call)                                                          \
	do {                                                                    \
		kjit_status tu_st_ = (call);                                    \
		if (tu_st_ != KJIT_OK)                                          \
			TU_FAIL("%s returned %s", #call, kjit_status_str(tu_st_)); \
	} while (0)

#define CHECK_ST(call, want)                                                    \
	do {                                                                    \
		kjit_status tu_st_ = (call);                                    \
		if (tu_st_ != (want))                                           \
			TU_FAIL("%s returned %s, expected %s", #call,           \
			        kjit_status_str(tu_st_), kjit_status_str(want)); \
	} while (0)

#define CHECK_CONTAINS(haystack, needle)                                        \
	do {                                                                    \
		const char *tu_h_ = (haystack), *tu_n_ = (needle);              \
		if (!tu_h_ || !strstr(tu_h_, tu_n_))                            \
			TU_FAIL("%s does not contain \"%s\"; it is:\n---\n%s\n---", \
			        #haystack, tu_n_, tu_h_ ? tu_h_ : "(null)");    \
	} while (0)

#define CHECK_STREQ(a, b)                                                       \
	do {                                                                    \
		const char *tu_a_ = (a), *tu_b_ = (b);                          \
		if (!tu_a_ || !tu_b_ || strcmp(tu_a_, tu_b_) != 0)              \
			TU_FAIL("%s == %s: \"%s\" vs \"%s\"", #a, #b,           \
			        tu_a_ ? tu_a_ : "(null)", tu_b_ ? tu_b_ : "(null)"); \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                      \
	do {                                                                    \
		unsigned long long tu_a_ = (unsigned long long)(a),             \
		                   tu_b_ = (unsigned long long)(b);             \
		if (tu_a_ != tu_b_)                                             \
			TU_FAIL("%s == %s: %llu vs %llu", #a, #b, tu_a_, tu_b_); \
	} while (0)

/* A SQLite call on db that must return want (SQLITE_OK, SQLITE_DONE, ...). */
#define CHECK_SQL(db, call, want)                                               \
	do {                                                                    \
		int tu_rc_ = (call);                                            \
		if (tu_rc_ != (want))                                           \
			TU_FAIL("%s returned %d (%s): %s", #call, tu_rc_,       \
			        sqlite3_errstr(tu_rc_),                          \
			        (db) ? sqlite3_errmsg(db) : "");                 \
	} while (0)

/* Says what was just checked. */
#define OK(...)                                                                 \
	do {                                                                    \
		printf("  ok: ");                                               \
		printf(__VA_ARGS__);                                            \
		printf("\n");                                                   \
		fflush(stdout);                                                 \
	} while (0)

/* ---- setup ---------------------------------------------------------------- */

/* Clears every kjit setting of the environment (KJIT__ENV_VARS in base.h),
 * so that the user's shell steers no test, except in a process this test
 * started itself (tu_spawn_self): it keeps what the test set for it.
 * KJIT_TEST_PARENT names the process whose children keep it. */
static inline void tu_clear_env(void)
{
	const char *marked = getenv("KJIT_TEST_PARENT");
	char pid[24];
	snprintf(pid, sizeof pid, "%ld", (long)getppid());
	if (!marked || strcmp(marked, pid) != 0) {
		const kjit__env_entry *vars = kjit__env_table();
		for (size_t i = 0; i < KJIT__ENV_COUNT; i++)
			if (vars[i].kind == KJIT__ENV_KIND_SETTING && unsetenv(vars[i].name) != 0)
				TU_FAIL("unsetenv(%s): %s", vars[i].name, strerror(errno));
	}
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (setenv("KJIT_TEST_PARENT", pid, 1) != 0)
		TU_FAIL("setenv(KJIT_TEST_PARENT): %s", strerror(errno));
}

static inline void tu_init(int argc, char **argv)
{
	(void)argc;
	const char *slash = argv && argv[0] ? strrchr(argv[0], '/') : NULL;
	tu_prog = slash ? slash + 1 : argv && argv[0] ? argv[0] : "test";
	/* lt- prefix of libtool's relinked binaries */
	if (strncmp(tu_prog, "lt-", 3) == 0)
		tu_prog += 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	tu_clear_env();
}

/* ---- temporary folders ------------------------------------------------------ */

static char tu_tmp_root[TU_PATH];
static pid_t tu_tmp_owner;

static inline int tu_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "%s: cannot remove %s: %s\n", tu_prog, path, strerror(errno));
	return 0;
}

static inline void tu_rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	/* Folders made 0000 or 0500 by a test would stop the walk. */
	(void)nftw(path, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void tu_tmp_cleanup(void)
{
	if (!tu_tmp_root[0] || getpid() != tu_tmp_owner)
		return;
	const char *keep = getenv("KJIT_TEST_KEEP");
	if (keep && *keep && strcmp(keep, "0") != 0) {
		fprintf(stderr, "%s: kept %s (KJIT_TEST_KEEP)\n", tu_prog, tu_tmp_root);
		return;
	}
	tu_rm_rf(tu_tmp_root);
}

/* A fresh private folder under $TMPDIR (or /tmp); static storage. */
static inline const char *tu_tmpdir(void)
{
	if (tu_tmp_root[0])
		return tu_tmp_root;
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(tu_tmp_root, sizeof tu_tmp_root, "%s/kjit-%s-XXXXXX", base, tu_prog);
	if (!mkdtemp(tu_tmp_root)) {
		int err = errno;
		tu_tmp_root[0] = '\0';
		TU_FAIL("mkdtemp under %s: %s", base, strerror(err));
	}
	tu_tmp_owner = getpid();
	atexit(tu_tmp_cleanup);
	return tu_tmp_root;
}

/* The strategy name (kjit's or a T1 name) with its default settings,
 * made once per process and freed at exit; name NULL frees them all. */
static inline void tu_strategies_free(void);
static inline const kjit_strategy *tu_strategy(const char *name)
{
	static kjit_strategy *made[16];
	static size_t n;
	if (!name) {
		while (n)
			kjit_strategy_free(made[--n]);
		return NULL;
	}
	const char *canonical = kjit_strategy_canonical(name);
	if (!canonical)
		TU_FAIL("no strategy %s", name);
	for (size_t i = 0; i < n; i++)
		if (strcmp(kjit_strategy_name(made[i]), canonical) == 0)
			return made[i];
	if (n == sizeof made / sizeof made[0])
		TU_FAIL("more than %zu strategies", n);
	kjit_strategy_options o;
	kjit_strategy_options_init(&o);
	o.name = canonical;
	if (kjit_strategy_new(&o, &made[n], NULL) != KJIT_OK)
		TU_FAIL("kjit_strategy_new(%s): %s", name, kjit_last_error());
	if (n == 0)
		atexit(tu_strategies_free);
	return made[n++];
}

static inline void tu_strategies_free(void)
{
	tu_strategy(NULL);
}

/* out = dir "/" name. */
static inline char *tu_path(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, TU_PATH, "%s/%s", dir, name);
	if (n < 0 || n >= TU_PATH)
		TU_FAIL("path too long: %s/%s", dir, name);
	return out;
}

static inline int tu_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The permission bits of path (-1 when it does not exist). */
static inline int tu_mode(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* ---- files ------------------------------------------------------------------ */

/* The whole file, NUL-terminated, malloc'ed; *len (may be NULL) its size. */
static inline char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		TU_FAIL("cannot open %s: %s", path, strerror(errno));
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	CHECK(buf != NULL);
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap) {
			if (ferror(f))
				TU_FAIL("cannot read %s", path);
			break;
		}
		cap *= 2;
		char *p = realloc(buf, cap + 1);
		CHECK(p != NULL);
		buf = p;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static inline void tu_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		TU_FAIL("cannot create %s: %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		TU_FAIL("cannot write %s", path);
}

/* ---- the example kernel ------------------------------------------------------- */

/* The source tree: $KJIT_SRCDIR (set by make check and by run-gpu-tests),
 * else the tree this test was configured from. */
static inline const char *tu_srcdir(void)
{
	const char *src = getenv("KJIT_SRCDIR");
#ifdef KJIT_TEST_SRCDIR
	if (!src || !*src)
		src = KJIT_TEST_SRCDIR;
#endif
	if (!src || !*src)
		TU_FAIL("KJIT_SRCDIR is not set: run the test through make check or "
		        "tests/run-gpu-tests, or set it to the source tree");
	return src;
}

static char tu_saxpy[TU_PATH];

/* examples/saxpy/saxpy.cu of the source tree. */
static inline const char *tu_saxpy_path(void)
{
	if (tu_saxpy[0])
		return tu_saxpy;
	snprintf(tu_saxpy, sizeof tu_saxpy, "%s/examples/saxpy/saxpy.cu", tu_srcdir());
	if (!tu_exists(tu_saxpy))
		TU_FAIL("%s not found (the source tree: KJIT_SRCDIR)", tu_saxpy);
	return tu_saxpy;
}

static const char *const tu_saxpy_params[] = { "BLOCK_SIZE", "ITEMS_PER_THREAD" };
static const int tu_saxpy_blocks[] = { 64, 128, 256, 512, 1024 };
#define TU_SAXPY_N_BLOCKS 5
#define TU_SAXPY_MAX_ITEMS 8
#define TU_SAXPY_N_VARIANTS (TU_SAXPY_N_BLOCKS * TU_SAXPY_MAX_ITEMS)

/* A saxpy variant description that owns its define strings. It points
 * into itself: initialise it in place and do not copy it. */
typedef struct tu_saxpy_variant {
	int block, items;
	char block_text[16], items_text[16];
	kjit_define defines[2];
	kjit_variant_desc desc;
} tu_saxpy_variant;

static inline void tu_saxpy_variant_init(tu_saxpy_variant *v, int block, int items)
{
	memset(v, 0, sizeof *v);
	v->block = block;
	v->items = items;
	snprintf(v->block_text, sizeof v->block_text, "%d", block);
	snprintf(v->items_text, sizeof v->items_text, "%d", items);
	v->defines[0].name = "BLOCK_SIZE";
	v->defines[0].value = v->block_text;
	v->defines[1].name = "ITEMS_PER_THREAD";
	v->defines[1].value = v->items_text;
	v->desc.defines = v->defines;
	v->desc.n_defines = 2;
}

/* Variant i of the full space, i in [0, 40): block-major. */
static inline void tu_saxpy_variant_nth(tu_saxpy_variant *v, int i)
{
	tu_saxpy_variant_init(v, tu_saxpy_blocks[i / TU_SAXPY_MAX_ITEMS],
	                      i % TU_SAXPY_MAX_ITEMS + 1);
}

static inline kjit_kernel *tu_saxpy_kernel(kjit_engine *e)
{
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_from_file(e, "saxpy", tu_saxpy_path(), tu_saxpy_params, 2, &k));
	CHECK(k != NULL);
	return k;
}

/* A stored configuration's values as text, as kjit_space_find_text()
 * asks for them (tu_text_of()): one per parameter, each ask counted. */
typedef struct tu_texts {
	const char *v[4];
	size_t asked;
} tu_texts;

static inline const char *tu_text_of(void *ctx, size_t i)
{
	tu_texts *t = ctx;
	t->asked++;
	return t->v[i];
}

/* ---- engines ------------------------------------------------------------------ */

/* A compile-only engine (KJIT_ENGINE_NO_GPU) for arch on db_path. */
static inline kjit_engine *tu_engine_cpu(const char *db_path, const char *arch, int threads)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db_path;
	o.arch = arch;
	o.compile_threads = threads;
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK(e != NULL);
	CHECK(!kjit_engine_has_gpu(e));
	return e;
}

static inline kjit_engine_stats tu_stats(const kjit_engine *e)
{
	kjit_engine_stats s;
	CHECK_OK(kjit_engine_get_stats(e, &s));
	return s;
}

/* GPU tests: exit 77 (automake's skip) when the engine could not get a GPU.
 * st is what kjit_engine_open() returned; e may be NULL. */
static inline void tu_skip_without_gpu(kjit_status st, kjit_engine *e)
{
	if (st == KJIT_ERR_NO_GPU) {
		/* the library's message less its hint to give an arch: a GPU
		 * test needs a GPU, not an arch */
		const char *m = kjit_last_error(), *hint = strstr(m, " and no target arch");
		printf("SKIP: needs a GPU: %.*s\n", hint ? (int)(hint - m) : (int)strlen(m), m);
		exit(77);
	}
	if (st == KJIT_OK && e && !kjit_engine_has_gpu(e)) {
		printf("SKIP: needs a GPU: no GPU (%s)\n", kjit_engine_gpu_reason(e));
		kjit_engine_close(e);
		exit(77);
	}
}

/* GPU tests of the tools: exit 77 unless an engine on ":memory:" gets a GPU;
 * prints the device. */
static inline void tu_require_gpu(void)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	printf("device: %s (%s)\n", kjit_engine_device_name(e), kjit_engine_arch(e));
	kjit_engine_close(e);
}

/* The built kjit-tune ($KJIT_BUILDDIR, else the current folder) into out
 * (TU_PATH bytes); fails the test when it is not built. */
static inline char *tu_kjit_tune(char *out)
{
	const char *build = getenv("KJIT_BUILDDIR");
	tu_path(out, build && *build ? build : ".", "autotune/kjit-tune");
	CHECK_MSG(tu_exists(out), "%s not built", out);
	return out;
}

/* ---- cubins ------------------------------------------------------------------- */

/* An ELF image for the CUDA machine (EM_CUDA = 190). */
static inline int tu_is_cuda_elf(const void *data, size_t size)
{
	const unsigned char *p = data;
	return size >= 64 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F' &&
	       p[18] == 190 && p[19] == 0;
}

static inline int tu_is_hex32(const char *s)
{
	if (!s || strlen(s) != 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* ---- processes ---------------------------------------------------------------- */

static inline int tu_wait(pid_t pid)
{
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			TU_FAIL("waitpid(%ld): %s", (long)pid, strerror(errno));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s: child %ld killed by signal %d\n", tu_prog, (long)pid,
		        WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return 255;
}

/* Runs this program again as `argv0 mode arg` (arg may be NULL) and
 * returns its exit code. /proc/self/exe is the real binary even under a
 * libtool wrapper, and the environment (LD_LIBRARY_PATH included) is
 * inherited: tu_init() in the child keeps the settings this test made. */
static inline int tu_spawn_self(const char *argv0, const char *mode, const char *arg)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		TU_FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		char *args[4] = { (char *)argv0, (char *)mode, (char *)arg, NULL };
		execv("/proc/self/exe", args);
		fprintf(stderr, "%s: execv /proc/self/exe: %s\n", tu_prog, strerror(errno));
		_exit(127);
	}
	return tu_wait(pid);
}

/* ---- SQLite, straight on the file ------------------------------------------------ */

static inline sqlite3 *tu_db_open(const char *path)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK)
		TU_FAIL("sqlite3_open_v2(%s): %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	sqlite3_busy_timeout(db, 10000);
	return db;
}

static inline void tu_db_close(sqlite3 *db)
{
	CHECK_SQL(db, sqlite3_close(db), SQLITE_OK);
}

static inline void tu_db_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		TU_FAIL("%s: %s", sql, msg ? msg : sqlite3_errstr(rc));
}

/* The integer in the first column of the only row of sql (with one text
 * parameter bound when param is not NULL). */
static inline long long tu_db_int(sqlite3 *db, const char *sql, const char *param)
{
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (param)
		CHECK_SQL(db, sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT), SQLITE_OK);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	return v;
}

/* Copies the text in the first column of the only row of sql into out. */
static inline char *tu_db_text(sqlite3 *db, const char *sql, const char *param, char *out,
                               size_t size)
{
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (param)
		CHECK_SQL(db, sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT), SQLITE_OK);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_ROW);
	const char *t = (const char *)sqlite3_column_text(st, 0);
	snprintf(out, size, "%s", t ? t : "");
	CHECK_SQL(db, sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	return out;
}

/* Writes text as dir/bad.json, loads it as a spec, and checks that it
 * fails naming the file, the field and the expectation. */
static inline void tu_spec_refused(const char *dir, const char *text, const char *field,
                                   const char *expect)
{
	char path[TU_PATH];
	kjit__spec *spec = NULL;
	tu_path(path, dir, "bad.json");
	tu_write_file(path, text, strlen(text));
	kjit_status st = kjit__spec_load(path, &spec);
	CHECK_MSG(st != KJIT_OK, "accepted: %s", text);
	CHECK(spec == NULL);
	const char *msg = kjit_last_error();
	CHECK_CONTAINS(msg, path);
	CHECK_CONTAINS(msg, field);
	CHECK_CONTAINS(msg, expect);
	OK("refused (%s): %s", field, msg);
}

/* json_extract(json, path) as text, "(null)" where the path is absent; in
 * a static buffer, good until the next call. */
static inline const char *tu_json_get(const char *json, const char *path)
{
	static sqlite3 *mem;
	static char val[8192];
	sqlite3_stmt *st = NULL;
	if (!mem)
		CHECK(sqlite3_open(":memory:", &mem) == SQLITE_OK);
	CHECK_SQL(mem, sqlite3_prepare_v2(mem, "SELECT json_extract(?1, ?2)", -1, &st, NULL),
	          SQLITE_OK);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	CHECK_MSG(sqlite3_step(st) == SQLITE_ROW, "json_extract %s: %s", path, sqlite3_errmsg(mem));
	const unsigned char *t = sqlite3_column_text(st, 0);
	snprintf(val, sizeof val, "%s", t ? (const char *)t : "(null)");
	sqlite3_finalize(st);
	return val;
}

static inline long tu_json_int(const char *json, const char *path)
{
	return atol(tu_json_get(json, path));
}

/* The blob in column 0 of the only row of sql, malloc'ed. */
static inline void *tu_db_blob(sqlite3 *db, const char *sql, const char *param, size_t *size)
{
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (param)
		CHECK_SQL(db, sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT), SQLITE_OK);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_ROW);
	size_t n = (size_t)sqlite3_column_bytes(st, 0);
	const void *b = sqlite3_column_blob(st, 0);
	void *copy = malloc(n ? n : 1);
	CHECK(copy != NULL);
	if (n)
		memcpy(copy, b, n);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	*size = n;
	return copy;
}

/* Whether a row with this key is in the binaries table. */
static inline int tu_db_has_binary(sqlite3 *db, const char *key)
{
	return tu_db_int(db, "SELECT count(*) FROM binaries WHERE key = ?1", key) == 1;
}

static inline double tu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs a shell command: its stdout (up to cap - 1 bytes, NUL-ended) into
 * out; returns its exit status (a death by signal fails the test). */
static inline int tu_run(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	CHECK_MSG(p != NULL, "popen(%s)", cmd);
	size_t len = fread(out, 1, cap - 1, p);
	out[len] = '\0';
	int status = pclose(p);
	CHECK_MSG(WIFEXITED(status), "%s: status 0x%x", cmd, status);
	return WEXITSTATUS(status);
}

/* Writes text to dir/name and reads it as a kjit-tune spec. */
static inline kjit__spec *tu_spec_from(const char *dir, const char *name, const char *text)
{
	char path[TU_PATH];
	kjit__spec *spec;
	tu_path(path, dir, name);
	tu_write_file(path, text, strlen(text));
	CHECK_OK(kjit__spec_load(path, &spec));
	return spec;
}

/* The space the strategy tests search: A and B in 0..9, C in 0..5, with
 * (A + B) % 3 != 1 (402 configurations), from dir/name; *spec is the
 * caller's to free after the space. */
static inline kjit__space *tu_abc_space(const char *dir, const char *name, kjit__spec **spec)
{
	*spec = tu_spec_from(dir, name,
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": ["
		"  {\"name\": \"A\", \"values\": [0,1,2,3,4,5,6,7,8,9]},"
		"  {\"name\": \"B\", \"values\": [0,1,2,3,4,5,6,7,8,9]},"
		"  {\"name\": \"C\", \"values\": [0,1,2,3,4,5]}],"
		" \"restrictions\": [\"(A + B) % 3 != 1\"]}");
	kjit__space *space;
	CHECK_OK(kjit__space_build(*spec, 0, NULL, &space));
	return space;
}

#endif /* KJIT_TESTUTIL_H */
