# kjit-tune: the autotuner, in parts bottom up, each a static library that
# may include and call only the parts below it: its CPPFLAGS name no folder
# above it, and tests/tune-parts.mk links each one with the parts below it
# alone, so that an upward call fails the build.
#   search      autotune/search/      the budget in configurations, replay and --ask:
#                                     the library's strategies (kjit_search) driven
#                                     against known results or answers (search.h)
#   wire        autotune/wire/        exit codes, the messages, links to workers,
#                                     child processes and threads, configurations
#                                     as they travel (wire.h)
#   worker      autotune/worker/      the GPU worker process: launches, arguments,
#                                     verification (worker.h)
#   results     autotune/results/     results in the database, rejected
#                                     configurations (results.h)
#   mpi         autotune/mpi/         the other MPI ranks (ranks.h); without
#                                     --with-mpi one process (mpi_off.c)
#   pool        autotune/pool/        the compile pool and its worker processes (pool.h)
#   run         autotune/run/         a run: rank 0's (tune.c, with its measuring
#                                     workers, workers.h) and another rank's
#                                     (serve.c; serve_off.c without MPI) (run.h)
# main.c is the command, on all of them. The unit tests and the benchmarks
# link the parts they use (KJIT_TUNE_LIBS: no MPI, no pool, no run).
KT_INCLUDE_SEARCH = $(AM_CPPFLAGS) -I$(top_srcdir)/autotune/search
KT_INCLUDE_WIRE = $(AM_CPPFLAGS) -I$(top_srcdir)/autotune/wire
KT_INCLUDE_WORKER = $(KT_INCLUDE_WIRE) -I$(top_srcdir)/autotune/worker
KT_INCLUDE_RESULTS = $(AM_CPPFLAGS) -I$(top_srcdir)/autotune/results
KT_INCLUDE_MPI = $(KT_INCLUDE_WIRE) -I$(top_srcdir)/autotune/mpi $(MPI_CFLAGS)
KT_INCLUDE_POOL = $(KT_INCLUDE_MPI) -I$(top_srcdir)/autotune/pool
KT_INCLUDE_RUN = $(KT_INCLUDE_POOL) -I$(top_srcdir)/autotune/search -I$(top_srcdir)/autotune/worker \
	-I$(top_srcdir)/autotune/results -I$(top_srcdir)/autotune/run

KT_LIB_SEARCH = autotune/libkt_search.a
KT_LIB_WIRE = autotune/libkt_wire.a
KT_LIB_WORKER = autotune/libkt_worker.a
KT_LIB_RESULTS = autotune/libkt_results.a
KT_LIB_MPI = autotune/libkt_mpi.a
KT_LIB_POOL = autotune/libkt_pool.a
KT_LIB_RUN = autotune/libkt_run.a
# cr: the u of the default cru only draws a warning from ar
ARFLAGS = cr
noinst_LIBRARIES = $(KT_LIB_SEARCH) $(KT_LIB_WIRE) $(KT_LIB_WORKER) \
	$(KT_LIB_RESULTS) $(KT_LIB_MPI) $(KT_LIB_POOL) $(KT_LIB_RUN)

autotune_libkt_search_a_CPPFLAGS = $(KT_INCLUDE_SEARCH)
autotune_libkt_search_a_SOURCES = autotune/search/search.h autotune/search/replay.c \
	autotune/search/ask.c

autotune_libkt_wire_a_CPPFLAGS = $(KT_INCLUDE_WIRE)
autotune_libkt_wire_a_SOURCES = autotune/wire/wire.h autotune/wire/wire.c autotune/wire/child.c \
	autotune/wire/link_local.c autotune/wire/values.c

autotune_libkt_worker_a_CPPFLAGS = $(KT_INCLUDE_WORKER)
autotune_libkt_worker_a_SOURCES = autotune/worker/worker.h autotune/worker/launch.c \
	autotune/worker/args.c autotune/worker/verify.c autotune/worker/process.c

autotune_libkt_results_a_CPPFLAGS = $(KT_INCLUDE_RESULTS)
autotune_libkt_results_a_SOURCES = autotune/results/results.h autotune/results/results.c \
	autotune/results/rejected.c

autotune_libkt_mpi_a_CPPFLAGS = $(KT_INCLUDE_MPI)
autotune_libkt_pool_a_CPPFLAGS = $(KT_INCLUDE_POOL)
autotune_libkt_pool_a_SOURCES = autotune/pool/pool.h autotune/pool/pool.c \
	autotune/pool/compile_worker.c

autotune_libkt_run_a_CPPFLAGS = $(KT_INCLUDE_RUN)
autotune_libkt_run_a_SOURCES = autotune/run/run.h autotune/run/workers.h autotune/run/tune.c \
	autotune/run/workers.c
if KJIT_MPI
autotune_libkt_mpi_a_SOURCES = autotune/mpi/ranks.h autotune/mpi/mpi.c autotune/mpi/mpi_ranks.c \
	autotune/mpi/mpi_link.c
autotune_libkt_run_a_SOURCES += autotune/run/serve.c
KT_MPI_LIBS = $(MPI_LIBS)
else
autotune_libkt_mpi_a_SOURCES = autotune/mpi/ranks.h autotune/mpi/mpi_off.c
autotune_libkt_run_a_SOURCES += autotune/run/serve_off.c
KT_MPI_LIBS =
endif

# each part before the ones it uses
KT_LIBS_ALL = $(KT_LIB_RUN) $(KT_LIB_POOL) $(KT_LIB_MPI) $(KT_LIB_RESULTS) $(KT_LIB_WORKER) \
	$(KT_LIB_SEARCH) $(KT_LIB_WIRE)
KJIT_TUNE_INCLUDE = -I$(top_srcdir)/autotune/search \
	-I$(top_srcdir)/autotune/wire -I$(top_srcdir)/autotune/worker -I$(top_srcdir)/autotune/results
KJIT_TUNE_LIBS = $(KT_LIB_RESULTS) $(KT_LIB_WORKER) $(KT_LIB_SEARCH) $(KT_LIB_WIRE)

bin_PROGRAMS += autotune/kjit-tune
autotune_kjit_tune_SOURCES = autotune/main.c
autotune_kjit_tune_CPPFLAGS = $(KT_INCLUDE_RUN)
autotune_kjit_tune_LDADD = $(KT_LIBS_ALL) $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) $(KT_MPI_LIBS) \
	-lm -lpthread

dist_man1_MANS += doc/kjit-tune.1
