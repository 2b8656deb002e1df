# tests of kernels with headers: test-headers (CPU: include dirs and
# in-memory headers, the manifest across processes, the toolkit's CCCL,
# errors, the schema migration), test-tune-headers (spec fields through
# kjit-tune --compile-only), test-gpu-headers (a kernel with headers and
# cub::BlockReduce computes its sum).

KJIT_HEADERS_CPU_TESTS = tests/test-headers tests/test-tune-headers
KJIT_HEADERS_GPU_TESTS = tests/test-gpu-headers

check_PROGRAMS += $(KJIT_HEADERS_CPU_TESTS) $(KJIT_HEADERS_GPU_TESTS)
TESTS += $(KJIT_HEADERS_CPU_TESTS) $(KJIT_HEADERS_GPU_TESTS)

tests_test_headers_SOURCES = tests/test-headers.c tests/testutil.h tests/old-schemas.h
tests_test_headers_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_headers_LDADD = $(KJIT_TEST_LDADD)

tests_test_tune_headers_SOURCES = tests/test-tune-headers.c tests/testutil.h
tests_test_tune_headers_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_headers_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_headers_SOURCES = tests/test-gpu-headers.c tests/testutil.h
tests_test_gpu_headers_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_headers_LDADD = $(KJIT_TEST_LDADD)
