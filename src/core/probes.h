/* SPDX-License-Identifier: MIT */
/*
 * USDT probes (rcuboost:block, rcuboost:boost, rcuboost:unboost,
 * rcuboost:stall; see rcuboost(3), TRACING).  The build sets RCB_HAVE_SDT to 1
 * when <sys/sdt.h> (Debian: systemtap-sdt-dev) is found and RCB_USE_SDT is not
 * OFF; otherwise the
 * probe macros expand to nothing, so the library builds with a bare C
 * compiler.  The stand-ins still evaluate their arguments, as the real
 * probes do (they are operands of the probe's asm), so that both builds
 * compute the same things and no variable becomes unused in either.
 */
#ifndef RCB_PROBES_H
#define RCB_PROBES_H

#if defined(RCB_HAVE_SDT) && RCB_HAVE_SDT
#include <sys/sdt.h>
#else
#define DTRACE_PROBE2(provider, name, a1, a2) ((void)(a1), (void)(a2))
#define DTRACE_PROBE4(provider, name, a1, a2, a3, a4) \
	((void)(a1), (void)(a2), (void)(a3), (void)(a4))
#endif

#endif
