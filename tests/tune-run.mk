# tests of kjit-tune's GPU tuning run: the worker protocol, the arguments
# and launches (CPU), and full tuning runs on the GPU (test-gpu-tune, which
# runs the built autotune/kjit-tune on examples/saxpy and tests/tune-faults;
# test-gpu-t1, T1 specs of every argument type, fill and validation method;
# test-gpu-args, specs whose arguments do not fit the kernel).

check_PROGRAMS += tests/test-tune-worker tests/test-gpu-tune tests/test-gpu-t1 tests/test-gpu-args \
	tests/test-gpu-cworkers tests/test-gpu-devices tests/test-gpu-mpi
TESTS += tests/test-tune-worker tests/test-gpu-tune tests/test-gpu-t1 tests/test-gpu-args \
	tests/test-gpu-cworkers \
	tests/test-gpu-devices tests/test-gpu-mpi

tests_test_tune_worker_SOURCES = tests/test-tune-worker.c tests/testutil.h
tests_test_tune_worker_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_worker_LDADD = $(KJIT_TUNE_TEST_LDADD)
tests_test_tune_worker_DEPENDENCIES = libkjit.la autotune/kjit-tune

tests_test_gpu_tune_SOURCES = tests/test-gpu-tune.c tests/testutil.h
tests_test_gpu_tune_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_tune_LDADD = $(KJIT_TEST_LDADD)
tests_test_gpu_tune_DEPENDENCIES = libkjit.la autotune/kjit-tune

tests_test_gpu_t1_SOURCES = tests/test-gpu-t1.c tests/testutil.h
tests_test_gpu_t1_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_t1_LDADD = $(KJIT_TEST_LDADD)
tests_test_gpu_t1_DEPENDENCIES = libkjit.la autotune/kjit-tune

tests_test_gpu_args_SOURCES = tests/test-gpu-args.c tests/testutil.h
tests_test_gpu_args_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_args_LDADD = $(KJIT_TEST_LDADD)
tests_test_gpu_args_DEPENDENCIES = libkjit.la autotune/kjit-tune

# the compile pool as processes against threads, on the GPU
tests_test_gpu_cworkers_SOURCES = tests/test-gpu-cworkers.c tests/testutil.h
tests_test_gpu_cworkers_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_cworkers_LDADD = $(KJIT_TEST_LDADD) -lm
tests_test_gpu_cworkers_DEPENDENCIES = libkjit.la autotune/kjit-tune

# several measuring workers (--devices), on the GPU
tests_test_gpu_devices_SOURCES = tests/test-gpu-devices.c tests/testutil.h
tests_test_gpu_devices_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_devices_LDADD = $(KJIT_TEST_LDADD)
tests_test_gpu_devices_DEPENDENCIES = libkjit.la autotune/kjit-tune

EXTRA_DIST += tests/tune-faults.json tests/tune-reference.json tests/tune-faults.cu \
	tests/tune-race.json tests/tune-race.cu

# kjit-tune --mpi with rank 1 measuring (mpirun); skips without MPI or mpirun
tests_test_gpu_mpi_SOURCES = tests/test-gpu-mpi.c tests/testutil.h tests/mpirun.h
tests_test_gpu_mpi_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_mpi_LDADD = $(KJIT_TEST_LDADD)
tests_test_gpu_mpi_DEPENDENCIES = libkjit.la autotune/kjit-tune
