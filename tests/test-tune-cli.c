/*
 * test-tune-cli: the kjit-tune command as a user runs it: exit codes
 * (--mpi without MPI built in: a usage error that says how), tuning
 * options, --count on both saxpy specs, --compile-only into a fresh
 * database (40 compiled, then 40 cached; real NVRTC, no GPU), --replay
 * (--batch too, and the simulated clock: -j, --gpus) and --ask.
 */
#include "testutil.h"

static char tool[TU_PATH], examples[TU_PATH];

/* Runs kjit-tune with args (stderr folded into the output); returns the
 * exit code and the output in a static buffer. */
static int run(const char *args, const char **out)
{
	static char buf[65536];
	char cmd[3 * TU_PATH];
	snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", tool, args);
	*out = buf;
	return tu_run(cmd, buf, sizeof buf);
}

#define RUN(want, out, ...)                                                     \
	do {                                                                    \
		char args_[3 * TU_PATH];                                        \
		snprintf(args_, sizeof args_, __VA_ARGS__);                     \
		int rc_ = run(args_, out);                                      \
		CHECK_MSG(rc_ == (want), "kjit-tune %s: exit %d, wanted %d:\n%s", \
		          args_, rc_, want, *(out));                            \
	} while (0)

/* Runs kjit-tune --ask with args, its stdin from answers (a file of lines);
 * returns the exit code, the proposals (stdout) in out and stderr in err. */
static int ask(const char *dir, const char *answers, const char *args, char *out, size_t cap,
               char *err, size_t err_cap)
{
	char path[TU_PATH], errs[TU_PATH], cmd[4 * TU_PATH];
	tu_write_file(tu_path(path, dir, "answers.txt"), answers, strlen(answers));
	tu_path(errs, dir, "ask.err");
	snprintf(cmd, sizeof cmd, "'%s' %s --ask < '%s' 2>'%s'", tool, args, path, errs);
	int rc = tu_run(cmd, out, cap);
	snprintf(cmd, sizeof cmd, "cat '%s'", errs);
	tu_run(cmd, err, err_cap);
	return rc;
}

/* The 1-based place of each proposal in out, lines of "B I" value indices
 * of saxpy.json (5 x 8), in place[B][I] (0: not proposed); how many there
 * are, or -1 when a line is not one or repeats one before it. */
static int proposal_places(const char *out, int place[5][8])
{
	memset(place, 0, 40 * sizeof place[0][0]);
	int n = 0;
	for (const char *l = out; *l; ) {
		unsigned b, i;
		int used = 0;
		if (sscanf(l, "%u %u\n%n", &b, &i, &used) != 2 || used == 0 || b >= 5 || i >= 8 ||
		    place[b][i])
			return -1;
		place[b][i] = ++n;
		l += used;
	}
	return n;
}

/* How many proposals out holds, all distinct; -1 when one is not. */
static int distinct_proposals(const char *out)
{
	int place[5][8];
	return proposal_places(out, place);
}

/* The place of each saxpy.json configuration in exhaustive's order for
 * seed 1, as --ask prints the proposals. */
static void exhaustive_places(const char *dir, int place[5][8])
{
	char out[8192], err[4096], answers[256] = "", args[2 * TU_PATH];
	for (int k = 0; k < 40; k++)
		snprintf(answers + strlen(answers), sizeof answers - strlen(answers), "1\n");
	snprintf(args, sizeof args, "'%s/saxpy.json' --strategy exhaustive --seed 1", examples);
	CHECK_MSG(ask(dir, answers, args, out, sizeof out, err, sizeof err) == 0, "%s", err);
	CHECK_MSG(proposal_places(out, place) == 40, "proposals:\n%s", out);
}

/* --replay with the simulated clock: every configuration compiles in 1 s
 * and measures in 0.1 s, (256, 4) is the best and (256, 3) within 5% of
 * it, wherever exhaustive's order has them. One worker and one GPU: the
 * k-th result arrives at k + 0.1 s; four workers compile in waves of four,
 * the k-th result at ceil(k / 4) + 0.1 (its place in the wave). */
static void test_replay_clock(const char *dir, const char *plain_csv)
{
	char csv[TU_PATH + 8], want[128];
	tu_path(csv, dir, "costs.csv");
	FILE *f = fopen(csv, "w");
	CHECK(f);
	fprintf(f, "BLOCK_SIZE,ITEMS_PER_THREAD,time,compile_ms,benchmark_ms\n");
	static const int blocks[] = { 64, 128, 256, 512, 1024 };
	for (int b = 0; b < 5; b++)
		for (int i = 1; i <= 8; i++)
			fprintf(f, "%d,%d,%g,1000,100\n", blocks[b], i,
			        b == 2 && i == 3 ? 1.03 : 1 + abs(b - 2) + abs(i - 4) * 0.25);
	fclose(f);
	int place[5][8];
	exhaustive_places(dir, place);
	int best = place[2][3], near = place[2][2] < best ? place[2][2] : best;
	const char *out;
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy exhaustive -j 1 --gpus 1", examples,
	    csv);
	CHECK_CONTAINS(out, "simulated clock: 1 compile workers, 1 GPUs; 40.1 simulated seconds");
	snprintf(want, sizeof want, "within 5%%: after %d evaluations, %d.1 simulated seconds\n",
	         near, near);
	CHECK_CONTAINS(out, want);
	snprintf(want, sizeof want, "within 1%%: after %d evaluations, %d.1 simulated seconds\n",
	         best, best);
	CHECK_CONTAINS(out, want);
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy exhaustive -j 4", examples, csv);
	CHECK_CONTAINS(out, "simulated clock: 4 compile workers, 1 GPUs; 10.4 simulated seconds");
	snprintf(want, sizeof want, "within 1%%: after %d evaluations, %d.%d simulated seconds\n",
	         best, (best + 3) / 4, (best - 1) % 4 + 1);
	CHECK_CONTAINS(out, want);
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy exhaustive --gpus 1 --time-budget 5.05",
	    examples, csv);
	CHECK_CONTAINS(out, "evaluations: 5\n");
	if (near > 5)
		CHECK_CONTAINS(out, "within 5%: not reached\n");
	else
		CHECK_CONTAINS(out, "within 5%: after ");
	RUN(0, &out, "%s/saxpy.json --replay %s --budget 30 -j 16 --gpus 2", examples, csv);
	CHECK_CONTAINS(out, "strategy hybrid, seed 1, budget 30 of 40");
	CHECK_CONTAINS(out, "evaluations: 30\n");
	OK("--replay -j P --gpus G: the simulated time to within 5%% and 1%%, and --time-budget "
	   "in simulated seconds");

	RUN(0, &out, "%s/saxpy.json --replay %s --strategy exhaustive", examples, plain_csv);
	snprintf(want, sizeof want, "within 5%%: after %d evaluations\n", best);
	CHECK_CONTAINS(out, want);
	RUN(1, &out, "%s/saxpy.json --replay %s --gpus 1", examples, plain_csv);
	CHECK_CONTAINS(out, "needs the columns compile_ms and benchmark_ms");
	RUN(1, &out, "%s/saxpy.json --replay db:%s/none.db -j 2", examples, dir);
	CHECK_CONTAINS(out, "not the database");
	RUN(2, &out, "%s/saxpy.json --replay %s --gpus 0", examples, csv);
	CHECK_CONTAINS(out, "--gpus: expected a count from 1 to 64, got '0'");
	RUN(2, &out, "%s/saxpy.json --replay %s --gpus 65", examples, csv);
	RUN(2, &out, "%s/saxpy.json --count --gpus 2", examples);
	CHECK_CONTAINS(out, "--gpus goes with --replay");
	RUN(2, &out, "%s/saxpy.json --replay %s --gpus 2 --batch 4", examples, csv);
	CHECK_CONTAINS(out, "--batch and the simulated clock");
	RUN(0, &out, "--help");
	CHECK_CONTAINS(out, "-j P, --gpus G");
	OK("--replay without the clock prints the evaluations to within 5%%; a file without the "
	   "costs, the database, --gpus 0 and 65, --gpus without --replay, with --batch: refused");
}

