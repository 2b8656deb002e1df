/* search.c - kjit.Search and kjit.strategies(): kjit's search strategies
 * asked for configurations of a kjit.Space and told their objective, the
 * search kjit-tune runs (kjit_strategy_*, kjit_search_*), for a program
 * that measures on its own. */
#include "kjitpy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

PyObject *kjitpy_search_type;

typedef struct search_obj {
	PyObject_HEAD
	PyObject *space; /* the kjit.Space searched, which must outlive the search */
	kjit_strategy *strategy;
	kjit_search *search;
} search_obj;

/* "NAME=VALUE" texts of settings (None, a mapping, or a sequence of str)
 * into *texts (a new list keeping them) and *utf8 (malloc'ed, *n of them);
 * 0 or -1 with an error set. */
static int settings_of(PyObject *settings, PyObject **texts, const char ***utf8, size_t *n)
{
	*texts = PyList_New(0);
	*utf8 = NULL;
	*n = 0;
	if (!*texts)
		return -1;
	if (!settings || settings == Py_None)
		return 0;
	PyObject *items = PyObject_HasAttrString(settings, "items") ? PyMapping_Items(settings)
	                  : PyUnicode_Check(settings) ? NULL : PySequence_List(settings);
	if (!items) {
		PyErr_Format(PyExc_TypeError, "settings: expected a mapping of option names to "
		             "values or a sequence of \"NAME=VALUE\", got %R",
		             (PyObject *)Py_TYPE(settings));
		return -1;
	}
	int rc = 0;
	for (Py_ssize_t i = 0; rc == 0 && i < PyList_Size(items); i++) {
		PyObject *it = PyList_GetItem(items, i), *text = NULL;
		if (PyTuple_Check(it) && PyTuple_Size(it) == 2) {
			PyObject *k = PyTuple_GetItem(it, 0), *v = PyTuple_GetItem(it, 1);
			/* repr keeps a float's every digit; str(True) is "True", which no
			 * option takes: refused by the strategy, naming it */
			text = PyUnicode_Check(k) ? PyUnicode_FromFormat(PyFloat_Check(v) ? "%U=%R"
			                                                 : "%U=%S", k, v)
			                          : NULL;
			if (!text && !PyErr_Occurred())
				PyErr_Format(PyExc_TypeError, "settings: a name is %R, not str",
				             (PyObject *)Py_TYPE(k));
		} else if (PyUnicode_Check(it)) {
			text = it;
			Py_INCREF(text);
		} else {
			PyErr_Format(PyExc_TypeError, "settings: expected \"NAME=VALUE\", got %R",
			             (PyObject *)Py_TYPE(it));
		}
		rc = text && PyList_Append(*texts, text) == 0 ? 0 : -1;
		Py_XDECREF(text);
	}
	Py_DECREF(items);
	*n = (size_t)PyList_Size(*texts);
	if (rc == 0 && *n && !(*utf8 = malloc(*n * sizeof **utf8))) {
		PyErr_NoMemory();
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < *n; i++)
		rc = ((*utf8)[i] = kjitpy_utf8(PyList_GetItem(*texts, (Py_ssize_t)i))) ? 0 : -1;
	return rc;
}

