# tests of cupti/timing.c and cupti/protocol.c
#
# test-protocol (CPU): the median CI ranks, the stopping rule on synthetic
# sample streams, and kjit__protocol_measure() end to end on an events
# timer over a fake driver table (no libcuda involved).
# test-gpu-timing (GPU, exit 77 without one): CUPTI against the SM clock,
# CUPTI against CUDA events, correlation across two streams, the protocol
# on a real kernel, cold L2.

KJIT_TIMING_TESTS = \
	tests/test-protocol \
	tests/test-gpu-timing

check_PROGRAMS += $(KJIT_TIMING_TESTS)
TESTS += $(KJIT_TIMING_TESTS)

tests_test_protocol_SOURCES = tests/test-protocol.c tests/testutil.h
tests_test_protocol_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_protocol_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_timing_SOURCES = tests/test-gpu-timing.c tests/testutil.h
tests_test_gpu_timing_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_timing_LDADD = $(KJIT_TEST_LDADD)
