/*
 * serve_off.c - the run of a rank other than 0 in a kjit-tune without MPI
 * (configure without --with-mpi): there is none (mpi/mpi_off.c says how
 * to build with it).
 */
#include "config.h"

#include "run.h"

int kt_mpi_serve(const kt_serve_opts *o) { return KT_EXIT_USAGE; }
