/*
 * test-lto: JIT LTO on the CPU (NVRTC and nvJitLink need no GPU), with the
 * kernel of examples/lto/map.cu, which calls an extern op() that a library
 * supplies.
 *
 * A kernel links with LTO IR that NVRTC made, with a library source that
 * kjit compiles itself (KJIT_LINK_SOURCE) and with nvcc's LTO IR, object
 * and fatbin of tests/lto-op.cu. Another library is another link key and
 * runs no NVRTC compile of the kernel (the compile counter), only a link;
 * the same bytes from a file or from memory are the same key; link
 * options change it. A tunable description and a spec (kernel.link) reach
 * the same link. A second engine on the database finds the linked cubin
 * (no compile, no link) and the library source's LTO IR. An undefined
 * symbol, bad bytes, IR of another arch and a bad link option are
 * KJIT_ERR_LINK with nvJitLink's log naming the problem; bad inputs
 * (unknown kind, no kind, unreadable path, empty data, -arch, options
 * without inputs) are refused at creation, naming the input.
 */
#include "testutil.h"

#ifndef KJIT_LTO_DIR
#define KJIT_LTO_DIR "tests"
#endif

static const char *const params[] = { "BLOCK", "ITEMS" };
static const kjit_define defs[] = { { "BLOCK", "256" }, { "ITEMS", "4" } };
static const kjit_variant_desc desc = { defs, 2, NULL, 0 };
static char map_path[TU_PATH];

static const char *const lib_a = "__device__ float op(float x) { return x + 1.0f; }\n";
static const char *const lib_b = "__device__ float op(float x) { return x - 1.0f; }\n";

/* NVRTC's LTO IR of a library for arch. */
static kjit__compiled nvrtc_ir(const char *text, const char *arch)
{
	char a[32];
	snprintf(a, sizeof a, "-arch=%s", arch);
	const char *opts[] = { "-dlto", "-rdc=true", a };
	kjit__compiled c;
	CHECK_OK(kjit__nvrtc_compile(text, "lib.cu", NULL, opts, 3, NULL, &c));
	CHECK(c.size > 0);
	return c;
}

static kjit_status make(kjit_engine *e, const kjit_link_input *in, size_t n,
                        const char *const *lopts, size_t nl, kjit_kernel **k)
{
	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.link = in;
	o.n_link = n;
	o.link_options = lopts;
	o.n_link_options = nl;
	return kjit_kernel_create_with(e, "map", NULL, map_path, params, 2, &o, k);
}

static kjit_engine_stats stats(kjit_engine *e)
{
	kjit_engine_stats s;
	CHECK_OK(kjit_engine_get_stats(e, &s));
	return s;
}

/* The default variant of k from tier, with the NVRTC compiles and links
 * it took; its key into key. */
static void get(kjit_kernel *k, kjit_cache_tier tier, uint64_t compiles, uint64_t links,
                char key[33], const char *what)
{
	kjit_variant *v;
	kjit_cache_tier got;
	kjit_variant_info info;
	const void *cubin;
	size_t size;
	kjit_engine_stats s0 = stats(k->engine);
	CHECK_OK(kjit_variant_get(k, &desc, &v, &got));
	kjit_engine_stats s1 = stats(k->engine);
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK_MSG(got == tier, "%s: tier %d, expected %d", what, (int)got, (int)tier);
	CHECK_MSG(s1.compiles - s0.compiles == compiles, "%s: %llu NVRTC compiles, expected %llu",
	          what, (unsigned long long)(s1.compiles - s0.compiles),
	          (unsigned long long)compiles);
	CHECK_MSG(s1.links - s0.links == links, "%s: %llu links, expected %llu", what,
	          (unsigned long long)(s1.links - s0.links), (unsigned long long)links);
	CHECK_OK(kjit_variant_cubin(v, &cubin, &size));
	CHECK(size > 4 && memcmp(cubin, "\177ELF", 4) == 0);
	CHECK_STREQ(info.lowered_name, "map");
	CHECK_CONTAINS(info.options, "-DITEMS=4\n-dlto\n-rdc=true\n-arch=sm_90");
	snprintf(key, 33, "%s", info.key);
	OK("%s: %s, %llu compile(s), %llu link(s), key %s", what,
	   tier == KJIT_TIER_COMPILED ? "made" : tier == KJIT_TIER_DISK ? "disk" : "memory",
	   (unsigned long long)compiles, (unsigned long long)links, key);
}

