/* spec.c - kjit.Spec and kjit.Space: a spec file (kjit's or Kernel Tuner's
 * T1) read by the C library as kjit-tune reads it, its parameters and
 * problems, and its spaces counted and built (kjit_spec_*, kjit_space_*). */
#include "kjitpy.h"

#include <math.h>
#include <stdlib.h>

PyObject *kjitpy_spec_type;
PyObject *kjitpy_space_type;
static PyObject *count_type;

typedef struct spec_obj {
	PyObject_HEAD
	kjit_spec *spec;
	PyObject *path;   /* str, as given */
	PyObject *names;  /* tuple of the parameters' names */
	PyObject *values; /* tuple of each parameter's values (a tuple of int, float, str) */
} spec_obj;

typedef struct space_obj {
	PyObject_HEAD
	spec_obj *owner; /* its spec, which must outlive it */
	kjit_space *space;
	size_t problem;
} space_obj;

static PyObject *value_obj(const kjit_value *v)
{
	return v->type == KJIT_VALUE_INT ? PyLong_FromLongLong((long long)v->i)
	       : v->type == KJIT_VALUE_FLOAT ? PyFloat_FromDouble(v->d)
	                                     : PyUnicode_FromString(v->text);
}

/* self->names and self->values from the loaded spec; 0 or -1. */
static int read_params(spec_obj *self)
{
	size_t n = kjit_spec_param_count(self->spec);
	if (!(self->names = PyTuple_New((Py_ssize_t)n)) ||
	    !(self->values = PyTuple_New((Py_ssize_t)n)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		size_t nv;
		kjit_status st = kjit_spec_param(self->spec, i, &name, &nv, NULL);
		if (st != KJIT_OK) {
			kjitpy_raise(st, kjit_last_error());
			return -1;
		}
		PyObject *vals = PyTuple_New((Py_ssize_t)nv), *o = PyUnicode_FromString(name);
		if (!vals || !o) {
			Py_XDECREF(vals);
			Py_XDECREF(o);
			return -1;
		}
		PyTuple_SetItem(self->names, (Py_ssize_t)i, o);
		PyTuple_SetItem(self->values, (Py_ssize_t)i, vals);
		for (size_t j = 0; j < nv; j++) {
			kjit_value v;
			if ((st = kjit_spec_value(self->spec, i, j, &v)) != KJIT_OK) {
				kjitpy_raise(st, kjit_last_error());
				return -1;
			}
			if (!(o = value_obj(&v)))
				return -1;
			PyTuple_SetItem(vals, (Py_ssize_t)j, o);
		}
	}
	return 0;
}

static PyObject *spec_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *names[] = {"path", NULL};
	PyObject *path, *fs = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Spec", names, &path))
		return NULL;
	PyObject *text = NULL;
	if (!(fs = kjitpy_fspath(path, "Spec(path)", &text)))
		return NULL;
	spec_obj *self = (spec_obj *)PyType_GenericAlloc(type, 0);
	if (!self) {
		Py_DECREF(text);
		Py_DECREF(fs);
		return NULL;
	}
	self->path = text;
	const char *p = PyBytes_AsString(fs);
	kjit_status st = KJIT_OK;
	if (p) {
		Py_BEGIN_ALLOW_THREADS
		st = kjit_spec_load(p, &self->spec);
		Py_END_ALLOW_THREADS
	}
	Py_DECREF(fs);
	if (!p || st != KJIT_OK || read_params(self) < 0) {
		if (p && st != KJIT_OK)
			kjitpy_raise(st, kjit_last_error());
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

static void spec_dealloc(PyObject *obj)
{
	spec_obj *self = (spec_obj *)obj;
	PyTypeObject *type = Py_TYPE(obj);
	kjit_spec_free(self->spec);
	Py_XDECREF(self->path);
	Py_XDECREF(self->names);
	Py_XDECREF(self->values);
	freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
	tp_free(obj);
	Py_DECREF(type);
}

static PyObject *get_path(PyObject *obj, void *unused)
{
	spec_obj *self = (spec_obj *)obj;
	Py_INCREF(self->path);
	return self->path;
}

/* {name: f(i)} over the parameters, in their order. */
static PyObject *param_dict(spec_obj *self, PyObject *(*f)(spec_obj *, size_t))
{
	PyObject *d = PyDict_New();
	for (Py_ssize_t i = 0; d && i < PyTuple_Size(self->names); i++) {
		PyObject *v = f(self, (size_t)i);
		if (!v || PyDict_SetItem(d, PyTuple_GetItem(self->names, i), v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *values_list(spec_obj *self, size_t i)
{
	return PySequence_List(PyTuple_GetItem(self->values, (Py_ssize_t)i));
}

static PyObject *default_value(spec_obj *self, size_t i)
{
	size_t def;
	kjit_status st = kjit_spec_param(self->spec, i, NULL, NULL, &def);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	PyObject *v = PyTuple_GetItem(PyTuple_GetItem(self->values, (Py_ssize_t)i),
	                              (Py_ssize_t)def);
	Py_XINCREF(v);
	return v;
}

static PyObject *get_params(PyObject *obj, void *unused)
{
	return param_dict((spec_obj *)obj, values_list);
}

static PyObject *get_defaults(PyObject *obj, void *unused)
{
	return param_dict((spec_obj *)obj, default_value);
}

static PyObject *problem_dict(const kjit_spec *spec, size_t p)
{
	const char *const *names;
	const int64_t *values;
	size_t n;
	kjit_status st = kjit_spec_problem(spec, p, &names, &values, &n);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	PyObject *d = PyDict_New();
	for (size_t k = 0; d && k < n; k++) {
		PyObject *v = PyLong_FromLongLong((long long)values[k]);
		if (!v || PyDict_SetItemString(d, names[k], v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *get_problems(PyObject *obj, void *unused)
{
	spec_obj *self = (spec_obj *)obj;
	size_t n = kjit_spec_problem_count(self->spec);
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t p = 0; list && p < n; p++) {
		PyObject *d = problem_dict(self->spec, p);
		if (!d)
			Py_CLEAR(list);
		else
			PyList_SetItem(list, (Py_ssize_t)p, d);
	}
	return list;
}

static PyObject *get_signature(PyObject *obj, void *unused)
{
	char *sig = NULL;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_spec_signature(((spec_obj *)obj)->spec, &sig);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	PyObject *r = PyUnicode_FromString(sig);
	free(sig);
	return r;
}

static PyObject *get_warnings(PyObject *obj, void *unused)
{
	size_t n;
	const char *const *lines = kjit_spec_warnings(((spec_obj *)obj)->spec, &n);
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *s = PyUnicode_DecodeUTF8(lines[i], (Py_ssize_t)strlen(lines[i]), "replace");
		if (!s)
			Py_CLEAR(list);
		else
			PyList_SetItem(list, (Py_ssize_t)i, s);
	}
	return list;
}

/* problem=0, *, max_threads=0, max_shared=0[, sample=0, seed=0] into o. */
static int space_args(PyObject *args, PyObject *kw, int sampling, const char *fmt,
                      Py_ssize_t *problem, kjit_space_options *o)
{
	static char *names[] = {"problem", "max_threads", "max_shared", "sample", "seed", NULL};
	long long threads = 0, shared = 0, sample = 0;
	unsigned long long seed = 0;
	*problem = 0;
	kjit_space_options_init(o);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, names, problem, &threads, &shared,
	                                 &sample, &seed))
		return -1;
	if (*problem < 0 || threads < 0 || shared < 0 || sample < 0) {
		kjitpy_argfail("%s: problem, max_threads, max_shared%s must not be negative",
		               sampling ? "space()" : "count()", sampling ? " and sample" : "");
		return -1;
	}
	o->max_threads = threads;
	o->max_shared = shared;
	o->sample = (size_t)sample;
	o->seed = seed;
	return 0;
}

static PyObject *spec_count(PyObject *obj, PyObject *args, PyObject *kw)
{
	spec_obj *self = (spec_obj *)obj;
	Py_ssize_t p;
	kjit_space_options o;
	if (space_args(args, kw, 0, "|n$LL:count", &p, &o) < 0)
		return NULL;
	kjit_space_count c;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_spec_count(self->spec, (size_t)p, &o, &c);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	PyObject *r = PyStructSequence_New((PyTypeObject *)count_type);
	double fields[] = {c.valid, c.product, c.rel_error, c.upper};
	for (int i = 0; r && i < 4; i++) {
		PyObject *v = PyFloat_FromDouble(fields[i]);
		if (!v)
			Py_CLEAR(r);
		else
			PyStructSequence_SetItem(r, i == 0 ? 0 : i + 1, v);
	}
	if (r)
		PyStructSequence_SetItem(r, 1, PyBool_FromLong(c.rel_error == 0));
	return r;
}

static PyObject *spec_space(PyObject *obj, PyObject *args, PyObject *kw)
{
	spec_obj *self = (spec_obj *)obj;
	Py_ssize_t p;
	kjit_space_options o;
	if (space_args(args, kw, 1, "|n$LLLK:space", &p, &o) < 0)
		return NULL;
	space_obj *s = (space_obj *)PyType_GenericAlloc((PyTypeObject *)kjitpy_space_type, 0);
	if (!s)
		return NULL;
	Py_INCREF(self);
	s->owner = self;
	s->problem = (size_t)p;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_space_build(self->spec, (size_t)p, &o, &s->space);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK) {
		Py_DECREF(s);
		return kjitpy_raise(st, kjit_last_error());
	}
	return (PyObject *)s;
}

static PyObject *spec_repr(PyObject *obj)
{
	spec_obj *self = (spec_obj *)obj;
	return PyUnicode_FromFormat("kjit.Spec(%R)", self->path);
}

static PyGetSetDef spec_getset[] = {
	{"path", get_path, NULL, "The spec file, as given.", NULL},
	{"params", get_params, NULL, "{name: [values]}: the tunable parameters in the spec's "
	 "order (Kernel Tuner's tune_params), values as int, float or str (a T1 bool as 1 or 0).",
	 NULL},
	{"defaults", get_defaults, NULL, "{name: value}: the default configuration.", NULL},
	{"problems", get_problems, NULL, "[{size name: int}]: the problems, in the spec's order.",
	 NULL},
	{"warnings", get_warnings, NULL, "Lines about fields read but unused, or unknown (T1's).",
	 NULL},
	{"signature", get_signature, NULL, "The kernel signature the store keeps the spec's "
	 "tuned results under (Kernel.signature of the kernel made from the spec).", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef spec_methods[] = {
	{"count", (PyCFunction)(void (*)(void))spec_count, METH_VARARGS | METH_KEYWORDS,
	 "count(problem=0, *, max_threads=0, max_shared=0) -> kjit.SpaceCount\n\n"
	 "The valid configurations of a problem without building its space: exact when\n"
	 "the walk takes at most about ten seconds (.exact), else estimated from random\n"
	 "draws (.rel_error, the relative standard error; inf when the draws found none,\n"
	 "with .upper the count's 95% bound). Limits of 0 are the spec's."},
	{"space", (PyCFunction)(void (*)(void))spec_space, METH_VARARGS | METH_KEYWORDS,
	 "space(problem=0, *, max_threads=0, max_shared=0, sample=0, seed=0) -> kjit.Space\n\n"
	 "The valid configurations of a problem (those its restrictions, grid and shared\n"
	 "memory formulas and limits allow), in the order of the value lists. A space too\n"
	 "large to hold whole (over 4 Mi configurations) raises ArgumentError, or with\n"
	 "sample > 0 is a uniform random sample of at most that many, drawn from seed."},
	{NULL, NULL, 0, NULL}
};

static PyType_Slot spec_slots[] = {
	{Py_tp_new, (void *)spec_new},
	{Py_tp_dealloc, (void *)spec_dealloc},
	{Py_tp_repr, (void *)spec_repr},
	{Py_tp_getset, spec_getset},
	{Py_tp_methods, spec_methods},
	{Py_tp_doc, (void *)
	 "Spec(path)\n\n"
	 "A kjit-tune spec file (kjit's JSON or Kernel Tuner's T1), read by the C library\n"
	 "exactly as kjit-tune reads it, with no GPU: its parameters, defaults, problems\n"
	 "and warnings; count() and space() give each problem's search space. A bad spec\n"
	 "raises kjit.ArgumentError (kjit.Error for a file that cannot be read) with\n"
	 "\"FILE: FIELD: expected ...\"."},
	{0, NULL}
};

static PyType_Spec spec_def = {
	"kjit.Spec", sizeof(spec_obj), 0, Py_TPFLAGS_DEFAULT, spec_slots
};

/* ---- kjit.Space ---------------------------------------------------------- */

static void space_dealloc(PyObject *obj)
{
	space_obj *self = (space_obj *)obj;
	PyTypeObject *type = Py_TYPE(obj);
	kjit_space_free(self->space);
	Py_XDECREF(self->owner);
	freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
	tp_free(obj);
	Py_DECREF(type);
}

static Py_ssize_t space_len(PyObject *obj)
{
	return (Py_ssize_t)kjit_space_size(((space_obj *)obj)->space, NULL);
}

/* A scratch row of value indices: on the stack when small, else malloc'ed
 * (NULL with MemoryError set). */
#define ROW_ON_STACK 32
typedef struct {
	size_t stack[ROW_ON_STACK], *row;
} row_buf;

static size_t *row_get(row_buf *b, size_t n)
{
	b->row = n <= ROW_ON_STACK ? b->stack : malloc(n * sizeof *b->row);
	if (!b->row)
		PyErr_NoMemory();
	return b->row;
}

static void row_put(row_buf *b)
{
	if (b->row != b->stack)
		free(b->row);
}

static PyObject *space_item(PyObject *obj, Py_ssize_t i)
{
	space_obj *self = (space_obj *)obj;
	if (i < 0 || (size_t)i >= kjit_space_size(self->space, NULL)) {
		PyErr_SetString(PyExc_IndexError, "kjit.Space index out of range");
		return NULL;
	}
	PyObject *names = self->owner->names, *values = self->owner->values;
	size_t n = (size_t)PyTuple_Size(names);
	row_buf b;
	size_t *row = row_get(&b, n);
	if (!row)
		return NULL;
	kjit_status st = kjit_space_config(self->space, (size_t)i, row);
	PyObject *d = st == KJIT_OK ? PyDict_New() : kjitpy_raise(st, kjit_last_error());
	for (size_t k = 0; d && k < n; k++)
		if (PyDict_SetItem(d, PyTuple_GetItem(names, (Py_ssize_t)k),
		                   PyTuple_GetItem(PyTuple_GetItem(values, (Py_ssize_t)k),
		                                   (Py_ssize_t)row[k])) < 0)
			Py_CLEAR(d);
	row_put(&b);
	return d;
}

/* config[name]'s index among the parameter's values (== as Python compares:
 * 1.0 is 1); -1 with ValueError (KeyError for a missing name) set. */
static Py_ssize_t value_index(space_obj *self, PyObject *config, Py_ssize_t k)
{
	PyObject *name = PyTuple_GetItem(self->owner->names, k);
	PyObject *vals = PyTuple_GetItem(self->owner->values, k);
	PyObject *v = PyObject_GetItem(config, name);
	if (!v)
		return -1;
	Py_ssize_t at = -1;
	for (Py_ssize_t j = 0; at < 0 && j < PyTuple_Size(vals); j++) {
		int eq = PyObject_RichCompareBool(v, PyTuple_GetItem(vals, j), Py_EQ);
		if (eq < 0) {
			Py_DECREF(v);
			return -1;
		}
		if (eq)
			at = j;
	}
	if (at < 0)
		PyErr_Format(PyExc_ValueError, "%R=%R is not one of its values", name, v);
	Py_DECREF(v);
	return at;
}

static PyObject *space_index(PyObject *obj, PyObject *config)
{
	space_obj *self = (space_obj *)obj;
	size_t n = (size_t)PyTuple_Size(self->owner->names), at;
	row_buf b;
	size_t *row = row_get(&b, n);
	if (!row)
		return NULL;
	PyObject *r = NULL;
	int ok = 1;
	for (size_t k = 0; ok && k < n; k++) {
		Py_ssize_t j = value_index(self, config, (Py_ssize_t)k);
		ok = j >= 0;
		row[k] = (size_t)j;
	}
	kjit_status st = ok ? kjit_space_find(self->space, row, &at) : KJIT_OK;
	if (ok && st == KJIT_ERR_NOT_FOUND)
		PyErr_Format(PyExc_ValueError, "%R is not in the space (a restriction or a limit "
		             "rules it out)", config);
	else if (ok && st != KJIT_OK)
		kjitpy_raise(st, kjit_last_error());
	else if (ok)
		r = PyLong_FromSize_t(at);
	row_put(&b);
	return r;
}

static PyObject *space_get_sampled(PyObject *obj, void *unused)
{
	int sampled = 0;
	kjit_space_size(((space_obj *)obj)->space, &sampled);
	return PyBool_FromLong(sampled);
}

static PyObject *space_get_problem(PyObject *obj, void *unused)
{
	space_obj *self = (space_obj *)obj;
	return problem_dict(self->owner->spec, self->problem);
}

static PyObject *space_get_spec(PyObject *obj, void *unused)
{
	space_obj *self = (space_obj *)obj;
	Py_INCREF(self->owner);
	return (PyObject *)self->owner;
}

static PyObject *space_repr(PyObject *obj)
{
	space_obj *self = (space_obj *)obj;
	int sampled = 0;
	size_t n = kjit_space_size(self->space, &sampled);
	return PyUnicode_FromFormat("<kjit.Space of %zu %sconfigurations of problem %zu of %R>", n,
	                            sampled ? "sampled " : "", self->problem, self->owner->path);
}

static PyGetSetDef space_getset[] = {
	{"sampled", space_get_sampled, NULL, "True when the space is a random sample of one too "
	 "large to hold.", NULL},
	{"problem", space_get_problem, NULL, "{size name: int}: its problem.", NULL},
	{"spec", space_get_spec, NULL, "The kjit.Spec it was built from.", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyObject *space_indices(PyObject *obj, PyObject *arg)
{
	space_obj *self = (space_obj *)obj;
	Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (i < 0 || (size_t)i >= kjit_space_size(self->space, NULL)) {
		PyErr_SetString(PyExc_IndexError, "kjit.Space index out of range");
		return NULL;
	}
	size_t n = (size_t)PyTuple_Size(self->owner->names);
	row_buf b;
	size_t *row = row_get(&b, n);
	if (!row)
		return NULL;
	kjit_status st = kjit_space_config(self->space, (size_t)i, row);
	PyObject *t = st == KJIT_OK ? PyTuple_New((Py_ssize_t)n) : kjitpy_raise(st, kjit_last_error());
	for (size_t k = 0; t && k < n; k++) {
		PyObject *v = PyLong_FromSize_t(row[k]);
		if (!v)
			Py_CLEAR(t);
		else
			PyTuple_SetItem(t, (Py_ssize_t)k, v);
	}
	row_put(&b);
	return t;
}

kjit_space *kjitpy_space_of(PyObject *obj, const kjit_spec **spec)
{
	space_obj *self = (space_obj *)obj;
	*spec = self->owner->spec;
	return self->space;
}

static PyMethodDef space_methods[] = {
	{"indices", space_indices, METH_O,
	 "indices(i) -> tuple\n\n"
	 "Configuration i as the index of each parameter's value in its value list\n"
	 "(Spec.params' order)."},
	{"search", (PyCFunction)(void (*)(void))kjitpy_search_new, METH_VARARGS | METH_KEYWORDS,
	 "search(strategy=None, *, settings=None, budget=0, seed=1, limited=None) -> kjit.Search\n\n"
	 "A search of the space by one of kjit's strategies (kjit.strategies(); a T1\n"
	 "name such as genetic_algorithm too), the one kjit-tune runs. strategy None:\n"
	 "the spec's Search.Name, else hybrid (the default) when limited, else\n"
	 "exhaustive. settings: {option: value} or [\"NAME=VALUE\"], after the spec's\n"
	 "Search.Attributes; budget: the evaluations the search may take (0: the\n"
	 "space's size); limited: a budget limits the run (default: budget > 0).\n"
	 "kjit.ArgumentError names a strategy or setting it does not take."},
	{"index", space_index, METH_O,
	 "index(config) -> int\n\n"
	 "The position of a configuration ({name: value}, values compared with ==) in\n"
	 "the space; ValueError when the space does not hold it, KeyError for a missing\n"
	 "parameter."},
	{NULL, NULL, 0, NULL}
};

static PyType_Slot space_slots[] = {
	{Py_tp_dealloc, (void *)space_dealloc},
	{Py_tp_repr, (void *)space_repr},
	{Py_sq_length, (void *)space_len},
	{Py_sq_item, (void *)space_item},
	{Py_tp_getset, space_getset},
	{Py_tp_methods, space_methods},
	{Py_tp_doc, (void *)
	 "The valid configurations of one problem of a kjit.Spec (Spec.space()): a\n"
	 "sequence of {name: value} dicts, in the order of the parameters' value lists."},
	{0, NULL}
};

static PyType_Spec space_def = {
	"kjit.Space", sizeof(space_obj), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
	space_slots
};

static PyStructSequence_Field count_fields[] = {
	{"valid", "valid configurations (an estimate unless exact)"},
	{"exact", "True when valid is an exact count"},
	{"product", "the product of the parameters' value counts"},
	{"rel_error", "the estimate's relative standard error (0 exact; inf: none found)"},
	{"upper", "with rel_error inf, the count's 95% upper bound"},
	{NULL, NULL}
};

static PyStructSequence_Desc count_desc = {
	"kjit.SpaceCount", "A space's size (Spec.count()).", count_fields, 5
};

static int add_type(PyObject *module, const char *name, PyObject *type)
{
	if (!type)
		return -1;
	Py_INCREF(type);
	if (PyModule_AddObject(module, name, type) < 0) {
		Py_DECREF(type);
		return -1;
	}
	return 0;
}

int kjitpy_spec_init_types(PyObject *module)
{
	kjitpy_spec_type = PyType_FromSpec(&spec_def);
	kjitpy_space_type = kjitpy_spec_type ? PyType_FromSpec(&space_def) : NULL;
	count_type = kjitpy_space_type ? (PyObject *)PyStructSequence_NewType(&count_desc) : NULL;
	return add_type(module, "Spec", kjitpy_spec_type) < 0 ||
	       add_type(module, "Space", kjitpy_space_type) < 0 ||
	       add_type(module, "SpaceCount", count_type) < 0 ? -1 : 0;
}
