// fir: y[i] = sum over k < taps of h[k] * x[i + k], for i in [0, n): a FIR
// filter (a 1D correlation) of n outputs from n + taps - 1 inputs.
//
// A thread computes OUT consecutive outputs, each summing its taps in
// order with fmaf, so that every configuration gives the same bits. The
// inputs come from global memory through the cache (TILE 0) or from the
// block's span staged in shared memory (TILE 1); the taps from global
// memory, one address for the whole warp (COEF 0), or staged in shared
// memory (COEF 1). With SLIDE 1 a thread keeps a window of OUT inputs in
// registers and reads one new input a tap; with SLIDE 0 it reads its OUT
// inputs again at every tap.
//
// Tunable parameters (-D defines):
//   BLOCK   threads a block
//   OUT     outputs a thread
//   TILE    1: the block's inputs staged in shared memory
//   COEF    1: the taps staged in shared memory
//   SLIDE   1: a sliding window of inputs in registers
//   UNROLL  the tap loop's unrolling
// Grid: n / (BLOCK * OUT), which must divide. Dynamic shared memory, in
// floats: BLOCK * OUT + taps - 1 (TILE 1), then taps (COEF 1).

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef OUT
#define OUT 1
#endif
#ifndef TILE
#define TILE 0
#endif
#ifndef COEF
#define COEF 0
#endif
#ifndef SLIDE
#define SLIDE 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#if OUT < 1 || BLOCK < 32 || BLOCK > 1024
#error "fir: OUT at least 1, BLOCK 32 to 1024"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
fir(int n, int taps, const float *__restrict__ h, const float *__restrict__ x,
    float *__restrict__ y)
{
	extern __shared__ float smem[];
	const int span = BLOCK * OUT;
	const int base = blockIdx.x * span;
	const int i0 = base + threadIdx.x * OUT;
#if TILE
	float *xs = smem;
	for (int i = threadIdx.x; i < span + taps - 1; i += BLOCK)
		xs[i] = x[base + i];
#define XIN(i) xs[(i) - base]
#else
#define XIN(i) __ldg(&x[i])
#endif
#if COEF
	float *hs = smem + TILE * (span + taps - 1);
	for (int k = threadIdx.x; k < taps; k += BLOCK)
		hs[k] = h[k];
#define TAP(k) hs[k]
#else
#define TAP(k) __ldg(&h[k])
#endif
#if TILE || COEF
	__syncthreads();
#endif
	float acc[OUT];
#pragma unroll
	for (int j = 0; j < OUT; j++)
		acc[j] = 0.0f;
#if SLIDE
	float w[OUT];
#pragma unroll
	for (int j = 0; j < OUT; j++)
		w[j] = XIN(i0 + j);
	{
		const float h0 = TAP(0);
#pragma unroll
		for (int j = 0; j < OUT; j++)
			acc[j] = fmaf(h0, w[j], acc[j]);
	}
#pragma unroll UNROLL
	for (int k = 1; k < taps; k++) {
#pragma unroll
		for (int j = 0; j < OUT - 1; j++)
			w[j] = w[j + 1];
		w[OUT - 1] = XIN(i0 + OUT - 1 + k);
		const float hk = TAP(k);
#pragma unroll
		for (int j = 0; j < OUT; j++)
			acc[j] = fmaf(hk, w[j], acc[j]);
	}
#else
#pragma unroll UNROLL
	for (int k = 0; k < taps; k++) {
		const float hk = TAP(k);
#pragma unroll
		for (int j = 0; j < OUT; j++)
			acc[j] = fmaf(hk, XIN(i0 + j + k), acc[j]);
	}
#endif
#pragma unroll
	for (int j = 0; j < OUT; j++)
		y[i0 + j] = acc[j];
}
