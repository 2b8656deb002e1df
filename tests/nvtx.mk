# tests of cupti/nvtx.c
#
# test-nvtx runs kjit__nvtx_* (and the engine) under tests/libnvtx-inject.so,
# an NVTX injection library (tests/nvtx-inject.c) that logs every NVTX call
# to $KJIT_NVTX_LOG. A CPU test: NVTX needs no driver.
#
# The injection library is a plain shared object made by the rule below,
# not a libtool module: under --disable-shared libtool builds no shared
# objects, and NVTX can only dlopen one.

check_PROGRAMS += tests/test-nvtx
TESTS += tests/test-nvtx

tests_test_nvtx_SOURCES = tests/test-nvtx.c tests/testutil.h
tests_test_nvtx_CPPFLAGS = $(KJIT_TEST_CPPFLAGS) \
	-DKJIT_NVTX_INJECT='"$(abs_top_builddir)/tests/libnvtx-inject.so"'
tests_test_nvtx_LDADD = $(KJIT_TEST_LDADD)
EXTRA_tests_test_nvtx_DEPENDENCIES = tests/libnvtx-inject.so

tests/libnvtx-inject.so: $(srcdir)/tests/nvtx-inject.c $(CONFIG_HEADER)
	@$(MKDIR_P) tests
	$(AM_V_CCLD)$(CC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
		$(AM_CFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) \
		-o $@ $(srcdir)/tests/nvtx-inject.c $(LIBS)

EXTRA_DIST += tests/nvtx-inject.c
CLEANFILES += tests/libnvtx-inject.so
