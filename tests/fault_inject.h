/*
 * Fault injection for tests: the test executable defines malloc(),
 * calloc(), realloc(), aligned_alloc(), posix_memalign(), memalign() and
 * pthread_create(), forwarding to the next definition (libc's, or the
 * sanitizer runtime's) found with dlsym(RTLD_NEXT).  The library's calls
 * resolve to these (the executable is first in the symbol search order;
 * link with ENABLE_EXPORTS).  fi_arm(n) makes the n-th interposed call
 * from now fail (allocation: NULL and ENOMEM; pthread_create: EAGAIN,
 * or fi_thread_error()'s);
 * every thread's calls count, but only calls made by the library's own
 * code (librcuboost): the allocations of glibc and of the sanitizer
 * runtimes (inside pthread_create(), or ASan's thread start-up) are
 * not ours to test, and a failed pthread_create() covers them.
 */
#ifndef RCB_TEST_FAULT_INJECT_H
#define RCB_TEST_FAULT_INJECT_H

#include <stdbool.h>

/* Fail the @n-th interposed call from now (n >= 1); calls before it
 * succeed.  @mask: which kinds count (FI_ALLOC, FI_THREAD or both). */
#define FI_ALLOC 1
#define FI_THREAD 2
void fi_arm(long n, int mask);
/* Fail every such call from now until fi_disarm() (a resource that
 * stays exhausted, as RLIMIT_NPROC may). */
void fi_arm_sticky(int mask);
/* The error an injected pthread_create() failure returns: EAGAIN unless
 * set (EINVAL: the CPUs of the thread's attributes cannot be had), until
 * fi_disarm(). */
void fi_thread_error(int err);
/* Stop injecting.  Returns true if a call failed since fi_arm(); *@what
 * (if not NULL) names it ("malloc", "pthread_create", ...). */
bool fi_disarm(const char **what);
/* Interposed calls counted since fi_arm(). */
long fi_calls(void);
/* Threads of this process (/proc/self/task), waiting at most 2 s for
 * it to come down to @want (joined threads may linger a moment); with
 * @want < 0, the count now. */
int fi_threads_settle(int want);
/* The same for the library's threads only ("rcuboost-*" names). */
int fi_lib_threads_settle(int want);

/* What the tests compare before and after a call: every thread, except
 * under TSan, whose runtime starts threads of its own at any time: then
 * the library's (this header is compiled in the instrumented test). */
static inline int fi_threads(int want)
{
#if defined(__SANITIZE_THREAD__)
	return fi_lib_threads_settle(want);
#else
	return fi_threads_settle(want);
#endif
}

#endif
