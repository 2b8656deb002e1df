/*
 * csource.h - reading kjit's own C sources and man pages, for the tests
 * that check the tree against its rules (test-env-sources, test-doc-api).
 * Include it after testutil.h.
 *
 *  - tu_c_words(): every identifier-like word of a C text, with its line
 *    and whether it is code, inside a string or character literal, or
 *    inside a comment.
 *  - tu_c_files(): the .c and .h files under a folder, recursively.
 *  - tu_words: a small set of words, each with where it was first seen.
 *  - tu_man_text(): a man page with its font escapes blanked, so that a
 *    word search sees \fBkjit_launch\fP as kjit_launch.
 */
#ifndef KJIT_CSOURCE_H
#define KJIT_CSOURCE_H

#include <ctype.h>

typedef enum tu_where { TU_CODE, TU_STRING, TU_COMMENT } tu_where;

typedef void (*tu_word_fn)(const char *word, size_t len, int line, tu_where where, void *arg);

static inline int tu_is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Calls fn for every word of text (identifiers and keywords; numbers are
 * skipped). Preprocessor lines count as code. */
static inline void tu_c_words(const char *text, tu_word_fn fn, void *arg)
{
	tu_where where = TU_CODE;
	char quote = 0; /* the quote that ends the literal, in TU_STRING */
	int line = 1, line_comment = 0;
	for (const char *p = text; *p;) {
		if (*p == '\n') {
			line++;
			if (line_comment)
				where = TU_CODE, line_comment = 0;
			p++;
		} else if (where == TU_CODE && p[0] == '/' && p[1] == '/') {
			where = TU_COMMENT, line_comment = 1, p += 2;
		} else if (where == TU_CODE && p[0] == '/' && p[1] == '*') {
			where = TU_COMMENT, p += 2;
		} else if (where == TU_COMMENT && !line_comment && p[0] == '*' && p[1] == '/') {
			where = TU_CODE, p += 2;
		} else if (where == TU_CODE && (*p == '"' || *p == '\'')) {
			where = TU_STRING, quote = *p++;
		} else if (where == TU_STRING && *p == '\\' && p[1]) {
			p += p[1] == '\n' ? 1 : 2; /* the newline of a continuation is counted */
		} else if (where == TU_STRING && *p == quote) {
			where = TU_CODE, p++;
		} else if (tu_is_word_char(*p)) {
			const char *w = p;
			while (tu_is_word_char(*p))
				p++;
			if (!isdigit((unsigned char)*w))
				fn(w, (size_t)(p - w), line, where, arg);
		} else {
			p++;
		}
	}
}

/* ---- files of a folder --------------------------------------------------- */

typedef struct tu_files {
	char **paths;
	size_t n, cap;
} tu_files;

static tu_files *tu_files_into;

static inline int tu_files_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	size_t len = strlen(path);
	if (flag != FTW_F || len < 2 || path[len - 2] != '.' ||
	    (path[len - 1] != 'c' && path[len - 1] != 'h'))
		return 0;
	tu_files *f = tu_files_into;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->paths = realloc(f->paths, f->cap * sizeof *f->paths);
		CHECK(f->paths != NULL);
	}
	f->paths[f->n] = strdup(path);
	CHECK(f->paths[f->n] != NULL);
	f->n++;
	return 0;
}

/* Appends the .c and .h files under dir to *files. */
static inline void tu_c_files(const char *dir, tu_files *files)
{
	tu_files_into = files;
	if (nftw(dir, tu_files_one, 16, FTW_PHYS) != 0)
		TU_FAIL("cannot walk %s: %s", dir, strerror(errno));
}

static inline void tu_files_free(tu_files *files)
{
	for (size_t i = 0; i < files->n; i++)
		free(files->paths[i]);
	free(files->paths);
	memset(files, 0, sizeof *files);
}

/* ---- sets of words --------------------------------------------------------- */

typedef struct tu_words {
	struct tu_word {
		char *word;
		char *where; /* "file:line" of the first sight */
	} *items;
	size_t n, cap;
} tu_words;

static inline int tu_words_has(const tu_words *s, const char *word, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->items[i].word) == len && memcmp(s->items[i].word, word, len) == 0)
			return 1;
	return 0;
}

/* Adds word[len] (seen at file:line) unless it is there already. */
static inline void tu_words_add(tu_words *s, const char *word, size_t len, const char *file,
                                int line)
{
	if (tu_words_has(s, word, len))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->items = realloc(s->items, s->cap * sizeof *s->items);
		CHECK(s->items != NULL);
	}
	struct tu_word *w = &s->items[s->n++];
	w->word = strndup(word, len);
	w->where = malloc(strlen(file) + 16);
	CHECK(w->word != NULL && w->where != NULL);
	sprintf(w->where, "%s:%d", file, line);
}

static inline void tu_words_free(tu_words *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].word);
		free(s->items[i].where);
	}
	free(s->items);
	memset(s, 0, sizeof *s);
}

/* ---- man pages --------------------------------------------------------------- */

/* The page at path, malloc'ed, with every font escape (\fB, \fI, \fR, \fP,
 * \f(CW) blanked. */
static inline char *tu_man_text(const char *path)
{
	char *text = tu_read_file(path, NULL);
	for (char *p = text; *p; p++) {
		if (p[0] != '\\' || p[1] != 'f' || !p[2])
			continue;
		size_t n = p[2] == '(' && p[3] && p[4] ? 5 : 3;
		memset(p, ' ', n);
		p += n - 1;
	}
	return text;
}

/* Whether word occurs in text as a whole word. */
static inline int tu_has_word(const char *text, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = text; (p = strstr(p, word)) != NULL; p++) {
		if ((p == text || !tu_is_word_char(p[-1])) && !tu_is_word_char(p[len]))
			return 1;
	}
	return 0;
}

#endif /* KJIT_CSOURCE_H */
