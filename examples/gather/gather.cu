// gather: out[b][d] = sum over j < k of table[row(b, j)][d], for b < bags
// and d < dim: the sums of embedding bags, each of k rows of a table of
// rows x dim floats (row-major). Row j of bag b is idx[b * k + j] (spec
// fills are in [0, 1000)) hashed with b * k + j into [0, rows), so that a
// bag's rows scatter over a table larger than the cache.
//
// A bag takes TPB threads along d, a block BPB bags; a thread sums VEC
// floats a load, the rows in order (every configuration gives the same
// bits), UNROLL rows' loads issued before their adds, over dim / (TPB *
// VEC) slices of d.
//
// Tunable parameters (-D defines):
//   TPB     threads a bag
//   BPB     bags a block
//   VEC     floats a load (1, 2 or 4)
//   UNROLL  rows loaded at once
//   IDX     1: the bag's rows hashed once into shared memory; 0: each
//           thread reads and hashes them itself
// Grid: bags / BPB, which must divide; dim a multiple of TPB * VEC.
// Dynamic shared memory: 4 * BPB * k bytes with IDX 1.

#ifndef TPB
#define TPB 32
#endif
#ifndef BPB
#define BPB 4
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef IDX
#define IDX 0
#endif
#if (VEC != 1 && VEC != 2 && VEC != 4) || TPB * BPB > 1024 || UNROLL < 1
#error "gather: VEC 1, 2 or 4, TPB * BPB at most 1024, UNROLL at least 1"
#endif

#if VEC == 4
typedef float4 vec_t;
#define VZERO make_float4(0.0f, 0.0f, 0.0f, 0.0f)
static __device__ __forceinline__ void vadd(vec_t *a, vec_t b)
{
	a->x += b.x;
	a->y += b.y;
	a->z += b.z;
	a->w += b.w;
}
#elif VEC == 2
typedef float2 vec_t;
#define VZERO make_float2(0.0f, 0.0f)
static __device__ __forceinline__ void vadd(vec_t *a, vec_t b)
{
	a->x += b.x;
	a->y += b.y;
}
#else
typedef float vec_t;
#define VZERO 0.0f
static __device__ __forceinline__ void vadd(vec_t *a, vec_t b)
{
	*a += b;
}
#endif

static __device__ __forceinline__ unsigned row_of(const int *idx, unsigned at, unsigned rows)
{
	return ((unsigned)idx[at] * 2654435761u + at * 40503u) % rows;
}

extern "C" __global__ void __launch_bounds__(TPB * BPB)
gather(int bags, int k, int dim, int rows, const int *__restrict__ idx,
       const float *__restrict__ table, float *__restrict__ out)
{
	const int b = blockIdx.x * BPB + threadIdx.y;
	const unsigned first = (unsigned)b * (unsigned)k;
#if IDX
	extern __shared__ unsigned bag_rows[];
	unsigned *mine = bag_rows + threadIdx.y * k;
	for (int j = threadIdx.x; j < k; j += TPB)
		mine[j] = row_of(idx, first + j, (unsigned)rows);
	__syncthreads();
#define ROW(j) mine[j]
#else
#define ROW(j) row_of(idx, first + (j), (unsigned)rows)
#endif
	const vec_t *t = (const vec_t *)table;
	vec_t *o = (vec_t *)out;
	const int vdim = dim / VEC;
	for (int d = threadIdx.x; d < vdim; d += TPB) {
		vec_t acc = VZERO;
		int j = 0;
		for (; j + UNROLL <= k; j += UNROLL) {
			vec_t v[UNROLL];
#pragma unroll
			for (int u = 0; u < UNROLL; u++)
				v[u] = __ldg(&t[(size_t)ROW(j + u) * vdim + d]);
#pragma unroll
			for (int u = 0; u < UNROLL; u++)
				vadd(&acc, v[u]);
		}
		for (; j < k; j++)
			vadd(&acc, __ldg(&t[(size_t)ROW(j) * vdim + d]));
		o[(size_t)b * vdim + d] = acc;
	}
}
