/* SPDX-License-Identifier: MIT */
/*
 * Early start (RCUBOOST_EARLY=1): initialise the library, boosters
 * included, from a constructor, before the program's main() runs.  For
 * an unmodified daemon that drops its privileges early in main() and
 * makes its first RCU call afterwards: a lazy initialisation then would
 * find no permission for real-time priority, and boosting would be off
 * for the life of the process.  Started here, while the process still
 * has them, the boosters keep CAP_SYS_NICE across the drop
 * (libthread.c).  Opt-in: a library that starts threads before main()
 * surprises programs that fork() without exec() early, or that set
 * their CPU affinity or scheduling in main() for threads to inherit.
 * For the same daemons, the child of a fork() starts its boosters at
 * once, too (booster.c: rcb__booster_restart_after_fork()).
 *
 * The same constructor registers the library's fork handlers, before
 * main() can register its own (init.c: rcb__atfork_register()).
 *
 * This file is the last of the library's sources (CMakeLists.txt), so
 * its constructor runs after the others of a shared object; the locks
 * exist either way (rcb_init() makes them first if need be,
 * rcb__construct()).  A static library drops this object unless
 * something references it; the early start is for the shared library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

__attribute__((constructor)) static void rcb_early_start(void)
{
	const char *v = getenv("RCUBOOST_EARLY");
	int on, err;

	/* Before any handler main() registers (init.c); a failure is
	 * retried, and reported, by the first initialisation.  Not under
	 * ThreadSanitizer: it does not see the child re-create the locks
	 * the prepare handler took, and reports each one's next use as a
	 * double lock in every child, even of a process that never used
	 * the library (the first initialisation registers them there). */
#if !defined(__SANITIZE_THREAD__)
	(void)rcb__atfork_register();
#endif

	if (!v)
		return;
	on = rcb__env_flag(v);
	if (on < 0) {
		/* As settings.c names a bad variable; a constructor cannot
		 * fail the program, so it starts nothing early. */
		fprintf(stderr,
			"rcuboost: environment variable RCUBOOST_EARLY=\"%s\" is invalid: "
			"expected 0 or 1; the library starts at its first use\n", v);
		return;
	}
	if (!on)
		return;
	/* The settings come from the environment, as a lazy start's
	 * would; a later rcb_init() with other settings gets -EBUSY. */
	rcb__early_start = true;
	if ((err = rcb_init(NULL)) != 0)
		fprintf(stderr, "rcuboost: RCUBOOST_EARLY=1: rcb_init: %s\n",
			strerror(-err));
}
