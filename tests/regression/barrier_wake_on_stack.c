/* Bug: rcb_barrier()'s waiter slept on a word in its own stack frame, and the
 * callback thread set that word and then issued FUTEX_WAKE on it: the waiter,
 * seeing the word set, could return (and its thread exit) before the wake-up,
 * which then targeted a stack slot the waiter had left. The library must never
 * wake a futex in the stack of a thread that called rcb_barrier(): the test
 * gives that thread a stack of its own and watches every futex wake-up the
 * library issues. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define STACK (1 << 20)
#define ROUNDS 200

static char *stack_lo, *stack_hi;
static atomic_int on_stack, wakes;
static struct rcb_head head;
static atomic_int invoked;

/* The library's system calls come here (the executable's definition comes
 * first in symbol lookup); futex wake-ups into the barrier thread's stack
 * are counted. */
__attribute__((visibility("default"))) long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_futex && (a[1] & FUTEX_CMD_MASK) == FUTEX_WAKE) {
		atomic_fetch_add(&wakes, 1);
		if ((char *)a[0] >= stack_lo && (char *)a[0] < stack_hi)
			atomic_fetch_add(&on_stack, 1);
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&invoked, 1);
}

static void *barrier_thread(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ROUNDS; r++) {
		CHECK(rcb_call(&head, count_cb) == 0);
		CHECK(rcb_barrier() == 0);
		CHECK_EQ(atomic_load(&invoked), r);
	}
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = -1 };
	pthread_attr_t attr;
	pthread_t t;

	alarm(30);
	CHECK(rcb_init(&cfg) == 0);
	stack_lo = aligned_alloc(4096, STACK);
	CHECK(stack_lo);
	stack_hi = stack_lo + STACK;
	CHECK(pthread_attr_init(&attr) == 0);
	CHECK(pthread_attr_setstack(&attr, stack_lo, STACK) == 0);
	CHECK(pthread_create(&t, &attr, barrier_thread, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(rcb_shutdown() == 0);
	/* The interposition works: the library's wake-ups came here. */
	CHECK(atomic_load(&wakes) > 0);
	if (atomic_load(&on_stack)) {
		fprintf(stderr, "FAIL: %d futex wake-ups targeted the stack of the thread calling rcb_barrier()\n",
			atomic_load(&on_stack));
		return 1;
	}
	printf("%d barriers: no futex wake-up into the caller's stack\n", ROUNDS);
	return 0;
}
