/* args.c - Python arguments to a launch's: device arrays of any framework
 * by pointer, never copied (PyTorch tensors through their own methods,
 * the CUDA Array Interface, DLPack capsules), Python and NumPy scalars
 * converted to the kernel's parameter types, and the launch stream. */
#include "kjitpy.h"

#include <math.h>
#include <string.h>

#include "dlpack.h"

static const struct {
	const char *name;  /* the key of kjitpy_kinds_dict() */
	const char *ctype; /* in the argument check's table */
	size_t size;
} kinds[KJITPY_N_KINDS] = {
	[KJITPY_UNKNOWN] = {"unknown", "?", 0},
	[KJITPY_PTR] = {"ptr", "void *", 8},
	[KJITPY_I8] = {"int8", "int8", 1},
	[KJITPY_I16] = {"int16", "int16", 2},
	[KJITPY_I32] = {"int32", "int32", 4},
	[KJITPY_I64] = {"int64", "int64", 8},
	[KJITPY_U8] = {"uint8", "uint8", 1},
	[KJITPY_U16] = {"uint16", "uint16", 2},
	[KJITPY_U32] = {"uint32", "uint32", 4},
	[KJITPY_U64] = {"uint64", "uint64", 8},
	[KJITPY_F32] = {"float32", "float32", 4},
	[KJITPY_F64] = {"float64", "float64", 8},
};

PyObject *kjitpy_kinds_dict(void)
{
	PyObject *d = PyDict_New();
	for (int i = 1; d && i < KJITPY_N_KINDS; i++) {
		PyObject *v = PyLong_FromLong(i);
		if (!v || PyDict_SetItemString(d, kinds[i].name, v) < 0) {
			Py_XDECREF(v);
			Py_CLEAR(d);
			break;
		}
		Py_DECREF(v);
	}
	return d;
}

/* The names the hot path looks up, interned once at import (no string is
 * made per call): attributes and methods, then CUDA Array Interface keys. */
enum {
	N_GET_DEVICE, N_IS_CONTIGUOUS, N_DATA_PTR, N_CAI, N_DLPACK_DEVICE, N_DLPACK,
	N_TOBYTES, N_DATA, N_PTR, N_DEVICE_ID, N_C_CONTIGUOUS, N_SIZE, N_HANDLE,
	N_CUDA_STREAM, N_STREAM_HANDLE, N_IS_DEVICE_ACCESSIBLE, N_IS_HOST_ACCESSIBLE, K_TYPESTR,
	K_SHAPE, K_STRIDES, K_MASK, K_STREAM, N_COUNT
};
static const char *const name_text[N_COUNT] = {
	"get_device", "is_contiguous", "data_ptr", "__cuda_array_interface__",
	"__dlpack_device__", "__dlpack__", "tobytes", "data", "ptr", "device_id",
	"_c_contiguous", "size", "handle", "__cuda_stream__", "cuda_stream",
	"is_device_accessible", "is_host_accessible",
	"typestr", "shape", "strides", "mask", "stream"
};
static PyObject *name_obj[N_COUNT];
static PyObject *no_args; /* () for calls with keywords only */

int kjitpy_args_init(void)
{
	for (int i = 0; i < N_COUNT; i++)
		if (!name_obj[i] && !(name_obj[i] = PyUnicode_InternFromString(name_text[i])))
			return -1;
	if (!no_args && !(no_args = PyTuple_New(0)))
		return -1;
	return 0;
}

static PyObject *call0(PyObject *obj, int method)
{
	return PyObject_CallMethodObjArgs(obj, name_obj[method], NULL);
}

static PyObject *attr(PyObject *obj, int which)
{
	return PyObject_GetAttr(obj, name_obj[which]);
}

/* An integer attribute (with __index__ or __int__) as 64 bits; -1 with an
 * error set. */
static int attr_u64(PyObject *obj, int which, uint64_t *out)
{
	PyObject *v = attr(obj, which);
	PyObject *n = v ? PyNumber_Long(v) : NULL;
	Py_XDECREF(v);
	if (!n)
		return -1;
	*out = PyLong_AsUnsignedLongLong(n);
	Py_DECREF(n);
	return PyErr_Occurred() ? -1 : 0;
}

