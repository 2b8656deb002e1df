"""kjit: launch tuned CUDA kernels from Python.

kjit compiles CUDA C++ with NVRTC, keeps the binaries and the tuning results in
one SQLite store shared with C programs and kjit-tune, and at launch picks the
best variant the store knows for this GPU and problem.

    import kjit, torch
    src = r'''
    extern "C" __global__ void scale(float *y, const float *x, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i];
    }'''
    k = kjit.tunable(src, "scale", params={"BLOCK": [64, 128, 256, 512]},
                     block=("BLOCK",), grid=("(n + BLOCK - 1) / BLOCK",), problem=("n",))
    x = torch.ones(1 << 20, device="cuda"); y = torch.empty_like(x)
    k(x.numel(), y, x, 2.0, x.numel())      # problem, then the kernel's arguments

Arrays of any framework are passed by pointer (PyTorch, CuPy, JAX, Numba,
anything with __cuda_array_interface__ or __dlpack__); no framework is imported
by kjit itself. See help(kjit.Kernel) for the call, kjit.tune() for tuning (kjit.tuning),
kjit.Space.search() for kjit's search strategies driven by your own measurements, and
kjit.kernel_tuner for Kernel Tuner's interface.
"""
import os
import threading

from . import _kjit
from ._kjit import (SEARCH_WAIT, ArgumentError, CompileError, Engine, Error, Kernel,
                    NoGPUError, Search, Space, SpaceCount, Spec, strategies)

__all__ = ["Engine", "Kernel", "Error", "NoGPUError", "CompileError", "ArgumentError",
           "Spec", "Space", "SpaceCount", "Search", "SEARCH_WAIT", "strategies",
           "default_engine", "kernel", "tunable", "from_spec", "pointers", "version",
           "tune", "results"]
__version__ = _kjit.version()


def _error_str(self):
    return str(self.args[1]) if len(self.args) > 1 else Exception.__str__(self)


Error.__str__ = _error_str
Error.status = property(lambda self: self.args[0] if self.args else None,
                        doc="kjit's status name (\"KJIT_ERR_COMPILE\", ...).")

_default = None
_default_lock = threading.Lock()

# Built with NVIDIA's CUDA wheels, kjit has no CUDA headers of its own:
# kernels (and kjit-tune, which inherits the environment) compile against
# the wheels' beside this package, unless KJIT_CUDA_INCLUDE names others.
if _kjit.CUDA_WHEELS and not os.environ.get("KJIT_CUDA_INCLUDE"):
    _include = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "nvidia", "cu13", "include")
    if os.path.isdir(_include):
        os.environ["KJIT_CUDA_INCLUDE"] = _include


def pointers(*arrays, device=0, stream=None):
    """(addresses, stream): the device address a launch passes for each array
    (PyTorch, CUDA Array Interface, DLPack; None is 0), and the stream a launch
    with these arrays and stream= would use. No copy is made: the address is
    the array's own."""
    return _kjit.pointers(arrays, device, stream)


def version():
    """The C library's version ("0.1.0")."""
    return _kjit.version()


