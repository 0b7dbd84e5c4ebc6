/* SPDX-License-Identifier: MIT */
/*
 * Callbacks: rcb_call(), the callback thread, rcb_barrier() and the
 * backlog.
 *
 * Algorithm.  rcb_call() appends to one intrusive multi-producer,
 * single-consumer queue with a stub node: a producer exchanges the tail
 * and then links the previous tail to its node (wait-free: no loop).  The
 * callback thread sleeps on cb_futex while the queue is empty, splices
 * everything queued into a batch, waits for one grace period
 * (rcb_synchronize()), then invokes the batch in queue order.
 * rcb_barrier() queues a marker and waits until the thread reaches it.
 *
 * Invariants.
 *  1. Only the callback thread (or, when it is not running, a caller
 *     holding cb_lock) removes nodes; producers only append.
 *  2. A node is invoked only after a grace period that started after it
 *     was queued: the splice that takes it precedes rcb_synchronize().
 *  3. Queue order is invocation order, so a barrier marker is reached
 *     only after every node queued before it has been invoked.
 *  4. cb_futex is -1 only while the callback thread may sleep on an empty
 *     queue; a producer that sees -1 after its enqueue wakes it.
 *  5. pending/pending_bytes count every user callback from rcb_call*()
 *     until its invocation returns; barrier markers are not counted.
 *  6. rcb_call() runs its check of rcb__running and its enqueue inside a
 *     read-side critical section, so rcb_shutdown()'s grace period
 *     separates every accepted enqueue from the stop of the thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "internal.h"

static struct {
	struct rcb_head *_Atomic tail;
	struct rcb_head stub;
} q = { .tail = &q.stub };

static _Atomic int cb_futex;
static _Atomic bool cb_started;  /* callback thread created and not joined */
static _Atomic bool cb_stop;
static pthread_t cb_thread;
static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic unsigned long long pending, pending_bytes;
static _Atomic unsigned long long peak, peak_bytes, invoked;

/* ---- queue -------------------------------------------------------- */

static bool queue_empty(void)
{
	/* [CB-E] seq_cst: the consumer's side of [CB-S]/[CB-Q]. */
	return rcb_load_seq_cst(&q.tail) == &q.stub;
}

/*
 * pending_bytes += @bytes; returns the new value.  Written with an empty
 * asm between the fetch-add and the addition: GCC 12.2 (Debian 12)
 * compiles "if (b) x = fetch_add(p, b) + b" (and __atomic_add_fetch) at
 * every -O level into "lock xadd %r, p; add %r, %r", twice the old
 * value, since xadd overwrites the register that held b
 * (tests/regression/pressure_bytes_kick.c).
 */
static unsigned long long add_return_bytes(unsigned long long bytes)
{
	unsigned long long old = rcb_add_relaxed(&pending_bytes, bytes);

	__asm__("" : "+r"(old));
	return old + bytes;
}

static void enqueue(struct rcb_head *h)
{
	struct rcb_head *prev;

	rcb_store_relaxed(&h->next, NULL);
	/* [CB-Q] The exchange orders the node's initialisation (func,
	 * bytes, next) before its publication, and is sequentially
	 * consistent for the handshake with the sleeping consumer:
	 * pairs with [CB-S] in wait_for_work(). */
	prev = rcb_xchg_seq_cst(&q.tail, h);
	/* [CB-L] Link after publishing the tail; pairs with [CB-N] in
	 * next_of(), which waits for this store. */
	rcb_store_release(&prev->next, h);
}

/* Successor of @n in a batch; waits for a producer that exchanged the
 * tail but has not linked yet (it is between two stores). */
static struct rcb_head *next_of(struct rcb_head *n)
{
	struct rcb_head *next;
	int spins = 0;

	/* [CB-N] pairs with [CB-L] in enqueue(). */
	while (!(next = rcb_load_acquire(&n->next))) {
		if (++spins < 100)
			rcb_cpu_relax();
		else
			sched_yield();
	}
	return next;
}

