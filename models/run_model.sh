#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run_model.sh -- verify a Promela model of models/ with spin, or show that
# a mutation of it is caught.  POSIX sh; needs spin and a C compiler.
#
#   run_model.sh [options] MODEL.pml      check one model
#   run_model.sh --mutation FILE          apply a models/mutations/ sed
#                                         script to a copy of the model it
#                                         names and expect a counterexample
#   run_model.sh --deep                   every model at larger bounds
#
# Options
#   --liveness          spin -DLIVENESS; pan -a -f (acceptance cycles under
#                       weak fairness against the model's ltl claim)
#   --expect-violation  pass only if pan reports an error AND its trail
#                       replays with spin -t; otherwise pass only if pan
#                       reports none and the search was not truncated
#   --trail-grep RE     with --expect-violation: the replay must match RE
#   -DNAME[=VALUE]      model parameter, passed to spin (and to the replay)
#   --depth N           pan -m (default 100000)
#   --hash N            pan -w (default 20; --deep: 24)
#   --deep              larger bounds (NSEC=4, NELEM=4), COLLAPSE
#   --collapse          compile pan with -DCOLLAPSE (less memory per
#                       state, a little slower; for the large variants)
#   --keep              keep the work directory and print its path
#   -h, --help
#
# Output: one summary line per run, e.g.
#   boost3.pml [safety]: errors 0, states stored 79992, depth 1355,
#   memory 9.4 MB, time 0.03 s -- PASS (no error expected)
# and on a violation the tail of the replayed trail.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
SPIN=${SPIN:-spin}
CC=${CC:-cc}

usage() { sed -n '4,32p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

mode=safety
expect=pass
mutation=
trail_re=
defs=
depth=100000
hash=
deep=0
collapse=0
keep=0
model=

while [ $# -gt 0 ]; do
	case $1 in
	--liveness) mode=liveness ;;
	--expect-violation) expect=violation ;;
	--trail-grep) trail_re=$2; shift ;;
	--mutation) mutation=$2; expect=violation; shift ;;
	--depth) depth=$2; shift ;;
	--hash) hash=$2; shift ;;
	--deep) deep=1 ;;
	--collapse) collapse=1 ;;
	--keep) keep=1 ;;
	-D*) defs="$defs $1" ;;
	-h|--help) usage 0 ;;
	-*) echo "run_model.sh: unknown option $1" >&2; usage 2 >&2 ;;
	*) model=$1 ;;
	esac
	shift
done

command -v "$SPIN" >/dev/null 2>&1 || {
	echo "run_model.sh: spin not found: apt-get install spin" >&2; exit 2; }

# --deep without a model: every model, both claims, larger bounds.
if [ "$deep" = 1 ] && [ -z "$model" ] && [ -z "$mutation" ]; then
	rc=0
	for args in "boost3.pml" "--liveness boost3.pml" \
		    "boost8.pml" "--liveness boost8.pml" \
		    "-DTASK_NOLOCK -DMAXFAIL=3 boost8.pml" \
		    "-DREVERT_OWN_ONLY -DCHECK_SELF_QUEUE boost3.pml" \
		    "--liveness -DREVERT_OWN_ONLY boost3.pml" \
		    "pertask.pml" "cbboost.pml" "-DNOWN=3 -DNCALL=1 cblocal.pml" \
		    "--liveness --expect-violation --trail-grep SELFWAIT pertask.pml"; do
		# shellcheck disable=SC2086
		"$0" --deep $args || rc=1
	done
	exit $rc
fi

# A mutation names its model, its run mode and extra defines in its header:
#   # model: boost3.pml
#   # run: safety | liveness
#   # define: -DNAME=VALUE
#   # trail: regular expression the replayed trail must match
if [ -n "$mutation" ]; then
	[ -f "$mutation" ] || mutation=$here/mutations/$mutation
	[ -f "$mutation" ] || { echo "run_model.sh: no mutation $mutation" >&2; exit 2; }
	model=$(sed -n 's/^# model:[[:space:]]*//p' "$mutation" | head -n 1)
	m=$(sed -n 's/^# run:[[:space:]]*//p' "$mutation" | head -n 1)
	[ -n "$m" ] && mode=$m
	d=$(sed -n 's/^# define:[[:space:]]*//p' "$mutation" | head -n 1)
	[ -n "$d" ] && defs="$defs $d"
	t=$(sed -n 's/^# trail:[[:space:]]*//p' "$mutation" | head -n 1)
	[ -n "$t" ] && trail_re=$t
fi
[ -n "$model" ] || usage 2 >&2
[ -f "$model" ] || model=$here/$model
[ -f "$model" ] || { echo "run_model.sh: no model $model" >&2; exit 2; }

if [ "$deep" = 1 ]; then
	defs="$defs -DNSEC=4 -DNELEM=4"
	[ -n "$hash" ] || hash=24
	depth=1000000
fi
[ -n "$hash" ] || hash=20

