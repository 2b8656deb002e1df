# benchmarks of cupti/timing.c and protocol.c
