/*
 * test-nvtx: the NVTX ranges of cupti/nvtx.c, seen by a tool. No GPU, no
 * driver: NVTX needs neither.
 *
 * tests/libnvtx-inject.so (tests/nvtx-inject.c) is an NVTX injection
 * library that writes every NVTX call to $KJIT_NVTX_LOG; the test points
 * $NVTX_INJECTION64_PATH at it before the first NVTX call and reads the
 * log back:
 *
 *  1. one thread, kjit__nvtx_* called directly: lookup > mark "miss" and
 *     compile nested in it, lookups with "hit: memory" and "hit: disk",
 *     load, tune > evaluate, evaluate, a detail too long for the name
 *     buffer, a mark without a message. The log holds the domain "kjit"
 *     created once, a named category per kind (1 compile .. 5 evaluate),
 *     a registered string per kind name, and exactly the expected pushes,
 *     marks and pops, each in the domain with its kind's category and
 *     colour, "<kind> <detail>" as an ASCII message or the registered
 *     kind name when the detail is NULL, at the right nesting level;
 *  2. two threads (a child process, so that they race on NVTX's and
 *     kjit's first call) push, mark and pop 200 nestings each: one domain,
 *     per thread push/pop order intact, every event on its own thread;
 *  3. no tool (a child without $NVTX_INJECTION64_PATH): the same calls
 *     are no-ops, nothing is logged, and a million push + mark + pop with
 *     a long detail take next to nothing (the time is printed; the bound
 *     checked is loose, 1 us for the three, for sanitizer builds);
 *  4. the engine (sm_90, KJIT_ENGINE_NO_GPU, a temporary database):
 *     compile saxpy, get it again, reopen and get it again: the lookups
 *     that reach the database are marked "miss" then "hit: disk", each
 *     inside a lookup range (memory hits are not marked), a compile range
 *     names saxpy, all in the domain with their kind's colours, balanced
 *     per thread.
 */
#include "testutil.h"

#include <pthread.h>

#include "instr.h"

/* The palette of cupti/nvtx.c, by category (= kjit__nvtx_kind). */
static const char *const kind_name[KJIT__NVTX_KIND_COUNT] = {
	[KJIT__NVTX_COMPILE] = "compile", [KJIT__NVTX_LOOKUP] = "lookup",
	[KJIT__NVTX_LOAD] = "load",       [KJIT__NVTX_TUNE] = "tune",
	[KJIT__NVTX_EVALUATE] = "evaluate",
};
static const char *const kind_colour[KJIT__NVTX_KIND_COUNT] = {
	[KJIT__NVTX_COMPILE] = "0xFF0072B2", [KJIT__NVTX_LOOKUP] = "0xFF009E73",
	[KJIT__NVTX_LOAD] = "0xFFE69F00",    [KJIT__NVTX_TUNE] = "0xFFCC79A7",
	[KJIT__NVTX_EVALUATE] = "0xFFD55E00",
};

/* ---- the log ---------------------------------------------------------------- */

#define MAX_FIELDS 8

/* One line of the log, split at tabs (see tests/nvtx-inject.c). */
typedef struct rec {
	char *f[MAX_FIELDS];
	int n;
	int line;
} rec;

typedef struct log_t {
	char *text;
	rec *r;
	size_t n;
} log_t;

static void log_load(log_t *lg, const char *path)
{
	lg->text = tu_read_file(path, NULL);
	size_t cap = 64;
	lg->r = malloc(cap * sizeof *lg->r);
	lg->n = 0;
	CHECK(lg->r != NULL);
	char *p = lg->text;
	int line = 0;
	while (*p) {
		char *nl = strchr(p, '\n');
		CHECK_MSG(nl != NULL, "log line %d has no newline: %s", line + 1, p);
		*nl = '\0';
		if (lg->n == cap) {
			cap *= 2;
			rec *r = realloc(lg->r, cap * sizeof *r);
			CHECK(r != NULL);
			lg->r = r;
		}
		rec *r = &lg->r[lg->n++];
		r->n = 0;
		r->line = ++line;
		char *field = p;
		for (;;) {
			char *tab = strchr(field, '\t');
			CHECK_MSG(r->n < MAX_FIELDS, "log line %d has too many fields", line);
			r->f[r->n++] = field;
			if (!tab)
				break;
			*tab = '\0';
			field = tab + 1;
		}
		p = nl + 1;
	}
}