static int attr_long(PyObject *obj, int which, long *out)
{
	PyObject *v = attr(obj, which);
	*out = v ? PyLong_AsLong(v) : -1;
	Py_XDECREF(v);
	return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* ---- how a Python type is read, found once per type ------------------- */

typedef enum via {
	VIA_NONE,   /* not an argument kjit knows */
	VIA_INT,    /* int, bool */
	VIA_FLOAT,  /* float */
	VIA_NUMPY,  /* a NumPy scalar */
	/* arrays from here on */
	VIA_TORCH,  /* torch.Tensor: data_ptr(), is_contiguous(), get_device() */
	VIA_CUPY,   /* cupy.ndarray: data.ptr, data.device_id, _c_contiguous, size */
	VIA_CAI,    /* __cuda_array_interface__ */
	VIA_BUFFER, /* cuda.core's Buffer: its memory's attributes, handle */
	VIA_DLPACK  /* __dlpack__ and __dlpack_device__ */
} via;

#define TYPE_CACHE 32

static struct {
	PyObject *type;
	via how;
} cache[TYPE_CACHE];
static int n_cache;

static PyObject *torch_current_raw;   /* torch._C._cuda_getCurrentRawStream */
static PyObject *cupy_current_stream; /* cupy.cuda.get_current_stream */

void kjitpy_args_clear(void)
{
	for (int i = 0; i < N_COUNT; i++)
		Py_CLEAR(name_obj[i]);
	Py_CLEAR(no_args);
	Py_CLEAR(torch_current_raw);
	Py_CLEAR(cupy_current_stream);
	for (int i = 0; i < n_cache; i++)
		Py_CLEAR(cache[i].type);
	n_cache = 0;
}

static int module_is(PyObject *type, const char *prefix)
{
	PyObject *m = PyObject_GetAttrString(type, "__module__");
	if (!m) {
		PyErr_Clear();
		return 0;
	}
	const char *s = PyUnicode_Check(m) ? PyUnicode_AsUTF8AndSize(m, NULL) : NULL;
	size_t n = strlen(prefix);
	int yes = s && strncmp(s, prefix, n) == 0 && (s[n] == 0 || s[n] == '.');
	if (!s)
		PyErr_Clear();
	Py_DECREF(m);
	return yes;
}

/* 1 when type or one of its bases is named base */
static int derives(PyObject *type, const char *base)
{
	PyObject *mro = PyObject_GetAttrString(type, "__mro__");
	int yes = 0;
	for (Py_ssize_t j = 0; mro && PyTuple_Check(mro) && j < PyTuple_Size(mro) && !yes; j++) {
		PyObject *name = PyObject_GetAttrString(PyTuple_GetItem(mro, j), "__name__");
		const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL)
		                                              : NULL;
		yes = s && strcmp(s, base) == 0;
		Py_XDECREF(name);
	}
	Py_XDECREF(mro);
	PyErr_Clear();
	return yes;
}

static int has(PyObject *obj, int which)
{
	return PyObject_HasAttr(obj, name_obj[which]);
}

/* CuPy's ndarray is read through its attributes: the CUDA Array Interface
 * CuPy builds at each access costs more than a launch. */
static int cupy_type(PyObject *type, PyObject *obj)
{
	if (!module_is(type, "cupy") || !has(obj, N_CAI) || !has(obj, N_C_CONTIGUOUS) ||
	    !has(obj, N_SIZE))
		return 0;
	PyObject *data = attr(obj, N_DATA);
	int yes = data && has(data, N_PTR) && has(data, N_DEVICE_ID);
	Py_XDECREF(data);
	if (yes && !cupy_current_stream) {
		PyObject *m = PyImport_ImportModule("cupy.cuda");
		cupy_current_stream = m ? PyObject_GetAttrString(m, "get_current_stream") : NULL;
		Py_XDECREF(m);
		yes = cupy_current_stream != NULL;
	}
	PyErr_Clear();
	return yes;
}