PyObject *kjitpy_search_new(PyObject *space, PyObject *args, PyObject *kw)
{
	static char *names[] = {"strategy", "settings", "budget", "seed", "limited", NULL};
	PyObject *strategy = Py_None, *settings = Py_None, *limited = Py_None;
	Py_ssize_t budget = 0;
	unsigned long long seed = 1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OnKO:search", names, &strategy, &settings,
	                                 &budget, &seed, &limited))
		return NULL;
	if (budget < 0)
		return kjitpy_argfail("search(): budget=%zd: expected 0 (the whole space) or more",
		                      budget);
	const char *name = strategy == Py_None ? NULL : kjitpy_utf8(strategy);
	if (strategy != Py_None && !name)
		return NULL;
	int lim = limited == Py_None ? budget > 0 : PyObject_IsTrue(limited);
	if (lim < 0)
		return NULL;
	PyObject *texts;
	const char **utf8;
	size_t n;
	search_obj *s = NULL;
	if (settings_of(settings, &texts, &utf8, &n) == 0 &&
	    (s = (search_obj *)PyType_GenericAlloc((PyTypeObject *)kjitpy_search_type, 0))) {
		const kjit_spec *spec;
		kjit_space *sp = kjitpy_space_of(space, &spec);
		kjit_strategy_options o;
		kjit_strategy_options_init(&o);
		o.name = name;
		o.spec = spec;
		o.limited = lim;
		o.settings = utf8;
		o.n_settings = n;
		Py_INCREF(space);
		s->space = space;
		kjit_status st = kjit_strategy_new(&o, &s->strategy, NULL);
		if (st == KJIT_OK)
			st = kjit_search_start(s->strategy, sp, (size_t)budget, seed, &s->search);
		if (st != KJIT_OK) {
			Py_CLEAR(s);
			kjitpy_raise(st, kjit_last_error());
		}
	}
	free(utf8);
	Py_XDECREF(texts);
	return (PyObject *)s;
}

static void search_dealloc(PyObject *obj)
{
	search_obj *self = (search_obj *)obj;
	PyTypeObject *type = Py_TYPE(obj);
	kjit_search_free(self->search);
	kjit_strategy_free(self->strategy);
	Py_XDECREF(self->space);
	freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
	tp_free(obj);
	Py_DECREF(type);
}

static PyObject *search_ask(PyObject *obj, PyObject *unused)
{
	search_obj *self = (search_obj *)obj;
	int64_t j;
	kjit_status st = kjit_search_ask(self->search, &j);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	if (j == KJIT_SEARCH_END)
		Py_RETURN_NONE;
	return PyLong_FromLongLong((long long)j);
}

static PyObject *search_tell(PyObject *obj, PyObject *args)
{
	search_obj *self = (search_obj *)obj;
	Py_ssize_t index;
	PyObject *objective;
	if (!PyArg_ParseTuple(args, "nO:tell", &index, &objective))
		return NULL;
	double v = INFINITY;
	if (objective != Py_None && (v = PyFloat_AsDouble(objective)) == -1.0 && PyErr_Occurred())
		return NULL;
	if (index < 0)
		return kjitpy_argfail("tell(): configuration %zd of the space", index);
	kjit_status st = kjit_search_tell(self->search, (size_t)index, v);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	Py_RETURN_NONE;
}

static PyObject *get_strategy(PyObject *obj, void *unused)
{
	return PyUnicode_FromString(kjit_strategy_name(((search_obj *)obj)->strategy));
}

static PyObject *get_ahead(PyObject *obj, void *unused)
{
	return PyBool_FromLong(kjit_strategy_ahead(((search_obj *)obj)->strategy));
}

static PyObject *get_warnings(PyObject *obj, void *unused)
{
	size_t n;
	const char *const *w = kjit_strategy_warnings(((search_obj *)obj)->strategy, &n);
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		PyObject *s = PyUnicode_FromString(w[i]);
		if (!s)
			Py_CLEAR(t);
		else
			PyTuple_SetItem(t, (Py_ssize_t)i, s);
	}
	return t;
}

static PyObject *get_space(PyObject *obj, void *unused)
{
	PyObject *s = ((search_obj *)obj)->space;
	Py_INCREF(s);
	return s;
}

static PyObject *search_repr(PyObject *obj)
{
	search_obj *self = (search_obj *)obj;
	return PyUnicode_FromFormat("<kjit.Search by %s of %R>",
	                            kjit_strategy_name(self->strategy), self->space);
}

