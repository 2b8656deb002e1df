/*
 * test-tune-worker: what kjit-tune's GPU worker stands on, without a GPU:
 * the worker protocol (each message round-trips, a truncated or foreign
 * message is an error, frames over a pipe with a deadline and EOF), the
 * messages between MPI ranks (a binary checked against its checksum), the
 * arguments built from a spec (scalars, lengths, every fill, a missing or
 * short file named in the error), the output comparison, a configuration
 * as a launch (defines, flags, grid, block, shared memory), the
 * comparison kernel compiled ahead found by the next engine, and the
 * command itself without a GPU (it says why and exits 1).
 */
#include "testutil.h"

#include <math.h>

#include "wire.h"
#include "worker.h"

static const char *dir;

/* Every shorter prefix of a message must fail to decode. */
static void check_truncations(const kt_buf *whole, int type)
{
	for (size_t n = 0; n < whole->len; n++) {
		kt_buf b = { .data = whole->data, .len = n, .cap = whole->cap };
		kt_hello h;
		kt_request q;
		kt_reply r;
		kjit_status st = type == KT_MSG_HELLO ? kt_hello_decode(&b, &h)
		                 : type == KT_MSG_REQUEST ? kt_request_decode(&b, &q)
		                                          : kt_reply_decode(&b, &r);
		CHECK_MSG(st == KJIT_ERR_CORRUPT, "type %d cut to %zu of %zu bytes decoded", type, n,
		          whole->len);
	}
}

