/* kernel.c - kjit.Kernel: a plain kernel (one variant, launched with a
 * grid and a block) or a tunable one (launched by problem through
 * kjit_launch(), which picks the variant from the store). */
#include "kjitpy.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include <structmember.h>

/* The most problem sizes a launch remembers to skip the GIL's release. */
#define MAX_PROBLEM 8

/* A call of a kernel is a vectorcall (PEP 590: no tuple of its arguments
 * is made). The flag and the function type are in the limited API from
 * 3.12 on; their values are those of 3.8 on, and PyType_FromSpec reads
 * __vectorcalloffset__ from 3.9 on. */
#define TPFLAGS_HAVE_VECTORCALL (1UL << 11)
#define VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1))
typedef PyObject *(*vectorcall_fn)(PyObject *, PyObject *const *, size_t, PyObject *);

typedef struct kjitpy_kernel {
	PyObject_HEAD
	vectorcall_fn vectorcall; /* kernel_vectorcall */
	kjitpy_engine *engine; /* a reference: the engine outlives the kernel */
	kjit_kernel *k;
	int device;
	int tunable, from_spec;
	PyObject *keep;           /* what desc's strings point into (a tuple) */
	kjit_define *defines;     /* plain: the variant's -D */
	size_t n_defines;
	const char **flags;
	size_t n_flags;
	kjit_variant *variant;    /* plain: once obtained */
	unsigned char kinds[KJITPY_MAX_ARGS];
	size_t n_kinds;           /* 0: no declared parameter types */
	PyObject *argnames;       /* tuple of str, or NULL */
	int expected;             /* kjit_kernel_expect_args() was called */
	size_t n_expected;
	int64_t last[MAX_PROBLEM]; /* the problem launched last */
	size_t n_last;
} kjitpy_kernel;

PyObject *kjitpy_kernel_type;

static PyObject *kernel_vectorcall(PyObject *obj, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames);

static kjitpy_kernel *kernel_alloc(PyObject *engine, PyObject *kinds, PyObject *argnames)
{
	if (!PyObject_TypeCheck(engine, (PyTypeObject *)kjitpy_engine_type)) {
		PyErr_SetString(PyExc_TypeError, "engine: expected a kjit.Engine");
		return NULL;
	}
	char *kb = NULL;
	Py_ssize_t nk = 0;
	if (kinds != Py_None && PyBytes_AsStringAndSize(kinds, &kb, &nk) < 0)
		return NULL;
	if (nk > KJITPY_MAX_ARGS) {
		kjitpy_argfail("%zd parameters: a launch passes at most %d", nk,
		             KJITPY_MAX_ARGS);
		return NULL;
	}
	kjitpy_kernel *self = (kjitpy_kernel *)PyType_GenericAlloc(
		(PyTypeObject *)kjitpy_kernel_type, 0);
	if (!self)
		return NULL;
	self->vectorcall = kernel_vectorcall;
	Py_INCREF(engine);
	self->engine = (kjitpy_engine *)engine;
	self->device = self->engine->device;
	memcpy(self->kinds, kb ? kb : "", (size_t)nk);
	self->n_kinds = (size_t)nk;
	if (argnames != Py_None) {
		Py_INCREF(argnames);
		self->argnames = argnames;
	}
	return self;
}

static void kernel_dealloc(PyObject *obj)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	PyTypeObject *type = Py_TYPE(obj);
	PyMem_Free(self->defines);
	PyMem_Free(self->flags);
	Py_XDECREF(self->keep);
	Py_XDECREF(self->argnames);
	Py_XDECREF(self->engine); /* closes the engine after its last kernel */
	freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
	tp_free(obj);
	Py_DECREF(type);
}

static PyObject *fail(kjitpy_kernel *self, kjit_status st)
{
	return kjitpy_raise(st, kjit_engine_last_error(self->engine->engine));
}

/* A list or tuple of str as a PyMem array of UTF-8 pointers owned by the
 * strings (kept alive by the caller). */
static const char **utf8_list(PyObject *seq, size_t *n)
{
	Py_ssize_t len = PySequence_Size(seq);
	if (len < 0)
		return NULL;
	const char **out = PyMem_Calloc((size_t)len + 1, sizeof *out);
	if (!out)
		return (const char **)PyErr_NoMemory();
	for (Py_ssize_t i = 0; i < len; i++) {
		PyObject *item = PySequence_GetItem(seq, i);
		out[i] = item ? kjitpy_utf8(item) : NULL;
		Py_XDECREF(item); /* seq holds it */
		if (!out[i]) {
			PyMem_Free(out);
			return NULL;
		}
	}
	*n = (size_t)len;
	return out;
}

