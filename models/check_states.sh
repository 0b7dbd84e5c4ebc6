#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check_states.sh [STATES_H [MODELS_DIR]] -- the C state lists and the
# Promela models list the same states in the same order.
#
# Every X-macro list RCB_<NAME>_STATES(X) in src/core/states.h is compared with
# the first mtype declaration of models/<name>.pml (NAME lower-cased).
# An entry is X(NAME) or X(C_NAME, ARTICLE_NAME); the article name (the
# model's name for the state) is compared:
# RCB_BOOST3_STATES <-> boost3.pml, RCB_BOOST8_STATES <-> boost8.pml,
# RCB_PERTASK_STATES <-> pertask.pml.  A C list whose model is missing, or
# that differs from its model, fails.  A model whose C list does not exist
# yet is reported and skipped.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
h=${1:-$here/../src/core/states.h}
dir=${2:-$here}
[ -f "$h" ] || { echo "check_states.sh: no $h" >&2; exit 2; }

# The X(...) entries of macro $1, in order, on one line.
c_list() {
	awk -v m="$1" '
	$0 ~ "^[ \t]*#[ \t]*define[ \t]+" m "[ \t]*\\(" { on = 1 }
	on {
		line = $0
		# X(NAME), or X(C_NAME, ARTICLE_NAME): the article name
		while (match(line, /X\([ \t]*[A-Za-z_][A-Za-z0-9_]*([ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*)?[ \t]*\)/)) {
			arg = substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
			gsub(/[ \t]/, "", arg)
			n = split(arg, part, ",")
			printf "%s ", part[n]
		}
		if ($0 !~ /\\[ \t]*$/) exit
	}' "$h" | sed 's/ $//'
}

# The names of the first mtype declaration of model $1, on one line.
model_list() {
	sed 's://.*$::' "$1" | awk '
	/^[ \t]*mtype[ \t]*(:[A-Za-z0-9_]+[ \t]*)?=/ { on = 1 }
	on { buf = buf " " $0; if ($0 ~ /}/) exit }
	END { print buf }' |
	sed 's:/\*[^*]*\*/::g; s/.*{//; s/}.*//' | tr ',\t' '  ' |
	tr -s ' ' | sed 's/^ //; s/ $//'
}

rc=0
seen=
for macro in $(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\(RCB_[A-Z0-9_]*_STATES\)[[:space:]]*(.*/\1/p' "$h"); do
	name=$(echo "$macro" | sed 's/^RCB_//; s/_STATES$//' | tr 'A-Z' 'a-z')
	seen="$seen $name"
	model=$dir/$name.pml
	c=$(c_list "$macro")
	if [ ! -f "$model" ]; then
		echo "FAIL: $macro has no model $name.pml in $dir"
		rc=1
		continue
	fi
	m=$(model_list "$model")
	if [ "$c" = "$m" ]; then
		echo "ok: $macro == $name.pml mtype: $c"
	else
		echo "FAIL: $macro and $name.pml differ"
		echo "  C ($h):     $c"
		echo "  model ($model): $m"
		rc=1
	fi
done
for model in "$dir"/*.pml; do
	[ -f "$model" ] || continue
	name=$(basename "$model" .pml)
	case " $seen " in
	*" $name "*) ;;
	*) echo "skip: $name.pml ($(model_list "$model")): src/core/states.h has no RCB_$(echo "$name" | tr 'a-z' 'A-Z')_STATES yet" ;;
	esac
done
[ -n "$seen" ] || { echo "FAIL: no RCB_*_STATES list in $h"; rc=1; }
exit $rc
