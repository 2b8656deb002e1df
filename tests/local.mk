# tests: one small C program each, on real NVRTC and real SQLite files.
# CPU tests pass without a GPU. GPU tests (test-gpu-*) exit 77, automake's
# skip, when kjit_engine_open() cannot get a GPU; on the GPU machine,
# tests/run-gpu-tests runs them in a built tree and prints a table.
# Tests that look inside the store use base.h (its folder is in
# AM_CPPFLAGS) and the SQLite C API.

KJIT_CPU_TESTS = \
	tests/test-compile \
	tests/test-compile-error \
	tests/test-hostile-input \
	tests/test-cache-reopen \
	tests/test-cache-keys \
	tests/test-cache-corrupt \
	tests/test-store-perms \
	tests/test-store-hostile \
	tests/test-cache-concurrent \
	tests/test-cache-evict \
	tests/test-no-driver \
	tests/test-threads \
	tests/test-engine-telemetry \
	tests/test-expr \
	tests/test-store-words \
	tests/test-store-paths \
	tests/test-records-api \
	tests/test-stats \
	tests/test-launch-tag \
	tests/test-table \
	tests/test-env-sources \
	tests/test-env-clear \
	tests/test-doc-api \
	tests/test-profile-args

KJIT_GPU_TESTS = \
	tests/test-gpu-saxpy \
	tests/test-gpu-errors \
	tests/test-gpu-measure \
	tests/test-gpu-profile \
	tests/test-gpu-peaks \
	tests/test-gpu-smem \
	tests/test-gpu-symbol \
	tests/test-gpu-travel

check_PROGRAMS += $(KJIT_CPU_TESTS) $(KJIT_GPU_TESTS)
TESTS += $(KJIT_CPU_TESTS) $(KJIT_GPU_TESTS)

# KJIT_TEST_SRCDIR: where to find examples/ when KJIT_SRCDIR is not set
# (a test binary run by hand).
KJIT_TEST_CPPFLAGS = $(AM_CPPFLAGS) -DKJIT_TEST_SRCDIR='"$(abs_top_srcdir)"'
KJIT_TEST_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS)

tests_test_compile_SOURCES = tests/test-compile.c tests/testutil.h
tests_test_compile_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_compile_LDADD = $(KJIT_TEST_LDADD)

tests_test_compile_error_SOURCES = tests/test-compile-error.c tests/testutil.h
tests_test_compile_error_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_compile_error_LDADD = $(KJIT_TEST_LDADD)

tests_test_hostile_input_SOURCES = tests/test-hostile-input.c tests/testutil.h
tests_test_hostile_input_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_hostile_input_LDADD = $(KJIT_TEST_LDADD)

tests_test_cache_reopen_SOURCES = tests/test-cache-reopen.c tests/testutil.h
tests_test_cache_reopen_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_cache_reopen_LDADD = $(KJIT_TEST_LDADD)

tests_test_cache_keys_SOURCES = tests/test-cache-keys.c tests/testutil.h
tests_test_cache_keys_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_cache_keys_LDADD = $(KJIT_TEST_LDADD)

tests_test_cache_corrupt_SOURCES = tests/test-cache-corrupt.c tests/testutil.h
tests_test_cache_corrupt_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_cache_corrupt_LDADD = $(KJIT_TEST_LDADD)

tests_test_store_perms_SOURCES = tests/test-store-perms.c tests/testutil.h
tests_test_store_perms_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_store_perms_LDADD = $(KJIT_TEST_LDADD)

tests_test_store_hostile_SOURCES = tests/test-store-hostile.c tests/testutil.h
tests_test_store_hostile_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_store_hostile_LDADD = $(KJIT_TEST_LDADD)

tests_test_cache_concurrent_SOURCES = tests/test-cache-concurrent.c tests/testutil.h
tests_test_cache_concurrent_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_cache_concurrent_LDADD = $(KJIT_TEST_LDADD)

tests_test_cache_evict_SOURCES = tests/test-cache-evict.c tests/testutil.h
tests_test_cache_evict_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_cache_evict_LDADD = $(KJIT_TEST_LDADD)

tests_test_no_driver_SOURCES = tests/test-no-driver.c tests/testutil.h
tests_test_no_driver_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_no_driver_LDADD = $(KJIT_TEST_LDADD)

tests_test_threads_SOURCES = tests/test-threads.c tests/testutil.h
tests_test_threads_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_threads_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_saxpy_SOURCES = tests/test-gpu-saxpy.c tests/testutil.h
tests_test_gpu_saxpy_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_saxpy_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_travel_SOURCES = tests/test-gpu-travel.c tests/travel.h tests/testutil.h
tests_test_gpu_travel_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_travel_LDADD = $(KJIT_TEST_LDADD)
tests_test_gpu_travel_DEPENDENCIES = libkjit.la autotune/kjit-tune

tests_test_gpu_errors_SOURCES = tests/test-gpu-errors.c tests/testutil.h
tests_test_gpu_errors_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_errors_LDADD = $(KJIT_TEST_LDADD)

