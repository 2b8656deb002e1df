/*
 * record.h - the record room's library-only part. The record room is the
 * one writer of the store's tuning tables (runs, results, profiles, best)
 * and the one home of the best-row policy (record.c), and their reader
 * (record_read.c); front ends reach it through kjit_records and
 * kjit_record_*() of kjit.h. Online tuning records its searches on its
 * engine's store with these; the best table's reader for kjit_launch() is
 * store_best.c.
 */
#ifndef KJIT_RECORD_H
#define KJIT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "kjit.h"

/* Records the evaluations of a search outside any run (online tuning) for
 * (signature, device_key, problem), as kjit_record_eval() does, in ONE
 * transaction, and makes evals[best], which the search chose under
 * objective, the best row whatever was stored before: its candidates
 * were measured together, under the same conditions. */
kjit_status kjit__record_search(kjit__store *store, const char *signature,
                                const char *device_key, const char *problem,
                                kjit_objective objective, const kjit_eval *evals, size_t n,
                                size_t best);

/* KJIT_ERR_INVALID_ARG naming what for an objective beyond kjit.h's
 * list. */
kjit_status kjit__objective_check(kjit_objective objective, const char *what);

/* Marks a best row stale. */
kjit_status kjit__record_stale(kjit__store *store, const char *signature,
                               const char *device_key, const char *problem);

#endif /* KJIT_RECORD_H */
