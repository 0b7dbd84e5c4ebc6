/* Boosting upon memory pressure reported by the kernel (issue 6, part 1,
 * PSI).  A child process thrashes the page cache inside a memory cgroup
 * limited to 16 MiB (it reads a 128 MiB file it wrote, over and over, for
 * at most 6 s, or until the test sees pressure mode and stops it with
 * SIGUSR1), which makes the kernel account memory stalls in
 * /proc/pressure/memory.  The library, configured with pressure_psi = 1
 * (1 % stall share) and no backlog at all, must enter pressure mode while
 * the child thrashes and leave it after the child stops.  No mock: the
 * real kernel's PSI.  Needs root and a memory cgroup (v2 with the memory
 * controller, or v1's memory hierarchy); exit 77 (skip) without. */
#include "tests/boost/rt.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "rcuboost.h"

static char cg[256], limit_file[300], procs_file[300], data_file[256];
static volatile sig_atomic_t thrash_stop;

/* The child's SIGUSR1: pressure mode was seen, the thrash has done its
 * part (no SA_RESTART: a read in progress returns early). */
static void on_stop(int sig)
{
	(void)sig;
	thrash_stop = 1;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* A memory-limited cgroup: v1 memory hierarchy, or the v2 root with the
 * memory controller enabled for its children.  false if neither. */
static bool make_cgroup(void)
{
	char buf[512];

	if (access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0) {
		snprintf(cg, sizeof(cg), "/sys/fs/cgroup/memory/rcbtest-psi-%d", (int)getpid());
		snprintf(limit_file, sizeof(limit_file), "%s/memory.limit_in_bytes", cg);
	} else if (read_str("/sys/fs/cgroup/cgroup.controllers", buf, sizeof(buf)) == 0 &&
		   strstr(buf, "memory")) {
		write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
		snprintf(cg, sizeof(cg), "/sys/fs/cgroup/rcbtest-psi-%d", (int)getpid());
		snprintf(limit_file, sizeof(limit_file), "%s/memory.max", cg);
	} else {
		return false;
	}
	snprintf(procs_file, sizeof(procs_file), "%s/cgroup.procs", cg);
	if (mkdir(cg, 0755) != 0)
		return false;
	if (write_str(limit_file, "16777216") != 0) {
		rmdir(cg);
		return false;
	}
	return true;
}

/* The child: into the cgroup, write the file, read it until 6 s passed
 * or SIGUSR1 came. */
static void thrash(void)
{
	static char block[1 << 16];
	double end;
	int fd;

	char pid[32];

	alarm(20);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	CHECK(write_str(procs_file, pid) == 0);
	fd = open(data_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (char)(i * 7);
	/* Pressure may come while the file is written already: a write
	 * that SIGUSR1 cut short ends the thrash there. */
	for (int i = 0; i < 128 * 16 && !thrash_stop; i++) {
		ssize_t n = write(fd, block, sizeof(block));

		CHECK(n == (ssize_t)sizeof(block) || thrash_stop);
	}
	end = rt_now() + 6;
	while (!thrash_stop && rt_now() < end) {
		CHECK(lseek(fd, 0, SEEK_SET) == 0);
		while (!thrash_stop && rt_now() < end &&
		       read(fd, block, sizeof(block)) > 0)
			;
	}
	close(fd);
	_exit(0);
}

int main(void)
{
	struct rcb_config cfg = { .boost = 1, .pressure_psi = 1 };
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct sigaction sa = { .sa_handler = on_stop };
	double t0, t_enter = -1, t_leave = -1;
	pid_t child;
	int status;

	rt_require();
	rt_watchdog(60);
	if (!make_cgroup()) {
		fprintf(stderr, "skip: no memory cgroup to limit (needs root and a "
			"cgroup v1 memory hierarchy or the v2 memory controller)\n");
		return 77;
	}
	snprintf(data_file, sizeof(data_file), "/var/tmp/rcbtest-psi-%d.bin", (int)getpid());
	CHECK(rcb_init(&cfg) == 0);
	rcb_boost_stats(&s);
	CHECK(s.pressure_entries == 0 && !s.pressure_active);
	/* Set before the fork, so that the child has it from its start. */
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0)
		thrash();
	t0 = rt_now();
	while (rt_now() - t0 < 10) {
		rcb_boost_stats(&s);
		if (t_enter < 0 && s.pressure_active) {
			t_enter = rt_now() - t0;
			/* Entered while the child thrashes: what is left to
			 * see is the leaving, once it stopped. */
			CHECK(kill(child, SIGUSR1) == 0);
		}
		if (waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			break;
		}
		usleep(5000);
	}
	if (child)
		CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	t0 = rt_now();
	while (rt_now() - t0 < 5) {
		rcb_boost_stats(&s);
		if (!s.pressure_active) {
			t_leave = rt_now() - t0;
			break;
		}
		usleep(5000);
	}
	unlink(data_file);
	rmdir(cg);
	printf("page-cache thrash in a 16 MiB cgroup: pressure mode entered %.2f s "
	       "after it began, left %.2f s after it ended; entries %ld\n",
	       t_enter, t_leave, s.pressure_entries);
	CHECK(t_enter >= 0);
	CHECK(s.pressure_entries >= 1);
	CHECK(t_leave >= 0);
	CHECK(rcb_shutdown() == 0);
	return 0;
}
