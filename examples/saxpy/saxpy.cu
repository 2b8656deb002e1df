// saxpy: y = a * x + y, tuned over the block size and the number of
// elements each thread handles.
//
// Tunable parameters (-D defines):
//   BLOCK_SIZE        threads per block (64 .. 1024)
//   ITEMS_PER_THREAD  elements per thread (1 .. 8), strided by BLOCK_SIZE
//                     so that every access stays coalesced
// Grid: (n + BLOCK_SIZE * ITEMS_PER_THREAD - 1) / (BLOCK_SIZE * ITEMS_PER_THREAD)

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 1
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
saxpy(long long n, float a, const float *__restrict__ x, float *__restrict__ y)
{
	long long base = (long long)blockIdx.x * (BLOCK_SIZE * ITEMS_PER_THREAD) + threadIdx.x;
#pragma unroll
	for (int k = 0; k < ITEMS_PER_THREAD; k++) {
		long long i = base + (long long)k * BLOCK_SIZE;
		if (i < n)
			y[i] = a * x[i] + y[i];
	}
}
