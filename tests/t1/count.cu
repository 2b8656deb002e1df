/* Counts the elements of x above a threshold, one element per thread. */
extern "C" __global__ void count_above(const float *x, int *hits, int n)
{
	int i = blockIdx.x * block_size_x + threadIdx.x;
	if (i < n && x[i] > 0.5f)
		atomicAdd(hits, 1);
}
