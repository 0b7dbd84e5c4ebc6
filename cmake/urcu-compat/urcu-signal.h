/* SPDX-License-Identifier: MIT */
/*
 * <urcu/urcu-signal.h> of rcuboost's liburcu compatibility
 * install (rcuboost-urcu(7)): liburcu's signal flavor is a domain of
 * rcuboost's own, with boosting.
 */
#ifndef _URCU_SIGNAL_H
#define _URCU_SIGNAL_H
#include <rcuboost/urcu_signal.h>
#endif
