/*
 * json.c - a strict RFC 8259 JSON reader: the document as a tree, or the
 * line and column of its first error. No comments, no trailing commas, no
 * duplicate keys, UTF-8 only, integers kept as written so that the reader
 * of a field decides whether one fits.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

#define MAX_DEPTH 256

_Static_assert(KJIT__JSON_MAX_VALUES == 1048576, "fail_at() below says 1048576");

typedef struct reader {
	const char *file;
	const char *s;
	size_t len, pos;
	size_t values; /* read so far, against KJIT__JSON_MAX_VALUES */
	int depth;
} reader;

/* "FILE:LINE:COL: msg (got X)" at byte offset at; the column counts
 * characters, not bytes. */
static kjit_status fail_at(reader *r, size_t at, const char *msg)
{
	int line = 1, col = 1;
	for (size_t i = 0; i < at && i < r->len; i++) {
		unsigned char c = (unsigned char)r->s[i];
		if (c == '\n') {
			line++;
			col = 1;
		} else if ((c & 0xc0) != 0x80) {
			col++;
		}
	}
	char got[32];
	if (at >= r->len)
		snprintf(got, sizeof got, "end of file");
	else if (r->s[at] >= 0x20 && r->s[at] < 0x7f)
		snprintf(got, sizeof got, "'%c'", r->s[at]);
	else
		snprintf(got, sizeof got, "byte 0x%02x", (unsigned char)r->s[at]);
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s:%d:%d: expected %s (got %s)", r->file, line, col, msg,
	                   got);
}

static kjit_status nomem(void)
{
	return kjit__error(KJIT_ERR_NOMEM, "out of memory");
}

static void skip_ws(reader *r)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
	                           r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
		r->pos++;
}

