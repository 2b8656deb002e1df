// sgemm: C = alpha * A B + beta * C, row-major, M x K times K x N, tiled
// through shared memory; one thread per element of C.
//
// Tunable parameters:
//   TILE   the tile edge (8, 16, 32): block TILE x TILE, a -D define
//   FAST   NVRTC flags: "" or "--use_fast_math"
// Grid: (ceil(N / TILE), ceil(M / TILE)), computed by the program's callback.

#ifndef TILE
#define TILE 16
#endif

extern "C" __global__ void __launch_bounds__(TILE * TILE)
sgemm(int M, int N, int K, float alpha, const float *__restrict__ A,
      const float *__restrict__ B, float beta, float *__restrict__ C)
{
	__shared__ float As[TILE][TILE], Bs[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float acc = 0.0f;
	for (int t = 0; t < K; t += TILE) {
		As[ty][tx] = row < M && t + tx < K ? A[(long long)row * K + t + tx] : 0.0f;
		Bs[ty][tx] = t + ty < K && col < N ? B[(long long)(t + ty) * N + col] : 0.0f;
		__syncthreads();
#pragma unroll
		for (int k = 0; k < TILE; k++)
			acc += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(long long)row * N + col] = alpha * acc + beta * C[(long long)row * N + col];
}
