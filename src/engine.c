/* engine.c - opening and closing an engine: database, driver, device,
 * context; errors, stats and the device memory helpers. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

void kjit_engine_options_init(kjit_engine_options *opts)
{
	memset(opts, 0, sizeof *opts);
}

kjit_status kjit__engine_fail(kjit_engine *e, kjit_status status)
{
	if (!e)
		return status;
	char *copy = strdup(kjit__error_msg());
	pthread_mutex_lock(&e->lock);
	if (copy) {
		free(e->last_error);
		e->last_error = copy;
	}
	pthread_mutex_unlock(&e->lock);
	return status;
}

/* Each thread reads a copy taken under the lock, so that another thread's
 * failure cannot free the text while it is being read. */
static pthread_key_t copy_key;
static pthread_once_t copy_once = PTHREAD_ONCE_INIT;

static void copy_key_create(void)
{
	(void)pthread_key_create(&copy_key, free);
}

const char *kjit_engine_last_error(const kjit_engine *e)
{
	if (!e)
		return "";
	pthread_once(&copy_once, copy_key_create);
	pthread_mutex_lock((pthread_mutex_t *)&e->lock);
	char *copy = strdup(e->last_error ? e->last_error : "");
	pthread_mutex_unlock((pthread_mutex_t *)&e->lock);
	if (!copy)
		return "out of memory";
	free(pthread_getspecific(copy_key));
	(void)pthread_setspecific(copy_key, copy);
	return copy;
}

/* A cubin for sm_XY runs on a device sm_AB when X == A and Y <= B; the
 * arch-specific sm_XYa runs on sm_XY alone. */
static int arch_runs_on(const char *arch, int major, int minor)
{
	int v = atoi(arch + 3);
	size_t len = strlen(arch);
	int specific = arch[len - 1] == 'a' || arch[len - 1] == 'f';
	if (specific)
		return v == major * 10 + minor || (arch[len - 1] == 'f' && v / 10 == major &&
		                                   v % 10 <= minor);
	return v / 10 == major && v % 10 <= minor;
}

/* KJIT_CACHE_MAX_BYTES: a byte count with an optional K, M or G suffix. */
static kjit_status parse_size(const char *text, int64_t *out)
{
	char *end = NULL;
	long long v = strtoll(text, &end, 10);
	int64_t mul = 1;
	if (end && (*end == 'K' || *end == 'k'))
		mul = 1 << 10, end++;
	else if (end && (*end == 'M' || *end == 'm'))
		mul = 1 << 20, end++;
	else if (end && (*end == 'G' || *end == 'g'))
		mul = (int64_t)1 << 30, end++;
	if (end == text || *end || v <= 0 || v > INT64_MAX / mul)
		return kjit__error(KJIT_ERR_INVALID_ARG, "KJIT_CACHE_MAX_BYTES='%s': expected a "
		                   "positive size in bytes, optionally with K, M or G", text);
	*out = v * mul;
	return KJIT_OK;
}

/* sm_NN or compute_NN, optionally arch-specific (a) or family-specific
 * (f), for an NN that this NVRTC compiles for. */
static kjit_status check_arch(const char *a)
{
	size_t prefix = kjit__arch_is_virtual(a) ? 8 : strncmp(a, "sm_", 3) == 0 ? 3 : 0;
	const char *p = a + prefix;
	while (*p >= '0' && *p <= '9')
		p++;
	if (!prefix || p == a + prefix || p - (a + prefix) > 4 ||
	    (*p && !((*p == 'a' || *p == 'f') && !p[1])))
		return kjit__error(KJIT_ERR_INVALID_ARG, "invalid arch '%s': expected sm_NN such as "
		                   "sm_90 (a cubin), or compute_NN such as compute_90 (PTX), "
		                   "optionally with a or f", a);
	const int *known;
	size_t n;
	kjit_status st = kjit__nvrtc_archs(&known, &n);
	if (st != KJIT_OK)
		return st;
	int v = atoi(a + prefix);
	for (size_t i = 0; i < n; i++)
		if (known[i] == v)
			return KJIT_OK;
	char list[512] = "";
	for (size_t i = 0, len = 0; i < n && len < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%ssm_%d", i ? " " : "",
		                        known[i]);
	return kjit__error(KJIT_ERR_INVALID_ARG, "unknown arch '%s': NVRTC %s compiles for %s "
	                   "(and compute_NN of those)", a, kjit_nvrtc_id(), list);
}

