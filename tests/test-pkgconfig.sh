#!/bin/sh
# test-pkgconfig: a program links statically against libkjit.a with what
# `pkg-config --static --libs libkjit` says (the generated libkjit.pc of
# this build, its -L${libdir} -lkjit pointed at the built archive).
# Skips without pkg-config, a C compiler or a static library.
src=${KJIT_SRCDIR:-$(dirname "$0")/..}
if [ ! -f .libs/libkjit.a ] || ! command -v pkg-config >/dev/null; then
	echo "no static library or no pkg-config"
	exit 77
fi
libs=$(PKG_CONFIG_PATH=. pkg-config --static --libs libkjit) || exit 1
libs=$(printf '%s\n' "$libs" | sed 's/-L[^ ]*\/lib -lkjit\( \|$\)/.libs\/libkjit.a /')
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/main.c" <<'C'
#include <kjit.h>
#include <stdio.h>
int main(void)
{
	kjit_engine *e;
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	o.arch = "sm_90";
	kjit_status st = kjit_engine_open(&o, &e);
	printf("kjit %s: %s\n", kjit_version(), kjit_status_str(st));
	kjit_engine_close(e);
	return st == KJIT_OK ? 0 : 1;
}
C
cflags=$(PKG_CONFIG_PATH=. pkg-config --cflags libkjit)
# the build's compiler and flags (a sanitizer's runtime among them)
if ! ${KJIT_TEST_CC:-cc} -I"$src/include" $cflags -o "$tmp/main" "$tmp/main.c" $libs; then
	echo "FAIL: static link with: $libs"
	exit 1
fi
"$tmp/main" || exit 1
echo "ok: linked statically with: $libs"
