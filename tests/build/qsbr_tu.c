/* SPDX-License-Identifier: MIT */
/*
 * Compiled (not run) by qsbr_asm.sh: the qsbr domain's inline read side
 * and quiescent state, one function each.
 */
#include <rcuboost/qsbr.h>

void qs_lock(void);
void qs_unlock(void);
void qs_quiescent(void);

void qs_lock(void)
{
	rcb_qsbr_read_lock();
}

void qs_unlock(void)
{
	rcb_qsbr_read_unlock();
}

void qs_quiescent(void)
{
	rcb_qsbr_quiescent_state();
}
