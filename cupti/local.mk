# The instrumentation layer (src/local.mk says where it stands).
libkjit_instr_la_CPPFLAGS = $(KJIT_INCLUDE_INSTR)
libkjit_instr_la_SOURCES = \
	cupti/instr.h \
	cupti/nvtx.c \
	cupti/timing.c \
	cupti/protocol.c \
	cupti/nvml.c \
	cupti/energy.c \
	cupti/telemetry.c
