/* SPDX-License-Identifier: MIT */
/*
 * liburcu's mb flavor exported by librcuboost (include/rcuboost/urcu_mb.h):
 * the functions every memb-class flavor has (urcu_flavor.h) over the mb
 * domain.
 */
#define _GNU_SOURCE
#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu_mb.h"

#define RCB__UF(name) urcu_mb_##name
#define UF_DOM RCB__DOM_MB
#include "compat/urcu_flavor.h"