static void log_free(log_t *lg)
{
	free(lg->r);
	free(lg->text);
	memset(lg, 0, sizeof *lg);
}

static int is(const rec *r, const char *what)
{
	return strcmp(r->f[0], what) == 0;
}

static int num(const rec *r, int i)
{
	CHECK_MSG(i < r->n, "log line %d (%s) has no field %d", r->line, r->f[0], i);
	return atoi(r->f[i]);
}

/* Event lines: push/mark: what thread domain level category colour type msg;
 * pop: what thread domain level. */
enum { F_THREAD = 1, F_DOMAIN, F_LEVEL, F_CATEGORY, F_COLOUR, F_TYPE, F_MSG };

static int is_event(const rec *r)
{
	return is(r, "push") || is(r, "pop") || is(r, "mark");
}

static void print_rec(const rec *r)
{
	fprintf(stderr, "  log line %d:", r->line);
	for (int i = 0; i < r->n; i++)
		fprintf(stderr, " [%s]", r->f[i]);
	fprintf(stderr, "\n");
}

/*
 * The setup a first kjit__nvtx_* call makes, in lines [from, to): the
 * tool attached, one domain "kjit", a category and a registered string
 * per kind, and no other domain. Returns the domain id.
 */
static int check_setup(const log_t *lg, size_t from, size_t to)
{
	int attached = 0, domain = -1, categories = 0, strings = 0;
	for (size_t i = from; i < to; i++) {
		const rec *r = &lg->r[i];
		if (is(r, "attached")) {
			attached++;
		} else if (is(r, "domain")) {
			CHECK_MSG(domain < 0, "a second domain was created (line %d)", r->line);
			CHECK(r->n == 3);
			CHECK_STREQ(r->f[2], "kjit");
			domain = num(r, 1);
			CHECK(domain > 0);
		}
	}
	CHECK_MSG(attached == 1, "the injection library attached %d times", attached);
	CHECK_MSG(domain > 0, "no domain was created");
	for (size_t i = from; i < to; i++) {
		const rec *r = &lg->r[i];
		if (is(r, "category")) {
			CHECK(r->n == 4);
			CHECK(num(r, 1) == domain);
			int c = num(r, 2);
			CHECK_MSG(c >= 1 && c < KJIT__NVTX_KIND_COUNT, "category %d", c);
			CHECK_STREQ(r->f[3], kind_name[c]);
			CHECK_MSG(!(categories & (1 << c)), "category %d named twice", c);
			categories |= 1 << c;
		} else if (is(r, "string")) {
			CHECK(r->n == 4);
			CHECK(num(r, 1) == domain);
			int found = 0;
			for (int k = 1; k < KJIT__NVTX_KIND_COUNT; k++)
				if (strcmp(r->f[3], kind_name[k]) == 0) {
					CHECK_MSG(!(strings & (1 << k)), "%s registered twice",
					          kind_name[k]);
					strings |= 1 << k;
					found = 1;
				}
			CHECK_MSG(found, "registered string \"%s\"", r->f[3]);
		} else if (is(r, "destroy")) {
			TU_FAIL("the domain was destroyed (line %d)", r->line);
		}
	}
	int all = ((1 << KJIT__NVTX_KIND_COUNT) - 1) & ~1;
	CHECK_MSG(categories == all, "categories named: mask 0x%x", categories);
	CHECK_MSG(strings == all, "strings registered: mask 0x%x", strings);
	return domain;
}

