/* SPDX-License-Identifier: MIT */
/*
 * <urcu/urcu-mb.h> of rcuboost's liburcu compatibility
 * install (rcuboost-urcu(7)): liburcu's mb flavor is a domain of
 * rcuboost's own, with boosting.
 */
#ifndef _URCU_MB_H
#define _URCU_MB_H
#include <rcuboost/urcu_mb.h>
#endif