static int kernel_options(PyObject *include_dirs, kjit_kernel_options *o, const char ***dirs)
{
	kjit_kernel_options_init(o);
	*dirs = NULL;
	if (include_dirs == Py_None)
		return 0;
	*dirs = utf8_list(include_dirs, &o->n_include_dirs);
	o->include_dirs = *dirs;
	return *dirs ? 0 : -1;
}

/* plain(engine, name, source, path, defines, flags, include_dirs, kinds, argnames):
 * defines is a sequence of (name, value-or-None) of str, and names the
 * kernel's tunable parameters. */
static int plain_defines(kjitpy_kernel *self, PyObject *defines, const char ***names)
{
	Py_ssize_t n = PySequence_Size(defines);
	if (n < 0)
		return -1;
	self->defines = PyMem_Calloc((size_t)n + 1, sizeof *self->defines);
	*names = PyMem_Calloc((size_t)n + 1, sizeof **names);
	if (!self->defines || !*names) {
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *pair = PySequence_GetItem(defines, i);
		if (!pair)
			return -1;
		PyObject *name = PyTuple_Check(pair) && PyTuple_Size(pair) == 2
		                 ? PyTuple_GetItem(pair, 0) : NULL;
		PyObject *value = name ? PyTuple_GetItem(pair, 1) : NULL;
		Py_DECREF(pair); /* defines holds it */
		if (!name) {
			PyErr_SetString(PyExc_TypeError, "defines: expected (name, value) pairs");
			return -1;
		}
		self->defines[i].name = kjitpy_utf8(name);
		self->defines[i].value = value == Py_None ? NULL : kjitpy_utf8(value);
		if (!self->defines[i].name || (value != Py_None && !self->defines[i].value))
			return -1;
		(*names)[i] = self->defines[i].name;
	}
	self->n_defines = (size_t)n;
	return 0;
}

