# The Python package: its CPU tests (make check) and the files a release
# carries (python/ builds from the tarball as from the tree).
TESTS += tests/test-python.sh
TESTS += tests/test-gpu-python.sh
# pip install ./python with NVIDIA's CUDA 13 wheels and no toolkit (needs the network)
TESTS += tests/test-python-pip.sh
EXTRA_DIST += tests/test-python.sh tests/test-gpu-python.sh tests/test-python-pip.sh \
	tests/python/test_cpu.py tests/python/test_gpu.py \
	python/setup.py python/pyproject.toml python/README.md \
	python/src/kjitpy.h python/src/dlpack.h python/src/module.c python/src/engine.c \
	python/src/kernel.c python/src/args.c python/src/spec.c python/src/search.c \
	python/kjit/__init__.py python/kjit/__init__.pyi python/kjit/py.typed \
	python/kjit/_types.py python/kjit/tuning.py python/kjit/kernel_tuner.py \
	bench/python-launch.py bench/python-kt.py