/* cuda.core's Buffer: its __dlpack__ gives a capsule of one dimension at
 * the address of its handle and ignores stream=, so the handle is read,
 * and where the memory is from the attributes the buffer keeps (its
 * __dlpack_device__ builds a tuple of an enum from them at each call). */
static int cuda_buffer_type(PyObject *type, PyObject *obj)
{
	return module_is(type, "cuda.core") && has(obj, N_HANDLE) && has(obj, N_DEVICE_ID) &&
	       has(obj, N_IS_DEVICE_ACCESSIBLE) && has(obj, N_IS_HOST_ACCESSIBLE) &&
	       derives(type, "Buffer");
}

/* by the first object of its type (an attribute may be the instance's) */
static via classify(PyObject *type, PyObject *obj)
{
	PyTypeObject *t = (PyTypeObject *)type;
	if (PyType_IsSubtype(t, &PyLong_Type))
		return VIA_INT;
	if (PyType_IsSubtype(t, &PyFloat_Type))
		return VIA_FLOAT;
	if (module_is(type, "numpy") && derives(type, "generic"))
		return VIA_NUMPY; /* numpy.generic: the base of its scalars, not of ndarray */
	if (module_is(type, "torch") && has(type, N_DATA_PTR))
		return VIA_TORCH;
	if (cupy_type(type, obj))
		return VIA_CUPY;
	if (has(obj, N_CAI))
		return VIA_CAI;
	if (cuda_buffer_type(type, obj))
		return VIA_BUFFER;
	if (has(obj, N_DLPACK))
		return VIA_DLPACK;
	return VIA_NONE;
}


static via how_of(PyObject *obj)
{
	if (PyLong_CheckExact(obj)) /* sizes and raw addresses: the commonest */
		return VIA_INT;
	PyObject *type = (PyObject *)Py_TYPE(obj);
	for (int i = 0; i < n_cache; i++)
		if (cache[i].type == type)
			return cache[i].how;
	via how = classify(type, obj);
	if (n_cache < TYPE_CACHE) {
		Py_INCREF(type);
		cache[n_cache].type = type;
		cache[n_cache++].how = how;
	}
	return how;
}

/* ---- streams ------------------------------------------------------------ */

static int stream_int(PyObject *v, kjitpy_launch_args *out)
{
	unsigned long long h = PyLong_AsUnsignedLongLong(v);
	if (h == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	out->stream = (kjit_stream)(uintptr_t)h;
	out->have_stream = 1;
	return 0;
}

int kjitpy_stream_from(PyObject *obj, kjitpy_launch_args *out)
{
	out->have_stream = 0;
	out->stream = NULL;
	if (!obj || obj == Py_None)
		return 0;
	if (PyLong_Check(obj))
		return stream_int(obj, out);
	PyObject *v = NULL;
	if (has(obj, N_CUDA_STREAM)) {
		PyObject *t = call0(obj, N_CUDA_STREAM);
		if (!t)
			return -1;
		if (PyTuple_Check(t) && PyTuple_Size(t) == 2) {
			v = PyTuple_GetItem(t, 1);
			Py_XINCREF(v);
		}
		Py_DECREF(t);
	} else if (has(obj, N_STREAM_HANDLE)) {
		v = attr(obj, N_STREAM_HANDLE);
	}
	if (!v || !PyLong_Check(v)) {
		Py_XDECREF(v);
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_TypeError, "stream=%R: expected None, an int handle or an "
			             "object with __cuda_stream__", obj);
		return -1;
	}
	int rc = stream_int(v, out);
	Py_DECREF(v);
	return rc;
}

/* The integer DLPack's __dlpack__(stream=) takes for the launch stream. */
static long long dlpack_stream(const kjitpy_launch_args *a)
{
	return a->stream ? (long long)(uintptr_t)a->stream : 1; /* 1: the legacy default */
}

/* ---- arrays ------------------------------------------------------------- */

