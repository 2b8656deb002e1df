# The parts of kjit-tune (autotune/local.mk) link alone, bottom up: each
# program takes all of one part (--whole-archive, as tests/layers.mk does
# for the library's layers) and only the parts below it, so that an upward
# call is an undefined reference at link time.
KJIT_TUNE_PART_LINKS = tests/link-tune-search tests/link-tune-wire \
	tests/link-tune-worker tests/link-tune-results tests/link-tune-mpi tests/link-tune-pool \
	tests/link-tune-run
check_PROGRAMS += $(KJIT_TUNE_PART_LINKS)
TESTS += $(KJIT_TUNE_PART_LINKS)
KT_LINK_BELOW = $(KJIT_INTERNAL_LIBS) $(KT_MPI_LIBS) -lm -lpthread

tests_link_tune_search_SOURCES = tests/link-layer.c
tests_link_tune_search_LDADD = $(KJIT_WHOLE),$(KT_LIB_SEARCH),--no-whole-archive \
	$(KT_LINK_BELOW)
tests_link_tune_search_DEPENDENCIES = $(KT_LIBS_ALL)
tests_link_tune_wire_SOURCES = tests/link-layer.c
tests_link_tune_wire_LDADD = $(KJIT_WHOLE),$(KT_LIB_WIRE),--no-whole-archive $(KT_LINK_BELOW)
tests_link_tune_wire_DEPENDENCIES = $(KT_LIBS_ALL)
tests_link_tune_worker_SOURCES = tests/link-layer.c
tests_link_tune_worker_LDADD = $(KJIT_WHOLE),$(KT_LIB_WORKER),--no-whole-archive \
	$(KT_LIB_WIRE) $(KT_LINK_BELOW)
tests_link_tune_worker_DEPENDENCIES = $(KT_LIBS_ALL)
tests_link_tune_results_SOURCES = tests/link-layer.c
tests_link_tune_results_LDADD = $(KJIT_WHOLE),$(KT_LIB_RESULTS),--no-whole-archive \
	$(KT_LINK_BELOW)
tests_link_tune_results_DEPENDENCIES = $(KT_LIBS_ALL)
tests_link_tune_mpi_SOURCES = tests/link-layer.c
tests_link_tune_mpi_LDADD = $(KJIT_WHOLE),$(KT_LIB_MPI),--no-whole-archive $(KT_LIB_WIRE) \
	$(KT_LINK_BELOW)
tests_link_tune_mpi_DEPENDENCIES = $(KT_LIBS_ALL)
tests_link_tune_pool_SOURCES = tests/link-layer.c
tests_link_tune_pool_LDADD = $(KJIT_WHOLE),$(KT_LIB_POOL),--no-whole-archive $(KT_LIB_MPI) \
	$(KT_LIB_WIRE) $(KT_LINK_BELOW)
tests_link_tune_pool_DEPENDENCIES = $(KT_LIBS_ALL)
tests_link_tune_run_SOURCES = tests/link-layer.c
tests_link_tune_run_LDADD = $(KJIT_WHOLE),$(KT_LIB_RUN),--no-whole-archive $(KT_LIB_POOL) \
	$(KT_LIB_MPI) $(KT_LIB_RESULTS) $(KT_LIB_WORKER) $(KT_LIB_SEARCH) \
	$(KT_LIB_WIRE) $(KT_LINK_BELOW)
tests_link_tune_run_DEPENDENCIES = $(KT_LIBS_ALL)
