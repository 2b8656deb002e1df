/*
 * tools.h - what the tools borrow of libkjit's insides. kjit-tune and
 * kjit-top link the library's layers themselves; beyond the kjit_ API of
 * kjit.h they may call these kjit__ functions and no other (each is
 * declared, with its contract, in the layer header named beside it).
 * tests/test-tools-borrow.sh reads the two lists below and fails when a
 * tool's objects use a kjit__ name that is not on its list.
 *
 * A tool that needs more asks for a small kjit_ API before it grows a
 * list: the record room is kjit.h's kjit_records, the search its
 * kjit_strategy and kjit_search, a configuration to compile and launch
 * its kjit_config, the spec's expressions kjit_spec_eval() and
 * kjit_spec_generate(), a binary that another MPI rank compiled
 * kjit_engine_binary_export() and kjit_engine_binary_import().
 */
#ifndef KJIT_TOOLS_H
#define KJIT_TOOLS_H

#include "tuning.h"

/* kjit-tune: */
#define KJIT_TOOLS_TUNE(X) \
	/* strings, errors, files, the clock, the environment (base.h) */ \
	X(kjit__buf_add) X(kjit__buf_done) X(kjit__buf_json_str) X(kjit__buf_str) X(kjit__quote) \
	X(kjit__error) X(kjit__strdup_printf) X(kjit__env) \
	X(kjit__now_ns) X(kjit__cpu_count) X(kjit__open_regular) X(kjit__read_file) \
	X(kjit__write_replace) X(kjit__median) \
	/* JSON (base.h) */ \
	X(kjit__json_parse) X(kjit__json_free) X(kjit__json_get) X(kjit__json_scalar_text) \
	/* the generator (base.h) */ \
	X(kjit__rng_seed) X(kjit__rng_below) X(kjit__splitmix) \
	/* NVTX ranges around a run and an evaluation (instr.h) */ \
	X(kjit__nvtx_push) X(kjit__nvtx_pop)

/* kjit-top: its reader's rows come with their enums (KJIT__F_* of
 * store_schema.h), the GPU's power through kjit_power_* of kjit.h. */
#define KJIT_TOOLS_TOP(X) \
	/* the environment, a hash table, statistics (base.h) */ \
	X(kjit__env) X(kjit__table_insert) X(kjit__table_free) X(kjit__sort_doubles) \
	/* a reader's connection to the store (base.h) */ \
	X(kjit__store_open_reader)

#endif /* KJIT_TOOLS_H */
