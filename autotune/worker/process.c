/*
 * process.c - the GPU worker process of kjit-tune. It alone touches the
 * driver: a kernel that faults, hangs or poisons the context takes only
 * the worker down, and the tuner starts another. The worker gets its
 * binaries from the shared database (the tuner compiled them), keeps one
 * problem's buffers on the device, verifies each variant's output against
 * the reference on the device (verify.c) and measures it with
 * kjit_variant_measure(), the checked run timed as the race's first
 * sample when the GPU was warm. The pristine inputs and the reference outputs
 * stay on the device too, so a variant costs no transfer over PCIe.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"
#include "wire.h"

/*
 * What this worker has seen of the noise of kernels, by length: racing
 * (cupti/protocol.c) stops a configuration after as little as one sample
 * when it lies beyond a margin from the best's noise. Per octave of
 * median, the relative spreads of the last NOISE_KEEP measurements of 6
 * samples or more; and per L2 mode the spread of this worker's own
 * fastest ok result, which is the best's own when the tuner's best came
 * from here.
 */
#define NOISE_OCTAVES 48 /* medians up to 2^48 ns */
#define NOISE_KEEP 8

typedef struct noise_table {
	float rel[NOISE_OCTAVES][NOISE_KEEP];
	unsigned char n[NOISE_OCTAVES], next[NOISE_OCTAVES];
	double own_ns[2], own_spread_ns[2]; /* own fastest ok median, its spread; 0: none */
} noise_table;

typedef struct worker {
	const kjit__spec *spec;
	kjit_engine *engine;
	kjit_kernel *kernel, *reference;
	int out_fd;
	char uuid[KJIT_UUID_TEXT]; /* the hello's device_uuid */
	int64_t problem;       /* the problem the buffers are for, -1 none */
	kjit_status setup_status; /* of that problem's set-up; failures are kept */
	char *setup_error;
	kt_args *args;
	kjit_devptr *dev;      /* per argument: its buffer, 0 for scalars and symbols */
	void **argv;           /* cuLaunchKernel's: every argument but the symbols */
	kjit_devptr *pristine; /* per buffer the kernel may write: its contents before a run */
	kjit_devptr *want;     /* per compared buffer: the expected output */
	kt_verify *verify;     /* NULL with verify "none" */
	uint64_t idle_since;   /* when the last measurement ended, 0: none yet */
	double busy_ms;        /* its checked run and timed phase, ms */
	noise_table noise;     /* racing's margins */
} worker;

/* A measurement that ended this recently left the GPU's clocks up: its
 * checked run and timed phase count as the next one's warm-up. */
#define WARM_GAP_MS 50

static double ms_since(uint64_t t0)
{
	return (double)(kjit__now_ns() - t0) * 1e-6;
}

/* Errors after which the context is unusable: the process must go. */
static int sticky(const char *msg)
{
	static const char *const names[] = {
		"CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED",
		"CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_ILLEGAL_INSTRUCTION",
		"CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_ASSERT",
		"CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_LAUNCH_TIMEOUT",
		"CUDA_ERROR_ECC_UNCORRECTABLE", "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strstr(msg, names[i]))
			return 1;
	return 0;
}

/* Classifies a failed call: a refused launch is launch_error, a compile
 * failure compile_error; anything else from the driver is crashed and
 * ends the worker (the context may be poisoned). */
static void fail_reply(kt_reply *r, kjit_status st, const char *prefix, const char *msg)
{
	static char text[8192]; /* room for an argument table (args.c) */
	snprintf(text, sizeof text, "%s%s", prefix, msg);
	r->message = text;
	if (st == KJIT_ERR_COMPILE || st == KJIT_ERR_LINK) {
		r->status = KJIT_RESULT_COMPILE_ERROR;
	} else if (st == KJIT_ERR_LAUNCH && !sticky(msg)) {
		r->status = KJIT_RESULT_LAUNCH_ERROR;
	} else {
		r->status = KJIT_RESULT_CRASHED;
		r->fatal = 1;
	}
}

static void free_problem(worker *w)
{
	kjit_devptr *lists[] = { w->dev, w->pristine, w->want };
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; lists[l] && i < w->args->n; i++)
			if (lists[l][i])
				kjit_mem_free(w->engine, lists[l][i]);
	kt_args_free(w->args);
	free(w->dev);
	free(w->argv);
	free(w->pristine);
	free(w->want);
	free(w->setup_error);
	w->args = NULL;
	w->dev = NULL;
	w->argv = NULL;
	w->pristine = NULL;
	w->want = NULL;
	w->setup_error = NULL;
	w->setup_status = KJIT_OK;
	w->problem = -1;
}

