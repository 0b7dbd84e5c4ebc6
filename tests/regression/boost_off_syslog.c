/* Bug (a privilege-dropping daemon): a daemon whose boosting was off learned it
 * only from a line on stderr, which a daemon has pointed at /dev/null by
 * then (named, daemon(3)).  Now the warning also goes to syslog(3), at
 * LOG_DAEMON | LOG_WARNING, when stderr is /dev/null or closed (and only
 * then: not when it leads somewhere), and a stall report says that
 * boosting is off and why.
 *
 * Each case runs in a child with a mount namespace of its own, whose
 * /dev is a tmpfs holding a null device and a datagram socket at
 * /dev/log that the test reads: the system logger, if any, sees
 * nothing.  The child drops root (setuid(65534), RLIMIT_RTPRIO 0), then
 * calls rcb_init(), whose booster is refused real-time priority and says
 * so before rcb_init() returns. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int in_section, leave;

static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&in_section, 1);
	while (!atomic_load(&leave))
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

/* A private /dev with a null device and a logger socket; returns the
 * socket. */
static int fake_dev_log(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	CHECK(unshare(CLONE_NEWNS) == 0);
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	CHECK(mount("tmpfs", "/dev", "tmpfs", 0, "mode=0755") == 0);
	CHECK(mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) == 0);
	CHECK(chmod("/dev/null", 0666) == 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	CHECK(fd >= 0);
	strcpy(a.sun_path, "/dev/log");
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(chmod("/dev/log", 0666) == 0); /* writable after the drop */
	return fd;
}

static int child(const char *mode)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct rlimit rl = { 0, 0 };
	char msg[2048], report[8192];
	int log = fake_dev_log();
	ssize_t n;
	pthread_t r, u;

	if (strcmp(mode, "null") == 0) {
		int null = open("/dev/null", O_WRONLY);

		CHECK(null >= 0 && dup2(null, 2) == 2);
		close(null);
	} else if (strcmp(mode, "closed") == 0) {
		close(2);
	}
	CHECK(setrlimit(RLIMIT_RTPRIO, &rl) == 0);
	CHECK(setgroups(0, NULL) == 0);
	CHECK(setgid(65534) == 0);
	CHECK(setuid(65534) == 0);

	CHECK(rcb_init(NULL) == 0);
	CHECK(rcb_boost_stats(&s) == 0);
	CHECK(s.no_permission == 1);
	/* The refused booster warned before rcb_init() returned. */
	n = recv(log, msg, sizeof(msg) - 1, 0);
	if (strcmp(mode, "pipe") == 0) {
		CHECK(n < 0 && errno == EAGAIN); /* stderr was enough */
		CHECK(rcb_shutdown() == 0);
		return 0;
	}
	CHECK(n > 0);
	msg[n] = '\0';
	printf("stderr %s, /dev/log got: %s\n", mode, msg);
	CHECK(strncmp(msg, "<28>", 4) == 0); /* LOG_DAEMON | LOG_WARNING */
	CHECK(strstr(msg, "rcuboost: priority boosting disabled: no permission") != NULL);
	CHECK(strchr(msg, '\n') == NULL);
	CHECK(recv(log, msg, sizeof(msg), 0) < 0 && errno == EAGAIN); /* once */

	/* A grace period held up by a reader: the report says why no
	 * booster will help. */
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_section))
		usleep(1000);
	CHECK(pthread_create(&u, NULL, syncer, NULL) == 0);
	for (int i = 0; i < 5000; i++) {
		if (rcb_stall_report(report, sizeof(report), RCB_STALL_NOW) > 0)
			break;
		usleep(1000);
	}
	atomic_store(&leave, 1);
	pthread_join(u, NULL);
	pthread_join(r, NULL);
	printf("%s", report);
	CHECK(strstr(report, "rcuboost: stall: priority boosting is off: no permission "
			     "for real-time priority") != NULL);
	CHECK(rcb_shutdown() == 0);
	fflush(stdout);
	return 0;
}

int main(void)
{
	static const char *const modes[] = { "null", "closed", "pipe" };
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: needs root (a mount namespace, setuid())\n");
		return 77;
	}
	alarm(60);
	for (int i = 0; i < 3; i++) {
		int fds[2];
		char err[4096];
		ssize_t n, total = 0;

		CHECK(pipe(fds) == 0);
		fflush(stdout);
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			close(fds[0]);
			CHECK(dup2(fds[1], 2) == 2);
			_exit(child(modes[i]));
		}
		close(fds[1]);
		while ((n = read(fds[0], err + total,
				 sizeof(err) - 1 - (size_t)total)) > 0)
			total += n;
		err[total] = '\0';
		close(fds[0]);
		CHECK(waitpid(pid, &status, 0) == pid);
		fprintf(stderr, "child (stderr %s) wrote on stderr:\n%s", modes[i], err);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		/* On stderr only when it leads somewhere. */
		CHECK((strstr(err, "priority boosting disabled") != NULL) ==
		      (strcmp(modes[i], "pipe") == 0));
	}
	return 0;
}
