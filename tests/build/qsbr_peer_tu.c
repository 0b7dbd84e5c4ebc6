/* SPDX-License-Identifier: MIT */
/*
 * Compiled (not run) by qsbr_asm.sh: liburcu's qsbr quiescent state,
 * inlined as liburcu's own programs get it (_LGPL_SOURCE).
 */
#define _LGPL_SOURCE
#include <urcu/urcu-qsbr.h>

void qs_quiescent(void);

void qs_quiescent(void)
{
	urcu_qsbr_quiescent_state();
}
