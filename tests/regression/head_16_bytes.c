/* Bug: struct rcb_head was three words and rcb_call() wrote the third, so a
 * 16-byte liburcu-layout head (liburcu-cds' queue dummy node { parent; rcu_head
 * head; q }) handed to rcb_call() had the field after it overwritten. A head
 * embedded right before a canary, queued with rcb_call(): the canary must stay
 * intact, before and after the callback. */
#include <stdatomic.h>
#include <stdint.h>

#include "rcuboost.h"
#include "tests/check.h"

#define CANARY 0x5ca1ab1e5ca1ab1eull
#define N 64

/* liburcu's struct rcu_head: { struct cds_wfcq_node next; func }. */
struct urcu_head {
	void *next;
	void (*func)(struct urcu_head *head);
};

struct node {
	uint64_t before;
	struct urcu_head head;
	uint64_t canary; /* the next field, as rculfqueue's q */
};

static struct node nodes[N];
static atomic_int invoked, clobbered;

static void node_cb(struct rcb_head *h)
{
	struct node *n =
		(struct node *)((char *)h - offsetof(struct node, head));

	if (n->canary != CANARY || n->before != CANARY)
		atomic_fetch_add(&clobbered, 1);
	atomic_fetch_add(&invoked, 1);
}

int main(void)
{
	for (int i = 0; i < N; i++) {
		nodes[i].before = nodes[i].canary = CANARY;
		CHECK_EQ(rcb_call((struct rcb_head *)&nodes[i].head, node_cb),
			 0);
		/* Right after the call: nothing written past the head. */
		CHECK(nodes[i].canary == CANARY);
		CHECK(nodes[i].before == CANARY);
	}
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&invoked), N);
	CHECK_EQ(atomic_load(&clobbered), 0);
	for (int i = 0; i < N; i++)
		CHECK(nodes[i].canary == CANARY);
	/* The layout promise itself (liburcu's). */
	CHECK_EQ(sizeof(struct rcb_head), sizeof(struct urcu_head));
	printf("%d 16-byte heads queued and invoked, canaries intact\n", N);
	return 0;
}
