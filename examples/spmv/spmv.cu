// spmv: y = A x for a sparse n x n matrix A of NNZ entries a row, kept
// as ELLPACK rows (row-major: row r's values at vals[r * NNZ ...], their
// column offsets at cols[r * NNZ ...]). An offset c in [0, 1000) names
// column (r + c - 500) mod n: a band, so that x is gathered from near
// the row, as in the matrices of a mesh.
//
// A block of BLOCK threads works in groups of TPR threads; a group takes
// RPT rows, BLOCK / TPR rows apart, its threads striding over the row's
// entries, and its partial sums meet by warp shuffles within the group.
//
// Tunable parameters (-D defines):
//   BLOCK    threads a block
//   TPR      threads a row (a power of two, at most 32)
//   RPT      rows a group of TPR threads
//   UNROLL   entries a thread's loop issues at once
//   LDG      1: x read through the read-only data cache (__ldg)
// Grid: ceil(n / (BLOCK / TPR * RPT)).

#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef TPR
#define TPR 1
#endif
#ifndef RPT
#define RPT 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef LDG
#define LDG 0
#endif
#define NNZ 32
#define GROUPS (BLOCK / TPR)

extern "C" __global__ void __launch_bounds__(BLOCK)
spmv(int n, const float *__restrict__ vals, const int *__restrict__ cols, const float *x,
     float *__restrict__ y)
{
	const int lane = threadIdx.x % TPR;
	const int first = blockIdx.x * GROUPS * RPT + threadIdx.x / TPR;
#pragma unroll
	for (int j = 0; j < RPT; j++) {
		const int r = first + j * GROUPS;
		float sum = 0.0f;
		/* every lane of the warp reaches the shuffles */
		if (r < n) {
			const size_t row = (size_t)r * NNZ;
#pragma unroll UNROLL
			for (int k = lane; k < NNZ; k += TPR) {
				int c = r + cols[row + k] - 500;
				c += c < 0 ? n : 0;
				c -= c >= n ? n : 0;
#if LDG
				sum += vals[row + k] * __ldg(x + c);
#else
				sum += vals[row + k] * x[c];
#endif
			}
		}
		for (int o = TPR / 2; o > 0; o >>= 1)
			sum += __shfl_down_sync(0xffffffffu, sum, o, TPR);
		if (lane == 0 && r < n)
			y[r] = sum;
	}
}
