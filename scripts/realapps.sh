#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Six real liburcu programs, from Debian's own sources and unchanged, built
# against this tree's liburcu compatibility install (rcuboost-urcu(7)); their
# own test suites; then three of their daemons run over rcuboost, and each
# daemon's own RCU reader meets a priority inversion that the script
# injects.  Four use liburcu's default flavor (urcu-memb), gdnsd its qsbr
# flavor and libntirpc its bp flavor.
#
# What each row proves:
#
#   multipath-tools (switched by the compiler's own search paths,
#   C_INCLUDE_PATH and LIBRARY_PATH: its Makefiles say -lurcu and take no
#   header flags from pkg-config)
#     make test           its cmocka suite passes built against the
#                         compatibility headers.  The row says how many of
#                         its test programs link librcuboost: one of 18 in
#                         0.9.4 (dmevents-test, which registers a thread
#                         and no more), so this row proves the build, not
#                         RCU at run time.
#     links librcuboost   multipathd links librcuboost, not urcu-memb.
#     started, reconfigured, stopped
#                         multipathd (foreground) answers on its socket;
#                         "reconfigure", every 0.1 s, replaces its
#                         configuration and frees the old one with
#                         call_rcu(); its "shutdown" command ends it with
#                         exit status 0.
#   Knot DNS (switched by PKG_CONFIG_PATH)
#     make check          its test suite passes over rcuboost.
#     links librcuboost   knotd links librcuboost, not urcu-memb.
#     booster keeps CAP_SYS_NICE (four rows)
#                         knotd started as root, which changes to
#                         nobody:nogroup, answers a query as uid 65534 and
#                         its booster thread still has CAP_SYS_NICE (read
#                         from /proc): without and with RCUBOOST_EARLY=1,
#                         in the foreground and as a forking daemon
#                         (knotd -d, whose child drops privileges).
#     says boosting is off
#                         knotd started as nobody says at its first RCU
#                         call that boosting will be off (doc/realtime.md,
#                         "Permission, and daemons that drop privileges").
#   xfsprogs (switched like multipath-tools)
#     mkfs.xfs, xfs_repair -n, xfs_repair
#                         they run over rcuboost on a file (xfs_repair
#                         registers its worker threads); it has no test
#                         suite of its own.  No inversion: its only grace
#                         periods come when it unmounts (xfs_free_perag(),
#                         call_rcu()), after its readers are done.
#   LTTng-tools (switched by PKG_CONFIG_PATH; also liburcu-bp and
#   liburcu-cds, Debian's, over rcuboost's rcu_flavor, and _LGPL_SOURCE)
#     unit tests          make -C tests/unit check passes.
#     links librcuboost   lttng-sessiond links librcuboost.
#     traces an instrumented application
#                         a session records the events of an lttng-ust
#                         application (scripts/realapps_tp.c), counted by
#                         babeltrace2; the session daemon (and its consumer
#                         daemon) stop at SIGTERM with exit status 0.
#   gdnsd (liburcu's qsbr flavor: <urcu-qsbr.h>, -lurcu-qsbr; switched like
#   multipath-tools)
#     make check          its test suite passes over rcuboost: libgdmaps'
#                         GeoIP tests, and its prove tests, which start
#                         gdnsd and query it on 127.0.0.1, less two
#                         directories whose service monitors connect to
#                         TEST-NET-1 addresses (192.0.2.x), off this
#                         machine: 009monio and 011upthresh.  Serial
#                         (V=1) when REALAPPS_JOBS=1.
#     links librcuboost   gdnsd links librcuboost and no liburcu flavor.
#   libntirpc (NFS-Ganesha's RPC library, Debian's ntirpc; liburcu's bp
#   flavor: <urcu-bp.h> and find_library(urcu-bp), switched by CMake's
#   search paths, CMAKE_INCLUDE_PATH and CMAKE_LIBRARY_PATH)
#     builds              it has no test suite (tests/ holds rpcping, a
#                         client tool); its RCU use is registering its
#                         work-pool threads with urcu-bp (work_pool.c), for
#                         the readers of the program that loads it.
#     links librcuboost   libntirpc.so links librcuboost and no liburcu
#                         flavor.
#   No inversion for these two: gdnsd's suite runs its daemon; libntirpc
#   has no reader of its own.
#
#   For each of multipathd, knotd (as uid 65534, after the drop) and
#   lttng-sessiond, two rows of the injected inversion (see "the injected
#   inversion" below):
#     its reader boosted under an inversion
#                         one of the daemon's own reader threads, pinned
#                         beside a SCHED_FIFO hog and kept inside its
#                         read-side critical sections by a workload, while
#                         the workload also makes grace periods wait, is
#                         boosted by rcuboost: more than none of the USDT
#                         probe rcuboost:boost for that thread (bpftrace),
#                         or, without bpftrace, of the process's own boost
#                         statistics.
#     RCUBOOST_BOOST=0: stall reports name its reader
#                         the same with boosting off: grace periods wait
#                         for the preempted reader past the stall timeout
#                         (100 ms; a burst of the hog is 150 ms), and the
#                         stall detector's report names that thread.
#   The last lines print, per program, the boosts its reader received under
#   the inversion, the process's boosts and stall reports, and the stall
#   reports without boosting.
#
# What cannot be done here is said in the row: on a kernel without the
# device-mapper driver (such as the VM this was written on) multipathd
# exits at its first configuration, so it runs there with
# scripts/realapps_nodm.c preloaded, a stand-in for a device-mapper with no
# maps (multipathd itself unchanged).  Without bpftrace (or a kernel that
# lets it attach uprobes) the reader's own count is missing and the
# process's statistics decide.
#
# Not part of "make test": it downloads Debian source packages and their
# build dependencies and takes about twenty-five minutes on an unloaded
# two-CPU machine.  Needs root (apt-get, real-time priorities) and two
# CPUs, and a Debian mirror; on Debian 12 it adds a deb-src entry for the
# mirror the machine already uses when none is configured.  gdnsd and
# ntirpc come from Debian 13's sources when Debian 12's cannot be
# fetched (fetch_newer, which leaves the system's apt configuration
# alone), as on the machine this was written on.  It ends only
# the processes it started, by PID, and restores the scheduling policy,
# priority and CPU mask of every thread it pinned.
#
# Usage: scripts/realapps.sh [WORKDIR]      (default /tmp/rcuboost-realapps)
# REALAPPS_ONLY="gdnsd ntirpc" runs only those programs' rows (of
# multipath-tools knot xfsprogs lttng-tools gdnsd ntirpc: the Debian source
# package names), and installs only their build dependencies.
# REALAPPS_JOBS=N builds with make -j N (default: the number of CPUs).
# Exit status: 0 when every check printed "ok", 1 otherwise, 2 when it
# cannot run here.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/rcuboost-realapps}
jobs=${REALAPPS_JOBS:-$(nproc 2>/dev/null || echo 2)}
programs="multipath-tools knot xfsprogs lttng-tools gdnsd ntirpc"
only=${REALAPPS_ONLY:-$programs}
failed=0

