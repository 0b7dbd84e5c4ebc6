/* SPDX-License-Identifier: MIT */
/*
 * The keeper (RCUBOOST_KEEPER=1): priority boosting for a daemon that
 * drops CAP_SYS_NICE and then forks (BIND 9.20's named in its default
 * daemon mode).
 *
 * Capabilities are per thread, and fork() copies only the forking
 * thread: once that thread has dropped CAP_SYS_NICE, no thread of the
 * child holds it or can get it back (short of execve() of a privileged
 * file), and the parent's boosters, which kept it (libthread.c), are
 * not copied.  The child's boosters are refused real-time priority.
 * Two ways out were weighed:
 *  - RLIMIT_RTPRIO raised to the booster's priority while the process
 *    is privileged: the child's threads could then take real-time
 *    priority, and set it on threads of their own user, without the
 *    capability.  But raising the hard limit needs CAP_SYS_RESOURCE,
 *    which Docker's default set lacks (so does the machine these tests
 *    run on), and the limit lets every thread of the process, and every
 *    program it executes, take real-time priority for good: a widening
 *    the daemon did not ask for.  An administrator who wants it sets it
 *    (systemd's LimitRTPRIO=), and the boosters then work without any
 *    of this (rcuboost(3), PERMISSIONS).
 *  - A keeper: a small process forked at the library's first
 *    initialisation, while the initialising thread still holds
 *    CAP_SYS_NICE, that keeps that capability alone and applies
 *    sched_setattr(2), on request, to threads of the processes holding
 *    a door to it (the initialiser and its fork() children).  What a
 *    booster is refused with EPERM it asks the keeper: its own
 *    real-time priority, a reader's boost (rcb__sched_set()), a pi
 *    helper's level.  It holds nothing the boosters did not hold, and
 *    grants nothing a booster could not have done: scheduling changes
 *    of the asking process's own threads, at most to the booster's
 *    priority.
 * The keeper, then; opt-in, because a library that forks a process
 * behind its program's back surprises (a second process under the
 * program's command line in ps(1), one its supervisor did not start).
 *
 * Channels.  The door is a SOCK_SEQPACKET socket pair made at the
 * start; the process keeps one end (close-on-exec, inherited by fork()
 * children), the keeper the other.  Replies cannot come through the
 * door: a parent and its children share it, and one would read the
 * other's answer.  So each process sends the keeper, through the door,
 * one end of a pair of its own (SCM_RIGHTS), its channel, and asks and
 * is answered there.  The keeper learns who made a channel from
 * SO_PEERCRED (the process that called socketpair(2), recorded by the
 * kernel) and changes only that process's threads: tgkill(pid, tid, 0)
 * fails with ESRCH for a thread of any other process.
 *
 * Lifetime.  The keeper is the grandchild of the initialising thread (a
 * clone child that sends no SIGCHLD forks it and exits at once, reaped
 * here with __WCLONE): it belongs to init (or the nearest subreaper),
 * and the program's waitpid(-1) never sees it or its parent.  It leaves
 * the session (setsid()), so that a terminal's hangup does not end it
 * with the parent it outlives, and exits when no process holds the
 * door or a channel any more: the daemon's last process exited or
 * executed another program.  It runs SCHED_RR at the booster's
 * priority, on the library threads' CPUs: a booster waits for its
 * answer, and must not wait behind the very hog its boost is to beat.
 *
 * Invariants.
 *  1. The keeper holds CAP_SYS_NICE and no other capability, cannot gain
 *     one (no_new_privs), is not dumpable, and holds no file descriptor
 *     but the door and the channels.
 *  2. It changes only threads of the process that made the channel a
 *     request came on, to SCHED_OTHER, SCHED_BATCH or SCHED_IDLE, or to
 *     SCHED_FIFO or SCHED_RR at most at its cap (the booster priority
 *     in force when it started), with no flag but
 *     SCHED_FLAG_RESET_ON_FORK.  The one gap: a thread that exits between
 *     the check and the change, its ID taken meanwhile by a thread of
 *     another process; the boosters' own changes by thread ID share it,
 *     and the cap bounds it.
 *  3. A process asks only on a channel it made itself: the fork() child
 *     handler forgets the parent's (rcb__keeper_after_fork_child()).
 *  4. A reply echoes its request's sequence number; one with another
 *     number (the answer to a request that timed out) is dropped.  A
 *     request waits at most KEEPER_WAIT_MS; one at a time per process
 *     (keeper_lock).
 *  5. Before each use the process checks that its descriptors are still
 *     the sockets it made (same inode): a daemon that closes every
 *     descriptor after fork() and opens others loses the keeper, but
 *     never gets a request written into one of its own files.
 *  6. The keeper, the child of a multi-threaded process, makes only
 *     async-signal-safe calls and never returns into the library.
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

/* A descriptor of ours, known by its inode (invariant 5). */
struct keeper_fd {
	int fd;
	dev_t dev;
	ino_t ino;
};

