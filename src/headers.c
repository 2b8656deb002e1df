/* headers.c - what a kernel's compile reads besides its source: the
 * #include scanner, the resolver that finds each header (in memory, in
 * the including file's folder, in the include dirs) so that NVRTC is
 * handed every user header by name, the manifest of the files read and
 * its check, and the toolkit's own include folders. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine.h"

/* ---- the scanner ---------------------------------------------------------- */

typedef struct cursor {
	const char *t;
	size_t len, i;
	unsigned line;
} cursor;

/* The index after the line continuations (backslash newline) at i. */
static size_t splice(const cursor *c, size_t i, unsigned *line)
{
	for (;;) {
		if (i + 1 < c->len && c->t[i] == '\\' && c->t[i + 1] == '\n') {
			i += 2;
			(*line)++;
		} else if (i + 2 < c->len && c->t[i] == '\\' && c->t[i + 1] == '\r' &&
		           c->t[i + 2] == '\n') {
			i += 3;
			(*line)++;
		} else {
			return i;
		}
	}
}

/* The character at the cursor, continuations skipped; 0 at the end. */
static int peek(cursor *c)
{
	c->i = splice(c, c->i, &c->line);
	return c->i < c->len ? (unsigned char)c->t[c->i] : 0;
}

/* The character after the one at the cursor. */
static int peek2(cursor *c)
{
	unsigned line = 0;
	size_t j = splice(c, peek(c) ? c->i + 1 : c->i, &line);
	return j < c->len ? (unsigned char)c->t[j] : 0;
}

static void advance(cursor *c)
{
	if (peek(c)) {
		if (c->t[c->i] == '\n')
			c->line++;
		c->i++;
	}
}

