/*
 * test-tune-examples: the kjit-tune specs of examples/ read, their spaces
 * have the documented sizes (doc/spec-format.md), the default
 * configuration of each is valid, and it compiles with NVRTC (so does the
 * reference kernel where the spec names one); a configuration that the
 * restrictions exclude fails to compile, as the kernel's #error says.
 */
#include "testutil.h"

#include "tuning.h"

typedef struct example {
	const char *spec;
	size_t size;
} example;

static const example examples[] = {
	{ "examples/reduction/reduction.json", 118 },
	{ "examples/transpose/transpose.json", 26 },
	{ "examples/sgemm/sgemm.json", 1394 },
	{ "examples/stencil/stencil.json", 95 },
	{ "examples/pnpoly/pnpoly.json", 5120 },
	{ "examples/histogram/histogram.json", 1488 },
	{ "examples/nbody/nbody.json", 2160 },
	{ "examples/gemv/gemv.json", 588 },
	{ "examples/softmax/softmax.json", 570 },
	{ "examples/spmv/spmv.json", 1008 },
	{ "examples/mandelbrot/mandelbrot.json", 1344 },
	{ "examples/stencil3d/stencil3d.json", 864 },
	{ "examples/scan/scan.json", 426 },
	{ "examples/bgemm/bgemm.json", 344 },
	{ "examples/fir/fir.json", 1060 },
	{ "examples/gather/gather.json", 590 },
	{ "examples/lto/map.json", 16 }, /* linked with a library (kernel.link) */
};

/* The defines of configuration cfg of spec (names and texts point into
 * spec). */
static size_t defines_of(const kjit__spec *spec, const uint16_t *cfg, kjit_define *d)
{
	size_t n = 0;
	for (size_t p = 0; p < spec->n_params; p++)
		if (spec->params[p].roles & KJIT__ROLE_DEFINE)
			d[n++] = (kjit_define){ spec->params[p].name, spec->params[p].values[cfg[p]].text };
	return n;
}

static kjit_kernel *kernel_of(kjit_engine *e, const kjit__spec *spec, const char *entry)
{
	kjit_kernel *k;
	CHECK_OK(kjit__spec_kernel(e, spec, entry, NULL, NULL, &k));
	return k;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	kjit_engine_options o;
	kjit_engine *e;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	CHECK_OK(kjit_engine_open(&o, &e));

	for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
		char path[TU_PATH];
		kjit__spec *spec;
		kjit__space *space;
		uint16_t cfg[32];
		kjit_define d[32];
		snprintf(path, sizeof path, "%s/%s", tu_srcdir(), examples[i].spec);
		CHECK_OK(kjit__spec_load(path, &spec));
		CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
		CHECK_MSG(space->size == examples[i].size, "%s: %zu configurations, expected %zu",
		          examples[i].spec, space->size, examples[i].size);
		for (size_t p = 0; p < spec->n_params; p++)
			cfg[p] = (uint16_t)spec->params[p].default_index;
		CHECK_MSG(kjit__space_find(space, cfg) >= 0, "%s: the default configuration is "
		          "not in the space", examples[i].spec);

		kjit_kernel *k = kernel_of(e, spec, spec->entry);
		kjit_variant_desc desc = { d, defines_of(spec, cfg, d),
			                   (const char *const *)spec->flags, spec->n_flags };
		kjit_variant *v;
		CHECK_OK(kjit_variant_get(k, &desc, &v, NULL));
		if (spec->reference_entry) {
			kjit_kernel *r = kernel_of(e, spec, spec->reference_entry);
			CHECK_OK(kjit_variant_get(r, &desc, &v, NULL));
		}
		printf("%s: %zu configurations, the default compiles\n", examples[i].spec,
		       space->size);
		kjit__space_free(space);
		kjit__spec_free(spec);
	}

	/* SGEMM tiles that the restrictions exclude (B loads of 512 threads
	 * do not divide) stop at the kernel's #error */
	char path[TU_PATH];
	kjit__spec *spec;
	snprintf(path, sizeof path, "%s/examples/sgemm/sgemm.json", tu_srcdir());
	CHECK_OK(kjit__spec_load(path, &spec));
	kjit_kernel *k = kernel_of(e, spec, spec->entry);
	const kjit_define bad[] = { { "BM", "256" }, { "BN", "128" }, { "BK", "8" },
		                    { "TM", "8" }, { "TN", "8" }, { "THREADS", "512" } };
	kjit_variant_desc desc = { bad, 6, NULL, 0 };
	kjit_variant *v;
	CHECK_ST(kjit_variant_get(k, &desc, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "inconsistent tile parameters");
	kjit__spec_free(spec);
	kjit_engine_close(e);
	printf("ok\n");
	return 0;
}
