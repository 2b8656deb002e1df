/* A 2D convolution in the form of Kernel Tuner's example: each thread
 * computes tile_size_x x tile_size_y output pixels; the filter is read
 * from constant memory, which the tuner fills from the d_filter argument. */
#define image_width 256
#define image_height 256
#define input_width (image_width + filter_width - 1)

#if read_only == 1
#define LOAD(p, i) __ldg((p) + (i))
#else
#define LOAD(p, i) ((p)[i])
#endif

__constant__ float d_filter[filter_width * filter_height];

extern "C" __global__ void convolution_kernel(float *output, const float *input,
                                              const float *filter)
{
	int x0 = (blockIdx.x * block_size_x * tile_size_x) + threadIdx.x;
	int y0 = (blockIdx.y * block_size_y * tile_size_y) + threadIdx.y;
	(void)filter; /* the same values as d_filter, as Kernel Tuner passes both */
	for (int ty = 0; ty < tile_size_y; ty++)
		for (int tx = 0; tx < tile_size_x; tx++) {
			int x = x0 + tx * block_size_x, y = y0 + ty * block_size_y;
			if (x >= image_width || y >= image_height)
				continue;
			float sum = 0.0f;
			for (int i = 0; i < filter_height; i++)
				for (int j = 0; j < filter_width; j++)
					sum += LOAD(input, (y + i) * input_width + x + j) *
					       d_filter[i * filter_width + j];
			output[y * image_width + x] = sum + 0.0f * use_padding;
		}
}
