/* SPDX-License-Identifier: MIT */
/*
 * What the stall detector's files share (stall.c: detection and the
 * API; stall_report.c: the report and the waiting-updater table).
 * Internal to src/diag/; core reaches the detector through
 * rcb__diag_hooks (core/hooks.h).
 */
#ifndef RCB_DIAG_STALL_H
#define RCB_DIAG_STALL_H

#include <stddef.h>

/* Bounded text output: pos counts the length the text would have, as
 * snprintf() does, so a short buffer truncates and says how much. */
struct out {
	char *buf;
	size_t len; /* size of buf */
	size_t pos; /* length the text would have, as snprintf() counts */
};

/* Write the report for grace period @gp, waiting for readers since
 * @start, into @o.  Returns the number of readers holding it (0:
 * nothing written); *@first gets the first one's thread ID.  @dom: -1
 * for the default domain, else the domain's index (core/domain.h); a
 * qsbr domain's grace period is held by online threads without a
 * quiescent state. */
int rcb__stall_build_report(struct out *o, unsigned long gp,
			    unsigned long long start, int *first, int dom);
/* The calling thread leads grace period @gp, sleeping since @start_ns
 * (noted once per grace period, for the report). */
void rcb__stall_note_leader(unsigned long gp, unsigned long long start_ns);
/* rcb_synchronize() found the grace-period lock taken: note the
 * calling thread as a waiting updater until leave(slot) (invariant 4). */
int rcb__stall_waiter_enter(void);
void rcb__stall_waiter_leave(int slot);
/* fork() child: forget the parent's waiting updaters and leader. */
void rcb__stall_forget(void);

#endif /* RCB_DIAG_STALL_H */
