/*
 * test-hostile-input: what a spec or a caller hands kjit cannot make NVRTC
 * or nvJitLink write a file (the option allowlist of src/options.c, by the
 * C API and by every spec field that carries options), and reading is
 * bounded: a FIFO, a device or a folder as spec, source or header is
 * refused at once, a file over the cap is refused by its size, a JSON
 * document by its count of values. Real NVRTC, no GPU.
 */
#include "testutil.h"

#include "engine.h"

static const char *dir;

static const char src[] =
	"extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = V; }\n";

/* Every variant of k with flags[n] is refused naming the option. */
static void refused(kjit_kernel *k, const char *const *flags, size_t n, const char *want)
{
	kjit_define v = { "V", "1.0f" };
	kjit_variant_desc d = { &v, 1, flags, n };
	kjit_variant *var = (kjit_variant *)1;
	CHECK_ST(kjit_variant_get(k, &d, &var, NULL), KJIT_ERR_INVALID_ARG);
	CHECK(var == NULL);
	CHECK_CONTAINS(kjit_last_error(), "kernel k: flag");
	CHECK_CONTAINS(kjit_last_error(), want);
}

static void test_api(void)
{
	char db[TU_PATH], written[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "api.db"), "sm_90", 1);
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create(e, "k", src, NULL, 0, &k));

	/* the control: NVRTC itself writes the file of -time */
	tu_path(written, dir, "time.csv");
	char *time_opt = kjit__strdup_printf("-time=%s", written);
	const char *opts[] = { "-DV=1.0f", time_opt, "-arch=sm_90" };
	kjit__compiled c;
	CHECK_OK(kjit__nvrtc_compile(src, "k.cu", "k", opts, 3, NULL, &c));
	kjit__compiled_free(&c);
	CHECK_MSG(tu_exists(written), "NVRTC did not write %s: the control fails", written);
	CHECK(unlink(written) == 0);

	/* ... which kjit never hands it, in any spelling */
	/* (forms[0] is time_opt, freed with the others) */
	char *forms[] = { time_opt, kjit__strdup_printf("--time=%s", written),
		          kjit__strdup_printf("--fdevice-time-trace=%s", written),
		          kjit__strdup_printf("-fdevice-time-trace=%s", written),
		          kjit__strdup_printf("--create-pch=%s", written),
		          kjit__strdup_printf("-create-pch=%s", written),
		          kjit__strdup_printf("--pch-dir=%s", dir), strdup("-pch"),
		          kjit__strdup_printf("-use-pch=%s", written) };
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		refused(k, (const char *const *)&forms[i], 1, forms[i]);
		free(forms[i]);
	}
	const char *sep[] = { "--time", written };
	refused(k, sep, 2, "'--time'): it makes the compiler write a file");
	CHECK(!tu_exists(written));
	OK("-time, --time, --fdevice-time-trace, --create-pch, -pch...: refused, no file written");

	static const char *const bad[][2] = {
		{ "--ptxas-options=-v", "ptxas's own options are not checked" },
		{ "-Xptxas", "ptxas's own options are not checked" },
		{ "--split-compile=0", "the compile pool decides the threads" },
		{ "-modify-stack-limit=true", "stack limit of the whole process" },
		{ "-include=/etc/passwd", "include_dirs" },
		{ "-I/usr/include", "include_dirs" },
		{ "-dlto", "the engine sets it for a kernel with link inputs" },
		{ "-rdc=true", "the engine sets it for a kernel with link inputs" },
		{ "-arch=sm_80", "the engine sets -arch" },
		{ "-optix-ir", "OptiX IR" },
		{ "-O3", "not an NVRTC option kjit allows" },
		{ "--tim=x", "not an NVRTC option kjit allows" },
		{ "-lineinfo=1", "takes no value" },
		{ "-maxrregcount", "takes a value" },
		{ "-maxrregcount=", "takes a value after '='" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused(k, &bad[i][0], 1, bad[i][1]);
	const char *eaten[] = { "-maxrregcount", "--time=x" };
	refused(k, eaten, 2, "'-maxrregcount'): takes a value, not an option after it");
	char *long_flag = malloc(KJIT__MAX_OPTION_BYTES + 2);
	memset(long_flag, 'x', KJIT__MAX_OPTION_BYTES + 1);
	memcpy(long_flag, "-DLONG=", 7);
	long_flag[KJIT__MAX_OPTION_BYTES + 1] = '\0';
	refused(k, (const char *const *)&long_flag, 1, "longer than 4096 bytes");
	free(long_flag);
	CHECK_EQ_U64(tu_stats(e).compiles, 0);
	OK("options outside the allowlist, misspelt, or without their value: refused before NVRTC");

	/* the allowlist, every entry that sm_90 takes, at once: real NVRTC
	 * compiles with them */
	const char *good[] = {
		"-ewp", "--device-debug", "-lineinfo", "--generate-line-info", "-dopt", "on",
		"--dopt=on", "-Ofc=max", "--maxrregcount=64", "-maxrregcount", "40", "--ftz=true",
		"-prec-sqrt=false", "--prec-div=false", "-fmad=true", "--use_fast_math",
		"-extra-device-vectorization", "-gen-opt-lto", "-jtd=50",
		"--device-stack-protector=false", "-no-cache", "-frandom-seed=7", "-DA=1",
		"-D", "B=2", "-D C=3", "--define-macro=D", "-UA", "--undefine-macro", "B",
		"-no-source-include", "-std=c++17", "--builtin-move-forward=true",
		"-builtin-initializer-list=true", "-minimal", "-w", "--restrict", "-default-device",
		"-device-int128", "-opt-info=inline", "-err-no", "--display-error-number",
		"-diag-suppress=177,550", "--diag-warn=20", "-diag-error=1", "-brief-diag=true",
	};
	size_t n_good = sizeof good / sizeof good[0];
	CHECK_OK(kjit__options_check(0, good, n_good, "good"));
	kjit_define v = { "V", "1.0f" };
	kjit_variant_desc d = { &v, 1, good, n_good };
	kjit_variant *var;
	CHECK_OK(kjit_variant_get(k, &d, &var, NULL));
	CHECK_EQ_U64(tu_stats(e).compiles, 1);
	OK("%zu options of the allowlist, short and long, =VALUE and separate: NVRTC compiles "
	   "with them", n_good);

	const char *mine[] = { "-DV=1.0f", "-time=x", "-arch=sm_90" };
	CHECK_ST(kjit__options_check(0, mine, 3, "spec x: flag"), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "spec x: flag 1 ('-time=x'): it makes the compiler");
	kjit_engine_close(e);
}

/* Every option of the allowlist that takes a value, in both spellings,
 * written both ways (NAME=VALUE, and NAME then VALUE): what the allowlist
 * accepts real NVRTC compiles, and each is accepted in one form at least. */
static void test_value_forms(void)
{
	static const char *const opt[][2] = {
		{ "--dopt", "on" }, { "-dopt", "on" }, { "--Ofast-compile", "max" },
		{ "-Ofc", "max" }, { "--maxrregcount", "32" }, { "-maxrregcount", "32" },
		{ "--ftz", "true" }, { "-ftz", "true" }, { "--prec-sqrt", "true" },
		{ "-prec-sqrt", "true" }, { "--prec-div", "true" }, { "-prec-div", "true" },
		{ "--fmad", "true" }, { "-fmad", "true" }, { "--jump-table-density", "50" },
		{ "-jtd", "50" }, { "--device-stack-protector", "true" },
		{ "-device-stack-protector", "true" }, { "--frandom-seed", "7" },
		{ "-frandom-seed", "7" }, { "--define-macro", "W=1" }, { "-D", "W=1" },
		{ "--undefine-macro", "W" }, { "-U", "W" }, { "--std", "c++17" },
		{ "-std", "c++17" }, { "--builtin-move-forward", "true" },
		{ "-builtin-move-forward", "true" }, { "--builtin-initializer-list", "true" },
		{ "-builtin-initializer-list", "true" }, { "--optimization-info", "inline" },
		{ "-opt-info", "inline" }, { "--diag-error", "20" }, { "-diag-error", "20" },
		{ "--diag-suppress", "20" }, { "-diag-suppress", "20" }, { "--diag-warn", "20" },
		{ "-diag-warn", "20" }, { "--brief-diagnostics", "true" },
		{ "-brief-diag", "true" },
	};
	size_t accepted = 0;
	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
		char joined[64];
		snprintf(joined, sizeof joined, "%s=%s", opt[i][0], opt[i][1]);
		const char *eq[] = { "-DV=1.0f", "-arch=sm_90", joined };
		const char *sep[] = { "-DV=1.0f", "-arch=sm_90", opt[i][0], opt[i][1] };
		int ok_forms = 0;
		for (int form = 0; form < 2; form++) {
			const char *const *o = form ? sep : eq;
			size_t n = form ? 4 : 3;
			if (kjit__options_check(0, o + 2, n - 2, "flag") != KJIT_OK) {
				CHECK_CONTAINS(kjit_last_error(), "takes a value after '='");
				continue;
			}
			kjit__compiled c;
			kjit_status st = kjit__nvrtc_compile(src, "k.cu", "k", o, n, NULL, &c);
			CHECK_MSG(st == KJIT_OK, "%s %s: the allowlist takes it, NVRTC does not: %s",
			          o[2], form ? o[3] : "", kjit_last_error());
			kjit__compiled_free(&c);
			ok_forms++;
		}
		CHECK_MSG(ok_forms > 0, "%s: refused in both forms", opt[i][0]);
		accepted += (size_t)ok_forms;
	}
	OK("%zu options with a value, both forms: the %zu the allowlist accepts NVRTC compiles, "
	   "the others refused naming '='", sizeof opt / sizeof opt[0], accepted);
}