/* Puts the pristine contents back into the buffers the kernel may write. */
static kjit_status restore(worker *w)
{
	for (size_t i = 0; i < w->args->n; i++) {
		if (w->pristine[i]) {
			kjit_status st = kjit_memcpy_dtod(w->engine, w->dev[i], w->pristine[i],
			                                  w->args->a[i].bytes);
			if (st != KJIT_OK)
				return st;
		}
	}
	return KJIT_OK;
}

/* Restores the outputs, runs once and waits. With m, the run is timed
 * with no warm-up, so that the output compared after it is that launch's
 * (the checked run, the race's first sample). */
static kjit_status run_once(worker *w, kjit_variant *v, const kt_launch *l, int cold_l2,
                            kjit_measurement *m)
{
	kjit_status st = restore(w);
	if (st == KJIT_OK && m) {
		kjit_measure_options o;
		kjit_measure_options_init(&o);
		o.no_warmup = 1;
		o.min_samples = o.max_samples = 1;
		o.cold_l2 = cold_l2;
		st = kjit_variant_measure(v, l->grid, l->block, l->shared, NULL, w->argv, &o, m);
	} else if (st == KJIT_OK) {
		st = kjit_variant_launch(v, l->grid, l->block, l->shared, NULL, w->argv);
	}
	if (st == KJIT_OK) /* a fault the timer did not see surfaces here */
		st = kjit_synchronize(w->engine);
	return st;
}

/* The expected outputs of the default and reference modes: the default
 * configuration of the kernel, or the reference kernel with the default
 * configuration's settings, run once for the problem. */
static kjit_status compute_want(worker *w, const char **what)
{
	kt_launch l;
	kjit_variant *v = NULL;
	*what = w->reference ? "the expected output, from the reference kernel: "
	                     : "the expected output, from the default configuration: ";
	kjit_status st = kt_launch_make(w->spec, (size_t)w->problem, NULL, &l);
	if (st != KJIT_OK)
		return st;
	kjit_kernel *k = w->reference ? w->reference : w->kernel;
	if ((st = kjit_variant_get(k, kjit_config_variant(l.config), &v, NULL)) == KJIT_OK)
		st = run_once(w, v, &l, 0, NULL);
	kt_launch_clear(&l);
	for (size_t i = 0; st == KJIT_OK && i < w->args->n; i++) {
		kt_arg *a = &w->args->a[i];
		if (!w->dev[i] || !kt_arg_compared(w->spec, a->spec))
			continue;
		if ((st = kjit_mem_alloc(w->engine, a->bytes, &w->want[i])) == KJIT_OK)
			st = kjit_memcpy_dtod(w->engine, w->want[i], w->dev[i], a->bytes);
	}
	return st;
}

/* The buffers, symbols and expected outputs of problem p, made once per
 * problem: a failure is kept and given to every request of the problem. */