/* A push or mark carries kind's category and colour, in domain. */
static void check_kind(const rec *r, int domain)
{
	CHECK(r->n == F_MSG + 1);
	CHECK_MSG(num(r, F_DOMAIN) == domain, "line %d: domain %d, not kjit's %d", r->line,
	          num(r, F_DOMAIN), domain);
	int c = num(r, F_CATEGORY);
	CHECK_MSG(c >= 1 && c < KJIT__NVTX_KIND_COUNT, "line %d: category %d", r->line, c);
	CHECK_MSG(strcmp(r->f[F_COLOUR], kind_colour[c]) == 0, "line %d: colour %s for %s",
	          r->line, r->f[F_COLOUR], kind_name[c]);
	if (is(r, "push")) {
		/* "<kind name>" (registered) or "<kind name> <detail>" (ASCII). */
		size_t len = strlen(kind_name[c]);
		if (strcmp(r->f[F_TYPE], "registered") == 0)
			CHECK_STREQ(r->f[F_MSG], kind_name[c]);
		else
			CHECK_MSG(strcmp(r->f[F_TYPE], "ascii") == 0 &&
			                  strncmp(r->f[F_MSG], kind_name[c], len) == 0 &&
			                  r->f[F_MSG][len] == ' ',
			          "line %d: %s range named \"%s\" (%s)", r->line, kind_name[c],
			          r->f[F_MSG], r->f[F_TYPE]);
	}
}

/* ---- 1. one thread -------------------------------------------------------------- */

typedef struct expect {
	const char *what;
	int level;            /* before a push or mark, after a pop */
	kjit__nvtx_kind kind; /* push, mark */
	const char *type;     /* push, mark */
	const char *msg;      /* push, mark; NULL: checked elsewhere */
} expect;

static const expect pattern[] = {
	{ "push", 0, KJIT__NVTX_LOOKUP, "ascii", "lookup saxpy sm_90" },
	{ "mark", 1, KJIT__NVTX_LOOKUP, "ascii", "miss" },
	{ "push", 1, KJIT__NVTX_COMPILE, "ascii", "compile saxpy BLOCK_SIZE=256 ITEMS_PER_THREAD=4" },
	{ "pop", 1, 0, NULL, NULL },
	{ "pop", 0, 0, NULL, NULL },
	{ "push", 0, KJIT__NVTX_LOOKUP, "ascii", "lookup saxpy sm_90" },
	{ "mark", 1, KJIT__NVTX_LOOKUP, "ascii", "hit: memory" },
	{ "pop", 0, 0, NULL, NULL },
	{ "push", 0, KJIT__NVTX_LOOKUP, "ascii", "lookup saxpy sm_90" },
	{ "mark", 1, KJIT__NVTX_LOOKUP, "ascii", "hit: disk" },
	{ "pop", 0, 0, NULL, NULL },
	{ "push", 0, KJIT__NVTX_LOAD, "registered", "load" },
	{ "pop", 0, 0, NULL, NULL },
	{ "push", 0, KJIT__NVTX_TUNE, "ascii", "tune saxpy run 1" },
	{ "push", 1, KJIT__NVTX_EVALUATE, "ascii", "evaluate BLOCK_SIZE=64" },
	{ "pop", 1, 0, NULL, NULL },
	{ "push", 1, KJIT__NVTX_EVALUATE, "ascii", "evaluate BLOCK_SIZE=128" },
	{ "pop", 1, 0, NULL, NULL },
	{ "pop", 0, 0, NULL, NULL },
	{ "push", 0, KJIT__NVTX_COMPILE, "ascii", NULL }, /* the long detail */
	{ "pop", 0, 0, NULL, NULL },
	{ "mark", 0, KJIT__NVTX_LOOKUP, "registered", "lookup" },
};
#define N_PATTERN (sizeof pattern / sizeof pattern[0])

static void run_pattern(const char *long_detail)
{
	kjit__nvtx_push(KJIT__NVTX_LOOKUP, "saxpy sm_90");
	kjit__nvtx_mark(KJIT__NVTX_LOOKUP, "miss");
	kjit__nvtx_push(KJIT__NVTX_COMPILE, "saxpy BLOCK_SIZE=256 ITEMS_PER_THREAD=4");
	kjit__nvtx_pop();
	kjit__nvtx_pop();
	kjit__nvtx_push(KJIT__NVTX_LOOKUP, "saxpy sm_90");
	kjit__nvtx_mark(KJIT__NVTX_LOOKUP, "hit: memory");
	kjit__nvtx_pop();
	kjit__nvtx_push(KJIT__NVTX_LOOKUP, "saxpy sm_90");
	kjit__nvtx_mark(KJIT__NVTX_LOOKUP, "hit: disk");
	kjit__nvtx_pop();
	kjit__nvtx_push(KJIT__NVTX_LOAD, NULL);
	kjit__nvtx_pop();
	kjit__nvtx_push(KJIT__NVTX_TUNE, "saxpy run 1");
	kjit__nvtx_push(KJIT__NVTX_EVALUATE, "BLOCK_SIZE=64");
	kjit__nvtx_pop();
	kjit__nvtx_push(KJIT__NVTX_EVALUATE, "BLOCK_SIZE=128");
	kjit__nvtx_pop();
	kjit__nvtx_pop();
	kjit__nvtx_push(KJIT__NVTX_COMPILE, long_detail);
	kjit__nvtx_pop();
	kjit__nvtx_mark(KJIT__NVTX_LOOKUP, NULL);
}