/* A spec whose field holds options: refused, naming the file, the field
 * and the option. */
static void test_specs(void)
{
	char src_path[TU_PATH], text[2048];
	tu_write_file(tu_path(src_path, dir, "k.cu"), src, strlen(src));
	static const char kjit_format_spec[] =
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"%s},"
		" \"parameters\": [{\"name\": \"V\", \"values\": [1, 2], \"roles\": \"define\"}%s],"
		" \"problems\": [{\"n\": 1}]}";
	snprintf(text, sizeof text, kjit_format_spec, ", \"flags\": [\"-lineinfo\", \"--time=/tmp/x\"]",
	         "");
	tu_spec_refused(dir, text, "kernel.flags[1]", "\"--time=/tmp/x\": it makes the compiler "
	                "write a file");
	snprintf(text, sizeof text, kjit_format_spec, "",
	         ", {\"name\": \"F\", \"values\": [\"-lineinfo\", \"-G --fdevice-time-trace=t.json\"],"
	         " \"roles\": \"flags\"}");
	tu_spec_refused(dir, text, "parameters[1]", "\"--fdevice-time-trace=t.json\"");
	snprintf(text, sizeof text, kjit_format_spec, ", \"link\": \"lib.ltoir\", \"link_options\": "
	         "[\"-O3\", \"-time\"]", "");
	tu_spec_refused(dir, text, "kernel.link_options[1]", "nvJitLink options kjit allows "
	                "(\"-time\"");
	char *big = malloc(8192);
	memset(big, 'x', 8191);
	big[8191] = '\0';
	char *long_spec = kjit__strdup_printf("{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                                " \"parameters\": [{\"name\": \"F\", \"values\": [\"-D%s\"],"
	                                " \"roles\": \"flags\"}], \"problems\": [{\"n\": 1}]}", big);
	tu_spec_refused(dir, long_spec, "parameters[0]", "flags of at most 4096 bytes");
	free(long_spec);
	for (size_t i = 0; i < 300; i++)
		memcpy(big + 3 * i, "-G ", 3);
	big[900] = '\0';
	long_spec = kjit__strdup_printf("{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                                " \"parameters\": [{\"name\": \"F\", \"values\": [\"%s\"],"
	                                " \"roles\": \"flags\"}], \"problems\": [{\"n\": 1}]}", big);
	tu_spec_refused(dir, long_spec, "parameters[0]", "at most 256 flags in a value");
	free(long_spec);
	free(big);

	char t1[4096];
	snprintf(t1, sizeof t1,
	         "{\"General\": {\"BenchmarkName\": \"k\", \"OutputFormat\": \"JSON\"},"
	         " \"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"block_size_x\","
	         "  \"Type\": \"int\", \"Values\": \"[32, 64]\", \"Default\": 32}], \"Conditions\": []},"
	         " \"KernelSpecification\": {\"Language\": \"CUDA\", \"CompilerOptions\":"
	         "  [\"-std=c++17\", \"-I\", \".\", \"--create-pch=%s/x.pch\"], \"KernelName\": \"k\","
	         "  \"KernelFile\": \"k.cu\", \"GlobalSizeType\": \"CUDA\", \"LocalSize\": {\"X\":"
	         "  \"block_size_x\", \"Y\": \"1\", \"Z\": \"1\"}, \"ProblemSize\": 1024,"
	         "  \"SharedMemory\": 0, \"Arguments\": [{\"Name\": \"x\", \"Type\": \"float\","
	         "  \"MemoryType\": \"Vector\", \"AccessType\": \"ReadWrite\", \"FillType\":"
	         "  \"Constant\", \"Size\": \"ProblemSize\", \"FillValue\": 1.0}]}}", dir);
	/* T1: a spec that cannot be compiled, but can be counted */
	char t1_path[TU_PATH];
	kjit__spec *spec;
	tu_write_file(tu_path(t1_path, dir, "t1.json"), t1, strlen(t1));
	CHECK_OK(kjit__spec_load(t1_path, &spec));
	CHECK(spec->unrunnable);
	CHECK_CONTAINS(spec->unrunnable, "KernelSpecification.CompilerOptions: \"--create-pch=");
	CHECK_CONTAINS(spec->unrunnable, "x.pch\": precompiled headers");
	CHECK_CONTAINS(spec->unrunnable, "precompiled headers are files outside the binary key");
	for (size_t i = 0; i < spec->n_flags; i++)
		CHECK_MSG(!strstr(spec->flags[i], "pch"), "kept %s", spec->flags[i]);
	kjit__spec_free(spec);
	OK("kernel.flags, a flags parameter, kernel.link_options: refused with the field and the "
	   "option; T1 CompilerOptions: the spec is not compiled, saying which and why");
}

