/* SPDX-License-Identifier: MIT */
/*
 * <urcu/urcu-memb.h> of rcuboost's liburcu compatibility install
 * (rcuboost-urcu(7)): liburcu's membarrier flavor is rcuboost.
 */
#ifndef _URCU_MEMB_H
#define _URCU_MEMB_H
#include <rcuboost/urcu.h>
#endif