static int is_ident_char(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* Skips the comment at the cursor; 0 when there is none. */
static int skip_comment(cursor *c)
{
	if (peek(c) != '/')
		return 0;
	int next = peek2(c);
	if (next == '/') {
		while (peek(c) && peek(c) != '\n')
			advance(c);
		return 1;
	}
	if (next != '*')
		return 0;
	advance(c);
	advance(c);
	for (int ch; (ch = peek(c));) {
		advance(c);
		if (ch == '*' && peek(c) == '/') {
			advance(c);
			break;
		}
	}
	return 1;
}

/* A string or character literal; one left open ends at the line's end. */
static void skip_literal(cursor *c, int quote)
{
	advance(c);
	for (int ch; (ch = peek(c)) && ch != '\n';) {
		advance(c);
		if (ch == quote)
			return;
		if (ch == '\\' && peek(c) && peek(c) != '\n')
			advance(c);
	}
}

/* R"delim( ... )delim": no escapes and no continuations inside. */
static void skip_raw_string(cursor *c)
{
	advance(c);
	char end[20] = ")";
	size_t n = 1;
	while (c->i < c->len && c->t[c->i] != '(' && n < 17)
		end[n++] = c->t[c->i++];
	end[n++] = '"';
	end[n] = '\0';
	const char *close = strstr(c->t + c->i, end);
	size_t stop = close ? (size_t)(close - c->t) + n : c->len;
	for (; c->i < stop; c->i++)
		c->line += c->t[c->i] == '\n';
}

/* An identifier, or the prefix of a raw string and the string. */
static void skip_ident(cursor *c)
{
	char word[4];
	size_t n = 0;
	for (int ch; (ch = peek(c)) && is_ident_char(ch); advance(c))
		if (n < sizeof word)
			word[n++] = (char)ch;
	if (peek(c) == '"' && n && n < sizeof word && word[n - 1] == 'R' &&
	    (n == 1 || (n == 2 && strchr("uUL", word[0])) ||
	     (n == 3 && word[0] == 'u' && word[1] == '8')))
		skip_raw_string(c);
}

/* A preprocessing number, digit separators (1'000) and exponents included. */
static void skip_number(cursor *c)
{
	for (int ch; (ch = peek(c));) {
		int next = peek2(c);
		if ((ch == 'e' || ch == 'E' || ch == 'p' || ch == 'P') && (next == '+' || next == '-'))
			advance(c);
		else if (!(is_ident_char(ch) || ch == '.' || (ch == '\'' && is_ident_char(next))))
			break;
		advance(c);
	}
}

/* Spaces and comments within a line. */
static void skip_blank(cursor *c)
{
	for (int ch; (ch = peek(c));) {
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v')
			advance(c);
		else if (!skip_comment(c))
			return;
	}
}

/* The directive after a '#' at a line's start, up to its line's end. */
static int directive(cursor *c, kjit__include_fn fn, void *ctx)
{
	unsigned line = c->line;
	advance(c);
	skip_blank(c);
	char word[8];
	size_t n = 0, total = 0;
	for (int ch; (ch = peek(c)) && is_ident_char(ch); advance(c), total++)
		if (n < sizeof word - 1)
			word[n++] = (char)ch;
	word[n] = '\0';
	int r = 0;
	if (total == 7 && strcmp(word, "include") == 0) {
		skip_blank(c);
		int open = peek(c), close = open == '<' ? '>' : '"';
		if (open == '<' || open == '"') {
			char name[1024];
			size_t len = 0;
			advance(c);
			for (int ch; (ch = peek(c)) && ch != '\n' && ch != close; advance(c))
				if (len < sizeof name - 1)
					name[len++] = (char)ch;
			name[len] = '\0';
			if (peek(c) == close && len)
				r = fn(ctx, name, open == '<', line);
		}
	}
	while (!r && peek(c) && peek(c) != '\n') {
		int ch = peek(c);
		if (ch == '"' || ch == '\'')
			skip_literal(c, ch);
		else if (!skip_comment(c))
			advance(c);
	}
	return r;
}

int kjit__scan_includes(const char *text, kjit__include_fn fn, void *ctx)
{
	/* A directive that includes spells "include", which only a line
	 * continuation can split: a text with neither (most kernels) is not
	 * walked character by character, on the path of every kernel made. */
	if (!strstr(text, "include") && !strstr(text, "\\\n") && !strstr(text, "\\\r\n"))
		return 0;
	cursor c = { text, strlen(text), 0, 1 };
	int bol = 1; /* only blanks and comments since the line's start */
	for (int ch; (ch = peek(&c));) {
		if (ch == '\n') {
			bol = 1;
			advance(&c);
		} else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
			advance(&c);
		} else if (skip_comment(&c)) {
			continue;
		} else if (ch == '#' && bol) {
			int r = directive(&c, fn, ctx);
			if (r)
				return r;
		} else {
			bol = 0;
			if (ch == '"' || ch == '\'')
				skip_literal(&c, ch);
			else if (is_ident_char(ch) && !(ch >= '0' && ch <= '9'))
				skip_ident(&c);
			else if ((ch >= '0' && ch <= '9') ||
			         (ch == '.' && peek2(&c) >= '0' && peek2(&c) <= '9'))
				skip_number(&c);
			else
				advance(&c);
		}
	}
	return 0;
}

/* ---- the toolkit ------------------------------------------------------------ */

static struct {
	char opt[2][PATH_MAX + 2];
	const char *opts[2];
	size_t n;
	char id[2 * PATH_MAX + 160];
} toolkit;
static pthread_once_t toolkit_once = PTHREAD_ONCE_INIT;

/* The CUDA headers: $KJIT_CUDA_INCLUDE, else the toolkit's kjit was built
 * with (a build with NVIDIA's wheels has none of its own; the Python
 * package names the wheels'). CCCL (cub/, thrust/, cuda/std/) lives in
 * include/cccl since CUDA 13, in include before; its version and the
 * folders stand for the thousands of files a compile may read there. */
