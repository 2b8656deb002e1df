/*
 * test-compile: NVRTC compilation through the public API, no GPU.
 *
 *  - saxpy from examples/saxpy/saxpy.cu compiles for sm_90: the cubin is a
 *    CUDA ELF, the info (key, options, lowered name, size, compile time)
 *    is filled in, and a second get is a MEMORY hit on the same variant;
 *  - a C++ name expression ("scale<float>") compiles and its lowered name
 *    is the mangled symbol; "scale<double>" is another variant;
 *  - a batch of all 40 saxpy variants on 2 threads compiles each once;
 *    asking again is 40 memory hits;
 *  - duplicates inside a batch compile once and share the variant;
 *  - 255 defines (the most, with -arch) compile and are listed sorted;
 *    256 are refused;
 *  - defines named like identifiers of NVRTC's built-in headers (pad,
 *    size, x, width, ...) compile with their values (checked by #error),
 *    beside a -D of the user's own flags; they stay in the variant's
 *    options, and another value is another variant.
 */
#include "testutil.h"

static const char scale_src[] =
	"template <typename T>\n"
	"__global__ void scale(T *p, T a, int n)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		p[i] *= a;\n"
	"}\n";

static void test_single(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "single.db"), "sm_90", 2);
	CHECK_STREQ(kjit_engine_arch(e), "sm_90");
	CHECK_STREQ(kjit_engine_db_path(e), db);
	CHECK_STREQ(kjit_engine_device_name(e), "");
	kjit_kernel *k = tu_saxpy_kernel(e);
	CHECK(tu_is_hex32(kjit_kernel_signature(k)));

	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 256, 4);
	kjit_variant *v = NULL;
	kjit_cache_tier tier = (kjit_cache_tier)-1;
	double t0 = tu_now();
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	double ms = (tu_now() - t0) * 1e3;
	CHECK(v != NULL);
	CHECK(tier == KJIT_TIER_COMPILED);
	OK("saxpy BLOCK_SIZE=256 ITEMS_PER_THREAD=4 compiled for sm_90 in %.1f ms", ms);

	const void *cubin = NULL;
	size_t size = 0;
	CHECK_OK(kjit_variant_cubin(v, &cubin, &size));
	CHECK(cubin != NULL && size > 0);
	CHECK(tu_is_cuda_elf(cubin, size));
	OK("cubin of %zu bytes is an ELF image for EM_CUDA", size);

	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK(tu_is_hex32(info.key));
	CHECK_STREQ(info.options, "-DBLOCK_SIZE=256\n-DITEMS_PER_THREAD=4\n-arch=sm_90");
	CHECK_STREQ(info.lowered_name, "saxpy");
	CHECK(info.cubin_size == size);
	CHECK(info.compile_ms > 0);
	CHECK(info.num_regs == -1 && info.max_threads_per_block == -1 &&
	      info.static_shared_bytes == -1);
	OK("info: key %s, options as documented, lowered name saxpy, %.1f ms, no GPU attributes",
	   info.key, info.compile_ms);

	void *fn = (void *)1;
	CHECK_ST(kjit_variant_function(v, &fn), KJIT_ERR_NO_GPU);
	CHECK(fn == NULL);
	OK("kjit_variant_function without a GPU: KJIT_ERR_NO_GPU");

	kjit_variant *v2 = NULL;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v2, &tier));
	CHECK(v2 == v);
	CHECK(tier == KJIT_TIER_MEMORY);
	/* The tier pointer is optional. */
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v2, NULL));
	CHECK(v2 == v);
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, 1);
	CHECK_EQ_U64(s.misses, 1);
	CHECK_EQ_U64(s.memory_hits, 2);
	CHECK_EQ_U64(s.disk_hits, 0);
	CHECK_EQ_U64(s.corrupt, 0);
	CHECK(s.compile_ms_total > 0);
	OK("second and third get: tier MEMORY, same variant; stats 1 compile, 2 memory hits");

	/* A kernel without tunable parameters and without defines. */
	kjit_kernel *k0 = NULL;
	CHECK_OK(kjit_kernel_create_from_file(e, "saxpy", tu_saxpy_path(), NULL, 0, &k0));
	CHECK(strcmp(kjit_kernel_signature(k0), kjit_kernel_signature(k)) != 0);
	kjit_variant *v0 = NULL;
	CHECK_OK(kjit_variant_get(k0, NULL, &v0, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	CHECK_OK(kjit_variant_get_info(v0, &info));
	CHECK_STREQ(info.options, "-arch=sm_90");
	kjit_variant_desc empty = { NULL, 0, NULL, 0 };
	CHECK_OK(kjit_variant_get(k0, &empty, &v2, &tier));
	CHECK(v2 == v0 && tier == KJIT_TIER_MEMORY);
	OK("no parameters, NULL desc: options \"-arch=sm_90\"; an empty desc is the same variant");

	kjit_engine_close(e);
}

static void test_name_expression(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "template.db"), "sm_90", 2);
	kjit_kernel *kf = NULL, *kd = NULL;
	CHECK_OK(kjit_kernel_create(e, "scale<float>", scale_src, NULL, 0, &kf));
	CHECK_OK(kjit_kernel_create(e, "scale<double>", scale_src, NULL, 0, &kd));
	kjit_variant *vf = NULL, *vd = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(kf, NULL, &vf, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	CHECK_OK(kjit_variant_get(kd, NULL, &vd, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	kjit_variant_info fi, di;
	CHECK_OK(kjit_variant_get_info(vf, &fi));
	CHECK_OK(kjit_variant_get_info(vd, &di));
	/* Itanium mangling: void scale<float>(float*, float, int). */
	CHECK_STREQ(fi.lowered_name, "_Z5scaleIfEvPT_S0_i");
	CHECK_STREQ(di.lowered_name, "_Z5scaleIdEvPT_S0_i");
	CHECK(strcmp(fi.key, di.key) != 0);
	const void *cubin;
	size_t size;
	CHECK_OK(kjit_variant_cubin(vf, &cubin, &size));
	CHECK(tu_is_cuda_elf(cubin, size));
	/* The lowered name is in the cubin's string table. */
	CHECK(memmem(cubin, size, fi.lowered_name, strlen(fi.lowered_name) + 1) != NULL);
	OK("name expressions: scale<float> -> %s, scale<double> -> %s, symbol in the cubin",
	   fi.lowered_name, di.lowered_name);
	kjit_engine_close(e);
}

static void test_batch(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "batch.db"), "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);

	enum { N = TU_SAXPY_N_VARIANTS };
	tu_saxpy_variant sv[N];
	kjit_variant_desc descs[N];
	for (int i = 0; i < N; i++) {
		tu_saxpy_variant_nth(&sv[i], i);
		descs[i] = sv[i].desc;
	}
	kjit_variant *out[N];
	kjit_status status[N];
	char *errors[N];
	double t0 = tu_now();
	CHECK_OK(kjit_variants_get(k, descs, N, 2, out, status, errors));
	double secs = tu_now() - t0;
	for (int i = 0; i < N; i++) {
		CHECK_MSG(status[i] == KJIT_OK, "variant %d: %s", i, kjit_status_str(status[i]));
		CHECK(out[i] != NULL);
		CHECK(errors[i] == NULL);
	}
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, N);
	CHECK_EQ_U64(s.misses, N);
	CHECK_EQ_U64(s.memory_hits, 0);
	CHECK_EQ_U64(s.disk_hits, 0);
	OK("batch of %d saxpy variants on 2 threads: %d compiles in %.2f s (NVRTC total %.0f ms)",
	   N, N, secs, s.compile_ms_total);

	/* Every variant distinct, with the options it was asked for. */
	for (int i = 0; i < N; i++) {
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(out[i], &info));
		char want[128];
		snprintf(want, sizeof want, "-DBLOCK_SIZE=%d\n-DITEMS_PER_THREAD=%d\n-arch=sm_90",
		         sv[i].block, sv[i].items);
		CHECK_STREQ(info.options, want);
		const void *cubin;
		size_t size;
		CHECK_OK(kjit_variant_cubin(out[i], &cubin, &size));
		CHECK(tu_is_cuda_elf(cubin, size));
		for (int j = 0; j < i; j++) {
			kjit_variant_info other;
			CHECK(out[j] != out[i]);
			CHECK_OK(kjit_variant_get_info(out[j], &other));
			CHECK(strcmp(other.key, info.key) != 0);
		}
	}
	OK("40 distinct variants, 40 distinct keys, each with its own options and a cubin");

	/* The same batch again: memory hits, the same pointers; errors may be NULL. */
	kjit_variant *again[N];
	CHECK_OK(kjit_variants_get(k, descs, N, 0, again, status, NULL));
	for (int i = 0; i < N; i++)
		CHECK(status[i] == KJIT_OK && again[i] == out[i]);
	s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, N);
	CHECK_EQ_U64(s.memory_hits, N);
	OK("the batch again: 40 memory hits, no compile, the same variants");

	/* An empty batch is fine. */
	CHECK_OK(kjit_variants_get(k, NULL, 0, 0, NULL, NULL, NULL));
	OK("an empty batch returns KJIT_OK");
	kjit_engine_close(e);
}

