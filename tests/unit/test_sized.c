/*
 * Public structs that grow behind a leading size: a caller built against
 * an older (shorter) layout, the current one, a newer (longer) one, and
 * size 0 (the first sized layout) all get what the contract says.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcuboost.h"
#include "tests/check.h"

#define POISON 0xa5
#define EXTRA 64

/* Every byte of @p[from, to) is @c. */
static int all(const unsigned char *p, size_t from, size_t to, int c)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

static union {
	struct rcb_boost_stats s;
	struct rcb_config c;
	unsigned char b[sizeof(struct rcb_boost_stats) + EXTRA];
} u;

static void poison(size_t size)
{
	memset(u.b, POISON, sizeof(u.b));
	u.s.size = size;
}

static void stats_sizes(void)
{
	const size_t cut = RCB_BOOST_STATS_SIZE_V1;
	const size_t full = sizeof(struct rcb_boost_stats);
	char buf[4096];
	int ret;

	/* Older caller: the fields that fit are written, the rest untouched. */
	poison(cut);
	ret = rcb_boost_stats(&u.s);
	CHECK(ret == 0 || ret == -ENOTSUP);
	CHECK_EQ(u.s.size, cut);
	CHECK(u.s.idx == -1 || u.s.idx >= 0);
	CHECK(ret == -ENOTSUP || u.s.machine == 3 || u.s.machine == 8);
	CHECK(ret == -ENOTSUP || u.s.nstates == 3 || u.s.nstates == 8);
	CHECK(all(u.b, cut, sizeof(u.b), POISON));

	/* Newer caller: its size comes back as this library's, and what
	 * this library does not know is left alone (sched_getattr(2)). */
	poison(full + EXTRA);
	ret = rcb_boost_stats(&u.s);
	CHECK(ret == 0 || ret == -ENOTSUP);
	CHECK_EQ(u.s.size, full);
	CHECK(all(u.b, full, sizeof(u.b), POISON));
	CHECK(!all(u.b, sizeof(size_t), full, POISON));

	/* Size 0: the first sized layout, the size left at 0. */
	poison(0);
	ret = rcb_boost_stats(&u.s);
	CHECK(ret == 0 || ret == -ENOTSUP);
	CHECK_EQ(u.s.size, 0);
	CHECK(all(u.b, RCB_BOOST_STATS_SIZE_V1, sizeof(u.b), POISON));

	/* A size too small to hold even itself. */
	for (size_t bad = 1; bad <= sizeof(size_t); bad++) {
		poison(bad);
		CHECK_MISUSE(rcb_boost_stats(&u.s), -EINVAL);
		CHECK_MISUSE(rcb_boost_stats_format(&u.s, buf, sizeof(buf), 1),
			     -EINVAL);
		CHECK(all(u.b, sizeof(size_t), sizeof(u.b), POISON));
	}
	/* A size no layout has or will have (an uninitialised field):
	 * refused, nothing written.  The first sized layout is the
	 * shortest, every sizeof is a multiple of 8, none passes 1024. */
	const size_t huge[] = { 16, RCB_BOOST_STATS_SIZE_V1 - 8, full + 4, 1032,
				3000, 4097, (size_t)1 << 31, SIZE_MAX };

	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		poison(huge[i]);
		CHECK_MISUSE(rcb_boost_stats(&u.s), -EINVAL);
		CHECK_MISUSE(rcb_boost_stats_format(&u.s, buf, sizeof(buf), 0),
			     -EINVAL);
		CHECK(all(u.b, sizeof(size_t), sizeof(u.b), POISON));
	}
	CHECK_MISUSE(rcb_boost_stats(NULL), -EINVAL);
	CHECK_MISUSE(rcb_boost_stats_format(NULL, buf, sizeof(buf), 0),
		     -EINVAL);
	u.s.size = 0;
	CHECK_MISUSE(rcb_boost_stats_format(&u.s, NULL, 8, 0), -EINVAL);

	/* Format: fields past the caller's size print as zero. */
	memset(&u.s, 0, sizeof(u.s));
	u.s.size = RCB_BOOST_STATS_SIZE_V1;
	u.s.machine = 3;
	u.s.nstates = 3;
	u.s.blocked = 7;
	u.s.passes = 9;
	u.s.reraises = 5;
	ret = rcb_boost_stats_format(&u.s, buf, sizeof(buf), 1);
	CHECK(ret > 0 && (size_t)ret < sizeof(buf));
	if (strcmp(buf, "{\"enabled\":false}\n") != 0) {
		CHECK(strstr(buf, "\"blocked\":7,"));
		CHECK(strstr(buf, "\"passes\":9,"));
		CHECK(strstr(buf, "\"reraises\":0,"));
		CHECK(strstr(buf, "\"cb_sched_syscalls\":0}\n"));
	}
}

