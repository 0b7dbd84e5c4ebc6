#!/bin/sh
# SPDX-License-Identifier: MIT
#
# man_api.sh LIBRARY.so MANPAGE
#
# Every public function the library exports (rcb_ followed by a letter:
# rcb__ names are the inline read side's internals) is named in the
# manual page, in its SYNOPSIS and in its text: a user who reads only
# rcuboost(3) finds every call.
set -eu

lib=$1 man=$2
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
	grep -E '^rcb_[a-z]' | sort -u)
if [ -z "$syms" ]; then
	echo "FAIL: nm -D --defined-only $lib listed no rcb_ function"
	exit 1
fi
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man")
text=$(sed '/^\.SH SYNOPSIS/,/^\.SH /d' "$man")
status=0 n=0
for f in $syms; do
	n=$((n + 1))
	if ! printf '%s\n' "$synopsis" | grep -q "[^a-z0-9_]$f("; then
		echo "FAIL: $f is exported but not in the SYNOPSIS of $man"
		status=1
	fi
	if ! printf '%s\n' "$text" | grep -qw "$f"; then
		echo "FAIL: $f is exported but its description in $man never names it"
		status=1
	fi
done
[ "$status" = 0 ] && echo "ok: $n exported functions, each in the SYNOPSIS and the text of $man"
exit "$status"
