/* SPDX-License-Identifier: MIT */
/*
 * Lifecycle: configuration (struct rcb_config and the environment),
 * lazy and explicit initialisation, shutdown, fork handling, and the
 * library's ways of complaining (misuse reports, RCB_DIE, and the
 * warnings a daemon must not miss: rcb__warn()).
 *
 * Invariants.
 *  1. rcb__settings is written only under init_lock before
 *     rcb__initialized becomes true, and never after, except fields
 *     documented as changeable by a re-init after rcb_shutdown().
 *  2. A failing rcb_init() changes nothing: settings are parsed and
 *     validated into a local copy first, and an explicit rcb_init()
 *     starts the boosters before it marks the library running (and,
 *     the first time, initialised); if they cannot all start, the
 *     previous settings are put back and no library thread is left
 *     (booster.c: booster_start()).  So a failed rcb_init() can be
 *     retried, with the same or another configuration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/hooks.h"

struct rcb__settings rcb__settings;
_Atomic bool rcb__initialized;
_Atomic bool rcb__running;
/* Here, not in early.c: a static library must not pull in early.c's
 * constructor through a reference to it. */
bool rcb__early_start;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
/* rcb_shutdown() between its clearing of rcb__running and the end of its
 * stops; an explicit rcb_init() waits for it on shutdown_done (both
 * under init_lock). */
static bool shutting_down;
static pthread_cond_t shutdown_done = PTHREAD_COND_INITIALIZER;


__attribute__((noreturn, cold)) void rcb__die(const char *file, int line,
					      const char *func,
					      const char *what, int err)
{
	fprintf(stderr, "rcuboost: fatal: %s:%d: %s: %s: %s\n", file, line,
		func, what, strerror(err));
	abort();
}

/* The policy in force; before initialisation, the environment's. */
static enum rcb_misuse_policy misuse_policy(void)
{
	const char *v;

	if (rcb_load_acquire(&rcb__initialized)) /* [INIT-A] */
		return rcb__settings.misuse;
	v = getenv("RCUBOOST_MISUSE");
	if (v && strcmp(v, "abort") == 0)
		return RCB_MISUSE_ABORT;
	if (v && strcmp(v, "warn") == 0)
		return RCB_MISUSE_WARN;
	return RCB_DEFAULT_MISUSE;
}

/*
 * How many times each kind of misuse (its call's name and its format
 * string, both literals) was reported.  A program that repeats one
 * misuse in a loop (rcb_call() after rcb_shutdown(), say) wrote millions
 * of lines; after MISUSE_PRINT_ALL reports of a kind only the powers of
 * two are printed, with the count.  Kinds beyond the table are always
 * printed.
 */
#define MISUSE_KINDS 64
#define MISUSE_PRINT_ALL 100
static struct {
	const char *_Atomic fmt;
	const char *_Atomic call;
	_Atomic unsigned long n;
} misuse_kinds[MISUSE_KINDS];

/* The number of this report of the kind (@call, @fmt) (1 for the first),
 * or 0 when the table is full.  A slot is claimed by its format, then
 * named by its call; a reporter that finds a slot not yet named (a racing
 * claimer, or the code its signal handler interrupted) goes on to the
 * next slot rather than wait: at worst one kind is counted in two. */
static unsigned long misuse_count(const char *call, const char *fmt)
{
	for (int i = 0; i < MISUSE_KINDS; i++) {
		/* Relaxed: only the pointers' values are compared; nothing
		 * else is published through the slot. */
		const char *k = rcb_load_relaxed(&misuse_kinds[i].fmt), *c;

		if (!k && rcb_cmpxchg_relaxed(&misuse_kinds[i].fmt, &k, fmt)) {
			rcb_store_relaxed(&misuse_kinds[i].call, call);
			return rcb_add_relaxed(&misuse_kinds[i].n, 1) + 1;
		}
		if (k != fmt)
			continue;
		c = rcb_load_relaxed(&misuse_kinds[i].call);
		if (c == call)
			return rcb_add_relaxed(&misuse_kinds[i].n, 1) + 1;
	}
	return 0;
}

__thread const char *rcb__misuse_as;

void rcb__write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The fork() child handler is starting boosters (fork_child()). */
static _Atomic bool in_fork_child;