static kjit_status setup_problem(worker *w, size_t p)
{
	const char *what = "arguments: ";
	if (w->problem == (int64_t)p)
		return w->setup_status == KJIT_OK
		               ? KJIT_OK
		               : kjit__error(w->setup_status, "%s", w->setup_error ? w->setup_error : "");
	free_problem(w);
	w->problem = (int64_t)p;
	/* the tuner's best starts again with each problem */
	memset(w->noise.own_ns, 0, sizeof w->noise.own_ns);
	const kjit__spec *spec = w->spec;
	kjit_status st = kt_args_build(spec, p, &w->args);
	size_t n = spec->n_args, k = 0;
	if (st == KJIT_OK) {
		w->dev = calloc(n + 1, sizeof *w->dev);
		w->argv = calloc(n + 1, sizeof *w->argv);
		w->pristine = calloc(n + 1, sizeof *w->pristine);
		w->want = calloc(n + 1, sizeof *w->want);
		if (!w->dev || !w->argv || !w->pristine || !w->want)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && st == KJIT_OK; i++) {
		kt_arg *a = &w->args->a[i];
		if (a->spec->symbol) {
			/* every variant's module gets it as it loads */
			st = kjit_kernel_set_symbol(w->kernel, a->spec->name, a->host, a->bytes);
			if (st == KJIT_OK && w->reference)
				st = kjit_kernel_set_symbol(w->reference, a->spec->name, a->host, a->bytes);
			continue;
		}
		if (!a->spec->is_buffer) {
			w->argv[k++] = a->host;
			continue;
		}
		int compared = kt_arg_compared(spec, a->spec);
		w->argv[k++] = &w->dev[i];
		if ((st = kjit_mem_alloc(w->engine, a->bytes, &w->dev[i])) == KJIT_OK)
			st = kjit_memcpy_htod(w->engine, w->dev[i], a->host, a->bytes);
		if (st == KJIT_OK && ((a->spec->access & KJIT__OUT) || compared) &&
		    (st = kjit_mem_alloc(w->engine, a->bytes, &w->pristine[i])) == KJIT_OK)
			st = kjit_memcpy_dtod(w->engine, w->pristine[i], w->dev[i], a->bytes);
		/* ReferenceArguments: built on the host once, uploaded once */
		if (st == KJIT_OK && compared && a->reference &&
		    (st = kjit_mem_alloc(w->engine, a->bytes, &w->want[i])) == KJIT_OK)
			st = kjit_memcpy_htod(w->engine, w->want[i], a->reference, a->bytes);
	}
	if (st == KJIT_OK && w->verify && strcmp(spec->verify, "data") != 0)
		st = compute_want(w, &what);
	if (st != KJIT_OK) {
		w->setup_status = st;
		w->setup_error = kjit__strdup_printf("%s%s", what, kjit_last_error());
		kjit__error(st, "%s", w->setup_error ? w->setup_error : what);
	}
	return st;
}

/* 0 when every compared output matches; fills r (wrong_result or a
 * failure). */
static int verify(worker *w, kt_reply *r)
{
	static char text[512];
	for (size_t i = 0; i < w->args->n; i++) {
		kt_arg *a = &w->args->a[i];
		if (!w->want[i])
			continue;
		kt_check c;
		kt_mismatch m;
		kt_arg_check(w->spec, a->spec, &c);
		kjit_status st = kt_verify_compare(w->verify, a, w->dev[i], w->want[i], &c, &m);
		if (st != KJIT_OK) {
			fail_reply(r, st, "verifying the output: ", kjit_last_error());
			return -1;
		}
		if (m.failed) {
			kt_mismatch_text(a, &c, &m, text, sizeof text);
			r->status = KJIT_RESULT_WRONG_RESULT;
			r->message = text;
			return -1;
		}
	}
	return 0;
}

static size_t octave(double ns)
{
	int e = ns >= 1 ? ilogb(ns) : 0;
	return e < NOISE_OCTAVES ? (size_t)e : NOISE_OCTAVES - 1;
}

