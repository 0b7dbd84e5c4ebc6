/* SPDX-License-Identifier: MIT */
/*
 * Scenario "call_rcu_data": callbacks through a private callback worker,
 * as multipathd and other liburcu users that create their own
 * call_rcu_data do.  One thread, pinned, makes a worker of its own
 * (rcuboost: rcb_worker_create() + rcb_worker_set_thread(); urcu-memb:
 * liburcu's real create_call_rcu_data() + set_thread_call_rcu_data()),
 * queues --calls callbacks back to back, waits in a barrier, and frees
 * the worker.  The liburcu flavors other than urcu-memb are not measured
 * (n/a): the scenario compares the two worker implementations.
 */
#define _GNU_SOURCE
#include <string.h>

#include <urcu/urcu-memb.h>

#include "bench.h"

#include "rcuboost.h"

struct cd_job {
	const struct tool_peer *f;
	void *nodes;
	size_t n;
	int rcb; /* rcuboost, else urcu-memb */
	uint64_t t_start, t_done;
	int err;
};

static void *cd_thread(void *arg)
{
	struct cd_job *j = arg;
	struct rcb_worker *w = NULL;
	struct call_rcu_data *crdp = NULL;

	j->f->thread_register();
	if (j->rcb) {
		if ((j->err = rcb_worker_create(NULL, &w)) == 0)
			j->err = rcb_worker_set_thread(w);
	} else {
		crdp = urcu_memb_create_call_rcu_data(0, -1);
		if (crdp)
			urcu_memb_set_thread_call_rcu_data(crdp);
		else
			j->err = -1;
	}
	if (!j->err) {
		j->t_start = tool_now_ns();
		j->f->call_queue(j->nodes, j->n);
		j->f->barrier();
		j->t_done = tool_now_ns();
	}
	if (j->rcb) {
		rcb_worker_set_thread(NULL);
		if (w)
			rcb_worker_destroy(w);
	} else if (crdp) {
		urcu_memb_set_thread_call_rcu_data(NULL);
		urcu_memb_call_rcu_data_free(crdp);
	}
	j->f->thread_unregister();
	return NULL;
}

static int measure_private(const struct tool_peer *f,
			   const struct bench_params *p, double *out)
{
	struct cd_job j = { .f = f };
	uint64_t before;
	pthread_t t;

	if (strcmp(f->name, "rcuboost") == 0)
		j.rcb = 1;
	else if (strcmp(f->name, "urcu-memb") != 0)
		return -1;
	j.n = p->warmup ? p->calls / 8 + 1 : p->calls;
	j.nodes = f->call_alloc(j.n);
	before = f->call_invoked();
	tool_thread_start(&t, p->cpu_a, cd_thread, &j);
	tool_thread_join(t);
	f->call_free(j.nodes);
	if (j.err) {
		fprintf(stderr, "rcuboost-bench: call_rcu_data: %s: cannot create a worker\n",
			f->name);
		return -1;
	}
	if (f->call_invoked() - before != j.n)
		fprintf(stderr, "rcuboost-bench: call_rcu_data: %s: %llu of %zu callbacks ran before the barrier returned\n",
			f->name, (unsigned long long)(f->call_invoked() - before), j.n);
	out[0] = (double)j.n * 1e9 / (double)(j.t_done - j.t_start + 1);
	return 0;
}

static const struct bench_test call_data_tests[] = {
	{ "call_rcu_data (private worker)", measure_private, 1,
	  { { "call_rcu_data", "calls/s", BENCH_HIGHER, 0, NULL } } },
};

const struct bench_scenario bench_scenario_call_rcu_data = {
	.name = "call_rcu_data",
	.help = "call_rcu_data: callbacks through a private callback worker.  One pinned\n"
		"  thread creates a worker of its own (rcb_worker_create vs liburcu's\n"
		"  create_call_rcu_data), sends its callbacks to it, queues --calls callbacks\n"
		"  back to back and waits in a barrier.  Figure: callbacks/s from the first\n"
		"  queue to the barrier's return (informational; urcu-memb only as peer).",
	BENCH_TESTS(call_data_tests),
};
