/*
 * test-doc-api - kjit(3) covers the public header, and every status has
 * its own string.
 *
 *  - every kjit_ and KJIT_ name of include/kjit.h's code (functions, types,
 *    enum values, macros; its include guard aside) is a word of
 *    doc/kjit.3;
 *  - kjit(3)'s SYNOPSIS declares each of them, its example prints every
 *    cache tier, and kjit.h and kjit(3) agree where they once did not;
 *  - every status that kjit.h declares (KJIT_OK, KJIT_ERR_*) has a
 *    string from kjit_status_str() that starts with its name and is not
 *    the string of an unknown code, and no two share one.
 */
#include "testutil.h"

#include "csource.h"

typedef struct api {
	tu_words names;    /* kjit_ and KJIT_ identifiers of the code */
	tu_words statuses; /* KJIT_OK and KJIT_ERR_* among them */
	int after_ifndef;
	char guard[64];    /* the include guard: the word of the first #ifndef */
} api;

static void on_word(const char *w, size_t n, int line, tu_where where, void *arg)
{
	api *a = arg;
	if (where != TU_CODE)
		return;
	if (a->after_ifndef && !a->guard[0] && n < sizeof a->guard)
		memcpy(a->guard, w, n);
	a->after_ifndef = n == 6 && memcmp(w, "ifndef", 6) == 0;
	int public = n > 5 && (memcmp(w, "kjit_", 5) == 0 || memcmp(w, "KJIT_", 5) == 0) &&
	             w[5] != '_';
	if (!public || (strlen(a->guard) == n && memcmp(w, a->guard, n) == 0))
		return;
	tu_words_add(&a->names, w, n, "include/kjit.h", line);
	if ((n == 7 && memcmp(w, "KJIT_OK", 7) == 0) || (n > 9 && memcmp(w, "KJIT_ERR_", 9) == 0))
		tu_words_add(&a->statuses, w, n, "include/kjit.h", line);
}

static void check_documented(const api *a, const char *src)
{
	char path[TU_PATH];
	char *page = tu_man_text(tu_path(path, src, "doc/kjit.3"));
	size_t missing = 0;
	for (size_t i = 0; i < a->names.n; i++) {
		if (tu_has_word(page, a->names.items[i].word))
			continue;
		fprintf(stderr, "  %s: %s is not in doc/kjit.3\n", a->names.items[i].where,
		        a->names.items[i].word);
		missing++;
	}
	free(page);
	CHECK_MSG(missing == 0, "%zu names of kjit.h missing from kjit(3) (listed above)", missing);
	OK("the %zu kjit_ and KJIT_ names of kjit.h are all in kjit(3)", a->names.n);
}

/* The text of page's section from the line that starts with from to the
 * next ".SH " line, malloc'ed (a copy of the page's end if none follows). */
