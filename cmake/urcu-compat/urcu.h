/* SPDX-License-Identifier: MIT */
/*
 * <urcu.h> of rcuboost's liburcu compatibility install (rcuboost-urcu(7)):
 * a program that includes liburcu's default-flavor header gets
 * rcuboost's drop-in names instead.  Installed only into
 * LIBDIR/rcuboost-urcu-compat/include, never over a real liburcu.
 *
 * RCU_MB or RCU_SIGNAL defined before it select liburcu's mb or signal
 * flavor, as liburcu's own <urcu.h> does; rcuboost does not provide those
 * flavors yet, so the program gets liburcu's own header (and links with
 * -lurcu-mb or -lurcu-signal, which the switch leaves to liburcu),
 * rather than rcuboost's memb names under the wrong flavor.
 */
#if defined(RCU_MB) || defined(RCU_SIGNAL)
#if defined(__has_include_next)
#if __has_include_next(<urcu.h>)
#include_next <urcu.h>
#else
#error "RCU_MB/RCU_SIGNAL select liburcu's mb/signal flavor, which rcuboost does not provide yet, and liburcu's own <urcu.h> is not installed (apt-get install liburcu-dev)"
#endif
#else
#error "RCU_MB/RCU_SIGNAL select liburcu's mb/signal flavor, which rcuboost does not provide yet (rcuboost-urcu(7))"
#endif
#else
#ifndef _URCU_H
#define _URCU_H
#include <rcuboost/urcu.h>
#endif
#endif