static void find_toolkit(void)
{
	static const char *const sub[2] = { "/cccl", "" };
	const char *include = kjit__env(KJIT__ENV_CUDA_INCLUDE);
	char cccl[16] = "none";
	for (int i = 0; i < 2; i++) {
		char dir[PATH_MAX];
		struct stat st;
		if (include)
			snprintf(dir, sizeof dir, "%s%s", include, sub[i]);
		else
			snprintf(dir, sizeof dir, "%s/include%s", KJIT_CUDA_HOME, sub[i]);
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(toolkit.opt[toolkit.n], sizeof toolkit.opt[0], "-I%s", dir);
		toolkit.opts[toolkit.n] = toolkit.opt[toolkit.n];
		toolkit.n++;
		char path[PATH_MAX + 32], *text = NULL;
		snprintf(path, sizeof path, "%s/cuda/std/__cccl/version.h", dir);
		if (strcmp(cccl, "none") == 0 && kjit__read_text(path, &text, NULL) == KJIT_OK) {
			const char *v = strstr(text, "#define CCCL_VERSION ");
			if (v)
				snprintf(cccl, sizeof cccl, "%.15s", v + 21);
			cccl[strcspn(cccl, " \t\r\n")] = '\0';
		}
		free(text);
	}
	snprintf(toolkit.id, sizeof toolkit.id, "cuda-%d cccl-%s %s %s %s", CUDA_VERSION, cccl,
	         toolkit.n > 0 ? toolkit.opts[0] : "", toolkit.n > 1 ? toolkit.opts[1] : "",
	         kjit__std_headers_id());
}

void kjit__headers_init(void)
{
	pthread_once(&toolkit_once, find_toolkit);
}

/* ---- a kernel's headers ---------------------------------------------------- */

/* A file the resolver looked for: found (its hash, size and mtime), or
 * not there (which matters too: created later, it would be read). */
typedef struct entry {
	char *path;
	int present;
	long long size, mtime_ns; /* mtime_ns -1: too recent to vouch for the content */
	kjit__hash128 hash;
	char *text;
} entry;

struct kjit__headers {
	const char *who;    /* the kernel's name, for messages (the kernel's) */
	const char *source; /* the kernel's */
	char *main;         /* the source's name in NVRTC's messages */
	char *home;         /* the source's folder, for its #include "..." */
	char **mem_names, **mem_texts;
	size_t n_mem;
	char **dirs;
	size_t n_dirs;
	int no_default;
	int files;          /* some include may be answered by a file */
	char *identity;     /* what enters the key seed; NULL: nothing */
	pthread_mutex_t lock;
	/* the digest of the files once known in this process: &checked when
	 * a stored manifest held, &read once the files were read */
	_Atomic(const kjit__hash128 *) digest;
	kjit__hash128 checked, read;
	int resolved;       /* under lock: set, ents and names are made */
	kjit__header_set set;
	entry *ents;
	size_t n_ents;
	char **names;       /* the names of set, the file headers' owned */
};

typedef struct walk {
	kjit__headers *h;
	int read;           /* 0: the in-memory headers only, at creation */
	entry *ents;
	size_t n_ents, cap_ents;
	char **names;       /* handed to NVRTC: the in-memory headers, then files */
	const char **texts;
	size_t *ent;        /* per name: its entry + 1, 0 for an in-memory header */
	size_t n, cap;
	unsigned char *mem_seen;
	int files, unresolved, depth;
	kjit__budget budget; /* of the files read */
	kjit_status st;
} walk;

typedef struct frame {
	walk *w;
	const char *who;    /* the including file */
	const char *folder; /* its folder for #include "...", NULL for an in-memory header */
} frame;

#define MAX_DEPTH 200

static kjit_status walk_fail(walk *w, kjit_status st)
{
	w->st = st;
	return st;
}

static void walk_text(walk *w, const char *text, const char *who, const char *folder);

/* Looks for dir/name (name alone when dir is NULL), once per path:
 * the index of its entry, or -1 on a failure (in w->st). */
