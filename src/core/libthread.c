/* SPDX-License-Identifier: MIT */
/*
 * The library's own threads (boosters, pi helpers, the callback
 * thread): where they run, and the privilege the boosters keep when the
 * application drops its own.
 *
 * Placement.  rcb__settings.thread_cpus (RCUBOOST_CPUS) is applied at
 * pthread_create() through the thread attributes, so a thread never
 * runs, even for its first instructions, on a CPU outside the set: a
 * CPU isolated for real-time work sees no rcuboost thread at all.  The
 * kernel refuses (EINVAL) a set with no CPU the process may use (its
 * cpuset, the CPUs online).  rcb_init() refuses such a set, naming it
 * (rcb__lib_thread_cpus_allowed()); a set that loses its last usable CPU
 * later (a cpuset change, CPU hot-unplug) must not stop a thread from
 * starting, since callbacks, barriers and polled cookies wait for one:
 * the thread then starts where it would without the setting, after one
 * warning (rcb__lib_thread_spawn()).  Threads already running are moved
 * by the kernel.
 *
 * Privilege drop.  Linux capabilities are per thread, and a booster
 * needs CAP_SYS_NICE (or RLIMIT_RTPRIO) to raise other threads to
 * real-time priority.  A daemon drops its privileges in one of two ways:
 *  - capset(2) (libcap-ng's capng_apply(), libcap's cap_set_proc()
 *    without libpsx): the calling thread only.  A booster started
 *    earlier keeps its capabilities; nothing to do.
 *  - setuid(2) and friends through glibc: the change is applied to every
 *    thread of the process (glibc's "setxid" broadcast: each thread makes
 *    the system call itself, and glibc aborts if the threads' results
 *    differ, so a library thread must never refuse an ID change its
 *    caller may make).  The kernel clears a thread's permitted and
 *    effective sets when its user IDs all leave 0, unless the thread set
 *    PR_SET_KEEPCAPS, which keeps the permitted set; the effective set
 *    is cleared whenever the effective user ID leaves 0.
 * So each booster sets PR_SET_KEEPCAPS on itself when it starts
 * (rcb__lib_thread_trim_caps(); the flag is per thread, the
 * application's threads are unaffected), and before each pass that may
 * boost it raises CAP_SYS_NICE back into its own effective set if it is
 * still permitted (rcb__lib_thread_caps_refresh(), one capget(2)).
 *
 * Only what it needs (a booster started as root once kept
 * every capability, all of them effective while the process stayed
 * root, when the rest of the daemon had dropped to one).  A booster
 * keeps CAP_SYS_NICE, which it uses, and CAP_SETUID and CAP_SETGID, and
 * those two only while the process's initial thread still holds them
 * (permitted): glibc's broadcast makes the booster repeat every ID
 * change the application makes, and aborts the process if the booster
 * is refused one its caller was allowed (with CAP_SETUID dropped, a
 * booster's setuid(65534) from root fails, and the application's
 * setuid() kills it).  Mirroring the initial thread is enough: two
 * application threads that differ abort the process at their next ID
 * change anyway, whatever the booster holds; and a thread's permitted
 * set never grows without execve(2), so once the initial thread has lost
 * them no thread created later can have them, and the booster drops
 * them for good.  The effective set is left as the kernel keeps it for
 * every thread (cleared when the effective user ID leaves 0, restored
 * from the permitted set when it comes back), but for CAP_SYS_NICE,
 * raised whenever permitted.  Nothing is inheritable.  Cost: a second
 * capget(2) per pass (of the initial thread), only while the booster
 * still holds CAP_SETUID or CAP_SETGID.
 *
 * Invariant: only the calling thread's own capabilities are ever
 * changed here (capset on pid 0); another thread's (the initial one's)
 * are only read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"

_Atomic long rcb__caps_raised;

/*
 * Placement and scheduling of a library thread, whichever application
 * thread happens to start it.  pthread_create() with default attributes
 * copies the creator's CPU affinity, policy and priority, and the
 * library starts lazily: the first rcb_synchronize() or rcb_call() of a
 * SCHED_FIFO thread pinned to one CPU would make the callback thread a
 * SCHED_FIFO thread on that CPU and pin every booster there (the
 * "rcb_init(NULL) anomaly": the same program ran at different speeds
 * depending on which thread initialised the library).  So the CPU set
 * is RCUBOOST_CPUS if given, else the current one of the process's
 * initial thread, and the policy is SCHED_OTHER until the thread sets
 * its own.  The initial thread, not the set the process was started
 * with: a program that confines its housekeeping by pinning main()
 * before it starts threads (rcuboost-demo does) confines the library's
 * threads too.  A program whose main() runs a real-time loop pinned to
 * an isolated CPU sets RCUBOOST_CPUS (rcuboost(3) says so).  The nice
 * value is not a thread attribute: it is still the creator's.
 *
 * Every asynchronous signal is blocked in the library's threads (as
 * liburcu blocks them in its call_rcu threads): a signal sent to the
 * process, such as an interval timer's SIGALRM, goes to one of the
 * application's threads, never to a booster that would run the
 * application's handler at real-time priority, or in the middle of a
 * grace period.  Not the faults a thread raises itself (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGTRAP, SIGSYS): blocked, the kernel would kill the
 * process without the application's handler (or a sanitizer's report)
 * for a fault in a callback.  glibc 2.32 or later (the attribute); with
 * an older C library the threads take signals as their creator does.
 */