static void test_batch_duplicates(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "dups.db"), "sm_90", 2);
	kjit_kernel *k = tu_saxpy_kernel(e);
	/* A B A A C B, and A again with its defines in the other order. */
	tu_saxpy_variant a, b, c;
	tu_saxpy_variant_init(&a, 128, 2);
	tu_saxpy_variant_init(&b, 256, 2);
	tu_saxpy_variant_init(&c, 512, 2);
	kjit_define a_rev[2] = { a.defines[1], a.defines[0] };
	kjit_variant_desc a2 = { a_rev, 2, NULL, 0 };
	kjit_variant_desc descs[7] = { a.desc, b.desc, a.desc, a.desc, c.desc, b.desc, a2 };
	kjit_variant *out[7];
	kjit_status status[7];
	char *errors[7];
	CHECK_OK(kjit_variants_get(k, descs, 7, 2, out, status, errors));
	for (int i = 0; i < 7; i++)
		CHECK(status[i] == KJIT_OK && out[i] != NULL && errors[i] == NULL);
	CHECK(out[0] == out[2] && out[0] == out[3] && out[0] == out[6]);
	CHECK(out[1] == out[5]);
	CHECK(out[0] != out[1] && out[0] != out[4] && out[1] != out[4]);
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, 3);
	CHECK_EQ_U64(s.misses, 3);
	CHECK_EQ_U64(s.memory_hits, 4);
	OK("batch A B A A C B A': 3 compiles, duplicates share the first variant (4 memory hits)");

	sqlite3 *db3 = tu_db_open(db);
	CHECK(tu_db_int(db3, "SELECT count(*) FROM binaries", NULL) == 3);
	tu_db_close(db3);
	OK("3 rows in the binaries table");
	kjit_engine_close(e);
}