static int peek(const reader *r)
{
	return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

/* Length of the well-formed UTF-8 sequence at p (at most n bytes), 0 when
 * it is not one (overlong forms and surrogates included). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	unsigned cp = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_utf8(kjit__buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	kjit__buf_add(b, u, n);
}

static int hex4(const reader *r, size_t at, unsigned *out)
{
	*out = 0;
	for (size_t i = 0; i < 4; i++) {
		int c = at + i < r->len ? r->s[at + i] : -1;
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			return 0;
		*out = *out << 4 | (unsigned)v;
	}
	return 1;
}

/* A string at r->pos (the opening quote), decoded into *out. */
static kjit_status read_string(reader *r, char **out)
{
	kjit__buf b = { 0 };
	size_t start = r->pos++;
	for (;;) {
		if (r->pos >= r->len) {
			free(kjit__buf_done(&b));
			return fail_at(r, start, "the closing '\"' of this string");
		}
		unsigned char c = (unsigned char)r->s[r->pos];
		if (c == '"') {
			r->pos++;
			break;
		}
		if (c < 0x20) {
			free(kjit__buf_done(&b));
			return fail_at(r, r->pos, "a control character escaped in a string (\\n, \\t, "
			                          "\\u00XX)");
		}
		if (c != '\\') {
			size_t n = utf8_len((const unsigned char *)r->s + r->pos, r->len - r->pos);
			if (!n) {
				free(kjit__buf_done(&b));
				return fail_at(r, r->pos, "UTF-8 text");
			}
			kjit__buf_add(&b, r->s + r->pos, n);
			r->pos += n;
			continue;
		}
		size_t esc = r->pos++;
		int e = peek(r);
		const char *plain = e == '"' ? "\"" : e == '\\' ? "\\" : e == '/' ? "/" : e == 'b' ? "\b"
		                    : e == 'f' ? "\f" : e == 'n' ? "\n" : e == 'r' ? "\r"
		                    : e == 't' ? "\t" : NULL;
		if (plain) {
			kjit__buf_add(&b, plain, 1);
			r->pos++;
			continue;
		}
		unsigned cp, lo;
		if (e != 'u' || !hex4(r, r->pos + 1, &cp)) {
			free(kjit__buf_done(&b));
			return fail_at(r, esc, "an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
		}
		r->pos += 5;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (r->pos + 1 < r->len && r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u' &&
			    hex4(r, r->pos + 2, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				r->pos += 6;
			} else {
				free(kjit__buf_done(&b));
				return fail_at(r, esc, "a high surrogate followed by a low one (\\uDC00 to "
				                       "\\uDFFF)");
			}
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			free(kjit__buf_done(&b));
			return fail_at(r, esc, "a low surrogate after a high one");
		} else if (cp == 0) {
			free(kjit__buf_done(&b));
			return fail_at(r, esc, "a string without \\u0000");
		}
		put_utf8(&b, cp);
	}
	if (!(*out = kjit__buf_done(&b)))
		return nomem();
	return KJIT_OK;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static kjit_status read_number(reader *r, kjit__json *v)
{
	size_t start = r->pos;
	if (peek(r) == '-')
		r->pos++;
	if (peek(r) == '0') {
		r->pos++;
		if (is_digit(peek(r)))
			return fail_at(r, r->pos, "no leading zeros in a number");
	} else if (is_digit(peek(r))) {
		while (is_digit(peek(r)))
			r->pos++;
	} else {
		return fail_at(r, r->pos, "a digit");
	}
	if (peek(r) == '.') {
		r->pos++;
		if (!is_digit(peek(r)))
			return fail_at(r, r->pos, "a digit after '.'");
		while (is_digit(peek(r)))
			r->pos++;
	}
	if (peek(r) == 'e' || peek(r) == 'E') {
		r->pos++;
		if (peek(r) == '+' || peek(r) == '-')
			r->pos++;
		if (!is_digit(peek(r)))
			return fail_at(r, r->pos, "a digit in the exponent");
		while (is_digit(peek(r)))
			r->pos++;
	}
	v->type = KJIT__JSON_NUMBER;
	if (!(v->text = strndup(r->s + start, r->pos - start)))
		return nomem();
	return KJIT_OK;
}

static kjit_status read_value(reader *r, kjit__json *v);

static kjit_status grow(kjit__json *v, size_t *cap)
{
	if (v->n < *cap)
		return KJIT_OK;
	size_t c = *cap ? *cap * 2 : 4;
	kjit__json *items = realloc(v->items, c * sizeof *items);
	if (!items)
		return nomem();
	v->items = items;
	if (v->type == KJIT__JSON_OBJECT) {
		char **keys = realloc(v->keys, c * sizeof *keys);
		if (!keys)
			return nomem();
		v->keys = keys;
	}
	*cap = c;
	return KJIT_OK;
}

/* An array or an object at r->pos (its opening bracket). */
static kjit_status read_container(reader *r, kjit__json *v)
{
	int object = peek(r) == '{';
	const char close = object ? '}' : ']';
	size_t cap = 0;
	kjit_status st;
	v->type = object ? KJIT__JSON_OBJECT : KJIT__JSON_ARRAY;
	if (++r->depth > MAX_DEPTH)
		return fail_at(r, r->pos, "nesting at most 256 deep");
	r->pos++;
	skip_ws(r);
	if (peek(r) == close) {
		r->pos++;
		r->depth--;
		return KJIT_OK;
	}
	for (;;) {
		if ((st = grow(v, &cap)) != KJIT_OK)
			return st;
		kjit__json *item = &v->items[v->n];
		memset(item, 0, sizeof *item);
		if (object) {
			skip_ws(r);
			size_t at = r->pos;
			if (peek(r) != '"')
				return fail_at(r, at, peek(r) == close ? "a string key (no trailing commas "
				                                         "in JSON)"
				                      : peek(r) == '/' ? "a string key (no comments in JSON)"
				                                       : "a string key");
			char *key;
			if ((st = read_string(r, &key)) != KJIT_OK)
				return st;
			for (size_t i = 0; i < v->n; i++)
				if (strcmp(v->keys[i], key) == 0) {
					char msg[160];
					snprintf(msg, sizeof msg, "each key once (\"%.100s\" repeats)", key);
					free(key);
					return fail_at(r, at, msg);
				}
			v->keys[v->n] = key;
			v->n++;
			skip_ws(r);
			if (peek(r) != ':')
				return fail_at(r, r->pos, "':' after the key");
			r->pos++;
		} else {
			v->n++;
		}
		if ((st = read_value(r, item)) != KJIT_OK)
			return st;
		skip_ws(r);
		if (peek(r) == ',') {
			r->pos++;
			if (!object) {
				skip_ws(r);
				if (peek(r) == ']')
					return fail_at(r, r->pos, "a value (no trailing commas in JSON)");
			}
			continue;
		}
		if (peek(r) == close) {
			r->pos++;
			r->depth--;
			return KJIT_OK;
		}
		return fail_at(r, r->pos, object ? "',' or '}'" : "',' or ']'");
	}
}

static kjit_status read_value(reader *r, kjit__json *v)
{
	skip_ws(r);
	if (++r->values > KJIT__JSON_MAX_VALUES)
		return fail_at(r, r->pos, "at most 1048576 values in a document");
	int c = peek(r);
	if (c == '{' || c == '[')
		return read_container(r, v);
	if (c == '"') {
		v->type = KJIT__JSON_STRING;
		return read_string(r, &v->text);
	}
	if (c == '-' || is_digit(c))
		return read_number(r, v);
	static const struct {
		const char *word;
		kjit__json_type type;
	} words[] = { { "true", KJIT__JSON_BOOL }, { "false", KJIT__JSON_BOOL },
		      { "null", KJIT__JSON_NULL } };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i].word);
		if (r->len - r->pos >= n && memcmp(r->s + r->pos, words[i].word, n) == 0) {
			v->type = words[i].type;
			v->b = i == 0;
			r->pos += n;
			return KJIT_OK;
		}
	}
	return fail_at(r, r->pos, c == '/' ? "a JSON value (no comments in JSON)"
	                                   : c == '\'' ? "a JSON value (strings take double quotes)"
	                                               : "a JSON value");
}

