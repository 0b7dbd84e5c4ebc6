#!/bin/sh
# SPDX-License-Identifier: MIT
#
# install_lib.sh SOURCE_DIR WORKDIR CONSUMER.c
#
# The library alone, as on a machine with only a C compiler and CMake:
# configured with -DRCB_BUILD_TOOLS=OFF -DRCB_BUILD_TESTS=OFF and the
# static library on, where neither <sys/sdt.h> nor liburcu can be found
# (a poisoned sys/sdt.h first on the include path, a pkg-config search
# path with nothing in it), built, installed into a temporary prefix.
# Then a consumer builds through pkg-config and through
# find_package(rcuboost) (shared and static), and `man -M` finds the
# library's pages.  $CC picks the compiler (default cc).
set -eu

src=$1 work=$2 consumer=$3
cc=${CC:-cc}
. "$(dirname "$0")/install_common.sh"

rm -rf "$work"
mkdir -p "$work/nosdt/sys" "$work/nopc"
# Any inclusion of the system's sdt.h would now fail to compile: the
# configure check must conclude "not found" and the probes compile out.
printf '#error "sys/sdt.h is not installed (install_lib.sh)"\n' >"$work/nosdt/sys/sdt.h"

build=$work/build prefix=$work/prefix
CC=$cc PKG_CONFIG_LIBDIR=$work/nopc PKG_CONFIG_PATH= \
	cmake -S "$src" -B "$build" -DRCB_BUILD_TOOLS=OFF -DRCB_BUILD_TESTS=OFF \
	-DRCB_BUILD_STATIC=ON -DCMAKE_C_FLAGS="-isystem $work/nosdt" \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O0 \
	>"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
grep -q "sys/sdt.h not found: USDT probes compiled out" "$work/configure.log" ||
	{ cat "$work/configure.log"; fail "configure did not report the probes compiled out"; }
# Neither the tools nor the tests were configured: nothing asked for
# liburcu, spin or pkg-config.
# (Cache entries only: the '//' lines are the options' descriptions.)
# RCB_URCU_COMPAT is the library's own option (liburcu compatibility
# install), not a dependency.
found=$(grep -v '^//' "$build/CMakeCache.txt" | grep -v '^RCB_URCU_COMPAT:' |
	grep -Ei "urcu|spin|pkgconfig|pkg-config" || true)
if [ -n "$found" ]; then
	echo "$found"
	fail "the library-only configuration looked for a tool or test dependency"
fi
cmake --build "$build" -j2 >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log"; fail "build"; }
[ -d "$build/tools" ] && fail "RCB_BUILD_TOOLS=OFF configured tools/"
[ -d "$build/tests" ] && fail "RCB_BUILD_TESTS=OFF configured tests/"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }
[ -f "$prefix/lib/librcuboost.a" ] || [ -n "$(find "$prefix" -name librcuboost.a)" ] ||
	fail "RCB_BUILD_STATIC=ON installed no librcuboost.a"
readelf -n "$(find "$prefix" -name 'librcuboost.so.*.*')" | grep -q stapsdt &&
	fail "probes compiled in although sys/sdt.h was unusable"
[ -n "$(find "$prefix" -path '*/man1/*')" ] && fail "man1 pages installed without the tools"

consume_pkgconfig "$prefix" "$consumer"
consume_cmake "$prefix" "$consumer" ON
manpages "$prefix" rcuboost.3 rcuboost-urcu.7