static int torch_stream(int device, kjitpy_launch_args *out)
{
	if (!torch_current_raw) {
		PyObject *c = PyImport_ImportModule("torch._C");
		torch_current_raw = c ? PyObject_GetAttrString(c, "_cuda_getCurrentRawStream") : NULL;
		Py_XDECREF(c);
		if (!torch_current_raw)
			return -1;
	}
	PyObject *d = PyLong_FromLong(device);
	PyObject *v = d ? PyObject_CallFunctionObjArgs(torch_current_raw, d, NULL) : NULL;
	Py_XDECREF(d);
	if (!v)
		return -1;
	int rc = stream_int(v, out);
	Py_DECREF(v);
	return rc;
}


static int refuse(size_t i, const char *what, PyObject *obj)
{
	kjitpy_argfail("argument %zu (%R): %s", i, (PyObject *)Py_TYPE(obj), what);
	return -1;
}

static int other_device(size_t i, long id, int device)
{
	kjitpy_argfail("argument %zu: an array on CUDA device %ld, the engine runs on device %d",
	               i, id, device);
	return -1;
}

static int from_torch(PyObject *t, size_t i, int device, kjitpy_launch_args *out,
                      uint64_t *ptr)
{
	PyObject *v = call0(t, N_GET_DEVICE); /* -1 for a CPU tensor */
	long dev = v ? PyLong_AsLong(v) : -1;
	Py_XDECREF(v);
	if (dev == -1 && PyErr_Occurred())
		return -1;
	if (dev < 0)
		return refuse(i, "a tensor on the CPU: kjit launches take CUDA tensors (.cuda())", t);
	if (dev != device) {
		kjitpy_argfail("argument %zu: a tensor on cuda:%ld, the engine runs on device %d", i,
		               dev, device);
		return -1;
	}
	v = call0(t, N_IS_CONTIGUOUS);
	int contiguous = v ? PyObject_IsTrue(v) : -1;
	Py_XDECREF(v);
	if (contiguous != 1)
		return contiguous < 0 ? -1 : refuse(i, "a tensor that is not contiguous: kjit "
		                                    "passes a pointer, not strides (.contiguous())",
		                                    t);
	v = call0(t, N_DATA_PTR);
	if (!v)
		return -1;
	*ptr = PyLong_AsUnsignedLongLong(v);
	Py_DECREF(v);
	if (PyErr_Occurred())
		return -1;
	return out->have_stream ? 0 : torch_stream(device, out);
}

/* 1 when strides (in units of unit bytes each) describe a compact
 * row-major array of shape (a size-1 dimension's stride is free). */
static int compact(const int64_t *shape, const int64_t *strides, int ndim, int64_t unit)
{
	int64_t want = unit;
	for (int d = ndim - 1; d >= 0; d--) {
		if (shape[d] == 0)
			return 1;
		if (shape[d] != 1 && strides[d] != want)
			return 0;
		want *= shape[d];
	}
	return 1;
}

/* shape or strides of a CUDA Array Interface into an array of at most 32 */
static int cai_dims(PyObject *tuple, int64_t *out, int *n)
{
	Py_ssize_t len = PyTuple_Check(tuple) ? PyTuple_Size(tuple) : -1;
	if (len < 0 || len > 32)
		return -1;
	for (Py_ssize_t d = 0; d < len; d++) {
		out[d] = PyLong_AsLongLong(PyTuple_GetItem(tuple, d));
		if (out[d] == -1 && PyErr_Occurred())
			return -1;
	}
	*n = (int)len;
	return 0;
}

