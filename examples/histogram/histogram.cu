// histogram: counts of n values in [0, BINS) (uint32), added to hist.
//
// Each block keeps COPIES histograms in shared memory (a thread adds to
// copy threadIdx.x % COPIES, so that fewer threads contend for one
// counter), sums them into hist once at the end, and reads its ITEMS
// groups of VEC values each with one vector load (BLOCK groups apart, so
// that the loads coalesce).
//
// Tunable parameters (-D defines):
//   BLOCK    threads a block
//   ITEMS    vector loads a thread
//   VEC      values a load (1, 2 or 4)
//   COPIES   shared-memory histograms a block
// Grid: ceil(n / (BLOCK * ITEMS * VEC)); n must be a multiple of VEC.

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef COPIES
#define COPIES 1
#endif
#define BINS 1024

#if VEC == 4
typedef uint4 vec_t;
#elif VEC == 2
typedef uint2 vec_t;
#else
typedef unsigned vec_t;
#endif

static __device__ __forceinline__ void add(unsigned *h, unsigned x)
{
	if (x < BINS)
		atomicAdd(&h[x], 1u);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
histogram(int n, const unsigned *__restrict__ values, unsigned *__restrict__ hist)
{
	__shared__ unsigned h[COPIES * BINS];
	for (int i = threadIdx.x; i < COPIES * BINS; i += BLOCK)
		h[i] = 0;
	__syncthreads();
	unsigned *mine = h + (threadIdx.x % COPIES) * BINS;
	const vec_t *v = (const vec_t *)values;
	const int groups = n / VEC;
	const int first = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
#pragma unroll
	for (int k = 0; k < ITEMS; k++) {
		const int g = first + k * BLOCK;
		if (g < groups) {
			const vec_t x = v[g];
#if VEC == 4
			add(mine, x.x);
			add(mine, x.y);
			add(mine, x.z);
			add(mine, x.w);
#elif VEC == 2
			add(mine, x.x);
			add(mine, x.y);
#else
			add(mine, x);
#endif
		}
	}
	__syncthreads();
	for (int b = threadIdx.x; b < BINS; b += BLOCK) {
		unsigned sum = 0;
		for (int c = 0; c < COPIES; c++)
			sum += h[c * BINS + b];
		if (sum)
			atomicAdd(&hist[b], sum);
	}
}
