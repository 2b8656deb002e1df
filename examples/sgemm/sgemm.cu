// sgemm: C = alpha * A * B + beta * C in fp32 (no tensor cores), row-major,
// A is m x k, B is k x n, C is m x n.
//
// Each block computes a BM x BN tile of C, stepping through k by BK: the
// A tile is stored transposed in shared memory so that a thread reads its
// TM values of A and TN values of B as float4s, and keeps a TM x TN tile of
// C in registers. A thread's rows (and columns) come in groups of four
// spaced by 4 * (threads along that side), so that the float4 reads of a
// warp fall on consecutive addresses (no bank conflicts).
//
// Tunable parameters (-D defines):
//   BM, BN, BK   block tile (m, n, k)
//   TM, TN       thread tile, multiples of 4
//   THREADS      threads per block: (BM / TM) * (BN / TN), the block size
//   PAD          floats added to each shared row; breaks the bank
//                conflicts of the transposed A stores
//   DOUBLE_BUF   1: the next k tile is loaded into registers while this one
//                is computed, into a second shared buffer (one barrier per
//                step)
//   MIN_BLOCKS   __launch_bounds__ minimum blocks per SM (caps registers)
// Grid: (n / BN, m / BM); m, n, k must be multiples of the tiles.
//
// sgemm_reference is the naive kernel used to check the results: one
// output per thread in a grid-stride loop, correct for any launch shape.

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
/* Kernel Tuner's and T1's name for the block size (bench/t1/gemm.json) */
#if !defined(THREADS) && defined(block_size_x)
#define THREADS block_size_x
#endif
#ifndef THREADS
#define THREADS ((BM / TM) * (BN / TN))
#endif
#ifndef PAD
#define PAD 4
#endif
#ifndef DOUBLE_BUF
#define DOUBLE_BUF 1
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

#define T_N (BN / TN) /* threads along n */
#define T_M (BM / TM) /* threads along m */
#define A_LOADS (BM * BK / 4 / THREADS) /* float4 loads of A per thread and tile */
#define B_LOADS (BK * BN / 4 / THREADS)
#define NBUF (DOUBLE_BUF + 1)

#if THREADS != T_M * T_N || TM % 4 != 0 || TN % 4 != 0 || BK % 4 != 0 || \
	(BM * BK / 4) % THREADS != 0 || (BK * BN / 4) % THREADS != 0
#error "sgemm: inconsistent tile parameters"
#endif

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
sgemm(int m, int n, int k, float alpha, const float *__restrict__ A,
      const float *__restrict__ B, float beta, float *__restrict__ C)
{
	__shared__ __align__(16) float As[NBUF][BK][BM + PAD];
	__shared__ __align__(16) float Bs[NBUF][BK][BN + PAD];
	const int tid = threadIdx.x;
	const int tx = tid % T_N, ty = tid / T_N;
	const float *a = A + (size_t)blockIdx.y * BM * k;
	const float *b = B + (size_t)blockIdx.x * BN;
	float4 ra[A_LOADS], rb[B_LOADS];
	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	// Global to registers: A as rows of BK / 4 float4s, B as rows of BN / 4.
#define LOAD_TILE(k0)                                                              \
	do {                                                                       \
		_Pragma("unroll") for (int l = 0; l < A_LOADS; l++) {              \
			int e = tid + l * THREADS;                                 \
			ra[l] = *(const float4 *)&a[(size_t)(e / (BK / 4)) * k +   \
			                            (k0) + (e % (BK / 4)) * 4];    \
		}                                                                  \
		_Pragma("unroll") for (int l = 0; l < B_LOADS; l++) {              \
			int e = tid + l * THREADS;                                 \
			rb[l] = *(const float4 *)&b[(size_t)((k0) + e / (BN / 4)) * n + \
			                            (e % (BN / 4)) * 4];           \
		}                                                                  \
	} while (0)
	// Registers to shared memory buffer s, A transposed.
#define STORE_TILE(s)                                                              \
	do {                                                                       \
		_Pragma("unroll") for (int l = 0; l < A_LOADS; l++) {              \
			int e = tid + l * THREADS;                                 \
			int row = e / (BK / 4), kk = (e % (BK / 4)) * 4;           \
			As[s][kk + 0][row] = ra[l].x;                              \
			As[s][kk + 1][row] = ra[l].y;                              \
			As[s][kk + 2][row] = ra[l].z;                              \
			As[s][kk + 3][row] = ra[l].w;                              \
		}                                                                  \
		_Pragma("unroll") for (int l = 0; l < B_LOADS; l++) {              \
			int e = tid + l * THREADS;                                 \
			*(float4 *)&Bs[s][e / (BN / 4)][(e % (BN / 4)) * 4] = rb[l]; \
		}                                                                  \
	} while (0)

	LOAD_TILE(0);
	STORE_TILE(0);
	__syncthreads();
	int buf = 0;
	for (int k0 = 0; k0 < k; k0 += BK) {
		const int more = k0 + BK < k;
		if (DOUBLE_BUF && more)
			LOAD_TILE(k0 + BK);
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float av[TM], bv[TN];
#pragma unroll
			for (int r = 0; r < TM / 4; r++)
				*(float4 *)&av[r * 4] = *(const float4 *)&As[buf][kk][r * T_M * 4 + ty * 4];
#pragma unroll
			for (int c = 0; c < TN / 4; c++)
				*(float4 *)&bv[c * 4] = *(const float4 *)&Bs[buf][kk][c * T_N * 4 + tx * 4];
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		if (DOUBLE_BUF) {
			if (more)
				STORE_TILE(buf ^ 1);
			__syncthreads();
			buf ^= DOUBLE_BUF;
		} else if (more) {
			__syncthreads();
			LOAD_TILE(k0 + BK);
			STORE_TILE(0);
			__syncthreads();
		}
	}

	float *c = C + (size_t)blockIdx.y * BM * n + (size_t)blockIdx.x * BN;
#pragma unroll
	for (int r = 0; r < TM / 4; r++)
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int row = r * T_M * 4 + ty * 4 + i;
#pragma unroll
			for (int cc = 0; cc < TN / 4; cc++) {
				float4 *p = (float4 *)&c[(size_t)row * n + cc * T_N * 4 + tx * 4];
				float4 v = *p;
				const float *t = &acc[r * 4 + i][cc * 4];
				v.x = alpha * t[0] + beta * v.x;
				v.y = alpha * t[1] + beta * v.y;
				v.z = alpha * t[2] + beta * v.z;
				v.w = alpha * t[3] + beta * v.w;
				*p = v;
			}
		}
}

extern "C" __global__ void
sgemm_reference(int m, int n, int k, float alpha, const float *__restrict__ A,
                const float *__restrict__ B, float beta, float *__restrict__ C)
{
	size_t threads = (size_t)blockDim.x * blockDim.y * blockDim.z;
	size_t block = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
	size_t first = block * threads +
	               ((size_t)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
	size_t stride = threads * gridDim.x * gridDim.y * gridDim.z;
	for (size_t e = first; e < (size_t)m * n; e += stride) {
		size_t row = e / n, col = e % n;
		float s = 0.0f;
		for (int l = 0; l < k; l++)
			s = fmaf(A[row * k + l], B[(size_t)l * n + col], s);
		C[e] = alpha * s + beta * C[e];
	}
}