static void test_protocol(void)
{
	kt_buf b = { 0 };
	kt_hello h = { .arch = "sm_90", .device_name = "NVIDIA H200 \"x\"",
		       .device_key = "sm_90|NVIDIA H200|132|13000", .max_threads = 1024,
		       .max_shared = 49152 }, h2;
	kt_hello_encode(&b, &h);
	CHECK(kt_msg_type(&b) == KT_MSG_HELLO);
	CHECK_OK(kt_hello_decode(&b, &h2));
	CHECK(!h2.error && strcmp(h2.arch, "sm_90") == 0 &&
	      strcmp(h2.device_name, h.device_name) == 0 &&
	      strcmp(h2.device_key, h.device_key) == 0 && h2.max_threads == 1024 &&
	      h2.max_shared == 49152);
	kt_hello_clear(&h2);
	check_truncations(&b, KT_MSG_HELLO);
	kt_hello he = { .error = "no GPU: CUDA_ERROR_NO_DEVICE" };
	kt_hello_encode(&b, &he);
	CHECK_OK(kt_hello_decode(&b, &h2));
	CHECK(h2.error && strcmp(h2.error, he.error) == 0 && !h2.arch);
	kt_hello_clear(&h2);

	uint16_t cfg[3] = { 4, 0, 65535 };
	kt_request q = { .problem = 2, .n_config = 3, .config = cfg, .cold_l2 = 1,
		         .best_ns = 1234.5, .early_factor = 1.5, .max_ms = 800,
		         .warmup_ms = 5, .best_hi_ns = 1240.25, .budget_ms = 10,
		         .profile = KT_PROF_ENERGY, .race_j = 0.125, .race_jns = 2.5e6 }, q2;
	kt_request_encode(&b, &q);
	CHECK_OK(kt_request_decode(&b, &q2));
	CHECK(q2.problem == 2 && q2.n_config == 3 && q2.config[0] == 4 && q2.config[1] == 0 &&
	      q2.config[2] == 65535 && q2.cold_l2 == 1 && q2.best_ns == 1234.5 &&
	      q2.early_factor == 1.5 && q2.max_ms == 800 && q2.warmup_ms == 5 &&
	      q2.best_hi_ns == 1240.25 && q2.budget_ms == 10 && q2.profile == KT_PROF_ENERGY &&
	      q2.race_j == 0.125 && q2.race_jns == 2.5e6);
	CHECK(q2.prepare == 0);
	kt_request_clear(&q2);
	/* an energy race's best is a finite energy or none */
	double bad_race[] = { -1, INFINITY, NAN };
	for (size_t i = 0; i < sizeof bad_race / sizeof *bad_race; i++) {
		kt_request qr = q;
		if (i % 2)
			qr.race_jns = bad_race[i];
		else
			qr.race_j = bad_race[i];
		kt_request_encode(&b, &qr);
		CHECK_ST(kt_request_decode(&b, &q2), KJIT_ERR_CORRUPT);
		CHECK_CONTAINS(kjit_last_error(), "energy race");
	}
	check_truncations(&b, KT_MSG_REQUEST);
	kt_request qp = { .prepare = 1, .problem = 3 };
	kt_request_encode(&b, &qp);
	CHECK_OK(kt_request_decode(&b, &q2));
	CHECK(q2.prepare == 1 && q2.problem == 3 && q2.n_config == 0);
	kt_request_clear(&q2);
	/* a hello is not a request; bytes left over are an error too */
	kt_hello_encode(&b, &h);
	CHECK_ST(kt_request_decode(&b, &q2), KJIT_ERR_CORRUPT);
	kt_request_encode(&b, &q);
	b.len++;
	CHECK_ST(kt_request_decode(&b, &q2), KJIT_ERR_CORRUPT);
	CHECK_CONTAINS(kjit_last_error(), "too long");

	double samples[] = { 100.5, 101.25, -0.0, 1e300 };
	kt_reply r = { .status = KJIT_RESULT_STOPPED_EARLY, .has_status = 1, .message = NULL, .timer = "cupti",
		       .stop = "stopped_early", .regs = 32, .setup = 1, .median_ns = 100.75,
		       .spread_ns = 0.5,
		       .min_ns = 100.5, .max_ns = 1e300, .ci_high_ns = 101.25, .samples = samples,
		       .n_samples = 4, .setup_ms = 250.5, .load_ms = 1.25, .check_ms = 0.75,
		       .warmup_ms = 0.5, .timed_ms = 12.125 }, r2;
	kt_reply_encode(&b, &r);
	CHECK_OK(kt_reply_decode(&b, &r2));
	CHECK(r2.has_status && r2.status == KJIT_RESULT_STOPPED_EARLY && !r2.message &&
	      strcmp(r2.timer, "cupti") == 0 && r2.regs == 32 && !r2.fatal && r2.setup == 1 &&
	      r2.median_ns == 100.75 && r2.ci_high_ns == 101.25 && r2.n_samples == 4 &&
	      memcmp(r2.samples, samples, sizeof samples) == 0);
	CHECK(r2.setup_ms == 250.5 && r2.load_ms == 1.25 && r2.check_ms == 0.75 &&
	      r2.warmup_ms == 0.5 && r2.timed_ms == 12.125);
	kt_reply_clear(&r2);
	check_truncations(&b, KT_MSG_REPLY);
	/* a value beyond the list goes out as "unknown", which no reply may say */
	kt_reply bad = { .status = (kjit_result_status)KJIT__RS_COUNT };
	kt_reply_encode(&b, &bad);
	CHECK_ST(kt_reply_decode(&b, &r2), KJIT_ERR_CORRUPT);
	CHECK_CONTAINS(kjit_last_error(), "'unknown'");
	CHECK(!r2.has_status);
	OK("hello, request and reply round-trip; truncated, foreign and long messages fail");

	/* frames over a pipe */
	int fd[2];
	CHECK(pipe(fd) == 0);
	kt_reply_encode(&b, &r);
	CHECK_OK(kt_frame_write(fd[1], &b));
	kt_begin_encode(&b);
	CHECK_OK(kt_frame_write(fd[1], &b));
	kt_buf in = { 0 };
	CHECK(kt_frame_read(fd[0], &in, kjit__now_ns() + 1000000000ull, NULL) == KT_FRAME_OK);
	CHECK_OK(kt_reply_decode(&in, &r2));
	CHECK(r2.n_samples == 4);
	kt_reply_clear(&r2);
	CHECK(kt_frame_read(fd[0], &in, 0, NULL) == KT_FRAME_OK && kt_msg_type(&in) == KT_MSG_BEGIN);
	uint64_t t0 = kjit__now_ns();
	CHECK(kt_frame_read(fd[0], &in, t0 + 200000000ull, NULL) == KT_FRAME_TIMEOUT);
	CHECK(kjit__now_ns() - t0 >= 190000000ull);
	atomic_int stop = 1;
	CHECK(kt_frame_read(fd[0], &in, 0, &stop) == KT_FRAME_STOP);
	/* a frame cut short by the writer's end */
	unsigned char part[6] = { 10, 0, 0, 0, KT_MSG_REPLY, 0 };
	CHECK(write(fd[1], part, sizeof part) == (ssize_t)sizeof part);
	close(fd[1]);
	CHECK(kt_frame_read(fd[0], &in, 0, NULL) == KT_FRAME_EOF);
	CHECK(kt_frame_read(fd[0], &in, 0, NULL) == KT_FRAME_EOF);
	close(fd[0]);
	/* a length no message has */
	CHECK(pipe(fd) == 0);
	unsigned char huge[4] = { 0xff, 0xff, 0xff, 0x7f };
	CHECK(write(fd[1], huge, 4) == 4);
	CHECK(kt_frame_read(fd[0], &in, 0, NULL) == KT_FRAME_ERROR);
	CHECK_CONTAINS(kjit_last_error(), "frame of");
	close(fd[0]);
	close(fd[1]);
	kt_buf_free(&in);
	kt_buf_free(&b);
	OK("frames: back to back, deadline, stop flag, EOF mid-frame, oversized length");
}

