# Tuning examples: kjit-tune specs with their kernels (doc/spec-format.md).
EXTRA_DIST += \
	examples/reduction/reduction.cu examples/reduction/reduction.json \
	examples/transpose/transpose.cu examples/transpose/transpose.json \
	examples/sgemm/sgemm.cu examples/sgemm/sgemm.json \
	examples/stencil/stencil.cu examples/stencil/stencil.json
