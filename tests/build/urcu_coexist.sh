#!/bin/sh
# SPDX-License-Identifier: MIT
#
# urcu_coexist.sh INCLUDE_DIR BUILD_INCLUDE_DIR WORKDIR
#
# <rcuboost/urcu.h> together with each header of liburcu-dev that is not
# a flavor header, included before and after it, with and without
# _LGPL_SOURCE, compiles with gcc and clang under -Wall -Wextra -Werror;
# and in every combination the pointer macros and the read side are
# rcuboost's, struct rcu_head is two words, and call_rcu has liburcu's
# prototype.  Compile-only (-fsyntax-only).  Fails if liburcu-dev is
# missing: the point is to compile against it.
set -eu

inc=$1 binc=$2 work=$3
compilers=${RCB_COEXIST_COMPILERS:-gcc clang}
headers="urcu/cds.h urcu/rculfhash.h urcu/rculfqueue.h urcu/rculfstack.h
urcu/wfcqueue.h urcu/rculist.h urcu/rcuhlist.h urcu/pointer.h
urcu/compiler.h urcu/uatomic.h urcu-call-rcu.h urcu-defer.h urcu-flavor.h"

rm -rf "$work"
mkdir -p "$work"
echo '#include <urcu/cds.h>' >"$work/probe.c"
if ! gcc -fsyntax-only "$work/probe.c" 2>/dev/null; then
	echo "FAIL: liburcu-dev's headers are missing (Debian: apt-get install liburcu-dev)"
	exit 1
fi

# What is checked after the includes: rcb_dereference and rcb_read_lock
# are replaced by a marker, so a liburcu definition of rcu_dereference or
# rcu_read_lock would show as another type.
cat >"$work/checks.h" <<'EOF'
struct rcb_marker { int x; };
extern struct rcb_marker rcb_marker_v;
#undef rcb_dereference
#define rcb_dereference(p) rcb_marker_v
#define rcb_read_lock() rcb_marker_v
#define rcb_read_unlock() rcb_marker_v
#define SAME(a, b) __builtin_types_compatible_p(__typeof__(a), b)
int coexist_check(void);
int coexist_check(void)
{
	int *gp = 0;

	_Static_assert(SAME(rcu_dereference(gp), struct rcb_marker),
		       "rcu_dereference is not rcuboost's");
	_Static_assert(SAME(rcu_read_lock(), struct rcb_marker),
		       "rcu_read_lock is not rcuboost's");
	_Static_assert(SAME(rcu_read_unlock(), struct rcb_marker),
		       "rcu_read_unlock is not rcuboost's");
	_Static_assert(sizeof(struct rcu_head) == 2 * sizeof(void *),
		       "struct rcu_head is not liburcu's two words");
	_Static_assert(SAME(&call_rcu, void (*)(struct rcu_head *,
						void (*)(struct rcu_head *))),
		       "call_rcu has not liburcu's prototype");
	_Static_assert(SAME(&rcu_flavor, const struct rcu_flavor_struct *),
		       "rcu_flavor is not the flavor struct");
	(void)gp;
	return 0;
}
EOF

status=0 n=0
for h in $headers; do
	for order in before after; do
		for lgpl in 0 1; do
			tu="$work/$(echo "$h" | tr '/.-' '___')_${order}_$lgpl.c"
			{
				[ $lgpl = 1 ] && echo '#define _LGPL_SOURCE'
				if [ $order = before ]; then
					echo "#include <$h>"
					echo '#include <rcuboost/urcu.h>'
				else
					echo '#include <rcuboost/urcu.h>'
					echo "#include <$h>"
				fi
				echo '#include "checks.h"'
			} >"$tu"
			# The compilers in parallel (two jobs: a 2-core machine).
			for cc in $compilers; do
				$cc -std=gnu11 -fsyntax-only -Wall -Wextra -Werror \
					-I"$inc" -I"$binc" -I"$work" "$tu" \
					>"$tu.$cc.log" 2>&1 || echo "$cc" >>"$tu.failed" &
			done
			wait
			for cc in $compilers; do
				n=$((n + 1))
				if grep -qx "$cc" "$tu.failed" 2>/dev/null; then
					echo "FAIL: $cc: <$h> $order <rcuboost/urcu.h>, _LGPL_SOURCE=$lgpl:"
					sed 's/^/    /' "$tu.$cc.log" | head -20
					status=1
				fi
			done
		done
	done
done
[ $status = 0 ] && echo "ok: $n compilations of <rcuboost/urcu.h> with liburcu's headers"
exit $status
