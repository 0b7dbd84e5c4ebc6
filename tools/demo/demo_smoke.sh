#!/bin/sh
# demo_smoke.sh DEMO DIR: run the inversion scenario briefly and check
# that it reported and wrote its files.  Exit 77 (skip) only when the
# demo says it lacks real-time permission (not root); no timing is
# asserted.
set -u
demo=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir" || exit 1

"$demo" --hog-ms 500 --require-rt --out "$dir/out" --json "$dir/demo.json" \
	>"$dir/stdout" 2>"$dir/stderr"
rc=$?
cat "$dir/stdout"
if [ $rc -eq 77 ]; then
	echo "skip: no real-time permission"
	exit 77
fi
fail() {
	echo "demo_smoke: FAIL: $*" >&2
	echo "--- stderr of the demo:" >&2
	cat "$dir/stderr" >&2
	exit 1
}
[ $rc -eq 0 ] || fail "rcuboost-demo exited with $rc"

first=$(head -n 1 "$dir/stdout")
echo "$first" | grep -Eq '^rcuboost-demo: inversion hog=500ms boost-off gp_max=[0-9]+ms backlog_peak=[0-9]+ \| boost-on gp_max=[0-9]+ms backlog_peak=[0-9]+ \| urcu-memb gp_max=[0-9]+ms backlog_peak=[0-9]+ \| result=OK$' ||
	fail "the first line is not the summary line: $first"
grep -q 'rcu_boost_dat: idx=' "$dir/stdout" || fail "no boost statistics in the report"

csv=$dir/out/backlog.csv
svg=$dir/out/backlog.svg
[ -s "$csv" ] || fail "$csv not written"
[ "$(head -n 1 "$csv")" = "time_ms,boost-off,boost-on,urcu-memb" ] || fail "$csv: bad header"
[ "$(wc -l <"$csv")" -gt 100 ] || fail "$csv: too few rows"
[ -s "$dir/out/backlog.gp" ] || fail "gnuplot script not written"
[ -s "$svg" ] || fail "$svg not written (is gnuplot-nox installed?)"
grep -q '<svg' "$svg" || fail "$svg is not an SVG file"
grep -q '"result": "OK"' "$dir/demo.json" || fail "demo.json lacks the result"
echo "demo_smoke: OK"
