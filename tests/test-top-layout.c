/*
 * test-top-layout - kjit-top's layout, with no terminal: at every size
 * from 20x5 to 300x100 the rectangles stay inside the screen and apart,
 * small screens are flagged, and every text row is exactly as wide as its
 * window; formatting, sparklines, histograms, sorting and filtering.
 */
#include "testutil.h"

#include <math.h>

#include "tui.h"

static int inside(const top_rect *r, int rows, int cols)
{
	return r->h == 0 || (r->y >= 0 && r->x >= 0 && r->y + r->h <= rows && r->x + r->w <= cols &&
	                     r->w > 0);
}

static int overlap(const top_rect *a, const top_rect *b)
{
	if (!a->h || !b->h || !a->w || !b->w)
		return 0;
	return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

static void check_row(const char *row, int width, const char *what)
{
	if ((int)strlen(row) != width)
		TU_FAIL("%s: %zu columns at width %d: \"%s\"", what, strlen(row), width, row);
	for (const char *p = row; *p; p++)
		if (*p < 32 || *p > 126)
			TU_FAIL("%s: unprintable byte 0x%02x at width %d", what, (unsigned char)*p, width);
}

static top_model sample_model(void)
{
	static top_kernel k[4];
	static top_run r[2];
	static top_run_device d[3];
	top_model m;
	memset(&m, 0, sizeof m);
	memset(k, 0, sizeof k);
	memset(r, 0, sizeof r);
	memset(d, 0, sizeof d);
	m.path = (char *)"/a/rather/long/path/to/the/kjit/database/kjit.db";
	snprintf(k[0].name, sizeof k[0].name, "%s",
	         "a_kernel_with_a_name_much_longer_than_any_column_is_wide_at_all");
	snprintf(k[0].best_config, sizeof k[0].best_config,
	         "{\"BLOCK_SIZE\":1024,\"ITEMS_PER_THREAD\":16,\"UNROLL\":8,\"VEC\":4}");
	k[0].has_best = 1;
	k[0].stale = 1;
	k[0].best_ns = 123456789012.0;
	k[0].recent_ns = 1.5e9;
	k[0].drift = 123.456;
	k[0].launches = 9223372036854775807LL;
	k[0].mem = 5;
	k[0].compile_p50_ms = 123456.7;
	snprintf(k[1].name, sizeof k[1].name, "saxpy\tbad\x01name");
	k[1].compile_p50_ms = k[1].recent_ns = k[1].drift = k[1].best_ns = NAN;
	k[1].launches = 10;
	k[1].miss = 3;
	snprintf(k[2].name, sizeof k[2].name, "reduce");
	k[2].compile_p50_ms = 12;
	k[2].recent_ns = 900;
	k[2].drift = -0.05;
	k[2].best_ns = NAN;
	k[2].launches = 10;
	k[2].mem = 9;
	k[2].miss = 1;
	snprintf(k[3].name, sizeof k[3].name, "Gemm");
	k[3].compile_p50_ms = 40;
	k[3].recent_ns = NAN;
	k[3].drift = 0.5;
	k[3].launches = 500;
	m.kernels = k;
	m.n_kernels = 4;
	r[0].id = 123456789;
	snprintf(r[0].kernel, sizeof r[0].kernel, "a_kernel_with_a_long_name_again_and_again");
	snprintf(r[0].strategy, sizeof r[0].strategy, "bayesian-optimisation");
	snprintf(r[0].status, sizeof r[0].status, "running");
	r[0].total = 1000000000;
	r[0].evaluated = 999999999;
	for (int i = 0; i < KJIT__RS_COUNT; i++)
		r[0].by_status[i] = 1000000 + i;
	r[0].best_ns = 1e12;
	r[0].eta_s = 1e9;
	r[1].total = -1;
	r[1].best_ns = r[1].eta_s = NAN;
	snprintf(r[1].status, sizeof r[1].status, "done");
	/* run 0 ran on a device of a huge ordinal, one of a long UUID without
	 * "GPU-", and on none; run 1 is done */
	d[0].ordinal = 2147483647;
	snprintf(d[0].uuid, sizeof d[0].uuid, "GPU-0123456789abcdef-0000");
	d[0].evaluated = 9223372036854775807LL;
	d[0].best_ns = 1e15;
	d[0].last = 1;
	for (int i = 0; i < KJIT__RS_COUNT; i++)
		d[0].by_status[i] = 1000000000 + i;
	d[1].ordinal = -1;
	snprintf(d[1].uuid, sizeof d[1].uuid, "MIG\x01\tbad");
	d[1].best_ns = NAN;
	d[1].last = 2e9;
	d[2].ordinal = -1;
	d[2].best_ns = NAN;
	r[0].n_devices = 3;
	r[1].first_device = 3;
	m.devices = d;
	m.n_devices = 3;
	m.now = 1.8e9;
	m.runs = r;
	m.n_runs = 2;
	m.meters.compile_p50_ms = 1e6;
	m.meters.compile_p95_ms = NAN;
	m.meters.compile_max_ms = 1e9;
	m.meters.compiles = 123456789;
	m.meters.mem = 1000000000;
	m.meters.launches_per_s = 1e12;
	m.meters.writers = 999;
	m.meters.active_runs = 1;
	return m;
}

static void check_sizes(void)
{
	top_model m = sample_model();
	top_variant v;
	memset(&v, 0, sizeof v);
	snprintf(v.config, sizeof v.config, "BLOCK_SIZE=1024 ITEMS_PER_THREAD=16 UNROLL=8 VEC=4 "
	         "and many more parameters than fit");
	snprintf(v.status, sizeof v.status, "stopped_early");
	v.median_ns = 1e15;
	v.n_samples = 123456789012LL;
	/* a profile of huge figures and an unknown one */
	v.has_profile = 1;
	v.dram_bytes_per_s = 1e30;
	v.flop_per_s = 1e300;
	v.peak = 1e9;
	v.occupancy = NAN;
	v.energy_j = 1e-30;
	char row[400];
	long layouts = 0, rows_checked = 0;
	for (int rows = 5; rows <= 100; rows++)
		for (int cols = 20; cols <= 300; cols++)
			for (int view = TOP_VIEW_MAIN; view <= TOP_VIEW_HELP; view++)
				for (size_t runs = 0; runs <= 6; runs += 3) {
					top_layout l;
					top_layout_compute(rows, cols, (top_view_kind)view, runs, runs, &l);
					layouts++;
					int small = rows < TOP_MIN_ROWS || cols < TOP_MIN_COLS;
					CHECK_MSG(l.too_small == small, "%dx%d", cols, rows);
					if (small)
						continue;
					const top_rect *r[] = { &l.header, &l.history, &l.kernels, &l.runs,
						                &l.status, &l.variants, &l.histogram, &l.help };
					size_t n = sizeof r / sizeof r[0];
					for (size_t i = 0; i < n; i++) {
						CHECK_MSG(inside(r[i], rows, cols), "rect %zu at %dx%d view %d", i,
						          cols, rows, view);
						for (size_t j = i + 1; j < n; j++)
							CHECK_MSG(!overlap(r[i], r[j]), "rects %zu and %zu overlap at "
							          "%dx%d view %d", i, j, cols, rows, view);
					}
					CHECK(l.header.h >= 3 && l.status.h == 1 && l.status.y == rows - 1);
					CHECK(l.run_lines <= TOP_MAX_RUN_LINES && l.run_lines <= (int)runs);
					if (view == TOP_VIEW_MAIN)
						CHECK_MSG(l.kernels.h >= 4, "kernels %d rows at %dx%d", l.kernels.h,
						          cols, rows);
					if (view == TOP_VIEW_DETAIL)
						CHECK(l.variants.h >= 4);
					if (view == TOP_VIEW_HELP)
						CHECK(l.help.h >= 4);
				}
	OK("%ld layouts from 20x5 to 300x100: inside the screen, no overlap, too small flagged "
	   "below %dx%d", layouts, TOP_MIN_COLS, TOP_MIN_ROWS);

	for (int w = 1; w <= 300; w++) {
		top_columns c;
		top_kernel_columns(w, &c);
		int used = -1;
		for (int i = 0; i < c.n; i++)
			used += c.w[i] ? c.w[i] + 1 : 0;
		if (w >= TOP_MIN_COLS) {
			CHECK_MSG(used <= w, "kernel columns use %d of %d", used, w);
			CHECK(c.w[TOP_KCOL_NAME] >= 10 && c.w[TOP_KCOL_LAUNCHES] > 0);
		}
		top_format_kernel(NULL, &c, row, w);
		check_row(row, w, "kernel title");
		for (size_t i = 0; i < m.n_kernels; i++) {
			top_format_kernel(&m.kernels[i], &c, row, w);
			check_row(row, w, "kernel row");
		}
		top_run_columns(w, &c);
		top_format_run(NULL, &c, row, w);
		check_row(row, w, "run title");
		for (size_t i = 0; i < m.n_runs; i++) {
			top_format_run(&m.runs[i], &c, row, w);
			check_row(row, w, "run row");
			top_format_run_bar(&m.runs[i], row, w);
			check_row(row, w, "run bar");
		}
		for (size_t i = 0; i < m.n_devices; i++) {
			top_format_run_device(&m.devices[i], m.now, row, w);
			check_row(row, w, "run device line");
		}
		for (int profiles = 0; profiles < 2; profiles++) {
			top_variant_columns(w, profiles, &c);
			top_format_variant(NULL, 0, 0, &c, row, w);
			check_row(row, w, "variant title");
			int lines = top_format_variant(&v, 123456, 0, &c, row, w);
			for (int l = 1; l < lines; l++) {
				top_format_variant(&v, 123456, l, &c, row, w);
				check_row(row, w, "variant row");
			}
			check_row(row, w, "variant row");
		}
		for (int line = 0; line < 2; line++) {
			top_format_meter_line(&m, line, row, w);
			check_row(row, w, "meter line");
		}
		rows_checked += 8 + 3 * (long)m.n_runs + (long)m.n_devices;
	}
	OK("%ld rows at widths 1..300 with huge numbers, NaNs, long and unprintable names: "
	   "exactly as wide as their window", rows_checked);

	top_columns c;
	top_kernel_columns(100, &c);
	for (int i = 0; i < TOP_KCOL_COUNT; i++)
		CHECK_MSG(c.w[i] > 0, "column %d hidden at 100 columns", i);
	/* at 80 the best configuration has room: RECENT and COMPILE make way */
	top_kernel_columns(80, &c);
	CHECK_MSG(c.w[TOP_KCOL_CONFIG] >= 28 && c.w[TOP_KCOL_NAME] >= 16 && !c.w[TOP_KCOL_RECENT] &&
	          !c.w[TOP_KCOL_COMPILE],
	          "80 columns: configuration %d, name %d, recent %d, compile %d",
	          c.w[TOP_KCOL_CONFIG], c.w[TOP_KCOL_NAME], c.w[TOP_KCOL_RECENT],
	          c.w[TOP_KCOL_COMPILE]);
	for (int i = 0; i < TOP_KCOL_COUNT; i++)
		CHECK_MSG(c.w[i] > 0 || i == TOP_KCOL_RECENT || i == TOP_KCOL_COMPILE,
		          "column %d hidden at 80 columns", i);
	top_kernel_columns(TOP_MIN_COLS, &c);
	CHECK(c.w[TOP_KCOL_CONFIG] == 0 && c.w[TOP_KCOL_DRIFT] > 0);
	OK("100 columns show every kernel column, 80 the configuration in %d (RECENT and COMPILE "
	   "make way); the narrowest drops the configuration", 28);

	/* a configuration the column cuts, or hides, gets a line of its own */
	top_kernel_columns(80, &c);
	CHECK(top_kernel_config_cut(&m.kernels[0], &c) && !top_kernel_config_cut(&m.kernels[1], &c));
	top_format_kernel_best(&m.kernels[0], row, 80);
	check_row(row, 80, "best configuration line");
	CHECK_CONTAINS(row, "best of a_kernel_with_a_name_much_longer_than_any_column_is_wide_at_"
	               "all: BLOCK_~");
	snprintf(m.kernels[2].best_config, sizeof m.kernels[2].best_config, "{\"BLOCK\":512}");
	m.kernels[2].has_best = 1;
	CHECK(!top_kernel_config_cut(&m.kernels[2], &c));
	top_kernel_columns(TOP_MIN_COLS, &c);
	CHECK(top_kernel_config_cut(&m.kernels[2], &c));
	top_format_kernel_best(&m.kernels[2], row, 200);
	check_row(row, 200, "best configuration line");
	CHECK_CONTAINS(row, "best of reduce: BLOCK=512 ");
	m.kernels[2].has_best = 0;
	OK("a configuration cut or hidden: \"%.30s...\" on a line of its own", row);
	top_format_kernel(&m.kernels[0], &c, row, TOP_MIN_COLS);
	CHECK(strchr(row, '~') != NULL);
	top_kernel_columns(200, &c);
	top_format_kernel(&m.kernels[0], &c, row, 200);
	CHECK_CONTAINS(row, "*");
	CHECK_CONTAINS(row, ">+999%");
	CHECK_CONTAINS(row, " 9.22e+18 ");
	top_format_kernel(&m.kernels[1], &c, row, 200);
	CHECK_CONTAINS(row, "saxpy?bad?name");
	OK("cut text ends in ~, stale best marked *, drift signed, control bytes shown as ?");

	CHECK(top_run_device_lines(&m, &m.runs[0]) == 3);
	CHECK(top_run_device_lines(&m, &m.runs[1]) == 0);
	CHECK(top_run_rows(&m) == 5);
	m.devices[0].ordinal = -1;
	m.devices[0].uuid[0] = '\0';
	m.devices[1].uuid[0] = '\0';
	CHECK(top_run_device_lines(&m, &m.runs[0]) == 0 && top_run_rows(&m) == 2);
	OK("a running run shows a line per device; none when no result names a device, nor "
	   "for a finished run");
	top_run_device g = { .ordinal = 1, .evaluated = 18, .best_ns = 1100, .last = 1.8e9 - 22 };
	snprintf(g.uuid, sizeof g.uuid, "GPU-3f9d7b25-6a1e-4c8b-b2d4-9e0f1a2b3c4d");
	g.by_status[KJIT_RESULT_OK] = 15;
	g.by_status[KJIT_RESULT_TIMEOUT] = 2;
	top_format_run_device(&g, 1.8e9, row, 100);
	CHECK_CONTAINS(row, "     gpu 1 3f9d7b25    18 evaluated  best 1.10 us  last 22s ago  ok 15 to 2 ");
	g.ordinal = -1;
	top_format_run_device(&g, 1.8e9 - 30, row, 100);
	CHECK_CONTAINS(row, "gpu ? 3f9d7b25 ");
	CHECK_CONTAINS(row, "last 0s ago"); /* a writer's clock ahead: just now */
	g.uuid[0] = '\0';
	top_format_run_device(&g, 1.8e9, row, 100);
	CHECK_CONTAINS(row, "unknown device");
	OK("device lines: ordinal, short UUID, evaluated, best, age, counts; unknown ones");
}

static void check_text(void)
{
	char s[128];
	top_config_text("{\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":4}", s, sizeof s);
	CHECK_STREQ(s, "BLOCK_SIZE=256 ITEMS_PER_THREAD=4");
	top_config_text("-DBLOCK=512\n-arch=sm_90\n--use_fast_math", s, sizeof s);
	CHECK_STREQ(s, "BLOCK=512 --use_fast_math");
	top_config_text("", s, sizeof s);
	CHECK_STREQ(s, "-");
	top_config_text("{\"A\":1,\"B\":2}", s, 4);
	CHECK(strlen(s) == 3);
	OK("configurations from JSON and from option lists");
	top_fmt_ns(812, s, sizeof s);
	CHECK_STREQ(s, "812 ns");
	top_fmt_ns(12345, s, sizeof s);
	CHECK_STREQ(s, "12.3 us");
	top_fmt_ns(4.567e6, s, sizeof s);
	CHECK_STREQ(s, "4.57 ms");
	top_fmt_ns(1.2e9, s, sizeof s);
	CHECK_STREQ(s, "1.20 s");
	top_fmt_ns(NAN, s, sizeof s);
	CHECK_STREQ(s, "-");
	top_fmt_eta(45, s, sizeof s);
	CHECK_STREQ(s, "45s");
	top_fmt_eta(723, s, sizeof s);
	CHECK_STREQ(s, "12m03s");
	top_fmt_eta(3 * 3600 + 5 * 60, s, sizeof s);
	CHECK_STREQ(s, "3h05m");
	top_fmt_eta(NAN, s, sizeof s);
	CHECK_STREQ(s, "-");
	OK("durations and ETAs");
	top_short_uuid("GPU-8c4e2a1f-0b6d-4e3a-9f1c-2d5e7a9b0c11", s, sizeof s);
	CHECK_STREQ(s, "8c4e2a1f");
	top_short_uuid("GPU-12ab", s, sizeof s);
	CHECK_STREQ(s, "12ab");
	top_short_uuid("", s, sizeof s);
	CHECK_STREQ(s, "-");
	top_short_uuid("0123456789abcdef", s, sizeof s);
	CHECK_STREQ(s, "01234567");
	OK("short UUIDs: the first 8 hex digits after GPU-");
	char p[64];
	top_format_power("NVIDIA H200", 312.4, NULL, NULL, p, sizeof p);
	CHECK_STREQ(p, "NVIDIA H200 312 W");
	const kjit_gpu_sensors g = { 56.0, 1980.0, 2619.0 };
	top_format_power("NVIDIA H200", 312.4, &g, NULL, p, sizeof p);
	CHECK_STREQ(p, "NVIDIA H200 312 W 56 C 1980 MHz");
	top_format_power(NULL, 0, NULL, "NVML turned off (KJIT_NVML=off)", p, sizeof p);
	CHECK_STREQ(p, "power: n/a (NVML turned off (KJIT_NVML=off))");
	top_format_power(NULL, 0, NULL, "", p, sizeof p);
	CHECK_STREQ(p, "power: n/a (unknown)");
	top_format_power(NULL, 0, NULL, "a reason much longer than the room there is for it", p,
	                 24);
	CHECK_STREQ(p, "power: n/a (a reason mu");
	OK("the header's power: name, watts, temperature and clock, or n/a and why");

	const double v[] = { NAN, 0, 1, 2, 4, 8 };
	int lv[6];
	top_spark_levels(v, 6, 1, lv);
	CHECK(lv[0] == 0 && lv[1] == 1 && lv[5] == 8 && lv[4] == 5 && lv[2] < lv[3]);
	const double z[] = { 0, 0 };
	top_spark_levels(z, 2, 1, lv);
	CHECK(lv[0] == 1 && lv[1] == 1);
	const double rate[] = { 0.99, NAN, 0.995, 1.0 };
	top_spark_levels(rate, 4, 0, lv);
	CHECK(lv[0] == 1 && lv[1] == 0 && lv[2] == 5 && lv[3] == 8);
	const double steady[] = { 0.5, 0.5 };
	top_spark_levels(steady, 2, 0, lv);
	CHECK(lv[0] == 4 && lv[1] == 4);
	const double sorted[] = { 1, 2, 2, 3, 10 };
	int counts[3];
	top_histogram(sorted, 5, 3, counts);
	CHECK(counts[0] == 4 && counts[1] == 0 && counts[2] == 1);
	const double same[] = { 5, 5 };
	top_histogram(same, 2, 3, counts);
	CHECK(counts[0] == 2 && counts[2] == 0);
	OK("sparkline levels (no data, zero, from 0 or from the smallest) and histograms");
}

/* At 80 columns: the header's cache shares, the miss share among them,
 * before the compile times; a configuration wider than its column wraps,
 * whole, onto lines of its own; configurations sort by number; the help's
 * history span is that of the width. */
static void check_80_columns(void)
{
	top_model m = sample_model();
	m.meters.compile_p50_ms = 148.2;
	m.meters.compile_p95_ms = 202;
	m.meters.compile_max_ms = 324.2;
	m.meters.compiles = 40;
	m.meters.mem = 0;
	m.meters.miss = 40;
	m.meters.launches_per_s = 0;
	m.meters.writers = 1;
	char row[400];
	top_format_meter_line(&m, 0, row, 80);
	CHECK_MSG(strstr(row, "hit 0.0% mem 0.0 disk 0.0 ptx 0.0 miss 100.0 | compile p50") == row,
	          "meter line at 80 columns: '%s'", row);
	OK("80 columns: the header starts with the cache, miss 100.0 whole: '%s'", row);
	top_format_meter_line(&m, 1, row, 80);
	CHECK_CONTAINS(row, "compiles 40/min");

	/* a run's counts: without their inner spaces rather than cut */
	top_run run;
	memset(&run, 0, sizeof run);
	run.id = 2;
	snprintf(run.kernel, sizeof run.kernel, "histogram_256");
	snprintf(run.strategy, sizeof run.strategy, "anneal");
	snprintf(run.status, sizeof run.status, "running");
	run.total = -1;
	run.evaluated = 41;
	run.by_status[KJIT_RESULT_OK] = 28;
	run.by_status[KJIT_RESULT_COMPILE_ERROR] = 2;
	run.by_status[KJIT_RESULT_TIMEOUT] = 11;
	run.best_ns = 28800;
	run.eta_s = NAN;
	top_columns rc;
	top_run_columns(80, &rc);
	top_format_run(&run, &rc, row, 80);
	check_row(row, 80, "run row at 80 columns");
	CHECK_MSG(strstr(row, " ok28 ce2 to11 ") != NULL, "run row at 80 columns: '%s'", row);
	top_run_columns(160, &rc);
	top_format_run(&run, &rc, row, 160);
	CHECK_MSG(strstr(row, " ok 28 ce 2 to 11 ") != NULL, "run row at 160 columns: '%s'", row);
	OK("80 columns: a run's counts without inner spaces, not cut: '%s'", row);

	top_variant v;
	memset(&v, 0, sizeof v);
	snprintf(v.config, sizeof v.config, "block_size_x=32 block_size_y=16 tile_size_x=4 "
	         "tile_size_y=2 use_padding=1 use_shared=0");
	snprintf(v.status, sizeof v.status, "ok");
	v.median_ns = 1500;
	v.n_samples = 20;
	top_columns c;
	top_variant_columns(80, 0, &c);
	int lines = top_format_variant(&v, 7, 0, &c, row, 80);
	CHECK_MSG(lines == 3, "%d lines", lines); /* a 43-character column */
	CHECK_CONTAINS(row, "block_size_x=32 block_size_y=16");
	CHECK_CONTAINS(row, "1.50 us");
	CHECK(!strchr(row, '~'));
	char all[800] = "";
	for (int l = 0; l < lines; l++) {
		top_format_variant(&v, 7, l, &c, row, 80);
		CHECK(strlen(row) == 80 && !strchr(row, '~'));
		strcat(all, row);
	}
	CHECK_CONTAINS(all, "use_shared=0");
	top_format_variant(&v, 7, 1, &c, row, 80);
	CHECK_MSG(!strstr(row, "1.50 us") && !strstr(row, " ok "), "second line: '%s'", row);
	OK("a configuration wider than its column wraps whole over %d lines", lines);

	/* with profiles, at 80 columns: GB/s, FLOP/s, the share of the peak,
	 * occupancy and energy per launch; "-" for what a variant lacks */
	top_variant_columns(80, 1, &c);
	CHECK(c.w[TOP_VCOL_GBPS] && c.w[TOP_VCOL_FLOPS] && c.w[TOP_VCOL_PEAK] &&
	      c.w[TOP_VCOL_OCC] && c.w[TOP_VCOL_ENERGY] && c.w[TOP_VCOL_CONFIG] >= 20 &&
	      c.w[TOP_VCOL_STATUS] && c.w[TOP_VCOL_TIME]);
	top_format_variant(NULL, 0, 0, &c, row, 80);
	CHECK_MSG(strlen(row) == 80 && strstr(row, "GB/S") && strstr(row, "FLOP/S") &&
	          strstr(row, "PEAK") && strstr(row, "OCC") && strstr(row, "ENERGY"),
	          "titles: '%s'", row);
	snprintf(v.config, sizeof v.config, "BLOCK=256");
	v.has_profile = 1;
	v.dram_bytes_per_s = 3.41e12;
	v.flop_per_s = 5.21e13;
	v.peak = 0.7104;
	v.occupancy = 0.75;
	v.energy_j = 1.234e-3;
	top_format_variant(&v, 1, 0, &c, row, 80);
	CHECK_MSG(strlen(row) == 80 && strstr(row, " 3410 ") && strstr(row, " 52.1T ") &&
	          strstr(row, " 71% ") && strstr(row, " 75% ") && strstr(row, " 1.23mJ") &&
	          strstr(row, "1.50 us"), "row: '%s'", row);
	printf("  %s\n", row);
	v.has_profile = 0;
	v.dram_bytes_per_s = v.flop_per_s = v.peak = v.occupancy = v.energy_j = NAN;
	top_format_variant(&v, 2, 0, &c, row, 80);
	int dashes = 0;
	for (const char *p = row; (p = strstr(p, " -")) != NULL; p++)
		dashes++;
	CHECK_MSG(dashes == 5, "%d dashes: '%s'", dashes, row);
	top_variant_columns(80, 0, &c);
	CHECK(!c.w[TOP_VCOL_GBPS] && !c.w[TOP_VCOL_ENERGY] && c.w[TOP_VCOL_SAMPLES]);
	char si[32];
	top_fmt_si(4.56e-5, "J", si, sizeof si);
	CHECK_STREQ(si, "45.6uJ");
	top_fmt_si(0, "J", si, sizeof si);
	CHECK_STREQ(si, "0.00J");
	top_fmt_si(INFINITY, "", si, sizeof si);
	CHECK_STREQ(si, "-");
	OK("80 columns with profiles: GB/S, FLOP/S, PEAK, OCC, ENERGY (the samples column "
	   "makes way), \"-\" where a variant has none; without profiles the columns are not "
	   "there");

	static const char *const sorted[] = { "block_size_y=1", "block_size_y=2", "block_size_y=4",
		                              "block_size_y=8", "block_size_y=16", "x=1 y=02",
		                              "x=1 y=3", "x=10", NULL };
	for (int i = 0; sorted[i + 1]; i++)
		CHECK_MSG(top_config_cmp(sorted[i], sorted[i + 1]) < 0 &&
		          top_config_cmp(sorted[i + 1], sorted[i]) > 0, "%s vs %s", sorted[i],
		          sorted[i + 1]);
	CHECK(top_config_cmp("a=1", "a=1") == 0 && top_config_cmp("a", "a=1") < 0);
	OK("configurations sort by the numbers in them: 1, 2, 4, 8, 16");

	CHECK(top_history_columns(80) == 44 && top_history_columns(156) == TOP_HISTORY_N &&
	      top_history_columns(200) == TOP_HISTORY_N && top_history_columns(10) == 0);
	OK("80 columns hold 44 history columns (220 s), 156 and more all %d", TOP_HISTORY_N);
}

static void check_view(void)
{
	top_model m = sample_model();
	size_t idx[4];
	CHECK(top_view_kernels(&m, TOP_SORT_LAUNCHES, NULL, idx) == 4);
	CHECK(idx[0] == 0 && idx[1] == 3 && idx[2] == 2 && idx[3] == 1);
	CHECK(top_view_kernels(&m, TOP_SORT_NAME, "", idx) == 4);
	CHECK(idx[0] == 3 && idx[1] == 0);
	CHECK(top_view_kernels(&m, TOP_SORT_HIT, NULL, idx) == 4);
	CHECK(idx[0] == 1 && idx[1] == 2 && idx[2] == 0 && idx[3] == 3);
	CHECK(top_view_kernels(&m, TOP_SORT_DRIFT, NULL, idx) == 4);
	CHECK(idx[0] == 0 && idx[1] == 3 && idx[2] == 2 && idx[3] == 1);
	CHECK(top_view_kernels(&m, TOP_SORT_RECENT, NULL, idx) == 4);
	CHECK(idx[0] == 0 && idx[1] == 2);
	CHECK(top_view_kernels(&m, TOP_SORT_COMPILE, NULL, idx) == 4);
	CHECK(idx[0] == 0 && idx[1] == 3 && idx[2] == 2);
	OK("sorts: launches, name, worst hit rate, drift, recent time, compile; no data last");
	CHECK(top_view_kernels(&m, TOP_SORT_NAME, "GEM", idx) == 1 && idx[0] == 3);
	CHECK(top_view_kernels(&m, TOP_SORT_NAME, "e", idx) == 4);
	CHECK(top_view_kernels(&m, TOP_SORT_NAME, "DUC", idx) == 1 && idx[0] == 2);
	CHECK(top_view_kernels(&m, TOP_SORT_NAME, "nothing", idx) == 0);
	OK("filter: case-insensitive substring of the name");
	for (int s = 0; s < TOP_SORT_COUNT; s++)
		CHECK(strcmp(top_sort_name((top_sort)s), "?") != 0);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	check_sizes();
	check_text();
	check_view();
	check_80_columns();
	printf("PASS\n");
	return 0;
}
