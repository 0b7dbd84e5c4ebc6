/* Issue 11, item 8: a leaked rcb_read_lock() made every later
 * rcb_synchronize() hang with nothing on stderr.  With RCUBOOST_STALL_MS=1000
 * (set by CTest) a stall report naming the reader's thread ID and nesting
 * depth must appear on stderr within a generous bound.  Public API and the
 * environment only: the same program built against the old library fails. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int leaker_tid, release, synced;

static void *leaker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "leaker", 0, 0, 0);
	rcb_read_lock();
	rcb_read_lock(); /* nesting 2: the leak is an unbalanced pair */
	atomic_store(&leaker_tid, (int)gettid());
	while (!atomic_load(&release))
		usleep(1000);
	rcb_read_unlock();
	rcb_read_unlock();
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_synchronize(), 0);
	atomic_store(&synced, 1);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	char path[] = "/tmp/rcb-leak-XXXXXX", text[16384], want[96];
	int fd = mkstemp(path), saved = dup(2), found = 0;
	pthread_t l, s;
	double t0, waited = 0;
	ssize_t n = 0;

	CHECK(fd >= 0 && saved >= 0);
	unlink(path);
	CHECK(getenv("RCUBOOST_STALL_MS") && strcmp(getenv("RCUBOOST_STALL_MS"), "1000") == 0);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(pthread_create(&l, NULL, leaker, NULL), 0);
	while (!atomic_load(&leaker_tid))
		usleep(1000);
	snprintf(want, sizeof(want), "reader %d \"leaker\"", atomic_load(&leaker_tid));
	CHECK(dup2(fd, 2) == 2);
	t0 = now_s();
	CHECK_EQ(pthread_create(&s, NULL, syncer, NULL), 0);
	/* Poll the captured stderr; 10 s is a generous bound for 1 s. */
	while (!found && (waited = now_s() - t0) < 10) {
		usleep(20000);
		n = pread(fd, text, sizeof(text) - 1, 0);
		CHECK(n >= 0);
		text[n] = '\0';
		found = strstr(text, want) != NULL;
	}
	CHECK(dup2(saved, 2) == 2);
	printf("%s", text);
	printf("report after %.2f s\n", waited);
	CHECK(found);
	CHECK(!atomic_load(&synced));
	CHECK(strstr(text, "rcuboost: stall: grace period"));
	CHECK(strstr(strstr(text, want), "nesting 2"));
	atomic_store(&release, 1);
	pthread_join(l, NULL);
	pthread_join(s, NULL);
	CHECK(atomic_load(&synced));
	return 0;
}
