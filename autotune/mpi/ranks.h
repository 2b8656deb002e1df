/*
 * ranks.h - the other MPI ranks of kjit-tune (mpi/): MPI itself and its
 * mailboxes (mpi.c), rank 0's view of the others (mpi_ranks.c) and its
 * links to their GPU workers (mpi_link.c), or one process without MPI
 * (mpi_off.c). Their messages are wire.h's.
 */
#ifndef KJIT_TUNE_RANKS_H
#define KJIT_TUNE_RANKS_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include "wire.h"

/* ---- other MPI ranks (mpi/; their messages in wire/wire.c) -------------- */

/* kjit-tune --mpi: rank 0 owns the database, the strategy and the run; the
 * other ranks compile for rank 0's compile pool and measure on the GPU
 * workers of their hosts, each on a database of its own on its host, and
 * send rank 0 what rank 0 records. A rank that dies or stops answering is
 * lost: what it had in flight goes to the others. Built without MPI
 * (mpi_off.c) there are no other ranks, and --mpi is refused. */

/* MPI itself (mpi.c): MPI_Init_thread and one communication thread per
 * process, which makes every MPI call until kt_mpi_finalize(). A rank
 * silent for timeout_s (heartbeats are sent every timeout_s / 4 at most)
 * is lost. KJIT_ERR_INVALID_ARG built without MPI. */
kjit_status kt_mpi_init(int *argc, char ***argv, double timeout_s);
int kt_mpi_rank(void);       /* 0 without --mpi */
int kt_mpi_size(void);       /* 1 without --mpi */
int kt_mpi_local_rank(void); /* among the ranks of this host */
/* Rank 0 ends the others (QUIT, then their BYE or loss); then every rank
 * stops its thread and calls MPI_Finalize(), unless a rank was lost other
 * than by its BYE (its fence could wait for the dead forever: mpi.c).
 * Nothing without --mpi. */
void kt_mpi_finalize(void);

/* Messages arrive in mailboxes, one per (rank, channel): channel 0 is
 * the control channel between rank 0 and each rank (its mailbox is
 * kt_mpi_control()'s, open from kt_mpi_init() on), 1 + i a rank's link
 * i, kt_mpi_channel() a fresh one. hook (may be NULL) sees each message
 * as it arrives, on the communication thread: it must not block. A
 * message for no mailbox is dropped. *out is freed with
 * kt_mpi_mbox_close(). */
typedef struct kt_mbox kt_mbox;
kjit_status kt_mpi_mbox_open(int rank, int channel, void (*hook)(void *, const kt_buf *),
                             void *arg, kt_mbox **out);
void kt_mpi_mbox_close(kt_mbox *m);
/* NULL for rank 0 on rank 0, and for a rank other than 0 on another. */
kt_mbox *kt_mpi_control(int rank);
int kt_mpi_channel(void);
/* The next message into b, as kt_frame_read(); KT_FRAME_EOF when the rank
 * was lost (kt_mpi_lost() says why). */
kt_frame_result kt_mpi_recv(kt_mbox *m, kt_buf *b, uint64_t deadline_ns,
                            const atomic_int *stop);
/* Queues a copy of b for rank's channel; KJIT_ERR_IO when it was lost. */
kjit_status kt_mpi_send(int rank, int channel, const kt_buf *b);
/* 1 when rank was lost: why ("rank 2 was lost: no message in 10 s"). */
int kt_mpi_lost(int rank, char *why, size_t size);

/* Rank 0 and the other ranks (mpi_ranks.c). The database path in real
 * form (malloc'ed) and whether it is on a network file system. */
kjit_status kt_mpi_db_where(const char *db, char **real, int *shared);
/* Rank 0, once the spec is read: sends every rank s and waits for their
 * roles; then prints them to stderr unless quiet. A rank that cannot
 * take part, or whose database another host writes too, is an error
 * naming it; the return is an exit code. */
int kt_mpi_setup(const kt_setup *s, const char *db, int quiet);
/* The role rank reported (NULL before kt_mpi_setup() or for rank 0). */
const kt_role *kt_mpi_role(int rank);
/* The ranks that compile for this one's pool and how many jobs each takes
 * at once: at most max, their number returned (0 without other ranks). */
size_t kt_mpi_compilers(int *ranks, int *slots, size_t max);
/* Compiles config for arch on rank: the answer's binary is verified and
 * stored in e's database before *c is filled (1). 0: the rank was lost
 * (why): the job is to go to another worker. -2: *stop first. */
int kt_mpi_compile(int rank, const char *arch, const uint16_t *config, uint32_t n_config,
                   kjit_engine *e, kt_compiled *c, const atomic_int *stop, char *why,
                   size_t why_size);
/* Whether rank has the binary of key in its database (it compiled it or
 * was sent it), and that it now has. */
int kt_mpi_has_binary(int rank, const char *key);
void kt_mpi_add_binary(int rank, const char *key);

/* Rank 0 (mpi_link.c): one link per worker another rank measures with
 * (none without --mpi). start() has that rank start its worker again (the
 * first start is the one its role reported); the frames travel to and
 * from it; binary() ships a binary from a->db unless the rank has it, and
 * returns once the rank has verified and stored it. A lost rank ends the
 * link with KT_END_LOST. *out is malloc'ed; each link is freed with its
 * ops->free. */
kjit_status kt_mpi_links(const kt_link_args *a, kt_link ***out, size_t *n);

#endif /* KJIT_TUNE_RANKS_H */
