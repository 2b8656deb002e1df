"""GPU tests of the kjit Python package: arrays of CuPy, PyTorch, JAX,
numba-cuda and cuda.core passed without a copy (the launch's address is the
array's own), strided views refused, stream ordering with no synchronisation added, PyTorch
CUDA graph capture, a Kernel Tuner script in the community's style, and the
store shared by kjit-tune (C) and Python. A framework that is not installed
skips its tests. Run by tests/run-gpu-tests (tests/test-gpu-python.sh); by hand:

    PYTHONPATH=<folder holding kjit/> KJIT_SRCDIR=<source tree> python3 tests/python/test_gpu.py
"""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX beside the others

import numpy as np

import kjit

SRC = os.environ.get("KJIT_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
N = 100000
SCALE = r'''
extern "C" __global__ void scale(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
'''
GRID, BLOCK = (N + 255) // 256, 256


def _import(name):
    try:
        return __import__(name, fromlist=["_"])
    except Exception:  # not installed, or no GPU build of it
        return None


torch, cupy, jnp, numba_cuda = (_import("torch"), _import("cupy"), _import("jax.numpy"),
                                _import("numba.cuda"))


def setUpModule():
    if not kjit.default_engine().has_gpu:
        raise unittest.SkipTest("no GPU: " + kjit.default_engine().gpu_reason)


@contextlib.contextmanager
def engines_made():
    """The list of the kjit.Engine objects made inside (kernel_tuner makes
    its own), to read their counts after."""
    made, make = [], kjit.Engine
    kjit.Engine = lambda *args, **kw: made.append(make(*args, **kw)) or made[-1]
    try:
        yield made
    finally:
        kjit.Engine = make


def sync():
    kjit.default_engine().synchronize()


class Device(unittest.TestCase):
    def test_device(self):
        e = kjit.default_engine()
        d = e.device
        self.assertEqual((d["name"], d["arch"]), (e.device_name, e.arch))
        self.assertRegex(d["uuid"], r"^GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$")
        self.assertTrue(d["key"].startswith(e.arch + "|" + e.device_name + "|"))
        self.assertGreaterEqual(d["count"], d["ordinal"] + 1)
        self.assertGreaterEqual(d["max_shared_per_block"], 48 * 1024)
        if torch is not None and torch.cuda.is_available():
            p = torch.cuda.get_device_properties(d["ordinal"])
            self.assertEqual(d["multiprocessors"], p.multi_processor_count)
            self.assertEqual(d["uuid"], "GPU-" + str(p.uuid))


class Frameworks(unittest.TestCase):
    def run_scale(self, x, y, own_x, own_y, host_y):
        k = kjit.kernel(SCALE, "scale")
        (px, py), _ = kjit.pointers(x, y)
        self.assertEqual((px, py), (own_x, own_y), "kjit passes the arrays' own addresses")
        k(GRID, BLOCK, y, x, 2.0, N)
        sync()
        np.testing.assert_allclose(host_y(), 2 * np.arange(N, dtype=np.float32))

    @unittest.skipUnless(torch is not None and torch.cuda.is_available(), "no PyTorch CUDA")
    def test_torch(self):
        x = torch.arange(N, dtype=torch.float32, device="cuda")
        y = torch.zeros_like(x)
        self.run_scale(x, y, x.data_ptr(), y.data_ptr(), lambda: y.cpu().numpy())
        (p,), _ = kjit.pointers(x[10:])
        self.assertEqual(p, x.data_ptr() + 40)
        for bad in (x[::2], x.view(100, 1000).t()):
            with self.assertRaises(kjit.ArgumentError) as cm:
                kjit.pointers(bad)
            self.assertIn("not contiguous", str(cm.exception))
        with self.assertRaises(kjit.ArgumentError):
            kjit.pointers(torch.zeros(4))  # a CPU tensor

    @unittest.skipUnless(cupy is not None, "no CuPy")
    def test_cupy(self):
        x = cupy.arange(N, dtype=cupy.float32)
        y = cupy.zeros_like(x)
        self.run_scale(x, y, x.data.ptr, y.data.ptr, lambda: cupy.asnumpy(y))
        with self.assertRaises(kjit.ArgumentError):
            kjit.pointers(x[::3])

    @unittest.skipUnless(jnp is not None, "no JAX")
    def test_jax(self):
        import jax
        if jax.default_backend() != "gpu":
            self.skipTest("JAX has no GPU backend")
        x = jnp.arange(N, dtype=jnp.float32).block_until_ready()
        y = jnp.zeros(N, dtype=jnp.float32).block_until_ready()
        self.run_scale(x, y, x.unsafe_buffer_pointer(), y.unsafe_buffer_pointer(),
                       lambda: np.asarray(y))

    @unittest.skipUnless(numba_cuda is not None, "no numba-cuda")
    def test_numba(self):
        x = numba_cuda.to_device(np.arange(N, dtype=np.float32))
        y = numba_cuda.device_array(N, dtype=np.float32)
        self.run_scale(x, y, x.device_ctypes_pointer.value, y.device_ctypes_pointer.value,
                       y.copy_to_host)
        with self.assertRaises(kjit.ArgumentError):
            kjit.pointers(x[::2])

    def test_cuda_core_buffers(self):
        """cuda.core's Buffer: the address is its handle (no capsule made);
        one over host memory the driver does not know is refused."""
        try:
            try:
                from cuda.core import Device
            except ImportError:
                from cuda.core.experimental import Device
            dev = Device(0)
            dev.set_current()
            stream = dev.create_stream()
            bx, by = dev.allocate(4 * N, stream=stream), dev.allocate(4 * N, stream=stream)
            stream.sync()  # stream-ordered allocations, used from other streams
        except Exception as ex:  # not installed, or an API of another version
            self.skipTest("cuda.core: %s" % ex)
        (px, py), handle = kjit.pointers(bx, by, stream=stream)
        self.assertEqual((px, py), (int(bx.handle), int(by.handle)))
        self.assertEqual(handle, int(stream.handle))
        e = kjit.default_engine()
        e.htod(px, np.arange(N, dtype=np.float32).tobytes())
        k = kjit.kernel(SCALE, "scale")
        k(GRID, BLOCK, by, bx, 2.0, N, stream=stream)
        stream.sync()
        got = np.frombuffer(e.dtoh(py, 4 * N), dtype=np.float32)
        np.testing.assert_allclose(got, 2 * np.arange(N, dtype=np.float32))
        # a buffer over host memory the driver does not know is refused
        host = np.zeros(N, dtype=np.float32)
        try:
            Buffer = type(bx)
            hb = Buffer.from_handle(host.ctypes.data, host.nbytes, owner=host)
        except Exception as ex:  # an API of another version
            self.skipTest("cuda.core Buffer.from_handle: %s" % ex)
        with self.assertRaises(kjit.ArgumentError) as cm:
            kjit.pointers(hb)
        self.assertIn("host memory", str(cm.exception))


@unittest.skipUnless(torch is not None and torch.cuda.is_available(), "no PyTorch CUDA")
class TorchStreams(unittest.TestCase):
    def test_ordering_on_the_current_stream(self):
        """torch op -> kjit -> torch op on a non-blocking stream, no sync
        between: kjit must launch on torch's current stream."""
        k = kjit.kernel(SCALE, "scale")
        s = torch.cuda.Stream()
        x = torch.ones(N, device="cuda")
        k(GRID, BLOCK, torch.empty_like(x), x, 1.0, N)  # loaded before timing matters
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(50_000_000)  # the op before kjit runs long
            b = x * 3
            self.assertEqual(kjit.pointers(b)[1], s.cuda_stream)  # torch's current stream
            y = torch.empty_like(b)
            k(GRID, BLOCK, y, b, 2.0, N)
            c = y + 1
        s.synchronize()
        self.assertTrue(torch.all(c == 7).item())

    def test_explicit_stream(self):
        k = kjit.kernel(SCALE, "scale")
        s = torch.cuda.Stream()
        x = torch.ones(N, device="cuda")
        y = torch.zeros_like(x)
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(50_000_000)
            x.mul_(5)
        k(GRID, BLOCK, y, x, 2.0, N, stream=s)  # ordered after the sleep on s
        s.synchronize()
        self.assertTrue(torch.all(y == 10).item())
        _, handle = kjit.pointers(stream=s)
        self.assertEqual(handle, s.cuda_stream)

    def test_graph_capture(self):
        k = kjit.kernel(SCALE, "scale")
        t = kjit.tunable(SCALE, "scale", params={"B": [128, 256]}, block=("B",),
                         grid=("(n + B - 1) / B",), problem=("n",))
        x = torch.ones(N, device="cuda")
        y = torch.zeros_like(x)
        z = torch.zeros_like(x)
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):  # load the variants before capture
            k(GRID, BLOCK, y, x, 2.0, N)
            t(N, z, y, 3.0, N)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            k(GRID, BLOCK, y, x, 2.0, N)
            t(N, z, y, 3.0, N)
        x.fill_(4.0)
        g.replay()
        torch.cuda.synchronize()
        self.assertTrue(torch.all(z == 24).item())