static long probe(walk *w, const char *dir, const char *name, const char *who, unsigned line)
{
	char *path = dir ? kjit__strdup_printf("%s/%s", dir, name) : strdup(name);
	if (!path)
		return walk_fail(w, kjit__error(KJIT_ERR_NOMEM, "out of memory")), -1;
	for (size_t i = 0; i < w->n_ents; i++)
		if (strcmp(w->ents[i].path, path) == 0) {
			free(path);
			return (long)i;
		}
	if (w->n_ents == w->cap_ents) {
		size_t cap = w->cap_ents ? 2 * w->cap_ents : 16;
		entry *e = realloc(w->ents, cap * sizeof *e);
		if (!e) {
			free(path);
			return walk_fail(w, kjit__error(KJIT_ERR_NOMEM, "out of memory")), -1;
		}
		w->ents = e;
		w->cap_ents = cap;
	}
	entry *e = &w->ents[w->n_ents++];
	memset(e, 0, sizeof *e);
	e->path = path;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return (long)(w->n_ents - 1);
	size_t len;
	kjit_status s = kjit__read_budget(path, KJIT__MAX_TEXT_BYTES, &w->budget, &e->text, &len);
	if (s != KJIT_OK) {
		char *why = strdup(kjit__error_msg());
		walk_fail(w, kjit__error(s, "kernel %s: cannot read header %s (included from %s, "
		                         "line %u): %s", w->h->who, path, who, line,
		                         why ? why : "?"));
		free(why);
		return -1;
	}
	if (strlen(e->text) != len)
		return walk_fail(w, kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: header %s contains "
		                                "a NUL byte: not CUDA source text", w->h->who,
		                                path)), -1;
	e->present = 1;
	e->size = (long long)st.st_size;
	e->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	/* an mtime this close to now may be shared by a later edit of the
	 * same size: such a file is re-hashed at every check */
	if ((double)e->mtime_ns * 1e-9 > kjit__wall_time() - 2.0)
		e->mtime_ns = -1;
	e->hash = kjit__hash(e->text, len, 0);
	return (long)(w->n_ents - 1);
}

/* Adds a header to those NVRTC is handed. */
static int hand(walk *w, const char *name, const char *text, size_t ent)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		char **names = realloc(w->names, cap * sizeof *names);
		if (names)
			w->names = names;
		const char **texts = names ? realloc(w->texts, cap * sizeof *texts) : NULL;
		if (texts)
			w->texts = texts;
		size_t *e = texts ? realloc(w->ent, cap * sizeof *e) : NULL;
		if (!e)
			return walk_fail(w, kjit__error(KJIT_ERR_NOMEM, "out of memory")), 0;
		w->ent = e;
		w->cap = cap;
	}
	if (!(w->names[w->n] = strdup(name)))
		return walk_fail(w, kjit__error(KJIT_ERR_NOMEM, "out of memory")), 0;
	w->texts[w->n] = text;
	w->ent[w->n++] = ent;
	return 1;
}

/* The folder of a path ("." for a bare name); malloc'ed. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	return kjit__strdup_printf("%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* A standard header that nothing of the kernel's answered: its stand-in,
 * once, where the toolkit's headers are searched. */
static int stand_in(walk *w, const char *name)
{
	const char *text = w->h->no_default ? NULL : kjit__std_header(name);
	if (!text)
		return 0;
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->names[i], name) == 0)
			return 0;
	if (!hand(w, name, text, 0))
		return 1;
	walk_text(w, text, name, NULL);
	return w->st != KJIT_OK;
}

/* One #include: an in-memory header by its exact name, else the
 * including file's folder (#include "..." from a file), else the include
 * dirs in order, else a standard header's stand-in; a name found nowhere
 * is the toolkit's, or NVRTC's error. */
static int on_include(void *ctx, const char *name, int angle, unsigned line)
{
	frame *f = ctx;
	walk *w = f->w;
	const kjit__headers *h = w->h;
	for (size_t i = 0; i < h->n_mem; i++)
		if (strcmp(h->mem_names[i], name) == 0) {
			if (!w->mem_seen[i]) {
				w->mem_seen[i] = 1;
				walk_text(w, h->mem_texts[i], h->mem_names[i], NULL);
			}
			return w->st != KJIT_OK;
		}
	int absolute = name[0] == '/', own = !absolute && !angle && f->folder;
	size_t n_cand = absolute ? 1 : (size_t)own + h->n_dirs;
	if (n_cand)
		w->files = 1;
	if (!n_cand || !w->read) {
		w->unresolved = 1;
		return n_cand ? 0 : stand_in(w, name);
	}
	long found = -1;
	for (size_t c = 0; c < n_cand && found < 0; c++) {
		const char *dir = absolute ? NULL : own && c == 0 ? f->folder : h->dirs[c - (size_t)own];
		long e = probe(w, dir, name, f->who, line);
		if (e < 0)
			return 1;
		if (w->ents[e].present)
			found = e;
	}
	if (found < 0) {
		w->unresolved = 1;
		return stand_in(w, name);
	}
	/* NVRTC takes headers by the name written in #include */
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->names[i], name) == 0) {
			if (w->ent[i] != (size_t)found + 1)
				walk_fail(w, kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: #include \"%s\" "
				                         "means two files: %s, and %s in %s (line %u); "
				                         "NVRTC takes headers by name: include one of them "
				                         "by another", h->who, name,
				                         w->ent[i] ? w->ents[w->ent[i] - 1].path
				                                   : "an in-memory header",
				                         w->ents[found].path, f->who, line));
			return w->st != KJIT_OK;
		}
	const char *path = w->ents[found].path, *text = w->ents[found].text;
	char *folder = folder_of(path);
	if (!folder || !hand(w, name, text, (size_t)found + 1)) {
		free(folder);
		if (w->st == KJIT_OK)
			walk_fail(w, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
		return 1;
	}
	walk_text(w, text, path, folder);
	free(folder);
	return w->st != KJIT_OK;
}

