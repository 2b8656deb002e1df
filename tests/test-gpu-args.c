/*
 * test-gpu-args: a T1 spec whose arguments do not fit its kernel's
 * parameters stops, in kjit-tune and in kjit_launch(), with the kernel's
 * parameters (index, offset, size) and the spec's arguments (name, type,
 * size) side by side. One spec per kind of mismatch (tests/t1/):
 *  - pnpoly.json: four arguments (bitmap, points, a vertices vector meant
 *    for the __constant__ table, n) for cn_pnpoly(int *, float2 *, int):
 *    the count, and the vector where int n is (8 bytes against 4);
 *  - count_long.json: an int64 n for an int (a scalar's size);
 *  - count_pointer.json: a Vector n for an int (a pointer where a scalar is
 *    expected);
 *  - count_ok.json: the same kernel with the right arguments tunes and
 *    launches;
 *  - stencil.json: parameters named pad, size, width, ... and a
 *    __constant__ table of 33 x 33 floats of which the spec gives 15 x 15:
 *    tunes its budget of 10, every configuration ok (its output checked
 *    against the default's).
 * Skips (77) without a GPU, or with a driver older than CUDA 12.4 (which
 * says that arguments are not checked).
 */
#include "testutil.h"

static char tool[TU_PATH], t1dir[TU_PATH];
static const char *dir;
static kjit_engine *e;

static int tune(const char *spec, const char **out)
{
	static char buf[1 << 16];
	char cmd[4 * TU_PATH], db[TU_PATH];
	snprintf(db, sizeof db, "%s/%s.db", dir, spec);
	snprintf(cmd, sizeof cmd, "'%s' '%s/%s' --db '%s' 2>&1", tool, t1dir, spec, db);
	printf("$ kjit-tune %s\n", spec);
	fflush(stdout);
	int code = tu_run(cmd, buf, sizeof buf);
	printf("%s", buf);
	*out = buf;
	if (strstr(buf, "are not checked")) {
		printf("%s: the driver cannot give the kernel's parameters: skipped\n", tu_prog);
		exit(77);
	}
	return code;
}

/* kjit_launch() of the spec's kernel with buffers enough for any of
 * these specs: the status, the message in kjit_last_error(). */
static kjit_status launch(const char *spec)
{
	char path[2 * TU_PATH];
	snprintf(path, sizeof path, "%s/%s", t1dir, spec);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_from_spec(e, path, &k));
	size_t n_sizes = 0;
	kjit_kernel_problem_names(k, &n_sizes);
	int64_t sizes[4] = { 20000, 20000, 20000, 20000 };
	CHECK(n_sizes <= 4);
	kjit_devptr b[3];
	static const unsigned char zeros[20000 * 8];
	for (int i = 0; i < 3; i++) {
		CHECK_OK(kjit_mem_alloc(e, sizeof zeros, &b[i]));
		CHECK_OK(kjit_memcpy_htod(e, b[i], zeros, sizeof zeros));
	}
	int n = 4096;
	void *args[] = { &b[0], &b[1], &b[2], &n };
	kjit_status st = kjit_launch(k, sizes, n_sizes, args, NULL);
	if (st == KJIT_OK)
		CHECK_OK(kjit_synchronize(e));
	printf("  kjit_launch(%s): %s\n%s\n", spec, kjit_status_str(st),
	       st == KJIT_OK ? "" : kjit_last_error());
	for (int i = 0; i < 3; i++)
		CHECK_OK(kjit_mem_free(e, b[i]));
	return st;
}

/* Both paths stop with the table, each marked row present. */
static void refused(const char *spec, const char *const *want, const char *label)
{
	const char *out;
	int code = tune(spec, &out);
	CHECK_MSG(code != 0, "kjit-tune %s exited 0", spec);
	CHECK_CONTAINS(out, "its parameters do not match the arguments given");
	for (const char *const *w = want; *w; w++)
		CHECK_CONTAINS(out, *w);
	CHECK_ST(launch(spec), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "its parameters do not match the arguments given");
	for (const char *const *w = want; *w; w++)
		CHECK_CONTAINS(kjit_last_error(), *w);
	OK("%s: kjit-tune exits %d and kjit_launch() is KJIT_ERR_INVALID_ARG, both with the table",
	   label, code);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_gpu();
	tu_kjit_tune(tool);
	dir = tu_tmpdir();
	snprintf(t1dir, sizeof t1dir, "%s/tests/t1", tu_srcdir());
	char db[TU_PATH];
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = tu_path(db, dir, "capi.db");
	CHECK_OK(kjit_engine_open(&o, &e));

	const char *out;
	CHECK_MSG(tune("count_ok.json", &out) == 0, "count_ok.json did not tune");
	CHECK_OK(launch("count_ok.json"));
	OK("count_ok.json: the matching spec tunes and launches");
	CHECK_MSG(tune("stencil.json", &out) == 0, "stencil.json did not tune");
	char sdb[TU_PATH];
	snprintf(sdb, sizeof sdb, "%s/stencil.json.db", dir);
	sqlite3 *d = tu_db_open(sdb);
	int all = (int)tu_db_int(d, "SELECT count(*) FROM results", NULL);
	/* stopped early: measured, and slower than the best */
	int ok = (int)tu_db_int(d, "SELECT count(*) FROM results WHERE status IN "
	                        "('ok', 'stopped_early')", NULL);
	sqlite3_close(d);
	CHECK_MSG(all >= 10 && ok == all, "stencil.json: %d of %d results measured", ok, all);
	OK("stencil.json: header-named parameters and a table larger than its data tune");

	const char *const pnpoly[] = { "(3 parameters, 4 arguments)", "vertices", "float2 *",
		                       "<- sizes differ", "<- no such parameter", NULL };
	refused("pnpoly.json", pnpoly, "four arguments for three parameters");
	const char *const lng[] = { "(3 parameters, 3 arguments)", "int64", "<- sizes differ",
		                    NULL };
	refused("count_long.json", lng, "an int64 for an int");
	const char *const ptr[] = { "(3 parameters, 3 arguments)", "int32 *", "<- sizes differ",
		                    NULL };
	refused("count_pointer.json", ptr, "a pointer for an int");
	kjit_engine_close(e);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