/* Runs the pattern on this thread; returns kjit's domain id. *end: the
 * log lines read so far. */
static int test_one_thread(const char *log_path, size_t *end)
{
	/* Longer than the 512-byte name buffer, with a 2-byte UTF-8 character
	 * ("é") straddling the cut. */
	static char long_detail[1200];
	memset(long_detail, 'x', sizeof long_detail - 1);
	long_detail[sizeof long_detail - 1] = '\0';
	/* "compile " is 8 bytes; the name keeps bytes [0, 508) then "...". */
	long_detail[507 - 8] = (char)0xC3;
	long_detail[508 - 8] = (char)0xA9;

	run_pattern(long_detail);

	log_t lg;
	log_load(&lg, log_path);
	int domain = check_setup(&lg, 0, lg.n);
	OK("one domain \"kjit\", categories 1..5 named compile, lookup, load, tune, evaluate, "
	   "each kind name registered");

	size_t k = 0;
	int thread = -1;
	for (size_t i = 0; i < lg.n; i++) {
		const rec *r = &lg.r[i];
		if (!is_event(r))
			continue;
		if (k == N_PATTERN) {
			print_rec(r);
			TU_FAIL("an event after the expected %zu", (size_t)N_PATTERN);
		}
		const expect *x = &pattern[k++];
		if (!is(r, x->what) || num(r, F_LEVEL) != x->level) {
			print_rec(r);
			TU_FAIL("event %zu: expected %s at level %d", k, x->what, x->level);
		}
		if (thread < 0)
			thread = num(r, F_THREAD);
		CHECK(num(r, F_THREAD) == thread);
		CHECK(num(r, F_DOMAIN) == domain);
		if (is(r, "pop"))
			continue;
		check_kind(r, domain);
		CHECK_MSG(num(r, F_CATEGORY) == (int)x->kind, "line %d: category %d, expected %d",
		          r->line, num(r, F_CATEGORY), (int)x->kind);
		CHECK_STREQ(r->f[F_TYPE], x->type);
		if (x->msg) {
			CHECK_STREQ(r->f[F_MSG], x->msg);
		} else {
			/* The long detail: cut before the "é" that would not fit
			 * whole, "..." added, 511 bytes in all at most. */
			const char *m = r->f[F_MSG];
			size_t len = strlen(m);
			CHECK_MSG(len == 507 + 3, "long name of %zu bytes", len);
			CHECK(strncmp(m, "compile xxx", 11) == 0);
			CHECK(strcmp(m + 507, "...") == 0);
			for (size_t j = 8; j < 507; j++)
				CHECK(m[j] == 'x');
		}
	}
	CHECK_MSG(k == N_PATTERN, "%zu of %zu expected events", k, (size_t)N_PATTERN);
	OK("%zu events in order: lookup > mark \"miss\" and compile; lookup > \"hit: memory\"; "
	   "lookup > \"hit: disk\"; load; tune > evaluate, evaluate", k);
	OK("each with its kind's category and ARGB colour; \"<kind> <detail>\" as ASCII, the "
	   "registered kind name without a detail");
	OK("a 1199-byte detail: name cut to 510 bytes at a UTF-8 boundary, ending in \"...\"");
	*end = lg.n;
	log_free(&lg);
	return domain;
}

/* ---- 2. two threads, in a child process ---------------------------------------- */

#define THREADS 2
#define ROUNDS 200

