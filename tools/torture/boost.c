/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: the boost phase (--boost), after Linux rcutorture's
 * boost test.  Low-priority readers pinned to one CPU hold read-side
 * critical sections that block (through the rcb_* wrappers, so
 * rcb_note_block() queues them) or just spin (so only the booster's
 * on-behalf queueing finds them when they are preempted), while a
 * real-time CPU hog on that CPU runs in bounded bursts.  Only priority
 * boosting lets such a reader finish its section during a burst;
 * updaters on another CPU queue callbacks and require each to run
 * within a bound.  Checked:
 *
 *  - every callback is invoked, and every rcb_synchronize() of an
 *    updater returns, within --boost-bound-ms (without boosting a grace
 *    period can last as long as a burst; with it, tens of ms);
 *  - after every outermost unlock a boost reader has exactly its own
 *    scheduling attributes, or, if it changed them itself while it was
 *    boosted, the ones it set (the application's change wins);
 *  - short-lived threads, each ending right after a section long enough
 *    to be boosted, and the next one starting with the attributes it
 *    inherits (a boost that outlived its thread would show);
 *  - the boost statistics: something was boosted, no boost failed, no
 *    count in an invalid state or in a cell the statistics text marks
 *    impossible ('?') or a list error ('!'), and with the 8-state
 *    machine at most one consecutive compare-and-exchange failure;
 *  - the pipeline and batch checks, in every section of every reader.
 *
 * Safety: every real-time thread here is pinned, bounds its own run
 * time by the clock and drops back to its attributes by itself.  The
 * hog runs only on the first CPU of the process's affinity mask, only
 * in bursts of at most --boost-on-ms (1 s at most) and never after the
 * run's end; the updaters, the ticker and the spawner are pinned to the
 * last CPU.  The monitor's watchdog, and an alarm(2) behind it, end a
 * run that overruns whatever state its threads are in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "boost.h"

/* Boost readers: state of one long-lived reader pinned to the hog CPU. */
struct boost_reader {
	pthread_t thread;
	struct torture_reader *rd;
	unsigned int idx;
	uint32_t policy;
	int prio, nice;
	struct tool_sattr orig; /* its own attributes */
	struct tool_sattr app;  /* what it set itself while boosted */
	const struct tool_sattr *want; /* expected after the unlock */
	long esc_at_change;        /* rcb_boost_stats() reraises then */
	bool held;                 /* this section's long hold is done */
	uint64_t rng;
};

/* The library's escalation count (0 if the statistics are unavailable). */
/* Raises of already boosted readers so far: escalations, and loans of
 * expedited and inheriting waiters above a reader's level. */
static long escalations_now(void)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };

	return rcb_boost_stats(&s) == 0 ? s.reraises : 0;
}

/* One short-lived thread: the spawner's stack holds it until the join. */
struct exiter {
	struct torture_reader *rd;
	unsigned long n;
	uint64_t rng;
	bool held;
	bool boosted;
};

int boost_hog_cpu = -1, boost_upd_cpu = -1;
static struct boost_reader *brd;
static pthread_t hog_thread, spawner_thread, ticker_thread;
static pthread_t *upd_threads;
static bool hog_started, spawner_started, ticker_started;
static unsigned int readers_started, updaters_started;
static struct tool_sattr spawner_attrs;

/* The ticker wakes rcb_condvar_wait() and rcb_condvar_timedwait() sleepers
 * and holds busy_lock half the time, so rcb_mutex_lock() contends. */
static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tick_cond;
static unsigned long ticks;      /* under tick_lock */
static _Atomic bool ticker_stop;
/* Never changes: rcb_futex_wait() on it times out. */
static uint32_t futex_word;

static void spin_until(uint64_t end)
{
	while (tool_now_ns() < end)
		atomic_signal_fence(memory_order_seq_cst);
}

/* ------------------------------------------------------------------ */
/* Permission and set-up                                              */
/* ------------------------------------------------------------------ */

