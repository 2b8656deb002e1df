/*
 * fuzz-expr: libFuzzer target for the expression engine. The first byte
 * picks the dialect, the rest is the text; whatever parses is evaluated as
 * a number and as a list, and split into its terms, all drawing on one
 * budget of 2^22 steps as a spec's evaluations do (so that spending it is
 * fuzzed too). Anything but a crash, a sanitizer report or a budget
 * overrun is fine (tests/fuzz/run), except a flat program that disagrees
 * with the tree: that aborts.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char *const names[] = { "a", "b", "s", "L", "ProblemSize[0]" };
	static kjit__value items[3] = { { .text = "1", .kind = SQLITE_INTEGER, .i = 1, .d = 1 },
		                        { .text = "0.5", .kind = SQLITE_FLOAT, .d = 0.5 },
		                        { .text = "x", .kind = SQLITE_TEXT } };
	kjit__value slots[5] = {
		{ .text = "7", .kind = SQLITE_INTEGER, .i = 7, .d = 7 },
		{ .text = "-3", .kind = SQLITE_INTEGER, .i = -3, .d = -3 },
		{ .text = "--use_fast_math", .kind = SQLITE_TEXT },
		{ .text = "[1, 0.5, 'x']", .kind = KJIT__KIND_LIST, .items = items, .n_items = 3 },
		{ .text = "4096", .kind = SQLITE_INTEGER, .i = 4096, .d = 4096 },
	};
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	kjit__expr *e;
	kjit__expr_budget *budget = kjit__expr_budget_new((uint64_t)1 << 22);
	if (!budget) {
		free(text);
		return 0;
	}
	kjit__dialect d = data[0] & 1 ? KJIT__DIALECT_PYTHON : KJIT__DIALECT_KJIT;
	if (kjit__expr_parse(text, d, names, 5, "fuzz", budget, &e) == KJIT_OK) {
		double v;
		kjit__value *list;
		size_t n;
		(void)kjit__expr_eval(e, slots, &v);
		/* where there is a flat program: it and the tree agree (both are a
		 * few steps then) */
		if (kjit__expr_is_flat(e)) {
			double tree;
			kjit_status sf = kjit__expr_eval_own(e, slots, &v);
			kjit_status st = kjit__expr_eval_tree(e, slots, &tree);
			if (sf != st || (sf == KJIT_OK && !(isnan(v) ? isnan(tree) : v == tree)))
				abort();
		}
		if (kjit__expr_eval_list(e, slots, 1000, &list, &n) == KJIT_OK)
			kjit__values_free(list, n);
		kjit__expr **terms;
		if (kjit__expr_split(e, &terms, &n) == KJIT_OK) {
			for (size_t i = 0; i < n; i++) {
				(void)kjit__expr_eval(terms[i], slots, &v);
				kjit__expr_free(terms[i]);
			}
			free(terms);
		}
		kjit__expr_free(e);
	}
	kjit__expr_budget_free(budget);
	free(text);
	return 0;
}
