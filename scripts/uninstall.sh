#!/bin/sh
# SPDX-License-Identifier: MIT
#
# uninstall.sh BUILD_DIR PREFIX: remove what `make install` and `make
# install-urcu-compat` installed from BUILD_DIR (the install_manifest*.txt
# files CMake wrote there), then the directories that became empty, up
# to PREFIX.  `make uninstall` runs it.
#
# Under a system prefix (/usr, /usr/local) the directories the FHS
# expects there (bin, include, lib, share/man, ...) stay even if empty;
# under any other prefix, nothing is left.  Paths with blanks are not
# supported (CMake's manifest has one path per line; the directory walk
# splits on blanks).  Files named in a manifest
# but outside PREFIX are not touched: the build was installed somewhere
# else, which is said and fails.
set -eu

build=$1
prefix=$(cd "$2" 2>/dev/null && pwd -P) ||
	{ echo "uninstall.sh: $2: no such directory: nothing to remove" >&2; exit 0; }

manifests=$(ls "$build"/install_manifest*.txt 2>/dev/null || true)
if [ -z "$manifests" ]; then
	echo "uninstall.sh: no install_manifest*.txt in $build: nothing" \
		"was installed from this build directory" >&2
	exit 0
fi

keep()
{
	case $prefix in
	/usr | /usr/local) ;;
	*) return 1 ;;
	esac
	case ${1#"$prefix"/} in
	bin | sbin | include | lib | lib64 | lib/*-linux-* | lib/pkgconfig | \
		lib/*-linux-*/pkgconfig | share | share/man | share/man/man[1-8] | \
		share/doc | etc) return 0 ;;
	esac
	return 1
}

status=0
dirs=""
for m in $manifests; do
	# CMake ends a manifest without a newline: read its last line too.
	while IFS= read -r f || [ -n "$f" ]; do
		[ -n "$f" ] || continue
		case $f in
		"$prefix"/*) ;;
		*)
			echo "uninstall.sh: $f is not under $prefix (installed" \
				"with another PREFIX?): left in place" >&2
			status=1
			continue
			;;
		esac
		if [ -e "$f" ] || [ -L "$f" ]; then
			rm -f "$f"
			echo "removed $f"
		fi
		dirs="$dirs
$(dirname "$f")"
	done <"$m"
done

# Deepest first, so that a parent is looked at after its children.
for d in $(printf '%s\n' "$dirs" | sort -u -r); do
	while [ "$d" != "$prefix" ] && [ "${d#"$prefix"/}" != "$d" ]; do
		keep "$d" && break
		rmdir "$d" 2>/dev/null || break
		echo "removed $d/"
		d=$(dirname "$d")
	done
done
[ $status = 0 ] && rm -f $manifests
exit $status
