#!/bin/sh
# SPDX-License-Identifier: MIT
#
# urcu_visible.sh INCLUDE_DIR BUILD_INCLUDE_DIR WORKDIR
#
# Every header of liburcu-dev that liburcu's own <urcu.h> brings in, with
# and without _LGPL_SOURCE, is brought in by <rcuboost/urcu.h> too, so a
# program that relies on one of them without including it (lttng-tools
# 2.13 uses struct cds_list_head after <urcu.h> alone) builds unchanged.
# The list comes from the preprocessor run on the installed liburcu, so
# it follows liburcu's version.  Left out: the flavor's own headers
# (urcu.h, urcu/urcu*.h, urcu/map/, urcu/static/urcu-*.h) and the four
# whose content <rcuboost/urcu.h> provides itself and whose include guards
# it claims (rcuboost-urcu(7)).  Fails if liburcu-dev is missing.
set -eu

inc=$1 binc=$2 work=$3

rm -rf "$work"
mkdir -p "$work"
echo '#include <urcu.h>' >"$work/liburcu.c"
echo '#include <rcuboost/urcu.h>' >"$work/rcuboost.c"
if ! gcc -fsyntax-only "$work/liburcu.c" 2>/dev/null; then
	echo "FAIL: liburcu-dev's headers are missing (Debian: apt-get install liburcu-dev)"
	exit 1
fi

# The liburcu headers a translation unit read, as urcu/... paths.
urcu_headers() {
	gcc -E "$@" |
		sed -n 's|^# [0-9]* "\(/[^"]*/\)\(urcu[^"]*\.h\)".*|\2|p' |
		grep -E '^urcu(/|\.h$)' | sort -u
}

status=0
for lgpl in "" -D_LGPL_SOURCE; do
	urcu_headers $lgpl "$work/liburcu.c" |
		grep -vE '^urcu\.h$|^urcu/urcu[^/]*\.h$|^urcu/map/|^urcu/static/urcu-|^urcu/static/pointer\.h$' |
		grep -vE '^urcu/(call-rcu|defer|flavor|pointer)\.h$' >"$work/want$lgpl"
	urcu_headers $lgpl -I"$inc" -I"$binc" "$work/rcuboost.c" >"$work/have$lgpl"
	if [ ! -s "$work/want$lgpl" ]; then
		echo "FAIL: found no liburcu header behind <urcu.h> (${lgpl:-no _LGPL_SOURCE})"
		status=1
		continue
	fi
	missing=$(comm -23 "$work/want$lgpl" "$work/have$lgpl" | tr '\n' ' ')
	if [ -n "$missing" ]; then
		echo "FAIL: ${lgpl:-without _LGPL_SOURCE}: liburcu's <urcu.h> brings in, <rcuboost/urcu.h> does not: $missing"
		status=1
	else
		echo "ok: ${lgpl:-without _LGPL_SOURCE}: $(wc -l <"$work/want$lgpl") headers, all brought in"
	fi
done
exit $status
