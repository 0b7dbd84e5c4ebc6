#!/bin/sh
# SPDX-License-Identifier: MIT
#
# build_tree.sh TREE OUT
#
# Build rcuboost-sim against the library sources of another checkout
# TREE (e.g. a pre-fix commit in a scratch worktree) into OUT/rcuboost-sim.
# TREE's own sources and public header are used unchanged; only its
# atomic.h (src/atomic.h, or src/core/atomic.h in a tree with layer
# folders) is replaced by this tree's, which adds the simulation points
# (atomic.h has not changed otherwise since those commits).  The
# read side's two points in rcuboost.h are then missing: the readers are
# preempted only at the workload's points.
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TREE OUT" >&2; exit 2; }
tree=$(cd "$1" && pwd)
out=$2
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}

rm -rf "$out/src"
mkdir -p "$out/src" "$out/include/rcuboost"
cp -R "$tree/src/." "$out/src/"
find "$out/src" -name atomic.h -exec cp "$here/../../src/core/atomic.h" {} \;
sed 's/@RCB_CONFIG_BOOST@/1/' "$tree/include/rcuboost/config.h.in" \
	>"$out/include/rcuboost/config.h"
# A tree from before the real-time API of issue 13 (polled and expedited
# grace periods, callback thread IDs): the workloads that call it (xrw,
# xhog, cbhog) are left out.
extra=
grep -q rcb_start_poll "$tree/include/rcuboost.h" &&
	grep -q rcb_callback_tids "$tree/include/rcuboost.h" ||
	extra=-DRCB_SIM_PRE_RT_API
# The library with boosting compiled in: every source but the stand-ins
# and the test-only per-task-lock machine.
srcs=$(find "$out/src" -name '*.c' | sort | grep -v -e '/boost_off\.c$' \
	-e '/boost_pertask\.c$' -e '/machine_pertask\.c$')
wrap=$(sed 's/^/,--wrap=/' "$here/wrapped.txt" | tr -d '\n')
# shellcheck disable=SC2086
$cc -std=c11 -O2 -g -Wall -DRCB_SIM -DRCB_BUILDING_LIBRARY -DRCB_HAVE_SDT=0 $extra \
	-fvisibility=hidden -I"$out/include" -I"$tree/include" -I"$out/src" \
	$srcs "$here/main.c" "$here/sched.c" -o "$out/rcuboost-sim" -pthread \
	"-Wl$wrap"
echo "$out/rcuboost-sim"