static pthread_barrier_t barrier;

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	char detail[64];
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < ROUNDS; i++) {
		snprintf(detail, sizeof detail, "t%d #%d", t, i);
		kjit__nvtx_push(KJIT__NVTX_LOOKUP, detail);
		kjit__nvtx_mark(KJIT__NVTX_LOOKUP, i % 2 ? "hit: memory" : "miss");
		kjit__nvtx_push(KJIT__NVTX_COMPILE, detail);
		kjit__nvtx_pop();
		kjit__nvtx_pop();
		kjit__nvtx_push(KJIT__NVTX_TUNE, detail);
		kjit__nvtx_push(KJIT__NVTX_EVALUATE, detail);
		kjit__nvtx_pop();
		kjit__nvtx_push(KJIT__NVTX_EVALUATE, detail);
		kjit__nvtx_pop();
		kjit__nvtx_pop();
	}
	return NULL;
}

/* The child: the threads make the process's first NVTX calls together. */
static int child_threads(void)
{
	pthread_t th[THREADS];
	CHECK(pthread_barrier_init(&barrier, NULL, THREADS) == 0);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_join(th[t], NULL) == 0);
	pthread_barrier_destroy(&barrier);
	return 0;
}

#define MAX_DEPTH 8

/* Checks one thread's events: a stack per thread, each push at the level
 * the stack says, marks inside a lookup, compile inside a lookup,
 * evaluate inside a tune, and all details naming the same thread. */
typedef struct tstack {
	int thread;
	int depth;
	int kind[MAX_DEPTH];
	char tag[8];
	int pushes, pops, marks;
} tstack;

static void test_two_threads(const char *argv0, const char *dir)
{
	char log_path[TU_PATH];
	tu_path(log_path, dir, "threads.log");
	CHECK(setenv("KJIT_NVTX_LOG", log_path, 1) == 0);
	int rc = tu_spawn_self(argv0, "threads", NULL);
	CHECK_MSG(rc == 0, "the threads child exited with %d", rc);

	log_t lg;
	log_load(&lg, log_path);
	int domain = check_setup(&lg, 0, lg.n);
	tstack ts[THREADS + 1];
	memset(ts, 0, sizeof ts);
	int n_ts = 0;
	for (size_t i = 0; i < lg.n; i++) {
		const rec *r = &lg.r[i];
		if (!is_event(r))
			continue;
		int thread = num(r, F_THREAD);
		tstack *s = NULL;
		for (int j = 0; j < n_ts; j++)
			if (ts[j].thread == thread)
				s = &ts[j];
		if (!s) {
			CHECK_MSG(n_ts < THREADS, "events from a third thread (line %d)", r->line);
			s = &ts[n_ts++];
			s->thread = thread;
		}
		CHECK(num(r, F_DOMAIN) == domain);
		if (is(r, "pop")) {
			CHECK_MSG(s->depth > 0, "line %d: a pop with nothing pushed", r->line);
			s->depth--;
			s->pops++;
			CHECK_MSG(num(r, F_LEVEL) == s->depth, "line %d: pop to level %d, expected %d",
			          r->line, num(r, F_LEVEL), s->depth);
			continue;
		}
		check_kind(r, domain);
		int kind = num(r, F_CATEGORY);
		CHECK_MSG(num(r, F_LEVEL) == s->depth, "line %d: level %d, thread %d is at %d",
		          r->line, num(r, F_LEVEL), thread, s->depth);
		int top = s->depth ? s->kind[s->depth - 1] : 0;
		if (is(r, "mark")) {
			CHECK_MSG(kind == KJIT__NVTX_LOOKUP && top == KJIT__NVTX_LOOKUP,
			          "line %d: mark outside its lookup", r->line);
			s->marks++;
			continue;
		}
		/* push: "<kind> t<N> #<i>"; one tag per thread. */
		const char *tag = r->f[F_MSG] + strlen(kind_name[kind]) + 1;
		char this_tag[8];
		snprintf(this_tag, sizeof this_tag, "%.*s", (int)strcspn(tag, " "), tag);
		if (!s->tag[0])
			snprintf(s->tag, sizeof s->tag, "%s", this_tag);
		CHECK_MSG(strcmp(s->tag, this_tag) == 0, "line %d: %s's range on %s's thread",
		          r->line, this_tag, s->tag);
		if (kind == KJIT__NVTX_COMPILE)
			CHECK_MSG(top == KJIT__NVTX_LOOKUP, "line %d: compile not in a lookup",
			          r->line);
		else if (kind == KJIT__NVTX_EVALUATE)
			CHECK_MSG(top == KJIT__NVTX_TUNE, "line %d: evaluate not in a tune", r->line);
		else
			CHECK_MSG(top == 0, "line %d: %s not at the top level", r->line,
			          kind_name[kind]);
		CHECK(s->depth < MAX_DEPTH);
		s->kind[s->depth++] = kind;
		s->pushes++;
	}
	CHECK_MSG(n_ts == THREADS, "events from %d threads", n_ts);
	CHECK(strcmp(ts[0].tag, ts[1].tag) != 0);
	for (int j = 0; j < n_ts; j++) {
		CHECK(ts[j].depth == 0);
		CHECK(ts[j].pushes == 5 * ROUNDS && ts[j].pops == 5 * ROUNDS);
		CHECK(ts[j].marks == ROUNDS);
	}
	OK("2 threads racing on the first call: one domain, one setup; %d pushes, %d pops, %d "
	   "marks each, nested per thread, each on its own thread",
	   ts[0].pushes, ts[0].pops, ts[0].marks);
	log_free(&lg);
}

