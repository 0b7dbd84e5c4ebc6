#!/bin/sh
# SPDX-License-Identifier: MIT
#
# header_check.sh INCLUDE_DIR WORKDIR
#
# Each public header compiles as the first and only include of a TU that
# also expands its macros (statement expressions included), with gcc and
# clang, in strict ISO C11 and in GNU C11, pedantic, warnings as errors,
# for both values of RCB_CONFIG_BOOST (config.h made from its template);
# and it does not define _GNU_SOURCE.
set -eu

inc=$1 work=$2
compilers=${RCB_HDR_COMPILERS:-gcc clang}
warn="-Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 -pedantic -Werror"

rm -rf "$work"
for boost in 0 1; do
	mkdir -p "$work/cfg$boost/rcuboost"
	sed "s/@RCB_CONFIG_BOOST@/$boost/" "$inc/rcuboost/config.h.in" >"$work/cfg$boost/rcuboost/config.h"
	if grep -q @ "$work/cfg$boost/rcuboost/config.h"; then
		echo "FAIL: config.h.in has a variable this test does not set"
		exit 1
	fi
done

# Uses of the rcuboost.h API, then of the liburcu names of rcuboost/urcu.h.
cat >"$work/use-rcuboost.h" <<'EOF'
int hdr_use(void);
int hdr_use(void)
{
	static int *p;
	int x = 1, *old;

	rcb_read_lock();
	old = rcb_dereference(p);
	rcb_read_unlock();
	rcb_assign_pointer(p, &x);
	old = rcb_xchg_pointer(&p, old);
	return rcb_read_ongoing() + (old != 0) + rcb_synchronize();
}
EOF
cat >"$work/use-urcu.h" <<'EOF'
struct hdr_obj {
	int v;
	struct rcu_head rcu;
};
static void hdr_free(struct rcu_head *h)
{
	(void)caa_container_of(h, struct hdr_obj, rcu);
}
int hdr_use(void);
int hdr_use(void)
{
	static struct hdr_obj *p;
	static struct hdr_obj o;
	struct hdr_obj *old;

	rcu_register_thread();
	rcu_read_lock();
	old = rcu_dereference(p);
	rcu_read_unlock();
	rcu_assign_pointer(p, &o);
	old = rcu_xchg_pointer(&p, old);
	old = rcu_cmpxchg_pointer(&p, old, &o);
	synchronize_rcu();
	call_rcu(&o.rcu, hdr_free);
	rcu_barrier();
	rcu_unregister_thread();
	return rcu_read_ongoing() + (old != 0);
}
EOF

status=0
for cc in $compilers; do
	command -v "$cc" >/dev/null 2>&1 ||
		{ echo "FAIL: compiler $cc not found (this test needs gcc and clang)"; exit 1; }
done
for h in rcuboost urcu; do
	case $h in
	rcuboost) path=rcuboost.h ;;
	urcu) path=rcuboost/urcu.h ;;
	esac
	tu=$work/$h.c
	{
		echo "#include <$path>"
		echo "#ifdef _GNU_SOURCE"
		echo "#error \"<$path> defines _GNU_SOURCE\""
		echo "#endif"
		cat "$work/use-$h.h"
	} >"$tu"
	for cc in $compilers; do
		for std in c11 gnu11; do
			for boost in 0 1; do
				what="<$path> $cc -std=$std RCB_CONFIG_BOOST=$boost"
				# shellcheck disable=SC2086
				if "$cc" -std=$std $warn -I"$inc" -I"$work/cfg$boost" \
					-c "$tu" -o "$work/$h.o" 2>"$work/err"; then
					echo "ok   $what"
				else
					echo "FAIL $what: $warn"
					sed 's/^/     /' "$work/err"
					status=1
				fi
			done
		done
	done
done
exit $status
