# benchmarks of cupti/timing.c and protocol.c
#
# bench-measure: stability of the protocol's median across processes
# (CUPTI and CUDA events), and its cost against Kernel Tuner's 7 runs and
# Triton's do_bench. Needs a GPU (prints "skipped: no GPU" without one);
# run it from a build folder as ./bench/bench-measure.
noinst_PROGRAMS += bench/bench-measure

bench_bench_measure_SOURCES = bench/bench-measure.c bench/benchutil.h
bench_bench_measure_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_measure_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_measure_LDADD = $(BENCH_LDADD)

# bench-profile: kjit_variant_profile() against ncu --clock-control none
# with the same metrics on the same kernel. Needs a GPU; run it from a
# build folder as ./bench/bench-profile.
noinst_PROGRAMS += bench/bench-profile

bench_bench_profile_SOURCES = bench/bench-profile.c bench/benchutil.h
bench_bench_profile_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_profile_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_profile_LDADD = $(BENCH_LDADD)
