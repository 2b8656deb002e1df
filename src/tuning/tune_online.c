/* tune_online.c - the online and background tuning policies: successive
 * launches of a problem run the configurations of a search, each timed on
 * the GPU, until the budget is spent; the best is committed to the
 * database and serves from then on. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning_private.h"

typedef struct trial {
	size_t index;        /* in the entry's space */
	kjit__config_desc d;
	kjit_variant *v;
	unsigned grid[3], block[3], shared;
	char *config;
	double *samples;     /* tune_samples of them; INFINITY for a failed launch */
} trial;

struct kjit__online {
	kjit_kernel *k;
	kjit__memo_entry *en;
	trial *trials;
	size_t n, samples, issued;
	atomic_int ready;    /* the trial variants are compiled */
	int threaded;
	pthread_t thread;
};

static void trials_free(kjit__online *o)
{
	for (size_t i = 0; i < o->n; i++) {
		kjit__config_desc_free(&o->trials[i].d);
		free(o->trials[i].config);
		free(o->trials[i].samples);
	}
	free(o->trials);
}

void kjit__online_sample(kjit__memo_entry *en, uint64_t slot, double ns)
{
	kjit__online *o = en->online;
	if (!o || slot >= o->n * o->samples)
		return;
	o->trials[slot / o->samples].samples[slot % o->samples] = ns;
}

kjit__online *kjit__online_detach(kjit_engine *e, kjit__memo_entry *en)
{
	kjit__online *o = en->online;
	/* the sink reads en->online under the engine lock */
	pthread_mutex_lock(&e->lock);
	en->online = NULL;
	pthread_mutex_unlock(&e->lock);
	return o;
}

void kjit__online_free(kjit__online *o)
{
	if (!o)
		return;
	if (o->threaded)
		pthread_join(o->thread, NULL);
	trials_free(o);
	free(o);
}

/* Compiles the trial variants on the pool; a trial that does not compile
 * is dropped (it keeps no samples and is never chosen). */
static void compile_trials(kjit__online *o)
{
	size_t n = o->n;
	kjit_variant_desc *descs = calloc(n + 1, sizeof *descs);
	kjit_variant **vs = calloc(n + 1, sizeof *vs);
	kjit_status *sts = calloc(n + 1, sizeof *sts);
	if (descs && vs && sts) {
		for (size_t i = 0; i < n; i++)
			descs[i] = o->trials[i].d.desc;
		(void)kjit_variants_get(o->k, descs, n, 0, vs, sts, NULL);
		for (size_t i = 0; i < n; i++)
			o->trials[i].v = sts[i] == KJIT_OK && vs[i] && vs[i]->function ? vs[i] : NULL;
	}
	free(descs);
	free(vs);
	free(sts);
	atomic_store_explicit(&o->ready, 1, memory_order_release);
}

static void *compile_thread(void *arg)
{
	compile_trials(arg);
	return NULL;
}

/* The search: the whole space when it fits the budget; else the current
 * choice, the default and a random sample seeded by the signature and the
 * problem, so that a process repeats its search. */
static kjit_status pick_trials(kjit_kernel *k, kjit__memo_entry *en, size_t budget,
                               size_t **out, size_t *n_out)
{
	const kjit__space *sp = en->space;
	size_t n = sp->size < budget ? sp->size : budget;
	size_t *idx = malloc((sp->size + 1) * sizeof *idx);
	if (!idx)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < sp->size; i++)
		idx[i] = i;
	if (n < sp->size) {
		const kjit__choice *c = atomic_load_explicit(&en->choice, memory_order_relaxed);
		size_t first = 0;
		/* the current choice first */
		idx[c->index] = 0;
		idx[0] = c->index;
		first = 1;
		kjit__hash128 seed = kjit__hash(en->problem_json, strlen(en->problem_json),
		                                kjit__hash(k->signature, 32, 0).lo);
		for (size_t i = first; i < n; i++) {
			size_t j = i + (size_t)(kjit__splitmix(seed.lo, i) % (sp->size - i));
			size_t tmp = idx[i];
			idx[i] = idx[j];
			idx[j] = tmp;
		}
	}
	*out = idx;
	*n_out = n;
	return KJIT_OK;
}

