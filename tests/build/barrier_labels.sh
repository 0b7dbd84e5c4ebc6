#!/bin/sh
# SPDX-License-Identifier: MIT
#
# barrier_labels.sh SOURCE_DIR
#
# Every ordering operation in src/ and include/ carries an ordering label
# such as [GP-A] (see doc/ordering.md) on its own line or at most 8 lines
# above it, in the same paragraph, and not borrowed from another
# operation: the search upwards stops at a blank line, a function
# boundary, or the line of another ordering operation.  Ordering operations: the acquire, release, acq_rel and
# seq_cst helpers of src/core/atomic.h, fences, compiler barriers,
# rcb__membarrier() calls, and any __ATOMIC_* or memory_order_* constant
# stronger than relaxed.  Exempt: src/core/atomic.h (the helpers'
# definitions), #define lines with their continuations, and comments.
set -eu

root=$1
cd "$root"
files=$( (find src -type f \( -name '*.c' -o -name '*.h' \) | sort
	ls include/*.h include/rcuboost/*.h) 2>/dev/null |
	grep -v '^src/core/atomic\.h$')
[ -n "$files" ] || { echo "FAIL: no sources under $root"; exit 1; }

# shellcheck disable=SC2086
awk '
FNR == 1 { incomment = 0; indefine = 0; delete raw; delete site }
{
	raw[FNR] = $0
	site[FNR] = 0
	# Code without comments (strings are not expected to hold "/*").
	code = ""; s = $0
	while (s != "") {
		if (incomment) {
			p = index(s, "*/")
			if (!p) { s = ""; break }
			s = substr(s, p + 2); incomment = 0
		} else {
			p = index(s, "/*"); q = index(s, "//")
			if (q && (!p || q < p)) { code = code substr(s, 1, q - 1); s = ""; break }
			if (!p) { code = code s; s = ""; break }
			code = code substr(s, 1, p - 1); s = substr(s, p + 2); incomment = 1
		}
	}
	define = indefine || code ~ /^[ \t]*#[ \t]*define/
	indefine = define && code ~ /\\[ \t]*$/
	if (define)
		next
	if (code !~ /(rcb_load_acquire|rcb_store_release|rcb_xchg_acq_rel|rcb_cmpxchg_acq_rel|rcb_[a-z]+_seq_cst|atomic_thread_fence|atomic_signal_fence|rcb_+compiler_barrier)[ \t]*\(/ &&
	    code !~ /rcb__membarrier[ \t]*\([ \t]*\)/ &&
	    code !~ /__ATOMIC_(CONSUME|ACQUIRE|RELEASE|ACQ_REL|SEQ_CST)|memory_order_(consume|acquire|release|acq_rel|seq_cst)/)
		next
	site[FNR] = 1
	label = "\\[[A-Z][A-Z0-9]*-[A-Z0-9]+\\]"
	ok = $0 ~ label
	for (i = FNR - 1; !ok && i >= 1 && i >= FNR - 8; i--) {
		if (raw[i] ~ /^[ \t]*$/ || raw[i] ~ /^[{}]/ || site[i])
			break
		ok = raw[i] ~ label
	}
	if (!ok) {
		t = $0; sub(/^[ \t]+/, "", t)
		print FILENAME ":" FNR ": " t
		nbad++
	}
}
END {
	if (nbad) {
		print nbad " ordering operation(s) without a label such as [GP-A] on the line or in the comment above"
		exit 1
	}
}' $files
echo "ok: every ordering operation in src/ and include/ is labelled"
