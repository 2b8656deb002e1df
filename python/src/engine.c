/* engine.c - kjit.Engine: a kjit_engine (database, device, compile pool),
 * closed when the last kernel made on it is gone. */
#include "kjitpy.h"

PyObject *kjitpy_engine_type;

static const char *const tune_words[] = {"env", "off", "online", "background", NULL};

static int tune_policy(PyObject *obj, kjit_tune_policy *out)
{
	if (obj == Py_None) {
		*out = KJIT_TUNE_ENV;
		return 0;
	}
	const char *s = kjitpy_utf8(obj);
	if (!s)
		return -1;
	for (int i = 0; tune_words[i]; i++)
		if (strcmp(s, tune_words[i]) == 0) {
			*out = (kjit_tune_policy)i;
			return 0;
		}
	PyErr_Format(PyExc_ValueError, "tune=%R: expected 'off', 'online' or 'background'", obj);
	return -1;
}

static PyObject *engine_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *names[] = {"db_path", "device", "arch", "tune", "compile_threads", "gpu",
	                        NULL};
	const char *arch = NULL;
	int device = 0, threads = 0, gpu = 1;
	PyObject *tune = Py_None, *db = Py_None, *db_fs = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OizOip:Engine", names, &db, &device, &arch,
	                                 &tune, &threads, &gpu))
		return NULL;
	if (db != Py_None && !(db_fs = kjitpy_fspath(db, "Engine(db_path)", NULL)))
		return NULL;
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db_fs ? PyBytes_AsString(db_fs) : NULL;
	o.device = device;
	o.arch = arch;
	o.compile_threads = threads;
	o.flags = gpu ? 0 : KJIT_ENGINE_NO_GPU;
	kjitpy_engine *self = NULL;
	if (tune_policy(tune, &o.tune) < 0 ||
	    !(self = (kjitpy_engine *)PyType_GenericAlloc(type, 0))) {
		Py_XDECREF(db_fs);
		return NULL;
	}
	self->device = device;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_engine_open(&o, &self->engine);
	Py_END_ALLOW_THREADS
	Py_XDECREF(db_fs);
	if (st != KJIT_OK) {
		Py_DECREF(self);
		return kjitpy_raise(st, kjit_last_error());
	}
	return (PyObject *)self;
}

static void engine_dealloc(PyObject *obj)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	PyTypeObject *type = Py_TYPE(obj);
	if (self->engine) {
		Py_BEGIN_ALLOW_THREADS
		kjit_engine_close(self->engine);
		Py_END_ALLOW_THREADS
	}
	kjit_power_close(self->power);
	freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
	tp_free(obj);
	Py_DECREF(type);
}

static PyObject *get_has_gpu(PyObject *obj, void *unused)
{
	return PyBool_FromLong(kjit_engine_has_gpu(((kjitpy_engine *)obj)->engine));
}

static PyObject *get_text(PyObject *obj, void *which)
{
	const kjit_engine *e = ((kjitpy_engine *)obj)->engine;
	const char *w = which;
	const char *s = w[0] == 'a' ? kjit_engine_arch(e)
	              : w[0] == 'd' ? kjit_engine_device_name(e)
	              : w[0] == 'p' ? kjit_engine_db_path(e)
	              : kjit_engine_gpu_reason(e);
	return PyUnicode_FromString(s ? s : "");
}

static PyObject *engine_synchronize(PyObject *obj, PyObject *unused)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	kjit_status st;
	Py_BEGIN_ALLOW_THREADS
	st = kjit_synchronize(self->engine);
	Py_END_ALLOW_THREADS
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_engine_last_error(self->engine));
	Py_RETURN_NONE;
}

static PyObject *engine_stats(PyObject *obj, PyObject *unused)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	kjit_engine_stats s;
	kjit_status st = kjit_engine_get_stats(self->engine, &s);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_engine_last_error(self->engine));
	return Py_BuildValue("{sKsKsKsKsKsdsKsKsd}", "compiles", (unsigned long long)s.compiles,
	                     "memory_hits", (unsigned long long)s.memory_hits,
	                     "disk_hits", (unsigned long long)s.disk_hits,
	                     "misses", (unsigned long long)s.misses,
	                     "corrupt", (unsigned long long)s.corrupt,
	                     "compile_ms_total", s.compile_ms_total,
	                     "ptx_jits", (unsigned long long)s.ptx_jits,
	                     "links", (unsigned long long)s.links,
	                     "link_ms_total", s.link_ms_total);
}

