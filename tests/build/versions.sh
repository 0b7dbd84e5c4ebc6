#!/bin/sh
# SPDX-License-Identifier: MIT
#
# versions.sh SOURCE_DIR
#
# One version everywhere: RCB_VERSION_* in include/rcuboost.h (which
# CMake, rcuboost.pc, rcb_version() and make dist read) is the version
# of the top entry of debian/changelog (a native package: no Debian
# revision), and CHANGELOG.md has a section for it or an "Unreleased"
# one on top.
set -eu

root=$1
cd "$root"
macro()
{
	sed -n "s/^#define RCB_VERSION_$1[ 	]\{1,\}\([0-9]\{1,\}\)[ 	]*$/\1/p" \
		include/rcuboost.h
}
version=$(macro MAJOR).$(macro MINOR).$(macro PATCH)
status=0

deb=$(sed -n '1s/^rcuboost (\([^)]*\)).*/\1/p' debian/changelog)
if [ "$deb" != "$version" ]; then
	echo "FAIL: debian/changelog's top entry is '$deb'," \
		"include/rcuboost.h says $version"
	status=1
fi
top=$(sed -n 's/^## \(.*\)/\1/p' CHANGELOG.md | head -n 1)
case $top in
Unreleased | "$version" | "$version "*) ;;
*)
	echo "FAIL: CHANGELOG.md's first section is '$top': want" \
		"'$version' (or 'Unreleased' before a release)"
	status=1
	;;
esac
[ $status = 0 ] && echo "ok: version $version in the header," \
	"debian/changelog and CHANGELOG.md ($top)"
exit $status