static void walk_text(walk *w, const char *text, const char *who, const char *folder)
{
	if (w->depth >= MAX_DEPTH) {
		walk_fail(w, kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: headers nested more than "
		                         "%d deep at %s (an include cycle without a guard?)",
		                         w->h->who, MAX_DEPTH, who));
		return;
	}
	frame f = { w, who, folder };
	w->depth++;
	kjit__scan_includes(text, on_include, &f);
	w->depth--;
}

static void walk_free(walk *w)
{
	for (size_t i = 0; i < w->n_ents; i++) {
		free(w->ents[i].path);
		free(w->ents[i].text);
	}
	free(w->ents);
	for (size_t i = 0; i < w->n; i++)
		free(w->names[i]);
	free(w->names);
	free(w->texts);
	free(w->ent);
	free(w->mem_seen);
	memset(w, 0, sizeof *w);
}

/* Walks the source: with read, every file it reaches is read. */
static kjit_status walk_source(kjit__headers *h, int read, walk *w)
{
	memset(w, 0, sizeof *w);
	w->h = h;
	w->read = read;
	w->budget = KJIT__BUDGET(KJIT__MAX_HEADERS_TOTAL_BYTES, "headers");
	if (!(w->mem_seen = calloc(h->n_mem + 1, 1)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < h->n_mem; i++)
		if (!hand(w, h->mem_names[i], h->mem_texts[i], 0))
			return w->st;
	walk_text(w, h->source, h->main, h->home);
	return w->st;
}

/* The line of an entry in the digest, which leaves size and mtime out. */
static void digest_line(kjit__buf *b, const char *hash, const char *path)
{
	kjit__buf_str(b, hash);
	kjit__buf_add(b, " ", 1);
	kjit__buf_str(b, path);
	kjit__buf_add(b, "\n", 1);
}

static kjit__hash128 combine(kjit__hash128 base, kjit__hash128 digest)
{
	uint64_t v[4] = { base.lo, base.hi, digest.lo, digest.hi };
	return kjit__hash(v, sizeof v, 0x6d616e69u);
}

/* Reads every file the source reaches, once: the manifest, the digest
 * and what NVRTC is handed. Under h->lock. */
static kjit_status resolve_files(kjit__headers *h)
{
	walk w;
	kjit_status st = walk_source(h, 1, &w);
	kjit__buf m = { 0 }, d = { 0 };
	for (size_t i = 0; st == KJIT_OK && i < w.n_ents; i++) {
		const entry *e = &w.ents[i];
		char hex[33] = "-", line[96] = "- - - ";
		if (e->present) {
			kjit__hash_hex(e->hash, hex);
			snprintf(line, sizeof line, "%s %lld %lld ", hex, e->size, e->mtime_ns);
		}
		kjit__buf_str(&m, line);
		kjit__buf_str(&m, e->path);
		kjit__buf_add(&m, "\n", 1);
		digest_line(&d, hex, e->path);
	}
	char *manifest = kjit__buf_done(&m), *dtext = kjit__buf_done(&d);
	if (st == KJIT_OK && (!manifest || !dtext))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st != KJIT_OK) {
		free(manifest);
		free(dtext);
		walk_free(&w);
		return st;
	}
	h->read = kjit__hash(dtext, strlen(dtext), 0);
	free(dtext);
	h->set.n = w.n;
	h->set.names = (const char *const *)w.names;
	h->set.texts = w.texts;
	h->set.manifest = w.n_ents ? manifest : NULL;
	if (!w.n_ents)
		free(manifest);
	h->set.digest = h->read;
	h->names = w.names;
	h->ents = w.ents;
	h->n_ents = w.n_ents;
	free(w.ent);
	free(w.mem_seen);
	h->resolved = 1;
	atomic_store_explicit(&h->digest, h->files ? &h->read : NULL, memory_order_release);
	return KJIT_OK;
}

