/* SPDX-License-Identifier: MIT */
/*
 * Reading /proc task state for the stall detector (stall.c): a thread's
 * stat line, its run time, the numeric entries of a /proc directory.
 *
 * Invariant.  No stdio and no malloc: open/read/getdents64 into stack
 * buffers only.  The stall detector runs with rcb__gp_lock held and must
 * take no lock a reader may hold inside a critical section (stall.c
 * invariant 2): stderr's FILE lock and malloc's arena locks are such
 * locks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/procfs.h"

char rcb__proc_task_state(int tid)
{
	struct task_info ti;

	return rcb__proc_read_task(getpid(), tid, &ti) ? ti.state : 0;
}

long long rcb__thread_cpu_ns(pthread_t t)
{
	struct timespec ts;
	clockid_t c;

	if (pthread_getcpuclockid(t, &c) != 0 || clock_gettime(c, &ts) != 0)
		return -1;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Parse /proc/<pid>/task/<tid>/stat (proc(5) field numbers). */
bool rcb__proc_read_task(int pid, int tid, struct task_info *ti)
{
	char path[64], buf[1024], *open_p, *close_p, *p;
	long f[40];
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (rcb__read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p || close_p[1] != ' ')
		return false;
	memset(ti, 0, sizeof(*ti));
	ti->pid = pid;
	ti->tid = tid;
	snprintf(ti->comm, sizeof(ti->comm), "%.*s",
		 (int)(close_p - open_p - 1), open_p + 1);
	ti->state = close_p[2];
	/* Tokens after the state: field k is f[k - 4]. */
	p = close_p + 3;
	while (n < 40 && *p) {
		char *end;

		while (*p == ' ')
			p++;
		f[n] = strtol(p, &end, 10);
		if (end == p)
			break;
		n++;
		p = end;
	}
	if (n < 38)
		return false;
	ti->kprio = f[18 - 4];
	ti->nice = (int)f[19 - 4];
	ti->cpu = (int)f[39 - 4];
	ti->rt_prio = (int)f[40 - 4];
	ti->policy = (int)f[41 - 4];
	return true;
}

/* Time on CPU in ns (/proc/.../schedstat), or -1. */
long long rcb__proc_run_ns(int tid)
{
	char path[64], buf[128];

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	if (rcb__read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

struct dirent64_k {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Call @fn(@arg, number) for each numeric entry of directory @path,
 * at most *@budget times in all.
 */
void rcb__proc_for_each_number(const char *path, int *budget,
			       void (*fn)(void *arg, int num), void *arg)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return;
	while (*budget > 0 &&
	       (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n && *budget > 0;) {
			struct dirent64_k *d = (struct dirent64_k *)(buf + off);
			char *end;
			long v = strtol(d->d_name, &end, 10);

			off += d->d_reclen;
			if (end == d->d_name || *end || v <= 0)
				continue;
			(*budget)--;
			fn(arg, (int)v);
		}
	}
	close(fd);
}
