"""Builds kjit's Python extension from the same build as libkjit.

The C library is built by its own autotools build (configure, make
libkjit.la) and linked into one abi3 extension (CPython's limited API,
3.10 and later): there is no second list of the library's sources here.

    pip install ./python              # from the top of the source tree

CUDA comes from the toolkit, or from NVIDIA's CUDA 13 pip wheels (NVRTC,
nvJitLink, CUPTI, and cuda.h and NVTX3 for the build): these are then the
build's requirements and the package's, and the extension and kjit-tune
find the libraries in site-packages/nvidia/cu13/lib beside the package.

Environment:
  KJIT_CUDA        toolkit, pip, or auto (default): the toolkit when CUDA_HOME
                   is set or configure's default toolkit is there, else pip
  CUDA_HOME        the CUDA toolkit (default /usr/local/cuda), passed to configure
  KJIT_BUILD_DIR   a configured and built tree to use instead of building one
                   (its own CUDA; KJIT_CUDA is not read): its libkjit.so (a
                   shared build) is linked, with its path as the run path;
                   without one, its static PIC libkjit.a

The package carries kjit-tune (kjit.tune runs it) beside the extension.
  KJIT_MAKE_JOBS   make -j for the library build (default: the CPUs, at most 8)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
LIMITED_API = "0x030A0000"
DEFAULT_TOOLKIT = "/usr/local/cuda"  # configure's default --with-cuda

# NVIDIA's CUDA 13 wheels install into site-packages/nvidia/cu13/{include,lib};
# the package needs the libraries it links, the build also cuda.h (with the
# crt/ it includes, through cupti.h) and NVTX3.
PIP_CUDA_MAJOR = "13"
PIP_CUDA = ("nvidia", "cu" + PIP_CUDA_MAJOR)
PIP_CUDA_LINKED = ("nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cuda-cupti")
# the headers kernels include (cuda_fp16.h, cuda/std, cub), as a toolkit has them
PIP_CUDA_HEADERS = ("nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-cuda-cccl")
PIP_CUDA_BUILD = [n + "==%s.*" % PIP_CUDA_MAJOR
                  for n in PIP_CUDA_LINKED + ("nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-nvtx")]


def cuda_source():
    """Where CUDA comes from: "tree" (KJIT_BUILD_DIR's own), "toolkit" or
    "pip" ($KJIT_CUDA)."""
    if os.environ.get("KJIT_BUILD_DIR"):
        return "tree"
    how = os.environ.get("KJIT_CUDA") or "auto"
    if how not in ("auto", "toolkit", "pip"):
        sys.exit("kjit: KJIT_CUDA=%s: it is toolkit, pip or auto" % how)
    if how != "auto":
        return how
    if os.environ.get("CUDA_HOME"):
        return "toolkit"
    found = os.path.exists(os.path.join(DEFAULT_TOOLKIT, "include", "cuda.h"))
    return "toolkit" if found else "pip"


def pip_cuda_rpath(depth):
    """The run path to the wheels' libraries from a file depth folders below
    site-packages."""
    return "$ORIGIN/" + "../" * depth + "/".join(PIP_CUDA + ("lib",))


def pip_cuda_requires():
    """The linked wheels, at least the versions built with (nvJitLink's
    symbols carry its header's minor version: __nvJitLinkCreate_13_5)."""
    from importlib import metadata
    out = []
    for name in PIP_CUDA_LINKED:
        try:
            least = ">=" + metadata.version(name) + ","
        except metadata.PackageNotFoundError:  # asked before the build's are installed
            least = ""
        out.append("%s%s==%s.*" % (name, least, PIP_CUDA_MAJOR))
    return out + ["%s==%s.*" % (name, PIP_CUDA_MAJOR) for name in PIP_CUDA_HEADERS]


def pip_cuda_root():
    """The wheels' nvidia/cu13 in this environment (the build's own, under
    build isolation)."""
    for d in sys.path:
        root = os.path.join(d, *PIP_CUDA)
        if os.path.exists(os.path.join(root, "include", "nvrtc.h")):
            return root
    sys.exit("kjit: NVIDIA's CUDA 13 wheels are not in this environment: pip install %s "
             "(or KJIT_CUDA=toolkit with the CUDA toolkit)" % " ".join(PIP_CUDA_BUILD))


def configure_command():
    cmd = [os.path.join(TOP, "configure"), "--disable-shared", "--with-pic"]
    if cuda_source() == "pip":
        # no toolkit where it runs: kernels' CUDA headers come from their own
        # include folders; kjit-tune is kjit/bin/kjit-tune
        return cmd + ["--with-cuda=" + pip_cuda_root(), "--with-cuda-headers=no",
                      "--with-cuda-rpath=" + pip_cuda_rpath(2)]
    if os.environ.get("CUDA_HOME"):
        cmd.append("--with-cuda=" + os.environ["CUDA_HOME"])
    return cmd


def makefile_vars(build_dir):
    """The variables configure substituted in build_dir's Makefile."""
    out = {}
    with open(os.path.join(build_dir, "Makefile"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*) = (.*)$", line.rstrip("\n"))
            if m and m.group(1) not in out:
                out[m.group(1)] = m.group(2)
    return out


def run(cmd, cwd):
    print("kjit: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, check=True)


def build_library():
    """Configures (static, PIC) and builds libkjit in python/build/c."""
    build_dir = os.path.join(HERE, "build", "c")
    os.makedirs(build_dir, exist_ok=True)
    # configured again when the command changes: another CUDA, or the
    # wheels in another (temporary) build environment
    stamp = os.path.join(build_dir, "kjit-configure")
    cmd = configure_command()
    try:
        with open(stamp, encoding="utf-8") as f:
            done = f.read() == repr(cmd)
    except OSError:
        done = False
    if not done or not os.path.exists(os.path.join(build_dir, "Makefile")):
        if os.path.exists(os.path.join(TOP, "config.status")):
            sys.exit("kjit: %s is configured in place, so it cannot be built in another "
                     "folder: run make distclean there, or set KJIT_BUILD_DIR to a built "
                     "tree" % TOP)
        if not os.path.exists(os.path.join(TOP, "configure")):
            run(["./autogen.sh"], TOP)
        run(cmd, build_dir)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(repr(cmd))
    jobs = os.environ.get("KJIT_MAKE_JOBS") or str(min(os.cpu_count() or 1, 8))
    run(["make", "-j" + jobs, "libkjit.la", "autotune/kjit-tune"], build_dir)
    return build_dir


def copy_kjit_tune(build_dir, package_dir):
    """kjit-tune, the program kjit.tune runs, into the package (stripped);
    a libtool wrapper script (a shared build) is left out."""
    src = os.path.join(build_dir, "autotune", "kjit-tune")
    if not os.path.exists(src):
        return
    with open(src, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return
    dst = os.path.join(package_dir, "bin")
    os.makedirs(dst, exist_ok=True)
    dst = os.path.join(dst, "kjit-tune")
    shutil.copy2(src, dst)
    subprocess.run(["strip", dst], check=False)


class BuildExt(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("KJIT_BUILD_DIR")
        if build_dir:
            build_dir = os.path.abspath(build_dir)
        else:
            build_dir = build_library()
        v = makefile_vars(build_dir)
        libs = os.path.join(build_dir, ".libs")
        if cuda_source() == "pip":  # the extension is kjit/_kjit.abi3.so
            ext.extra_link_args = ["-L" + v["CUDA_LIBDIR"], "-L" + v["CUPTI_LIBDIR"],
                                   "-Wl,-rpath," + pip_cuda_rpath(1)]
            # kjit/__init__ then names the wheels' headers (KJIT_CUDA_INCLUDE)
            ext.define_macros = ext.define_macros + [("KJITPY_CUDA_WHEELS", "1")]
        else:  # as make and the shell read it: a run path's \$$ORIGIN is $ORIGIN
            ext.extra_link_args = shlex.split(v.get("CUDA_LDFLAGS", "").replace("$$", "$"))
        if os.path.exists(os.path.join(libs, "libkjit.so")):
            ext.library_dirs = [libs]
            ext.libraries = ["kjit"]
            ext.runtime_library_dirs = [libs]
        else:
            ext.extra_objects = [os.path.join(libs, "libkjit.a")]
            ext.extra_link_args += ["-Wl,--exclude-libs,ALL"]
        for name in ("SQLITE_LIBS", "NVRTC_LIBS", "NVJITLINK_LIBS", "CUPTI_LIBS", "LIBS"):
            ext.extra_link_args += shlex.split(v.get(name, ""))
        super().build_extension(ext)
        self.kjit_build_dir = build_dir
        copy_kjit_tune(build_dir, os.path.dirname(self.get_ext_fullpath(ext.name)))

    def run(self):
        super().run()
        if self.inplace and getattr(self, "kjit_build_dir", None):
            copy_kjit_tune(self.kjit_build_dir, os.path.join(HERE, "kjit"))


ext = Extension(
    "kjit._kjit",
    sources=[os.path.join("src", f) for f in
             ("module.c", "engine.c", "kernel.c", "args.c", "spec.c", "search.c")],
    include_dirs=[os.path.join(TOP, "include")],
    define_macros=[("Py_LIMITED_API", LIMITED_API)],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers", "-fvisibility=hidden"],
    py_limited_api=True,
)

os.chdir(HERE)
# with the wheels, setup_requires is what the build backend asks pip for
# (PEP 517's get_requires_for_build_wheel)
pip = cuda_source() == "pip"
setup(
    ext_modules=[ext],
    cmdclass={"build_ext": BuildExt},
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
    setup_requires=PIP_CUDA_BUILD if pip else [],
    install_requires=pip_cuda_requires() if pip else [],
)
