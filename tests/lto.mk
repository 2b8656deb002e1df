# JIT LTO: kernels linked at run time with nvJitLink. test-lto runs on the
# CPU (NVRTC and nvJitLink need no GPU); test-gpu-lto runs the example's
# kernel with two libraries. The nvcc-made inputs (LTO IR, a host object
# with LTO IR, a fatbin of LTO IR) of one library come from
# tests/lto-op.cu; without nvcc the tests say so and use NVRTC's alone.
check_PROGRAMS += tests/test-lto tests/test-gpu-lto
TESTS += tests/test-lto tests/test-gpu-lto

KJIT_LTO_CPPFLAGS = $(KJIT_TEST_CPPFLAGS) -DKJIT_LTO_DIR='"$(abs_top_builddir)/tests"' \
	-DKJIT_LTO_EXAMPLE='"$(abs_top_srcdir)/examples/lto"'
if HAVE_NVCC
KJIT_LTO_NVCC_FILES = tests/lto-op.ltoir tests/lto-op-nvcc.o tests/lto-op.fatbin
KJIT_LTO_CPPFLAGS += -DKJIT_LTO_NVCC=1
endif

tests_test_lto_SOURCES = tests/test-lto.c tests/testutil.h
tests_test_lto_CPPFLAGS = $(KJIT_LTO_CPPFLAGS)
tests_test_lto_LDADD = $(KJIT_TEST_LDADD)
EXTRA_tests_test_lto_DEPENDENCIES = $(KJIT_LTO_NVCC_FILES)

tests_test_gpu_lto_SOURCES = tests/test-gpu-lto.c tests/testutil.h
tests_test_gpu_lto_CPPFLAGS = $(KJIT_LTO_CPPFLAGS)
tests_test_gpu_lto_LDADD = $(KJIT_TEST_LDADD)
EXTRA_tests_test_gpu_lto_DEPENDENCIES = $(KJIT_LTO_NVCC_FILES)

# the device code only, for sm_90 (what the tests open their engines with)
tests/lto-op.ltoir: tests/lto-op.cu
	$(AM_V_GEN)$(MKDIR_P) tests && $(NVCC) -dlto -ltoir -arch=sm_90 -o $@ $(srcdir)/tests/lto-op.cu
tests/lto-op-nvcc.o: tests/lto-op.cu
	$(AM_V_GEN)$(MKDIR_P) tests && $(NVCC) -dlto -dc -arch=sm_90 -o $@ $(srcdir)/tests/lto-op.cu
tests/lto-op.fatbin: tests/lto-op.cu
	$(AM_V_GEN)$(MKDIR_P) tests && $(NVCC) -dc -fatbin -gencode arch=compute_90,code=lto_90 \
		-o $@ $(srcdir)/tests/lto-op.cu

EXTRA_DIST += tests/lto-op.cu
CLEANFILES += tests/lto-op.ltoir tests/lto-op-nvcc.o tests/lto-op.fatbin
