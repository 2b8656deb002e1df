# benchmark of kjit-top: frame time and CPU use on a database of a million
# events and a thousand kernels, idle and with four telemetry writers. No
# GPU needed; run it from the build folder as ./bench/bench-top (it runs
# ./tui/kjit-top, or $KJIT_BENCH_TOP).
noinst_PROGRAMS += bench/bench-top

bench_bench_top_SOURCES = bench/bench-top.c bench/benchutil.h tui/tui.h tui/model.c tui/layout.c
bench_bench_top_CPPFLAGS = $(BENCH_CPPFLAGS) -I$(top_srcdir)/tui
bench_bench_top_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_top_LDADD = $(BENCH_LDADD) $(SQLITE_LIBS) -lm
