// softmax: out = exp(x - max) / sum(exp(x - max)) along each row of a
// rows x cols matrix of floats (row-major).
//
// A block of TPR x RPB threads takes RPB rows, TPR threads a row, each
// thread reading VEC floats a load, strided by TPR loads. The row's
// maximum and sum meet across its TPR threads by warp shuffles, and
// through shared memory where TPR spans more than a warp.
//
// Tunable parameters (-D defines):
//   TPR      threads a row (a power of two, 32 to 1024)
//   RPB      rows a block
//   VEC      floats a load (1, 2 or 4)
//   ONLINE   1: the maximum and the sum in one pass (the sum rescaled as
//            the maximum grows); 0: a pass for each
//   CACHE    1: the row kept in registers between the passes (at most
//            MAX_LOADS loads a thread); 0: read again from memory
//   UNROLL   loads a thread's loop issues at once
// Grid: ceil(rows / RPB); cols must be a multiple of VEC.

#ifndef TPR
#define TPR 128
#endif
#ifndef RPB
#define RPB 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef ONLINE
#define ONLINE 0
#endif
#ifndef CACHE
#define CACHE 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#define MAX_LOADS 16
#define WARPS (TPR / 32)
#define NEG_INF __int_as_float(0xff800000u)

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
typedef float vec_t;
#endif

/* max and sum of exp(x - max) of two partial results, merged */
static __device__ __forceinline__ void merge(float *m, float *s, float m2, float s2)
{
	const float hi = fmaxf(*m, m2);
	*s = (hi == NEG_INF) ? 0.0f : *s * __expf(*m - hi) + s2 * __expf(m2 - hi);
	*m = hi;
}

/* What a pass over a row does, and how row_reduce() joins its results:
 * the maximum, the sum of exponentials, both in one pass (merged), or
 * the output written. */
enum { OP_ONLINE, OP_MAX, OP_SUM, OP_OUT };

/* The reduction of (m, s) over the row's TPR threads, in every one of
 * them: of m for OP_MAX, of s for OP_SUM, of both merged for OP_ONLINE. */
static __device__ __forceinline__ void row_reduce(float *m, float *s, int op, float (*shared)[WARPS][2])
{
	for (int o = 16; o > 0; o >>= 1) {
		const float m2 = __shfl_xor_sync(0xffffffffu, *m, o);
		const float s2 = __shfl_xor_sync(0xffffffffu, *s, o);
		if (op == OP_MAX)
			*m = fmaxf(*m, m2);
		else if (op == OP_SUM)
			*s += s2;
		else
			merge(m, s, m2, s2);
	}
#if WARPS > 1
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	if (lane == 0) {
		shared[threadIdx.y][warp][0] = *m;
		shared[threadIdx.y][warp][1] = *s;
	}
	__syncthreads();
	float m1 = shared[threadIdx.y][0][0], s1 = shared[threadIdx.y][0][1];
	for (int w = 1; w < WARPS; w++) {
		if (op == OP_MAX)
			m1 = fmaxf(m1, shared[threadIdx.y][w][0]);
		else if (op == OP_SUM)
			s1 += shared[threadIdx.y][w][1];
		else
			merge(&m1, &s1, shared[threadIdx.y][w][0], shared[threadIdx.y][w][1]);
	}
	*m = m1;
	*s = s1;
	__syncthreads();
#endif
}

/* One element of a pass. */
template <int OP>
static __device__ __forceinline__ void one(float &e, float &m, float &s, float inv)
{
	if (OP == OP_ONLINE) {
		if (e > m) {
			s *= __expf(m - e);
			m = e;
		}
		s += __expf(e - m);
	} else if (OP == OP_MAX) {
		m = fmaxf(m, e);
	} else if (OP == OP_SUM) {
		s += __expf(e - m);
	} else {
		e = __expf(e - m) * inv;
	}
}

template <int OP>
static __device__ __forceinline__ void each(vec_t &v, float &m, float &s, float inv)
{
#if VEC == 4
	one<OP>(v.x, m, s, inv);
	one<OP>(v.y, m, s, inv);
	one<OP>(v.z, m, s, inv);
	one<OP>(v.w, m, s, inv);
#elif VEC == 2
	one<OP>(v.x, m, s, inv);
	one<OP>(v.y, m, s, inv);
#else
	one<OP>(v, m, s, inv);
#endif
}

/* A pass over the thread's part of the row: from registers (keep) or
 * from memory; OP_OUT writes each result to ov. */
template <int OP>
static __device__ __forceinline__ void pass(const vec_t *keep, const vec_t *xv, vec_t *ov,
                                            int groups, float &m, float &s, float inv)
{
#if CACHE
#pragma unroll
	for (int i = 0; i < MAX_LOADS; i++) {
		const int g = threadIdx.x + i * TPR;
		if (g < groups) {
			vec_t v = keep[i];
			each<OP>(v, m, s, inv);
			if (OP == OP_OUT)
				ov[g] = v;
		}
	}
#else
	(void)keep;
#pragma unroll UNROLL
	for (int g = threadIdx.x; g < groups; g += TPR) {
		vec_t v = xv[g];
		each<OP>(v, m, s, inv);
		if (OP == OP_OUT)
			ov[g] = v;
	}
#endif
}

extern "C" __global__ void __launch_bounds__(TPR * RPB)
softmax(int rows, int cols, const float *__restrict__ x, float *__restrict__ out)
{
	__shared__ float shared[RPB][WARPS][2];
	const int r = blockIdx.x * RPB + threadIdx.y;
	/* every thread of the block reaches row_reduce's barriers */
	const int groups = r < rows ? cols / VEC : 0;
	const vec_t *xv = (const vec_t *)(x + (size_t)(r < rows ? r : 0) * cols);
	vec_t *ov = (vec_t *)(out + (size_t)(r < rows ? r : 0) * cols);
	float m = NEG_INF, s = 0.0f;
#if CACHE
	vec_t keep[MAX_LOADS];
#pragma unroll
	for (int i = 0; i < MAX_LOADS; i++) {
		const int g = threadIdx.x + i * TPR;
		if (g < groups)
			keep[i] = xv[g];
	}
#else
	const vec_t *keep = 0;
#endif
#if ONLINE
	pass<OP_ONLINE>(keep, xv, ov, groups, m, s, 0.0f);
	row_reduce(&m, &s, OP_ONLINE, shared);
#else
	pass<OP_MAX>(keep, xv, ov, groups, m, s, 0.0f);
	row_reduce(&m, &s, OP_MAX, shared);
	pass<OP_SUM>(keep, xv, ov, groups, m, s, 0.0f);
	row_reduce(&m, &s, OP_SUM, shared);
#endif
	pass<OP_OUT>(keep, xv, ov, groups, m, s, 1.0f / s);
}
