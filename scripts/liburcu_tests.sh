#!/bin/bash
# SPDX-License-Identifier: MIT
#
# liburcu's own test programs, from Debian's liburcu source package, built
# twice with only the include path and the link flags changed:
#   liburcu   Debian's liburcu (its headers, -lurcu, -lurcu-qsbr, ...)
#   rcuboost  this tree's liburcu compatibility install (rcuboost-urcu(7)):
#             -I<compat>/include and -L<compat>/lib first
# then each program runs for a second or two with 2 readers and 1 writer.
# A program that passes against liburcu must build and pass against
# rcuboost, and the rcuboost binaries of the memb and qsbr flavors must
# load librcuboost and no liburcu flavor library (ldd).  The mb, signal
# and bp flavors are not rcuboost's yet: the multiflavor unit tests, which
# use all five, run their memb and qsbr parts on rcuboost and the others
# on liburcu's libraries, which the row says.
#
# Outside `make test`: it downloads (apt-get source liburcu; run
# apt-get update first if that fails) and takes about two minutes.
#
# Usage: scripts/liburcu_tests.sh [BUILD_DIR]   (default: build, built by
# `make build`).  WORK (default /tmp/rcuboost-liburcu-tests) holds the
# source, the install and the logs.  Exit status 0 when every row holds.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) ||
	{ echo "liburcu_tests: no build directory ${1:-$root/build} (make build)"; exit 2; }
work=${WORK:-/tmp/rcuboost-liburcu-tests}
log=$work/log
mkdir -p "$work/src" "$work/out"
: >"$log"
say() { printf 'liburcu_tests: %s\n' "$*"; }

# ---- rcuboost, installed with its compatibility files -----------------
prefix=$work/prefix
rm -rf "$prefix"
if ! cmake --install "$build" --prefix "$prefix" >>"$log" 2>&1 ||
	! cmake --install "$build" --prefix "$prefix" --component urcu-compat >>"$log" 2>&1; then
	say "cmake --install from $build failed; see $log"
	exit 2
fi
compat=$(find "$prefix" -type d -name rcuboost-urcu-compat | head -1)
libdir=${compat%/rcuboost-urcu-compat}

# ---- liburcu's source, configured for its config.h ---------------------
src=$(ls -d "$work/src"/liburcu-[0-9]*/ 2>/dev/null | head -1)
if [ -z "$src" ]; then
	if ! (cd "$work/src" && apt-get source liburcu >>"$log" 2>&1); then
		say "apt-get source liburcu failed (apt-get update? deb-src lines?); see $log"
		exit 2
	fi
	src=$(ls -d "$work/src"/liburcu-[0-9]*/ | head -1)
fi
src=${src%/}
cfg=$work/cfg
if [ ! -f "$cfg/include/config.h" ]; then
	rm -rf "$cfg" && mkdir -p "$cfg"
	if ! (cd "$cfg" && "$src/configure" >>"$log" 2>&1); then
		say "liburcu's ./configure failed; see $log"
		exit 2
	fi
fi
say "liburcu $(basename "$src" | sed 's/liburcu-//'), rcuboost from $build"

bench=$src/tests/benchmark reg=$src/tests/regression unit=$src/tests/unit
tap=$src/tests/utils/tap.c
cflags="-g -O2 -Wall -pthread -include $cfg/include/config.h -I$src/src -I$src/tests/common -I$src/tests/utils"
declare -A inc ldirs
inc[liburcu]="" ldirs[liburcu]=""
inc[rcuboost]="-I$compat/include -I$prefix/include"
ldirs[rcuboost]="-L$compat/lib -L$libdir -Wl,-rpath,$libdir"
memb="-lurcu -lurcu-common" qsbr="-lurcu-qsbr -lurcu-common"
all="-lurcu -lurcu-mb -lurcu-signal -lurcu-qsbr -lurcu-bp -lurcu-common"
mf="$unit/test_urcu_multiflavor.c"
for f in memb mb signal qsbr bp; do
	mf="$mf $unit/test_urcu_multiflavor-$f.c"
done
mf="$mf $tap"