static void test_args(void)
{
	char raw[TU_PATH];
	uint64_t vals[6] = { 7, 8, 9, 10, 11, 12 };
	tu_path(raw, dir, "six.bin");
	tu_write_file(raw, vals, sizeof vals);
	kjit__spec *spec = tu_spec_from(dir, 
		"args.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": [{\"name\": \"B\", \"values\": [32, 64], \"roles\": [\"block_x\","
		"   \"define\"]}, {\"name\": \"F\", \"values\": [\"\", \"--use_fast_math -lineinfo\"],"
		"   \"roles\": [\"flags\"]}],"
		" \"grid\": [\"(n + B - 1) / B\", \"m\"], \"shared_memory\": \"B * 4\","
		" \"problems\": [{\"n\": 6, \"m\": 3}, {\"n\": 100, \"m\": 2}],"
		" \"arguments\": ["
		"  {\"name\": \"n2\", \"type\": \"int64\", \"value\": \"n * 2\"},"
		"  {\"name\": \"a\", \"type\": \"float\", \"value\": 2.5},"
		"  {\"name\": \"seq\", \"type\": \"int32\", \"length\": \"n\", \"fill\": \"sequence\","
		"   \"value\": -2},"
		"  {\"name\": \"c\", \"type\": \"double\", \"length\": \"n * m\", \"fill\": \"constant\","
		"   \"value\": 0.25, \"access\": \"out\"},"
		"  {\"name\": \"r\", \"type\": \"float\", \"length\": \"n\", \"seed\": 3,"
		"   \"access\": \"inout\"},"
		"  {\"name\": \"ri\", \"type\": \"uint32\", \"length\": \"n\"},"
		"  {\"name\": \"f\", \"type\": \"uint64\", \"length\": 6, \"fill\": \"file\","
		"   \"file\": \"six.bin\"}],"
		" \"verify\": {\"atol\": 0.5, \"rtol\": 0.1}}");
	kt_args *a;
	CHECK_OK(kt_args_build(spec, 0, &a));
	CHECK(a->n == 7);
	int64_t n2;
	float af;
	memcpy(&n2, a->a[0].host, 8);
	memcpy(&af, a->a[1].host, 4);
	CHECK(n2 == 12 && af == 2.5f && a->a[0].elem == 8 && a->a[1].elem == 4);
	const int32_t *seq = a->a[2].host;
	CHECK(a->a[2].count == 6 && seq[0] == -2 && seq[5] == 3);
	const double *c = a->a[3].host;
	CHECK(a->a[3].count == 18 && c[0] == 0.25 && c[17] == 0.25 && a->a[3].elem == 8);
	const float *r = a->a[4].host;
	for (size_t i = 0; i < 6; i++)
		CHECK(r[i] >= 0 && r[i] < 1);
	CHECK(r[0] != r[1]);
	const uint32_t *ri = a->a[5].host;
	for (size_t i = 0; i < 6; i++)
		CHECK(ri[i] < 1000);
	CHECK(memcmp(a->a[6].host, vals, sizeof vals) == 0);
	/* the same seed gives the same data */
	kt_args *again;
	CHECK_OK(kt_args_build(spec, 0, &again));
	CHECK(memcmp(again->a[4].host, a->a[4].host, 6 * sizeof(float)) == 0);
	kt_args_free(again);
	OK("arguments: scalar expressions, lengths, sequence, constant, random, file");

	/* element types, for the mismatch message */
	double dv[2] = { 1.5, -2.25 };
	int32_t iv[2] = { 5, -8 };
	uint64_t uv[2] = { 7, UINT64_C(1) << 40 };
	float fv[2] = { 0.5f, 3.0f };
	CHECK(kt_elem_size("double") == 8 && kt_elem_size("int32") == 4 &&
	      kt_elem_size("uint64") == 8 && kt_elem_size("float") == 4);
	CHECK(kt_elem_load("double", dv, 1) == -2.25 && kt_elem_load("int32", iv, 1) == -8 &&
	      kt_elem_load("uint64", uv, 1) == 1099511627776.0 && kt_elem_load("float", fv, 1) == 3);
	OK("element sizes and values of every kind");

	/* the comparison kernel compiles for every element type (real NVRTC;
	 * test-gpu-tune and test-gpu-t1 run it), and an unknown type is
	 * refused by name */
	char vdb[TU_PATH];
	kjit_engine *ve = tu_engine_cpu(tu_path(vdb, tu_tmpdir(), "verify.db"), "sm_90", 1);
	kt_verify *ver;
	CHECK_OK(kt_verify_open(ve, &ver));
	static const char *const types[] = { "bool", "int8", "uint8", "int16", "uint16", "int32",
		                             "uint32", "int64", "uint64", "half", "float", "double",
		                             "custom" };
	for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
		kjit_variant *vv;
		CHECK_MSG(kt_verify_variant(ver, types[i], &vv) == KJIT_OK, "%s: %s", types[i],
		          kjit_last_error());
	}
	kjit_variant *none;
	CHECK_ST(kt_verify_variant(ver, "quad", &none), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "'quad'");
	kt_verify_free(ver);
	kjit_engine_close(ve);
	OK("the comparison kernel compiles for the 13 element types");

	/* a configuration as a launch */
	uint16_t cfg[2] = { 1, 1 };
	kt_launch l;
	CHECK_OK(kt_launch_make(spec, 1, cfg, &l));
	CHECK(l.grid[0] == 2 && l.grid[1] == 2 && l.grid[2] == 1);
	CHECK(l.block[0] == 64 && l.block[1] == 1 && l.block[2] == 1 && l.shared == 256);
	const kjit_variant_desc *d = kjit_config_variant(l.config);
	CHECK(d->n_defines == 1 && strcmp(d->defines[0].name, "B") == 0 &&
	      strcmp(d->defines[0].value, "64") == 0);
	CHECK(d->n_flags == 2 && strcmp(d->flags[0], "--use_fast_math") == 0 &&
	      strcmp(d->flags[1], "-lineinfo") == 0);
	kt_launch_clear(&l);
	/* no configuration: each parameter's default (both the first value) */
	CHECK_OK(kt_launch_make(spec, 0, NULL, &l));
	d = kjit_config_variant(l.config);
	CHECK(l.grid[0] == 1 && l.grid[1] == 3 && l.block[0] == 32 && d->n_flags == 0);
	CHECK(strcmp(d->defines[0].value, "32") == 0);
	kt_launch_clear(&l);
	OK("a configuration as a launch: defines, flags, grid, block, shared memory; the "
	   "defaults");
	kt_args_free(a);
	kjit__spec_free(spec);

	/* a file fill that is missing or too short is named */
	spec = tu_spec_from(dir, "missing.json",
	                 "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                 " \"parameters\": [{\"name\": \"B\", \"values\": [32]}],"
	                 " \"problems\": {\"n\": 4},"
	                 " \"arguments\": [{\"name\": \"f\", \"type\": \"float\", \"length\": \"n\","
	                 "   \"fill\": \"file\", \"file\": \"nothere.bin\"}]}");
	CHECK_ST(kt_args_build(spec, 0, &a), KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), "nothere.bin");
	CHECK_CONTAINS(kjit_last_error(), "argument f");
	kjit__spec_free(spec);
	spec = tu_spec_from(dir, "short.json",
	                 "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                 " \"parameters\": [{\"name\": \"B\", \"values\": [32]}],"
	                 " \"problems\": {\"n\": 100},"
	                 " \"arguments\": [{\"name\": \"f\", \"type\": \"double\", \"length\": \"n\","
	                 "   \"fill\": \"file\", \"file\": \"six.bin\"}]}");
	CHECK_ST(kt_args_build(spec, 0, &a), KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), "six.bin holds 48 bytes, 800 needed");
	CHECK_CONTAINS(kjit_last_error(), "argument f");
	kjit__spec_free(spec);
	spec = tu_spec_from(dir, "zero.json",
	                 "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                 " \"parameters\": [{\"name\": \"B\", \"values\": [32]}],"
	                 " \"problems\": {\"n\": 4},"
	                 " \"arguments\": [{\"name\": \"z\", \"type\": \"float\","
	                 "   \"length\": \"n - 4\"}]}");
	CHECK_ST(kt_args_build(spec, 0, &a), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "argument z: length 0");
	kjit__spec_free(spec);
	OK("a missing or short file fill and an empty buffer are errors naming them");
}

