# Benchmarks of kjit-tune: the floors (copy bandwidth, cuBLAS SGEMM), the
# quality and speed of tuning the examples (bench-tune), the serial
# compile-then-measure loop it is compared with, and search efficiency on
# replayed spaces (bench-search, no GPU), and exact counts of spaces
# (bench-count, no GPU).
noinst_PROGRAMS += \
	bench/bench-floors \
	bench/bench-tune \
	bench/bench-tune-serial \
	bench/bench-search \
	bench/bench-count

bench_bench_floors_SOURCES = bench/bench-floors.c bench/benchutil.h
bench_bench_floors_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_floors_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_floors_LDADD = $(BENCH_LDADD)

bench_bench_tune_SOURCES = bench/bench-tune.c bench/benchutil.h
bench_bench_tune_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_tune_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_tune_LDADD = $(BENCH_LDADD) $(SQLITE_LIBS)

bench_bench_tune_serial_SOURCES = bench/bench-tune-serial.c bench/benchutil.h
bench_bench_tune_serial_CPPFLAGS = $(BENCH_CPPFLAGS) $(KJIT_TUNE_INCLUDE)
bench_bench_tune_serial_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_tune_serial_LDADD = $(KJIT_TUNE_LIBS) $(BENCH_LDADD) $(SQLITE_LIBS) -lm

bench_bench_search_SOURCES = bench/bench-search.c bench/benchutil.h
bench_bench_search_CPPFLAGS = $(BENCH_CPPFLAGS) $(KJIT_TUNE_INCLUDE)
bench_bench_search_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_search_LDADD = $(KJIT_TUNE_LIBS) $(BENCH_LDADD) $(SQLITE_LIBS) -lm

bench_bench_count_SOURCES = bench/bench-count.c bench/benchutil.h
bench_bench_count_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_count_LDFLAGS = $(CUDA_LDFLAGS)
bench_bench_count_LDADD = $(BENCH_LDADD) -lm

EXTRA_DIST += bench/saxpy-32.json bench/bench-t1-peer bench/t1/gemm.json \
	bench/bench-search-kt bench/compare-search bench/judge-search bench/kt-cache-to-csv \
	bench/record-spaces bench/slice-spaces