static int cai_layout(PyObject *d, size_t i, PyObject *obj)
{
	PyObject *typestr = PyDict_GetItem(d, name_obj[K_TYPESTR]);
	PyObject *shape = PyDict_GetItem(d, name_obj[K_SHAPE]);
	PyObject *strides = PyDict_GetItem(d, name_obj[K_STRIDES]);
	PyObject *mask = PyDict_GetItem(d, name_obj[K_MASK]);
	if (mask && mask != Py_None)
		return refuse(i, "a masked array (the CUDA Array Interface's mask)", obj);
	if (!strides || strides == Py_None)
		return 0;
	const char *ts = typestr ? kjitpy_utf8(typestr) : NULL;
	int64_t sh[32], st[32];
	int n = 0, m = 0;
	if (!ts || strlen(ts) < 3 || cai_dims(shape, sh, &n) < 0 || cai_dims(strides, st, &m) < 0 ||
	    n != m) {
		PyErr_Clear();
		return refuse(i, "a CUDA Array Interface with a bad typestr, shape or strides", obj);
	}
	if (!compact(sh, st, n, atoll(ts + 2)))
		return refuse(i, "a strided (not contiguous) array: kjit passes a pointer, not "
		              "strides (make it contiguous first)", obj);
	return 0;
}

static int from_cai(PyObject *obj, size_t i, kjitpy_launch_args *out, uint64_t *ptr)
{
	PyObject *d = attr(obj, N_CAI);
	if (!d)
		return -1;
	PyObject *data = PyDict_Check(d) ? PyDict_GetItem(d, name_obj[N_DATA]) : NULL;
	PyObject *p = data && PyTuple_Check(data) && PyTuple_Size(data) == 2
	              ? PyTuple_GetItem(data, 0) : NULL;
	int rc = p ? cai_layout(d, i, obj) : refuse(i, "a CUDA Array Interface without data", obj);
	if (rc == 0) {
		*ptr = PyLong_AsUnsignedLongLong(p);
		rc = PyErr_Occurred() ? -1 : 0;
	}
	PyObject *s = rc == 0 && !out->have_stream ? PyDict_GetItem(d, name_obj[K_STREAM]) : NULL;
	if (s && s != Py_None)
		rc = stream_int(s, out);
	Py_DECREF(d);
	return rc;
}

/* As its CUDA Array Interface would: the address (0 when empty), the
 * device checked, CuPy's current stream (its 0 given as 1, the legacy
 * default stream); a layout not C-contiguous goes through the interface. */
static int from_cupy(PyObject *obj, size_t i, int device, kjitpy_launch_args *out,
                     uint64_t *ptr)
{
	PyObject *v = attr(obj, N_C_CONTIGUOUS);
	int contiguous = v ? PyObject_IsTrue(v) : -1;
	Py_XDECREF(v);
	if (contiguous <= 0)
		return contiguous < 0 ? -1 : from_cai(obj, i, out, ptr);
	long size = 0, dev = 0;
	PyObject *data = attr(obj, N_DATA);
	int rc = data && attr_long(obj, N_SIZE, &size) == 0 && attr_long(data, N_DEVICE_ID, &dev) == 0
	         ? 0 : -1;
	if (rc == 0 && dev != device)
		rc = other_device(i, dev, device);
	*ptr = 0;
	if (rc == 0 && size)
		rc = attr_u64(data, N_PTR, ptr);
	Py_XDECREF(data);
	if (rc < 0 || out->have_stream)
		return rc;
	PyObject *s = PyObject_CallNoArgs(cupy_current_stream);
	uint64_t h = 0;
	rc = s ? attr_u64(s, N_PTR, &h) : -1;
	Py_XDECREF(s);
	out->stream = (kjit_stream)(uintptr_t)(h ? h : 1);
	out->have_stream = rc == 0;
	return rc;
}

static int dlpack_device_ok(PyObject *obj, size_t i, int device)
{
	PyObject *dev = call0(obj, N_DLPACK_DEVICE);
	if (!dev)
		return -1;
	long type = -1, id = -1;
	if (PyTuple_Check(dev) && PyTuple_Size(dev) == 2) {
		type = PyLong_AsLong(PyTuple_GetItem(dev, 0));
		id = PyLong_AsLong(PyTuple_GetItem(dev, 1));
	}
	Py_DECREF(dev);
	if (PyErr_Occurred())
		return -1;
	if (type == KJITPY_DL_CUDA_MANAGED || type == KJITPY_DL_CUDA_HOST)
		return 0;
	if (type != KJITPY_DL_CUDA)
		return refuse(i, type == KJITPY_DL_CPU ? "an array in host memory (DLPack kDLCPU): "
		              "kjit launches take device memory" : "an array on a device that is "
		              "not CUDA (DLPack)", obj);
	return id == device ? 0 : other_device(i, id, device);
}