/* Whether every file of a stored manifest is as it was: a file whose
 * size and mtime match is trusted, another one re-hashed; a file that
 * was not there must still not be. *digest: the manifest's. */
static int manifest_holds(const char *manifest, kjit__hash128 *digest)
{
	kjit__buf d = { 0 };
	int holds = 1;
	/* past it, the walk that follows says which header is too much */
	kjit__budget budget = KJIT__BUDGET(KJIT__MAX_HEADERS_TOTAL_BYTES, "headers");
	for (const char *p = manifest; holds && *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		char hash[33] = "", *path = NULL;
		long long size = 0, mtime = 0;
		int off = 0;
		if (p[0] == '-' && sscanf(p, "- - - %n", &off) == 0 && off > 0)
			snprintf(hash, sizeof hash, "-");
		else if (sscanf(p, "%32s %lld %lld %n", hash, &size, &mtime, &off) != 3 || !off)
			holds = 0;
		if (holds && !(path = kjit__strdup_printf("%.*s", (int)(end - p - off), p + off)))
			holds = 0;
		struct stat st;
		int there = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
		if (holds && strcmp(hash, "-") == 0) {
			holds = !there;
		} else if (holds) {
			long long m = there ? (long long)st.st_mtim.tv_sec * 1000000000LL +
			                      st.st_mtim.tv_nsec : 0;
			holds = there;
			if (holds && (mtime < 0 || m != mtime || (long long)st.st_size != size)) {
				char *text = NULL, hex[33] = "";
				size_t len = 0;
				holds = kjit__read_budget(path, KJIT__MAX_TEXT_BYTES, &budget, &text,
				                          &len) == KJIT_OK;
				if (holds)
					kjit__hash_hex(kjit__hash(text, len, 0), hex);
				holds = holds && strcmp(hex, hash) == 0;
				free(text);
			}
		}
		if (holds)
			digest_line(&d, hash, path);
		free(path);
		p = nl ? nl + 1 : end;
	}
	char *text = kjit__buf_done(&d);
	if (holds && text)
		*digest = kjit__hash(text, strlen(text), 0);
	free(text);
	return holds && text;
}

int kjit__headers_key(kjit__headers *h, kjit__hash128 base, kjit__hash128 *out)
{
	if (!h->files) {
		*out = base;
		return 1;
	}
	const kjit__hash128 *d = atomic_load_explicit(&h->digest, memory_order_acquire);
	*out = d ? combine(base, *d) : base;
	return d != NULL;
}

kjit_status kjit__headers_prepare(kjit__headers *h, kjit__store *store, const char *base_key)
{
	if (!h->files || atomic_load_explicit(&h->digest, memory_order_acquire))
		return KJIT_OK;
	pthread_mutex_lock(&h->lock);
	kjit_status st = KJIT_OK;
	if (!atomic_load_explicit(&h->digest, memory_order_relaxed)) {
		char *manifest = NULL;
		st = kjit__store_manifest_get(store, base_key, &manifest);
		if (st == KJIT_OK && manifest_holds(manifest, &h->checked))
			atomic_store_explicit(&h->digest, &h->checked, memory_order_release);
		else if (st == KJIT_OK || st == KJIT_ERR_NOT_FOUND)
			st = resolve_files(h);
		free(manifest);
	}
	pthread_mutex_unlock(&h->lock);
	return st;
}

kjit_status kjit__headers_load(kjit__headers *h, const kjit__header_set **out)
{
	pthread_mutex_lock(&h->lock);
	kjit_status st = h->resolved ? KJIT_OK : resolve_files(h);
	pthread_mutex_unlock(&h->lock);
	*out = &h->set;
	return st;
}

kjit__hash128 kjit__headers_final_key(const kjit__header_set *set, kjit__hash128 base)
{
	return set->manifest ? combine(base, set->digest) : base;
}

