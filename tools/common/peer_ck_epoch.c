/* SPDX-License-Identifier: MIT */
/*
 * The peer table: Concurrency Kit's ck_epoch (Debian libck-dev), with its
 * inline begin/end.
 *
 * ck_epoch has no thread registry of its own calls: a thread holds a
 * record (ck_epoch_record_t) and passes it to every call.  Here each
 * thread gets one lazily, from the first call that needs it, through a
 * thread-local pointer; a pthread key's destructor unregisters it when the
 * thread exits, so records of short-lived updater threads are recycled
 * instead of piling up in the global list that every grace period scans.
 *
 * Read section: ck_epoch_begin/end(record, NULL).  synchronize:
 * ck_epoch_synchronize(record).  Deferred callbacks are CK's design, not
 * liburcu's: ck_epoch_call() only pushes onto the caller's own record, and
 * nothing runs them until that thread calls ck_epoch_poll() (try to
 * advance the epoch, run what is two epochs old; never blocks) or
 * ck_epoch_barrier() (wait, then run all of the record's callbacks).
 * There is no callback thread.  As CK intends, the queueing thread polls:
 * after every callback when paced, every 256 callbacks back to back
 * (FL_POLL), and a barrier runs only the calling thread's callbacks
 * (PEER_CAP_CALL_OWN).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <ck_epoch.h>

#include "peer.h"
#include "tool.h"

static ck_epoch_t ck_global;
static pthread_key_t ck_key;
static __thread ck_epoch_record_t *ck_rec;

static void ck_release(void *rec)
{
	ck_epoch_unregister(rec);
}

static int ck_side_init(void)
{
	static int done;
	int err;

	if (done)
		return 0;
	ck_epoch_init(&ck_global);
	err = pthread_key_create(&ck_key, ck_release);
	if (err) {
		fprintf(stderr, "%s: ck-epoch: pthread_key_create: error %d\n", tool_prog, err);
		return -1;
	}
	done = 1;
	return 0;
}

/* The calling thread's record, registered on first use. */
static ck_epoch_record_t *ck_self_slow(void)
{
	ck_epoch_record_t *r = ck_epoch_recycle(&ck_global, NULL);

	if (!r) {
		r = aligned_alloc(PEER_CACHELINE, sizeof(*r));
		if (!r) {
			fprintf(stderr, "%s: ck-epoch: out of memory\n", tool_prog);
			exit(1);
		}
		ck_epoch_register(&ck_global, r, NULL);
	}
	ck_rec = r;
	pthread_setspecific(ck_key, r);
	return r;
}

static inline ck_epoch_record_t *ck_self(void)
{
	return __builtin_expect(ck_rec != NULL, 1) ? ck_rec : ck_self_slow();
}

static void ck_unregister(void)
{
	if (!ck_rec)
		return;
	pthread_setspecific(ck_key, NULL);
	ck_epoch_unregister(ck_rec);
	ck_rec = NULL;
}

#define FL_NAME "ck-epoch"
#define FL_SYM tool_peer_ck_epoch
#define FL_HEAD ck_epoch_entry_t
#define FL_CAPS PEER_CAP_CALL_OWN
#define FL_INIT() ck_side_init()
#define FL_DESCRIBE() \
	"per-thread records; callbacks run by the queueing thread's poll/barrier"
#define FL_REGISTER() ((void)ck_self())
#define FL_UNREGISTER() ck_unregister()
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_POLL() ((void)ck_epoch_poll(ck_self()))
#define FL_READ_LOCK() ck_epoch_begin(ck_self(), NULL)
#define FL_READ_UNLOCK() ck_epoch_end(ck_self(), NULL)
#define FL_DEREF(p) __atomic_load_n(&(p), __ATOMIC_CONSUME)
#define FL_XCHG(pp, v) __atomic_exchange_n(pp, v, __ATOMIC_SEQ_CST)
#define FL_SYNC() ck_epoch_synchronize(ck_self())
#define FL_CALL(head, func) ck_epoch_call(ck_self(), head, func)
#define FL_BARRIER() ck_epoch_barrier(ck_self())

#include "peer_body.h"
