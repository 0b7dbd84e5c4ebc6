#!/bin/sh
# SPDX-License-Identifier: MIT
#
# symbols.sh LIBRARY.so HEADER BOOST
#
# The library's dynamic symbol table against the public header:
#   1. every exported symbol starts with rcb_ (rcb__ included), apart
#      from names the linker itself may define;
#   2. every RCB_API name declared in HEADER (and in the qsbr domain's
#      rcuboost/qsbr.h and rcuboost/domain.h beside it) is exported (the inline read
#      side links against rcb__reader, rcb__gp and the slow paths),
#      with or without boosting (BOOST is accepted for the callers);
#   3. nothing else is exported: a symbol outside HEADER is an internal
#      that lost its hidden visibility.
# The one exception to 1: liburcu's names (urcu_memb_*, rcu_*_sym) that
# the drop-in headers beside HEADER (rcuboost/urcu*.h) declare RCB_API;
# they too must be exported, and nothing else outside rcb_.
set -eu

lib=$1 header=$2 boost=$3

syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u)
if [ -z "$syms" ]; then
	echo "FAIL: nm -D --defined-only $lib listed nothing"
	exit 1
fi
# Declarations starting with RCB_API, joined up to their ';', attributes
# dropped; the name is the first rcb_ word followed by '(' or ';'.
api=$(awk '/^RCB_API/ { decl = "" } /^RCB_API/ || decl != "" { decl = decl " " $0 }
	decl != "" && /;/ {
		gsub(/__attribute__[ \t]*\(\(.*\)\)/, "", decl)
		if (match(decl, /rcb_[a-z0-9_]+[ \t]*[(;[]/))
			print substr(decl, RSTART, RLENGTH - 1)
		decl = ""
	}' "$header" "$(dirname "$header")/rcuboost/qsbr.h" "$(dirname "$header")/rcuboost/domain.h" | tr -d ' \t' | sort -u)
# The drop-in headers' RCB_API names (any identifier).  The names a
# memb-class flavor header declares through urcu_flavor_decl.h
# (RCB__UF(name)) are spelt out per flavor first.
urcu=$(ls "$(dirname "$header")"/rcuboost/urcu*.h 2>/dev/null | grep -v urcu_flavor_decl || true)
decl_tmpl=$(dirname "$header")/rcuboost/urcu_flavor_decl.h
spelt=$(mktemp -d)
trap 'rm -rf "$spelt"' EXIT
if [ -f "$decl_tmpl" ]; then
	for f in $(grep -l 'urcu_flavor_decl.h' $urcu | sed 's/.*urcu_\([a-z]*\)\.h$/\1/'); do
		sed "s/RCB__UF(\([a-z_]*\))/urcu_${f}_\1/g" "$decl_tmpl" >"$spelt/$f.h"
		urcu="$urcu $spelt/$f.h"
	done
fi
urcu_api=
if [ -n "$urcu" ]; then
	# shellcheck disable=SC2086
	urcu_api=$(awk '/^RCB_API/ { decl = "" } /^RCB_API/ || decl != "" { decl = decl " " $0 }
		decl != "" && /;/ {
			sub(/^ *RCB_API/, "", decl)
			if (match(decl, /[A-Za-z_][A-Za-z0-9_]*[ \t]*[(;]/))
				print substr(decl, RSTART, RLENGTH - 1)
			decl = ""
		}' $urcu | tr -d ' \t' | sort -u)
fi
required="$api $urcu_api"
: "$boost"

status=0
for s in $syms; do
	case $s in
	rcb_*) ;;
	_init | _fini | _edata | _end | __bss_start) ;; # linker-defined
	*) if echo "$urcu_api" | grep -qx "$s"; then continue; fi
	   echo "FAIL: exported symbol outside rcb_/rcb__: $s"; status=1 ;;
	esac
done
for s in $required; do
	echo "$syms" | grep -qx "$s" ||
		{ echo "FAIL: $s is RCB_API in $header but not exported"; status=1; }
done
for s in $syms; do
	case $s in rcb_*) ;; *) continue ;; esac
	echo "$api" | grep -qx "$s" ||
		{ echo "FAIL: $s is exported but not declared RCB_API in $header"; status=1; }
done
[ $status = 0 ] && echo "ok: $(echo "$syms" | wc -l) exported symbols, all declared in $header"
exit $status