/* The one message of an engine with no GPU and no arch to compile for. */
static kjit_status no_arch(kjit_status status, const char *reason)
{
	return kjit__error(status, "no GPU (%s) and no target arch: give one with --arch sm_NN or "
	                   "$KJIT_ARCH (kjit_engine_options.arch)", reason);
}

/* Driver, device, primary context; on failure fills e->gpu_reason. */
static kjit_status open_gpu(kjit_engine *e, int ordinal)
{
	kjit_status st;
	const kjit__cu_api *cu = kjit__cu(&st);
	if (!cu)
		return st;
	int count = 0;
	CUresult r = cu->cuDeviceGetCount(&count);
	if (r != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_NO_GPU, r, "cuDeviceGetCount");
	if (count == 0)
		return kjit__error(KJIT_ERR_NO_GPU, "CUDA_ERROR_NO_DEVICE: the driver sees no GPU");
	if (ordinal < 0 || ordinal >= count)
		return kjit__error(KJIT_ERR_INVALID_ARG, "CUDA_ERROR_INVALID_DEVICE: device %d asked for, "
		                   "the driver sees %d (0-%d)", ordinal, count, count - 1);
	if ((r = cu->cuDeviceGet(&e->device, ordinal)) != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_NO_GPU, r, "cuDeviceGet");
	int major = 0, minor = 0, sms = 0;
	if ((r = cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
	                                  e->device)) != CUDA_SUCCESS ||
	    (r = cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
	                                  e->device)) != CUDA_SUCCESS ||
	    (r = cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
	                                  e->device)) != CUDA_SUCCESS ||
	    (r = cu->cuDeviceGetAttribute(&e->shared_default,
	                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
	                                  e->device)) != CUDA_SUCCESS ||
	    (r = cu->cuDeviceGetAttribute(&e->shared_optin,
	                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
	                                  e->device)) != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuDeviceGetAttribute");
	if ((r = cu->cuDeviceGetName(e->device_name, sizeof e->device_name, e->device)) != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuDeviceGetName");
	if ((r = cu->cuDevicePrimaryCtxRetain(&e->ctx, e->device)) != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuDevicePrimaryCtxRetain");
	if ((r = cu->cuCtxSetCurrent(e->ctx)) != CUDA_SUCCESS) {
		cu->cuDevicePrimaryCtxRelease(e->device);
		e->ctx = NULL;
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxSetCurrent");
	}
	e->cu = cu;
	if (e->arch[0] && !arch_runs_on(e->arch, major, minor))
		return kjit__error(KJIT_ERR_INVALID_ARG, "arch %s cannot run on device %d (%s, "
		                   "sm_%d%d): open the engine with KJIT_ENGINE_NO_GPU to compile for "
		                   "another GPU", e->arch, ordinal, e->device_name, major, minor);
	char dev_arch[16];
	snprintf(dev_arch, sizeof dev_arch, "sm_%d%d", major, minor);
	if (!e->arch[0])
		snprintf(e->arch, sizeof e->arch, "%s", dev_arch);
	e->ordinal = ordinal;
	e->sms = sms;
	snprintf(e->device_key, sizeof e->device_key, "%s|%s|%d|%d", dev_arch, e->device_name, sms,
	         cu->driver_version);
	return kjit__store_device_put(e->store, e->device_key, e->device_name, dev_arch, sms,
	                              cu->driver_version);
}

/* ---- telemetry and profiling --------------------------------------------- */

/* kjit__engine_event() with a detail (NULL: none). */
static void record_event(kjit_engine *e, kjit__event_kind kind, const kjit_kernel *k,
                         const kjit_variant *v, const char *tier, double value, int64_t count,
                         const char *detail)
{
	if (!e->telemetry)
		return;
	kjit__event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	if (k) {
		memcpy(ev.signature, k->signature, sizeof ev.signature);
		snprintf(ev.kernel, sizeof ev.kernel, "%s", k->name);
	}
	if (v)
		memcpy(ev.variant, v->key, sizeof ev.variant);
	if (tier)
		snprintf(ev.tier, sizeof ev.tier, "%s", tier);
	if (detail)
		snprintf(ev.detail, sizeof ev.detail, "%s", detail);
	ev.value = value;
	ev.count = count;
	kjit__telemetry_record(e->telemetry, &ev);
}

void kjit__engine_event(kjit_engine *e, kjit__event_kind kind, const kjit_kernel *k,
                        const kjit_variant *v, const char *tier, double value, int64_t count)
{
	record_event(e, kind, k, v, tier, value, count, NULL);
}

void kjit__engine_sink(void *ctx, uint64_t tag, double ns)
{
	kjit_engine *e = ctx;
	if (kjit__tag_is_memo(tag)) {
		const kjit__tuning_hooks *h = atomic_load_explicit(&e->tuning, memory_order_acquire);
		if (h)
			h->sample(e, tag, ns);
		return;
	}
	pthread_mutex_lock(&e->lock);
	kjit_variant *v = tag < e->n_ids ? e->by_id[tag] : NULL;
	pthread_mutex_unlock(&e->lock);
	if (v)
		kjit__engine_event(e, KJIT__EV_LAUNCH, v->kernel, v, NULL, ns, 1);
}

/* Runs on the telemetry writer every tick: the counts that the hot paths
 * keep without writing events (memory hits, launches), and the durations
 * of profiled launches. NAN values are stored as NULL: a count, no time. */
static void engine_sampler(void *ctx, kjit__telemetry *t)
{
	(void)t;
	kjit_engine *e = ctx;
	if (e->profile_every) {
		pthread_mutex_lock(&e->timer_lock);
		if (e->timer)
			(void)kjit__timer_poll(e->timer);
		pthread_mutex_unlock(&e->timer_lock);
	}
	pthread_mutex_lock(&e->lock);
	for (kjit_kernel *k = e->kernels; k; k = k->next) {
		uint64_t all_hits = k->memory_hits +
		                    atomic_load_explicit(&k->given_hits, memory_order_relaxed);
		uint64_t hits = all_hits - k->reported_hits;
		uint64_t launches = atomic_load_explicit(&k->launches, memory_order_relaxed);
		uint64_t new_launches = launches - k->reported_launches;
		k->reported_hits = all_hits;
		k->reported_launches = launches;
		if (hits)
			kjit__engine_event(e, KJIT__EV_CACHE, k, NULL, KJIT__TIER_MEMORY, NAN,
			                   (int64_t)hits);
		if (new_launches)
			kjit__engine_event(e, KJIT__EV_LAUNCH, k, NULL, NULL, NAN, (int64_t)new_launches);
	}
	pthread_mutex_unlock(&e->lock);
	const kjit__tuning_hooks *h = atomic_load_explicit(&e->tuning, memory_order_acquire);
	if (h)
		h->tick(e);
}

void kjit__engine_hooks(kjit_engine *e, const kjit__tuning_hooks *hooks)
{
	atomic_store_explicit(&e->tuning, hooks, memory_order_release);
}

/* The engine's timer, made on first use: CUPTI is process-wide and its
 * set-up costs milliseconds, so engines that never measure never pay. */
kjit_status kjit__engine_timer(kjit_engine *e, kjit__timer **out)
{
	pthread_mutex_lock(&e->timer_lock);
	kjit_status st = KJIT_OK;
	if (!e->timer && (st = kjit__engine_ctx(e)) == KJIT_OK &&
	    (st = kjit__timer_open(e->cu, e->ctx, &e->timer)) == KJIT_OK)
		kjit__timer_set_sink(e->timer, kjit__engine_sink, e);
	*out = e->timer;
	pthread_mutex_unlock(&e->timer_lock);
	return st;
}

/* Like the timer: the profiler's set-up costs an engine that never
 * profiles nothing. */
kjit_status kjit__engine_counters(kjit_engine *e, kjit__counters **out)
{
	pthread_mutex_lock(&e->timer_lock);
	kjit_status st = KJIT_OK;
	if (!e->counters && (st = kjit__engine_ctx(e)) == KJIT_OK)
		st = kjit__counters_open(e->cu, e->ctx, &e->counters);
	*out = e->counters;
	pthread_mutex_unlock(&e->timer_lock);
	return st;
}

kjit__nvml *kjit__engine_nvml(kjit_engine *e, const char **reason)
{
	pthread_mutex_lock(&e->timer_lock);
	if (!e->nvml_tried) {
		e->nvml_tried = 1;
		if (kjit__nvml_open(e->cu, e->device, &e->nvml) != KJIT_OK)
			snprintf(e->nvml_reason, sizeof e->nvml_reason, "energy: %s",
			         kjit_last_error());
	}
	kjit__nvml *n = e->nvml;
	*reason = e->nvml_reason;
	pthread_mutex_unlock(&e->timer_lock);
	return n;
}

/* The tuning policy ($KJIT_TUNE when the options leave it) and the drift
 * threshold ($KJIT_DRIFT). */
static kjit_status tuning_options(kjit_engine *e, const kjit_engine_options *o)
{
	e->tune = o->tune;
	if (e->tune == KJIT_TUNE_ENV) {
		const char *env = kjit__env(KJIT__ENV_TUNE);
		if (!env || strcmp(env, "off") == 0)
			e->tune = KJIT_TUNE_OFF;
		else if (strcmp(env, "online") == 0)
			e->tune = KJIT_TUNE_ONLINE;
		else if (strcmp(env, "background") == 0)
			e->tune = KJIT_TUNE_BACKGROUND;
		else
			return kjit__error(KJIT_ERR_INVALID_ARG, "KJIT_TUNE='%s': expected off, online "
			                   "or background", env);
	} else if (e->tune != KJIT_TUNE_OFF && e->tune != KJIT_TUNE_ONLINE &&
	           e->tune != KJIT_TUNE_BACKGROUND) {
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_open: unknown tuning policy %d",
		                   (int)e->tune);
	}
	e->tune_variants = o->tune_variants ? o->tune_variants : 32;
	e->tune_samples = o->tune_samples ? o->tune_samples : 3;
	e->drift_threshold = o->drift_threshold;
	const char *drift = kjit__env(KJIT__ENV_DRIFT);
	if (e->drift_threshold == 0 && drift) {
		char *end = NULL;
		e->drift_threshold = strtod(drift, &end);
		if (end == drift || *end || !(e->drift_threshold > 1))
			return kjit__error(KJIT_ERR_INVALID_ARG, "KJIT_DRIFT='%s': expected a slowdown "
			                   "factor above 1 (1.3: 30%% slower)", drift);
	}
	if (e->drift_threshold == 0)
		e->drift_threshold = 1.3;
	if (!(e->drift_threshold > 1))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_open: drift_threshold %g: "
		                   "expected a factor above 1", e->drift_threshold);
	return KJIT_OK;
}