const char *kjit__headers_identity(const kjit__headers *h)
{
	return h->identity;
}

/* The text of the key seed: the in-memory headers by content, the dirs,
 * the source's folder and the toolkit, each where it can decide what a
 * compile reads. */
static char *identity_of(const kjit__headers *h, int unresolved)
{
	if (!h->n_mem && !h->n_dirs && !h->files && !unresolved)
		return NULL;
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "headers\n");
	for (size_t i = 0; i < h->n_mem; i++) {
		char hex[33];
		kjit__hash_hex(kjit__hash(h->mem_texts[i], strlen(h->mem_texts[i]), 0), hex);
		kjit__buf_str(&b, hex);
		kjit__buf_add(&b, " ", 1);
		kjit__buf_str(&b, h->mem_names[i]);
		kjit__buf_add(&b, "\n", 1);
	}
	for (size_t i = 0; i < h->n_dirs; i++) {
		kjit__buf_str(&b, "-I");
		kjit__buf_str(&b, h->dirs[i]);
		kjit__buf_add(&b, "\n", 1);
	}
	if (h->files) {
		kjit__buf_str(&b, "home ");
		kjit__buf_str(&b, h->home);
		kjit__buf_add(&b, "\n", 1);
	}
	if (h->files || unresolved)
		kjit__buf_str(&b, h->no_default ? "no default includes" : toolkit.id);
	return kjit__buf_done(&b);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const kjit_header *)a)->name, ((const kjit_header *)b)->name);
}

/* Checks and copies the headers of opts, sorted by name so that their
 * order does not change the key. */
static kjit_status copy_memory(kjit__headers *h, const kjit_kernel_options *o)
{
	if (!o || !o->n_headers)
		return KJIT_OK;
	if (!o->headers)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: n_headers is %zu but headers is "
		                   "NULL", h->who, o->n_headers);
	for (size_t i = 0; i < o->n_headers; i++)
		if (!o->headers[i].name || !*o->headers[i].name || !o->headers[i].text)
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: header %zu (%s) has no %s",
			                   h->who, i, o->headers[i].name ? o->headers[i].name : "NULL",
			                   o->headers[i].name && *o->headers[i].name ? "text" : "name");
	kjit_header *sorted = malloc(o->n_headers * sizeof *sorted);
	h->mem_names = calloc(o->n_headers, sizeof *h->mem_names);
	h->mem_texts = calloc(o->n_headers, sizeof *h->mem_texts);
	if (!sorted || !h->mem_names || !h->mem_texts) {
		free(sorted);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	memcpy(sorted, o->headers, o->n_headers * sizeof *sorted);
	qsort(sorted, o->n_headers, sizeof *sorted, by_name);
	kjit_status st = KJIT_OK;
	for (size_t i = 0; st == KJIT_OK && i < o->n_headers; i++) {
		if (i && strcmp(sorted[i].name, sorted[i - 1].name) == 0)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: two headers are named \"%s\"",
			                 h->who, sorted[i].name);
		else if (!(h->mem_names[i] = strdup(sorted[i].name)) ||
		         !(h->mem_texts[i] = strdup(sorted[i].text)))
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		h->n_mem = i + 1;
	}
	free(sorted);
	return st;
}

static kjit_status copy_dirs(kjit__headers *h, const kjit_kernel_options *o)
{
	if (!o || !o->n_include_dirs)
		return KJIT_OK;
	if (!o->include_dirs)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: n_include_dirs is %zu but "
		                   "include_dirs is NULL", h->who, o->n_include_dirs);
	if (!(h->dirs = calloc(o->n_include_dirs, sizeof *h->dirs)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < o->n_include_dirs; i++) {
		const char *d = o->include_dirs[i];
		struct stat st;
		if (!d || !*d || strchr(d, '\n'))
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: include dir %zu is %s",
			                   h->who, i, d ? "empty or has a newline" : "NULL");
		if (stat(d, &st) != 0)
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: include dir %s: %s", h->who,
			                   d, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: include dir %s is not a "
			                   "folder", h->who, d);
		if (!(h->dirs[i] = strdup(d)))
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		h->n_dirs = i + 1;
	}
	return KJIT_OK;
}