/* ---- 3. no tool ----------------------------------------------------------------- */

#define NO_TOOL_PAIRS 1000000

/* The child: no injection library, so NVTX attaches nothing. */
static int child_no_tool(void)
{
	static char long_detail[1200];
	memset(long_detail, 'x', sizeof long_detail - 1);
	CHECK(unsetenv("NVTX_INJECTION64_PATH") == 0);
	run_pattern(long_detail);
	double t0 = tu_now();
	for (int i = 0; i < NO_TOOL_PAIRS; i++) {
		kjit__nvtx_push(KJIT__NVTX_COMPILE, long_detail);
		kjit__nvtx_mark(KJIT__NVTX_LOOKUP, "miss");
		kjit__nvtx_pop();
	}
	double ns = (tu_now() - t0) * 1e9 / NO_TOOL_PAIRS;
	printf("  no tool: %.1f ns per push + mark + pop with a 1199-byte detail\n", ns);
	CHECK_MSG(ns < 1000, "%.1f ns per push + mark + pop without a tool", ns);
	return 0;
}

static void test_no_tool(const char *argv0, const char *dir)
{
	char log_path[TU_PATH];
	tu_path(log_path, dir, "no-tool.log");
	CHECK(setenv("KJIT_NVTX_LOG", log_path, 1) == 0);
	int rc = tu_spawn_self(argv0, "no-tool", NULL);
	CHECK_MSG(rc == 0, "the no-tool child exited with %d", rc);
	CHECK_MSG(!tu_exists(log_path), "%s was written without a tool", log_path);
	OK("without $NVTX_INJECTION64_PATH: no tool attached, nothing logged, calls are no-ops");
}

/* ---- 4. the engine --------------------------------------------------------------- */

static void get_saxpy(const char *db, kjit_cache_tier want)
{
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 128, 2);
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == want);
	if (want == KJIT_TIER_COMPILED) {
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
		CHECK(tier == KJIT_TIER_MEMORY);
	}
	kjit_engine_close(e);
}

