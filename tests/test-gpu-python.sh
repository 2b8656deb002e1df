#!/bin/sh
# test-gpu-python: the Python package on the GPU (tests/python/test_gpu.py):
# CuPy, PyTorch, JAX, numba-cuda and cuda.core arrays without a copy, strides refused,
# streams, CUDA graph capture, a Kernel Tuner script, the store shared with
# kjit-tune. The package is the one built by
#     pip install --target DIR ./python
# in $KJIT_PYTHONPATH (DIR), else build-py/ beside the build folder or in the
# source tree. Skips (77) without it, without NumPy, or without a GPU.
src=${KJIT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${KJIT_BUILDDIR:-$(pwd)}
py=${KJIT_PYTHON:-python3}
skip() { echo "SKIP: $*"; exit 77; }
pkg=${KJIT_PYTHONPATH:-}
if [ -z "$pkg" ]; then
	for d in "$build/../build-py" "$src/build-py" "$build/build-py"; do
		[ -d "$d/kjit" ] && { pkg=$(cd "$d" && pwd); break; }
	done
fi
[ -n "$pkg" ] || skip "no built package: pip install --target DIR ./python, then KJIT_PYTHONPATH=DIR"
command -v "$py" >/dev/null 2>&1 || skip "no $py"
"$py" -c 'import numpy' 2>/dev/null || skip "$py has no numpy"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 700 "$tmp"
cd "$tmp" && PYTHONPATH="$pkg" KJIT_SRCDIR="$src" KJIT_DB="$tmp/kjit.db" \
	"$py" "$src/tests/python/test_gpu.py"