/* Loading path as a spec fails with want in the message, at once. */
static void spec_refused(const char *path, const char *want)
{
	kjit__spec *spec = (kjit__spec *)1;
	uint64_t t0 = kjit__now_ns();
	CHECK(kjit__spec_load(path, &spec) != KJIT_OK);
	CHECK(spec == NULL);
	CHECK_CONTAINS(kjit_last_error(), want);
	CHECK((kjit__now_ns() - t0) < 5000000000ull);
	OK("spec %s: %s", path, kjit_last_error());
}

static void test_files(void)
{
	char fifo[TU_PATH], big[TU_PATH], many[TU_PATH], spec[TU_PATH];
	CHECK(mkfifo(tu_path(fifo, dir, "fifo"), 0600) == 0);
	spec_refused(fifo, "is a FIFO, not a regular file");
	spec_refused("/dev/zero", "is a device, not a regular file");
	spec_refused(dir, "is a directory");
	/* a sparse file one byte over the cap: refused by its size, unread */
	int fd = open(tu_path(big, dir, "big.json"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)KJIT__MAX_TEXT_BYTES + 1) == 0 && close(fd) == 0);
	spec_refused(big, "larger than 64 MiB, the most kjit reads");
	char *text;
	size_t len;
	CHECK_ST(kjit__read_file(big, 1 << 20, &text, &len), KJIT_ERR_INVALID_ARG);
	CHECK_OK(kjit__read_file(big, (size_t)KJIT__MAX_TEXT_BYTES + 1, &text, &len));
	CHECK(len == KJIT__MAX_TEXT_BYTES + 1);
	free(text);
	/* JSON: one value over the count */
	size_t n = KJIT__JSON_MAX_VALUES;
	char *doc = malloc(2 * n + 2);
	doc[0] = '[';
	for (size_t i = 0; i < n; i++) {
		doc[1 + 2 * i] = '0';
		doc[2 + 2 * i] = i + 1 < n ? ',' : ']';
	}
	tu_write_file(tu_path(many, dir, "many.json"), doc, 2 * n + 1);
	spec_refused(many, "at most 1048576 values in a document");
	kjit__json *root;
	doc[2 * n - 2] = ']'; /* the array and n - 1 zeros: n values */
	CHECK_OK(kjit__json_parse(doc, 2 * n - 1, "fewer", &root));
	CHECK(root->n == n - 1);
	kjit__json_free(root);
	free(doc);
	OK("a FIFO, /dev/zero, a folder, a file over 64 MiB, JSON of more than %zu values: "
	   "refused at once", n);

	/* a source and a header that are not regular files */
	char text_spec[TU_PATH + 512];
	snprintf(text_spec, sizeof text_spec,
	         "{\"kernel\": {\"source\": \"%s\", \"entry\": \"k\"},"
	         " \"parameters\": [{\"name\": \"V\", \"values\": [1], \"roles\": \"define\"}],"
	         " \"problems\": [{\"n\": 1}]}", fifo);
	tu_write_file(tu_path(spec, dir, "fifo-source.json"), text_spec, strlen(text_spec));
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "files.db"), "sm_90", 1);
	kjit_kernel *k = (kjit_kernel *)1;
	CHECK(kjit_kernel_create_from_spec(e, spec, &k) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "is a FIFO, not a regular file");
	CHECK(kjit_kernel_create_from_file(e, "k", "/dev/zero", NULL, 0, &k) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "/dev/zero: cannot read: is a device");
	snprintf(text_spec, sizeof text_spec,
	         "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\", \"headers\":"
	         " {\"z.h\": {\"path\": \"/dev/zero\"}}},"
	         " \"parameters\": [{\"name\": \"V\", \"values\": [1], \"roles\": \"define\"}],"
	         " \"problems\": [{\"n\": 1}]}");
	tu_spec_refused(dir, text_spec, "kernel.headers.z.h.path", "is a device");
	kjit_engine_close(e);
	OK("a FIFO as source, /dev/zero as source or header: refused at once");

	/* a folder as the database */
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = dir;
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	e = (kjit_engine *)1;
	CHECK(kjit_engine_open(&o, &e) != KJIT_OK && e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "is a directory");
	OK("a folder as the database: %s", kjit_last_error());
}

/* A source that does not compile, whose entry point NVRTC's name map
 * therefore misses too: the compiler's log, not a missing entry point. */
static void test_name_map(void)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "map.db"), "sm_90", 1);
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create(e, "k", "__global__ void k(floatt *p) { p[0] = 1; }\n", NULL,
	                            0, &k));
	kjit_variant *v;
	CHECK_ST(kjit_variant_get(k, NULL, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "identifier \"floatt\" is undefined");
	CHECK(!strstr(kjit_last_error(), "entry point 'k' not found"));
	CHECK_OK(kjit_kernel_create(e, "j", "__global__ void k(float *p) { p[0] = 1; }\n", NULL,
	                            0, &k));
	CHECK_ST(kjit_variant_get(k, NULL, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "entry point 'j' not found");
	kjit_engine_close(e);
	OK("a compile error that also fails in __nv_name_map: the NVRTC log; a name that is "
	   "not there: a missing entry point");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();
	test_api();
	test_value_forms();
	test_specs();
	test_files();
	test_name_map();
	printf("%s: PASS\n", tu_prog);
	return 0;
}
