/* memo.c - kjit_launch(): the per-kernel memo of problems (selection on
 * first sight, then a hash lookup), the launch itself, kjit_explain(). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning_private.h"

/* ---- the memo table ------------------------------------------------------ */

/* Entries by their problem's hash and values, in a table read without a
 * lock (kjit__atable) and written under the kernel's. */

typedef struct memo_key {
	const int64_t *values;
	size_t n;
	uint64_t h;
} memo_key;

static int memo_is(const void *ctx, uintptr_t item)
{
	const memo_key *k = ctx;
	const kjit__memo_entry *en = (const kjit__memo_entry *)item;
	return en->hash == k->h &&
	       (!k->n || memcmp(en->values, k->values, k->n * sizeof *k->values) == 0);
}

static uint64_t memo_hash(const void *ctx, uintptr_t item)
{
	(void)ctx;
	return ((const kjit__memo_entry *)item)->hash;
}

static kjit__memo_entry *memo_find(const kjit__tunable *t, const int64_t *values, size_t n,
                                   uint64_t h)
{
	memo_key key = { values, n, h };
	return (kjit__memo_entry *)kjit__atable_find(&t->memo, h, memo_is, &key);
}

/* ---- choices ----------------------------------------------------------- */

static void choice_free(kjit__choice *c)
{
	while (c) {
		kjit__choice *older = c->older;
		free(c->config);
		free(c->problem);
		free(c->device_key);
		if (c->profile) {
			free((char *)c->profile->counters_reason);
			free((char *)c->profile->energy_reason);
			free(c->profile);
		}
		free(c);
		c = older;
	}
}

kjit_status kjit__choice_make(kjit_kernel *k, kjit__memo_entry *en, size_t index,
                              kjit__rule rule, const kjit__best_row *row, kjit__choice **out)
{
	kjit__choice *c = calloc(1, sizeof *c);
	*out = NULL;
	if (!c)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	c->rule = rule;
	c->index = index;
	c->median_ns = row ? row->median_ns : NAN;
	c->config = kjit__config_json(en->space, index);
	c->problem = strdup(row ? row->problem : "");
	c->device_key = strdup(row ? row->device_key : "");
	int profile_ok = 1;
	if (row && row->has_profile && (c->profile = malloc(sizeof *c->profile))) {
		*c->profile = row->profile;
		c->profile->counters_reason = strdup(row->reasons[0]);
		c->profile->energy_reason = strdup(row->reasons[1]);
	}
	if (row && row->has_profile)
		profile_ok = c->profile && c->profile->counters_reason && c->profile->energy_reason;
	kjit_status st = c->config && c->problem && c->device_key && profile_ok
	                         ? kjit__launch_dims(k->tun, en, index, c->grid, c->block, &c->shared)
	                         : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st != KJIT_OK) {
		choice_free(c);
		return st;
	}
	*out = c;
	return KJIT_OK;
}

void kjit__choice_publish(kjit__memo_entry *en, kjit__choice *c)
{
	c->older = atomic_load_explicit(&en->choice, memory_order_relaxed);
	atomic_store_explicit(&en->choice, c, memory_order_release);
}

/* ---- entries ----------------------------------------------------------- */

static void entry_free(kjit__memo_entry *en)
{
	kjit__online_free(en->online);
	choice_free(atomic_load_explicit(&en->choice, memory_order_relaxed));
	kjit__space_free(en->space);
	free(en->pspec);
	free(en->values);
	free(en->problem_json);
	free(en);
}

/* The arch part of the device key ("sm_90"), else the engine's. */
static void device_arch(const kjit_engine *e, char out[16])
{
	const char *bar = strchr(e->device_key, '|');
	if (bar && bar - e->device_key < 16)
		snprintf(out, 16, "%.*s", (int)(bar - e->device_key), e->device_key);
	else
		snprintf(out, 16, "%s", e->arch);
}

