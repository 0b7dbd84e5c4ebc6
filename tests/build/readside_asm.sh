#!/bin/sh
# SPDX-License-Identifier: MIT
#
# readside_asm.sh INCLUDE_DIR TU.c WORKDIR
#
# Proves the read-side claim of include/rcuboost.h: rcb_read_lock() and
# rcb_read_unlock() have no atomic read-modify-write, no fence, and store
# only to thread-local memory.  TU.c is compiled at -O2 with gcc and clang
# (both must be present), for RCB_CONFIG_BOOST 0 and 1, as position
# dependent, PIE and PIC code (rcb__reader is initial-exec TLS, so even a
# shared-library consumer reaches it through %fs without calling
# __tls_get_addr), and every function's disassembly must have:
#   - no lock prefix, no xadd, no cmpxchg, no xchg with a memory operand
#     (implicitly locked), no mfence/lfence/sfence;
#   - every store through %fs (the thread's reader record), or to the
#     stack (push, (%rsp)), which is thread-private too;
#   - calls and tail calls only to the out-of-line slow paths, and
#     references only to those, rcb__reader and rcb__gp.
# x86_64 only: exits 77 (CTest skip) elsewhere.
set -eu

inc=$1 tu=$2 work=$3
compilers=${RCB_ASM_COMPILERS:-gcc clang}
slow='^(rcb__read_lock_slow|rcb__read_unlock_slow|rcb__read_unlock_special|rcb__gp_wake|rcb__read_lock_nest_overflow)$'
data='^(rcb__reader|rcb__gp)$'

for cc in $compilers; do
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "FAIL: compiler $cc not found (install it; this test needs gcc and clang)"
		exit 1
	fi
done
for cc in $compilers; do
	case $($cc -dumpmachine) in
	x86_64-*) ;;
	*)
		echo "SKIP: the read-side disassembly check is x86_64 only ($cc targets $($cc -dumpmachine))"
		exit 77 ;;
	esac
done

# check OBJ: prints each violation, fails if any
check()
{
	objdump -dr --no-show-raw-insn "$1" | awk -v slow="$slow" -v data="$data" '
	function bad(msg) { print "  " fn ": " msg ": " insn; nbad++ }
	function endfn() {
		if (fn != "" && need_reloc) bad("call without a relocation")
		if (fn != "" && !fs_stores) { insn = ""; bad("no store through %fs") }
		need_reloc = 0; fs_stores = 0
	}
	/^[0-9a-f]+ <.*>:$/ { endfn(); fn = $2; gsub(/[<>:]/, "", fn); nfn++; next }
	fn == "" { next }
	/R_X86_64_/ {
		sym = $NF; sub(/[-+]0x[0-9a-f]+$/, "", sym)
		if (branch && sym !~ slow)
			bad("branch to " sym)
		else if (sym !~ slow && sym !~ data)
			bad("reference to " sym)
		need_reloc = 0
		next
	}
	/^ *[0-9a-f]+:\t/ {
		if (need_reloc) bad("call without a relocation")
		insn = $0; sub(/^ *[0-9a-f]+:\t/, "", insn); sub(/ *#.*/, "", insn)
		n = split(insn, w, /[ \t]+/)
		for (i = 1; i < n && w[i] ~ /^(cs|ds|es|ss|data16|addr32|rex(\.[WRXB]+)?|notrack|bnd|rep|repz|repnz|lock)$/; i++)
			if (w[i] == "lock") bad("lock prefix")
		op = w[i]; args = ""
		for (j = i + 1; j <= n; j++) args = args w[j]
		branch = op ~ /^(call|jmp|j[a-z]+)$/
		if (op ~ /^(xadd|cmpxchg|mfence|lfence|sfence)/)
			bad("atomic read-modify-write or fence")
		if (op ~ /^xchg/ && args ~ /\(/)
			bad("xchg with memory (implicitly locked)")
		if (branch && args ~ /\*/ && args !~ /%rip/)
			bad("indirect branch")
		if (op ~ /^call/) need_reloc = 1
		# Destination: the last operand (AT&T order).
		m = args; gsub(/\([^)]*\)/, "(M)", m)
		k = split(m, a, ","); dst = a[k]
		if (branch || op ~ /^(cmp|test|bt|nop|prefetch|lea|push|ucomis|comis)/)
			next
		if (dst !~ /\(M\)/ && dst !~ /^(%[a-z]s:)?-?0x[0-9a-f]+$/)
			next
		if (dst ~ /^%fs:/)
			fs_stores++
		else if (args !~ /\(%rsp/)
			bad("store not through %fs")
	}
	END {
		endfn()
		if (nfn < 4) { print "  expected 4 functions, found " nfn + 0; nbad++ }
		exit nbad != 0
	}'
}

rm -rf "$work"
mkdir -p "$work"
status=0
for boost in 0 1; do
	mkdir -p "$work/cfg$boost/rcuboost"
	sed "s/@RCB_CONFIG_BOOST@/$boost/" "$inc/rcuboost/config.h.in" >"$work/cfg$boost/rcuboost/config.h"
	if grep -q @ "$work/cfg$boost/rcuboost/config.h"; then
		echo "FAIL: config.h.in has a variable this test does not set"
		exit 1
	fi
	for cc in $compilers; do
		for pic in -fno-pie -fpie -fPIC; do
			obj=$work/$cc-boost$boost$pic.o
			if ! "$cc" -std=c11 -O2 $pic -Wall -Wextra -Werror -c \
				-I"$work/cfg$boost" -I"$inc" "$tu" -o "$obj"; then
				echo "FAIL $cc -O2 $pic RCB_CONFIG_BOOST=$boost: does not compile"
				status=1
			elif check "$obj"; then
				echo "ok   $cc -O2 $pic RCB_CONFIG_BOOST=$boost"
			else
				echo "FAIL $cc -O2 $pic RCB_CONFIG_BOOST=$boost (objdump -dr $obj)"
				status=1
			fi
		done
	done
done
exit $status
