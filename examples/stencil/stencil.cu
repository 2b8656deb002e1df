// stencil: one Jacobi step of the 2D 5-point stencil on a rows x cols grid
// of floats (row-major):
//   out[y][x] = c0 * in[y][x] + c1 * (in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1])
// inside, out = in on the border.
//
// A thread computes ITEMS_Y consecutive rows of one column, sliding three
// rows of in through registers so that each row is read once from memory
// (the left and right neighbours come from the cache).
//
// Tunable parameters (-D defines):
//   BX, BY    block of BX x BY threads
//   ITEMS_Y   rows per thread
// Grid: (cols / BX, rows / (BY * ITEMS_Y)); the sizes must divide.

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
#ifndef ITEMS_Y
#define ITEMS_Y 1
#endif

extern "C" __global__ void __launch_bounds__(BX * BY)
stencil5(int rows, int cols, float c0, float c1, const float *__restrict__ in,
         float *__restrict__ out)
{
	const int x = blockIdx.x * BX + threadIdx.x;
	const int y0 = (blockIdx.y * BY + threadIdx.y) * ITEMS_Y;
	const bool inner_x = x > 0 && x < cols - 1;
	float up = y0 > 0 ? in[(size_t)(y0 - 1) * cols + x] : 0.0f;
	float mid = in[(size_t)y0 * cols + x];
#pragma unroll
	for (int i = 0; i < ITEMS_Y; i++) {
		const int y = y0 + i;
		const size_t at = (size_t)y * cols + x;
		float down = y + 1 < rows ? in[at + cols] : 0.0f;
		float v = mid;
		if (inner_x && y > 0 && y < rows - 1)
			v = c0 * mid + c1 * ((up + down) + (in[at - 1] + in[at + 1]));
		out[at] = v;
		up = mid;
		mid = down;
	}
}