say() { printf 'realapps: %s\n' "$*"; }
result() {	# result NAME ok|FAILED DETAIL
	printf '%-56s %-6s %s\n' "$1" "$2" "$3" | tee -a "$work/summary"
	[ "$2" = ok ] || failed=1
}
# wanted PROGRAM: its rows run (REALAPPS_ONLY); if not, it says so.
wanted() {
	case " $only " in
	*" $1 "*) return 0 ;;
	esac
	say "$1: left out (REALAPPS_ONLY)"
	return 1
}
for p in $only; do
	case " $programs " in
	*" $p "*) ;;
	*) say "REALAPPS_ONLY: no program $p (of $programs)"; exit 2 ;;
	esac
done

if [ "$(id -u)" != 0 ]; then
	say "needs root: it installs Debian source and build-dependency packages"
	say "(apt-get source, apt-get build-dep $only, libcmocka-dev)"
	exit 2
fi
for tool in apt-get cmake setpriv taskset chrt; do
	command -v "$tool" >/dev/null || { say "missing: $tool"; exit 2; }
done
if [ "$(nproc)" -lt 2 ]; then
	say "needs two CPUs: the inversion's hog takes one of them"
	exit 2
fi

mkdir -p "$work/src" && : > "$work/summary" && : > "$work/boosts" || exit 2
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
       DEBIAN_FRONTEND=noninteractive apt-get build-dep -y $only &&
       DEBIAN_FRONTEND=noninteractive apt-get install -y libcmocka-dev dpkg-dev \
		babeltrace2 systemtap-sdt-dev; } >> "$log" 2>&1; then
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

# check_links NAME BINARY [FLAVOR]: it links librcuboost and not liburcu's
# urcu-memb flavor (liburcu.so, liburcu-memb.so); liburcu-cds,
# liburcu-common and other flavors stay Debian's.  With FLAVOR (qsbr, bp):
# a program of that flavor, which must load no liburcu flavor library at
# all (liburcu.so, liburcu-memb, -qsbr, -bp, -mb, -signal); the detail
# names its own NEEDED entries (readelf -d) that are rcuboost's or
# liburcu's.
check_links() {
	libs=$(ldd "$2" 2>&1)
	if [ -z "${3:-}" ]; then
		if echo "$libs" | grep -q 'librcuboost\.so' &&
		   ! echo "$libs" | grep -qE 'liburcu(-memb)?\.so'; then
			result "$1 links librcuboost, not urcu-memb" ok ""
		else
			result "$1 links librcuboost, not urcu-memb" FAILED "$(echo "$libs" | grep -iE 'rcu|not found')"
		fi
		return
	fi
	needed=$(readelf -d "$2" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*rcu.*\)\]$/\1/p' | tr '\n' ' ')
	if echo "$libs" | grep -q 'librcuboost\.so' &&
	   ! echo "$libs" | grep -qE 'liburcu(-(memb|qsbr|bp|mb|signal))?\.so'; then
		result "$1 links librcuboost, not urcu-$3" ok "NEEDED: ${needed% }; no liburcu flavor loaded (ldd)"
	else
		result "$1 links librcuboost, not urcu-$3" FAILED "NEEDED: ${needed% }; $(echo "$libs" | grep -iE 'rcu|not found' | tr -s ' \t\n' ' ')"
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

