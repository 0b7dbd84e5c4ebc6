/* Bug: rcb_call_sized() woke the boosters for a byte threshold at half the threshold, and pressure mode began a period late: GCC 12.2 compiled the running byte count "fetch_add(p, b) + b" as twice the old value.  The kick must come from the call that reaches the threshold, exactly. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int release_reader, in_cs;

static void free_head(struct rcb_head *h)
{
	free(h);
}

/* Holds up every grace period, so nothing is invoked meanwhile. */
static void *reader(void *arg)
{
	(void)arg;
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&in_cs, 1);
	while (!atomic_load(&release_reader))
		usleep(100);
	rcb_read_unlock();
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = 1, .pressure_bytes = 64 * 4096 };
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct sched_param sp = { .sched_priority = 1 };
	pthread_t r;
	int kicked_at = 0;

	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
		fprintf(stderr, "skip: the booster needs real-time priority\n");
		return 77;
	}
	sp.sched_priority = 0;
	CHECK(sched_setscheduler(0, SCHED_OTHER, &sp) == 0);
	alarm(30);
	CHECK(rcb_init(&cfg) == 0);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_cs))
		usleep(100);
	for (int i = 1; i <= 100 && !kicked_at; i++) {
		struct rcb_head_sized *h = malloc(sizeof(*h));

		CHECK(h && rcb_call_sized(h, free_head, 4096) == 0);
		rcb_boost_stats(&s);
		if (s.pressure_kicks)
			kicked_at = i;
	}
	atomic_store(&release_reader, 1);
	pthread_join(r, NULL);
	printf("kicked by callback %d (threshold: 64 x 4096 bytes)\n", kicked_at);
	CHECK(kicked_at == 64);
	CHECK(rcb_shutdown() == 0);
	return 0;
}