/* A variant of a kernel with in[n] that nvJitLink refuses: KJIT_ERR_LINK
 * whose message has each of want[]. */
static void link_refused(kjit_engine *e, const kjit_link_input *in, size_t n,
                         const char *const *lopts, size_t nl, const char *const *want)
{
	kjit_kernel *k;
	kjit_variant *v;
	CHECK_OK(make(e, in, n, lopts, nl, &k));
	CHECK_ST(kjit_variant_get(k, &desc, &v, NULL), KJIT_ERR_LINK);
	const char *msg = kjit_last_error();
	CHECK_CONTAINS(msg, "error log:");
	CHECK_CONTAINS(msg, "info log:");
	for (size_t i = 0; want[i]; i++)
		CHECK_CONTAINS(msg, want[i]);
	CHECK_CONTAINS(kjit_engine_last_error(e), want[0]);
	OK("refused by nvJitLink (%s): %.200s...", want[0], msg);
}

/* Kernel creation refuses in (status st, a message with want). */
static void input_refused(kjit_engine *e, const kjit_link_input *in, size_t n,
                          const char *const *lopts, size_t nl, kjit_status st, const char *want)
{
	kjit_kernel *k = (kjit_kernel *)1;
	CHECK_ST(make(e, in, n, lopts, nl, &k), st);
	CHECK(k == NULL);
	CHECK_CONTAINS(kjit_last_error(), want);
	CHECK_CONTAINS(kjit_last_error(), "kernel 'map'");
	OK("refused at creation: %s", kjit_last_error());
}

static kjit_engine *open_engine(const char *db)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e;
	CHECK_OK(kjit_engine_open(&o, &e));
	return e;
}

static void check_errors(kjit_engine *e, const kjit__compiled *ir_a, const char *dir)
{
	kjit__compiled other = nvrtc_ir("__device__ float other(float x) { return x; }\n", "sm_90");
	kjit_link_input in = { KJIT_LINK_LTOIR, "libother.ltoir", other.cubin, other.size, NULL };
	link_refused(e, &in, 1, NULL, 0,
	             (const char *const[]){ "_Z2opf", "Unresolved", "libother.ltoir (ltoir)",
	                                    "nvJitLinkComplete", NULL });
	kjit__compiled_free(&other);

	in = (kjit_link_input){ KJIT_LINK_LTOIR, "junk.ltoir", "these are not LTO IR bytes", 0,
		                NULL };
	link_refused(e, &in, 1, NULL, 0, (const char *const[]){ "junk.ltoir", NULL });

	kjit__compiled sm100 = nvrtc_ir(lib_a, "sm_100");
	in = (kjit_link_input){ KJIT_LINK_LTOIR, "lib-sm100.ltoir", sm100.cubin, sm100.size, NULL };
	link_refused(e, &in, 1, NULL, 0, (const char *const[]){ "lib-sm100.ltoir", NULL });
	kjit__compiled_free(&sm100);

	in = (kjit_link_input){ KJIT_LINK_LTOIR, "liba.ltoir", ir_a->cubin, ir_a->size, NULL };
	/* -O is allowed; nvJitLink takes only -O0 and -O3 */
	const char *bad_opt[] = { "-O2" };
	link_refused(e, &in, 1, bad_opt, 1, (const char *const[]){ "nvJitLinkCreate", "-O2", NULL });

	char missing[TU_PATH], empty[TU_PATH];
	tu_path(missing, dir, "missing.ltoir");
	tu_path(empty, dir, "empty.ltoir");
	tu_write_file(empty, "", 0);
	in = (kjit_link_input){ (kjit_link_kind)99, "odd", ir_a->cubin, ir_a->size, NULL };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_INVALID_ARG, "odd): unknown kind 99");
	in = (kjit_link_input){ 0, NULL, NULL, 0, "lib.bin" };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_INVALID_ARG, "lib.bin): no kind");
	in = (kjit_link_input){ 0, NULL, NULL, 0, missing };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_IO, missing);
	in = (kjit_link_input){ 0, NULL, NULL, 0, empty };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_INVALID_ARG, "empty");
	in = (kjit_link_input){ KJIT_LINK_PTX, "nothing", "", 0, NULL };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_INVALID_ARG, "(nothing): empty");
	in = (kjit_link_input){ KJIT_LINK_CUBIN, "nowhere", NULL, 0, NULL };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_INVALID_ARG, "neither data nor a path");
	in = (kjit_link_input){ KJIT_LINK_SOURCE, "broken.cu", "__device__ float op(", 0, NULL };
	input_refused(e, &in, 1, NULL, 0, KJIT_ERR_COMPILE, "broken.cu");
	in = (kjit_link_input){ KJIT_LINK_LTOIR, "liba.ltoir", ir_a->cubin, ir_a->size, NULL };
	const char *arch_opt[] = { "-arch=sm_80" };
	input_refused(e, &in, 1, arch_opt, 1, KJIT_ERR_INVALID_ARG, "the engine sets -arch");
	const char *o3[] = { "-O3" };
	input_refused(e, NULL, 0, o3, 1, KJIT_ERR_INVALID_ARG, "but no link input");
	/* the allowlist (options.c): nothing that nvJitLink does not document
	 * as changing the code, nor an allowed option misspelt */
	static const char *const refused[][2] = {
		{ "-no-such-option", "link option 0 ('-no-such-option'): not an nvJitLink option" },
		{ "-time", "link option 1 ('-time'): timing is the engine's" },
		{ "-Xptxas=-v", "'-Xptxas=-v'): ptxas's own options are not checked" },
		{ "-split-compile=0", "the compile pool decides the threads" },
		{ "-lto", "the engine sets it" },
		{ "-ptx", "the engine links a cubin" },
		{ "-O", "takes digits" },
		{ "-Ofast", "takes digits" },
		{ "-ftz", "takes a value after '='" },
		{ "-g=1", "takes no value" },
		{ "-dump-callgraph", "not an nvJitLink option kjit allows" },
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		const char *two[] = { "-lineinfo", refused[i][0] };
		const char *const *lo = i ? two : refused[i];
		input_refused(e, &in, 1, lo, i ? 2 : 1, KJIT_ERR_INVALID_ARG, refused[i][1]);
	}
}

