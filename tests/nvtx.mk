# tests of cupti/nvtx.c
