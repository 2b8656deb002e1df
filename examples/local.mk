# Example programs: not installed; built by make so that the README's main
# job runs.
noinst_PROGRAMS += examples/saxpy/kjit-saxpy
examples_saxpy_kjit_saxpy_SOURCES = examples/saxpy/kjit-saxpy.c
examples_saxpy_kjit_saxpy_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSAXPY_SOURCE='"$(abs_top_srcdir)/examples/saxpy/saxpy.cu"'
examples_saxpy_kjit_saxpy_LDADD = libkjit.la -lm
include examples/tune.mk

noinst_PROGRAMS += examples/api/kjit-api-demo
examples_api_kjit_api_demo_SOURCES = examples/api/kjit-api-demo.c
examples_api_kjit_api_demo_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKJIT_EXAMPLES='"$(abs_top_srcdir)/examples"'
examples_api_kjit_api_demo_LDADD = libkjit.la -lm
EXTRA_DIST += examples/api/sgemm.cu

noinst_PROGRAMS += examples/lto/kjit-lto
examples_lto_kjit_lto_SOURCES = examples/lto/kjit-lto.c
examples_lto_kjit_lto_CPPFLAGS = $(AM_CPPFLAGS) -DLTO_EXAMPLES='"$(abs_top_srcdir)/examples/lto"'
examples_lto_kjit_lto_LDADD = libkjit.la
