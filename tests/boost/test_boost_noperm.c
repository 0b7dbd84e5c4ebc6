/* Proves a process without permission for real-time priority keeps
 * working unboosted: one clear message on stderr, no_permission in the
 * statistics, grace periods and callbacks still complete, no crash.
 * Twice: initialised by rcb_init(), and lazily by its first use (a
 * daemon that dropped its privileges first), where the message comes at
 * once, before any booster starts, and says how to keep boosting. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "tests/boost/rt.h"
#include "rcuboost.h"

static atomic_int in_cs, release_reader;

static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&in_cs, 1);
	while (!atomic_load(&release_reader))
		usleep(1000);
	rcb_read_unlock();
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	CHECK(rcb_synchronize() == 0);
	return NULL;
}

static int child(bool lazy)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct rlimit rl = { 0, 0 };
	pthread_t r, u;

	/* Lose root: no CAP_SYS_NICE, RLIMIT_RTPRIO 0. */
	CHECK(setrlimit(RLIMIT_RTPRIO, &rl) == 0);
	CHECK(setgroups(0, NULL) == 0);
	CHECK(setgid(65534) == 0);
	CHECK(setuid(65534) == 0);
	CHECK(rt_set(0, SCHED_FIFO, 1, 0) != 0);
	if (lazy) {
		CHECK(rcb_synchronize() == 0);
		/* Said by the initialisation, before any booster ran. */
		CHECK(rcb_boost_stats(&s) == 0);
		CHECK(s.booster_running == 0);
		fprintf(stderr, "-- first use done\n");
	} else {
		CHECK(rcb_init(NULL) == 0);
	}
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_cs))
		usleep(1000);
	CHECK(pthread_create(&u, NULL, syncer, NULL) == 0);
	usleep(300 * 1000); /* long enough for the booster to try */
	atomic_store(&release_reader, 1);
	pthread_join(u, NULL);
	pthread_join(r, NULL);
	CHECK(rcb_synchronize() == 0);
	CHECK(rcb_boost_stats(&s) == 0);
	CHECK(s.no_permission == 1);
	CHECK(s.booster_running == 0);
	CHECK(s.boost == 0);
	CHECK(rcb_shutdown() == 0);
	return 0;
}

/* Runs child(@lazy) with its stderr in @out. */
static void run_child(bool lazy, char *out, size_t size)
{
	int fds[2], status;
	ssize_t n, total = 0;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		_exit(child(lazy));
	}
	close(fds[1]);
	while ((n = read(fds[0], out + total, size - 1 - (size_t)total)) > 0)
		total += n;
	out[total] = '\0';
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid);
	fprintf(stderr, "child (%s) stderr:\n%s", lazy ? "lazy" : "rcb_init", out);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	char out[4096];
	const char *key = "no permission for real-time priority";
	char *first, *done;

	rt_require();
	rt_watchdog(60);
	run_child(false, out, sizeof(out));
	first = strstr(out, key);
	CHECK(first != NULL);
	CHECK(strstr(first + 1, key) == NULL);

	run_child(true, out, sizeof(out));
	first = strstr(out, key);
	done = strstr(out, "-- first use done");
	CHECK(first != NULL && done != NULL && first < done);
	CHECK(strstr(out, "priority boosting will be off") != NULL);
	CHECK(strstr(out, "RCUBOOST_EARLY=1") != NULL);
	/* Once: the booster, refused later, says nothing more. */
	CHECK(strstr(first + 1, key) == NULL);
	return 0;
}
