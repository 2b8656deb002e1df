# libkjit: base layer (errors, hashing, environment, driver, store) and engine layer.
lib_LTLIBRARIES += libkjit.la
libkjit_la_SOURCES = \
	src/kjit.h \
	src/base.h \
	src/error.c \
	src/hash.c \
	src/strbuf.c \
	src/file.c \
	src/env.c \
	src/json.c \
	src/driver.c \
	src/store.c \
	src/store_binaries.c \
	src/engine.h \
	src/compile.c \
	src/compile_pool.c \
	src/vtable.c \
	src/engine.c \
	src/kernel.c \
	src/symbol.c \
	src/variant.c \
	src/measure.c \
	src/launch_config.c \
	src/spec.c \
	src/expr.c \
	src/space.c \
	src/tunable.c \
	src/select.c \
	src/store_best.c \
	src/launch.c \
	src/tune_online.c \
	src/drift.c
libkjit_la_LDFLAGS = -version-info $(KJIT_LT_VERSION) -no-undefined $(CUDA_LDFLAGS)
libkjit_la_LIBADD = $(SQLITE_LIBS) $(NVRTC_LIBS) $(CUPTI_LIBS) $(LIBS)
