// pnpoly: for each of n points, whether it lies inside a polygon of nv
// vertices, by the even-odd rule: a ray from the point to +x crosses the
// polygon's edges an odd number of times. Points and vertices are (x, y)
// pairs of floats; the polygon may cross itself.
//
// Each block copies the polygon to shared memory; a thread tests TILE
// points (BLOCK apart, so that loads coalesce) against each edge in turn,
// so that an edge read from shared memory serves TILE tests.
//
// Tunable parameters (-D defines):
//   BLOCK     threads a block
//   TILE      points a thread
//   BETWEEN   how a test finds that an edge spans the point's y (0-3; all
//             four agree at every input, ties included)
//   SLOPES    1: the block computes each edge's slope once, in shared
//             memory; 0: each test divides
//   COUNT     1: counts crossings, the parity at the end; 0: flips a flag
// Grid: ceil(n / (BLOCK * TILE)). nv is at most MAX_VERTICES.

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef TILE
#define TILE 1
#endif
#ifndef BETWEEN
#define BETWEEN 0
#endif
#ifndef SLOPES
#define SLOPES 0
#endif
#ifndef COUNT
#define COUNT 0
#endif
#define MAX_VERTICES 1024

// Whether y lies in [lo, hi) of the edge's two ends, in either order.
static __device__ __forceinline__ bool spans(float py, float y1, float y2)
{
#if BETWEEN == 0
	return (y1 > py) != (y2 > py);
#elif BETWEEN == 1
	return ((int)(y1 > py) ^ (int)(y2 > py)) != 0;
#elif BETWEEN == 2
	return fminf(y1, y2) <= py && py < fmaxf(y1, y2);
#else
	return (y1 <= py && py < y2) || (y2 <= py && py < y1);
#endif
}

extern "C" __global__ void __launch_bounds__(BLOCK)
pnpoly(int n, int nv, const float2 *__restrict__ points, const float2 *__restrict__ vertices,
       int *__restrict__ inside)
{
	__shared__ float2 v[MAX_VERTICES];
#if SLOPES
	__shared__ float slope[MAX_VERTICES];
#endif
	for (int i = threadIdx.x; i < nv; i += BLOCK)
		v[i] = vertices[i];
	__syncthreads();
#if SLOPES
	for (int i = threadIdx.x; i < nv; i += BLOCK) {
		const float2 a = v[i], b = v[i == 0 ? nv - 1 : i - 1];
		slope[i] = (a.x - b.x) / (a.y - b.y);
	}
	__syncthreads();
#endif
	const int first = blockIdx.x * BLOCK * TILE + threadIdx.x;
	float px[TILE], py[TILE];
#if COUNT
	int c[TILE];
#else
	bool c[TILE];
#endif
#pragma unroll
	for (int t = 0; t < TILE; t++) {
		const int i = first + t * BLOCK;
		const float2 p = i < n ? points[i] : make_float2(0.0f, 0.0f);
		px[t] = p.x;
		py[t] = p.y;
		c[t] = 0;
	}
	for (int j = 0; j < nv; j++) {
		const float2 a = v[j], b = v[j == 0 ? nv - 1 : j - 1];
#if SLOPES
		const float s = slope[j];
#endif
#pragma unroll
		for (int t = 0; t < TILE; t++) {
#if !SLOPES
			const float s = (a.x - b.x) / (a.y - b.y);
#endif
			const bool cross = spans(py[t], a.y, b.y) && px[t] < (py[t] - b.y) * s + b.x;
#if COUNT
			c[t] += cross;
#else
			c[t] ^= cross;
#endif
		}
	}
#pragma unroll
	for (int t = 0; t < TILE; t++) {
		const int i = first + t * BLOCK;
		if (i < n)
			inside[i] = c[t] & 1;
	}
}
