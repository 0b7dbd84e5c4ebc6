/* SPDX-License-Identifier: MIT */
/*
 * <urcu.h> of rcuboost's liburcu compatibility install (rcuboost-urcu(7)):
 * a program that includes liburcu's default-flavor header gets
 * rcuboost's drop-in names instead.  Installed only into
 * LIBDIR/rcuboost-urcu-compat/include, never over a real liburcu.
 */
#ifndef _URCU_H
#define _URCU_H
#include <rcuboost/urcu.h>
#endif