static PyObject *kernel_plain(PyObject *unused, PyObject *args)
{
	PyObject *engine, *defines, *flags, *dirs, *kinds, *argnames;
	const char *name, *source, *path;
	if (!PyArg_ParseTuple(args, "OszzOOOOO:plain", &engine, &name, &source, &path, &defines,
	                      &flags, &dirs, &kinds, &argnames))
		return NULL;
	kjitpy_kernel *self = kernel_alloc(engine, kinds, argnames);
	if (!self)
		return NULL;
	self->keep = Py_BuildValue("(OO)", defines, flags);
	const char **names = NULL, **dirlist = NULL;
	kjit_kernel_options o;
	if (!self->keep || plain_defines(self, defines, &names) < 0 ||
	    !(self->flags = utf8_list(flags, &self->n_flags)) ||
	    kernel_options(dirs, &o, &dirlist) < 0) {
		PyMem_Free(names);
		Py_DECREF(self);
		return NULL;
	}
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_kernel_create_with(self->engine->engine, name, source, path, names,
	                             self->n_defines, &o, &self->k);
	Py_END_ALLOW_THREADS
	PyMem_Free(names);
	PyMem_Free(dirlist);
	if (st != KJIT_OK) {
		fail(self, st);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

/* One parameter of a tunable description: (name, [values], default, roles). */
static int tunable_param(PyObject *item, kjit_param *p)
{
	PyObject *name, *values;
	Py_ssize_t def;
	unsigned int roles;
	if (!PyTuple_Check(item)) {
		PyErr_SetString(PyExc_TypeError, "param: expected (name, values, default, roles)");
		return -1;
	}
	if (!PyArg_ParseTuple(item, "OOnI:param", &name, &values, &def, &roles))
		return -1;
	p->name = kjitpy_utf8(name);
	p->values = (const char *const *)utf8_list(values, &p->n_values);
	p->default_index = (size_t)def;
	p->roles = roles;
	return p->name && p->values ? 0 : -1;
}

static void free_params(kjit_param *params, size_t n)
{
	for (size_t i = 0; params && i < n; i++)
		PyMem_Free((void *)params[i].values);
	PyMem_Free(params);
}

static int tunable_desc(PyObject *d, kjit_tunable_desc *desc, kjit_param **params)
{
	PyObject *entry, *params_seq, *restr, *grid, *flags, *problem;
	const char *source, *path, *shared;
	if (!PyTuple_Check(d)) {
		PyErr_SetString(PyExc_TypeError, "desc: expected a tuple");
		return -1;
	}
	if (!PyArg_ParseTuple(d, "OzzOOOzOO:desc", &entry, &source, &path, &params_seq, &restr,
	                      &grid, &shared, &flags, &problem))
		return -1;
	memset(desc, 0, sizeof *desc);
	desc->entry = kjitpy_utf8(entry);
	desc->source = source;
	desc->source_path = path;
	desc->shared = shared;
	Py_ssize_t n = PySequence_Size(params_seq);
	if (!desc->entry || n < 0)
		return -1;
	*params = PyMem_Calloc((size_t)n + 1, sizeof **params);
	if (!*params) {
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *item = PySequence_GetItem(params_seq, i);
		int rc = item ? tunable_param(item, &(*params)[i]) : -1;
		Py_XDECREF(item);
		desc->n_params = (size_t)i + 1;
		if (rc < 0)
			return -1;
	}
	desc->params = *params;
	size_t ng = 0;
	const char **g = utf8_list(grid, &ng);
	if (!g)
		return -1;
	for (size_t i = 0; i < 3; i++)
		desc->grid[i] = i < ng ? g[i] : NULL;
	PyMem_Free(g);
	return (desc->restrictions = (const char *const *)utf8_list(restr, &desc->n_restrictions)) &&
	       (desc->flags = (const char *const *)utf8_list(flags, &desc->n_flags)) &&
	       (desc->problem_names = (const char *const *)utf8_list(problem, &desc->n_problem))
	       ? 0 : -1;
}

/* tunable(engine, desc, include_dirs, kinds, argnames); desc is
 * (entry, source, path, params, restrictions, grid, shared, flags, problem). */
static PyObject *kernel_tunable(PyObject *unused, PyObject *args)
{
	PyObject *engine, *d, *dirs, *kinds, *argnames;
	if (!PyArg_ParseTuple(args, "OOOOO:tunable", &engine, &d, &dirs, &kinds, &argnames))
		return NULL;
	kjitpy_kernel *self = kernel_alloc(engine, kinds, argnames);
	if (!self)
		return NULL;
	kjit_tunable_desc desc;
	memset(&desc, 0, sizeof desc); /* freed below whatever tunable_desc() reached */
	kjit_param *params = NULL;
	kjit_kernel_options o;
	const char **dirlist = NULL;
	kjit_status st = KJIT_ERR_INVALID_ARG;
	int ok = tunable_desc(d, &desc, &params) == 0 && kernel_options(dirs, &o, &dirlist) == 0;
	if (ok) {
		desc.options = &o;
		Py_BEGIN_ALLOW_THREADS
		st = kjit_kernel_create_tunable(self->engine->engine, &desc, &self->k);
		Py_END_ALLOW_THREADS
	}
	free_params(params, desc.n_params);
	PyMem_Free((void *)desc.restrictions);
	PyMem_Free((void *)desc.flags);
	PyMem_Free((void *)desc.problem_names);
	PyMem_Free(dirlist);
	if (ok && st != KJIT_OK)
		fail(self, st);
	if (!ok || st != KJIT_OK) {
		Py_DECREF(self);
		return NULL;
	}
	self->tunable = 1;
	return (PyObject *)self;
}

static PyObject *kernel_spec(PyObject *unused, PyObject *args)
{
	PyObject *engine, *kinds, *argnames;
	const char *path;
	if (!PyArg_ParseTuple(args, "OsOO:spec", &engine, &path, &kinds, &argnames))
		return NULL;
	kjitpy_kernel *self = kernel_alloc(engine, kinds, argnames);
	if (!self)
		return NULL;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_kernel_create_from_spec(self->engine->engine, path, &self->k);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK) {
		fail(self, st);
		Py_DECREF(self);
		return NULL;
	}
	self->tunable = self->from_spec = self->expected = 1; /* the spec's arguments */
	return (PyObject *)self;
}

/* ---- launching ------------------------------------------------------- */

static int dims(PyObject *obj, const char *what, unsigned out[3])
{
	out[0] = out[1] = out[2] = 1;
	if (PyLong_Check(obj)) {
		unsigned long v = PyLong_AsUnsignedLong(obj);
		if (PyErr_Occurred() || v == 0 || v > UINT32_MAX)
			goto bad;
		out[0] = (unsigned)v;
		return 0;
	}
	Py_ssize_t n = PyTuple_Check(obj) ? PyTuple_Size(obj) : -1;
	if (n < 1 || n > 3)
		goto bad;
	for (Py_ssize_t i = 0; i < n; i++) {
		unsigned long v = PyLong_AsUnsignedLong(PyTuple_GetItem(obj, i));
		if (PyErr_Occurred() || v == 0 || v > UINT32_MAX)
			goto bad;
		out[i] = (unsigned)v;
	}
	return 0;
bad:
	PyErr_Clear();
	PyErr_Format(PyExc_ValueError, "%s=%R: expected a positive int or a tuple of 1 to 3",
	             what, obj);
	return -1;
}

static int problem_of(kjitpy_kernel *self, PyObject *obj, int64_t *p, size_t *n)
{
	size_t want = 0;
	kjit_kernel_problem_names(self->k, &want);
	Py_ssize_t len = PyLong_Check(obj) ? 1 : PyTuple_Check(obj) ? PyTuple_Size(obj) : -1;
	if (len < 0 || (size_t)len != want || want > MAX_PROBLEM) {
		PyErr_Format(PyExc_ValueError, "problem=%R: expected %zu size%s (as a tuple)", obj,
		             want, want == 1 ? "" : "s");
		return -1;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		p[i] = PyLong_AsLongLong(PyLong_Check(obj) ? obj : PyTuple_GetItem(obj, i));
		if (p[i] == -1 && PyErr_Occurred())
			return -1;
	}
	*n = (size_t)len;
	return 0;
}

/* Before the first variant loads: the arguments of this launch become
 * those the variants' parameters are checked against. */
static int expect(kjitpy_kernel *self, const kjitpy_launch_args *a)
{
	if (self->expected) {
		if (self->from_spec || a->n == self->n_expected)
			return 0;
		kjitpy_argfail("%zu arguments; this kernel takes %zu", a->n,
		             self->n_expected);
		return -1;
	}
	kjit_arg list[KJITPY_MAX_ARGS];
	char names[KJITPY_MAX_ARGS][16];
	for (size_t i = 0; i < a->n; i++) {
		PyObject *nm = self->argnames && (Py_ssize_t)i < PyTuple_Size(self->argnames)
		               ? PyTuple_GetItem(self->argnames, (Py_ssize_t)i) : NULL;
		snprintf(names[i], sizeof names[i], "arg%zu", i);
		list[i].name = nm ? kjitpy_utf8(nm) : names[i];
		if (!list[i].name)
			return -1;
		list[i].type = a->type[i];
		list[i].size = a->size[i];
	}
	kjit_status st = kjit_kernel_expect_args(self->k, list, a->n);
	if (st != KJIT_OK) {
		fail(self, st);
		return -1;
	}
	self->expected = 1;
	self->n_expected = a->n;
	return 0;
}

static kjit_status plain_variant(kjitpy_kernel *self)
{
	kjit_variant_desc d = {self->defines, self->n_defines, self->flags, self->n_flags};
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_variant_get(self->k, &d, &self->variant, NULL);
	Py_END_ALLOW_THREADS
	return st;
}

typedef struct call_kw {
	PyObject *stream, *shared;
} call_kw;

static int parse_kw(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, call_kw *kw)
{
	kw->stream = kw->shared = NULL;
	Py_ssize_t nk = kwnames ? PyTuple_Size(kwnames) : 0;
	for (Py_ssize_t i = 0; i < nk; i++) {
		PyObject *key = PyTuple_GetItem(kwnames, i);
		const char *s = kjitpy_utf8(key);
		if (!s)
			return -1;
		if (strcmp(s, "stream") == 0)
			kw->stream = args[nargs + i];
		else if (strcmp(s, "shared_mem") == 0)
			kw->shared = args[nargs + i];
		else {
			PyErr_Format(PyExc_TypeError, "unexpected keyword argument %R (stream= and "
			             "shared_mem= are known)", key);
			return -1;
		}
	}
	return 0;
}

static PyObject *launch_plain(kjitpy_kernel *self, PyObject *const *args, Py_ssize_t nargs,
                              const call_kw *kw, kjitpy_launch_args *a)
{
	unsigned grid[3], block[3], shared = 0;
	if (nargs < 2) {
		PyErr_SetString(PyExc_TypeError, "kernel(grid, block, *args, stream=None, "
		                "shared_mem=0): grid and block are required");
		return NULL;
	}
	if (dims(args[0], "grid", grid) < 0 || dims(args[1], "block", block) < 0)
		return NULL;
	if (kw->shared) {
		unsigned long v = PyLong_AsUnsignedLong(kw->shared);
		if (PyErr_Occurred() || v > UINT32_MAX)
			return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "shared_mem too large");
		shared = (unsigned)v;
	}
	if (kjitpy_convert_args(args + 2, (size_t)(nargs - 2), self->kinds, self->n_kinds,
	                        self->device, a) < 0 || expect(self, a) < 0)
		return NULL;
	kjit_status st = self->variant ? KJIT_OK : plain_variant(self);
	if (st == KJIT_OK)
		st = kjit_variant_launch(self->variant, grid, block, shared, a->stream, a->argv);
	if (st != KJIT_OK)
		return fail(self, st);
	Py_RETURN_NONE;
}

