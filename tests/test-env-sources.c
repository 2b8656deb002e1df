/*
 * test-env-sources - the environment is read in one place, and every
 * variable kjit reads is in its table (KJIT__ENV_VARS, base.h).
 *
 * Over the .c and .h files of src/, cupti/, autotune/ and tui/:
 *  - nothing but env.c calls getenv() or secure_getenv() (a comment may
 *    name them);
 *  - every KJIT_ word of a string or a comment that is no C identifier of
 *    these files (an enum value, a macro) is a variable of the table: a
 *    variable read or documented under a new name fails here;
 * and then:
 *  - each entry of the table has a name of its own and a meaning, and is
 *    documented in the ENVIRONMENT section of kjit(3), kjit-tune(1) or
 *    kjit-top(1), where no KJIT_ variable outside the table is;
 *  - tests/env-cleared, which make check and tests/run-gpu-tests use to
 *    clear the settings, prints exactly the table's settings.
 * The scan first runs on a made-up file with a stray getenv() and two
 * unknown variables, and must find all three.
 */
#include "testutil.h"

#include "csource.h"

static const char *const scanned[] = { "src", "cupti", "autotune", "tui" };
static const char *const pages[] = { "doc/kjit.3", "doc/kjit-tune.1", "doc/kjit-top.1" };

typedef struct scan {
	const char *file; /* the file being read, for messages */
	int is_env_c;
	size_t stray;     /* getenv calls outside env.c */
	tu_words code;    /* KJIT_ identifiers of the code */
	tu_words named;   /* KJIT_ words of strings and comments */
} scan;

static int same(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static void on_word(const char *w, size_t n, int line, tu_where where, void *arg)
{
	scan *s = arg;
	if (where == TU_CODE && !s->is_env_c && (same(w, n, "getenv") || same(w, n, "secure_getenv"))) {
		fprintf(stderr, "  %s:%d: %.*s outside env.c: ask kjit__env() (base.h)\n", s->file,
		        line, (int)n, w);
		s->stray++;
	}
	/* KJIT_ROLE_* and the like name a family, not a variable */
	if (n > 5 && memcmp(w, "KJIT_", 5) == 0 && w[n - 1] != '_')
		tu_words_add(where == TU_CODE ? &s->code : &s->named, w, n, s->file, line);
}

static void scan_text(scan *s, const char *file, const char *text)
{
	const char *base = strrchr(file, '/');
	s->file = file;
	s->is_env_c = strcmp(base ? base + 1 : file, "env.c") == 0;
	tu_c_words(text, on_word, s);
}

static int in_table(const char *name)
{
	const kjit__env_entry *vars = kjit__env_table();
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++)
		if (strcmp(vars[i].name, name) == 0)
			return 1;
	return 0;
}

/* The KJIT_ words of strings and comments that are neither identifiers
 * nor variables of the table, each printed with where it was seen. */
static size_t unknown_names(const scan *s)
{
	size_t bad = 0;
	for (size_t i = 0; i < s->named.n; i++) {
		const char *w = s->named.items[i].word;
		if (tu_words_has(&s->code, w, strlen(w)) || in_table(w))
			continue;
		fprintf(stderr, "  %s: %s is no identifier and not in KJIT__ENV_VARS (base.h)\n",
		        s->named.items[i].where, w);
		bad++;
	}
	return bad;
}

static void scan_free(scan *s)
{
	tu_words_free(&s->code);
	tu_words_free(&s->named);
}

static void check_made_up(void)
{
	static const char text[] =
		"#define KJIT_KNOWN 1\n"
		"/* $KJIT_OTHER sets the other thing; KJIT_KNOWN is a macro */\n"
		"static const char *mode(void)\n{\n\treturn getenv(\"KJIT_NEW_SETTING\");\n}\n"
		"static const char *doc = \"getenv('KJIT_TUNE') KJIT_ROLE_\";\n";
	scan s = { 0 };
	scan_text(&s, "src/made-up.c", text);
	CHECK_EQ_U64(s.stray, 1);
	CHECK_EQ_U64(unknown_names(&s), 2);
	scan_free(&s);
	scan e = { 0 };
	scan_text(&e, "src/base/env.c", text);
	CHECK_EQ_U64(e.stray, 0);
	scan_free(&e);
	OK("a made-up file: its getenv() and KJIT_NEW_SETTING, KJIT_OTHER found (the lines above)");
}

