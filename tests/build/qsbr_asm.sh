#!/bin/sh
# SPDX-License-Identifier: MIT
#
# qsbr_asm.sh INCLUDE_DIR TU.c PEER_TU.c WORKDIR
#
# Proves the claims of include/rcuboost/qsbr.h about its inline code,
# compiled at -O2 with gcc and clang, position dependent, PIE and PIC:
#   - rcb_qsbr_read_lock() and rcb_qsbr_read_unlock() are no code (the
#     function holds nothing but its return);
#   - rcb_qsbr_quiescent_state() has no store, no lock prefix, no fence
#     and no xchg/cmpxchg/xadd, and calls nothing but its slow path
#     rcb__qsbr_quiescent_slow;
#   - boosting adds nothing to it: its code is the same with
#     RCB_CONFIG_BOOST 0 and 1;
#   - its path when no grace period waits (entry to the first ret) has
#     no more instructions than liburcu qsbr's urcu_qsbr_quiescent_state()
#     built the same way (PEER_TU.c, liburcu-dev's headers).
# x86_64 only: exits 77 (CTest skip) elsewhere.
set -eu

inc=$1 tu=$2 peer=$3 work=$4
compilers=${RCB_ASM_COMPILERS:-gcc clang}

for cc in $compilers; do
	command -v "$cc" >/dev/null 2>&1 ||
		{ echo "FAIL: compiler $cc not found (this test needs gcc and clang)"; exit 1; }
	case $($cc -dumpmachine) in
	x86_64-*) ;;
	*) echo "SKIP: x86_64 only ($cc targets $($cc -dumpmachine))"; exit 77 ;;
	esac
done
echo '#include <urcu/urcu-qsbr.h>' | gcc -E -x c - >/dev/null 2>&1 ||
	{ echo "FAIL: liburcu-dev's <urcu/urcu-qsbr.h> is missing (scripts/deps.sh)"; exit 1; }

# body OBJ FN: FN's instructions, one a line, relocations as "@SYM".
body()
{
	objdump -dr --no-show-raw-insn "$1" | awk -v fn="$2" '
	/^[0-9a-f]+ <.*>:$/ { on = ($2 == "<" fn ">:"); next }
	!on { next }
	/R_X86_64_/ { sym = $NF; sub(/[-+]0x[0-9a-f]+$/, "", sym); print "@" sym; next }
	/^ *[0-9a-f]+:\t/ {
		insn = $0; sub(/^ *[0-9a-f]+:\t/, "", insn); sub(/ *#.*/, "", insn)
		if (insn ~ /^(nop|xchg +%ax,%ax|data16|cs nopw)/) next
		gsub(/[0-9a-f]+ <[^>]*>/, "L", insn)
		print insn
	}'
}

# fast OBJ FN: instructions from entry to the first ret.
fast()
{
	body "$1" "$2" | awk '/^@/ { next } { n++ } /^ret/ { print n; exit }'
}

rm -rf "$work"
mkdir -p "$work"
status=0
for cc in $compilers; do
	for pic in -fno-pie -fpie -fPIC; do
		tag="$cc -O2 $pic"
		for boost in 0 1; do
			mkdir -p "$work/cfg$boost/rcuboost"
			sed "s/@RCB_CONFIG_BOOST@/$boost/" "$inc/rcuboost/config.h.in" \
				>"$work/cfg$boost/rcuboost/config.h"
			o=$work/$cc$pic-boost$boost.o
			"$cc" -std=c11 -O2 $pic -Wall -Wextra -Werror -c \
				-I"$work/cfg$boost" -I"$inc" "$tu" -o "$o" ||
				{ echo "FAIL $tag: does not compile"; status=1; continue 2; }
		done
		o0=$work/$cc$pic-boost0.o o1=$work/$cc$pic-boost1.o
		bad=
		for fn in qs_lock qs_unlock; do
			b=$(body "$o1" $fn | tr '\n' ' ')
			case $b in
			"ret " | "endbr64 ret ") ;;
			*) bad="$bad; $fn is not empty: $b" ;;
			esac
		done
		q=$(body "$o1" qs_quiescent)
		if echo "$q" | grep -Eq '(^| )(lock|mfence|lfence|sfence|xadd|cmpxchg|xchg)'; then
			bad="$bad; a fence or atomic read-modify-write"
		fi
		if echo "$q" | grep -v '^@' | grep -Eq ',[^,]*\([^,]*\)$'; then
			bad="$bad; a store"
		fi
		if echo "$q" | grep '^@' | grep -Evq '^@(rcb__dom_gp|rcb__dom_reader|rcb__qsbr_quiescent_slow)$'; then
			bad="$bad; a reference outside the qsbr domain's symbols"
		fi
		if [ "$(body "$o0" qs_quiescent)" != "$q" ]; then
			bad="$bad; boosting changes its code"
		fi
		"$cc" -std=gnu11 -O2 $pic -c "$peer" -o "$work/$cc$pic-peer.o" ||
			{ echo "FAIL $tag: liburcu's qsbr does not compile"; status=1; continue; }
		ours=$(fast "$o1" qs_quiescent)
		theirs=$(fast "$work/$cc$pic-peer.o" qs_quiescent)
		if [ -z "$ours" ] || [ -z "$theirs" ] || [ "$ours" -gt "$theirs" ]; then
			bad="$bad; fast path ${ours:-?} instructions, liburcu's ${theirs:-?}"
		fi
		if [ -n "$bad" ]; then
			echo "FAIL $tag${bad} (objdump -dr $o1)"
			status=1
		else
			echo "ok   $tag: quiescent state $ours instructions to its ret (liburcu qsbr: $theirs), read side empty"
		fi
	done
done
exit $status
