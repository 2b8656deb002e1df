// bgemm: C = A B for each of a batch of 32 x 32 float matrices (each
// row-major, the batch's matrices one after another).
//
// TPM threads take a matrix, MPB matrices a block. A thread computes one
// column's entries in N * N / TPM rows, TPM / N rows apart. B, or A and
// B, can be staged in shared memory first (rows padded by PAD floats);
// otherwise the loads go through the cache.
//
// Tunable parameters (-D defines):
//   TPM     threads a matrix (32 to 1024, a power of two)
//   MPB     matrices a block
//   STAGE   0: nothing staged; 1: B in shared memory; 2: A and B
//   PAD     floats of padding a staged row
//   UNROLL  the inner product's unrolling
// Grid: batch / MPB.

#ifndef TPM
#define TPM 256
#endif
#ifndef MPB
#define MPB 1
#endif
#ifndef STAGE
#define STAGE 0
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#define N 32
#define OPT (N * N / TPM)
#define RSTEP (TPM / N)

#if TPM < N || TPM * MPB > 1024 || MPB * STAGE * (N + PAD) > 384
#error "bgemm: TPM at least 32, TPM * MPB at most 1024 and at most 48 KiB of staged rows"
#endif

#if STAGE >= 2
#define A_AT(r, k) sa[threadIdx.y][r][k]
#else
#define A_AT(r, k) a[(r) * N + (k)]
#endif
#if STAGE >= 1
#define B_AT(k, c) sb[threadIdx.y][k][c]
#else
#define B_AT(k, c) b[(k) * N + (c)]
#endif

extern "C" __global__ void __launch_bounds__(TPM * MPB)
bgemm(int batch, const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C)
{
	const int t = threadIdx.x;
	const size_t off = ((size_t)blockIdx.x * MPB + threadIdx.y) * N * N;
	const float *a = A + off, *b = B + off;
#if STAGE >= 1
	__shared__ float sb[MPB][N][N + PAD];
	for (int i = t; i < N * N; i += TPM)
		sb[threadIdx.y][i / N][i % N] = b[i];
#endif
#if STAGE >= 2
	__shared__ float sa[MPB][N][N + PAD];
	for (int i = t; i < N * N; i += TPM)
		sa[threadIdx.y][i / N][i % N] = a[i];
#endif
#if STAGE >= 1
	__syncthreads();
#endif
	const int col = t % N, row0 = t / N;
	float acc[OPT];
#pragma unroll
	for (int o = 0; o < OPT; o++)
		acc[o] = 0.0f;
#pragma unroll UNROLL
	for (int k = 0; k < N; k++) {
		const float bk = B_AT(k, col);
#pragma unroll
		for (int o = 0; o < OPT; o++)
			acc[o] += A_AT(row0 + o * RSTEP, k) * bk;
	}
#pragma unroll
	for (int o = 0; o < OPT; o++)
		C[off + (size_t)(row0 + o * RSTEP) * N + col] = acc[o];
}
