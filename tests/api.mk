# tests of kjit_launch() and the tunable kernel API: test-spec-api (CPU: specs
# and spaces through kjit.h); test-search-api (CPU: strategies and searches
# through kjit.h); test-select (CPU:
# selection rules, memo, signatures, online results in the store);
# test-t1-problems (CPU:
# every T1 form of ProblemSize through kjit_kernel_create_from_spec() and
# the selection); test-gpu-launch runs real launches; test-gpu-expect-args:
# kjit_kernel_expect_args()'s refusals, and on a GPU its check of a variant.

KJIT_API_CPU_TESTS = tests/test-select tests/test-t1-problems tests/test-args-cubin \
	tests/test-spec-api tests/test-search-api
KJIT_API_GPU_TESTS = tests/test-gpu-launch tests/test-gpu-expect-args

check_PROGRAMS += $(KJIT_API_CPU_TESTS) $(KJIT_API_GPU_TESTS)
TESTS += $(KJIT_API_CPU_TESTS) $(KJIT_API_GPU_TESTS)

tests_test_select_SOURCES = tests/test-select.c tests/testutil.h
tests_test_select_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_select_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

tests_test_t1_problems_SOURCES = tests/test-t1-problems.c tests/testutil.h
tests_test_t1_problems_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_t1_problems_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

tests_test_args_cubin_SOURCES = tests/test-args-cubin.c tests/testutil.h
tests_test_args_cubin_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_args_cubin_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

tests_test_spec_api_SOURCES = tests/test-spec-api.c tests/testutil.h
tests_test_spec_api_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_spec_api_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

tests_test_gpu_launch_SOURCES = tests/test-gpu-launch.c tests/testutil.h
tests_test_gpu_launch_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_launch_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

tests_test_gpu_expect_args_SOURCES = tests/test-gpu-expect-args.c tests/testutil.h
tests_test_gpu_expect_args_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_expect_args_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

tests_test_search_api_SOURCES = tests/test-search-api.c tests/testutil.h
tests_test_search_api_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_search_api_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread
