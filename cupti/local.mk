# The instrumentation layer, part of libkjit.
libkjit_la_SOURCES += \
	cupti/instr.h \
	cupti/nvtx.c \
	cupti/timing.c \
	cupti/protocol.c \
	cupti/telemetry.c