tests_test_engine_telemetry_SOURCES = tests/test-engine-telemetry.c tests/testutil.h
tests_test_engine_telemetry_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_engine_telemetry_LDADD = $(KJIT_TEST_LDADD)

# random expressions are also evaluated by python3 when it is on the PATH
tests_test_expr_SOURCES = tests/test-expr.c tests/testutil.h
tests_test_expr_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_expr_LDADD = $(KJIT_TEST_LDADD) -lm

tests_test_store_words_SOURCES = tests/test-store-words.c tests/testutil.h
tests_test_store_words_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_store_words_LDADD = $(KJIT_TEST_LDADD)

tests_test_store_paths_SOURCES = tests/test-store-paths.c tests/testutil.h
tests_test_store_paths_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_store_paths_LDADD = $(KJIT_TEST_LDADD)

tests_test_records_api_SOURCES = tests/test-records-api.c tests/testutil.h
tests_test_records_api_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_records_api_LDADD = $(KJIT_TEST_LDADD)

tests_test_stats_SOURCES = tests/test-stats.c tests/testutil.h
tests_test_stats_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_stats_LDADD = $(KJIT_TEST_LDADD) -lm

tests_test_launch_tag_SOURCES = tests/test-launch-tag.c tests/testutil.h
tests_test_launch_tag_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_launch_tag_LDADD = $(KJIT_TEST_LDADD)

tests_test_table_SOURCES = tests/test-table.c tests/testutil.h
tests_test_table_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_table_LDADD = $(KJIT_TEST_LDADD)

# the environment read in one place (env.c) and cleared for the tests
tests_test_env_sources_SOURCES = tests/test-env-sources.c tests/testutil.h tests/csource.h
tests_test_env_sources_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_env_sources_LDADD = $(KJIT_TEST_LDADD)

tests_test_env_clear_SOURCES = tests/test-env-clear.c tests/testutil.h
tests_test_env_clear_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_env_clear_LDADD = $(KJIT_TEST_LDADD)

# kjit(3) covers kjit.h; every status has a string
tests_test_doc_api_SOURCES = tests/test-doc-api.c tests/testutil.h tests/csource.h
tests_test_doc_api_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_doc_api_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_measure_SOURCES = tests/test-gpu-measure.c tests/testutil.h
tests_test_gpu_measure_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_measure_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_profile_SOURCES = tests/test-gpu-profile.c tests/testutil.h
tests_test_gpu_profile_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_profile_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_peaks_SOURCES = tests/test-gpu-peaks.c tests/testutil.h
tests_test_gpu_peaks_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_peaks_LDADD = $(KJIT_TEST_LDADD) -ldl

tests_test_profile_args_SOURCES = tests/test-profile-args.c tests/testutil.h
tests_test_profile_args_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_profile_args_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_smem_SOURCES = tests/test-gpu-smem.c tests/testutil.h
tests_test_gpu_smem_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_smem_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_symbol_SOURCES = tests/test-gpu-symbol.c tests/testutil.h
tests_test_gpu_symbol_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_symbol_LDADD = $(KJIT_TEST_LDADD)

# What every test sees: the source and build trees (examples/saxpy/saxpy.cu
# is found through KJIT_SRCDIR), the toolkit (for its stub libcuda), and
# none of the user's kjit settings (tests/env-cleared lists them; tu_init()
# clears them again, for a test run by hand).
AM_TESTS_ENVIRONMENT = \
	KJIT_SRCDIR='$(abs_top_srcdir)'; export KJIT_SRCDIR; \
	KJIT_BUILDDIR='$(abs_top_builddir)'; export KJIT_BUILDDIR; \
	KJIT_CUDA_HOME='$(CUDA_HOME)'; export KJIT_CUDA_HOME; \
	KJIT_TEST_CC='$(CC) $(CFLAGS) $(LDFLAGS)'; export KJIT_TEST_CC; \
	unset $$($(SHELL) '$(abs_top_srcdir)/tests/env-cleared') || :;

EXTRA_DIST += tests/run-gpu-tests tests/env-cleared tests/tsan.supp tests/lsan.supp
CLEANFILES += tests/*.gpu.log

# the gate on function lengths that CI runs, cheap enough for every make check
TESTS += build-aux/function-length
EXTRA_DIST += build-aux/function-length

include tests/telemetry.mk
include tests/nvtx.mk
include tests/timing.mk
include tests/energy.mk
include tests/tui.mk
include tests/tune.mk
include tests/examples.mk
include tests/tune-run.mk
include tests/api.mk
include tests/headers.mk
include tests/layers.mk
include tests/tune-parts.mk
include tests/man.mk
include tests/lto.mk
include tests/python.mk

# the regression gate of the in-process cache hit (bench/bench-hit)
TESTS += tests/test-hit-gate.sh
EXTRA_DIST += tests/test-hit-gate.sh

# bench-search-kt goes on past a Kernel Tuner strategy that fails
TESTS += tests/test-bench-search-kt.sh
EXTRA_DIST += tests/test-bench-search-kt.sh

# judge-search's verdicts, ties and --fresh on bench-search's real output
TESTS += tests/test-judge-search.sh
EXTRA_DIST += tests/test-judge-search.sh