int rcb__lib_thread_attr(pthread_attr_t *attr)
{
	struct sched_param sp = { .sched_priority = 0 };
	sigset_t all;
	cpu_set_t set;
	int err;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSYS);
	if ((err = pthread_attr_setinheritsched(attr,
						PTHREAD_EXPLICIT_SCHED)) ||
	    (err = pthread_attr_setschedpolicy(attr, SCHED_OTHER)) ||
	    (err = pthread_attr_setschedparam(attr, &sp)))
		return err;
#if defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 32)
	if ((err = pthread_attr_setsigmask_np(attr, &all)))
		return err;
#endif
#endif
	if (!rcb__lib_thread_cpus(&set))
		/* more than CPU_SETSIZE CPUs: leave it to the kernel */
		return 0;
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

bool rcb__lib_thread_cpus(cpu_set_t *set)
{
	unsigned long long mask = rcb__settings.thread_cpus;

	CPU_ZERO(set);
	if (!mask)
		return sched_getaffinity(getpid(), sizeof(*set), set) == 0;
	for (int cpu = 0; cpu < 64; cpu++)
		if (mask & (1ull << cpu))
			CPU_SET(cpu, set);
	return true;
}

int rcb__lib_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err;

	if ((err = pthread_attr_init(&attr)))
		return err;
	err = rcb__lib_thread_attr(&attr);
	if (!err)
		err = rcb__lib_thread_spawn(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

void rcb__cpulist(unsigned long long mask, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int lo = 0; lo < 64 && at < len; lo++) {
		int hi = lo;

		if (!(mask >> lo & 1))
			continue;
		while (hi < 63 && (mask >> (hi + 1) & 1))
			hi++;
		at += (size_t)snprintf(buf + at, len - at,
				       hi > lo ? "%s%d-%d" : "%s%d",
				       at ? "," : "", lo, hi);
		lo = hi;
	}
}

/*
 * rcb__settings.thread_cpus has no CPU left that the process may use:
 * say so once, and put the initial thread's CPUs (the placement without
 * the setting) in @attr.  Each later start tries the setting first
 * (the CPUs may come back).  False if the initial thread's CPUs are
 * unknown: the caller then leaves the placement to the kernel.
 */