/* A new entry: its space, the selection over the best rows, the choice. */
static kjit_status entry_make(kjit_kernel *k, const int64_t *values, uint64_t h,
                              kjit__memo_entry **out)
{
	kjit_engine *e = k->engine;
	kjit__tunable *t = k->tun;
	kjit__best_row *rows = NULL;
	size_t n_rows = 0;
	kjit__memo_entry *en = calloc(1, sizeof *en);
	*out = NULL;
	if (!en || !(en->values = calloc(t->n + 1, sizeof *en->values)) ||
	    !(en->pspec = malloc(sizeof *en->pspec))) {
		if (en)
			free(en->values);
		free(en);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	if (t->n)
		memcpy(en->values, values, t->n * sizeof *values);
	en->hash = h;
	en->kernel = k;
	atomic_init(&en->choice, NULL);
	atomic_init(&en->slow, 1);
	atomic_init(&en->stale, 0);
	atomic_init(&en->retune, 0);
	en->prob.names = t->names;
	en->prob.values = en->values;
	en->prob.n = t->n;
	/* The space of this problem: the kernel's spec with this problem. */
	*en->pspec = *t->spec;
	en->pspec->problems = &en->prob;
	en->pspec->n_problems = 1;
	kjit_status st = KJIT_OK;
	if (!(en->problem_json = kjit__problem_json(&en->prob)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	/* the device's shared memory limit (with opting in) where it is the
	 * lower, as kjit-tune prunes */
	kjit__limits lim = { 0 };
	if (e->cu && e->shared_optin < t->spec->max_shared)
		lim.max_shared = e->shared_optin;
	if (st == KJIT_OK)
		st = kjit__space_build(en->pspec, 0, &lim, &en->space);
	if (st == KJIT_OK && en->space->size == 0)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: no valid configuration for "
		                 "problem %s (every one fails a restriction, the grid or a limit)",
		                 k->name, en->problem_json);
	char arch[16];
	device_arch(e, arch);
	if (st == KJIT_OK)
		st = kjit__store_best_read(e->store, t->spec, (const char *const *)t->names, t->n,
		                           k->signature, arch, &rows, &n_rows);
	if (st == KJIT_OK) {
		int64_t r;
		kjit__rule rule = kjit__select(rows, n_rows, values, t->n, e->device_key,
		                               kjit_nvrtc_id(), en->space, &r);
		size_t index = 0;
		if (r >= 0) {
			index = (size_t)kjit__space_find(en->space, rows[r].cfg);
		} else {
			/* The default configuration, or the first valid one when
			 * the default is not valid for this problem. */
			uint16_t *def = calloc(t->spec->n_params + 1, sizeof *def);
			if (def)
				kjit__spec_default_config(t->spec, def);
			int64_t found = def ? kjit__space_find(en->space, def) : -1;
			index = found >= 0 ? (size_t)found : 0;
			free(def);
		}
		kjit__choice *c;
		if (r >= 0)
			st = kjit__store_best_profile(e->store, &rows[r]);
		if (st == KJIT_OK)
			st = kjit__choice_make(k, en, index, rule, r >= 0 ? &rows[r] : NULL, &c);
		if (st == KJIT_OK)
			kjit__choice_publish(en, c);
	}
	kjit__best_rows_free(rows, n_rows);
	if (st == KJIT_OK) {
		/* The tag of its profiled launches. */
		pthread_mutex_lock(&e->lock);
		if (e->n_memo_ids == e->cap_memo_ids) {
			size_t cap = e->cap_memo_ids ? 2 * e->cap_memo_ids : 16;
			kjit__memo_entry **ids = realloc(e->memo_by_id, cap * sizeof *ids);
			if (ids) {
				e->memo_by_id = ids;
				e->cap_memo_ids = cap;
			}
		}
		if (e->n_memo_ids >= KJIT__TAG_IDS) {
			st = kjit__error(KJIT_ERR_INVALID_ARG, "more than %llu problems memoised",
			                 (unsigned long long)KJIT__TAG_IDS);
		} else if (e->n_memo_ids < e->cap_memo_ids) {
			en->tag = kjit__tag_memo(e->n_memo_ids);
			e->memo_by_id[e->n_memo_ids++] = en;
		} else {
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		}
		pthread_mutex_unlock(&e->lock);
	}
	if (st != KJIT_OK) {
		entry_free(en);
		return st;
	}
	*out = en;
	return KJIT_OK;
}

static kjit_status check_problem(kjit_kernel *k, const int64_t *values, size_t n,
                                 const char *who)
{
	if (!k)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: kernel is NULL", who);
	if (!k->tun)
		return kjit__engine_fail(k->engine, kjit__error(KJIT_ERR_INVALID_ARG, "%s: kernel %s "
		                         "is not tunable (make it with kjit_kernel_create_tunable "
		                         "or kjit_kernel_create_from_spec)", who, k->name));
	if (n != k->tun->n || (n && !values))
		return kjit__engine_fail(k->engine, kjit__error(KJIT_ERR_INVALID_ARG, "%s: kernel %s "
		                         "takes %zu problem sizes, got %zu%s", who, k->name,
		                         k->tun->n, n, n && !values ? " and a NULL array" : ""));
	return KJIT_OK;
}

kjit_status kjit__memo_get(kjit_kernel *k, const int64_t *values, kjit__memo_entry **out)
{
	kjit__tunable *t = k->tun;
	uint64_t h = kjit__problem_hash(values, t->n);
	kjit__memo_entry *en = memo_find(t, values, t->n, h);
	kjit_status st = KJIT_OK;
	if (!en) {
		pthread_mutex_lock(&t->lock);
		en = memo_find(t, values, t->n, h);
		if (!en && (st = entry_make(k, values, h, &en)) == KJIT_OK) {
			if ((st = kjit__atable_insert(&t->memo, h, (uintptr_t)en, memo_hash, NULL)) ==
			    KJIT_OK) {
				en->next_all = t->entries;
				t->entries = en;
			} else {
				/* its tag stays registered: keep it until close */
				en->next_all = t->entries;
				t->entries = en;
				en = NULL;
			}
		}
		pthread_mutex_unlock(&t->lock);
	}
	*out = en;
	return st;
}

void kjit__tunable_stop(kjit_kernel *k)
{
	kjit__tunable *t = k->tun;
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	for (kjit__memo_entry *en = t->entries; en; en = en->next_all)
		if (en->online)
			kjit__online_free(kjit__online_detach(k->engine, en));
	pthread_mutex_unlock(&t->lock);
}

void kjit__tunable_free(kjit__tunable *t)
{
	if (!t)
		return;
	for (kjit__memo_entry *en = t->entries, *next; en; en = next) {
		next = en->next_all;
		entry_free(en);
	}
	kjit__atable_free(&t->memo);
	for (size_t i = 0; i < t->n; i++)
		free(t->names[i]);
	free(t->names);
	kjit__spec_free(t->spec);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ---- launching ------------------------------------------------------------ */

/* The launch of a loaded choice; the end of the hot path. */
static kjit_status launch_choice(kjit_kernel *k, const kjit__memo_entry *en,
                                 const kjit__choice *c, void **args, CUstream stream)
{
	kjit_engine *e = k->engine;
	kjit_status st = kjit__engine_ctx(e);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	atomic_fetch_add_explicit(&k->launches, 1, memory_order_relaxed);
	if (e->profile_every &&
	    atomic_fetch_add_explicit(&e->launch_seq, 1, memory_order_relaxed) % e->profile_every == 0) {
		/* Sampled: the duration reaches the telemetry and the drift
		 * window of the entry (KJIT__TAG_MEMO). */
		kjit__launch la = { e->cu, c->fn, c->grid, c->block, c->shared, args };
		st = kjit__timer_launch_tagged(e->timer, kjit__launch_once, &la, stream, en->tag);
		if (st == KJIT_OK)
			return KJIT_OK;
		if (st != KJIT_ERR_NOT_FOUND)
			return kjit__engine_fail(e, st);
	}
	CUresult r = e->cu->cuLaunchKernel(c->fn, c->grid[0], c->grid[1], c->grid[2], c->block[0],
	                                   c->block[1], c->block[2], c->shared, stream, args, NULL);
	if (r == CUDA_SUCCESS)
		return KJIT_OK;
	char what[320];
	snprintf(what, sizeof what, "cuLaunchKernel of %s for %s with %s (grid %ux%ux%u, block "
	         "%ux%ux%u, %u B shared)", k->name, en->problem_json, c->config, c->grid[0],
	         c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], c->shared);
	return kjit__engine_fail(e, kjit__cu_fail(KJIT_ERR_LAUNCH, r, what));
}

/* Under t->lock: gets the variant of c (through the cache). */
static kjit_status choice_load(kjit_kernel *k, kjit__memo_entry *en, kjit__choice *c)
{
	if (c->fn)
		return KJIT_OK;
	kjit__config_desc d;
	kjit_status st = kjit__config_desc_make(k->tun->spec, kjit__space_config(en->space, c->index),
	                                        &d);
	if (st == KJIT_OK)
		st = kjit_variant_get(k, &d.desc, &c->variant, NULL);
	kjit__config_desc_free(&d);
	if (st != KJIT_OK)
		return st;
	if (!c->variant->function)
		return kjit__error(KJIT_ERR_NO_GPU, "cannot launch %s: %s", k->name,
		                   k->engine->gpu_reason);
	/* once per choice: its shared memory never changes, and what the
	 * function may use only grows, so the hot path need not ask */
	if ((st = kjit__variant_shared(c->variant, c->shared)) != KJIT_OK)
		return st;
	c->fn = c->variant->function;
	return KJIT_OK;
}

kjit_status kjit__entry_serve(kjit_kernel *k, kjit__memo_entry *en, void **args, CUstream stream)
{
	kjit__choice *c = atomic_load_explicit(&en->choice, memory_order_relaxed);
	kjit_status st = choice_load(k, en, c);
	return st == KJIT_OK ? launch_choice(k, en, c, args, stream) : kjit__engine_fail(k->engine, st);
}

/* First launch of a problem, a launch during online tuning, a re-tune. */
static kjit_status launch_slow(kjit_kernel *k, const int64_t *values, size_t n, void **args,
                               CUstream stream)
{
	kjit__memo_entry *en;
	kjit_status st = check_problem(k, values, n, "kjit_launch");
	if (st != KJIT_OK)
		return st;
	if ((st = kjit__memo_get(k, values, &en)) != KJIT_OK)
		return kjit__engine_fail(k->engine, st);
	kjit_engine *e = k->engine;
	kjit__tunable *t = k->tun;
	pthread_mutex_lock(&t->lock);
	kjit__choice *c = atomic_load_explicit(&en->choice, memory_order_relaxed);
	if (e->tune != KJIT_TUNE_OFF && e->cu && !en->online &&
	    ((!en->searched && c->rule != KJIT__RULE_EXACT) ||
	     atomic_exchange_explicit(&en->retune, 0, memory_order_relaxed))) {
		/* one attempt: a search that cannot start leaves the choice */
		en->searched = 1;
		st = kjit__online_start(k, en);
	}
	if (st == KJIT_OK && en->online) {
		st = kjit__online_launch(k, en, args, stream);
	} else {
		/* Without a search (policy off, or it could not start) the
		 * choice serves. */
		st = kjit__entry_serve(k, en, args, stream);
		if (st == KJIT_OK || c->fn)
			atomic_store_explicit(&en->slow, 0, memory_order_release);
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

kjit_status kjit_launch(kjit_kernel *k, const int64_t *values, size_t n, void **args,
                        kjit_stream stream)
{
	/* Hot path: a hash, a probe of the published table, cuLaunchKernel. */
	kjit__tunable *t = k ? k->tun : NULL;
	if (t && n == t->n && (values || !n)) {
		uint64_t h = kjit__problem_hash(values, n);
		kjit__memo_entry *en = memo_find(t, values, n, h);
		if (en && !atomic_load_explicit(&en->slow, memory_order_acquire))
			return launch_choice(k, en, atomic_load_explicit(&en->choice,
			                                                 memory_order_acquire),
			                     args, (CUstream)stream);
	}
	return launch_slow(k, values, n, args, (CUstream)stream);
}

kjit_status kjit_explain(kjit_kernel *k, const int64_t *values, size_t n, kjit_explanation *out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_explain: out is NULL");
	memset(out, 0, sizeof *out);
	kjit__memo_entry *en;
	kjit_status st = check_problem(k, values, n, "kjit_explain");
	if (st != KJIT_OK)
		return st;
	if ((st = kjit__memo_get(k, values, &en)) != KJIT_OK)
		return kjit__engine_fail(k->engine, st);
	pthread_mutex_lock(&k->tun->lock);
	const kjit__choice *c = atomic_load_explicit(&en->choice, memory_order_acquire);
	out->rule = kjit__rule_name(c->rule);
	out->config = c->config;
	out->median_ns = c->median_ns;
	out->stale = atomic_load_explicit(&en->stale, memory_order_relaxed);
	out->tuning = en->online != NULL;
	out->problem = c->problem;
	out->device_key = c->device_key;
	out->profile = c->profile;
	pthread_mutex_unlock(&k->tun->lock);
	return KJIT_OK;
}