kjit_status kjit__online_start(kjit_kernel *k, kjit__memo_entry *en)
{
	kjit_engine *e = k->engine;
	kjit__timer *timer;
	kjit_status st = kjit__engine_timer(e, &timer);
	if (st != KJIT_OK)
		return st;
	kjit__online *o = calloc(1, sizeof *o);
	size_t *idx = NULL, n = 0;
	if (!o)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	o->k = k;
	o->en = en;
	o->samples = e->tune_samples;
	atomic_init(&o->ready, 0);
	if ((st = pick_trials(k, en, e->tune_variants, &idx, &n)) != KJIT_OK) {
		free(o);
		return st;
	}
	/* each trial launch is tagged with its slot */
	if (n && o->samples > KJIT__TAG_SLOTS / n) {
		st = kjit__error(KJIT_ERR_INVALID_ARG, "online tuning of %s: %zu configurations of "
		                 "%zu launches each are more than the %llu a search can time",
		                 k->name, n, o->samples, (unsigned long long)KJIT__TAG_SLOTS);
		free(idx);
		free(o);
		return st;
	}
	o->trials = calloc(n + 1, sizeof *o->trials);
	if (!o->trials)
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; st == KJIT_OK && i < n; i++) {
		trial *tr = &o->trials[o->n];
		tr->index = idx[i];
		/* a configuration that the grid callback refuses is left out */
		if (kjit__launch_dims(k->tun, en, tr->index, tr->grid, tr->block, &tr->shared) != KJIT_OK)
			continue;
		if ((st = kjit__config_desc_make(k->tun->spec,
		                                 kjit__space_config(en->space, tr->index),
		                                 &tr->d)) != KJIT_OK)
			break;
		tr->config = kjit__config_json(en->space, tr->index);
		tr->samples = malloc(o->samples * sizeof *tr->samples);
		o->n++;
		if (!tr->config || !tr->samples)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		for (size_t r = 0; tr->samples && r < o->samples; r++)
			tr->samples[r] = INFINITY; /* until its duration arrives */
	}
	free(idx);
	if (st == KJIT_OK && o->n == 0)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: no configuration to tune for %s",
		                 k->name, en->problem_json);
	if (st == KJIT_OK && e->tune == KJIT_TUNE_BACKGROUND) {
		if (pthread_create(&o->thread, NULL, compile_thread, o) == 0)
			o->threaded = 1;
		else
			compile_trials(o);
	} else if (st == KJIT_OK) {
		compile_trials(o);
	}
	if (st != KJIT_OK) {
		trials_free(o);
		free(o);
		return st;
	}
	pthread_mutex_lock(&e->lock);
	en->online = o;
	pthread_mutex_unlock(&e->lock);
	atomic_store_explicit(&en->slow, 1, memory_order_release);
	return KJIT_OK;
}

/* Medians, the best trial, the commit, the new choice. */
static kjit_status finish(kjit__online *o)
{
	kjit_kernel *k = o->k;
	kjit_engine *e = k->engine;
	kjit__memo_entry *en = o->en;
	kjit_eval *res = calloc(o->n + 1, sizeof *res);
	double *sorted = malloc((o->samples + 1) * sizeof *sorted);
	size_t n_res = 0, best = SIZE_MAX, best_trial = 0;
	kjit_status st = res && sorted ? KJIT_OK : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit__timer *timer = NULL;
	(void)kjit__engine_timer(e, &timer);
	for (size_t i = 0; st == KJIT_OK && i < o->n; i++) {
		trial *tr = &o->trials[i];
		if (!tr->v)
			continue;
		memcpy(sorted, tr->samples, o->samples * sizeof *sorted);
		size_t m = o->samples;
		double median = kjit__median(sorted, m);
		if (!isfinite(median))
			continue;
		kjit_eval *r = &res[n_res];
		r->config = tr->config;
		r->status = KJIT_RESULT_OK;
		r->message = "online";
		r->binary_key = tr->v->key;
		r->timer = timer ? kjit__timer_name(kjit__timer_kind_of(timer)) : "events";
		r->median_ns = r->objective = median;
		r->min_ns = sorted[0];
		r->max_ns = sorted[m - 1];
		r->spread_ns = r->compile_ms = NAN;
		r->arch = e->arch;
		r->nvrtc = kjit_nvrtc_id();
		r->samples = tr->samples;
		r->n_samples = m;
		if (best == SIZE_MAX || median < res[best].median_ns) {
			best = n_res;
			best_trial = i;
		}
		n_res++;
	}
	if (st == KJIT_OK && best == SIZE_MAX)
		st = kjit__error(KJIT_ERR_LAUNCH, "kernel %s: no configuration ran for %s", k->name,
		                 en->problem_json);
	if (st == KJIT_OK && e->device_key[0])
		st = kjit__record_search(e->store, k->signature, e->device_key, en->problem_json,
		                         KJIT_OBJECTIVE_TIME, res, n_res, best);
	kjit__choice *c = NULL;
	if (st == KJIT_OK) {
		kjit__best_row row = { .device_key = e->device_key, .problem = en->problem_json,
			               .median_ns = res[best].median_ns };
		st = kjit__choice_make(k, en, o->trials[best_trial].index, KJIT__RULE_ONLINE, &row, &c);
	}
	if (st == KJIT_OK) {
		c->variant = o->trials[best_trial].v;
		c->fn = c->variant->function;
		kjit__choice_publish(en, c);
	}
	free(res);
	free(sorted);
	return st;
}