static PyObject *launch_tunable(kjitpy_kernel *self, PyObject *const *args, Py_ssize_t nargs,
                                const call_kw *kw, kjitpy_launch_args *a)
{
	int64_t p[MAX_PROBLEM];
	size_t n = 0;
	if (nargs < 1) {
		PyErr_SetString(PyExc_TypeError, "kernel(problem, *args, stream=None): the problem "
		                "is required");
		return NULL;
	}
	if (kw->shared) {
		PyErr_SetString(PyExc_TypeError, "shared_mem=: a tunable kernel's shared memory "
		                "comes from its description");
		return NULL;
	}
	if (problem_of(self, args[0], p, &n) < 0 ||
	    kjitpy_convert_args(args + 1, (size_t)(nargs - 1), self->kinds, self->n_kinds,
	                        self->device, a) < 0 || expect(self, a) < 0)
		return NULL;
	kjit_status st;
	if (n == self->n_last && memcmp(p, self->last, n * sizeof *p) == 0) {
		st = kjit_launch(self->k, p, n, a->argv, a->stream); /* memoised: no compile */
	} else {
		Py_BEGIN_ALLOW_THREADS
		st = kjit_launch(self->k, p, n, a->argv, a->stream);
		Py_END_ALLOW_THREADS
		if (st == KJIT_OK) {
			memcpy(self->last, p, n * sizeof *p);
			self->n_last = n;
		}
	}
	if (st != KJIT_OK)
		return fail(self, st);
	Py_RETURN_NONE;
}

