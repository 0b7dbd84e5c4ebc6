#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cxx_check.sh INCLUDE_DIR BUILD_INCLUDE_DIR LIBRARY SOURCE WORKDIR
#
# The C++17 test program, built with g++ and with clang++ (warnings as
# errors) against the public headers and librcuboost, then run.
set -eu

inc=$1 binc=$2 lib=$3 src=$4 work=$5
libdir=$(dirname "$lib")
rm -rf "$work"
mkdir -p "$work"
status=0
for cxx in ${RCB_CXX_COMPILERS:-g++ clang++}; do
	if ! command -v "$cxx" >/dev/null; then
		echo "FAIL: $cxx is missing (Debian: g++, clang)"
		status=1
		continue
	fi
	if ! "$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -I"$inc" -I"$binc" \
		"$src" -L"$libdir" -lrcuboost -pthread -Wl,-rpath,"$libdir" \
		-o "$work/cxx_$cxx" >"$work/$cxx.log" 2>&1; then
		echo "FAIL: $cxx does not build $src:"
		head -30 "$work/$cxx.log"
		status=1
		continue
	fi
	if ! out=$("$work/cxx_$cxx"); then
		echo "FAIL: the $cxx build fails: $out"
		status=1
		continue
	fi
	echo "ok: $cxx: $out"
done
exit $status