static PyObject *engine_fail(kjitpy_engine *self, kjit_status st)
{
	return kjitpy_raise(st, kjit_engine_last_error(self->engine));
}

static PyObject *engine_alloc(PyObject *obj, PyObject *arg)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	Py_ssize_t n = PyLong_AsSsize_t(arg);
	if (n < 0)
		return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "alloc(%zd)", n);
	kjit_devptr p = 0;
	kjit_status st = kjit_mem_alloc(self->engine, (size_t)(n ? n : 1), &p);
	return st == KJIT_OK ? PyLong_FromUnsignedLongLong(p) : engine_fail(self, st);
}

static PyObject *engine_free(PyObject *obj, PyObject *arg)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	unsigned long long p = PyLong_AsUnsignedLongLong(arg);
	if (PyErr_Occurred())
		return NULL;
	kjit_status st = kjit_mem_free(self->engine, p);
	if (st != KJIT_OK)
		return engine_fail(self, st);
	Py_RETURN_NONE;
}

static PyObject *engine_htod(PyObject *obj, PyObject *args)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	unsigned long long p;
	const char *data;
	Py_ssize_t n;
	if (!PyArg_ParseTuple(args, "Ky#:htod", &p, &data, &n))
		return NULL;
	kjit_status st = n ? kjit_memcpy_htod(self->engine, p, data, (size_t)n) : KJIT_OK;
	if (st != KJIT_OK)
		return engine_fail(self, st);
	Py_RETURN_NONE;
}

static PyObject *engine_dtoh(PyObject *obj, PyObject *args)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	unsigned long long p;
	Py_ssize_t n;
	if (!PyArg_ParseTuple(args, "Kn:dtoh", &p, &n))
		return NULL;
	if (n < 0)
		return PyErr_Format(PyExc_ValueError, "dtoh: %zd bytes", n);
	PyObject *b = PyBytes_FromStringAndSize(NULL, n);
	kjit_status st = b && n ? kjit_memcpy_dtoh(self->engine, PyBytes_AsString(b), p,
	                                           (size_t)n) : KJIT_OK;
	if (b && st != KJIT_OK) {
		Py_DECREF(b);
		return engine_fail(self, st);
	}
	return b;
}

static PyObject *get_device(PyObject *obj, void *unused)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	if (!kjit_engine_has_gpu(self->engine))
		Py_RETURN_NONE;
	kjit_device_info d;
	kjit_status st = kjit_engine_device(self->engine, &d);
	if (st != KJIT_OK)
		return engine_fail(self, st);
	return Py_BuildValue("{sisisssssssssisisi}", "ordinal", d.ordinal, "count", d.count,
	                     "uuid", d.uuid, "name", d.name, "arch", d.arch, "key", d.key,
	                     "multiprocessors", d.multiprocessors, "max_threads_per_block",
	                     d.max_threads_per_block, "max_shared_per_block",
	                     d.max_shared_per_block);
}

/* NVML's reading of the engine's GPU now (its handle opened once). */
static PyObject *engine_gpu_sensors(PyObject *obj, PyObject *unused)
{
	kjitpy_engine *self = (kjitpy_engine *)obj;
	if (!self->power) {
		if (!kjit_engine_has_gpu(self->engine))
			return kjitpy_raise(KJIT_ERR_NO_GPU, "gpu_sensors: the engine has no GPU");
		kjit_device_info d;
		kjit_status st = kjit_engine_device(self->engine, &d);
		if (st == KJIT_OK)
			st = kjit_power_open(d.uuid, &self->power);
		if (st != KJIT_OK)
			return kjitpy_raise(st, kjit_last_error());
	}
	kjit_gpu_sensors g;
	double watts;
	kjit_status st = kjit_power_sensors(self->power, &g);
	if (st == KJIT_OK)
		st = kjit_power_read(self->power, &watts);
	if (st != KJIT_OK)
		return kjitpy_raise(st, kjit_last_error());
	return Py_BuildValue("{sdsdsdsd}", "temperature_c", g.temperature_c, "graphics_clock_mhz",
	                     g.graphics_clock_mhz, "mem_clock_mhz", g.mem_clock_mhz, "power_w",
	                     watts);
}

