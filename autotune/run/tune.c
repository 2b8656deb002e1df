/*
 * tune.c - rank 0's run: the strategy proposes, the compile pool
 * (pool/: threads on a compile-only engine for the workers'
 * arch, or compile worker processes, on the same database) compiles ahead,
 * the measuring workers (workers.c: one GPU worker process per device,
 * and the other ranks' with MPI) measure, and every evaluation is
 * recorded here, in one transaction. Nothing here ever touches CUDA.
 */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "workers.h"
#include "ranks.h"
#include "results.h"
#include "worker.h"
#include "search.h"
#include "pool.h"
#include "wire.h"

/* NVRTC log lines kept in a compile_error's message. */
#define LOG_LINES 4

static atomic_int interrupted; /* set by the signal handler: lock-free */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

kjit_status kt_profile_mode_parse(const char *text, kt_profile_mode *out)
{
	if (!text || strcmp(text, "all") == 0)
		*out = KT_PROFILE_ALL;
	else if (strcmp(text, "best") == 0)
		*out = KT_PROFILE_BEST;
	else
		return kjit__error(KJIT_ERR_INVALID_ARG, "--profile: expected all (the default) or "
		                   "best, got '%s'", text);
	return KJIT_OK;
}

/* ---- one problem ------------------------------------------------------------- */

typedef struct problem_run {
	size_t p;
	int64_t run_id;
	size_t space, evaluated, skipped;
	size_t counts[KJIT__RS_COUNT]; /* by kjit_result_status */
	char *problem_json;
	char *best_config;     /* from the best row */
	double best_median;
	double best_gbps, best_gflops; /* its rates (spec bytes, flops), NAN unknown */
	kjit_objective best_objective; /* the objective that chose it */
	int unmet;             /* ok results, none with the objective's figure: no best */
	int has_profile;       /* best_profile is the best's (reasons NULL) */
	kjit_profile best_profile;
	char *rejected_text, *rejected_json; /* wrong results: the summary's words */
	double wall_s, compile_s, measure_s;
	/* where measure_s (summed over the workers) went, from the workers'
	 * replies: the problem's buffers and expected outputs, loading
	 * variants, checked runs, the protocol's warm-up and timed batches;
	 * and the waits: the workers' restarts, the database, the compiles
	 * not ready */
	double setup_s, load_s, check_s, warmup_s, timed_s;
	double record_s, compile_wait_s, restart_s;
	double kernel_s;       /* the medians of the configurations measured, summed */
	size_t window_max;     /* the most proposals taken ahead */
} problem_run;

typedef struct tuner {
	const kjit__spec *spec;
	const kt_tune_opts *o;
	kjit_strategy *strategy;
	kt_budget budget;      /* the command line's, else the spec's */
	const char *db;
	kt_meas *meas;
	kt_meas_opts mo;
	const kt_hello *hello; /* the first worker's: the run's device */
	kjit_engine *engine;
	kjit_kernel *kernel;
	kt_pool *pool;
	kjit_records *res;
	int tty;
	long cores;            /* for the floor */
	double start_s;        /* the workers' first start */
	problem_run *runs;
	size_t n_runs;
	int broken;            /* the database failed for good: no problem goes on */
	kjit_objective objective; /* --objective, else the spec's metric */
	int said_no_energy;    /* "no result has energy" was said */
} tuner;

/* The first lines of an NVRTC log. */
static char *log_head(const char *log)
{
	kjit__buf b = { 0 };
	const char *p = log ? log : "compile error";
	for (int n = 0; *p && n < LOG_LINES; n++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (n)
			kjit__buf_str(&b, "\n");
		kjit__buf_add(&b, p, len);
		p += len + (e != NULL);
	}
	return kjit__buf_done(&b);
}

/* The live line on a terminal: counts by status, best so far, the
 * compile and measure rates (configurations per second of the problem's
 * wall time), the workers when there are several, ETA. */
static void progress(const tuner *t, const problem_run *pr, size_t done, size_t total,
                     size_t compiled, double best, double elapsed)
{
	if (t->o->quiet || !t->tty)
		return;
	fprintf(stderr, "\r\033[K%zu/%zu", done, total);
	for (int i = 0; i < KJIT__RS_COUNT; i++)
		if (pr->counts[i])
			fprintf(stderr, " %s %zu", kjit_result_status_name((kjit_result_status)i),
			        pr->counts[i]);
	if (isfinite(best))
		fprintf(stderr, ", best %.1f us", best / 1000);
	if (elapsed > 0)
		fprintf(stderr, ", compile %.1f/s, measure %.1f/s", (double)compiled / elapsed,
		        (double)pr->evaluated / elapsed);
	if (kt_meas_count(t->meas) > 1)
		fprintf(stderr, " on %zu workers", kt_meas_live(t->meas));
	if (done && done < total)
		fprintf(stderr, ", ETA %.0f s", elapsed / (double)done * (double)(total - done));
	fflush(stderr);
}

/* The proposals to take ahead (kt_pool_window()): as far as keeps the
 * workers from waiting for a compile at the pool's compile rate and the
 * workers' measure rate so far (each worker's configurations per second
 * of its time, times the workers). */
static size_t window_size(const tuner *t, problem_run *pr)
{
	double measure = pr->measure_s > 0
		? (double)pr->evaluated * (double)kt_meas_live(t->meas) / pr->measure_s : 0;
	size_t w = kt_pool_window(t->pool, measure);
	if (w > pr->window_max)
		pr->window_max = w;
	return w;
}

/* One plain line per evaluation when stderr is not a terminal; with
 * several workers, the one that measured it. */
static void plain_line(const tuner *t, size_t done, size_t total, const kjit_eval *e,
                       const char *worker)
{
	if (t->o->quiet || t->tty)
		return;
	fprintf(stderr, "%zu/%zu %s %s %s", done, total, e->config, e->l2,
	        kjit_result_status_name(e->status));
	if (!isnan(e->median_ns))
		fprintf(stderr, " %.0f ns", e->median_ns);
	if (kt_meas_count(t->meas) > 1)
		fprintf(stderr, " (%s)", worker);
	if (e->message && e->status != KJIT_RESULT_OK)
		fprintf(stderr, ": %s", e->message);
	fprintf(stderr, "\n");
}

/* The problem's best row and its profile, when there is one; an energy
 * objective that no ok result could meet leaves the problem unmet, said
 * once. */
static void read_best(tuner *t, problem_run *pr)
{
	const char *sig = kjit_kernel_signature(t->kernel), *dev = t->hello->device_key;
	kjit_status st = kjit_record_best(t->res, sig, dev, pr->problem_json, &pr->best_config,
	                                   &pr->best_median, &pr->best_objective,
	                                   &pr->best_profile, &pr->has_profile);
	if (st != KJIT_OK && st != KJIT_ERR_NOT_FOUND)
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
	pr->unmet = st == KJIT_ERR_NOT_FOUND && t->objective != KJIT_OBJECTIVE_TIME &&
	            pr->counts[KJIT_RESULT_OK];
	if (pr->unmet && !t->said_no_energy) {
		t->said_no_energy = 1;
		fprintf(stderr, "kjit-tune: objective %s: no result has an energy measurement, so "
		        "none can be the best (energy needs NVML on the GPU's host; see --profile "
		        "in kjit-tune(1))\n", kjit_objective_name(t->objective));
	}
}