static PyObject *dlpack_capsule(PyObject *obj, const kjitpy_launch_args *a)
{
	PyObject *method = attr(obj, N_DLPACK);
	if (!method)
		return NULL;
	PyObject *kw = PyDict_New();
	PyObject *s = kw ? PyLong_FromLongLong(dlpack_stream(a)) : NULL;
	PyObject *cap = s && PyDict_SetItem(kw, name_obj[K_STREAM], s) == 0
	                ? PyObject_Call(method, no_args, kw) : NULL;
	if (!cap && s && PyErr_ExceptionMatches(PyExc_TypeError)) {
		/* a producer older than the stream= keyword: ordering is the caller's */
		PyErr_Clear();
		cap = PyObject_Call(method, no_args, NULL);
	}
	Py_XDECREF(s);
	Py_XDECREF(kw);
	Py_DECREF(method);
	return cap;
}

/* Reads the capsule's tensor, then gives it back (the caller's array
 * keeps the memory alive; the launch only needs its address). */
static int from_capsule(PyObject *cap, size_t i, PyObject *obj, uint64_t *ptr)
{
	const char *name = PyCapsule_GetName(cap);
	int versioned = name && strcmp(name, "dltensor_versioned") == 0;
	if (!name || (!versioned && strcmp(name, "dltensor") != 0))
		return refuse(i, "__dlpack__ gave no unused DLPack capsule", obj);
	void *p = PyCapsule_GetPointer(cap, name);
	if (!p)
		return -1;
	kjitpy_dl_managed_versioned *mv = versioned ? p : NULL;
	kjitpy_dl_managed *m = versioned ? NULL : p;
	const kjitpy_dl_tensor *t = versioned ? &mv->dl_tensor : &m->dl_tensor;
	int rc = 0;
	if (versioned && (mv->flags & 2u)) /* DLPACK_FLAG_BITMASK_IS_COPIED */
		rc = refuse(i, "__dlpack__ made a copy (a kernel's writes would be lost)", obj);
	else if (t->strides && !compact(t->shape, t->strides, t->ndim, 1))
		rc = refuse(i, "a strided (not contiguous) array: kjit passes a pointer, not "
		            "strides (make it contiguous first)", obj);
	*ptr = (uint64_t)(uintptr_t)t->data + t->byte_offset;
	if (PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0)
		return -1;
	if (versioned && mv->deleter)
		mv->deleter(mv);
	else if (!versioned && m->deleter)
		m->deleter(m);
	return rc;
}

/* As the buffer's __dlpack_device__ would say: device memory of this
 * device, or memory both sides reach (managed, pinned: kDLCUDAManaged,
 * kDLCUDAHost); host memory alone is refused. */
static int from_buffer(PyObject *obj, size_t i, int device, uint64_t *ptr)
{
	PyObject *d = attr(obj, N_IS_DEVICE_ACCESSIBLE);
	PyObject *h = d ? attr(obj, N_IS_HOST_ACCESSIBLE) : NULL;
	int on_device = d ? PyObject_IsTrue(d) : -1, on_host = h ? PyObject_IsTrue(h) : -1;
	Py_XDECREF(d);
	Py_XDECREF(h);
	if (on_device < 0 || on_host < 0)
		return -1;
	if (!on_device)
		return refuse(i, "a buffer in host memory: kjit launches take device memory", obj);
	long id = device;
	if (!on_host && attr_long(obj, N_DEVICE_ID, &id) < 0)
		return -1;
	return id == device ? attr_u64(obj, N_HANDLE, ptr) : other_device(i, id, device);
}

static int from_dlpack(PyObject *obj, size_t i, int device, const kjitpy_launch_args *a,
                       uint64_t *ptr)
{
	if (dlpack_device_ok(obj, i, device) < 0)
		return -1;
	PyObject *cap = dlpack_capsule(obj, a);
	if (!cap)
		return -1;
	int rc = from_capsule(cap, i, obj, ptr);
	Py_DECREF(cap);
	return rc;
}