static pthread_mutex_t keeper_lock = PTHREAD_MUTEX_INITIALIZER;
static struct keeper_fd door = { .fd = -1 }; /* under keeper_lock */
static struct keeper_fd chan = { .fd = -1 }; /* under keeper_lock */
static uint32_t keeper_seq;                   /* under keeper_lock */
/* A keeper serves this process: set once it said it runs, cleared for
 * good when it is out of reach. */
static _Atomic bool keeper_on;
static _Atomic bool keeper_lost_said;
static _Atomic bool keeper_asked; /* RCUBOOST_KEEPER=1 */
_Atomic long rcb__keeper_requests;

/* ---- the process side ------------------------------------------------ */

static void fd_remember(struct keeper_fd *k, int fd)
{
	struct stat st;

	k->fd = -1;
	if (fstat(fd, &st) != 0)
		return;
	k->fd = fd;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
}

/* @k is still the socket we made (invariant 5). */
static bool fd_ours(const struct keeper_fd *k)
{
	struct stat st;

	return k->fd >= 0 && fstat(k->fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == k->dev && st.st_ino == k->ino;
}

static void fd_forget(struct keeper_fd *k)
{
	if (fd_ours(k))
		close(k->fd);
	k->fd = -1;
}

/* The keeper cannot be reached from this process any more: said once;
 * boosting then needs the process's own permission.  Context:
 * keeper_lock held. */
static void keeper_lost(const char *why)
{
	fd_forget(&chan);
	fd_forget(&door);
	rcb_store_relaxed(&keeper_on, false);
	if (!rcb_xchg_relaxed(&keeper_lost_said, true))
		rcb__warn("rcuboost: the keeper process is out of reach (%s): priority "
			  "boosting in process %d now needs its own permission for "
			  "real-time priority\n",
			  why, (int)getpid());
}

/* This process's channel to the keeper, made and sent through the door
 * if it has none (invariant 3).  Context: keeper_lock held.  0 or
 * -errno. */
static int chan_open(void)
{
	struct keeper_msg m = { .magic = KEEPER_MAGIC, .op = KEEPER_HELLO };
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	int sv[2], err;
	ssize_t r;

	if (fd_ours(&chan))
		return 0;
	chan.fd = -1; /* not ours any more: never closed here */
	if (!fd_ours(&door)) {
		door.fd = -1;
		keeper_lost("the program closed the library's descriptor to it");
		return -EPERM;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	memset(ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&h);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
	/* Never blocks: a keeper that does not read is not waited for. */
	r = sendmsg(door.fd, &h, MSG_NOSIGNAL | MSG_DONTWAIT);
	err = errno;
	close(sv[1]);
	if (r != (ssize_t)sizeof(m)) {
		close(sv[0]);
		if (r < 0 && err == EAGAIN)
			return -EAGAIN;
		keeper_lost("it has exited");
		return -EPERM;
	}
	fd_remember(&chan, sv[0]);
	return chan.fd >= 0 ? 0 : -EBADF;
}

static uint64_t ms_now(void)
{
	return rcb__now_ns() / 1000000;
}

/* Ask the keeper to set thread @tid's attributes to @a.  Context:
 * keeper_lock held.  0 or -errno. */
static int keeper_ask(pid_t tid, const struct rcb__sched_attr *a)
{
	struct keeper_msg q = { .magic = KEEPER_MAGIC, .op = KEEPER_SET,
				.tid = tid, .attr = *a };
	struct keeper_msg r;
	uint64_t end;
	int err;

	if (!rcb_load_relaxed(&keeper_on))
		return -EPERM;
	if ((err = chan_open()) != 0)
		return err;
	q.seq = ++keeper_seq;
	if (send(chan.fd, &q, sizeof(q), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof(q)) {
		if (errno == EAGAIN)
			return -EAGAIN;
		keeper_lost("it has exited");
		return -EPERM;
	}
	end = ms_now() + KEEPER_WAIT_MS;
	for (;;) {
		struct pollfd p = { .fd = chan.fd, .events = POLLIN };
		uint64_t now = ms_now();
		ssize_t n;

		if (now >= end)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue; /* EINTR, or the time is up: checked above */
		n = recv(chan.fd, &r, sizeof(r), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			keeper_lost("it has exited");
			return -EPERM;
		}
		/* Invariant 4: the answer to an earlier, timed-out request
		 * is dropped. */
		if (n == (ssize_t)sizeof(r) && r.magic == KEEPER_MAGIC &&
		    r.op == KEEPER_REPLY && r.seq == q.seq)
			return r.result;
	}
}

int rcb__keeper_sched_set(pid_t tid, const struct rcb__sched_attr *a)
{
	int err;

	if (!rcb_load_relaxed(&keeper_on))
		return -EPERM;
	pthread_mutex_lock(&keeper_lock);
	err = keeper_ask(tid, a);
	pthread_mutex_unlock(&keeper_lock);
	if (!err)
		rcb_add_relaxed(&rcb__keeper_requests, 1);
	return err;
}

int rcb__keeper_set_rt(pid_t tid, int policy, int prio)
{
	struct rcb__sched_attr a = { .size = sizeof(a),
				     .sched_policy = (uint32_t)policy,
				     .sched_priority = (uint32_t)prio };

	return rcb__keeper_sched_set(tid, &a);
}

bool rcb__keeper_available(void)
{
	return rcb_load_relaxed(&keeper_on);
}

bool rcb__keeper_asked(void)
{
	return rcb_load_relaxed(&keeper_asked);
}

/* The calling thread holds CAP_SYS_NICE in its permitted set. */
static bool has_nice(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capget, &hdr, d) == 0 &&
	       (d[CAP_SYS_NICE / 32].permitted & (1u << (CAP_SYS_NICE % 32)));
}

/* Fork the keeper (see Lifetime above) and wait for its word that it
 * runs.  0 or -errno. */
static int keeper_spawn(void)
{
	struct keeper_msg ready;
	struct pollfd p;
	cpu_set_t cpus;
	bool have_cpus = rcb__lib_thread_cpus(&cpus);
	int d[2], c[2], status, cap = rcb__settings.boost_prio;
	pid_t self = getpid();
	ssize_t n;
	long pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d) != 0)
		return -errno;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c) != 0) {
		status = -errno;
		close(d[0]);
		close(d[1]);
		return status;
	}
	/* A clone child without exit signal (exit_signal 0): no SIGCHLD,
	 * invisible to the program's waitpid(-1). */
	pid = syscall(SYS_clone, 0ul, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		long k = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL,
				 NULL, NULL);

		if (k == 0)
			rcb__keeper_main(d[1], c[1], self, cap,
					 have_cpus ? &cpus : NULL);
		_exit(k < 0);
	}
	status = pid < 0 ? -errno : 0;
	if (pid > 0)
		while (waitpid((pid_t)pid, NULL, __WCLONE) < 0 &&
		       errno == EINTR)
			;
	close(d[1]);
	close(c[1]);
	if (pid > 0) {
		/* Our end of the first channel hangs up if no keeper
		 * holds the other end. */
		p = (struct pollfd){ .fd = c[0], .events = POLLIN };
		for (uint64_t end = ms_now() + KEEPER_START_MS;;) {
			uint64_t now = ms_now();

			if (now >= end) {
				status = -ETIMEDOUT;
				break;
			}
			if (poll(&p, 1, (int)(end - now)) < 0 && errno == EINTR)
				continue;
			n = recv(c[0], &ready, sizeof(ready), MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n != (ssize_t)sizeof(ready) ||
			    ready.magic != KEEPER_MAGIC ||
			    ready.op != KEEPER_READY)
				status = -ECHILD;
			else
				status = ready.result;
			break;
		}
	}
	if (status) {
		close(d[0]);
		close(c[0]);
		return status;
	}
	pthread_mutex_lock(&keeper_lock);
	fd_remember(&door, d[0]);
	fd_remember(&chan, c[0]);
	pthread_mutex_unlock(&keeper_lock);
	rcb_store_relaxed(&keeper_on, door.fd >= 0);
	return 0;
}