kjit_status kjit__headers_make(const char *who, const char *source, const char *path,
                               const char *main, const kjit_kernel_options *opts,
                               kjit__headers **out)
{
	*out = NULL;
	kjit__headers_init();
	kjit__headers *h = calloc(1, sizeof *h);
	if (!h)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	pthread_mutex_init(&h->lock, NULL);
	h->who = who;
	h->source = source;
	h->no_default = opts && opts->no_default_includes;
	h->set.n_opts = h->no_default ? 0 : toolkit.n;
	h->set.opts = toolkit.opts;
	kjit_status st = KJIT_OK;
	if (!(h->main = strdup(main)) || !(h->home = path ? folder_of(path) : strdup(".")))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK)
		st = copy_memory(h, opts);
	if (st == KJIT_OK)
		st = copy_dirs(h, opts);
	walk w = { 0 };
	if (st == KJIT_OK)
		st = walk_source(h, 0, &w);
	h->files = w.files;
	if (st == KJIT_OK && (h->identity = identity_of(h, w.unresolved)) == NULL &&
	    (h->n_mem || h->n_dirs || h->files || w.unresolved))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	walk_free(&w);
	if (st != KJIT_OK) {
		kjit__headers_free(h);
		return st;
	}
	*out = h;
	return KJIT_OK;
}

void kjit__headers_free(kjit__headers *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_mem; i++) {
		free(h->mem_names[i]);
		free(h->mem_texts[i]);
	}
	free(h->mem_names);
	free(h->mem_texts);
	for (size_t i = 0; i < h->n_dirs; i++)
		free(h->dirs[i]);
	free(h->dirs);
	for (size_t i = 0; i < h->n_ents; i++) {
		free(h->ents[i].path);
		free(h->ents[i].text);
	}
	free(h->ents);
	for (size_t i = 0; i < h->set.n; i++)
		free(h->names[i]);
	free(h->names);
	free((void *)h->set.texts);
	free((void *)h->set.manifest);
	free(h->identity);
	free(h->main);
	free(h->home);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* ---- NVRTC's "cannot open source file" ---------------------------------------- */

kjit_status kjit__headers_missing(const kjit__headers *h, kjit_status st)
{
	const char *log = kjit__error_msg();
	const char *at = strstr(log, "cannot open source file \"");
	size_t skip = 25;
	if (!at) {
		at = strstr(log, "could not open source file \"");
		skip = 28;
	}
	if (st != KJIT_ERR_COMPILE || !at)
		return st;
	const char *name = at + skip, *q = strchr(name, '"');
	const char *bol = at;
	while (bol > log && bol[-1] != '\n')
		bol--;
	const char *paren = memchr(bol, '(', (size_t)(at - bol));
	if (!q || !paren)
		return st;
	char who[PATH_MAX];
	snprintf(who, sizeof who, "%.*s", (int)(paren - bol), bol);
	unsigned line = (unsigned)strtoul(paren + 1, NULL, 10);
	for (size_t i = 0; h->resolved && i < h->set.n; i++)
		if (strcmp(h->set.names[i], who) == 0 && i >= h->n_mem) {
			for (size_t e = 0; e < h->n_ents; e++)
				if (h->ents[e].text == h->set.texts[i])
					snprintf(who, sizeof who, "%s", h->ents[e].path);
			break;
		}
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "the in-memory headers, the including file's folder (for #include "
	              "\"...\")");
	for (size_t i = 0; i < h->n_dirs; i++) {
		kjit__buf_str(&b, ", ");
		kjit__buf_str(&b, h->dirs[i]);
	}
	if (h->no_default)
		kjit__buf_str(&b, "; not the toolkit's headers (no_default_includes is set)");
	for (size_t i = 0; !h->no_default && i < toolkit.n; i++) {
		kjit__buf_str(&b, i ? ", " : ", the toolkit's ");
		kjit__buf_str(&b, toolkit.opts[i] + 2);
	}
	char *searched = kjit__buf_done(&b);
	char *msg = kjit__strdup_printf("kernel %s: header \"%.*s\" not found, included from %s "
	                                "line %u; searched %s\n%s", h->who, (int)(q - name), name,
	                                who, line, searched ? searched : "?", log);
	free(searched);
	return msg ? kjit__error_take(st, msg) : st;
}
