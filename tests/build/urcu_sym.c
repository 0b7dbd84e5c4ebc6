/* SPDX-License-Identifier: MIT */
/*
 * The out-of-line pointer helpers (rcu_dereference_sym & co.) that
 * liburcu's <urcu/pointer.h> calls without _LGPL_SOURCE: code compiled
 * against liburcu's list headers, before <rcuboost/urcu.h> is included,
 * links to librcuboost alone (no -lurcu) and behaves.
 */
#include <urcu/rculist.h>
#include <urcu/rcuhlist.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check.h"

struct node {
	int v;
	struct cds_list_head list;
	struct cds_hlist_node hlist;
};

static int a = 1, b = 2, c = 3;
static int *gp;

/* liburcu's macros: each expands to a call of an rcu_*_sym function. */
static void liburcu_pointer_ops(void)
{
	int *old;

	rcu_set_pointer(&gp, &a);
	CHECK(rcu_dereference(gp) == &a);
	rcu_assign_pointer(gp, &b);
	CHECK(rcu_dereference(gp) == &b);
	old = rcu_xchg_pointer(&gp, &c);
	CHECK(old == &b && gp == &c);
	old = rcu_cmpxchg_pointer(&gp, &a, &b); /* fails: gp is &c */
	CHECK(old == &c && gp == &c);
	old = rcu_cmpxchg_pointer(&gp, &c, &a);
	CHECK(old == &c && gp == &a);
}

static int liburcu_lists(struct node *n, int count)
{
	CDS_LIST_HEAD(head);
	struct cds_hlist_head hhead = { NULL };
	struct node *pos;
	int i, sum = 0;

	for (i = 0; i < count; i++) {
		cds_list_add_rcu(&n[i].list, &head);
		cds_hlist_add_head_rcu(&n[i].hlist, &hhead);
	}
	cds_list_for_each_entry_rcu(pos, &head, list)
		sum += pos->v;
	cds_hlist_for_each_entry_rcu_2(pos, &hhead, hlist)
		sum += pos->v;
	cds_list_del_rcu(&n[0].list);
	cds_list_for_each_entry_rcu(pos, &head, list)
		sum -= pos->v;
	return sum;
}

#include <rcuboost/urcu.h>

int main(void)
{
	struct node n[10];
	int i, sum;

	rcu_register_thread();
	rcu_read_lock();
	liburcu_pointer_ops();
	rcu_read_unlock();
	for (i = 0; i < 10; i++)
		n[i].v = i + 1;
	rcu_read_lock();
	sum = liburcu_lists(n, 10);
	rcu_read_unlock();
	/* both lists (2 * 55), minus the list without n[0] (54) */
	CHECK(sum == 55 + 55 - 54);
	/* The helpers themselves. */
	CHECK(rcu_dereference_sym(&a) == &a);
	CHECK(rcu_set_pointer_sym((void **)&gp, &b) == &b && gp == &b);
	CHECK(rcu_xchg_pointer_sym((void **)&gp, &c) == &b && gp == &c);
	CHECK(rcu_cmpxchg_pointer_sym((void **)&gp, &a, &b) == &c && gp == &c);
	synchronize_rcu();
	rcu_unregister_thread();
	printf("ok\n");
	return 0;
}