/* ---- scalars ------------------------------------------------------------ */

static int int_fits(long long v, unsigned long long u, int is_unsigned, kjitpy_kind k)
{
	int bits = (int)kinds[k].size * 8;
	if (is_unsigned)
		return bits == 64 || u < (1ull << bits);
	if (k >= KJITPY_U8)
		return v >= 0 && (bits == 64 || v < (1ll << bits));
	return bits == 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1)));
}

static int put_int(PyObject *obj, size_t i, kjitpy_kind k, kjitpy_slot *s)
{
	PyObject *idx = PyNumber_Index(obj);
	if (!idx) {
		PyErr_Clear();
		return refuse(i, "not an integer, for an integer parameter", obj);
	}
	int overflow = 0, is_unsigned = 0;
	long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
	unsigned long long u = 0;
	if (overflow > 0) {
		u = PyLong_AsUnsignedLongLong(idx);
		is_unsigned = !PyErr_Occurred();
		PyErr_Clear();
	}
	Py_DECREF(idx);
	if ((overflow && !is_unsigned) || !int_fits(v, u, is_unsigned, k)) {
		kjitpy_argfail("argument %zu: %R does not fit the parameter's type %s",
		             i, obj, kinds[k].ctype);
		return -1;
	}
	uint64_t bits = is_unsigned ? u : (uint64_t)v;
	memset(s, 0, sizeof *s);
	switch (kinds[k].size) {
	case 1: { uint8_t x = (uint8_t)bits; memcpy(s->bytes, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)bits; memcpy(s->bytes, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)bits; memcpy(s->bytes, &x, 4); break; }
	default: s->u = bits;
	}
	return 0;
}

static int put_float(PyObject *obj, size_t i, kjitpy_kind k, kjitpy_slot *s)
{
	double d = PyFloat_AsDouble(obj);
	if (d == -1.0 && PyErr_Occurred()) {
		PyErr_Clear();
		return refuse(i, "not a number, for a floating-point parameter", obj);
	}
	if (k == KJITPY_F32)
		s->f = (float)d;
	else
		s->d = d;
	return 0;
}

/* A NumPy scalar for a parameter of unknown type: its own bytes. */
static int put_numpy_bytes(PyObject *obj, size_t i, kjitpy_launch_args *out)
{
	PyObject *b = call0(obj, N_TOBYTES);
	if (!b)
		return -1;
	char *data;
	Py_ssize_t n;
	int rc = PyBytes_AsStringAndSize(b, &data, &n);
	if (rc == 0 && (n < 1 || n > (Py_ssize_t)sizeof out->slot[i].bytes))
		rc = refuse(i, "a NumPy scalar of more than 16 bytes", obj);
	if (rc == 0) {
		memcpy(out->slot[i].bytes, data, (size_t)n);
		out->size[i] = (size_t)n;
		out->type[i] = "numpy scalar";
	}
	Py_DECREF(b);
	return rc;
}

static int put_scalar(PyObject *obj, size_t i, via how, kjitpy_kind k, kjitpy_launch_args *out)
{
	if (k == KJITPY_UNKNOWN) {
		if (how == VIA_NUMPY)
			return put_numpy_bytes(obj, i, out);
		return refuse(i, "a Python number for a parameter whose type kjit does not know: "
		              "pass argtypes=, or a NumPy scalar (numpy.int32(n))", obj);
	}
	if (k == KJITPY_PTR) {
		if (how != VIA_INT)
			return refuse(i, "a number for a pointer parameter", obj);
		out->slot[i].u = PyLong_AsUnsignedLongLong(obj); /* a raw device address */
		return PyErr_Occurred() ? -1 : 0;
	}
	if (how == VIA_FLOAT && k < KJITPY_F32)
		return refuse(i, "a float for an integer parameter", obj);
	return k >= KJITPY_F32 ? put_float(obj, i, k, &out->slot[i])
	                       : put_int(obj, i, k, &out->slot[i]);
}

