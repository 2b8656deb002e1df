// A compute-heavy kernel for the compile-pool benchmark: deep unrolled
// polynomial chains keep NVRTC's optimiser busy for ~100 ms, where a
// small kernel like saxpy is dominated by NVRTC's per-program overhead.
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 1
#endif
#ifndef KJIT_BENCH_SALT
#define KJIT_BENCH_SALT 0
#endif

template <int K> __device__ float poly(float x)
{
	float r = 0.0f;
#pragma unroll
	for (int i = 0; i < K; i++)
		r = r * x + (float)(i * 0.5f + KJIT_BENCH_SALT);
	return r;
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
heavy(long long n, float a, const float *__restrict__ x, float *__restrict__ y)
{
	long long base = (long long)blockIdx.x * (BLOCK_SIZE * ITEMS_PER_THREAD) + threadIdx.x;
#pragma unroll
	for (int k = 0; k < ITEMS_PER_THREAD; k++) {
		long long i = base + (long long)k * BLOCK_SIZE;
		if (i < n) {
			float v = x[i];
			y[i] = a * (poly<200>(v) + poly<300>(v * 0.5f) + sinf(v) * poly<150>(v + 1.0f));
		}
	}
}
