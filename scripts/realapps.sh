#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Four real liburcu programs, from Debian's own sources and unchanged, built
# against this tree's liburcu compatibility install (rcuboost-urcu(7)), then
# their own test suites:
#
#   multipath-tools  Makefiles that say -lurcu and #include <urcu.h>; no
#                    pkg-config for the headers.  Switched by the compiler's
#                    own search paths (C_INCLUDE_PATH, LIBRARY_PATH).
#                    Its "make test" (cmocka).
#   Knot DNS         pkg-config liburcu.  Switched by PKG_CONFIG_PATH.
#                    Its "make check"; then knotd serves a zone as a daemon
#                    that changes to nobody:nogroup, once without and once
#                    with RCUBOOST_EARLY=1, and the booster's capabilities
#                    are read from /proc: it must keep CAP_SYS_NICE; the
#                    same as a forking daemon (knotd -d), whose child
#                    drops them; then knotd started as nobody, which must say at once that
#                    boosting is off (README, "Daemons that drop
#                    privileges").
#   xfsprogs         autoconf that looks for <urcu.h> and -lurcu; switched
#                    like multipath-tools.  mkfs.xfs and xfs_repair on a
#                    file (it has no test suite of its own).
#   LTTng-tools      pkg-config liburcu, liburcu-bp, liburcu-cds, and
#                    _LGPL_SOURCE.  Its unit tests (make -C tests/unit
#                    check), then a user-space tracing session.
#
# Not part of "make test": it downloads Debian source packages and their
# build dependencies and takes about fifteen minutes.  Needs root (apt-get) and a
# Debian mirror; on Debian 12 it adds a deb-src entry for the mirror the
# machine already uses when none is configured.
#
# Usage: scripts/realapps.sh [WORKDIR]      (default /tmp/rcuboost-realapps)
# Exit status: 0 when every check printed "ok", 1 otherwise, 2 when it
# cannot run here.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/rcuboost-realapps}
jobs=$(nproc 2>/dev/null || echo 2)
failed=0

say() { printf 'realapps: %s\n' "$*"; }
result() {	# result NAME ok|FAILED DETAIL
	printf '%-56s %-6s %s\n' "$1" "$2" "$3" | tee -a "$work/summary"
	[ "$2" = ok ] || failed=1
}

if [ "$(id -u)" != 0 ]; then
	say "needs root: it installs Debian source and build-dependency packages"
	say "(apt-get source, apt-get build-dep multipath-tools knot xfsprogs lttng-tools, libcmocka-dev)"
	exit 2
fi
for tool in apt-get cmake setpriv; do
	command -v "$tool" >/dev/null || { say "missing: $tool"; exit 2; }
done

mkdir -p "$work/src" && : > "$work/summary" || exit 2
log=$work/log
: > "$log"

