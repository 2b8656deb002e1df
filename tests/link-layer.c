/*
 * link-layer: nothing to run. Each tests/link-LAYER program links every
 * object of one layer of libkjit with the layers below it and nothing
 * else (tests/layers.mk), so that a call from a layer into one above it
 * is an undefined reference and make check fails to build.
 */
int main(void)
{
	return 0;
}
