#!/bin/sh
# test-bench-search-kt: bench-search-kt reports a Kernel Tuner strategy
# that raises an error as failed, with its seed, runs the strategies after
# it all the same, and exits 1. Needs kernel_tuner (with numpy and scipy)
# in $KJIT_PYTHON (default python3): skips without it.
src=${srcdir:-.}
py=${KJIT_PYTHON:-python3}
"$py" -c 'import kernel_tuner, numpy, scipy' 2>/dev/null || { echo "SKIP: no kernel_tuner in $py"; exit 77; }
out=$("$py" "$src/bench/bench-search-kt" "$src/examples/saxpy/saxpy.json" \
	"$src/tests/data/saxpy-h200.csv" --seeds 2 --strategies no_such_strategy,random_sample 2>&1)
rc=$?
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
[ $rc -eq 1 ] || fail "exit status $rc, not 1"
echo "$out" | grep -q '^  no_such_strategy  *failed at seed 1: ValueError' ||
	fail "the failed strategy is not reported"
echo "$out" | grep -q '^RESULT kt_random_sample_within5 ' || fail "the next strategy did not run"
echo "$out" | grep -q '^RESULT kt_random_sample_within1 ' || fail "the next strategy did not run"
echo "$out" | grep -q 'Kernel Tuner failed in no_such_strategy$' || fail "no summary of failures"
echo "PASS"
