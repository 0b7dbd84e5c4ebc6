/* SPDX-License-Identifier: MIT */
/*
 * Compiled (not run) by readside_asm.sh: each function holds nothing but
 * read-side calls, so its disassembly is the inline read side's code.
 */
#include <rcuboost.h>

void rs_lock(void);
void rs_unlock(void);
void rs_pair(void);
void rs_nested(void);

void rs_lock(void)
{
	rcb_read_lock();
}

void rs_unlock(void)
{
	rcb_read_unlock();
}

void rs_pair(void)
{
	rcb_read_lock();
	rcb_read_unlock();
}

void rs_nested(void)
{
	rcb_read_lock();
	rcb_read_lock();
	rcb_read_unlock();
	rcb_read_unlock();
}
