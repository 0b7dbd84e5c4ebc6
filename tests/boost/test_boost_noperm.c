/* Proves a process without permission for real-time priority keeps
 * working unboosted: one clear message on stderr, no_permission in the
 * statistics, grace periods and callbacks still complete, no crash. */
#define _GNU_SOURCE
#include <grp.h>
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

static int child(void)
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
	CHECK(rcb_init(NULL) == 0);
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

int main(void)
{
	char out[4096];
	int fds[2], status;
	ssize_t n, total = 0;
	pid_t pid;
	char *first;

	rt_require();
	rt_watchdog(60);
	CHECK(pipe(fds) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		_exit(child());
	}
	close(fds[1]);
	while ((n = read(fds[0], out + total, sizeof(out) - 1 - (size_t)total)) > 0)
		total += n;
	out[total] = '\0';
	CHECK(waitpid(pid, &status, 0) == pid);
	fprintf(stderr, "child stderr:\n%s", out);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	first = strstr(out, "no permission for real-time priority");
	CHECK(first != NULL);
	CHECK(strstr(first + 1, "no permission for real-time priority") == NULL);
	return 0;
}
