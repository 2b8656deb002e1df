// scan: the inclusive prefix sum of each row of a rows x cols matrix of
// floats (row-major).
//
// BLOCK threads scan a row, RPB rows a block, in tiles of BLOCK * ITEMS
// values with the running total carried from tile to tile. A thread
// loads ITEMS adjacent values, VEC a load, and sums them in registers;
// the threads' totals are then scanned across the row's threads, by warp
// shuffles and one warp over the warps' totals (WARP_SCAN 1), or by a
// Hillis-Steele scan in shared memory (WARP_SCAN 0).
//
// Tunable parameters (-D defines):
//   BLOCK      threads a row (32 to 1024, a multiple of 32)
//   RPB        rows a block
//   ITEMS      values a thread, a tile
//   VEC        floats a load (1, 2 or 4; ITEMS a multiple of it)
//   WARP_SCAN  the scan across threads: warp shuffles (1) or shared memory (0)
// Grid: rows / RPB; cols must be a multiple of BLOCK * ITEMS.

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef RPB
#define RPB 1
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef WARP_SCAN
#define WARP_SCAN 0
#endif
#define WARPS (BLOCK / 32)

#if BLOCK % 32 != 0 || BLOCK * RPB > 1024
#error "scan: BLOCK must be a multiple of 32 and BLOCK * RPB at most 1024"
#endif
#if ITEMS % VEC != 0
#error "scan: ITEMS must be a multiple of VEC"
#endif

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
typedef float vec_t;
#endif

/* Loads or stores VEC floats at v through one access of p. */
static __device__ __forceinline__ void load(float *v, const float *p)
{
	const vec_t t = *(const vec_t *)p;
	const float *f = (const float *)&t;
#pragma unroll
	for (int k = 0; k < VEC; k++)
		v[k] = f[k];
}

static __device__ __forceinline__ void store(float *p, const float *v)
{
	vec_t t;
	float *f = (float *)&t;
#pragma unroll
	for (int k = 0; k < VEC; k++)
		f[k] = v[k];
	*(vec_t *)p = t;
}

/* The sum of the totals of the row's threads before this one; *all, the
 * sum of all of them. Every thread of the block calls it. */
static __device__ __forceinline__ float exclusive(float total, float *all,
                                                  float (*part)[WARP_SCAN ? WARPS : BLOCK])
{
	const int tx = threadIdx.x, ty = threadIdx.y;
#if WARP_SCAN
	const int lane = tx % 32, warp = tx / 32;
	float incl = total;
#pragma unroll
	for (int o = 1; o < 32; o <<= 1) {
		const float t = __shfl_up_sync(0xffffffffu, incl, o);
		if (lane >= o)
			incl += t;
	}
	if (lane == 31)
		part[ty][warp] = incl;
	__syncthreads();
	if (warp == 0) {
		float w = lane < WARPS ? part[ty][lane] : 0.0f;
#pragma unroll
		for (int o = 1; o < 32; o <<= 1) {
			const float t = __shfl_up_sync(0xffffffffu, w, o);
			if (lane >= o)
				w += t;
		}
		if (lane < WARPS)
			part[ty][lane] = w;
	}
	__syncthreads();
	const float before = (warp > 0 ? part[ty][warp - 1] : 0.0f) + (incl - total);
	*all = part[ty][WARPS - 1];
#else
	part[ty][tx] = total;
	for (int o = 1; o < BLOCK; o <<= 1) {
		__syncthreads();
		const float t = tx >= o ? part[ty][tx - o] : 0.0f;
		__syncthreads();
		part[ty][tx] += t;
	}
	__syncthreads();
	const float before = tx > 0 ? part[ty][tx - 1] : 0.0f;
	*all = part[ty][BLOCK - 1];
#endif
	__syncthreads(); /* part is free for the next tile */
	return before;
}

extern "C" __global__ void __launch_bounds__(BLOCK * RPB)
scan(int rows, int cols, const float *__restrict__ in, float *__restrict__ out)
{
	__shared__ float part[RPB][WARP_SCAN ? WARPS : BLOCK];
	const size_t row = (size_t)blockIdx.x * RPB + threadIdx.y;
	const float *src = in + row * cols;
	float *dst = out + row * cols;
	float carry = 0.0f;
	for (int base = 0; base < cols; base += BLOCK * ITEMS) {
		const int at = base + threadIdx.x * ITEMS;
		float v[ITEMS];
#pragma unroll
		for (int i = 0; i < ITEMS; i += VEC)
			load(v + i, src + at + i);
#pragma unroll
		for (int i = 1; i < ITEMS; i++)
			v[i] += v[i - 1];
		float all;
		const float before = carry + exclusive(v[ITEMS - 1], &all, part);
#pragma unroll
		for (int i = 0; i < ITEMS; i++)
			v[i] += before;
#pragma unroll
		for (int i = 0; i < ITEMS; i += VEC)
			store(dst + at + i, v + i);
		carry += all;
	}
}
