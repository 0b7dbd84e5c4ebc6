#!/bin/sh
# Proves the rcuboost:stall USDT probe fires with the stalled reader's
# thread ID and the report text: bpftrace attaches to it in the built
# library, then the leaked-lock regression program runs with
# RCUBOOST_STALL_MS=1000.  Usage: usdt_stall.sh LIBRARY LEAK_PROGRAM
set -eu
lib=$1 prog=$2
out=$(mktemp) log=$(mktemp)
trap 'kill $bt 2>/dev/null || true; rm -f "$out" "$log"' EXIT
command -v bpftrace >/dev/null || { echo "bpftrace missing (apt-get install bpftrace)"; exit 1; }
timeout 60 bpftrace -e "
usdt:$lib:rcuboost:stall { printf(\"stall %d %d %d %s\n\", arg0, arg1, arg2, str(arg3, 64)); }" >"$out" 2>&1 &
bt=$!
i=0
until grep -q "^Attaching" "$out"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "bpftrace did not attach:"; cat "$out"; exit 1; }
	kill -0 $bt 2>/dev/null || { echo "bpftrace exited:"; cat "$out"; exit 1; }
	sleep 0.1
done
sleep 1
RCUBOOST_STALL_MS=1000 "$prog" >"$log" 2>&1
sleep 1
kill -INT $bt 2>/dev/null || true
wait $bt 2>/dev/null || true
cat "$out"
tid=$(sed -n 's/^rcuboost: stall: reader \([0-9]*\) "leaker".*/\1/p' "$log" | head -n 1)
[ -n "$tid" ] || { echo "FAIL: no stall report from $prog:"; cat "$log"; exit 1; }
grep -q "^stall $tid [0-9]* 1 rcuboost: stall: grace period" "$out" ||
	{ echo "FAIL: rcuboost:stall did not fire for reader $tid"; exit 1; }
[ "$(grep -c '^stall ' "$out")" -eq 1 ] || { echo "FAIL: more than one stall probe for one stall"; exit 1; }
echo "rcuboost:stall traced with bpftrace for reader $tid"
