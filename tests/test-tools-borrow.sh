#!/bin/sh
# test-tools-borrow: kjit-tune and kjit-top call no kjit__ function of the
# library beyond their lists in src/tuning/tools.h (nm of their objects).
src=${KJIT_SRCDIR:-$(dirname "$0")/..}
build=${KJIT_BUILDDIR:-.}
header=$src/src/tuning/tools.h
# the names X(...) of one list: from its #define to the next blank line
listed() {
	sed -n "/^#define $1(X)/,/^\$/p" "$header" | grep -o 'X(kjit__[a-z0-9_]*)' |
		sed 's/^X(\(.*\))$/\1/' | sort -u
}
status=0
check() {
	tool=$1 list=$2
	shift 2
	for o in "$@"; do
		if [ ! -f "$o" ]; then
			echo "no $o: build $tool first"
			exit 99
		fi
	done
	used=$(nm -u "$@" | awk '{print $NF}' | grep '^kjit__' | sort -u)
	allowed=$(listed "$list")
	if [ -z "$allowed" ]; then
		echo "FAIL: no $list list in $header"
		exit 1
	fi
	stray=$(printf '%s\n' "$used" | grep -vxF "$allowed")
	if [ -n "$stray" ]; then
		echo "FAIL: $tool uses kjit__ names that $header does not list for it:"
		printf '  %s\n' $stray
		status=1
		return
	fi
	echo "ok: $tool uses $(printf '%s\n' "$used" | grep -c .) of the $(printf '%s\n' \
		"$allowed" | grep -c .) kjit__ names listed for it, and $(nm -u "$@" | awk '{print $NF}' |
		grep '^kjit_[a-z]' | sort -u | grep -c .) kjit_ names"
}
check kjit-tune KJIT_TOOLS_TUNE "$build"/autotune/kjit_tune-main.o "$build"/autotune/libkt_*.a
check kjit-top KJIT_TOOLS_TOP "$build"/tui/kjit_top-*.o
exit $status
