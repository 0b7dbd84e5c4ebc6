#!/bin/sh
# SPDX-License-Identifier: MIT
#
# replay_check.sh RCUBOOST-SIM
#
# A seed replays: the same seed run twice gives the same schedule (the
# summary line's hash covers every event), for each workload, and two
# seeds give different schedules (so the hash does see them).
set -eu
sim=$1
for w in rw hog shutdown signal fork; do
	extra=""
	[ "$w" = hog ] && extra=--boost
	a=$("$sim" --workload "$w" $extra --seed 4242 | head -1)
	b=$("$sim" --workload "$w" $extra --seed 4242 | head -1)
	c=$("$sim" --workload "$w" $extra --seed 4243 | head -1)
	case $a in *" ok seed=4242 "*) ;; *) echo "FAIL: $w: $a"; exit 1 ;; esac
	if [ "$a" != "$b" ]; then
		echo "FAIL: $w: seed 4242 did not replay:"
		echo "  $a"
		echo "  $b"
		exit 1
	fi
	if [ "${a##*hash=}" = "${c##*hash=}" ]; then
		echo "FAIL: $w: seeds 4242 and 4243 gave the same schedule hash"
		exit 1
	fi
	echo "$w: $a"
done
echo "every workload replays its seed"