/* 255 defines: the longest option list (with -arch), past any fixed buffer. */
static void test_many_defines(const char *dir)
{
	enum { MAX = 255 };
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "many.db"), "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);
	static char names[MAX + 1][32], values[MAX + 1][48];
	kjit_define defs[MAX + 1];
	for (int i = 0; i <= MAX; i++) {
		/* Given in reverse order; UNUSED_PADDING_NNN sorts after the two real ones. */
		int j = MAX - i;
		if (j == 0)
			snprintf(names[i], sizeof names[i], "BLOCK_SIZE");
		else if (j == 1)
			snprintf(names[i], sizeof names[i], "ITEMS_PER_THREAD");
		else
			snprintf(names[i], sizeof names[i], "UNUSED_PADDING_%03d", j);
		snprintf(values[i], sizeof values[i], j == 0 ? "128" : j == 1 ? "2" :
		         "a_long_value_to_make_the_option_list_long_%03d", j);
		defs[i].name = names[i];
		defs[i].value = values[i];
	}
	/* The last MAX entries: UNUSED_PADDING_254 .. 002, ITEMS, BLOCK_SIZE. */
	kjit_variant_desc d = { defs + 1, MAX, NULL, 0 };
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &d, &v, NULL));
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK(strncmp(info.options, "-DBLOCK_SIZE=128\n-DITEMS_PER_THREAD=2\n-DUNUSED_PADDING_002=",
	              strlen("-DBLOCK_SIZE=128\n-DITEMS_PER_THREAD=2\n-DUNUSED_PADDING_002=")) == 0);
	CHECK(strstr(info.options, "-DUNUSED_PADDING_254=a_long_value_to_make_the_option_list_"
	                           "long_254\n-arch=sm_90") != NULL);
	size_t lines = 0;
	for (const char *p = info.options; *p; p++)
		lines += *p == '\n';
	CHECK(lines == MAX); /* MAX defines and -arch, no trailing newline */
	CHECK(strlen(info.options) > 4096);
	OK("255 defines (a %zu byte option list) compile, sorted, -arch last",
	   strlen(info.options));
	/* One more is too many. */
	d = (kjit_variant_desc){ defs, MAX + 1, NULL, 0 };
	CHECK_ST(kjit_variant_get(k, &d, &v, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "256 options");
	OK("256 defines: KJIT_ERR_INVALID_ARG, \"%s\"", kjit_last_error());
	kjit_engine_close(e);
}

