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

/* Events counted in rbs_stats[event][state] (article's column rows). */
#define RCB_BOOST_EVENTS(X)   \
	X(RCU_BOOST_DAT_BLOCK, "block: ")  \
	X(RCU_BOOST_DAT_BOOST, "boost: ")  \
	X(RCU_BOOST_DAT_UNLOCK, "unlock: ")

#define RCB__STATE_ENUM(name) name,
enum rcu_boost_state { RCB_BOOST3_STATES(RCB__STATE_ENUM) N_RCU_BOOST_STATE };
#undef RCB__STATE_ENUM

#define RCB__EVENT_ENUM(name, label) name,
enum rcu_boost_dat_event { RCB_BOOST_EVENTS(RCB__EVENT_ENUM) N_RCU_BOOST_DAT_EVENTS };
#undef RCB__EVENT_ENUM

#endif
