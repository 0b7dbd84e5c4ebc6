#!/bin/sh
# SPDX-License-Identifier: MIT
#
# clang_tree.sh SOURCE_DIR WORKDIR
#
# The whole tree (library, tests, tools) configured and built with clang,
# with the project's -Wall -Wextra -Werror: "no warnings under gcc and
# clang" for every file, not only the library's (gcc, the default
# compiler, builds everything already).  Exit 77 without clang.
set -eu

src=$1 work=$2
command -v clang >/dev/null 2>&1 || { echo "SKIP: clang is not installed"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
if ! CC=clang cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>"$work.configure.log" 2>&1; then
	cat "$work.configure.log"
	echo "FAIL: configuring the tree with clang"
	exit 1
fi
if ! cmake --build "$work" -j "$(nproc 2>/dev/null || echo 2)" >"$work.build.log" 2>&1; then
	grep -E "error|warning" "$work.build.log" | head -40
	echo "FAIL: the tree does not build with clang (log: $work.build.log)"
	exit 1
fi
echo "ok: library, tests and tools build with clang, no warning"
