/*
 * energy.c - energy per launch of a kernel from NVML's power samples or
 * its energy counter.
 *
 * NVML reads the board's energy in steps (nvml.c): its power samples,
 * 20 ms apart on the H100, each the average since the one before, or
 * where a GPU keeps none, its energy counter, which moves every 100 ms on
 * the H200 (8.5 J a step idle, 33 J under an FMA kernel) and costs 3 to
 * 4 ms a read. Either way a single launch is invisible to it. One
 * stretch keeps the GPU running the kernel back to back and takes the
 * board's energy at NVML's steps: the energy between two steps over the
 * time between them is the board's average power while the kernel runs,
 * and that power times the period of one launch (the stretch's time over
 * its launches) is the energy of a launch. The repeats are consecutive
 * intervals of the stretch, each at least batch_ms, so that no repeat
 * waits for the GPU to warm again or for a step to open it; the median
 * repeat gives the power, and the repeats its spread.
 *
 * What the figure means: the board's energy while the kernel runs, so the
 * GPU's idle power, its memory and fans, and any other work on the GPU
 * at the time are part of it. It is what a launch costs at the wall, not
 * the kernel's share alone; compare variants on one GPU, not GPUs.
 */
#include "config.h"

#include <math.h>

#include "instr.h"

#define REPEATS 3
#define CALIBRATE_S 0.02  /* the launch period is timed over this much */
#define CALIBRATE_MAX ((size_t)1 << 24) /* launches in one batch, at most */
#define WARM_S 0.02       /* the stretch runs this long before its first step */
#define AHEAD_S 0.03      /* launches queued ahead of the host's clock: several
                           * reads of the counter */
#define AHEAD_SAMPLES_S 0.01 /* several polls for a power sample (each waits a
                              * millisecond): what is queued at the last step
                              * runs before the measurement can return */
#define STEP_WAIT_S 2.0   /* steps that have not come by then are stuck */
#define ONE_REPEAT_MARGIN 0.10 /* one repeat's energy is within a few percent of
                                * a whole measurement's (the first runs while the
                                * clocks still rise): one this far above a best
                                * cannot be it */
#define PERIOD_MARGIN 0.02 /* the calibration's period (which the race uses, the
                            * stretch's being known only at its end) lies above
                            * the stretch's by its batches' syncs: under 1% */
#define MAX_BATCH_MS 60000.0

typedef struct busy {
	const kjit__cu_api *cu;
	kjit__launch_fn fn;
	void *ctx;
	CUstream stream;
	double period_s; /* the calibration's, to keep the queue ahead */
	double ahead_s;  /* queued ahead of the host's clock */
	double start;    /* the stretch's first launch */
	size_t launched;
} busy;

static kjit_status launch(busy *b)
{
	CUresult r = b->fn(b->ctx, b->stream);
	if (r != CUDA_SUCCESS)
		return kjit__cu_fail(r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ? KJIT_ERR_LAUNCH
		                                                               : KJIT_ERR_CUDA,
		                     r, "launch in the energy batch");
	b->launched++;
	return KJIT_OK;
}

static kjit_status sync_stream(const busy *b)
{
	CUresult r = b->cu->cuStreamSynchronize(b->stream);
	return r == CUDA_SUCCESS ? KJIT_OK : kjit__cu_fail(KJIT_ERR_CUDA, r, "cuStreamSynchronize");
}

/* The period of one launch run back to back: batches that grow until
 * one takes CALIBRATE_S, each sized from the last's period. The first
 * launch, alone, also warms up. */
static kjit_status calibrate(busy *b)
{
	kjit_status st = launch(b);
	if (st == KJIT_OK)
		st = sync_stream(b);
	for (size_t k = 1; st == KJIT_OK;) {
		double t0 = kjit__nvml_clock_s();
		for (size_t i = 0; i < k && st == KJIT_OK; i++)
			st = launch(b);
		if (st == KJIT_OK)
			st = sync_stream(b);
		double dt = kjit__nvml_clock_s() - t0;
		if (st == KJIT_OK && (dt >= CALIBRATE_S || k >= CALIBRATE_MAX)) {
			b->period_s = dt / (double)k;
			break;
		}
		/* a quarter over, so that the next batch is the last */
		double next = dt > 0 ? ceil((double)k * CALIBRATE_S * 1.25 / dt) : (double)CALIBRATE_MAX;
		k = next >= (double)CALIBRATE_MAX ? CALIBRATE_MAX
		    : next > 2.0 * (double)k ? (size_t)next : 2 * k;
	}
	return st;
}

/* Keeps ahead_s of launches queued, so that the GPU never waits while
 * the host polls NVML. In the steady state a call tops up what
 * the GPU ran during the last read; where the driver's queue is full, a
 * launch waits for the GPU, which is then busy all the same. */
