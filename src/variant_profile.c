/* variant_profile.c - kjit_variant_profile: a variant's resource usage
 * from the driver, and the hardware counters of one launch through the
 * instrumentation layer's profiler. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "engine.h"
#include "instr.h"

void kjit_profile_options_init(kjit_profile_options *o)
{
	memset(o, 0, sizeof *o);
	o->counters = 1;
	o->energy = 0;
	o->energy_ms = 20;
}

/* The arguments a launch could not start with, named. */
static kjit_status check_launch(const unsigned grid[3], const unsigned block[3],
                                const kjit_profile_options *o)
{
	if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_profile: grid %ux%ux%u, block "
		                   "%ux%ux%u: every dimension must be at least 1", grid[0], grid[1],
		                   grid[2], block[0], block[1], block[2]);
	if (o->energy && !(o->energy_ms > 0 && o->energy_ms <= 60000))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_profile: energy_ms %g: expected "
		                   "more than 0 and at most 60000", o->energy_ms);
	if (o->energy && !(o->energy_best_j >= 0 && o->energy_best_j <= INFINITY))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_profile: energy_best_j %g: "
		                   "expected 0 (no race) or a positive best", o->energy_best_j);
	return KJIT_OK;
}

/* Registers, shared, local and constant memory: the loaded function's
 * attributes, no launch needed. */
static kjit_status resource_usage(const kjit__cu_api *cu, CUfunction f, kjit_profile *out)
{
	static const struct {
		CUfunction_attribute attr;
		const char *name;
	} attrs[] = {
		{ CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS" },
		{ CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES" },
		{ CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES" },
		{ CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "CONST_SIZE_BYTES" },
	};
	int *fields[] = { &out->registers, &out->static_shared_bytes, &out->local_bytes,
	                  &out->const_bytes };
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		CUresult r = cu->cuFuncGetAttribute(fields[i], attrs[i].attr, f);
		if (r != CUDA_SUCCESS) {
			char what[96];
			snprintf(what, sizeof what, "cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_%s)",
			         attrs[i].name);
			return kjit__cu_fail(KJIT_ERR_CUDA, r, what);
		}
	}
	return KJIT_OK;
}

/* The profile's figures before anything is read: NAN, with reasons. */
static void profile_clear(kjit_profile *out)
{
	memset(out, 0, sizeof *out);
	kjit__counters_clear(out);
	out->energy_j = out->power_w = out->energy_rel_spread = NAN;
	out->counters_reason = "counters not requested (options.counters = 0)";
	out->energy_reason = "energy not measured";
}

/* Energy per launch over a timed batch (cupti/energy.c). No NVML is a
 * reason, not an error; a launch the driver refuses is one. */
static kjit_status energy(kjit_engine *e, kjit__launch *l, kjit_stream stream,
                          const kjit_profile_options *opts, kjit_profile *out)
{
	const char *reason;
	kjit__nvml *n = kjit__engine_nvml(e, &reason);
	if (!n) {
		out->energy_reason = reason;
		return KJIT_OK;
	}
	kjit__energy en;
	kjit_status st = kjit__energy_measure(n, e->cu, kjit__launch_once, l, (CUstream)stream,
	                                      opts->energy_ms, opts->energy_best_j, &en);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	out->energy_j = en.energy_j;
	out->power_w = en.power_w;
	out->energy_rel_spread = en.rel_spread;
	out->energy_reason = "";
	return KJIT_OK;
}

kjit_status kjit_variant_profile(kjit_variant *v, const unsigned grid[3], const unsigned block[3],
                                 unsigned shared_bytes, kjit_stream stream, void **args,
                                 const kjit_profile_options *opts, kjit_profile *out)
{
	if (!v || !grid || !block || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_profile: NULL argument");
	profile_clear(out);
	kjit_engine *e = v->kernel->engine;
	kjit_profile_options defaults;
	if (!opts) {
		kjit_profile_options_init(&defaults);
		opts = &defaults;
	}
	kjit_status st = check_launch(grid, block, opts);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	if (!v->function)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NO_GPU, "cannot profile %s: %s",
		                                        v->kernel->name, e->gpu_reason));
	if ((st = kjit__engine_ctx(e)) != KJIT_OK || (st = kjit__variant_shared(v, shared_bytes)) !=
	    KJIT_OK || (st = resource_usage(e->cu, v->function, out)) != KJIT_OK)
		return kjit__engine_fail(e, st);
	kjit__launch l = { e->cu, v->function, grid, block, shared_bytes, args };
	if (opts->counters) {
		kjit__counters *c;
		if ((st = kjit__engine_counters(e, &c)) != KJIT_OK)
			return kjit__engine_fail(e, st);
		kjit__nvtx_push(KJIT__NVTX_EVALUATE, v->kernel->name);
		st = kjit__counters_profile(c, kjit__launch_once, &l, (CUstream)stream, out);
		kjit__nvtx_pop();
		if (st != KJIT_OK)
			return kjit__engine_fail(e, st);
	}
	return opts->energy ? energy(e, &l, stream, opts, out) : KJIT_OK;
}