void torture_boost_require_rt(void)
{
	int err =
		boost_sched_set(SCHED_FIFO, (int)tstate.opt.boost_hog_prio, 0);

	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr,
			"rcuboost-torture: skip: --boost needs real-time priority (SCHED_FIFO %u: %s)\n",
			tstate.opt.boost_hog_prio, strerror(-err));
		exit(77);
	}
	if (err) {
		fprintf(stderr, "rcuboost-torture: sched_setattr SCHED_FIFO %u: %s\n",
			tstate.opt.boost_hog_prio, strerror(-err));
		exit(1);
	}
	err = boost_sched_set(SCHED_OTHER, 0, 0);
	if (err) {
		fprintf(stderr, "rcuboost-torture: cannot return to SCHED_OTHER: %s\n",
			strerror(-err));
		exit(1);
	}
}

int torture_boost_setup(uint64_t watchdog_ns)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	cpu_set_t set;
	int err, cpu;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		perror("rcuboost-torture: sched_getaffinity");
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (boost_hog_cpu < 0)
			boost_hog_cpu = cpu;
		boost_upd_cpu = cpu;
	}
	if (boost_hog_cpu < 0 || boost_hog_cpu == boost_upd_cpu) {
		fprintf(stderr,
			"rcuboost-torture: --boost needs two CPUs (one for the hog, one for the updaters)\n");
		return -1;
	}
	err = rcb_boost_stats(&s);
	if (err) {
		fprintf(stderr, "rcuboost-torture: --boost: rcb_boost_stats: %s (library built without boosting?)\n",
			strerror(-err));
		return -1;
	}
	if (s.no_permission) {
		fprintf(stderr,
			"rcuboost-torture: skip: the booster was refused real-time priority\n");
		exit(77);
	}
	tstate.boost.booster_prio = s.enabled ? s.booster_prio : 50;
	tstate.boost.boosted_prio = s.first_level > 0 ? s.first_level :
				    tstate.boost.booster_prio > 1 ?
					    tstate.boost.booster_prio - 1 : 1;
	/* Escalation (RCUBOOST_ESCALATE) raises boosted readers up to the
	 * ceiling: the hog may sit between the first level and it. */
	tstate.boost.boosted_ceiling =
		s.ceiling_level > tstate.boost.boosted_prio ?
			s.ceiling_level :
			tstate.boost.boosted_prio;
	if ((int)tstate.opt.boost_hog_prio >= tstate.boost.boosted_ceiling) {
		fprintf(stderr,
			"rcuboost-torture: --boost-hog-prio=%u must be below the boosted priority %d (booster %d)\n",
			tstate.opt.boost_hog_prio, tstate.boost.boosted_ceiling,
			tstate.boost.booster_prio);
		exit(2);
	}
	/* Backstop to the monitor's watchdog: SIGALRM's default action
	 * ends the process, real-time threads included. */
	alarm((unsigned int)(watchdog_ns / 1000000000ull) + 30);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Holding a critical section                                         */
/* ------------------------------------------------------------------ */

/* Block once for about @ns (< 1 s) through one of the rcb_* wrappers,
 * each of which notes the block inside a critical section. */
