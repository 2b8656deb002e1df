# kjit-tune: the autotuner. The strategies, replay and results
# (KJIT_TUNE_CORE) are also linked straight into their unit tests
# (tests/tune.mk); main.c is the command.
bin_PROGRAMS += autotune/kjit-tune
KJIT_TUNE_CORE = \
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
	autotune/strategies/pso.c
autotune_kjit_tune_SOURCES = $(KJIT_TUNE_CORE) autotune/worker.c autotune/link.c \
	autotune/measure.c autotune/tune.c autotune/main.c
autotune_kjit_tune_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/autotune
autotune_kjit_tune_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm -lpthread

dist_man1_MANS += doc/kjit-tune.1
