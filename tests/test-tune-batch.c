/*
 * test-tune-batch: the strategies under the batch contract of strategies.h,
 * replayed (kt_replay) on recorded spaces with 1, 4 and 16 proposals
 * outstanding and results arriving out of order. Each strategy runs inside
 * a spy that checks the contract from both sides: the replay calls next()
 * only while fewer than B proposals are outstanding and reports each
 * proposal exactly once, with its known time; the strategy never waits
 * with nothing outstanding, proposes only configurations of the space and
 * is not asked again after -1. Every run ends within its budget, with
 * nothing left unreported. With B = 1 each run proposes the sequence
 * pinned below (its length and FNV-1a hash): one proposal at a time is
 * what bench results and the other tests rely on. With more, the two
 * large spaces see B outstanding at once and results out of order;
 * exhaustive, random and genetic propose the same sequence for any B.
 * Then search efficiency: the median over 15 seeds of the evaluations to
 * within 5% of the best known, with B = 4 at most twice the B = 1 figure
 * plus SLACK. Last, the replay refuses a strategy that waits with nothing
 * outstanding, and a batch too large.
 */
#include "testutil.h"

#include "search.h"
#include "strategies.h"

#define SEEDS 3
#define EFF_SEEDS 15
#define WITHIN 0.05
/* evaluations allowed beyond twice: the small spaces come within 5% in a few */
#define SLACK 2

typedef struct space_file {
	const char *spec, *csv;
	double fraction; /* the budget of the contract runs */
	int large;       /* enough room for B = 16 at once */
} space_file;

static const space_file files[] = {
	{ "examples/saxpy/saxpy.json", "saxpy-h200.csv", 1.0, 0 },
	{ "examples/transpose/transpose.json", "transpose-h200.csv", 1.0, 0 },
	{ "examples/sgemm/sgemm.json", "sgemm-h200.csv", 0.25, 1 },
	{ "tests/data/convolution-rtx2080ti.json", "convolution-rtx2080ti.csv", 0.15, 1 },
};
#define N_FILES (sizeof files / sizeof files[0])

/* The B = 1 runs: space (files[]), strategy, seed, next() returns,
 * evaluations, FNV-1a of the returns. */