static void task_free(kt_task *task)
{
	if (!task)
		return;
	kt_reply_clear(&task->rep[0]);
	kt_reply_clear(&task->rep[1]);
	if (task->job)
		free(task->job->error);
	free(task->job);
	free(task);
}

/* The proposals of a problem not yet answered: each index in flight, and
 * the repeats of it the strategy made meanwhile (answered with it). */
typedef struct flight {
	size_t *index, *owed;
	size_t n, cap;
} flight;

static int flight_find(const flight *f, size_t index)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->index[i] == index)
			return (int)i;
	return -1;
}

static int flight_add(flight *f, size_t index)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		size_t *a = realloc(f->index, cap * sizeof *a), *b;
		if (!a)
			return 0;
		f->index = a;
		if (!(b = realloc(f->owed, cap * sizeof *b)))
			return 0;
		f->owed = b;
		f->cap = cap;
	}
	f->index[f->n] = index;
	f->owed[f->n++] = 0;
	return 1;
}

/* Removes index; returns the repeats owed. */
static size_t flight_take(flight *f, size_t index)
{
	int i = flight_find(f, index);
	if (i < 0)
		return 0;
	size_t owed = f->owed[i];
	f->index[i] = f->index[f->n - 1];
	f->owed[i] = f->owed[f->n - 1];
	f->n--;
	return owed;
}

/* Compiles and queues configuration j for measurement (profiled whatever
 * --profile says when profile is set); 0 when out of memory. */
static int submit(tuner *t, problem_run *pr, const kjit__space *space, size_t j, int profile)
{
	kt_task *task = calloc(1, sizeof *task);
	/* the job and its configuration in one block */
	kt_compile_job *jb = calloc(1, sizeof *jb + (space->n_params + 1) * sizeof(uint16_t));
	if (!task || !jb || kt_space_config(space, j, (uint16_t *)(jb + 1)) != KJIT_OK) {
		free(task);
		free(jb);
		kjit__error(KJIT_ERR_NOMEM, "out of memory");
		return 0;
	}
	jb->index = j;
	jb->config = (const uint16_t *)(jb + 1);
	task->job = jb;
	task->problem = (uint32_t)pr->p;
	task->modes = t->o->l2;
	task->profile = profile;
	kt_pool_submit(t->pool, jb);
	kt_meas_submit(t->meas, task);
	return 1;
}

kjit_status kt_space_empty(const kjit__spec *spec, size_t p,
                           const kjit_space_options *lim)
{
	double product = 1;
	for (size_t j = 0; j < spec->n_params; j++)
		product *= (double)spec->params[j].n_values;
	char *key = NULL;
	kjit_spec_problem_text(spec, p, KJIT_PROBLEM_KEY, &key); /* NULL: "(none)" below */
	kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: problem %s: no valid "
	                             "configuration: the restrictions and the limits (%lld threads "
	                             "per block, %lld bytes of shared memory) rule out all %.0f",
	                             spec->path, key && *key ? key : "(none)",
	                             (long long)lim->max_threads, (long long)lim->max_shared, product);
	free(key);
	return st;
}

/* One problem's search: its space and run, what is known of each
 * configuration, the strategy's state and the proposals in flight. */
typedef struct search {
	problem_run *pr;
	kjit__space *space;
	kjit_run *run;
	size_t n;              /* the evaluations the budget allows */
	double *known;         /* the objective the strategy heard, by index */
	uint8_t *have, *seen;
	size_t *rejected, *accepted, n_rejected, n_accepted;
	kjit_search *sst;
	flight fl;
	size_t covered, repeats;
	int strategy_done, proposing;
	uint64_t t0;
	kt_pool_stats ps0;
	kt_task *stopped; /* their jobs may still be compiling: freed once the
	                   * pool has let go of them (search_close) */
} search;

/* What the strategy hears of a task: the objective's figure, and the
 * verdict on its output: 1 accepted, -1 rejected (wrong_result), 0 when
 * it never got that far. */
typedef struct heard {
	double objective;
	int verdict;
} heard;

/* The evaluation of a task in one L2 mode: *e filled in. Returns -2 when
 * nothing more can be kept or the problem cannot be set up, else 0;
 * *message (malloc'ed) holds a compile log's head. */
static int eval_of(tuner *t, problem_run *pr, kt_task *task, int mode, kjit_eval *e,
                   char **message)
{
	kt_compile_job *j = task->job;
	kt_reply *rep = &task->rep[mode];
	if (j->broken) { /* not the configuration's doing: nothing more can be kept */
		kjit__error(KJIT_ERR_DB, "stopping: the database cannot keep binaries: %s",
		            j->error ? j->error : kjit_status_str(j->status));
		t->broken = 1;
		return -2;
	}
	if (j->status == KJIT_ERR_INVALID_ARG &&
	    kt_pool_args_refused(t->kernel, t->spec, j->config)) {
		/* the spec's arguments do not fit the kernel: no configuration of
		 * the problem can be evaluated */
		kjit__error(KJIT_ERR_INVALID_ARG, "problem %s: %s", pr->problem_json,
		            j->error ? j->error : kjit_status_str(j->status));
		return -2;
	}
	if (j->status != KJIT_OK) {
		e->status = KJIT_RESULT_COMPILE_ERROR;
		*message = log_head(j->error ? j->error : kjit_status_str(j->status));
		e->message = *message;
		return 0;
	}
	pr->setup_s += rep->setup_ms * 1e-3;
	pr->load_s += rep->load_ms * 1e-3;
	pr->check_s += rep->check_ms * 1e-3;
	pr->warmup_s += rep->warmup_ms * 1e-3;
	pr->timed_s += rep->timed_ms * 1e-3;
	if (isfinite(rep->median_ns))
		pr->kernel_s += rep->median_ns * 1e-9;
	if (task->setup) {
		/* not this configuration's doing: no configuration of the
		 * problem can be evaluated */
		kjit__error(KJIT_ERR_INVALID_ARG, "problem %s: %s", pr->problem_json,
		            rep->message ? rep->message : "cannot be set up");
		return -2;
	}
	e->status = rep->has_status ? rep->status : KJIT_RESULT_CRASHED;
	e->message = rep->message ? rep->message : task->why[mode][0] ? task->why[mode] : NULL;
	e->timer = rep->timer;
	e->median_ns = rep->median_ns;
	e->spread_ns = rep->spread_ns;
	e->min_ns = rep->min_ns;
	e->max_ns = rep->max_ns;
	e->samples = rep->samples;
	e->n_samples = rep->n_samples;
	e->has_profile = rep->has_profile;
	e->profile = rep->profile;
	/* the strategy hears the objective's figure; time while the results
	 * have none (no energy measured) */
	double score = kjit_eval_score(e, t->objective);
	if (e->status == KJIT_RESULT_OK)
		e->objective = isnan(score) ? e->median_ns : score;
	return 0;
}

