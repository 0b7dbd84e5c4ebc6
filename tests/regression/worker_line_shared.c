/* Bug (issue 12): a callback worker's queue tail and futex word, which
 * every rcb_call() exchanges and reads, shared a cache line with the
 * batch cursor and counts its thread writes for every callback it
 * invokes.  Each invocation took the line back from the producer:
 * rcb_call() ran at 15-18 M calls/s instead of 48-51 M once the
 * callbacks did any work of their own (rcuboost-bench call).  Fails if
 * a field of the producer's side shares a 128-byte block (a line and
 * its prefetch buddy) with one the worker's thread writes, or if a
 * worker is not allocated at that alignment. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "callback/callback.h"
#include "tests/check.h"

#define BLOCK 128

struct field {
	const char *name;
	size_t off, size;
};

#define F(m)                                                \
	{                                                   \
#m, offsetof(struct rcb_worker, m),         \
			sizeof(((struct rcb_worker *)0)->m) \
	}

/* Read or written by every rcb_call*() (src/callback/callback.c, call()). */
static const struct field producer[] = {
	F(q), F(futex), F(started), F(cbboost),
};

/* Written by the worker's thread per callback or per batch, or by
 * booster 0 every pass (callback_boost.c). */
static const struct field thread_side[] = {
	F(batch),   F(gpp),   F(invoked),   F(bstate),
	F(bs_work), F(bs_ns), F(bs_run_ns),
};

int main(void)
{
	struct rcb_worker *w;
	int bad = 0;

	for (size_t i = 0; i < sizeof(producer) / sizeof(producer[0]); i++) {
		const struct field *p = &producer[i];

		for (size_t j = 0;
		     j < sizeof(thread_side) / sizeof(thread_side[0]); j++) {
			const struct field *t = &thread_side[j];
			size_t p_lo = p->off / BLOCK,
			       p_hi = (p->off + p->size - 1) / BLOCK;
			size_t t_lo = t->off / BLOCK,
			       t_hi = (t->off + t->size - 1) / BLOCK;

			if (p_lo <= t_hi && t_lo <= p_hi) {
				printf("FAIL: %s (offset %zu) shares a %d-byte block with %s (offset %zu)\n",
				       p->name, p->off, BLOCK, t->name, t->off);
				bad = 1;
			}
		}
	}
	CHECK(_Alignof(struct rcb_worker) >= BLOCK);
	CHECK(rcb_worker_create(NULL, &w) == 0);
	printf("created worker at %p, struct %zu bytes, batch at offset %zu\n",
	       (void *)w, sizeof(struct rcb_worker),
	       offsetof(struct rcb_worker, batch));
	CHECK((uintptr_t)w % BLOCK == 0);
	CHECK(rcb_worker_destroy(w) == 0);
	CHECK(!bad);
	return 0;
}