/* Take everything queued: *first..*last.  False if empty.  Consumer. */
static bool splice(struct rcb_head **first, struct rcb_head **last)
{
	if (queue_empty())
		return false;
	*first = next_of(&q.stub);
	/* No producer writes stub.next until the tail points at the stub
	 * again, which only our exchange below does. */
	rcb_store_relaxed(&q.stub.next, NULL);
	/* [CB-X] pairs with [CB-Q]: every node up to *last is ours. */
	*last = rcb_xchg_acq_rel(&q.tail, &q.stub);
	return true;
}

/* ---- barrier markers ------------------------------------------------ */

struct barrier_marker {
	struct rcb_head head;
	_Atomic int done;
};

static void barrier_reached(struct rcb_head *h)
{
	struct barrier_marker *m = (struct barrier_marker *)h;

	/* [CB-B] pairs with [CB-W] in rcb_barrier(): callbacks before the
	 * marker are complete. */
	rcb_store_release(&m->done, 1);
	rcb__futex_wake(&m->done, 1);
}

/* ---- the callback thread ------------------------------------------ */

static void wait_for_work(void)
{
	while (queue_empty() && !rcb_load_seq_cst(&cb_stop)) { /* [CB-S] */
		/* [CB-S] Announce the sleep before re-checking the queue and
		 * the stop flag: store-buffering with the producer's exchange
		 * and its load of cb_futex, and with the stopper's two
		 * stores.  Pairs with [CB-Q], [CB-F] and [CB-STOP]. */
		rcb_store_seq_cst(&cb_futex, -1);
		if (!queue_empty() || rcb_load_seq_cst(&cb_stop)) { /* [CB-S] */
			rcb_store_relaxed(&cb_futex, 0);
			break;
		}
		rcb__futex_wait(&cb_futex, -1, 0);
		rcb_store_relaxed(&cb_futex, 0);
	}
}

static void wake_thread(void)
{
	int expect = -1;

	if (rcb_cmpxchg_relaxed(&cb_futex, &expect, 0))
		rcb__futex_wake(&cb_futex, 1);
}

/*
 * Account @n invoked callbacks of @bytes in all (invariant 5).  The
 * backlog only grows between two of these calls, so its high-water mark
 * is the larger of the marks seen here and the current backlog
 * (rcb_backlog()): producers need not maintain it.
 */
static void account_invoked(unsigned long long n, unsigned long long bytes)
{
	rcb_max_relaxed(&peak, rcb_load_relaxed(&pending));
	rcb_max_relaxed(&peak_bytes, rcb_load_relaxed(&pending_bytes));
	rcb_sub_relaxed(&pending, n);
	rcb_sub_relaxed(&pending_bytes, bytes);
	rcb_add_relaxed(&invoked, n);
}

static void invoke_batch(struct rcb_head *first, struct rcb_head *last)
{
	unsigned long long n = 0, bytes = 0;
	struct rcb_head *h = first, *next;

	for (;;) {
		bool end = h == last;

		/* Read before invoking: the callback frees the node. */
		next = end ? NULL : next_of(h);
		if (h->func == barrier_reached) {
			/* The waiter sees the backlog without what it
			 * waited for. */
			account_invoked(n, bytes);
			n = bytes = 0;
			barrier_reached(h);
		} else {
			bytes += h->bytes;
			n++;
			h->func(h);
		}
		if (end)
			break;
		h = next;
	}
	account_invoked(n, bytes);
}

static void *callback_thread(void *arg)
{
	struct rcb__thread *self = rcb__self();
	struct rcb_head *first, *last;

	(void)arg;
	prctl(PR_SET_NAME, "rcuboost-cb", 0, 0, 0);
	rcb_register_thread();
	for (;;) {
		wait_for_work();
		if (rcb__settings.callback_batch_us && !queue_empty()) {
			struct timespec ts = {
				.tv_sec = rcb__settings.callback_batch_us / 1000000,
				.tv_nsec = (long)(rcb__settings.callback_batch_us %
						  1000000) * 1000,
			};
			nanosleep(&ts, NULL);
		}
		if (!splice(&first, &last)) {
			if (rcb_load_seq_cst(&cb_stop)) /* [CB-S] pairs with [CB-STOP] */
				break;
			continue;
		}
		rcb_synchronize();
		self->in_callback = true;
		invoke_batch(first, last);
		self->in_callback = false;
	}
	rcb_unregister_thread();
	return NULL;
}