/* Records the measured task in each L2 mode, done of s->n. Returns -2 on
 * a database error or when the problem cannot be set up, else 0; *h is
 * what the strategy hears. */
static int record(tuner *t, search *s, kt_task *task, size_t done, heard *h)
{
	problem_run *pr = s->pr;
	kt_compile_job *j = task->job;
	char *config = NULL;
	int ret = 0;
	*h = (heard){ INFINITY, 0 };
	if (kjit_space_config_json(s->space, j->index, &config) != KJIT_OK)
		return -2;
	kt_worker_info wi;
	kt_meas_info(t->meas, task->worker, &wi);
	pr->measure_s += task->measure_s;
	pr->restart_s += task->restart_s;
	pr->compile_wait_s += task->compile_wait_s;
	pr->setup_s += task->setup_s;
	for (int mode = 0; mode < 2 && ret == 0; mode++) {
		if (!(task->modes & (1 << mode)))
			continue;
		kjit_eval e = { .config = config, .l2 = mode ? "cold" : "warm",
			         .binary_key = j->key[0] ? j->key : NULL, .median_ns = NAN,
			         .spread_ns = NAN, .min_ns = NAN, .max_ns = NAN, .objective = NAN,
			         .compile_ms = j->compile_ms, .arch = t->hello->arch,
			         .nvrtc = kjit_nvrtc_id() };
		if (task->device_uuid[0]) {
			e.has_device_ordinal = 1;
			e.device_ordinal = task->device;
			e.device_uuid = task->device_uuid;
		}
		char *message = NULL;
		if ((ret = eval_of(t, pr, task, mode, &e, &message)) != 0)
			break;
		uint64_t t1 = kjit__now_ns();
		if (kjit_record_eval(t->res, s->run, &e, NULL, NULL) != KJIT_OK)
			ret = -2;
		pr->record_s += (double)(kjit__now_ns() - t1) * 1e-9;
		pr->counts[e.status]++;
		if (e.status == KJIT_RESULT_WRONG_RESULT)
			h->verdict = -1;
		else if (h->verdict == 0 &&
		         (e.status == KJIT_RESULT_OK || e.status == KJIT_RESULT_STOPPED_EARLY))
			h->verdict = 1;
		if (mode == 0 || !(t->o->l2 & 1)) {
			if (!isnan(e.objective))
				h->objective = e.objective;
			else if (e.status == KJIT_RESULT_STOPPED_EARLY)
				h->objective = e.median_ns; /* a lower bound: slower */
		}
		plain_line(t, done, s->n, &e, wi.name);
		kjit_engine_note_tuning(t->engine, t->kernel, s->run->id, e.status, pr->evaluated + 1);
		free(message);
	}
	free(config);
	return ret;
}

/* The configuration the search knows best (the least known[]), SIZE_MAX
 * when none. */
static size_t least_known(const search *s)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < s->space->size; i++)
		if (isfinite(s->known[i]) && (best == SIZE_MAX || s->known[i] < s->known[best]))
			best = i;
	return best;
}

/* A task the run's stop ended may have left its job compiling in the pool:
 * it is kept until search_close(), after the pool lets go of its jobs.
 * 1 when task was such a task. */
static int keep_stopped(search *s, kt_task *task)
{
	if (!task->stopped)
		return 0;
	task->next = s->stopped;
	s->stopped = task;
	return 1;
}

/* --profile best: how many times the best may be measured again, profiled,
 * when each measurement again hands the place to another near-tie */
#define PROFILE_BEST_TRIES 3

/* --profile best: the problem's best (least known[]) measured again and
 * profiled, once its search is over, until the best is one so profiled
 * (a near-tie measured again may come out behind another); returns as
 * tune_problem() does. */
