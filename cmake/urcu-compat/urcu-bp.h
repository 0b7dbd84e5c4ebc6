/* SPDX-License-Identifier: MIT */
/*
 * <urcu-bp.h> and <urcu/urcu-bp.h> of rcuboost's liburcu compatibility
 * install (rcuboost-urcu(7)): liburcu's bp flavor is a domain of
 * rcuboost's own, with boosting.
 */
#ifndef _URCU_BP_H
#define _URCU_BP_H
#include <rcuboost/urcu_bp.h>
#endif