/* Start the callback thread unless it runs.  Context: not a callback. */
static int start_thread(void)
{
	int err = 0;

	/* [CB-T] pairs with [CB-TR] below. */
	if (rcb_load_acquire(&cb_started))
		return 0;
	pthread_mutex_lock(&cb_lock);
	if (!rcb_load_relaxed(&cb_started)) {
		rcb_store_relaxed(&cb_stop, false);
		err = pthread_create(&cb_thread, NULL, callback_thread, NULL);
		if (err == 0)
			rcb_store_release(&cb_started, true); /* [CB-TR] */
	}
	pthread_mutex_unlock(&cb_lock);
	if (err) {
		fprintf(stderr, "rcuboost: cannot start the callback thread: %s\n",
			strerror(err));
		return -err;
	}
	return 0;
}

/* ---- API ---------------------------------------------------------- */

RCB_API int rcb_call_sized(struct rcb_head *head,
			   void (*func)(struct rcb_head *head), size_t bytes)
{
	int err;

	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse("rcb_call", "%s is NULL; nothing queued",
			    head ? "the callback function" : "the rcb_head");
		return -EINVAL;
	}
	if (RCB_UNLIKELY(!rcb_load_acquire(&cb_started))) { /* [CB-T] */
		if ((err = rcb__ensure_init()) != 0)
			return err;
		if (rcb__self()->in_callback) {
			/* Cannot happen: a callback runs on the started
			 * thread. */
			return -EDEADLK;
		}
		if (rcb_load_relaxed(&rcb__running) && (err = start_thread()))
			return err;
	}
	rcb_read_lock();
	/* A callback may queue more work while rcb_shutdown() drains the
	 * queue: the callback thread runs until the queue is empty. */
	if (RCB_UNLIKELY(!rcb_load_relaxed(&rcb__running) &&
			 !rcb__self()->in_callback)) {
		rcb_read_unlock();
		rcb__misuse("rcb_call",
			    "called after rcb_shutdown(); nothing queued, the caller keeps the object");
		return -ESHUTDOWN;
	}
	unsigned long long n, nbytes = 0, kick_at;

	head->func = func;
	head->bytes = bytes;
	n = rcb_add_relaxed(&pending, 1) + 1;
	if (bytes)
		nbytes = add_return_bytes(bytes);
	enqueue(head);
	/* [CB-F] Load after the seq_cst exchange in enqueue(): pairs with
	 * [CB-S]: either the consumer's re-check sees our node, or we see
	 * its -1 and wake it. */
	if (RCB_UNLIKELY(rcb_load_seq_cst(&cb_futex) == -1))
		wake_thread();
	rcb_read_unlock();
	/* Memory pressure: the boosters learn of it now, not a period
	 * later (booster.c). */
	kick_at = rcb_load_relaxed(&rcb__pressure_kick_at);
	if (RCB_UNLIKELY(kick_at && n >= kick_at))
		rcb__pressure_kick();
	if (nbytes) {
		kick_at = rcb_load_relaxed(&rcb__pressure_kick_bytes);
		if (RCB_UNLIKELY(kick_at && nbytes >= kick_at))
			rcb__pressure_kick();
	}
	return 0;
}

RCB_API int rcb_call(struct rcb_head *head, void (*func)(struct rcb_head *head))
{
	return rcb_call_sized(head, func, 0);
}

