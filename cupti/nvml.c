/*
 * nvml.c - NVML (libnvidia-ml.so.1) opened at run time, never linked, as
 * libcuda is: the GPU's name, its power, the board's energy read in steps
 * (its power samples, or its energy counter), and the public power
 * reading of kjit.h (kjit_power_*) over them. Each
 * handle opens the library and initialises NVML for itself (both are
 * reference counted), so handles come and go independently and a test
 * can change the environment between them.
 */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "instr.h"

/* The few declarations of nvml.h that kjit needs (the toolkit does not
 * ship the header); their ABI has been stable since NVML 5. */
typedef int kjit__nvml_ret;
typedef struct kjit__nvml_device_st *kjit__nvml_device;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_DEVICE_NAME_BUFFER_SIZE = 96,
	NVML_TOTAL_POWER_SAMPLES = 0
};

/* nvmlValueType_t, and nvmlSample_t with its union */
enum {
	NVML_VALUE_TYPE_DOUBLE,
	NVML_VALUE_TYPE_UNSIGNED_INT,
	NVML_VALUE_TYPE_UNSIGNED_LONG,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG,
	NVML_VALUE_TYPE_SIGNED_INT,
	NVML_VALUE_TYPE_UNSIGNED_SHORT
};
typedef struct kjit__nvml_sample {
	unsigned long long us; /* the host's clock (CLOCK_REALTIME), microseconds */
	union {
		double d;
		unsigned u;
		unsigned long ul;
		unsigned long long ull;
		long long sll;
		int si;
		unsigned short us;
	} v;
} kjit__nvml_sample;

#define SAMPLES_MAX 64      /* taken in at one call; a poll finds one or two */
#define SAMPLES_CLOCK_S 60.0 /* samples stamped further ahead of the host's clock,
                              * or older than SAMPLES_OLD_S, are not stamped by
                              * it: the counter serves instead */
#define SAMPLES_OLD_S 3600.0
#define SAMPLES_POLL_NS 1000000L /* the wait after a poll that found none */

#define KJIT__NVML_FUNCS(X)                                                          \
	X(kjit__nvml_ret, nvmlInit_v2, (void))                                        \
	X(kjit__nvml_ret, nvmlShutdown, (void))                                       \
	X(const char *, nvmlErrorString, (kjit__nvml_ret))                            \
	X(kjit__nvml_ret, nvmlDeviceGetHandleByUUID, (const char *, kjit__nvml_device *)) \
	X(kjit__nvml_ret, nvmlDeviceGetHandleByIndex_v2, (unsigned, kjit__nvml_device *)) \
	X(kjit__nvml_ret, nvmlDeviceGetName, (kjit__nvml_device, char *, unsigned))    \
	X(kjit__nvml_ret, nvmlDeviceGetPowerUsage, (kjit__nvml_device, unsigned *))    \
	X(kjit__nvml_ret, nvmlDeviceGetTotalEnergyConsumption,                       \
	  (kjit__nvml_device, unsigned long long *))                                 \
	X(kjit__nvml_ret, nvmlDeviceGetTemperature, (kjit__nvml_device, int, unsigned *)) \
	X(kjit__nvml_ret, nvmlDeviceGetClockInfo, (kjit__nvml_device, int, unsigned *))

typedef kjit__nvml_ret (*get_samples_fn)(kjit__nvml_device, int, unsigned long long, int *,
                                         unsigned *, kjit__nvml_sample *);

