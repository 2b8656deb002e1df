// gemv: y = A x for a rows x cols matrix A of floats (row-major).
//
// A block of BX x BY threads computes BY * ROWS rows: each row of
// threads takes ROWS rows, its BX threads striding over the columns with
// loads of VEC floats, then the BX partial sums meet in a reduction:
// warp shuffles, or a tree in shared memory.
//
// Tunable parameters (-D defines):
//   BX, BY    block of BX x BY threads (BX a power of two, at least 32
//             with shuffles)
//   ROWS      rows a row of threads computes
//   VEC       floats a load (1, 2 or 4)
//   SHUFFLE   1: warp shuffles, then shared memory across warps; 0: a
//             shared-memory tree
// Grid: ceil(rows / (BY * ROWS)); cols must be a multiple of VEC.

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 4
#endif
#ifndef ROWS
#define ROWS 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef SHUFFLE
#define SHUFFLE 1
#endif

#if VEC == 4
typedef float4 vec_t;
#define DOT(a, b) ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z + (a).w * (b).w)
#elif VEC == 2
typedef float2 vec_t;
#define DOT(a, b) ((a).x * (b).x + (a).y * (b).y)
#else
typedef float vec_t;
#define DOT(a, b) ((a) * (b))
#endif

/* The sum of v over the BX threads of this row of threads, in thread 0. */
static __device__ __forceinline__ float row_sum(float v, float *shared)
{
#if SHUFFLE
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
#if BX > 32
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	if (lane == 0)
		shared[threadIdx.y * (BX / 32) + warp] = v;
	__syncthreads();
	v = 0;
	if (threadIdx.x == 0)
		for (int w = 0; w < BX / 32; w++)
			v += shared[threadIdx.y * (BX / 32) + w];
	__syncthreads();
#endif
	return v;
#else
	float *mine = shared + threadIdx.y * BX;
	mine[threadIdx.x] = v;
	__syncthreads();
	for (int o = BX / 2; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			mine[threadIdx.x] += mine[threadIdx.x + o];
		__syncthreads();
	}
	v = mine[0];
	__syncthreads();
	return v;
#endif
}

extern "C" __global__ void __launch_bounds__(BX * BY)
gemv(int rows, int cols, const float *__restrict__ a, const float *__restrict__ x,
     float *__restrict__ y)
{
	__shared__ float shared[BY * BX];
	const vec_t *xv = (const vec_t *)x;
	const int groups = cols / VEC;
	const int r0 = (blockIdx.x * BY + threadIdx.y) * ROWS;
	for (int r = r0; r < r0 + ROWS; r++) {
		float sum = 0.0f;
		/* every thread of the block reaches row_sum's barriers */
		if (r < rows) {
			const vec_t *av = (const vec_t *)(a + (size_t)r * cols);
			for (int g = threadIdx.x; g < groups; g += BX)
				sum += DOT(av[g], xv[g]);
		}
		sum = row_sum(sum, shared);
		if (threadIdx.x == 0 && r < rows)
			y[r] = sum;
	}
}
