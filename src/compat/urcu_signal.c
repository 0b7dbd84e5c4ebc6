/* SPDX-License-Identifier: MIT */
/*
 * liburcu's signal flavor exported by librcuboost
 * (include/rcuboost/urcu_signal.h): the functions every memb-class
 * flavor has (urcu_flavor.h) over the signal domain.
 */
#define _GNU_SOURCE
#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu_signal.h"

#define RCB__UF(name) urcu_signal_##name
#define UF_DOM RCB__DOM_SIGNAL
#include "compat/urcu_flavor.h"
