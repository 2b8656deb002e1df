#!/bin/sh
# test-python-pip: pip install ./python with no CUDA toolkit, only NVIDIA's
# CUDA 13 pip wheels. A fresh virtual environment and a copy of the source
# tree; the toolkit is hidden by a mount namespace where the system allows
# one (unshare), and the documented command then finds the wheels by
# itself (else KJIT_CUDA=pip asks for them). Then, with the toolkit still
# hidden: import kjit and an NVRTC compile (no GPU needed), the CUDA
# libraries loaded from the environment's nvidia/cu13/lib, run paths
# relative to the package, the wheels as the package's requirements,
# kjit-tune starting, and the package at most 5 MB without them. First, a
# KJIT_CUDA that names no source is refused.
# Skips (77) without python3's venv and headers, without network (NVIDIA's
# wheels cannot be fetched), in a sanitizer build, and for a source tree
# configured in place that is not a git checkout.
src=${KJIT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${KJIT_BUILDDIR:-$(pwd)}
py=${KJIT_PYTHON:-python3}
max_bytes=$((5 * 1024 * 1024))
budget_s=1200 # the install: downloads, configure and make
skip() { echo "SKIP: $*"; exit 77; }
command -v "$py" >/dev/null 2>&1 || skip "no $py"
"$py" -c 'import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null ||
	skip "$py lacks its headers (python3-dev)"
case "${KJIT_TEST_CC:-}" in *-fsanitize*) skip "a sanitizer build" ;; esac

tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
# the source tree as a user has it: the checkout's files, or the unpacked release
mkdir "$tmp/src"
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$src" && pwd -P)" ]; then
	(cd "$src" && git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -f "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T -) | tar -xf - -C "$tmp/src" || exit 1
elif [ -f "$src/config.status" ]; then
	skip "$src is configured in place and is not a git checkout"
else
	(cd "$src" && tar -cf - --exclude=./python/build --exclude="./${build#"$src"/}" .) |
		tar -xf - -C "$tmp/src" || exit 1
fi
chmod -R u+w "$tmp/src" && rm -rf "$tmp/src/python/build"

# a KJIT_CUDA that names no source is refused, naming it, before anything is built
if "$py" -c 'import setuptools' 2>/dev/null; then
	out=$(cd "$tmp/src/python" && KJIT_CUDA=cuda12 "$py" setup.py --version 2>&1) &&
		{ echo "FAIL: KJIT_CUDA=cuda12 was accepted: $out"; exit 1; }
	case $out in *KJIT_CUDA=cuda12*) ;; *) echo "FAIL: KJIT_CUDA=cuda12 gave: $out"; exit 1 ;; esac
fi

venv=$tmp/venv
"$py" -m venv "$venv" >/dev/null 2>&1 || skip "$py -m venv fails (python3-venv)"
"$venv/bin/python" -m pip download -q --no-deps -d "$tmp/probe" 'nvidia-nvtx==13.*' >/dev/null 2>&1 ||
	skip "NVIDIA's wheels cannot be fetched (no network?)"

# the toolkit's folders, and whether a mount namespace can hide them
mkdir "$tmp/empty"
hide=
for d in "${KJIT_CUDA_HOME:-}" "${CUDA_HOME:-}" /usr/local/cuda; do
	[ -n "$d" ] && [ -d "$d" ] || continue
	d=$(readlink -f "$d")
	case " $hide " in *" $d "*) ;; *) hide="$hide $d" ;; esac
done
ns=
mounts="for d in $hide; do mount --bind '$tmp/empty' \"\$d\" || exit 1; done;"
for u in "unshare -rm" "unshare -m"; do
	[ -n "$hide" ] && $u sh -c "$mounts" 2>/dev/null && { ns=$u; break; }
done
path=
IFS=:
for d in $PATH; do [ -x "$d/nvcc" ] || path=${path:+$path:}$d; done
unset IFS
# $1: a command, run with the toolkit hidden when it can be
hidden() {
	if [ -n "$ns" ]; then
		$ns sh -c "$mounts $1"
	else
		sh -c "$1"
	fi
}
cuda=
if [ -z "$hide" ]; then
	echo "no toolkit here"
elif [ -n "$ns" ]; then
	echo "the toolkit hidden ($ns):$hide"
else
	cuda="KJIT_CUDA=pip"
	echo "no mount namespace: the toolkit stays visible, KJIT_CUDA=pip asks for the wheels"
fi

