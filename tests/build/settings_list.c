/*
 * Prints the settings of src/core/settings.h, one a line: the environment
 * variable, then "fixed" for one that cannot change for the life of the
 * process.  settings_docs.sh compares this with rcuboost(3) and
 * README.md.
 */
#include <stdio.h>

#include "rcuboost.h"
#include "src/core/settings.h"

#define PRINT(type, name, env, lo, hi, range, fixed, boost, spec) \
	printf("%s%s\n", env, (fixed) ? " fixed" : "");

int main(void)
{
	RCB__SETTINGS(PRINT)
	return 0;
}
