#!/bin/sh
# test-python: the Python package (python/) without a GPU. Its extension is
# built against this tree's libkjit.so into a scratch folder (as
# pip install ./python builds it against a static libkjit), then
# tests/python/test_cpu.py runs with NumPy: compiles through NVRTC, the
# store, argument conversions and refusals, DLPack capsules parsed in C,
# kjit-tune as a subprocess, kjit.Search (the same proposals as kjit-tune
# --ask), Kernel Tuner's signatures and strategies; then, where mypy is
# installed, the type stubs
# against the module as it runs (stubtest).
# Skips (77) without python3, its headers, setuptools or NumPy
# ($KJIT_PYTHON names another interpreter), in a static build (no
# libkjit.so) and in a sanitizer build (python3 would need the runtime
# preloaded).
src=${KJIT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${KJIT_BUILDDIR:-$(pwd)}
py=${KJIT_PYTHON:-python3}
skip() { echo "SKIP: $*"; exit 77; }
command -v "$py" >/dev/null 2>&1 || skip "no $py"
"$py" - <<'PY' || skip "$py lacks its headers, setuptools or numpy (pip install setuptools numpy)"
import os, sysconfig, setuptools, numpy
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
PY
[ -f "$build/.libs/libkjit.so" ] || skip "a static build (--disable-shared): no libkjit.so to link"
case "${KJIT_TEST_CC:-}" in *-fsanitize*) skip "a sanitizer build" ;; esac

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/db"
(cd "$src/python" && KJIT_BUILD_DIR="$build" "$py" setup.py -q build_ext \
	--build-lib "$tmp/lib" --build-temp "$tmp/obj" >"$tmp/build.log" 2>&1) ||
	{ cat "$tmp/build.log"; echo "FAIL: the extension did not build"; exit 1; }
if grep -E 'warning:' "$tmp/build.log"; then
	echo "FAIL: the extension builds with warnings (above)"
	exit 1
fi
# its Python files and type stubs beside the built extension
cp "$src"/python/kjit/*.py "$src"/python/kjit/*.pyi "$src"/python/kjit/py.typed "$tmp/lib/kjit/"
cd "$tmp" && PYTHONPATH="$tmp/lib" KJIT_ARCH=${KJIT_ARCH:-sm_90} KJIT_DB="$tmp/db/kjit.db" \
	KJIT_TUNE_BIN="$build/autotune/kjit-tune" "$py" "$src/tests/python/test_cpu.py" || exit 1
# the stubs against the module as it runs (mypy's stubtest), where mypy is
if "$py" -c "import mypy.stubtest" 2>/dev/null; then
	(cd "$tmp/lib" && KJIT_ARCH=${KJIT_ARCH:-sm_90} KJIT_DB="$tmp/db/kjit.db" \
		"$py" -m mypy.stubtest kjit) ||
		{ echo "FAIL: the type stubs differ from the module (stubtest, above)"; exit 1; }
else
	echo "note: no mypy for $py: the type stubs were not checked (pip install mypy)"
fi
