/* A hostile-user probe (2026-12-06): linked statically, the library's
 * constructors may run after the program's (link order), and a program
 * constructor that used the library found its locks and thread-exit key
 * not made yet: a first rcb_read_lock() died ("cannot register thread:
 * Invalid argument"), and after the program made a pthread key of its
 * own (number 0, as the library's unmade one), a thread leaving the
 * library ran the program's destructor instead of the library's; the
 * dead thread stayed registered, and the next grace period looped over
 * the registry forever.  The library now makes them at its first use.
 *
 * Linked with the test-only static library (the debug one: the static
 * link order is the point).  In a constructor of this program: a pthread
 * key of its own, a reader thread, a thread that exits inside its
 * section (reported, RCUBOOST_MISUSE=warn), a grace period; then in
 * main() statistics and more grace periods.  Every step must return
 * (30 s alarm) and the program's destructor must see only its own
 * values. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static pthread_key_t app_key;
static int app_value;
static atomic_int dtor_calls, dtor_foreign, ctor_sync = -1;

static void app_dtor(void *v)
{
	atomic_fetch_add(&dtor_calls, 1);
	if (v != &app_value)
		atomic_store(&dtor_foreign, 1);
}

static void *reader(void *arg)
{
	(void)arg;
	pthread_setspecific(app_key, &app_value);
	rcb_read_lock();
	rcb_read_unlock();
	return NULL;
}

static void *exits_inside(void *arg)
{
	(void)arg;
	rcb_read_lock();
	return NULL;
}

static void run(void *(*fn)(void *))
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		abort();
}

__attribute__((constructor)) static void app_ctor(void)
{
	alarm(30);
	if (pthread_key_create(&app_key, app_dtor) != 0)
		abort();
	run(reader);
	run(exits_inside);
	run(reader);
	atomic_store(&ctor_sync, rcb_synchronize());
}

int main(void)
{
	struct rcb_gp_stats st;

	CHECK(getenv("RCUBOOST_MISUSE") && strcmp(getenv("RCUBOOST_MISUSE"), "warn") == 0);
	printf("constructor: rcb_synchronize() returned %d\n", atomic_load(&ctor_sync));
	CHECK_EQ(atomic_load(&ctor_sync), 0);
	memset(&st, 0, sizeof(st));
	rcb_stats(&st);
	printf("main: rcb_stats(): %llu grace periods, %llu misuse reports\n",
	       (unsigned long long)st.grace_periods,
	       (unsigned long long)st.misuse);
	run(reader);
	CHECK_EQ(rcb_synchronize(), 0);
	printf("the program's key destructor ran %d times, %s\n", atomic_load(&dtor_calls),
	       atomic_load(&dtor_foreign) ? "once with a value not its own" : "with its own values");
	CHECK_EQ(atomic_load(&dtor_foreign), 0);
	CHECK_EQ(atomic_load(&dtor_calls), 3);
	return 0;
}
