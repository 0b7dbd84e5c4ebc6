/*
 * Statistics by key: every key rcb_stats_key() lists is unique and
 * readable, reads what the structs hold, and the refusals are as the
 * contract says.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcuboost.h"
#include "tests/check.h"

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg),
				  .misuse = RCB_MISUSE_WARN };
	struct rcb_boost_stats bs = { .size = sizeof(bs) };
	const char *k;
	int64_t v, before;
	size_t n = 0;
	int bret;

	CHECK_EQ(rcb_init(&cfg), 0);
	bret = rcb_boost_stats(&bs);
	for (n = 0; (k = rcb_stats_key(n)) != NULL; n++) {
		int ret = rcb_stats_get(k, &v);

		CHECK(!strncmp(k, "gp.", 3) || !strncmp(k, "backlog.", 8) ||
		      !strncmp(k, "boost.", 6));
		CHECK_EQ(ret, strncmp(k, "boost.", 6) ? 0 : bret);
		for (size_t j = 0; j < n; j++)
			CHECK(strcmp(rcb_stats_key(j), k) != 0);
	}
	/* 6 + 5 counters and every boost field but the matrix's width. */
	CHECK(n >= 50);
	CHECK(rcb_stats_key(n + 1) == NULL);
	CHECK(rcb_stats_key(SIZE_MAX) == NULL);

	CHECK_EQ(rcb_stats_get("gp.synchronize_calls", &before), 0);
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcb_stats_get("gp.synchronize_calls", &v), 0);
	CHECK(v > before);
	CHECK_EQ(rcb_stats_get("boost.machine", &v), bret);
	CHECK_EQ(v, bs.machine);
	CHECK_EQ(rcb_stats_get("boost.idx", &v), bret);
	CHECK(v >= -1);
	CHECK_EQ(rcb_stats_get("backlog.invoked", &v), 0);
	CHECK(v >= 0);

	CHECK_EQ(rcb_stats_get("boost.nstates", &v), -ENOENT);
	CHECK_EQ(rcb_stats_get("gp.no_such_counter", &v), -ENOENT);
	CHECK_EQ(rcb_stats_get("", &v), -ENOENT);
	CHECK_MISUSE(rcb_stats_get(NULL, &v), -EINVAL);
	CHECK_MISUSE(rcb_stats_get("gp.misuse", NULL), -EINVAL);
	printf("ok: %zu keys\n", n);
	return 0;
}
