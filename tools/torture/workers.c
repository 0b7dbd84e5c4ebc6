/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: readers, writers, fake writers, the barrier thread,
 * and the final drain.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

#include "torture.h"

/* Serialises the read-modify-publish of torture_current between writers
 * (rcb_assign_pointer() needs it; rcb_xchg_pointer() runs under it too so
 * that the two kinds never interleave). */
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;

static bool stopping(void)
{
	return atomic_load_explicit(&tstate.stop, memory_order_acquire);
}

static void api_check(int err, const char *call)
{
	if (err)
		torture_error(TORTURE_ERR_api, "%s returned %d (%s)", call, err,
			      strerror(-err));
}

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		atomic_signal_fence(memory_order_seq_cst);
}

/* ------------------------------------------------------------------ */
/* Readers                                                            */
/* ------------------------------------------------------------------ */

/* A random delay inside a critical section.  Returns true if it slept. */
static bool reader_delay(uint64_t *rng)
{
	uint64_t r = tool_rand(rng);
	unsigned int pick = r % 1024;

	r >>= 10;
	if (pick < 128)
		return false;
	if (pick < 900) {
		spin(r % 256);
		return false;
	}
	if (pick < 990) {
		sched_yield();
		return false;
	}
	if (pick < 1012) {
		spin(r % 50000);
		return false;
	}
	/* Block inside the critical section for 1..200 us. */
	tool_sleep_ns(1000 + r % 200000);
	return true;
}

static void record(_Atomic unsigned long *hist, unsigned long v)
{
	if (v > tstate.opt.pipe_len)
		v = tstate.opt.pipe_len;
	torture_inc(&hist[v]);
}

static bool normal_delay(void *ctx, uint64_t *rng)
{
	(void)ctx;
	return reader_delay(rng);
}

void torture_read_section(struct torture_reader *rd, uint64_t *rng,
			  torture_delay_fn delay, void *ctx)
{
	uint64_t r = tool_rand(rng);
	unsigned int depth = 1, extra = r % 8;
	struct torture_obj *p;
	unsigned long b0, b1, g0, g1;
	int pipe0, pipe1, pipe;
	bool slept = false;

	/* Nest 2 or 3 deep in a quarter of the sections. */
	if (extra < 2)
		depth += extra + 1;
	r >>= 3;
	for (unsigned int i = 0; i < depth; i++)
		rcb_read_lock();
	if (!rcb_read_ongoing())
		torture_error(TORTURE_ERR_nesting,
			      "reader %u: rcb_read_ongoing() is 0 at depth %u",
			      rd->idx, depth);
	b0 = atomic_load_explicit(&tstate.gp_seq, memory_order_relaxed);
	p = rcb_dereference(torture_current);
	if (!p) {
		torture_error(TORTURE_ERR_null,
			      "reader %u: no current object", rd->idx);
		goto out;
	}
	g0 = atomic_load_explicit(&p->gen, memory_order_relaxed);
	pipe0 = atomic_load_explicit(&p->pipe_count, memory_order_relaxed);
	if (!torture_obj_check(p, rd->idx))
		goto out;

	if (!delay)
		delay = normal_delay;
	slept = delay(ctx, rng);
	/* Leave the inner sections halfway: the outer one still protects. */
	if (depth > 1 && (r & 1)) {
		while (depth > 1) {
			rcb_read_unlock();
			depth--;
		}
		slept |= delay(ctx, rng);
	}

	pipe1 = atomic_load_explicit(&p->pipe_count, memory_order_relaxed);
	g1 = atomic_load_explicit(&p->gen, memory_order_relaxed);
	b1 = atomic_load_explicit(&tstate.gp_seq, memory_order_relaxed);
	/* A poisoned object still has its age: record it too. */
	if (torture_obj_check(p, rd->idx) && g1 != g0)
		torture_error(TORTURE_ERR_poison,
			      "reader %u: object %lu generation changed %lu -> %lu",
			      rd->idx, p->id, g0, g1);
	pipe = pipe1 > pipe0 ? pipe1 : pipe0;
	if (pipe < 0)
		pipe = 0;
	record(rd->pipe, (unsigned long)pipe);
	if (pipe > 1)
		torture_error(TORTURE_ERR_pipe,
			      "reader %u: object %lu reached age %d (was %d) inside one critical section",
			      rd->idx, p->id, pipe1, pipe0);
	record(rd->batch, b1 - b0);
	if (b1 - b0 > 1)
		torture_error(TORTURE_ERR_batch,
			      "reader %u: grace-period chain went %lu -> %lu inside one critical section",
			      rd->idx, b0, b1);
out:
	while (depth--)
		rcb_read_unlock();
	if (rcb_read_ongoing())
		torture_error(TORTURE_ERR_nesting,
			      "reader %u: rcb_read_ongoing() is 1 after the outermost unlock",
			      rd->idx);
	torture_inc(&rd->reads);
	if (slept)
		torture_inc(&rd->blocked);
}

