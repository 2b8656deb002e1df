/* drift.c - drift detection: sampled durations (KJIT_PROFILE) of memoised
 * launches against the stored timing of their configuration. A median
 * beyond the threshold over a full window marks the entry stale (and its
 * best row, on the telemetry writer's next tick); online tuning re-tunes. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuning_private.h"

#define DRIFT_MIN_SAMPLES 8

void kjit__drift_sample(kjit_engine *e, uint64_t tag, double ns)
{
	int trial = kjit__tag_is_trial(tag);
	uint64_t id = kjit__tag_id(tag);
	kjit_kernel *k = NULL;
	kjit_variant *v = NULL;
	pthread_mutex_lock(&e->lock);
	kjit__memo_entry *en = id < e->n_memo_ids ? e->memo_by_id[id] : NULL;
	if (trial) {
		if (en)
			kjit__online_sample(en, kjit__tag_slot(tag), ns);
		pthread_mutex_unlock(&e->lock);
		return;
	}
	const kjit__choice *c = en ? atomic_load_explicit(&en->choice, memory_order_acquire) : NULL;
	if (c && c->variant) {
		v = c->variant;
		k = v->kernel;
	}
	/* Only a timing stored for this problem on this device compares. */
	if (c && (c->rule == KJIT__RULE_EXACT || c->rule == KJIT__RULE_ONLINE) &&
	    c->median_ns > 0 && !atomic_load_explicit(&en->stale, memory_order_relaxed)) {
		en->window[en->n_window++ % 16] = ns;
		if (en->n_window >= DRIFT_MIN_SAMPLES) {
			size_t m = en->n_window < 16 ? en->n_window : 16;
			double w[16];
			memcpy(w, en->window, m * sizeof *w);
			double median = kjit__median(w, m);
			if (median > c->median_ns * e->drift_threshold) {
				atomic_store_explicit(&en->stale, 1, memory_order_relaxed);
				en->drift_pending = 1;
				en->n_window = 0;
				if (e->tune != KJIT_TUNE_OFF) {
					atomic_store_explicit(&en->retune, 1, memory_order_relaxed);
					atomic_store_explicit(&en->slow, 1, memory_order_release);
				}
			}
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (k)
		kjit__engine_event(e, KJIT__EV_LAUNCH, k, v, NULL, ns, 1);
}

void kjit__drift_flush(kjit_engine *e)
{
	for (;;) {
		kjit__memo_entry *en = NULL;
		pthread_mutex_lock(&e->lock);
		for (size_t i = 0; i < e->n_memo_ids && !en; i++)
			if (e->memo_by_id[i]->drift_pending) {
				en = e->memo_by_id[i];
				en->drift_pending = 0;
			}
		pthread_mutex_unlock(&e->lock);
		if (!en || !e->device_key[0])
			return;
		(void)kjit__record_stale(e->store, en->kernel->signature, e->device_key,
		                         en->problem_json);
	}
}
