#!/bin/sh
# SPDX-License-Identifier: MIT
#
# sanitize_run.sh SOURCE_DIR BUILD_DIR SANITIZER CC BUILD_TYPE LABELS
#                 EXCLUDE [WRAPPER...]
#
# One sanitizer variant of make test (tests/sanitizers.cmake): configure
# SOURCE_DIR into BUILD_DIR with RCB_SANITIZE=SANITIZER, build it with
# both CPUs, then run the tests whose labels match LABELS and whose names
# do not match EXCLUDE, under WRAPPER (for example `setarch -R`) if one
# is given.  The build's output is shown only when it fails.
#
# Not `ctest --build-and-test`: that runs the make program itself,
# without a -j and with MAKEFLAGS cleared, which doubled the build's time.
set -eu

src=$1 bin=$2 san=$3 cc=$4 build_type=$5 labels=$6 exclude=$7
shift 7

mkdir -p "$bin"
cmake -S "$src" -B "$bin" -DRCB_SANITIZE="$san" -DRCB_TEST_SCALE=4 \
	-DBUILD_TESTING=ON -DCMAKE_C_COMPILER="$cc" \
	-DCMAKE_BUILD_TYPE="$build_type" >"$bin/configure.log" 2>&1 ||
	{ cat "$bin/configure.log"; echo "sanitize_run: configure failed" >&2; exit 1; }
cmake --build "$bin" -j2 >"$bin/build.log" 2>&1 ||
	{ cat "$bin/build.log"; echo "sanitize_run: build failed" >&2; exit 1; }
exec "$@" ctest --test-dir "$bin" -j2 -L "$labels" -E "$exclude" \
	--no-tests=error --output-on-failure