/* nvcc's LTO IR, object and fatbin of tests/lto-op.cu: each a link, no
 * NVRTC compile of the kernel. */
static void check_nvcc(kjit_engine *e, const char *key_a)
{
#ifdef KJIT_LTO_NVCC
	static const char *const files[] = { "lto-op.ltoir", "lto-op-nvcc.o", "lto-op.fatbin" };
	const char *build = getenv("KJIT_BUILDDIR");
	char keys[3][33];
	for (size_t i = 0; i < 3; i++) {
		char path[TU_PATH];
		if (build)
			snprintf(path, sizeof path, "%s/tests/%s", build, files[i]);
		else
			snprintf(path, sizeof path, "%s/%s", KJIT_LTO_DIR, files[i]);
		kjit_link_input in = { 0, NULL, NULL, 0, path };
		kjit_kernel *k;
		CHECK_OK(make(e, &in, 1, NULL, 0, &k));
		get(k, KJIT_TIER_COMPILED, 0, 1, keys[i], files[i]);
		CHECK(strcmp(keys[i], key_a) != 0);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(keys[i], keys[j]) != 0);
	}
#else
	(void)e;
	(void)key_a;
	printf("  skipped: nvcc's inputs (configure found no nvcc)\n");
#endif
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH], lib_path[TU_PATH];
	tu_path(db, dir, "lto.db");
	snprintf(map_path, sizeof map_path, "%s/examples/lto/map.cu", tu_srcdir());
	kjit_engine *e = open_engine(db);
	kjit_kernel *k;
	char key_a[33], key_b[33], key[33];

	kjit__compiled ir_a = nvrtc_ir(lib_a, "sm_90"), ir_b = nvrtc_ir(lib_b, "sm_90");
	kjit_link_input in = { KJIT_LINK_LTOIR, "liba.ltoir", ir_a.cubin, ir_a.size, NULL };
	CHECK_OK(make(e, &in, 1, NULL, 0, &k));
	get(k, KJIT_TIER_COMPILED, 1, 1, key_a, "NVRTC's LTO IR of library a");

	in = (kjit_link_input){ KJIT_LINK_LTOIR, "libb.ltoir", ir_b.cubin, ir_b.size, NULL };
	CHECK_OK(make(e, &in, 1, NULL, 0, &k));
	get(k, KJIT_TIER_COMPILED, 0, 1, key_b, "library b instead: a link, no compile");
	CHECK(strcmp(key_a, key_b) != 0);

	tu_path(lib_path, dir, "liba.ltoir");
	tu_write_file(lib_path, ir_a.cubin, ir_a.size);
	in = (kjit_link_input){ 0, NULL, NULL, 0, lib_path };
	CHECK_OK(make(e, &in, 1, NULL, 0, &k));
	get(k, KJIT_TIER_MEMORY, 0, 0, key, "library a read from a file: the same key");
	CHECK_STREQ(key, key_a);

	const char *o3[] = { "-O3" };
	in = (kjit_link_input){ KJIT_LINK_LTOIR, "liba.ltoir", ir_a.cubin, ir_a.size, NULL };
	CHECK_OK(make(e, &in, 1, o3, 1, &k));
	get(k, KJIT_TIER_COMPILED, 0, 1, key, "library a with -O3: another key");
	CHECK(strcmp(key, key_a) != 0 && strcmp(key, key_b) != 0);

	/* a library source: its LTO IR compiled once, at creation, and cached */
	const char *lib_c = "__device__ float op(float x) { return 2.0f * x; }\n";
	kjit_link_input src = { KJIT_LINK_SOURCE, "libc.cu", lib_c, 0, NULL };
	kjit_engine_stats s0 = stats(e);
	CHECK_OK(make(e, &src, 1, NULL, 0, &k));
	CHECK_EQ_U64(stats(e).compiles - s0.compiles, 1);
	char key_c[33];
	get(k, KJIT_TIER_COMPILED, 0, 1, key_c, "KJIT_LINK_SOURCE libc.cu");
	s0 = stats(e);
	CHECK_OK(make(e, &src, 1, NULL, 0, &k));
	CHECK_EQ_U64(stats(e).compiles - s0.compiles, 0);
	get(k, KJIT_TIER_MEMORY, 0, 0, key, "libc.cu again: its LTO IR from the cache");
	CHECK_STREQ(key, key_c);

	check_nvcc(e, key_a);

	/* the tunable description's options, and a spec's kernel.link */
	kjit_kernel_options opts;
	kjit_kernel_options_init(&opts);
	in = (kjit_link_input){ KJIT_LINK_LTOIR, "liba.ltoir", ir_a.cubin, ir_a.size, NULL };
	opts.link = &in;
	opts.n_link = 1;
	const char *const block[] = { "128", "256" }, *const items[] = { "4" };
	const kjit_param tp[] = { { "BLOCK", block, 2, 1, KJIT_ROLE_BLOCK_X | KJIT_ROLE_DEFINE },
		                  { "ITEMS", items, 1, 0, KJIT_ROLE_DEFINE } };
	kjit_tunable_desc d = { .entry = "map", .source_path = map_path, .params = tp, .n_params = 2,
		                .options = &opts };
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &k));
	get(k, KJIT_TIER_MEMORY, 0, 0, key, "a tunable description's link input");
	CHECK_STREQ(key, key_a);
	char spec[TU_PATH], text[2 * TU_PATH];
	tu_path(spec, dir, "map.json");
	snprintf(text, sizeof text,
	         "{\"kernel\": {\"source\": \"%s\", \"entry\": \"map\", \"link\": [{\"path\": "
	         "\"liba.ltoir\", \"kind\": \"ltoir\"}]}, \"parameters\": [{\"name\": \"BLOCK\", "
	         "\"values\": [256], \"roles\": [\"block_x\", \"define\"]}, {\"name\": \"ITEMS\", "
	         "\"values\": [4]}]}", map_path);
	tu_write_file(spec, text, strlen(text));
	CHECK_OK(kjit_kernel_create_from_spec(e, spec, &k));
	get(k, KJIT_TIER_MEMORY, 0, 0, key, "a spec's kernel.link, relative to the spec");
	CHECK_STREQ(key, key_a);

	check_errors(e, &ir_a, dir);
	kjit_engine_close(e);

	/* a second engine: the linked cubins are in the database */
	e = open_engine(db);
	in = (kjit_link_input){ KJIT_LINK_LTOIR, "liba.ltoir", ir_a.cubin, ir_a.size, NULL };
	CHECK_OK(make(e, &in, 1, NULL, 0, &k));
	get(k, KJIT_TIER_DISK, 0, 0, key, "second engine, library a");
	CHECK_STREQ(key, key_a);
	s0 = stats(e);
	CHECK_OK(make(e, &src, 1, NULL, 0, &k));
	CHECK_EQ_U64(stats(e).compiles - s0.compiles, 0);
	get(k, KJIT_TIER_DISK, 0, 0, key, "second engine, libc.cu (its LTO IR from the database)");
	CHECK_STREQ(key, key_c);
	kjit_engine_close(e);
	kjit__compiled_free(&ir_a);
	kjit__compiled_free(&ir_b);
	return 0;
}
