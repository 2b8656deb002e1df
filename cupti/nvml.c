/*
 * nvml.c - NVML (libnvidia-ml.so.1) opened at run time, never linked, as
 * libcuda is: the GPU's name, its power and its energy counter, and the
 * public power reading of kjit.h (kjit_power_*) over them. Each
 * handle opens the library and initialises NVML for itself (both are
 * reference counted), so handles come and go independently and a test
 * can change the environment between them.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instr.h"

/* The few declarations of nvml.h that kjit needs (the toolkit does not
 * ship the header); their ABI has been stable since NVML 5. */
typedef int kjit__nvml_ret;
typedef struct kjit__nvml_device_st *kjit__nvml_device;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_DEVICE_NAME_BUFFER_SIZE = 96
};

#define KJIT__NVML_FUNCS(X)                                                          \
	X(kjit__nvml_ret, nvmlInit_v2, (void))                                        \
	X(kjit__nvml_ret, nvmlShutdown, (void))                                       \
	X(const char *, nvmlErrorString, (kjit__nvml_ret))                            \
	X(kjit__nvml_ret, nvmlDeviceGetHandleByUUID, (const char *, kjit__nvml_device *)) \
	X(kjit__nvml_ret, nvmlDeviceGetHandleByIndex_v2, (unsigned, kjit__nvml_device *)) \
	X(kjit__nvml_ret, nvmlDeviceGetName, (kjit__nvml_device, char *, unsigned))    \
	X(kjit__nvml_ret, nvmlDeviceGetPowerUsage, (kjit__nvml_device, unsigned *))    \
	X(kjit__nvml_ret, nvmlDeviceGetTotalEnergyConsumption,                       \
	  (kjit__nvml_device, unsigned long long *))

struct kjit__nvml {
	void *lib;
	int initialised;
	kjit__nvml_device device;
	char name[NVML_DEVICE_NAME_BUFFER_SIZE];
#define KJIT__NVML_MEMBER(ret, fn, params) ret(*fn) params;
	KJIT__NVML_FUNCS(KJIT__NVML_MEMBER)
#undef KJIT__NVML_MEMBER
};

/* "what: NVML's text (code)"; NVML_ERROR_NOT_SUPPORTED is the GPU's
 * answer, not a failure of the call, and says so. */
static kjit_status nvml_fail(const kjit__nvml *n, kjit_status status, kjit__nvml_ret r,
                             const char *what)
{
	const char *text = n->nvmlErrorString ? n->nvmlErrorString(r) : NULL;
	return kjit__error(status, "%s: %s (NVML error %d)%s", what, text ? text : "unknown error",
	                   r, r == NVML_ERROR_NOT_SUPPORTED ? ": this GPU does not report it" : "");
}

void kjit__nvml_close(kjit__nvml *n)
{
	if (!n)
		return;
	if (n->initialised)
		(void)n->nvmlShutdown();
	if (n->lib)
		dlclose(n->lib);
	free(n);
}

static kjit_status nvml_load(kjit__nvml *n)
{
	if (kjit__env(KJIT__ENV_NVML) && strcmp(kjit__env(KJIT__ENV_NVML), "off") == 0)
		return kjit__error(KJIT_ERR_NO_GPU, "NVML turned off (KJIT_NVML=off)");
	const char *path = kjit__env(KJIT__ENV_LIBNVML);
	if (!path)
		path = "libnvidia-ml.so.1";
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *why = dlerror();
		return kjit__error(KJIT_ERR_NO_GPU, "no NVML: %s could not be opened (%s)", path,
		                   why ? why : "unknown reason");
	}
