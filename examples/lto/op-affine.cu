// A library for map.cu: op(x) = 3x + 1.
__device__ float op(float x)
{
	return 3.0f * x + 1.0f;
}