static void noise_learn(noise_table *t, const kjit_measurement *m, int cold, int ok)
{
	if (!(m->median_ns > 0))
		return;
	if (ok && (t->own_ns[cold] == 0 || m->median_ns < t->own_ns[cold])) {
		t->own_ns[cold] = m->median_ns;
		t->own_spread_ns[cold] = m->spread_ns;
	}
	if (m->n_samples < 6) /* too few for a spread */
		return;
	size_t o = octave(m->median_ns);
	t->rel[o][t->next[o]] = (float)(m->spread_ns / m->median_ns);
	t->next[o] = (unsigned char)((t->next[o] + 1) % NOISE_KEEP);
	if (t->n[o] < NOISE_KEEP)
		t->n[o]++;
}

/* The spread to race against a best of best_ns: the larger of its own
 * (when it came from this worker) and the median relative spread seen
 * for kernels within an octave of its length; 0 when neither is known. */
static double noise_at(const noise_table *t, double best_ns, int cold)
{
	double own = best_ns == t->own_ns[cold] ? t->own_spread_ns[cold] : 0;
	double v[3 * NOISE_KEEP];
	size_t k = 0, o = octave(best_ns);
	for (size_t i = o > 0 ? o - 1 : 0; i <= o + 1 && i < NOISE_OCTAVES; i++)
		for (size_t j = 0; j < t->n[i]; j++)
			v[k++] = t->rel[i][j];
	if (k == 0)
		return own;
	double typical = kjit__median(v, k) * best_ns;
	return typical > own ? typical : own;
}

/* What the request asks profiled (KT_PROF_*) of a configuration that
 * measured ok (its median time median_ns), into r; energy raced against
 * the request's best. Counters refused or no NVML are figures missing
 * with their reasons, not errors. */
static kjit_status profile(worker *w, kjit_variant *v, const kt_launch *l, const kt_request *q,
                           double median_ns, kt_reply *r)
{
	kjit_profile_options po;
	kjit_profile_options_init(&po);
	po.counters = (q->profile & KT_PROF_COUNTERS) != 0;
	po.energy = (q->profile & KT_PROF_ENERGY) != 0;
	double best_j = q->race_j > 0 ? q->race_j : q->race_jns > 0 ? q->race_jns / median_ns : 0;
	if (isfinite(best_j))
		po.energy_best_j = best_j;
	kjit_status st = kjit_variant_profile(v, l->grid, l->block, l->shared, NULL, w->argv, &po,
	                                      &r->profile);
	r->has_profile = st == KJIT_OK;
	return st;
}

