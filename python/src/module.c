/* module.c - kjit._kjit: the exceptions, and kjit's statuses raised as
 * them with kjit's messages. */
#include "kjitpy.h"

#include <stdarg.h>
#include <string.h>

/* 1 in a build with NVIDIA's CUDA wheels (setup.py), which has no CUDA
 * headers of its own. */
#ifndef KJITPY_CUDA_WHEELS
#define KJITPY_CUDA_WHEELS 0
#endif

PyObject *kjitpy_error;
PyObject *kjitpy_no_gpu;
PyObject *kjitpy_arg_error;
PyObject *kjitpy_compile_err;

PyObject *kjitpy_raise(kjit_status st, const char *message)
{
	PyObject *type = st == KJIT_ERR_NO_GPU ? kjitpy_no_gpu
	               : st == KJIT_ERR_INVALID_ARG ? kjitpy_arg_error
	               : st == KJIT_ERR_COMPILE || st == KJIT_ERR_LINK ? kjitpy_compile_err
	               : kjitpy_error;
	if (st == KJIT_ERR_NOMEM)
		return PyErr_NoMemory();
	const char *name = kjit_status_str(st);
	size_t len = strcspn(name, ":");
	PyObject *value = Py_BuildValue("(s#s)", name, (Py_ssize_t)len,
	                                message && *message ? message : name);
	if (value) {
		PyErr_SetObject(type, value);
		Py_DECREF(value);
	}
	return NULL;
}

PyObject *kjitpy_argfail(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	PyObject *msg = PyUnicode_FromFormatV(format, ap);
	va_end(ap);
	PyObject *value = msg ? Py_BuildValue("(sO)", "KJIT_ERR_INVALID_ARG", msg) : NULL;
	if (value)
		PyErr_SetObject(kjitpy_arg_error, value);
	Py_XDECREF(value);
	Py_XDECREF(msg);
	return NULL;
}

const char *kjitpy_utf8(PyObject *obj)
{
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "expected str, got %R", (PyObject *)Py_TYPE(obj));
		return NULL;
	}
	return PyUnicode_AsUTF8AndSize(obj, NULL);
}

PyObject *kjitpy_fspath(PyObject *obj, const char *what, PyObject **text)
{
	PyObject *s = PyOS_FSPath(obj), *fs = NULL;
	if (s && !PyUnicode_Check(s)) {
		PyErr_Format(PyExc_TypeError, "%s: expected str or os.PathLike of str, got %R", what,
		             (PyObject *)Py_TYPE(s));
		Py_CLEAR(s);
	}
	if (s && (fs = PyUnicode_EncodeFSDefault(s)) &&
	    strlen(PyBytes_AsString(fs)) != (size_t)PyBytes_Size(fs)) {
		PyErr_Format(PyExc_ValueError, "%s: the path has a NUL character", what);
		Py_CLEAR(fs);
	}
	if (fs && text)
		*text = Py_NewRef(s);
	Py_XDECREF(s);
	return fs;
}

static PyObject *version(PyObject *self, PyObject *unused)
{
	return PyUnicode_FromString(kjit_version());
}

static PyMethodDef methods[] = {
	{"version", version, METH_NOARGS, "version() -> str\n\nThe C library's version."},
	{"pointers", kjitpy_pointers, METH_VARARGS,
	 "pointers(arrays, device=0, stream=None) -> (addresses, stream)\n\n"
	 "The device address a launch passes for each array of the tuple (None: 0),\n"
	 "and the stream it would launch on (stream= as for a launch)."},
	{NULL, NULL, 0, NULL}
};

static void teardown(void *module)
{
	kjitpy_args_clear();
}

static struct PyModuleDef moduledef = {
	PyModuleDef_HEAD_INIT, "_kjit",
	"The C core of the kjit package (import kjit instead).", -1, methods,
	NULL, NULL, NULL, teardown
};

/* Each exception carries .status ("KJIT_ERR_COMPILE") as args[0] and
 * kjit's message as args[1]; str() is the message. */
static PyObject *new_error(PyObject *module, const char *name, PyObject *bases,
                           const char *doc)
{
	PyObject *e = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
	if (e && PyModule_AddObject(module, strrchr(name, '.') + 1, e) < 0) {
		Py_DECREF(e);
		return NULL;
	}
	Py_XINCREF(e); /* PyModule_AddObject took one */
	return e;
}

static int add_errors(PyObject *m)
{
	kjitpy_error = new_error(m, "kjit.Error", PyExc_RuntimeError,
	                         "A kjit call failed: .args is (status name, kjit's message).");
	if (!kjitpy_error)
		return -1;
	kjitpy_no_gpu = new_error(m, "kjit.NoGPUError", kjitpy_error,
	                          "The call needs a GPU and this engine has none (the reason "
	                          "is the message).");
	kjitpy_compile_err = new_error(m, "kjit.CompileError", kjitpy_error,
	                               "NVRTC or nvJitLink rejected the kernel (the log is the "
	                               "message).");
	PyObject *bases = Py_BuildValue("(OO)", kjitpy_error, PyExc_TypeError);
	kjitpy_arg_error = bases ? new_error(m, "kjit.ArgumentError", bases,
	                                     "Arguments that do not fit the kernel (kjit's table "
	                                     "of parameters and arguments is the message).")
	                         : NULL;
	Py_XDECREF(bases);
	return kjitpy_no_gpu && kjitpy_compile_err && kjitpy_arg_error ? 0 : -1;
}

PyMODINIT_FUNC PyInit__kjit(void);

PyMODINIT_FUNC PyInit__kjit(void)
{
	PyObject *m = PyModule_Create(&moduledef);
	if (!m)
		return NULL;
	if (kjitpy_args_init() < 0 || add_errors(m) < 0 || kjitpy_engine_init_type(m) < 0 ||
	    kjitpy_kernel_init_type(m) < 0 || kjitpy_spec_init_types(m) < 0 ||
	    kjitpy_search_init(m) < 0 ||
	    PyModule_AddIntConstant(m, "MAX_ARGS", KJITPY_MAX_ARGS) < 0 ||
	    PyModule_AddIntConstant(m, "CUDA_WHEELS", KJITPY_CUDA_WHEELS) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