#define KJIT__NVML_RESOLVE(ret, fn, params)                                          \
	if (!(n->fn = (ret(*) params)dlsym(n->lib, #fn)))                             \
		return kjit__error(KJIT_ERR_NO_GPU, "NVML too old: %s has no %s", path, #fn);
	KJIT__NVML_FUNCS(KJIT__NVML_RESOLVE)
#undef KJIT__NVML_RESOLVE
	kjit__nvml_ret r = n->nvmlInit_v2();
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_NO_GPU, r, "nvmlInit_v2");
	n->initialised = 1;
	return KJIT_OK;
}

/* The device and its name; the energy counter read once, so that a GPU
 * without one is refused here, in one line, not at the first measure. */
static kjit_status nvml_device(kjit__nvml *n, const char *uuid)
{
	kjit__nvml_ret r = uuid ? n->nvmlDeviceGetHandleByUUID(uuid, &n->device)
	                        : n->nvmlDeviceGetHandleByIndex_v2(0, &n->device);
	if (r == NVML_ERROR_NOT_FOUND && uuid)
		return kjit__error(KJIT_ERR_NO_GPU, "NVML does not know the GPU %s (a MIG instance "
		                   "or a GPU hidden from NVML)", uuid);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_NO_GPU, r,
		                 uuid ? "nvmlDeviceGetHandleByUUID" : "nvmlDeviceGetHandleByIndex_v2");
	if ((r = n->nvmlDeviceGetName(n->device, n->name, sizeof n->name)) != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_NO_GPU, r, "nvmlDeviceGetName");
	n->name[sizeof n->name - 1] = '\0';
	unsigned long long mj;
	if ((r = n->nvmlDeviceGetTotalEnergyConsumption(n->device, &mj)) != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_NO_GPU, r, "nvmlDeviceGetTotalEnergyConsumption");
	return KJIT_OK;
}

kjit_status kjit__nvml_open_uuid(const char *uuid, kjit__nvml **out)
{
	*out = NULL;
	kjit__nvml *n = calloc(1, sizeof *n);
	if (!n)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory opening NVML");
	kjit_status st = nvml_load(n);
	if (st == KJIT_OK)
		st = nvml_device(n, uuid);
	if (st != KJIT_OK) {
		kjit__nvml_close(n);
		return st;
	}
	*out = n;
	return KJIT_OK;
}

kjit_status kjit__nvml_open(const kjit__cu_api *cu, CUdevice device, kjit__nvml **out)
{
	*out = NULL;
	CUuuid uuid;
	CUresult r = cu->cuDeviceGetUuid(&uuid, device);
	if (r != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuDeviceGetUuid");
	char text[KJIT_UUID_TEXT];
	kjit__cu_uuid_text(&uuid, text);
	return kjit__nvml_open_uuid(text, out);
}

const char *kjit__nvml_name(const kjit__nvml *n)
{
	return n->name;
}

kjit_status kjit__nvml_power_w(kjit__nvml *n, double *watts)
{
	unsigned mw = 0;
	kjit__nvml_ret r = n->nvmlDeviceGetPowerUsage(n->device, &mw);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetPowerUsage");
	*watts = mw * 1e-3;
	return KJIT_OK;
}

kjit_status kjit__nvml_energy_mj(kjit__nvml *n, unsigned long long *mj)
{
	kjit__nvml_ret r = n->nvmlDeviceGetTotalEnergyConsumption(n->device, mj);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetTotalEnergyConsumption");
	return KJIT_OK;
}

/* ---- kjit.h: the power reading ------------------------------------------------ */

struct kjit_power {
	kjit__nvml *nvml;
};

kjit_status kjit_power_open(const char *gpu_uuid, kjit_power **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_power_open: out is NULL");
	*out = NULL;
	kjit_power *p = calloc(1, sizeof *p);
	if (!p)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory opening NVML");
	kjit_status st = kjit__nvml_open_uuid(gpu_uuid, &p->nvml);
	if (st != KJIT_OK) {
		free(p);
		return st;
	}
	*out = p;
	return KJIT_OK;
}

kjit_status kjit_power_read(kjit_power *power, double *watts)
{
	if (!power || !watts)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_power_read: %s is NULL",
		                   power ? "watts" : "power");
	return kjit__nvml_power_w(power->nvml, watts);
}

const char *kjit_power_gpu_name(const kjit_power *power)
{
	return power ? kjit__nvml_name(power->nvml) : "";
}

void kjit_power_close(kjit_power *power)
{
	if (!power)
		return;
	kjit__nvml_close(power->nvml);
	free(power);
}