static kjit_status feed(busy *b)
{
	double due = kjit__nvml_clock_s() - b->start + b->ahead_s;
	kjit_status st = KJIT_OK;
	while (st == KJIT_OK && (double)b->launched * b->period_s < due)
		st = launch(b);
	return st;
}

/* Feeds the GPU until NVML's first step at or after not_before: the
 * board's energy there in *mj, its time in *when. */
static kjit_status next_step(busy *b, kjit__nvml *n, double not_before, double *mj, double *when)
{
	double give_up = not_before + STEP_WAIT_S;
	for (int found = 0;;) {
		kjit_status st = feed(b);
		if (st == KJIT_OK)
			st = kjit__nvml_step_after(n, not_before, mj, when, &found);
		if (st != KJIT_OK || found)
			return st;
		if (kjit__nvml_clock_s() > give_up)
			return kjit__error(KJIT_ERR_CUDA, "NVML's %s did not move in %.0f s while the GPU "
			                   "ran the kernel", kjit__nvml_steps_source(n), STEP_WAIT_S);
	}
}

/* The board's average power in repeat i, between NVML's steps i and
 * i + 1 (mJ at seconds). */
static double repeat_w(const double *mj, const double *at, unsigned i)
{
	return (mj[i + 1] - mj[i]) * 1e-3 / (at[i + 1] - at[i]);
}

/* A race against a best of best_j a launch (0: none), after done
 * repeats: one that is far above it, or two that both are (the median of
 * three cannot then be below them), say enough of a configuration that
 * cannot win. period_s: the calibration's. */
static int lost(const double *mj, const double *at, unsigned done, double period_s,
                double best_j)
{
	if (!(best_j > 0))
		return 0;
	double first = repeat_w(mj, at, 0) * period_s;
	if (done == 1)
		return first > best_j * (1 + ONE_REPEAT_MARGIN);
	double second = repeat_w(mj, at, 1) * period_s, above = best_j * (1 + PERIOD_MARGIN);
	return done == 2 && first > above && second > above;
}

kjit_status kjit__energy_measure(kjit__nvml *n, const kjit__cu_api *cu, kjit__launch_fn fn,
                                 void *ctx, CUstream stream, double batch_ms, double best_j,
                                 kjit__energy *out)
{
	if (!(batch_ms > 0 && batch_ms <= MAX_BATCH_MS))
		return kjit__error(KJIT_ERR_INVALID_ARG, "energy batch of %g ms: it must be above 0 "
		                   "and at most %.0f ms", batch_ms, MAX_BATCH_MS);
	double t_begin = kjit__nvml_clock_s();
	busy b = { .cu = cu, .fn = fn, .ctx = ctx, .stream = stream,
		   .ahead_s = kjit__nvml_steps_sampled(n) ? AHEAD_SAMPLES_S : AHEAD_S };
	kjit_status st = calibrate(&b);
	size_t launches = b.launched;
	/* one stretch: its first step after WARM_S opens the first repeat, and
	 * each step at least batch_ms after the last closes one and opens the next */
	double mj[REPEATS + 1] = { 0 }, at[REPEATS + 1];
	unsigned done = 0;
	b.launched = 0;
	b.start = kjit__nvml_clock_s();
	if (st == KJIT_OK)
		st = kjit__nvml_steps_begin(n);
	if (st == KJIT_OK)
		st = next_step(&b, n, b.start + WARM_S, &mj[0], &at[0]);
	while (st == KJIT_OK && done < REPEATS) {
		st = next_step(&b, n, at[done] + batch_ms * 1e-3, &mj[done + 1], &at[done + 1]);
		if (st != KJIT_OK)
			break;
		done++;
		if (lost(mj, at, done, b.period_s, best_j))
			break;
	}
	kjit_status synced = sync_stream(&b); /* the queued launches, whatever happened */
	if (st == KJIT_OK)
		st = synced;
	if (st != KJIT_OK)
		return st;
	double period = (kjit__nvml_clock_s() - b.start) / (double)b.launched;
	double watts[REPEATS];
	for (unsigned i = 0; i < done; i++)
		watts[i] = repeat_w(mj, at, i);
	/* the median repeat's (watts sorted): a first repeat while the clocks
	 * still rise does not move it */
	out->power_w = kjit__median(watts, done);
	out->launch_s = period;
	out->energy_j = out->power_w * period;
	out->rel_spread = done > 1 && out->power_w > 0
	                  ? (watts[done - 1] - watts[0]) / out->power_w : NAN;
	out->repeats = done;
	out->launches = launches + b.launched;
	out->wall_ms = (kjit__nvml_clock_s() - t_begin) * 1e3;
	return KJIT_OK;
}