# fetch_newer PACKAGE [SOURCE]: as fetch, from this release's sources or,
# failing that, from the next release's ($newer: its deb-src index for
# the same mirror, in apt state of its own under $work/apt, the system's
# apt configuration untouched).  A mirror may serve a package's upstream
# tarball and not its .dsc (the one this was written on does so for
# gdnsd and ntirpc, bookworm's and trixie's): then the tarballs apt did
# fetch, which it checked against the Sources index, are unpacked as
# dpkg-source would (the upstream tarball, then debian/ and the patches
# in its debian/patches/series), or the upstream tarball alone when the
# Debian tarball is missing too.  How it came: in $work/fetched-SOURCE.
newer=trixie
fetch_newer() {
	src=${2:-$1}
	how=$work/fetched-$src
	if dir=$(fetch "$@") && [ -n "$dir" ]; then
		echo "apt-get source $1" > "$how"
		echo "$dir"
		return 0
	fi
	a=$work/apt
	opts=(-o "Dir::Etc::SourceList=$a/none.list" -o "Dir::Etc::SourceParts=$a/parts"
	      -o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
	if [ ! -f "$a/updated" ]; then
		mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial"
		mirror=$(grep -rhsE '^URIs:|^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/ |
			 grep -oE 'https?://[^ ]+/debian/?' | head -1)
		cat > "$a/parts/newer.sources" <<EOF
Types: deb-src
URIs: ${mirror:-http://deb.debian.org/debian}
Suites: $newer
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
		apt-get "${opts[@]}" update >> "$log" 2>&1 && : > "$a/updated" || return 1
	fi
	(cd "$work/src" && rm -rf "$src"-[0-9]* "$src"_* &&
	 apt-get "${opts[@]}" source "$1" >> "$log" 2>&1)
	dir=$(ls -d "$work/src/$src"-[0-9]*/ 2>/dev/null | head -1)
	if [ -n "$dir" ]; then
		echo "apt-get source $1 ($newer's)" > "$how"
		echo "${dir%/}"
		return 0
	fi
	orig=$(ls "$work/src/$src"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -1)
	[ -n "$orig" ] || return 1
	(cd "$work/src" && tar -xf "$orig") >> "$log" 2>&1 || return 1
	dir=$(ls -d "$work/src/$src"-[0-9]*/ 2>/dev/null | head -1)
	dir=${dir%/}
	[ -n "$dir" ] || return 1
	debian=$(ls "$work/src/$src"_*.debian.tar.* 2>/dev/null | head -1)
	if [ -z "$debian" ]; then
		echo "$newer's upstream tarball $(basename "$orig") (the mirror has no .dsc or Debian tarball)" > "$how"
	elif tar -xf "$debian" -C "$dir" >> "$log" 2>&1 &&
	     (cd "$dir" && [ ! -f debian/patches/series ] ||
	      sed -e 's/[[:space:]]*#.*//' -e '/^$/d' debian/patches/series |
	      while read -r patch popt; do
		patch ${popt:--p1} < "debian/patches/$patch" || exit 1
	      done) >> "$log" 2>&1; then
		echo "$newer's $(basename "$orig") and $(basename "$debian"), unpacked and patched as dpkg-source would (the mirror has no .dsc)" > "$how"
	else
		return 1
	fi
	echo "$dir"
}

# ---- the injected inversion ------------------------------------------------
# A daemon's own reader thread meets a priority inversion:
#  - the workload (the caller's): keeps the daemon busy in its read-side
#    critical sections (queries, commands) and makes grace periods wait
#    (zone reloads, reconfigures, sessions destroyed);
#  - the reader: the daemon's thread that serves the workload (for knotd
#    and multipathd, whose threads have no names: the one that ran
#    longest during a second of it, from /proc/PID/task/TID/schedstat),
#    pinned to the last CPU at SCHED_FIFO 10 (taskset -p, chrt -p) and
#    given back its own CPU mask, policy and priority afterwards;
#  - the hog: realapps_load hog, SCHED_FIFO 40 on that CPU alone, 150 ms
#    bursts with 20 ms pauses for $inv_secs seconds, then it exits (and
#    alarm() ends it two seconds later whatever happens).
# A reader that the hog preempts inside a critical section holds up every
# grace period until the burst ends, unless rcuboost's booster (SCHED_RR
# 50) raises it to SCHED_FIFO 49.  The daemon runs with
# RCUBOOST_STATS_INTERVAL=1 (its booster prints the library's statistics
# on stderr every second: the process's boosts are the difference of the
# statistics' count, "boost: a=.. b=N", across the inversion) and with
# RCUBOOST_STALL_MS=100.  When bpftrace is there, it counts the USDT probe
# rcuboost:boost per boosted thread (the probe's first argument): the
# reader's own boosts.  Then the same with RCUBOOST_BOOST=0.
inv_secs=10
hogcpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	 sed 's/.*-//' | sort -n | tail -1)
load=$work/realapps_load
tpapp=$work/realapps_tp
if ! cc -O2 -std=gnu11 -Wall -pthread -o "$load" "$root/scripts/realapps_load.c" >> "$log" 2>&1; then
	say "scripts/realapps_load.c did not build; see $log"
	exit 2
fi
started=	# PIDs this script started and has not ended yet
pinned=$work/pinned
: > "$pinned"
# On any exit: the pinned threads restored, what we started ended, by PID.
cleanup() {
	unpin
	for p in $started; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 1' INT TERM
forget() {	# forget PID: ended, off the list
	started=$(echo " $started " | sed "s/ $1 / /")
}
# stop PID: SIGINT, then SIGTERM, then SIGKILL, each after a few seconds
# more; waited for, and off the list.
stop() {
	for sig in INT TERM KILL; do
		kill -s $sig "$1" 2>/dev/null || break
		for _ in $(seq 50); do
			kill -0 "$1" 2>/dev/null || break 2
			sleep 0.1
		done
	done
	wait "$1" 2>/dev/null
	forget "$1"
}

# own_threads PID: the program's threads, not the library's (rcuboost-*).
own_threads() {
	for t in /proc/"$1"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in rcuboost*|'') continue ;; esac
		echo "${t##*/}"
	done
}

# busiest PID SECONDS: the program's own thread that ran longest in the
# next SECONDS (the caller's workload running).
busiest() {
	for t in $(own_threads "$1"); do
		echo "$t $(cut -d' ' -f1 /proc/"$1"/task/"$t"/schedstat 2>/dev/null)"
	done > "$work/ran"
	sleep "$2"
	for t in $(own_threads "$1"); do
		echo "$t $(cut -d' ' -f1 /proc/"$1"/task/"$t"/schedstat 2>/dev/null)"
	done | awk 'NR == FNR { r[$1] = $2; next }
		    ($1 in r) && $2 - r[$1] > best { best = $2 - r[$1]; tid = $1 }
		    END { if (tid) print tid }' "$work/ran" -
}

# pin PID TID...: onto the hog's CPU at SCHED_FIFO 10; each thread's
# policy, priority and CPU mask saved in $pinned for unpin.
pin() {
	p=$1; shift
	for tid; do
		# proc(5) stat fields 41 (policy) and 40 (rt_priority).
		pp=$(sed 's/.*) //' /proc/"$p"/task/"$tid"/stat | awk '{ print $39, $38 }')
		mask=$(taskset -p "$tid" | sed 's/.*: //')
		echo "$tid $pp $mask" >> "$pinned"
		taskset -p -c "$hogcpu" "$tid" > /dev/null && chrt -f -p 10 "$tid"
	done
}

unpin() {
	while read -r tid policy prio mask; do
		case $policy in
		1) chrt -f -p "$prio" "$tid" ;;
		2) chrt -r -p "$prio" "$tid" ;;
		3) chrt -b -p 0 "$tid" ;;
		5) chrt -i -p 0 "$tid" ;;
		*) chrt -o -p 0 "$tid" ;;
		esac
		taskset -p "$mask" "$tid" > /dev/null
	done < "$pinned" 2>/dev/null
	: > "$pinned"
}

# boosts LOG: the boosts the library's statistics have counted so far
# (0 before the first line, and with RCUBOOST_BOOST=0: no booster).
boosts() {
	n=$(sed -n 's/^rcu_boost_dat: idx=.* boost: a=[0-9]* b=\([0-9]*\)$/\1/p' "$1" | tail -1)
	echo "${n:-0}"
}

# stalls LOG: the stall reports so far.
stalls() {
	grep -c '^rcuboost: stall: grace period [0-9]* has waited' "$1"
}

# stalled_readers LOG: the reader threads that the stall reports name.
stalled_readers() {
	sed -n 's/^rcuboost: stall: reader \([0-9]*\) .*/\1/p' "$1" | sort -un | tr '\n' ' '
}