/* Options that a mode once ignored: --count --json and --problem, the T1
 * names of strategies, --json of a run that fails, --max-shared's default
 * in --help, and the count of an interrupted --compile-only. */
static void test_options_heard(const char *dir, const char *csv)
{
	const char *out;
	RUN(0, &out, "%s/saxpy.json --count --json", examples);
	CHECK_CONTAINS(out, "\"problems\": [{\"problem\": {\"n\":67108864}, \"valid\": 40, "
	                    "\"product\": 40, \"estimated\": false, \"relative_error\": 0}]}");
	CHECK_MSG(!strstr(out, "problem n="), "--count --json printed text: %s", out);
	RUN(2, &out, "%s/saxpy.json --count --problem 5", examples);
	CHECK_CONTAINS(out, "--problem: the spec");
	RUN(0, &out, "%s/saxpy.json --count --problem 0", examples);
	CHECK_CONTAINS(out, "valid 40, product 40");
	OK("--count --json prints JSON; --count --problem 5 of one problem exits 2");

	RUN(0, &out, "%s/saxpy.json --replay %s --strategy brute_force", examples, csv);
	CHECK_CONTAINS(out, "strategy exhaustive, seed 1");
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy bayes_opt --budget 10", examples, csv);
	CHECK_CONTAINS(out, "strategy surrogate, seed 1, budget 10");
	RUN(2, &out, "%s/saxpy.json --strategy hill_climb --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "unknown strategy 'hill_climb': expected one of exhaustive, random, ");
	CHECK_CONTAINS(out, "pso, hybrid, or a T1 name of one such as brute_force");
	OK("--strategy takes the T1 names brute_force and bayes_opt; an unknown one lists them");

	/* --strategy-option: refused before any work (tuning: before a GPU is
	 * asked for), by the strategy the run uses */
	RUN(2, &out, "%s/saxpy.json --strategy genetic_algorithm --strategy-option popsize=0 "
	    "--db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "--strategy-option 'popsize=0': strategy genetic takes popsize (a "
	               "count from 1 to 4096); its options: popsize");
	RUN(2, &out, "%s/saxpy.json --strategy-option popsize=4 --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "'popsize=4': strategy exhaustive has no options");
	RUN(2, &out, "%s/saxpy.json --replay %s --strategy pso --strategy-option W=1", examples,
	    csv);
	CHECK_CONTAINS(out, "'W=1': strategy pso has no option of that name; its options: popsize");
	RUN(2, &out, "%s/saxpy.json --strategy annealing --strategy-option T_min=2 --db %s/t.db",
	    examples, dir);
	CHECK_CONTAINS(out, "strategy annealing: T_min (2) is above T (0.5): the temperature falls");
	RUN(2, &out, "%s/saxpy.json --replay %s --strategy annealing --strategy-option T=0.1 "
	    "--strategy-option T_min=0.2", examples, csv);
	CHECK_CONTAINS(out, "T_min (0.2) is above T (0.1)");
	RUN(2, &out, "%s/saxpy.json --count --strategy-option popsize=4", examples);
	CHECK_CONTAINS(out, "--strategy-option goes with tuning, --replay and --ask");
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy genetic --strategy-option popsize=6 "
	    "--strategy-option maxiter=2", examples, csv);
	CHECK_CONTAINS(out, "evaluations: 10\n"); /* 6, then 4 children after the 2 elites */
	RUN(0, &out, "--help");
	CHECK_CONTAINS(out, "options: popsize=20 maxiter=0 mutation_chance=0 method=uniform\n");
	OK("--strategy-option: a name or value the run's strategy does not take, or values that "
	   "cannot go together, exit 2 naming it and the strategy's options; with --replay it "
	   "sets the strategy's options");

	char cmd[4 * TU_PATH], buf[8192];
	snprintf(cmd, sizeof cmd, "KJIT_LIBCUDA=/nonexistent/libcuda.so.1 '%s' '%s/saxpy.json'"
	         " --json --db '%s/j.db' 2>/dev/null", tool, examples, dir);
	int rc = tu_run(cmd, buf, sizeof buf);
	CHECK_MSG(rc == 1, "exit %d: %s", rc, buf);
	CHECK_CONTAINS(buf, "{\"spec\": \"");
	CHECK_CONTAINS(buf, "\"error\": \"the GPU worker cannot run on device 0: ");
	RUN(0, &out, "--help");
	CHECK_CONTAINS(out, "(default the spec's, else 232448;");
	CHECK_MSG(!strstr(out, "49152"), "--help: %s", out);
	OK("--json of a run that fails prints {\"spec\", \"error\"}; --help says 232448");

	/* every variant fails; Ctrl-C after a second: nothing counted as stored */
	char bdir[TU_PATH], path[TU_PATH], text[8192];
	tu_path(bdir, dir, "failing");
	CHECK(mkdir(bdir, 0700) == 0);
	int len = snprintf(text, sizeof text, "{\"kernel\": {\"source\": \"k.cu\", \"entry\": "
	                   "\"k\"}, \"parameters\": [{\"name\": \"B\", \"roles\": \"define\", "
	                   "\"values\": [1");
	for (int v = 2; v <= 1000; v++)
		len += snprintf(text + len, sizeof text - (size_t)len, ", %d", v);
	snprintf(text + len, sizeof text - (size_t)len, "]}]}");
	tu_write_file(tu_path(path, bdir, "k.json"), text, strlen(text));
	static const char src[] = "extern \"C\" __global__ void k(float *p) { p[0] = nope; }\n";
	tu_write_file(tu_path(path, bdir, "k.cu"), src, strlen(src));
	snprintf(cmd, sizeof cmd, "'%s' '%s/k.json' --compile-only --arch sm_90 --db '%s/f.db' -j 2"
	         " 2>&1 & sleep 1; kill -INT $!; wait $!", tool, bdir, dir);
	rc = tu_run(cmd, buf, sizeof buf);
	CHECK_MSG(rc == 130, "exit %d: %s", rc, buf);
	CHECK_CONTAINS(buf, "variants 1000: compiled 0, cached 0, failed ");
	CHECK_CONTAINS(buf, ", interrupted\n");
	OK("an interrupted --compile-only of failing variants counts none compiled (exit 130)");
}

/* --ask: each proposal a line of value indices, each answered by a line;
 * the budget, the end of the answers and a bad answer end the search;
 * every strategy by its kjit and T1 names; a spec whose kernel is missing
 * (only its space is read). */
static void test_ask(const char *dir)
{
	char out[8192], err[4096], args[2 * TU_PATH], answers[1024] = "";
	for (int k = 0; k < 40; k++)
		snprintf(answers + strlen(answers), sizeof answers - strlen(answers), "%d\n",
		         40 - k);
	snprintf(args, sizeof args, "'%s/saxpy.json' --strategy exhaustive", examples);
	int rc = ask(dir, "5\n3\nfail\n1\n", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0, "exit %d: %s", rc, err);
	char first[sizeof out];
	snprintf(first, sizeof first, "%s", out);
	CHECK_MSG(distinct_proposals(out) == 5 && strcmp(out, "0 0\n0 1\n0 2\n0 3\n0 4\n") != 0,
	          "proposals:\n%s", out);
	rc = ask(dir, "5\n3\nfail\n1\n", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0 && strcmp(out, first) == 0, "again, exit %d:\n%s", rc, out);
	OK("--ask exhaustive: a line of value indices per proposal, shuffled, the same again; the "
	   "answers' end ends it");

	rc = ask(dir, "5\n3\n-1\n", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 1, "exit %d: %s", rc, err);
	CHECK_CONTAINS(err, "--ask: answer 3: expected an objective >= 0 or fail on a line of at "
	               "most 64 bytes, got '-1'");
	rc = ask(dir, "5\n\033[2J\t1\n", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 1 && !strchr(err, '\033'), "exit %d: %s", rc, err);
	CHECK_CONTAINS(err, "answer 2: expected an objective >= 0 or fail on a line of at most 64 "
	               "bytes, got '\\x1b[2J\\t1'");
	rc = ask(dir, "2.5e-3\r\n1e999\n", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 1, "exit %d: %s", rc, err);
	CHECK_CONTAINS(err, "answer 2: expected an objective");
	char longline[200];
	memset(longline, '1', 120);
	strcpy(longline + 120, "\n");
	rc = ask(dir, longline, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 1, "exit %d: %s", rc, err);
	CHECK_CONTAINS(err, "answer 1: expected an objective >= 0 or fail on a line of at most 64");
	OK("--ask: a negative, infinite or overlong answer exits 1 naming it");

	static const char *const names[] = {
		"exhaustive", "random", "annealing", "genetic", "surrogate", "dual_annealing",
		"pso", "hybrid", "brute_force", "random_sample", "simulated_annealing",
		"genetic_algorithm", "bayes_opt", "skopt",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(args, sizeof args, "'%s/saxpy.json' --strategy %s --budget 12 --seed 7",
		         examples, names[i]);
		rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
		CHECK_MSG(rc == 0, "%s: exit %d: %s", names[i], rc, err);
		int n = distinct_proposals(out);
		CHECK_MSG(n == 12, "%s: %d distinct proposals of 12:\n%s", names[i], n, out);
		char again[8192];
		ask(dir, answers, args, again, sizeof again, err, sizeof err);
		CHECK_MSG(strcmp(out, again) == 0, "%s: seed 7 proposed differently", names[i]);
	}
	snprintf(args, sizeof args, "'%s/saxpy.json' --strategy hybrid", examples);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0 && distinct_proposals(out) == 40, "hybrid, no budget: exit %d:\n%s", rc,
	          out);
	OK("--ask: every strategy, by kjit's and T1 names: 12 distinct proposals for --budget 12, "
	   "the same for a seed; without a budget the whole space once");

	char with[8192], without[8192];
	snprintf(args, sizeof args, "'%s/saxpy.json' --strategy genetic --seed 7", examples);
	CHECK(ask(dir, answers, args, without, sizeof without, err, sizeof err) == 0);
	snprintf(args, sizeof args, "'%s/saxpy.json' --strategy genetic --seed 7 "
	         "--strategy-option popsize=4 --strategy-option maxiter=3", examples);
	rc = ask(dir, answers, args, with, sizeof with, err, sizeof err);
	/* three generations: 4, then at most 2 children each (a child equal
	 * to another of its generation is answered from memory) */
	int n_with = distinct_proposals(with);
	CHECK_MSG(rc == 0 && n_with > 4 && n_with <= 8, "exit %d: %s\n%s", rc, err, with);
	CHECK(distinct_proposals(without) == 40);
	snprintf(args, sizeof args, "'%s/saxpy.json' --strategy skopt --strategy-option kappa=2",
	         examples);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 2 && !*out, "exit %d:\n%s", rc, out);
	CHECK_CONTAINS(err, "'kappa=2': strategy surrogate has no option of that name; its "
	               "options: num_initial");
	OK("--ask --strategy-option: genetic's popsize=4 maxiter=3 proposes %d (4, then at most "
	   "2 + 2), 40 without; a name the strategy does not take exits 2 with no proposal",
	   n_with);

	/* only the space is read: a kernel file that is not there is no error */
	char t1[TU_PATH];
	static const char spec[] =
		"{\"ConfigurationSpace\": {\"TuningParameters\": ["
		"{\"Name\": \"block_size_x\", \"Type\": \"int\", \"Values\": [512, 64, 2048]},"
		"{\"Name\": \"f\", \"Type\": \"float\", \"Values\": [1.5, 0.5]}],"
		"\"Conditions\": [\"block_size_x * f >= 64\"]},"
		"\"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"gone.cu\","
		"\"ProblemSize\": [1], \"LocalSize\": {\"X\": \"block_size_x\"}}}";
	tu_write_file(tu_path(t1, dir, "ask-t1.json"), spec, strlen(spec));
	snprintf(args, sizeof args, "'%s' --strategy brute_force", t1);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0, "exit %d: %s", rc, err);
	/* 2048 threads and 64 * 0.5 are out; the values in the spec's order */
	int place[5][8];
	CHECK_MSG(proposal_places(out, place) == 3 && place[0][0] && place[0][1] && place[1][0],
	          "proposals:\n%s", out);
	snprintf(args, sizeof args, "'%s' --max-threads 32", t1);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 3 && !*out, "--ask of an empty space: exit %d:\n%s", rc, out);
	CHECK_CONTAINS(err, "no valid configuration: the restrictions and the limits (32 threads");
	snprintf(args, sizeof args, "'%s' --batch 2", t1);
	rc = ask(dir, "", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 2, "--ask --batch 2: exit %d", rc);
	snprintf(args, sizeof args, "'%s' --count", t1);
	rc = ask(dir, "", args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 2, "--ask --count: exit %d", rc);
	CHECK_CONTAINS(err, "--count, --compile-only, --replay, --ask and --export do not combine");
	OK("--ask reads a T1 space whose kernel file is missing, values in the spec's order; "
	   "an empty space exits 3; --batch and --count with it exit 2");
}