static PyGetSetDef search_getset[] = {
	{"strategy", get_strategy, NULL, "The strategy's name (kjit's, for a T1 name given).",
	 NULL},
	{"ahead", get_ahead, NULL, "True when the strategy proposes without waiting for "
	 "results, so that several may be measured at once.", NULL},
	{"warnings", get_warnings, NULL, "The spec's Search.Attributes the strategy did not use, "
	 "a line each.", NULL},
	{"space", get_space, NULL, "The kjit.Space searched.", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef search_methods[] = {
	{"ask", search_ask, METH_NOARGS,
	 "ask() -> int | None\n\n"
	 "The index in the space of the next configuration to evaluate; None when the\n"
	 "search is done; kjit.SEARCH_WAIT when it needs results of those outstanding\n"
	 "first (it never waits with none outstanding)."},
	{"tell", search_tell, METH_VARARGS,
	 "tell(index, objective) -> None\n\n"
	 "The objective of a configuration ask() gave (lower is better; None, inf or nan\n"
	 "for a failure). Tell each one once, in any order; a strategy may propose a\n"
	 "configuration again: tell it what is known, without measuring it again.\n"
	 "kjit.ArgumentError when nothing is outstanding or index is outside the space."},
	{NULL, NULL, 0, NULL}
};

static PyType_Slot search_slots[] = {
	{Py_tp_dealloc, (void *)search_dealloc},
	{Py_tp_repr, (void *)search_repr},
	{Py_tp_getset, search_getset},
	{Py_tp_methods, search_methods},
	{Py_tp_doc, (void *)
	 "A search of a kjit.Space by one of kjit's strategies (Space.search()), the\n"
	 "search kjit-tune runs: ask() for a configuration, measure it, tell() its\n"
	 "objective. The same seed and the same answers give the same proposals."},
	{0, NULL}
};

static PyType_Spec search_def = {
	"kjit.Search", sizeof(search_obj), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, search_slots
};

/* {name: (summary, {setting: default})} of every strategy. */
static PyObject *strategies(PyObject *unused, PyObject *unused2)
{
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && i < kjit_strategy_count(); i++) {
		const char *name, *summary;
		char *text;
		kjit_status st = kjit_strategy_describe(i, &name, &summary, &text);
		if (st != KJIT_OK) {
			Py_DECREF(d);
			return kjitpy_raise(st, kjit_last_error());
		}
		PyObject *defaults = PyDict_New(), *entry = NULL;
		for (char *w = text, *next; defaults && w && *w; w = next) {
			next = strchr(w, ' ');
			if (next)
				*next++ = '\0';
			char *eq = strchr(w, '=');
			PyObject *v = eq ? PyUnicode_FromString(eq + 1) : NULL;
			if (eq)
				*eq = '\0';
			if (!v || PyDict_SetItemString(defaults, w, v) < 0)
				Py_CLEAR(defaults);
			Py_XDECREF(v);
		}
		free(text);
		if (defaults)
			entry = Py_BuildValue("(sO)", summary, defaults);
		Py_XDECREF(defaults);
		if (!entry || PyDict_SetItemString(d, name, entry) < 0)
			Py_CLEAR(d);
		Py_XDECREF(entry);
	}
	return d;
}

static PyMethodDef functions[] = {
	{"strategies", strategies, METH_NOARGS,
	 "strategies() -> dict\n\n"
	 "kjit's search strategies: {name: (summary, {setting: default})}, the settings\n"
	 "Space.search() takes as settings={name: value}. Space.search() also takes\n"
	 "their T1 names (brute_force, random_sample, genetic_algorithm, ...)."},
	{NULL, NULL, 0, NULL}
};

int kjitpy_search_init(PyObject *module)
{
	if (!(kjitpy_search_type = PyType_FromSpec(&search_def)))
		return -1;
	Py_INCREF(kjitpy_search_type);
	if (PyModule_AddObject(module, "Search", kjitpy_search_type) < 0) {
		Py_DECREF(kjitpy_search_type);
		return -1;
	}
	return PyModule_AddFunctions(module, functions) < 0 ||
	       PyModule_AddIntConstant(module, "SEARCH_WAIT", KJIT_SEARCH_WAIT) < 0 ? -1 : 0;
}