# inversion PID LOG TID GP-COMMAND...: pins the reader TID beside the
# hog for $inv_secs seconds while GP-COMMAND (which ends by itself
# after $inv_secs) makes grace periods wait.  Sets inv_boosts (the
# process's boosts, from its statistics), inv_stalls (its stall
# reports), inv_named (yes when a stall report names TID), inv_probe
# (TID's boosts seen by the USDT probe, or why none could be counted),
# inv_preempted (stall reports of TID while runnable) and inv_bursts.
# A process's statistics count every boost it gets, also of a thread
# that the machine's other load preempted; the probe counts TID's.
inversion() {
	i_pid=$1 i_log=$2 i_tid=$3
	shift 3
	inv_boosts=0 inv_stalls=0 inv_named=no inv_preempted=0 inv_bursts=0
	bt='' inv_probe="no bpftrace"
	if command -v bpftrace > /dev/null; then
		# The map printed every second too: the counts survive if
		# bpftrace must be killed.
		bpftrace -e "usdt:$prefix/lib/librcuboost.so:rcuboost:boost
			     { @[pid, arg0] = count(); }
			     interval:s:1 { print(@); }" > "$work/bpftrace.out" 2>&1 &
		bt=$! inv_probe="bpftrace did not attach"
		started="$started $bt"
		for _ in $(seq 300); do
			grep -q '^Attaching' "$work/bpftrace.out" && inv_probe= && break
			kill -0 "$bt" 2>/dev/null || break
			sleep 0.1
		done
	fi
	b0=$(boosts "$i_log") s0=$(stalls "$i_log")
	pin "$i_pid" "$i_tid"
	"$@" &
	gp=$!
	# In the background, so that an interrupt ends it at once.
	"$load" hog "$hogcpu" 40 "$inv_secs" 150 20 > "$work/bursts" &
	hog=$!
	started="$started $hog"
	wait "$hog"
	forget "$hog"
	read -r inv_bursts < "$work/bursts"
	unpin
	wait "$gp"
	# The statistics line after the inversion (one a second).
	sleep 2
	inv_boosts=$(( $(boosts "$i_log") - b0 ))
	inv_stalls=$(( $(stalls "$i_log") - s0 ))
	inv_named=no
	for t in $(stalled_readers "$i_log"); do
		[ "$t" = "$i_tid" ] && inv_named=yes
	done
	# Those of the reader when it was runnable (state R), preempted
	# rather than asleep in its section.
	inv_preempted=$(grep -c "^rcuboost: stall: reader $i_tid \".*\": [a-z, ]*(R)" "$i_log")
	if [ -n "$bt" ]; then
		stop "$bt"
		if [ -z "$inv_probe" ]; then
			inv_probe=$(sed -n "s/^@\[$i_pid, $i_tid\]: //p" "$work/bpftrace.out" | tail -1)
			inv_probe=${inv_probe:-0}
		fi
	fi
}

# inversion_rows NAME BOOST WORKLOAD [PROBLEM]: the row of one run
# (BOOST 1; 0: RCUBOOST_BOOST=0) from inversion's figures, and its part
# of the summary of boosts.  WORKLOAD: what the workload did.  PROBLEM:
# why the run could not be made (the row fails with it).  With
# boosting, the reader's boosts must be more than none (the probe's
# count; the process's when there is no probe count); without, a stall
# report must name the reader, and nothing may be boosted.
inversion_rows() {
	case $inv_probe in
	[0-9]*) counted=$inv_probe ;;
	*) counted=$inv_boosts ;;
	esac
	figures="reader ${i_tid:-?}: $inv_probe boosts (USDT probe); process: $inv_boosts boosts (statistics), $inv_stalls stall reports ($inv_preempted of the reader preempted)"
	if [ "$2" = 1 ]; then
		what="$1: its reader boosted under an inversion"
		good=no
		[ "$counted" -gt 0 ] && good=yes
		printf '  %-15s %-17s reader %s: %s boosts (USDT probe); process: %s boosts, %s stall reports (%s of the reader preempted)\n' \
			"$1" boosting: "${i_tid:-?}" "$inv_probe" "$inv_boosts" "$inv_stalls" \
			"$inv_preempted" >> "$work/boosts"
	else
		what="$1, RCUBOOST_BOOST=0: stall reports name its reader"
		good=no
		[ "$inv_stalls" -gt 0 ] && [ $inv_named = yes ] && [ "$counted" = 0 ] &&
			[ "$inv_boosts" = 0 ] && good=yes
		figures="$figures, naming the reader: $inv_named"
		printf '  %-15s %-17s reader %s: %s boosts (USDT probe); process: %s boosts, %s stall reports (%s of the reader preempted)\n' \
			"" RCUBOOST_BOOST=0: "${i_tid:-?}" "$inv_probe" "$inv_boosts" "$inv_stalls" \
			"$inv_preempted" >> "$work/boosts"
	fi
	if [ -n "${4:-}" ]; then
		result "$what" FAILED "$4"
	elif [ $good = yes ]; then
		result "$what" ok "$figures; $3"
	else
		result "$what" FAILED "$figures; $3; $i_log"
	fi
}

# ---- multipath-tools -------------------------------------------------------
if ! wanted multipath-tools; then
	:
