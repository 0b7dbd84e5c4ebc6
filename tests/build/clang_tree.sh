#!/bin/sh
# SPDX-License-Identifier: MIT
#
# clang_tree.sh SOURCE_DIR WORKDIR [CMAKE_OPTION...]
#
# The whole tree (library, tests, tools) configured with the outer build's
# options and built with clang, -Wall -Wextra -Werror: "no warnings under
# gcc and clang" for every file, not only the library's (gcc, the default
# compiler, builds everything already).  One job: the suite's other tests
# run beside it.
set -eu

src=$1 work=$2
shift 2
command -v clang >/dev/null 2>&1 || { echo "FAIL: clang is missing (Debian: clang; make test installs it as root)"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
if ! CC=clang cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" \
	>"$work.configure.log" 2>&1; then
	cat "$work.configure.log"
	echo "FAIL: configuring the tree with clang"
	exit 1
fi
if ! cmake --build "$work" -j 1 >"$work.build.log" 2>&1; then
	grep -E "error|warning" "$work.build.log" | head -40
	echo "FAIL: the tree does not build with clang (log: $work.build.log)"
	exit 1
fi
if grep -q "warning:" "$work.build.log"; then
	grep "warning:" "$work.build.log" | head -20
	echo "FAIL: clang warned (log: $work.build.log)"
	exit 1
fi
echo "ok: library, tests and tools build with clang, no warning"
