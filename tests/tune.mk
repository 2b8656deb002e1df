# tests of kjit-tune (CPU only). The spec, space, strategy, replay and results tests
# link the parts of autotune/ they use (KJIT_TUNE_LIBS); test-tune-cli runs
# the built autotune/kjit-tune, NVRTC included for --compile-only.

KJIT_TUNE_TESTS = \
	tests/test-tune-spec \
	tests/test-tune-t1 \
	tests/test-tune-space \
	tests/test-tune-neighbours \
	tests/test-tune-strategy \
	tests/test-tune-options \
	tests/test-tune-search \
	tests/test-tune-batch \
	tests/test-tune-results \
	tests/test-tune-profiles \
	tests/test-tune-migrate \
	tests/test-tune-args \
	tests/test-tune-rejected \
	tests/test-tune-t4 \
	tests/test-tune-cli \
	tests/test-tune-huge \
	tests/test-tune-store-fail \
	tests/test-tune-arch \
	tests/test-tune-names \
	tests/test-tune-cworkers \
	tests/test-tune-mpi

check_PROGRAMS += $(KJIT_TUNE_TESTS)
TESTS += $(KJIT_TUNE_TESTS)

KJIT_TUNE_TEST_CPPFLAGS = $(KJIT_TEST_CPPFLAGS) $(KJIT_TUNE_INCLUDE) \
	-I$(top_srcdir)/src/tuning/strategies
KJIT_TUNE_TEST_LDADD = $(KJIT_TUNE_LIBS) $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm

tests_test_tune_spec_SOURCES = tests/test-tune-spec.c tests/testutil.h
tests_test_tune_spec_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_spec_LDADD = $(KJIT_TUNE_TEST_LDADD)

# T1 specs as the community writes them, and their kernels
tests_test_tune_t1_SOURCES = tests/test-tune-t1.c tests/testutil.h
tests_test_tune_t1_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_t1_LDADD = $(KJIT_TUNE_TEST_LDADD)
EXTRA_DIST += tests/t1/convolution.json tests/t1/convolution.cu tests/t1/vector_add.json \
	tests/t1/vector_add.cu tests/t1/scale_add.json tests/t1/scale_add.cu tests/t1/data.bin \
	tests/t1/types.json tests/t1/types.cu tests/t1/values.json tests/t1/space-oracle.py \
	tests/t1/pnpoly.json tests/t1/pnpoly.cu tests/t1/count.cu tests/t1/count_ok.json \
	tests/t1/count_long.json tests/t1/count_pointer.json tests/t1/stencil.json \
	tests/t1/stencil.cu tests/t1/huge_space.json tests/t1/hotspot_space.json

tests_test_tune_space_SOURCES = tests/test-tune-space.c tests/testutil.h
tests_test_tune_space_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_space_LDADD = $(KJIT_TUNE_TEST_LDADD)

# local moves build neighbours outside the sample of a space too large to hold
tests_test_tune_neighbours_SOURCES = tests/test-tune-neighbours.c tests/testutil.h
tests_test_tune_neighbours_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_neighbours_LDADD = $(KJIT_TUNE_TEST_LDADD)

tests_test_tune_strategy_SOURCES = tests/test-tune-strategy.c tests/testutil.h
tests_test_tune_strategy_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_strategy_LDADD = $(KJIT_TUNE_TEST_LDADD)

# dual_annealing and pso on the recorded spaces, the default strategy
# --strategy-option: parsed, refused, and what the options change
tests_test_tune_options_SOURCES = tests/test-tune-options.c tests/testutil.h
tests_test_tune_options_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_options_LDADD = $(KJIT_TUNE_TEST_LDADD)

tests_test_tune_search_SOURCES = tests/test-tune-search.c tests/testutil.h
tests_test_tune_search_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_search_LDADD = $(KJIT_TUNE_TEST_LDADD)
EXTRA_DIST += tests/data/convolution-rtx2080ti.csv tests/data/convolution-rtx2080ti.json \
	tests/data/saxpy-h200.csv tests/data/transpose-h200.csv tests/data/reduction-h200.csv \
	tests/data/stencil-h200.csv tests/data/pnpoly-h100.csv tests/data/histogram-h100.csv \
	tests/data/nbody-h100.csv tests/data/gemv-h100.csv tests/data/saxpy-h100.csv \
	tests/data/reduction-h100.csv tests/data/transpose-h100.csv tests/data/stencil-h100.csv \
	tests/data/softmax-h200.csv tests/data/spmv-h200.csv tests/data/mandelbrot-h200.csv \
	tests/data/softmax-h100.csv tests/data/spmv-h100.csv tests/data/mandelbrot-h100.csv \
	tests/data/stencil3d-h100.csv tests/data/scan-h100.csv tests/data/bgemm-h100.csv \
	tests/data/bgemm-4096.json tests/data/bgemm-4096-h100.csv \
	tests/data/scan-1024x65536.json tests/data/scan-1024x65536-h100.csv \
	tests/data/softmax-131072x256.json tests/data/softmax-131072x256-h100.csv \
	tests/data/gemv-1024x32768.json tests/data/gemv-1024x32768-h100.csv \
	tests/data/nbody-4096.json tests/data/nbody-4096-h100.csv \
	tests/data/stencil3d-256x128x512.json tests/data/stencil3d-256x128x512-h100.csv \
	tests/data/histogram-1048576.json tests/data/histogram-1048576-h100.csv \
	tests/data/spmv-131072.json tests/data/spmv-131072-h100.csv \
	tests/data/mandelbrot-1024x1024.json tests/data/mandelbrot-1024x1024-h100.csv \
	tests/data/bgemm-16384.json tests/data/bgemm-16384-h100.csv \
	tests/data/gemv-32768x1024.json tests/data/gemv-32768x1024-h100.csv \
	tests/data/histogram-4194304.json tests/data/histogram-4194304-h100.csv \
	tests/data/mandelbrot-2048x512.json tests/data/mandelbrot-2048x512-h100.csv \
	tests/data/nbody-8192.json tests/data/nbody-8192-h100.csv \
	tests/data/pnpoly-524288.json tests/data/pnpoly-524288-h100.csv \
	tests/data/reduction-4194304.json tests/data/reduction-4194304-h100.csv \
	tests/data/scan-16384x4096.json tests/data/scan-16384x4096-h100.csv \
	tests/data/softmax-8192x8192.json tests/data/softmax-8192x8192-h100.csv \
	tests/data/spmv-1048576.json tests/data/spmv-1048576-h100.csv \
	tests/data/stencil-2048x2048.json tests/data/stencil-2048x2048-h100.csv \
	tests/data/stencil3d-128x128x128.json tests/data/stencil3d-128x128x128-h100.csv \
	tests/data/transpose-2048x16384.json tests/data/transpose-2048x16384-h100.csv \
	tests/data/fir-h100.csv tests/data/gather-h100.csv \
	tests/data/fir-1048576x255.json tests/data/fir-1048576x255-h100.csv \
	tests/data/gather-8192x100x512.json tests/data/gather-8192x100x512-h100.csv \
	tests/data/README.md