/* The comparison kernel compiled by a compile-only engine (as the tuner
 * does beside the variants) is a disk hit for a later engine on the same
 * database (the worker's): no NVRTC in the worker's first comparison. */
static void test_verify_ahead(void)
{
	char db[TU_PATH], key[33];
	kt_verify *v;
	kjit_variant *var;
	kjit_variant_info info;
	tu_path(db, dir, "ahead.db");
	for (int pass = 0; pass < 2; pass++) {
		kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
		CHECK_OK(kt_verify_open(e, &v));
		CHECK_OK(kt_verify_variant(v, "float", &var));
		CHECK_OK(kjit_variant_get_info(var, &info));
		kjit_engine_stats st = tu_stats(e);
		if (pass == 0) {
			CHECK(st.compiles == 1 && st.disk_hits == 0);
			snprintf(key, sizeof key, "%s", info.key);
		} else {
			CHECK_MSG(st.compiles == 0 && st.disk_hits == 1, "%llu compiles, %llu disk hits",
			          (unsigned long long)st.compiles, (unsigned long long)st.disk_hits);
			CHECK_STREQ(info.key, key);
		}
		kt_verify_free(v);
		kjit_engine_close(e);
	}
	OK("the comparison kernel compiled ahead is a disk hit for the next engine (%s)", key);
}