static bool cpus_lost(pthread_attr_t *attr)
{
	static _Atomic bool told;
	char want[192], now[192];
	unsigned long long m = 0;
	cpu_set_t set;

	if (sched_getaffinity(getpid(), sizeof(set), &set) != 0)
		return false;
	if (!rcb_xchg_relaxed(&told, true)) {
		for (int cpu = 0; cpu < 64; cpu++)
			if (CPU_ISSET(cpu, &set))
				m |= 1ull << cpu;
		rcb__cpulist(rcb__settings.thread_cpus, want, sizeof(want));
		rcb__cpulist(m, now, sizeof(now));
		fprintf(stderr,
			"rcuboost: the library's threads may not run on CPUs %s any more "
			"(RCUBOOST_CPUS or struct rcb_config thread_cpus; a cpuset change or CPU "
			"hot-unplug since rcb_init()): while they may not, threads start on "
			"the CPUs of the process's initial thread (%s)\n",
			want, now[0] ? now : "none below 64");
	}
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set) == 0;
}

int rcb__lib_thread_spawn(pthread_t *thread, pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	static const cpu_set_t unused;
	int err = pthread_create(thread, attr, fn, arg), policy;

	/* The CPUs of the setting were lost since rcb_init() checked
	 * them: a thread that does not start loses work. */
	if (err == EINVAL && rcb__settings.thread_cpus && cpus_lost(attr))
		err = pthread_create(thread, attr, fn, arg);
	/* The initial thread's CPUs may not all be allowed to the
	 * creator (threaded cgroups): then the kernel places it. */
	if (err == EINVAL &&
	    /* size 0: glibc drops the attribute's CPU set */
	    pthread_attr_setaffinity_np(attr, 0, &unused) == 0)
		err = pthread_create(thread, attr, fn, arg);
	/* An unprivileged SCHED_IDLE creator (or one niced past its
	 * RLIMIT_NICE) may not give a thread SCHED_OTHER: then the thread
	 * keeps the creator's policy rather than not starting at all. */
	if (err == EPERM && pthread_attr_getschedpolicy(attr, &policy) == 0 &&
	    policy == SCHED_OTHER &&
	    pthread_attr_setinheritsched(attr, PTHREAD_INHERIT_SCHED) == 0)
		err = pthread_create(thread, attr, fn, arg);
	return err;
}

struct cpus_probe {
	unsigned long long mask;
	int err;
};

static void *cpus_probe_main(void *arg)
{
	struct cpus_probe *p = arg;
	cpu_set_t set;

	/* Every CPU: the kernel keeps those of the process's cpuset, and
	 * reads back those of them that are online. */
	memset(&set, 0xff, sizeof(set));
	if (sched_setaffinity(0, sizeof(set), &set) != 0 ||
	    sched_getaffinity(0, sizeof(set), &set) != 0) {
		p->err = errno;
		return NULL;
	}
	for (int cpu = 0; cpu < 64; cpu++)
		if (CPU_ISSET(cpu, &set))
			p->mask |= 1ull << cpu;
	return NULL;
}

/*
 * A thread asks: no system call tells another thread's (or the
 * process's) cpuset, and the caller's own mask may be narrower than the
 * cpuset (a main() pinned to an isolated CPU, the very case
 * RCUBOOST_CPUS is for), and must not change.  The probe starts where
 * its creator runs, at SCHED_OTHER with signals blocked, and is joined
 * before the call returns.
 */
int rcb__lib_thread_cpus_allowed(unsigned long long *mask)
{
	static const cpu_set_t unused;
	struct cpus_probe p = { 0, 0 };
	pthread_attr_t attr;
	pthread_t t;
	int err;

	if ((err = pthread_attr_init(&attr)))
		return -err;
	err = rcb__lib_thread_attr(&attr);
	/* Not the settings' CPUs, which are what is being checked. */
	if (!err)
		err = pthread_attr_setaffinity_np(&attr, 0, &unused);
	if (!err)
		err = rcb__lib_thread_spawn(&t, &attr, cpus_probe_main, &p);
	pthread_attr_destroy(&attr);
	if (!err)
		err = rcb__lib_thread_join(t);
	if (!err)
		err = p.err;
	if (err)
		return -err;
	*mask = p.mask;
	return 0;
}

