/*
 * mpi_off.c - kjit-tune without MPI (configure without --with-mpi): one
 * process, no other ranks; --mpi says how to build with it. The serving
 * rank's stand-in is run/serve_off.c.
 */
#include "config.h"

#include "ranks.h"

kjit_status kt_mpi_init(int *argc, char ***argv, double timeout_s)
{
	return kjit__error(KJIT_ERR_INVALID_ARG, "--mpi: this kjit-tune was built without MPI "
	                   "(configure --with-mpi, with Open MPI installed: openmpi-bin and "
	                   "libopenmpi-dev)");
}

int kt_mpi_rank(void) { return 0; }
int kt_mpi_size(void) { return 1; }
void kt_mpi_finalize(void) {}
int kt_mpi_setup(const kt_setup *s, const char *db, int quiet) { return KT_EXIT_OK; }
const kt_role *kt_mpi_role(int rank) { return NULL; }
size_t kt_mpi_compilers(int *ranks, int *slots, size_t max) { return 0; }

int kt_mpi_compile(int rank, const char *arch, const uint16_t *config, uint32_t n_config,
                   kjit_engine *e, kt_compiled *c, const atomic_int *stop, char *why,
                   size_t why_size)
{
	snprintf(why, why_size, "rank %d: kjit-tune was built without MPI", rank);
	return 0;
}

kjit_status kt_mpi_links(const kt_link_args *a, kt_link ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	return KJIT_OK;
}
