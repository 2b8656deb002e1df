/* One argument of each T1 type: the kernel writes every buffer's first
 * element from its own type, so each one's size and kind matter. */
#include <cuda_fp16.h>

struct triple {
	float a, b, c;
};

__constant__ float coeffs[4];
__device__ int counter;

extern "C" __global__ void every_type(bool *b, signed char *i8, unsigned char *u8, short *i16,
                                      unsigned short *u16, int *i32, unsigned *u32,
                                      long long *i64, unsigned long long *u64, __half *h,
                                      float *f, double *d, __half2 *h2, float4 *f4,
                                      double3 *d3, float3 *f3, struct triple *t, int *bat_int,
                                      float *bat_f32, double *bat_f64, int n, float scale,
                                      bool flag)
{
	extern __shared__ float scratch[];
	int i = blockIdx.x * block_size_x + threadIdx.x;
	scratch[threadIdx.x] = (float)i;
	__syncthreads();
	if (i != 0)
		return;
	b[0] = flag;
	i8[0] = (signed char)n;
	u8[0] = (unsigned char)n;
	i16[0] = (short)n;
	u16[0] = (unsigned short)n;
	i32[0] = n + counter;
	u32[0] = (unsigned)n;
	i64[0] = n;
	u64[0] = (unsigned long long)n;
	h[0] = __float2half(scale);
	f[0] = scale * coeffs[0] + scratch[0];
	d[0] = scale;
	h2[0] = __floats2half2_rn(scale, scale);
	f4[0] = make_float4(scale, scale, scale, scale);
	d3[0] = make_double3(scale, scale, scale);
	f3[0] = make_float3(scale, scale, scale);
	t[0].a = scale;
	bat_int[0] = n;
	bat_f32[0] = scale;
	bat_f64[0] = scale;
}
