# libkjit, in layers bottom up, each a convenience library that may include
# and call only the layers below it: its CPPFLAGS name no header above it,
# and tests/layers.mk links each one with the layers below it alone, so an
# upward call fails the build.
#   base    src/base/    errors, hashing, strings, files, the environment,
#                        JSON, the CUDA driver loaded at run time, the store
#                        (base.h)
#   instr   cupti/       CUPTI timing, the protocol, NVTX, telemetry (instr.h)
#   core    src/         compile, link (nvJitLink), the pool, variants, kernels, module
#                        variables, argument checks, measure (engine.h)
#   tuning  src/tuning/  spec, expressions, space, launch configurations,
#                        selection, the record room (record.h), best rows,
#                        tunable kernels, kjit_launch, online tuning, drift
#                        (tuning.h, tuning_private.h); the search strategies
#                        behind kjit_strategy and kjit_search (strategies/,
#                        strategies.h)
# libkjit.la is the four together and exports the kjit_ API only; the tools
# and the tests link the layers themselves (KJIT_INTERNAL_LIBS).
KJIT_INCLUDE_BASE = -I$(top_srcdir)/include -I$(top_srcdir)/src/base $(CUDA_CPPFLAGS) \
	$(SQLITE_CFLAGS)
KJIT_INCLUDE_INSTR = $(KJIT_INCLUDE_BASE) -I$(top_srcdir)/cupti
KJIT_INCLUDE_CORE = $(KJIT_INCLUDE_INSTR) -I$(top_srcdir)/src
KJIT_INCLUDE_TUNING = $(KJIT_INCLUDE_CORE) -I$(top_srcdir)/src/tuning

noinst_LTLIBRARIES += libkjit_base.la libkjit_instr.la libkjit_core.la libkjit_tuning.la

libkjit_base_la_CPPFLAGS = $(KJIT_INCLUDE_BASE)
libkjit_base_la_SOURCES = \
	src/base/base.h \
	src/base/store_schema.h \
	src/base/error.c \
	src/base/hash.c \
	src/base/rng.c \
	src/base/stats.c \
	src/base/table.c \
	src/base/strbuf.c \
	src/base/file.c \
	src/base/env.c \
	src/base/json.c \
	src/base/driver.c \
	src/base/store.c \
	src/base/store_reader.c \
	src/base/store_binaries.c \
	src/base/store_travel.c

libkjit_core_la_CPPFLAGS = $(KJIT_INCLUDE_CORE)
libkjit_core_la_SOURCES = \
	src/engine.h \
	src/compile.c \
	src/options.c \
	src/link.c \
	src/link_kinds.c \
	src/compile_pool.c \
	src/vtable.c \
	src/engine.c \
	src/kernel.c \
	src/headers.c \
	src/std_headers.c \
	src/symbol.c \
	src/variant.c \
	src/param_check.c \
	src/cubin_params.c \
	src/ptx.c \
	src/measure.c \
	src/variant_profile.c

libkjit_tuning_la_CPPFLAGS = $(KJIT_INCLUDE_TUNING)
libkjit_tuning_la_SOURCES = \
	src/tuning/tuning.h \
	src/tuning/tuning_private.h \
	src/tuning/launch_config.c \
	src/tuning/spec.c \
	src/tuning/spec_api.c \
	src/tuning/expr.c \
	src/tuning/space.c \
	src/tuning/tunable.c \
	src/tuning/select.c \
	src/tuning/record.h \
	src/tuning/tools.h \
	src/tuning/record.c \
	src/tuning/record_read.c \
	src/tuning/store_best.c \
	src/tuning/memo.c \
	src/tuning/tune_online.c \
	src/tuning/drift.c \
	src/tuning/strategies/strategies.h \
	src/tuning/strategies/search.c \
	src/tuning/strategies/common.c \
	src/tuning/strategies/options.c \
	src/tuning/strategies/random.c \
	src/tuning/strategies/annealing.c \
	src/tuning/strategies/genetic.c \
	src/tuning/strategies/surrogate.c \
	src/tuning/strategies/dual_annealing.c \
	src/tuning/strategies/pso.c \
	src/tuning/strategies/hybrid.c

KJIT_EXTERNAL_LIBS = $(SQLITE_LIBS) $(NVRTC_LIBS) $(NVJITLINK_LIBS) $(CUPTI_LIBS) $(LIBS)
KJIT_INTERNAL_LIBS = libkjit_tuning.la libkjit_core.la libkjit_instr.la libkjit_base.la \
	$(KJIT_EXTERNAL_LIBS)

lib_LTLIBRARIES += libkjit.la
libkjit_la_SOURCES = include/kjit.h
libkjit_la_LDFLAGS = -version-info $(KJIT_LT_VERSION) -no-undefined \
	-export-symbols-regex '^kjit_[a-z]' $(CUDA_LDFLAGS)
libkjit_la_LIBADD = $(KJIT_INTERNAL_LIBS)
