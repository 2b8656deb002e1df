/*
 * worker.h - what runs in kjit-tune's GPU worker process (worker/): a
 * configuration as a launch (launch.c), the kernel arguments of a problem
 * (args.c), verification on the GPU (verify.c) and the worker's main
 * (process.c), which answers the worker protocol (wire.h).
 */
#ifndef KJIT_TUNE_WORKER_H
#define KJIT_TUNE_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "tools.h"
#include "kjit.h"

/* ---- configurations as launches (launch.c) ---------------------------- */

/* The compile options of a configuration as one string ("DNAME=value" and
 * "Fflags" lines), so that configurations that differ only in launch
 * settings compile once; malloc'ed, NULL when out of memory. */
char *kt_variant_text(const kjit__spec *spec, const uint16_t *config);

/* What launching one configuration takes: the configuration (its variant
 * description) and the geometry. */
typedef struct kt_launch {
	kjit_config *config;
	unsigned grid[3], block[3], shared;
} kt_launch;

/* The configuration and geometry of config (NULL: the defaults) for
 * problem p; kt_launch_clear() frees them. */
kjit_status kt_launch_make(const kjit__spec *spec, size_t p, const uint16_t *config,
                           kt_launch *l);
void kt_launch_clear(kt_launch *l);

/* ---- kernel arguments (args.c) ---------------------------------------- */

typedef struct kt_arg {
	const kjit__arg *spec;
	unsigned components;    /* 1, or a vector type's (float4: 4) */
	size_t elem;            /* bytes of one value: a component, a custom element */
	size_t count;           /* elements (a float4 counts once); 1 for a scalar */
	size_t values;          /* count x components */
	size_t bytes;           /* values x elem */
	void *host;             /* the contents (a scalar's value too), malloc'ed */
	void *reference;        /* verify "data": the expected output, else NULL */
} kt_arg;

typedef struct kt_args {
	kt_arg *a;
	size_t n;
} kt_args;

/* The arguments of problem p: scalars evaluated (every component of a
 * vector type gets the value), buffers and symbols allocated and filled
 * on the host, in any element type (doc/spec-format.md). Random fills:
 * floats uniform in [0, 1), integers uniform in [0, 1000) (to the type's
 * maximum for 8-bit types), bools 0 or 1, custom types random bytes, from
 * the argument's seed. A sequence or generator counts values: a vector
 * type's components one by one. A file fill reads the raw bytes; a
 * missing or short file is an error naming it. With verify "data" the
 * ReferenceArguments data are built too (reference). Errors name the
 * spec, the argument and, for a value, the element. The caller frees
 * *out with kt_args_free(). */
kjit_status kt_args_build(const kjit__spec *spec, size_t p, kt_args **out);
void kt_args_free(kt_args *a);
/* What kt_args_build() can refuse before any problem, with the same
 * errors: unknown types, vector widths, custom types without a size or as
 * scalars, symbols that would be compared. */
kjit_status kt_args_check(const kjit__spec *spec);

/* The size of one value of a spec element type (0 for an unknown name),
 * value i of an array of that type as a double, and whether the type is
 * half, float or double. custom counts bytes. */
size_t kt_elem_size(const char *type);
double kt_elem_load(const char *type, const void *p, size_t i);
int kt_elem_is_float(const char *type);

/* IEEE binary16, rounded to nearest even (overflow to infinity, NaN kept). */
uint16_t kt_half_from_double(double v);
double kt_half_to_double(uint16_t h);

/* How an output is compared: the method and its numbers. */
typedef struct kt_check {
	kjit__check method;
	double atol, rtol;  /* KJIT__CHECK_TOLERANCE */
	double threshold;   /* the other methods */
} kt_check;

/* 1 when argument a is compared after a run: with verify "data" the
 * arguments that have ReferenceArguments data, with "none" none, else
 * a->output, or the out and inout buffers and symbols when it is -1. */
int kt_arg_compared(const kjit__spec *spec, const kjit__arg *a);
/* a's comparison: its ValidationMethod with verify "data" (floating-point
 * types; integers and bools exactly, as KTT), else atol and rtol; custom
 * types bytewise and exactly. */
void kt_arg_check(const kjit__spec *spec, const kjit__arg *a, kt_check *out);

/* The command line's --verify (NULL: the spec's), --atol and --rtol (NaN:
 * the spec's) over the spec's. KJIT_ERR_INVALID_ARG for an unknown mode,
 * "reference" without a reference kernel, "data" without reference data. */
kjit_status kt_verify_override(kjit__spec *spec, const char *verify, double atol, double rtol);

/* ---- verification on the GPU (verify.c) -------------------------------- */

typedef struct kt_verify kt_verify;

/* The comparison kernel on engine; *out is freed with kt_verify_free()
 * before the engine is closed. */
kjit_status kt_verify_open(kjit_engine *engine, kt_verify **out);
void kt_verify_free(kt_verify *v);
/* The comparison variant for element type (compiled, or from the cache,
 * on first use); it belongs to the engine. */
kjit_status kt_verify_variant(kt_verify *v, const char *type, kjit_variant **out);

/* The outcome of a comparison. */
typedef struct kt_mismatch {
	int failed;         /* 1: the output is not the expected one */
	int64_t at;         /* the first value (byte for custom) that differs, -1 none */
	double got, want;   /* the two values there */
	double sum;         /* KJIT__CHECK_ABS_SUM: the sum of |got - want| */
} kt_mismatch;

/* Compares argument a at the device addresses got and want, value by
 * value (componentwise for vector types, bytewise for custom) with check:
 * TOLERANCE each |got - want| <= atol + rtol * |want|; SIDE_BY_SIDE each
 * |got - want| <= threshold; RELATIVE each |got - want| <= 1e-4 or <=
 * threshold * |want| (KTT's rule); ABS_SUM the sum of |got - want| <=
 * threshold. NaN matches NaN only; equal values (infinities) match. Waits
 * for the comparison. */
kjit_status kt_verify_compare(kt_verify *v, const kt_arg *a, kjit_devptr got, kjit_devptr want,
                              const kt_check *check, kt_mismatch *out);
/* A failed comparison in words: "y[3].z = 1.5, expected 2 (atol ...)". */
void kt_mismatch_text(const kt_arg *a, const kt_check *check, const kt_mismatch *m, char *buf,
                      size_t size);

/* ---- the GPU worker process (process.c) --------------------------------- */

/* The verification settings the tuner runs with (kt_verify_override()). */
typedef struct kt_worker_verify {
	const char *verify;
	double atol, rtol;
} kt_worker_verify;

/* The worker's main: loads the spec, applies wv, opens an engine with
 * GPU device on the database db, says hello on out_fd, then answers
 * requests from in_fd until EOF. Returns the process exit code. */
int kt_worker_main(const char *spec_path, const char *db, const kt_worker_verify *wv,
                   int device, int in_fd, int out_fd);

#endif /* KJIT_TUNE_WORKER_H */
