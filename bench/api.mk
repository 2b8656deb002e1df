# Benchmarks of kjit_launch(): dispatch against raw cuLaunchKernel and
# CuPy (bench/cupy-launch.py), the first launch in a fresh process, and
# online tuning.
noinst_PROGRAMS += bench/bench-dispatch bench/bench-online

bench_bench_dispatch_SOURCES = bench/bench-dispatch.c bench/benchutil.h
bench_bench_dispatch_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_dispatch_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_dispatch_LDADD = $(BENCH_LDADD)

bench_bench_online_SOURCES = bench/bench-online.c bench/benchutil.h
bench_bench_online_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_online_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_online_LDADD = $(BENCH_LDADD)

EXTRA_DIST += bench/cupy-launch.py
