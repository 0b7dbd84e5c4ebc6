#!/bin/sh
# SPDX-License-Identifier: MIT
#
# symbols.sh LIBRARY.so HEADER BOOST
#
# The library's dynamic symbol table against the public header:
#   1. every exported symbol starts with rcb_ (rcb__ included), apart
#      from names the linker itself may define;
#   2. every RCB_API name declared in HEADER is exported (the inline read
#      side links against rcb__reader, rcb__gp and the slow paths),
#      with or without boosting (BOOST is accepted for the callers);
#   3. nothing else is exported: a symbol outside HEADER is an internal
#      that lost its hidden visibility.
# liburcu's urcu_memb_* names are exported too when declared RCB_API in
# one of the fragment headers include/rcuboost/urcu_*.h (beside HEADER):
# each must be declared there, and each declared one exported.
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
		if (match(decl, /rcb_[a-z0-9_]+[ \t]*[(;]/))
			print substr(decl, RSTART, RLENGTH - 1)
		decl = ""
	}' "$header" | tr -d ' \t' | sort -u)
required=$api
urcu_api=$(cat "$(dirname "$header")"/rcuboost/urcu_*.h 2>/dev/null |
	awk '/^RCB_API/ { if (match($0, /urcu_memb_[a-z0-9_]+[ \t]*\(/)) print substr($0, RSTART, RLENGTH - 1) }' |
	tr -d ' \t' | sort -u)
: "$boost"

status=0
for s in $syms; do
	case $s in
	rcb_*) ;;
	urcu_memb_*)
		echo "$urcu_api" | grep -qx "$s" ||
			{ echo "FAIL: $s is exported but declared RCB_API in no rcuboost/urcu_*.h"; status=1; } ;;
	_init | _fini | _edata | _end | __bss_start) ;; # linker-defined
	*) echo "FAIL: exported symbol outside rcb_/rcb__: $s"; status=1 ;;
	esac
done
for s in $required; do
	echo "$syms" | grep -qx "$s" ||
		{ echo "FAIL: $s is RCB_API in $header but not exported"; status=1; }
done
for s in $urcu_api; do
	echo "$syms" | grep -qx "$s" ||
		{ echo "FAIL: $s is RCB_API in an rcuboost/urcu_*.h but not exported"; status=1; }
done
for s in $syms; do
	case $s in rcb_*) ;; *) continue ;; esac
	echo "$api" | grep -qx "$s" ||
		{ echo "FAIL: $s is exported but not declared RCB_API in $header"; status=1; }
done
# 4. The liburcu facade, both ways.
urcu_api=$(cat "$(dirname "$header")"/rcuboost/*.h |
	awk '/^RCB_API/ { decl = "" } /^RCB_API/ || decl != "" { decl = decl " " $0 }
	decl != "" && /;/ {
		if (match(decl, /urcu_memb_[a-z0-9_]+[ \t]*[(;]/))
			print substr(decl, RSTART, RLENGTH - 1)
		decl = ""
	}' | tr -d ' \t' | sort -u)
for s in $syms; do
	case $s in urcu_memb_*) ;; *) continue ;; esac
	echo "$urcu_api" | grep -qx "$s" ||
		{ echo "FAIL: $s is exported but not declared RCB_API in rcuboost/*.h"; status=1; }
done
for s in $urcu_api; do
	echo "$syms" | grep -qx "$s" ||
		{ echo "FAIL: $s is RCB_API in rcuboost/*.h but not exported"; status=1; }
done
[ $status = 0 ] && echo "ok: $(echo "$syms" | wc -l) exported symbols, all declared in $header"
exit $status
