#!/bin/sh
# SPDX-License-Identifier: MIT
#
# install_urcu_compat.sh BUILD_DIR WORKDIR CONSUMER.c
#
# The liburcu compatibility install from an already built tree: a plain
# `cmake --install` leaves it out (opt-in); `--component urcu-compat`
# puts it under LIBDIR/rcuboost-urcu-compat.  Then one unchanged liburcu
# program is built
#   1. with `pkg-config --cflags --libs liburcu` (and liburcu-memb), the
#      compatibility .pc files found by PKG_CONFIG_PATH alone, with
#      _LGPL_SOURCE: <urcu.h> must be rcuboost's;
#   2. against liburcu's own headers (no -I) with -L<compat>/lib -lurcu
#      (and -lurcu-memb), without _LGPL_SOURCE;
# and each must load librcuboost, no liburcu flavor library, and run.
# The same for a program of each other flavor of liburcu: qsbr
# (CONSUMER_QSBR: <urcu-qsbr.h>, liburcu-qsbr.pc, -lurcu-qsbr), bp
# (<urcu-bp.h>), mb and signal (RCU_MB or RCU_SIGNAL before <urcu.h>).
# $CC picks the compiler (default cc).
set -eu

build=$1 work=$2 consumer=$3
cc=${CC:-cc}
fail()
{
	echo "FAIL: $*"
	exit 1
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }
[ -n "$(find "$prefix" -name rcuboost-urcu-compat)" ] &&
	fail "a plain install installed the liburcu compatibility files (opt-in only)"
cmake --install "$build" --prefix "$prefix" --component urcu-compat >>"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install --component urcu-compat"; }
compat=$(find "$prefix" -type d -name rcuboost-urcu-compat)
[ -n "$compat" ] || fail "no rcuboost-urcu-compat directory under $prefix"
libdir=${compat%/rcuboost-urcu-compat}
for f in include/urcu.h include/urcu/urcu-memb.h pkgconfig/liburcu.pc \
	pkgconfig/liburcu-memb.pc lib/liburcu.so lib/liburcu-memb.so \
	include/urcu-qsbr.h include/urcu/urcu-qsbr.h pkgconfig/liburcu-qsbr.pc \
	lib/liburcu-qsbr.so include/urcu-bp.h include/urcu/urcu-bp.h \
	pkgconfig/liburcu-bp.pc lib/liburcu-bp.so include/urcu/urcu-mb.h \
	pkgconfig/liburcu-mb.pc lib/liburcu-mb.so include/urcu/urcu-signal.h \
	pkgconfig/liburcu-signal.pc lib/liburcu-signal.so; do
	[ -e "$compat/$f" ] || fail "$compat/$f not installed (or a dangling link)"
done

# check BINARY: loads librcuboost from the prefix, no liburcu flavor
# library, runs under rcuboost.
check()
{
	bin=$1 how=$2
	libs=$(LD_LIBRARY_PATH=$libdir ldd "$bin")
	echo "$libs" | grep -q "$libdir/librcuboost.so" ||
		{ echo "$libs"; fail "$how: does not load $libdir/librcuboost.so"; }
	echo "$libs" | grep -Eq "liburcu(-memb|-mb|-signal|-qsbr|-bp)?\.so" &&
		{ echo "$libs"; fail "$how: loads a liburcu flavor library"; }
	out=$(LD_LIBRARY_PATH=$libdir "$bin") || fail "$how: the program failed"
	[ "$out" = "ok rcuboost" ] || fail "$how: says '$out'"
	echo "ok   $how: $out"
}

flavor_of()
{
	case $1 in
	*qsbr) echo -DCONSUMER_QSBR ;;
	*bp) echo -DCONSUMER_BP ;;
	*mb) echo -DCONSUMER_MB ;;
	*signal) echo -DCONSUMER_SIGNAL ;;
	*) echo -UCONSUMER_QSBR ;;
	esac
}

for pc in liburcu liburcu-memb liburcu-qsbr liburcu-bp liburcu-mb liburcu-signal; do
	flags=$(PKG_CONFIG_PATH=$compat/pkgconfig pkg-config --cflags --libs $pc) ||
		fail "pkg-config $pc with PKG_CONFIG_PATH=$compat/pkgconfig"
	flavor=$(flavor_of $pc)
	# With and without _LGPL_SOURCE (then liburcu-common's functions
	# are called out of line: the .pc must name the library).
	for lgpl in -DCONSUMER_LGPL -UCONSUMER_LGPL; do
		# shellcheck disable=SC2086
		"$cc" -std=gnu11 -Wall -Wextra -Werror $lgpl $flavor -DCONSUMER_PC "$consumer" \
			-o "$work/pc-$pc" $flags -ldl ||
			fail "the program ($lgpl) does not build with pkg-config --cflags --libs $pc"
		check "$work/pc-$pc" "pkg-config $pc ($lgpl)"
	done
done
for lib in urcu urcu-memb urcu-qsbr urcu-bp urcu-mb urcu-signal; do
	"$cc" -std=gnu11 -Wall -Wextra -Werror $(flavor_of $lib) "$consumer" -o "$work/l-$lib" \
		-L"$compat/lib" -l$lib -pthread -ldl ||
		fail "the program does not build against liburcu's headers with -L$compat/lib -l$lib"
	check "$work/l-$lib" "liburcu's headers, -L<compat>/lib -l$lib"
done
