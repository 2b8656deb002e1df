/*
 * test-gpu-expect-args: kjit_kernel_expect_args(), the arguments a caller
 * passes checked against each variant's parameters.
 *
 *  - NULL, an empty name or type, a size of 0 and a second call are
 *    KJIT_ERR_INVALID_ARG naming the fault, and leave the kernel as it was;
 *  - with a GPU: arguments that fit load and launch; arguments that do not
 *    (a double where the kernel takes a float, one argument too many) fail
 *    the variant's load with the table of both lists, a mark on each row
 *    that differs.
 */
#include "testutil.h"

static const char *src =
	"extern \"C\" __global__ void scale(float *y, const float *x, float a, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }\n";

static kjit_kernel *kernel(kjit_engine *e)
{
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "scale", src, NULL, 0, &k));
	return k;
}

static void refusals(kjit_engine *e)
{
	kjit_kernel *k = kernel(e);
	kjit_arg bad_name[] = { { "", "float *", 8 } };
	kjit_arg bad_type[] = { { "y", NULL, 8 } };
	kjit_arg bad_size[] = { { "y", "float *", 0 } };
	CHECK_ST(kjit_kernel_expect_args(NULL, bad_name, 1), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_kernel_expect_args(k, NULL, 1), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_kernel_expect_args(k, bad_name, 1), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "argument 0 has no name");
	CHECK_ST(kjit_kernel_expect_args(k, bad_type, 1), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "has no type");
	CHECK_ST(kjit_kernel_expect_args(k, bad_size, 1), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "has no size");
	kjit_arg good[] = { { "y", "float *", 8 }, { "x", "float *", 8 }, { "a", "float", 4 },
		            { "n", "int32", 4 } };
	CHECK_OK(kjit_kernel_expect_args(k, good, 4)); /* the refusals changed nothing */
	CHECK_ST(kjit_kernel_expect_args(k, good, 4), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "already expects");
	OK("bad arguments and a second call are refused, naming the fault");
}

static void on_gpu(kjit_engine *e)
{
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	kjit_kernel *k = kernel(e);
	kjit_arg fits[] = { { "y", "float *", 8 }, { "x", "float *", 8 }, { "a", "float", 4 },
		            { "n", "int32", 4 } };
	CHECK_OK(kjit_kernel_expect_args(k, fits, 4));
	CHECK_OK(kjit_variant_get(k, &d, &v, NULL));
	kjit_devptr y = 0;
	float a = 2;
	int n = 0;
	void *args[] = { &y, &y, &a, &n };
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 32, 1, 1 };
	CHECK_OK(kjit_variant_launch(v, grid, block, 0, NULL, args));
	CHECK_OK(kjit_synchronize(e));
	CHECK(!kjit_kernel_args_refused(k));
	OK("arguments that fit load and launch");

	kjit_arg wrong[] = { { "y", "float *", 8 }, { "x", "float *", 8 }, { "a", "double", 8 },
		             { "n", "int32", 4 }, { "extra", "int32", 4 } };
	k = kernel(e);
	CHECK_OK(kjit_kernel_expect_args(k, wrong, 5));
	CHECK(!kjit_kernel_args_refused(k));
	CHECK_ST(kjit_variant_get(k, &d, &v, NULL), KJIT_ERR_INVALID_ARG);
	CHECK(kjit_kernel_args_refused(k));
	const char *msg = kjit_last_error();
	CHECK_CONTAINS(msg, "do not match");
	CHECK_CONTAINS(msg, "sizes differ");
	CHECK_CONTAINS(msg, "no such parameter");
	CHECK_CONTAINS(msg, "extra");
	OK("a double for a float and an argument too many: the table, both marked; the kernel "
	   "says its arguments were refused");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	o.arch = "sm_90";
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	refusals(e);
	if (kjit_engine_has_gpu(e))
		on_gpu(e);
	else
		printf("  no GPU (%s): the check against a variant's parameters not run\n",
		       kjit_engine_gpu_reason(e));
	kjit_engine_close(e);
	return 0;
}
