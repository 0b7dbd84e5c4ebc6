/* Bug: an out-of-range struct rcb_config field got one generic message that did
 * not name the field (flavor, misuse, boost not at all). */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

/* rcb_init(@cfg) must fail with -EINVAL; returns what it printed. */
static void init_output(const struct rcb_config *cfg, char *buf, size_t len)
{
	FILE *f = tmpfile();
	int saved, ret;
	ssize_t n;

	CHECK(f);
	saved = dup(2);
	CHECK(saved >= 0);
	CHECK_EQ(dup2(fileno(f), 2), 2);
	ret = rcb_init(cfg);
	n = pread(2, buf, len - 1, 0);
	CHECK_EQ(dup2(saved, 2), 2);
	close(saved);
	fclose(f);
	CHECK(n >= 0);
	buf[n] = '\0';
	fprintf(stderr, "%s", buf);
	CHECK_EQ(ret, -EINVAL);
}

int main(void)
{
	struct rcb_config cfg;
	char out[1024];

	memset(&cfg, 0, sizeof(cfg));
	cfg.misuse = (enum rcb_misuse_policy)3;
	init_output(&cfg, out, sizeof(out));
	CHECK(strstr(out, "misuse"));

	memset(&cfg, 0, sizeof(cfg));
	cfg.flavor = (enum rcb_flavor_request)3;
	init_output(&cfg, out, sizeof(out));
	CHECK(strstr(out, "flavor"));

	memset(&cfg, 0, sizeof(cfg));
	cfg.boost_prio = 100;
	init_output(&cfg, out, sizeof(out));
	CHECK(strstr(out, "boost_prio"));
	CHECK(!strstr(out, "stats_interval_s"));

	CHECK_EQ(rcb_init(NULL), 0);
	return 0;
}