/* KJIT_TELEMETRY=0|1 (default 1) and KJIT_PROFILE=<rate in [0, 1]>. */
static kjit_status start_telemetry(kjit_engine *e)
{
	const char *tel = kjit__env(KJIT__ENV_TELEMETRY);
	if (tel && strcmp(tel, "0") != 0 && strcmp(tel, "1") != 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "KJIT_TELEMETRY='%s': expected 0 or 1", tel);
	const char *prof = kjit__env(KJIT__ENV_PROFILE);
	if (prof) {
		char *end = NULL;
		double rate = strtod(prof, &end);
		if (end == prof || *end || !(rate >= 0 && rate <= 1))
			return kjit__error(KJIT_ERR_INVALID_ARG, "KJIT_PROFILE='%s': expected a sample "
			                   "rate between 0 and 1 (0.01: one launch in 100)", prof);
		e->profile_every = rate > 0 ? (uint64_t)(1.0 / rate + 0.5) : 0;
	}
	if ((tel && strcmp(tel, "0") == 0) || strcmp(e->db_path, KJIT__STORE_MEMORY) == 0)
		return KJIT_OK;
	kjit__telemetry_opts o;
	kjit__telemetry_defaults(&o);
	return kjit__telemetry_open(e->db_path, &o, &e->telemetry);
}