def default_engine():
    """The process's engine, opened at first use with the C library's defaults
    ($KJIT_DB or ~/.cache/kjit/kjit.db, device 0, $KJIT_ARCH or the device's)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Engine()
        return _default


def _src(source, path):
    if (source is None) == (path is None):
        raise TypeError("give the kernel's source or its path, not both")
    if path is not None:
        path = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    return source, None


def _value(v):
    return str(int(v)) if isinstance(v, bool) else str(v)


def kernel(source=None, name=None, *, path=None, params=None, flags=(), argtypes=None,
           include_dirs=None, engine=None):
    """A plain kernel: one variant, called as k(grid, block, *args, stream=None,
    shared_mem=0).

    source or path: CUDA C++ text or a file; name: the entry point
    ("saxpy", or a name expression "scale<float>"). params: tuning parameters and
    their values, passed as -DNAME=value (and part of the kernel's signature).
    flags: extra NVRTC options. argtypes: the parameter types ("float *",
    "int32", numpy dtypes), read from the source when not given.
    """
    if name is None:
        raise TypeError("kernel(): name (the entry point) is required")
    text, file = _src(source, path)
    params = dict(params or {})
    kinds, names = _types.signature(text, name, argtypes)
    defines = tuple((str(k), _value(v)) for k, v in params.items())
    return Kernel._plain(engine or default_engine(), name, None if file else text, file,
                         defines, tuple(str(f) for f in flags),
                         None if include_dirs is None else tuple(map(os.fspath, include_dirs)),
                         kinds, names)


_ROLE = {"block_x": 0x1, "block_y": 0x2, "block_z": 0x4}


def tunable(source=None, name=None, *, path=None, params, block=(), grid=("1",),
            problem=("n",), restrictions=(), shared=None, flags=(), defaults=None,
            flag_params=(), argtypes=None, include_dirs=None, engine=None):
    """A tunable kernel, called as k(problem, *args, stream=None): each launch
    runs the best variant the store knows for this GPU and problem (the nearest
    tuned problem otherwise, else the default configuration), exactly as the C
    library's kjit_launch() with the same store.

    params: {name: [values]} (each a -D define; those named in flag_params are
    NVRTC flags instead). block: up to three parameter names giving the block's
    x, y, z. grid: up to three expressions over the parameters and the problem
    sizes ("(n + BLOCK - 1) / BLOCK"). problem: the problem size names.
    restrictions: expressions that must hold. shared: dynamic shared memory in
    bytes (an expression). defaults: {name: value} of the default
    configuration (else each list's first). The signature is the one kjit-tune
    gives the same kernel, so results tuned by kjit-tune or C are found.
    """
    if name is None:
        raise TypeError("tunable(): name (the entry point) is required")
    text, file = _src(source, path)
    defaults = defaults or {}
    block = (block,) if isinstance(block, str) else tuple(block)
    grid = (grid,) if isinstance(grid, str) else tuple(grid)
    problem = (problem,) if isinstance(problem, str) else tuple(problem)
    if not isinstance(params, dict):
        raise TypeError("tunable(): params is {name: [values]}, not %s" % type(params).__name__)
    if len(block) > 3:
        raise ValueError("tunable(): block names at most three parameters (x, y, z), got %d"
                         % len(block))
    unknown = [k for k in defaults if k not in params]
    if unknown:
        raise ValueError("defaults names %s, which params does not have" % unknown)
    plist = []
    for pname, values in params.items():
        values = [_value(v) for v in values]
        if not values:
            raise ValueError("params[%r]: no values" % (pname,))
        roles = 0x10 if pname in flag_params else 0x8
        for axis, bname in zip(("block_x", "block_y", "block_z"), block):
            if bname == pname:
                roles |= _ROLE[axis]
        d = _value(defaults[pname]) if pname in defaults else values[0]
        if d not in values:
            raise ValueError("defaults[%r]=%r is not one of its values" % (pname, d))
        plist.append((pname, values, values.index(d), roles))
    unknown = [b for b in block if b not in params]
    if unknown:
        raise ValueError("block names %s, which params does not have" % unknown)
    kinds, names = _types.signature(text, name, argtypes)
    desc = (name, None if file else text, file, plist, tuple(restrictions),
            tuple(str(g) for g in grid), None if shared is None else str(shared),
            tuple(flags), problem)
    return Kernel._tunable(engine or default_engine(), desc,
                           None if include_dirs is None else tuple(map(os.fspath, include_dirs)),
                           kinds, names)


def from_spec(path, *, argtypes=None, engine=None):
    """A tunable kernel from a kjit-tune spec file (kjit or Kernel Tuner T1
    format): the same signature, so what kjit-tune measured is used."""
    import json
    path = os.fspath(path)
    name = text = None
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        ks = spec.get("KernelSpecification") or spec.get("kernel") or {}
        name = ks.get("KernelName") or ks.get("entry")
        file = ks.get("KernelFile") or ks.get("source")
        if name and file:
            with open(os.path.join(os.path.dirname(path), file), encoding="utf-8") as f:
                text = f.read()
    except (OSError, ValueError, AttributeError):
        pass  # the C reader says what is wrong with the spec
    # argtypes apply, and are checked, whether the source could be read or not
    kinds, names = _types.signature(text, name, argtypes)
    return Kernel._spec(engine or default_engine(), path, kinds, names)


def __getattr__(name):
    # tuning and kernel_tuner load on first use, so that import kjit stays light
    if name in ("tune", "results"):
        from . import tuning
        return getattr(tuning, name)
    if name in ("tuning", "kernel_tuner"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'kjit' has no attribute %r" % name)


from . import _types  # noqa: E402  (needs _kjit only)
