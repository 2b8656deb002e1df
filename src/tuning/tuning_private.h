/*
 * tuning_private.h - the tuning layer's own structures: tunable kernels,
 * the memo of problems and their choices, online tuning and drift. Only
 * src/tuning/ includes it.
 */
#ifndef KJIT_TUNING_PRIVATE_H
#define KJIT_TUNING_PRIVATE_H

#include "tuning.h"

/* The record room's connection (record.h): record.c writes through it,
 * record_read.c opens it and reads. */
struct kjit_records {
	kjit__store *store;
};

/* ---- tunable kernels (tunable.c, memo.c, tune_online.c) --------------- */

/* The launch of one configuration for one problem: immutable once
 * published, freed at engine close. */
typedef struct kjit__choice {
	kjit_variant *variant;  /* NULL until loaded */
	CUfunction fn;
	unsigned grid[3], block[3], shared;
	kjit__rule rule;
	size_t index;           /* in the problem's space */
	char *config, *problem, *device_key; /* explanation texts */
	double median_ns;
	kjit_profile *profile;  /* the chosen row's stored profile; NULL: none */
	struct kjit__choice *older; /* the choices it replaced */
} kjit__choice;

typedef struct kjit__online kjit__online;

/* One memoised problem. */
typedef struct kjit__memo_entry {
	uint64_t hash;
	kjit_kernel *kernel;
	int64_t *values;
	char *problem_json;
	_Atomic(kjit__choice *) choice;
	atomic_int slow;        /* 1: the hot path cannot serve it (not loaded, tuning) */
	atomic_int stale;
	atomic_int retune;      /* drift asks online tuning for a new search */
	kjit__space *space;     /* built at first sight */
	kjit__spec *pspec;      /* the spec the space points at (this problem only) */
	kjit__problem prob;
	kjit__online *online;   /* tuning state, NULL when none */
	uint64_t tag;           /* profiled launches' tag */
	double window[16];      /* sampled durations for drift (under engine lock) */
	size_t n_window;
	int drift_pending;      /* marked stale here, the row not yet */
	int searched;           /* an online search ran (under the kernel's lock) */
	struct kjit__memo_entry *next_all;
} kjit__memo_entry;


typedef struct kjit__tunable {
	kjit__spec *spec;        /* params, restrictions, grid, shared, flags */
	char **names;            /* problem sizes, launch order */
	size_t n;
	kjit_grid_fn grid_fn;
	void *grid_user;
	kjit__atable memo;       /* problems to their entries: the hot path's */
	pthread_mutex_t lock;    /* writers of the memo, choices, online state */
	kjit__memo_entry *entries;
} kjit__tunable;


/* The hash of a problem. */
static inline uint64_t kjit__problem_hash(const int64_t *v, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= (uint64_t)v[i];
		h *= 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	return h;
}

/* At engine close: stop (join) online searches, then free. */
void kjit__tunable_stop(kjit_kernel *k);
void kjit__tunable_free(kjit__tunable *t);

/* Finds or makes (selection included) the entry of a problem; under no
 * lock, takes the kernel's. */
kjit_status kjit__memo_get(kjit_kernel *k, const int64_t *values, kjit__memo_entry **out);

/* The launch dimensions of configuration index of an entry's space (the
 * kernel's grid callback, when it has one, gives the grid). */
kjit_status kjit__launch_dims(const kjit__tunable *t, const kjit__memo_entry *en, size_t index,
                              unsigned grid[3], unsigned block[3], unsigned *shared);

/* Makes a choice for index of en's space (dims, explanation texts). */
kjit_status kjit__choice_make(kjit_kernel *k, kjit__memo_entry *en, size_t index,
                              kjit__rule rule, const kjit__best_row *row, kjit__choice **out);
/* Under t->lock: loads en's choice (through the cache) and launches it. */
kjit_status kjit__entry_serve(kjit_kernel *k, kjit__memo_entry *en, void **args,
                              CUstream stream);
/* Publishes c as en's choice (the old one kept until close). Under t->lock. */
void kjit__choice_publish(kjit__memo_entry *en, kjit__choice *c);

/* Online tuning (tune_online.c). start: under t->lock, begins a search for
 * en (compiling its trials now or on a thread). launch: under t->lock,
 * runs the next trial launch (or the choice while trials compile); sets
 * *done when the search committed. free: at close. */
kjit_status kjit__online_start(kjit_kernel *k, kjit__memo_entry *en);
kjit_status kjit__online_launch(kjit_kernel *k, kjit__memo_entry *en, void **args,
                                CUstream stream);
void kjit__online_free(kjit__online *o);
/* Takes en's search away from the sink (under the engine lock); the
 * caller frees it. */
kjit__online *kjit__online_detach(kjit_engine *engine, kjit__memo_entry *en);
/* A trial's duration (under the engine lock, from the sink). */
void kjit__online_sample(kjit__memo_entry *en, uint64_t slot, double ns);

/* Drift: a profiled duration of a memoised launch (from the timer's sink),
 * and the writer's tick that marks drifted rows stale. */
void kjit__drift_sample(kjit_engine *engine, uint64_t tag, double ns);
void kjit__drift_flush(kjit_engine *engine);

/* The hooks of this layer, installed on an engine by its first tunable
 * kernel (tunable.c). */
extern const kjit__tuning_hooks kjit__tuning;

#endif /* KJIT_TUNING_PRIVATE_H */