static void block_once(uint64_t ns, unsigned int how)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };
	struct timespec abs;
	unsigned long until;

	switch (how % 6) {
	case 0:
		rcb_nanosleep(&ts, NULL);
		break;
	case 1:
		clock_gettime(CLOCK_MONOTONIC, &abs);
		abs.tv_nsec += (long)ns;
		if (abs.tv_nsec >= 1000000000L) {
			abs.tv_sec++;
			abs.tv_nsec -= 1000000000L;
		}
		rcb_mutex_lock(&tick_lock);
		rcb_condvar_timedwait(&tick_cond, &tick_lock, &abs);
		pthread_mutex_unlock(&tick_lock);
		break;
	case 2:
		/* Two ticks, about 4 ms. */
		rcb_mutex_lock(&tick_lock);
		until = ticks + 2;
		while (ticks < until && !atomic_load(&ticker_stop))
			rcb_condvar_wait(&tick_cond, &tick_lock);
		pthread_mutex_unlock(&tick_lock);
		break;
	case 3:
		rcb_fd_poll(NULL, 0, (int)(ns / NS_PER_MS) + 1);
		break;
	case 4:
		rcb_futex_wait(&futex_word, 0, &ts);
		break;
	default:
		rcb_mutex_lock(&busy_lock);
		pthread_mutex_unlock(&busy_lock);
		rcb_nanosleep(&ts, NULL);
		break;
	}
}

/* Stay in the section until @end: blocking in 2..15 ms pieces, or
 * spinning (only preemption then takes the CPU away). */
static void hold(uint64_t end, bool block, uint64_t *rng)
{
	uint64_t now, left, chunk, r;

	if (!block) {
		spin_until(end);
		return;
	}
	while ((now = tool_now_ns()) < end) {
		r = tool_rand(rng);
		left = end - now;
		chunk = (2 + r % 14) * NS_PER_MS;
		block_once(chunk < left ? chunk : left, (unsigned int)(r >> 8));
		torture_add(&tstate.boost.blocks, 1);
	}
}

/* A boosted reader changes its own attributes, as an application may. */
static void app_change(struct boost_reader *b, uint64_t *rng)
{
	static const struct {
		uint32_t policy;
		int prio, nice;
	} choice[] = {
		{ SCHED_OTHER, 0, 3 },
		{ SCHED_FIFO, 3, 0 },
		{ SCHED_BATCH, 0, 1 },
		{ SCHED_FIFO, 9, 0 },
	};
	unsigned int n = sizeof(choice) / sizeof(choice[0]);
	unsigned int i = (unsigned int)(tool_rand(rng) % n);
	int err;

	memset(&b->app, 0, sizeof(b->app));
	b->app.policy = choice[i].policy;
	b->app.prio = (uint32_t)choice[i].prio;
	b->app.nice = choice[i].nice;
	if (tool_sattr_same(&b->app, &b->orig)) {
		i = (i + 1) % n;
		b->app.policy = choice[i].policy;
		b->app.prio = (uint32_t)choice[i].prio;
		b->app.nice = choice[i].nice;
	}
	b->esc_at_change = escalations_now();
	err = boost_sched_set_attr(&b->app);
	if (err) {
		boost_rt_error("boost reader", b->idx, "sched_setattr while boosted", err);
		return;
	}
	b->want = &b->app;
	torture_add(&tstate.boost.app_changes, 1);
}

/* The delay of a boost reader's section: mostly short, sometimes a
 * 40..80 ms hold, long enough to be boosted (30 ms at the defaults). */
static bool boost_delay(void *ctx, uint64_t *rng)
{
	struct boost_reader *b = ctx;
	uint64_t r = tool_rand(rng);
	struct tool_sattr cur;
	bool block;

	if (b->held)
		return false;
	b->held = true;
	if (r % 100 >= 15) {
		for (uint64_t i = (r >> 8) % 4096; i; i--)
			atomic_signal_fence(memory_order_seq_cst);
		return false;
	}
	r >>= 8;
	block = r & 1;
	hold(tool_now_ns() + (40 + (r >> 1) % 41) * NS_PER_MS, block, rng);
	torture_add(&tstate.boost.long_sections, 1);
	if (block)
		torture_add(&tstate.boost.blocked_sections, 1);
	if (tool_sattr_get(0, &cur) == 0 && boost_is_boosted(&cur)) {
		/* The first boosted section seen always changes: the
		 * coverage check (boost_check.c) then cannot fail by chance
		 * when few sections get boosted (7 under ASan once: 0.67^7,
		 * 6% of runs, changed none). */
		unsigned long seen =
			atomic_fetch_add(&tstate.boost.boosted_seen, 1);

		if (tstate.opt.boost_app_pct &&
		    (seen == 0 ||
		     tool_rand(rng) % 100 < tstate.opt.boost_app_pct)) {
			app_change(b, rng);
			/* Hold on: a reboost meanwhile (3-state machine)
			 * must adopt the new attributes as the ones to
			 * restore; the 8-state machine never reboosts a
			 * BOOSTED thread, so they simply stay. */
			hold(tool_now_ns() + tool_rand(rng) % 30 * NS_PER_MS,
			     block, rng);
		}
	}
	return block;
}

