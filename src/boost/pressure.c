/* SPDX-License-Identifier: MIT */
/*
 * Memory pressure (article: "Possible Future Enhancements", 1).  While
 * the callback backlog is above its threshold, or the kernel reports
 * memory pressure (PSI, the cgroup's memory.events), the boosters boost
 * every queued reader each pass and sleep 1 ms instead of a period
 * (booster.c), until the backlog is below the low-water mark.
 * rcb_call*() wakes the boosters when it sees the count or byte
 * threshold crossed (rcb__pressure_kick()).
 *
 * Invariants (struct pressure below).
 *  1. One booster at a time evaluates: the one that gets pressure.lock
 *     with a try-lock (the others use the last verdict).  Only it
 *     changes the verdict, the entry count and the kernel readings;
 *     rcb__pressure_stop() and rcb__pressure_after_fork_child() change
 *     them while no booster runs.
 *  2. Hysteresis: the verdict turns active when a threshold is reached
 *     (callback count or bytes) or the kernel reports pressure, and
 *     inactive only when every threshold's backlog is below
 *     pressure_low_pct percent of it and the kernel reports none.
 *  3. pressure.kicked is 1 from the first kick of an episode (a
 *     compare-and-exchange by an updater) or an active verdict, until an
 *     inactive verdict below the low-water mark: updaters wake the
 *     boosters at most once per episode.
 *  4. Each kernel file is read at most every 100 ms, through a
 *     descriptor kept open (read_kept()); between reads the last reading
 *     holds, and a reading counts only against the previous one.
 *  5. pressure.cgroup_dir is written once, by rcb__pressure_init()
 *     before any booster runs, and only read afterwards.
 *  6. No ordering: the verdict, the kick flag and the kick thresholds
 *     are relaxed hints; a stale read delays a wake-up by at most a
 *     booster period (doc/ordering.md, "Enhancements").
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boost/boost.h"

/* A PSI file and the booster's previous look at it. */
struct psi_source {
	unsigned long long total_us, at_ns;
	bool hit;
	int fd; /* read_kept() */
};

/* The pressure state of the process (invariants atop this file). */
static struct pressure {
	/* Taken with a try-lock by the booster that evaluates; guards
	 * every plain field below (invariant 1). */
	pthread_mutex_t lock;
	/* The verdict; a relaxed hint for the boosters and statistics. */
	_Atomic bool active;
	/* Updaters have kicked in this episode (invariant 3). */
	_Atomic int kicked;
	_Atomic long entries, kicks; /* statistics */
	/* The process's cgroup v2 directory, "" if unknown (invariant 5). */
	char cgroup_dir[512];
	struct psi_source psi_system, psi_cgroup;
	/* The cgroup's memory.events: the high+max+oom sum last seen. */
	struct {
		unsigned long long seen;
		int fd; /* read_kept() */
		uint64_t at_ns;
		bool hit;
		bool known;
	} events;
} pressure = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* rcb__cb_hot.kick_at and rcb__cb_hot.kick_bytes, which rcb_call*()
 * reads, belong to the callback layer (callback/callback.c), which
 * cannot name this file's functions (core/hooks.h); the booster writes
 * them only while no booster runs (start, stop, fork). */

bool rcb__pressure_active(void)
{
	return rcb_load_relaxed(&pressure.active);
}

long rcb__pressure_entries(void)
{
	return rcb_load_relaxed(&pressure.entries);
}

long rcb__pressure_kicks(void)
{
	return rcb_load_relaxed(&pressure.kicks);
}

/*
 * The pressure files stay open (the booster, a real-time thread, reads
 * them up to every millisecond under pressure): *@fd is 0 before the
 * first try, -1 if the file cannot be opened, else the descriptor + 1.
 * pread() at offset 0 makes the kernel regenerate the text.
 */