static void test_engine(const char *dir, const char *log_path, int domain, size_t from)
{
	char db[TU_PATH];
	tu_path(db, dir, "engine.db");
	get_saxpy(db, KJIT_TIER_COMPILED); /* miss, then a memory hit */
	get_saxpy(db, KJIT_TIER_DISK);     /* a new engine: disk hit */

	log_t lg;
	log_load(&lg, log_path);
	int ranges = 0;
	for (size_t i = from; i < lg.n; i++)
		if (is(&lg.r[i], "push") || is(&lg.r[i], "mark"))
			ranges++;
	CHECK_MSG(ranges > 0, "the engine made no NVTX ranges or marks");

	/* Per thread stacks of kinds; the lookup marks in order. */
	enum { MAX_THREADS = 16 };
	int threads[MAX_THREADS], depth[MAX_THREADS], stack[MAX_THREADS][MAX_DEPTH];
	int n_threads = 0, compiles = 0, n_marks = 0;
	enum { MAX_MARKS = 16 };
	const char *marks[MAX_MARKS];
	for (size_t i = from; i < lg.n; i++) {
		const rec *r = &lg.r[i];
		if (!is_event(r))
			continue;
		CHECK_MSG(num(r, F_DOMAIN) == domain, "line %d: not in the kjit domain", r->line);
		int t = 0, thread = num(r, F_THREAD);
		while (t < n_threads && threads[t] != thread)
			t++;
		if (t == n_threads) {
			CHECK(n_threads < MAX_THREADS);
			threads[n_threads] = thread;
			depth[n_threads++] = 0;
		}
		if (is(r, "pop")) {
			CHECK_MSG(depth[t] > 0, "line %d: a pop with nothing pushed", r->line);
			depth[t]--;
			continue;
		}
		check_kind(r, domain);
		int kind = num(r, F_CATEGORY);
		if (is(r, "mark")) {
			if (kind != KJIT__NVTX_LOOKUP)
				continue;
			CHECK_MSG(depth[t] > 0 && stack[t][depth[t] - 1] == KJIT__NVTX_LOOKUP,
			          "line %d: lookup mark \"%s\" outside a lookup range", r->line,
			          r->f[F_MSG]);
			CHECK(n_marks < MAX_MARKS);
			marks[n_marks++] = r->f[F_MSG];
			continue;
		}
		if (kind == KJIT__NVTX_COMPILE) {
			CHECK_CONTAINS(r->f[F_MSG], "saxpy");
			compiles++;
		}
		CHECK(depth[t] < MAX_DEPTH);
		stack[t][depth[t]++] = kind;
	}
	for (int t = 0; t < n_threads; t++)
		CHECK_MSG(depth[t] == 0, "thread %d ends with %d ranges open", threads[t], depth[t]);
	CHECK_MSG(compiles >= 1, "no compile range for a compile");
	/* Lookups that reach the database are marked; memory hits (tens of
	 * nanoseconds) are not. The first engine misses, the reopened one hits
	 * the disk, and the gets in between are memory hits: no marks. */
	CHECK_MSG(n_marks == 2, "%d lookup marks, expected 2 (a miss, then a disk hit)", n_marks);
	CHECK_STREQ(marks[0], "miss");
	CHECK_STREQ(marks[1], "hit: disk");
	OK("engine: %d compile range(s) for saxpy; lookup marks \"miss\" then \"hit: disk\", "
	   "each inside a lookup range, none for memory hits; ranges balanced per thread",
	   compiles);
	log_free(&lg);
}

/* ---- main ------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	if (argc > 1 && strcmp(argv[1], "threads") == 0)
		return child_threads();
	if (argc > 1 && strcmp(argv[1], "no-tool") == 0)
		return child_no_tool();

	/* The injection library: $KJIT_BUILDDIR/tests (make check), else the
	 * tree this test was built in. */
	char inject[TU_PATH];
	const char *build = getenv("KJIT_BUILDDIR");
	if (build && *build)
		tu_path(inject, build, "tests/libnvtx-inject.so");
	else
		snprintf(inject, sizeof inject, "%s", KJIT_NVTX_INJECT);
	CHECK_MSG(tu_exists(inject), "%s not found (make check builds it)", inject);

	const char *dir = tu_tmpdir();
	char log_path[TU_PATH];
	tu_path(log_path, dir, "nvtx.log");
	/* Before the first NVTX call, which loads the tool. */
	CHECK(setenv("NVTX_INJECTION64_PATH", inject, 1) == 0);
	CHECK(setenv("KJIT_NVTX_LOG", log_path, 1) == 0);
	OK("NVTX_INJECTION64_PATH=%s", inject);

	size_t end = 0;
	int domain = test_one_thread(log_path, &end);
	test_engine(dir, log_path, domain, end);
	test_two_threads(argv[0], dir);
	test_no_tool(argv[0], dir);
	return 0;
}