static void config_sizes(void)
{
	const size_t cut = RCB_CONFIG_SIZE_V1;
	const size_t full = sizeof(struct rcb_config);

	/* Too small, and a newer caller setting a field unknown here:
	 * refused before anything starts. */
	memset(u.b, 0, sizeof(u.b));
	u.c.size = sizeof(size_t);
	CHECK_MISUSE(rcb_init(&u.c), -EINVAL);
	u.c.size = SIZE_MAX;
	CHECK_MISUSE(rcb_init(&u.c), -EINVAL);
	u.c.size = full + EXTRA;
	u.b[full + EXTRA - 1] = 1;
	CHECK_EQ(rcb_init(&u.c), -E2BIG);

	/* An older caller: the fields past its size are not read (a
	 * negative callback_prio below -1 would be refused), so they get
	 * their defaults. */
	memset(u.b, POISON, sizeof(u.b));
	memset(u.b, 0, cut);
	u.c.size = cut;
	CHECK(u.c.callback_prio < -1);
	CHECK_EQ(rcb_init(&u.c), 0);

	/* The same settings again: a newer caller with zeroes past this
	 * library's struct, the current layout, and size 0. */
	memset(u.b, 0, sizeof(u.b));
	u.c.size = full + EXTRA;
	CHECK_EQ(rcb_init(&u.c), 0);
	u.c.size = full;
	CHECK_EQ(rcb_init(&u.c), 0);
	u.c.size = 0;
	CHECK_EQ(rcb_init(&u.c), 0);
	/* A set field is still compared: this one differs. */
	u.c.stall_ms = -1;
	CHECK_EQ(rcb_init(&u.c), -EBUSY);
	CHECK_EQ(rcb_shutdown(), 0);
}

/* struct rcb_gp_stats and struct rcb_backlog: their out-of-line calls
 * (which rcb_stats() and rcb_backlog() reach with the caller's sizeof)
 * with an older, the current and a newer size, size 0 and garbage. */
static void counter_sizes(void)
{
	static union {
		struct rcb_gp_stats g;
		struct rcb_backlog b;
		unsigned char c[256];
	} v;
	const size_t gfull = sizeof(struct rcb_gp_stats);
	const size_t bfull = sizeof(struct rcb_backlog);

	CHECK_EQ(gfull, RCB_GP_STATS_SIZE_V1);
	CHECK_EQ(bfull, RCB_BACKLOG_SIZE_V1);
	CHECK_EQ(rcb_synchronize(), 0);

	/* An older caller (here: a layout ending after grace_periods). */
	memset(v.c, POISON, sizeof(v.c));
	v.g.size = 16;
	CHECK_EQ(rcb__gp_stats_sized(&v.g), -EINVAL); /* below V1 */
	v.g.size = 0;
	CHECK_EQ(rcb__gp_stats_sized(&v.g), 0);
	CHECK_EQ(v.g.size, 0);
	CHECK(all(v.c, gfull, sizeof(v.c), POISON));
	CHECK(v.g.synchronize_calls >= 1);

	/* A newer caller: size lowered to ours, the rest left alone. */
	memset(v.c, POISON, sizeof(v.c));
	v.g.size = gfull + EXTRA;
	CHECK_EQ(rcb__gp_stats_sized(&v.g), 0);
	CHECK_EQ(v.g.size, gfull);
	CHECK(all(v.c, gfull, sizeof(v.c), POISON));

	/* Garbage: refused before anything is written. */
	memset(v.c, POISON, sizeof(v.c));
	v.b.size = bfull + 3;
	CHECK_EQ(rcb__backlog_sized(&v.b), -EINVAL);
	CHECK(all(v.c, sizeof(size_t), sizeof(v.c), POISON));
	v.b.size = bfull;
	CHECK_EQ(rcb__backlog_sized(&v.b), 0);
	CHECK(all(v.c, bfull, sizeof(v.c), POISON));

	/* The header's calls stamp the caller's sizeof, whatever was there. */
	memset(v.c, POISON, sizeof(v.c));
	CHECK_EQ(rcb_stats(&v.g), 0);
	CHECK_EQ(v.g.size, gfull);
	memset(v.c, POISON, sizeof(v.c));
	CHECK_EQ(rcb_backlog(&v.b), 0);
	CHECK_EQ(v.b.size, bfull);
	CHECK(v.b.peak_callbacks >= v.b.callbacks);
}

int main(void)
{
	/* The refusals below are misuse reports, which abort by default in
	 * debug builds; rcb_init() later reads the same policy. */
	setenv("RCUBOOST_MISUSE", "warn", 1);
	stats_sizes();
	config_sizes();
	stats_sizes();
	counter_sizes();
	printf("ok\n");
	return 0;
}
