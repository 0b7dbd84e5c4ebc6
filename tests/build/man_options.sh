#!/bin/sh
# SPDX-License-Identifier: MIT
#
# man_options.sh MAN_PAGE PROGRAM
#
# Every long option that `PROGRAM --help` names is documented in its man
# page (man/<tool>.1), so the page cannot fall behind the program.
set -eu

page=$1 prog=$2

help=$("$prog" --help 2>&1) || { echo "FAIL: $prog --help exited with $?"; exit 1; }
opts=$(echo "$help" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
[ -n "$opts" ] || { echo "FAIL: $prog --help names no long option"; exit 1; }
# The page's text with troff's escaped hyphens and font changes undone.
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
status=0
for o in $opts; do
	echo "$text" | grep -q -- "$o\\([^a-z0-9-]\\|$\\)" ||
		{ echo "FAIL: $page does not document $o (from $prog --help)"; status=1; }
done
[ $status = 0 ] && echo "ok: $page documents the $(echo "$opts" | wc -l) long options of $(basename "$prog") --help"
exit $status