static PyObject *kernel_launch(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	call_kw kw;
	kjitpy_launch_args a;
	if (parse_kw(args, nargs, kwnames, &kw) < 0 || kjitpy_stream_from(kw.stream, &a) < 0)
		return NULL;
	return self->tunable ? launch_tunable(self, args, nargs, &kw, &a)
	                     : launch_plain(self, args, nargs, &kw, &a);
}

static PyObject *kernel_vectorcall(PyObject *obj, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames)
{
	return kernel_launch(obj, args, (Py_ssize_t)(nargsf & ~VECTORCALL_ARGUMENTS_OFFSET),
	                     kwnames);
}

/* A call through PyObject_Call() (a tuple and a dict), as a vectorcall. */
static PyObject *kernel_call(PyObject *obj, PyObject *args, PyObject *kw)
{
	PyObject *stack[KJITPY_MAX_ARGS + 4];
	Py_ssize_t n = PyTuple_Size(args), nk = kw ? PyDict_Size(kw) : 0;
	if (n + nk > KJITPY_MAX_ARGS + 4) {
		kjitpy_argfail("%zd arguments: a launch passes at most %d", n,
		             KJITPY_MAX_ARGS);
		return NULL;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		stack[i] = PyTuple_GetItem(args, i);
	PyObject *names = nk ? PyTuple_New(nk) : NULL;
	if (nk && !names)
		return NULL;
	PyObject *key, *value;
	Py_ssize_t pos = 0, j = 0;
	while (nk && PyDict_Next(kw, &pos, &key, &value)) {
		Py_INCREF(key);
		PyTuple_SetItem(names, j, key);
		stack[n + j++] = value;
	}
	PyObject *r = kernel_launch(obj, stack, n, names);
	Py_XDECREF(names);
	return r;
}

/* ---- compile-only paths and introspection ------------------------------ */

static PyObject *variant_dict(kjit_variant *v)
{
	kjit_variant_info info;
	kjit_status st = kjit_variant_get_info(v, &info);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	return Py_BuildValue("{sssssssnsdsisisiss}", "key", info.key, "options", info.options,
	                     "lowered_name", info.lowered_name, "binary_size",
	                     (Py_ssize_t)info.cubin_size, "compile_ms", info.compile_ms,
	                     "registers", info.num_regs, "max_threads_per_block",
	                     info.max_threads_per_block, "static_shared_bytes",
	                     info.static_shared_bytes, "arch", info.arch);
}

static PyObject *kernel_compile(PyObject *obj, PyObject *unused)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	if (self->tunable) {
		PyErr_SetString(PyExc_TypeError, "compile(): a tunable kernel compiles the variant "
		                "its problem selects (explain() says which)");
		return NULL;
	}
	kjit_status st = self->variant ? KJIT_OK : plain_variant(self);
	if (st != KJIT_OK)
		return fail(self, st);
	return variant_dict(self->variant);
}

/* _c_launches(count, problem, *args, stream=None) -> seconds: count
 * kjit_launch() calls from C with the arguments converted once, the C
 * side of the launch benchmark (bench/python-launch.py). */
