// tune-faults: one kernel whose MODE parameter picks a behaviour, so that
// kjit-tune's statuses can each be provoked on a GPU (tests/test-gpu-tune):
//   0 correct saxpy (the default: the reference output)
//   1 writes to an illegal address            -> crashed
//   2 spins forever                            -> timeout
//   3 holds 128+ values in registers at 1024
//     threads per block                        -> launch_error
//   4 adds 1 to every element                  -> wrong_result
//   5 does not compile                         -> compile_error
// faults_ref, last, is the reference kernel of tests/tune-reference.json.

#ifndef MODE
#define MODE 0
#endif
#if MODE == 5
static_assert(MODE != 5, "MODE 5 does not compile");
#endif

extern "C" __global__ void faults(long long n, float a, const float *x, float *y)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
#if MODE == 1
	if (i == 0)
		*(volatile float *)8 = a;
#elif MODE == 2
	while (n > 0)
		__nanosleep(1000);
#elif MODE == 3
	/* volatile loads happen once each, in order: all 128 stay live */
	const volatile float *vx = x;
	float v[128];
#pragma unroll
	for (int k = 0; k < 128; k++)
		v[k] = vx[k];
	float s = 0;
#pragma unroll
	for (int r = 1; r < 4; r++)
#pragma unroll
		for (int k = 0; k < 128; k++)
			s += v[k] * v[(k + r) % 128];
	if (i < n)
		y[i] = a * x[i] + y[i] + s * 0.0f;
	return;
#endif
	if (i < n)
		y[i] = a * x[i] + y[i] + (MODE == 4 ? 1.0f : 0.0f);
}

// The reference of tests/tune-reference.json: saxpy written plainly.
extern "C" __global__ void faults_ref(long long n, float a, const float *x, float *y)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}
