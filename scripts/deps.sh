#!/bin/sh
# Check, and as root install, the Debian packages that the full build
# (library, tools, tests) and the demo need.  Used by the top-level
# Makefile; safe to run twice.  The library alone needs only cmake and a
# C compiler (RCB_BUILD_TOOLS=OFF, RCB_BUILD_TESTS=OFF).
set -eu

# package: what needs it
PKGS="cmake:build gcc:build clang:second-compiler make:build
pkg-config:install-test binutils:symbol-and-disassembly-tests
man-db:man-page-install-test clang-format:format-lint
liburcu-dev:benchmark-and-demo-peer libck-dev:benchmark-peer-ck_epoch
rt-tests:cyclictest-latency-measurement spin:model-checks
systemtap-sdt-dev:USDT-probes bpftrace:USDT-trace-test gnuplot-nox:demo-plot
abigail-tools:ABI-check"

missing=""
for entry in $PKGS; do
	pkg=${entry%%:*}
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $pkg"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "rcuboost: installing missing Debian packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2
	exit 0
fi

echo "rcuboost: missing Debian packages:$missing" >&2
for entry in $PKGS; do
	pkg=${entry%%:*}
	case " $missing " in *" $pkg "*) echo "  $pkg (for ${entry#*:})" >&2 ;; esac
done
echo "rcuboost: install them with: sudo apt-get install$missing" >&2
echo "rcuboost: (run make as root and it installs them itself)" >&2
exit 1
