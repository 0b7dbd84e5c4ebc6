/* SPDX-License-Identifier: MIT */
/*
 * The peer-adapter table: every library the tools compare (rcuboost and
 * its qsbr domain, the liburcu flavors memb, mb and qsbr, and Concurrency
 * Kit's ck_epoch)
 * behind one struct tool_peer.
 * Each peer's measured loops live in that peer's own source file
 * (peer_*.c, generated from peer_body.h), so that the library's read-side
 * primitives are inlined into the loops.
 */
#ifndef RCB_PEER_H
#define RCB_PEER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PEER_CACHELINE 64

/* Written into an object once a grace period has passed since its removal;
 * a reader that sees it found a freed object. */
#define PEER_POISON 0x6b6b6b6b6b6b6b6bUL

#define PEER_CONTAINER_OF(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* The object replaced by updaters. */
struct peer_obj {
	unsigned long seq;
	unsigned long payload[7];
};

/* State shared by the readers and the updater of one run. */
struct peer_shared {
	_Alignas(PEER_CACHELINE) struct peer_obj *ptr; /* RCU-protected */
	_Alignas(PEER_CACHELINE) _Atomic int stop;
	_Atomic unsigned long bad; /* readers that saw PEER_POISON */
};

/* Capabilities (struct tool_peer.caps). */
enum {
	/* Callbacks run only when the queueing thread polls or waits in a
	 * barrier, and a barrier covers the calling thread's callbacks only
	 * (ck_epoch): no callback thread. */
	PEER_CAP_CALL_OWN = 1,
};

/* A replace+retire run (retire_loop). */
struct peer_retire {
	/* one replacement every interval; 0: back to back */
	uint64_t interval_ns;
	int spin;             /* wait out the interval on the clock, not asleep
			       * (sub-microsecond intervals) */
	uint64_t max;         /* stop after this many; 0: only at s->stop */
	uint64_t *lat;        /* queue-to-invocation latencies, or NULL */
	size_t cap;           /* room in lat */
	size_t nlat;          /* out: latencies stored */
};

struct tool_peer {
	const char *name; /* "rcuboost", "urcu-memb", ... */
	unsigned int caps; /* PEER_CAP_* */
	/* Initialise and start the library's own threads (callback thread)
	 * from the unpinned main thread, so they inherit no pinning.
	 * Returns 0 or -1 with a message on stderr. */
	int (*setup)(void);
	/* Make the calling thread a reader (online for QSBR), and undo. */
	void (*thread_register)(void);
	void (*thread_unregister)(void);
	/* Around a long block of a registered thread (QSBR: offline). */
	void (*idle_enter)(void);
	void (*idle_exit)(void);
	/* @n empty lock+unlock pairs.  Registered thread. */
	void (*read_pairs)(uint64_t n);
	/* Read @s->ptr in short critical sections until @s->stop; returns
	 * the number of critical sections, and publishes it every 256 of
	 * them at *@progress unless NULL.  Registered thread. */
	uint64_t (*reader_loop)(struct peer_shared *s,
				_Atomic uint64_t *progress);
	/* Replace @s->ptr (publish new, synchronize, free old) until
	 * @s->stop; returns the number of replacements. */
	uint64_t (*updater_loop)(struct peer_shared *s);
	/* Replace @s->ptr (publish new, retire old with call_rcu, poll for
	 * callbacks where the peer needs it) as @r says, then put the
	 * original object back and wait in a barrier for every callback.
	 * Returns the number of replacements.  Registered thread. */
	uint64_t (*retire_loop)(struct peer_shared *s, struct peer_retire *r);
	/* Wait for a grace period.  Any thread (ck_epoch: gets a record). */
	void (*synchronize)(void);
	/* Callback nodes: an array of @n, touched; freed by call_free. */
	void *(*call_alloc)(size_t n);
	void (*call_free)(void *nodes);
	/* Queue nodes[0..n) with a counting callback.  Registered thread. */
	void (*call_queue)(void *nodes, size_t n);
	/* Queue nodes[0..n) one every @interval_ns with a callback that
	 * stamps its invocation time; stops early at @deadline_ns.
	 * Returns how many were queued.  Registered thread. */
	size_t (*call_paced)(void *nodes, size_t n, uint64_t interval_ns,
			     uint64_t deadline_ns);
	/* Queue-to-invocation latencies of nodes[0..n), after a barrier. */
	void (*call_latencies)(const void *nodes, size_t n, uint64_t *out);
	/* Callbacks invoked so far (both callbacks above count). */
	uint64_t (*call_invoked)(void);
	void (*barrier)(void);
	/* Extra facts for the report (e.g. rcuboost's read-side flavor). */
	const char *(*describe)(void);
};

extern const struct tool_peer tool_peer_rcuboost;
extern const struct tool_peer tool_peer_urcu_memb;
extern const struct tool_peer tool_peer_urcu_mb;
extern const struct tool_peer tool_peer_urcu_qsbr;
extern const struct tool_peer tool_peer_rcuboost_qsbr;
extern const struct tool_peer tool_peer_rcuboost_owner;
extern const struct tool_peer tool_peer_ck_epoch;
/* rcuboost through <rcuboost/urcu.h>, and its rcu_init().  The table's
 * out-of-line calls are rcuboost's, not liburcu's, once
 * peer_rcb_urcu_resolve() returned 0 (peer_rcb_urcu.c says why); call it
 * before using the table without peer_rcb_urcu_init(). */
extern const struct tool_peer tool_peer_rcuboost_urcu;
int peer_rcb_urcu_resolve(void);
int peer_rcb_urcu_init(void);

#endif /* RCB_PEER_H */
