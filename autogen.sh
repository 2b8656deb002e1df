#!/bin/sh
# Generates ./configure. With --install-deps, first installs the build
# dependencies with apt-get (Debian, Ubuntu); the CUDA toolkit itself
# (NVRTC, CUPTI, NVTX) must already be installed, by default in /usr/local/cuda.
set -e
cd "$(dirname "$0")"
if [ "$1" = "--install-deps" ]; then
	pkgs="build-essential autoconf automake libtool pkg-config libsqlite3-dev libncurses-dev sqlite3 tmux"
	missing=""
	for p in $pkgs; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		sudo=""
		[ "$(id -u)" -eq 0 ] || sudo="sudo"
		echo "autogen.sh: installing$missing with ${sudo:+sudo }apt-get"
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
	fi
elif [ -n "$1" ]; then
	echo "usage: ./autogen.sh [--install-deps]" >&2
	exit 2
fi
autoreconf -fi