static PyObject *kernel_c_launches(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	call_kw kw;
	kjitpy_launch_args a;
	int64_t p[MAX_PROBLEM];
	size_t n = 0;
	long count = nargs >= 2 ? PyLong_AsLong(args[0]) : -1;
	if (!self->tunable || count < 1)
		return PyErr_Occurred() ? NULL
		       : kjitpy_argfail("_c_launches(count, problem, *args): a tunable kernel");
	if (parse_kw(args, nargs, kwnames, &kw) < 0 || kjitpy_stream_from(kw.stream, &a) < 0 ||
	    problem_of(self, args[1], p, &n) < 0 ||
	    kjitpy_convert_args(args + 2, (size_t)(nargs - 2), self->kinds, self->n_kinds,
	                        self->device, &a) < 0 || expect(self, &a) < 0)
		return NULL;
	struct timespec t0, t1;
	kjit_status st = KJIT_OK;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < count && st == KJIT_OK; i++)
		st = kjit_launch(self->k, p, n, a.argv, a.stream);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (st != KJIT_OK)
		return fail(self, st);
	return PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
}

static PyObject *kernel_set_symbol(PyObject *obj, PyObject *args)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	const char *name, *data;
	Py_ssize_t n;
	if (!PyArg_ParseTuple(args, "sy#:set_symbol", &name, &data, &n))
		return NULL;
	kjit_status st = kjit_kernel_set_symbol(self->k, name, data, (size_t)n);
	if (st != KJIT_OK)
		return fail(self, st);
	Py_RETURN_NONE;
}

/* measure((budget_ms, min_samples, warmup_ms), grid, block, *args,
 * stream=None, shared_mem=0): the GPU time of a plain kernel's launch, as
 * kjit_variant_measure() gives it (CUPTI, else CUDA events); an option of
 * None keeps kjit's default. */
static int measure_options(PyObject *t, kjit_measure_options *mo)
{
	kjit_measure_options_init(mo);
	PyObject *budget, *samples, *warmup;
	if (!PyArg_ParseTuple(t, "OOO:measure options", &budget, &samples, &warmup))
		return -1;
	if (budget != Py_None)
		mo->budget_ms = PyFloat_AsDouble(budget);
	if (samples != Py_None)
		mo->min_samples = (unsigned)PyLong_AsUnsignedLong(samples);
	if (warmup != Py_None)
		mo->warmup_ms = PyFloat_AsDouble(warmup);
	return PyErr_Occurred() ? -1 : 0;
}

static PyObject *measurement_dict(const kjit_measurement *m)
{
	PyObject *samples = PyList_New((Py_ssize_t)m->n_samples);
	for (size_t i = 0; samples && i < m->n_samples; i++)
		PyList_SetItem(samples, (Py_ssize_t)i, PyFloat_FromDouble(m->samples_ns[i]));
	return samples ? Py_BuildValue("{sdsdsdsdsdsdsNssss}", "median_ns", m->median_ns,
	                               "spread_ns", m->spread_ns, "min_ns", m->min_ns,
	                               "max_ns", m->max_ns, "ci_low_ns", m->ci_low_ns,
	                               "ci_high_ns", m->ci_high_ns, "samples_ns", samples,
	                               "timer", m->timer, "stop", m->stop) : NULL;
}

/* A plain kernel's (options, grid, block, *args, stream=, shared_mem=)
 * call of _measure() and _profile(), converted, with its variant ready. */
typedef struct plain_call {
	unsigned grid[3], block[3], shared;
	kjitpy_launch_args a;
} plain_call;

static int plain_call_read(kjitpy_kernel *self, const char *what, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames, plain_call *c)
{
	call_kw kw;
	c->shared = 0;
	if (self->tunable || nargs < 3) {
		kjitpy_argfail("%s(options, grid, block, *args): a plain kernel", what);
		return -1;
	}
	if (parse_kw(args + 1, nargs - 1, kwnames, &kw) < 0 ||
	    kjitpy_stream_from(kw.stream, &c->a) < 0 || dims(args[1], "grid", c->grid) < 0 ||
	    dims(args[2], "block", c->block) < 0 ||
	    (kw.shared && (c->shared = (unsigned)PyLong_AsUnsignedLong(kw.shared),
	                   PyErr_Occurred())) ||
	    kjitpy_convert_args(args + 3, (size_t)(nargs - 3), self->kinds, self->n_kinds,
	                        self->device, &c->a) < 0 || expect(self, &c->a) < 0)
		return -1;
	kjit_status st = self->variant ? KJIT_OK : plain_variant(self);
	if (st != KJIT_OK) {
		fail(self, st);
		return -1;
	}
	return 0;
}

