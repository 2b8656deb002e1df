/* measure.c - kjit_variant_measure: the instrumentation layer's protocol
 * applied to a variant, with the engine's timer. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "instr.h"

void kjit_measure_options_init(kjit_measure_options *o)
{
	kjit__protocol_opts p;
	kjit__protocol_defaults(&p);
	memset(o, 0, sizeof *o);
	o->target_rel_ci = p.target_rel_ci;
	o->warmup_ms = p.warmup_ms;
	o->max_ms = p.max_ms;
	o->min_samples = (unsigned)p.min_samples;
	o->max_samples = (unsigned)p.max_samples;
	o->cold_l2 = p.cold_l2;
	o->best_ns = p.best_ns;
	o->early_stop_factor = p.early_factor;
	o->best_hi_ns = p.best_hi_ns;
	o->budget_ms = p.budget_ms;
	o->warmed_ms = p.warmed_ms;
	o->best_spread_ns = p.best_spread_ns;
}

void kjit_measurement_free(kjit_measurement *m)
{
	if (!m)
		return;
	free(m->samples_ns);
	m->samples_ns = NULL;
	m->n_samples = 0;
}

CUresult kjit__launch_once(void *ctx, CUstream stream)
{
	const kjit__launch *l = ctx;
	return l->cu->cuLaunchKernel(l->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0],
	                             l->block[1], l->block[2], l->shared, stream, l->args, NULL);
}

kjit_status kjit_variant_measure(kjit_variant *v, const unsigned grid[3], const unsigned block[3],
                                 unsigned shared_bytes, kjit_stream stream, void **args,
                                 const kjit_measure_options *opts, kjit_measurement *out)
{
	if (!v || !grid || !block || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_measure: NULL argument");
	memset(out, 0, sizeof *out);
	kjit_engine *e = v->kernel->engine;
	if (!v->function)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NO_GPU, "cannot measure %s: %s",
		                                        v->kernel->name, e->gpu_reason));
	kjit_measure_options defaults;
	if (!opts) {
		kjit_measure_options_init(&defaults);
		opts = &defaults;
	}
	if (!(opts->target_rel_ci > 0) || opts->warmup_ms < 0 || !(opts->max_ms > 0) ||
	    opts->max_samples < 1 || opts->min_samples > opts->max_samples ||
	    opts->early_stop_factor < 0 || opts->best_ns < 0 || !(opts->best_hi_ns >= 0) ||
	    !(opts->budget_ms >= 0) || !(opts->warmed_ms >= 0) || !(opts->best_spread_ns >= 0) ||
	    (opts->n_prior > 0 && !opts->prior_ns))
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_measure: "
		                         "options out of range (target_rel_ci > 0, max_ms > 0, "
		                         "1 <= min_samples <= max_samples, no negatives, prior_ns "
		                         "with n_prior)"));
	kjit__timer *timer;
	kjit_status st = kjit__engine_timer(e, &timer);
	if (st == KJIT_OK) /* once: every launch of the protocol asks the same */
		st = kjit__variant_shared(v, shared_bytes);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	kjit__protocol_opts p = {
		.warmup_ms = opts->warmup_ms, .target_rel_ci = opts->target_rel_ci,
		.max_ms = opts->max_ms, .min_samples = opts->min_samples,
		.max_samples = opts->max_samples, .cold_l2 = opts->cold_l2 != 0,
		.best_ns = opts->best_ns, .early_factor = opts->early_stop_factor,
		.best_hi_ns = opts->best_hi_ns, .budget_ms = opts->budget_ms,
		.warmed_ms = opts->warmed_ms, .best_spread_ns = opts->best_spread_ns,
		.no_warmup = opts->no_warmup != 0, .prior_ns = opts->prior_ns,
		.n_prior = opts->n_prior,
	};
	kjit__launch l = { e->cu, v->function, grid, block, shared_bytes, args };
	kjit__measurement m;
	kjit__nvtx_push(KJIT__NVTX_EVALUATE, v->kernel->name);
	st = kjit__protocol_measure(timer, kjit__launch_once, &l, (CUstream)stream, &p, &m);
	kjit__nvtx_pop();
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	out->median_ns = m.median_ns;
	out->spread_ns = m.spread_ns;
	out->min_ns = m.min_ns;
	out->max_ns = m.max_ns;
	out->ci_low_ns = m.ci_low_ns;
	out->ci_high_ns = m.ci_high_ns;
	out->n_samples = m.n;
	out->samples_ns = m.samples_ns; /* ownership moves to *out */
	out->timer = kjit__timer_name(m.timer);
	out->stop = kjit__stop_name(m.stop);
	out->cold_l2 = m.cold_l2;
	out->wall_ms = m.wall_ms;
	out->warmup_ms = m.warmup_ms;
	return KJIT_OK;
}
