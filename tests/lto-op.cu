// The library of the JIT LTO tests, compiled by nvcc (tests/lto.mk): the
// op() that the tests' kernel declares extern, with C++ linkage, so that
// nvcc's mangled name has to match NVRTC's.
__device__ float op(float x)
{
	return 5.0f * x - 2.0f;
}
