// nbody: the acceleration of each of n bodies from all n (softened
// gravity, G = 1): acc[i] = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^1.5,
// pos[i] = (x, y, z, m), acc[i] = (ax, ay, az, 0). Every thread sums over
// j in the same order, so the variants differ only in rounding.
//
// Tunable parameters (-D defines):
//   BLOCK    threads a block
//   ITEMS    bodies a thread (BLOCK apart)
//   UNROLL   unroll factor of the loop over j
//   SHARED   1: the block stages BLOCK bodies at a time in shared memory;
//            0: each thread reads them through the read-only cache
//   RSQRT    1: rsqrtf; 0: 1 / sqrtf
// Grid: ceil(n / (BLOCK * ITEMS)).

#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef SHARED
#define SHARED 0
#endif
#ifndef RSQRT
#define RSQRT 0
#endif

static __device__ __forceinline__ void interact(float4 pj, const float4 &pi, float3 &a, float eps2)
{
	const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
	const float d2 = dx * dx + dy * dy + dz * dz + eps2;
#if RSQRT
	const float inv = rsqrtf(d2);
#else
	const float inv = 1.0f / sqrtf(d2);
#endif
	const float s = pj.w * inv * inv * inv;
	a.x += dx * s;
	a.y += dy * s;
	a.z += dz * s;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
nbody(int n, float eps2, const float4 *__restrict__ pos, float4 *__restrict__ acc)
{
	const int first = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
	float4 p[ITEMS];
	float3 a[ITEMS];
#pragma unroll
	for (int k = 0; k < ITEMS; k++) {
		const int i = first + k * BLOCK;
		p[k] = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		a[k] = make_float3(0.0f, 0.0f, 0.0f);
	}
#if SHARED
	__shared__ float4 tile[BLOCK];
	for (int t = 0; t < n; t += BLOCK) {
		const int j = t + threadIdx.x;
		/* a body past the end has no mass: it adds zero */
		tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		__syncthreads();
#pragma unroll UNROLL
		for (int u = 0; u < BLOCK; u++)
#pragma unroll
			for (int k = 0; k < ITEMS; k++)
				interact(tile[u], p[k], a[k], eps2);
		__syncthreads();
	}
#else
#pragma unroll UNROLL
	for (int j = 0; j < n; j++) {
		const float4 pj = __ldg(&pos[j]);
#pragma unroll
		for (int k = 0; k < ITEMS; k++)
			interact(pj, p[k], a[k], eps2);
	}
#endif
#pragma unroll
	for (int k = 0; k < ITEMS; k++) {
		const int i = first + k * BLOCK;
		if (i < n)
			acc[i] = make_float4(a[k].x, a[k].y, a[k].z, 0.0f);
	}
}