@unittest.skipUnless(cupy is not None, "no CuPy")
class CupyStreams(unittest.TestCase):
    def test_ordering_on_the_current_stream(self):
        k = kjit.kernel(SCALE, "scale")
        x = cupy.ones(N, dtype=cupy.float32)
        k(GRID, BLOCK, cupy.empty_like(x), x, 1.0, N)
        cupy.cuda.runtime.deviceSynchronize()
        with cupy.cuda.Stream(non_blocking=True) as s:
            self.assertEqual(kjit.pointers(x)[1], s.ptr)  # CuPy's current stream
            b = x * 3
            for _ in range(20):  # a long tail of work before kjit's launch
                b = b * 1
            y = cupy.empty_like(b)
            k(GRID, BLOCK, y, b, 2.0, N)
            c = y + 1
        s.synchronize()
        self.assertTrue(bool(cupy.all(c == 7)))


class ArgumentCheck(unittest.TestCase):
    def test_table_of_the_c_api(self):
        """argtypes that disagree with the kernel: the C check's table is the
        message."""
        k = kjit.kernel(SCALE, "scale", argtypes=["float *", "float *", "double", "int32"])
        with self.assertRaises(kjit.ArgumentError) as cm:
            k(1, 32, None, None, 2.0, 4)
        msg = str(cm.exception)
        self.assertIn("do not match", msg)
        self.assertIn("sizes differ", msg)