static const struct pinned {
	int file;
	const char *strategy;
	uint64_t seed;
	size_t n_next, evaluations;
	uint64_t hash;
} pinned[] = {
	{ 0, "exhaustive", 1, 40, 40, 0x62a02bd4e656fdf5ull },
	{ 0, "exhaustive", 2, 40, 40, 0x7a63a38535b1beb7ull },
	{ 0, "exhaustive", 3, 40, 40, 0xdfa15ee3a4a6525bull },
	{ 0, "random", 1, 40, 40, 0x62a02bd4e656fdf5ull },
	{ 0, "random", 2, 40, 40, 0x7a63a38535b1beb7ull },
	{ 0, "random", 3, 40, 40, 0xdfa15ee3a4a6525bull },
	{ 0, "annealing", 1, 40, 40, 0x03d4029c636b7819ull },
	{ 0, "annealing", 2, 40, 40, 0x0c9faa451e4f58d1ull },
	{ 0, "annealing", 3, 40, 40, 0xc42a72bc82933d77ull },
	{ 0, "genetic", 1, 60, 40, 0xb1b316b345c99b66ull },
	{ 0, "genetic", 2, 58, 40, 0x10b5c9efd55ee180ull },
	{ 0, "genetic", 3, 57, 40, 0x80ee547a5c80bdefull },
	{ 0, "surrogate", 1, 40, 40, 0x82e0470c18f4b80dull },
	{ 0, "surrogate", 2, 40, 40, 0xd6155aecb6f5ac1dull },
	{ 0, "surrogate", 3, 40, 40, 0x1a05870626c65afbull },
	{ 0, "dual_annealing", 1, 40, 40, 0x7a1fe2095788944full },
	{ 0, "dual_annealing", 2, 40, 40, 0x7c76138eeacf77cbull },
	{ 0, "dual_annealing", 3, 40, 40, 0xe8bcba61b3d1227full },
	{ 0, "pso", 1, 40, 40, 0xa31fc704a1ed8a85ull },
	{ 0, "pso", 2, 40, 40, 0xadd5582cb9ab0c03ull },
	{ 0, "pso", 3, 40, 40, 0x76057fe387063a09ull },
	{ 0, "hybrid", 1, 40, 40, 0xb5b9a9f173a8cb3dull },
	{ 0, "hybrid", 2, 40, 40, 0x5b25235dba910da7ull },
	{ 0, "hybrid", 3, 40, 40, 0xd1c718beb993aef1ull },
	{ 1, "exhaustive", 1, 26, 26, 0x289d4f1ee0de825cull },
	{ 1, "exhaustive", 2, 26, 26, 0xe0f694d7f2982b76ull },
	{ 1, "exhaustive", 3, 26, 26, 0x496f104da1ce56aaull },
	{ 1, "random", 1, 26, 26, 0x289d4f1ee0de825cull },
	{ 1, "random", 2, 26, 26, 0xe0f694d7f2982b76ull },
	{ 1, "random", 3, 26, 26, 0x496f104da1ce56aaull },
	{ 1, "annealing", 1, 26, 26, 0xc14cca909d18450cull },
	{ 1, "annealing", 2, 26, 26, 0x79709c8162e92182ull },
	{ 1, "annealing", 3, 26, 26, 0x6aed140e2f37b41aull },
	{ 1, "genetic", 1, 38, 26, 0x3aa67ff3be7a4f84ull },
	{ 1, "genetic", 2, 28, 26, 0x6e670e54c3475555ull },
	{ 1, "genetic", 3, 31, 26, 0xadef7aedc6812429ull },
	{ 1, "surrogate", 1, 26, 26, 0xb2f81b8fd5eb7d06ull },
	{ 1, "surrogate", 2, 26, 26, 0x96656fae29d4345eull },
	{ 1, "surrogate", 3, 26, 26, 0x060af4d6185ccb1cull },
	{ 1, "dual_annealing", 1, 26, 26, 0x8647d33566a05006ull },
	{ 1, "dual_annealing", 2, 26, 26, 0xe490d20192b31b74ull },
	{ 1, "dual_annealing", 3, 26, 26, 0x00c6f0e0ac09477aull },
	{ 1, "pso", 1, 26, 26, 0x615ff1feca329122ull },
	{ 1, "pso", 2, 26, 26, 0x9df31e70c500f480ull },
	{ 1, "pso", 3, 26, 26, 0xe94cfd58489e555eull },
	{ 1, "hybrid", 1, 26, 26, 0xd07a17843de7e9a6ull },
	{ 1, "hybrid", 2, 26, 26, 0x96a4be5f5e71fc50ull },
	{ 1, "hybrid", 3, 26, 26, 0x8c59cc3359a65872ull },
	{ 2, "exhaustive", 1, 349, 349, 0x577c7ff36b7b6ad5ull },
	{ 2, "exhaustive", 2, 349, 349, 0x4fa1f5f796e2910cull },
	{ 2, "exhaustive", 3, 349, 349, 0x2594d7db6e3d701eull },
	{ 2, "random", 1, 349, 349, 0x577c7ff36b7b6ad5ull },
	{ 2, "random", 2, 349, 349, 0x4fa1f5f796e2910cull },
	{ 2, "random", 3, 349, 349, 0x2594d7db6e3d701eull },
	{ 2, "annealing", 1, 349, 349, 0x94d12bcd05493fefull },
	{ 2, "annealing", 2, 349, 349, 0x52e19ae0b22a608dull },
	{ 2, "annealing", 3, 349, 349, 0x41a5e977e900b3a6ull },
	{ 2, "genetic", 1, 359, 349, 0x6352897c6bded1d4ull },
	{ 2, "genetic", 2, 354, 349, 0xfe3674ca09d514cfull },
	{ 2, "genetic", 3, 358, 349, 0xf0c713f2292fa76cull },
	{ 2, "surrogate", 1, 349, 349, 0x9f41884f22962da2ull },
	{ 2, "surrogate", 2, 349, 349, 0x9711ce0355d60b3full },
	{ 2, "surrogate", 3, 349, 349, 0x4bb6c41e4693c254ull },
	{ 2, "dual_annealing", 1, 349, 349, 0x8c4afd0dfef5fa9cull },
	{ 2, "dual_annealing", 2, 349, 349, 0xb878d07f2595dde7ull },
	{ 2, "dual_annealing", 3, 349, 349, 0x7afbae681ba7b564ull },
	{ 2, "pso", 1, 349, 349, 0x6770167bfd8b585eull },
	{ 2, "pso", 2, 349, 349, 0x94da3c20d5357c45ull },
	{ 2, "pso", 3, 349, 349, 0x19f79e36f20abc45ull },
	{ 2, "hybrid", 1, 349, 349, 0x74bff44dfd0a1c3full },
	{ 2, "hybrid", 2, 349, 349, 0xe1c6bae10daa6f95ull },
	{ 2, "hybrid", 3, 349, 349, 0x981677b88f3045e5ull },
	{ 3, "exhaustive", 1, 1016, 1016, 0x4470fc886898bf93ull },
	{ 3, "exhaustive", 2, 1016, 1016, 0x70ab58694502eb1dull },
	{ 3, "exhaustive", 3, 1016, 1016, 0x8716f9a424593790ull },
	{ 3, "random", 1, 1016, 1016, 0x4470fc886898bf93ull },
	{ 3, "random", 2, 1016, 1016, 0x70ab58694502eb1dull },
	{ 3, "random", 3, 1016, 1016, 0x8716f9a424593790ull },
	{ 3, "annealing", 1, 1016, 1016, 0x1bdc79a4fc5003c0ull },
	{ 3, "annealing", 2, 1016, 1016, 0x02c16083c18f7c01ull },
	{ 3, "annealing", 3, 1016, 1016, 0x119fc5705239aa2aull },
	{ 3, "genetic", 1, 1032, 1016, 0xece20f94e851a0d1ull },
	{ 3, "genetic", 2, 1047, 1016, 0x05bc50eddc993bd5ull },
	{ 3, "genetic", 3, 1051, 1016, 0xcd4f9d170a9d96ffull },
	{ 3, "surrogate", 1, 1016, 1016, 0xa21a366c81737765ull },
	{ 3, "surrogate", 2, 1016, 1016, 0x9deb2534972ee28bull },
	{ 3, "surrogate", 3, 1016, 1016, 0x813a4956fd911e5aull },
	{ 3, "dual_annealing", 1, 1016, 1016, 0x988e9855f95af566ull },
	{ 3, "dual_annealing", 2, 1016, 1016, 0x8c7249fdab334a1aull },
	{ 3, "dual_annealing", 3, 1016, 1016, 0xfde4cab69e9e89b4ull },
	{ 3, "pso", 1, 1016, 1016, 0x63b32733ecbae4cdull },
	{ 3, "pso", 2, 1016, 1016, 0x1af3fca71fd2167aull },
	{ 3, "pso", 3, 1016, 1016, 0x335ddcb74cbc345dull },
	{ 3, "hybrid", 1, 1016, 1016, 0x085f502062c7007bull },
	{ 3, "hybrid", 2, 1016, 1016, 0x45c7ca9ee46fe80dull },
	{ 3, "hybrid", 3, 1016, 1016, 0x1f3b21a4a51f3d2bull },
};

