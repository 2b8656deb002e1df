# tests of cupti/timing.c
