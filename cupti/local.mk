# The instrumentation layer (src/local.mk says where it stands).
# cupti/c-shim: an empty <string> for cupti_profiler_host.h (see the file).
libkjit_instr_la_CPPFLAGS = $(KJIT_INCLUDE_INSTR) -idirafter $(top_srcdir)/cupti/c-shim
libkjit_instr_la_SOURCES = \
	cupti/instr.h \
	cupti/nvtx.c \
	cupti/timing.c \
	cupti/counters.c \
	cupti/protocol.c \
	cupti/nvml.c \
	cupti/energy.c \
	cupti/telemetry.c
EXTRA_DIST += cupti/c-shim/string