class Store(unittest.TestCase):
    """C (kjit-tune) tunes, Python selects; Python tunes (kjit.tune), C's
    export reads it."""

    def test_round_trip(self):
        with open(os.path.join(SRC, "examples", "saxpy", "saxpy.json"), encoding="utf-8") as f:
            spec = json.load(f)
        with open(os.path.join(SRC, "examples", "saxpy", "saxpy.cu"), encoding="utf-8") as f:
            text = f.read()
        spec["problems"] = [{"n": 1 << 20}]
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o700)
            db = os.path.join(d, "kjit.db")
            spec_path = os.path.join(d, "saxpy.json")
            with open(spec_path, "w", encoding="utf-8") as f:
                json.dump(spec, f)
            with open(os.path.join(d, "saxpy.cu"), "w", encoding="utf-8") as f:
                f.write(text)
            r = kjit.tune(spec_path, db=db, budget=8, quiet=True)  # kjit-tune, the C side
            best = r.best[0]
            self.assertIsNotNone(best)
            self.assertFalse(r.interrupted)
            e = kjit.Engine(db_path=db)
            for k in (kjit.from_spec(spec_path, engine=e),
                      kjit.tunable(text, "saxpy",
                                   params={"BLOCK_SIZE": [64, 128, 256, 512, 1024],
                                           "ITEMS_PER_THREAD": list(range(1, 9))},
                                   block=("BLOCK_SIZE",),
                                   grid=("(n + BLOCK_SIZE * ITEMS_PER_THREAD - 1) / "
                                         "(BLOCK_SIZE * ITEMS_PER_THREAD)",),
                                   problem=("n",), defaults={"BLOCK_SIZE": 256}, engine=e)):
                x = k.explain(1 << 20)
                self.assertEqual(x["rule"], "exact")
                self.assertEqual(json.loads(x["config"]), best["config"])
                self.assertEqual(json.loads(k.explain(1 << 21)["config"]), best["config"])
            # the Python kernel launches the tuned variant on a framework's arrays
            if torch is not None and torch.cuda.is_available():
                n = 1 << 20
                xs = torch.ones(n, device="cuda")
                ys = torch.ones(n, device="cuda")
                k(n, np.int64(n), np.float32(2.5), xs, ys)
                torch.cuda.synchronize()
                self.assertTrue(torch.all(ys == 3.5).item())
            self.assertTrue(kjit.results(spec_path, db=db))


    def test_ctrl_c_keeps_what_was_measured(self):
        """Ctrl-C in a terminal (SIGINT to the process group) during
        kjit.tune(): the call returns kjit-tune's summary, interrupted, and
        the store keeps what was measured."""
        import signal
        import time
        spec = os.path.join(SRC, "examples", "sgemm", "sgemm.json")
        code = ("import json, sys, kjit\n"
                "r = kjit.tune(sys.argv[1], db=sys.argv[2], quiet=True)\n"
                "print(json.dumps({'interrupted': r.interrupted, 'best': r.best}))\n")
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "kjit.db")
            p = subprocess.Popen([sys.executable, "-c", code, spec, db],
                                 stdout=subprocess.PIPE, start_new_session=True)
            time.sleep(20)
            self.assertIsNone(p.poll(), "the 1394-configuration space took under 20 s")
            os.killpg(p.pid, signal.SIGINT)
            out, _ = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0)
            r = json.loads(out.decode().strip().splitlines()[-1])
            self.assertTrue(r["interrupted"])
            self.assertIsNotNone(r["best"][0])
            self.assertTrue(kjit.results(spec, db=db))


