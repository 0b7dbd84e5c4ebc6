#!/bin/sh
# bench_inversion_smoke.sh BENCH CMAKE DIR: run "rcuboost-bench inversion"
# briefly (hogs of 300 and 600 ms) and check the shape of its output with
# bench_inversion_smoke.cmake.  Exit 77 (skip) only when the scenario
# reports n/a and the user is not root; no timing is asserted.
set -u
bench=$1
cmake=$2
dir=$3
here=$(dirname "$0")
rm -rf "$dir"
mkdir -p "$dir" || exit 1

"$bench" inversion --hog-ms 300,600 --json "$dir/inversion.json" \
	>"$dir/stdout" 2>"$dir/stderr"
rc=$?
cat "$dir/stdout"
fail() {
	echo "bench_inversion_smoke: FAIL: $*" >&2
	echo "--- stderr of rcuboost-bench:" >&2
	cat "$dir/stderr" >&2
	exit 1
}
[ $rc -eq 0 ] || fail "rcuboost-bench exited with $rc"
if grep -q '^inversion: n/a' "$dir/stdout"; then
	[ "$(id -u)" -ne 0 ] || fail "the scenario reported n/a for root"
	echo "skip: no real-time permission"
	exit 77
fi
"$cmake" -DJSON="$dir/inversion.json" -DSTDOUT="$dir/stdout" -DHOGS="300;600" \
	-P "$here/bench_inversion_smoke.cmake" || fail "malformed output"
echo "bench_inversion_smoke: OK"
