/*
 * test-tune-names: tests/t1/stencil.json, a T1 spec written as benchmark
 * suites write them (OpenCL GlobalSize, "Default": [32], a TypeSize, a
 * __constant__ table larger than its data), whose tuning parameters are
 * named pad, size, width, offset, mode and kind, like identifiers of
 * NVRTC's built-in headers: kjit-tune --compile-only (real NVRTC, no
 * GPU) compiles every one of its 16 variants, where -D options broke each.
 */
#include "testutil.h"

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	char tool[TU_PATH], db[TU_PATH], cmd[4 * TU_PATH];
	static char out[1 << 16];
	tu_kjit_tune(tool);
	tu_path(db, tu_tmpdir(), "names.db");
	snprintf(cmd, sizeof cmd, "'%s' '%s/tests/t1/stencil.json' --compile-only --arch sm_90 "
	         "--db '%s' -j 2 2>&1", tool, tu_srcdir(), db);
	int rc = tu_run(cmd, out, sizeof out);
	printf("%s", out);
	CHECK_MSG(rc == 0, "kjit-tune exited %d", rc);
	CHECK_CONTAINS(out, "variants 16: compiled 16, cached 0, failed 0 (arch sm_90");
	CHECK_CONTAINS(out, "TuningParameters[0].Default: a list of one value, read as 32");
	OK("parameters named pad, size, width, offset, mode, kind: 16 of 16 variants compile");
	printf("%s: PASS\n", tu_prog);
	return 0;
}
