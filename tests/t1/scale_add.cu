/* result = 2 a + scalar b, one element per thread; the
 * form of KTT's tuning-file tutorial. */
extern "C" __global__ void scale_add(const float *a, const float *b, float *result,
                                     float scalar, int n)
{
	int i = blockIdx.x * multiply_block_size + threadIdx.x;
	if (i < n)
		result[i] = 2.0f * a[i] + scalar * b[i];
}