struct kjit__nvml {
	void *lib;
	int initialised;
	kjit__nvml_device device;
	char name[NVML_DEVICE_NAME_BUFFER_SIZE];
#define KJIT__NVML_MEMBER(ret, fn, params) ret(*fn) params;
	KJIT__NVML_FUNCS(KJIT__NVML_MEMBER)
#undef KJIT__NVML_MEMBER
	/* NVML 5 has it, but a GPU may keep no samples: the counter serves then */
	get_samples_fn nvmlDeviceGetSamples;
	int samples; /* the steps are power samples, else the counter's */
	/* the steps since kjit__nvml_steps_begin() */
	double sum_mj;                 /* energy since then */
	double last_s;                 /* the last sample taken in (monotonic) */
	double offset_s;               /* monotonic minus the samples' clock */
	unsigned long long seen_us;    /* the last sample taken in, its stamp */
	unsigned long long counter_base, counter_from;
	kjit__nvml_sample q[SAMPLES_MAX]; /* fetched, not yet taken in */
	unsigned q_n, q_at;
	int q_type;
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
	n->nvmlDeviceGetSamples = (get_samples_fn)dlsym(n->lib, "nvmlDeviceGetSamples");
	kjit__nvml_ret r = n->nvmlInit_v2();
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_NO_GPU, r, "nvmlInit_v2");
	n->initialised = 1;
	return KJIT_OK;
}

double kjit__nvml_clock_s(void)
{
	return (double)kjit__now_ns() * 1e-9;
}

/* A sample's power in watts, NAN for a type NVML did not use for power. */
static double sample_w(int type, const kjit__nvml_sample *s)
{
	switch (type) {
	case NVML_VALUE_TYPE_DOUBLE: return s->v.d * 1e-3;
	case NVML_VALUE_TYPE_UNSIGNED_INT: return s->v.u * 1e-3;
	case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)s->v.ul * 1e-3;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)s->v.ull * 1e-3;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)s->v.sll * 1e-3;
	case NVML_VALUE_TYPE_SIGNED_INT: return s->v.si * 1e-3;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT: return s->v.us * 1e-3;
	default: return NAN;
	}
}

static int cmp_sample(const void *a, const void *b)
{
	unsigned long long x = ((const kjit__nvml_sample *)a)->us,
	                   y = ((const kjit__nvml_sample *)b)->us;
	return (x > y) - (x < y);
}

/* The samples stamped after since_us, oldest first, into n->q; 0 found is
 * not an error. */
static kjit_status fetch_samples(kjit__nvml *n, unsigned long long since_us)
{
	unsigned count = SAMPLES_MAX;
	int type = -1;
	n->q_n = n->q_at = 0;
	kjit__nvml_ret r = n->nvmlDeviceGetSamples(n->device, NVML_TOTAL_POWER_SAMPLES, since_us,
	                                           &type, &count, n->q);
	if (r == NVML_ERROR_NOT_FOUND || (r == NVML_SUCCESS && count == 0))
		return KJIT_OK;
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetSamples");
	if (count > SAMPLES_MAX || isnan(sample_w(type, n->q)))
		return kjit__error(KJIT_ERR_CUDA, "nvmlDeviceGetSamples: %u power samples of value "
		                   "type %d", count, type);
	qsort(n->q, count, sizeof *n->q, cmp_sample);
	n->q_n = count;
	n->q_type = type;
	return KJIT_OK;
}

