# kjit-spec(5) is up to date with its Markdown and formats cleanly.
TESTS += tests/test-man-spec.sh
EXTRA_DIST += tests/test-man-spec.sh

# the man pages agree on their date and version; kjit-tune(1) FILES names
# every example
TESTS += tests/test-man-pages.sh
EXTRA_DIST += tests/test-man-pages.sh

# the README's commands are the tree's and CI's
TESTS += tests/test-readme.sh
EXTRA_DIST += tests/test-readme.sh
