/*
 * counters.c - the hardware counters of one kernel launch, through CUPTI's
 * range profiler (cupti_range_profiler.h and cupti_profiler_host.h; no
 * nvperf link).
 *
 * Open, once per context: the profiler initialised (process-wide, counted
 * here), the chip's name, the counter availability image (what this device
 * lets this process read), a host object for the chip and from it the
 * config image of the metric set and the passes it needs. A metric the
 * chip does not know is left out of the set: its figure is NAN and the
 * reason names it; the others still count.
 *
 * Profile: the range profiler enabled on the context with auto ranges (one
 * per kernel) and kernel replay. CUPTI replays the one launch as many times
 * as the set needs passes, and saves and restores the device memory the
 * kernel can reach around every pass, so a kernel that writes its input
 * sees the same input in each pass. Then decoded, evaluated and disabled:
 * between profiles the context runs untouched. One profile at a time in
 * the process (the profiler is per device).
 *
 * Refusals are not errors. No permission for counters
 * (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, ERR_NVGPUCTRPERM), a device the
 * profiler does not support (virtualised, MIG, CMP, confidential
 * computing), CUPTI held by another tool (Nsight, compute-sanitizer:
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), any CUPTI call that
 * fails, or $KJIT_PROFILER=off: the counters are NAN and the reason is one
 * line naming the call, CUPTI's result and what still works. A refusal is
 * kept for the life of the object (its reason string never changes once
 * set, so callers may hold it), and later profiles do not retry.
 *
 * The peaks come from the same counter system: a counter's peak_sustained
 * (per cycle, summed over its units) times a clock. DRAM's is the memory
 * clock measured over the kernel (cycles_elapsed.avg.per_second), as
 * Nsight Compute's roofline does. The SMs' is the higher of the clock
 * measured over the replay and the device's own (CU_DEVICE_ATTRIBUTE_
 * CLOCK_RATE): a replay may run below the clock that timed runs reach, and
 * a peak below a rate those runs (or cuBLAS) measure is no peak. The FLOP
 * rate is then given at that clock too, from the cycles the kernel took
 * (duration times the replay's clock), so that rate and peak share one
 * clock; duration_ns stays the replay's.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "instr.h"

enum {
	M_DURATION, M_DRAM_READ, M_DRAM_WRITE, M_L2, M_L1,
	M_DADD, M_DMUL, M_DFMA, M_FADD, M_FMUL, M_FFMA, M_HADD, M_HMUL, M_HFMA,
	M_INST, M_OCCUPANCY, M_ISSUE, M_PIPE_ALU, M_PIPE_FP64, M_PIPE_TENSOR,
	M_PIPE_LSU, M_PIPE_SHARED, M_DRAM_TPUT,
	M_PEAK_DRAM, M_DRAM_HZ, M_PEAK_DFMA, M_PEAK_FFMA, M_PEAK_HFMA, M_SM_HZ,
	M_COUNT
};

#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"

static const char *const metric_names[M_COUNT] = {
	[M_DURATION] = "gpu__time_duration.sum",
	[M_DRAM_READ] = "dram__bytes_read.sum",
	[M_DRAM_WRITE] = "dram__bytes_write.sum",
	[M_L2] = "lts__t_bytes.sum",
	[M_L1] = "l1tex__t_bytes.sum",
	[M_DADD] = SASS("dadd"), [M_DMUL] = SASS("dmul"), [M_DFMA] = SASS("dfma"),
	[M_FADD] = SASS("fadd"), [M_FMUL] = SASS("fmul"), [M_FFMA] = SASS("ffma"),
	[M_HADD] = SASS("hadd"), [M_HMUL] = SASS("hmul"), [M_HFMA] = SASS("hfma"),
	[M_INST] = "smsp__inst_executed.sum",
	[M_OCCUPANCY] = "sm__warps_active.avg.pct_of_peak_sustained_active",
	/* the SM units whose busiest is sm_throughput, with the fp32 work
	 * against its peak rate (from the counts above): Nsight's own
	 * sm__throughput takes the maximum over many more and alone needs 8
	 * replay passes on an H100; these with the rest need 3 (the FMA
	 * pipe's own counter would make it 4) */
	[M_ISSUE] = "smsp__issue_active.avg.pct_of_peak_sustained_elapsed",
	[M_PIPE_ALU] = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
	[M_PIPE_FP64] = "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
	[M_PIPE_TENSOR] = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	[M_PIPE_LSU] = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
	[M_PIPE_SHARED] = "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed",
	[M_DRAM_TPUT] = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
	[M_PEAK_DRAM] = "dram__bytes.sum.peak_sustained",
	[M_DRAM_HZ] = "dram__cycles_elapsed.avg.per_second",
	[M_PEAK_DFMA] = SASS("dfma") ".peak_sustained",
	[M_PEAK_FFMA] = SASS("ffma") ".peak_sustained",
	[M_PEAK_HFMA] = SASS("hfma") ".peak_sustained",
	[M_SM_HZ] = "sm__cycles_elapsed.avg.per_second",
};