static PyObject *kernel_measure(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	kjit_measure_options mo;
	plain_call c;
	if (nargs < 1 || measure_options(args[0], &mo) < 0 ||
	    plain_call_read(self, "_measure", args, nargs, kwnames, &c) < 0)
		return PyErr_Occurred() ? NULL : kjitpy_argfail("_measure(options, ...)");
	kjit_measurement m;
	memset(&m, 0, sizeof m);
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_variant_measure(self->variant, c.grid, c.block, c.shared, c.a.stream, c.a.argv,
	                          &mo, &m);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK)
		return fail(self, st);
	PyObject *r = measurement_dict(&m);
	kjit_measurement_free(&m);
	return r;
}

/* Every figure of p (kjit_profile_fields(): an integer as int, NaN where
 * unknown) and its two reasons, as a new dict. */
static PyObject *profile_dict(const kjit_profile *p)
{
	size_t n;
	const kjit_profile_field *f = kjit_profile_fields(&n);
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && i < n; i++) {
		double v = kjit_profile_get(p, i);
		PyObject *x = f[i].integer && !isnan(v) ? PyLong_FromDouble(v) : PyFloat_FromDouble(v);
		if (!x || PyDict_SetItemString(d, f[i].name, x) < 0)
			Py_CLEAR(d);
		Py_XDECREF(x);
	}
	const char *reasons[][2] = { { "counters_reason", p->counters_reason },
		                     { "energy_reason", p->energy_reason } };
	for (size_t i = 0; d && i < 2; i++) {
		PyObject *x = PyUnicode_FromString(reasons[i][1] ? reasons[i][1] : "");
		if (!x || PyDict_SetItemString(d, reasons[i][0], x) < 0)
			Py_CLEAR(d);
		Py_XDECREF(x);
	}
	return d;
}

/* _profile((counters, energy, energy_ms), grid, block, *args, ...): what
 * kjit_variant_profile() reads of one launch; NaN where it could not. */
static PyObject *kernel_profile(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	kjit_profile_options po;
	kjit_profile_options_init(&po);
	PyObject *ms = Py_None;
	plain_call c;
	if (nargs < 1 || !PyTuple_Check(args[0]) ||
	    !PyArg_ParseTuple(args[0], "ii|O:profile options", &po.counters, &po.energy, &ms) ||
	    (ms != Py_None && (po.energy_ms = PyFloat_AsDouble(ms), PyErr_Occurred())) ||
	    plain_call_read(self, "_profile", args, nargs, kwnames, &c) < 0)
		return PyErr_Occurred() ? NULL : kjitpy_argfail("_profile(options, ...)");
	kjit_profile p;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_variant_profile(self->variant, c.grid, c.block, c.shared, c.a.stream, c.a.argv,
	                          &po, &p);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK)
		return fail(self, st);
	return profile_dict(&p);
}

static PyObject *kernel_explain(PyObject *obj, PyObject *problem)
{
	kjitpy_kernel *self = (kjitpy_kernel *)obj;
	if (!self->tunable) {
		PyErr_SetString(PyExc_TypeError, "explain(): only a tunable kernel selects a variant");
		return NULL;
	}
	int64_t p[MAX_PROBLEM];
	size_t n = 0;
	kjit_explanation x;
	if (problem_of(self, problem, p, &n) < 0)
		return NULL;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_explain(self->k, p, n, &x);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK)
		return fail(self, st);
	return Py_BuildValue("{sssssdsOsOssss}", "rule", x.rule, "config", x.config,
	                     "median_ns", x.median_ns, "stale", x.stale ? Py_True : Py_False,
	                     "tuning", x.tuning ? Py_True : Py_False, "problem", x.problem,
	                     "device_key", x.device_key);
}

static PyObject *get_signature(PyObject *obj, void *unused)
{
	return PyUnicode_FromString(kjit_kernel_signature(((kjitpy_kernel *)obj)->k));
}

static PyObject *get_problem_names(PyObject *obj, void *unused)
{
	size_t n = 0;
	const char *const *names = kjit_kernel_problem_names(((kjitpy_kernel *)obj)->k, &n);
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		PyObject *s = PyUnicode_FromString(names[i]);
		if (!s) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SetItem(t, (Py_ssize_t)i, s);
	}
	return t;
}

static PyObject *get_engine(PyObject *obj, void *unused)
{
	PyObject *e = (PyObject *)((kjitpy_kernel *)obj)->engine;
	Py_INCREF(e);
	return e;
}

static PyObject *get_tunable(PyObject *obj, void *unused)
{
	return PyBool_FromLong(((kjitpy_kernel *)obj)->tunable);
}

