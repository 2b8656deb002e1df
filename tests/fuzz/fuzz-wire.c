/*
 * fuzz-wire: libFuzzer target for the decoders of kjit-tune's processes
 * (autotune/wire/wire.c): the input goes through every message decoder of
 * the worker protocol and of the rank messages, and through the frame
 * reader over a pipe, each frame then decoded. What decodes is encoded,
 * decoded and encoded again: the two encodings must be the same bytes.
 * A binary's bytes, and the input itself, go through the store's reading
 * of a travelling binary, which must encode back to the bytes it read.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The bytes of a and b are the same, else the round trip lost something. */
static void same(const kt_buf *a, const kt_buf *b)
{
	if (a->len != b->len || (a->len && memcmp(a->data, b->data, a->len) != 0))
		abort();
}

static void hello(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_hello h, h2;
	if (kt_hello_decode(&b, &h) != KJIT_OK)
		return;
	kt_hello_encode(&e1, &h);
	if (kt_hello_decode(&e1, &h2) != KJIT_OK)
		abort();
	kt_hello_encode(&e2, &h2);
	same(&e1, &e2);
	kt_hello_clear(&h);
	kt_hello_clear(&h2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void request(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_request q, q2;
	if (kt_request_decode(&b, &q) != KJIT_OK)
		return;
	kt_request_encode(&e1, &q);
	if (kt_request_decode(&e1, &q2) != KJIT_OK)
		abort();
	kt_request_encode(&e2, &q2);
	same(&e1, &e2);
	kt_request_clear(&q);
	kt_request_clear(&q2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void reply(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_reply r, r2;
	if (kt_reply_decode(&b, &r) != KJIT_OK)
		return;
	kt_reply_encode(&e1, &r);
	if (kt_reply_decode(&e1, &r2) != KJIT_OK)
		abort();
	kt_reply_encode(&e2, &r2);
	same(&e1, &e2);
	kt_reply_clear(&r);
	kt_reply_clear(&r2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void compile(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	uint16_t *c, *c2;
	uint32_t n, n2;
	if (kt_compile_decode(&b, &c, &n) != KJIT_OK)
		return;
	kt_compile_encode(&e1, c, n);
	if (kt_compile_decode(&e1, &c2, &n2) != KJIT_OK)
		abort();
	kt_compile_encode(&e2, c2, n2);
	same(&e1, &e2);
	free(c);
	free(c2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void compiled(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_compiled c, c2;
	if (kt_compiled_decode(&b, &c) != KJIT_OK)
		return;
	kt_compiled_encode(&e1, &c);
	if (kt_compiled_decode(&e1, &c2) != KJIT_OK)
		abort();
	kt_compiled_encode(&e2, &c2);
	same(&e1, &e2);
	kt_compiled_clear(&c);
	kt_compiled_clear(&c2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void setup(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_setup s, s2;
	if (kt_setup_decode(&b, &s) != KJIT_OK)
		return;
	kt_setup_encode(&e1, &s);
	if (kt_setup_decode(&e1, &s2) != KJIT_OK)
		abort();
	kt_setup_encode(&e2, &s2);
	same(&e1, &e2);
	kt_setup_clear(&s);
	kt_setup_clear(&s2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void role(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_role r, r2;
	if (kt_role_decode(&b, &r) != KJIT_OK)
		return;
	kt_role_encode(&e1, &r);
	if (kt_role_decode(&e1, &r2) != KJIT_OK)
		abort();
	kt_role_encode(&e2, &r2);
	same(&e1, &e2);
	kt_role_clear(&r);
	kt_role_clear(&r2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void note(const kt_buf *in)
{
	static const int types[] = { KT_MSG_BEAT, KT_MSG_QUIT, KT_MSG_BYE, KT_MSG_LSTART,
		                     KT_MSG_LSTOP, KT_MSG_LEOF, KT_MSG_LSTORED };
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
		kt_note n, n2;
		if (kt_note_decode(&b, types[i], &n) != KJIT_OK)
			continue;
		kt_note_encode(&e1, types[i], &n);
		if (kt_note_decode(&e1, types[i], &n2) != KJIT_OK)
			abort();
		kt_note_encode(&e2, types[i], &n2);
		same(&e1, &e2);
		kt_note_clear(&n);
		kt_note_clear(&n2);
		kt_buf_free(&e1);
		kt_buf_free(&e2);
	}
}

static void lframe(const kt_buf *in)
{
	kt_buf b = *in, f = { 0 }, f2 = { 0 }, e1 = { 0 }, e2 = { 0 };
	uint32_t gen, gen2;
	if (kt_lframe_decode(&b, &gen, &f) == KJIT_OK) {
		kt_lframe_encode(&e1, gen, &f);
		if (kt_lframe_decode(&e1, &gen2, &f2) != KJIT_OK)
			abort();
		kt_lframe_encode(&e2, gen2, &f2);
		same(&e1, &e2);
	}
	kt_buf_free(&f);
	kt_buf_free(&f2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void rjob(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_rjob j, j2;
	if (kt_rjob_decode(&b, &j) != KJIT_OK)
		return;
	kt_rjob_encode(&e1, &j);
	if (kt_rjob_decode(&e1, &j2) != KJIT_OK)
		abort();
	kt_rjob_encode(&e2, &j2);
	same(&e1, &e2);
	kt_rjob_clear(&j);
	kt_rjob_clear(&j2);
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

/* A travelling binary (kjit_engine_binary_import()'s reading): what it
 * reads is encoded again into the same bytes. */
static void travelling(const void *blob, size_t size)
{
	kjit__binary bin;
	void *mem = NULL, *again = NULL;
	size_t n = 0;
	char sum[33];
	if (kjit__binary_decode(blob, size, &bin, &mem) == KJIT_OK) {
		kjit__store_checksum(bin.cubin, bin.size, sum);
		if (kjit__binary_encode(&bin, sum, &again, &n) != KJIT_OK || n != size ||
		    memcmp(again, blob, n) != 0)
			abort();
	}
	free(again);
	free(mem);
}

/* The binaries: decoded into pointers into their message, so each
 * encoding is kept while the next decodes from it. */
static void binaries(const kt_buf *in)
{
	kt_buf b = *in, e1 = { 0 }, e2 = { 0 };
	kt_compiled c, c2;
	const void *blob, *blob2;
	size_t size, size2;
	travelling(in->data, in->len);
	if (kt_rcompiled_decode(&b, &c, &blob, &size) == KJIT_OK) {
		travelling(blob, size);
		kt_rcompiled_encode(&e1, &c, blob, size);
		if (kt_rcompiled_decode(&e1, &c2, &blob2, &size2) != KJIT_OK)
			abort();
		kt_rcompiled_encode(&e2, &c2, blob2, size2);
		same(&e1, &e2);
		kt_compiled_clear(&c);
		kt_compiled_clear(&c2);
	}
	uint32_t gen, gen2;
	b = *in;
	if (kt_lbinary_decode(&b, &gen, &blob, &size) == KJIT_OK) {
		travelling(blob, size);
		kt_lbinary_encode(&e1, gen, blob, size);
		if (kt_lbinary_decode(&e1, &gen2, &blob2, &size2) != KJIT_OK)
			abort();
		kt_lbinary_encode(&e2, gen2, blob2, size2);
		same(&e1, &e2);
	}
	kt_buf_free(&e1);
	kt_buf_free(&e2);
}

static void decode_all(const kt_buf *in)
{
	(void)kt_msg_type(in);
	hello(in);
	request(in);
	reply(in);
	compile(in);
	compiled(in);
	setup(in);
	role(in);
	note(in);
	lframe(in);
	rjob(in);
	binaries(in);
}

/* The input as a stream of frames, each decoded (a pipe holds 64 KiB: a
 * longer input is not written). */
static void frames(const unsigned char *data, size_t size)
{
	int fd[2];
	if (size > 60000 || pipe(fd) != 0)
		return;
	if (write(fd[1], data, size) != (ssize_t)size)
		abort();
	close(fd[1]);
	kt_buf f = { 0 };
	while (kt_frame_read(fd[0], &f, 0, NULL) == KT_FRAME_OK)
		decode_all(&f);
	kt_buf_free(&f);
	close(fd[0]);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	kt_buf in = { 0 };
	if (kt_buf_set(&in, data, size) != KJIT_OK)
		return 0;
	decode_all(&in);
	kt_buf_free(&in);
	frames(data, size);
	return 0;
}
