# tests of cupti/nvml.c and cupti/energy.c
#
# test-nvml-absent (CPU): KJIT_NVML=off, a missing library and a library
# that is not NVML each refused in one line, no crash, by kjit_power_open()
# too; its NULL arguments refused.
# test-gpu-energy (GPU, exit 77 without one or without NVML's energy
# counter): the counter's steps, energy per launch of a 1 ms FMA kernel
# above 0 at more than 50 W, within 5% across three processes; the board's
# power through kjit_power_read(), idle and busy.

KJIT_ENERGY_TESTS = \
	tests/test-nvml-absent \
	tests/test-gpu-energy

check_PROGRAMS += $(KJIT_ENERGY_TESTS)
TESTS += $(KJIT_ENERGY_TESTS)

tests_test_nvml_absent_SOURCES = tests/test-nvml-absent.c tests/testutil.h
tests_test_nvml_absent_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_nvml_absent_LDADD = $(KJIT_TEST_LDADD)

tests_test_gpu_energy_SOURCES = tests/test-gpu-energy.c tests/testutil.h
tests_test_gpu_energy_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_gpu_energy_LDADD = $(KJIT_TEST_LDADD)