static int profile_best(tuner *t, search *s)
{
	size_t profiled[PROFILE_BEST_TRIES];
	for (size_t n = 0; n < PROFILE_BEST_TRIES; n++) {
		size_t best = least_known(s);
		if (best == SIZE_MAX)
			return 0;
		for (size_t i = 0; i < n; i++)
			if (profiled[i] == best)
				return 0; /* the best has its profile */
		profiled[n] = best;
		if (!submit(t, s->pr, s->space, best, 1))
			return -2;
		kt_task *task;
		int w = kt_meas_wait(t->meas, &task);
		if (w <= 0)
			return w < 0 ? -2 : -1;
		if (keep_stopped(s, task))
			return -1;
		heard h;
		/* the best measured again is no new evaluation: not counted again */
		size_t counts[KJIT__RS_COUNT];
		memcpy(counts, s->pr->counts, sizeof counts);
		int r = record(t, s, task, s->n, &h);
		memcpy(s->pr->counts, counts, sizeof counts);
		s->known[best] = h.objective;
		task_free(task);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Room in known[] and have[] (space->size of them) for the configurations
 * a sample of a space too large to hold takes on (kjit__space_add()):
 * none of them known yet. 0 when out of memory. */
static int grow_known(const kjit__space *space, double **known, uint8_t **have)
{
	size_t cap = space->capacity + 1;
	double *k = realloc(*known, cap * sizeof *k);
	if (k)
		*known = k;
	uint8_t *h = k ? realloc(*have, cap) : NULL;
	if (!h)
		return 0;
	*have = h;
	for (size_t i = space->size; i < cap; i++) {
		k[i] = INFINITY;
		h[i] = 0;
	}
	return 1;
}

/* The limits of the problem's space: the command line's, else the spec's
 * and the device's, the lower; a budgeted search samples a space too
 * large to hold. */
static kjit_space_options space_limits(const tuner *t)
{
	const kjit__spec *spec = t->spec;
	kjit_space_options lim = t->o->limits;
	if (!lim.max_threads)
		lim.max_threads = spec->max_threads < t->hello->max_threads ? spec->max_threads
		                                                            : t->hello->max_threads;
	if (!lim.max_shared)
		lim.max_shared = spec->max_shared < t->hello->max_shared ? spec->max_shared
		                                                         : t->hello->max_shared;
	if (t->budget.evaluations || t->budget.fraction > 0 || t->budget.seconds > 0) {
		lim.sample = KJIT__SPACE_SAMPLE;
		lim.seed = t->o->seed;
	}
	return lim;
}

/* Builds the problem's space, starts or resumes its run, loads what the
 * database knows and starts the strategy: 0, or -2 on an error (an empty
 * space said why). */
static int search_open(tuner *t, search *s)
{
	const kjit__spec *spec = t->spec;
	problem_run *pr = s->pr;
	kjit_space_options lim = space_limits(t);
	if (kjit_space_build(spec, pr->p, &lim, &s->space) != KJIT_OK)
		return -2;
	if (s->space->size == 0) {
		kt_space_empty(spec, pr->p, &lim);
		return -2;
	}
	kjit__space *space = s->space;
	if (space->sampled && !t->o->quiet)
		fprintf(stderr, "kjit-tune: problem %zu: the space (a product of %.3g) is too large "
		        "to hold whole: searching a random sample of %zu of its valid "
		        "configurations\n",
		        pr->p, space->product, space->size);
	pr->space = space->size;
	if (kjit_spec_problem_text(spec, pr->p, KJIT_PROBLEM_JSON, &pr->problem_json) != KJIT_OK)
		return -2;
	s->n = kt_budget_evaluations(&t->budget, space->size);
	const char *sig = kjit_kernel_signature(t->kernel);
	kjit_run_desc d = { sig, t->hello->device_key, spec->entry, t->o->spec_path,
		             kjit_strategy_name(t->strategy), pr->problem_json, (int64_t)s->n, t->objective };
	if (kjit_record_run_start(t->res, &d, &s->run) != KJIT_OK ||
	    kjit_record_load(t->res, space, sig, t->hello->device_key, t->objective, &s->known,
	                      &s->have, NULL) != KJIT_OK)
		return -2;
	pr->run_id = s->run->id;
	double best = INFINITY;
	for (size_t i = 0; i < space->size; i++)
		if (s->known[i] < best)
			best = s->known[i];
	kt_meas_problem(t->meas, best);
	if (!(s->seen = calloc(space->capacity + 1, 1)) ||
	    !grow_known(space, &s->known, &s->have) ||
	    !(s->rejected = malloc((s->n + 1) * sizeof *s->rejected)) ||
	    !(s->accepted = malloc((s->n + 1) * sizeof *s->accepted))) {
		kjit__error(KJIT_ERR_NOMEM, "out of memory");
		return -2;
	}
	return kjit_search_start(t->strategy, space, s->n, t->o->seed, &s->sst) == KJIT_OK ? 0 : -2;
}

/* Takes proposals, a window ahead or one per worker: a repeat is answered
 * from memory or with the one in flight, a configuration the database
 * knows is skipped (unless --force), the others are submitted. 0, or -2
 * when out of memory. */
static int propose(tuner *t, search *s)
{
	size_t window = kjit_strategy_ahead(t->strategy) ? window_size(t, s->pr)
	                                                 : kt_meas_live(t->meas);
	while (s->proposing && !s->strategy_done && s->covered + s->fl.n < s->n &&
	       s->fl.n < window) {
		int64_t j;
		if (kjit_search_ask(s->sst, &j) != KJIT_OK)
			return -2;
		if (j == KJIT_SEARCH_WAIT)
			break;
		if (j == KJIT_SEARCH_END) {
			s->strategy_done = 1;
			break;
		}
		if (s->seen[j]) {
			int at = flight_find(&s->fl, (size_t)j);
			if (at >= 0)
				s->fl.owed[at]++;
			else
				kjit_search_tell(s->sst, (size_t)j, s->known[j]);
			if (++s->repeats > KJIT_SEARCH_STUCK_REPEATS)
				s->strategy_done = 1;
			if (at >= 0)
				break;
			continue;
		}
		s->repeats = 0;
		s->seen[j] = 1;
		if (s->have[j] && !t->o->force) {
			s->pr->skipped++;
			s->covered++;
			kjit_search_tell(s->sst, (size_t)j, s->known[j]);
			continue;
		}
		if (!flight_add(&s->fl, (size_t)j) || !submit(t, s->pr, s->space, (size_t)j, 0)) {
			kjit__error(KJIT_ERR_NOMEM, "out of memory");
			return -2;
		}
	}
	return 0;
}

/* Waits for a measured task, records it and tells the strategy. 1: go
 * on; 0: the task was stopped; -1 interrupted, -2 an error. */
static int take(tuner *t, search *s)
{
	kt_task *task;
	int w = kt_meas_wait(t->meas, &task);
	if (w <= 0)
		return w < 0 ? -2 : -1;
	if (keep_stopped(s, task))
		return 0;
	heard h;
	int r = record(t, s, task, s->covered + 1, &h);
	size_t index = task->job->index;
	task_free(task);
	size_t owed = flight_take(&s->fl, index);
	if (h.verdict < 0)
		s->rejected[s->n_rejected++] = index;
	else if (h.verdict > 0)
		s->accepted[s->n_accepted++] = index;
	if (r < 0)
		return r;
	s->known[index] = h.objective;
	for (size_t k = 0; k <= owed; k++)
		kjit_search_tell(s->sst, index, h.objective);
	s->pr->evaluated++;
	s->covered++;
	kt_pool_stats ps;
	kt_pool_get_stats(t->pool, &ps);
	progress(t, s->pr, s->covered, s->n, ps.jobs - s->ps0.jobs, kt_meas_best(t->meas),
	         (double)(kjit__now_ns() - s->t0) * 1e-9);
	return 1;
}

/* bytes or flops per second (in G) of configuration cfg, NAN when
 * unknown. */
static double rate(const kjit__spec *spec, size_t p, const char *formula, const kjit_config *cfg,
                   double median)
{
	double v = NAN;
	if (!formula || !(median > 0) ||
	    kjit_spec_eval(spec, p, cfg, formula, "objective", &v) != KJIT_OK)
		return NAN;
	return v / median;
}

/* The best row's rates, from the values of the configuration the search
 * knows best (its index), when the best row names that configuration. */
static void best_rates(tuner *t, search *s)
{
	problem_run *pr = s->pr;
	size_t b = s->known ? least_known(s) : SIZE_MAX;
	pr->best_gbps = pr->best_gflops = NAN;
	if (b == SIZE_MAX || !pr->best_config)
		return;
	char *c = NULL;
	size_t *values = malloc((t->spec->n_params + 1) * sizeof *values);
	kjit_config *cfg = NULL;
	if (values && kjit_space_config_json(s->space, b, &c) == KJIT_OK &&
	    strcmp(c, pr->best_config) == 0 && kjit_space_config(s->space, b, values) == KJIT_OK &&
	    kjit_config_new(t->spec, values, &cfg) == KJIT_OK) {
		pr->best_gbps = rate(t->spec, pr->p, t->spec->bytes, cfg, pr->best_median);
		pr->best_gflops = rate(t->spec, pr->p, t->spec->flops, cfg, pr->best_median);
	}
	kjit_config_free(cfg);
	free(values);
	free(c);
}

/* Ends the search: what is left in flight is dropped, the run finished
 * by ret (tune_problem()'s), the best read, what the rejected have in
 * common found, the times summed up. */
static void search_close(tuner *t, search *s, int ret)
{
	problem_run *pr = s->pr;
	/* what is left in flight is not recorded: what was compiled of it
	 * stays in the database */
	kt_pool_drop(t->pool, ret == -1);
	for (kt_task *task = kt_meas_drain(t->meas), *next; task; task = next) {
		next = task->next;
		task_free(task);
	}
	for (kt_task *task = s->stopped, *next; task; task = next) {
		next = task->next;
		task_free(task);
	}
	free(s->fl.index);
	free(s->fl.owed);
	if (t->tty && !t->o->quiet)
		fprintf(stderr, "\n");
	if (ret == -2)
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
	if (s->run) {
		if (kjit_record_run_finish(t->res, s->run, !ret ? KJIT_RUN_DONE : ret == -1
		                            ? KJIT_RUN_INTERRUPTED : KJIT_RUN_FAILED) != KJIT_OK)
			fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
		read_best(t, pr);
		best_rates(t, s);
	}
	if (s->n_rejected) {
		kt_rejected rj;
		if (kt_rejected_find(s->space, s->rejected, s->n_rejected, s->accepted,
		                     s->n_accepted, &rj) == KJIT_OK) {
			pr->rejected_text = kt_rejected_text(t->spec, &rj);
			pr->rejected_json = kt_rejected_json(t->spec, &rj);
			kt_rejected_free(&rj);
		}
	}
	kt_pool_stats ps;
	kt_pool_get_stats(t->pool, &ps);
	pr->compile_s = ps.busy_s - s->ps0.busy_s;
	pr->wall_s = (double)(kjit__now_ns() - s->t0) * 1e-9;
	kjit_search_free(s->sst);
	kjit_run_free(s->run);
	free(s->known);
	free(s->have);
	free(s->seen);
	free(s->rejected);
	free(s->accepted);
	kjit_space_free(s->space);
}

/* Tunes problem p; returns 0, -1 when interrupted, -2 on an error. */
static int tune_problem(tuner *t, problem_run *pr)
{
	search s = { .pr = pr, .proposing = 1, .t0 = kjit__now_ns() };
	kt_pool_get_stats(t->pool, &s.ps0);
	int ret = search_open(t, &s);
	while (ret == 0 && !interrupted) {
		if (t->budget.seconds > 0 &&
		    (double)(kjit__now_ns() - s.t0) * 1e-9 >= t->budget.seconds)
			s.proposing = 0; /* the ones in flight are still measured */
		if ((ret = propose(t, &s)) != 0 || s.fl.n == 0)
			break;
		int r = take(t, &s);
		if (r <= 0) {
			ret = r;
			break;
		}
	}
	if (ret == 0 && !interrupted && t->o->profile == KT_PROFILE_BEST)
		ret = profile_best(t, &s);
	if (interrupted && ret == 0)
		ret = -1;
	search_close(t, &s, ret);
	return ret;
}

/* The comparison kernel of every compared element type, compiled into the
 * database beside the variants, so that the worker's first comparison is
 * a load and not a wait on NVRTC. A failure is the worker's to report. */
static void *compile_verify(void *arg)
{
	tuner *t = arg;
	kt_verify *v;
	if (kt_verify_open(t->engine, &v) != KJIT_OK)
		return NULL;
	for (size_t i = 0; i < t->spec->n_args; i++) {
		kjit_variant *var;
		if (kt_arg_compared(t->spec, &t->spec->args[i]))
			(void)kt_verify_variant(v, t->spec->args[i].type, &var);
	}
	kt_verify_free(v);
	return NULL;
}

/* ---- the summary -------------------------------------------------------------- */

static void put_num(kjit__buf *b, double v)
{
	char s[64];
	if (isfinite(v))
		snprintf(s, sizeof s, "%.17g", v);
	else
		snprintf(s, sizeof s, "null");
	kjit__buf_str(b, s);
}

/* What no tuner can go below: the compiles spread over every core, or
 * each configuration's kernel run 3 times (a checked run and a minimal
 * measurement), whichever is longer. */
static double floor_of(double compile_s, double kernel_s, long cores)
{
	double c = compile_s / (double)(cores > 0 ? cores : 1), k = 3 * kernel_s;
	return c > k ? c : k;
}

/* "floor_s": X, "floor_ratio": X (null when the floor is 0) */
static void put_floor(kjit__buf *b, double wall_s, double floor_s)
{
	kjit__buf_str(b, ", \"floor_s\": ");
	put_num(b, floor_s);
	kjit__buf_str(b, ", \"floor_ratio\": ");
	put_num(b, floor_s > 0 ? wall_s / floor_s : NAN);
}

/* The "time" object of a problem: where its wall time went. */
static void put_times(kjit__buf *b, const problem_run *pr)
{
	const struct {
		const char *name;
		double v;
	} parts[] = {
		{ "setup_s", pr->setup_s }, { "load_s", pr->load_s }, { "check_s", pr->check_s },
		{ "warmup_s", pr->warmup_s }, { "timed_s", pr->timed_s },
		{ "worker_other_s", pr->measure_s - pr->restart_s - pr->setup_s - pr->load_s -
		                            pr->check_s - pr->warmup_s - pr->timed_s },
		{ "restart_s", pr->restart_s }, { "record_s", pr->record_s },
		{ "compile_wait_s", pr->compile_wait_s },
	};
	kjit__buf_str(b, ", \"time\": {");
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		kjit__buf_str(b, i ? ", \"" : "\"");
		kjit__buf_str(b, parts[i].name);
		kjit__buf_str(b, "\": ");
		put_num(b, parts[i].v);
	}
	kjit__buf_str(b, "}");
}

/* The compile pool in the --json summary: the run's ("compile") and a
 * problem's ("window_max"). */
static void put_pool_json(kjit__buf *b, kt_pool *pool)
{
	kt_pool_stats ps;
	kt_pool_get_stats(pool, &ps);
	char s[256];
	snprintf(s, sizeof s, ", \"compile\": {\"pool\": \"%s\", \"workers\": %d, \"jobs\": %zu, "
	         "\"compiled\": %zu, \"restarts\": %zu, \"rate\": ", ps.mode, ps.workers, ps.jobs,
	         ps.compiled, ps.restarts);
	kjit__buf_str(b, s);
	put_num(b, ps.rate > 0 ? ps.rate : NAN);
	kjit__buf_str(b, "}");
}

static void put_problem_pool_json(kjit__buf *b, const problem_run *pr)
{
	char s[64];
	snprintf(s, sizeof s, ", \"window_max\": %zu", pr->window_max);
	kjit__buf_str(b, s);
}

/* A JSON string, null for NULL. */
static void put_str(kjit__buf *b, const char *s)
{
	if (s)
		kjit__buf_json_str(b, s);
	else
		kjit__buf_str(b, "null");
}

/* The workers in the --json summary: each one's device, configurations
 * measured, restarts, and why it was dropped. */
static void put_workers_json(kjit__buf *b, kt_meas *m)
{
	kjit__buf_str(b, ", \"workers\": [");
	for (size_t i = 0; i < kt_meas_count(m); i++) {
		kt_worker_info wi;
		kt_meas_info(m, i, &wi);
		char s[128];
		kjit__buf_str(b, i ? ", {\"name\": " : "{\"name\": ");
		kjit__buf_json_str(b, wi.name);
		snprintf(s, sizeof s, ", \"device\": %d, \"uuid\": ", wi.hello ? wi.hello->device : -1);
		kjit__buf_str(b, s);
		put_str(b, wi.hello ? wi.hello->device_uuid : NULL);
		snprintf(s, sizeof s, ", \"evaluated\": %zu, \"restarts\": %zu, \"dropped\": ",
		         wi.evaluated, wi.restarts);
		kjit__buf_str(b, s);
		put_str(b, wi.why);
		kjit__buf_str(b, "}");
	}
	kjit__buf_str(b, "]");
}

/* The workers in the text summary, when there are several. */
static void print_workers(kt_meas *m)
{
	if (kt_meas_count(m) < 2)
		return;
	printf("workers:");
	for (size_t i = 0; i < kt_meas_count(m); i++) {
		kt_worker_info wi;
		kt_meas_info(m, i, &wi);
		printf("%s %s", i ? "," : "", wi.name);
		if (wi.hello && wi.hello->device_uuid)
			printf(" (%.12s)", wi.hello->device_uuid);
		printf(" %zu", wi.evaluated);
		if (wi.restarts)
			printf(", %zu restart%s", wi.restarts, wi.restarts == 1 ? "" : "s");
		if (wi.dropped)
			printf(", dropped");
	}
	printf("\n");
}

/* The best's objective, and with a profile its energy per launch and
 * where it stands against the device's peak (kjit_profile_peak). */
static void put_best_profile(kjit__buf *b, const problem_run *pr)
{
	kjit__buf_str(b, ", \"objective\": ");
	kjit__buf_json_str(b, kjit_objective_name(pr->best_objective));
	if (!pr->has_profile)
		return;
	double rate;
	const char *what;
	double f = kjit_profile_peak(&pr->best_profile, &rate, &what);
	kjit__buf_str(b, ", \"energy_j\": ");
	put_num(b, pr->best_profile.energy_j);
	kjit__buf_str(b, ", \"peak\": ");
	put_str(b, what);
	kjit__buf_str(b, ", \"peak_rate\": ");
	put_num(b, rate);
	kjit__buf_str(b, ", \"peak_fraction\": ");
	put_num(b, f);
}

/* --json of a run that failed before its summary: still one object,
 * {"spec", "error"}, the error as on stderr. */
static void print_json_error(const kt_tune_opts *o, const char *error)
{
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "{\"spec\": ");
	kjit__buf_json_str(&b, o->spec_path);
	kjit__buf_str(&b, ", \"error\": ");
	kjit__buf_json_str(&b, error);
	kjit__buf_str(&b, "}");
	char *text = kjit__buf_done(&b);
	printf("%s\n", text ? text : "null");
	free(text);
}

