# kjit-spec(5) is up to date with its Markdown and formats cleanly.
TESTS += tests/test-man-spec.sh
EXTRA_DIST += tests/test-man-spec.sh