static char *section(const char *page, const char *from)
{
	const char *p = strstr(page, from);
	CHECK_MSG(p, "doc/kjit.3 has no '%s'", from);
	const char *end = strstr(p + strlen(from), "\n.SH ");
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

/* SYNOPSIS declares every type, function, enum value and macro of kjit.h
 * (so that a struct's new field or a new type is not in DESCRIPTION only);
 * the EXAMPLES program names every cache tier it prints. */
static void check_synopsis(const api *a, const char *src)
{
	char path[TU_PATH];
	char *page = tu_man_text(tu_path(path, src, "doc/kjit.3"));
	char *synopsis = section(page, ".SH SYNOPSIS"), *examples = section(page, ".SH EXAMPLES");
	size_t missing = 0, tiers = 0;
	for (size_t i = 0; i < a->names.n; i++) {
		const char *w = a->names.items[i].word;
		if (!tu_has_word(synopsis, w)) {
			fprintf(stderr, "  %s: %s is not in kjit(3)'s SYNOPSIS\n",
			        a->names.items[i].where, w);
			missing++;
		}
		if (strncmp(w, "KJIT_TIER_", 10) == 0 && !tu_has_word(examples, w)) {
			fprintf(stderr, "  %s: the EXAMPLES program has no entry for %s\n",
			        a->names.items[i].where, w);
			missing++;
		}
		tiers += strncmp(w, "KJIT_TIER_", 10) == 0;
	}
	free(synopsis);
	free(examples);
	free(page);
	CHECK_MSG(missing == 0, "%zu names missing from kjit(3) (listed above)", missing);
	CHECK(tiers >= 4);
	OK("SYNOPSIS declares all %zu names; the example prints each of %zu tiers", a->names.n,
	   tiers);
}

/* Points where kjit.h and kjit(3) once disagreed: the nvcc command of LTO
 * IR (-dlto -ltoir; -dlto -dc makes a host object), the libraries that
 * LIBRARY names, the arch's $KJIT_ARCH. */
static void check_agreements(const char *src)
{
	char path[TU_PATH];
	char *header = tu_read_file(tu_path(path, src, "include/kjit.h"), NULL);
	char *page = tu_man_text(tu_path(path, src, "doc/kjit.3"));
	char *library = section(page, ".SH LIBRARY");
	const char *ltoir = strstr(header, "KJIT_LINK_LTOIR = 1");
	CHECK_MSG(ltoir && strstr(ltoir, "nvcc -dlto -ltoir") &&
	          strstr(ltoir, "nvcc -dlto -ltoir") < strchr(ltoir, '\n'),
	          "kjit.h: KJIT_LINK_LTOIR does not say nvcc -dlto -ltoir");
	CHECK_CONTAINS(page, "nvcc \\-dlto \\-ltoir");
	static const char *const libs[] = { "NVRTC", "nvJitLink", "CUPTI", "SQLite" };
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
		CHECK_MSG(tu_has_word(library, libs[i]), "kjit(3) LIBRARY does not name %s", libs[i]);
	const char *arch = strstr(header, "const char *arch;");
	CHECK_MSG(arch && strstr(header, "NULL: $KJIT_ARCH, else the") &&
	          strstr(header, "NULL: $KJIT_ARCH, else the") < arch,
	          "kjit.h: kjit_engine_options.arch does not name $KJIT_ARCH");
	free(library);
	free(page);
	free(header);
	OK("kjit.h and kjit(3) agree: nvcc -dlto -ltoir, LIBRARY's libraries, $KJIT_ARCH");
}

/* The status whose string is s, by the name it starts with; NULL for none. */
static const char *status_named(const api *a, const char *s)
{
	for (size_t i = 0; i < a->statuses.n; i++) {
		const char *name = a->statuses.items[i].word;
		size_t len = strlen(name);
		if (strncmp(s, name, len) == 0 && s[len] == ':' && s[len + 1])
			return name;
	}
	return NULL;
}

static void check_status_strings(const api *a)
{
	const char *unknown = kjit_status_str((kjit_status)INT_MIN);
	CHECK(unknown && *unknown);
	CHECK(a->statuses.n > 1);
	CHECK(strncmp(kjit_status_str(KJIT_OK), "KJIT_OK:", 8) == 0);
	size_t *seen = calloc(a->statuses.n, sizeof *seen);
	CHECK(seen != NULL);
	size_t known = 0;
	/* far wider than any status list */
	for (int v = -4096; v <= 4096; v++) {
		const char *s = kjit_status_str((kjit_status)v);
		CHECK_MSG(s != NULL, "kjit_status_str(%d) is NULL", v);
		if (strcmp(s, unknown) == 0)
			continue;
		const char *name = status_named(a, s);
		CHECK_MSG(name != NULL, "kjit_status_str(%d) = \"%s\" names no status of kjit.h", v, s);
		for (size_t i = 0; i < a->statuses.n; i++)
			if (a->statuses.items[i].word == name)
				CHECK_MSG(++seen[i] == 1, "two codes give %s", name);
		known++;
	}
	for (size_t i = 0; i < a->statuses.n; i++)
		CHECK_MSG(seen[i] == 1, "%s (%s) has no string of its own: kjit_status_str() gives "
		          "\"%s\"", a->statuses.items[i].word, a->statuses.items[i].where, unknown);
	free(seen);
	OK("%zu statuses, %zu codes with a string each, the rest \"%s\"", a->statuses.n, known,
	   unknown);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *src = tu_srcdir();
	char path[TU_PATH];
	char *header = tu_read_file(tu_path(path, src, "include/kjit.h"), NULL);
	api a = { 0 };
	tu_c_words(header, on_word, &a);
	free(header);
	CHECK(tu_words_has(&a.names, "kjit_launch", 11));
	check_documented(&a, src);
	check_synopsis(&a, src);
	check_agreements(src);
	check_status_strings(&a);
	tu_words_free(&a.names);
	tu_words_free(&a.statuses);
	printf("PASS\n");
	return 0;
}
