#!/bin/sh
# test-examples-arch: without a GPU the example programs and the benches
# pick no arch of their own: with none given they say so, and how to give
# one (--arch sm_NN or $KJIT_ARCH), and exit nonzero; with one they run.
build=${KJIT_BUILDDIR:-.}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
KJIT_LIBCUDA=/nonexistent/libcuda.so.1
KJIT_DB=$dir/kjit.db
KJIT_TELEMETRY=0
export KJIT_LIBCUDA KJIT_DB KJIT_TELEMETRY
fail=0

refuses() { # NAME COMMAND...: exits nonzero with the one message
	name=$1
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "FAIL: $name ran with no GPU and no arch:"; echo "$out"; fail=1
	elif ! printf '%s' "$out" | grep -q 'no target arch: give one with --arch sm_NN or \$KJIT_ARCH'; then
		echo "FAIL: $name (exit $rc) does not say how to give an arch:"; echo "$out"; fail=1
	else
		echo "ok: $name, no GPU, no arch: exit $rc, $(printf '%s' "$out" | grep -o 'no GPU (.*' | head -1)"
	fi
}

refuses kjit-saxpy "$build/examples/saxpy/kjit-saxpy"
refuses kjit-api-demo "$build/examples/api/kjit-api-demo" "${KJIT_SRCDIR:-.}/examples"
refuses bench-compile "$build/bench/bench-compile" -n 1

out=$("$build/examples/api/kjit-api-demo" --arch sm_90 "${KJIT_SRCDIR:-.}/examples" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! printf '%s' "$out" | grep -q 'arch sm_90'; then
	echo "FAIL: kjit-api-demo --arch sm_90 without a GPU: exit $rc"; echo "$out"; fail=1
else
	echo "ok: kjit-api-demo --arch sm_90 without a GPU shows the choices for sm_90"
fi
out=$(KJIT_ARCH=sm_90 "$build/examples/api/kjit-api-demo" "${KJIT_SRCDIR:-.}/examples" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! printf '%s' "$out" | grep -q 'arch sm_90'; then
	echo "FAIL: KJIT_ARCH=sm_90 kjit-api-demo without a GPU: exit $rc"; echo "$out"; fail=1
else
	echo "ok: KJIT_ARCH=sm_90 stands for --arch"
fi
exit $fail