/* Whether the GPU keeps power samples stamped by the host's clock. */
static int samples_kept(kjit__nvml *n)
{
	if (!n->nvmlDeviceGetSamples || fetch_samples(n, 0) != KJIT_OK || n->q_n == 0)
		return 0;
	double now = kjit__wall_time(), newest = (double)n->q[n->q_n - 1].us * 1e-6;
	return newest <= now + SAMPLES_CLOCK_S && newest >= now - SAMPLES_OLD_S;
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
	const char *mode = kjit__env(KJIT__ENV_NVML);
	n->samples = !(mode && strcmp(mode, "counter") == 0) && samples_kept(n);
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

/* nvml.h's NVML_TEMPERATURE_GPU, NVML_CLOCK_GRAPHICS and NVML_CLOCK_MEM */
enum { NVML_TEMPERATURE_GPU = 0, NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_MEM = 2 };

kjit_status kjit__nvml_sensors(kjit__nvml *n, kjit_gpu_sensors *out)
{
	unsigned celsius = 0, graphics = 0, mem = 0;
	kjit__nvml_ret r = n->nvmlDeviceGetTemperature(n->device, NVML_TEMPERATURE_GPU, &celsius);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetTemperature");
	if ((r = n->nvmlDeviceGetClockInfo(n->device, NVML_CLOCK_GRAPHICS, &graphics)) !=
	    NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetClockInfo(NVML_CLOCK_GRAPHICS)");
	if ((r = n->nvmlDeviceGetClockInfo(n->device, NVML_CLOCK_MEM, &mem)) != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)");
	out->temperature_c = celsius;
	out->graphics_clock_mhz = graphics;
	out->mem_clock_mhz = mem;
	return KJIT_OK;
}

kjit_status kjit__nvml_energy_mj(kjit__nvml *n, unsigned long long *mj)
{
	kjit__nvml_ret r = n->nvmlDeviceGetTotalEnergyConsumption(n->device, mj);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, KJIT_ERR_CUDA, r, "nvmlDeviceGetTotalEnergyConsumption");
	return KJIT_OK;
}

int kjit__nvml_steps_sampled(const kjit__nvml *n)
{
	return n->samples;
}

const char *kjit__nvml_steps_source(const kjit__nvml *n)
{
	return n->samples ? "power samples" : "energy counter";
}

kjit_status kjit__nvml_steps_begin(kjit__nvml *n)
{
	n->sum_mj = 0;
	n->q_n = n->q_at = 0;
	if (!n->samples) {
		kjit_status st = kjit__nvml_energy_mj(n, &n->counter_base);
		n->counter_from = n->counter_base;
		return st;
	}
	double real = kjit__wall_time();
	n->last_s = kjit__nvml_clock_s();
	n->offset_s = n->last_s - real;
	n->seen_us = (unsigned long long)(real * 1e6);
	return KJIT_OK;
}

/* The counter's step: its first move seen by a read at or after
 * not_before. */
static kjit_status counter_step(kjit__nvml *n, double not_before, double *mj, double *at,
                                int *found)
{
	double t = kjit__nvml_clock_s();
	unsigned long long v;
	kjit_status st = kjit__nvml_energy_mj(n, &v);
	if (st != KJIT_OK)
		return st;
	if (v < n->counter_from)
		return kjit__error(KJIT_ERR_CUDA, "NVML's energy counter went back from %llu to "
		                   "%llu mJ", n->counter_from, v);
	int moved = v != n->counter_from;
	n->counter_from = v;
	if (t >= not_before && moved) {
		*mj = (double)(v - n->counter_base);
		*at = t;
		*found = 1;
	}
	return KJIT_OK;
}

/* Each sample is the board's power since the one before: the sum goes up
 * by it over the time between their stamps. */
static kjit_status sample_step(kjit__nvml *n, double not_before, double *mj, double *at,
                               int *found)
{
	for (int fetched = 0;;) {
		while (n->q_at < n->q_n) {
			const kjit__nvml_sample *s = &n->q[n->q_at++];
			double t = (double)s->us * 1e-6 + n->offset_s;
			if (s->us <= n->seen_us)
				continue;
			n->seen_us = s->us;
			if (t > n->last_s)
				n->sum_mj += sample_w(n->q_type, s) * (t - n->last_s) * 1e3;
			n->last_s = t;
			if (t >= not_before) {
				*mj = n->sum_mj;
				*at = t;
				*found = 1;
				return KJIT_OK;
			}
		}
		if (fetched) {
			struct timespec ts = { 0, SAMPLES_POLL_NS };
			nanosleep(&ts, NULL);
			return KJIT_OK;
		}
		kjit_status st = fetch_samples(n, n->seen_us);
		if (st != KJIT_OK)
			return st;
		fetched = 1;
	}
}

kjit_status kjit__nvml_step_after(kjit__nvml *n, double not_before, double *mj, double *at,
                                  int *found)
{
	*found = 0;
	return n->samples ? sample_step(n, not_before, mj, at, found)
	                  : counter_step(n, not_before, mj, at, found);
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

kjit_status kjit_power_sensors(kjit_power *power, kjit_gpu_sensors *out)
{
	if (!power || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_power_sensors: %s is NULL",
		                   power ? "out" : "power");
	kjit_gpu_sensors s;
	kjit_status st = kjit__nvml_sensors(power->nvml, &s);
	if (st == KJIT_OK)
		*out = s;
	return st;
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