static ssize_t read_kept(const char *path, int *fd, char *buf, size_t len)
{
	ssize_t n;

	if (*fd == 0) {
		int f = open(path, O_RDONLY | O_CLOEXEC);

		*fd = f < 0 ? -1 : f + 1;
	}
	if (*fd < 0)
		return -1;
	n = pread(*fd - 1, buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * One PSI file ("some avg10=... total=US\nfull ..."): the "some" line's
 * total stall time in microseconds.  Returns false if unreadable.
 */
static bool psi_read(const char *path, int *fd, unsigned long long *total)
{
	char buf[512], *p, *t;

	if (read_kept(path, fd, buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "some ")) || !(t = strstr(p, "total=")))
		return false;
	*total = strtoull(t + strlen("total="), NULL, 10);
	return true;
}

/* Sum of the high, max and oom counters of the cgroup's memory.events. */
static bool cgroup_events(unsigned long long *sum)
{
	static const char *const keys[] = { "\nhigh ", "\nmax ", "\noom " };
	char path[600], buf[1024];

	if (!pressure.cgroup_dir[0])
		return false;
	snprintf(path, sizeof(path), "%s/memory.events", pressure.cgroup_dir);
	buf[0] = '\n';
	if (read_kept(path, &pressure.events.fd, buf + 1, sizeof(buf) - 1) <= 0)
		return false;
	*sum = 0;
	for (int i = 0; i < 3; i++) {
		char *p = strstr(buf, keys[i]);

		if (p)
			*sum += strtoull(p + strlen(keys[i]), NULL, 10);
	}
	return true;
}

/*
 * The cgroup v2 directory of this process: the cgroup2 mount point (from
 * /proc/self/mountinfo; /sys/fs/cgroup on a unified system,
 * /sys/fs/cgroup/unified on a hybrid one) joined with the "0::/path" line
 * of /proc/self/cgroup.  Empty if either is unknown.
 */
void rcb__pressure_init(void)
{
	char buf[8192], mnt[256] = "", *p, *nl, *line;

	pressure.cgroup_dir[0] = '\0';
	if (rcb__read_small("/proc/self/mountinfo", buf, sizeof(buf)) > 0) {
		for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			/* "... mountpoint options - cgroup2 ..." */
			if (strstr(line, " - cgroup2 ") &&
			    sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1)
				break;
			mnt[0] = '\0';
		}
	}
	if (!mnt[0] || rcb__read_small("/proc/self/cgroup", buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "0::")))
		return;
	p += 3;
	if ((nl = strchr(p, '\n')))
		*nl = '\0';
	snprintf(pressure.cgroup_dir, sizeof(pressure.cgroup_dir), "%s%s", mnt,
		 strcmp(p, "/") == 0 ? "" : p);
	pressure.events.known = cgroup_events(&pressure.events.seen);
}


/*
 * Memory pressure from PSI file @path: the share of time some task
 * stalled on memory ("some ... total=" microseconds) since our previous
 * look, at least 100 ms ago, is at or above @pct percent.  The kernel's
 * avg10 would be smoother but trails an episode by seconds both ways;
 * a backlog grows in milliseconds.  Between looks the last verdict holds.
 */
static bool psi_hit(const char *path, struct psi_source *src, unsigned int pct,
		    uint64_t now)
{
	unsigned long long total;

	if (src->at_ns && now - src->at_ns < 100000000ull)
		return src->hit;
	if (!psi_read(path, &src->fd, &total))
		return false;
	src->hit = src->at_ns && total >= src->total_us &&
		   (total - src->total_us) * 1000ull * 100 >=
			   (now - src->at_ns) * pct;
	src->total_us = total;
	src->at_ns = now;
	return src->hit;
}

/* Is the kernel reporting memory pressure (PSI at or above the setting,
 * or a new memory.events high/max/oom event)? */
static bool kernel_pressure(unsigned int pct, uint64_t now)
{
	unsigned long long ev;
	char path[600];
	bool hit = psi_hit("/proc/pressure/memory", &pressure.psi_system, pct,
			   now);

	if (pressure.cgroup_dir[0]) {
		snprintf(path, sizeof(path), "%s/memory.pressure",
			 pressure.cgroup_dir);
		if (psi_hit(path, &pressure.psi_cgroup, pct, now))
			hit = true;
		/* New events count for one PSI window, like a stall share. */
		if (now - pressure.events.at_ns >= 100000000ull) {
			pressure.events.hit = false;
			if (cgroup_events(&ev)) {
				pressure.events.hit =
					pressure.events.known &&
					ev != pressure.events.seen;
				pressure.events.seen = ev;
				pressure.events.known = true;
			}
			pressure.events.at_ns = now;
		}
		if (pressure.events.hit)
			hit = true;
	}
	return hit;
}

