/* SPDX-License-Identifier: MIT */
/*
 * The keeper process (keeper.c, invariants 1, 2 and 6): forked by the
 * first process that asks for it, it keeps CAP_SYS_NICE and nothing
 * else, and makes the scheduling changes the processes it serves are
 * refused.  Runs no library code but this file's and the C library's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boost/boost.h"
#include "boost/keeper.h"

/* ---- the keeper process (invariants 1, 2, 6) ------------------------ */

/* Close descriptors @first to @last, both >= 0 (close_range(2) since
 * Linux 5.9, else one by one up to the descriptor limit). */
static void close_fds(long first, long last)
{
	struct rlimit rl;

	if (first > last)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned int)first, (unsigned int)last,
		    0) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > 1u << 20)
		rl.rlim_cur = 1u << 20;
	for (long fd = first; fd <= last && fd < (long)rl.rlim_cur; fd++)
		close((int)fd);
}

/* Only CAP_SYS_NICE, permitted and effective; 0 or -errno. */
static int keep_only_nice(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	d[CAP_SYS_NICE / 32].permitted = 1u << (CAP_SYS_NICE % 32);
	d[CAP_SYS_NICE / 32].effective = 1u << (CAP_SYS_NICE % 32);
	return syscall(SYS_capset, &hdr, d) == 0 ? 0 : -errno;
}

/* The keeper's own state: signals, session, name, descriptors,
 * capabilities, priority.  0 or -errno. */
static int keeper_setup(int door_fd, int chan_fd, int cap,
			const cpu_set_t *cpus)
{
	struct rcb__sched_attr rr = { .size = sizeof(rr),
				      .sched_policy = SCHED_RR,
				      .sched_priority = (uint32_t)cap };
	struct sigaction dfl;
	sigset_t none;
	int lo = door_fd < chan_fd ? door_fd : chan_fd;
	int hi = door_fd < chan_fd ? chan_fd : door_fd;
	int err;

	/* The program's handlers are the program's: not here. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setsid();
	(void)prctl(PR_SET_NAME, "rcuboost-keeper", 0, 0, 0);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	close_fds(0, lo - 1L);
	close_fds(lo + 1L, hi - 1L);
	close_fds(hi + 1L, (long)~0u);
	if (cpus)
		(void)sched_setaffinity(0, sizeof(*cpus), cpus);
	if ((err = keep_only_nice()) != 0)
		return err;
	if (syscall(SYS_sched_setattr, 0, &rr, 0) != 0)
		return -errno;
	return 0;
}

/* Apply request @m from the process @owner made its channel in
 * (invariant 2); 0 or -errno. */
static int keeper_apply(const struct keeper_msg *m, pid_t owner, int cap)
{
	struct rcb__sched_attr a = m->attr;
	uint32_t policy = a.sched_policy;

	if (m->tid <= 0)
		return -EINVAL;
	if (a.sched_flags & ~SCHED_FLAG_RESET_ON_FORK_)
		return -EPERM;
	if (policy == SCHED_FIFO || policy == SCHED_RR) {
		if (a.sched_priority < 1 || a.sched_priority > (uint32_t)cap)
			return -EPERM;
	} else if (policy == SCHED_OTHER || policy == SCHED_BATCH ||
		   policy == SCHED_IDLE) {
		if (a.sched_priority != 0)
			return -EINVAL;
	} else {
		return -EPERM;
	}
	/* Signal 0 only checks: ESRCH unless the thread is @owner's. */
	if (syscall(SYS_tgkill, owner, m->tid, 0) != 0 && errno == ESRCH)
		return -ESRCH;
	a.size = sizeof(a);
	return syscall(SYS_sched_setattr, m->tid, &a, 0) == 0 ? 0 : -errno;
}

/* A process sends its channel through the door: take it, with the
 * process that made it, into @fds/@owner (room for KEEPER_CHANNELS
 * after the door); *@n grows if it took a new slot.  Returns false when
 * the door is done (every process end closed). */
static bool keeper_hello(struct pollfd *fds, pid_t *owner, int *n)
{
	char ctl[CMSG_SPACE(4 * sizeof(int))];
	struct keeper_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int got = -1, slot = 0;
	ssize_t r = recvmsg(fds[0].fd, &h, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	/* End of file: never poll it again (a readable end of file would
	 * spin us, at real-time priority). */
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (r < 0)
		return true;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		int nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < nfd; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (got < 0)
				got = fd;
			else
				close(fd); /* one channel per message */
		}
	}
	if (got < 0)
		return true;
	if (r != (ssize_t)sizeof(m) || m.magic != KEEPER_MAGIC ||
	    m.op != KEEPER_HELLO ||
	    getsockopt(got, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		close(got);
		return true;
	}
	for (slot = 1; slot < *n && fds[slot].fd >= 0; slot++)
		;
	if (slot == 1 + KEEPER_CHANNELS) {
		close(got); /* full: that process asks in vain, and says so */
		return true;
	}
	if (slot == *n)
		(*n)++;
	/* revents too: a slot past the old end was never polled, and
	 * keeper_serve() reads it before the next poll(). */
	fds[slot] = (struct pollfd){ .fd = got, .events = POLLIN };
	owner[slot] = cred.pid;
	return true;
}

/* One request on channel @i, answered there. */
static void keeper_request(struct pollfd *fds, const pid_t *owner, int i,
			   int cap)
{
	struct keeper_msg m;
	ssize_t r = recv(fds[i].fd, &m, sizeof(m), MSG_DONTWAIT);

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		close(fds[i].fd); /* that process is gone, or exec'd */
		fds[i].fd = -1;
		return;
	}
	if (r != (ssize_t)sizeof(m) || m.magic != KEEPER_MAGIC ||
	    m.op != KEEPER_SET)
		return;
	m.result = keeper_apply(&m, owner[i], cap);
	m.op = KEEPER_REPLY;
	/* Never blocks on a process that does not read its answers. */
	(void)send(fds[i].fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void keeper_serve(int door_fd, int chan_fd, pid_t creator, int cap)
{
	struct pollfd fds[1 + KEEPER_CHANNELS] = { { .fd = -1 } };
	pid_t owner[1 + KEEPER_CHANNELS] = { 0 };
	int n = 2;

	fds[0] = (struct pollfd){ .fd = door_fd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = chan_fd, .events = POLLIN };
	owner[0] = 0;
	owner[1] = creator;
	for (;;) {
		bool any = false;

		for (int i = 0; i < n; i++)
			any |= fds[i].fd >= 0;
		if (!any)
			return; /* invariant: no process can reach us */
		if (poll(fds, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (fds[0].revents & POLLIN) {
			if (!keeper_hello(fds, owner, &n)) {
				close(fds[0].fd);
				fds[0].fd = -1;
			}
		} else if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			close(fds[0].fd); /* every process end is closed */
			fds[0].fd = -1;
		}
		for (int i = 1; i < n; i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			if (fds[i].revents & POLLIN) {
				keeper_request(fds, owner, i, cap);
			} else {
				close(fds[i].fd);
				fds[i].fd = -1;
			}
		}
	}
}

void rcb__keeper_main(int door_fd, int chan_fd, pid_t creator, int cap,
		      const cpu_set_t *cpus)
{
	struct keeper_msg ready = { .magic = KEEPER_MAGIC, .op = KEEPER_READY };

	ready.result = keeper_setup(door_fd, chan_fd, cap, cpus);
	(void)send(chan_fd, &ready, sizeof(ready), MSG_NOSIGNAL);
	if (ready.result == 0)
		keeper_serve(door_fd, chan_fd, creator, cap);
	_exit(0);
}
