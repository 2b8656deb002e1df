#!/usr/bin/env python3
"""python-kt: one Kernel Tuner script run by Kernel Tuner and by kjit.kernel_tuner.

A tiled matrix multiply in Kernel Tuner's habits (block_size_x/y, tile sizes as
#defines, restrictions as strings, grid_div_x/y, answer=), tuned first by Kernel
Tuner 1.5.0 (lang="cupy") and then by kjit.kernel_tuner with the same call in the
same process, each with a budget of max_fevals configurations (random_sample
unless --strategy names another of Kernel Tuner's, one seed). Prints both wall
times, their ratio, and both bests timed again by one timer (kjit's
measurement) so that the bests compare. Both compile from cold: the run has a
store and a CuPy kernel cache of its own.

    PYTHONPATH=<folder holding kjit/>[:<Kernel Tuner>] python3 bench/python-kt.py [--size N] [--fevals F] [--strategy S]
"""
import argparse
import datetime
import os
import sys
import tempfile
import time

import numpy as np

KERNEL = r"""
__global__ void matmul_kernel(float *C, const float *A, const float *B)
{
    __shared__ float sA[block_size_y * tile_size_y][block_size_x];
    __shared__ float sB[block_size_y * tile_size_y][block_size_x * tile_size_x];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * block_size_x * tile_size_x + tx;
    int y = blockIdx.y * block_size_y * tile_size_y + ty;
    float sum[tile_size_y][tile_size_x];
#pragma unroll
    for (int i = 0; i < tile_size_y; i++)
#pragma unroll
        for (int j = 0; j < tile_size_x; j++)
            sum[i][j] = 0.0f;
    for (int k = 0; k < WIDTH; k += block_size_x) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < tile_size_y; i++) {
            sA[ty + block_size_y * i][tx] = A[(y + i * block_size_y) * WIDTH + k + tx];
#pragma unroll
            for (int j = 0; j < tile_size_x; j++)
                sB[ty + block_size_y * i][tx + j * block_size_x] =
                    B[(k + ty + block_size_y * i) * WIDTH + x + j * block_size_x];
        }
        __syncthreads();
#pragma unroll
        for (int kb = 0; kb < block_size_x; kb++)
#pragma unroll
            for (int i = 0; i < tile_size_y; i++)
#pragma unroll
                for (int j = 0; j < tile_size_x; j++)
                    sum[i][j] += sA[ty + block_size_y * i][kb] * sB[kb][tx + j * block_size_x];
    }
#pragma unroll
    for (int i = 0; i < tile_size_y; i++)
#pragma unroll
        for (int j = 0; j < tile_size_x; j++)
            C[(y + block_size_y * i) * WIDTH + x + j * block_size_x] = sum[i][j];
}
"""


def setup(size):
    a = np.random.randn(size, size).astype(np.float32)
    b = np.random.randn(size, size).astype(np.float32)
    c = np.zeros_like(a)
    tune_params = {"block_size_x": [16, 32, 64], "block_size_y": [1, 2, 4, 8, 16, 32],
                   "tile_size_x": [1, 2, 4, 8], "tile_size_y": [1, 2, 4, 8]}
    kw = dict(grid_div_x=["block_size_x", "tile_size_x"],
              grid_div_y=["block_size_y", "tile_size_y"],
              restrictions=["block_size_x == block_size_y * tile_size_y"],
              answer=[a @ b, None, None], atol=1e-2 * size ** 0.5,
              compiler_options=["-DWIDTH=%d" % size], quiet=True)
    return [c, a, b], tune_params, kw


