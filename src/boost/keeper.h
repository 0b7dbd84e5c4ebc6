/* SPDX-License-Identifier: MIT */
/*
 * What the two sides of the keeper (keeper.c: the process it serves;
 * keeper_proc.c: the keeper process itself) share: the messages on
 * their SOCK_SEQPACKET channels.  The protocol and its invariants are
 * atop keeper.c.
 */
#ifndef RCB_BOOST_KEEPER_H
#define RCB_BOOST_KEEPER_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"

#define KEEPER_MAGIC 0x6b656570u /* "keep" */
#define KEEPER_WAIT_MS 100       /* a request's answer (invariant 4) */
#define KEEPER_START_MS 2000     /* the keeper's word that it runs */
#define KEEPER_CHANNELS 64       /* processes served at once */
#define SCHED_FLAG_RESET_ON_FORK_ 0x01ull

enum keeper_op { KEEPER_READY = 1, KEEPER_HELLO, KEEPER_SET, KEEPER_REPLY };

/* Every message, either way: one SOCK_SEQPACKET record. */
struct keeper_msg {
	uint32_t magic;
	uint32_t op;
	uint32_t seq;
	int32_t tid;    /* KEEPER_SET: the thread to change */
	int32_t result; /* KEEPER_READY, KEEPER_REPLY: 0 or -errno */
	uint32_t pad;
	struct rcb__sched_attr attr; /* KEEPER_SET */
};

/* The keeper process, in the child of keeper_spawn() (keeper.c): set
 * itself up, say so on @chan_fd, then serve every channel that comes
 * through @door_fd until the last one closes; never returns. */
__attribute__((noreturn)) void rcb__keeper_main(int door_fd, int chan_fd,
						pid_t creator, int cap,
						const cpu_set_t *cpus);

#endif /* RCB_BOOST_KEEPER_H */