/* Standard error leads nowhere: closed, or the null device (a daemon
 * points it there once detached: named, daemon(3)). */
static bool stderr_gone(void)
{
	struct stat st;

	if (fstat(STDERR_FILENO, &st) != 0)
		return true;
	/* Linux's null device is always character device 1:3; comparing
	 * with it needs no path, which a chroot may lack. */
	return S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/*
 * A warning that priority boosting is or will be off (a daemon that
 * dropped its privileges and forked was once told only on a stderr it
 * had pointed at /dev/null).  Written on stderr as every
 * message of the library is, and, only when stderr leads nowhere, also
 * to syslog(3) at LOG_DAEMON | LOG_WARNING, under the program's own
 * openlog() identity if it called it.  Not always: every unprivileged
 * program using the library says boosting is off, and the system log
 * is for what would otherwise be lost.  Like syslog(3) itself, the
 * first message opens a connection to the system logger that stays
 * open (close-on-exec).  Not while the fork() child handler starts the
 * child's boosters: glibc does not reset syslog(3)'s lock in the child,
 * and a thread of the parent may have held it.  Context: any thread,
 * not a signal handler; @fmt's text ends with a newline.
 */
void rcb__warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int len, saved_errno = errno;

	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if (len >= (int)sizeof(msg)) {
		len = (int)sizeof(msg) - 1;
		msg[len - 1] = '\n';
	}
	rcb__write_all(STDERR_FILENO, msg, (size_t)len);
	if (!rcb_load_relaxed(&in_fork_child) && stderr_gone()) {
		if (len > 0 && msg[len - 1] == '\n')
			msg[len - 1] = '\0';
		syslog(LOG_DAEMON | LOG_WARNING, "%s", msg);
	}
	errno = saved_errno;
}

/* Formatted into a buffer and written with one write(2), not fprintf():
 * a report from a signal handler (rcb_read_unlock() without a lock,
 * rcb_poll_state() of a forged cookie, both callable there) must not
 * wait for the stderr lock of the stdio call it interrupted; and a
 * line from two threads is not interleaved.  errno is kept. */
