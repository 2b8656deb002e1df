"""Builds kjit's Python extension from the same build as libkjit.

The C library is built by its own autotools build (configure, make
libkjit.la) and linked into one abi3 extension (CPython's limited API,
3.10 and later): there is no second list of the library's sources here.

    pip install ./python              # from the top of the source tree

Environment:
  CUDA_HOME        the CUDA toolkit (default /usr/local/cuda), passed to configure
  KJIT_BUILD_DIR   a configured and built tree to use instead of building one:
                   its libkjit.so (a shared build) is linked, with its path as
                   the run path; without one, its static PIC libkjit.a

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
    if not os.path.exists(os.path.join(build_dir, "Makefile")):
        if os.path.exists(os.path.join(TOP, "config.status")):
            sys.exit("kjit: %s is configured in place, so it cannot be built in another "
                     "folder: run make distclean there, or set KJIT_BUILD_DIR to a built "
                     "tree" % TOP)
        if not os.path.exists(os.path.join(TOP, "configure")):
            run(["./autogen.sh"], TOP)
        cmd = [os.path.join(TOP, "configure"), "--disable-shared", "--with-pic"]
        if os.environ.get("CUDA_HOME"):
            cmd.append("--with-cuda=" + os.environ["CUDA_HOME"])
        run(cmd, build_dir)
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
        ext.extra_link_args = shlex.split(v.get("CUDA_LDFLAGS", ""))
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
             ("module.c", "engine.c", "kernel.c", "args.c", "spec.c")],
    include_dirs=[os.path.join(TOP, "include")],
    define_macros=[("Py_LIMITED_API", LIMITED_API)],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers", "-fvisibility=hidden"],
    py_limited_api=True,
)

os.chdir(HERE)
setup(
    ext_modules=[ext],
    cmdclass={"build_ext": BuildExt},
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)
