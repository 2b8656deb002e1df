/*
 * test-profile-args - kjit_variant_profile's arguments, no GPU needed:
 *  - kjit_profile_options_init's defaults (counters on, energy off, 20 ms
 *    repeats, no race);
 *  - NULL arguments, a grid or block dimension of 0, energy_ms out of
 *    range and a negative or NAN energy_best_j are KJIT_ERR_INVALID_ARG
 *    naming what is wrong, and leave *out with NAN figures and its reasons;
 *  - a variant of a compile-only engine: KJIT_ERR_NO_GPU, "cannot profile";
 *  - kjit_profile_peak: the larger of the DRAM and FLOP fractions, each
 *    precision's share of flop_per_s against its own peak, a precision
 *    not counted (NAN) taking no share; NAN for a cleared or NULL profile;
 *  - kjit_profile_fields, get, set and clear: each figure by its index.
 */
#include "testutil.h"

#include <limits.h>
#include <math.h>

static void check_peak(const kjit_profile *cleared)
{
	double rate = 0;
	const char *what = "x";
	CHECK(isnan(kjit_profile_peak(cleared, &rate, &what)) && isnan(rate) && !what);
	CHECK(isnan(kjit_profile_peak(NULL, &rate, &what)) && isnan(rate) && !what);
	kjit_profile p = *cleared;
	p.peak_dram_bytes_per_s = 4e12;
	p.dram_bytes_per_s = 1e12;
	CHECK(kjit_profile_peak(&p, &rate, &what) == 0.25 && rate == 1e12 &&
	      strcmp(what, "DRAM") == 0);
	/* 3/4 of 40 TFLOP/s in fp32 against a 60 TFLOP/s peak; fp64 not counted */
	p.flop_fp32 = 3e9;
	p.flop_fp16 = 1e9;
	p.flop_per_s = 40e12;
	p.peak_flop_fp32_per_s = 60e12;
	p.peak_flop_fp16_per_s = 120e12;
	p.peak_flop_fp64_per_s = 30e12;
	CHECK(kjit_profile_peak(&p, &rate, &what) == 0.5 && rate == 30e12 &&
	      strcmp(what, "fp32") == 0);
	CHECK(kjit_profile_peak(&p, NULL, NULL) == 0.5);
	OK("kjit_profile_peak: DRAM 1/4, fp32 1/2 with fp16's share apart, NAN when unknown");
}

static void check_cleared(const kjit_profile *p)
{
	CHECK(isnan(p->duration_ns) && isnan(p->dram_read_bytes) && isnan(p->flop_fp32));
	CHECK(isnan(p->peak_dram_bytes_per_s) && isnan(p->energy_j) && p->passes == 0);
	CHECK(p->counters_reason != NULL && p->energy_reason != NULL);
}

/* The figures' table: every member named once, integers marked, each
 * figure set and read back by its index, an index out of range inert. */
static void check_fields(void)
{
	size_t n;
	const kjit_profile_field *f = kjit_profile_fields(&n);
	CHECK(f && n >= 20 && kjit_profile_fields(NULL) == f);
	kjit_profile p;
	memset(&p, 0x5a, sizeof p);
	kjit_profile_clear(&p);
	CHECK(!p.counters_reason && !p.energy_reason);
	size_t at_registers = n, at_passes = n, at_energy = n;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			CHECK_MSG(strcmp(f[i].name, f[j].name) != 0, "%s twice", f[i].name);
		CHECK_MSG(isnan(kjit_profile_get(&p, i)) || (f[i].integer && kjit_profile_get(&p, i) == 0),
		          "%s after clear: %g", f[i].name, kjit_profile_get(&p, i));
		kjit_profile_set(&p, i, 1000.0 + (double)i);
		CHECK(kjit_profile_get(&p, i) == 1000.0 + (double)i);
		at_registers = strcmp(f[i].name, "registers") == 0 ? i : at_registers;
		at_passes = strcmp(f[i].name, "passes") == 0 ? i : at_passes;
		at_energy = strcmp(f[i].name, "energy_j") == 0 ? i : at_energy;
	}
	CHECK(at_registers < n && f[at_registers].integer && p.registers == (int)(1000 + at_registers));
	CHECK(at_energy < n && !f[at_energy].integer && strcmp(f[at_energy].unit, "J") == 0 &&
	      p.energy_j == 1000.0 + (double)at_energy);
	/* integers bounded, NAN unknown */
	kjit_profile_set(&p, at_registers, 1e30);
	CHECK(p.registers == INT_MAX);
	kjit_profile_set(&p, at_registers, NAN);
	CHECK(p.registers == -1 && isnan(kjit_profile_get(&p, at_registers)));
	kjit_profile_set(&p, at_passes, -5);
	CHECK(p.passes == 0);
	kjit_profile before = p;
	kjit_profile_set(&p, n, 1);
	CHECK(memcmp(&before, &p, sizeof p) == 0 && isnan(kjit_profile_get(&p, n)));
	CHECK(isnan(kjit_profile_get(NULL, 0)));
	OK("kjit_profile_fields: %zu figures, each set and read by index, integers bounded", n);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	check_fields();
	kjit_profile_options o;
	memset(&o, 0x5a, sizeof o);
	kjit_profile_options_init(&o);
	CHECK(o.counters == 1 && o.energy == 0 && o.energy_ms == 20 && o.energy_best_j == 0);

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
	check_peak(&p);
	CHECK_ST(kjit_variant_profile(v, grid, zero, 0, NULL, NULL, NULL, &p), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "at least 1");

	/* energy options refused, each named */
	const struct {
		double ms, best_j;
		const char *says;
	} bad[] = { { 0, 0, "energy_ms 0" }, { NAN, 0, "energy_ms nan" },
		    { 90, -1, "energy_best_j -1" }, { 90, NAN, "energy_best_j nan" } };
	o.energy = 1;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		o.energy_ms = bad[i].ms;
		o.energy_best_j = bad[i].best_j;
		CHECK_ST(kjit_variant_profile(v, grid, block, 0, NULL, NULL, &o, &p),
		         KJIT_ERR_INVALID_ARG);
		CHECK_CONTAINS(kjit_last_error(), bad[i].says);
	}
	o.energy_ms = 90;
	o.energy_best_j = 0;

	CHECK_ST(kjit_variant_profile(v, grid, block, 0, NULL, NULL, NULL, &p), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_last_error(), "cannot profile saxpy");
	check_cleared(&p);
	kjit_engine_close(e);
	printf("ok\n");
	return 0;
}
