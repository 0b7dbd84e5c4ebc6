/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: pipeline objects, poisoning and the quarantine.
 *
 * Freeing an object poisons it (magic TORTURE_MAGIC_FREED, generation
 * bumped, age forced to the pipeline end) and parks it in a FIFO
 * quarantine; only when the quarantine is full is its oldest object
 * handed to free().  A reader that still holds an object freed too early
 * therefore finds poison in valid memory, so the checker sees the bug
 * without help from a sanitizer, and under ASan the run never touches
 * memory that free() took back unless the bug outlives the quarantine.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "torture.h"

struct torture_obj *torture_current;

static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static struct torture_obj **quarantine;
static unsigned int q_head, q_count;

static unsigned long obj_data(unsigned long id, int i)
{
	return (id + 1) * 0x9e3779b97f4a7c15ul ^ (unsigned long)i;
}

int torture_objects_init(void)
{
	quarantine = calloc(tstate.opt.quarantine, sizeof(*quarantine));
	return quarantine ? 0 : -1;
}

struct torture_obj *torture_obj_alloc(void)
{
	struct torture_obj *o = malloc(sizeof(*o));

	if (!o) {
		fprintf(stderr, "rcuboost-torture: out of memory\n");
		abort();
	}
	memset(o, 0, sizeof(*o));
	o->id = atomic_fetch_add_explicit(&tstate.allocated, 1,
					  memory_order_relaxed);
	for (int i = 0; i < TORTURE_NDATA; i++)
		o->data[i] = obj_data(o->id, i);
	atomic_store_explicit(&o->pipe_count, 0, memory_order_relaxed);
	atomic_store_explicit(&o->gen, 0, memory_order_relaxed);
	atomic_store_explicit(&o->magic, TORTURE_MAGIC_LIVE,
			      memory_order_relaxed);
	/* Published by rcb_assign_pointer()/rcb_xchg_pointer() (release). */
	return o;
}

static void quarantine_push(struct torture_obj *o)
{
	struct torture_obj *victim = NULL;

	pthread_mutex_lock(&quarantine_lock);
	if (q_count == tstate.opt.quarantine) {
		victim = quarantine[q_head];
		quarantine[q_head] = o;
		q_head = (q_head + 1) % tstate.opt.quarantine;
	} else {
		quarantine[(q_head + q_count) % tstate.opt.quarantine] = o;
		q_count++;
	}
	pthread_mutex_unlock(&quarantine_lock);
	free(victim);
}

void torture_quarantine_drain(void)
{
	pthread_mutex_lock(&quarantine_lock);
	for (unsigned int i = 0; i < q_count; i++)
		free(quarantine[(q_head + i) % tstate.opt.quarantine]);
	q_head = q_count = 0;
	pthread_mutex_unlock(&quarantine_lock);
	free(quarantine);
	quarantine = NULL;
}

void torture_obj_free(struct torture_obj *o)
{
	unsigned int expect = TORTURE_MAGIC_LIVE;
	int age;

	if (!atomic_compare_exchange_strong_explicit(&o->magic, &expect,
						     TORTURE_MAGIC_FREED,
						     memory_order_relaxed,
						     memory_order_relaxed)) {
		/* Already poisoned: it is still quarantined (or the
		 * quarantine is too small to tell), do not park it twice. */
		torture_error(TORTURE_ERR_double_free,
			      "object %lu freed again (magic %#x)", o->id, expect);
		return;
	}
	age = atomic_load_explicit(&o->pipe_count, memory_order_relaxed);
	if (o->retire != TORTURE_RETIRE_EARLY &&
	    age != (int)tstate.opt.pipe_len)
		torture_error(TORTURE_ERR_premature_free,
			      "object %lu freed at age %d, pipeline length %u",
			      o->id, age, tstate.opt.pipe_len);
	if (age < 0 || age > TORTURE_MAX_PIPE)
		age = TORTURE_MAX_PIPE;
	torture_add(&tstate.freed_at_age[age], 1);
	atomic_store_explicit(&o->pipe_count, (int)tstate.opt.pipe_len,
			      memory_order_relaxed);
	atomic_fetch_add_explicit(&o->gen, 1, memory_order_relaxed);
	torture_add(&tstate.freed, 1);
	quarantine_push(o);
}

bool torture_obj_check(const struct torture_obj *o, unsigned int reader)
{
	unsigned int magic = atomic_load_explicit(&o->magic,
						  memory_order_relaxed);

	if (magic == TORTURE_MAGIC_FREED) {
		torture_error(
			TORTURE_ERR_poison,
			"reader %u: object %lu is poisoned (freed, generation %lu)",
			reader, o->id,
			atomic_load_explicit(&o->gen, memory_order_relaxed));
		return false;
	}
	if (magic != TORTURE_MAGIC_LIVE) {
		torture_error(TORTURE_ERR_corrupt,
			      "reader %u: object %p has magic %#x", reader,
			      (const void *)o, magic);
		return false;
	}
	for (int i = 0; i < TORTURE_NDATA; i++) {
		if (o->data[i] != obj_data(o->id, i)) {
			torture_error(TORTURE_ERR_corrupt,
				      "reader %u: object %lu data[%d] = %#lx, expected %#lx",
				      reader, o->id, i, o->data[i],
				      obj_data(o->id, i));
			return false;
		}
	}
	return true;
}

/*
 * The chained grace-period counter behind the "Reader Batch" check.  An
 * updater reads gp_seq (snap) before rcb_synchronize() and raises it to
 * snap + 1 after.  A reader whose critical section reads s first and
 * later s + 2 has a bug: the store of s + 2 came from an updater that
 * read s + 1, a value stored after the reader read s, so that updater's
 * grace period began after the reader's critical section did and must
 * have waited for it to end before storing.
 */
unsigned long torture_gp_snapshot(void)
{
	return atomic_load_explicit(&tstate.gp_seq, memory_order_acquire);
}

void torture_gp_advance(unsigned long snap)
{
	unsigned long cur = atomic_load_explicit(&tstate.gp_seq,
						 memory_order_relaxed);

	while (cur < snap + 1 &&
	       !atomic_compare_exchange_weak_explicit(&tstate.gp_seq, &cur,
						      snap + 1,
						      memory_order_release,
						      memory_order_relaxed))
		;
}
