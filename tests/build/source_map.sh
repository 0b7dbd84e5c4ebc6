#!/bin/sh
# SPDX-License-Identifier: MIT
#
# source_map.sh SOURCE_DIR
#
# Every file under src/ has a row in the source map of doc/design.md
# (a table row starting "| `src/<file>` |"), and every src/ row there
# names a file that exists.  Adding, splitting or renaming a source file
# means adding its row: one line saying which concept the file holds.
set -eu

root=$1
cd "$root"
map=doc/design.md
[ -f "$map" ] || { echo "FAIL: $map is missing"; exit 1; }
rows=$(sed -n 's/^| `\(src\/[^`]*\)` |.*/\1/p' "$map" | sort -u)
files=$(find src -type f \( -name '*.c' -o -name '*.h' \) | sort)
[ -n "$files" ] || { echo "FAIL: no files under $root/src"; exit 1; }
status=0
for f in $files; do
	echo "$rows" | grep -qx "$f" || {
		echo "FAIL: $f has no row in the source map of $map;" \
			"add '| \`$f\` | <the concept it holds> |' to the table"
		status=1
	}
done
for r in $rows; do
	[ -f "$r" ] || { echo "FAIL: $map maps $r, which does not exist (renamed or removed?)"; status=1; }
done
[ $status = 0 ] && echo "ok: the $(echo "$files" | wc -l) files of src/ are in $map's source map"
exit $status
