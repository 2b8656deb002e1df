// reduction: *out += sum of x[0 .. n), each block adding its partial sum
// with one atomicAdd (the order of those adds varies, hence the tolerance
// of the spec).
//
// Tunable parameters (-D defines):
//   BLOCK_SIZE        threads per block (64 .. 1024)
//   ITEMS_PER_THREAD  loads per thread, strided by the block so that every
//                     load of a warp is coalesced
//   VEC               elements per load: 1 (float) or 4 (float4)
//   WARP_SHUFFLE      1: the block sums with warp shuffles and one shared
//                     slot per warp; 0: a tree in shared memory
// Grid: ceil(n / (BLOCK_SIZE * ITEMS_PER_THREAD * VEC)); out must hold 0
// before the launch.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef WARP_SHUFFLE
#define WARP_SHUFFLE 0
#endif

#if VEC != 1 && VEC != 4
#error "reduction: VEC must be 1 or 4"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_sum(long long n, const float *__restrict__ x, float *__restrict__ out)
{
	const int tid = threadIdx.x;
	long long base = (long long)blockIdx.x * (BLOCK_SIZE * ITEMS_PER_THREAD * VEC);
	float s = 0.0f;
#pragma unroll
	for (int k = 0; k < ITEMS_PER_THREAD; k++) {
		long long i = base + ((long long)k * BLOCK_SIZE + tid) * VEC;
#if VEC == 4
		if (i + 3 < n) {
			float4 v = *(const float4 *)&x[i];
			s += (v.x + v.y) + (v.z + v.w);
		} else {
			for (long long j = i; j < n; j++)
				s += x[j];
		}
#else
		if (i < n)
			s += x[i];
#endif
	}
#if WARP_SHUFFLE
	__shared__ float partial[BLOCK_SIZE / 32];
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if (tid % 32 == 0)
		partial[tid / 32] = s;
	__syncthreads();
	if (tid < 32) {
		s = tid < BLOCK_SIZE / 32 ? partial[tid] : 0.0f;
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, off);
	}
#else
	__shared__ float tree[BLOCK_SIZE];
	tree[tid] = s;
	__syncthreads();
	for (int half = BLOCK_SIZE / 2; half > 0; half >>= 1) {
		if (tid < half)
			tree[tid] += tree[tid + half];
		__syncthreads();
	}
	s = tree[0];
#endif
	if (tid == 0)
		atomicAdd(out, s);
}