/* kjit-tune SPEC on a machine without a GPU: the worker says why. */
static void test_no_gpu(void)
{
	const char *build = getenv("KJIT_BUILDDIR");
	char tool[TU_PATH], spec[TU_PATH], out[8192], db[TU_PATH];
	tu_path(tool, build && *build ? build : ".", "autotune/kjit-tune");
	if (!tu_exists(tool))
		return;
	tu_path(db, dir, "tune.db");
	/* tu_saxpy_path() is the .cu: the spec is next to it */
	snprintf(spec, sizeof spec, "%s", tu_saxpy_path());
	*strrchr(spec, '/') = '\0';
	char *cmd = kjit__strdup_printf("KJIT_LIBCUDA=/nonexistent/libcuda.so.1 '%s'"
	                                " '%s/saxpy.json' --db '%s' 2>&1", tool, spec, db);
	CHECK(cmd);
	int code = tu_run(cmd, out, sizeof out);
	free(cmd);
	CHECK_MSG(code == 1, "exit %d: %s", code, out);
	CHECK_CONTAINS(out, "the GPU worker cannot run");
	OK("kjit-tune without a GPU: exit 1, the worker's reason");
}

/* Every shorter prefix of a rank message fails to decode. */
static void rank_truncations(const kt_buf *whole, kjit_status (*decode)(kt_buf *))
{
	for (size_t n = 0; n < whole->len; n++) {
		kt_buf b = { .data = whole->data, .len = n, .cap = whole->cap };
		CHECK_MSG(decode(&b) == KJIT_ERR_CORRUPT, "type %d cut to %zu of %zu bytes decoded",
		          kt_msg_type(whole), n, whole->len);
	}
}