/* Profiling needs CUPTI; with the events fallback launches stay untimed.
 * The engine's sampler, which reads profile_every on the writer thread,
 * is added once profile_every is settled. */
static kjit_status start_profiling(kjit_engine *e)
{
	kjit__timer *timer;
	if (!e->profile_every || !e->cu || !e->telemetry ||
	    kjit__engine_timer(e, &timer) != KJIT_OK || kjit__timer_kind_of(timer) != KJIT__TIMER_CUPTI)
		e->profile_every = 0;
	return e->telemetry ? kjit__telemetry_add_sampler(e->telemetry, engine_sampler, e) : KJIT_OK;
}

kjit_status kjit_engine_open(const kjit_engine_options *opts, kjit_engine **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_open: out is NULL");
	*out = NULL;
	kjit_engine_options defaults;
	if (!opts) {
		kjit_engine_options_init(&defaults);
		opts = &defaults;
	}
	const char *arch = opts->arch;
	if (!arch || !*arch)
		arch = kjit__env(KJIT__ENV_ARCH);
	kjit_status st = KJIT_OK;
	if (arch && *arch && (st = check_arch(arch)) != KJIT_OK)
		return st;
	if (opts->flags & ~KJIT_ENGINE_NO_GPU)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_open: unknown flags 0x%x",
		                   opts->flags & ~KJIT_ENGINE_NO_GPU);
	/* A GPU runs cubins; the PTX tier gives it those a virtual arch's PTX. */
	if (arch && *arch && kjit__arch_is_virtual(arch) && !(opts->flags & KJIT_ENGINE_NO_GPU))
		return kjit__error(KJIT_ERR_INVALID_ARG, "arch %s is virtual (it compiles to PTX, "
		                   "for a database that serves later GPUs): open the engine with "
		                   "KJIT_ENGINE_NO_GPU", arch);
	if (opts->compile_threads < 0 || opts->cache_max_bytes < 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_open: compile_threads and "
		                   "cache_max_bytes must not be negative");

	kjit_engine *e = calloc(1, sizeof *e);
	if (!e)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->timer_lock, NULL);
	if (arch && *arch)
		snprintf(e->arch, sizeof e->arch, "%s", arch);
	e->threads = opts->compile_threads ? opts->compile_threads : kjit__cpu_count();
	e->cache_max = opts->cache_max_bytes;
	const char *env_max = kjit__env(KJIT__ENV_CACHE_MAX_BYTES);
	if (!e->cache_max && env_max && (st = parse_size(env_max, &e->cache_max)) != KJIT_OK)
		goto fail;
	if (e->cache_max <= 0)
		e->cache_max = KJIT__DEFAULT_CACHE_MAX;
	if ((st = tuning_options(e, opts)) != KJIT_OK)
		goto fail;

	if (opts->db_path && *opts->db_path)
		e->db_path = strdup(opts->db_path);
	else if ((st = kjit_store_default_path(&e->db_path)) != KJIT_OK)
		goto fail;
	if (!e->db_path) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((st = kjit__store_open(e->db_path, &e->store)) != KJIT_OK ||
	    (st = kjit__store_prepare_binaries(e->store)) != KJIT_OK)
		goto fail;
	/* once per process, here rather than on a first kernel or lookup */
	(void)kjit_nvrtc_id();
	kjit__headers_init();

	if (opts->flags & KJIT_ENGINE_NO_GPU) {
		snprintf(e->gpu_reason, sizeof e->gpu_reason, "opened with KJIT_ENGINE_NO_GPU");
	} else if ((st = open_gpu(e, opts->device)) != KJIT_OK) {
		snprintf(e->gpu_reason, sizeof e->gpu_reason, "%s", kjit__error_msg());
		if (st != KJIT_ERR_NO_GPU || !e->arch[0]) {
			if (st == KJIT_ERR_NO_GPU)
				no_arch(st, e->gpu_reason);
			goto fail;
		}
		st = KJIT_OK; /* compile-only engine */
	}
	if (!e->arch[0]) {
		st = no_arch(KJIT_ERR_INVALID_ARG, e->gpu_reason);
		goto fail;
	}
	if ((st = start_telemetry(e)) != KJIT_OK || (st = start_profiling(e)) != KJIT_OK)
		goto fail;
	*out = e;
	return KJIT_OK;
