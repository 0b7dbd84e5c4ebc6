/* A second hostile-user probe (2026-12-06) found a booster running the
 * application's SIGALRM handler: the library's boosters and callback
 * threads took the process's signals (only the pi helpers blocked
 * them), so a process-directed signal could run an application handler
 * at the booster's real-time priority, or inside a grace period.  Every
 * library thread now blocks every signal (as liburcu's call_rcu threads
 * do).
 *
 * Starts the boosters and the callback thread, then reads each one's
 * blocked set (SigBlk in /proc/self/task/TID/status): SIGALRM, SIGTERM,
 * SIGUSR1 and SIGINT must be in it. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static void nop_cb(struct rcb_head *h)
{
	(void)h;
}

/* SigBlk of thread @tid, or 0 if unreadable. */
static unsigned long long sigblk(pid_t tid)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7))
			v = strtoull(line + 7, NULL, 16);
	fclose(f);
	return v;
}

int main(void)
{
	static struct rcb_head h;
	const int sigs[] = { SIGALRM, SIGTERM, SIGUSR1, SIGINT };
	pid_t tids[32];
	int n, nb, checked = 0;

	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_call(&h, nop_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	nb = rcb_booster_tids(tids, 16);
	if (nb > 16)
		nb = 16;
	n = rcb_callback_tids(tids + nb, 16);
	if (n > 16)
		n = 16;
	n += nb;
	CHECK(n >= 1);
	for (int i = 0; i < n; i++) {
		unsigned long long b = sigblk(tids[i]);

		printf("thread %d (%s): SigBlk %016llx\n", (int)tids[i],
		       i < nb ? "booster" : "callback", b);
		for (unsigned int s = 0; s < sizeof(sigs) / sizeof(sigs[0]);
		     s++)
			CHECK(b & (1ull << (sigs[s] - 1)));
		checked++;
	}
	printf("%d library threads block the application's signals\n", checked);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