/*
 * Update the pressure verdict (hysteresis): enter at a threshold, leave
 * below pressure_low_pct percent of every threshold.  Returns the
 * verdict.  Context: a booster.
 */
bool rcb__pressure_update(uint64_t now)
{
	const struct rcb__settings *st = &rcb__settings;
	struct rcb__backlog_v0 bl;
	bool active, high, low, entered = false;

	if (!rcb__pressure_on())
		return false;
	if (pthread_mutex_trylock(&pressure.lock) != 0)
		return rcb_load_relaxed(&pressure.active);
	/* Cheap: two counters, and the kernel's files at most every
	 * 100 ms (psi_hit()); so every pass evaluates, and a kick is
	 * never swallowed by a stale verdict. */
	active = rcb_load_relaxed(&pressure.active);
	rcb_backlog(&bl);
	high = (st->pressure_callbacks &&
		bl.callbacks >= st->pressure_callbacks) ||
	       (st->pressure_bytes && bl.bytes >= st->pressure_bytes);
	low = (!st->pressure_callbacks ||
	       bl.callbacks * 100 <
		       st->pressure_callbacks * st->pressure_low_pct) &&
	      (!st->pressure_bytes ||
	       bl.bytes * 100 < st->pressure_bytes * st->pressure_low_pct);
	if (st->pressure_psi && kernel_pressure(st->pressure_psi, now)) {
		high = true;
		low = false;
	}
	if (!active && high) {
		active = true;
		rcb_add_relaxed(&pressure.entries, 1);
		/* The other boosters may have used the old verdict (try-lock
		 * above) and gone to sleep for a period: wake them. */
		entered = true;
	} else if (active && low) {
		active = false;
	}
	rcb_store_relaxed(&pressure.active, active);
	/* Updaters kick once per episode: re-armed only below the
	 * low-water mark, so a kick that raced with this evaluation (it
	 * read the backlog just before the kicker's callback) is not
	 * followed by one wake-up per callback until the next. */
	if (!active && low)
		rcb_store_relaxed(&pressure.kicked, 0);
	else if (active)
		rcb_store_relaxed(&pressure.kicked, 1);
	pthread_mutex_unlock(&pressure.lock);
	if (entered && rcb__nboosters > 1)
		rcb__boosters_wake();
	return active;
}

/*
 * rcb_call*() found the backlog at the count threshold: wake the
 * boosters so they enter pressure mode without waiting out a period.
 * One kick per episode.  Context: any thread, inside rcb_call*().
 */
void rcb__pressure_kick(void)
{
	int expect = 0;

	if (rcb_load_relaxed(&pressure.kicked) ||
	    !rcb_cmpxchg_relaxed(&pressure.kicked, &expect, 1))
		return;
	rcb_add_relaxed(&pressure.kicks, 1);
	rcb__boosters_wake();
}

/* The boosters stopped: no booster reads the verdict or the kernel's
 * files, so the verdict and the PSI readings start over.  Context:
 * rcb__booster_lock held, no booster running. */
void rcb__pressure_stop(void)
{
	rcb_store_relaxed(&pressure.active, false);
	rcb_store_relaxed(&pressure.kicked, 0);
	/* No booster runs: their PSI readings may be reset. */
	pressure.psi_system.at_ns = pressure.psi_cgroup.at_ns = 0;
	pressure.events.at_ns = 0;
	pressure.events.hit = false;
	pressure.psi_system.hit = pressure.psi_cgroup.hit = false;
}

/* fork() child: the lock may have been held by a vanished booster. */
void rcb__pressure_after_fork_child(void)
{
	pthread_mutex_init(&pressure.lock, NULL);
	rcb_store_relaxed(&pressure.active, false);
	rcb_store_relaxed(&pressure.kicked, 0);
}
