#!/bin/sh
# test-main-job: the README's main job (examples/saxpy/main-job) on a
# machine without a GPU (KJIT_LIBCUDA names no library, so on any
# machine): exit 0, the 40 variants compiled for sm_90, a second pass
# that finds them all in the database, each GPU step said to be skipped,
# what a GPU adds said once. Run again: everything from the database. A
# step that fails stops it with that step's status.
build=${KJIT_BUILDDIR:-.}
job=${KJIT_SRCDIR:-.}/examples/saxpy/main-job
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
KJIT_LIBCUDA=/nonexistent/libcuda.so.1
KJIT_DB=$dir/kjit.db
KJIT_TELEMETRY=0
KJIT_BUILDDIR=$build
export KJIT_LIBCUDA KJIT_DB KJIT_TELEMETRY KJIT_BUILDDIR
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
[ "$rc" -eq 0 ] || { echo "FAIL: main-job without a GPU: exit $rc"; fail=1; }
has "first pass" '^40 variants in .*: 40 compiled, 0 from the database' 1
has "the reason" '^no GPU (.*): compiling for sm_90 only' 1
has "timing" '^timing: skipped (no GPU)' 1
has "second pass" '^variants 40: compiled 0, cached 40, failed 0 (arch sm_90' 1
has "tuning" '^== kjit-tune: skipped (no GPU)' 1
has "what a GPU adds" 'needs an NVIDIA GPU and a driver' 1
has "nothing measured" '^fastest:' 0

out=$(KJIT_ARCH=sm_80 "$job" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: KJIT_ARCH=sm_80 main-job: exit $rc"; printf '%s\n' "$out"; fail=1; }
has "KJIT_ARCH" '^variants 40: compiled 0, cached 40, failed 0 (arch sm_80' 1

out=$("$job" 2>&1)
has "run again" '^40 variants in .*: 0 compiled, 40 from the database' 1

out=$(KJIT_ARCH=sm_1 "$job" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
	echo "FAIL: KJIT_ARCH=sm_1 main-job: exit 0"; printf '%s\n' "$out"; fail=1
fi
has "a failed step stops it" 'skipped' 0
has "the failure" "unknown arch 'sm_1'" 1

out=$(KJIT_BUILDDIR=$dir/none "$job" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: main-job with no build: exit $rc"; fail=1; }
has "no build" 'is not built: run make first' 1
[ "$fail" -eq 0 ] && echo "ok: main-job without a GPU"
exit $fail