/* One problem of the JSON summary. */
static void put_problem_json(kjit__buf *b, const tuner *t, const problem_run *pr)
{
	char s[128];
	kjit__buf_str(b, "{\"problem\": ");
	kjit__buf_str(b, pr->problem_json ? pr->problem_json : "{}");
	snprintf(s, sizeof s, ", \"run_id\": %lld, \"space\": %zu, \"evaluated\": %zu, "
	         "\"skipped\": %zu, \"statuses\": {", (long long)pr->run_id, pr->space,
	         pr->evaluated, pr->skipped);
	kjit__buf_str(b, s);
	for (int k = 0; k < KJIT__RS_COUNT; k++) {
		snprintf(s, sizeof s, "%s\"%s\": %zu", k ? ", " : "",
		         kjit_result_status_name((kjit_result_status)k), pr->counts[k]);
		kjit__buf_str(b, s);
	}
	kjit__buf_str(b, "}, \"best\": ");
	if (pr->best_config) {
		kjit__buf_str(b, "{\"config\": ");
		kjit__buf_str(b, pr->best_config);
		kjit__buf_str(b, ", \"median_ns\": ");
		put_num(b, pr->best_median);
		kjit__buf_str(b, ", \"gbps\": ");
		put_num(b, pr->best_gbps);
		kjit__buf_str(b, ", \"gflops\": ");
		put_num(b, pr->best_gflops);
		put_best_profile(b, pr);
		kjit__buf_str(b, "}");
	} else {
		kjit__buf_str(b, "null");
	}
	kjit__buf_str(b, ", \"rejected\": ");
	kjit__buf_str(b, pr->rejected_json ? pr->rejected_json : "null");
	kjit__buf_str(b, ", \"wall_s\": ");
	put_num(b, pr->wall_s);
	kjit__buf_str(b, ", \"compile_s\": ");
	put_num(b, pr->compile_s);
	kjit__buf_str(b, ", \"measure_s\": ");
	put_num(b, pr->measure_s);
	kjit__buf_str(b, ", \"kernel_s\": ");
	put_num(b, pr->kernel_s);
	put_floor(b, pr->wall_s, floor_of(pr->compile_s, pr->kernel_s, t->cores));
	put_times(b, pr);
	put_problem_pool_json(b, pr);
	kjit__buf_str(b, "}");
}

