/*
 * test-cache-keys: what makes two binaries the same.
 *
 * Changing any one input gives another binary key: each define value,
 * an added define, a define without a value vs with one (and with an empty
 * one), each flag, the order of flags, the arch (a second engine with
 * sm_80 on the same database), one character of the source, the kernel
 * name, the tunable parameter names. Reordering the defines does not
 * change the key, nor does a second kernel object with the same inputs,
 * and a second engine on the same database finds the same key on disk.
 * From memory, each descriptor finds its own variant again, and a wrong
 * one is refused on every call, however often a right one was found.
 */
#include "testutil.h"

/* Two entry points, so that the kernel name can change alone. */
static const char *two_kernels_suffix =
	"\nextern \"C\" __global__ void saxpy_twin(long long n, float a, const float *x, float *y)\n"
	"{\n"
	"	if (n)\n"
	"		y[0] = a * x[0];\n"
	"}\n";

#define MAX_KEYS 64

static struct {
	char key[33];
	char label[96];
} seen[MAX_KEYS];
static int n_seen;

/* Gets the variant and returns its key after checking that no earlier
 * variant had it. */
static const char *new_key(kjit_kernel *k, const kjit_variant_desc *d, const char *label,
                           kjit_variant **vout)
{
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, d, &v, &tier));
	CHECK_MSG(tier == KJIT_TIER_COMPILED, "%s: tier %d, expected COMPILED", label, (int)tier);
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK(tu_is_hex32(info.key));
	for (int i = 0; i < n_seen; i++)
		CHECK_MSG(strcmp(seen[i].key, info.key) != 0, "%s has the key of %s (%s)", label,
		          seen[i].label, info.key);
	CHECK(n_seen < MAX_KEYS);
	snprintf(seen[n_seen].key, sizeof seen[n_seen].key, "%s", info.key);
	snprintf(seen[n_seen].label, sizeof seen[n_seen].label, "%s", label);
	n_seen++;
	if (vout)
		*vout = v;
	printf("  key %s  %s\n", info.key, label);
	return seen[n_seen - 1].key;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "keys.db");
	size_t src_len = 0;
	char *saxpy = tu_read_file(tu_saxpy_path(), &src_len);
	char *source = malloc(src_len + strlen(two_kernels_suffix) + 1);
	CHECK(source != NULL);
	memcpy(source, saxpy, src_len);
	strcpy(source + src_len, two_kernels_suffix);
	free(saxpy);

	kjit_engine *e = tu_engine_cpu(db, "sm_90", 2);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "saxpy", source, tu_saxpy_params, 2, &k));

	/* The base variant. */
	const char *flags[] = { "--use_fast_math", "-maxrregcount=64" };
	kjit_define defs[2] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "2" } };
	kjit_variant_desc base = { defs, 2, flags, 2 };
	kjit_variant *vbase = NULL;
	const char *base_key = new_key(k, &base, "base: BLOCK_SIZE=256 ITEMS=2 fast_math maxrreg64",
	                               &vbase);
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(vbase, &info));
	CHECK_STREQ(info.options, "-DBLOCK_SIZE=256\n-DITEMS_PER_THREAD=2\n--use_fast_math\n"
	                          "-maxrregcount=64\n-arch=sm_90");

	/* Each define value. */
	kjit_define d_bs[2] = { { "BLOCK_SIZE", "128" }, { "ITEMS_PER_THREAD", "2" } };
	kjit_variant_desc d = { d_bs, 2, flags, 2 };
	new_key(k, &d, "BLOCK_SIZE=128", NULL);
	kjit_define d_it[2] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "3" } };
	d = (kjit_variant_desc){ d_it, 2, flags, 2 };
	new_key(k, &d, "ITEMS_PER_THREAD=3", NULL);
	/* "25" + "6" must not read as "256" anywhere. */
	kjit_define d_sp[2] = { { "BLOCK_SIZE", "25" }, { "ITEMS_PER_THREAD", "62" } };
	d = (kjit_variant_desc){ d_sp, 2, flags, 2 };
	new_key(k, &d, "BLOCK_SIZE=25 ITEMS_PER_THREAD=62", NULL);

	/* An added define, without a value, with an empty value, with a value. */
	kjit_define d_add[3] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "2" },
		                 { "EXTRA", NULL } };
	d = (kjit_variant_desc){ d_add, 3, flags, 2 };
	new_key(k, &d, "+EXTRA (no value)", NULL);
	d_add[2].value = "";
	new_key(k, &d, "+EXTRA= (empty value)", NULL);
	d_add[2].value = "1";
	new_key(k, &d, "+EXTRA=1", NULL);
	/* A define that sorts first. */
	d_add[2].name = "AAA";
	new_key(k, &d, "+AAA=1", NULL);

	/* Each flag, and their order. */
	const char *f1[] = { "--use_fast_math", "-maxrregcount=32" };
	d = (kjit_variant_desc){ defs, 2, f1, 2 };
	new_key(k, &d, "-maxrregcount=32", NULL);
	const char *f2[] = { "--fmad=false", "-maxrregcount=64" };
	d = (kjit_variant_desc){ defs, 2, f2, 2 };
	new_key(k, &d, "--fmad=false instead of --use_fast_math", NULL);
	const char *f3[] = { "-maxrregcount=64", "--use_fast_math" };
	d = (kjit_variant_desc){ defs, 2, f3, 2 };
	new_key(k, &d, "flags in the other order", NULL);
	d = (kjit_variant_desc){ defs, 2, flags, 1 };
	new_key(k, &d, "without -maxrregcount=64", NULL);
	const char *f4[] = { "--use_fast_math", "-maxrregcount=64", "-lineinfo" };
	d = (kjit_variant_desc){ defs, 2, f4, 3 };
	new_key(k, &d, "+-lineinfo", NULL);
	OK("every define value, added defines, each flag and the flag order change the key");

	/* Reordered defines: the same key, the same variant, from memory. */
	kjit_define d_rev[2] = { { "ITEMS_PER_THREAD", "2" }, { "BLOCK_SIZE", "256" } };
	d = (kjit_variant_desc){ d_rev, 2, flags, 2 };
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &d, &v, &tier));
	CHECK(v == vbase && tier == KJIT_TIER_MEMORY);
	OK("defines in the other order: the same key %s, a MEMORY hit", base_key);

	/* From memory, each descriptor seen finds its own variant again, the
	 * arrays rewritten in place between the calls as a caller would: a
	 * define without a value, with an empty one and with one stay three
	 * variants, as do the flag lists. */
	kjit_variant *v_none = NULL, *v_empty = NULL, *v_one = NULL;
	kjit_variant_desc dm = (kjit_variant_desc){ d_add, 3, flags, 2 };
	d_add[2] = (kjit_define){ "EXTRA", NULL };
	CHECK_OK(kjit_variant_get(k, &dm, &v_none, &tier));
	CHECK(tier == KJIT_TIER_MEMORY);
	d_add[2].value = "";
	CHECK_OK(kjit_variant_get(k, &dm, &v_empty, &tier));
	d_add[2].value = "1";
	CHECK_OK(kjit_variant_get(k, &dm, &v_one, &tier));
	CHECK(v_none != v_empty && v_empty != v_one && v_none != v_one);
	d_add[2].value = NULL;
	CHECK_OK(kjit_variant_get(k, &dm, &v, &tier));
	CHECK(v == v_none && tier == KJIT_TIER_MEMORY);
	d_add[2].value = "";
	CHECK_OK(kjit_variant_get(k, &dm, &v, &tier));
	CHECK(v == v_empty && tier == KJIT_TIER_MEMORY);
	dm = (kjit_variant_desc){ defs, 2, f3, 2 };
	CHECK_OK(kjit_variant_get(k, &dm, &v, &tier));
	CHECK(v != vbase && tier == KJIT_TIER_MEMORY);
	dm = (kjit_variant_desc){ defs, 2, flags, 2 };
	CHECK_OK(kjit_variant_get(k, &dm, &v, &tier));
	CHECK(v == vbase && tier == KJIT_TIER_MEMORY);
	OK("from memory: no value, an empty value and a value, and each flag order, each "
	   "find their own variant again");

	/* What a hit once found is no pass for a descriptor that is wrong:
	 * a define given twice, a flag kjit refuses, each refused every time. */
	kjit_define d_twice[3] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "2" },
		                   { "BLOCK_SIZE", "256" } };
	const char *f_inc[] = { "--use_fast_math", "-I/tmp" };
	for (int round = 0; round < 2; round++) {
		dm = (kjit_variant_desc){ d_twice, 3, flags, 2 };
		CHECK(kjit_variant_get(k, &dm, &v, &tier) == KJIT_ERR_INVALID_ARG && !v);
		dm = (kjit_variant_desc){ defs, 2, f_inc, 2 };
		CHECK(kjit_variant_get(k, &dm, &v, &tier) == KJIT_ERR_INVALID_ARG && !v);
		CHECK_OK(kjit_variant_get(k, &base, &v, &tier));
		CHECK(v == vbase && tier == KJIT_TIER_MEMORY);
	}
	OK("a define given twice and an -I flag refused on every call, between hits");

	/* Another kernel object with the same inputs: the same variant. */
	kjit_kernel *k_same = NULL;
	CHECK_OK(kjit_kernel_create(e, "saxpy", source, tu_saxpy_params, 2, &k_same));
	CHECK_STREQ(kjit_kernel_signature(k_same), kjit_kernel_signature(k));
	CHECK_OK(kjit_variant_get(k_same, &base, &v, &tier));
	CHECK(v == vbase && tier == KJIT_TIER_MEMORY);
	OK("a second kernel object with the same name, source and parameters: the same variant");

	/* One character of the source. */
	char *source2 = strdup(source);
	CHECK(source2 != NULL);
	char *c = strstr(source2, "saxpy: y = a * x + y");
	CHECK(c != NULL);
	c[7] = 'Y'; /* in the comment: the code does not change */
	kjit_kernel *k_src = NULL;
	CHECK_OK(kjit_kernel_create(e, "saxpy", source2, tu_saxpy_params, 2, &k_src));
	CHECK(strcmp(kjit_kernel_signature(k_src), kjit_kernel_signature(k)) != 0);
	new_key(k_src, &base, "one character of a comment in the source", NULL);
	free(source2);

	/* The kernel name. */
	kjit_kernel *k_name = NULL;
	CHECK_OK(kjit_kernel_create(e, "saxpy_twin", source, tu_saxpy_params, 2, &k_name));
	CHECK(strcmp(kjit_kernel_signature(k_name), kjit_kernel_signature(k)) != 0);
	kjit_variant *vtwin = NULL;
	new_key(k_name, &base, "kernel name saxpy_twin", &vtwin);
	CHECK_OK(kjit_variant_get_info(vtwin, &info));
	CHECK_STREQ(info.lowered_name, "saxpy_twin");

	/* The parameter names. */
	const char *p1[] = { "BLOCK_SIZE" };
	const char *p2[] = { "BLOCK_SIZE", "ITEMS_PER_THREAD", "UNROLL" };
	const char *p3[] = { "BLOCK_SIZE", "ITEMS_PER_THREADS" };
	kjit_kernel *kp = NULL;
	CHECK_OK(kjit_kernel_create(e, "saxpy", source, p1, 1, &kp));
	new_key(kp, &base, "parameters BLOCK_SIZE only", NULL);
	CHECK_OK(kjit_kernel_create(e, "saxpy", source, p2, 3, &kp));
	new_key(kp, &base, "parameters + UNROLL", NULL);
	CHECK_OK(kjit_kernel_create(e, "saxpy", source, p3, 2, &kp));
	new_key(kp, &base, "parameter renamed ITEMS_PER_THREADS", NULL);
	CHECK_OK(kjit_kernel_create(e, "saxpy", source, NULL, 0, &kp));
	new_key(kp, &base, "no parameters", NULL);
	OK("the source (one character), the kernel name and the parameter names change the key");

	/* The arch: a second engine on the same database. */
	kjit_engine *e80 = tu_engine_cpu(db, "sm_80", 2);
	kjit_kernel *k80 = NULL;
	CHECK_OK(kjit_kernel_create(e80, "saxpy", source, tu_saxpy_params, 2, &k80));
	CHECK_STREQ(kjit_kernel_signature(k80), kjit_kernel_signature(k));
	kjit_variant *v80 = NULL;
	new_key(k80, &base, "arch sm_80 (second engine, same database)", &v80);
	CHECK_OK(kjit_variant_get_info(v80, &info));
	CHECK_CONTAINS(info.options, "-arch=sm_80");
	kjit_engine_close(e80);
	OK("the arch changes the key; the signature does not depend on it");

	/* The same inputs in a second engine: the same key, from the disk. */
	kjit_engine *e2 = tu_engine_cpu(db, "sm_90", 1);
	kjit_kernel *k2 = NULL;
	CHECK_OK(kjit_kernel_create(e2, "saxpy", source, tu_saxpy_params, 2, &k2));
	CHECK_STREQ(kjit_kernel_signature(k2), kjit_kernel_signature(k));
	CHECK_OK(kjit_variant_get(k2, &d, &v, &tier)); /* d: the reordered defines */
	CHECK(tier == KJIT_TIER_DISK);
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK_STREQ(info.key, base_key);
	kjit_engine_close(e2);
	OK("a second engine: the same signature and key %s, a DISK hit", base_key);

	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, (uint64_t)n_seen - 1); /* all but the sm_80 one */
	kjit_engine_close(e);

	sqlite3 *db3 = tu_db_open(db);
	CHECK(tu_db_int(db3, "SELECT count(*) FROM binaries", NULL) == n_seen);
	CHECK(tu_db_int(db3, "SELECT count(DISTINCT key) FROM binaries", NULL) == n_seen);
	CHECK(tu_db_int(db3, "SELECT count(*) FROM binaries WHERE arch = 'sm_80'", NULL) == 1);
	tu_db_close(db3);
	OK("%d distinct keys, %d rows in the database", n_seen, n_seen);
	free(source);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
