# The example specs with their kernels (kjit-spec(5)), shipped and
# installed under $(pkgdatadir)/examples in the tree's layout, so that
# each spec still finds its kernel.
nobase_dist_pkgdata_DATA = \
	examples/saxpy/saxpy.cu examples/saxpy/saxpy.json examples/saxpy/saxpy-t1.json \
	examples/reduction/reduction.cu examples/reduction/reduction.json \
	examples/transpose/transpose.cu examples/transpose/transpose.json \
	examples/sgemm/sgemm.cu examples/sgemm/sgemm.json \
	examples/stencil/stencil.cu examples/stencil/stencil.json \
	examples/pnpoly/pnpoly.cu examples/pnpoly/pnpoly.json \
	examples/histogram/histogram.cu examples/histogram/histogram.json \
	examples/nbody/nbody.cu examples/nbody/nbody.json \
	examples/gemv/gemv.cu examples/gemv/gemv.json \
	examples/softmax/softmax.cu examples/softmax/softmax.json \
	examples/spmv/spmv.cu examples/spmv/spmv.json \
	examples/mandelbrot/mandelbrot.cu examples/mandelbrot/mandelbrot.json \
	examples/stencil3d/stencil3d.cu examples/stencil3d/stencil3d.json \
	examples/scan/scan.cu examples/scan/scan.json \
	examples/bgemm/bgemm.cu examples/bgemm/bgemm.json \
	examples/fir/fir.cu examples/fir/fir.json \
	examples/gather/gather.cu examples/gather/gather.json \
	examples/lto/map.cu examples/lto/map.json examples/lto/op-square.cu \
	examples/lto/op-affine.cu
