/*
 * strbuf.c - a growing string for building JSON and SQL text (a failed
 * allocation is remembered and reported once, by kjit__buf_done()), and
 * text quoted for messages.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

void kjit__buf_add(kjit__buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void kjit__buf_str(kjit__buf *b, const char *s)
{
	kjit__buf_add(b, s, strlen(s));
}

void kjit__buf_json_str(kjit__buf *b, const char *s)
{
	kjit__buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			kjit__buf_add(b, "\\", 1);
			kjit__buf_add(b, s, 1);
		} else if (c < 0x20) {
			char esc[8];
			snprintf(esc, sizeof esc, "\\u%04x", c);
			kjit__buf_str(b, esc);
		} else {
			kjit__buf_add(b, s, 1);
		}
	}
	kjit__buf_add(b, "\"", 1);
}

char *kjit__buf_done(kjit__buf *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		return b->oom ? NULL : strdup("");
	}
	return b->p;
}

const char *kjit__quote(char *out, size_t cap, const char *s, size_t max, char q)
{
	size_t n = 0, i = 0;
	if (!cap)
		return out;
	/* each step writes at most 4 bytes; room is kept for "'...'" and the 0 */
	for (out[n++] = q; s[i] && i < max && n + 4 + 5 <= cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' || c == '\t')
			n += (size_t)snprintf(out + n, cap - n, "\\%c", c == '\n' ? 'n' : 't');
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	snprintf(out + n, cap - n, "%s%c", s[i] ? "..." : "", q);
	return out;
}