static void print_json(tuner *t, double wall_s, int was_interrupted)
{
	kjit__buf b = { 0 };
	const kjit__spec *spec = t->spec;
	kjit__buf_str(&b, "{\"spec\": ");
	kjit__buf_json_str(&b, t->o->spec_path);
	kjit__buf_str(&b, ", \"kernel\": ");
	kjit__buf_json_str(&b, spec->entry);
	kjit__buf_str(&b, ", \"signature\": ");
	kjit__buf_json_str(&b, kjit_kernel_signature(t->kernel));
	kjit__buf_str(&b, ", \"device\": ");
	kjit__buf_json_str(&b, t->hello->device_name);
	kjit__buf_str(&b, ", \"device_key\": ");
	kjit__buf_json_str(&b, t->hello->device_key);
	kjit__buf_str(&b, ", \"arch\": ");
	kjit__buf_json_str(&b, t->hello->arch);
	kjit__buf_str(&b, ", \"strategy\": ");
	kjit__buf_json_str(&b, kjit_strategy_name(t->strategy));
	kjit__buf_str(&b, ", \"wall_s\": ");
	put_num(&b, wall_s);
	double compile_s = 0, kernel_s = 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		compile_s += t->runs[i].compile_s;
		kernel_s += t->runs[i].kernel_s;
	}
	put_floor(&b, wall_s, floor_of(compile_s, kernel_s, t->cores));
	kjit__buf_str(&b, ", \"cores\": ");
	put_num(&b, (double)t->cores);
	kjit__buf_str(&b, ", \"worker_start_s\": ");
	put_num(&b, t->start_s);
	kjit__buf_str(&b, was_interrupted ? ", \"interrupted\": true" : ", \"interrupted\": false");
	put_pool_json(&b, t->pool);
	put_workers_json(&b, t->meas);
	kjit__buf_str(&b, ", \"problems\": [");
	for (size_t i = 0; i < t->n_runs; i++) {
		kjit__buf_str(&b, i ? ", " : "");
		put_problem_json(&b, t, &t->runs[i]);
	}
	kjit__buf_str(&b, "]}\n");
	char *text = kjit__buf_done(&b);
	if (text)
		fputs(text, stdout);
	free(text);
}

