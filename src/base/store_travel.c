/*
 * store_travel.c - a stored binary as bytes that travel to another store
 * (kjit-tune --mpi's ranks): the whole row of kjit__store_binary_read()
 * with its checksum, and the checked reading of such bytes, which come
 * from another process and are trusted in nothing.
 *
 * Layout, little-endian: "KJITBIN1", then each text (key, signature,
 * kernel name, source, parameter names, options, arch, NVRTC, lowered
 * name, base key, manifest) as a u32 length and its bytes (0xffffffff:
 * NULL), the compile time as the bits of an f64, the binary as a u64
 * length and its bytes, and the checksum's 32 hex digits.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

#define MAGIC "KJITBIN1"
#define TEXTS KJIT__BINARY_TEXTS
/* the texts before base_key and manifest are NOT NULL columns */
#define REQUIRED 9
#define NONE UINT32_MAX

static void put_le(kjit__buf *o, uint64_t v, int bytes)
{
	unsigned char c[8];
	for (int i = 0; i < bytes; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	kjit__buf_add(o, (const char *)c, (size_t)bytes);
}

kjit_status kjit__binary_encode(const kjit__binary *b, const char checksum[33], void **out,
                                size_t *size)
{
	kjit__binary copy = *b;
	const char **t[TEXTS];
	kjit__buf o = { 0 };
	*out = NULL;
	*size = 0;
	kjit__binary_texts(&copy, t);
	kjit__buf_add(&o, MAGIC, 8);
	for (int i = 0; i < TEXTS; i++) {
		size_t n = *t[i] ? strlen(*t[i]) : 0;
		if (n >= NONE)
			return kjit__error(KJIT_ERR_INVALID_ARG, "a binary's text of %zu bytes", n);
		put_le(&o, *t[i] ? (uint64_t)n : NONE, 4);
		if (*t[i])
			kjit__buf_add(&o, *t[i], n);
	}
	uint64_t bits;
	memcpy(&bits, &b->compile_ms, sizeof bits);
	put_le(&o, bits, 8);
	put_le(&o, (uint64_t)b->size, 8);
	kjit__buf_add(&o, b->cubin, b->size);
	kjit__buf_add(&o, checksum, 32);
	size_t n = o.len;
	if (!(*out = kjit__buf_done(&o)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	*size = n;
	return KJIT_OK;
}

/* The reader's place in the bytes; a short read leaves at past the end. */
typedef struct reader {
	const unsigned char *p;
	size_t n, at;
} reader;

static int take(reader *r, size_t n, const unsigned char **out)
{
	if (n > r->n - r->at)
		return 0;
	*out = r->p + r->at;
	r->at += n;
	return 1;
}

static int take_le(reader *r, int bytes, uint64_t *v)
{
	const unsigned char *c;
	if (!take(r, (size_t)bytes, &c))
		return 0;
	*v = 0;
	for (int i = 0; i < bytes; i++)
		*v |= (uint64_t)c[i] << (8 * i);
	return 1;
}

static kjit_status bad(const char *what)
{
	return kjit__error(KJIT_ERR_CORRUPT, "a travelling binary: %s", what);
}

kjit_status kjit__binary_decode(const void *data, size_t size, kjit__binary *b, void **mem)
{
	static const char *const names[TEXTS] = { "key", "signature", "kernel name", "source",
		                                  "parameter names", "options", "arch", "NVRTC",
		                                  "lowered name", "base key", "manifest" };
	reader r = { data, size, 0 };
	const unsigned char *magic, *text[TEXTS], *cubin, *sum;
	uint64_t len[TEXTS], bits, n;
	const char **t[TEXTS];
	memset(b, 0, sizeof *b);
	*mem = NULL;
	if (!data || !take(&r, 8, &magic) || memcmp(magic, MAGIC, 8) != 0)
		return bad("not one (no KJITBIN1 mark)");
	for (int i = 0; i < TEXTS; i++) {
		if (!take_le(&r, 4, &len[i]))
			return bad("cut short");
		if (len[i] == NONE) {
			if (i < REQUIRED)
				return kjit__error(KJIT_ERR_CORRUPT, "a travelling binary without a %s",
				                   names[i]);
			text[i] = NULL;
		} else if (!take(&r, (size_t)len[i], &text[i])) {
			return bad("cut short");
		} else if (memchr(text[i], '\0', (size_t)len[i])) {
			return kjit__error(KJIT_ERR_CORRUPT, "a travelling binary: a NUL in its %s",
			                   names[i]);
		}
	}
	if (!take_le(&r, 8, &bits) || !take_le(&r, 8, &n) || n > r.n - r.at ||
	    !take(&r, (size_t)n, &cubin) || !take(&r, 32, &sum))
		return bad("cut short");
	if (r.at != r.n)
		return bad("bytes after its end");
	if (len[0] != 32 || strspn((const char *)text[0], "0123456789abcdef") < 32)
		return bad("a key that is not 32 hex digits");
	char have[33];
	kjit__store_checksum(cubin, (size_t)n, have);
	if (memcmp(have, sum, 32) != 0)
		return kjit__error(KJIT_ERR_CORRUPT, "binary %.32s arrived with checksum %.32s, its "
		                   "%zu bytes have %s", (const char *)text[0],
		                   (const char *)sum, (size_t)n, have);
	/* the texts with their NULs, and the binary, copied out of the bytes:
	 * all of them fit in size */
	char *at = *mem = malloc(size + TEXTS + 1);
	if (!at)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit__binary_texts(b, t);
	for (int i = 0; i < TEXTS; i++) {
		if (!text[i])
			continue;
		*t[i] = memcpy(at, text[i], (size_t)len[i]);
		at[len[i]] = '\0';
		at += len[i] + 1;
	}
	b->cubin = memcpy(at, cubin, (size_t)n);
	b->size = (size_t)n;
	memcpy(&b->compile_ms, &bits, sizeof bits);
	return KJIT_OK;
}
