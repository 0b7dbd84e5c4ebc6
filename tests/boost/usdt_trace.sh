#!/bin/sh
# Proves the USDT probes fire and are traceable with a real tracer:
# bpftrace attaches to rcuboost:block, :boost and :unboost in the built
# library, test_note_block runs, and every probe must have fired with the
# boosted thread's id.  Usage: usdt_trace.sh LIBRARY TEST_PROGRAM
set -eu
lib=$1 prog=$2
out=$(mktemp)
trap 'kill $bt 2>/dev/null || true; rm -f "$out"' EXIT
command -v bpftrace >/dev/null || { echo "bpftrace missing (apt-get install bpftrace)"; exit 1; }
timeout 60 bpftrace -e "
usdt:$lib:rcuboost:block { printf(\"block %d\n\", arg0); }
usdt:$lib:rcuboost:boost { printf(\"boost %d %d\n\", arg0, arg1); }
usdt:$lib:rcuboost:unboost { printf(\"unboost %d\n\", arg0); }" >"$out" 2>&1 &
bt=$!
i=0
until grep -q "^Attaching" "$out"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "bpftrace did not attach:"; cat "$out"; exit 1; }
	kill -0 $bt 2>/dev/null || { echo "bpftrace exited:"; cat "$out"; exit 1; }
	sleep 0.1
done
sleep 1
"$prog"
sleep 1
kill -INT $bt 2>/dev/null || true
wait $bt 2>/dev/null || true
cat "$out"
for probe in block boost unboost; do
	grep -q "^$probe [0-9]" "$out" || { echo "FAIL: probe rcuboost:$probe never fired"; exit 1; }
done
# The boosted threads are the ones that unboost themselves.
for tid in $(awk '$1 == "boost" { print $2 }' "$out"); do
	grep -q "^unboost $tid\$" "$out" || { echo "FAIL: thread $tid boosted, never unboosted"; exit 1; }
done
echo "USDT probes traced with bpftrace"