/* ------------------------------------------------------------------ */
/* Threads                                                            */
/* ------------------------------------------------------------------ */

static void reader_policy(struct boost_reader *b)
{
	switch (b->idx % 4) {
	case 0:
		b->policy = SCHED_OTHER;
		break;
	case 2:
		b->policy = SCHED_OTHER;
		b->nice = 5;
		break;
	default:
		b->policy = SCHED_FIFO;
		b->prio = 1 + (int)(b->idx * 7 % 10);
		break;
	}
}

static void *boost_reader_fn(void *arg)
{
	struct boost_reader *b = arg;
	int err;

	tool_name_thread("rcbt-boost", (int)b->idx);
	if (!boost_pin_self(boost_hog_cpu)) {
		boost_rt_error("boost reader", b->idx, "cannot pin", -EINVAL);
		return NULL;
	}
	err = boost_sched_set(b->policy, b->prio, b->nice);
	if (!err)
		err = tool_sattr_get(0, &b->orig);
	if (err) {
		boost_rt_error("boost reader", b->idx, "sched_setattr", err);
		return NULL;
	}
	err = rcb_register_thread();
	if (err)
		torture_error(TORTURE_ERR_api, "rcb_register_thread returned %d", err);
	while (!boost_stopping()) {
		b->held = false;
		b->want = &b->orig;
		torture_read_section(b->rd, &b->rng, boost_delay, b);
		torture_add(&tstate.boost.sections, 1);
		if (b->want == &b->app) {
			struct tool_sattr cur;

			/* The sched backend's known race (rcuboost(3),
			 * BUGS): a raise of the boosted reader (escalation,
			 * or an expedited or inheriting loan above its
			 * level) whose sched_getattr came before the change
			 * and sched_setattr after it overwrites the change,
			 * and the unlock restores the attributes from before
			 * it.  Counted when the outcome is exactly that and
			 * such a raise ran in the window; any other outcome
			 * fails. */
			if (tool_sattr_get(0, &cur) == 0 &&
			    !tool_sattr_same(&cur, &b->app) &&
			    tool_sattr_same(&cur, &b->orig) &&
			    escalations_now() > b->esc_at_change) {
				torture_add(&tstate.boost.app_lost_escalation,
					    1);
				torture_add(&tstate.boost.attr_checks, 1);
			} else {
				torture_boost_check_attrs(
					&b->app, TORTURE_ERR_boost_app_lost,
					"boost reader", b->idx,
					"after its outermost unlock (changed while boosted)");
			}
			err = boost_sched_set_attr(&b->orig);
			if (err)
				boost_rt_error("boost reader", b->idx,
					 "restoring its attributes", err);
		} else {
			torture_boost_check_unlocked(&b->orig, "boost reader",
						     b->idx);
		}
		/* Leave the CPU to the others pinned there. */
		tool_sleep_ns(200000 + tool_rand(&b->rng) % 1800000);
	}
	if (b->idx & 1) {
		err = rcb_unregister_thread();
		if (err)
			torture_error(TORTURE_ERR_api,
				      "rcb_unregister_thread returned %d", err);
	}
	err = boost_sched_set(SCHED_OTHER, 0, 0);
	if (err)
		boost_rt_error("boost reader", b->idx, "returning to SCHED_OTHER", err);
	return NULL;
}

