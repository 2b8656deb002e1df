#!/usr/bin/env python3
"""cupy-launch.py - the peer of bench-dispatch: host time per launch of the
saxpy source (examples/saxpy/saxpy.cu, BLOCK_SIZE=256, ITEMS_PER_THREAD=1)
through CuPy's RawKernel, on n elements, batches of launches with a
synchronize (untimed) after each, as bench-dispatch times kjit_launch.

Usage: cupy-launch.py SAXPY_CU [BATCHES] [BATCH] [N]
Prints one line: "cupy_us_per_launch <median of the batches>", or
"cupy_unavailable <reason>" (exit 0) when CuPy cannot run.
"""
import statistics
import sys
import time


def main():
    path = sys.argv[1]
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    per = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 1024
    try:
        import cupy
        import numpy
    except Exception as exc:  # no CuPy here: say so, the C side reports it
        print("cupy_unavailable", type(exc).__name__, exc)
        return 0
    with open(path) as f:
        src = f.read()
    kernel = cupy.RawKernel(src, "saxpy", options=("-DBLOCK_SIZE=256", "-DITEMS_PER_THREAD=1"))
    x = cupy.ones(n, dtype=cupy.float32)
    y = cupy.zeros(n, dtype=cupy.float32)
    grid = ((n + 255) // 256,)
    block = (256,)
    args = (numpy.int64(n), numpy.float32(2.5), x, y)
    for _ in range(5):
        for _ in range(per):
            kernel(grid, block, args)
        cupy.cuda.Device().synchronize()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(per):
            kernel(grid, block, args)
        t1 = time.perf_counter_ns()
        cupy.cuda.Device().synchronize()
        times.append((t1 - t0) / 1e3 / per)
    print("cupy_us_per_launch", statistics.median(times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