/* ---- the spy ---------------------------------------------------------------- */

typedef struct spy_log {
	uint64_t hash;        /* FNV-1a of the next() returns other than waits */
	int64_t *seq;         /* those returns, n_next of them (malloc'ed) */
	size_t n_next, cap;
	size_t waits, max_out, out_of_order;
	int ended;            /* next() returned -1 */
	size_t left;          /* proposals unreported when the run ended */
} spy_log;

static const kjit__strategy *spy_inner;
static size_t spy_batch;
static const double *spy_obj;
static spy_log spy_last; /* of the run that ended last; the caller frees seq */

typedef struct spy {
	void *inner;
	size_t size;
	uint16_t *count;             /* proposals outstanding per configuration */
	int64_t pend[KJIT_SEARCH_BATCH_MAX];  /* outstanding, in the order proposed */
	size_t n_pend;
	spy_log log;
} spy;

static void *spy_init(const kjit__space *space, size_t budget, uint64_t seed, const void *opts)
{
	spy *s = calloc(1, sizeof *s);
	CHECK(s && (s->count = calloc(space->size + 1, sizeof *s->count)));
	CHECK((s->inner = spy_inner->init(space, budget, seed, opts)) != NULL);
	s->size = space->size;
	s->log.hash = 1469598103934665603ull;
	return s;
}

