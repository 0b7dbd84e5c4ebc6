/* SPDX-License-Identifier: MIT */
/*
 * Named-order helpers: every access to shared state goes through one of
 * these, so the order it needs is written at the call.  No implicit
 * seq_cst.  Each acquire, release and fence at a call site carries a
 * label "[XX-N]" and names the operation it pairs with; doc/ordering.md
 * lists the pairs and a lint test checks for the labels.
 */
#ifndef RCB_ATOMIC_H
#define RCB_ATOMIC_H

#include <stdatomic.h>

#define rcb__a_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define rcb__a_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define rcb__a_store_relaxed(p, v) \
	atomic_store_explicit((p), (v), memory_order_relaxed)
#define rcb__a_store_release(p, v) \
	atomic_store_explicit((p), (v), memory_order_release)
#define rcb__a_xchg_acq_rel(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define rcb__a_xchg_relaxed(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_relaxed)
#define rcb__a_add_relaxed(p, v) \
	atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define rcb__a_add_release(p, v) \
	atomic_fetch_add_explicit((p), (v), memory_order_release)
#define rcb__a_sub_relaxed(p, v) \
	atomic_fetch_sub_explicit((p), (v), memory_order_relaxed)
#define rcb__a_cmpxchg_acq_rel(p, oldp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (oldp), (v),        \
						memory_order_acq_rel,    \
						memory_order_acquire)
#define rcb__a_cmpxchg_relaxed(p, oldp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (oldp), (v),        \
						memory_order_relaxed,    \
						memory_order_relaxed)
/* Sequentially consistent accesses, for store-buffering handshakes
 * between an enqueue and a sleeper's flag where a fence would cost more. */
#define rcb__a_load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define rcb__a_store_seq_cst(p, v) \
	atomic_store_explicit((p), (v), memory_order_seq_cst)
#define rcb__a_xchg_seq_cst(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_seq_cst)

/*
 * Simulation build (-DRCB_SIM, tools/sim/): every shared access is first
 * a simulation point, where the simulator may run another thread, deliver
 * a simulated signal or advance virtual time.  Normal builds: nothing.
 */
#ifdef RCB_SIM
void rcb__sim_point(const char *file, int line);
#define RCB__SIM_AT(e) (rcb__sim_point(__FILE__, __LINE__), (e))
#else
#define RCB__SIM_AT(e) (e)
#endif

#define rcb_load_relaxed(p) RCB__SIM_AT(rcb__a_load_relaxed(p))
#define rcb_load_acquire(p) RCB__SIM_AT(rcb__a_load_acquire(p))
#define rcb_store_relaxed(p, v) RCB__SIM_AT(rcb__a_store_relaxed(p, v))
#define rcb_store_release(p, v) RCB__SIM_AT(rcb__a_store_release(p, v))
#define rcb_xchg_acq_rel(p, v) RCB__SIM_AT(rcb__a_xchg_acq_rel(p, v))
#define rcb_xchg_relaxed(p, v) RCB__SIM_AT(rcb__a_xchg_relaxed(p, v))
#define rcb_add_relaxed(p, v) RCB__SIM_AT(rcb__a_add_relaxed(p, v))
#define rcb_add_release(p, v) RCB__SIM_AT(rcb__a_add_release(p, v))
#define rcb_sub_relaxed(p, v) RCB__SIM_AT(rcb__a_sub_relaxed(p, v))
#define rcb_cmpxchg_acq_rel(p, oldp, v) \
	RCB__SIM_AT(rcb__a_cmpxchg_acq_rel(p, oldp, v))
#define rcb_cmpxchg_relaxed(p, oldp, v) \
	RCB__SIM_AT(rcb__a_cmpxchg_relaxed(p, oldp, v))
#define rcb_load_seq_cst(p) RCB__SIM_AT(rcb__a_load_seq_cst(p))
#define rcb_store_seq_cst(p, v) RCB__SIM_AT(rcb__a_store_seq_cst(p, v))
#define rcb_xchg_seq_cst(p, v) RCB__SIM_AT(rcb__a_xchg_seq_cst(p, v))
#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer does not model stand-alone fences (gcc refuses them
 * under -Werror=tsan): a seq_cst read-modify-write on one shared word
 * orders the same accesses and is visible to it. */
extern _Atomic unsigned long rcb__tsan_fence_word;
#define rcb_fence_seq_cst() \
	((void)atomic_fetch_add_explicit(&rcb__tsan_fence_word, 0, \
					 memory_order_seq_cst))
#else
#define rcb_fence_seq_cst() \
	RCB__SIM_AT(atomic_thread_fence(memory_order_seq_cst))
#endif
#define rcb_compiler_barrier() atomic_signal_fence(memory_order_seq_cst)

/* Raise a relaxed maximum: *p = max(*p, v). */
static inline void rcb_max_relaxed(_Atomic unsigned long long *p,
				   unsigned long long v)
{
	unsigned long long cur = rcb_load_relaxed(p);

	while (cur < v && !rcb_cmpxchg_relaxed(p, &cur, v))
		;
}

static inline void rcb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	rcb_compiler_barrier();
#endif
}

#endif
