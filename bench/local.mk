# Benchmarks against the physical limits (bench/RESULTS.md). Built by make,
# never run by make check: bench/run-benchmarks runs them from a build tree
# and prints a summary table.
BENCH_CPPFLAGS = $(AM_CPPFLAGS) -DKJIT_BENCH_SRCDIR='"$(abs_top_srcdir)"'
BENCH_LDADD = $(KJIT_INTERNAL_LIBS) $(NVRTC_LIBS) $(LIBS)

noinst_PROGRAMS += \
	bench/bench-compile \
	bench/bench-hit \
	bench/bench-fresh \
	bench/bench-pool \
	bench/bench-cworkers \
	bench/bench-launch \
	bench/bench-lto

bench_bench_compile_SOURCES = bench/bench-compile.c bench/benchutil.h
bench_bench_compile_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_compile_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_compile_LDADD = $(BENCH_LDADD)

bench_bench_hit_SOURCES = bench/bench-hit.c bench/benchutil.h
bench_bench_hit_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_hit_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_hit_LDADD = $(BENCH_LDADD)

bench_bench_fresh_SOURCES = bench/bench-fresh.c bench/benchutil.h
bench_bench_fresh_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_fresh_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_fresh_LDADD = $(BENCH_LDADD)

bench_bench_pool_SOURCES = bench/bench-pool.c bench/benchutil.h
bench_bench_pool_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_pool_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_pool_LDADD = $(BENCH_LDADD)

# runs the built kjit-tune (KJIT_BENCH_TUNE)
bench_bench_cworkers_SOURCES = bench/bench-cworkers.c bench/benchutil.h
bench_bench_cworkers_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_cworkers_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_cworkers_LDADD = $(BENCH_LDADD)

bench_bench_launch_SOURCES = bench/bench-launch.c bench/benchutil.h
bench_bench_launch_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_launch_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_launch_LDADD = $(BENCH_LDADD)

bench_bench_lto_SOURCES = bench/bench-lto.c bench/benchutil.h
bench_bench_lto_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_lto_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_lto_LDADD = $(BENCH_LDADD)

EXTRA_DIST += bench/run-benchmarks bench/heavy.cu

include bench/timing.mk
include bench/tui.mk
include bench/tune.mk
include bench/api.mk