cd "$tmp/src" || exit 1
hidden "env -u CUDA_HOME -u LIBRARY_PATH -u CPATH -u C_INCLUDE_PATH -u LD_LIBRARY_PATH \
	-u KJIT_BUILD_DIR -u KJIT_CUDA PATH='$path' KJIT_MAKE_JOBS=2 $cuda \
	timeout $budget_s '$venv/bin/python' -m pip install -v ./python" >"$tmp/pip.log" 2>&1 ||
	{ cat "$tmp/pip.log"; echo "FAIL: pip install ./python with the wheels (within ${budget_s} s)"; exit 1; }
grep -E -- '--with-cuda=.*/nvidia/cu13' "$tmp/pip.log" >/dev/null ||
	{ cat "$tmp/pip.log"; echo "FAIL: configure was not given the wheels' nvidia/cu13"; exit 1; }

cat >"$tmp/check.py" <<'PY'
import glob, os, subprocess, sys, sysconfig, tempfile
from importlib import metadata
import kjit

site = sysconfig.get_paths()["purelib"]
lib = os.path.realpath(os.path.join(site, "nvidia", "cu13", "lib"))
pkg = os.path.dirname(kjit.__file__)
fails = []

k = kjit.kernel(r'''extern "C" __global__ void scale(float *y, const float *x, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }''', "scale")
info = k.compile()
if not info.get("key"):
    fails.append("the compile gave no key: %r" % info)
# CUDA's own headers come from the wheels' (KJIT_CUDA_INCLUDE, set by kjit)
half = kjit.kernel(r'''#include <cuda_fp16.h>
#include <cuda/std/cstdint>
extern "C" __global__ void h(__half *y, cuda::std::int32_t n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = __float2half(1.0f); }''', "h")
if not half.compile().get("key"):
    fails.append("a kernel including cuda_fp16.h did not compile")
if not os.environ.get("KJIT_CUDA_INCLUDE", "").startswith(site):
    fails.append("KJIT_CUDA_INCLUDE is %r, not under %s" % (os.environ.get("KJIT_CUDA_INCLUDE"), site))

maps = open("/proc/self/maps").read().split("\n")
for name in ("libnvrtc.so.13", "libnvJitLink.so.13", "libcupti.so.13", "libnvrtc-builtins.so"):
    where = {l.split()[-1] for l in maps if "/" + name in l}
    if not where or {os.path.dirname(w) for w in where} != {lib}:
        fails.append("%s loaded from %s, not %s" % (name, sorted(where) or "nowhere", lib))

tune = os.path.join(pkg, "bin", "kjit-tune")
for f in glob.glob(os.path.join(pkg, "_kjit*.so")) + [tune]:
    d = subprocess.run(["readelf", "-d", f], capture_output=True, text=True, check=True).stdout
    paths = [p for l in d.split("\n") if "RUNPATH" in l or "RPATH" in l
             for p in l.split("[", 1)[1].rstrip("]").split(":")]
    # the interpreter's own (pyenv's lib) may be there; nothing of the
    # build's temporary environment or of the toolkit
    bad = [p for p in paths if not p.startswith("$ORIGIN/") and
           ("nvidia" in p or "cuda" in p or p.startswith(tempfile.gettempdir()))]
    if bad or not any(p.startswith("$ORIGIN/") and p.endswith("/nvidia/cu13/lib") for p in paths):
        fails.append("%s: run path %s, not the wheels' relative to the package" % (f, paths))
r = subprocess.run([tune, "--help"], capture_output=True, text=True)
if r.returncode != 0:
    fails.append("kjit-tune --help: %s" % r.stderr.strip())

reqs = " ".join(metadata.requires("kjit") or [])
for name in ("nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cuda-cupti"):
    if name not in reqs:
        fails.append("kjit does not require %s (it requires: %s)" % (name, reqs or "nothing"))

files = [os.path.join(d, f) for top in [pkg] + glob.glob(os.path.join(site, "kjit-*.dist-info"))
         for d, _, fs in os.walk(top) for f in fs]
size = sum(os.path.getsize(f) for f in files)
print("installed: %d bytes in %d files (the CUDA wheels apart)" % (size, len(files)))
if size > int(sys.argv[1]):
    fails.append("the package is %d bytes installed, over %s" % (size, sys.argv[1]))
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
mkdir -m 700 "$tmp/db"
cd "$tmp" && hidden "env -u LD_LIBRARY_PATH KJIT_ARCH=sm_90 KJIT_DB='$tmp/db/kjit.db' \
	'$venv/bin/python' '$tmp/check.py' $max_bytes"
