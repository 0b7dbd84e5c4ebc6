#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/cyclictest.sh [BUILD_DIR] [SECONDS]
#
# Latency of real-time work on a reader's CPU beside rcuboost: cyclictest
# (Debian rt-tests) SCHED_FIFO 95 on CPU 0, 200 us interval, for SECONDS
# (default 10) beside: nothing; the busy load's threads without any
# RCU call (the baseline of a busy CPU 0); an rcuboost process idle,
# busy and under inversion; liburcu (urcu-memb) busy and under inversion
# (scripts/cyclictest_load.c says what each load does).  Prints one
# Markdown row per run: max and p99 latency, and for rcuboost the
# library threads' wake-ups per second.  Needs root.  Not part of
# `make test`: run it on a machine nothing else loads,
#   scripts/cyclictest.sh build 10
# CPU 1 keeps the updater; no real-time thread here runs unbounded (the
# hog spins at most 100 ms per inversion, every 200 ms).
set -eu

build=${1:-build}
secs=${2:-10}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v cyclictest > /dev/null || { echo "cyclictest missing (Debian: rt-tests)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (SCHED_FIFO)" >&2; exit 77; }
cc -O2 -std=gnu11 -Wall -o "$tmp/load" "$src/scripts/cyclictest_load.c" \
	-I"$src/include" -I"$build/include" -L"$build" -Wl,-rpath,"$(cd "$build" && pwd)" \
	-lrcuboost -lurcu-memb -lpthread

# Sum of voluntary + nonvoluntary context switches of @pid's rcuboost threads.
wakeups() {
	total=0
	for t in /proc/"$1"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in rcuboost*) ;; *) continue ;; esac
		n=$(awk '/ctxt_switches/ { s += $2 } END { print s + 0 }' "$t/status" 2>/dev/null || echo 0)
		total=$((total + n))
	done
	echo "$total"
}

run() { # name lib mode (lib "-": no load)
	name=$1
	pid=
	if [ "$2" != - ]; then
		"$tmp/load" "$2" "$3" $((secs + 2)) 2> "$tmp/load.err" &
		pid=$!
		sleep 1
		w0=$(wakeups "$pid")
	fi
	cyclictest -m -q -a 0 -t 1 -p 95 -i 200 -D "$secs" -h 20000 > "$tmp/ct" 2>&1
	wps=-
	if [ -n "$pid" ]; then
		w1=$(wakeups "$pid")
		[ "$2" = rcuboost ] && wps=$(awk -v a="$w0" -v b="$w1" -v s="$secs" 'BEGIN { printf "%.1f", (b - a) / s }')
		wait "$pid" || true
	fi
	awk -v name="$name" -v wps="$wps" '
		/^[0-9]+ +[0-9]+/ { lat = $1 + 0; n = $2 + 0; h[lat] += n; tot += n; if (lat > hmax) hmax = lat }
		/# Max Latencies/ { max = $4 + 0 }
		/# Histogram Overflows/ { over = $4 + 0 }
		END {
			tot += over; need = tot * 0.99; c = 0; p99 = -1
			for (l = 0; l <= hmax; l++) { c += h[l]; if (c >= need) { p99 = l; break } }
			if (p99 < 0) p99 = ">20000"
			printf "| %s | %d | %s | %s | %s |\n", name, tot, p99, max, wps
		}' "$tmp/ct"
}

echo "| load beside cyclictest (FIFO 95, CPU 0, 200 us, ${secs} s) | samples | p99 (us) | max (us) | library thread wake-ups/s |"
echo "|---|---|---|---|---|"
run "nothing" - -
run "busy loop, no RCU" none busy
run "rcuboost idle" rcuboost idle
run "rcuboost busy" rcuboost busy
run "rcuboost inversion" rcuboost inversion
run "liburcu busy" urcu busy
run "liburcu inversion" urcu inversion
