/* kjitpy.h - the parts of the kjit Python extension: the module and its
 * exceptions (module.c), engines and kernels (engine.c, kernel.c), the
 * conversion of Python arguments to a launch's (args.c), specs and their
 * spaces (spec.c), and searches of a space (search.c). */
#ifndef KJITPY_H
#define KJITPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "kjit.h"

/* The most arguments one launch passes (a kernel with more is refused). */
#define KJITPY_MAX_ARGS 64

/* ---- module.c ---------------------------------------------------------- */

/* kjit.Error and its subclasses, created at import. */
extern PyObject *kjitpy_error;       /* kjit.Error(RuntimeError) */
extern PyObject *kjitpy_no_gpu;      /* kjit.NoGPUError(kjit.Error) */
extern PyObject *kjitpy_arg_error;   /* kjit.ArgumentError(kjit.Error, TypeError) */
extern PyObject *kjitpy_compile_err; /* kjit.CompileError(kjit.Error) */

/* Raises the exception of st with kjit's message text; returns NULL. */
PyObject *kjitpy_raise(kjit_status st, const char *message);

/* Raises kjit.ArgumentError (status KJIT_ERR_INVALID_ARG) with a message
 * formatted as PyUnicode_FromFormat(); returns NULL. */
PyObject *kjitpy_argfail(const char *format, ...);

/* A str attribute or item as UTF-8 owned by obj (NULL with an error set). */
const char *kjitpy_utf8(PyObject *obj);

/* A path given as str or os.PathLike of str, as the file system's bytes
 * (a new reference; NULL with an error set that names what); its str into
 * *text when text is not NULL (a new reference). */
PyObject *kjitpy_fspath(PyObject *obj, const char *what, PyObject **text);

/* ---- engine.c ---------------------------------------------------------- */

typedef struct kjitpy_engine {
	PyObject_HEAD
	kjit_engine *engine;
	int device;        /* its CUDA ordinal */
	kjit_power *power; /* NVML for its GPU, opened by the first gpu_sensors() */
} kjitpy_engine;

extern PyObject *kjitpy_engine_type;
int kjitpy_engine_init_type(PyObject *module);

/* ---- args.c ------------------------------------------------------------ */

/* What a kernel parameter takes. */
typedef enum kjitpy_kind {
	KJITPY_UNKNOWN = 0, /* not declared: arrays, raw pointers, NumPy scalars */
	KJITPY_PTR,
	KJITPY_I8, KJITPY_I16, KJITPY_I32, KJITPY_I64,
	KJITPY_U8, KJITPY_U16, KJITPY_U32, KJITPY_U64,
	KJITPY_F32, KJITPY_F64,
	KJITPY_N_KINDS
} kjitpy_kind;

/* The kinds by name ("ptr", "int32", "float32", ...) as a dict, for the
 * Python side's reading of parameter types; NULL with an error set. */
PyObject *kjitpy_kinds_dict(void);

/* One converted argument: the bytes the launch passes. */
typedef union kjitpy_slot {
	uint64_t u;
	double d;
	float f;
	unsigned char bytes[16];
} kjitpy_slot;

typedef struct kjitpy_launch_args {
	kjitpy_slot slot[KJITPY_MAX_ARGS];
	void *argv[KJITPY_MAX_ARGS];
	size_t size[KJITPY_MAX_ARGS];      /* bytes of each (for the check) */
	const char *type[KJITPY_MAX_ARGS]; /* its C type, for the check's table */
	size_t n;
	kjit_stream stream;
	int have_stream; /* stream decided: given, or from an array's framework */
} kjitpy_launch_args;

/* Decodes stream= (None: not given; an int; an object with
 * __cuda_stream__ or cuda_stream) into out; 0 or -1 with an error set. */
int kjitpy_stream_from(PyObject *obj, kjitpy_launch_args *out);

/* Converts args[n] for parameters of kinds[n_kinds] (missing kinds are
 * UNKNOWN); the launch stream is the one already in out when have_stream,
 * else that of the arrays' framework (PyTorch's, CuPy's current stream,
 * a CUDA Array Interface's stream), else the default stream. device is
 * the engine's ordinal; arrays on another device are refused. 0 or -1
 * with an error naming the argument. */
int kjitpy_convert_args(PyObject *const *args, size_t n, const unsigned char *kinds,
                        size_t n_kinds, int device, kjitpy_launch_args *out);

/* pointers((arrays...), device=0, stream=None) -> ((addresses...), stream):
 * what a launch would pass for each array, and on which stream. */
PyObject *kjitpy_pointers(PyObject *module, PyObject *args);

/* Interns the names the conversions look up (import); 0 or -1. */
int kjitpy_args_init(void);

/* Clears the names and the per-type cache (module teardown). */
void kjitpy_args_clear(void);

/* ---- kernel.c ---------------------------------------------------------- */

extern PyObject *kjitpy_kernel_type;
int kjitpy_kernel_init_type(PyObject *module);

/* ---- spec.c ------------------------------------------------------------ */

/* kjit.Spec, kjit.Space and kjit.SpaceCount, added to the module; 0 or -1. */
extern PyObject *kjitpy_spec_type;
extern PyObject *kjitpy_space_type;
int kjitpy_spec_init_types(PyObject *module);
/* The library's space of a kjit.Space, and its spec into *spec (borrowed:
 * the object owns both). */
kjit_space *kjitpy_space_of(PyObject *space, const kjit_spec **spec);

/* ---- search.c ---------------------------------------------------------- */

/* kjit.Search, kjit.strategies() and kjit.SEARCH_WAIT, added to the
 * module; 0 or -1. */
extern PyObject *kjitpy_search_type;
int kjitpy_search_init(PyObject *module);
/* Space.search(strategy=None, *, settings=None, budget=0, seed=1,
 * limited=None): a new kjit.Search of the kjit.Space space. */
PyObject *kjitpy_search_new(PyObject *space, PyObject *args, PyObject *kw);

#endif
