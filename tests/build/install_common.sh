# SPDX-License-Identifier: MIT
#
# Checks of an installed rcuboost, sourced by install_smoke.sh and
# install_lib.sh.  Needs $src (source tree), $cc (consumer's compiler).

# The CMake consumer project beside these scripts.
consumer_project=$(cd "$(dirname "$0")" && pwd)/cmake_consumer

fail()
{
	echo "FAIL: $*"
	exit 1
}

# header_macro NAME: the value of '#define NAME <number>' in rcuboost.h.
header_macro()
{
	sed -n "s/^#define $1[ 	]\{1,\}\([0-9]\{1,\}\)[ 	]*$/\1/p" "$src/include/rcuboost.h"
}

# consume_pkgconfig PREFIX: find the .pc under PREFIX, check the version
# and the installed files, build and run the consumer.
consume_pkgconfig()
{
	prefix=$1 consumer=$2
	pc=$(find "$prefix" -name rcuboost.pc 2>/dev/null || true)
	[ -n "$pc" ] || fail "no rcuboost.pc under $prefix"
	export PKG_CONFIG_PATH="${pc%/rcuboost.pc}"
	pcprefix=$(pkg-config --variable=prefix rcuboost)
	[ "$(cd "$pcprefix" 2>/dev/null && pwd -P)" = "$(cd "$prefix" && pwd -P)" ] ||
		fail "$pc says prefix=$pcprefix, installed under $prefix"
	version="$(header_macro RCB_VERSION_MAJOR).$(header_macro RCB_VERSION_MINOR).$(header_macro RCB_VERSION_PATCH)"
	[ "$(pkg-config --modversion rcuboost)" = "$version" ] ||
		fail "$pc says version $(pkg-config --modversion rcuboost), rcuboost.h says $version"
	for f in include/rcuboost.h include/rcuboost/urcu.h include/rcuboost/config.h; do
		[ -f "$prefix/$f" ] || fail "$prefix/$f not installed"
	done
	libdir=$(pkg-config --variable=libdir rcuboost)
	[ -e "$libdir/librcuboost.so" ] || fail "$libdir/librcuboost.so not installed"
	soname=librcuboost.so.$(header_macro RCB_SONAME_MAJOR)
	readelf -d "$libdir/librcuboost.so" | grep -q "Library soname: \[$soname\]" ||
		fail "$libdir/librcuboost.so: SONAME is not $soname (RCB_SONAME_MAJOR)"
	# shellcheck disable=SC2046
	"$cc" -std=c11 -Wall -Wextra -Werror "$consumer" -o "$prefix/consumer" \
		$(pkg-config --cflags --libs rcuboost) ||
		fail "consumer does not build with pkg-config --cflags --libs rcuboost"
	LD_LIBRARY_PATH=$libdir ldd "$prefix/consumer" | grep -q "$libdir/librcuboost.so" ||
		fail "consumer does not load $libdir/librcuboost.so"
	out=$(LD_LIBRARY_PATH=$libdir "$prefix/consumer") || fail "consumer failed"
	echo "ok   $prefix: pkg-config consumer says: $out"
}

# consume_cmake PREFIX CONSUMER.c STATIC(ON|OFF): a CMake project with
# find_package(rcuboost <version> EXACT) and rcuboost::rcuboost (and
# rcuboost::rcuboost_static when STATIC is ON).
consume_cmake()
{
	prefix=$1 consumer=$2 static=$3
	version="$(header_macro RCB_VERSION_MAJOR).$(header_macro RCB_VERSION_MINOR).$(header_macro RCB_VERSION_PATCH)"
	cb=$prefix/cmake-consumer
	rm -rf "$cb"
	CC=$cc cmake -S "$consumer_project" -B "$cb" \
		-DCMAKE_PREFIX_PATH="$prefix" -DRCB_CONSUMER_SOURCE="$consumer" \
		-DRCB_EXPECT_VERSION="$version" -DRCB_EXPECT_STATIC="$static" \
		>"$cb.log" 2>&1 || { cat "$cb.log"; fail "find_package(rcuboost $version) under $prefix"; }
	cmake --build "$cb" >>"$cb.log" 2>&1 ||
		{ cat "$cb.log"; fail "consumer does not build with rcuboost::rcuboost"; }
	out=$("$cb/consumer") || fail "CMake consumer failed (rcuboost::rcuboost)"
	# The installed RPATH-less library is found through the imported
	# target's full path, recorded as the consumer's RUNPATH by CMake.
	ldd "$cb/consumer" | grep -q "$prefix/.*librcuboost.so" ||
		fail "CMake consumer does not load the library under $prefix"
	echo "ok   $prefix: CMake consumer (rcuboost::rcuboost) says: $out"
	if [ "$static" = ON ]; then
		out=$("$cb/consumer_static") || fail "CMake consumer failed (rcuboost::rcuboost_static)"
		ldd "$cb/consumer_static" | grep -q librcuboost &&
			fail "consumer_static loads a shared librcuboost"
		echo "ok   $prefix: CMake consumer (rcuboost::rcuboost_static) says: $out"
	fi
	# A version the package does not provide must be refused.
	CC=$cc cmake -S "$consumer_project" -B "$cb-wrong" \
		-DCMAKE_PREFIX_PATH="$prefix" -DRCB_CONSUMER_SOURCE="$consumer" \
		-DRCB_EXPECT_VERSION=999.0 >"$cb-wrong.log" 2>&1 &&
		fail "find_package(rcuboost 999.0 EXACT) accepted the installed $version"
	return 0
}

# manpages PREFIX PAGE...: `man -M PREFIX/share/man PAGE` finds each page
# in its section's directory and formats it.
manpages()
{
	prefix=$1
	shift
	for page in "$@"; do
		name=${page%.*} sec=${page##*.}
		where=$(MANPATH= man -M "$prefix/share/man" -w "$name" 2>/dev/null) ||
			fail "man -M $prefix/share/man $name: no page"
		[ "$where" = "$prefix/share/man/man$sec/$page" ] ||
			fail "man -M $prefix/share/man $name finds $where, not man$sec/$page"
		MANPATH= MANWIDTH=80 man --warnings -M "$prefix/share/man" "$name" 2>&1 >/dev/null | grep . &&
			fail "man $name: formatting warnings"
	done
	echo "ok   $prefix: man -M finds and formats: $*"
}
