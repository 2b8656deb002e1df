// tune-race: a kernel whose REPEAT parameter multiplies its time, for
// racing in kjit-tune (tests/test-gpu-tune): every thread spins REPEAT x
// SPIN cycles, then writes y = a * x, the same output whatever REPEAT.
// One wave of blocks, so the kernel's time is REPEAT x the spin.

#ifndef REPEAT
#define REPEAT 1
#endif
#define SPIN 100000 /* about 50 us at 2 GHz */

extern "C" __global__ void race(long long n, float a, const float *x, float *y)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long t0 = clock64();
	while (clock64() - t0 < (long long)REPEAT * SPIN)
		;
	if (i < n)
		y[i] = a * x[i];
}
