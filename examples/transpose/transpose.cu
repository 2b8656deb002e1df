// transpose: out = in^T for a rows x cols matrix of floats (row-major),
// through a TILE x TILE tile of shared memory, so that both the reads of
// in and the writes of out are coalesced.
//
// Tunable parameters (-D defines):
//   TILE        tile side: the block is TILE x BLOCK_ROWS threads
//   BLOCK_ROWS  rows of threads: each thread moves TILE / BLOCK_ROWS
//               elements
//   PAD         0 or 1: a column added to the shared tile; with 1 the
//               column reads of the tile hit distinct banks
// Grid: (cols / TILE, rows / TILE); rows and cols multiples of TILE.

#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif
#ifndef PAD
#define PAD 1
#endif

extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose(int rows, int cols, const float *__restrict__ in, float *__restrict__ out)
{
	__shared__ float tile[TILE][TILE + PAD];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
	for (int j = 0; j < TILE; j += BLOCK_ROWS)
		tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
	for (int j = 0; j < TILE; j += BLOCK_ROWS)
		out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
