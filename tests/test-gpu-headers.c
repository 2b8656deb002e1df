/*
 * test-gpu-headers: a kernel built from headers runs and computes the
 * right result. Its source includes a header from an include dir (which
 * includes one beside it), an in-memory header and CCCL's
 * cub::BlockReduce (the toolkit's, found with no option); one block of
 * THREADS threads sums in[] and writes sum * SCALE + OFFSET. The same
 * kernel, for every block size of its space, through kjit_launch() of a
 * tunable kernel whose description carries the header options, computes
 * the same sum. Exits 77 without a GPU.
 */
#include "testutil.h"

#define N 1024

static const char source[] =
	"#include <cub/block/block_reduce.cuh>\n"
	"#include \"scale.cuh\"\n"
	"#include <offset.h>\n"
	"template <int THREADS>\n"
	"__device__ void sum_block(const int *in, int n, int *out) {\n"
	"  typedef cub::BlockReduce<int, THREADS> R;\n"
	"  __shared__ typename R::TempStorage tmp;\n"
	"  int mine = 0;\n"
	"  for (int i = threadIdx.x; i < n; i += THREADS) mine += in[i];\n"
	"  int s = R(tmp).Sum(mine);\n"
	"  if (threadIdx.x == 0) *out = s * SCALE + OFFSET;\n"
	"}\n"
	"extern \"C\" __global__ void block_sum(const int *in, int n, int *out) {\n"
	"  sum_block<BLOCK>(in, n, out);\n"
	"}\n";

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	unsetenv("KJIT_PROFILE");
	const char *dir = tu_tmpdir();
	char db[TU_PATH], inc[TU_PATH], path[TU_PATH];
	tu_path(inc, dir, "inc");
	CHECK(mkdir(inc, 0700) == 0);
	const char *scale = "#include \"factor.h\"\n#define SCALE FACTOR\n";
	const char *factor = "#define FACTOR 3\n";
	tu_write_file(tu_path(path, inc, "scale.cuh"), scale, strlen(scale));
	tu_write_file(tu_path(path, inc, "factor.h"), factor, strlen(factor));

	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = tu_path(db, dir, "kjit.db");
	eo.tune = KJIT_TUNE_OFF;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&eo, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);

	int host[N], want = 0;
	for (int i = 0; i < N; i++) {
		host[i] = (i * 7) % 13 - 6;
		want += host[i];
	}
	want = want * 3 + 5;
	kjit_devptr din, dout;
	CHECK_OK(kjit_mem_alloc(e, sizeof host, &din));
	CHECK_OK(kjit_mem_alloc(e, sizeof(int), &dout));
	CHECK_OK(kjit_memcpy_htod(e, din, host, sizeof host));
	int n = N;
	void *args[] = { &din, &n, &dout };

	kjit_header mem = { "offset.h", "#define OFFSET 5\n" };
	const char *dirs[] = { inc };
	kjit_kernel_options ko;
	kjit_kernel_options_init(&ko);
	ko.include_dirs = dirs;
	ko.n_include_dirs = 1;
	ko.headers = &mem;
	ko.n_headers = 1;
	static const char *const names[] = { "BLOCK" };
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_with(e, "block_sum", source, NULL, names, 1, &ko, &k));
	static const char *const blocks[] = { "64", "128", "256" };
	for (int b = 0; b < 3; b++) {
		kjit_define d = { "BLOCK", blocks[b] };
		kjit_variant_desc desc = { &d, 1, NULL, 0 };
		kjit_variant *v = NULL;
		CHECK_OK(kjit_variant_get(k, &desc, &v, NULL));
		unsigned grid[3] = { 1, 1, 1 }, block[3] = { (unsigned)atoi(blocks[b]), 1, 1 };
		int got = -1;
		CHECK_OK(kjit_memcpy_htod(e, dout, &got, sizeof got));
		CHECK_OK(kjit_variant_launch(v, grid, block, 0, NULL, args));
		CHECK_OK(kjit_synchronize(e));
		CHECK_OK(kjit_memcpy_dtoh(e, &got, dout, sizeof got));
		CHECK_MSG(got == want, "BLOCK %s: got %d, want %d", blocks[b], got, want);
	}
	OK("block_sum (dir header, memory header, cub::BlockReduce) = %d for BLOCK 64, 128, 256",
	   want);

	kjit_param p = { "BLOCK", (const char *const *)blocks, 3, 1,
		         KJIT_ROLE_BLOCK_X | KJIT_ROLE_DEFINE };
	static const char *const problem[] = { "n" };
	kjit_tunable_desc td = { 0 };
	td.entry = "block_sum";
	td.source = source;
	td.params = &p;
	td.n_params = 1;
	td.problem_names = problem;
	td.n_problem = 1;
	td.options = &ko;
	kjit_kernel *tk = NULL;
	CHECK_OK(kjit_kernel_create_tunable(e, &td, &tk));
	int got = -1;
	CHECK_OK(kjit_memcpy_htod(e, dout, &got, sizeof got));
	int64_t size = N;
	CHECK_OK(kjit_launch(tk, &size, 1, args, NULL));
	CHECK_OK(kjit_synchronize(e));
	CHECK_OK(kjit_memcpy_dtoh(e, &got, dout, sizeof got));
	CHECK_MSG(got == want, "kjit_launch: got %d, want %d", got, want);
	OK("kjit_launch of the tunable kernel with kjit_tunable_desc.options: %d", got);

	CHECK_OK(kjit_mem_free(e, din));
	CHECK_OK(kjit_mem_free(e, dout));
	kjit_engine_close(e);
	return 0;
}