fail:
	kjit_engine_close(e);
	return st;
}

kjit_status kjit__engine_ctx(kjit_engine *e)
{
	if (!e->cu)
		return kjit__error(KJIT_ERR_NO_GPU, "this engine has no GPU: %s", e->gpu_reason);
	CUcontext cur = NULL;
	CUresult r = e->cu->cuCtxGetCurrent(&cur);
	if (r == CUDA_SUCCESS && cur != e->ctx)
		r = e->cu->cuCtxSetCurrent(e->ctx);
	return r == CUDA_SUCCESS ? KJIT_OK : kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxSetCurrent");
}

void kjit_engine_close(kjit_engine *e)
{
	if (!e)
		return;
	/* Online searches compiling on their threads end first. */
	const kjit__tuning_hooks *h = atomic_load_explicit(&e->tuning, memory_order_acquire);
	for (kjit_kernel *k = e->kernels; h && k; k = k->next)
		h->stop(k);
	/* Its last tick reads the kernels and the timer: it goes first. */
	if (e->telemetry)
		kjit__telemetry_close(e->telemetry);
	e->telemetry = NULL;
	if (e->timer && kjit__engine_ctx(e) == KJIT_OK)
		kjit__timer_close(e->timer);
	e->timer = NULL;
	kjit__counters_close(e->counters); /* its session ends in the context, still held */
	e->counters = NULL;
	kjit__nvml_close(e->nvml);
	e->nvml = NULL;
	/* Memory hits cost no write; their use is recorded here, so that a
	 * variant a long-running process relies on does not age out. */
	if (e->store) {
		for (kjit_variant *v = e->variants; v; v = v->next_in_engine)
			kjit__store_binary_touch(e->store, v->key);
	}
	/* Modules unload in the engine's context; when it cannot be made
	 * current they go with it at the primary context's release. */
	int current = e->cu && kjit__engine_ctx(e) == KJIT_OK;
	for (kjit_variant *v = e->variants, *next; v; v = next) {
		next = v->next_in_engine;
		if (!current)
			v->module = NULL;
		kjit__variant_free(v);
	}
	for (kjit_kernel *k = e->kernels, *next; k; k = next) {
		next = k->next;
		if (h)
			h->free(k);
		kjit__kernel_free(k);
	}
	kjit__table_free(&e->table);
	free(e->by_id);
	if (h)
		h->close(e);
	if (e->ctx)
		e->cu->cuDevicePrimaryCtxRelease(e->device);
	(void)kjit__store_close(e->store); /* each call wrote its own; left: use times */
	free(e->db_path);
	free(e->last_error);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->timer_lock);
	free(e);
}

