/*
 * test-profile-args - kjit_variant_profile's arguments, no GPU needed:
 *  - kjit_profile_options_init's defaults (counters on, energy off, 200 ms);
 *  - NULL arguments, a grid or block dimension of 0 and energy_ms out of
 *    range are KJIT_ERR_INVALID_ARG naming what is wrong, and leave *out
 *    with NAN figures and its reasons;
 *  - a variant of a compile-only engine: KJIT_ERR_NO_GPU, "cannot profile".
 */
#include "testutil.h"

#include <math.h>

static void check_cleared(const kjit_profile *p)
{
	CHECK(isnan(p->duration_ns) && isnan(p->dram_read_bytes) && isnan(p->flop_fp32));
	CHECK(isnan(p->peak_dram_bytes_per_s) && isnan(p->energy_j) && p->passes == 0);
	CHECK(p->counters_reason != NULL && p->energy_reason != NULL);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	kjit_profile_options o;
	memset(&o, 0x5a, sizeof o);
	kjit_profile_options_init(&o);
	CHECK(o.counters == 1 && o.energy == 0 && o.energy_ms == 200);

	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, tu_tmpdir(), "k.db"), "sm_90", 1);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 128, 1);
	kjit_variant *v;
	CHECK_OK(kjit_variant_get(tu_saxpy_kernel(e), &sv.desc, &v, NULL));
	unsigned grid[3] = { 4, 1, 1 }, block[3] = { 128, 1, 1 };
	kjit_profile p;

	CHECK_ST(kjit_variant_profile(NULL, grid, block, 0, NULL, NULL, NULL, &p),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "NULL argument");
	CHECK_ST(kjit_variant_profile(v, NULL, block, 0, NULL, NULL, NULL, &p), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variant_profile(v, grid, block, 0, NULL, NULL, NULL, NULL),
	         KJIT_ERR_INVALID_ARG);

	unsigned zero[3] = { 4, 0, 1 };
	CHECK_ST(kjit_variant_profile(v, zero, block, 0, NULL, NULL, NULL, &p), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "grid 4x0x1, block 128x1x1");
	check_cleared(&p);
	CHECK_ST(kjit_variant_profile(v, grid, zero, 0, NULL, NULL, NULL, &p), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "at least 1");

	o.energy = 1;
	o.energy_ms = 0;
	CHECK_ST(kjit_variant_profile(v, grid, block, 0, NULL, NULL, &o, &p), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "energy_ms 0");
	o.energy_ms = NAN;
	CHECK_ST(kjit_variant_profile(v, grid, block, 0, NULL, NULL, &o, &p), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "energy_ms nan");

	CHECK_ST(kjit_variant_profile(v, grid, block, 0, NULL, NULL, NULL, &p), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_last_error(), "cannot profile saxpy");
	check_cleared(&p);
	kjit_engine_close(e);
	printf("ok\n");
	return 0;
}
