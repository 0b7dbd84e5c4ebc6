/* SPDX-License-Identifier: MIT */
/* Built by install_smoke.sh against an installed copy, through pkg-config. */
#include <rcuboost.h>
#include <rcuboost/urcu.h>

#include <stdio.h>
#include <stdlib.h>

struct item {
	int value;
	struct rcb_head head;
};

static struct item *shared;
static int freed;

static void item_free(struct rcb_head *h)
{
	free(caa_container_of(h, struct item, head));
	freed++;
}

int main(void)
{
	struct item *it = malloc(sizeof(*it)), *seen;

	if (!it || rcb_register_thread() != 0)
		return 1;
	it->value = 42;
	rcb_assign_pointer(shared, it);
	rcb_read_lock();
	seen = rcb_dereference(shared);
	rcb_read_unlock();
	rcb_assign_pointer(shared, NULL);
	if (seen != it || seen->value != 42 ||
	    rcb_call(&it->head, item_free) != 0 || rcb_barrier() != 0 ||
	    freed != 1 || rcb_synchronize() != 0)
		return 1;
	printf("ok %s\n", rcb_flavor_name(rcb_flavor()));
	return rcb_unregister_thread();
}
