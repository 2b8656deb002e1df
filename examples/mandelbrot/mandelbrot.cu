// mandelbrot: the escape count (at most MAX_ITER) of each pixel of a
// width x height image of the square [-2, 0.5] x [-1.25, 1.25].
//
// A block of BX x BY threads covers BX * PX x BY * PY pixels: each
// thread takes PX x PY of them, side by side or a block's width apart
// (SPREAD), and iterates them together, so that one pixel's dependent
// chain of multiply-adds hides behind another's. The arithmetic is
// rounded step by step (no contraction into fused multiply-adds), so
// that every configuration counts exactly as every other.
//
// Tunable parameters (-D defines):
//   BX, BY    block of BX x BY threads
//   PX, PY    pixels a thread in x and in y
//   SPREAD    1: a thread's pixels BX (BY) apart; 0: adjacent
//   UNROLL    unrolling of the iteration loop
// Grid: ceil(width / (BX * PX)) x ceil(height / (BY * PY)).

#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#ifndef PX
#define PX 1
#endif
#ifndef PY
#define PY 1
#endif
#ifndef SPREAD
#define SPREAD 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#define MAX_ITER 256
#define P (PX * PY)

extern "C" __global__ void __launch_bounds__(BX * BY)
mandelbrot(int width, int height, int *__restrict__ count)
{
	float cr[P], ci[P], zr[P], zi[P];
	int n[P], px[P], py[P];
#pragma unroll
	for (int i = 0; i < P; i++) {
		const int dx = i % PX, dy = i / PX;
#if SPREAD
		px[i] = blockIdx.x * BX * PX + dx * BX + threadIdx.x;
		py[i] = blockIdx.y * BY * PY + dy * BY + threadIdx.y;
#else
		px[i] = (blockIdx.x * BX + threadIdx.x) * PX + dx;
		py[i] = (blockIdx.y * BY + threadIdx.y) * PY + dy;
#endif
		cr[i] = __fadd_rn(-2.0f, __fdiv_rn(__fmul_rn(2.5f, (float)px[i]), (float)width));
		ci[i] = __fadd_rn(-1.25f, __fdiv_rn(__fmul_rn(2.5f, (float)py[i]), (float)height));
		zr[i] = zi[i] = 0.0f;
		n[i] = 0;
	}
	/* every pixel steps until it escapes; the loop ends when all have */
#pragma unroll UNROLL
	for (int it = 0; it < MAX_ITER; it++) {
		int busy = 0;
#pragma unroll
		for (int i = 0; i < P; i++) {
			const float r2 = __fmul_rn(zr[i], zr[i]), i2 = __fmul_rn(zi[i], zi[i]);
			const int go = __fadd_rn(r2, i2) <= 4.0f;
			if (go) {
				zi[i] = __fadd_rn(__fmul_rn(2.0f * zr[i], zi[i]), ci[i]);
				zr[i] = __fadd_rn(__fsub_rn(r2, i2), cr[i]);
				n[i]++;
			}
			busy |= go;
		}
		if (!busy)
			break;
	}
#pragma unroll
	for (int i = 0; i < P; i++)
		if (px[i] < width && py[i] < height)
			count[(size_t)py[i] * width + px[i]] = n[i];
}
