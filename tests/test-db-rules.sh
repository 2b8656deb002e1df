#!/bin/sh
# test-db-rules: where a user (nobody) may keep a database, as the
# manual pages' examples do: a sticky world-writable folder (as /tmp) is
# fine for kjit-tune (the forms of kjit-tune(1): --db /tmp/faults.db) and
# kjit-top (kjit-top(1): --db /tmp/sgemm.db); one without the sticky bit
# is refused with its mode (0777), naming the database folder, not the
# GPU worker, and no advice to change a folder's mode; kjit-top, given a
# database there that cannot come, says why. A file: URI as --db or
# KJIT_DB opens nothing. A 0400 -shm left by a read-only time is made
# writable again when it is the user's, and named with its mode when not.
# Runs as root with setpriv(1) only, and where nobody can reach the build
# tree.
set -u
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "needs root and setpriv"
	exit 77
fi
top=$KJIT_BUILDDIR/tui/kjit-top
tune=$KJIT_BUILDDIR/autotune/kjit-tune
faults=$KJIT_SRCDIR/tests/tune-faults.json
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if ! as_nobody test -x "$top" || ! as_nobody test -x "$tune" || ! as_nobody test -r "$faults"
then
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
printf '{"kernel": {"source": "k.cu", "entry": "k"}, "parameters": [{"name": "B", "values": [1, 2], "roles": "define"}]}' > "$tmp/k.json"
printf 'extern "C" __global__ void k(float *p) { p[0] = B; }\n' > "$tmp/k.cu"
chmod 644 "$tmp/k.json" "$tmp/k.cu"

# a sticky world-writable folder of root's, as /tmp
mkdir "$tmp/sticky"
chmod 1777 "$tmp/sticky"
expect 0 "compiled" "$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/sticky/sgemm.db"
[ "$(stat -c %a "$tmp/sticky/sgemm.db")" = 600 ] || fail "the database is not 0600"
expect 0 "kjit-top" "$top" --db "$tmp/sticky/sgemm.db" --once
# the tuning form: without a GPU it stops for want of one, not for the folder
out=$(as_nobody "$tune" "$faults" --timeout 2 --db "$tmp/sticky/faults.db" 2>&1)
case $out in *"can be written by"*|*"database folder"*) fail "refused: $out" ;; esac
echo "ok: kjit-tune $faults --timeout 2 --db STICKY/faults.db: no refusal of the folder"

# world-writable without the sticky bit
mkdir "$tmp/open"
chmod 777 "$tmp/open"
expect 1 "the database folder $tmp/open can be written by every user (mode 0777)" \
	"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/open/k.db"
case $out in *chmod*) fail "advice to chmod a folder: $out" ;; esac
expect 1 "kjit-tune: the database folder $tmp/open can be written by every user (mode 0777)" \
	"$tune" "$faults" --timeout 2 --db "$tmp/open/faults.db"
case $out in *"GPU worker"*) fail "the GPU worker blamed: $out" ;; esac
[ ! -e "$tmp/open/k.db" ] && [ ! -e "$tmp/open/faults.db" ] || fail "a database was made"
expect 1 "no kjit program of yours makes one there: the database folder $tmp/open can be" \
	"$top" --db "$tmp/open/k.db" --once

# file: URIs name no file
mkdir -m 700 "$tmp/own"
chown nobody "$tmp/own"
expect 1 "kjit takes a file name, not a URI" \
	"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "file:$tmp/own/uri.db"
expect 1 "kjit takes a file name, not a URI" \
	env KJIT_DB="file:$tmp/own/uri.db" "$tune" "$tmp/k.json" --compile-only --arch sm_90
expect 1 "kjit takes a file name, not a URI" "$top" --db "file:$tmp/own/uri.db" --once
[ ! -e "$tmp/own/uri.db" ] || fail "the file behind the URI was made"

# a read-only time: the database 0400, read by kjit-top, which leaves a
# -shm of the database's mode; then the mode given back
expect 0 "compiled" "$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/own/k.db"
as_nobody chmod 400 "$tmp/own/k.db"
as_nobody touch "$tmp/own/k.db-shm"
as_nobody chmod 400 "$tmp/own/k.db-shm"
as_nobody chmod 600 "$tmp/own/k.db"
printf '{"kernel": {"source": "k.cu", "entry": "k"}, "parameters": [{"name": "B", "values": [3], "roles": "define"}]}' > "$tmp/k3.json"
chmod 644 "$tmp/k3.json"
expect 0 "compiled 1" "$tune" "$tmp/k3.json" --compile-only --arch sm_90 --db "$tmp/own/k.db"
# one of root's, which nobody cannot change
rm -f "$tmp/own/k.db-shm"
touch "$tmp/own/k.db-shm"
chmod 400 "$tmp/own/k.db-shm"
expect 1 "side file $tmp/own/k.db-shm cannot be written (mode 0400)" \
	"$tune" "$tmp/k.json" --compile-only --arch sm_90 --db "$tmp/own/k.db"
exit 0
