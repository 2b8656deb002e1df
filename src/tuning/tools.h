/*
 * tools.h - what the tools borrow of libkjit's insides. kjit-tune and
 * kjit-top link the library's layers themselves; beyond the kjit_ API of
 * kjit.h they may call these kjit__ functions and no other (each is
 * declared, with its contract, in the layer header named beside it).
 * tests/test-tools-borrow.sh reads the two lists below and fails when a
 * tool's objects use a kjit__ name that is not on its list.
 *
 * A tool that needs more asks for a small kjit_ API before it grows a
 * list; the record room, for one, is kjit.h's kjit_records.
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
	/* a binary's checksum (base.h) */ \
	X(kjit__store_checksum) \
	/* MPI ranks only: a binary another rank compiled, stored (mpi_link.c, serve.c) */ \
	X(kjit__store_open) X(kjit__store_close) \
	X(kjit__store_binary_put) X(kjit__store_binary_read) \
	/* the spec, its expressions and its space (tuning.h), beyond kjit.h's kjit_spec_* \
	 * and kjit_space_*, which load, count, build and free them; the search is kjit.h's \
	 * kjit_strategy and kjit_search */ \
	X(kjit__spec_eval) X(kjit__spec_default_config) \
	X(kjit__space_config) X(kjit__space_match) \
	X(kjit__spec_generate) \
	X(kjit__config_desc_make) \
	X(kjit__config_desc_free) X(kjit__config_dims) \
	/* compiling, launching and timing in the workers (engine.h, instr.h) */ \
	X(kjit__arch_is_virtual) \
	X(kjit__engine_store_broken) X(kjit__kernel_args_refused) \
	X(kjit__nvtx_push) X(kjit__nvtx_pop) X(kjit__telemetry_record)

/* kjit-top: its reader's rows come with their enums (KJIT__F_* of
 * store_schema.h), the GPU's power through kjit_power_* of kjit.h. */
#define KJIT_TOOLS_TOP(X) \
	/* the environment, a hash table, statistics (base.h) */ \
	X(kjit__env) X(kjit__table_insert) X(kjit__table_free) X(kjit__sort_doubles) \
	/* a reader's connection to the store (base.h) */ \
	X(kjit__store_open_reader)

#endif /* KJIT_TOOLS_H */
