/* SPDX-License-Identifier: MIT */
/*
 * The boost state machines, each defined once as an X-macro list.  The
 * list generates the C enum, the state names in the statistics output,
 * and the list that tests/build compares with the mtype of the Promela
 * model in models/.  Order matters: it is the column order of the
 * article's rbs_stats[event][state] and of the model's mtype.
 */
#ifndef RCB_STATES_H
#define RCB_STATES_H

/* article: "RCU Explicit Priority Boosting", "State Diagram" */
#define RCB_BOOST3_STATES(X)  \
	X(RCU_BOOST_IDLE)     \
	X(RCU_BOOST_BLOCKED)  \
	X(RCU_BOOSTED)

/* article: "RCU Priority Boosting With Minimal Scheduler-Path Overhead",
 * "State Diagram" (the exit-safe compare-and-exchange machine). */
/* X(C name, article name): the C names carry "8" where the 3-state
 * machine already uses the article's name. */
#define RCB_BOOST8_STATES(X)                            \
	X(RCU_BOOST8_IDLE, RCU_BOOST_IDLE)              \
	X(RCU_BOOST8_BLOCKED, RCU_BOOST_BLOCKED)        \
	X(RCU_BOOSTING, RCU_BOOSTING)                   \
	X(RCU_BOOST8_BOOSTED, RCU_BOOSTED)              \
	X(RCU_UNBOOST_IDLE, RCU_UNBOOST_IDLE)           \
	X(RCU_UNBOOST_BLOCKED, RCU_UNBOOST_BLOCKED)     \
	X(RCU_UNBOOST_EXITING, RCU_UNBOOST_EXITING)     \
	X(RCU_EXIT_OK, RCU_EXIT_OK)

/* article: "RCU Priority Boosting With Per-Task Lock" -- the variant the
 * article says does not work.  Built only into the test-only library
 * rcuboost_pertask (RCB_PERTASK_LOCK), never into librcuboost. */
#define RCB_PERTASK_STATES(X)                              \
	X(RCU_PT_IDLE, RCU_BOOST_IDLE)                     \
	X(RCU_PT_BLOCKED, RCU_BOOST_BLOCKED)               \
	X(RCU_PT_BOOSTING, RCU_BOOSTING)                   \
	X(RCU_END_BOOST_IDLE, RCU_END_BOOST_IDLE)          \
	X(RCU_END_BOOST_BLOCKED, RCU_END_BOOST_BLOCKED)    \
	X(RCU_PT_UNBOOST_EXITING, RCU_UNBOOST_EXITING)     \
	X(RCU_PT_EXIT_OK, RCU_EXIT_OK)

/* Events counted in rbs_stats[event][state] (article's column rows). */
#define RCB_BOOST_EVENTS(X)   \
	X(RCU_BOOST_DAT_BLOCK, "block: ")  \
	X(RCU_BOOST_DAT_BOOST, "boost: ")  \
	X(RCU_BOOST_DAT_UNLOCK, "unlock: ")

#define RCB__STATE_ENUM(name) name,
enum rcu_boost_state { RCB_BOOST3_STATES(RCB__STATE_ENUM) N_RCU_BOOST_STATE };
#undef RCB__STATE_ENUM

#define RCB__STATE8_ENUM(name, article) name,
enum rcu_boost8_state {
	RCB_BOOST8_STATES(RCB__STATE8_ENUM) N_RCU_BOOST8_STATE
};
#undef RCB__STATE8_ENUM

#define RCB__STATEPT_ENUM(name, article) name,
enum rcu_boost_pt_state {
	RCB_PERTASK_STATES(RCB__STATEPT_ENUM) N_RCU_BOOST_PT_STATE
};
#undef RCB__STATEPT_ENUM

/* Columns of rbs_stats: enough for the larger machine, plus "invalid". */
#define RCB_MAX_BOOST_STATES N_RCU_BOOST8_STATE

_Static_assert((int)RCU_BOOST8_IDLE == (int)RCU_BOOST_IDLE &&
		       (int)RCU_BOOST8_BLOCKED == (int)RCU_BOOST_BLOCKED,
	       "IDLE is 0 and BLOCKED 1 in both machines: the inline unlock "
	       "tests state != 0, and queueing is shared");

#define RCB__EVENT_ENUM(name, label) name,
enum rcu_boost_dat_event {
	RCB_BOOST_EVENTS(RCB__EVENT_ENUM) N_RCU_BOOST_DAT_EVENTS
};
#undef RCB__EVENT_ENUM

#endif