/* How many lines text has. */
static int lines(const char *text)
{
	int n = 0;
	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* A T1 spec's Search.Attributes are its strategy's options, under
 * --strategy-option's; those the strategy lacks, or given for another
 * strategy than the run's, are warned of; a bad value is a spec error. */
static void test_spec_options(const char *dir)
{
	char t1[TU_PATH], out[8192], err[4096], args[2 * TU_PATH], answers[512] = "", text[1024];
	for (int k = 0; k < 40; k++)
		snprintf(answers + strlen(answers), sizeof answers - strlen(answers), "%d\n", 40 - k);
	static const char form[] =
		"{\"ConfigurationSpace\": {\"TuningParameters\": ["
		"{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [1, 2, 3, 4, 5, 6, 7, 8]},"
		"{\"Name\": \"b\", \"Type\": \"int\", \"Values\": [1, 2, 3, 4, 5]}]},"
		"\"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"gone.cu\","
		"\"ProblemSize\": [1], \"LocalSize\": {\"X\": \"32\"}},"
		"\"Search\": {\"Name\": \"genetic_algorithm\", \"Attributes\": ["
		"{\"Name\": \"popsize\", \"Value\": %s}, {\"Name\": \"maxiter\", \"Value\": \"3\"},"
		"{\"Name\": \"method\", \"Value\": \"two_point\"},"
		"{\"Name\": \"constraint_aware\", \"Value\": true},"
		"{\"Name\": \"mutation_prob\", \"Value\": 0.5}]}}";
	snprintf(text, sizeof text, form, "4");
	tu_write_file(tu_path(t1, dir, "options.json"), text, strlen(text));
	snprintf(args, sizeof args, "'%s'", t1);
	int rc = ask(dir, answers, args, out, sizeof out, err, sizeof err), n = lines(out);
	CHECK_MSG(rc == 0 && n > 4 && n <= 8, "exit %d: %s\n%s", rc, err, out);
	CHECK_CONTAINS(err, "Search.Attributes \"mutation_prob\": not an option of strategy "
	               "genetic (its options: popsize");
	CHECK_CONTAINS(err, "Search.Attributes[3]: \"constraint_aware\": a Value that is not a "
	               "number or a string is not used");
	snprintf(args, sizeof args, "'%s' --strategy-option maxiter=1", t1);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0 && lines(out) == 4, "exit %d: %s\n%s", rc, err, out);
	snprintf(args, sizeof args, "'%s' --strategy pso", t1);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0 && lines(out) == 40, "exit %d: %s\n%s", rc, err, out);
	CHECK_CONTAINS(err, "Search.Attributes \"popsize\": an option of the spec's strategy "
	               "(genetic), not of the run's (pso): not used");
	snprintf(text, sizeof text, form, "0");
	tu_write_file(t1, text, strlen(text));
	snprintf(args, sizeof args, "'%s'", t1);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 3 && !*out, "exit %d: %s\n%s", rc, err, out);
	CHECK_CONTAINS(err, "options.json: Search.Attributes 'popsize=0': strategy genetic takes "
	               "popsize (a count from 1 to 4096)");
	/* values fine alone that cannot go together: the spec's fault (3), or
	 * the command line's when it changed them (2) */
	static const char anneal[] =
		"{\"ConfigurationSpace\": {\"TuningParameters\": ["
		"{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [1, 2, 3, 4]}]},"
		"\"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"gone.cu\","
		"\"ProblemSize\": [1], \"LocalSize\": {\"X\": \"32\"}},"
		"\"Search\": {\"Name\": \"simulated_annealing\", \"Attributes\": ["
		"{\"Name\": \"T\", \"Value\": 0.5}, {\"Name\": \"T_min\", \"Value\": 1}]}}";
	tu_write_file(t1, anneal, strlen(anneal));
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 3 && !*out, "exit %d: %s\n%s", rc, err, out);
	CHECK_CONTAINS(err, "options.json: Search.Attributes: strategy annealing: T_min (1) is "
	               "above T (0.5)");
	snprintf(args, sizeof args, "'%s' --strategy-option T=2", t1);
	rc = ask(dir, answers, args, out, sizeof out, err, sizeof err);
	CHECK_MSG(rc == 0 && lines(out) == 4, "exit %d: %s\n%s", rc, err, out);
	OK("T1 Search.Attributes: genetic_algorithm's popsize 4, maxiter \"3\" and method "
	   "two_point propose %d, --strategy-option maxiter=1 4; another strategy, an option the "
	   "strategy lacks and a value of another type are warned of; popsize 0 exits 3, and so "
	   "does annealing's T_min above T", n);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *build = getenv("KJIT_BUILDDIR");
	tu_path(tool, build && *build ? build : ".", "autotune/kjit-tune");
	CHECK_MSG(tu_exists(tool), "%s not built", tool);
	snprintf(examples, sizeof examples, "%s", tu_saxpy_path());
	*strrchr(examples, '/') = '\0';
	const char *dir = tu_tmpdir(), *out;

	RUN(0, &out, "--version");
	CHECK_CONTAINS(out, "kjit-tune " PACKAGE_VERSION);
	RUN(0, &out, "--help");
	CHECK_CONTAINS(out, "--compile-only");
	CHECK_CONTAINS(out, "surrogate");
	RUN(2, &out, "%s", "");
	CHECK_CONTAINS(out, "expected a spec file");
	RUN(2, &out, "--bogus %s/saxpy.json", examples);
	RUN(2, &out, "%s/saxpy.json --replay x --budget 0", examples);
	RUN(2, &out, "%s/saxpy.json --count --replay x", examples);
	RUN(2, &out, "%s/saxpy.json --mpi-timeout 0", examples);
	CHECK_CONTAINS(out, "--mpi-timeout: expected 1 to 3600 seconds, got '0'");
