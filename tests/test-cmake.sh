#!/bin/sh
# test-cmake PREFIX LIBDIR: programs built against an installed kjit find
# it and run: a CMake project through find_package(kjit) and kjit::kjit,
# with the shared library and (where installed) with the archive
# (kjit_USE_STATIC_LIBS), and a pkg-config build with the rpath the
# README gives. Each compiles a kernel with NVRTC (no GPU needed) and
# runs with no LD_LIBRARY_PATH. Run by make installcheck (and so by make
# distcheck); prints why and exits 0 without cmake.
prefix=$1
libdir=$2
if [ -z "$prefix" ] || [ -z "$libdir" ]; then
	echo "usage: test-cmake.sh PREFIX LIBDIR" >&2
	exit 2
fi
if ! command -v cmake >/dev/null 2>&1; then
	echo "test-cmake: SKIP: no cmake (apt-get install cmake)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH
fail=0

mkdir "$tmp/app"
cat > "$tmp/app/main.c" <<'C'
#include <kjit.h>
#include <stdio.h>
int main(void)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	kjit_kernel *k = NULL;
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	kjit_status st = kjit_engine_open(&o, &e);
	if (st == KJIT_OK)
		st = kjit_kernel_create(e, "k", "extern \"C\" __global__ void k(float *p) { *p = 1; }",
		                        NULL, 0, &k);
	if (st == KJIT_OK)
		st = kjit_variant_get(k, NULL, &v, &tier);
	printf("kjit %s: %s (%s)\n", kjit_version(), kjit_status_str(st),
	       st == KJIT_OK ? "compiled" : kjit_last_error());
	kjit_engine_close(e);
	return st == KJIT_OK ? 0 : 1;
}
C
cat > "$tmp/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(kjit_consumer C)
find_package(kjit 0.1 REQUIRED)
add_executable(app main.c)
target_link_libraries(app PRIVATE kjit::kjit)
CMAKE

build() { # LABEL BUILDDIR CMAKE-OPTION...: configure, build and run app
	label=$1 dir=$2
	shift 2
	if ! cmake -S "$tmp/app" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$tmp/log" 2>&1 ||
	   ! cmake --build "$dir" >>"$tmp/log" 2>&1; then
		echo "FAIL: $label: the CMake project does not build:"; cat "$tmp/log"; fail=1
		return 1
	fi
	if ! out=$("$dir/app" 2>&1) || ! printf '%s' "$out" | grep -q '^kjit .*: KJIT_OK.* (compiled)$'; then
		echo "FAIL: $label: app: $out"; fail=1
		return 1
	fi
	echo "ok: $label: $out"
}

links_shared() { # APP: whether it needs libkjit.so at run time
	readelf -d "$1" | grep -q 'NEEDED.*libkjit\.so'
}
if build "find_package(kjit), kjit::kjit, shared" "$tmp/shared" &&
   ! links_shared "$tmp/shared/app"; then
	echo "FAIL: the shared build does not link libkjit.so"; fail=1
fi
if [ -f "$libdir/libkjit.a" ]; then
	if build "kjit_USE_STATIC_LIBS: libkjit.a" "$tmp/static" -Dkjit_USE_STATIC_LIBS=ON &&
	   links_shared "$tmp/static/app"; then
		echo "FAIL: the static build links libkjit.so"; fail=1
	fi
else
	echo "test-cmake: no $libdir/libkjit.a (configured --disable-static): static use not tried"
fi

# a version the package does not have is refused, naming the version found
sed -i 's/find_package(kjit 0.1 REQUIRED)/find_package(kjit 9.0 REQUIRED)/' "$tmp/app/CMakeLists.txt"
if cmake -S "$tmp/app" -B "$tmp/v9" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/log" 2>&1 ||
   ! grep -q 'kjitConfig.cmake, version: ' "$tmp/log"; then
	echo "FAIL: find_package(kjit 9.0) was not refused:"; cat "$tmp/log"; fail=1
else
	echo "ok: find_package(kjit 9.0) refused"
fi

# pkg-config, with the run-time path the README gives
if command -v pkg-config >/dev/null 2>&1; then
	# (the prefix given to make install, which may not be configure's)
	flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --define-variable=prefix="$prefix" \
		--cflags --libs libkjit)
	if ${KJIT_TEST_CC:-cc} -o "$tmp/pc" "$tmp/app/main.c" $flags -Wl,-rpath,"$libdir" &&
	   out=$("$tmp/pc" 2>&1); then
		echo "ok: pkg-config --libs libkjit with -Wl,-rpath,$libdir: $out"
	else
		echo "FAIL: pkg-config build: $flags: $out"; fail=1
	fi
fi
exit $fail
