#!/bin/bash
# SPDX-License-Identifier: MIT
#
# liburcu's own test programs, from Debian's liburcu source package, built
# twice with only the include path and the link flags changed:
#   liburcu   Debian's liburcu (its headers, -lurcu, -lurcu-qsbr, ...)
#   rcuboost  this tree's liburcu compatibility install (rcuboost-urcu(7)):
#             -I<compat>/include and -L<compat>/lib first
# then each program runs for a second or two with 2 readers and 1 writer.
# Every flavor: memb, qsbr, and the mb, signal and bp flavors (the
# benchmarks, rcutorture and the multiflavor unit tests, as liburcu's
# tests/*/Makefile.am define them: -DRCU_MB or -DRCU_SIGNAL before
# <urcu.h>, <urcu-bp.h>, -lurcu-mb, -lurcu-signal, -lurcu-bp).  A program
# that passes against liburcu must build and pass against rcuboost, and
# its rcuboost binary must load librcuboost and no liburcu flavor library
# (ldd); a row where it does not says FAIL over rcuboost and why.
#
# Outside `make test`: it downloads (apt-get source liburcu; without
# deb-src lines it fetches the source index into WORK, the system's apt
# configuration untouched) and takes about five minutes.
#
# Usage: scripts/liburcu_tests.sh [BUILD_DIR]   (default: build, built by
# `make build`).  WORK (default /tmp/rcuboost-liburcu-tests) holds the
# source, the install and the logs.  Exit status 0 when every row holds.
# Run as `sh scripts/liburcu_tests.sh`: bash all the same.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
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
		# No deb-src lines: the system's deb lines as deb-src, with
		# apt's lists in WORK, nothing of the system's changed.
		a=$work/apt
		mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial"
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$a/parts/${f##*/}"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] && sed -n 's/^deb /deb-src /p' "$f" >"$a/parts/${f##*/}"
		done
		opts=(-o "Dir::Etc::SourceList=$a/none.list" -o "Dir::Etc::SourceParts=$a/parts"
			-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
		if ! apt-get "${opts[@]}" update >>"$log" 2>&1 ||
			! (cd "$work/src" && apt-get "${opts[@]}" source liburcu >>"$log" 2>&1); then
			say "apt-get source liburcu failed (apt-get update? deb-src lines?); see $log"
			exit 2
		fi
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
mb="-lurcu-mb -lurcu-common" signal="-lurcu-signal -lurcu-common"
bp="-lurcu-bp -lurcu-common"
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
"test_urcu_mb|mb|-DRCU_MB|$bench/test_urcu.c|$mb"
"test_urcu_mb_gc|mb|-DRCU_MB|$bench/test_urcu_gc.c|$mb"
"test_urcu_mb_lgc|mb|-DTEST_LOCAL_GC -DRCU_MB|$bench/test_urcu_gc.c|$mb"
"rcutorture_urcu_mb|mb|-DRCU_MB|$reg/urcutorture.c $tap|$mb"
"test_urcu_signal|signal|-DRCU_SIGNAL|$bench/test_urcu.c|$signal"
"test_urcu_signal_dynamic_link|signal|-DRCU_SIGNAL -DDYNAMIC_LINK_TEST|$bench/test_urcu.c|$signal"
"test_urcu_signal_timing|signal|-DRCU_SIGNAL|$bench/test_urcu_timing.c|$signal"
"test_urcu_signal_gc|signal|-DRCU_SIGNAL|$bench/test_urcu_gc.c|$signal"
"test_urcu_signal_lgc|signal|-DRCU_SIGNAL -DTEST_LOCAL_GC|$bench/test_urcu_gc.c|$signal"
"rcutorture_urcu_signal|signal|-DRCU_SIGNAL|$reg/urcutorture.c $tap|$signal"
"test_urcu_bp|bp||$bench/test_urcu_bp.c|$bp"
"test_urcu_bp_dynamic_link|bp|-DDYNAMIC_LINK_TEST|$bench/test_urcu_bp.c|$bp"
"rcutorture_urcu_bp|bp|-DRCU_BP|$reg/urcutorture.c $tap|$bp"
"test_urcu_multiflavor|all||$mf|$all"
"test_urcu_multiflavor_dynlink|all|-DDYNAMIC_LINK_TEST|$mf|$all"
"test_urcu_multiflavor_single_unit|all||$unit/test_urcu_multiflavor_single_unit.c $tap|$all"
"test_urcu_multiflavor_single_unit_dynlink|all|-DDYNAMIC_LINK_TEST|$unit/test_urcu_multiflavor_single_unit.c $tap|$all"
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
"test_urcu_mb|2 1 2" "test_urcu_mb_gc|2 1 2" "test_urcu_mb_lgc|2 1 1"
"rcutorture_urcu_mb|2 perf 1 callrcu_global"
"rcutorture_urcu_mb|2 rperf 1 callrcu_percpu"
"rcutorture_urcu_mb|2 uperf 1 callrcu_perthread"
"test_urcu_signal|2 1 2" "test_urcu_signal_dynamic_link|2 1 1"
"test_urcu_signal_timing|2 1" "test_urcu_signal_gc|2 1 2"
"test_urcu_signal_lgc|2 1 1"
"rcutorture_urcu_signal|2 perf 1 callrcu_global"
"rcutorture_urcu_signal|2 rperf 1 callrcu_percpu"
"rcutorture_urcu_signal|2 uperf 1 callrcu_perthread"
"test_urcu_bp|2 1 2" "test_urcu_bp_dynamic_link|2 1 1"
"rcutorture_urcu_bp|2 perf 1 callrcu_global"
"rcutorture_urcu_bp|2 rperf 1 callrcu_percpu"
"rcutorture_urcu_bp|2 uperf 1 callrcu_perthread"
"test_urcu_multiflavor|" "test_urcu_multiflavor_dynlink|"
"test_urcu_multiflavor_single_unit|" "test_urcu_multiflavor_single_unit_dynlink|"
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
# Every flavor is rcuboost's: a binary that still loads a liburcu flavor
# library (liburcu-common and liburcu-cds are Debian's) fails its rows.
status=0
declare -A loads
for p in "${progs[@]}"; do
	IFS='|' read -r name _ <<<"$p"
	[ "${built[rcuboost/$name]}" = 1 ] || continue
	libs=$(ldd "$work/out/rcuboost/$name" | awk '/rcuboost|liburcu/ { print $1 }' | tr '\n' ' ')
	if ! echo "$libs" | grep -q librcuboost; then
		loads[$name]="does not load librcuboost"
	elif bad=$(echo "$libs" | grep -Eo 'liburcu(-memb|-qsbr|-mb|-signal|-bp)?\.so[^ ]*'); then
		loads[$name]="loads ${bad//$'\n'/ }"
	fi
done

# Why a run failed: its exit, and its last words that say why.
why() { # exit-status log
	local st=$1 f=$2 what last
	if [ "$st" -gt 128 ]; then
		what="killed by SIG$(kill -l $((st - 128)) 2>/dev/null || echo $((st - 128)))"
	else
		what="exit $st"
	fi
	last=$(grep -Ei 'not ok|rcuboost|assert|error|fatal|abort|segm|undefined|usage' "$f" | tail -2 | tr -s ' \t\n' ' ')
	[ -n "$last" ] || last=$(grep -v '^[[:space:]]*$' "$f" | tail -1)
	echo "$what: ${last:-no output}"
}

# ---- run both ----------------------------------------------------------
printf '%-36s %-8s %-8s %s\n' program liburcu rcuboost "rcuboost binary loads"
declare -A pass reason
i=0
for r in "${runs[@]}"; do
	IFS='|' read -r name args <<<"$r"
	i=$((i + 1))
	for side in liburcu rcuboost; do
		reason[$side]=""
		if [ "${built[$side/$name]}" != 1 ]; then
			res="no build"
			reason[$side]=$(grep -E 'error:|undefined reference|cannot find' "$work/out/$side/$name.build" |
				grep -v collect2 | head -2 | tr -s ' \t\n' ' ')
		else
			# shellcheck disable=SC2086
			(cd "$work/out/$side" && timeout -k 5 90 "./$name" $args) \
				>"$work/out/$side/run$i.log" 2>&1
			st=$?
			case $st in
			0) res=pass ;;
			124 | 137) res=hang reason[$side]="no end within 90 s" ;;
			*) res=FAIL reason[$side]=$(why $st "$work/out/$side/run$i.log") ;;
			esac
		fi
		if [ $side = rcuboost ] && [ "$res" = pass ] && [ -n "${loads[$name]:-}" ]; then
			res=FAIL reason[$side]="passes, but the binary ${loads[$name]}"
		fi
		pass[$side]=$res
	done
	ldd_col=$(ldd "$work/out/rcuboost/$name" 2>/dev/null |
		awk '/rcuboost|liburcu/ { sub(/\.so.*/, "", $1); print $1 }' | tr '\n' ' ')
	printf '%-36s %-8s %-8s %s\n' "$name $args" "${pass[liburcu]}" \
		"${pass[rcuboost]}" "$ldd_col"
	if [ "${pass[liburcu]}" = pass ] && [ "${pass[rcuboost]}" != pass ]; then
		status=1
		say "  $name $args: passes with liburcu, not over rcuboost: ${reason[rcuboost]}"
		if [ "${pass[rcuboost]}" = "no build" ]; then
			say "  log: $work/out/rcuboost/$name.build"
		else
			say "  log: $work/out/rcuboost/run$i.log"
		fi
	elif [ "${pass[liburcu]}" != pass ]; then
		say "  $name $args: fails with liburcu itself (${reason[liburcu]}); not counted"
	fi
done
[ $status = 0 ] && say "every program that passes with liburcu builds and passes over rcuboost" ||
	say "some rows do not hold (above)"
exit $status
