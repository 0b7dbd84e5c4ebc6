/* Bug: fork handlers that an application registers before its first RCU call,
 * and that wait for callbacks (liburcu's idiom: rcu_barrier();
 * call_rcu_before_fork(); in the prepare handler), ran while rcuboost's own
 * prepare handler held the callback lock (rcuboost registered its handlers at
 * its first initialisation, after them, and glibc runs prepare handlers in
 * reverse order): rcb_barrier() there hung; in the child, the application's
 * handlers ran before rcuboost re-created its locks. The library's handlers are
 * now registered before main(). Each of the three handlers here calls
 * rcb_barrier() (the child's also rcb_synchronize_expedited(), rcb_backlog()
 * and rcb_cond_synchronize()); parent and child must both get through and run
 * their callbacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int ran;
static struct rcb_head heads[2];
static int prepare_ret = 1, parent_ret = 1, child_ret = 1;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

static void prepare(void)
{
	prepare_ret = rcb_barrier();
}

static void parent(void)
{
	parent_ret = rcb_barrier();
}

static void child(void)
{
	struct rcb_backlog b;

	child_ret = rcb_barrier();
	if (child_ret == 0)
		child_ret = rcb_synchronize_expedited();
	rcb_backlog(&b);
	if (child_ret == 0)
		child_ret = rcb_cond_synchronize(rcb_get_state());
}

int main(void)
{
	int st;
	pid_t pid;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(30);
	/* Before the first RCU call, as liburcu programs do. */
	CHECK_EQ(pthread_atfork(prepare, parent, child), 0);
	CHECK_EQ(rcb_call(&heads[0], count_cb), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(20);
		CHECK_EQ(child_ret, 0);
		CHECK_EQ(rcb_call(&heads[1], count_cb), 0);
		CHECK_EQ(rcb_barrier(), 0);
		CHECK(atomic_load(&ran) >= 1);
		_exit(0);
	}
	CHECK_EQ(prepare_ret, 0);
	CHECK_EQ(parent_ret, 0);
	CHECK_EQ(atomic_load(&ran), 1); /* the prepare handler's barrier */
	while (waitpid(pid, &st, 0) < 0)
		CHECK(errno == EINTR);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(rcb_shutdown(), 0);
	printf("rcb_barrier() in the application's prepare, parent and child handlers: no hang\n");
	return 0;
}