void *torture_reader_fn(void *arg)
{
	struct torture_reader *rd = arg;
	uint64_t rng =
		tstate.opt.seed ^ (0x100 + rd->idx) * 0x9e3779b97f4a7c15ull;
	struct tool_sattr orig;
	bool watch = false;
	unsigned long n = 0;

	tool_name_thread("rcbt-reader", (int)rd->idx);
	api_check(rcb_register_thread(), "rcb_register_thread");
	/* With --boost these readers too are preempted and boosted now and
	 * then: sample their attributes for a residual boost. */
	if (tstate.opt.boost)
		watch = tool_sattr_get(0, &orig) == 0;
	while (!stopping()) {
		torture_read_section(rd, &rng, NULL, NULL);
		if (watch && (++n & 511) == 0)
			torture_boost_check_attrs(
				&orig, TORTURE_ERR_boost_residual, "reader",
				rd->idx, "after its outermost unlock");
	}
	if (watch)
		torture_boost_check_attrs(&orig, TORTURE_ERR_boost_residual,
					  "reader", rd->idx, "at its end");
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Retirement                                                         */
/* ------------------------------------------------------------------ */

static struct torture_obj *obj_of(struct rcb_head *h)
{
	return (struct torture_obj *)((char *)h -
				      offsetof(struct torture_obj, rh.head));
}

/* A grace period from an updater, advancing the chained counter. */
static int updater_synchronize(void)
{
	unsigned long snap = torture_gp_snapshot();
	int err = tstate.opt.inject_no_sync ? 0 : rcb_synchronize();

	api_check(err, "rcb_synchronize");
	if (!err)
		torture_gp_advance(snap);
	return err;
}

/* One pipeline step per grace period; re-queue until the end. */
static void torture_cb(struct rcb_head *h)
{
	struct torture_obj *o = obj_of(h);
	int age =
		atomic_load_explicit(&o->pipe_count, memory_order_relaxed) + 1;
	int err;

	atomic_store_explicit(&o->pipe_count, age, memory_order_relaxed);
	/* rcb_synchronize() is allowed in a callback: now and then, stall
	 * the callback thread for a grace period of its own. */
	if (o->id % 61 == 0 && age == 2) {
		updater_synchronize();
		torture_add(&tstate.cb_syncs, 1);
	}
	if (age >= (int)tstate.opt.pipe_len) {
		torture_obj_free(o);
	} else {
		err = rcb_call(h, torture_cb);
		api_check(err, "rcb_call (from a callback)");
		if (!err)
			atomic_fetch_add_explicit(&tstate.calls_queued, 1,
						  memory_order_release);
	}
	/* [TB-I] pairs with the acquire in barrier_check(). */
	atomic_fetch_add_explicit(&tstate.calls_invoked, 1,
				  memory_order_release);
}

/* Age every object on @list by one grace period; free those at the end. */
static void sync_list_advance(struct torture_obj **list)
{
	struct torture_obj **pp = list, *o;
	int age;

	while ((o = *pp)) {
		age = atomic_load_explicit(&o->pipe_count,
					   memory_order_relaxed) +
		      1;
		atomic_store_explicit(&o->pipe_count, age,
				      memory_order_relaxed);
		if (age >= (int)tstate.opt.pipe_len) {
			*pp = o->next;
			torture_obj_free(o);
		} else {
			pp = &o->next;
		}
	}
}

static void retire(struct torture_obj *old, struct torture_obj **sync_list,
		   uint64_t *rng)
{
	uint64_t r = tool_rand(rng);
	int err;

	/* Age 1: removed, no grace period yet. */
	atomic_store_explicit(&old->pipe_count, 1, memory_order_relaxed);
	if (tstate.opt.inject_early_free) {
		old->retire = TORTURE_RETIRE_EARLY;
		torture_obj_free(old);
		return;
	}
	if (r & 1) {
		old->retire = TORTURE_RETIRE_SYNC;
		old->next = *sync_list;
		*sync_list = old;
		torture_add(&tstate.retired_sync, 1);
		return;
	}
	old->retire = TORTURE_RETIRE_CALL;
	torture_add(&tstate.retired_call, 1);
	/* rcb_call() is allowed inside a read-side critical section. */
	if (r & 4)
		rcb_read_lock();
	if (r & 2)
		err = rcb_call_sized(&old->rh, torture_cb, sizeof(*old));
	else
		err = rcb_call(&old->rh.head, torture_cb);
	if (r & 4)
		rcb_read_unlock();
	api_check(err, "rcb_call");
	if (!err)
		atomic_fetch_add_explicit(&tstate.calls_queued, 1,
					  memory_order_release);
}

/* ------------------------------------------------------------------ */
/* Writers                                                            */
/* ------------------------------------------------------------------ */

void *torture_writer_fn(void *arg)
{
	unsigned int idx = (unsigned int)(uintptr_t)arg;
	uint64_t rng = tstate.opt.seed ^ (0x200 + idx) * 0x9e3779b97f4a7c15ull;
	struct torture_obj *sync_list = NULL, *n, *old;
	uint64_t r;

	tool_name_thread("rcbt-writer", (int)idx);
	api_check(rcb_register_thread(), "rcb_register_thread");
	while (!stopping()) {
		n = torture_obj_alloc();
		r = tool_rand(&rng);
		pthread_mutex_lock(&update_lock);
		if (r & 1) {
			old = rcb_xchg_pointer(&torture_current, n);
		} else {
			old = __atomic_load_n(&torture_current,
					      __ATOMIC_RELAXED);
			rcb_assign_pointer(torture_current, n);
		}
		pthread_mutex_unlock(&update_lock);
		torture_add(&tstate.updates, 1);
		retire(old, &sync_list, &rng);
		if (sync_list) {
			updater_synchronize();
			torture_add(&tstate.writer_syncs, 1);
			sync_list_advance(&sync_list);
		}
		r >>= 1;
		if (r % 4 == 0)
			tool_sleep_ns(1000 + (r >> 2) % 100000);
		else
			spin((r >> 2) % 2000);
	}
	/* Finish the synchronous pipeline this writer started. */
	while (sync_list) {
		updater_synchronize();
		torture_add(&tstate.writer_syncs, 1);
		sync_list_advance(&sync_list);
	}
	return NULL;
}

void *torture_fake_writer_fn(void *arg)
{
	unsigned int idx = (unsigned int)(uintptr_t)arg;
	uint64_t rng = tstate.opt.seed ^ (0x300 + idx) * 0x9e3779b97f4a7c15ull;
	uint64_t r;

	tool_name_thread("rcbt-fake", (int)idx);
	while (!stopping()) {
		updater_synchronize();
		torture_add(&tstate.fake_syncs, 1);
		r = tool_rand(&rng);
		if (r % 4)
			tool_sleep_ns(1000 + (r >> 2) % 500000);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Barrier thread                                                     */
/* ------------------------------------------------------------------ */

/*
 * rcb_barrier() must wait for every callback queued before it: every
 * rcb_call() that returned before the snapshot of calls_queued has been
 * invoked when rcb_barrier() returns.
 */
static void barrier_check(void)
{
	/* [TB-Q] pairs with the release increments after rcb_call(). */
	unsigned long queued = atomic_load_explicit(&tstate.calls_queued,
						    memory_order_acquire);
	unsigned long invoked;
	int err = rcb_barrier();

	api_check(err, "rcb_barrier");
	if (err)
		return;
	/* [TB-IA] pairs with [TB-I] in torture_cb(). */
	invoked = atomic_load_explicit(&tstate.calls_invoked,
				       memory_order_acquire);
	if (invoked < queued)
		torture_error(TORTURE_ERR_barrier,
			      "rcb_barrier() returned with %lu callbacks invoked, %lu queued before it",
			      invoked, queued);
	torture_add(&tstate.barriers, 1);
}

void *torture_barrier_fn(void *arg)
{
	uint64_t rng = tstate.opt.seed ^ 0x400 * 0x9e3779b97f4a7c15ull;

	(void)arg;
	tool_name_thread("rcbt-barrier", -1);
	while (!stopping()) {
		tool_sleep_ns(1000000 + tool_rand(&rng) % 20000000);
		barrier_check();
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Churn: short-lived readers                                         */
/* ------------------------------------------------------------------ */

/*
 * One short-lived reader: registers explicitly or lets its first
 * rcb_read_lock() do it, runs a few critical sections, and exits either
 * unregistered or still registered (the library's exit destructor then
 * unregisters it).  Grace periods run concurrently the whole time.
 */
static void *churn_child_fn(void *arg)
{
	struct torture_reader *rd = arg;
	uint64_t rng =
		tstate.opt.seed ^ (0x500 + torture_get(&tstate.churn_threads)) *
					  0x9e3779b97f4a7c15ull;
	uint64_t r = tool_rand(&rng);
	unsigned int n = 1 + (r >> 2) % 64, i;

	tool_name_thread("rcbt-churn", -1);
	if (r & 1)
		api_check(rcb_register_thread(), "rcb_register_thread");
	for (i = 0; i < n && !stopping(); i++)
		torture_read_section(rd, &rng, NULL, NULL);
	/* Only a registered thread may unregister: one that relied on its
	 * first rcb_read_lock() and met the stop first never registered. */
	if ((r & 2) && ((r & 1) || i))
		api_check(rcb_unregister_thread(), "rcb_unregister_thread");
	return NULL;
}

void *torture_churn_fn(void *arg)
{
	struct torture_reader *rd = arg;
	uint64_t rng = tstate.opt.seed ^ 0x600 * 0x9e3779b97f4a7c15ull;
	pthread_t child;
	int err;

	tool_name_thread("rcbt-churner", -1);
	while (!stopping()) {
		err = pthread_create(&child, NULL, churn_child_fn, rd);
		if (err) {
			/* Out of threads for a moment: not the library's fault.
			 */
			tool_sleep_ns(1000000);
			continue;
		}
		pthread_join(child, NULL);
		torture_add(&tstate.churn_threads, 1);
		if (tool_rand(&rng) % 2)
			tool_sleep_ns(1000 + tool_rand(&rng) % 1000000);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Final drain (main thread, after every worker has been joined)       */
/* ------------------------------------------------------------------ */

void torture_final_drain(void)
{
	struct torture_obj *last;
	unsigned int i;

	pthread_mutex_lock(&update_lock);
	last = rcb_xchg_pointer(&torture_current, NULL);
	pthread_mutex_unlock(&update_lock);
	if (last) {
		struct torture_obj *list = last;

		atomic_store_explicit(&last->pipe_count, 1,
				      memory_order_relaxed);
		last->retire = TORTURE_RETIRE_SYNC;
		last->next = NULL;
		torture_add(&tstate.retired_sync, 1);
		while (list && updater_synchronize() == 0)
			sync_list_advance(&list);
	}
	/* Each barrier moves every callback chain at least one step. */
	for (i = 0; i < tstate.opt.pipe_len + 2; i++) {
		if (torture_get(&tstate.freed) ==
		    torture_get(&tstate.allocated))
			break;
		barrier_check();
	}
}