# name|flavor|defines|sources|libraries, as liburcu's Makefile.am has them
progs=(
"test_urcu|memb||$bench/test_urcu.c|$memb"
"test_urcu_dynamic_link|memb|-DDYNAMIC_LINK_TEST|$bench/test_urcu.c|$memb"
"test_urcu_timing|memb||$bench/test_urcu_timing.c|$memb"
"test_urcu_gc|memb||$bench/test_urcu_gc.c|$memb"
"test_urcu_lgc|memb|-DTEST_LOCAL_GC|$bench/test_urcu_gc.c|$memb"
"test_urcu_lfq|memb||$bench/test_urcu_lfq.c|$memb -lurcu-cds"
"test_urcu_lfs|memb||$bench/test_urcu_lfs.c|$memb -lurcu-cds"
"rcutorture_urcu_membarrier|memb|-DRCU_MEMBARRIER|$reg/urcutorture.c $tap|$memb"
"test_urcu_qsbr|qsbr||$bench/test_urcu_qsbr.c|$qsbr"
"test_urcu_qsbr_dynamic_link|qsbr|-DDYNAMIC_LINK_TEST|$bench/test_urcu_qsbr.c|$qsbr"
"test_urcu_qsbr_timing|qsbr||$bench/test_urcu_qsbr_timing.c|$qsbr"
"test_urcu_qsbr_gc|qsbr||$bench/test_urcu_qsbr_gc.c|$qsbr"
"test_urcu_qsbr_lgc|qsbr|-DTEST_LOCAL_GC|$bench/test_urcu_qsbr_gc.c|$qsbr"
"test_urcu_hash|qsbr|-DRCU_QSBR|$bench/test_urcu_hash.c $bench/test_urcu_hash_rw.c $bench/test_urcu_hash_unique.c|$qsbr -lurcu-cds"
"rcutorture_urcu_qsbr|qsbr|-DTORTURE_QSBR -DRCU_QSBR|$reg/urcutorture.c $tap|$qsbr"
"test_urcu_multiflavor|all||$mf|$all"
"test_urcu_multiflavor_dynlink|all|-DDYNAMIC_LINK_TEST|$mf|$all"
"test_urcu_multiflavor_single_unit|all||$unit/test_urcu_multiflavor_single_unit.c $tap|$all"
)
# name|arguments: 2 readers, 1 writer, 1-2 s where it takes a duration
runs=(
"test_urcu|2 1 2" "test_urcu_dynamic_link|2 1 1" "test_urcu_timing|2 1"
"test_urcu_gc|2 1 2" "test_urcu_lgc|2 1 1" "test_urcu_lfq|2 1 1"
"test_urcu_lfs|2 1 1" "rcutorture_urcu_membarrier|2 perf 1 callrcu_global"
"rcutorture_urcu_membarrier|2 uperf 1 callrcu_percpu"
"test_urcu_qsbr|2 1 2" "test_urcu_qsbr|2 1 1 -d 10"
"test_urcu_qsbr_dynamic_link|2 1 1" "test_urcu_qsbr_timing|2 1"
"test_urcu_qsbr_gc|2 1 2" "test_urcu_qsbr_gc|2 1 1 -b 16"
"test_urcu_qsbr_lgc|2 1 1"
"test_urcu_hash|0 2 1 -A -s -M 1 -N 1 -O 1 -v"
"test_urcu_hash|1 1 2 -A -v" "test_urcu_hash|1 1 2 -A -u -v"
"rcutorture_urcu_qsbr|2 perf 1 callrcu_global"
"rcutorture_urcu_qsbr|2 rperf 1 callrcu_percpu"
"rcutorture_urcu_qsbr|2 uperf 1 callrcu_perthread"
"test_urcu_multiflavor|" "test_urcu_multiflavor_dynlink|"
"test_urcu_multiflavor_single_unit|"
)

# ---- build both ways ---------------------------------------------------
declare -A built
for side in liburcu rcuboost; do
	mkdir -p "$work/out/$side"
	for p in "${progs[@]}"; do
		IFS='|' read -r name _ defs srcs libs <<<"$p"
		# shellcheck disable=SC2086
		if cc $cflags ${inc[$side]} $defs $srcs ${ldirs[$side]} $libs \
			-o "$work/out/$side/$name" >"$work/out/$side/$name.build" 2>&1; then
			built[$side/$name]=1
		else
			built[$side/$name]=0
		fi
	done
done

# ---- what the rcuboost binaries load ------------------------------------
status=0
printf '%-36s %-8s %-8s %s\n' program liburcu rcuboost "rcuboost binary loads"
for p in "${progs[@]}"; do
	IFS='|' read -r name flavor _ <<<"$p"
	bin=$work/out/rcuboost/$name
	[ "${built[rcuboost/$name]}" = 1 ] || continue
	libs=$(ldd "$bin" | awk '/rcuboost|liburcu/ { print $1 }' | tr '\n' ' ')
	case $flavor in
	memb | qsbr)
		if ! echo "$libs" | grep -q librcuboost ||
			echo "$libs" | grep -Eq 'liburcu(-memb|-qsbr|-mb|-signal|-bp)?\.so'; then
			say "$name: the rcuboost build loads: $libs"
			status=1
		fi ;;
	esac
done

# ---- run both ----------------------------------------------------------
declare -A pass
i=0
for r in "${runs[@]}"; do
	IFS='|' read -r name args <<<"$r"
	i=$((i + 1))
	for side in liburcu rcuboost; do
		if [ "${built[$side/$name]}" != 1 ]; then
			res="no build"
		else
			# shellcheck disable=SC2086
			(cd "$work/out/$side" && timeout -k 5 90 "./$name" $args) \
				>"$work/out/$side/run$i.log" 2>&1
			case $? in
			0) res=pass ;;
			124 | 137) res=hang ;;
			*) res=FAIL ;;
			esac
		fi
		pass[$side]=$res
	done
	ldd_col=$(ldd "$work/out/rcuboost/$name" 2>/dev/null |
		awk '/rcuboost|liburcu/ { sub(/\.so.*/, "", $1); print $1 }' | tr '\n' ' ')
	printf '%-36s %-8s %-8s %s\n' "$name $args" "${pass[liburcu]}" \
		"${pass[rcuboost]}" "$ldd_col"
	if [ "${pass[liburcu]}" = pass ] && [ "${pass[rcuboost]}" != pass ]; then
		status=1
		say "$name $args: passes with liburcu, not over rcuboost; logs: $work/out/*/run$i.log"
		[ "${pass[rcuboost]}" = "no build" ] &&
			tail -5 "$work/out/rcuboost/$name.build"
	fi
done
[ $status = 0 ] && say "every program that passes with liburcu builds and passes over rcuboost" ||
	say "some rows do not hold (above)"
exit $status