/*
 * RCUBOOST_KEEPER=1: start the keeper.  Context: the first
 * initialisation, under its lock, settings committed.
 */
void rcb__keeper_start(void)
{
	const char *v = getenv("RCUBOOST_KEEPER");
	int on, err;

	if (!v)
		return;
	on = rcb__env_flag(v);
	if (on < 0) {
		fprintf(stderr,
			"rcuboost: environment variable RCUBOOST_KEEPER=\"%s\" is invalid: "
			"expected 0 or 1; no keeper started\n", v);
		return;
	}
	if (!on || !rcb__settings.boost || rcb_load_relaxed(&keeper_on))
		return;
	rcb_store_relaxed(&keeper_asked, true);
#if defined(__SANITIZE_THREAD__)
	/* A fork of a multi-threaded process that goes on running code
	 * there: not under ThreadSanitizer (tests/unit/test_fork.c). */
	fprintf(stderr, "rcuboost: RCUBOOST_KEEPER=1: no keeper under ThreadSanitizer\n");
	return;
#endif
	if (!has_nice()) {
		rcb__warn("rcuboost: RCUBOOST_KEEPER=1: no keeper started: the thread that "
			  "initialised the library has no CAP_SYS_NICE to give it (initialise "
			  "before the privilege drop: rcb_init(), or RCUBOOST_EARLY=1)\n");
		return;
	}
	if ((err = keeper_spawn()) != 0)
		rcb__warn("rcuboost: RCUBOOST_KEEPER=1: cannot start the keeper process: %s\n",
			  strerror(-err));
}

/* fork(): the child has its parent's channel, which answers the parent
 * (invariant 3), and a lock another thread may have held.  Context:
 * fork() child handler. */
void rcb__keeper_after_fork_child(void)
{
	pthread_mutex_init(&keeper_lock, NULL);
	fd_forget(&chan);
}
