// map: y[i] = op(x[i]) for i in [0, n), where op() is an extern __device__
// function that this file does not define: a library supplies it, linked at
// run time with nvJitLink (JIT LTO). kjit compiles this kernel once to LTO
// IR per configuration; another library is a new link, not a new compile.
//
// Tunable parameters (-D defines):
//   BLOCK  threads per block
//   ITEMS  elements per thread, strided by the block (coalesced loads)
// Grid: ceil(n / (BLOCK * ITEMS)).

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif

extern __device__ float op(float x);

extern "C" __global__ void __launch_bounds__(BLOCK)
map(long long n, const float *__restrict__ x, float *__restrict__ y)
{
	long long base = (long long)blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
#pragma unroll
	for (int k = 0; k < ITEMS; k++) {
		long long i = base + (long long)k * BLOCK;
		if (i < n)
			y[i] = op(x[i]);
	}
}