/* One trial launch: tagged, its duration delivered later to the sink
 * (CUPTI); else timed at once (CUDA events). */
static kjit_status trial_launch(kjit_kernel *k, kjit__memo_entry *en, trial *tr, size_t slot,
                                void **args, CUstream stream)
{
	kjit_engine *e = k->engine;
	kjit__timer *timer;
	kjit__launch la = { e->cu, tr->v->function, tr->grid, tr->block, tr->shared, args };
	kjit_status st = kjit__engine_timer(e, &timer);
	if (st == KJIT_OK)
		st = kjit__engine_ctx(e);
	if (st == KJIT_OK)
		st = kjit__variant_shared(tr->v, tr->shared);
	if (st == KJIT_OK)
		st = kjit__timer_launch_tagged(timer, kjit__launch_once, &la, stream,
		                               kjit__tag_trial(kjit__tag_id(en->tag), slot));
	if (st == KJIT_ERR_NOT_FOUND) {
		double ns = INFINITY;
		pthread_mutex_lock(&e->timer_lock);
		st = kjit__timer_run(timer, kjit__launch_once, &la, stream, 1, 0, &ns);
		pthread_mutex_unlock(&e->timer_lock);
		pthread_mutex_lock(&e->lock);
		if (st == KJIT_OK)
			kjit__online_sample(en, slot, ns);
		pthread_mutex_unlock(&e->lock);
	}
	if (st == KJIT_OK)
		atomic_fetch_add_explicit(&k->launches, 1, memory_order_relaxed);
	return st;
}

kjit_status kjit__online_launch(kjit_kernel *k, kjit__memo_entry *en, void **args,
                                CUstream stream)
{
	kjit__online *o = en->online;
	kjit_engine *e = k->engine;
	/* While the trials compile (background), the choice serves. */
	if (!atomic_load_explicit(&o->ready, memory_order_acquire))
		return kjit__entry_serve(k, en, args, stream);
	size_t i = o->issued % o->n, round = o->issued / o->n;
	trial *tr = &o->trials[i];
	kjit_status st = KJIT_OK;
	o->issued++;
	if (tr->v && (st = trial_launch(k, en, tr, i * o->samples + round, args, stream)) !=
	                     KJIT_OK) {
		/* A configuration the driver refuses is dropped; the launch
		 * falls to the choice so that the result is computed. */
		tr->v = NULL;
	}
	if (!tr->v)
		st = kjit__entry_serve(k, en, args, stream);
	if (o->issued == o->n * o->samples) {
		/* Every trial issued: wait for them once, collect the
		 * durations, choose. */
		kjit__timer *timer;
		CUresult r = e->cu->cuCtxSynchronize();
		if (r == CUDA_SUCCESS && kjit__engine_timer(e, &timer) == KJIT_OK) {
			pthread_mutex_lock(&e->timer_lock);
			(void)kjit__timer_poll(timer);
			pthread_mutex_unlock(&e->timer_lock);
		}
		kjit__online_detach(e, en); /* no sample arrives after this */
		kjit_status fs = r == CUDA_SUCCESS ? finish(o)
		                                   : kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxSynchronize");
		if (fs != KJIT_OK)
			(void)kjit__engine_fail(e, fs);
		kjit__online_free(o);
		en->searched = 1;
		atomic_store_explicit(&en->stale, 0, memory_order_relaxed);
		if (atomic_load_explicit(&en->choice, memory_order_relaxed)->fn)
			atomic_store_explicit(&en->slow, 0, memory_order_release);
	}
	return st;
}