/* Every name a public kernel used that NVRTC's headers also use. */
static const char *const header_names[] = { "pad", "size", "x", "y", "z", "w", "width",
	"height", "offset", "value", "type", "mode", "id", "base", "ptr", "flags", "kind",
	"reserved" };
#define N_HEADER_NAMES (sizeof header_names / sizeof header_names[0])

static const char names_src[] =
	"#if pad != 1 || size != 2 || x != 3 || width != 7 || reserved != 18\n"
	"#error the defines do not have their values\n"
	"#endif\n"
	"#if USER_FLAG != 42\n"
	"#error -DUSER_FLAG=42 from the flags is not defined\n"
	"#endif\n"
	"extern \"C\" __global__ void named(float *p)\n"
	"{\n"
	"	p[0] = pad + size + x + y + z + w + width + height + offset + value + type\n"
	"	               + mode + id + base + ptr + flags + kind + reserved;\n"
	"}\n";

static void test_header_names(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "names.db"), "sm_90", 1);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "named", names_src, NULL, 0, &k));
	static char values[N_HEADER_NAMES][8];
	kjit_define defs[N_HEADER_NAMES];
	for (size_t i = 0; i < N_HEADER_NAMES; i++) {
		snprintf(values[i], sizeof values[i], "%zu", i + 1);
		defs[i] = (kjit_define){ header_names[i], values[i] };
	}
	const char *flags[] = { "-DUSER_FLAG=42" };
	kjit_variant_desc d = { defs, N_HEADER_NAMES, flags, 1 };
	kjit_variant *v = NULL, *v2 = NULL;
	CHECK_OK(kjit_variant_get(k, &d, &v, NULL));
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK_CONTAINS(info.options, "-Dpad=1\n");
	CHECK_CONTAINS(info.options, "-DUSER_FLAG=42\n-arch=sm_90");
	snprintf(values[0], sizeof values[0], "%d", 1); /* the same again: the same variant */
	CHECK_OK(kjit_variant_get(k, &d, &v2, NULL));
	CHECK(v2 == v);
	snprintf(values[N_HEADER_NAMES - 1], sizeof values[0], "%d", 99);
	CHECK_ST(kjit_variant_get(k, &d, &v2, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "the defines do not have their values");
	CHECK_CONTAINS(kjit_last_error(), "-Dreserved=99");
	OK("%zu defines named like NVRTC's own identifiers (pad, size, x, width, ...) and a "
	   "-D flag compile; another value is another variant, its #error names its defines",
	   N_HEADER_NAMES);
	kjit_engine_close(e);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	printf("%s: kjit %s, source %s\n", tu_prog, kjit_version(), tu_saxpy_path());
	test_single(dir);
	test_name_expression(dir);
	test_batch(dir);
	test_batch_duplicates(dir);
	test_many_defines(dir);
	test_header_names(dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
