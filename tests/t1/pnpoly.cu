/* Point in polygon, in the form of Kernel Tuner's pnpoly example: the
 * polygon's vertices are a __constant__ table, not a parameter. */
#define VERTICES 4

__constant__ float2 d_vertices[VERTICES];

extern "C" __global__ void cn_pnpoly(int *bitmap, float2 *points, int n)
{
	int i = blockIdx.x * block_size_x + threadIdx.x;
	if (i >= n)
		return;
	float2 p = points[i];
	int c = 0;
	for (int j = 0, k = VERTICES - 1; j < VERTICES; k = j++) {
		float2 vj = d_vertices[j], vk = d_vertices[k];
		if (((vj.y > p.y) != (vk.y > p.y)) &&
		    (p.x < (vk.x - vj.x) * (p.y - vj.y) / (vk.y - vj.y) + vj.x))
			c = !c;
	}
	bitmap[i] = c;
}
