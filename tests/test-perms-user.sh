#!/bin/sh
# test-perms-user: a database another user cannot reach, or cannot write,
# as that user (nobody) finds it: kjit-top and kjit-tune say which, and
# kjit-top reads a database in a folder it cannot write; one of another
# user's (uid 1) is refused by kjit-tune and shown by kjit-top; nobody's
# own database made read-only stops --compile-only at its first binary.
# Runs as root with setpriv(1) only, and where nobody can reach the build
# tree.
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

# a database of another user's (uid 1, daemon on most systems): kjit-tune
# refuses it, kjit-top, which only displays, shows it
mkdir -m 755 "$tmp/theirs"
cp "$tmp/made.db" "$tmp/theirs/k.db"
chown 1 "$tmp/theirs/k.db" || fail "chown 1"
chmod 644 "$tmp/theirs/k.db"
expect 1 "$tmp/theirs/k.db belongs to another user (" \
	"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/theirs/k.db"
case $out in *"uid 1)"*) ;; *) fail "no owner in: $out" ;; esac
expect 0 "kjit-top" "$top" --db "$tmp/theirs/k.db" --once

# nobody's own database made read-only: --compile-only of 300 variants
# stops at the first binary it cannot keep, saying why once
mkdir -m 700 "$tmp/own"
chown nobody "$tmp/own"
as_nobody "$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/own/k.db" >/dev/null ||
	fail "making nobody's database"
as_nobody chmod 400 "$tmp/own/k.db"
values=$(seq -s, 100 399)
printf '{"kernel": {"source": "k.cu", "entry": "k"}, "parameters": [{"name": "B", "values": [%s], "roles": "define"}]}' \
	"$values" > "$tmp/k300.json"
chmod 644 "$tmp/k300.json"
expect 1 "stopping: the database cannot keep binaries: " \
	"$tune" "$tmp/k300.json" --compile-only --arch sm_90 --db "$tmp/own/k.db" -j 2
case $out in *"attempt to write a readonly database"*) ;; *) fail "no reason in: $out" ;; esac
[ "$(printf '%s\n' "$out" | grep -c 'cannot keep binaries')" = 1 ] || fail "not said once: $out"
compiled=$(printf '%s\n' "$out" | sed -n 's/^variants 300: compiled \([0-9]*\),.*stopped: the database failed$/\1/p')
[ -n "$compiled" ] && [ "$compiled" -lt 100 ] || fail "not stopped early: $out"
echo "ok: stopped after $compiled of 300 compiled"
