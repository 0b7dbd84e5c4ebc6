/* Concurrency smoke: nested readers never see an RCU-protected object freed
 * while synchronize and call updaters replace it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define NSLOTS 4
#define NREADERS 3
#define QUARANTINE 8192
#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu

struct obj {
	struct rcb_head head;
	_Atomic unsigned int magic;
	unsigned long seq;
	unsigned long check;
};

static struct obj *slots[NSLOTS];
static atomic_int stop;
static atomic_long reads, violations, sync_updates, call_updates, retired;
static int no_grace;

/* Poisoned objects wait here before free(), so a late reader finds the
 * poison rather than reused memory. */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static struct obj *quarantine[QUARANTINE];
static unsigned long q_next;
static struct obj **kept;

static void retire(struct obj *o)
{
	struct obj *old;

	atomic_store_explicit(&o->magic, DEAD, memory_order_relaxed);
	__atomic_store_n(&o->seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&o->check, 0, __ATOMIC_RELAXED);
	pthread_mutex_lock(&q_lock);
	if (no_grace) {
		/* Readers may still hold anything: free nothing until the end.
		 */
		if (q_next % QUARANTINE == 0) {
			kept = realloc(kept,
				       (q_next + QUARANTINE) * sizeof(*kept));
			CHECK(kept);
		}
		kept[q_next++] = o;
		old = NULL;
	} else {
		old = quarantine[q_next % QUARANTINE];
		quarantine[q_next % QUARANTINE] = o;
		q_next++;
	}
	pthread_mutex_unlock(&q_lock);
	free(old);
	atomic_fetch_add(&retired, 1);
}

static void retire_cb(struct rcb_head *h)
{
	retire((struct obj *)h);
}

static struct obj *new_obj(unsigned long seq)
{
	struct obj *o = malloc(sizeof(*o));

	CHECK(o);
	o->seq = seq;
	o->check = ~seq;
	atomic_store_explicit(&o->magic, LIVE, memory_order_relaxed);
	return o;
}

static void check_obj(struct obj *p, const char *where)
{
	if (atomic_load_explicit(&p->magic, memory_order_relaxed) != LIVE ||
	    __atomic_load_n(&p->check, __ATOMIC_RELAXED) !=
		    ~__atomic_load_n(&p->seq, __ATOMIC_RELAXED)) {
		if (atomic_fetch_add(&violations, 1) < 5)
			fprintf(stderr, "%s: object %p seen freed (magic %#x)\n",
				where, (void *)p, atomic_load(&p->magic));
	}
}

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

static void *reader(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int depth = 1 + (int)(rnd(&seed) % 3);
		struct obj *held[3];

		for (int d = 0; d < depth; d++) {
			rcb_read_lock();
			held[d] = rcb_dereference(slots[rnd(&seed) % NSLOTS]);
			check_obj(held[d], "reader");
		}
		switch (rnd(&seed) % 64) {
		case 0:
			usleep(200);
			break;
		case 1:
		case 2:
			sched_yield();
			break;
		}
		for (int d = depth - 1; d >= 0; d--) {
			check_obj(held[d], "reader after a pause");
			rcb_read_unlock();
		}
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *sync_updater(void *arg)
{
	unsigned long seq = 1;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct obj *old = rcb_xchg_pointer(&slots[seq % NSLOTS],
						    new_obj(seq));

		if (!no_grace)
			CHECK_EQ(rcb_synchronize(), 0);
		retire(old);
		seq++;
		atomic_fetch_add(&sync_updates, 1);
	}
	return NULL;
}

static void *call_updater(void *arg)
{
	unsigned long seq = 1;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct obj *old = rcb_xchg_pointer(&slots[(seq * 7) % NSLOTS],
						    new_obj(seq));

		/* Callbacks may be queued inside a critical section. */
		if (seq % 2)
			rcb_read_lock();
		CHECK_EQ(rcb_call(&old->head, retire_cb), 0);
		if (seq % 2)
			rcb_read_unlock();
		if (seq % 512 == 0)
			CHECK_EQ(rcb_barrier(), 0);
		else if (seq % 64 == 0)
			usleep(100);
		seq++;
		atomic_fetch_add(&call_updates, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t r[NREADERS], su, cu;
	double seconds = 2.0;
	struct rcb_gp_stats st;
	struct rcb_backlog bl;
	int expect_violation = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-grace") == 0)
			no_grace = expect_violation = 1;
		else
			seconds = atof(argv[i]);
	}
	alarm((unsigned int)seconds + 60);
	for (int i = 0; i < NSLOTS; i++)
		slots[i] = new_obj(0);
	for (int i = 0; i < NREADERS; i++)
		CHECK_EQ(pthread_create(&r[i], NULL, reader,
					(void *)(uintptr_t)(i + 1)), 0);
	CHECK_EQ(pthread_create(&su, NULL, sync_updater, NULL), 0);
	if (!no_grace)
		CHECK_EQ(pthread_create(&cu, NULL, call_updater, NULL), 0);
	usleep((useconds_t)(seconds * 1e6));
	atomic_store(&stop, 1);
	for (int i = 0; i < NREADERS; i++)
		CHECK_EQ(pthread_join(r[i], NULL), 0);
	CHECK_EQ(pthread_join(su, NULL), 0);
	if (!no_grace)
		CHECK_EQ(pthread_join(cu, NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);

	rcb_stats(&st);
	rcb_backlog(&bl);
	printf("reads %ld sync-updates %ld call-updates %ld grace-periods %llu "
	       "violations %ld\n", atomic_load(&reads), atomic_load(&sync_updates),
	       atomic_load(&call_updates), (unsigned long long)st.grace_periods,
	       atomic_load(&violations));
	if (expect_violation) {
		CHECK(atomic_load(&violations) > 0);
		for (unsigned long i = 0; i < q_next; i++)
			free(kept[i]);
		free(kept);
		for (int i = 0; i < NSLOTS; i++)
			free(slots[i]);
		return 0;
	}
	CHECK_EQ(atomic_load(&violations), 0);
	CHECK(atomic_load(&reads) > 0);
	CHECK(atomic_load(&sync_updates) > 0);
	CHECK(atomic_load(&call_updates) > 0);
	CHECK_EQ(atomic_load(&retired),
		 atomic_load(&sync_updates) + atomic_load(&call_updates));
	CHECK_EQ(bl.callbacks, 0);
	CHECK_EQ(bl.invoked, atomic_load(&call_updates));
	CHECK(st.grace_periods > 0);
	CHECK_EQ(st.misuse, 0);
	CHECK_EQ(rcb_shutdown(), 0);
	for (int i = 0; i < NSLOTS; i++)
		free(slots[i]);
	for (int i = 0; i < QUARANTINE; i++)
		free(quarantine[i]);
	return 0;
}
