#!/bin/sh
# test-hit-gate: the in-process cache hit stays fast. bench-hit times
# kjit_variant_get() of a loaded variant batch for batch in turn with its
# floor (the key's bytes hashed, one table probe) and exits 1 when the
# ratio of the fastest batches passes its bound (bench-hit.c names the
# bounds and the measurements they come from). A ratio, not a time: the
# machine's speed and load move both. Under a sanitizer bench-hit exits 77, as it times
# the instrumentation.
build=${KJIT_BUILDDIR:-.}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
KJIT_LIBCUDA=/nonexistent/libcuda.so.1
KJIT_ARCH=sm_90
TMPDIR=$dir
KJIT_TELEMETRY=0
export KJIT_LIBCUDA KJIT_ARCH TMPDIR KJIT_TELEMETRY
"$build/bench/bench-hit" --gate 1 --batches 25 --calls 40000
