/*
 * test-args-cubin: without a GPU, a kernel's parameters as its cubin
 * records them (.nv.info.<entry>, EIATTR_KPARAM_INFO), on real NVRTC
 * cubins: offsets and sizes of a kernel of seven parameter types; a spec
 * whose arguments do not fit (tests/t1/pnpoly.json: four arguments for
 * three parameters; count_long.json: an int64 for an int) is refused on
 * the first compile with the table, as on the GPU; count_ok.json passes;
 * truncated and corrupted cubins are read without a fault.
 */
#include "testutil.h"

#include "engine.h"

static const char seven[] =
	"struct S { float a, b, c; };\n"
	"extern \"C\" __global__ void k(float *x, int n, double d, char c, S s, short h,\n"
	"                               long long q) { x[n] = d + c + s.a + h + q; }\n";

/* The cubin of the default variant of k. */
static void cubin_of(kjit_kernel *k, void **cubin, size_t *size, char **lowered)
{
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &d, &v, NULL));
	const void *c;
	CHECK_OK(kjit_variant_cubin(v, &c, size));
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	*cubin = malloc(*size);
	CHECK(*cubin && (*lowered = strdup(info.lowered_name)));
	memcpy(*cubin, c, *size);
}

/* The configuration block_size_x = 128 of the specs below. */
static const kjit_define block_define = { "block_size_x", "128" };
static const kjit_variant_desc block_128 = { &block_define, 1, NULL, 0 };

static void refused(kjit_engine *e, const char *t1dir, const char *spec, const char *const *want)
{
	char path[2 * TU_PATH];
	snprintf(path, sizeof path, "%s/%s", t1dir, spec);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_from_spec(e, path, &k));
	kjit_variant *v = NULL;
	CHECK_ST(kjit_variant_get(k, &block_128, &v, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "its parameters do not match the arguments given");
	CHECK_CONTAINS(kjit_last_error(), "(the cubin gives sizes only");
	for (const char *const *w = want; *w; w++)
		CHECK_CONTAINS(kjit_last_error(), *w);
	OK("%s: refused on the first compile, without a GPU:\n%s", spec, kjit_last_error());
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH], t1dir[TU_PATH];
	snprintf(t1dir, sizeof t1dir, "%s/tests/t1", tu_srcdir());
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "a.db"), "sm_90", 1);

	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "k", seven, NULL, 0, &k));
	void *cubin;
	size_t size, n, *off, *sz;
	char *lowered;
	cubin_of(k, &cubin, &size, &lowered);
	CHECK_OK(kjit__cubin_params(cubin, size, lowered, &off, &sz, &n));
	static const size_t want_off[] = { 0, 8, 16, 24, 28, 40, 48 }, want_sz[] = { 8, 4, 8, 1, 12,
		                                                                           2, 8 };
	CHECK_MSG(n == 7, "%zu parameters", n);
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(off[i] == want_off[i] && sz[i] == want_sz[i], "parameter %zu: %zu at %zu", i,
		          sz[i], off[i]);
	free(off);
	free(sz);
	CHECK_ST(kjit__cubin_params(cubin, size, "nope", &off, &sz, &n), KJIT_ERR_NOT_FOUND);
	OK("float *, int, double, char, struct of 12, short, long long: sizes and offsets from "
	   "the cubin");

	/* hostile: every truncation, and each byte flipped, read without a fault */
	size_t found = 0;
	for (size_t cut = 0; cut < size; cut += 7)
		if (kjit__cubin_params(cubin, cut, lowered, &off, &sz, &n) == KJIT_OK) {
			found++;
			free(off);
			free(sz);
		}
	unsigned char *bad = malloc(size);
	CHECK(bad);
	for (size_t i = 0; i < size; i++) {
		memcpy(bad, cubin, size);
		bad[i] ^= 0xff;
		if (kjit__cubin_params(bad, size, lowered, &off, &sz, &n) == KJIT_OK) {
			CHECK(n <= 32768);
			free(off);
			free(sz);
		}
	}
	free(bad);
	OK("truncated (%zu of its lengths still whole enough) and corrupted cubins: no fault",
	   found);
	free(cubin);
	free(lowered);

	refused(e, t1dir, "pnpoly.json", (const char *const[]){ "3 parameters, 4 arguments",
	                                                       "<- no such parameter", NULL });
	refused(e, t1dir, "count_long.json", (const char *const[]){ "<- sizes differ", NULL });
	char ok[2 * TU_PATH];
	snprintf(ok, sizeof ok, "%s/count_ok.json", t1dir);
	CHECK_OK(kjit_kernel_create_from_spec(e, ok, &k));
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &block_128, &v, NULL));
	OK("count_ok.json: its arguments fit, compiled");
	kjit_engine_close(e);
	return 0;
}
