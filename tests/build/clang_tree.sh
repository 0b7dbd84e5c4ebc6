#!/bin/sh
# SPDX-License-Identifier: MIT
#
# clang_tree.sh SOURCE_DIR WORKDIR [CMAKE_OPTION...]
#
# The whole tree (library, tests, tools) configured with the outer build's
# options and checked by clang, -Wall -Wextra -Werror: "no warnings under
# gcc and clang" for every file, not only the library's (gcc, the default
# compiler, builds and links everything already).  clang's warnings come
# from its front end, so each compile command of the tree runs with
# -fsyntax-only: no code generated, nothing linked, a fraction of a full
# build's time.  A source compiled twice with different definitions (the
# fence and boost-off variants) is checked each way.
set -eu

src=$1 work=$2
shift 2
command -v clang >/dev/null 2>&1 || { echo "FAIL: clang is missing (Debian: clang; make test installs it as root)"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
if ! CC=clang CXX=clang++ cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >"$work.configure.log" 2>&1; then
	cat "$work.configure.log"
	echo "FAIL: configuring the tree with clang"
	exit 1
fi
db=$work/compile_commands.json
[ -s "$db" ] || { echo "FAIL: cmake wrote no $db"; exit 1; }

# One command per line: JSON's \\ and \" undone, the object file dropped
# (every command is absolute-pathed but for -o), duplicates merged.
cmds=$work.commands
sed -n 's/^  "command": "\(.*\)",$/\1/p' "$db" |
	sed -e 's/\\\\/\x01/g' -e 's/\\"/"/g' -e 's/\x01/\\/g' \
	    -e 's/ -o [^ ]* / /' |
	sort -u >"$cmds"
n=$(wc -l <"$cmds")
[ "$n" -gt 0 ] || { echo "FAIL: no compile command in $db"; exit 1; }
grep -q '/src/' "$cmds" || { echo "FAIL: $db has no library source"; exit 1; }
grep -q '/tests/' "$cmds" || { echo "FAIL: $db has no test source"; exit 1; }

log=$work.check.log
: >"$log"
cd "$work"
# Each command's diagnostics, and a line naming it if it failed.
if ! tr '\n' '\0' <"$cmds" |
	xargs -0 -P 2 -n 1 sh -c 'eval "$1 -fsyntax-only" 2>&1 || echo "FAILED: $1"' sh \
	>>"$log" 2>&1; then
	echo "FAIL: running the checks (log: $log)"
	exit 1
fi
if [ -s "$log" ]; then
	grep -E "error|warning|FAILED" "$log" | head -40
	echo "FAIL: clang warned or failed (log: $log)"
	exit 1
fi
echo "ok: the $n compile commands of the library, tests and tools pass clang -fsyntax-only, no warning"
