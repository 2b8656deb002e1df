#!/bin/sh
# test-man-spec: doc/kjit-spec.5 is what doc/md2man makes of
# doc/spec-format.md now, and groff formats it without a warning.
# Skips without python3; the formatting check needs groff.
src=${KJIT_SRCDIR:-$(dirname "$0")/..}
page=$src/doc/kjit-spec.5
if ! command -v python3 >/dev/null 2>&1; then
	echo "no python3: cannot run doc/md2man"
	exit 77
fi
made=$(mktemp) || exit 1
trap 'rm -f "$made"' EXIT
python3 "$src/doc/md2man" "$src/doc/spec-format.md" > "$made" || exit 1
if ! cmp -s "$made" "$page"; then
	echo "FAIL: doc/kjit-spec.5 is not what doc/md2man makes of doc/spec-format.md;"
	echo "regenerate it from the top of the source tree:"
	echo "  doc/md2man doc/spec-format.md > doc/kjit-spec.5"
	diff -u "$page" "$made" | head -40
	exit 1
fi
if ! command -v groff >/dev/null 2>&1; then
	echo "ok: doc/kjit-spec.5 is up to date (no groff: not formatted)"
	exit 0
fi
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
if [ -n "$warnings" ]; then
	echo "FAIL: groff -man -ww warns of doc/kjit-spec.5:"
	printf '%s\n' "$warnings"
	exit 1
fi
echo "ok: doc/kjit-spec.5 is up to date and groff formats it without a warning"
