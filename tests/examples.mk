# tests of the tuning examples (CPU only): the specs, their spaces and
# default variants compile; strategies replayed on the recorded SGEMM
# space, recorded on an H200 (tests/data/sgemm-h200.csv; skips without it).
check_PROGRAMS += tests/test-tune-examples tests/test-tune-sgemm-replay
TESTS += tests/test-tune-examples tests/test-tune-sgemm-replay

tests_test_tune_examples_SOURCES = tests/test-tune-examples.c tests/testutil.h
tests_test_tune_examples_CPPFLAGS = $(KJIT_TEST_CPPFLAGS)
tests_test_tune_examples_LDADD = $(KJIT_TEST_LDADD)

tests_test_tune_sgemm_replay_SOURCES = tests/test-tune-sgemm-replay.c tests/testutil.h
tests_test_tune_sgemm_replay_CPPFLAGS = $(KJIT_TUNE_TEST_CPPFLAGS)
tests_test_tune_sgemm_replay_LDADD = $(KJIT_TUNE_TEST_LDADD)
EXTRA_DIST += tests/data/sgemm-h200.csv

# the example programs and the benches without a GPU: no arch of their own
TESTS += tests/test-examples-arch.sh
EXTRA_DIST += tests/test-examples-arch.sh

# the README's main job, with no GPU
TESTS += tests/test-main-job.sh
EXTRA_DIST += tests/test-main-job.sh examples/saxpy/main-job

# kjit-tune --profile and --objective energy on a GPU (exit 77 without one)
TESTS += tests/test-gpu-tune-profile.sh
EXTRA_DIST += tests/test-gpu-tune-profile.sh

# every tuning example tunes and verifies on a GPU (exit 77 without one)
TESTS += tests/test-gpu-examples.sh
EXTRA_DIST += tests/test-gpu-examples.sh tests/gpu-prelude.sh

# the README's main job on a GPU (exit 77 without one)
TESTS += tests/test-gpu-main-job.sh
EXTRA_DIST += tests/test-gpu-main-job.sh
