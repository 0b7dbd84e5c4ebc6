/* Compiled twice by fastpath_compare.sh, with RCB_CONFIG_BOOST 0 and 1,
 * to compare the read side's machine code. */
#include "rcuboost.h"

void fp_lock(void);
void fp_unlock(void);

__attribute__((noinline)) void fp_lock(void)
{
	rcb_read_lock();
}

__attribute__((noinline)) void fp_unlock(void)
{
	rcb_read_unlock();
}
