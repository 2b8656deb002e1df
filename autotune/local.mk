# kjit-tune: the autotuner. The strategies, replay and results
# (KJIT_TUNE_CORE) are also linked straight into their unit tests
# (tests/tune.mk), without MPI (mpi_off.c); main.c is the command, which
# --with-mpi links with the mpi*.c files and MPI, and only it.
bin_PROGRAMS += autotune/kjit-tune
KJIT_TUNE_CORE = $(KJIT_TUNE_BASE) autotune/mpi_off.c
KJIT_TUNE_BASE = \
	autotune/tune.h \
	autotune/replay.c \
	autotune/results.c \
	autotune/launch.c \
	autotune/args.c \
	autotune/verify.c \
	autotune/rejected.c \
	autotune/wire.c \
	autotune/child.c \
	autotune/compile_pool.c \
	autotune/compile_worker.c \
	autotune/strategies/common.c \
	autotune/strategies/exhaustive.c \
	autotune/strategies/random.c \
	autotune/strategies/annealing.c \
	autotune/strategies/genetic.c \
	autotune/strategies/surrogate.c \
	autotune/strategies/dual_annealing.c \
	autotune/strategies/pso.c \
	autotune/strategies/hybrid.c
KJIT_TUNE_TOOL = autotune/worker.c autotune/link.c autotune/measure.c autotune/tune.c \
	autotune/main.c
autotune_kjit_tune_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/autotune
autotune_kjit_tune_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread
if KJIT_MPI
autotune_kjit_tune_SOURCES = $(KJIT_TUNE_BASE) autotune/mpi.c autotune/mpi_ranks.c \
	autotune/mpi_link.c autotune/mpi_serve.c $(KJIT_TUNE_TOOL)
autotune_kjit_tune_CPPFLAGS += $(MPI_CFLAGS)
autotune_kjit_tune_LDADD += $(MPI_LIBS)
else
autotune_kjit_tune_SOURCES = $(KJIT_TUNE_CORE) $(KJIT_TUNE_TOOL)
endif

dist_man1_MANS += doc/kjit-tune.1