void rcb__misuse(const char *call, const char *fmt, ...)
{
	char who[48];
	char msg[256];
	char as[128];
	char line[640];
	va_list ap;
	unsigned long n = misuse_count(call, fmt);
	int saved_errno = errno, len;

	rcb_add_relaxed(&rcb__gp_stat[RCB__GPS_MISUSE], 1);
	if (n > MISUSE_PRINT_ALL && (n & (n - 1)) &&
	    misuse_policy() != RCB_MISUSE_ABORT)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rcb__thread_label(who, sizeof(who));
	/* The read side's reports never come from a liburcu call the
	 * drop-in wraps (rcu_read_lock() and rcu_read_unlock() are the
	 * inline calls themselves): one made by a signal handler during a
	 * wrapped call is not that call's. */
	if (rcb__misuse_as && strcmp(rcb__misuse_as, call) != 0 &&
	    strncmp(call, "rcb_read_", 9) != 0) {
		snprintf(as, sizeof(as), "%s (liburcu's %s)", call, rcb__misuse_as);
		call = as;
	}
	if (n > MISUSE_PRINT_ALL)
		len = snprintf(line, sizeof(line),
			       "rcuboost: misuse: %s: %s (thread %s; report %lu of this kind, "
			       "only every power of two printed after %d)\n",
			       call, msg, who, n, MISUSE_PRINT_ALL);
	else
		len = snprintf(line, sizeof(line), "rcuboost: misuse: %s: %s (thread %s)\n",
			       call, msg, who);
	if (len >= (int)sizeof(line)) {
		len = (int)sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	if (len > 0)
		rcb__write_all(STDERR_FILENO, line, (size_t)len);
	if (misuse_policy() == RCB_MISUSE_ABORT) {
		static const char aborting[] =
			"rcuboost: aborting (RCUBOOST_MISUSE=warn to continue)\n";

		rcb__write_all(STDERR_FILENO, aborting, sizeof(aborting) - 1);
		abort();
	}
	errno = saved_errno;
}

/* The forking thread already held the registry lock: a fork() from a
 * signal handler that interrupted it inside the lock (a scan, a
 * registration, rcb_stats()); the lock is an error-checking one, so
 * prepare's lock returned EDEADLK. */
static __thread bool fork_registry_held;

/* The liburcu-cds atfork hooks run outside rcuboost's locks: first in
 * prepare, last in parent and child (src/compat/urcu_compat.c, invariant 2). */
static void fork_prepare(void)
{
	rcb__compat_hooks.fork_prepare();
	pthread_mutex_lock(&init_lock);
	rcb__cb_hooks.fork_prepare();
	fork_registry_held = pthread_mutex_lock(&rcb__registry_lock) == EDEADLK;
}

static void fork_parent(void)
{
	/* Not the interrupted code's hold: it still runs under the lock
	 * once the handler returns.  (The child re-creates the lock and
	 * its registry; an interrupted registration there is not
	 * supported, as rcuboost(3) says for fork() from a handler.) */
	if (!fork_registry_held)
		pthread_mutex_unlock(&rcb__registry_lock);
	fork_registry_held = false;
	rcb__cb_hooks.fork_parent();
	pthread_mutex_unlock(&init_lock);
	rcb__compat_hooks.fork_parent();
}

static void fork_child(void)
{
	rcb__gp_after_fork_child();
	/* Needs the forking thread's block of local lists. */
	rcb__cb_hooks.fork_harvest();
	rcb__registry_after_fork_child();
	rcb__cb_hooks.fork_child();
	rcb__boost_hooks.fork_child();
	rcb__diag_hooks.fork_child();
	pthread_mutex_init(&init_lock, NULL);
	/* No rcb_shutdown() runs in the child: its thread is not there. */
	shutting_down = false;
	pthread_cond_init(&shutdown_done, NULL);
	rcb__compat_hooks.fork_child();
	/* Last: its threads find the child's state complete.  A booster
	 * refused its priority meanwhile warns without syslog(3), whose
	 * lock a thread of the parent may have held (rcb__warn()). */
	rcb_store_relaxed(&in_fork_child, true);
	rcb__boost_hooks.restart_after_fork();
	rcb_store_relaxed(&in_fork_child, false);
}

/* pthread_atfork() handlers are registered once: a failed first
 * rcb_init() may leave them (they only take and re-create locks). */
static bool atfork_registered;

/*
 * Register the fork handlers; 0 or a pthread_atfork() error.  The
 * shared library does it from its last constructor (early.c), before
 * main(): glibc runs prepare handlers in the reverse order of their
 * registration and the others in that order, so the application's
 * handlers registered from main() run before ours in the parent's
 * prepare and after ours in the child, where the library's locks are
 * free (re-created).  Registered at the first initialisation instead,
 * after them, an application handler that waits for callbacks (the
 * liburcu idiom: rcu_barrier(), then call_rcu_before_fork(), in its
 * prepare handler) ran while our prepare held rcb__cb_lock, and hung.
 * A static library has no early.c (nothing references it) and keeps
 * that first-initialisation registration.  Context: a constructor, or
 * init_lock held.
 */
int rcb__atfork_register(void)
{
	int err;

	if (atfork_registered)
		return 0;
	if ((err = pthread_atfork(fork_prepare, fork_parent, fork_child)) != 0)
		return err;
	atfork_registered = true;
	return 0;
}

/*
 * Make @s the settings in force and mark the library running; for an
 * explicit rcb_init() (@start), start the boosters first.  All or
 * nothing: on failure the previous settings are back, rcb__running is
 * still false and no library thread runs.  Context: init_lock held,
 * rcb__running false.
 */
/*
 * rcb__settings = *@s, writing only the bytes that change.  A
 * re-initialisation after rcb_shutdown() runs while other threads may
 * still be inside sections, and their unlocks read settings that are
 * fixed for the life of the process (boost_machine, the flavor:
 * rcb__settings_fixed() refused any change): a whole-struct copy wrote
 * those too, the same values, and ThreadSanitizer saw a race with the
 * readers (CI, regression_own_call_shutdown_race).
 */
static void settings_assign(const struct rcb__settings *s)
{
	const unsigned char *src = (const unsigned char *)s;
	unsigned char *dst = (unsigned char *)&rcb__settings;

	for (size_t i = 0; i < sizeof(*s); i++)
		if (dst[i] != src[i])
			dst[i] = src[i];
}

static int commit_settings(const struct rcb__settings *s, bool start)
{
	struct rcb__settings old = rcb__settings;
	int err;

	/* The boosters read the settings (pthread_create orders them). */
	settings_assign(s);
	if (start && (err = rcb__boost_hooks.start_init()) != 0) {
		settings_assign(&old);
		return err;
	}
	rcb_store_relaxed(&rcb__running, true);
	return 0;
}

static pthread_once_t construct_once = PTHREAD_ONCE_INIT;

static void construct(void)
{
	rcb__gp_locks_create();
	rcb__exit_key_create();
}

void rcb__construct(void)
{
	(void)pthread_once(&construct_once, construct);
}

/* Before main() as a rule: the locks exist before any thread can use the
 * library.  Linked statically, after the program's own constructors at
 * worst: do_init() and rcb_stats() make them first if need be. */
__attribute__((constructor)) static void construct_ctor(void)
{
	rcb__construct();
}

/* rcb_init(); @lazy: an implicit first use, satisfied by any earlier
 * initialisation. */
static int do_init(const struct rcb_config *cfg, bool lazy)
{
	struct rcb__settings s = { 0 };
	enum rcb_flavor_request req;
	const char *diff, *fixed;
	int err;

	rcb__construct();
	if (lazy && rcb_load_acquire(&rcb__initialized)) /* [INIT-A] */
		return 0;
	if ((err = rcb__build_settings(cfg, &s, &req)) != 0) {
		/* A first use has no error to return (rcb_read_lock(),
		 * liburcu's void calls), and every later call would fail
		 * the same way: stop at once, naming the cause.  Only the
		 * environment can be wrong here (no struct rcb_config). */
		if (lazy) {
			fprintf(stderr,
				"rcuboost: fatal: cannot start: the RCUBOOST_* environment is invalid "
				"(named above); a first RCU call without rcb_init() has no way to "
				"report it. Fix or unset the variable.\n");
			abort();
		}
		return err;
	}
	pthread_mutex_lock(&init_lock);
	/* An explicit rcb_init() that meets an rcb_shutdown() half-way
	 * waits for it: re-initialised between the shutdown's flag and its
	 * stops, it returned 0 for a library whose workers and boosters
	 * the shutdown then stopped (a review).  A lazy one returns below:
	 * the library is initialised, and not running. */
	while (!lazy && shutting_down)
		pthread_cond_wait(&shutdown_done, &init_lock);
	if (lazy && rcb_load_relaxed(&rcb__initialized)) {
		pthread_mutex_unlock(&init_lock);
		return 0;
	}
	if (rcb_load_relaxed(&rcb__initialized)) {
		s.flavor = rcb__settings.flavor;
		diff = rcb__settings_differ(&rcb__settings, &s, req);
		if (rcb_load_relaxed(&rcb__running)) {
			pthread_mutex_unlock(&init_lock);
			if (diff) {
				/* Only a setting that a re-initialisation
				 * may change gets the hint to shut down. */
				fixed = rcb__settings_fixed(&rcb__settings, &s,
							    diff);
				fprintf(stderr,
					"rcuboost: rcb_init: already initialised with a different %s%s; %s%s\n",
					diff,
					rcb__early_start ? " (by RCUBOOST_EARLY=1, before main(), "
							   "with the environment's settings)" : "",
					fixed ? fixed : "call rcb_shutdown() first",
					fixed ? " cannot change for the life of the process" : "");
				return -EBUSY;
			}
			/* An explicit rcb_init() starts the boosters if none
			 * runs: after a lazy initialisation, or in the child
			 * of a fork(), which has none (a failure changes
			 * nothing else: the library already ran unboosted). */
			return lazy ? 0 : rcb__boost_hooks.start();
		}
		/* Re-initialisation after rcb_shutdown(): the flavor
		 * (threads registered under it), the boost arrays' size and
		 * machine, the backend and the CPU-to-booster map are fixed
		 * for the life of the process. */
		if ((fixed = rcb__settings_fixed(&rcb__settings, &s, diff))) {
			pthread_mutex_unlock(&init_lock);
			fprintf(stderr,
				"rcuboost: rcb_init: %s cannot change after the first initialisation\n",
				fixed);
			return -EBUSY;
		}
		err = commit_settings(&s, !lazy);
		pthread_mutex_unlock(&init_lock);
		return err;
	}
	/* First initialisation.  Until [INIT-R] no other thread uses the
	 * library (they wait for init_lock in rcb__ensure_init()), so a
	 * failure below can undo everything: the membarrier(2)
	 * registration stays (it cannot be undone and costs nothing), and
	 * the next attempt sets the flavor again. */
	if ((err = rcb__membarrier_setup(req, &s.flavor)) != 0) {
		pthread_mutex_unlock(&init_lock);
		fprintf(stderr,
			"rcuboost: rcb_init: membarrier(2) is required but unavailable: %s\n",
			strerror(-err));
		return err;
	}
	if ((err = rcb__atfork_register()) != 0) {
		pthread_mutex_unlock(&init_lock);
		fprintf(stderr, "rcuboost: rcb_init: pthread_atfork: %s\n",
			strerror(err));
		return -err;
	}
	/* article: init_rcu_boost_late().  An explicit rcb_init() starts
	 * the booster before anyone sees the library initialised; a lazy
	 * one just after, if its thread has the permission (see
	 * rcb__booster_start_lazy()), else the first grace period that
	 * waits for a blocked reader tries. */
	if ((err = commit_settings(&s, !lazy)) != 0) {
		pthread_mutex_unlock(&init_lock);
		return err;
	}
	/* While this thread still has the CAP_SYS_NICE it would need
	 * (RCUBOOST_KEEPER=1, keeper.c). */
	rcb__boost_hooks.keeper_start();
	/* [INIT-R] Settings are complete before anyone sees the flag.
	 * Pairs with [INIT-A] in rcb__ensure_init(). */
	rcb_store_release(&rcb__initialized, true);
	pthread_mutex_unlock(&init_lock);
	if (lazy)
		rcb__boost_hooks.start_lazy();
	return 0;
}

RCB_API int rcb_init(const struct rcb_config *cfg)
{
	/* Not in do_init(): a lazy initialisation runs inside sections
	 * (rcb_read_lock()'s automatic registration) and callbacks. */
	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_init", "called inside a read-side critical section");
		return -EDEADLK;
	}
	if (rcb__self()->in_callback) {
		rcb__misuse("rcb_init",
			    "called from an RCU callback; an rcb_shutdown() draining its worker "
			    "would stop what it started");
		return -EDEADLK;
	}
	return do_init(cfg, false);
}

