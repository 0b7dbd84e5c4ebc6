/* Bug (a privilege-dropping daemon): a booster started as root kept every
 * capability in its permitted set, and all of them effective while the
 * process stayed root, when the daemon itself had dropped to
 * CAP_NET_BIND_SERVICE.  A booster needs CAP_SYS_NICE, plus CAP_SETUID
 * and CAP_SETGID while the application may still change IDs (glibc
 * makes every thread repeat an ID change and aborts if one is refused).
 * Three daemons, each in a child of its own:
 *  "root": after rcb_init() as root, nothing but those three;
 *  "capset": the initial thread drops to CAP_NET_BIND_SERVICE by
 *   capset(2), staying root (named without -u): after the next booster
 *   pass, CAP_SYS_NICE alone, permitted and effective;
 *  "setuid": setgroups()/setgid()/setuid(65534), without
 *   PR_SET_KEEPCAPS (the booster must follow, or glibc aborts): after
 *   the next pass, CAP_SYS_NICE alone. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "rcuboost.h"
#include "tests/boost/caps.h"
#include "tests/boost/rt.h"

#define MAXB 64
#define NICE CAP_BIT(CAP_SYS_NICE)
#define IDS (CAP_BIT(CAP_SETUID) | CAP_BIT(CAP_SETGID))

static atomic_int in_section, leave;

static void *reader(void *arg)
{
	(void)arg;
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&in_section, 1);
	while (!atomic_load(&leave))
		usleep(1000);
	rcb_read_unlock();
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	CHECK(rcb_synchronize() == 0);
	return NULL;
}

/* A grace period that waits for a reader: the boosters make passes
 * (at least two more, within 2 s). */
static void booster_passes(void)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	long before;
	pthread_t r, u;

	CHECK(rcb_boost_stats(&s) == 0);
	before = s.passes;
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_section))
		usleep(1000);
	CHECK(pthread_create(&u, NULL, syncer, NULL) == 0);
	for (int i = 0; i < 2000 && s.passes < before + 2; i++) {
		usleep(1000);
		CHECK(rcb_boost_stats(&s) == 0);
	}
	CHECK(s.passes >= before + 2);
	atomic_store(&leave, 1);
	pthread_join(u, NULL);
	pthread_join(r, NULL);
}

/* Each booster's sets: permitted @prm exactly, effective @eff exactly,
 * nothing inheritable. */
static void check_boosters(const char *when, uint64_t prm, uint64_t eff)
{
	pid_t tids[MAXB];
	int n = rcb_booster_tids(tids, MAXB);

	CHECK(n >= 1);
	for (int i = 0; i < n && i < MAXB; i++) {
		uint64_t p = caps_of_task(tids[i], "CapPrm");
		uint64_t e = caps_of_task(tids[i], "CapEff");
		uint64_t h = caps_of_task(tids[i], "CapInh");

		printf("%s: booster %d CapPrm %#llx CapEff %#llx CapInh %#llx\n",
		       when, (int)tids[i], (unsigned long long)p,
		       (unsigned long long)e, (unsigned long long)h);
		CHECK_EQ(p, prm);
		CHECK_EQ(e, eff);
		CHECK_EQ(h, 0);
	}
	fflush(stdout);
}

static int child(const char *mode)
{
	rt_watchdog(30);
	CHECK(rcb_init(NULL) == 0);
	check_boosters("after rcb_init() as root", NICE | IDS, NICE | IDS);
	if (strcmp(mode, "capset") == 0) {
		CHECK(caps_set_self(CAP_BIT(CAP_NET_BIND_SERVICE)) == 0);
	} else if (strcmp(mode, "setuid") == 0) {
		CHECK(setgroups(0, NULL) == 0);
		CHECK(setgid(65534) == 0);
		CHECK(setuid(65534) == 0);
	} else {
		return 0;
	}
	booster_passes();
	check_boosters(mode, NICE, NICE);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "root", "capset", "setuid" };
	int status;
	pid_t pid;

	(void)argc;
	(void)argv;
	rt_require();
	for (int i = 0; i < 3; i++) {
		fflush(stdout);
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0)
			_exit(child(modes[i]));
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return 0;
}
