#!/bin/sh
# SPDX-License-Identifier: MIT
#
# commit_msg_check.sh HOOK WORKDIR
#
# The commit-msg hook (scripts/commit-msg) accepts a good message and
# refuses each kind of bad one.
set -eu

hook=$1 work=$2
rm -rf "$work"
mkdir -p "$work"

expect()
{
	want=$1 name=$2
	shift 2
	printf '%s\n' "$@" >"$work/$name"
	if sh "$hook" "$work/$name" 2>"$work/$name.err"; then got=accept; else got=refuse; fi
	[ "$got" = "$want" ] ||
		{ echo "FAIL: the hook should $want '$name' but did $got"; cat "$work/$name.err"; exit 1; }
}

long=$(printf 'x%.0s' $(seq 1 73))
expect accept good "gp: wait for the last reader" "" "Because it was not waited for."
expect accept comments "gp: wait for the last reader" "" "Why." "# git's comment"
expect accept merge "Merge branch 'pkg'"
expect refuse long "$long" "" "Why."
expect refuse nobody "gp: wait for the last reader"
expect refuse noblank "gp: wait for the last reader" "Why, without a blank line."
expect refuse empty ""
echo "ok: commit-msg accepts good messages and refuses long subjects, missing bodies and blank lines"