elif say "multipath-tools: fetch, build, make test" &&
     mpt=$(fetch multipath-tools) && [ -n "$mpt" ]; then
	mlog=$work/multipath-tools.log
	# plugindir, runtimedir and configdir (its Makefile.inc's
	# variables): multipathd loads its checkers from the build tree,
	# keeps its pid file there, and reads its conf.d there, not in
	# /lib/multipath, /run and /etc/multipath/conf.d.
	mvars="plugindir=$mpt/plugins runtimedir=$mpt/run configdir=$mpt/conf.d"
	(cd "$mpt" &&
	 use_search_paths &&
	 make -j "$jobs" $mvars && make -j "$jobs" $mvars test) > "$mlog" 2>&1
	rc=$?
	passed=$(cat "$mpt"/tests/*.out 2>/dev/null | grep -c '^\[  PASSED  \]')
	failures=$(cat "$mpt"/tests/*.out 2>/dev/null | grep -c '^\[  FAILED  \]')
	# Most of its test programs stub out or do not use liburcu.
	ntests=0 nlinked=0
	for t in "$mpt"/tests/*-test; do
		ntests=$((ntests + 1))
		ldd "$t" 2>/dev/null | grep -q 'librcuboost\.so' && nlinked=$((nlinked + 1))
	done
	detail="$passed cmocka groups passed; test programs that link librcuboost: $nlinked of $ntests"
	if [ $rc = 0 ] && [ "$failures" = 0 ] && [ "$passed" -gt 0 ]; then
		result "multipath-tools $(basename "$mpt"): make test" ok "$detail"
	else
		result "multipath-tools $(basename "$mpt"): make test" FAILED "exit $rc, $failures groups failed; $mlog"
	fi
	check_links multipathd "$mpt/multipathd/multipathd"

	# multipathd started (foreground, -d), reconfigured, stopped by its
	# own "shutdown" command, through its socket with its own protocol
	# (realapps_load mpath).  Its RCU-protected object is its
	# configuration.  The reader: its CLI listener thread, which formats
	# the configuration inside one read-side critical section for each
	# "show config" (show_config()), from four connections at once.
	# "reconfigure", every 0.1 s, makes the main thread load a new one
	# and queue the old one with call_rcu().  Both take vecs->lock, so
	# a grace period waits for the listener only if it starts after the
	# lock is released, once the listener is back in show config:
	# liburcu's call_rcu thread waits 10 ms before a batch, and so does
	# rcuboost's (RCUBOOST_URCU_CALLBACK_DELAY_US), which is mostly too
	# soon (0 to 4 boosts in ten seconds here); 40 ms mostly is not.
	# multipathd runs its threads at SCHED_RR 99 (the pinned reader's
	# is restored).  Its conf.d blacklists every device: it manages no
	# paths and leaves the machine's own alone.  It creates
	# /etc/multipath/bindings when missing (its path is fixed in
	# 0.9.4): what it created there is removed afterwards.  On a kernel
	# without the device-mapper driver (none in /proc/misc), multipathd
	# exits at its first configuration (libmp_dm_init()); there it runs
	# with scripts/realapps_nodm.c preloaded, which answers for a
	# device-mapper with no maps.
	mkdir -p "$mpt/plugins" "$mpt/run" "$mpt/conf.d" &&
	cp "$mpt"/libmultipath/checkers/*.so "$mpt"/libmultipath/prioritizers/*.so \
	   "$mpt"/libmultipath/foreign/*.so "$mpt/plugins/" 2>> "$log"
	printf 'blacklist {\n\tdevnode ".*"\n}\n' > "$mpt/conf.d/realapps.conf"
	mlibs=$prefix/lib
	for d in "$mpt"/lib*/; do mlibs=$mlibs:${d%/}; done
	mpreload='' nodm=''
	if ! grep -qw device-mapper /proc/misc; then
		nodm=" (no device-mapper driver in this kernel: scripts/realapps_nodm.c stands in, with no maps)"
		mpreload=$work/realapps_nodm.so
		cc -O2 -Wall -shared -fPIC -o "$mpreload" "$root/scripts/realapps_nodm.c" \
			-ldl >> "$log" 2>&1 || mpreload=
	fi
	etc_had=no etc_files=
	[ -d /etc/multipath ] && etc_had=yes etc_files=$(ls -A /etc/multipath)
	mpath_reconfigures() {
		"$load" mpath "$inv_secs" 100 1 reconfigure > "$work/mpath-reconfigure"
	}
	mruns="1 0"
	if read -r _ other < <("$load" mpath 1 0 1 "show daemon") && [ "$other" != 0 ]; then
		result "multipathd: started, reconfigured, stopped" FAILED "another multipathd answers on its socket"
		mruns=
	fi
	for b in $mruns; do
		mdlog=$work/multipathd-boost$b.log
		LD_LIBRARY_PATH=$mlibs LD_PRELOAD=$mpreload RCUBOOST_BOOST=$b \
			RCUBOOST_STATS_INTERVAL=1 RCUBOOST_STALL_MS=100 \
			RCUBOOST_URCU_CALLBACK_DELAY_US=40000 \
			"$mpt/multipathd/multipathd" -d -s -v2 -B > "$mdlog" 2>&1 &
		mpid=$!
		started="$started $mpid"
		up=no
		for _ in $(seq 50); do
			read -r _ n < <("$load" mpath 1 0 1 "show daemon")
			[ "$n" != 0 ] && up=yes && break
			kill -0 "$mpid" 2>/dev/null || break
			sleep 0.2
		done
		"$load" mpath 120 0 4 "show config" > "$work/mpath-show" &
		spid=$!
		started="$started $spid"
		reader=$(busiest "$mpid" 1)
		problem='' i_tid=$reader i_log=$mdlog
		inv_boosts=0 inv_stalls=0 inv_named=no inv_preempted=0 inv_probe=- inv_bursts=0
		echo 0 0 > "$work/mpath-reconfigure"
		if [ $up = yes ] && [ -n "$reader" ]; then
			inversion "$mpid" "$mdlog" "$reader" mpath_reconfigures
		else
			problem="answers on its socket: $up, reader '$reader'; $mdlog"
		fi
		stop "$spid"
		# Its own way out; the PID if that fails.
		"$load" mpath 1 0 1 shutdown > /dev/null
		for _ in $(seq 100); do
			kill -0 "$mpid" 2>/dev/null || break
			sleep 0.1
		done
		stopped=yes
		kill -0 "$mpid" 2>/dev/null && stopped=no && kill "$mpid"
		wait "$mpid"
		rc=$?
		forget "$mpid"
		read -r sent replied < "$work/mpath-show"
		read -r _ reconf < "$work/mpath-reconfigure"
		# Less its first configuration, at start.
		done_reconf=$(grep -c 'reconfigure: setting up paths and maps' "$mdlog")
		[ "$done_reconf" -gt 0 ] && done_reconf=$((done_reconf - 1))
		if [ $b = 1 ]; then
			detail="answered on its socket: $up; $reconf reconfigures answered, $done_reconf done; stopped by its shutdown command: $stopped, exit $rc$nodm"
			if [ $up = yes ] && [ "$done_reconf" -gt 0 ] && [ $stopped = yes ] && [ $rc = 0 ]; then
				result "multipathd: started, reconfigured, stopped" ok "$detail"
			else
				result "multipathd: started, reconfigured, stopped" FAILED "$detail; $mdlog"
			fi
		fi
		inversion_rows multipathd $b "$replied of $sent show config answered, $done_reconf reconfigures done, $inv_bursts bursts" "$problem"
	done
	# What multipathd created in /etc/multipath, and only that.
	if [ $etc_had = no ]; then
		rm -rf /etc/multipath
	else
		for f in bindings wwids prkeys; do
			echo "$etc_files" | grep -qx "$f" || rm -f "/etc/multipath/$f"
		done
	fi
else
	result "multipath-tools: apt-get source" FAILED "see $log"
fi

# ---- Knot DNS ----------------------------------------------------------------
if ! wanted knot; then
	:
elif say "knot: fetch, configure, build, make check (the longest step)" &&
     knot=$(fetch knot) && [ -n "$knot" ]; then
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

	# The inversion: knotd (root, then nobody) signs its answers online
	# (mod-onlinesign, RSA keys): a query is one read-side critical
	# section of a few milliseconds (process_query_out()).  Its UDP
	# worker (one) is the reader; realapps_load dns keeps 16 queries
	# with the DNSSEC OK bit outstanding; one knotc reads
	# "zone-reload example" every 0.1 s from a pipe, and each reload
	# frees the old contents after a grace period.
	sed -e 's/^    listen: .*/&\n    udp-workers: 1\n    tcp-workers: 1\n    background-workers: 1/' \
	    -e 's/^    file: .*/&\n    module: mod-onlinesign\/rsa/' \
	    -e '/^zone:/i\
policy:\
  - id: rsa\
    algorithm: rsasha256\
    ksk-size: 2048\
    single-type-signing: on\
    rrsig-lifetime: 1d\
    rrsig-refresh: 12h\
mod-onlinesign:\
  - id: rsa\
    policy: rsa' "$run/knot.conf" > "$run/knot-sign.conf"
	chmod 644 "$run/knot-sign.conf"
	knot_reloads() {
		end=$((SECONDS + inv_secs))
		while [ $SECONDS -lt $end ]; do
			echo "zone-reload example"
			sleep 0.1
		done | LD_LIBRARY_PATH=$klibs timeout $((inv_secs + 30)) \
			"$kbin/knotc" -s "$run/knot.sock" | grep -c '^OK' > "$run/reloads"
	}
	for b in 1 0; do
		klog_run=$run/knotd-inversion-boost$b.log
		# Its KASP database is written by knotd as nobody.
		rm -rf "$run/db" && mkdir "$run/db" && chown 65534:65534 "$run/db"
		LD_LIBRARY_PATH=$klibs RCUBOOST_BOOST=$b RCUBOOST_STATS_INTERVAL=1 \
			RCUBOOST_STALL_MS=100 \
			"$kbin/knotd" -c "$run/knot-sign.conf" > "$klog_run" 2>&1 &
		kpid=$!
		started="$started $kpid"
		# A signed answer: the keys are made at the first start.
		signed=no
		for _ in $(seq 150); do
			LD_LIBRARY_PATH=$klibs "$kbin/kdig" @127.0.0.1 -p 53535 +dnssec \
				+time=1 +retry=0 www.example A 2>/dev/null |
				grep -q 'RRSIG.*A 8 2' && signed=yes && break
			sleep 0.2
		done
		# Ended after the inversion (it prints its figures on SIGTERM).
		"$load" dns 127.0.0.1 53535 120 www.example example nx.example \
			> "$run/dns" &
		dpid=$!
		started="$started $dpid"
		reader=$(busiest "$kpid" 1)
		uid=$(awk '/^Uid/ {print $2}' /proc/"$kpid"/status 2>/dev/null)
		problem='' i_tid=$reader i_log=$klog_run
		inv_boosts=0 inv_stalls=0 inv_named=no inv_preempted=0 inv_probe=- inv_bursts=0
		echo 0 > "$run/reloads"
		if [ $signed != yes ] || [ "$uid" != 65534 ] || [ -z "$reader" ]; then
			problem="signed answers: $signed, uid $uid, reader '$reader'; $klog_run"
		else
			inversion "$kpid" "$klog_run" "$reader" knot_reloads
		fi
		kill "$dpid"
		wait "$dpid"
		forget "$dpid"
		kill "$kpid" 2>/dev/null
		wait "$kpid" 2>/dev/null
		forget "$kpid"
		read -r sent answered < "$run/dns"
		inversion_rows knotd $b "as uid 65534; $answered of $sent signed queries answered, $(cat "$run/reloads") zone reloads, $inv_bursts bursts" "$problem"
	done
else
	result "knot: apt-get source" FAILED "see $log"
fi

# ---- xfsprogs ------------------------------------------------------------
# autoconf that looks for <urcu.h> and -lurcu (no pkg-config): switched
# like multipath-tools.  No test suite of its own (xfstests is separate):
# mkfs.xfs on a 2 GiB file, then xfs_repair, which registers its worker
# threads with RCU, in check-only mode and in repair mode.
if ! wanted xfsprogs; then
	:
elif say "xfsprogs: fetch, build, mkfs.xfs and xfs_repair on a file" &&
     xfs=$(fetch xfsprogs) && [ -n "$xfs" ]; then
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
	printf '  %-15s %-17s its only grace periods come at unmount, after its readers\n' \
		xfs_repair "no inversion:" >> "$work/boosts"
else
	result "xfsprogs: apt-get source" FAILED "see $log"
fi

# ---- LTTng-tools ---------------------------------------------------------
# The largest liburcu user of the three: urcu-memb (switched) beside
# urcu-bp and liburcu-cds (Debian's, running over rcuboost's rcu_flavor),
# with _LGPL_SOURCE; its unit tests, then a tracing session.
if ! wanted lttng-tools; then
	:
elif say "lttng-tools: fetch, configure, build, unit tests, a session" &&
     lttng=$(fetch lttng-tools ltt-control) && [ -n "$lttng" ]; then
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
	# The session daemon in the foreground (the PID we end is the one
	# we started; the libtool wrapper execs it), as root with no
	# kernel tracing; every client call with --no-sessiond, so that
	# none spawns a daemon of its own (the client binary itself, with
	# liblttng-ctl's path: the libtool wrapper's shell costs more than
	# the command).  Its consumer daemon, which links rcuboost too,
	# writes its own log (through a small wrapper script).  A session
	# traces the instrumented application (scripts/realapps_tp.c:
	# lttng-ust, one event a millisecond); babeltrace2 reads what was
	# recorded.  The inversion: three loops create, enable, start and
	# destroy sessions while the application runs.  The client thread
	# ("Client management") is the reader: a start or an enable-event
	# walks the registered applications under rcu_read_lock() and
	# talks to each and to the consumer daemon (ust-app.c), and a
	# destroy frees hash-table nodes with call_rcu(), so that one
	# loop's destroy makes a grace period wait for the thread while it
	# serves another loop.  The thread also sleeps inside those
	# sections, waiting for the consumer daemon or the application:
	# no boost shortens that, and on a loaded machine such a wait can
	# pass the stall timeout with boosting on too.
	slog=$work/lttng-session.log
	export LTTNG_HOME=$work/lttng-home \
	       LTTNG_SESSION_CONFIG_XSD_PATH=$lttng/src/common/config
	l() {
		LD_LIBRARY_PATH=$lttng/src/lib/lttng-ctl/.libs timeout 60 \
			"$lttng/src/bin/lttng/.libs/lttng" --no-sessiond "$@" >> "$slog" 2>&1
	}
	lttng_sessions() {	# for $1 seconds (default $inv_secs)
		end=$((SECONDS + ${1:-$inv_secs}))
		for k in 1 2 3; do
			n=0
			while [ $SECONDS -lt $end ]; do
				n=$((n + 1)) s=rcb-churn$k-$n
				l create "$s" --output="$work/lttng-churn" &&
				l enable-event -u -s "$s" 'rcuboost_realapps:*' &&
				l start "$s" && l destroy "$s" || break
			done &
		done
		wait
		# The log names each session as it is destroyed.
		grep -c '^Session rcb-churn.* destroyed' "$slog" > "$work/lttng-churns"
	}
	printf '#!/bin/sh\nexec "%s" "$@" 2>> "%s"\n' \
		"$lttng/src/bin/lttng-consumerd/lttng-consumerd" \
		"$work/lttng-consumerd.log" > "$work/lttng-consumerd"
	chmod 755 "$work/lttng-consumerd"
	lruns="1 0"
	: > "$slog"
	if ! cc -O2 -std=gnu11 -Wall -I"$root/scripts" -o "$tpapp" \
		"$root/scripts/realapps_tp.c" -llttng-ust -ldl >> "$slog" 2>&1; then
		result "lttng-sessiond: traces an instrumented application" FAILED "scripts/realapps_tp.c did not build; $slog"
		lruns=
	elif l list; then
		result "lttng-sessiond: traces an instrumented application" FAILED "another session daemon answers; $slog"
		lruns=
	fi
	for b in $lruns; do
		sdlog=$work/lttng-sessiond-boost$b.log
		rm -rf "$LTTNG_HOME" "$work/lttng-trace" "$work/lttng-churn"
		mkdir -p "$LTTNG_HOME"
		: > "$slog"
		RCUBOOST_BOOST=$b RCUBOOST_STATS_INTERVAL=1 RCUBOOST_STALL_MS=100 \
			"$lttng/src/bin/lttng-sessiond/lttng-sessiond" --no-kernel \
			--consumerd64-path="$work/lttng-consumerd" > "$sdlog" 2>&1 &
		sdpid=$!
		started="$started $sdpid"
		up=no
		for _ in $(seq 100); do
			l list && up=yes && break
			kill -0 "$sdpid" 2>/dev/null || break
			sleep 0.2
		done
		traced=no events=0 problem=
		if [ $up = yes ] &&
		   l create rcb-trace --output="$work/lttng-trace" &&
		   l enable-event -u -s rcb-trace 'rcuboost_realapps:*' &&
		   l start rcb-trace; then
			traced=yes
		fi
		"$tpapp" 120 > "$work/lttng-ticks" 2>> "$slog" &
		apid=$!
		started="$started $apid"
		# Registered: the session daemon lists its event.
		for _ in $(seq 100); do
			LD_LIBRARY_PATH=$lttng/src/lib/lttng-ctl/.libs \
				"$lttng/src/bin/lttng/.libs/lttng" --no-sessiond list -u 2>/dev/null |
				grep -q 'rcuboost_realapps:tick' && break
			sleep 0.2
		done
		reader=$(grep -l '^Client manageme' /proc/"$sdpid"/task/*/comm 2>/dev/null | head -1)
		[ -n "$reader" ] && reader=$(basename "$(dirname "$reader")")
		i_tid=$reader i_log=$sdlog
		inv_boosts=0 inv_stalls=0 inv_named=no inv_preempted=0 inv_probe=- inv_bursts=0
		if [ $traced = yes ] && [ -n "$reader" ]; then
			inversion "$sdpid" "$sdlog" "$reader" lttng_sessions
		else
			problem="session daemon up: $up, tracing: $traced, reader '$reader'; $slog"
		fi
		stop "$apid"
		ticks=$(cat "$work/lttng-ticks")
		if [ $traced = yes ] && l stop rcb-trace && l destroy rcb-trace; then
			events=$(babeltrace2 "$work/lttng-trace" 2>> "$slog" |
				 grep -c 'rcuboost_realapps:tick')
		fi
		# Its consumer daemon and run-as helper are its children: it
		# ends them; any left after it are ended by PID.
		children=$(pgrep -P "$sdpid")
		kill "$sdpid"
		for _ in $(seq 100); do
			kill -0 "$sdpid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$sdpid" 2>/dev/null && kill -KILL "$sdpid"
		wait "$sdpid"
		rc=$?
		forget "$sdpid"
		for c in $children; do kill "$c" 2>/dev/null; done
		if [ $b = 1 ]; then
			detail="$events events of rcuboost_realapps:tick recorded (babeltrace2) of ${ticks:-?} emitted; session daemon stopped by SIGTERM, exit $rc"
			if [ "$events" -gt 0 ] && [ $rc = 0 ]; then
				result "lttng-sessiond: traces an instrumented application" ok "$detail"
			else
				result "lttng-sessiond: traces an instrumented application" FAILED "$detail; $slog"
			fi
		fi
		inversion_rows lttng-sessiond $b "$(cat "$work/lttng-churns" 2>/dev/null) sessions created, started and destroyed, $inv_bursts bursts" "$problem"
	done
	unset LTTNG_HOME LTTNG_SESSION_CONFIG_XSD_PATH
else
	result "lttng-tools: apt-get source" FAILED "see $log"
fi

# ---- gdnsd (qsbr) ----------------------------------------------------------
# liburcu's qsbr flavor: its configure looks for <urcu-qsbr.h> and
# -lurcu-qsbr (no pkg-config), so switched like multipath-tools.  Its
# tests (make check): libgdmaps' GeoIP tests (t/libgdmaps, automake's
# harness), then prove over t/[0-9]*/*.t, each of which starts the gdnsd
# it built on a local port and queries it on 127.0.0.1 (Net::DNS): its
# UDP and TCP threads are qsbr readers, zone reloads wait for grace
# periods.  Left out through its own TRUN variable: 009monio and
# 011upthresh, whose http_status and tcp_connect monitors connect to
# 192.0.2.x (TEST-NET-1), off this machine.  prove runs TEST_CPUS * 4
# test files at once; serially (V=1) when REALAPPS_JOBS=1.
if ! wanted gdnsd; then
	:
elif say "gdnsd: fetch, configure, build, make check" &&
     gd=$(fetch_newer gdnsd) && [ -n "$gd" ]; then
	say "gdnsd: $(cat "$work/fetched-gdnsd")"
	glog=$work/gdnsd.log
	gall=$(cd "$gd/t" && ls -d [0-9]*/*.t | wc -l)
	gtrun=$(cd "$gd/t" && ls -d [0-9]*/*.t | grep -vE '^(009monio|011upthresh)/' | tr '\n' ' ')
	gv=0
	[ "$jobs" = 1 ] && gv=1
	(cd "$gd" &&
	 use_search_paths &&
	 ./configure && make -j "$jobs" &&
	 make check V=$gv TEST_CPUS="$jobs" TRUN="${gtrun% }") > "$glog" 2>&1
	rc=$?
	# Two prove runs: libgdmaps', then the daemon's.
	runs=$(grep -E '^Files=[0-9]+, +Tests=[0-9]+' "$glog" | cut -d, -f1-2 | sed 's/, */ /')
	passes=$(grep -c '^Result: PASS' "$glog")
	detail="libgdmaps: $(echo "$runs" | head -1); gdnsd: $(echo "$runs" | sed -n 2p) ($(echo $gtrun | wc -w) of $gall test files: 009monio and 011upthresh connect off this machine); $passes of 2 Result: PASS"
	if [ $rc = 0 ] && [ "$passes" = 2 ] && [ "$(echo "$runs" | wc -l)" = 2 ]; then
		result "gdnsd $(basename "$gd"): make check" ok "$detail"
	else
		result "gdnsd $(basename "$gd"): make check" FAILED "exit $rc; $detail; $glog"
	fi
	check_links gdnsd "$gd/src/gdnsd" qsbr
	printf '  %-15s %-17s its own suite runs and queries it; no inversion injected\n' \
		gdnsd "no inversion:" >> "$work/boosts"
else
	result "gdnsd: apt-get source" FAILED "see $log"
fi

# ---- libntirpc (bp) --------------------------------------------------------
# liburcu's bp flavor: CMake's find_library(urcu-bp) and
# find_path(urcu-bp.h), switched by CMake's own search paths
# (CMAKE_INCLUDE_PATH, CMAKE_LIBRARY_PATH) beside the compiler's.  No test
# suite: tests/ builds rpcping, a client that sends NULL calls through the
# library's work pool, whose threads register with urcu-bp.  It runs
# against a responder on 127.0.0.1 (a few lines of Perl below: it answers
# every call of one connection with an accepted, successful reply), with
# LD_DEBUG=bindings to show which library served its urcu_bp_* calls.
if ! wanted ntirpc; then
	:
elif say "ntirpc: fetch, build, rpcping against a local responder" &&
     nt=$(fetch_newer ntirpc) && [ -n "$nt" ]; then
	say "ntirpc: $(cat "$work/fetched-ntirpc")"
	nlog=$work/ntirpc.log
	rm -rf "$nt/build"
	(cd "$nt" &&
	 use_search_paths &&
	 export CMAKE_INCLUDE_PATH=$compat/include CMAKE_LIBRARY_PATH=$compat/lib &&
	 cmake -S . -B build && cmake --build build -j "$jobs") > "$nlog" 2>&1
	rc=$?
	nlib=$(ls "$nt"/build/src/libntirpc.so.* 2>/dev/null | head -1)
	if [ $rc = 0 ] && [ -n "$nlib" ]; then
		result "ntirpc $(basename "$nt"): builds" ok "$(grep -E '^LIBURCU_(LIB|INC)' "$nt/build/CMakeCache.txt" | sed 's/:[A-Z]*=/=/' | paste -sd ' ')"
	else
		result "ntirpc $(basename "$nt"): builds" FAILED "exit $rc; $nlog"
	fi
	check_links libntirpc.so "${nlib:-$nt/build/src/libntirpc.so}" bp
	cat > "$work/realapps_rpc.pl" <<'EOF'
use strict; use warnings; use IO::Socket::INET;
$| = 1;
my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
	Listen => 5, ReuseAddr => 1) or die "listen: $!";
print $l->sockport, "\n";
alarm 60;
my $c = $l->accept or die "accept: $!";
my $n = 0;
sub get {	# get N: N bytes, undef at the end of the connection
	my ($k, $b) = ($_[0], '');
	while (length $b < $k) {
		sysread($c, $b, $k - length $b, length $b) or return undef;
	}
	return $b;
}
# A record (RFC 5531's record marking), its xid, then a reply: REPLY,
# MSG_ACCEPTED, an AUTH_NONE verifier, SUCCESS (a NULL call's void).
while (defined(my $m = get(4))) {
	my $call = get(unpack('N', $m) & 0x7fffffff) // last;
	my $reply = substr($call, 0, 4) . pack('N5', 1, 0, 0, 0, 0);
	syswrite($c, pack('N', 0x80000000 | length $reply) . $reply);
	$n++;
}
print STDERR "$n\n";
EOF
	rlog=$work/ntirpc-rpcping.log
	: > "$rlog"
	perl "$work/realapps_rpc.pl" > "$work/rpc-port" 2> "$work/rpc-answered" &
	rpid=$!
	started="$started $rpid"
	for _ in $(seq 50); do
		[ -s "$work/rpc-port" ] && break
		sleep 0.1
	done
	out=$(LD_DEBUG=bindings LD_DEBUG_OUTPUT=$work/ntirpc-bindings \
		timeout 60 "$nt/build/tests/rpcping" tcp 127.0.0.1 --port="$(cat "$work/rpc-port")" \
		--count=500 --workers=3 2>> "$rlog")
	rc=$?
	echo "$out" >> "$rlog"
	# It ends by itself when rpcping closes the connection.
	for _ in $(seq 50); do
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.1
	done
	stop "$rpid"
	answered=$(cat "$work/rpc-answered")
	# Its urcu_bp_* calls, bound at their first call.
	bound=$(cat "$work/ntirpc-bindings".* 2>/dev/null |
		sed -n 's/.*binding file [^ ]*libntirpc[^ ]* \[0\] to \([^ ]*\) \[0\]: normal symbol `\(urcu_bp_[a-z_]*\).*/\2 from \1/p' |
		sed 's|from .*/|from |' | sort -u | tr '\n' ',' | sed 's/,$//; s/,/, /g')
	rm -f "$work/ntirpc-bindings".*
	detail="$(echo "$out" | sed -n 's/.*: \(failures [0-9]* timeouts [0-9]*\).*/\1/p'), $answered calls answered; bound: ${bound:-none}"
	if [ $rc = 0 ] && echo "$out" | grep -q 'failures 0 timeouts 0' &&
	   echo "$bound" | grep -q 'urcu_bp_register_thread from librcuboost' &&
	   ! echo "$bound" | grep -q 'liburcu'; then
		result "ntirpc: rpcping, 500 NULL calls on 127.0.0.1" ok "$detail"
	else
		result "ntirpc: rpcping, 500 NULL calls on 127.0.0.1" FAILED "exit $rc; $detail; $rlog"
	fi
	printf '  %-15s %-17s registers its work-pool threads; no reader of its own\n' \
		libntirpc "no inversion:" >> "$work/boosts"
else
	result "ntirpc: apt-get source" FAILED "see $log"
fi

echo
say "summary (also in $work/summary):"
cat "$work/summary"
echo
say "boosts that each program's own reader received under the injected inversion"
say "($inv_secs s of 150 ms SCHED_FIFO 40 bursts on CPU $hogcpu; stall timeout 100 ms):"
cat "$work/boosts"
exit $failed
