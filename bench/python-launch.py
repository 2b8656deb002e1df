#!/usr/bin/env python3
"""python-launch: what a launch from Python costs, against the C floor, in one process.

Per call, host side, of a near-empty kernel on 1-element arrays (2 arrays and a
scalar), launched in batches of BATCH with a synchronisation between batches
(only the launches are timed):
  c        kjit_launch() in a C loop, arguments converted once (the floor)
  kjit     kernel(problem, y, x, n) from Python, arguments of several kinds:
           raw addresses, PyTorch tensors, CuPy arrays, cuda.core buffers (DLPack)
  cuda.core  cuda.core's launch() of the same kernel, compiled by cuda.core
  accessors  (info) what kjit asks of PyTorch's tensors and CuPy's arrays per
           launch (device, contiguity, address of both arrays, the current
           stream), asked from a Python loop with no launch: the part of a
           launch the framework's own calls set
and, in fresh processes with a warm store: import kjit, opening the engine
(cuInit and the primary context), and creating plus first launch of the tuned
kernel (no NVRTC compile: the engine's compile count is printed).

    PYTHONPATH=<folder holding kjit/> python3 bench/python-launch.py [--calls N]

Every row is measured in each of ROUNDS rounds, in turn; a row's figure is
its median over the rounds, its ratio the median of its ratios to the C floor
of the same round (a machine whose launch rate drifts moves both alike).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SRC = r'''
extern "C" __global__ void touch(float *y, const float *x, int n)
{
    if (n < 0) y[0] = x[0];  /* never: the launch is what is measured */
}
'''
BATCH = 500
ROUNDS = 7


def per_call(fn, calls, sync):
    """Median over batches of the seconds per call of fn(), launches only."""
    fn()
    sync()
    rates = []
    done = 0
    while done < calls:
        t0 = time.perf_counter()
        for _ in range(BATCH):
            fn()
        rates.append((time.perf_counter() - t0) / BATCH)
        sync()
        done += BATCH
    return statistics.median(rates)


def c_per_call(k, calls, sync, *args, **kw):
    k._c_launches(1, *args, **kw)
    sync()
    rates = []
    for _ in range(max(1, calls // BATCH)):
        rates.append(k._c_launches(BATCH, *args, **kw) / BATCH)
        sync()
    return statistics.median(rates)


def noop():
    pass


def tunable(kjit):
    return kjit.tunable(SRC, "touch", params={"B": [32, 64, 128]}, block=("B",),
                        grid=("1",), problem=("n",))


def rows_in_process():
    """(label, measure(calls) -> seconds per call), the C floor first."""
    import kjit
    e = kjit.default_engine()
    k = tunable(kjit)
    px, py = e.alloc(4), e.alloc(4)
    rows = [("c kjit_launch (raw addresses)",
             lambda n: c_per_call(k, n, e.synchronize, 1, py, px, 1)),
            ("kjit (raw addresses)", lambda n: per_call(lambda: k(1, py, px, 1), n,
                                                        e.synchronize))]
    try:
        import torch
        x = torch.zeros(1, device="cuda")
        y = torch.zeros(1, device="cuda")
        s = torch.cuda.current_stream()
        rows.append(("kjit (torch tensors, current stream)",
                     lambda n: per_call(lambda: k(1, y, x, 1), n, torch.cuda.synchronize)))
        rows.append(("kjit (torch tensors, stream=)",
                     lambda n: per_call(lambda: k(1, y, x, 1, stream=s), n,
                                        torch.cuda.synchronize)))
        raw = torch._C._cuda_getCurrentRawStream

        def torch_accessors():
            y.get_device(), y.is_contiguous(), y.data_ptr()
            x.get_device(), x.is_contiguous(), x.data_ptr()
            raw(0)
        rows.append(("  info: torch's accessors alone", lambda n: per_call(torch_accessors, n, noop)))
    except Exception as ex:  # no PyTorch or no CUDA build of it
        print("torch: skipped (%s)" % ex, file=sys.stderr)
    try:
        import cupy
        cx = cupy.zeros(1, dtype=cupy.float32)
        cy = cupy.zeros(1, dtype=cupy.float32)
        rows.append(("kjit (cupy arrays)",
                     lambda n: per_call(lambda: k(1, cy, cx, 1), n,
                                        cupy.cuda.runtime.deviceSynchronize)))
        current = cupy.cuda.get_current_stream

        def cupy_accessors():
            for a in (cy, cx):
                if a._c_contiguous and a.size:
                    d = a.data
                    d.device_id, d.ptr
            current().ptr
        rows.append(("  info: cupy's accessors alone", lambda n: per_call(cupy_accessors, n, noop)))
    except Exception as ex:
        print("cupy: skipped (%s)" % ex, file=sys.stderr)
    rows += cuda_core_rows(k)
    return rows


def cuda_core_rows(k):
    try:
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except ImportError:
            from cuda.core.experimental import (Device, LaunchConfig, Program, ProgramOptions,
                                                launch)
        import numpy as np
        dev = Device(0)
        dev.set_current()
        stream = dev.create_stream()
        prog = Program(SRC, code_type="c++",
                       options=ProgramOptions(arch="sm_%s" % dev.arch))
        ker = prog.compile("cubin").get_kernel("touch")
        bx, by = dev.allocate(4, stream=stream), dev.allocate(4, stream=stream)
        cfg = LaunchConfig(grid=1, block=32)
        n = np.int32(1)
        py, px = int(by.handle), int(bx.handle)
    except Exception as ex:
        print("cuda.core: skipped (%s)" % ex, file=sys.stderr)
        return []
    try:
        k(1, by, bx, 1, stream=stream)
        buffers = True
    except Exception as ex:
        print("kjit with cuda.core buffers: skipped (%s)" % ex, file=sys.stderr)
        buffers = False
    rows = [("c kjit_launch (cuda.core's stream)",
             lambda c: c_per_call(k, c, stream.sync, 1, py, px, 1, stream=stream)),
            ("kjit (raw addresses, cuda.core's stream)",
             lambda c: per_call(lambda: k(1, py, px, 1, stream=stream), c, stream.sync)),
            ("cuda.core launch (buffers)",
             lambda c: per_call(lambda: launch(stream, cfg, ker, by, bx, n), c, stream.sync))]
    if buffers:
        rows.append(("kjit (cuda.core buffers, DLPack)",
                     lambda c: per_call(lambda: k(1, by, bx, 1, stream=stream), c,
                                        stream.sync)))
    return rows


def measure(rows, calls):
    """Every row in each of ROUNDS rounds, in turn, so that a drift of the machine
    falls on all of them: per row, the median seconds per call and the median of
    its ratios to the C floor of the same round."""
    per_round = [[m(max(BATCH, calls // ROUNDS)) for _, m in rows] for _ in range(ROUNDS)]
    return [(name, statistics.median(r[i] for r in per_round),
             statistics.median(r[i] / r[0] for r in per_round))
            for i, (name, _) in enumerate(rows)]


FRESH = r'''
import json, time
t0 = time.perf_counter()
import kjit
t1 = time.perf_counter()
e = kjit.default_engine()
t2 = time.perf_counter()
k = kjit.tunable(SRC, "touch", params={"B": [32, 64, 128]}, block=("B",), grid=("1",),
                 problem=("n",))
px, py = e.alloc(4), e.alloc(4)
t3 = time.perf_counter()
k(1, py, px, 1)
e.synchronize()
t4 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "engine_ms": (t2 - t1) * 1e3,
                  "create_ms": (t3 - t2) * 1e3, "first_launch_ms": (t4 - t3) * 1e3,
                  "compiles": e.stats()["compiles"]}))
'''


def fresh_process(runs):
    code = "SRC = %r\n%s" % (SRC, FRESH)
    out = []
    for i in range(runs + 1):  # the first warms the store
        r = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                           text=True)
        if i:
            out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(o[key] for o in out) for key in out[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20000, help="launches per row (default 20000)")
    ap.add_argument("--fresh", type=int, default=5, help="fresh processes (default 5)")
    args = ap.parse_args()
    if not os.environ.get("KJIT_DB"):
        d = tempfile.mkdtemp(prefix="kjit-bench-")
        os.environ["KJIT_DB"] = os.path.join(d, "kjit.db")
    import kjit
    if not kjit.default_engine().has_gpu:
        print("python-launch: no GPU (%s)" % kjit.default_engine().gpu_reason)
        return 77
    rows = measure(rows_in_process(), args.calls)
    fresh = fresh_process(args.fresh)
    print("\n%-40s %10s %8s" % ("per call (host), median of %d rounds" % ROUNDS, "us", "x C"))
    for name, secs, ratio in rows:
        print("%-40s %10.2f %8.2f" % (name, secs * 1e6, ratio))
    print("\nfresh process, warm store (median of %d):" % args.fresh)
    for key in ("import_ms", "engine_ms", "create_ms", "first_launch_ms"):
        print("  %-18s %8.1f ms" % (key, fresh[key]))
    print("  %-18s %8.1f ms (import + create + first launch, without the engine's cuInit)"
          % ("total", fresh["import_ms"] + fresh["create_ms"] + fresh["first_launch_ms"]))
    print("  %-18s %8d" % ("NVRTC compiles", fresh["compiles"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
