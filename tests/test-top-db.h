/*
 * test-top-db.h - the known database of the kjit-top tests: every figure
 * that kjit-top shows follows from the rows below, at the instant
 * TOP_TEST_NOW (given to kjit-top through $KJIT_TOP_NOW).
 *
 * In the last minute: compiles of 10..100 ms (p50 50, p95 100, max 100);
 * cache lookups saxpy 90 memory + 5 disk + 5 miss, reduce 40 memory + 10
 * miss (90% overall); 1500 counted launches (25/s); writers 101-103 (104
 * wrote two minutes ago only); 7 dropped events. Best: saxpy 1 us (recent
 * 1.1 us: drift +10%), reduce 2.5 us (recent 2 us of 1900, 2000, 2100,
 * 2200: -20%), gemm stale.
 * Runs: 1 saxpy running 40/100 since 200 s, updated 10 s ago (ETA 285 s),
 * results ok 30, compile_error 5, timeout 3, crashed 2; 2 reduce done;
 * 3 gemm failed long ago (not listed); 4 transpose running, total unknown.
 * Run 1's results by device: gpu 0 (UUID_GPU0) ok 15, to 1, cr 1, best
 * 1 us, last 24 s ago; gpu 1 (UUID_GPU1) ok 15, to 2, cr 1, best 1.1 us,
 * last 22 s ago; the 5 compile errors name no device (last 32 s ago).
 * Profiles: saxpy's fastest (1 us) moves 3410 GB/s of a 4800 GB/s peak
 * (71%), 2 TFLOP/s fp32, occupancy 75%, 1.23 mJ per launch; the next
 * (1.1 us) has energy only (2.5 mJ), its counters refused.
 */
#ifndef KJIT_TEST_TOP_DB_H
#define KJIT_TEST_TOP_DB_H

#include "testutil.h"
#include "base.h"

#define TOP_TEST_NOW 1800000000.0
#define TOP_TEST_NOW_TEXT "1800000000"

#define SIG_SAXPY "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
#define SIG_REDUCE "7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e"
#define SIG_GEMM "9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e"
#define SIG_TRANSPOSE "1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f"
#define KEY_REDUCE_256 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KEY_REDUCE_512 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define UUID_GPU0 "GPU-8c4e2a1f-0b6d-4e3a-9f1c-2d5e7a9b0c11"
#define UUID_GPU1 "GPU-3f9d7b25-6a1e-4c8b-b2d4-9e0f1a2b3c4d"

/* An event at TOP_TEST_NOW - ago. kernel_sig: "saxpy" etc. */
static inline void top_test_event(sqlite3 *db, double ago, int pid, const char *kind,
                                  const char *sig, const char *kernel, const char *variant,
                                  const char *tier, const char *value, long long count)
{
	char sql[1024];
#define Q(s) (s) ? "'" : "", (s) ? (s) : "NULL", (s) ? "'" : ""
	snprintf(sql, sizeof sql,
	         "INSERT INTO events(ts, pid, kind, signature, kernel, variant, tier, value, count)"
	         " VALUES(%.3f, %d, '%s', %s%s%s, %s%s%s, %s%s%s, %s%s%s, %s, %lld)",
	         TOP_TEST_NOW - ago, pid, kind, Q(sig), Q(kernel), Q(variant), Q(tier),
	         value ? value : "NULL", count);
#undef Q
	tu_db_exec(db, sql);
}