def run(tune_kernel, size, fevals, strategy, **extra):
    args, tune_params, kw = setup(size)
    kw.update(extra)
    t0, start = time.perf_counter(), datetime.datetime.now(datetime.timezone.utc)
    results, env = tune_kernel("matmul_kernel", KERNEL, (size, size), args, tune_params,
                             strategy=strategy,
                             strategy_options={"max_fevals": fevals}, seed=1, **kw)
    wall = time.perf_counter() - t0
    ok = [r for r in results if isinstance(r.get("time"), float)]
    best = min(ok, key=lambda r: r["time"])
    # where the time went, as Kernel Tuner's env totals have it (ms)
    parts = {k[len("total_"):]: v for k, v in env.items()
             if k.startswith("total_") and k.endswith("_time")}
    print("%-16s %s" % (extra.get("lang", "kjit"), ", ".join(
        "%s %.2f s" % (k, v / 1e3) for k, v in sorted(parts.items()))))
    # when the results came: a tuner bound by its compiles shows a late first
    # result and results spread to the end
    at = sorted((datetime.datetime.fromisoformat(r["timestamp"]) - start).total_seconds()
                for r in results if "timestamp" in r)
    if at:
        print("%-16s results at %.2f s (first), %.2f s (median), %.2f s (last) of %.2f s" % (
            "", at[0], at[len(at) // 2], at[-1], wall))
    return wall, {k: best[k] for k in tune_params}, len(results)


def pad_cupy_uuid():
    """CuPy gives the device's UUID as a C string, cut at its first zero
    byte, and Kernel Tuner 1.5.0's CuPy backend then fails to start
    (uuid.UUID wants 16 bytes): padded back to 16 on a GPU whose UUID has
    a zero byte. Nothing timed changes."""
    import cupy
    get = cupy.cuda.runtime.getDeviceProperties

    def props(device):
        p = get(device)
        if isinstance(p.get("uuid"), bytes) and len(p["uuid"]) < 16:
            p = dict(p, uuid=p["uuid"].ljust(16, b"\0"))
        return p
    cupy.cuda.runtime.getDeviceProperties = props


def retime(params, size):
    """The best configuration timed by kjit's measurement."""
    import kjit
    from kjit import kernel_tuner as kt
    args, tune_params, kw = setup(size)
    o = dict(kernel_name="matmul_kernel", kernel_source=KERNEL, problem_size=(size, size),
             arguments=args, tune_params=tune_params, block_size_names=kt._block_names(None),
             grid_div_x=kw["grid_div_x"], grid_div_y=kw["grid_div_y"], grid_div_z=None,
             defines=None, compiler_options=kw["compiler_options"], cmem_args=None,
             smem_args=None)
    o["flags"], o["flag_dirs"], _ = kt._compiler_options(o["compiler_options"])
    e = kjit.Engine()
    k, grid, block, shared = kt._make_kernel(o, params, e)
    dev = kt._Device(e, args)
    try:
        return k._measure((None, 50, None), grid, block, *dev.args())["median_ns"] / 1e6
    finally:
        dev.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--fevals", type=int, default=200)
    ap.add_argument("--strategy", default="random_sample")
    a = ap.parse_args()
    # both tuners compile from cold: a store and a CuPy kernel cache of this run's own
    d = tempfile.mkdtemp(prefix="python-kt-")
    os.environ["KJIT_DB"] = os.path.join(d, "kjit.db")
    os.environ["CUPY_CACHE_DIR"] = os.path.join(d, "cupy")
    import kjit
    if not kjit.default_engine().has_gpu:
        print("python-kt: no GPU (%s)" % kjit.default_engine().gpu_reason)
        return 77
    try:
        import kernel_tuner
    except ImportError:
        print("python-kt: Kernel Tuner is not installed")
        return 77
    from kjit import kernel_tuner as kjit_kt
    pad_cupy_uuid()
    kt_wall, kt_best, kt_n = run(kernel_tuner.tune_kernel, a.size, a.fevals, a.strategy,
                                 lang="cupy")
    kj_wall, kj_best, kj_n = run(kjit_kt.tune_kernel, a.size, a.fevals, a.strategy)
    kt_t, kj_t = retime(kt_best, a.size), retime(kj_best, a.size)
    print("%-16s %10s %8s %12s  %s" % ("tuner", "wall s", "evals", "best ms", "best"))
    print("%-16s %10.2f %8d %12.4f  %s" % ("Kernel Tuner", kt_wall, kt_n, kt_t, kt_best))
    print("%-16s %10.2f %8d %12.4f  %s" % ("kjit", kj_wall, kj_n, kj_t, kj_best))
    print("wall time kjit / Kernel Tuner: %.2f (target <= 0.25); best kjit / Kernel Tuner: "
          "%.3f (target <= 1)" % (kj_wall / kt_wall, kj_t / kt_t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
