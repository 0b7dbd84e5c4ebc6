#!/bin/sh
# SPDX-License-Identifier: MIT
#
# gp_line_shared.sh LIBRARY
#
# Issue 12: rcb__gp, which every outermost rcb_read_lock() and
# rcb_read_unlock() reads, shared its cache line with the callback
# queue's tail (rcb__cb_q, 16 bytes after it), which every rcb_call()
# exchanges: each retired object cost every running reader a cache miss,
# and readers ran at half liburcu's rate beside a call_rcu() updater.
# Fails if any other variable of the library lies in the 128-byte block
# (a cache line and its prefetch buddy) that holds rcb__gp.
set -eu

lib=$1
nm -n -S --defined-only "$lib" | awk '
function strtonum(h,   i, v) { v = 0; h = tolower(h); sub(/^0x/, "", h)
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v }
$NF == "rcb__gp" { gp = strtonum("0x" $1); gpsize = strtonum("0x" $2) }
{ addr[NR] = $1; size[NR] = (NF == 4 ? $2 : "0"); type[NR] = (NF == 4 ? $3 : $2); name[NR] = $NF }
END {
	if (!gp) { print "FAIL: no rcb__gp in the library"; exit 1 }
	lo = gp - gp % 128; hi = lo + 128
	bad = 0
	for (i = 1; i <= NR; i++) {
		if (name[i] == "rcb__gp" || type[i] !~ /^[dDbBgGsS]$/)
			continue
		a = strtonum("0x" addr[i]); e = a + strtonum("0x" size[i])
		if (a < hi && (e > lo || a >= lo)) {
			printf "FAIL: %s (%s bytes at 0x%x) shares the 128-byte block of rcb__gp (0x%x)\n", name[i], size[i], a, gp
			bad = 1
		}
	}
	if (!bad)
		printf "ok: rcb__gp (0x%x, %d bytes) alone in its 128-byte block\n", gp, gpsize
	exit bad
}'