/* A short-lived thread's section: about 60 ms, so it is boosted. */
static bool exiter_delay(void *ctx, uint64_t *rng)
{
	struct exiter *x = ctx;
	uint64_t r = tool_rand(rng), end;
	struct tool_sattr cur;
	struct timespec ts;
	bool block = r & 1;

	if (x->held)
		return false;
	x->held = true;
	end = tool_now_ns() + (55 + (r >> 2) % 16) * NS_PER_MS;
	if (block && (r & 2)) {
		/* One long sleep, noted at once. */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(end - tool_now_ns());
		rcb_nanosleep(&ts, NULL);
		torture_add(&tstate.boost.blocks, 1);
	}
	hold(end, block, rng);
	if (tool_sattr_get(0, &cur) == 0 && boost_is_boosted(&cur))
		x->boosted = true;
	return block;
}

static void *exiter_fn(void *arg)
{
	struct exiter *x = arg;
	uint64_t r = tool_rand(&x->rng);
	int err, nice = 0, prio = 0;
	uint32_t policy = SCHED_OTHER;

	tool_name_thread("rcbt-exiter", -1);
	/* It inherits the spawner's attributes: anything else is a boost
	 * aimed at a thread that no longer exists (a recycled ID). */
	torture_boost_check_attrs(&spawner_attrs, TORTURE_ERR_boost_residual,
				  "exiter", (unsigned int)x->n, "at its start");
	switch (r % 3) {
	case 1:
		nice = 4;
		break;
	case 2:
		policy = SCHED_FIFO;
		prio = 1 + (int)((r >> 8) % 10);
		break;
	}
	err = boost_sched_set(policy, prio, nice);
	if (err) {
		boost_rt_error("exiter", (unsigned int)x->n, "sched_setattr", err);
		return NULL;
	}
	if (r & 4) {
		err = rcb_register_thread();
		if (err)
			torture_error(TORTURE_ERR_api,
				      "rcb_register_thread returned %d", err);
	}
	torture_read_section(x->rd, &x->rng, exiter_delay, x);
	if (r & 8) {
		struct tool_sattr want = { .policy = policy,
					      .prio = (uint32_t)prio,
					      .nice = nice };

		torture_boost_check_unlocked(&want, "exiter",
					     (unsigned int)x->n);
	}
	/* Otherwise it ends right after the unlock: unregistered now, or
	 * by the library's thread-exit path. */
	if (r & 16) {
		err = rcb_unregister_thread();
		if (err)
			torture_error(TORTURE_ERR_api,
				      "rcb_unregister_thread returned %d", err);
		else
			torture_add(&tstate.boost.exiters_unregistered, 1);
	}
	return NULL;
}

static void *spawner_fn(void *arg)
{
	struct torture_reader *rd = arg;
	uint64_t rng = tstate.opt.seed ^ 0x700 * 0x9e3779b97f4a7c15ull;
	pthread_attr_t a;
	cpu_set_t set;
	int err;

	tool_name_thread("rcbt-spawner", -1);
	if (!boost_pin_self(boost_upd_cpu) ||
	    tool_sattr_get(0, &spawner_attrs) != 0) {
		boost_rt_error("spawner", 0, "set-up", -EINVAL);
		return NULL;
	}
	pthread_attr_init(&a);
	CPU_ZERO(&set);
	CPU_SET(boost_hog_cpu, &set);
	pthread_attr_setaffinity_np(&a, sizeof(set), &set);
	while (!boost_stopping()) {
		struct exiter x = {
			.rd = rd,
			.n = torture_get(&tstate.boost.exiters),
			.rng = rng ^ tool_rand(&rng),
		};
		pthread_t t;

		err = pthread_create(&t, &a, exiter_fn, &x);
		if (err) {
			tool_sleep_ns(NS_PER_MS);
			continue;
		}
		pthread_join(t, NULL);
		torture_add(&tstate.boost.exiters, 1);
		if (x.boosted)
			torture_add(&tstate.boost.exiters_boosted, 1);
		tool_sleep_ns(tool_rand(&rng) % (5 * NS_PER_MS));
	}
	pthread_attr_destroy(&a);
	return NULL;
}