static int64_t spy_next(void *st)
{
	spy *s = st;
	const char *name = spy_inner->name;
	CHECK_MSG(!s->log.ended, "%s: next() after -1", name);
	CHECK_MSG(s->n_pend < spy_batch, "%s: next() with %zu outstanding, batch %zu", name,
	          s->n_pend, spy_batch);
	int64_t j = spy_inner->next(s->inner);
	if (j == KJIT_SEARCH_WAIT) {
		CHECK_MSG(s->n_pend > 0, "%s: waits with nothing outstanding", name);
		s->log.waits++;
		return j;
	}
	s->log.hash = (s->log.hash ^ (uint64_t)j) * 1099511628211ull;
	if (s->log.n_next == s->log.cap) {
		s->log.cap = s->log.cap ? 2 * s->log.cap : 1024;
		CHECK((s->log.seq = realloc(s->log.seq, s->log.cap * sizeof *s->log.seq)) != NULL);
	}
	s->log.seq[s->log.n_next++] = j;
	if (j == -1) {
		s->log.ended = 1;
		return j;
	}
	CHECK_MSG(j >= 0 && (size_t)j < s->size, "%s proposed %lld of %zu", name, (long long)j,
	          s->size);
	s->pend[s->n_pend++] = j;
	s->count[j]++;
	if (s->n_pend > s->log.max_out)
		s->log.max_out = s->n_pend;
	return j;
}

static void spy_report(void *st, size_t index, double objective)
{
	spy *s = st;
	CHECK_MSG(index < s->size && s->count[index] > 0, "%s: a report of %zu, not outstanding",
	          spy_inner->name, index);
	CHECK(objective == spy_obj[index]);
	size_t k = 0;
	while (s->pend[k] != (int64_t)index)
		k++;
	s->log.out_of_order += k > 0; /* ahead of an older proposal */
	memmove(s->pend + k, s->pend + k + 1, (s->n_pend - k - 1) * sizeof *s->pend);
	s->n_pend--;
	s->count[index]--;
	spy_inner->report(s->inner, index, objective);
}

static void spy_free(void *st)
{
	spy *s = st;
	spy_inner->free(s->inner);
	s->log.left = s->n_pend;
	spy_last = s->log;
	free(s->count);
	free(s);
}

static const kjit__strategy spy_strategy = {
	"spy", "a strategy inside, the batch contract checked", 0, spy_init, spy_next,
	spy_report, spy_free, NULL, 0, NULL, NULL,
};

/* Replays strategy through the spy; spy_last has its log. */
static void replay(const kjit__space *space, const kjit__strategy *strategy, const double *obj,
                   const kt_replay_opts *o, kt_replay_result *r)
{
	spy_inner = strategy;
	spy_batch = o->batch;
	spy_obj = obj;
	kjit_strategy *wrapped = kjit__strategy_of(&spy_strategy);
	CHECK(wrapped);
	CHECK_OK(kt_replay(space, wrapped, o, obj, r));
	kjit_strategy_free(wrapped);
}

/* ---- the recorded spaces ------------------------------------------------------ */