/*
 * pthread_join() is a cancellation point, and the library's stoppers
 * (rcb_shutdown(), rcb_worker_destroy(), the booster stop) hold a lock
 * across it: an application thread cancelled there left the lock held,
 * and every later rcb_call() that had to start a thread hung on it.  A
 * cancel that arrives meanwhile stays pending and acts at the caller's
 * next cancellation point, after the library's locks are released.
 */
int rcb__lib_thread_join(pthread_t thread)
{
	int old, err;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	err = pthread_join(thread, NULL);
	pthread_setcancelstate(old, NULL);
	return err;
}

#define CAP_MASK(cap) (1u << ((cap) % 32))
/* Every capability kept is in the first word of the sets. */
_Static_assert(CAP_SYS_NICE < 32 && CAP_SETUID < 32 && CAP_SETGID < 32,
	       "the capabilities a booster keeps are in word 0");
#define NICE_CAP CAP_MASK(CAP_SYS_NICE)
#define ID_CAPS (CAP_MASK(CAP_SETUID) | CAP_MASK(CAP_SETGID))

/* Thread @tid's capability sets (0: the caller's); 0 or -1. */
static int caps_get(pid_t tid, struct __user_cap_data_struct *d)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = tid,
	};

	memset(d, 0, sizeof(*d) * _LINUX_CAPABILITY_U32S_3);
	return (int)syscall(SYS_capget, &hdr, d);
}

/*
 * Trim the calling booster's sets to what it needs (see the top of the
 * file) and raise CAP_SYS_NICE into its effective set if permitted.
 * Returns whether CAP_SYS_NICE is effective on return.
 */
static bool caps_trim(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	struct __user_cap_data_struct lead[_LINUX_CAPABILITY_U32S_3];
	uint32_t prm, eff;
	bool raised, changed = false;

	if (caps_get(0, d) != 0)
		return false;
	prm = d[0].permitted & (NICE_CAP | ID_CAPS);
	/* Unknown (the initial thread gone, or /proc hidden from us) is
	 * not "dropped": keep them, as before. */
	if ((prm & ID_CAPS) && caps_get(getpid(), lead) == 0)
		prm &= ~(ID_CAPS & ~lead[0].permitted);
	eff = (d[0].effective & prm) | (prm & NICE_CAP);
	raised = (eff & NICE_CAP) && !(d[0].effective & NICE_CAP);
	for (int w = 0; w < _LINUX_CAPABILITY_U32S_3; w++) {
		uint32_t p = w ? 0 : prm, e = w ? 0 : eff;

		changed |= d[w].permitted != p || d[w].effective != e ||
			   d[w].inheritable != 0;
		d[w].permitted = p;
		d[w].effective = e;
		d[w].inheritable = 0;
	}
	if (changed && syscall(SYS_capset, &hdr, d) != 0)
		return false;
	if (raised)
		rcb_add_relaxed(&rcb__caps_raised, 1);
	return (eff & NICE_CAP) != 0;
}

void rcb__lib_thread_trim_caps(void)
{
	/* Fails only on kernels without the flag: then a setuid() takes
	 * the booster's capabilities as it takes everyone's. */
	(void)prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
	(void)caps_trim();
}

bool rcb__lib_thread_caps_refresh(void)
{
	return caps_trim();
}

bool rcb__lib_thread_may_boost(int prio)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	struct rlimit rl;

	memset(d, 0, sizeof(d));
	/* Unknown is not "no": a booster that is refused says so itself. */
	if (syscall(SYS_capget, &hdr, d) != 0 ||
	    (d[CAP_SYS_NICE / 32].permitted & (1u << (CAP_SYS_NICE % 32))))
		return true;
	if (getrlimit(RLIMIT_RTPRIO, &rl) != 0)
		return true;
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)prio;
}