# every strategy with 1, 4 and 16 proposals outstanding, on the recorded spaces
tests_test_tune_batch_SOURCES = tests/test-tune-batch.c tests/testutil.h
tests_test_tune_batch_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_batch_LDADD = $(KJIT_TUNE_TEST_LDADD)

# results in the database; also runs the built kjit-tune when present
tests_test_tune_profiles_SOURCES = tests/test-tune-profiles.c tests/testutil.h
tests_test_tune_profiles_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_profiles_LDADD = $(KJIT_TUNE_TEST_LDADD)

tests_test_tune_results_SOURCES = tests/test-tune-results.c tests/testutil.h
tests_test_tune_results_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_results_LDADD = $(KJIT_TUNE_TEST_LDADD)
tests_test_tune_results_DEPENDENCIES = libkjit.la autotune/kjit-tune

# a database of schema version 2 migrated in place
tests_test_tune_migrate_SOURCES = tests/test-tune-migrate.c tests/old-schemas.h tests/testutil.h
tests_test_tune_migrate_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_migrate_LDADD = $(KJIT_TUNE_TEST_LDADD)

tests_test_tune_args_SOURCES = tests/test-tune-args.c tests/testutil.h
tests_test_tune_args_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_args_LDADD = $(KJIT_TUNE_TEST_LDADD)

tests_test_tune_rejected_SOURCES = tests/test-tune-rejected.c tests/testutil.h
tests_test_tune_rejected_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_rejected_LDADD = $(KJIT_TUNE_TEST_LDADD)

# validates with python3's jsonschema against $KJIT_T4_SCHEMA_DIR (.ci/run)
tests_test_tune_t4_SOURCES = tests/test-tune-t4.c tests/testutil.h
tests_test_tune_t4_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_t4_LDADD = $(KJIT_TUNE_TEST_LDADD)

# depends on the tool it runs
tests_test_tune_cli_SOURCES = tests/test-tune-cli.c tests/testutil.h
tests_test_tune_cli_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_cli_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_cli_DEPENDENCIES = libkjit.la autotune/kjit-tune

# a space of 8.65e12 configurations in bounded memory and time (NVRTC, no GPU)
tests_test_tune_huge_SOURCES = tests/test-tune-huge.c tests/testutil.h
tests_test_tune_huge_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_huge_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_huge_DEPENDENCIES = libkjit.la autotune/kjit-tune

# a database that cannot take another binary stops --compile-only at once
tests_test_tune_store_fail_SOURCES = tests/test-tune-store-fail.c tests/testutil.h
tests_test_tune_store_fail_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_store_fail_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_store_fail_DEPENDENCIES = libkjit.la autotune/kjit-tune

tests_test_tune_names_SOURCES = tests/test-tune-names.c tests/testutil.h
tests_test_tune_names_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_names_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_names_DEPENDENCIES = libkjit.la autotune/kjit-tune

tests_test_tune_arch_SOURCES = tests/test-tune-arch.c tests/travel.h tests/testutil.h
tests_test_tune_arch_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_arch_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_arch_DEPENDENCIES = libkjit.la autotune/kjit-tune

# compile worker processes: real NVRTC, real processes, SIGKILL and SIGINT
tests_test_tune_cworkers_SOURCES = tests/test-tune-cworkers.c tests/testutil.h
tests_test_tune_cworkers_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_cworkers_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_cworkers_DEPENDENCIES = libkjit.la autotune/kjit-tune

# kjit-tune --mpi over real ranks (mpirun); skips without MPI or mpirun
tests_test_tune_mpi_SOURCES = tests/test-tune-mpi.c tests/testutil.h tests/mpirun.h
tests_test_tune_mpi_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_mpi_LDADD = $(KJIT_TEST_LDADD)
tests_test_tune_mpi_DEPENDENCIES = libkjit.la autotune/kjit-tune
