#!/bin/sh
# SPDX-License-Identifier: MIT
#
# dist.sh [OUTDIR]: rcuboost-X.Y.Z.tar.gz of the committed tree (HEAD),
# X.Y.Z from include/rcuboost.h, into OUTDIR (default: the source tree).
# `make dist` runs it.
#
# The archive holds exactly the tracked files, under rcuboost-X.Y.Z/,
# so no build output can slip in.  Reproducible: git archive stamps
# every member with the commit's time and fixed owners, and gzip -n
# leaves out the name and time it would record, so two runs at one
# commit give the same bytes.  Uncommitted changes are not in it (said
# on stderr).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root}
cd "$root"

macro()
{
	sed -n "s/^#define RCB_VERSION_$1[ 	]\{1,\}\([0-9]\{1,\}\)[ 	]*$/\1/p" \
		include/rcuboost.h
}
version=$(macro MAJOR).$(macro MINOR).$(macro PATCH)
case $version in
[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "dist.sh: no version in include/rcuboost.h" >&2; exit 1 ;;
esac

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "dist.sh: make dist needs a git checkout: the tarball is made" \
		"from the committed tree" >&2
	exit 1
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "dist.sh: note: uncommitted changes are not in the tarball" \
		"(it is made from HEAD, $(git rev-parse --short HEAD))" >&2
fi

name=rcuboost-$version
tmp=$out/.$name.tar.gz.$$
trap 'rm -f "$tmp"' EXIT
git archive --format=tar --prefix="$name/" HEAD | gzip -n -9 >"$tmp"
mv "$tmp" "$out/$name.tar.gz"
trap - EXIT
echo "$out/$name.tar.gz"
