/* SPDX-License-Identifier: MIT */
/*
 * A liburcu program, unchanged: built by install_urcu_compat.sh once
 * through `pkg-config --cflags --libs liburcu` with rcuboost's
 * compatibility .pc files (with _LGPL_SOURCE: rcuboost's header), and
 * once against liburcu's own headers with -L<compat>/lib -lurcu
 * (without _LGPL_SOURCE: liburcu's out-of-line calls, rcuboost's
 * library).  Prints "ok" and whether rcuboost runs it.  With
 * CONSUMER_QSBR it is a program of liburcu's qsbr flavor (<urcu-qsbr.h>,
 * liburcu-qsbr.pc, -lurcu-qsbr), with quiescent states and offline
 * periods; with CONSUMER_BP of its bp flavor (<urcu-bp.h>, no
 * registration needed), with CONSUMER_MB or CONSUMER_SIGNAL of its mb or
 * signal flavor (RCU_MB or RCU_SIGNAL before <urcu.h>).
 */
#ifdef CONSUMER_LGPL
#define _LGPL_SOURCE
#endif
#if defined(CONSUMER_QSBR)
#include <urcu-qsbr.h>
#define SYMBOL "rcb_qsbr_synchronize"
#elif defined(CONSUMER_BP)
#include <urcu-bp.h>
#define SYMBOL "rcb_synchronize"
#else
#if defined(CONSUMER_MB)
#define RCU_MB
#elif defined(CONSUMER_SIGNAL)
#define RCU_SIGNAL
#endif
#include <urcu.h>
#define SYMBOL "rcb_synchronize"
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                             \
	do {                                                                 \
		if (!(c)) {                                                  \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #c);                     \
			exit(1);                                             \
		}                                                            \
	} while (0)

struct obj {
	int v;
	struct rcu_head rcu;
};

static struct obj *gp;
static int freed;

static void free_obj(struct rcu_head *h)
{
	free(caa_container_of(h, struct obj, rcu));
	__atomic_fetch_add(&freed, 1, __ATOMIC_RELAXED);
}

int main(void)
{
	struct obj *o, *old;
	int i;

	rcu_register_thread();
#ifdef CONSUMER_QSBR
	/* liburcu's qsbr: a registered thread is online (in a read-side
	 * critical section, as rcu_read_ongoing() reads it). */
	CHECK(rcu_read_ongoing());
#endif
	for (i = 0; i < 100; i++) {
		o = calloc(1, sizeof(*o));
		CHECK(o);
		o->v = i;
		old = rcu_xchg_pointer(&gp, o);
		rcu_read_lock();
		CHECK(rcu_dereference(gp)->v == i);
		rcu_read_unlock();
		if (old)
			call_rcu(&old->rcu, free_obj);
#ifdef CONSUMER_QSBR
		rcu_quiescent_state();
		if (i % 10 == 0) {
			rcu_thread_offline();
			rcu_thread_online();
		}
#endif
	}
	synchronize_rcu();
	rcu_barrier();
	CHECK(__atomic_load_n(&freed, __ATOMIC_RELAXED) == 99);
#ifdef CONSUMER_PC
	{
		/* liburcu-common's queue, out of line without _LGPL_SOURCE:
		 * liburcu.pc's -lurcu-common (a bare -lurcu lacks it with
		 * liburcu too). */
		struct cds_wfcq_head qh;
		struct cds_wfcq_tail qt;
		struct cds_wfcq_node n;

		cds_wfcq_init(&qh, &qt);
		cds_wfcq_node_init(&n);
		cds_wfcq_enqueue(&qh, &qt, &n);
		CHECK(cds_wfcq_dequeue_blocking(&qh, &qt) == &n);
	}
#endif
	free(gp);
	rcu_unregister_thread();
	/* rcuboost's own API is in the process: its library is loaded. */
	printf("ok %s\n", dlsym(RTLD_DEFAULT, SYMBOL) ? "rcuboost" : "liburcu");
	return 0;
}
