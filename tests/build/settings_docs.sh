#!/bin/sh
# SPDX-License-Identifier: MIT
#
# readme_settings.sh README SETTINGS_LIST_PROGRAM
#
# README.md's configuration table (section "### Configuration") has one
# row per setting of src/settings.h and no other, and its sentence on
# the variables "fixed for the life of the process" names exactly the
# fixed ones.  The program prints the list from the X-macro table.
set -eu

readme=$1
prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" > "$tmp/list"
[ -s "$tmp/list" ] || { echo "FAIL: $prog printed nothing"; exit 1; }
cut -d' ' -f1 "$tmp/list" | sort > "$tmp/want"
sed -n '/^### Configuration/,/^### /p' "$readme" > "$tmp/section"
sed -n 's/^| `\(RCUBOOST_[A-Z0-9_]*\)` |.*/\1/p' "$tmp/section" | sort > "$tmp/have"
status=0
if ! cmp -s "$tmp/want" "$tmp/have"; then
	echo "FAIL: README.md's configuration table differs from src/settings.h" \
		"(< only in the table of settings, > only in README.md):"
	diff "$tmp/want" "$tmp/have" | grep '^[<>]' || true
	status=1
fi
# The sentence naming the fixed variables: the text before "are fixed
# for the life", from the end of the previous sentence, on one line.
awk '/^\| /{next} {print}' "$tmp/section" | tr '\n' ' ' |
	sed -n 's/ are fixed for the life.*//p' | awk -F'[.] ' '{ print $NF }' |
	grep -o 'RCUBOOST_[A-Z0-9_]*' | sort > "$tmp/fixed_have" || true
awk '$2 == "fixed" { print $1 }' "$tmp/list" | sort > "$tmp/fixed_want"
if ! cmp -s "$tmp/fixed_want" "$tmp/fixed_have"; then
	echo "FAIL: README.md's 'fixed for the life of the process' sentence differs" \
		"from src/settings.h (< only in the table, > only in README.md):"
	diff "$tmp/fixed_want" "$tmp/fixed_have" | grep '^[<>]' || true
	status=1
fi
[ $status = 0 ] && echo "ok: README.md lists the $(wc -l < "$tmp/want") settings of src/settings.h"
exit $status