static kjit_status decode_role(kt_buf *b)
{
	kt_role r;
	kjit_status st = kt_role_decode(b, &r);
	kt_role_clear(&r);
	return st;
}

static kjit_status decode_rcompiled(kt_buf *b)
{
	kt_compiled c;
	const void *blob;
	size_t size;
	kjit_status st = kt_rcompiled_decode(b, &c, &blob, &size);
	kt_compiled_clear(&c);
	return st;
}

/* The messages between MPI ranks (kjit-tune --mpi): each round-trips, a
 * truncated one fails, and a binary whose blob is not its checksum's is
 * refused naming its key where it is read (kjit_engine_binary_import()'s
 * reading). */
static void test_rank_messages(void)
{
	kt_buf b = { 0 }, hello = { 0 }, frame = { 0 };
	kt_setup su = { .spec_path = "/specs/s.json", .signature = "abc", .verify = "default",
		        .atol = 1e-6, .rtol = 1e-5, .compile_only = 1 }, su2;
	kt_setup_encode(&b, &su);
	CHECK_OK(kt_setup_decode(&b, &su2));
	CHECK(strcmp(su2.spec_path, su.spec_path) == 0 && strcmp(su2.verify, "default") == 0 &&
	      su2.atol == 1e-6 && su2.compile_only == 1);
	kt_setup_clear(&su2);

	kt_hello h = { .arch = "sm_90", .device_name = "H200", .device_key = "sm_90|H200",
		       .device = 1, .device_count = 2 };
	kt_hello_encode(&hello, &h);
	kt_role ro = { .host = "node7", .nvrtc = "nvrtc-13.0", .db = "/tmp/kjit-0/mpi.db",
		       .slots = 16, .note = "device 0: busy", .n_hellos = 1, .hellos = &hello },
	        ro2;
	kt_role_encode(&b, &ro);
	CHECK_OK(kt_role_decode(&b, &ro2));
	CHECK(strcmp(ro2.host, "node7") == 0 && ro2.slots == 16 && ro2.code == 0 && !ro2.error &&
	      strcmp(ro2.note, "device 0: busy") == 0 && ro2.n_hellos == 1);
	kt_hello h2;
	CHECK_OK(kt_hello_decode(&ro2.hellos[0], &h2));
	CHECK(h2.device == 1 && h2.device_count == 2 && strcmp(h2.device_name, "H200") == 0);
	kt_hello_clear(&h2);
	kt_role_clear(&ro2);
	rank_truncations(&b, decode_role);

	kt_note n = { .gen = 7, .num = KT_END_SIGNAL, .text = "the worker process on rank 2 was "
		      "killed by signal 11 (Segmentation fault)" }, n2;
	kt_note_encode(&b, KT_MSG_LEOF, &n);
	CHECK_OK(kt_note_decode(&b, KT_MSG_LEOF, &n2));
	CHECK(n2.gen == 7 && n2.num == KT_END_SIGNAL && strcmp(n2.text, n.text) == 0);
	kt_note_clear(&n2);
	CHECK_ST(kt_note_decode(&b, KT_MSG_LSTORED, &n2), KJIT_ERR_CORRUPT);

	uint32_t gen = 0;
	kt_lframe_encode(&b, 3, &hello);
	CHECK_OK(kt_lframe_decode(&b, &gen, &frame));
	CHECK(gen == 3 && frame.len == hello.len && memcmp(frame.data, hello.data, hello.len) == 0);

	uint16_t config[2] = { 4, 1 };
	kt_rjob j = { .channel = 1000, .arch = "sm_90", .config = config, .n_config = 2 }, j2;
	kt_rjob_encode(&b, &j);
	CHECK_OK(kt_rjob_decode(&b, &j2));
	CHECK(j2.channel == 1000 && j2.n_config == 2 && j2.config[0] == 4 && j2.config[1] == 1 &&
	      strcmp(j2.arch, "sm_90") == 0);
	kt_rjob_clear(&j2);

	/* a compile's answer with its binary: the row as the store keeps it */
	unsigned char cubin[64];
	for (size_t i = 0; i < sizeof cubin; i++)
		cubin[i] = (unsigned char)(i * 7);
	const char *key = "0123456789abcdef0123456789abcdef";
	kjit__binary bin = { .key = key, .signature = "sig", .kernel_name = "saxpy",
		             .source = "__global__ void saxpy() {}", .params = "B",
		             .options = "-DB=64", .arch = "sm_90", .nvrtc = "nvrtc-13.0",
		             .lowered_name = "saxpy", .cubin = cubin, .size = sizeof cubin,
		             .compile_ms = 12.5 }, bin2;
	char sum[33];
	kjit__store_checksum(cubin, sizeof cubin, sum);
	void *blob, *mem;
	const void *got;
	size_t size, got_size;
	CHECK_OK(kjit__binary_encode(&bin, sum, &blob, &size));
	kt_compiled c = { .status = KJIT_OK, .key = (char *)key, .compile_ms = 12.5,
		          .compiled = 1 }, c2;
	kt_rcompiled_encode(&b, &c, blob, size);
	CHECK_OK(kt_rcompiled_decode(&b, &c2, &got, &got_size));
	CHECK(c2.compiled == 1 && strcmp(c2.key, key) == 0 && got_size == size);
	CHECK_OK(kjit__binary_decode(got, got_size, &bin2, &mem));
	CHECK(bin2.size == sizeof cubin && memcmp(bin2.cubin, cubin, sizeof cubin) == 0 &&
	      strcmp(bin2.options, "-DB=64") == 0 && !bin2.manifest && !bin2.base_key &&
	      bin2.compile_ms == 12.5 && strcmp(bin2.key, key) == 0);
	free(mem);
	kt_compiled_clear(&c2);
	rank_truncations(&b, decode_rcompiled);
	/* one bit of the blob flipped on the way */
	b.data[b.len - 33] ^= 1;
	CHECK_OK(kt_rcompiled_decode(&b, &c2, &got, &got_size));
	CHECK_ST(kjit__binary_decode(got, got_size, &bin2, &mem), KJIT_ERR_CORRUPT);
	CHECK_CONTAINS(kjit_last_error(), key);
	CHECK_CONTAINS(kjit_last_error(), "arrived with checksum");
	kt_compiled_clear(&c2);
	kt_lbinary_encode(&b, 9, blob, size);
	CHECK_OK(kt_lbinary_decode(&b, &gen, &got, &got_size));
	CHECK_OK(kjit__binary_decode(got, got_size, &bin2, &mem));
	CHECK(gen == 9 && strcmp(bin2.source, bin.source) == 0);
	free(mem);
	free(blob);
	/* a compile's failure needs no binary; a success without one is refused */
	kt_compiled fail = { .status = KJIT_ERR_COMPILE, .error = "error: expected ';'" };
	kt_rcompiled_encode(&b, &fail, NULL, 0);
	CHECK_OK(kt_rcompiled_decode(&b, &c2, &got, &got_size));
	CHECK(c2.status == KJIT_ERR_COMPILE && strcmp(c2.error, fail.error) == 0);
	kt_compiled_clear(&c2);
	kt_rcompiled_encode(&b, &c, NULL, 0);
	CHECK_ST(kt_rcompiled_decode(&b, &c2, &got, &got_size), KJIT_ERR_CORRUPT);
	kt_buf_free(&b);
	kt_buf_free(&hello);
	kt_buf_free(&frame);
	OK("rank messages round-trip; truncated ones fail; a binary whose blob is not its "
	   "checksum's is refused, naming its key");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();
	test_protocol();
	test_rank_messages();
	test_args();
	test_verify_ahead();
	test_no_gpu();
	return 0;
}