int kjit_engine_has_gpu(const kjit_engine *e) { return e && e->cu; }
const char *kjit_engine_gpu_reason(const kjit_engine *e) { return e && !e->cu ? e->gpu_reason : ""; }
const char *kjit_engine_arch(const kjit_engine *e) { return e ? e->arch : ""; }
const char *kjit_engine_device_name(const kjit_engine *e) { return e ? e->device_name : ""; }
const char *kjit_engine_db_path(const kjit_engine *e) { return e ? e->db_path : ""; }

kjit_binary_kind kjit_engine_binary_kind(const kjit_engine *e)
{
	return e && kjit__arch_is_virtual(e->arch) ? KJIT_BINARY_PTX : KJIT_BINARY_CUBIN;
}

void kjit_engine_note_tuning(kjit_engine *e, const kjit_kernel *k, int64_t run,
                             kjit_result_status status, size_t evaluated)
{
	if (!e || !k || !e->telemetry)
		return;
	char detail[64];
	snprintf(detail, sizeof detail, "run %lld %s", (long long)run,
	         kjit_result_status_name(status));
	record_event(e, KJIT__EV_TUNE, k, NULL, NULL, (double)evaluated, 0, detail);
}

kjit_status kjit_engine_device(kjit_engine *e, kjit_device_info *out)
{
	if (!e || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_device: NULL argument");
	memset(out, 0, sizeof *out);
	if (!e->cu)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NO_GPU, "kjit_engine_device: no GPU "
		                                        "(%s)", e->gpu_reason));
	const kjit__cu_api *cu = e->cu;
	CUuuid uuid;
	CUresult r = cu->cuDeviceGetCount(&out->count);
	const char *call = "cuDeviceGetCount";
	if (r == CUDA_SUCCESS && (r = cu->cuDeviceGetUuid(&uuid, e->device)) != CUDA_SUCCESS)
		call = "cuDeviceGetUuid";
	if (r == CUDA_SUCCESS &&
	    (r = cu->cuDeviceGetAttribute(&out->max_threads_per_block,
	                                  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, e->device)) !=
	            CUDA_SUCCESS)
		call = "cuDeviceGetAttribute";
	if (r != CUDA_SUCCESS)
		return kjit__engine_fail(e, kjit__cu_fail(KJIT_ERR_CUDA, r, call));
	kjit__cu_uuid_text(&uuid, out->uuid);
	out->ordinal = e->ordinal;
	out->name = e->device_name;
	out->arch = e->arch;
	out->key = e->device_key;
	out->multiprocessors = e->sms;
	out->max_shared_per_block = e->shared_optin;
	return KJIT_OK;
}