static void *ticker_fn(void *arg)
{
	(void)arg;
	tool_name_thread("rcbt-ticker", -1);
	boost_pin_self(boost_upd_cpu);
	while (!atomic_load(&ticker_stop)) {
		pthread_mutex_lock(&tick_lock);
		ticks++;
		pthread_cond_broadcast(&tick_cond);
		pthread_mutex_unlock(&tick_lock);
		pthread_mutex_lock(&busy_lock);
		tool_sleep_ns(NS_PER_MS);
		pthread_mutex_unlock(&busy_lock);
		tool_sleep_ns(NS_PER_MS);
	}
	pthread_mutex_lock(&tick_lock);
	ticks++;
	pthread_cond_broadcast(&tick_cond);
	pthread_mutex_unlock(&tick_lock);
	return NULL;
}

/*
 * The hog: SCHED_FIFO --boost-hog-prio on the hog CPU only, in bursts of
 * 2/5..1 x --boost-on-ms separated by 1/2..1 x --boost-off-ms, never past
 * the run's end.  Each burst ends by the clock and drops to SCHED_OTHER.
 */
static void *hog_fn(void *arg)
{
	uint64_t rng = tstate.opt.seed ^ 0x800 * 0x9e3779b97f4a7c15ull;
	uint64_t deadline =
		tstate.start_ns + tstate.opt.duration_ms * NS_PER_MS;
	uint64_t on = tstate.opt.boost_on_ms * NS_PER_MS;
	uint64_t off = tstate.opt.boost_off_ms * NS_PER_MS;
	uint64_t now, end, wake;
	int err;

	(void)arg;
	tool_name_thread("rcbt-hog", -1);
	if (!boost_pin_self(boost_hog_cpu)) {
		boost_rt_error("hog", 0, "cannot pin to its CPU alone; not started",
			 -EINVAL);
		return NULL;
	}
	for (;;) {
		wake = tool_now_ns() + off / 2 +
		       tool_rand(&rng) % (off / 2 + 1);
		while (!boost_stopping() && (now = tool_now_ns()) < wake &&
		       now < deadline)
			tool_sleep_ns(wake - now < 10 * NS_PER_MS ?
						 wake - now : 10 * NS_PER_MS);
		now = tool_now_ns();
		if (boost_stopping() || now >= deadline)
			break;
		end = now + on * 2 / 5 + tool_rand(&rng) % (on * 3 / 5 + 1);
		if (end > deadline)
			end = deadline;
		err = boost_sched_set(SCHED_FIFO,
				      (int)tstate.opt.boost_hog_prio, 0);
		if (err) {
			boost_rt_error("hog", 0, "sched_setattr SCHED_FIFO", err);
			break;
		}
		atomic_store(&tstate.boost.hog_on, 1);
		torture_add(&tstate.boost.bursts, 1);
		spin_until(end);
		err = boost_sched_set(SCHED_OTHER, 0, 0);
		atomic_store(&tstate.boost.hog_on, 0);
		torture_add(&tstate.boost.hog_ms,
			    (tool_now_ns() - now) / NS_PER_MS);
		if (err) {
			/* It ends here: a thread that cannot drop its
			 * priority must not run another burst. */
			boost_rt_error("hog", 0, "returning to SCHED_OTHER", err);
			break;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Start and finish                                                   */
/* ------------------------------------------------------------------ */

static int create(pthread_t *t, void *(*fn)(void *), void *arg,
		  const char *what)
{
	int err = pthread_create(t, NULL, fn, arg);

	if (err)
		fprintf(stderr, "rcuboost-torture: cannot create %s thread: %s\n",
			what, strerror(err));
	return err;
}

int torture_boost_start(void)
{
	unsigned int n = tstate.opt.boost_readers;
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tick_cond, &ca);
	pthread_condattr_destroy(&ca);
	brd = calloc(n, sizeof(*brd));
	upd_threads = calloc(tstate.opt.boost_updaters, sizeof(*upd_threads));
	if (!brd || !upd_threads) {
		fprintf(stderr, "rcuboost-torture: out of memory\n");
		return -1;
	}
	if (create(&ticker_thread, ticker_fn, NULL, "ticker"))
		return -1;
	ticker_started = true;
	for (unsigned int i = 0; i < n; i++) {
		struct boost_reader *b = &brd[i];

		b->idx = i;
		b->rd = &tstate.rd[tstate.boost_rd0 + i];
		b->rng = tstate.opt.seed ^ (0xa00 + i) * 0x9e3779b97f4a7c15ull;
		reader_policy(b);
		if (create(&b->thread, boost_reader_fn, b, "boost reader"))
			return -1;
		readers_started++;
	}
	if (create(&spawner_thread, spawner_fn,
		   &tstate.rd[tstate.boost_rd0 + n], "spawner"))
		return -1;
	spawner_started = true;
	for (unsigned int i = 0; i < tstate.opt.boost_updaters; i++) {
		if (create(&upd_threads[i], boost_updater_fn,
			   (void *)(uintptr_t)i, "boost updater"))
			return -1;
		updaters_started++;
	}
	if (create(&hog_thread, hog_fn, NULL, "hog"))
		return -1;
	hog_started = true;
	return 0;
}
/*
 * The callback workers (booster mode raises one held up by the hog,
 * src/boost/callback_boost.c) are back at normal attributes once the updaters'
 * rcb_barrier() drained them: a worker lowers itself before it sleeps,
 * so allow it a generous second.  Skipped under RCUBOOST_CALLBACK_PRIO.
 */
static void check_workers(void)
{
	const char *cp = getenv("RCUBOOST_CALLBACK_PRIO");
	struct tool_sattr want = { .policy = SCHED_OTHER }, cur;
	pid_t tids[16];
	int n;

	if (cp && atoi(cp) > 0)
		return;
	n = rcb_callback_tids(tids, 16);
	for (int i = 0; i < n && i < 16; i++) {
		int err = boost_wait_attrs(tids[i], &want, &cur, 1000);

		torture_add(&tstate.boost.worker_checks, 1);
		if (err == -ESRCH)
			continue; /* stopped meanwhile */
		if (err)
			boost_rt_error("callback worker", (unsigned int)i,
				       "sched_getattr", err);
		else if (!tool_sattr_same(&cur, &want))
			torture_error(
				TORTURE_ERR_boost_residual,
				"callback worker %d (tid %d) 1 s after the updaters' barrier: %s prio %u nice %d, expected SCHED_OTHER nice 0",
				i, (int)tids[i],
				cur.policy == SCHED_FIFO ? "SCHED_FIFO" :
				cur.policy == SCHED_RR	 ? "SCHED_RR" :
							   "other",
				cur.prio, cur.nice);
	}
}

void torture_boost_finish(void)
{
	for (unsigned int i = 0; i < readers_started; i++)
		pthread_join(brd[i].thread, NULL);
	if (spawner_started)
		pthread_join(spawner_thread, NULL);
	for (unsigned int i = 0; i < updaters_started; i++)
		pthread_join(upd_threads[i], NULL);
	if (updaters_started)
		check_workers();
	if (hog_started)
		pthread_join(hog_thread, NULL);
	atomic_store(&ticker_stop, true);
	if (ticker_started)
		pthread_join(ticker_thread, NULL);
	boost_check_stats();
	free(brd);
	free(upd_threads);
	brd = NULL;
	upd_threads = NULL;
}