/* Answers one request; *fatal set when the worker must exit. */
static kjit_status evaluate(worker *w, const kt_request *q, int *fatal)
{
	kt_reply r = { .status = KJIT_RESULT_OK, .regs = -1, .median_ns = NAN, .spread_ns = NAN,
		       .min_ns = NAN, .max_ns = NAN, .ci_high_ns = NAN };
	kjit_measurement m = { 0 }, checked = { 0 };
	kt_launch l = { 0 };
	kjit_variant *v = NULL;
	kt_buf b = { 0 };
	kjit_status st;
	if (q->problem >= w->spec->n_problems ||
	    (!q->prepare && q->n_config != w->spec->n_params)) {
		st = kjit__error(KJIT_ERR_INVALID_ARG, "worker: a request for problem %u with %u "
		                 "parameters", q->problem, q->n_config);
		fail_reply(&r, st, "", kjit_last_error());
		goto reply;
	}
	uint64_t t0 = kjit__now_ns();
	st = setup_problem(w, q->problem);
	r.setup_ms = ms_since(t0);
	if (st != KJIT_OK) {
		fail_reply(&r, st, "", kjit_last_error());
		r.setup = 1;
		goto reply;
	}
	if (q->prepare)
		goto reply;
	t0 = kjit__now_ns();
	st = kt_launch_make(w->spec, q->problem, q->config, &l);
	if (st == KJIT_OK)
		st = kjit_variant_get(w->kernel, kjit_config_variant(l.config), &v, NULL);
	r.load_ms = ms_since(t0);
	if (st != KJIT_OK) {
		fail_reply(&r, st, "", kjit_last_error());
		/* the spec's arguments do not fit the kernel: no configuration runs */
		r.setup = kjit_kernel_args_refused(w->kernel);
		goto reply;
	}
	kjit_variant_info info;
	if (kjit_variant_get_info(v, &info) == KJIT_OK)
		r.regs = info.num_regs;
	/* From here on the variant runs: the tuner's timeout starts. */
	kt_begin_encode(&b);
	if ((st = kt_frame_write(w->out_fd, &b)) != KJIT_OK)
		goto done;
	t0 = kjit__now_ns();
	if ((st = run_once(w, v, &l, q->cold_l2, &checked)) != KJIT_OK) {
		fail_reply(&r, st, "", kjit_last_error());
		goto reply;
	}
	int wrong = w->verify && verify(w, &r) != 0;
	r.check_ms = ms_since(t0);
	if (wrong)
		goto reply;
	kjit_measure_options mo;
	kjit_measure_options_init(&mo);
	mo.cold_l2 = q->cold_l2;
	mo.best_ns = q->best_ns;
	mo.best_hi_ns = q->best_ns > 0 ? q->best_hi_ns : 0;
	mo.best_spread_ns = q->best_ns > 0 ? noise_at(&w->noise, q->best_ns, q->cold_l2 != 0) : 0;
	mo.early_stop_factor = q->best_ns > 0 ? q->early_factor : 0;
	mo.budget_ms = q->budget_ms;
	if (q->max_ms > 0 && q->max_ms < mo.max_ms)
		mo.max_ms = q->max_ms;
	if (q->warmup_ms >= 0)
		mo.warmup_ms = q->warmup_ms;
	/* the checked run warmed the GPU, and so did the last measurement
	 * when it ended a moment ago (before this variant's load); then the
	 * checked run ran warm, and its time is the race's first sample: a
	 * configuration that cannot win costs that one run */
	mo.warmed_ms = r.check_ms;
	if (w->idle_since && ms_since(w->idle_since) < WARM_GAP_MS) {
		mo.warmed_ms += w->busy_ms;
		mo.prior_ns = checked.samples_ns;
		mo.n_prior = (unsigned)checked.n_samples;
	}
	st = kjit_variant_measure(v, l.grid, l.block, l.shared, NULL, w->argv, &mo, &m);
	w->idle_since = kjit__now_ns();
	/* its own warm-up is not counted again: --warmup stays a floor */
	w->busy_ms = st == KJIT_OK ? r.check_ms + m.wall_ms - m.warmup_ms : 0;
	if (st != KJIT_OK) {
		fail_reply(&r, st, "measuring: ", kjit_last_error());
		goto reply;
	}
	noise_learn(&w->noise, &m, q->cold_l2 != 0, strcmp(m.stop, "stopped_early") != 0);
	r.warmup_ms = m.warmup_ms;
	r.timed_ms = m.wall_ms - m.warmup_ms;
	r.ci_high_ns = m.ci_high_ns;
	r.timer = (char *)m.timer;
	r.stop = (char *)m.stop;
	r.median_ns = m.median_ns;
	r.spread_ns = m.spread_ns;
	r.min_ns = m.min_ns;
	r.max_ns = m.max_ns;
	r.samples = m.samples_ns;
	r.n_samples = (uint32_t)m.n_samples;
	if (strcmp(m.stop, "stopped_early") == 0)
		r.status = KJIT_RESULT_STOPPED_EARLY;
	if (q->profile && r.status == KJIT_RESULT_OK &&
	    (st = profile(w, v, &l, q, m.median_ns, &r)) != KJIT_OK)
		fail_reply(&r, st, "profiling: ", kjit_last_error());
reply:
	kt_reply_encode(&b, &r);
	st = kt_frame_write(w->out_fd, &b);
	*fatal = r.fatal;
done:
	kt_launch_clear(&l);
	kjit_measurement_free(&checked);
	kjit_measurement_free(&m);
	kt_buf_free(&b);
	return st;
}

