// stencil3d: one Jacobi step of the 3D 7-point stencil on an nx x ny x nz
// grid of floats (x fastest):
//   out = c0 * in + c1 * (the six face neighbours' sum)
// inside, out = in on the border.
//
// A block of BX x BY threads covers a BX x BY column of the xy plane and
// ZCHUNK planes of it, marching along z: a thread keeps the planes below
// and above its cell in registers, so that each plane is read once.
//
// Tunable parameters (-D defines):
//   BX, BY    block of BX x BY threads
//   ZCHUNK    planes a thread marches through
//   SHARED    1: each plane's tile (with its one-cell halo) staged in
//             shared memory for the x and y neighbours; 0: read through
//             the cache
//   UNROLL    the march's unrolling
// Grid: (nx / BX, ny / BY, nz / ZCHUNK); the sizes must divide.

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 4
#endif
#ifndef ZCHUNK
#define ZCHUNK 1
#endif
#ifndef SHARED
#define SHARED 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

#if BX * BY < 64 || BX * BY > 1024
#error "stencil3d: BX * BY must be 64 to 1024"
#endif
#if UNROLL > ZCHUNK
#error "stencil3d: UNROLL must not exceed ZCHUNK"
#endif

extern "C" __global__ void __launch_bounds__(BX * BY)
stencil3d(int nx, int ny, int nz, float c0, float c1, const float *__restrict__ in,
          float *__restrict__ out)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
	const int z0 = blockIdx.z * ZCHUNK;
	const size_t plane = (size_t)nx * ny;
	const size_t xy = (size_t)y * nx + x;
	const bool inner_xy = x > 0 && x < nx - 1 && y > 0 && y < ny - 1;
	float below = z0 > 0 ? in[(size_t)(z0 - 1) * plane + xy] : 0.0f;
	float mid = in[(size_t)z0 * plane + xy];
#if SHARED
	__shared__ float tile[BY + 2][BX + 2];
#endif
#pragma unroll UNROLL
	for (int i = 0; i < ZCHUNK; i++) {
		const int z = z0 + i;
		const size_t at = (size_t)z * plane + xy;
		const float above = z + 1 < nz ? in[at + plane] : 0.0f;
#if SHARED
		__syncthreads(); /* the plane before is read */
		tile[ty + 1][tx + 1] = mid;
		if (tx == 0)
			tile[ty + 1][0] = x > 0 ? in[at - 1] : 0.0f;
		if (tx == BX - 1)
			tile[ty + 1][BX + 1] = x + 1 < nx ? in[at + 1] : 0.0f;
		if (ty == 0)
			tile[0][tx + 1] = y > 0 ? in[at - nx] : 0.0f;
		if (ty == BY - 1)
			tile[BY + 1][tx + 1] = y + 1 < ny ? in[at + nx] : 0.0f;
		__syncthreads();
		const float w = tile[ty + 1][tx], e = tile[ty + 1][tx + 2];
		const float s = tile[ty][tx + 1], n = tile[ty + 2][tx + 1];
#else
		const float w = inner_xy ? in[at - 1] : 0.0f, e = inner_xy ? in[at + 1] : 0.0f;
		const float s = inner_xy ? in[at - nx] : 0.0f, n = inner_xy ? in[at + nx] : 0.0f;
#endif
		float v = mid;
		if (inner_xy && z > 0 && z < nz - 1)
			v = c0 * mid + c1 * (((w + e) + (s + n)) + (below + above));
		out[at] = v;
		below = mid;
		mid = above;
	}
}