typedef struct loaded {
	kjit__spec *spec;
	kjit__space *space;
	double *obj;
} loaded;

static void load(const space_file *f, loaded *l)
{
	char spec_path[TU_PATH], csv[TU_PATH];
	size_t ignored;
	snprintf(spec_path, sizeof spec_path, "%s/%s", tu_srcdir(), f->spec);
	snprintf(csv, sizeof csv, "%s/tests/data/%s", tu_srcdir(), f->csv);
	CHECK_OK(kjit__spec_load(spec_path, &l->spec));
	CHECK_OK(kjit__space_build(l->spec, 0, NULL, &l->space));
	CHECK_OK(kt_replay_load(l->space, csv, &l->obj, &ignored));
	CHECK_MSG(ignored == 0, "%s: %zu rows outside the space", f->csv, ignored);
}

static void unload(loaded *l)
{
	free(l->obj);
	kjit__space_free(l->space);
	kjit__spec_free(l->spec);
}

static const struct pinned *find_pinned(size_t file, const char *strategy, uint64_t seed)
{
	for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
		if (pinned[i].file == (int)file && strcmp(pinned[i].strategy, strategy) == 0 &&
		    pinned[i].seed == seed)
			return &pinned[i];
	TU_FAIL("no pinned run of %s seed %llu on %s", strategy, (unsigned long long)seed,
	        files[file].csv);
}

/* The contract runs of one space. */
static void contract(size_t file)
{
	static const size_t batches[] = { 1, 4, 16 };
	const space_file *f = &files[file];
	loaded l;
	load(f, &l);
	kt_budget budget = { .fraction = f->fraction };
	size_t n = kt_budget_evaluations(&budget, l.space->size);
	for (size_t s = 0; kjit__strategies[s]; s++) {
		const kjit__strategy *strategy = kjit__strategies[s];
		/* the same proposals whatever the batch */
		int fixed = strategy == &kjit__strategy_exhaustive || strategy == &kjit__strategy_random ||
		            strategy == &kjit__strategy_genetic;
		size_t waits[3] = { 0 }, proposed[3] = { 0 };
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			spy_log one = { 0 };
			for (size_t b = 0; b < 3; b++) {
				kt_replay_opts o = { .budget = &budget, .seed = seed, .batch = batches[b] };
				kt_replay_result r;
				replay(l.space, strategy, l.obj, &o, &r);
				spy_log *g = &spy_last;
				CHECK_MSG(g->left == 0, "%s B=%zu: %zu proposals unreported", strategy->name,
				          batches[b], g->left);
				CHECK_MSG(r.evaluations <= n && (r.evaluations == n || g->ended),
				          "%s B=%zu seed %llu: %zu evaluations of a budget of %zu",
				          strategy->name, batches[b], (unsigned long long)seed,
				          r.evaluations, n);
				waits[b] += g->waits;
				proposed[b] += g->n_next;
				if (batches[b] == 1) {
					const struct pinned *p = find_pinned(file, strategy->name, seed);
					CHECK_MSG(g->hash == p->hash && g->n_next == p->n_next &&
					          r.evaluations == p->evaluations,
					          "%s seed %llu on %s, B=1: %zu proposals (hash %016llx), %zu "
					          "evaluations; pinned %zu (%016llx), %zu", strategy->name,
					          (unsigned long long)seed, f->csv, g->n_next,
					          (unsigned long long)g->hash, r.evaluations, p->n_next,
					          (unsigned long long)p->hash, p->evaluations);
					one = *g;
					continue;
				}
				if (f->large)
					CHECK_MSG(g->max_out == batches[b] && g->out_of_order > 0,
					          "%s B=%zu on %s: at most %zu outstanding, %zu out of order",
					          strategy->name, batches[b], f->csv, g->max_out,
					          g->out_of_order);
				if (fixed)
					CHECK_MSG(g->n_next == one.n_next &&
					          memcmp(g->seq, one.seq, g->n_next * sizeof *g->seq) == 0,
					          "%s B=%zu: another sequence than with B=1", strategy->name,
					          batches[b]);
				free(g->seq);
			}
			free(one.seq);
		}
		OK("%s: %-14s each proposal reported once, within %zu; B=1 as pinned; waits per "
		   "proposal B=4 %.3f, B=16 %.3f%s", f->csv, strategy->name, n,
		   (double)waits[1] / (double)proposed[1], (double)waits[2] / (double)proposed[2],
		   fixed ? "; the same sequence for any B" : "");
	}
	unload(&l);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The median over seeds of the evaluations to within WITHIN of the best. */