class KernelTunerScript(unittest.TestCase):
    """Kernel Tuner's vector_add example, with only the import changed."""

    def test_vector_add(self):
        from kjit.kernel_tuner import run_kernel, tune_kernel
        kernel_string = """
        __global__ void vector_add(float *c, float *a, float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            if (i<n) {
                c[i] = a[i] + b[i];
            }
        }
        """
        size = 10000000
        a = np.random.randn(size).astype(np.float32)
        b = np.random.randn(size).astype(np.float32)
        c = np.zeros_like(b)
        n = np.int32(size)
        args = [c, a, b, n]
        tune_params = {"block_size_x": [32, 64, 128, 256, 512, 1024]}
        answer = [a + b, None, None, None]
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "vector_add.json")
            results, env = tune_kernel("vector_add", kernel_string, size, args, tune_params,
                                       answer=answer, cache=cache, quiet=True)
            self.assertEqual(len(results), 6)
            for r in results:
                self.assertIsInstance(r["time"], float)
                self.assertEqual(len(r["times"]), 7)
            self.assertTrue(env["device_name"])
            with open(cache, encoding="utf-8") as f:
                self.assertEqual(len(json.load(f)["cache"]), 6)
            again, _ = tune_kernel("vector_add", kernel_string, size, args, tune_params,
                                   answer=answer, cache=cache, quiet=True)
            self.assertEqual([r["time"] for r in again], [r["time"] for r in results])
        out = run_kernel("vector_add", kernel_string, size, args, {"block_size_x": 128})
        np.testing.assert_allclose(out[0], a + b, rtol=1e-6)
        class NVMLObserver:  # Kernel Tuner's attributes; kjit measures, not the observer
            observables = ["temperature", "core_freq", "mem_freq"]
            continuous_observer = type("C", (), {"observables": ["nvml_energy",
                                                                 "nvml_power"]})()
        energy, env = tune_kernel("vector_add", kernel_string, size, args,
                                  {"block_size_x": [128, 256]}, observers=[NVMLObserver()],
                                  objective="nvml_energy", objective_higher_is_better=False,
                                  quiet=True)
        for r in energy:
            self.assertGreater(r["nvml_energy"], 0)
            self.assertGreater(r["nvml_power"], 0)
            self.assertTrue(0 < r["temperature"] < 120, r)
            self.assertGreater(r["core_freq"], 0)
            self.assertGreater(r["mem_freq"], 0)
        json.dumps(energy)
        self.assertEqual(env["best_config"]["nvml_energy"], min(r["nvml_energy"] for r in energy))
        restricted, _ = tune_kernel("vector_add", kernel_string, size, args, tune_params,
                                    restrictions=["block_size_x >= 256"], quiet=True,
                                    strategy="random_sample",
                                    strategy_options={"max_fevals": 2}, seed=1)
        self.assertEqual(len(restricted), 2)
        self.assertTrue(all(r["block_size_x"] >= 256 for r in restricted))

    def test_a_kernel_that_breaks_the_context(self):
        """A configuration whose kernel writes to an illegal address makes
        every later CUDA call of the process fail: tuning stops there with an
        error naming it (not every later configuration recorded as failed),
        the cache keeps what was measured and that configuration as
        RuntimeFailedConfig, and a run with the cache (a new process) goes
        on past it. The env is JSON, as scripts dump it."""
        script = r'''
import json, sys
import numpy as np
import kjit
from kjit.kernel_tuner import tune_kernel
src = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (block_size_x == 64) c = (float *)8;  // %s
    if (i < n) c[i] = a[i] + b[i];
}"""
size = np.int32(1 << 20)
a = np.ones(size, dtype=np.float32)
try:
    results, env = tune_kernel("vector_add", src, (size, 1), [np.zeros_like(a), a, a, size],
                               {"block_size_x": [32, 64, 128, 256]}, cache=sys.argv[1],
                               quiet=True)
except kjit.Error as e:
    print(json.dumps({"error": str(e)}))
else:
    print(json.dumps({"times": [r.get("time", r.get("__error__")) for r in results],
                      "env": env}))
''' % os.urandom(8).hex()
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "cache.json")
            runs = [json.loads(subprocess.run([sys.executable, "-c", script, cache], check=True,
                                              stdout=subprocess.PIPE, timeout=300
                                              ).stdout.decode().splitlines()[-1])
                    for _ in range(2)]
            self.assertIn("error", runs[0], runs[0])
            self.assertIn("'block_size_x': 64", runs[0]["error"])
            self.assertIn("CUDA_ERROR_", runs[0]["error"])
            self.assertIn("tuning stops here", runs[0]["error"])
            self.assertNotIn("error", runs[1], runs[1])
            times = runs[1]["times"]
            self.assertEqual(times[1], "RuntimeFailedConfig")
            with open(cache, encoding="utf-8") as f:
                self.assertEqual([isinstance(t, float) for t in times], [True, False, True, True],
                                 (times, f.read()))
            self.assertEqual(runs[1]["env"]["problem_size"], [1 << 20, 1])
        from kjit.kernel_tuner import run_kernel
        with self.assertRaisesRegex(kjit.CompileError, "'nonexistent' not found"):
            run_kernel("nonexistent", SCALE, N, [np.zeros(N, np.float32)] * 2 +
                       [np.float32(1), np.int32(N)], {"block_size_x": 256})

    def test_writes_past_the_end(self):
        """A kernel without a bounds check whose blocks do not divide the
        problem, as Kernel Tuner's convolution example: its writes past the
        output's end land in kjit's slack, are warned of once, and the run
        goes on."""
        from kjit.kernel_tuner import tune_kernel
        src = """
        __global__ void vector_add(float *c, float *a, float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            c[i] = a[i] + b[i];  // %s
        }""" % os.urandom(8).hex()
        size = (1 << 20) + 1
        a = np.random.randn(size).astype(np.float32)
        with self.assertWarnsRegex(UserWarning, "wrote past the end of argument 0") as cm:
            results, _ = tune_kernel("vector_add", src, size,
                                     [np.zeros_like(a), a, a, np.int32(size)],
                                     {"block_size_x": [128, 256, 2048]},
                                     answer=[a + a, None, None, None], quiet=True)
        # more threads than a block takes: out of the space, as Kernel Tuner's
        self.assertEqual([r["block_size_x"] for r in results], [128, 256])
        self.assertEqual([isinstance(r.get("time"), float) for r in results], [True, True])
        self.assertEqual(sum("wrote past the end" in str(w.message) for w in cm.warnings), 1)

    def test_compile_failures(self):
        """brute_force's results come in the space's order, measured as they
        compile; a configuration that fails to compile in a compile process
        is reported from its error there, not compiled again."""
        from kjit.kernel_tuner import tune_kernel
        src = """
        // %s: a fresh binary key
        #if block_size_x > 256
        #error too many threads for this kernel
        #endif
        __global__ void vector_add(float *c, float *a, float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            if (i < n) c[i] = a[i] + b[i];
        }""" % os.urandom(8).hex()
        size = 1 << 20
        a = np.random.randn(size).astype(np.float32)
        b = np.random.randn(size).astype(np.float32)
        sizes = [32, 64, 128, 256, 512, 1024]
        with engines_made() as engines:  # the tuning process's own, to count its compiles
            results, _ = tune_kernel("vector_add", src, size,
                                     [np.zeros_like(a), a, b, np.int32(size)],
                                     {"block_size_x": sizes}, answer=[a + b, None, None, None],
                                     quiet=True)
        self.assertEqual([r["block_size_x"] for r in results], sizes)
        self.assertEqual([isinstance(r.get("time"), float) for r in results],
                         [True] * 4 + [False] * 2,
                         [(r["block_size_x"], r.get("time", r.get("__error__"))) for r in results])
        # as Kernel Tuner 1.5.0 marks them: no time, an __error__
        self.assertEqual({type(r["__error__"]).__name__ for r in results[4:]},
                         {"CompilationFailedConfig"})
        # the measuring engine compiled nothing (it loads from the store);
        # this process's compile-only engine compiled the first two on its
        # threads, the compile processes the rest, the two that fail included
        self.assertEqual([e.stats()["compiles"] for e in engines], [0, 2])
        self.assertEqual([e.has_gpu for e in engines], [True, False])

    def test_generations_side_by_side(self):
        """The genetic algorithm's generation is compiled side by side: this
        process's threads compile the first two of each, compile processes
        the rest, and the measuring engine loads them."""
        from kjit.kernel_tuner import tune_kernel
        src = """
        // %s: a fresh binary key
        __global__ void vector_add(float *c, float *a, float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            if (i < n) c[i] = a[i] + b[i] * (float)spare;
        }""" % os.urandom(8).hex()
        size = 1 << 20
        a = np.random.randn(size).astype(np.float32)
        b = np.random.randn(size).astype(np.float32)
        params = {"block_size_x": [32, 64, 128, 256, 512, 1024], "spare": [1, 2, 3, 4]}
        with engines_made() as engines:
            results, env = tune_kernel("vector_add", src, size,
                                       [np.zeros_like(a), a, b, np.int32(size)], params,
                                       quiet=True, seed=3,
                                       strategy="genetic_algorithm",
                                       strategy_options={"max_fevals": 16, "popsize": 8})
        self.assertEqual(len(results), 16)
        self.assertEqual(len({(r["block_size_x"], r["spare"]) for r in results}), 16)
        self.assertTrue(all(isinstance(r["time"], float) for r in results))
        self.assertEqual(env["best_config"]["time"], min(r["time"] for r in results))
        # the measuring engine loads from the store; of this process's
        # compile-only engine, the first generation's 8 alone leave 6 to
        # the compile processes
        self.assertEqual(engines[0].stats()["compiles"], 0)
        self.assertLessEqual(engines[1].stats()["compiles"], len(results) - 6)

    def test_strategies(self):
        """Kernel Tuner's strategies run kjit-tune's: max_fevals distinct valid
        configurations, each verified and timed; the same seed and a cache
        answer a second run; a higher-is-better metric; time_limit."""
        from kjit.kernel_tuner import tune_kernel
        src = """
        __global__ void vector_add(float *c, float *a, float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            if (i < n) c[i] = a[i] + b[i];
        }"""
        size = 1 << 22
        a = np.random.randn(size).astype(np.float32)
        b = np.random.randn(size).astype(np.float32)
        args = [np.zeros_like(a), a, b, np.int32(size)]
        params = {"block_size_x": [32, 64, 128, 256, 512, 1024], "spare": [1, 2, 3]}
        kw = dict(answer=[a + b, None, None, None], quiet=True, seed=2,
                  restrictions=["block_size_x * spare <= 1024"])
        for strategy in ("simulated_annealing", "genetic_algorithm", "pso", "dual_annealing",
                         "bayes_opt", "skopt", "hybrid"):
            results, env = tune_kernel("vector_add", src, size, args, params, strategy=strategy,
                                       strategy_options={"max_fevals": 5}, **kw)
            self.assertEqual(len(results), 5, strategy)
            keys = {(r["block_size_x"], r["spare"]) for r in results}
            self.assertEqual(len(keys), 5, strategy)
            self.assertTrue(all(x * y <= 1024 for x, y in keys), strategy)
            self.assertTrue(all(isinstance(r["time"], float) for r in results), strategy)
            self.assertEqual(env["strategy"], strategy)
            self.assertEqual(env["best_config"]["time"], min(r["time"] for r in results))
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "va.json")
            first, _ = tune_kernel("vector_add", src, size, args, params, strategy="pso",
                                   strategy_options={"max_fevals": 6}, cache=cache, **kw)
            again, _ = tune_kernel("vector_add", src, size, args, params, strategy="pso",
                                   strategy_options={"max_fevals": 6}, cache=cache, **kw)
            self.assertEqual([r["time"] for r in again], [r["time"] for r in first])
        gbs = {"GB/s": lambda p: 12 * size / (p["time"] / 1e3) / 1e9}
        results, env = tune_kernel("vector_add", src, size, args, params, strategy="bayes_opt",
                                   strategy_options={"max_fevals": 6}, metrics=gbs,
                                   objective="GB/s", objective_higher_is_better=True, **kw)
        self.assertEqual(env["best_config"]["GB/s"], max(r["GB/s"] for r in results))
        results, _ = tune_kernel("vector_add", src, size, args, params,
                                 strategy="genetic_algorithm",
                                 strategy_options={"time_limit": 1e-9}, **kw)
        self.assertEqual(results, [])
        # the options kjit's strategy has: 3 generations of 4 (2 elites kept)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            results, _ = tune_kernel("vector_add", src, size, args, params,
                                     strategy="genetic_algorithm",
                                     strategy_options={"popsize": 4, "maxiter": 3,
                                                       "method": "two_point"}, **kw)
        self.assertTrue(4 < len(results) <= 8, len(results))

    def test_verification(self):
        """The outputs are compared while the GPU measures: a wrong answer still
        stops the run, and verify= gets arrays of its own."""
        from kjit.kernel_tuner import tune_kernel
        src = """
        __global__ void vector_add(float *c, float *a, float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            if (i < n) c[i] = a[i] + b[i];
        }"""
        size = 1 << 20
        a = np.random.randn(size).astype(np.float32)
        b = np.random.randn(size).astype(np.float32)
        args = [np.zeros_like(a), a, b, np.int32(size)]
        params = {"block_size_x": [128, 256]}
        seen = []

        def verify(answer, results, atol=None):
            results[0] += 0  # its own array, writable
            seen.append(results[0].flags.writeable)
            return np.allclose(results[0], answer[0], atol=atol)
        results, _ = tune_kernel("vector_add", src, size, args, params,
                                 answer=[a + b, None, None, None], verify=verify, quiet=True)
        self.assertEqual(seen, [True, True])
        self.assertEqual(len(results), 2)
        with self.assertRaises(kjit.Error) as cm:
            tune_kernel("vector_add", src, size, args, params,
                        answer=[a - b, None, None, None], quiet=True)
        self.assertIn("differs from answer", str(cm.exception))


if __name__ == "__main__":
    if not kjit.default_engine().has_gpu:
        print("SKIP: no GPU:", kjit.default_engine().gpu_reason)
        sys.exit(77)
    unittest.main(verbosity=2)
