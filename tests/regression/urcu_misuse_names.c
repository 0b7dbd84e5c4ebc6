/* A second hostile-user probe (2026-12-06): misuse of the liburcu
 * drop-in was reported under the rcb_* call behind it
 * (set_thread_call_rcu_data() as rcb_worker_set_thread, rcu_barrier()
 * as rcb_barrier), a name the program's author will not find in their
 * source.  Reports now give both.
 *
 * synchronize_rcu() and rcu_barrier() inside a read-side critical
 * section, with stderr captured: each report must name the liburcu
 * call beside the rcb_* one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost/urcu.h"
#include "tests/check.h"

int main(void)
{
	char path[] = "/tmp/rcb-urcunames-XXXXXX", text[8192];
	int fd = mkstemp(path), saved = dup(2);
	const char *want[] = {
		"rcuboost: misuse: rcb_synchronize (liburcu's synchronize_rcu): called inside",
		"rcuboost: misuse: rcb_barrier (liburcu's rcu_barrier): called inside",
	};
	ssize_t n;

	CHECK(fd >= 0 && saved >= 0);
	unlink(path);
	CHECK(getenv("RCUBOOST_MISUSE") && strcmp(getenv("RCUBOOST_MISUSE"), "warn") == 0);
	rcu_register_thread();
	CHECK(dup2(fd, 2) == 2);
	rcu_read_lock();
	synchronize_rcu();
	rcu_barrier();
	rcu_read_unlock();
	CHECK(dup2(saved, 2) == 2);
	n = pread(fd, text, sizeof(text) - 1, 0);
	CHECK(n >= 0);
	text[n] = '\0';
	printf("stderr:\n%s", text);
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(strstr(text, want[i]) != NULL);
	rcu_unregister_thread();
	return 0;
}