static void check_tree(const char *src)
{
	scan s = { 0 };
	size_t n_files = 0, has_env_c = 0;
	for (size_t d = 0; d < sizeof scanned / sizeof *scanned; d++) {
		char dir[TU_PATH];
		tu_files files = { 0 };
		tu_c_files(tu_path(dir, src, scanned[d]), &files);
		for (size_t i = 0; i < files.n; i++) {
			char *text = tu_read_file(files.paths[i], NULL);
			scan_text(&s, files.paths[i] + strlen(src) + 1, text);
			has_env_c += (size_t)s.is_env_c;
			free(text);
		}
		n_files += files.n;
		tu_files_free(&files);
	}
	CHECK_MSG(has_env_c == 1, "%zu files named env.c", has_env_c);
	CHECK_MSG(s.stray == 0, "%zu getenv() calls outside env.c (listed above)", s.stray);
	size_t unknown = unknown_names(&s);
	CHECK_MSG(unknown == 0, "%zu unknown KJIT_ names (listed above)", unknown);
	OK("%zu files of src/, cupti/, autotune/, tui/: getenv() only in env.c; %zu KJIT_ words of "
	   "strings and comments, each an identifier or a variable of the table",
	   n_files, s.named.n);
	scan_free(&s);
}

static void check_table(void)
{
	const kjit__env_entry *vars = kjit__env_table();
	size_t settings = 0;
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++) {
		CHECK_MSG(vars[i].name && *vars[i].name && vars[i].meaning && *vars[i].meaning,
		          "entry %zu of KJIT__ENV_VARS", i);
		for (size_t j = 0; j < i; j++)
			CHECK_MSG(strcmp(vars[i].name, vars[j].name) != 0, "%s twice", vars[i].name);
		CHECK(vars[i].kind == KJIT__ENV_KIND_SETTING || vars[i].kind == KJIT__ENV_KIND_SYSTEM);
		settings += vars[i].kind == KJIT__ENV_KIND_SETTING;
	}
	OK("%d variables, %zu of them settings, each named once with a meaning", KJIT__ENV_COUNT,
	   settings);
}

/* The terms of the ENVIRONMENT section of a man page: .B lines after .TP
 * or .TQ. */
static void environment_terms(const char *page, const char *text, tu_words *terms)
{
	const char *sec = strstr(text, "\n.SH ENVIRONMENT\n");
	CHECK_MSG(sec != NULL, "%s has no ENVIRONMENT section", page);
	const char *end = strstr(sec + 1, "\n.SH ");
	int line = 1, tagged = 0;
	for (const char *p = text; p <= sec; p++)
		line += *p == '\n';
	for (const char *p = sec + 1; *p && (!end || p < end); line++) {
		size_t len = strcspn(p, "\n");
		if (tagged && strncmp(p, ".B ", 3) == 0)
			tu_words_add(terms, p + 3, len - 3, page, line);
		tagged = strncmp(p, ".TP\n", 4) == 0 || strncmp(p, ".TQ\n", 4) == 0;
		p += len + (p[len] == '\n');
	}
}

static void check_documented(const char *src)
{
	tu_words terms = { 0 };
	for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
		char path[TU_PATH];
		char *text = tu_read_file(tu_path(path, src, pages[i]), NULL);
		environment_terms(pages[i], text, &terms);
		free(text);
	}
	const kjit__env_entry *vars = kjit__env_table();
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++)
		CHECK_MSG(tu_words_has(&terms, vars[i].name, strlen(vars[i].name)),
		          "%s (%s) is in no man page's ENVIRONMENT section", vars[i].name,
		          vars[i].meaning);
	for (size_t i = 0; i < terms.n; i++)
		CHECK_MSG(strncmp(terms.items[i].word, "KJIT_", 5) != 0 || in_table(terms.items[i].word),
		          "%s documents %s, which kjit does not read", terms.items[i].where,
		          terms.items[i].word);
	OK("every variable documented in kjit(3), kjit-tune(1) or kjit-top(1); %zu terms there",
	   terms.n);
	tu_words_free(&terms);
}

static void check_env_cleared(const char *src)
{
	char cmd[TU_PATH + 64], out[4096], want[4096] = "";
	snprintf(cmd, sizeof cmd, "sh '%s/tests/env-cleared'", src);
	CHECK(tu_run(cmd, out, sizeof out) == 0);
	const kjit__env_entry *vars = kjit__env_table();
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++) {
		if (vars[i].kind != KJIT__ENV_KIND_SETTING)
			continue;
		strncat(want, vars[i].name, sizeof want - strlen(want) - 2);
		strcat(want, "\n");
	}
	CHECK_STREQ(out, want);
	OK("tests/env-cleared lists the table's settings");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *src = tu_srcdir();
	check_made_up();
	check_tree(src);
	check_table();
	check_documented(src);
	check_env_cleared(src);
	printf("PASS\n");
	return 0;
}
