/*
 * test-tune-arch: one database for several GPUs, compiled by one
 * kjit-tune --compile-only run (real NVRTC, no GPU), on a T1 spec:
 *  - --arch sm_80,sm_90,compute_90 stores for each of the 5
 *    configurations two cubins (ELF) and one PTX (text ending in its NUL),
 *    and the summary counts each target; run again, all are cached;
 *  - every row passes its checksum: engines of each target get all 5
 *    variants as disk hits, and kjit_variant_get_info() says what each
 *    blob is (cubin for sm_NN, PTX for compute_90);
 *  - an empty, malformed, repeated or unknown target exits 2 naming it,
 *    and nothing is compiled, not even for the good targets before it;
 *  - PTX is never taken for a cubin: an sm_90 row that holds PTX (with
 *    the PTX's own valid checksum) is rejected as corrupt, compiled again
 *    and replaced by a cubin; an sm_86 engine without a GPU (which cannot
 *    have the driver compile PTX) compiles with NVRTC rather than use the
 *    stored compute_90 PTX.
 */
#include "travel.h"

static const int configs[TRAVEL_N_CONFIGS][2] = { { 64, 1 }, { 64, 2 }, { 128, 1 },
	                                          { 128, 2 }, { 256, 1 } };

static int is_elf(const void *b, size_t n)
{
	return n >= 4 && memcmp(b, "\177ELF", 4) == 0;
}

static int is_ptx(const char *b, size_t n)
{
	return n > 1 && !b[n - 1] && strlen(b) == n - 1 && strstr(b, ".entry axpy_unrolled");
}

/* Every configuration from the store, for one target: disk hits of the
 * kind that target makes. The key of the first into key0. */
static void check_target(const char *db, const char *dir, const char *arch, char key0[33])
{
	kjit_engine *e = tu_engine_cpu(db, arch, 1);
	kjit_kernel *k = travel_kernel(e, dir);
	int ptx = strncmp(arch, "compute_", 8) == 0;
	for (int i = 0; i < TRAVEL_N_CONFIGS; i++) {
		kjit_variant *v;
		kjit_cache_tier tier;
		CHECK_OK(travel_variant(k, configs[i][0], configs[i][1], &v, &tier));
		CHECK_MSG(tier == KJIT_TIER_DISK, "%s BLOCK_SIZE=%d UNROLL=%d: tier %d", arch,
		          configs[i][0], configs[i][1], (int)tier);
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v, &info));
		CHECK_STREQ(info.arch, arch);
		CHECK(info.kind == (ptx ? KJIT_BINARY_PTX : KJIT_BINARY_CUBIN));
		const void *blob;
		size_t size;
		CHECK_OK(kjit_variant_cubin(v, &blob, &size));
		CHECK(size == info.cubin_size);
		CHECK_MSG(ptx ? is_ptx(blob, size) : is_elf(blob, size), "%s: a %s blob of %zu bytes",
		          arch, ptx ? "PTX" : "cubin", size);
		if (i == 0)
			snprintf(key0, 33, "%s", info.key);
	}
	kjit_engine_stats s = tu_stats(e);
	CHECK(s.disk_hits == TRAVEL_N_CONFIGS && s.compiles == 0 && s.corrupt == 0 &&
	      s.ptx_jits == 0);
	kjit_engine_close(e);
}

static void test_compile_targets(const char *dir, const char *spec, const char *db)
{
	char out[16384], args[3 * TU_PATH];
	snprintf(args, sizeof args, "'%s' --compile-only --arch sm_80,sm_90,compute_90 --db '%s' -j 2",
	         spec, db);
	int rc = travel_tune(args, out, sizeof out);
	CHECK_MSG(rc == 0, "exit %d:\n%s", rc, out);
	CHECK_CONTAINS(out, "variants 5: compiled 5, cached 0, failed 0 (arch sm_80, cubin");
	CHECK_CONTAINS(out, "variants 5: compiled 5, cached 0, failed 0 (arch sm_90, cubin");
	CHECK_CONTAINS(out, "variants 5: compiled 5, cached 0, failed 0 (arch compute_90, PTX");
	CHECK_CONTAINS(out, "kjit-tune: compute_90 5/5 variants, 0 failed");
	OK("--arch sm_80,sm_90,compute_90: 5 compiled for each, a progress and summary line each");

	sqlite3 *s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 3 * TRAVEL_N_CONFIGS);
	/* per configuration (the options without their -arch line): the three targets */
	CHECK(tu_db_int(s, "SELECT count(*) FROM (SELECT substr(options, 1, instr(options,"
	                   " '-arch=') - 1) AS base, group_concat(arch, ',') AS archs FROM"
	                   " (SELECT * FROM binaries ORDER BY arch) GROUP BY base"
	                   " HAVING archs = 'compute_90,sm_80,sm_90')", NULL) == TRAVEL_N_CONFIGS);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries WHERE arch LIKE 'sm\\_%' ESCAPE '\\'"
	                   " AND substr(cubin, 1, 4) = x'7f454c46'", NULL) == 2 * TRAVEL_N_CONFIGS);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries WHERE arch = 'compute_90'"
	                   " AND substr(cubin, -1, 1) = x'00' AND instr(cubin, '.version')"
	                   " AND options LIKE '%-arch=compute_90'", NULL) == TRAVEL_N_CONFIGS);
	CHECK(tu_db_int(s, "SELECT count(DISTINCT checksum) FROM binaries WHERE length(checksum) = 32",
	                NULL) == 3 * TRAVEL_N_CONFIGS);
	tu_db_close(s);
	OK("the rows: per configuration a cubin for sm_80 and sm_90 and PTX for compute_90, "
	   "each with its own checksum");

	char key[33];
	check_target(db, dir, "sm_80", key);
	check_target(db, dir, "sm_90", key);
	check_target(db, dir, "compute_90", key);
	OK("engines of each target read all 5 back as disk hits (checksums verified); the info "
	   "says cubin or PTX and the arch");

	rc = travel_tune(args, out, sizeof out);
	CHECK_MSG(rc == 0, "exit %d:\n%s", rc, out);
	CHECK_CONTAINS(out, "variants 5: compiled 0, cached 5, failed 0 (arch sm_80");
	CHECK_CONTAINS(out, "variants 5: compiled 0, cached 5, failed 0 (arch compute_90");
	OK("run again: 5 cached for each target");
}

