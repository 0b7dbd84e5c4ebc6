#!/bin/sh
# SPDX-License-Identifier: MIT
#
# header_api.sh HEADER
#
# The public header stays readable as the API freezes:
#   1. its "At a glance" block (the first comment) names every public call:
#      each RCB_API function, static inline function and function-like
#      macro whose name is rcb_ followed by a letter (rcb__ names are
#      internals), deprecated ones included;
#   2. no comment block after it is longer than 12 lines (a contract says
#      what, context, ordering and returns; rationale goes to rcuboost(3));
#   3. the header has at most 900 lines.
set -eu

h=$1
status=0
glance=$(awk 'NR == 1, /^ \*\/$/' "$h")
names=$(grep -oE '^(RCB_API [^(]*[ *]|static inline [^(]*[ *]|#define )rcb_[a-z][a-z0-9_]*\(' "$h" |
	grep -oE 'rcb_[a-z][a-z0-9_]*\($' | tr -d '(' | sort -u)
n=0
for f in $names; do
	n=$((n + 1))
	printf '%s\n' "$glance" | grep -qE "(^|[^a-z0-9_])$f([^a-z0-9_]|$)" ||
		{ echo "FAIL: $f is public but not in the At a glance block of $h"; status=1; }
done
long=$(awk 'glance && /^\/\*/ && !inb { start = NR; inb = 1 }
	inb && /\*\// { if (NR - start + 1 > 12) print start ": " NR - start + 1 " lines"; inb = 0 }
	/^ \*\/$/ { glance = 1 }' "$h")
if [ -n "$long" ]; then
	printf 'FAIL: comment blocks over 12 lines in %s, at line:\n%s\n' "$h" "$long"
	status=1
fi
lines=$(wc -l <"$h")
if [ "$lines" -gt 900 ]; then
	echo "FAIL: $h has $lines lines (at most 900)"
	status=1
fi
[ $status = 0 ] && echo "ok: $n public calls at a glance, $lines lines, contracts of 12 lines or fewer"
exit $status
