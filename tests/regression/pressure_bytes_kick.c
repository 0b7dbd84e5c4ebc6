/* Bug: rcb_call_sized() woke the boosters for a byte threshold at half the
 * threshold, and pressure mode began a period late: GCC 12.2 compiled the
 * running byte count "fetch_add(p, b) + b" as twice the old value. The kick
 * must come from the call that reaches the threshold, exactly. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/gp_holder.h"

static void free_head(struct rcb_head *h)
{
	free(h);
}

int main(void)
{
	struct rcb_config cfg = { .boost = 1, .pressure_bytes = 64 * 4096 };
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct sched_param sp = { .sched_priority = 1 };
	struct gp_holder holder;
	int kicked_at = 0;

	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
		fprintf(stderr, "skip: the booster needs real-time priority\n");
		return 77;
	}
	sp.sched_priority = 0;
	CHECK(sched_setscheduler(0, SCHED_OTHER, &sp) == 0);
	alarm(30);
	CHECK(rcb_init(&cfg) == 0);
	gp_holder_start(&holder);
	for (int i = 1; i <= 100 && !kicked_at; i++) {
		struct rcb_head_sized *h = malloc(sizeof(*h));

		CHECK(h && rcb_call_sized(h, free_head, 4096) == 0);
		rcb_boost_stats(&s);
		if (s.pressure_kicks)
			kicked_at = i;
	}
	gp_holder_release(&holder);
	printf("kicked by callback %d (threshold: 64 x 4096 bytes)\n", kicked_at);
	CHECK(kicked_at == 64);
	CHECK(rcb_shutdown() == 0);
	return 0;
}
