#!/bin/sh
# SPDX-License-Identifier: MIT
#
# format_check.sh SOURCE_DIR WORKDIR
#
# Kernel style, the properties the whole tree keeps (clang-format with
# .clang-format would rewrap far more than it fixes, so it is advice;
# these are the rule).  In every .c, .h and .h.in file under src/,
# include/, tools/ and tests/:
#   1. indentation is tabs: no line starts with 8 spaces, and no space
#      comes before a tab in the indentation (spaces after the tabs, for
#      alignment, are fine);
#   2. no trailing white space, no carriage return, a final newline;
#   3. a function definition's opening brace is on a line of its own;
#   4. a space between if/for/while/switch and its parenthesis;
#   5. "} else" on one line: no else at the start of a line after a lone }.
#   6. at most 80 columns (tabs of 8), .clang-format's ColumnLimit; a
#      line may pass it only by a string literal, which is never split
#      (so that a message can be found with grep), or by a URL.
# The checker first runs on a generated file with one fault of each kind
# and must report every one of them, then on the tree.  It also checks
# that .clang-format parses (clang-format required).
set -eu

root=$1 work=$2

check()
{
	rc=0
	awk '
	function bad(what) { print FILENAME ":" FNR ": " what ": " $0; status = 1 }
	function width(s,    i, w) {
		w = 0
		for (i = 1; i <= length(s); i++)
			w = substr(s, i, 1) == "\t" ? w - w % 8 + 8 : w + 1
		return w
	}
	FNR == 1 { prev = "" }
	/^        / { bad("indented with spaces (use tabs)") }
	/^\t* +\t/ { bad("space before tab in indentation") }
	/[ \t]+$/ { bad("trailing white space") }
	/\r/ { bad("carriage return") }
	# A definition at column 0 ending in ") {": a function whose brace is
	# not on its own line (initialisers, structs and enums have no ")").
	/^[A-Za-z_][^=;]*\)[ \t]*\{[ \t]*$/ && !/^(struct|union|enum|typedef|#)/ {
		bad("function brace not on its own line")
	}
	/(^|[^A-Za-z0-9_])(if|for|while|switch)\(/ && !/^[ \t]*(\*|\/\*)/ {
		bad("no space before ( after a keyword")
	}
	width($0) > 80 {
		t = $0
		gsub(/"([^"\\]|\\.)*"/, "\"\"", t) # literals emptied
		if (width(t) > 80 && $0 !~ /https?:\/\//)
			bad("longer than 80 columns")
	}
	/^[ \t]*else([^A-Za-z0-9_]|$)/ && prev ~ /^[ \t]*}[ \t]*$/ {
		bad("else on the line after }, not \"} else\"")
	}
	{ prev = $0 }
	END { exit status }
	' "$@" || rc=1
	# A last line without its newline.
	for f in "$@"; do
		if [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
			echo "$f: no newline at the end of the file"
			rc=1
		fi
	done
	return $rc
}

rm -rf "$work"
mkdir -p "$work"

# Self-test: each fault must be reported.
printf '%s\n' \
	'static int a(void) {' \
	'        return 0;' \
	'}' \
	'static int b(int x)' \
	'{' \
	' 	if(x)' \
	'		return 1; ' \
	'	}' \
	'	else' \
	'		return 0;' \
	'	return b(1) + b(2) + b(3) + b(4) + b(5) + b(6) + b(7) + b(8) + b(9) + b(10);' \
	'	puts("a message that may run past the eightieth column, being a string");' \
	'}' >"$work/bad.c"
printf 'int c;' >"$work/nonl.c"
check "$work/bad.c" >"$work/self.out" 2>&1 && { cat "$work/self.out"; echo "FAIL: checker passed bad.c"; exit 1; }
for what in "indented with spaces" "space before tab" "trailing white space" \
	"function brace" "no space before (" "else on the line after" \
	"longer than 80 columns"; do
	grep -q "$what" "$work/self.out" ||
		{ cat "$work/self.out"; echo "FAIL: checker missed: $what"; exit 1; }
done
check "$work/nonl.c" >/dev/null 2>&1 && { echo "FAIL: checker missed a missing final newline"; exit 1; }
grep -q "puts" "$work/self.out" &&
	{ cat "$work/self.out"; echo "FAIL: checker flagged a long string literal"; exit 1; }

cd "$root"
files=$(find src include tools tests \( -name '*.c' -o -name '*.h' -o -name '*.h.in' \) -type f | sort)
[ -n "$files" ] || { echo "FAIL: no sources under $root"; exit 1; }
# shellcheck disable=SC2086
check $files || { echo "FAIL: kernel style (see tests/build/format_check.sh)"; exit 1; }

command -v clang-format >/dev/null 2>&1 ||
	{ echo "FAIL: clang-format is missing (Debian: clang-format)"; exit 1; }
clang-format --style=file --dry-run src/core/gp.c >/dev/null \
	2>"$work/clang-format.err" ||
	{ cat "$work/clang-format.err"; echo "FAIL: .clang-format does not parse"; exit 1; }
echo "ok: $(echo "$files" | wc -l) files in kernel style; .clang-format parses"