work=$(mktemp -d "${TMPDIR:-/tmp}/rcb-model.XXXXXX")
if [ "$keep" = 1 ]; then
	echo "run_model.sh: work directory $work"
else
	trap 'rm -rf "$work"' EXIT INT TERM
fi
name=$(basename "$model")
label="$name [$mode${defs:+:$defs}]"
if [ -n "$mutation" ]; then
	sed -f "$mutation" "$model" >"$work/$name"
	if cmp -s "$model" "$work/$name"; then
		echo "run_model.sh: mutation $(basename "$mutation") does not apply to $name" >&2
		exit 1
	fi
	label="$(basename "$mutation") on $label"
	echo "mutation $(basename "$mutation"):"
	diff "$model" "$work/$name" | sed -n 's/^[<>]/   &/p'
else
	cp "$model" "$work/$name"
fi

cd "$work"
# -O1: pan.c compiles in half the time of -O2 (1.5 s against 3.5 s for
# gppoll.pml here) and searches these models about as fast; the deep
# runs search long enough for -O2 to pay.
ccflags="-O1 -w"
[ "$deep" = 1 ] && ccflags="-O2 -w"
panflags="-m$depth -w$hash"
if [ "$mode" = liveness ]; then
	defs="$defs -DLIVENESS"
	ccflags="$ccflags -DNFAIR=3"
	panflags="$panflags -a -f"
elif [ "$expect" = violation ]; then
	ccflags="$ccflags -DBFS" # shortest counterexample
else
	ccflags="$ccflags -DSAFETY"
fi
if [ "$deep" = 1 ] || [ "$collapse" = 1 ]; then
	ccflags="$ccflags -DCOLLAPSE"
fi

# shellcheck disable=SC2086
if ! "$SPIN" $defs -a "$name" >spin.out 2>&1; then
	cat spin.out
	echo "$label: spin -a failed -- FAIL"
	exit 1
fi
# shellcheck disable=SC2086
$CC $ccflags -o pan pan.c
# shellcheck disable=SC2086
./pan $panflags >pan.out 2>&1 || true

num() { sed -n "$1" pan.out | head -n 1; }
errors=$(num 's/.*errors: \([0-9]*\).*/\1/p')
stored=$(num 's/^ *\([0-9][0-9e+.]*\) states, stored.*/\1/p')
dep=$(num 's/.*depth reached \([0-9]*\).*/\1/p')
mem=$(num 's/^ *\([0-9.]*\)[[:space:]]*total actual memory usage.*/\1/p')
secs=$(num 's/^pan: elapsed time \([0-9.e+-]*\) seconds.*/\1/p')
summary="errors ${errors:-?}, states stored ${stored:-?}, depth ${dep:-?}, memory ${mem:-?} MB, time ${secs:-?} s"

if [ -z "$errors" ]; then
	cat pan.out
	echo "$label: pan did not complete -- FAIL"
	exit 1
fi

if [ "$expect" = pass ]; then
	if [ "$errors" != 0 ]; then
		grep -E 'violated|cycle|invalid end state' pan.out | head -n 5 || true
		# shellcheck disable=SC2086
		"$SPIN" $defs -t -p -g "$name" 2>&1 | tail -n 40 || true
		echo "$label: $summary -- FAIL (no error expected)"
		exit 1
	fi
	if grep -q 'max search depth too small' pan.out; then
		echo "$label: $summary -- FAIL (search truncated: raise --depth)"
		exit 1
	fi
	echo "$label: $summary -- PASS (no error expected)"
	exit 0
fi

# A violation is expected: it must be found and its trail must replay.
if [ "$errors" = 0 ]; then
	echo "$label: $summary -- FAIL (a counterexample was expected)"
	exit 1
fi
what=$(grep -E '^pan:1: ' pan.out | head -n 1 | sed 's/^pan:1: //')
[ -f "$name.trail" ] || { echo "$label: no trail written -- FAIL"; exit 1; }
# shellcheck disable=SC2086
"$SPIN" $defs -t -p -g -l "$name" >replay.out 2>&1 || {
	tail -n 20 replay.out
	echo "$label: trail does not replay -- FAIL"
	exit 1
}
if ! grep -Eq 'trail ends after|START OF CYCLE' replay.out; then
	tail -n 20 replay.out
	echo "$label: trail replay incomplete -- FAIL"
	exit 1
fi
if [ -n "$trail_re" ] && ! grep -Eq "$trail_re" replay.out; then
	tail -n 40 replay.out
	echo "$label: replayed trail does not show /$trail_re/ -- FAIL"
	exit 1
fi
steps=$(sed -n 's/.*trail ends after \([0-9]*\) steps.*/\1/p' replay.out | head -n 1)
echo "counterexample: $what; trail of ${steps:-?} steps replays"
grep -E 'Error|failed assertion|START OF CYCLE|SELFWAIT' replay.out | head -n 6 | sed 's/^/   /'
echo "$label: $summary -- PASS (counterexample found, as expected)"
exit 0