kjit_status kjit_engine_make_current(kjit_engine *e)
{
	if (!e)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_make_current: engine is NULL");
	kjit_status st = kjit__engine_ctx(e);
	return st == KJIT_OK ? st : kjit__engine_fail(e, st);
}

kjit_status kjit_engine_get_stats(const kjit_engine *e, kjit_engine_stats *out)
{
	if (!e || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_get_stats: NULL argument");
	pthread_mutex_lock((pthread_mutex_t *)&e->lock);
	*out = e->stats;
	/* the hits of descriptors as given, counted without the lock */
	for (const kjit_kernel *k = e->kernels; k; k = k->next)
		out->memory_hits += atomic_load_explicit(&k->given_hits, memory_order_relaxed);
	pthread_mutex_unlock((pthread_mutex_t *)&e->lock);
	return KJIT_OK;
}

/* ---- device memory ------------------------------------------------------ */

static kjit_status mem_result(kjit_engine *e, CUresult r, const char *what)
{
	return r == CUDA_SUCCESS ? KJIT_OK : kjit__engine_fail(e, kjit__cu_fail(KJIT_ERR_CUDA, r, what));
}

#define KJIT__MEM_ENTER(e, name)                                                    \
	do {                                                                        \
		if (!(e))                                                           \
			return kjit__error(KJIT_ERR_INVALID_ARG, name ": engine is NULL"); \
		kjit_status st_ = kjit__engine_ctx(e);                              \
		if (st_ != KJIT_OK)                                                 \
			return kjit__engine_fail(e, st_);                           \
	} while (0)

kjit_status kjit_mem_alloc(kjit_engine *e, size_t bytes, kjit_devptr *out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_mem_alloc: out is NULL");
	*out = 0;
	KJIT__MEM_ENTER(e, "kjit_mem_alloc");
	CUdeviceptr p = 0;
	kjit_status st = mem_result(e, e->cu->cuMemAlloc(&p, bytes), "cuMemAlloc");
	*out = st == KJIT_OK ? (kjit_devptr)p : 0;
	return st;
}

kjit_status kjit_mem_free(kjit_engine *e, kjit_devptr ptr)
{
	KJIT__MEM_ENTER(e, "kjit_mem_free");
	return mem_result(e, e->cu->cuMemFree((CUdeviceptr)ptr), "cuMemFree");
}

kjit_status kjit_memcpy_htod(kjit_engine *e, kjit_devptr dst, const void *src, size_t bytes)
{
	KJIT__MEM_ENTER(e, "kjit_memcpy_htod");
	return mem_result(e, e->cu->cuMemcpyHtoD((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD");
}

kjit_status kjit_memcpy_dtoh(kjit_engine *e, void *dst, kjit_devptr src, size_t bytes)
{
	KJIT__MEM_ENTER(e, "kjit_memcpy_dtoh");
	return mem_result(e, e->cu->cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH");
}

kjit_status kjit_memcpy_dtod(kjit_engine *e, kjit_devptr dst, kjit_devptr src, size_t bytes)
{
	KJIT__MEM_ENTER(e, "kjit_memcpy_dtod");
	return mem_result(e, e->cu->cuMemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, bytes),
	                  "cuMemcpyDtoD");
}

kjit_status kjit_synchronize(kjit_engine *e)
{
	KJIT__MEM_ENTER(e, "kjit_synchronize");
	return mem_result(e, e->cu->cuCtxSynchronize(), "cuCtxSynchronize");
}

int kjit_engine_store_broken(const kjit_engine *e, kjit_status st)
{
	return st == KJIT_ERR_DB && e && kjit__store_broken(e->store);
}

kjit_status kjit_engine_binary_export(kjit_engine *e, const char *key, void **blob,
                                      size_t *size)
{
	if (!blob || !size)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_binary_export: blob or size "
		                   "is NULL");
	*blob = NULL;
	*size = 0;
	if (!e || !key)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_binary_export: engine or key "
		                   "is NULL");
	kjit__binary b;
	char sum[33];
	void *mem = NULL;
	kjit_status st = kjit__store_binary_read(e->store, key, &b, sum, &mem);
	if (st == KJIT_OK)
		st = kjit__binary_encode(&b, sum, blob, size);
	free(mem);
	return st;
}

kjit_status kjit_engine_binary_import(kjit_engine *e, const void *blob, size_t size, char *key)
{
	if (key)
		*key = '\0';
	if (!e || !blob)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_engine_binary_import: engine or blob "
		                   "is NULL");
	kjit__binary b;
	void *mem = NULL;
	kjit_status st = kjit__binary_decode(blob, size, &b, &mem);
	if (st == KJIT_OK)
		st = kjit__store_binary_put(e->store, &b, e->cache_max);
	if (st == KJIT_OK && key)
		snprintf(key, 33, "%s", b.key);
	free(mem);
	return st;
}