static void print_text(tuner *t, int was_interrupted)
{
	printf("%s: %s on %s (%s), strategy %s%s\n", t->o->spec_path, t->spec->entry,
	       t->hello->device_name, t->hello->arch, kjit_strategy_name(t->strategy),
	       was_interrupted ? ", interrupted" : "");
	print_workers(t->meas);
	for (size_t i = 0; i < t->n_runs; i++) {
		problem_run *pr = &t->runs[i];
		printf("problem %s: run %lld, space %zu, evaluated %zu, skipped %zu (",
		       pr->problem_json ? pr->problem_json : "{}", (long long)pr->run_id, pr->space,
		       pr->evaluated, pr->skipped);
		for (int k = 0; k < KJIT__RS_COUNT; k++)
			printf("%s%s %zu", k ? ", " : "",
			       kjit_result_status_name((kjit_result_status)k), pr->counts[k]);
		printf("), %.1f s\n", pr->wall_s);
		if (pr->best_config) {
			double g = pr->best_gbps;
			char peak[96] = "";
			if (pr->has_profile)
				kt_profile_peak_text(&pr->best_profile, peak, sizeof peak);
			printf("  best %s %.0f ns by %s", pr->best_config, pr->best_median,
			       kjit_objective_name(pr->best_objective));
			if (pr->has_profile && !isnan(pr->best_profile.energy_j))
				printf(", %.3g J per launch", pr->best_profile.energy_j);
			if (peak[0])
				printf(", %s", peak);
			else if (isfinite(g))
				printf(", %.1f GB/s", g);
			printf("\n");
		} else {
			printf("  best: none\n");
		}
		if (pr->rejected_text)
			printf("  %s\n", pr->rejected_text);
	}
}

/* T1 General.OutputFile: the T4 results of every problem of the run, the
 * configurations skipped as already known included. */
static kjit_status write_output(tuner *t)
{
	const char **problems = calloc(t->n_runs + 1, sizeof *problems);
	size_t n = 0;
	if (!problems)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < t->n_runs; i++)
		if (t->runs[i].problem_json)
			problems[n++] = t->runs[i].problem_json;
	/* a relative path is the current directory's, as KTT writes it */
	const char *path = t->spec->output_file;
	kjit_status st = kt_results_write_t4(t->res, t->spec, kjit_kernel_signature(t->kernel),
	                                     t->hello->device_key, problems, n, path);
	if (st == KJIT_OK && !t->o->quiet)
		fprintf(stderr, "kjit-tune: T4 results in %s\n", path);
	free(problems);
	return st;
}

/* The measuring workers: a local one per device of --devices (device 0
 * when it is not given; every device with "all"), and the other ranks'
 * with --mpi. They start before the compile pool and the engine, whose
 * arch is theirs. */
