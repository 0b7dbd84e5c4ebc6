#!/bin/sh
# SPDX-License-Identifier: MIT
#
# readme_example.sh README INCLUDE_DIR BUILD_INCLUDE_DIR LIBRARY WORKDIR
#
# README.md's "Using it" example, as printed, compiles as a whole program
# with gcc and clang in strict ISO C11, pedantic, warnings as errors; run
# with a main() of this test's own (readers on two threads beside the
# updater), it reads only the values set, frees every object once (the
# program's count, after rcb_barrier()), and the library says nothing.
set -eu

readme=$1 inc=$2 binc=$3 lib=$4 work=$5
warn="-std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -pedantic -Werror"

rm -rf "$work"
mkdir -p "$work"
sed -n '/^## Using it/,/^## /p' "$readme" |
	sed -n '/^```c$/,/^```$/p' | sed '1d;$d' >"$work/example.c"
[ -s "$work/example.c" ] || { echo "FAIL: no \`\`\`c block under '## Using it' in $readme"; exit 1; }
if [ "$(grep -c '^```c$' "$work/example.c" || true)" != 0 ]; then
	echo "FAIL: more than one C block under '## Using it'; this test takes one"
	exit 1
fi

# The test's main(): the example's functions are used as README says.
cat >"$work/main.c" <<'EOF'
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <rcuboost.h>

int read_value(void);
int set_value(int value);

#define SETS 20000
static atomic_int stop, bad;
extern atomic_long example_frees; /* count.c: the example's free() calls */

static void *reader(void *arg)
{
	int last = -1;

	(void)arg;
	while (!atomic_load(&stop)) {
		int v = read_value();

		/* -1 before the first set, then 1..SETS, never backwards. */
		if (v < last || v == 0 || v > SETS)
			atomic_store(&bad, v == 0 ? -2 : v);
		last = v;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int i;

	if (read_value() != -1) {
		printf("FAIL: read_value() before any set_value() gave %d, not -1\n",
		       read_value());
		return 1;
	}
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, reader, NULL) != 0)
			return 1;
	for (i = 1; i <= SETS; i++)
		if (set_value(i) != 0) {
			printf("FAIL: set_value(%d) failed\n", i);
			return 1;
		}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (atomic_load(&bad)) {
		printf("FAIL: a reader saw %d (set: 1..%d, in order)\n",
		       atomic_load(&bad), SETS);
		return 1;
	}
	if (read_value() != SETS) {
		printf("FAIL: read_value() gave %d after the last set_value(%d)\n",
		       read_value(), SETS);
		return 1;
	}
	if (rcb_barrier() != 0) {
		printf("FAIL: rcb_barrier() failed\n");
		return 1;
	}
	/* Every object replaced, and only those: the last one is current. */
	if (atomic_load(&example_frees) != SETS - 1) {
		printf("FAIL: the example freed %ld objects after rcb_barrier(), not %d\n",
		       (long)atomic_load(&example_frees), SETS - 1);
		return 1;
	}
	printf("ok: %d values set and read by two readers, %d freed\n", SETS,
	       SETS - 1);
	return 0;
}
EOF

status=0
for cc in gcc clang; do
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "FAIL: $cc is missing (apt-get install $cc)"
		exit 1
	fi
	if ! "$cc" $warn -I"$inc" -I"$binc" -c "$work/example.c" \
		-o "$work/example-$cc.o" 2>"$work/cc-$cc.log"; then
		echo "FAIL: README's example does not compile with $cc $warn:"
		cat "$work/cc-$cc.log"
		status=1
	fi
done
[ "$status" = 0 ] || exit 1
gcc -std=c11 -Wall -Wextra -Werror -I"$inc" -I"$binc" -c "$work/main.c" -o "$work/main.o"
# Frees are counted by wrapping free() at link time: one per object
# replaced (SETS - 1), none twice.
cat >"$work/count.c" <<'EOF'
#include <stdatomic.h>
#include <stdio.h>
void __real_free(void *p);
void __wrap_free(void *p);
atomic_long example_frees;
void __wrap_free(void *p)
{
	if (p)
		atomic_fetch_add(&example_frees, 1);
	__real_free(p);
}
EOF
gcc -std=c11 -Wall -Wextra -Werror -c "$work/count.c" -o "$work/count.o"
gcc -o "$work/example" "$work/example-gcc.o" "$work/main.o" "$work/count.o" \
	-Wl,--wrap=free "$lib" -Wl,-rpath,"$(dirname "$lib")" -pthread
if ! "$work/example" >"$work/out" 2>"$work/err"; then
	cat "$work/out" "$work/err"
	echo "FAIL: README's example, run by this test's main(), failed"
	exit 1
fi
cat "$work/out"
if [ -s "$work/err" ]; then
	echo "FAIL: the library printed on stderr while running README's example:"
	cat "$work/err"
	exit 1
fi
echo "ok: README's example compiles with gcc and clang ($warn) and runs clean"
