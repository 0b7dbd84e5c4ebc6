/* Stall detector, a reader starved by real-time work with boosting off: a
 * SCHED_FIFO 10 reader pinned to CPU 0 is preempted inside its critical
 * section by a SCHED_FIFO 40 hog pinned to CPU 0 (bounded to HOG_S); the
 * stall report must call the reader runnable, not running, and name the
 * hog's thread ID among the threads runnable on CPU 0. */
#include "tests/boost/rt.h"
#include "rcuboost.h"

/* The report is due 300 ms into the hog, which the test waits for
 * until half a second before the hog ends: 2 s leaves 1.5 s, five times
 * the stall threshold.  A sanitizer build keeps 4 s (3.5 s to wait). */
#define HOG_S (RCB_TEST_SANITIZED ? 4.0 : 2.0)

static atomic_int in_section, hog_tid, release, synced, reader_tid;
static char report[16384];

static void *reader(void *arg)
{
	double end;

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	atomic_store(&reader_tid, (int)gettid());
	rcb_read_lock();
	atomic_store(&in_section, 1);
	/* Busy inside the section until told (or 20 s at most). */
	end = rt_now() + 20;
	while (!atomic_load(&release) && rt_now() < end)
		;
	rcb_read_unlock();
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static void *hog(void *arg)
{
	(void)arg;
	CHECK(rt_set(0, SCHED_FIFO, 40, 0) == 0);
	rt_pin(0);
	atomic_store(&hog_tid, (int)gettid());
	rt_spin(HOG_S);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	rt_pin(1);
	CHECK_EQ(rcb_synchronize(), 0);
	atomic_store(&synced, 1);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = -1, .stall_ms = 300 };
	pthread_t r, h, s;
	char want[96];
	double t0;
	int n = 0;

	rt_require();
	rt_watchdog(60);
	CHECK(sysconf(_SC_NPROCESSORS_ONLN) >= 2);
	CHECK_EQ(rcb_init(&cfg), 0);
	rt_pin(1);
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	while (!atomic_load(&in_section))
		usleep(1000);
	CHECK_EQ(pthread_create(&h, NULL, hog, NULL), 0);
	while (!atomic_load(&hog_tid))
		usleep(1000);
	CHECK_EQ(pthread_create(&s, NULL, syncer, NULL), 0);
	/* The report comes 300 ms into the hog; poll with a bound. */
	t0 = rt_now();
	while (n == 0 && rt_now() - t0 < HOG_S - 0.5) {
		usleep(10000);
		n = rcb_stall_report(report, sizeof(report), 0);
		CHECK(n >= 0);
	}
	atomic_store(&release, 1);
	printf("%s", report);
	CHECK(n > 0);
	snprintf(want, sizeof(want), "reader %d \"", atomic_load(&reader_tid));
	CHECK(strstr(report, want) != NULL);
	CHECK(strstr(strstr(report, want), "runnable, not running (R) on CPU 0, SCHED_FIFO 10, boosting off") != NULL);
	snprintf(want, sizeof(want), "runnable on CPU 0: thread %d \"", atomic_load(&hog_tid));
	CHECK(strstr(report, want) != NULL);
	CHECK(strstr(strstr(report, want), "(this process), SCHED_FIFO 40") != NULL);
	pthread_join(h, NULL);
	pthread_join(r, NULL);
	pthread_join(s, NULL);
	CHECK(atomic_load(&synced));
	printf("hog %d named in the stall report\n", atomic_load(&hog_tid));
	return 0;
}
