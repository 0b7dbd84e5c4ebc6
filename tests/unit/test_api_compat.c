/*
 * The deprecated names of renamed calls, called as a program linked
 * against the previous release calls them: by their exported symbols
 * (dlsym), with the previous prototypes.  Each must still exist and do
 * what its replacement does.  rcb_booster_tids() now takes a size_t
 * count: called through its previous int prototype it still counts, and
 * still refuses a negative count.  rcb_stats() and rcb_backlog() are
 * inline now (they set the structs' new size): their symbols still fill
 * the unsized layouts for older programs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rcuboost.h"
#include "tests/check.h"

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	if (!p) {
		fprintf(stderr, "%s is not exported\n", name);
		exit(1);
	}
	return p;
}

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int flag;

static void *signaller(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mtx);
	flag = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&mtx);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg),
				  .misuse = RCB_MISUSE_WARN };
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *,
			      const struct timespec *);
	int (*poll_)(struct pollfd *, unsigned long, int);
	int (*set_cpu)(int, struct rcb_worker *);
	int (*booster_tids_int)(pid_t *, int);
	struct timespec past = { 0, 0 };
	struct rcb_worker *w;
	pthread_t t;
	pid_t tid;
	void (*stats_v0)(uint64_t *), (*backlog_v0)(uint64_t *);
	uint64_t v0[8];

	CHECK_EQ(rcb_init(&cfg), 0);
	*(void **)&cond_wait = sym("rcb_cond_wait");
	*(void **)&cond_timedwait = sym("rcb_cond_timedwait");
	*(void **)&poll_ = sym("rcb_poll");
	*(void **)&set_cpu = sym("rcb_worker_set_cpu");
	*(void **)&booster_tids_int = sym("rcb_booster_tids");

	CHECK_EQ(poll_(NULL, 0, 0), 0);
	pthread_mutex_lock(&mtx);
	CHECK_EQ(cond_timedwait(&cond, &mtx, &past), ETIMEDOUT);
	CHECK(pthread_create(&t, NULL, signaller, NULL) == 0);
	while (!flag)
		CHECK_EQ(cond_wait(&cond, &mtx), 0);
	pthread_mutex_unlock(&mtx);
	CHECK(pthread_join(t, NULL) == 0);

	/* The previous argument order: CPU first. */
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK_EQ(set_cpu(0, w), 0);
	CHECK(rcb_worker_of_cpu(0) == w);
	CHECK_MISUSE(set_cpu(-1, w), -EINVAL);
	CHECK_EQ(set_cpu(0, NULL), 0);
	CHECK(rcb_worker_of_cpu(0) == NULL);
	CHECK_EQ(rcb_worker_destroy(w), 0);

	/* The previous int count, as compiled into an older program. */
	CHECK_EQ(booster_tids_int(&tid, 1), rcb_booster_tids(NULL, 0));
	CHECK_MISUSE(booster_tids_int(&tid, -1), -EINVAL);
	CHECK_MISUSE(rcb_booster_tids(&tid, (size_t)-1), -EINVAL);
	CHECK_MISUSE(rcb_booster_tids(&tid, (size_t)INT_MAX + 1), -EINVAL);

	/* The unsized layouts of struct rcb_gp_stats and struct
	 * rcb_backlog, as an older program's calls fill them: six and five
	 * counters, and not a byte past them. */
	CHECK_EQ(rcb_synchronize(), 0);
	*(void **)&stats_v0 = sym("rcb_stats");
	*(void **)&backlog_v0 = sym("rcb_backlog");
	memset(v0, 0xa5, sizeof(v0));
	stats_v0(v0);
	CHECK(v0[1] >= 1);                  /* synchronize_calls */
	CHECK(v0[5] < 1000);                /* registered_threads */
	CHECK(v0[6] == 0xa5a5a5a5a5a5a5a5ull);
	memset(v0, 0xa5, sizeof(v0));
	backlog_v0(v0);
	CHECK(v0[2] >= v0[0]);              /* peak_callbacks >= callbacks */
	CHECK(v0[5] == 0xa5a5a5a5a5a5a5a5ull);

	printf("ok: deprecated names still exported and working\n");
	return 0;
}
