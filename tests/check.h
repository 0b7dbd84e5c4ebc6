/* Minimal assertion helpers for the tests: a failed check prints the
 * file, line and expression and exits 1 (CTest reports the failure). */
#ifndef RCB_TEST_CHECK_H
#define RCB_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(expr)                                                        \
	do {                                                               \
		if (!(expr)) {                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n",       \
				__FILE__, __LINE__, #expr);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

#define CHECK_EQ(a, b)                                                     \
	do {                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);        \
		if (a_ != b_) {                                            \
			fprintf(stderr, "%s:%d: check failed: %s == %s "   \
				"(%lld != %lld)\n", __FILE__, __LINE__, #a,\
				#b, a_, b_);                               \
			exit(1);                                           \
		}                                                          \
	} while (0)

/*
 * RCB_TEST_SANITIZED is 1 in a sanitizer build (ASan with UBSan, or TSan;
 * gcc's macros, clang's __has_feature()).  Such a build runs the code
 * several times slower, unevenly: how the scheduler places threads, how
 * many grace periods a burst takes, how soon a callback runs are its own
 * there, not the library's.  A check of such an outcome is CHECK_PLAIN():
 * a CHECK() in the plain build (with a margin that load does not eat),
 * and in a sanitizer build only a line on stderr when it does not hold.
 * What must hold whatever the speed (every callback ran, a grace period
 * waited for its reader, the reader got its attributes back) is CHECK().
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RCB_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RCB_TEST_SANITIZED 1
#endif
#endif
#ifndef RCB_TEST_SANITIZED
#define RCB_TEST_SANITIZED 0
#endif

#define CHECK_PLAIN(expr)                                                  \
	do {                                                               \
		if (!(expr)) {                                             \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__,       \
				__LINE__, RCB_TEST_SANITIZED ?             \
				"not so under a sanitizer (not checked)" : \
				"check failed", #expr);                    \
			if (!RCB_TEST_SANITIZED)                           \
				exit(1);                                   \
		}                                                          \
	} while (0)

/* @call returns @expected and makes exactly one misuse report (counted
 * by rcb_stats(); the file includes rcuboost.h). */
#define CHECK_MISUSE(call, expected)                                       \
	do {                                                               \
		struct rcb_gp_stats st_;                                   \
		unsigned long long before_;                                \
		rcb_stats(&st_);                                           \
		before_ = st_.misuse;                                      \
		CHECK_EQ((call), (expected));                              \
		rcb_stats(&st_);                                           \
		if (st_.misuse != before_ + 1) {                           \
			fprintf(stderr, "%s:%d: %s: %llu misuse reports, " \
				"expected 1\n", __FILE__, __LINE__, #call,  \
				(unsigned long long)(st_.misuse - before_)); \
			exit(1);                                           \
		}                                                          \
	} while (0)

#endif