static kjit_status open_worker(worker *w, const char *db, int device, kt_hello *h)
{
	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = db;
	eo.device = device;
	kjit_status st = kjit_engine_open(&eo, &w->engine);
	if (st == KJIT_ERR_NO_GPU && !eo.arch) {
		/* the library's message tells how to compile without a GPU, which
		 * a tuning run cannot: open to compile only, for the reason alone */
		eo.arch = "sm_90";
		st = kjit_engine_open(&eo, &w->engine);
	}
	if (st == KJIT_OK && !kjit_engine_has_gpu(w->engine))
		st = kjit__error(KJIT_ERR_NO_GPU, "no GPU: %s", kjit_engine_gpu_reason(w->engine));
	if (st == KJIT_OK)
		st = kjit_spec_kernel(w->engine, w->spec, 0, &w->kernel);
	if (st == KJIT_OK && strcmp(w->spec->verify, "reference") == 0)
		st = kjit_spec_kernel(w->engine, w->spec, 1, &w->reference);
	if (st == KJIT_OK && strcmp(w->spec->verify, "none") != 0)
		st = kt_verify_open(w->engine, &w->verify);
	if (st != KJIT_OK)
		return st;
	kjit_device_info d;
	if ((st = kjit_engine_device(w->engine, &d)) != KJIT_OK)
		return st;
	h->arch = (char *)d.arch;
	h->device_name = (char *)d.name;
	h->device_key = (char *)d.key;
	h->max_threads = d.max_threads_per_block;
	h->max_shared = d.max_shared_per_block; /* launches opt in beyond 48 KiB */
	memcpy(w->uuid, d.uuid, sizeof w->uuid);
	h->device_uuid = w->uuid;
	h->device = device;
	h->device_count = d.count;
	return KJIT_OK;
}

int kt_worker_main(const char *spec_path, const char *db, const kt_worker_verify *wv,
                   int device, int in_fd, int out_fd)
{
	worker w = { .out_fd = out_fd, .problem = -1 };
	kjit__spec *spec = NULL;
	kt_hello h = { 0 };
	kt_buf b = { 0 };
	int code = 1;
	kjit_status st = kjit_spec_load(spec_path, &spec);
	w.spec = spec;
	if (st == KJIT_OK)
		st = kt_verify_override(spec, wv->verify, wv->atol, wv->rtol);
	if (st == KJIT_OK)
		st = open_worker(&w, db, device, &h);
	if (st != KJIT_OK) {
		memset(&h, 0, sizeof h);
		h.error = (char *)kjit_last_error();
	}
	kt_hello_encode(&b, &h);
	if (kt_frame_write(out_fd, &b) != KJIT_OK || st != KJIT_OK)
		goto done;
	for (;;) {
		kt_request q;
		int fatal = 0;
		kt_frame_result fr = kt_frame_read(in_fd, &b, 0, NULL);
		if (fr == KT_FRAME_EOF) {
			code = 0;
			break;
		}
		if (fr != KT_FRAME_OK || kt_request_decode(&b, &q) != KJIT_OK)
			break;
		st = evaluate(&w, &q, &fatal);
		kt_request_clear(&q);
		if (fatal) {
			/* the context is poisoned: leave it to the driver */
			kt_buf_free(&b);
			kjit_spec_free(spec);
			return 3;
		}
		if (st != KJIT_OK)
			break;
	}
done:
	if (code != 0 && !h.error) /* a reason in the hello is the parent's to print */
		fprintf(stderr, "kjit-tune worker: %s\n", kjit_last_error());
	free_problem(&w);
	kt_verify_free(w.verify);
	kt_buf_free(&b);
	kjit_engine_close(w.engine);
	kjit_spec_free(spec);
	return code;
}
