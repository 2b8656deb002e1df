/* A 2D filter in the form public benchmark kernels take: its tuning
 * parameters are named like identifiers of NVRTC's own headers (pad,
 * size, width, offset, mode, kind), and its filter is a __constant__
 * table declared for the largest filter, of which the spec fills 15 x 15
 * (a MemType Constant argument, which stays a parameter). */
#define image_width 512
#define image_height 512
#define filter_size 15
#define input_width (image_width + filter_size - 1)

__constant__ float d_filter[33 * 33];

extern "C" __global__ void stencil(float *output, const float *input, const float *filter)
{
	(void)filter; /* d_filter's data, passed too, as Kernel Tuner passes it */
	int x0 = blockIdx.x * width * size + threadIdx.x;
	int y = blockIdx.y * offset + threadIdx.y;
	for (int t = 0; t < size; t++) {
		int x = x0 + t * width;
		if (x >= image_width || y >= image_height)
			continue;
		float sum = 0.0f;
#if mode == 1
#pragma unroll
#endif
		for (int i = 0; i < filter_size; i++)
			for (int j = 0; j < filter_size; j++)
				sum += input[(y + i) * input_width + x + j] * d_filter[i * filter_size + j];
		output[y * image_width + x] = sum + (float)(pad * kind) * 0.0f;
	}
}
