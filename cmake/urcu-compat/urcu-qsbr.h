/* SPDX-License-Identifier: MIT */
/*
 * <urcu-qsbr.h> and <urcu/urcu-qsbr.h> of rcuboost's liburcu
 * compatibility install (rcuboost-urcu(7)): liburcu's qsbr flavor is
 * rcuboost's qsbr domain, with boosting.
 */
#ifndef _URCU_QSBR_H
#define _URCU_QSBR_H
#include <rcuboost/urcu_qsbr.h>
#endif
