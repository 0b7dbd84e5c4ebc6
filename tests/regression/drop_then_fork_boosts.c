/* Bug (a privilege-dropping daemon): a daemon that drops CAP_SYS_NICE and then
 * forks (BIND 9.20's named in its default daemon mode) boosted nothing
 * in the child: the parent's boosters do not survive fork(), and the
 * child, whose only thread no longer has the capability, could not give
 * its own boosters real-time priority.  With RCUBOOST_KEEPER=1 (set by
 * CTest, with the backend and RCUBOOST_EARLY) the child boosts.
 *
 * The daemon, as named does it: rcb_init() as root; the main thread
 * keeps CAP_SETUID and CAP_SETGID only (capset(2) on itself, with
 * PR_SET_KEEPCAPS); fork(); in the child, setgroups()/setgid()/setuid()
 * to 65534 (every thread follows) and then no capability at all.  Then
 * the child's SCHED_FIFO 10 reader, pinned to CPU 1, is preempted
 * inside its section by a FIFO 40 hog pinned to CPU 1 that spins at
 * most 1.5 s, and rcb_synchronize() must end well before the hog.  The
 * child's booster threads must hold no capability but CAP_SYS_NICE.
 *
 * After the drop the child may not make a thread real-time, so its
 * reader and hog get real-time priority the only way left: the main
 * thread is SCHED_FIFO 40 when it forks (fork() and pthread_create()
 * copy the policy without asking), creates them, and lowers itself and
 * the reader (lowering needs no permission). */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "rcuboost.h"
#include "tests/boost/caps.h"
#include "tests/boost/rt.h"

#define HOG_S 1.5
/* The child's exit status when the set-up made no inversion. */
#define NO_INVERSION 75
#define MAXB 64

static atomic_int reader_ready, go, restored, in_section;
static struct rt_hog hog;

static void *reader(void *arg)
{
	struct rt_attr after;

	(void)arg;
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0); /* down from 40 */
	rt_pin(1);
	CHECK(rcb_register_thread() == 0);
	atomic_store(&reader_ready, 1);
	while (!atomic_load(&go))
		usleep(1000);
	rcb_read_lock();
	atomic_store(&in_section, 1);
	rt_hog_fire(&hog); /* preempted here until boosted or hog done */
	atomic_store(&in_section, 0);
	rcb_read_unlock();
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&restored, after.policy == SCHED_FIFO && after.prio == 10);
	CHECK(rcb_unregister_thread() == 0);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

/* Every booster of this process holds no capability but CAP_SYS_NICE,
 * permitted or effective. */
static void check_booster_caps(void)
{
	pid_t tids[MAXB];
	int n = rcb_booster_tids(tids, MAXB);

	CHECK(n >= 1);
	for (int i = 0; i < n && i < MAXB; i++) {
		uint64_t prm = caps_of_task(tids[i], "CapPrm");
		uint64_t eff = caps_of_task(tids[i], "CapEff");

		printf("booster %d: CapPrm %#llx CapEff %#llx\n", (int)tids[i],
		       (unsigned long long)prm, (unsigned long long)eff);
		CHECK((prm & ~CAP_BIT(CAP_SYS_NICE)) == 0);
		CHECK((eff & ~CAP_BIT(CAP_SYS_NICE)) == 0);
	}
}

/* The forked daemon: the named side of named_os_changeuser() and
 * linux_minprivs(), then the inversion. */
static int daemon_child(void)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	bool early = getenv("RCUBOOST_EARLY") != NULL;
	double t0, gp_ms;
	pthread_t r;

	rt_watchdog(30); /* alarm() is not inherited */
	/* With the early start the fork started the child's boosters. */
	CHECK((rcb_booster_tids(NULL, 0) >= 1) == early);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&reader_ready))
		usleep(1000);

	CHECK(setgroups(0, NULL) == 0);
	CHECK(setgid(65534) == 0);
	CHECK(setuid(65534) == 0);
	CHECK(caps_set_self(0) == 0);
	/* Armed last, FIFO 40 copied from us: an armed hog gives up after
	 * RT_HOG_ARM_S, which the drop must not eat into on a loaded
	 * machine. */
	rt_hog_arm(&hog, 1, 40, HOG_S);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	CHECK(rt_set(0, SCHED_FIFO, 1, 0) != 0); /* really dropped */

	CHECK(rcb_boost_stats(&s) == 0);
	atomic_store(&go, 1);
	while (!atomic_load(&hog.started) && !atomic_load(&hog.ended))
		usleep(100);
	CHECK(atomic_load(&hog.started));
	usleep(5000);
	if (!atomic_load(&in_section)) {
		rt_hog_join(&hog);
		pthread_join(r, NULL);
		printf("no inversion: the reader left its section before the grace period began\n");
		fflush(stdout);
		return NO_INVERSION;
	}
	t0 = rt_now();
	CHECK(rcb_synchronize() == 0);
	gp_ms = (rt_now() - t0) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	CHECK(rcb_boost_stats(&s) == 0);
	printf("drop, fork, setuid(65534)%s, %s backend: grace period %.1f ms "
	       "(hog %.0f ms), boosts %ld, boost failures %ld, no_permission %d, "
	       "keeper %d, keeper requests %ld\n",
	       early ? ", RCUBOOST_EARLY=1" : "",
	       s.backend == RCB_BACKEND_PI ? "pi" : "sched", gp_ms, HOG_S * 1e3,
	       s.boost, s.boost_failed, s.no_permission, s.keeper,
	       s.keeper_requests);
	CHECK(gp_ms < HOG_S * 1e3 * 2 / 3);
	CHECK(s.boost >= 1);
	/* The booster's own priority and the boost, at least. */
	CHECK(s.keeper == 1 && s.keeper_requests >= 2);
	CHECK(atomic_load(&restored));
	check_booster_caps();
	fflush(stdout); /* the child leaves with _exit() */
	return 0;
}

/* The daemon: initialised as root, drops CAP_SYS_NICE, forks. */
static int daemon_main(void)
{
	int status;
	pid_t pid;

	rt_watchdog(30);
	rt_pin(0);
	CHECK(rcb_init(NULL) == 0);
	CHECK(rcb_booster_tids(NULL, 0) >= 1);
	/* What its children inherit (see the top of the file). */
	CHECK(rt_set(0, SCHED_FIFO, 40, 0) == 0);
	CHECK(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0);
	CHECK(caps_set_self(CAP_BIT(CAP_SETUID) | CAP_BIT(CAP_SETGID)) == 0);
	CHECK(rt_set(0, SCHED_FIFO, 41, 0) != 0); /* CAP_SYS_NICE gone */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(daemon_child());
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	return WEXITSTATUS(status);
}

int main(void)
{
	int status;
	pid_t pid;

#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (tests/unit/test_fork.c). */
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	rt_require();
	/* In a child, so that the drop never outlives the test; again
	 * when the set-up made no inversion (after the drop nothing may
	 * become real-time again). */
	for (int attempt = 1;; attempt++) {
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0)
			_exit(daemon_main());
		CHECK(waitpid(pid, &status, 0) == pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == NO_INVERSION &&
		    attempt < 3)
			continue;
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		return 0;
	}
}