static size_t median_to_within(const loaded *l, const kjit__strategy *strategy, size_t batch)
{
	size_t evals[EFF_SEEDS];
	for (uint64_t seed = 1; seed <= EFF_SEEDS; seed++) {
		kt_replay_opts o = { .seed = seed, .within = WITHIN, .until = 1, .batch = batch };
		kt_replay_result r;
		replay(l->space, strategy, l->obj, &o, &r);
		free(spy_last.seq);
		CHECK_MSG(r.evals_to_within > 0, "%s B=%zu seed %llu: never within 5%%",
		          strategy->name, batch, (unsigned long long)seed);
		evals[seed - 1] = r.evals_to_within;
	}
	qsort(evals, EFF_SEEDS, sizeof *evals, cmp_size);
	return evals[EFF_SEEDS / 2];
}

static void efficiency(size_t file)
{
	loaded l;
	load(&files[file], &l);
	for (size_t s = 0; kjit__strategies[s]; s++) {
		const kjit__strategy *strategy = kjit__strategies[s];
		if (strategy == &kjit__strategy_exhaustive)
			continue;
		size_t m1 = median_to_within(&l, strategy, 1), m4 = median_to_within(&l, strategy, 4),
		       m16 = median_to_within(&l, strategy, 16);
		CHECK_MSG(m4 <= 2 * m1 + SLACK, "%s on %s: median %zu evaluations to within 5%% with "
		          "B=4, %zu with B=1", strategy->name, files[file].csv, m4, m1);
		OK("%s: %-14s median evaluations to within 5%% of the best of %zu: B=1 %zu, B=4 "
		   "%zu, B=16 %zu", files[file].csv, strategy->name, l.space->size, m1, m4, m16);
	}
	unload(&l);
}

/* ---- the replay's side of the contract ---------------------------------------- */

static void *waiter_init(const kjit__space *space, size_t budget, uint64_t seed, const void *opts)
{
	static int state;
	return &state;
}

static int64_t waiter_next(void *st)
{
	return KJIT_SEARCH_WAIT;
}

static void waiter_report(void *st, size_t index, double objective)
{
}

static void waiter_free(void *st)
{
}

static void refusals(void)
{
	static const kjit__strategy waiter = { "waiter", "waits from the start", 0, waiter_init,
		                            waiter_next, waiter_report, waiter_free, NULL, 0, NULL, NULL };
	loaded l;
	load(&files[0], &l);
	kt_replay_opts o = { .seed = 1, .batch = 4 };
	kt_replay_result r;
	kjit_strategy *w = kjit__strategy_of(&waiter);
	CHECK(w);
	CHECK_ST(kt_replay(l.space, w, &o, l.obj, &r), KJIT_ERR_INVALID_ARG);
	kjit_strategy_free(w);
	CHECK_CONTAINS(kjit_last_error(), "waits with nothing outstanding");
	o.batch = KJIT_SEARCH_BATCH_MAX + 1;
	CHECK_ST(kt_replay(l.space, tu_strategy("random"), &o, l.obj, &r), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "at most 64");
	unload(&l);
	OK("the replay refuses a wait with nothing outstanding, and a batch of %d",
	   KJIT_SEARCH_BATCH_MAX + 1);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	for (size_t f = 0; f < N_FILES; f++)
		contract(f);
	for (size_t f = 0; f < N_FILES; f++)
		efficiency(f);
	refusals();
	return 0;
}
