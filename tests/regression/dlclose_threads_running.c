/* A hostile-user probe (2026-12-06): dlopen() the library, use it,
 * dlclose() it without rcb_shutdown(): the library's threads kept running
 * its code, which dlclose() had unmapped, and the process died of
 * SIGSEGV in a booster.  The library is linked -z nodelete: dlclose()
 * leaves it mapped, and a second dlopen() finds it as it was.
 *
 * argv[1]: the shared library's path.  Each round (two): dlopen, init,
 * a grace period, a callback and a barrier, dlclose, then 300 ms in
 * which the library's threads wake (the callback thread's coalescing
 * wait ends; the boosters' are woken by the grace period). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int ran;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

int main(int argc, char **argv)
{
	static struct rcb_head head;

	CHECK(argc == 2);
	for (int round = 0; round < 2; round++) {
		void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		int (*init)(const struct rcb_config *);
		int (*sync)(void);
		int (*call)(struct rcb_head *, void (*)(struct rcb_head *));
		int (*barrier)(void);
		int (*tids)(pid_t *, int);

		if (!lib)
			fprintf(stderr, "dlopen: %s\n", dlerror());
		CHECK(lib != NULL);
		*(void **)&init = dlsym(lib, "rcb_init");
		*(void **)&sync = dlsym(lib, "rcb_synchronize");
		*(void **)&call = dlsym(lib, "rcb_call");
		*(void **)&barrier = dlsym(lib, "rcb_barrier");
		*(void **)&tids = dlsym(lib, "rcb_booster_tids");
		CHECK(init && sync && call && barrier && tids);
		CHECK_EQ(init(NULL), 0);
		CHECK_EQ(sync(), 0);
		CHECK_EQ(call(&head, count_cb), 0);
		CHECK_EQ(barrier(), 0);
		printf("round %d: %d callbacks ran, %d boosters running; dlclose\n",
		       round, atomic_load(&ran), tids(NULL, 0));
		CHECK_EQ(dlclose(lib), 0);
		usleep(300000);
	}
	CHECK_EQ(atomic_load(&ran), 2);
	printf("the process outlived both dlclose() calls\n");
	return 0;
}
