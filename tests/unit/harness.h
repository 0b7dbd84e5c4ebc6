/* Test harness: runs each case in a fresh re-exec'd process and checks its exit
 * status and output. */
#ifndef RCB_TEST_HARNESS_H
#define RCB_TEST_HARNESS_H

#include <pthread.h>
#include <stdatomic.h>

#include "tests/check.h"

#define RCBT_MAX 32

struct rcbt_case {
	const char *name;
	void (*fn)(const struct rcbt_case *c);
	/* Signal the case must die of; 0: it must exit 0. */
	int sig;
	/* "NAME=value" is set, "NAME" is unset before the case runs. */
	const char *env[RCBT_MAX];
	/* Each must match one output line: pieces separated by '|', in order.
	 */
	const char *want[RCBT_MAX];
	/* Substrings no output line may hold. */
	const char *reject[RCBT_MAX];
	/* Free parameters for the case function. */
	const char *arg;
	long num;
};

/* Run the case named by "--case NAME", or every case (those whose names
 * start with argv[1] if given).  Returns the process exit status. */
int rcbt_main(int argc, char **argv, const struct rcbt_case *cases, int n);

/* Inside a case: add a line pattern the output must match (format). */
__attribute__((format(printf, 1, 2))) void rcbt_expect(const char *fmt, ...);
/* Expect "rcuboost: misuse: <call>: ...<problem>... (thread <tid> "<comm>")"
 * naming the calling thread. */
void rcbt_expect_misuse(const char *call, const char *problem);

/* rcb_init() with the misuse policy chosen by RCBT_POLICY: cfg-warn,
 * cfg-abort, or env (rcb_init(NULL): RCUBOOST_MISUSE decides). */
void rcbt_init(void);

unsigned long long rcbt_misuse_count(void);
unsigned long long rcbt_registered(void);
int rcbt_task_count(void);
/* The task count once it reaches @want, or the last count after 2 s: a
 * thread that pthread_join() returned for can stay listed in
 * /proc/self/task for a moment (the kernel wakes the joiner when it
 * clears the thread's tid, before it unlists the thread), longer on a
 * loaded machine. */
int rcbt_task_count_settle(int want);
void rcbt_sleep_ms(unsigned int ms);
void rcbt_set_name(const char *name);
/* Wait (at most 10 s) until *@flag becomes non-zero. */
void rcbt_wait_flag(atomic_int *flag);

/* Send this process's stderr to a temporary file until rcbt_capture_end(),
 * which stores what was written (NUL-terminated, truncated) in @buf. */
int rcbt_capture_begin(void);
void rcbt_capture_end(int saved, char *buf, size_t len);

/* A thread calling rcb_synchronize(); checks it is still waiting after a
 * while (a reader holds it), and later that it finished. */
struct rcbt_syncer {
	pthread_t tid;
	atomic_int done;
	int ret;
};
void rcbt_syncer_start_blocked(struct rcbt_syncer *s);
void rcbt_syncer_finish(struct rcbt_syncer *s);

#endif
