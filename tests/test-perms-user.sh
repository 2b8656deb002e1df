#!/bin/sh
# test-perms-user: a database another user cannot reach, or cannot write,
# as that user (nobody) finds it: kjit-top and kjit-tune say which, and
# kjit-top reads a database in a folder it cannot write. Runs as root
# with setpriv(1) only, and where nobody can reach the build tree.
set -u
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "needs root and setpriv"
	exit 77
fi
top=$KJIT_BUILDDIR/tui/kjit-top
tune=$KJIT_BUILDDIR/autotune/kjit-tune
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if ! as_nobody test -x "$top" || ! as_nobody test -x "$tune"; then
	echo "the build tree is out of nobody's reach"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
expect() { # WANT_RC TEXT COMMAND...
	want=$1 text=$2
	shift 2
	out=$(as_nobody "$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $out"
	case $out in *"$text"*) ;; *) fail "$*: no \"$text\" in: $out" ;; esac
	echo "ok: $out" | head -1
}
# a kjit database of one compiled variant
printf '{"kernel": {"source": "k.cu", "entry": "k"}, "parameters": [{"name": "B", "values": [1], "roles": "define"}]}' > "$tmp/k.json"
printf 'extern "C" __global__ void k(float *p) { p[0] = B; }\n' > "$tmp/k.cu"
chmod 644 "$tmp/k.json" "$tmp/k.cu"
"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/made.db" >/dev/null || fail "making the database"
[ ! -s "$tmp/made.db-wal" ] || fail "a -wal file after the writer closed"

mkdir -m 700 "$tmp/locked"
cp "$tmp/made.db" "$tmp/locked/k.db"
expect 1 "cannot reach the database $tmp/locked/k.db: Permission denied" \
	"$top" --db "$tmp/locked/k.db" --once
expect 1 "cannot reach database $tmp/locked/k.db: Permission denied" \
	"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/locked/k.db"

mkdir -m 755 "$tmp/ro"
cp "$tmp/made.db" "$tmp/ro/k.db"
chmod 644 "$tmp/ro/k.db"
expect 0 "kjit-top" "$top" --db "$tmp/ro/k.db" --once
expect 1 "cannot be written by this user" \
	"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/ro/k.db"
