#!/bin/sh
# SPDX-License-Identifier: MIT
#
# install_smoke.sh SOURCE_DIR WORKDIR CONSUMER.c
#
# Configures and builds a fresh tree, then installs it twice into
# temporary prefixes: with `cmake --install --prefix` and with the
# top-level `make install PREFIX=...`.  Each time a consumer is compiled
# with `pkg-config --cflags --libs rcuboost` alone and run against the
# installed library.  $CC picks the consumer's compiler (default cc).
set -eu

src=$1 work=$2 consumer=$3
cc=${CC:-cc}

fail()
{
	echo "FAIL: $*"
	exit 1
}

# consume PREFIX: find the .pc under PREFIX, build and run the consumer.
consume()
{
	prefix=$1
	pc=$(find "$prefix" -name rcuboost.pc 2>/dev/null || true)
	[ -n "$pc" ] || fail "no rcuboost.pc under $prefix"
	export PKG_CONFIG_PATH="${pc%/rcuboost.pc}"
	pcprefix=$(pkg-config --variable=prefix rcuboost)
	[ "$(cd "$pcprefix" 2>/dev/null && pwd -P)" = "$(cd "$prefix" && pwd -P)" ] ||
		fail "$pc says prefix=$pcprefix, installed under $prefix"
	for f in include/rcuboost.h include/rcuboost/urcu.h include/rcuboost/config.h; do
		[ -f "$prefix/$f" ] || fail "$prefix/$f not installed"
	done
	libdir=$(pkg-config --variable=libdir rcuboost)
	[ -e "$libdir/librcuboost.so" ] || fail "$libdir/librcuboost.so not installed"
	# shellcheck disable=SC2046
	"$cc" -std=c11 -Wall -Wextra -Werror "$consumer" -o "$prefix/consumer" \
		$(pkg-config --cflags --libs rcuboost) ||
		fail "consumer does not build with pkg-config --cflags --libs rcuboost"
	LD_LIBRARY_PATH=$libdir ldd "$prefix/consumer" | grep -q "$libdir/librcuboost.so" ||
		fail "consumer does not load $libdir/librcuboost.so"
	out=$(LD_LIBRARY_PATH=$libdir "$prefix/consumer") || fail "consumer failed"
	echo "ok   $prefix: consumer says: $out"
}

rm -rf "$work"
mkdir -p "$work"
build=$work/build
cmake -S "$src" -B "$build" -DBUILD_TESTING=OFF >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; fail "configure"; }
cmake --build "$build" -j2 >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log"; fail "build"; }

cmake --install "$build" --prefix "$work/cmake-prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }
consume "$work/cmake-prefix"

make -C "$src" install PREFIX="$work/make-prefix" BUILD="$build" \
	CMAKE_FLAGS=-DBUILD_TESTING=OFF >"$work/make.log" 2>&1 ||
	{ cat "$work/make.log"; fail "make install PREFIX=$work/make-prefix"; }
consume "$work/make-prefix"