int rcb__init_slow(void)
{
	return do_init(NULL, true);
}

RCB_API int rcb_shutdown(void)
{
	int err;

	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_shutdown",
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	if (rcb__self()->in_callback) {
		rcb__misuse("rcb_shutdown",
			    "called from an RCU callback; it would wait for its own thread");
		return -EDEADLK;
	}
	if (rcb__cb_hooks.refuses("rcb_shutdown"))
		return -EDEADLK;
	pthread_mutex_lock(&init_lock);
	if (!rcb_load_relaxed(&rcb__running)) {
		pthread_mutex_unlock(&init_lock);
		return -EALREADY;
	}
	rcb_store_relaxed(&rcb__running, false);
	shutting_down = true;
	pthread_mutex_unlock(&init_lock);
	/* rcb_call() checks rcb__running inside a read-side critical
	 * section: after this grace period, no enqueue can still be on its
	 * way, so stopping the callback thread loses nothing. */
	rcb_synchronize();
	err = rcb__cb_hooks.stop();
	rcb__boost_hooks.stop();
	pthread_mutex_lock(&init_lock);
	shutting_down = false;
	pthread_cond_broadcast(&shutdown_done);
	pthread_mutex_unlock(&init_lock);
	return err;
}

RCB_API enum rcb_flavor rcb_flavor(void)
{
	if (rcb__ensure_init() != 0)
		return RCB_FLAVOR_FENCE;
	return rcb__settings.flavor;
}

RCB_API const char *rcb_flavor_name(enum rcb_flavor flavor)
{
	switch (flavor) {
	case RCB_FLAVOR_MEMBARRIER:
		return "membarrier";
	case RCB_FLAVOR_FENCE:
		return "fence";
	}
	return "unknown";
}