static PyGetSetDef getset[] = {
	{"has_gpu", get_has_gpu, NULL, "True when the engine can launch, False when it "
	 "compiles only.", NULL},
	{"arch", get_text, NULL, "The target architecture (\"sm_90\").", "a"},
	{"device_name", get_text, NULL, "The device's name (\"\" without a GPU).", "d"},
	{"db_path", get_text, NULL, "The store (SQLite database) in use.", "p"},
	{"gpu_reason", get_text, NULL, "Why there is no GPU (\"\" with one).", "r"},
	{"device", get_device, NULL, "The GPU as a dict (ordinal, count, uuid, name, arch, "
	 "key: the device key tuned results are stored under, multiprocessors, "
	 "max_threads_per_block, max_shared_per_block), or None without one.", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef engine_methods[] = {
	{"synchronize", engine_synchronize, METH_NOARGS,
	 "synchronize() -> None\n\nWaits for all work on the engine's context."},
	{"alloc", engine_alloc, METH_O,
	 "alloc(nbytes) -> int\n\nDevice memory (an address); free it with free()."},
	{"free", engine_free, METH_O, "free(address) -> None\n\nFrees what alloc() gave."},
	{"htod", engine_htod, METH_VARARGS,
	 "htod(address, data: bytes) -> None\n\nCopies host bytes to device memory."},
	{"dtoh", engine_dtoh, METH_VARARGS,
	 "dtoh(address, nbytes) -> bytes\n\nCopies device memory to the host."},
	{"gpu_sensors", engine_gpu_sensors, METH_NOARGS,
	 "gpu_sensors() -> dict\n\nWhat NVML reads of the engine's GPU now: temperature_c, "
	 "graphics_clock_mhz,\nmem_clock_mhz and power_w. NoGPUError naming why when NVML "
	 "cannot be had."},
	{"stats", engine_stats, METH_NOARGS,
	 "stats() -> dict\n\nCompiles, cache hits and misses since the engine opened."},
	{NULL, NULL, 0, NULL}
};

static PyType_Slot engine_slots[] = {
	{Py_tp_new, (void *)engine_new},
	{Py_tp_dealloc, (void *)engine_dealloc},
	{Py_tp_getset, getset},
	{Py_tp_methods, engine_methods},
	{Py_tp_doc, (void *)
	 "Engine(db_path=None, device=0, arch=None, tune=None, compile_threads=0, gpu=True)\n\n"
	 "A kjit engine: the store (db_path None: $KJIT_DB, else $XDG_CACHE_HOME/kjit/kjit.db,\n"
	 "else ~/.cache/kjit/kjit.db, as the C library), a CUDA device and its primary\n"
	 "context, and a compile pool. arch None: $KJIT_ARCH, else the device's. tune is\n"
	 "kjit_launch()'s policy for untuned problems: 'off', 'online', 'background', or\n"
	 "None for $KJIT_TUNE. Without a GPU and with an arch it opens to compile only\n"
	 "(has_gpu is False); without either it raises NoGPUError. gpu=False (an arch\n"
	 "needed) compiles and caches only, never touching the driver, as kjit-tune's\n"
	 "compile processes do."},
	{0, NULL}
};

static PyType_Spec engine_spec = {
	"kjit.Engine", sizeof(kjitpy_engine), 0, Py_TPFLAGS_DEFAULT, engine_slots
};

int kjitpy_engine_init_type(PyObject *module)
{
	kjitpy_engine_type = PyType_FromSpec(&engine_spec);
	if (!kjitpy_engine_type)
		return -1;
	Py_INCREF(kjitpy_engine_type);
	if (PyModule_AddObject(module, "Engine", kjitpy_engine_type) < 0) {
		Py_DECREF(kjitpy_engine_type);
		return -1;
	}
	return 0;
}
