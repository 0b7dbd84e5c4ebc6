#!/bin/sh
# bench_scenario_smoke.sh BENCH CMAKE DIR SCENARIO CHECK [OPTION...]: run
# "rcuboost-bench OPTION... --json DIR/SCENARIO.json --plot-dir DIR
# SCENARIO" (a scenario run only when named: inversion, pressure, escalate,
# boosters or pi) and check the shape of its output with the cmake script
# CHECK next to this one (given JSON, STDOUT, SCENARIO and OPTIONS).  Exit
# 77 (skip) only when the scenario reports n/a and the user is not root;
# no timing is asserted.
set -u
bench=$1
cmake=$2
dir=$3
sc=$4
check=$5
shift 5
here=$(dirname "$0")
rm -rf "$dir"
mkdir -p "$dir" || exit 1

"$bench" "$@" --json "$dir/$sc.json" --plot-dir "$dir" "$sc" \
	>"$dir/stdout" 2>"$dir/stderr"
rc=$?
cat "$dir/stdout"
fail() {
	echo "bench_scenario_smoke $sc: FAIL: $*" >&2
	echo "--- stderr of rcuboost-bench:" >&2
	cat "$dir/stderr" >&2
	exit 1
}
[ $rc -eq 0 ] || fail "rcuboost-bench exited with $rc"
if grep -q "^$sc: n/a" "$dir/stdout"; then
	[ "$(id -u)" -ne 0 ] || fail "the scenario reported n/a for root"
	echo "skip: no real-time permission"
	exit 77
fi
"$cmake" -DJSON="$dir/$sc.json" -DSTDOUT="$dir/stdout" -DSCENARIO="$sc" -DOPTIONS="$*" \
	-P "$here/$check" || fail "malformed output"
echo "bench_scenario_smoke $sc: OK"
