/* Bug: once library threads were created at SCHED_OTHER explicitly (not
 * inheriting the creator's policy), an unprivileged thread running SCHED_IDLE
 * whose first call started the library could not start them: pthread_create()
 * failed with EPERM (leaving SCHED_IDLE needs RLIMIT_NICE), and rcb_call()
 * returned -EPERM with "cannot start the callback thread". Such a thread must
 * still get its callbacks run: the library's thread then keeps the creator's
 * policy. */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static struct rcb_head head;
static volatile int invoked;

static void cb(struct rcb_head *h)
{
	(void)h;
	invoked = 1;
}

int main(void)
{
	struct rlimit no_nice = { 0, 0 };
	struct sched_param sp = { 0 };
	int err;

#if defined(__SANITIZE_THREAD__)
	/* setuid() broadcasts to every thread, ThreadSanitizer's own too. */
	fprintf(stderr, "skip: no user-ID change under ThreadSanitizer\n");
	return 77;
#endif
	alarm(30);
	/* Unprivileged, and no leave to raise the nice value: SCHED_IDLE
	 * is then a one-way street for this thread. */
	if (getuid() == 0) {
		CHECK(setgroups(0, NULL) == 0);
		CHECK(setresgid(65534, 65534, 65534) == 0);
		CHECK(setresuid(65534, 65534, 65534) == 0);
		/* LeakSanitizer's exit check traces our threads. */
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
	CHECK(setrlimit(RLIMIT_NICE, &no_nice) == 0);
	CHECK(sched_setscheduler(0, SCHED_IDLE, &sp) == 0);
	err = rcb_call(&head, cb);
	if (err) {
		fprintf(stderr, "FAIL: rcb_call from an unprivileged SCHED_IDLE thread returned %d\n", err);
		return 1;
	}
	CHECK(rcb_barrier() == 0);
	CHECK(invoked);
	CHECK(rcb_shutdown() == 0);
	printf("an unprivileged SCHED_IDLE thread started the callback thread\n");
	return 0;
}
