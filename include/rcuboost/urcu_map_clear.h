/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_map_clear.h - forget the plain liburcu names (rcu_read_lock,
 * synchronize_rcu, call_rcu, rcu_flavor...) that <rcuboost/urcu.h> maps to
 * the memb flavor, before a flavor header (<rcuboost/urcu_qsbr.h>,
 * urcu_bp.h, urcu_mb.h, urcu_signal.h) maps them to its own, as
 * liburcu's urcu/map/clear.h does.  No include guard: once per flavor
 * header.
 */
#undef rcu_read_lock
#undef _rcu_read_lock
#undef rcu_read_unlock
#undef _rcu_read_unlock
#undef rcu_read_ongoing
#undef _rcu_read_ongoing
#undef rcu_quiescent_state
#undef _rcu_quiescent_state
#undef rcu_thread_offline
#undef rcu_thread_online
#undef rcu_register_thread
#undef rcu_unregister_thread
#undef rcu_init
#undef rcu_exit
#undef synchronize_rcu
#undef call_rcu
#undef rcu_barrier
#undef defer_rcu
#undef rcu_defer_register_thread
#undef rcu_defer_unregister_thread
#undef rcu_defer_barrier
#undef rcu_defer_barrier_thread
#undef rcu_defer_exit
#undef rcu_flavor
#undef urcu_register_rculfhash_atfork
#undef urcu_unregister_rculfhash_atfork
#undef get_cpu_call_rcu_data
#undef get_call_rcu_thread
#undef create_call_rcu_data
#undef set_cpu_call_rcu_data
#undef get_default_call_rcu_data
#undef get_call_rcu_data
#undef get_thread_call_rcu_data
#undef set_thread_call_rcu_data
#undef create_all_cpu_call_rcu_data
#undef free_all_cpu_call_rcu_data
#undef call_rcu_data_free
#undef call_rcu_before_fork
#undef call_rcu_after_fork_parent
#undef call_rcu_after_fork_child
#undef start_poll_synchronize_rcu
#undef poll_state_synchronize_rcu
#undef RCB__UF
