#!/bin/sh
# SPDX-License-Identifier: MIT
#
# man_api.sh LIBRARY.so MANPAGE [MANPAGE...]
#
# Every public function the library exports (rcb_ followed by a letter:
# rcb__ names are the inline read side's internals) is named in one of
# the manual pages, in its SYNOPSIS and in its text: a user who reads
# rcuboost(3) and the pages it points to (rcuboost-qsbr(3)) finds every
# call.
set -eu

lib=$1
shift
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
	grep -E '^rcb_[a-z]' | sort -u)
if [ -z "$syms" ]; then
	echo "FAIL: nm -D --defined-only $lib listed no rcb_ function"
	exit 1
fi
status=0 n=0
for f in $syms; do
	n=$((n + 1))
	found=
	for man in "$@"; do
		if sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man" | grep -q "[^a-z0-9_]$f("; then
			found=$man
			break
		fi
	done
	if [ -z "$found" ]; then
		echo "FAIL: $f is exported but not in the SYNOPSIS of any of: $*"
		status=1
	elif ! sed '/^\.SH SYNOPSIS/,/^\.SH /d' "$found" | grep -qw "$f"; then
		echo "FAIL: $f is exported but its description in $found never names it"
		status=1
	fi
done
[ "$status" = 0 ] && echo "ok: $n exported functions, each in the SYNOPSIS and the text of one of: $*"
exit "$status"
