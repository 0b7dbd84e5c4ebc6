#!/bin/sh
# SPDX-License-Identifier: MIT
#
# abi_check.sh LIBRARY BASELINE HEADERS_DIR WORKDIR
#
# The built shared library against the committed ABI baseline (abidw's
# XML of the last release, tests/abi/), with abidiff from Debian's
# abigail-tools, over the public headers only:
#   - nothing changed: pass;
#   - only additions (functions, variables, fields appended to a sized
#     struct, suppressions.ini): pass, and the report is printed;
#   - anything removed or changed: fail, unless the SONAME differs from
#     the baseline's (RCB_SONAME_MAJOR was bumped in the same change),
#     which passes with a reminder to refresh the baseline.
# abidiff's own exit bits do not decide it: a removed struct field is
# only "an ABI change" (bit 4) to it, as is a compatible one.
# Refresh the baseline at a release (or with a SONAME bump) with
#   abidw --headers-dir include --drop-private-types --no-corpus-path \
#         --no-comp-dir-path --short-locs \
#         --out-file tests/abi/librcuboost.abi build/librcuboost.so
# (the last three keep this machine's paths out of the file).
set -eu

lib=$1 base=$2 hdr=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)

for tool in abidiff readelf; do
	command -v $tool >/dev/null 2>&1 || {
		echo "FAIL: $tool not found (apt-get install abigail-tools" \
			"binutils; make test installs them as root)"
		exit 1
	}
done
[ -f "$base" ] || { echo "FAIL: no ABI baseline $base"; exit 1; }
mkdir -p "$work"

soname_now=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
soname_base=$(sed -n "s/.*<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$base" |
	head -n 1)
[ -n "$soname_now" ] || { echo "FAIL: $lib has no SONAME"; exit 1; }
[ -n "$soname_base" ] || { echo "FAIL: $base names no SONAME"; exit 1; }

set +e
abidiff --headers-dir2 "$hdr" --drop-private-types \
	--suppressions "$here/suppressions.ini" \
	"$base" "$lib" >"$work/abidiff.txt" 2>&1
rc=$?
set -e
if [ $((rc & 3)) -ne 0 ]; then
	cat "$work/abidiff.txt"
	echo "FAIL: abidiff could not compare (exit $rc)"
	exit 1
fi

# "Functions changes summary: 0 Removed, 1 Changed (2 filtered out), 3
# Added functions", the same for variables and for symbols without
# debug information: sum the Removed and Changed counts.
broken=$(sed -n 's/.*summary: \([0-9]*\) Removed, \([0-9]*\) Changed.*/\1 \2/p;
	s/.*summary: \([0-9]*\) Removed, [0-9]* Added.*/\1 0/p' \
	"$work/abidiff.txt" | awk '{ n += $1 + $2 } END { print n + 0 }')

if [ "$rc" -eq 0 ]; then
	echo "ok: the ABI of $soname_now is the baseline's"
	exit 0
fi
cat "$work/abidiff.txt"
if [ "$broken" -eq 0 ] && [ $((rc & 8)) -eq 0 ]; then
	echo "ok: compatible additions to $soname_now (above)"
	exit 0
fi
if [ "$soname_now" != "$soname_base" ]; then
	echo "ok: incompatible changes (above) with the SONAME moved from" \
		"$soname_base to $soname_now; refresh $base (see this script)"
	exit 0
fi
echo "FAIL: $broken removed or changed functions, variables or types" \
	"(above), and the SONAME is still $soname_now: bump RCB_SONAME_MAJOR" \
	"in include/rcuboost.h, or keep the old ABI"
exit 1
