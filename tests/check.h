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
