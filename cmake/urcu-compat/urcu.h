/* SPDX-License-Identifier: MIT */
/*
 * <urcu.h> of rcuboost's liburcu compatibility install (rcuboost-urcu(7)):
 * a program that includes liburcu's default-flavor header gets
 * rcuboost's drop-in names instead.  Installed only into
 * LIBDIR/rcuboost-urcu-compat/include, never over a real liburcu.
 *
 * As liburcu's own <urcu.h>: RCU_MEMBARRIER (or nothing) selects the memb
 * flavor, else RCU_SIGNAL the signal flavor, else RCU_MB the mb flavor;
 * each is a domain of rcuboost's own, with boosting.
 */
#if defined(RCU_MEMBARRIER) || (!defined(RCU_SIGNAL) && !defined(RCU_MB))
#ifndef _URCU_H
#define _URCU_H
#include <rcuboost/urcu.h>
#endif
#elif defined(RCU_SIGNAL)
#ifndef _URCU_SIGNAL_H
#define _URCU_SIGNAL_H
#include <rcuboost/urcu_signal.h>
#endif
#else
#ifndef _URCU_MB_H
#define _URCU_MB_H
#include <rcuboost/urcu_mb.h>
#endif
#endif
