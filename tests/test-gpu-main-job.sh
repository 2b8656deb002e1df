#!/bin/sh
# test-gpu-main-job: on a GPU, the README's main job (examples/saxpy/main-job)
# checks and times the 40 variants, tunes examples/saxpy/saxpy.json and
# prints the best, with exit 0 and nothing said to be skipped; run again,
# kjit-tune finds the 40 configurations measured. Exit 77 without a GPU
# (test-main-job covers that case).
build=${KJIT_BUILDDIR:-.}
job=${KJIT_SRCDIR:-.}/examples/saxpy/main-job
if ! gpu=$("$build/examples/saxpy/kjit-saxpy" --check-gpu 2>&1); then
	echo "SKIP: needs a GPU: $gpu"
	exit 77
fi
echo "$gpu"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
KJIT_DB=$dir/kjit.db
KJIT_TELEMETRY=0
KJIT_BUILDDIR=$build
export KJIT_DB KJIT_TELEMETRY KJIT_BUILDDIR
fail=0
has() { # LABEL PATTERN COUNT: PATTERN on COUNT lines of $out
	n=$(printf '%s\n' "$out" | grep -c -- "$2")
	if [ "$n" -ne "$3" ]; then
		echo "FAIL: $1: '$2' on $n lines, expected $3"; fail=1
	fi
}
out=$("$job" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: main-job on a GPU: exit $rc"; fail=1; }
has "kjit-saxpy's fastest" '^fastest: BLOCK_SIZE=' 1
has "kjit-tune's run" 'space 40, evaluated 40, skipped 0' 1
has "kjit-tune's best" '^  best {"BLOCK_SIZE":' 1
has "nothing skipped" 'skipped (no GPU)' 0
out=$("$job" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: main-job again: exit $rc"; printf '%s\n' "$out"; fail=1; }
has "run again" 'space 40, evaluated 0, skipped 40' 1
[ "$fail" -eq 0 ] && echo "ok: main-job on a GPU tunes and prints the best"
exit $fail