RCB_API int rcb_barrier(void)
{
	struct barrier_marker m = { .done = 0 };

	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_barrier",
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	if (rcb__self()->in_callback) {
		rcb__misuse("rcb_barrier",
			    "called from an RCU callback; the callback thread would wait for itself");
		return -EDEADLK;
	}
	if (!rcb_load_acquire(&cb_started)) { /* [CB-T] */
		/* Nothing was queued since the thread last stopped, or the
		 * queue holds callbacks inherited across fork(). */
		if (queue_empty())
			return 0;
		int err = start_thread();

		if (err)
			return err;
	}
	m.head.func = barrier_reached;
	m.head.bytes = 0;
	enqueue(&m.head);
	if (rcb_load_seq_cst(&cb_futex) == -1) /* [CB-F] */
		wake_thread();
	/* [CB-W] pairs with [CB-B]. */
	while (!rcb_load_acquire(&m.done))
		rcb__futex_wait(&m.done, 0, 0);
	return 0;
}

/* Drain and stop the callback thread.  Context: rcb_shutdown(). */
int rcb__callbacks_stop(void)
{
	int err;

	/* Callbacks inherited across fork() with no thread to run them. */
	if (!rcb_load_acquire(&cb_started) && !queue_empty() && /* [CB-T] */
	    (err = start_thread()) != 0)
		return err;
	pthread_mutex_lock(&cb_lock);
	if (rcb_load_relaxed(&cb_started)) {
		/* [CB-STOP] Stop flag, then an unconditional wake-up, both
		 * sequentially consistent: pairs with [CB-S].  Either the
		 * thread's re-check sees the flag, or our futex store comes
		 * after its -1 and its futex_wait() returns at once. */
		rcb_store_seq_cst(&cb_stop, true);
		rcb_store_seq_cst(&cb_futex, 0); /* [CB-STOP] */
		rcb__futex_wake(&cb_futex, 1);
		if ((err = pthread_join(cb_thread, NULL)) != 0)
			RCB_DIE("pthread_join(callback thread)", err);
		rcb_store_relaxed(&cb_started, false);
	}
	pthread_mutex_unlock(&cb_lock);
	return 0;
}

RCB_API void rcb_backlog(struct rcb_backlog *out)
{
	out->callbacks = rcb_load_relaxed(&pending);
	out->bytes = rcb_load_relaxed(&pending_bytes);
	out->peak_callbacks = rcb_load_relaxed(&peak);
	out->peak_bytes = rcb_load_relaxed(&peak_bytes);
	if (out->callbacks > out->peak_callbacks)
		out->peak_callbacks = out->callbacks;
	if (out->bytes > out->peak_bytes)
		out->peak_bytes = out->bytes;
	out->invoked = rcb_load_relaxed(&invoked);
}

RCB_API void rcb_backlog_reset_peak(void)
{
	rcb_store_relaxed(&peak, rcb_load_relaxed(&pending));
	rcb_store_relaxed(&peak_bytes, rcb_load_relaxed(&pending_bytes));
}

void rcb__callbacks_fork_prepare(void)
{
	pthread_mutex_lock(&cb_lock);
}

void rcb__callbacks_fork_parent(void)
{
	pthread_mutex_unlock(&cb_lock);
}

/*
 * The child has no callback thread.  Callbacks still queued in the
 * parent at fork() are copies in the child; they run in the child when
 * it next calls rcb_call(), rcb_barrier() or rcb_shutdown().  A batch the
 * parent's thread had already spliced is not in the child's queue: those
 * copies are leaked in the child, never invoked twice.
 */
void rcb__callbacks_after_fork_child(void)
{
	struct rcb_head *n = &q.stub, *tail = rcb_load_relaxed(&q.tail);

	/* A producer thread that was between its exchange and its link at
	 * fork() does not exist here: cut the queue at the missing link so
	 * the consumer never waits for it (its node leaks in the child). */
	while (n != tail) {
		struct rcb_head *next = rcb_load_relaxed(&n->next);

		if (!next) {
			rcb_store_relaxed(&q.tail, n);
			break;
		}
		n = next;
	}
	pthread_mutex_init(&cb_lock, NULL);
	rcb_store_relaxed(&cb_started, false);
	rcb_store_relaxed(&cb_stop, false);
	rcb_store_relaxed(&cb_futex, 0);
}