#ifndef KJIT_HAVE_MPI
	RUN(2, &out, "%s/saxpy.json --mpi --compile-only --arch sm_90", examples);
	CHECK_CONTAINS(out, "this kjit-tune was built without MPI (configure --with-mpi");
#endif
	OK("--version, --help; usage errors exit 2");

	RUN(3, &out, "%s/missing.json --count", dir);
	CHECK_CONTAINS(out, "missing.json");
	char bad[TU_PATH];
	tu_path(bad, dir, "bad.json");
	const char *bad_text = "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                       " \"parameters\": [{\"name\": \"B\", \"values\": [1]}],"
	                       " \"restrictions\": [\"C > 1\"]}";
	tu_write_file(bad, bad_text, strlen(bad_text));
	RUN(3, &out, "%s --count", bad);
	CHECK_CONTAINS(out, "restrictions[0]");
	CHECK_CONTAINS(out, "unknown name 'C'");
	OK("spec errors exit 3 and name file and field");

	/* a T1 OutputFile with a folder: refused before any work, nothing written */
	char t1[TU_PATH], t1_text[TU_PATH + 1024];
	tu_path(t1, dir, "out.json");
	snprintf(t1_text, sizeof t1_text,
	         "{\"General\": {\"OutputFile\": \"../kjit-cli-planted\"},"
	         " \"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"block_size_x\","
	         " \"Type\": \"int\", \"Values\": \"[64, 128]\"}]},"
	         " \"KernelSpecification\": {\"KernelName\": \"saxpy\", \"KernelFile\":"
	         " \"%s/saxpy.cu\", \"GlobalSize\": {\"X\": \"1024\"}}}", examples);
	tu_write_file(t1, t1_text, strlen(t1_text));
	RUN(3, &out, "%s --db %s/out.db", t1, dir);
	CHECK_CONTAINS(out, "General.OutputFile \"../kjit-cli-planted.json\": give a file name");
	char planted[TU_PATH];
	tu_path(planted, dir, "../kjit-cli-planted.json");
	CHECK_MSG(access(planted, F_OK) != 0, "%s was written", planted);
	OK("a T1 OutputFile with a folder: exit 3 before any work, nothing written");

	RUN(0, &out, "%s/saxpy.json --count", examples);
	CHECK_CONTAINS(out, "problem n=67108864: valid 40, product 40");
	RUN(0, &out, "%s/saxpy-t1.json --count", examples);
	CHECK_CONTAINS(out, "problem n=67108864: valid 40, product 40");
	RUN(0, &out, "%s/saxpy.json --count --max-threads 256", examples);
	CHECK_CONTAINS(out, "valid 24, product 40");
	OK("--count: 40 of 40 for saxpy.json and saxpy-t1.json, 24 with --max-threads 256");

	/* a space with no valid configuration is not success */
	RUN(3, &out, "%s/saxpy.json --count --max-threads 32", examples);
	CHECK_CONTAINS(out, "valid 0, product 40");
	CHECK_CONTAINS(out, "saxpy.json: problem n=67108864: no valid configuration: the "
	               "restrictions and the limits (32 threads per block");
	RUN(3, &out, "%s/saxpy.json --compile-only --arch sm_90 --max-threads 32 --db %s/none.db",
	    examples, dir);
	CHECK_CONTAINS(out, "rule out all 40");
	RUN(3, &out, "%s/saxpy.json --replay %s/none.csv --max-threads 32", examples, dir);
	CHECK_CONTAINS(out, "rule out all 40");
	OK("a fully pruned space: --count, --compile-only and --replay exit 3 and say why");

	/* a tight restriction over a space too large to walk: the draws find
	 * none, and the count says it does not know, not that there are none */
	char tight[TU_PATH], tight_text[8192];
	int len = snprintf(tight_text, sizeof tight_text,
	                   "{\"kernel\": {\"source\": \"%s/saxpy.cu\", \"entry\": \"saxpy\"},"
	                   " \"parameters\": [", examples);
	for (int i = 0; i < 6; i++) {
		len += snprintf(tight_text + len, sizeof tight_text - (size_t)len,
		                "%s{\"name\": \"P%d\", \"values\": [0", i ? ", " : "", i);
		for (int v = 1; v < 100; v++)
			len += snprintf(tight_text + len, sizeof tight_text - (size_t)len, ",%d", v);
		len += snprintf(tight_text + len, sizeof tight_text - (size_t)len, "]}");
	}
	snprintf(tight_text + len, sizeof tight_text - (size_t)len,
	         "], \"restrictions\": [\"P0*P1*P2*P3*P4*P5 == 7\"]}");
	tu_write_file(tu_path(tight, dir, "tight.json"), tight_text, strlen(tight_text));
	RUN(0, &out, "%s --count", tight);
	CHECK_CONTAINS(out, "valid unknown (none in random draws: estimated at most about 4.58e+07)"
	               ", product 1000000000000");
	CHECK_MSG(!strstr(out, "no valid configuration"), "%s", out);
	RUN(0, &out, "%s --count --json", tight);
	CHECK_CONTAINS(out, "\"valid\": null, \"product\": 1000000000000, \"estimated\": true, "
	               "\"relative_error\": null, \"valid_at_most\": 4.58e+07}");
	OK("--count of 1e12 where draws find none: valid unknown, at most about 4.6e7, exit 0");

	/* a Kernel Tuner hotspot-shaped T1 space: 2.2e7, counted exactly */
	RUN(0, &out, "%s/tests/t1/hotspot_space.json --count", tu_srcdir());
	CHECK_CONTAINS(out, "valid 414920, product 22200000\n");
	OK("--count of the hotspot shape (2.2e7): valid 414920, exact");

	/* one group of four parameters whose restriction reads all four, so
	 * that only its last parameter can check it: every configuration is
	 * evaluated, and the count is exact (the figures by other means: a
	 * sum over a, b and c; 1/8 of the product) */
	static const char *const whole[] = { "a * b * c * d <= 100000", "(a + b + c + d) % 8 == 0" };
	long long by_loops = 0;
	for (int a = 1; a <= 40; a++)
		for (int b = 1; b <= 40; b++)
			for (int c = 1; c <= 40; c++)
				by_loops += 100000 / (a * b * c) < 40 ? 100000 / (a * b * c) : 40;
	const long long want_whole[] = { by_loops, 40LL * 40 * 40 * 40 / 8 };
	for (int k = 0; k < 2; k++) {
		char group[TU_PATH], group_text[4096], want[64];
		len = snprintf(group_text, sizeof group_text,
		               "{\"kernel\": {\"source\": \"%s/saxpy.cu\", \"entry\": \"saxpy\"},"
		               " \"parameters\": [", examples);
		for (int i = 0; i < 4; i++) {
			len += snprintf(group_text + len, sizeof group_text - (size_t)len,
			                "%s{\"name\": \"%c\", \"values\": [1", i ? ", " : "", 'a' + i);
			for (int v = 2; v <= 40; v++)
				len += snprintf(group_text + len, sizeof group_text - (size_t)len, ",%d", v);
			len += snprintf(group_text + len, sizeof group_text - (size_t)len, "]}");
		}
		snprintf(group_text + len, sizeof group_text - (size_t)len,
		         "], \"restrictions\": [\"%s\"]}", whole[k]);
		tu_write_file(tu_path(group, dir, "group.json"), group_text, strlen(group_text));
		RUN(0, &out, "%s --count", group);
		snprintf(want, sizeof want, "valid %lld, product 2560000\n", want_whole[k]);
		CHECK_CONTAINS(out, want);
	}
	OK("--count of a group whose restriction reads all its 4 parameters (2.56e6): exact");

	/* an option NVRTC does not take: a warning where nothing compiles, an
	 * error where something would */
	char ocl[TU_PATH], ocl_text[TU_PATH + 1024];
	snprintf(ocl_text, sizeof ocl_text,
	         "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"block_size_x\","
	         " \"Type\": \"int\", \"Values\": \"[64, 128]\"}]}, \"KernelSpecification\":"
	         " {\"Language\": \"CUDA\", \"KernelName\": \"saxpy\", \"KernelFile\":"
	         " \"%s/saxpy.cu\", \"CompilerOptions\": [\"\", \"-cl-fast-relaxed-math\"],"
	         " \"ProblemSize\": 1024}}", examples);
	tu_write_file(tu_path(ocl, dir, "ocl.json"), ocl_text, strlen(ocl_text));
	RUN(0, &out, "%s --count", ocl);
	CHECK_CONTAINS(out, "warning: ");
	CHECK_CONTAINS(out, "KernelSpecification.CompilerOptions: \"-cl-fast-relaxed-math\": not an "
	               "NVRTC option kjit allows");
	CHECK_CONTAINS(out, "(the space is counted; nothing can be compiled)");
	CHECK_CONTAINS(out, "valid 2, product 2");
	RUN(3, &out, "%s --compile-only --arch sm_90 --db %s/ocl.db", ocl, dir);
	CHECK_CONTAINS(out, "\"-cl-fast-relaxed-math\": not an NVRTC option kjit allows");
	OK("CompilerOptions -cl-fast-relaxed-math: --count warns and counts, --compile-only exit 3");

	/* arguments that do not fit the kernel: found in the cubin, without a GPU */
	static const char *const pools[] = { "threads", "processes" };
	for (int m = 0; m < 2; m++) {
		RUN(3, &out, "%s/tests/t1/pnpoly.json --compile-only --arch sm_90 --db %s/pn%d.db "
		    "--compile-pool %s -j 2", tu_srcdir(), dir, m, pools[m]);
		CHECK_CONTAINS(out, "its parameters do not match the arguments given (3 parameters, "
		               "4 arguments)");
		CHECK_CONTAINS(out, "  -          -     - | n                        int32                "
		               "4  <- no such parameter");
		CHECK_CONTAINS(out, "(the cubin gives sizes only");
		CHECK_MSG(!strstr(out, "failed variant"), "%s", out);
	}
	RUN(3, &out, "%s/tests/t1/count_long.json --compile-only --arch sm_90 --db %s/cl.db",
	    tu_srcdir(), dir);
	CHECK_CONTAINS(out, "int64                8  <- sizes differ");
	OK("--compile-only of 4 arguments for 3 parameters, and of an int64 for an int: exit 3 "
	   "with the table, from the cubin (threads and processes)");

	/* a folder as spec or database, a FIFO as spec, no HOME for the
	 * default database */
	RUN(3, &out, "%s --count", dir);
	CHECK_CONTAINS(out, "is a directory");
	char fifo[TU_PATH];
	CHECK(mkfifo(tu_path(fifo, dir, "spec.fifo"), 0600) == 0);
	RUN(3, &out, "%s --count", fifo);
	CHECK_CONTAINS(out, "is a FIFO, not a regular file");
	RUN(1, &out, "%s/saxpy.json --compile-only --arch sm_90 --db %s", examples, dir);
	CHECK_CONTAINS(out, "is a directory");
	/* a file that is no database: refused before any worker starts, kept */
	char notes[TU_PATH];
	static const char text[] = "these are not the pages of a database\n";
	FILE *nf = fopen(tu_path(notes, dir, "notes.db"), "w");
	CHECK(nf && fputs(text, nf) >= 0 && fclose(nf) == 0 && chmod(notes, 0600) == 0);
	RUN(1, &out, "%s/saxpy.json --budget 2 --db %s", examples, notes);
	CHECK_CONTAINS(out, "file is not a database");
	CHECK_CONTAINS(out, notes);
	struct stat sb;
	CHECK(stat(notes, &sb) == 0 && sb.st_size == (off_t)strlen(text));
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *kdb = getenv("KJIT_DB") ? strdup(getenv("KJIT_DB")) : NULL;
	CHECK(unsetenv("HOME") == 0 && unsetenv("KJIT_DB") == 0 && unsetenv("XDG_CACHE_HOME") == 0);
	RUN(2, &out, "%s/saxpy.json --compile-only --arch sm_90", examples);
	CHECK_CONTAINS(out, "HOME is not set");
	CHECK_CONTAINS(out, "--db PATH");
	if (home)
		CHECK(setenv("HOME", home, 1) == 0);
	if (kdb)
		CHECK(setenv("KJIT_DB", kdb, 1) == 0);
	free(home);
	free(kdb);
	OK("a folder or a FIFO as spec, a folder or a file that is no database as database, no "
	   "HOME: refused, saying so");

	/* tuning options are checked before the GPU is looked for */
	RUN(2, &out, "%s/saxpy.json --timeout 0", examples);
	CHECK_CONTAINS(out, "--timeout");
	RUN(2, &out, "%s/saxpy.json --l2 lukewarm", examples);
	CHECK_CONTAINS(out, "warm, cold or both");
	RUN(2, &out, "%s/saxpy.json --early-stop 0.5", examples);
	RUN(2, &out, "%s/saxpy.json --strategy bogus --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "unknown strategy 'bogus'");
	RUN(2, &out, "%s/saxpy.json --problem 3 --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "--problem");
	RUN(2, &out, "%s/saxpy.json --objective joules", examples);
	CHECK_CONTAINS(out, "--objective: expected time, energy or edp, got 'joules'");
	RUN(2, &out, "%s/saxpy.json --profile=worst", examples);
	CHECK_CONTAINS(out, "--profile: expected all (the default) or best, got 'worst'");
	RUN(2, &out, "%s/saxpy.json --profile worst", examples);
	CHECK_CONTAINS(out, "expected one spec file, got several");
	/* --profile's optional value is taken ("best" is no second spec); then
	 * the options that only tuning reads are refused with another mode */
	RUN(2, &out, "%s/saxpy.json --count --objective edp --profile best", examples);
	CHECK_CONTAINS(out, "--objective goes with tuning and --replay, not --count");
	RUN(2, &out, "%s/saxpy.json --profile --count", examples);
	CHECK_CONTAINS(out, "--profile goes with tuning, not --count");
	OK("tuning options: bad --timeout, --l2, --early-stop, --strategy, --problem, --objective, "
	   "--profile exit 2");

	/* an option the mode would leave unused is an error naming both */
	RUN(2, &out, "%s/saxpy.json --compile-only --arch sm_90 --problem 0 --db %s/t.db",
	    examples, dir);
	CHECK_CONTAINS(out, "--problem goes with tuning, --count, --replay, --ask and --export, "
	               "not --compile-only");
	RUN(2, &out, "%s/saxpy.json --count --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "--db goes with tuning, --compile-only, --replay and --export, not --count");
	RUN(2, &out, "%s/saxpy.json --ask --timeout 3", examples);
	CHECK_CONTAINS(out, "--timeout goes with tuning, not --ask");
	RUN(2, &out, "%s/saxpy.json --export csv -j 2 --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "--jobs goes with tuning, --compile-only and --replay, not --export");
	RUN(2, &out, "%s/saxpy.json --replay %s/none.csv --verify none", examples, dir);
	CHECK_CONTAINS(out, "--verify goes with tuning, not --replay");
	char tdb[TU_PATH];
	CHECK(!tu_exists(tu_path(tdb, dir, "t.db")));
	OK("an option another mode would leave unused (--problem with --compile-only, --db with "
	   "--count, --timeout with --ask, -j with --export, --verify with --replay) exits 2 "
	   "naming both");

	RUN(2, &out, "%s/saxpy.json --verify bogus --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "--verify: expected default, reference, data or none, got 'bogus'");
	RUN(2, &out, "%s/saxpy.json --verify reference --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "--verify reference: ");
	CHECK_CONTAINS(out, "saxpy.json names no reference kernel");
	RUN(2, &out, "%s/saxpy-t1.json --verify data --db %s/t.db", examples, dir);
	CHECK_CONTAINS(out, "gives no expected output (T1 ReferenceArguments)");
	RUN(2, &out, "%s/saxpy.json --atol -1", examples);
	CHECK_CONTAINS(out, "--atol: expected a tolerance >= 0, got '-1'");
	RUN(2, &out, "%s/saxpy.json --rtol 1e-3x", examples);
	CHECK_CONTAINS(out, "--rtol: expected a tolerance >= 0, got '1e-3x'");
	RUN(2, &out, "%s/saxpy.json --rtol inf", examples);
	/* accepted, and handed to the worker, which then finds no GPU */
	char cmd[4 * TU_PATH], buf[8192];
	snprintf(cmd, sizeof cmd, "KJIT_LIBCUDA=/nonexistent/libcuda.so.1 '%s' '%s/saxpy.json'"
	         " --verify none --atol 0.5 --rtol 0 --db '%s/v.db' 2>&1", tool, examples, dir);
	int rc = tu_run(cmd, buf, sizeof buf);
	CHECK_MSG(rc == 1, "exit %d: %s", rc, buf);
	CHECK_CONTAINS(buf, "the GPU worker cannot run");
	/* said once, with what runs without a GPU, and no hint a tuning run cannot use */
	CHECK_CONTAINS(buf, "--compile-only --arch sm_NN compiles the space");
	const char *why = strstr(buf, "libcuda.so.1 could not be opened");
	CHECK_MSG(why && !strstr(why + 1, "libcuda.so.1 could not be opened") &&
	          !strstr(buf, "give an arch"), "the reason twice, or the arch hint: %s", buf);
	OK("--verify, --atol, --rtol: bad values and modes the spec cannot serve exit 2; good "
	   "ones reach the worker, which says once that tuning needs a GPU");

	/* a symbol the kernel writes cannot be compared: refused before the GPU */
	char sym[TU_PATH];
	tu_path(sym, dir, "symbol.json");
	static const char sym_text[] =
		"{\"General\": {\"FormatVersion\": \"1.0.0\"},"
		" \"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"B\", \"Type\": \"int\","
		"   \"Values\": \"[32]\", \"Default\": 32}], \"Conditions\": []},"
		" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"saxpy\","
		"   \"KernelFile\": \"saxpy.cu\","
		"   \"LocalSize\": {\"X\": \"B\", \"Y\": \"1\", \"Z\": \"1\"},"
		"   \"GlobalSize\": {\"X\": \"1\", \"Y\": \"1\", \"Z\": \"1\"},"
		"   \"Arguments\": [{\"Name\": \"table\", \"Type\": \"float4\", \"MemoryType\": \"Symbol\","
		"     \"Size\": 8, \"AccessType\": \"ReadWrite\", \"FillType\": \"Constant\","
		"     \"FillValue\": 1}]}}";
	tu_write_file(sym, sym_text, strlen(sym_text));
	char sym_cu[TU_PATH];
	static const char sym_src[] = "__constant__ float4 table[8];\n"
	                              "extern \"C\" __global__ void saxpy() {}\n";
	tu_write_file(tu_path(sym_cu, dir, "saxpy.cu"), sym_src, strlen(sym_src));
	RUN(3, &out, "%s --db %s/s.db", sym, dir);
	CHECK_CONTAINS(out, "symbol.json: argument table: a symbol (module variable) that the "
	                    "kernel writes");
	CHECK_CONTAINS(out, "--verify none");
	snprintf(cmd, sizeof cmd, "KJIT_LIBCUDA=/nonexistent/libcuda.so.1 '%s' '%s' --verify none"
	         " --db '%s/s.db' 2>&1", tool, sym, dir);
	rc = tu_run(cmd, buf, sizeof buf);
	CHECK_MSG(rc == 1, "exit %d: %s", rc, buf);
	CHECK_CONTAINS(buf, "the GPU worker cannot run");
	OK("a written Symbol that would be compared exits 3 naming it; --verify none lets it run");

	RUN(2, &out, "%s/saxpy.json --compile-only", examples);
	CHECK_CONTAINS(out, "--arch");
	RUN(0, &out, "%s/saxpy.json --compile-only --arch sm_90 --db %s/c.db -j 2", examples, dir);
	CHECK_CONTAINS(out, "variants 40: compiled 40, cached 0, failed 0 (arch sm_90");
	CHECK_CONTAINS(out, "40/40 variants, 0 failed, "); /* the progress line, rate and ETA */
	CHECK_CONTAINS(out, "/s, ");
	CHECK_CONTAINS(out, " s, ETA ");
	RUN(0, &out, "%s/saxpy.json --compile-only --arch sm_90 --db %s/c.db -j 2", examples, dir);
	CHECK_CONTAINS(out, "variants 40: compiled 0, cached 40, failed 0");
	sqlite3 *db;
	sqlite3_stmt *s;
	char dbpath[TU_PATH + 8];
	tu_path(dbpath, dir, "c.db");
	CHECK(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM binaries WHERE arch = 'sm_90'", -1, &s,
	                         NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 40);
	sqlite3_finalize(s);
	sqlite3_close(db);
	OK("--compile-only --arch sm_90: 40 compiled into the database, then 40 cached");

	/* nothing compiled, or a failure that is not a variant's own: exit 1 */
	char bdir[TU_PATH], bspec[TU_PATH], bsrc[TU_PATH];
	tu_path(bdir, dir, "broken");
	CHECK(mkdir(bdir, 0700) == 0);
	static const char bspec_text[] =
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, \"parameters\":"
		" [{\"name\": \"B\", \"values\": [32, 64], \"roles\": \"define\"}]}";
	static const char bsrc_text[] = "extern \"C\" __global__ void k(float *p) { p[0] = nope; }\n";
	tu_write_file(tu_path(bspec, bdir, "k.json"), bspec_text, strlen(bspec_text));
	tu_write_file(tu_path(bsrc, bdir, "k.cu"), bsrc_text, strlen(bsrc_text));
	RUN(1, &out, "%s --compile-only --arch sm_90 --db %s/b.db", bspec, dir);
	CHECK_CONTAINS(out, "variants 2: compiled 0, cached 0, failed 2");
	CHECK_CONTAINS(out, "no variant compiled");
	RUN(1, &out, "%s --compile-only --arch sm_90 --db %s/bp.db --compile-pool processes -j 2",
	    bspec, dir);
	CHECK_CONTAINS(out, "variants 2: compiled 0, cached 0, failed 2");
	CHECK_CONTAINS(out, "error: identifier \"nope\" is undefined"); /* a worker's NVRTC log */
	RUN(2, &out, "%s/saxpy.json --compile-only --arch sm_10 --db %s/b10.db", examples, dir);
	CHECK_CONTAINS(out, "unknown arch 'sm_10'");
	OK("--compile-only exits 1 when no variant compiled (the NVRTC log from a compile worker "
	   "process too), 2 for an arch NVRTC does not know");
	CHECK(unlink(bsrc) == 0);
	RUN(3, &out, "%s --compile-only --arch sm_90 --db %s/b.db", bspec, dir);
	CHECK_CONTAINS(out, "kernel source");
	CHECK_CONTAINS(out, "No such file");
	RUN(0, &out, "%s --count", bspec);
	CHECK_CONTAINS(out, "warning: ");
	CHECK_CONTAINS(out, "(the space is counted; nothing can be compiled)");
	CHECK_CONTAINS(out, "valid 2, product 2");
	RUN(2, &out, "%s --count --seed -1", bspec);
	CHECK_CONTAINS(out, "--seed: expected a non-negative integer, got '-1'");
	OK("a missing kernel source is a spec error (exit 3); --count counts with a warning");

	/* two processes compiling one space into one database share the work */
	char two[8 * TU_PATH];
	snprintf(two, sizeof two, "cd '%s' && ('%s' '%s/saxpy.json' --compile-only --arch sm_90"
	         " --db two.db -j 1 >one.out 2>&1 & '%s' '%s/saxpy.json' --compile-only --arch"
	         " sm_90 --db two.db -j 1 >two.out 2>&1; s=$?; wait $!; t=$?; cat one.out two.out;"
	         " exit $((s + t)))", dir, tool, examples, tool, examples);
	rc = tu_run(two, buf, sizeof buf);
	CHECK_MSG(rc == 0, "exit %d: %s", rc, buf);
	int compiled_total = 0, runs = 0;
	for (const char *p = buf; (p = strstr(p, "variants 40: compiled ")) != NULL; p++) {
		compiled_total += atoi(p + strlen("variants 40: compiled "));
		runs++;
	}
	CHECK_MSG(runs == 2 && compiled_total < 80, "%d runs, %d compiles: %s", runs,
	          compiled_total, buf);
	OK("two --compile-only processes on one database: %d compiles for 40 variants",
	   compiled_total);

	char csv[TU_PATH + 8];
	tu_path(csv, dir, "r.csv");
	FILE *f = fopen(csv, "w");
	CHECK(f);
	fprintf(f, "BLOCK_SIZE,ITEMS_PER_THREAD,time\n");
	static const int blocks[] = { 64, 128, 256, 512, 1024 };
	for (int b = 0; b < 5; b++)
		for (int i = 1; i <= 8; i++)
			fprintf(f, "%d,%d,%g\n", blocks[b], i, 1 + abs(b - 2) + abs(i - 4) * 0.25);
	fclose(f);
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy exhaustive", examples, csv);
	int place[5][8];
	exhaustive_places(dir, place);
	char want[128];
	snprintf(want, sizeof want, "best found: {\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":4} 1 "
	         "after %d evaluations\n", place[2][3]);
	CHECK_CONTAINS(out, want);
	snprintf(want, sizeof want, "reached the best after %d evaluations", place[2][3]);
	CHECK_CONTAINS(out, want);
	RUN(0, &out, "%s/saxpy-t1.json --replay %s --strategy annealing --budget 30 --seed 7",
	    examples, csv);
	CHECK_CONTAINS(out, "evaluations: ");
	CHECK_CONTAINS(out, "best known: {\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":4} 1");
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy random --fraction 0.25", examples, csv);
	CHECK_CONTAINS(out, "evaluations: 10\n");
	RUN(2, &out, "%s/saxpy.json --replay %s --strategy nope", examples, csv);
	CHECK_CONTAINS(out, "unknown strategy 'nope'");
	RUN(0, &out, "%s/saxpy.json --replay %s --budget 20", examples, csv);
	CHECK_CONTAINS(out, "strategy hybrid, seed 1, budget 20 of 40");
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy pso --budget 20 --seed 4", examples,
	    csv);
	CHECK_CONTAINS(out, "strategy pso, seed 4, budget 20 of 40");
	CHECK_CONTAINS(out, "evaluations: 20\n");
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy dual_annealing --budget 40", examples,
	    csv);
	CHECK_CONTAINS(out, "reached the best after");
	RUN(0, &out, "--help");
	CHECK_CONTAINS(out, "dual_annealing");
	CHECK_CONTAINS(out, "hybrid ");
	CHECK_CONTAINS(out, "pso ");
	RUN(1, &out, "%s/saxpy.json --replay %s/none.csv", examples, dir);
	OK("--replay: exhaustive reaches the best where its order has it, budgets, unknown "
	   "strategy, missing file; the default hybrid, dual_annealing, pso; --help lists them");
	RUN(0, &out, "%s/saxpy.json --replay %s --strategy pso --budget 20 --seed 4 --batch 4",
	    examples, csv);
	CHECK_CONTAINS(out, "batch: 4 proposals outstanding\n");
	CHECK_CONTAINS(out, "evaluations: 20\n");
	RUN(0, &out, "%s/saxpy.json --replay %s --budget 40 --batch 4", examples, csv);
	CHECK_CONTAINS(out, "strategy hybrid, seed 1, budget 40 of 40");
	CHECK_CONTAINS(out, "reached the best after");
	RUN(2, &out, "%s/saxpy.json --replay %s --batch 0", examples, csv);
	CHECK_CONTAINS(out, "--batch: expected a count from 1 to 64, got '0'");
	RUN(2, &out, "%s/saxpy.json --replay %s --batch x", examples, csv);
	CHECK_CONTAINS(out, "--batch: expected a count from 1 to 64, got 'x'");
	RUN(2, &out, "%s/saxpy.json --replay %s --batch 65", examples, csv);
	RUN(2, &out, "%s/saxpy.json --batch 4", examples);
	CHECK_CONTAINS(out, "--batch goes with --replay");
	RUN(0, &out, "--help");
	CHECK_CONTAINS(out, "--batch B");
	OK("--replay --batch 4: pso within its budget, dual_annealing reaches the best; --batch "
	   "0, x, 65 and without --replay are usage errors");
	test_options_heard(dir, csv);
	test_ask(dir);
	test_spec_options(dir);
	test_replay_clock(dir, csv);
	return 0;
}