static void refused(const char *spec, const char *db, const char *list, const char *named)
{
	char out[16384], args[3 * TU_PATH];
	snprintf(args, sizeof args, "'%s' --compile-only --arch '%s' --db '%s'", spec, list, db);
	int rc = travel_tune(args, out, sizeof out);
	CHECK_MSG(rc == 2, "--arch %s: exit %d:\n%s", list, rc, out);
	CHECK_CONTAINS(out, named);
	CHECK_MSG(!strstr(out, "variants"), "--arch %s compiled:\n%s", list, out);
	if (tu_exists(db)) {
		sqlite3 *s = tu_db_open(db);
		CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 0);
		tu_db_close(s);
	}
	OK("--arch %s: exit 2, \"%s\"", list, strstr(out, named));
}

static void test_bad_targets(const char *dir, const char *spec)
{
	char db[TU_PATH];
	tu_path(db, dir, "refused.db");
	refused(spec, db, "sm_80,sm_91", "unknown arch 'sm_91'");
	refused(spec, db, "sm_80,compute_9x", "invalid arch 'compute_9x'");
	refused(spec, db, "sm_80,,compute_90", "an empty target");
	refused(spec, db, "sm_90,compute_90,sm_90", "target sm_90 given twice");
	refused(spec, db, "sm_80 sm_90", "invalid arch 'sm_80 sm_90'");
}

/* The PTX of a configuration planted in its sm_90 row, with the PTX's
 * valid checksum: the store passes it, the engine must not. */
static void test_ptx_is_no_cubin(const char *dir, const char *db)
{
	char key90[33], key_ptx[33];
	check_target(db, dir, "sm_90", key90);
	check_target(db, dir, "compute_90", key_ptx);
	sqlite3 *s = tu_db_open(db);
	char sql[512];
	snprintf(sql, sizeof sql, "UPDATE binaries SET (cubin, size, checksum) = (SELECT cubin,"
	         " size, checksum FROM binaries WHERE key = '%s') WHERE key = '%s'", key_ptx, key90);
	tu_db_exec(s, sql);
	CHECK(tu_db_int(s, "SELECT substr(cubin, 1, 4) = x'7f454c46' FROM binaries WHERE key = ?1",
	                key90) == 0);

	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	kjit_kernel *k = travel_kernel(e, dir);
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(travel_variant(k, configs[0][0], configs[0][1], &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	const void *blob;
	size_t size;
	CHECK_OK(kjit_variant_cubin(v, &blob, &size));
	CHECK(is_elf(blob, size));
	kjit_engine_stats st = tu_stats(e);
	CHECK(st.corrupt == 1 && st.compiles == 1 && st.ptx_jits == 0);
	kjit_engine_close(e);
	CHECK(tu_db_int(s, "SELECT substr(cubin, 1, 4) = x'7f454c46' FROM binaries WHERE key = ?1",
	                key90) == 1);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 3 * TRAVEL_N_CONFIGS);
	OK("PTX planted in an sm_90 row (its checksum valid) is rejected as corrupt, compiled "
	   "again and replaced by a cubin; nothing else lost");

	/* no cubin for sm_86; without a GPU the stored PTX cannot become one */
	e = tu_engine_cpu(db, "sm_86", 1);
	k = travel_kernel(e, dir);
	CHECK_OK(travel_variant(k, configs[0][0], configs[0][1], &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	CHECK_OK(kjit_variant_cubin(v, &blob, &size));
	CHECK(is_elf(blob, size));
	st = tu_stats(e);
	CHECK(st.compiles == 1 && st.ptx_jits == 0 && st.corrupt == 0);
	kjit_engine_close(e);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries WHERE arch = 'sm_86'", NULL) == 1);
	tu_db_close(s);
	OK("an sm_86 engine with no GPU compiles with NVRTC: compute_90 PTX is never its cubin");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char spec[TU_PATH], db[TU_PATH];
	travel_write(dir, spec);
	tu_path(db, dir, "travel.db");
	test_compile_targets(dir, spec, db);
	test_bad_targets(dir, spec);
	test_ptx_is_no_cubin(dir, db);
	return 0;
}
