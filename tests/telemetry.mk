# tests of cupti/telemetry.c
