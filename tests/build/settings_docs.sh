#!/bin/sh
# SPDX-License-Identifier: MIT
#
# settings_docs.sh MAN_PAGE README SETTINGS_LIST_PROGRAM
#
# The settings of src/core/settings.h (printed by the program from the X-macro
# table) against their documentation:
#  - rcuboost(3)'s ENVIRONMENT section has an entry (.TP, then .B NAME)
#    for every setting, and no RCUBOOST_ entry but those and the
#    variables read outside the table (RCUBOOST_EARLY, RCUBOOST_KEEPER);
#  - an entry says "Fixed for the life of the process" exactly when
#    its setting is fixed;
#  - README.md's "## Configuration" table lists a few settings, each a
#    real one, and points to rcuboost(3) for the rest.
set -eu

page=$1
readme=$2
prog=$3
others="RCUBOOST_EARLY RCUBOOST_KEEPER"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" > "$tmp/list"
[ -s "$tmp/list" ] || { echo "FAIL: $prog printed nothing"; exit 1; }
cut -d' ' -f1 "$tmp/list" | sort > "$tmp/want"
awk '$2 == "fixed" { print $1 }' "$tmp/list" | sort > "$tmp/fixed_want"
status=0

# One line per entry of ENVIRONMENT: the name, then "fixed" if its text
# (up to the next .TP or .SH) says so.
awk '/^\.SH /{ on = ($0 ~ /^\.SH ENVIRONMENT/) } on' "$page" |
	awk '
	function flush() { if (name != "") print name (fixed ? " fixed" : ""); name = "" }
	/^\.TP/ { flush(); want = 1; next }
	want && /^\.B RCUBOOST_[A-Z0-9_]*$/ { name = $2; fixed = 0; want = 0; next }
	{ want = 0 }
	/[Ff]ixed for the life of/ { fixed = 1 }
	END { flush() }' > "$tmp/entries"
cut -d' ' -f1 "$tmp/entries" | sort > "$tmp/have_all"
for v in $others; do
	grep -qx "$v" "$tmp/have_all" ||
		{ echo "FAIL: $page's ENVIRONMENT has no entry for $v"; status=1; }
done
grep -vx -F "$(printf '%s\n' $others)" "$tmp/have_all" > "$tmp/have" || true
if ! cmp -s "$tmp/want" "$tmp/have"; then
	echo "FAIL: $page's ENVIRONMENT entries differ from" \
		"src/core/settings.h (< only in the table of settings," \
		"> only in the page):"
	diff "$tmp/want" "$tmp/have" | grep '^[<>]' || true
	status=1
fi
awk '$2 == "fixed" { print $1 }' "$tmp/entries" | sort > "$tmp/fixed_have"
if ! cmp -s "$tmp/fixed_want" "$tmp/fixed_have"; then
	echo "FAIL: the entries of $page that say \"Fixed for the life of the" \
		"process\" differ from the fixed settings of" \
		"src/core/settings.h (< only in the table, > only in the page):"
	diff "$tmp/fixed_want" "$tmp/fixed_have" | grep '^[<>]' || true
	status=1
fi

# README: a short table of real settings, and the pointer to the rest.
sed -n '/^## Configuration/,/^## /p' "$readme" > "$tmp/section"
sed -n 's/^| `\(RCUBOOST_[A-Z0-9_]*\)` |.*/\1/p' "$tmp/section" > "$tmp/readme"
if [ ! -s "$tmp/readme" ]; then
	echo "FAIL: $readme has no settings table under '## Configuration'"
	status=1
fi
for v in $(cat "$tmp/readme"); do
	grep -qx "$v" "$tmp/want" || printf '%s\n' $others | grep -qx "$v" ||
		{ echo "FAIL: $readme's configuration table lists $v, which src/core/settings.h does not have"; status=1; }
done
grep -q 'rcuboost(3)' "$tmp/section" ||
	{ echo "FAIL: $readme's '## Configuration' does not point to rcuboost(3) for the other settings"; status=1; }

[ $status = 0 ] && echo "ok: $(basename "$page") documents the $(wc -l < "$tmp/want") settings" \
	"of src/core/settings.h ($(wc -l < "$tmp/fixed_want") fixed); $(basename "$readme")" \
	"lists $(wc -l < "$tmp/readme") of them"
exit $status