const char *const *kjit__counters_metric_names(size_t *n)
{
	*n = M_COUNT;
	return metric_names;
}

#define STILL_WORKS "; timing and resource usage still work"

/* The range profiler's object and its counter data image, enabled on the
 * first profile and kept for the later ones: enabling it, sizing and
 * allocating the image cost more than a profile's own passes. */
typedef struct session {
	CUpti_RangeProfiler_Object *obj; /* NULL: not enabled */
	uint8_t *image;
	size_t image_size;
	CUresult launch;   /* the launch's own result */
} session;

struct kjit__counters {
	const kjit__cu_api *cu;
	CUcontext ctx;
	int initialized;             /* holds a reference on the profiler */
	int refused;                 /* reason says why; set once */
	char reason[640];            /* "" or the refusal, or the metrics the chip lacks */
	const char *names[M_COUNT];  /* the metrics collected */
	int slot[M_COUNT];           /* metric -> index in names, -1: not collected */
	size_t n_names;
	CUpti_Profiler_Host_Object *host;
	uint8_t *avail, *config;
	size_t config_size, passes;
	double sm_clock_hz;          /* the device's, 0 when the driver does not say */
	session s;                   /* under g_lock */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* the refcount, profiles */
static int g_init_refs;

static const char *result_name(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "CUPTI_ERROR_UNKNOWN";
	return s;
}

/* What a refusal means, for the reason's line. */
static const char *refusal_hint(CUptiResult r)
{
	switch (r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		return "no permission for GPU counters (ERR_NVGPUCTRPERM: the driver restricts "
		       "them to admin users)";
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		return "CUPTI is held by another tool (Nsight, compute-sanitizer)";
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
	case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_NOT_SUPPORTED:
	case CUPTI_ERROR_NOT_COMPATIBLE:
	case CUPTI_ERROR_INVALID_CHIP_NAME:
		return "the profiler does not support this device";
	default:
		return "the profiler failed";
	}
}

/* Marks c refused by CUPTI call what; returns r. */
static CUptiResult refuse(kjit__counters *c, CUptiResult r, const char *what)
{
	if (!c->refused)
		snprintf(c->reason, sizeof c->reason, "counters refused: %s: %s, %s" STILL_WORKS,
		         refusal_hint(r), what, result_name(r));
	c->refused = 1;
	return r;
}

/* A CUPTI parameter block: zeroed, its size set. */
#define PARAMS(type, var) type var = { .structSize = type##_STRUCT_SIZE }

#define TRY(c, call, what)                                                 \
	do {                                                               \
		CUptiResult r_ = (call);                                   \
		if (r_ != CUPTI_SUCCESS)                                   \
			return refuse((c), r_, (what));                    \
	} while (0)

/* The profiler, initialised once for all open objects. */
static CUptiResult profiler_init(kjit__counters *c)
{
	CUptiResult r = CUPTI_SUCCESS;
	pthread_mutex_lock(&g_lock);
	if (g_init_refs == 0) {
		PARAMS(CUpti_Profiler_Initialize_Params, p);
		r = cuptiProfilerInitialize(&p);
	}
	if (r == CUPTI_SUCCESS) {
		g_init_refs++;
		c->initialized = 1;
	}
	pthread_mutex_unlock(&g_lock);
	if (r != CUPTI_SUCCESS)
		return refuse(c, r, "cuptiProfilerInitialize");
	return CUPTI_SUCCESS;
}

static void profiler_release(kjit__counters *c)
{
	if (!c->initialized)
		return;
	pthread_mutex_lock(&g_lock);
	if (--g_init_refs == 0) {
		PARAMS(CUpti_Profiler_DeInitialize_Params, p);
		(void)cuptiProfilerDeInitialize(&p); /* nothing left to do with it */
	}
	pthread_mutex_unlock(&g_lock);
	c->initialized = 0;
}

/* Checks that the device supports the range profiler, naming what it lacks. */
static CUptiResult device_supported(kjit__counters *c, CUdevice dev)
{
	PARAMS(CUpti_Profiler_DeviceSupported_Params, p);
	p.cuDevice = dev;
	p.api = CUPTI_PROFILER_RANGE_PROFILING;
	TRY(c, cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported");
	if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return CUPTI_SUCCESS;
	const char *why = p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "its architecture"
	                : p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED       ? "a virtual GPU"
	                : p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
	                        ? "confidential computing"
	                : p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "a mining processor"
	                : p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "SLI"
	                : p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "WSL"
	                                                                  : "an unknown cause";
	snprintf(c->reason, sizeof c->reason,
	         "counters refused: the profiler does not support this device (%s)" STILL_WORKS, why);
	c->refused = 1;
	return CUPTI_ERROR_NOT_SUPPORTED;
}

/* The counter availability image of ctx (malloc'ed into c->avail). */
static CUptiResult availability(kjit__counters *c)
{
	PARAMS(CUpti_Profiler_GetCounterAvailability_Params, p);
	p.ctx = c->ctx;
	TRY(c, cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
	if (!(c->avail = malloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1)))
		return CUPTI_ERROR_OUT_OF_MEMORY;
	p.pCounterAvailabilityImage = c->avail;
	TRY(c, cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
	return CUPTI_SUCCESS;
}

/* The host object for the context's chip. */
static CUptiResult host_open(kjit__counters *c, CUdevice dev)
{
	PARAMS(CUpti_Device_GetChipName_Params, chip);
	chip.deviceIndex = (size_t)dev;
	TRY(c, cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
	PARAMS(CUpti_Profiler_Host_Initialize_Params, p);
	p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	p.pChipName = chip.pChipName;
	p.pCounterAvailabilityImage = c->avail;
	TRY(c, cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
	c->host = p.pHostObject;
	return CUPTI_SUCCESS;
}

/* The metrics the chip knows go in names[]; the others are named in the
 * reason (the counters still count). */
static void choose_metrics(kjit__counters *c)
{
	size_t used = 0;
	for (int m = 0; m < M_COUNT; m++) {
		PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, p);
		p.pHostObject = c->host;
		p.pMetricName = metric_names[m];
		if (cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS) {
			c->slot[m] = (int)c->n_names;
			c->names[c->n_names++] = metric_names[m];
			continue;
		}
		c->slot[m] = -1;
		if (used == 0)
			used = (size_t)snprintf(c->reason, sizeof c->reason, "this GPU lacks");
		if (used < sizeof c->reason)
			used += (size_t)snprintf(c->reason + used, sizeof c->reason - used, " %s",
			                         metric_names[m]);
	}
}

/* The config image of the chosen metrics, and the passes it needs. */
static CUptiResult configure(kjit__counters *c)
{
	PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
	add.pHostObject = c->host;
	add.ppMetricNames = c->names;
	add.numMetrics = c->n_names;
	TRY(c, cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
	PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
	sz.pHostObject = c->host;
	TRY(c, cuptiProfilerHostGetConfigImageSize(&sz), "cuptiProfilerHostGetConfigImageSize");
	if (!(c->config = malloc(sz.configImageSize ? sz.configImageSize : 1)))
		return CUPTI_ERROR_OUT_OF_MEMORY;
	c->config_size = sz.configImageSize;
	PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, img);
	img.pHostObject = c->host;
	img.configImageSize = c->config_size;
	img.pConfigImage = c->config;
	TRY(c, cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");
	PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
	np.configImageSize = c->config_size;
	np.pConfigImage = c->config;
	TRY(c, cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
	c->passes = np.numOfPasses;
	return CUPTI_SUCCESS;
}

/* Everything open needs from CUPTI; a refusal leaves c->reason set. */
static CUptiResult open_cupti(kjit__counters *c)
{
	CUdevice dev;
	CUresult cr = c->cu->cuCtxSetCurrent(c->ctx);
	if (cr == CUDA_SUCCESS)
		cr = c->cu->cuCtxGetDevice(&dev);
	if (cr != CUDA_SUCCESS) {
		snprintf(c->reason, sizeof c->reason, "counters refused: the context: %s" STILL_WORKS,
		         kjit__cu_error_name(cr));
		c->refused = 1;
		return CUPTI_ERROR_INVALID_CONTEXT;
	}
	int khz = 0;
	if (c->cu->cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) == CUDA_SUCCESS &&
	    khz > 0)
		c->sm_clock_hz = khz * 1e3;
	CUptiResult r;
	if ((r = profiler_init(c)) != CUPTI_SUCCESS || (r = device_supported(c, dev)) != CUPTI_SUCCESS ||
	    (r = availability(c)) != CUPTI_SUCCESS || (r = host_open(c, dev)) != CUPTI_SUCCESS)
		return r;
	choose_metrics(c);
	if (c->n_names == 0) {
		snprintf(c->reason, sizeof c->reason,
		         "counters refused: this GPU has none of kjit's metrics" STILL_WORKS);
		c->refused = 1;
		return CUPTI_ERROR_INVALID_METRIC_NAME;
	}
	return configure(c);
}

kjit_status kjit__counters_open(const kjit__cu_api *cu, CUcontext ctx, kjit__counters **out)
{
	*out = NULL;
	const char *env = kjit__env(KJIT__ENV_PROFILER);
	if (env && strcmp(env, "off") != 0 && strcmp(env, "on") != 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "KJIT_PROFILER=%s: expected on or off", env);
	kjit__counters *c = calloc(1, sizeof *c);
	if (!c)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory opening the counters");
	c->cu = cu;
	c->ctx = ctx;
	if (env && strcmp(env, "off") == 0) {
		snprintf(c->reason, sizeof c->reason,
		         "counters off (KJIT_PROFILER=off)" STILL_WORKS);
		c->refused = 1;
	} else if (open_cupti(c) == CUPTI_ERROR_OUT_OF_MEMORY && !c->refused) {
		kjit__counters_close(c);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory opening the counters");
	}
	*out = c;
	return KJIT_OK;
}

static CUptiResult session_end(kjit__counters *c, session *s);

void kjit__counters_close(kjit__counters *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g_lock);
	if (c->s.obj && c->cu->cuCtxSetCurrent(c->ctx) == CUDA_SUCCESS)
		(void)session_end(c, &c->s); /* closing: a refusal now changes nothing */
	else
		free(c->s.image);
	pthread_mutex_unlock(&g_lock);
	if (c->host) {
		PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p);
		p.pHostObject = c->host;
		(void)cuptiProfilerHostDeinitialize(&p); /* nothing left to do with it */
	}
	profiler_release(c);
	free(c->avail);
	free(c->config);
	free(c);
}

const char *kjit__counters_reason(const kjit__counters *c)
{
	return c->reason;
}

/* ---- one profile ---------------------------------------------------------- */

/* A counter data image for one range (sized and allocated once, cleared
 * for each profile), and the config set on the object. */
static CUptiResult session_configure(kjit__counters *c, session *s)
{
	if (!s->image) {
		PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, sz);
		sz.pRangeProfilerObject = s->obj;
		sz.pMetricNames = c->names;
		sz.numMetrics = c->n_names;
		sz.maxNumOfRanges = 1;
		sz.maxNumRangeTreeNodes = 1;
		TRY(c, cuptiRangeProfilerGetCounterDataSize(&sz),
		    "cuptiRangeProfilerGetCounterDataSize");
		if (!(s->image = malloc(sz.counterDataSize ? sz.counterDataSize : 1)))
			return CUPTI_ERROR_OUT_OF_MEMORY;
		s->image_size = sz.counterDataSize;
	}
	PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, in);
	in.pRangeProfilerObject = s->obj;
	in.counterDataSize = s->image_size;
	in.pCounterData = s->image;
	TRY(c, cuptiRangeProfilerCounterDataImageInitialize(&in),
	    "cuptiRangeProfilerCounterDataImageInitialize");
	PARAMS(CUpti_RangeProfiler_SetConfig_Params, cf);
	cf.pRangeProfilerObject = s->obj;
	cf.configSize = c->config_size;
	cf.pConfig = c->config;
	cf.counterDataImageSize = s->image_size;
	cf.pCounterDataImage = s->image;
	cf.range = CUPTI_AutoRange;
	cf.replayMode = CUPTI_KernelReplay;
	cf.maxRangesPerPass = 1;
	cf.numNestingLevels = 1;
	cf.minNestingLevel = 1;
	cf.passIndex = 0;
	cf.targetNestingLevel = 1;
	TRY(c, cuptiRangeProfilerSetConfig(&cf), "cuptiRangeProfilerSetConfig");
	return CUPTI_SUCCESS;
}

/* Start, the launch (CUPTI replays it pass by pass), stop, decode. A
 * failed launch is s->launch, not a refusal. */
static CUptiResult session_run(kjit__counters *c, session *s, kjit__launch_fn fn, void *fn_ctx,
                               CUstream stream)
{
	PARAMS(CUpti_RangeProfiler_Start_Params, st);
	st.pRangeProfilerObject = s->obj;
	TRY(c, cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
	s->launch = fn(fn_ctx, stream);
	if (s->launch == CUDA_SUCCESS)
		s->launch = c->cu->cuStreamSynchronize(stream);
	PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
	sp.pRangeProfilerObject = s->obj;
	TRY(c, cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
	if (s->launch != CUDA_SUCCESS)
		return CUPTI_SUCCESS;
	PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
	dd.pRangeProfilerObject = s->obj;
	TRY(c, cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData");
	return CUPTI_SUCCESS;
}

/* The values of the collected metrics in the image's first range. */
static CUptiResult session_evaluate(kjit__counters *c, session *s, double *values, size_t *ranges)
{
	PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
	info.pCounterDataImage = s->image;
	info.counterDataImageSize = s->image_size;
	TRY(c, cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
	*ranges = info.numTotalRanges;
	if (*ranges == 0)
		return CUPTI_SUCCESS;
	PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
	ev.pHostObject = c->host;
	ev.pCounterDataImage = s->image;
	ev.counterDataImageSize = s->image_size;
	ev.rangeIndex = 0;
	ev.ppMetricNames = c->names;
	ev.numMetrics = c->n_names;
	ev.pMetricValues = values;
	TRY(c, cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
	return CUPTI_SUCCESS;
}

/* Ends the session: the object disabled, the image freed. */
static CUptiResult session_end(kjit__counters *c, session *s)
{
	CUptiResult r = CUPTI_SUCCESS;
	if (s->obj) {
		PARAMS(CUpti_RangeProfiler_Disable_Params, dis);
		dis.pRangeProfilerObject = s->obj;
		r = cuptiRangeProfilerDisable(&dis);
	}
	free(s->image);
	*s = (session){ .launch = CUDA_SUCCESS };
	return r == CUPTI_SUCCESS ? r : refuse(c, r, "cuptiRangeProfilerDisable");
}

/* One profile in the kept session, enabled first when it is not; the
 * metric values in values[]. A failure ends the session, so the next
 * profile starts a new one. */
static CUptiResult session_profile(kjit__counters *c, session *s, kjit__launch_fn fn,
                                   void *fn_ctx, CUstream stream, double *values, size_t *ranges)
{
	s->launch = CUDA_SUCCESS;
	if (!s->obj) {
		PARAMS(CUpti_RangeProfiler_Enable_Params, en);
		en.ctx = c->ctx;
		TRY(c, cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
		s->obj = en.pRangeProfilerObject;
	}
	CUptiResult r = session_configure(c, s);
	if (r == CUPTI_SUCCESS)
		r = session_run(c, s, fn, fn_ctx, stream);
	if (r == CUPTI_SUCCESS && s->launch == CUDA_SUCCESS)
		r = session_evaluate(c, s, values, ranges);
	if (r != CUPTI_SUCCESS || s->launch != CUDA_SUCCESS) {
		CUresult launch = s->launch;
		CUptiResult rd = session_end(c, s);
		s->launch = launch;
		if (r == CUPTI_SUCCESS)
			r = rd;
	}
	return r;
}

static double metric(const kjit__counters *c, const double *values, int m)
{
	return c->slot[m] < 0 ? NAN : values[c->slot[m]];
}

/* Counters, peaks and what they make of each other, into out. */
static void fill_profile(const kjit__counters *c, const double *v, kjit_profile *out)
{
	out->duration_ns = metric(c, v, M_DURATION);
	out->dram_read_bytes = metric(c, v, M_DRAM_READ);
	out->dram_write_bytes = metric(c, v, M_DRAM_WRITE);
	out->l2_bytes = metric(c, v, M_L2);
	out->l1_bytes = metric(c, v, M_L1);
	out->flop_fp64 = metric(c, v, M_DADD) + metric(c, v, M_DMUL) + 2 * metric(c, v, M_DFMA);
	out->flop_fp32 = metric(c, v, M_FADD) + metric(c, v, M_FMUL) + 2 * metric(c, v, M_FFMA);
	out->flop_fp16 = metric(c, v, M_HADD) + metric(c, v, M_HMUL) + 2 * metric(c, v, M_HFMA);
	out->instructions = metric(c, v, M_INST);
	out->achieved_occupancy = metric(c, v, M_OCCUPANCY) / 100;
	double replay_hz = metric(c, v, M_SM_HZ);
	double cycles = out->duration_ns * 1e-9 * replay_hz;
	out->sm_throughput = (metric(c, v, M_FADD) + metric(c, v, M_FMUL) + metric(c, v, M_FFMA)) /
	                     (metric(c, v, M_PEAK_FFMA) * cycles);
	for (int m = M_ISSUE; m <= M_PIPE_SHARED; m++) {
		double f = metric(c, v, m) / 100;
		if (!(f <= out->sm_throughput)) /* a NAN so far, or a busier unit */
			out->sm_throughput = f;
	}
	out->dram_throughput = metric(c, v, M_DRAM_TPUT) / 100;
	out->passes = (unsigned)c->passes;
	double sm_hz = c->sm_clock_hz > replay_hz ? c->sm_clock_hz : replay_hz;
	out->peak_dram_bytes_per_s = metric(c, v, M_PEAK_DRAM) * metric(c, v, M_DRAM_HZ);
	out->peak_flop_fp64_per_s = 2 * metric(c, v, M_PEAK_DFMA) * sm_hz;
	out->peak_flop_fp32_per_s = 2 * metric(c, v, M_PEAK_FFMA) * sm_hz;
	out->peak_flop_fp16_per_s = 2 * metric(c, v, M_PEAK_HFMA) * sm_hz;
	double bytes = out->dram_read_bytes + out->dram_write_bytes;
	double flop = out->flop_fp64 + out->flop_fp32 + out->flop_fp16;
	double s = out->duration_ns * 1e-9;
	out->dram_bytes_per_s = s > 0 ? bytes / s : NAN;
	/* the replay's cycles at the peak's clock */
	out->flop_per_s = s > 0 && replay_hz > 0 ? flop / (s * replay_hz / sm_hz) : NAN;
	out->arithmetic_intensity = bytes > 0 ? flop / bytes : NAN;
}

void kjit__counters_clear(kjit_profile *out)
{
	out->duration_ns = out->dram_read_bytes = out->dram_write_bytes = NAN;
	out->l2_bytes = out->l1_bytes = NAN;
	out->flop_fp64 = out->flop_fp32 = out->flop_fp16 = NAN;
	out->instructions = out->achieved_occupancy = out->sm_throughput = NAN;
	out->dram_throughput = NAN;
	out->passes = 0;
	out->peak_dram_bytes_per_s = NAN;
	out->peak_flop_fp64_per_s = out->peak_flop_fp32_per_s = out->peak_flop_fp16_per_s = NAN;
	out->dram_bytes_per_s = out->flop_per_s = out->arithmetic_intensity = NAN;
}

kjit_status kjit__counters_profile(kjit__counters *c, kjit__launch_fn fn, void *fn_ctx,
                                   CUstream stream, kjit_profile *out)
{
	kjit__counters_clear(out);
	double values[M_COUNT];
	size_t ranges = 0;
	CUptiResult r = CUPTI_SUCCESS;
	CUresult launch = CUDA_SUCCESS;
	pthread_mutex_lock(&g_lock);
	if (!c->refused) {
		CUresult cr = c->cu->cuCtxSetCurrent(c->ctx);
		r = cr == CUDA_SUCCESS ? session_profile(c, &c->s, fn, fn_ctx, stream, values, &ranges)
		                       : refuse(c, CUPTI_ERROR_INVALID_CONTEXT, "cuCtxSetCurrent");
		launch = c->s.launch;
	}
	int refused = c->refused;
	pthread_mutex_unlock(&g_lock);
	out->counters_reason = c->reason;
	if (launch != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_LAUNCH, launch, "the profiled launch");
	if (refused)
		return KJIT_OK;
	if (r == CUPTI_ERROR_OUT_OF_MEMORY)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory profiling a launch");
	if (ranges == 0) {
		out->counters_reason = "counters: the launch recorded no kernel range" STILL_WORKS;
		return KJIT_OK;
	}
	fill_profile(c, values, out);
	return KJIT_OK;
}