# ---- Debian sources and build dependencies -------------------------------
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	. /etc/os-release
	mirror=$(grep -rhsE '^URIs:|^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/ |
		 grep -oE 'https?://[^ ]+/debian/?' | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
	say "adding a deb-src entry for $mirror $VERSION_CODENAME" \
	    "(/etc/apt/sources.list.d/rcuboost-realapps.sources)"
	cat > /etc/apt/sources.list.d/rcuboost-realapps.sources <<EOF
Types: deb-src
URIs: $mirror
Suites: $VERSION_CODENAME
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
say "apt-get update, build dependencies (log: $log)"
if ! { apt-get update &&
       DEBIAN_FRONTEND=noninteractive apt-get build-dep -y multipath-tools knot xfsprogs lttng-tools &&
       DEBIAN_FRONTEND=noninteractive apt-get install -y libcmocka-dev dpkg-dev; } >> "$log" 2>&1; then
	say "apt-get failed; see $log"
	exit 2
fi

# ---- this tree, with its liburcu compatibility files ---------------------
prefix=$work/prefix
compat=$prefix/lib/rcuboost-urcu-compat
say "building rcuboost into $prefix"
if ! { cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
	     -DRCB_BUILD_TESTS=OFF -DRCB_BUILD_TOOLS=OFF \
	     -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib &&
       cmake --build "$work/build" -j "$jobs" &&
       cmake --install "$work/build" &&
       cmake --install "$work/build" --component urcu-compat; } >> "$log" 2>&1; then
	say "rcuboost did not build; see $log"
	exit 2
fi

# check_links NAME BINARY: it links librcuboost and not liburcu's
# urcu-memb flavor (liburcu.so, liburcu-memb.so); liburcu-cds,
# liburcu-common and other flavors stay Debian's.
check_links() {
	libs=$(ldd "$2" 2>&1)
	if echo "$libs" | grep -q 'librcuboost\.so' &&
	   ! echo "$libs" | grep -qE 'liburcu(-memb)?\.so'; then
		result "$1 links librcuboost, not urcu-memb" ok ""
	else
		result "$1 links librcuboost, not urcu-memb" FAILED "$(echo "$libs" | grep -iE 'rcu|not found')"
	fi
}

# The compiler's own search paths, for builds that take no header flags
# from pkg-config (rcuboost-urcu(7)).  In a subshell.
use_search_paths() {
	export C_INCLUDE_PATH=$compat/include:$prefix/include \
	       LIBRARY_PATH=$compat/lib:$prefix/lib \
	       LDFLAGS=-Wl,-rpath,$prefix/lib
}

fetch() {	# fetch PACKAGE [SOURCE]: its source tree's path on stdout
	src=${2:-$1}
	(cd "$work/src" && rm -rf "$src"-[0-9]* "$src"_* &&
	 apt-get source "$1" >> "$log" 2>&1) || return 1
	dir=$(ls -d "$work/src/$src"-[0-9]*/ | head -1)
	echo "${dir%/}"
}

# ---- multipath-tools -------------------------------------------------------
say "multipath-tools: fetch, build, make test"
if mpt=$(fetch multipath-tools) && [ -n "$mpt" ]; then
	mlog=$work/multipath-tools.log
	(cd "$mpt" &&
	 use_search_paths &&
	 make -j "$jobs" && make -j "$jobs" test) > "$mlog" 2>&1
	rc=$?
	passed=$(cat "$mpt"/tests/*.out 2>/dev/null | grep -c '^\[  PASSED  \]')
	failures=$(cat "$mpt"/tests/*.out 2>/dev/null | grep -c '^\[  FAILED  \]')
	if [ $rc = 0 ] && [ "$failures" = 0 ] && [ "$passed" -gt 0 ]; then
		result "multipath-tools $(basename "$mpt"): make test" ok "$passed cmocka groups passed"
	else
		result "multipath-tools $(basename "$mpt"): make test" FAILED "exit $rc, $failures groups failed; $mlog"
	fi
	check_links multipathd "$mpt/multipathd/multipathd"
else
	result "multipath-tools: apt-get source" FAILED "see $log"
fi

# ---- Knot DNS ----------------------------------------------------------------
say "knot: fetch, configure, build, make check (the longest step)"
if knot=$(fetch knot) && [ -n "$knot" ]; then
	klog=$work/knot.log
	(cd "$knot" &&
	 PKG_CONFIG_PATH=$compat/pkgconfig ./configure --disable-documentation \
		LDFLAGS=-Wl,-rpath,$prefix/lib &&
	 make -j "$jobs" && make -j "$jobs" check) > "$klog" 2>&1
	rc=$?
	summary=$(grep -E '^Files=[0-9]+, +Tests=[0-9]+' "$klog" | tail -1 | cut -d, -f1-2)
	if [ $rc = 0 ] && grep -q '^All tests successful' "$klog"; then
		result "knot $(basename "$knot"): make check" ok "$summary"
	else
		result "knot $(basename "$knot"): make check" FAILED "exit $rc; $klog"
	fi
	kbin=$knot/src/.libs
	check_links knotd "$kbin/knotd"

	# knotd as a daemon that drops to nobody.  Its libraries are in the
	# build tree (libtool's .libs).
	run=$work/knotd
	rm -rf "$run" && mkdir -p "$run" && chmod 777 "$run"
	cat > "$run/example.zone" <<'EOF'
$ORIGIN example.
$TTL 3600
@   SOA ns.example. admin.example. 1 3600 900 604800 86400
@   NS  ns
ns  A   192.0.2.1
www A   192.0.2.2
EOF
	cat > "$run/knot.conf" <<EOF
server:
    rundir: $run
    user: nobody:nogroup
    listen: 127.0.0.1@53535
database:
    storage: $run/db
zone:
  - domain: example
    file: $run/example.zone
log:
  - target: stderr
    any: info
EOF
	chmod 644 "$run/example.zone" "$run/knot.conf"
	klibs=$prefix/lib
	for d in "$knot"/src/*/.libs "$kbin"; do klibs=$klibs:$d; done
	# root: knotd started as root changes to nobody itself; early: the
	# same with RCUBOOST_EARLY=1; nobody: started as nobody (as with
	# systemd's User=), so nothing it starts may take real-time priority;
	# daemon, daemon-early: "knotd -d", which forks away from the
	# terminal first (the child, with no thread of its parent's, drops
	# its privileges), without and with RCUBOOST_EARLY=1.
	for how in root early nobody daemon daemon-early; do
		early=0 launch= daemon=
		case $how in
		root)	name="knotd, root then nobody" ;;
		early)	name="knotd, root then nobody, RCUBOOST_EARLY=1"; early=1 ;;
		nobody)	name="knotd started as nobody"
			launch="setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
		daemon)	name="knotd -d, root then nobody"; daemon=-d ;;
		daemon-early)
			name="knotd -d, root then nobody, RCUBOOST_EARLY=1"
			daemon=-d early=1 ;;
		esac
		klog_run=$run/knotd-$how.log
		rm -rf "$run/db" "$run/knot.pid"
		LD_LIBRARY_PATH=$klibs RCUBOOST_EARLY=$early \
			timeout 30 $launch "$kbin/knotd" $daemon -c "$run/knot.conf" > "$klog_run" 2>&1 &
		kpid=$!
		answer=
		for _ in $(seq 50); do
			answer=$(LD_LIBRARY_PATH=$klibs "$kbin/kdig" @127.0.0.1 -p 53535 \
				 +short +time=1 +retry=0 www.example A 2>/dev/null)
			[ "$answer" = 192.0.2.2 ] && break
			sleep 0.2
		done
		# The booster's effective capabilities: CAP_SYS_NICE is bit 23.
		# "knotd -d" leaves its daemon to init, with stdio closed.
		if [ -n "$daemon" ]; then
			dpid=$(pgrep -n -f "knotd -d -c $run/knot.conf")
			kpid=$dpid
		else
			dpid=$(pgrep -P "$kpid" -x knotd || echo "$kpid")
		fi
		booster=$(grep -l '^rcuboost-boost$' /proc/"$dpid"/task/*/comm 2>/dev/null | head -1)
		capeff=none
		[ -n "$booster" ] && capeff=$(awk '/^CapEff/ {print $2}' "$(dirname "$booster")/status")
		uid=$(awk '/^Uid/ {print $2}' /proc/"$dpid"/status 2>/dev/null)
		kill "$kpid" 2>/dev/null
		wait "$kpid" 2>/dev/null
		nice=no
		[ "$capeff" != none ] && (( (16#$capeff >> 23) & 1 )) && nice=yes
		said=no
		grep -q '^rcuboost: priority boosting will be off' "$klog_run" && said=yes
		detail="uid $uid, answer '${answer}', booster CapEff $capeff, said boosting is off: $said"
		if [ "$answer" != 192.0.2.2 ] || [ "$uid" != 65534 ]; then
			result "$name: serves as uid 65534" FAILED "$detail; $klog_run"
		elif [ $how = nobody ]; then
			# No permission at the first RCU call: said at once.
			if [ $nice = no ] && [ $said = yes ]; then
				result "$name: says boosting is off" ok "$detail"
			else
				result "$name: says boosting is off" FAILED "$detail; $klog_run"
			fi
		elif [ $nice = yes ] && [ $said = no ]; then
			# Knot makes its first RCU call as root, before it
			# changes user: the boosters start at that first use
			# (or before main()) and keep CAP_SYS_NICE.
			result "$name: booster keeps CAP_SYS_NICE" ok "$detail"
		else
			result "$name: booster keeps CAP_SYS_NICE" FAILED "$detail; $klog_run"
		fi
	done
else
	result "knot: apt-get source" FAILED "see $log"
fi

# ---- xfsprogs ------------------------------------------------------------
# autoconf that looks for <urcu.h> and -lurcu (no pkg-config): switched
# like multipath-tools.  No test suite of its own (xfstests is separate):
# mkfs.xfs on a 2 GiB file, then xfs_repair, which registers its worker
# threads with RCU, in check-only mode and in repair mode.
say "xfsprogs: fetch, build, mkfs.xfs and xfs_repair on a file"
if xfs=$(fetch xfsprogs) && [ -n "$xfs" ]; then
	xlog=$work/xfsprogs.log
	img=$work/xfs.img
	(cd "$xfs" &&
	 use_search_paths &&
	 ./configure && make -j "$jobs" &&
	 rm -f "$img" && truncate -s 2G "$img" &&
	 ./mkfs/mkfs.xfs -f "$img" &&
	 ./repair/xfs_repair -n "$img" &&
	 ./repair/xfs_repair -o ag_stride=2 "$img") > "$xlog" 2>&1
	rc=$?
	rm -f "$img"
	if [ $rc = 0 ]; then
		result "xfsprogs $(basename "$xfs"): mkfs.xfs, xfs_repair -n, xfs_repair" ok ""
	else
		result "xfsprogs $(basename "$xfs"): mkfs.xfs, xfs_repair -n, xfs_repair" FAILED "exit $rc; $xlog"
	fi
	check_links xfs_repair "$xfs/repair/xfs_repair"
else
	result "xfsprogs: apt-get source" FAILED "see $log"
fi

# ---- LTTng-tools ---------------------------------------------------------
# The largest liburcu user of the three: urcu-memb (switched) beside
# urcu-bp and liburcu-cds (Debian's, running over rcuboost's rcu_flavor),
# with _LGPL_SOURCE; its unit tests, then a tracing session.
say "lttng-tools: fetch, configure, build, unit tests, a session"
if lttng=$(fetch lttng-tools ltt-control) && [ -n "$lttng" ]; then
	llog=$work/lttng-tools.log
	(cd "$lttng" &&
	 PKG_CONFIG_PATH=$compat/pkgconfig ./configure --disable-man-pages \
		LDFLAGS=-Wl,-rpath,$prefix/lib &&
	 make -j "$jobs" && make -C tests/unit check) > "$llog" 2>&1
	rc=$?
	total=$(sed -n 's/^# TOTAL: *//p' "$llog" | tail -1)
	pass=$(sed -n 's/^# PASS: *//p' "$llog" | tail -1)
	if [ $rc = 0 ] && [ -n "$total" ] && [ "$total" = "$pass" ]; then
		result "lttng-tools $(basename "$lttng"): unit tests" ok "$pass of $total passed"
	else
		result "lttng-tools $(basename "$lttng"): unit tests" FAILED "exit $rc, ${pass:-?} of ${total:-?} passed; $llog"
	fi
	sessiond=$lttng/src/bin/lttng-sessiond/.libs/lttng-sessiond
	[ -x "$sessiond" ] || sessiond=$lttng/src/bin/lttng-sessiond/lttng-sessiond
	check_links lttng-sessiond "$sessiond"
	# A session: create, enable every user-space event, start, stop,
	# destroy (through the libtool wrappers of the build tree).
	slog=$work/lttng-session.log
	(cd "$lttng" &&
	 export LTTNG_HOME=$work/lttng-home \
		LTTNG_SESSION_CONFIG_XSD_PATH=$lttng/src/common/config \
		LTTNG_SESSIOND_PATH=$lttng/src/bin/lttng-sessiond/lttng-sessiond &&
	 rm -rf "$LTTNG_HOME" "$work/lttng-trace" && mkdir -p "$LTTNG_HOME" &&
	 timeout 30 src/bin/lttng-sessiond/lttng-sessiond --daemonize --no-kernel \
		--consumerd64-path="$lttng/src/bin/lttng-consumerd/lttng-consumerd" &&
	 l=src/bin/lttng/lttng &&
	 timeout 30 $l create s1 --output="$work/lttng-trace" &&
	 timeout 30 $l enable-event -u -a && timeout 30 $l start && sleep 1 &&
	 timeout 30 $l stop && timeout 30 $l destroy) > "$slog" 2>&1
	rc=$?
	# The daemon and its run-as helper.
	pkill -f "$lttng/src/bin/lttng-sessiond/.libs/lttng-sessiond" 2>/dev/null
	if [ $rc = 0 ]; then
		result "lttng-sessiond: a user-space tracing session" ok "create, enable-event, start, stop, destroy"
	else
		result "lttng-sessiond: a user-space tracing session" FAILED "exit $rc; $slog"
	fi
else
	result "lttng-tools: apt-get source" FAILED "see $log"
fi

echo
say "summary (also in $work/summary):"
cat "$work/summary"
exit $failed
