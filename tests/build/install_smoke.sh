#!/bin/sh
# SPDX-License-Identifier: MIT
#
# install_smoke.sh SOURCE_DIR WORKDIR CONSUMER.c
#
# Configures and builds a fresh tree, then installs it twice into
# temporary prefixes: with `cmake --install --prefix` and with the
# top-level `make install PREFIX=...`.  Each time a consumer is compiled
# with `pkg-config --cflags --libs rcuboost` alone and run against the
# installed library; after `cmake --install`, also through
# find_package(rcuboost), and `man -M` must find every page, the tools'
# included.  Last, `make uninstall` after both install goals must leave
# the prefix empty.  $CC picks the consumer's compiler (default cc).
set -eu

src=$1 work=$2 consumer=$3
cc=${CC:-cc}

. "$(dirname "$0")/install_common.sh"

rm -rf "$work"
mkdir -p "$work"
build=$work/build
# -O0: what is checked is the installation, not the code (which the
# outer build compiles with its own flags); a third of the compile time.
# No simulator: it is never installed.
flags="-DRCB_BUILD_TESTS=OFF -DRCB_BUILD_SIM=OFF -DRCB_USE_SDT=ON -DCMAKE_C_FLAGS_RELWITHDEBINFO=-O0"
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" $flags >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; fail "configure"; }
cmake --build "$build" -j2 >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log"; fail "build"; }

cmake --install "$build" --prefix "$work/cmake-prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }
consume_pkgconfig "$work/cmake-prefix" "$consumer"
# RCB_USE_SDT=ON: the probes are in (install_lib.sh checks the opposite).
readelf -n "$(find "$work/cmake-prefix" -name 'librcuboost.so.*.*')" | grep -q stapsdt ||
	fail "RCB_USE_SDT=ON but the installed library has no USDT probe notes"
consume_cmake "$work/cmake-prefix" "$consumer" OFF
manpages "$work/cmake-prefix" rcuboost.3 rcuboost-urcu.7 rcuboost-demo.1 \
	rcuboost-bench.1 rcuboost-torture.1 rcuboost-boostcost.1

make -C "$src" install PREFIX="$work/make-prefix" BUILD="$build" \
	CMAKE_FLAGS="$flags" >"$work/make.log" 2>&1 ||
	{ cat "$work/make.log"; fail "make install PREFIX=$work/make-prefix"; }
consume_pkgconfig "$work/make-prefix" "$consumer"

# make uninstall leaves nothing behind: both components into a fresh
# prefix (make install, make install-urcu-compat), then the prefix must
# be empty.
up=$work/uninstall-prefix
mkdir -p "$up"
for goal in install install-urcu-compat uninstall; do
	make -C "$src" $goal PREFIX="$up" BUILD="$build" CMAKE_FLAGS="$flags" \
		>"$work/make-$goal.log" 2>&1 ||
		{ cat "$work/make-$goal.log"; fail "make $goal PREFIX=$up"; }
done
left=$(find "$up" -mindepth 1)
[ -z "$left" ] || { echo "$left"; fail "make uninstall left files under $up"; }
[ -f "$build/install_manifest.txt" ] &&
	fail "make uninstall kept $build/install_manifest.txt"
echo "ok   $up: make install, install-urcu-compat, uninstall: nothing left"
