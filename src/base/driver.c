/* driver.c - libcuda.so.1 opened at run time; no -lcuda anywhere. */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* Entry points are requested at the ABI of CUDA 12.0, the oldest driver
 * whose cuGetProcAddress_v2 we can call. */
#define KJIT__CU_ABI 12000

static kjit__cu_api api;
static kjit_status load_status;
static char *load_error;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);

/* Names of the codes that matter without a working driver to ask. */
static const struct {
	CUresult code;
	const char *name;
	const char *text;
} known_errors[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
	  "the CUDA toolkit's stub libcuda was loaded instead of a real driver" },
	{ CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	  "the kernel-mode driver and libcuda do not match" },
	{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	  "too many resources requested for launch" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
	  "an illegal memory access was encountered" },
};

const char *kjit__cu_error_name(CUresult r)
{
	const char *name = NULL;
	if (api.cuGetErrorName && api.cuGetErrorName(r, &name) == CUDA_SUCCESS && name)
		return name;
	for (size_t i = 0; i < sizeof known_errors / sizeof known_errors[0]; i++)
		if (known_errors[i].code == r)
			return known_errors[i].name;
	return "CUDA_ERROR_UNKNOWN_CODE";
}

static const char *cu_error_text(CUresult r)
{
	const char *text = NULL;
	if (api.cuGetErrorString && api.cuGetErrorString(r, &text) == CUDA_SUCCESS && text)
		return text;
	for (size_t i = 0; i < sizeof known_errors / sizeof known_errors[0]; i++)
		if (known_errors[i].code == r)
			return known_errors[i].text;
	return "unrecognised error code";
}

kjit_status kjit__cu_fail(kjit_status status, CUresult r, const char *what)
{
	return kjit__error(status, "%s: %s (%d: %s)", what, kjit__cu_error_name(r), (int)r,
	                   cu_error_text(r));
}

void kjit__cu_uuid_text(const CUuuid *uuid, char out[KJIT_UUID_TEXT])
{
	size_t n = (size_t)snprintf(out, KJIT_UUID_TEXT, "GPU-");
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[n++] = '-';
		n += (size_t)snprintf(out + n, KJIT_UUID_TEXT - n, "%02x",
		                      (unsigned char)uuid->bytes[i]);
	}
}

static void fail_load(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Keeps why the driver cannot be used: every later caller gets it. */
static void fail_load(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	load_status = KJIT_ERR_NO_GPU;
	load_error = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (load_error) {
		va_start(ap, fmt);
		vsnprintf(load_error, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
}

static void load_driver(void)
{
	const char *path = kjit__env(KJIT__ENV_LIBCUDA);
	if (!path)
		path = "libcuda.so.1";
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		fail_load("no NVIDIA driver: %s could not be opened (%s)", path,
		          why ? why : "unknown reason");
		return;
	}
	get_proc_fn get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
	__typeof__(cuDriverGetVersion) *get_version =
		(__typeof__(cuDriverGetVersion) *)dlsym(lib, "cuDriverGetVersion");
	if (!get_proc || !get_version) {
		fail_load("NVIDIA driver too old: %s has no %s (a CUDA 12.0 or newer driver is "
		          "required)",
		          path, get_proc ? "cuDriverGetVersion" : "cuGetProcAddress_v2");
		return;
	}
	CUresult r = get_version(&api.driver_version);
	if (r != CUDA_SUCCESS) {
		/* The stub library answers CUDA_ERROR_STUB_LIBRARY here; its
		 * description says what happened. */
		fail_load("cuDriverGetVersion failed: %s (%s)", kjit__cu_error_name(r),
		          cu_error_text(r));
		return;
	}
	if (api.driver_version < KJIT__CU_ABI) {
		char have[32];
		snprintf(have, sizeof have, "%d.%d", api.driver_version / 1000,
		         api.driver_version % 1000 / 10);
		fail_load("NVIDIA driver too old: it supports CUDA %s, kjit needs CUDA 12.0 or "
		          "newer (%s)",
		          have, path);
		return;
	}

#define KJIT__CU_RESOLVE(fn)                                                         \
	do {                                                                         \
		CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SUCCESS;      \
		void *p = NULL;                                                      \
		CUresult rr = get_proc(#fn, &p, KJIT__CU_ABI, CU_GET_PROC_ADDRESS_DEFAULT, &q); \
		if (rr != CUDA_SUCCESS || !p) {                                      \
			fail_load(                                                       \
				q == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT          \
					? "NVIDIA driver too old: it lacks %s (%s, %s)"  \
					: "cuGetProcAddress_v2(%s) failed in %s: %s",    \
				#fn, path, kjit__cu_error_name(rr));                     \
			return;                                                      \
		}                                                                    \
		api.fn = (__typeof__(api.fn))p;                                      \
	} while (0);
	KJIT__CU_FUNCS(KJIT__CU_RESOLVE)
#undef KJIT__CU_RESOLVE
	/* optional: without it, kernel arguments go unchecked */
	void *param_info = NULL;
	if (get_proc("cuFuncGetParamInfo", &param_info, 12040, CU_GET_PROC_ADDRESS_DEFAULT,
	             NULL) == CUDA_SUCCESS)
		api.cuFuncGetParamInfo = (__typeof__(api.cuFuncGetParamInfo))param_info;
	/* optional: without it, a function loads lazily where it is first used */
	void *func_load = NULL;
	if (get_proc("cuFuncLoad", &func_load, 12040, CU_GET_PROC_ADDRESS_DEFAULT, NULL) ==
	    CUDA_SUCCESS)
		api.cuFuncLoad = (__typeof__(api.cuFuncLoad))func_load;

	r = api.cuInit(0);
	if (r != CUDA_SUCCESS) {
		const char *hint = r == CUDA_ERROR_STUB_LIBRARY
			? " (the toolkit's stub libcuda is on the library path ahead of the driver)"
			: r == CUDA_ERROR_NO_DEVICE ? " (the driver sees no GPU)"
			: r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH ? " (reinstall or update the NVIDIA driver)"
			: "";
		fail_load("cuInit failed: %s (%s)%s", kjit__cu_error_name(r),
		          cu_error_text(r), hint);
		return;
	}
	load_status = KJIT_OK;
}

const kjit__cu_api *kjit__cu(kjit_status *status)
{
	pthread_once(&load_once, load_driver);
	if (load_status != KJIT_OK) {
		*status = kjit__error(load_status, "%s", load_error ? load_error : "out of memory");
		return NULL;
	}
	*status = KJIT_OK;
	return &api;
}
