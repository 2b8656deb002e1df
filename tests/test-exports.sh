#!/bin/sh
# test-exports: the shared libkjit exports the kjit_ API of kjit.h and
# nothing else (the kjit__ internals are linked by the tools themselves).
# Skips where no shared library was built (--disable-shared).
lib=.libs/libkjit.so
header=${KJIT_SRCDIR:-$(dirname "$0")/..}/include/kjit.h
if [ ! -f "$lib" ]; then
	echo "no $lib: a static build"
	exit 77
fi
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
stray=$(printf '%s\n' "$exports" | grep -v '^kjit_[a-z]' | grep -v '^_')
if [ -n "$stray" ]; then
	echo "FAIL: $lib exports names outside the kjit_ API:"
	printf '  %s\n' $stray
	exit 1
fi
# every function kjit.h declares is there
missing=
for f in $(sed -n 's/.*[^a-z_]\(kjit_[a-z][a-z0-9_]*\)(.*/\1/p' "$header" | sort -u); do
	printf '%s\n' "$exports" | grep -qx "$f" || missing="$missing $f"
done
if [ -n "$missing" ]; then
	echo "FAIL: declared in kjit.h, not exported:$missing"
	exit 1
fi
echo "ok: $(printf '%s\n' "$exports" | wc -l) exported names, all kjit_, every function of kjit.h among them"