static PyGetSetDef kernel_getset[] = {
	{"signature", get_signature, NULL, "The kernel signature (32 hex digits), the key of "
	 "its tuned rows in the store.", NULL},
	{"problem_names", get_problem_names, NULL, "The problem sizes, in launch order "
	 "(() for a plain kernel).", NULL},
	{"engine", get_engine, NULL, "The kjit.Engine the kernel belongs to.", NULL},
	{"tunable", get_tunable, NULL, "True when launched by problem.", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef kernel_methods[] = {
	{"launch", (PyCFunction)(void (*)(void))kernel_launch, METH_FASTCALL | METH_KEYWORDS,
	 "launch(grid, block, *args, stream=None, shared_mem=0) for a plain kernel,\n"
	 "launch(problem, *args, stream=None) for a tunable one: as calling the kernel."},
	{"compile", kernel_compile, METH_NOARGS,
	 "compile() -> dict\n\nCompiles (or finds in the store) a plain kernel's variant "
	 "without launching;\nworks without a GPU. Returns the variant's key, options, "
	 "binary size, ..."},
	{"set_symbol", kernel_set_symbol, METH_VARARGS,
	 "set_symbol(name, data: bytes) -> None\n\nSets the __constant__ or __device__ "
	 "variable name of every variant\n(loaded now or later) to data."},
	{"_c_launches", (PyCFunction)(void (*)(void))kernel_c_launches,
	 METH_FASTCALL | METH_KEYWORDS, NULL},
	{"_profile", (PyCFunction)(void (*)(void))kernel_profile, METH_FASTCALL | METH_KEYWORDS,
	 NULL},
	{"_measure", (PyCFunction)(void (*)(void))kernel_measure, METH_FASTCALL | METH_KEYWORDS,
	 NULL},
	{"explain", kernel_explain, METH_O,
	 "explain(problem) -> dict\n\nWhat a launch of this problem runs and why: the rule "
	 "('exact', 'nearest',\n'same_arch', 'default', 'online'), the configuration (JSON), "
	 "its stored median\nin ns, the problem and device it was tuned on. Works without a GPU."},
	{"_plain", kernel_plain, METH_VARARGS | METH_STATIC, NULL},
	{"_tunable", kernel_tunable, METH_VARARGS | METH_STATIC, NULL},
	{"_spec", kernel_spec, METH_VARARGS | METH_STATIC, NULL},
	{NULL, NULL, 0, NULL}
};

static PyMemberDef kernel_members[] = {
	{"__vectorcalloffset__", T_PYSSIZET, offsetof(kjitpy_kernel, vectorcall), READONLY, NULL},
	{NULL, 0, 0, 0, NULL}
};

static PyType_Slot kernel_slots[] = {
	{Py_tp_dealloc, (void *)kernel_dealloc},
	{Py_tp_call, (void *)kernel_call},
	{Py_tp_members, kernel_members},
	{Py_tp_getset, kernel_getset},
	{Py_tp_methods, kernel_methods},
	{Py_tp_doc, (void *)
	 "A kjit kernel; made by kjit.kernel(), kjit.tunable() or kjit.from_spec().\n\n"
	 "Plain:   k(grid, block, *args, stream=None, shared_mem=0)\n"
	 "Tunable: k(problem, *args, stream=None) runs the best variant the store\n"
	 "         knows for this GPU and problem (the nearest tuned problem else).\n\n"
	 "Arrays are passed by pointer, never copied: PyTorch tensors, objects with\n"
	 "__cuda_array_interface__ (CuPy, Numba, JAX), or __dlpack__; they must be\n"
	 "contiguous and on the engine's device. None is a NULL pointer. Numbers are\n"
	 "converted to the parameter types (argtypes, or read from the source).\n"
	 "stream: an int handle or an object with __cuda_stream__; None: the current\n"
	 "stream of the arrays' framework (PyTorch, CuPy, a CUDA Array Interface's\n"
	 "stream), else the default stream. With stream= given, arrays read through\n"
	 "DLPack are ordered on it by their producer; others must be ready on it (as\n"
	 "CuPy's RawKernel assumes). Asynchronous, as a CUDA launch."},
	{0, NULL}
};

static PyType_Spec kernel_spec_def = {
	"kjit.Kernel", sizeof(kjitpy_kernel), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION | TPFLAGS_HAVE_VECTORCALL,
	kernel_slots
};

int kjitpy_kernel_init_type(PyObject *module)
{
	kjitpy_kernel_type = PyType_FromSpec(&kernel_spec_def);
	if (!kjitpy_kernel_type)
		return -1;
	Py_INCREF(kjitpy_kernel_type);
	PyObject *kinds = kjitpy_kinds_dict();
	if (PyModule_AddObject(module, "Kernel", kjitpy_kernel_type) < 0 || !kinds ||
	    PyModule_AddObject(module, "KINDS", kinds) < 0) {
		Py_XDECREF(kinds);
		Py_DECREF(kjitpy_kernel_type);
		return -1;
	}
	return 0;
}