kjit_status kjit__json_parse(const char *text, size_t len, const char *file, kjit__json **out)
{
	reader r = { .file = file, .s = text, .len = len };
	*out = NULL;
	if (len > KJIT__JSON_MAX_BYTES)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: a JSON document of %zu bytes, at most "
		                   "%zu", file, len, KJIT__JSON_MAX_BYTES);
	kjit__json *v = calloc(1, sizeof *v);
	if (!v)
		return nomem();
	kjit_status st = read_value(&r, v);
	if (st == KJIT_OK) {
		skip_ws(&r);
		if (r.pos < r.len)
			st = fail_at(&r, r.pos, "the end of the document after its value");
	}
	if (st != KJIT_OK) {
		kjit__json_free(v);
		return st;
	}
	*out = v;
	return KJIT_OK;
}

static void free_members(kjit__json *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free_members(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
}

void kjit__json_free(kjit__json *v)
{
	if (v) {
		free_members(v);
		free(v);
	}
}

const kjit__json *kjit__json_get(const kjit__json *obj, const char *key)
{
	if (!obj || obj->type != KJIT__JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

const char *kjit__json_scalar_text(const kjit__json *v)
{
	switch (v ? v->type : KJIT__JSON_NULL) {
	case KJIT__JSON_STRING:
	case KJIT__JSON_NUMBER: return v->text;
	case KJIT__JSON_BOOL: return v->b ? "1" : "0";
	default: return NULL;
	}
}

int kjit__json_int(const kjit__json *v, int64_t *out)
{
	if (!v || v->type != KJIT__JSON_NUMBER || strpbrk(v->text, ".eE"))
		return 0;
	errno = 0;
	long long x = strtoll(v->text, NULL, 10);
	if (errno == ERANGE)
		return -1;
	*out = (int64_t)x;
	return 1;
}