/* ---- one argument, all of them ---------------------------------------- */

static int convert_one(PyObject *obj, size_t i, kjitpy_kind k, int device,
                       kjitpy_launch_args *out, int *deferred)
{
	out->argv[i] = &out->slot[i];
	out->size[i] = kinds[k ? k : KJITPY_PTR].size;
	out->type[i] = kinds[k ? k : KJITPY_PTR].ctype;
	if (obj == Py_None && (k == KJITPY_PTR || k == KJITPY_UNKNOWN)) {
		out->slot[i].u = 0;
		return 0;
	}
	via how = how_of(obj);
	int array = how >= VIA_TORCH;
	if (array && k != KJITPY_PTR && k != KJITPY_UNKNOWN) {
		kjitpy_argfail("argument %zu: an array for a parameter of type %s",
		             i, kinds[k].ctype);
		return -1;
	}
	switch (how) {
	case VIA_TORCH:
		return from_torch(obj, i, device, out, &out->slot[i].u);
	case VIA_CUPY:
		return from_cupy(obj, i, device, out, &out->slot[i].u);
	case VIA_CAI:
		return from_cai(obj, i, out, &out->slot[i].u);
	case VIA_BUFFER:
		return from_buffer(obj, i, device, &out->slot[i].u);
	case VIA_DLPACK:
		*deferred = 1; /* once the stream is known */
		return 0;
	case VIA_INT:
	case VIA_FLOAT:
	case VIA_NUMPY:
		return put_scalar(obj, i, how, k, out);
	default:
		return refuse(i, "neither a device array (DLPack, CUDA Array Interface) nor a "
		              "number", obj);
	}
}

int kjitpy_convert_args(PyObject *const *args, size_t n, const unsigned char *kind_of,
                        size_t n_kinds, int device, kjitpy_launch_args *out)
{
	if (n > KJITPY_MAX_ARGS) {
		kjitpy_argfail("%zu arguments: a launch passes at most %d", n,
		             KJITPY_MAX_ARGS);
		return -1;
	}
	out->n = n;
	int deferred = 0;
	for (size_t i = 0; i < n; i++) {
		kjitpy_kind k = i < n_kinds ? (kjitpy_kind)kind_of[i] : KJITPY_UNKNOWN;
		int d = 0;
		if (convert_one(args[i], i, k, device, out, &d) < 0)
			return -1;
		deferred |= d;
	}
	for (size_t i = 0; deferred && i < n; i++)
		if (args[i] != Py_None && how_of(args[i]) == VIA_DLPACK &&
		    from_dlpack(args[i], i, device, out, &out->slot[i].u) < 0)
			return -1;
	return 0;
}

PyObject *kjitpy_pointers(PyObject *module, PyObject *args)
{
	PyObject *seq, *stream = Py_None;
	int device = 0;
	if (!PyArg_ParseTuple(args, "O!|iO:pointers", &PyTuple_Type, &seq, &device, &stream))
		return NULL;
	Py_ssize_t n = PyTuple_Size(seq);
	PyObject *items[KJITPY_MAX_ARGS];
	for (Py_ssize_t i = 0; i < n && i < KJITPY_MAX_ARGS; i++)
		items[i] = PyTuple_GetItem(seq, i);
	unsigned char ptr[KJITPY_MAX_ARGS];
	memset(ptr, KJITPY_PTR, sizeof ptr);
	kjitpy_launch_args a;
	if (kjitpy_stream_from(stream, &a) < 0 ||
	    kjitpy_convert_args(items, (size_t)n, ptr, sizeof ptr, device, &a) < 0)
		return NULL;
	PyObject *addrs = PyTuple_New(n);
	for (Py_ssize_t i = 0; addrs && i < n; i++)
		PyTuple_SetItem(addrs, i, PyLong_FromUnsignedLongLong(a.slot[i].u));
	return addrs ? Py_BuildValue("(NK)", addrs, (unsigned long long)(uintptr_t)a.stream) : NULL;
}