/* Creates the schema through libkjit's store, then fills it. */
static inline void top_test_fill(const char *path)
{
	kjit__store *s = NULL;
	CHECK_OK(kjit__store_open(path, &s));
	kjit__store_close(s);
	sqlite3 *db = tu_db_open(path);
	tu_db_exec(db, "BEGIN");
	tu_db_exec(db, "INSERT INTO kernels VALUES"
	               " ('" SIG_SAXPY "', 'saxpy', 'src', 'BLOCK_SIZE,ITEMS_PER_THREAD', 0),"
	               " ('" SIG_REDUCE "', 'reduce', 'src', 'BLOCK', 0),"
	               " ('" SIG_GEMM "', 'gemm_tiled', 'src', 'TILE', 0),"
	               " ('" SIG_TRANSPOSE "', 'transpose', 'src', 'TILE', 0)");
	/* compiles: 4 of saxpy, 6 of reduce in the last minute; gemm 5 min ago
	 * (10 min window only); one 700 s ago (outside every window) */
	for (int i = 1; i <= 10; i++) {
		char v[16];
		snprintf(v, sizeof v, "%d", 10 * i);
		top_test_event(db, 5 + i, 101, "compile", i <= 4 ? SIG_SAXPY : SIG_REDUCE,
		               i <= 4 ? "saxpy" : "reduce", NULL, "miss", v, 1);
	}
	top_test_event(db, 300, 104, "compile", SIG_GEMM, "gemm_tiled", NULL, "miss", "500", 1);
	top_test_event(db, 700, 104, "compile", SIG_GEMM, "gemm_tiled", NULL, "miss", "900", 1);
	/* cache lookups */
	top_test_event(db, 20, 101, "cache", SIG_SAXPY, "saxpy", NULL, "memory", NULL, 60);
	top_test_event(db, 10, 102, "cache", SIG_SAXPY, "saxpy", NULL, "memory", NULL, 30);
	for (int i = 0; i < 5; i++) {
		top_test_event(db, 30 + i, 102, "cache", SIG_SAXPY, "saxpy", NULL, "disk", NULL, 1);
		top_test_event(db, 40 + i, 103, "cache", SIG_SAXPY, "saxpy", NULL, "miss", NULL, 1);
	}
	top_test_event(db, 15, 103, "cache", SIG_REDUCE, "reduce", NULL, "memory", NULL, 40);
	top_test_event(db, 16, 103, "cache", SIG_REDUCE, "reduce", NULL, "miss", NULL, 10);
	/* the driver compiled stored PTX: a hit of its own tier (value: its ms) */
	top_test_event(db, 17, 103, "cache", SIG_REDUCE, "reduce", NULL, "ptx", "45", 10);
	/* counted launches, and timed samples */
	top_test_event(db, 3, 101, "launch", SIG_SAXPY, "saxpy", NULL, NULL, NULL, 600);
	top_test_event(db, 50, 102, "launch", SIG_SAXPY, "saxpy", NULL, NULL, NULL, 600);
	/* the telemetry writer stores a count row's value as 0: both count */
	top_test_event(db, 4, 103, "launch", SIG_REDUCE, "reduce", NULL, NULL, "0", 300);
	top_test_event(db, 2, 101, "launch", SIG_SAXPY, "saxpy", "cccccccccccccccccccccccccccccccc",
	               NULL, "1000", 1);
	top_test_event(db, 2, 101, "launch", SIG_SAXPY, "saxpy", "cccccccccccccccccccccccccccccccc",
	               NULL, "1200", 1);
	top_test_event(db, 2, 101, "launch", SIG_SAXPY, "saxpy", "cccccccccccccccccccccccccccccccc",
	               NULL, "1100", 1);
	top_test_event(db, 7, 103, "launch", SIG_REDUCE, "reduce", KEY_REDUCE_512, NULL, "2000", 1);
	top_test_event(db, 8, 103, "launch", SIG_REDUCE, "reduce", KEY_REDUCE_512, NULL, "2100", 1);
	top_test_event(db, 9, 103, "launch", SIG_REDUCE, "reduce", KEY_REDUCE_512, NULL, "1900", 1);
	/* a binary evicted from the cache since it was launched */
	top_test_event(db, 12, 103, "launch", SIG_REDUCE, "reduce", "dddddddddddddddddddddddddddddddd",
	               NULL, "2200", 1);
	/* outside the minute: another writer, and a launch "from the future" */
	top_test_event(db, 120, 104, "launch", SIG_GEMM, "gemm_tiled", NULL, NULL, NULL, 999);
	top_test_event(db, -30, 105, "launch", SIG_GEMM, "gemm_tiled", NULL, NULL, NULL, 999);
	top_test_event(db, 25, 102, "drop", NULL, NULL, NULL, NULL, NULL, 7);

	tu_db_exec(db, "INSERT INTO best(signature, device_key, problem, arch, config, median_ns,"
	               " nvrtc, stale, updated) VALUES"
	               " ('" SIG_SAXPY "', 'sm_90|H200', '{\"n\":1048576}', 'sm_90',"
	               "  '{\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":4}', 1000, '13.0', 0, 1799999000),"
	               " ('" SIG_SAXPY "', 'sm_90|H200', '{\"n\":1024}', 'sm_90',"
	               "  '{\"BLOCK_SIZE\":64,\"ITEMS_PER_THREAD\":1}', 300, '13.0', 0, 1799998000),"
	               " ('" SIG_REDUCE "', 'sm_90|H200', '{\"n\":4096}', 'sm_90',"
	               "  '{\"BLOCK\":512}', 2500, '13.0', 0, 1799999000),"
	               " ('" SIG_GEMM "', 'sm_90|H200', '{\"m\":1024,\"n\":1024,\"k\":1024}', 'sm_90',"
	               "  '{\"TILE\":32}', 50000, '12.8', 1, 1799999000)");
	tu_db_exec(db, "INSERT INTO runs(id, signature, device_key, kernel, strategy, problem, status,"
	               " total, evaluated, started, updated) VALUES"
	               " (1, '" SIG_SAXPY "', 'sm_90|H200', 'saxpy', 'random', '{\"n\":1048576}',"
	               "  'running', 100, 40, 1799999800, 1799999990),"
	               " (2, '" SIG_REDUCE "', 'sm_90|H200', 'reduce', 'grid', '{\"n\":4096}',"
	               "  'done', 20, 20, 1799999000, 1799999900),"
	               " (3, '" SIG_GEMM "', 'sm_90|H200', 'gemm_tiled', 'anneal', '{}',"
	               "  'failed', 50, 3, 1799990000, 1799995000),"
	               " (4, '" SIG_TRANSPOSE "', 'sm_90|H200', 'transpose', 'random', '{}',"
	               "  'running', NULL, 5, 1799999950, 1799999995)");
	/* run 1's results: 30 ok (1000 ns and slower), 5 compile errors, 3
	 * timeouts, 2 crashes, 2 s apart; the fastest has four samples. They
	 * alternate between gpu 0 and gpu 1, but for the compile errors,
	 * which reached no device. */
	static const struct { const char *status; int n; } mix[] = {
		{ "ok", 30 }, { "compile_error", 5 }, { "timeout", 3 }, { "crashed", 2 }
	};
	int c = 0;
	for (size_t k = 0; k < sizeof mix / sizeof mix[0]; k++)
		for (int i = 0; i < mix[k].n; i++, c++) {
			char sql[768], median[32], device[96];
			int ok = strcmp(mix[k].status, "ok") == 0;
			if (ok)
				snprintf(median, sizeof median, "%d", 1000 + 100 * i);
			else
				snprintf(median, sizeof median, "NULL");
			if (strcmp(mix[k].status, "compile_error") == 0)
				snprintf(device, sizeof device, "NULL, NULL");
			else
				snprintf(device, sizeof device, "%d, '%s'", c % 2,
				         c % 2 ? UUID_GPU1 : UUID_GPU0);
			snprintf(sql, sizeof sql,
			         "INSERT INTO results(run_id, signature, device_key, problem, config,"
			         " status, median_ns, n_samples, created, device_ordinal, device_uuid)"
			         " VALUES(1, '" SIG_SAXPY "', 'sm_90|H200', '{\"n\":1048576}',"
			         " '{\"BLOCK_SIZE\":%d,\"ITEMS_PER_THREAD\":%d}', '%s', %s, %d, %d, %s)",
			         64 << (c % 5), 1 + c / 5, mix[k].status, median, ok ? 4 : 0,
			         1799999900 + 2 * c, device);
			tu_db_exec(db, sql);
		}
	/* the samples of the fastest: 990, 1000, 1005, 1010 as float64 LE */
	tu_db_exec(db, "UPDATE results SET samples = x'"
	               "0000000000f08e400000000000408f400000000000688f400000000000908f40"
	               "' WHERE median_ns = 1000");
	tu_db_exec(db, "INSERT INTO profiles(result_id, duration_ns, dram_read_bytes,"
	               " dram_write_bytes, flop_fp32, achieved_occupancy, passes,"
	               " peak_dram_bytes_per_s, peak_flop_fp32_per_s, dram_bytes_per_s,"
	               " flop_per_s, registers, energy_j, power_w, created)"
	               " SELECT id, 1000, 2.274e6, 1.136e6, 2e6, 0.75, 9, 4.8e12, 6.7e13, 3.41e12,"
	               " 2e12, 32, 1.234e-3, 250, 1799999900 FROM results WHERE median_ns = 1000");
	tu_db_exec(db, "INSERT INTO profiles(result_id, energy_j, power_w, counters_reason,"
	               " created) SELECT id, 2.5e-3, 260, 'ERR_NVGPUCTRPERM: no permission for"
	               " the GPU''s counters', 1799999900 FROM results WHERE median_ns = 1100");
	/* reduce has no tuning results: its detail lists the cached binaries */
	tu_db_exec(db, "INSERT INTO binaries(id, key, signature, options, arch, nvrtc, lowered_name,"
	               " size, checksum, compile_ms, created, last_used, cubin) VALUES"
	               " (1, '" KEY_REDUCE_256 "', '" SIG_REDUCE "', '-DBLOCK=256\n-arch=sm_90',"
	               "  'sm_90', '13.0', 'reduce', 4, 'x', 50, 0, 0, x'00000000'),"
	               " (2, '" KEY_REDUCE_512 "', '" SIG_REDUCE "', '-DBLOCK=512\n-arch=sm_90',"
	               "  'sm_90', '13.0', 'reduce', 4, 'x', 60, 0, 0, x'00000000')");
	tu_db_exec(db, "COMMIT");
	tu_db_close(db);
}

#endif /* KJIT_TEST_TOP_DB_H */