static kjit_status open_workers(tuner *t)
{
	const kt_tune_opts *o = t->o;
	const kt_devices *dv = &o->devices;
	kt_link_args la = { .spec_path = o->spec_path, .db = t->db, .engine = &t->engine,
		            .verify = t->spec->verify, .atol = t->spec->atol, .rtol = t->spec->rtol };
	kt_link **links = NULL, **remote = NULL;
	size_t n = 0, n_remote = 0;
	kjit_status st = KJIT_OK;
	if (o->mpi && (st = kt_mpi_links(&la, &remote, &n_remote)) != KJIT_OK)
		return st;
	size_t n_local = dv->none ? 0 : dv->all || !dv->n ? 1 : dv->n;
	if (!(links = calloc(n_local + n_remote + 1, sizeof *links)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; st == KJIT_OK && i < n_local; i++) {
		la.device = dv->n && !dv->all ? dv->list[i] : 0;
		if ((st = kt_link_local(&la, &links[n])) == KJIT_OK)
			n++;
	}
	for (size_t i = 0; i < n_remote; i++) {
		if (links)
			links[n++] = remote[i];
		else
			remote[i]->ops->free(remote[i]);
	}
	free(remote);
	if (st != KJIT_OK) {
		for (size_t i = 0; i < n; i++)
			links[i]->ops->free(links[i]);
		free(links);
		return st;
	}
	la.device = 0;
	t->mo = (kt_meas_opts){ .stop = &interrupted, .n_params = (uint32_t)t->spec->n_params,
		                .timeout_s = o->timeout_s, .early_stop = o->early_stop,
		                .warmup_ms = o->warmup_ms, .budget_ms = o->budget_ms,
		                .quiet = o->quiet, .profile = o->profile,
		                .objective = t->objective };
	st = kt_meas_open(links, n, dv->all ? &la : NULL, &t->mo, &t->meas);
	free(links);
	return st;
}

/* Tunes problems first to last (excluded) until one is interrupted
 * (*stopped 1) or the database fails for good: KT_EXIT_OK, or
 * KT_EXIT_RUNTIME when one failed or ended with no best its objective
 * could choose. */
static int tune_problems(tuner *t, size_t first, size_t last, int *stopped)
{
	int ret = KT_EXIT_OK;
	for (size_t p = first; p < last; p++) {
		problem_run *pr = &t->runs[t->n_runs++];
		pr->p = p;
		int r = tune_problem(t, pr);
		if (r == -1) {
			*stopped = 1;
			break;
		}
		if (r == -2 || pr->unmet)
			ret = KT_EXIT_RUNTIME;
		if (t->broken)
			break;
	}
	return ret;
}

/* The engine (no GPU: the workers have it), the kernel, the compile pool
 * and the database connection of a run whose workers said hello. */
static kjit_status open_parts(tuner *t)
{
	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = t->db;
	eo.arch = t->hello->arch;
	eo.compile_threads = t->o->jobs;
	eo.flags = KJIT_ENGINE_NO_GPU;
	kjit_status st = kjit_engine_open(&eo, &t->engine);
	if (st == KJIT_OK)
		st = kjit_spec_kernel(t->engine, t->spec, 0, &t->kernel);
	kt_pool_opts po = { .spec = t->spec, .spec_path = t->o->spec_path, .engine = t->engine,
		            .kernel = t->kernel, .workers = t->o->jobs, .mode = t->o->pool };
	if (st == KJIT_OK)
		st = kt_pool_open(&po, &t->pool);
	return st == KJIT_OK ? kjit_records_open(t->db, 0, &t->res) : st;
}

/* SIGINT and SIGTERM end the run between evaluations (interrupted);
 * a reader gone is a write error, not a death. */
static void catch_signals(void)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The command line's objective, else the spec's metric (gbps and gflops
 * order as time does). */
kjit_objective kt_objective_of(const kt_tune_opts *o, const kjit__spec *spec)
{
	kjit_objective by = o->objective;
	if (!o->objective_set && spec->metric && kjit_objective_parse(spec->metric, &by) != KJIT_OK)
		by = KJIT_OBJECTIVE_TIME;
	return by;
}

/* The run's settings: the command line's, else the spec's (T1 Search,
 * Budget, the metric), checked before any work. KT_EXIT_OK, or the exit
 * status that says what is wrong (said on stderr). */
static int settle(tuner *t)
{
	const kjit__spec *spec = t->spec;
	const kt_tune_opts *o = t->o;
	/* the command line's settings, else the spec's (T1 Search, Budget) */
	t->budget = o->budget;
	if (!t->budget.evaluations && !t->budget.fraction && !t->budget.seconds) {
		t->budget.evaluations =
			spec->budget_evaluations > 0 ? (size_t)spec->budget_evaluations : 0;
		t->budget.fraction = spec->budget_fraction;
		t->budget.seconds = spec->budget_seconds;
	}
	/* a spec may not choose where kjit writes: its T4 file is a file name
	 * of the current directory, said before any work */
	if (spec->output_file && strchr(spec->output_file, '/')) {
		fprintf(stderr, "kjit-tune: %s: General.OutputFile \"%s\": give a file name, written "
		        "in the current directory (a spec does not choose folders kjit writes in)\n",
		        spec->path, spec->output_file);
		return KT_EXIT_SPEC;
	}
	t->objective = kt_objective_of(o, spec);
	if (o->problem >= 0 && (size_t)o->problem >= spec->n_problems) {
		fprintf(stderr, "kjit-tune: --problem: the spec %s has %zu problems\n", spec->path,
		        spec->n_problems);
		return KT_EXIT_USAGE;
	}
	if (!spec->n_args && spec->n_params) {
		fprintf(stderr, "kjit-tune: %s: arguments: needed to run the kernel\n", spec->path);
		return KT_EXIT_SPEC;
	}
	if (kt_args_check(spec) != KJIT_OK) {
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
		return KT_EXIT_SPEC;
	}
	/* last: nothing after it fails, so that kt_tune() frees it */
	return kt_strategy_make(o->strategy, spec, &t->budget, o->strategy_args,
	                        o->n_strategy_args, &t->strategy);
}

int kt_strategy_make(const char *name, const kjit__spec *spec, const kt_budget *budget,
                     const char *const *args, size_t n, kjit_strategy **out)
{
	kjit_strategy_options so;
	kjit_strategy_options_init(&so);
	so.name = name;
	so.spec = spec;
	so.limited = kt_budget_limited(budget);
	so.settings = args;
	so.n_settings = n;
	so.settings_from = "--strategy-option";
	kjit_strategy_fault fault;
	if (kjit_strategy_new(&so, out, &fault) != KJIT_OK) {
		int spec_fault = fault == KJIT_STRATEGY_FAULT_SPEC;
		fprintf(stderr, "kjit-tune: %s\n%s", kjit_last_error(),
		        spec_fault ? "" : "Try 'kjit-tune --help'.\n");
		return spec_fault ? KT_EXIT_SPEC : fault == KJIT_STRATEGY_FAULT_NONE ? KT_EXIT_RUNTIME
		                                                                 : KT_EXIT_USAGE;
	}
	size_t nw;
	const char *const *w = kjit_strategy_warnings(*out, &nw);
	for (size_t i = 0; i < nw; i++)
		fprintf(stderr, "kjit-tune: warning: %s\n", w[i]);
	return KT_EXIT_OK;
}

int kt_tune(const kjit__spec *spec, const kt_tune_opts *o)
{
	tuner t = { .spec = spec, .o = o, .tty = isatty(STDERR_FILENO),
		    .cores = sysconf(_SC_NPROCESSORS_ONLN) };
	char *def = NULL;
	int ret = KT_EXIT_RUNTIME, stopped = 0, verifying = 0;
	pthread_t verifier;
	uint64_t t0 = kjit__now_ns();
	if ((ret = settle(&t)) != KT_EXIT_OK)
		return ret;
	ret = KT_EXIT_RUNTIME;
	catch_signals();

	t.db = o->db;
	if (!t.db && kjit_store_default_path(&def) == KJIT_OK)
		t.db = def;
	/* the database refused here, naming it, not by the first worker */
	if (!t.db || kjit_store_check_path(t.db) != KJIT_OK || open_workers(&t) != KJIT_OK)
		goto fail;
	t.start_s = (double)(kjit__now_ns() - t0) * 1e-9;
	t.hello = kt_meas_hello(t.meas);
	if (open_parts(&t) != KJIT_OK)
		goto fail;
	t.mo.pool = t.pool;
	if (strcmp(spec->verify, "none") != 0)
		verifying = kt_thread_start(&verifier, compile_verify, &t) == 0;
	size_t first = o->problem >= 0 ? (size_t)o->problem : 0;
	size_t last = o->problem >= 0 ? first + 1 : spec->n_problems;
	if (!(t.runs = calloc(last - first + 1, sizeof *t.runs))) {
		kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto fail;
	}
	kjit__nvtx_push(KJIT__NVTX_TUNE, spec->entry);
	ret = tune_problems(&t, first, last, &stopped);
	kjit__nvtx_pop();
	if (spec->output_file && *spec->output_file && t.n_runs && write_output(&t) != KJIT_OK) {
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
		ret = KT_EXIT_RUNTIME;
	}
	if (o->json)
		print_json(&t, (double)(kjit__now_ns() - t0) * 1e-9, stopped);
	else
		print_text(&t, stopped);
	fflush(stdout);
	if (stopped)
		ret = KT_EXIT_INTERRUPTED;
	goto done;
fail:
	fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
	if (o->json)
		print_json_error(o, kjit_last_error());
done:
	if (verifying)
		pthread_join(verifier, NULL);
	kt_meas_close(t.meas);
	kt_pool_close(t.pool);
	for (size_t i = 0; i < t.n_runs; i++) {
		free(t.runs[i].problem_json);
		free(t.runs[i].best_config);
		free(t.runs[i].rejected_text);
		free(t.runs[i].rejected_json);
	}
	free(t.runs);
	kjit_strategy_free(t.strategy);
	if (kjit_records_close(t.res) != KJIT_OK && ret == KT_EXIT_OK) {
		fprintf(stderr, "kjit-tune: %s\n", kjit_last_error());
		ret = KT_EXIT_RUNTIME;
	}
	kjit_engine_close(t.engine);
	free(def);
	return ret;
}
