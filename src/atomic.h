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

#define rcb_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define rcb_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define rcb_store_relaxed(p, v) \
	atomic_store_explicit((p), (v), memory_order_relaxed)
#define rcb_store_release(p, v) \
	atomic_store_explicit((p), (v), memory_order_release)
#define rcb_xchg_acq_rel(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define rcb_xchg_relaxed(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_relaxed)
#define rcb_add_relaxed(p, v) \
	atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define rcb_add_release(p, v) \
	atomic_fetch_add_explicit((p), (v), memory_order_release)
#define rcb_sub_relaxed(p, v) \
	atomic_fetch_sub_explicit((p), (v), memory_order_relaxed)
#define rcb_cmpxchg_acq_rel(p, oldp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (oldp), (v),        \
						memory_order_acq_rel,    \
						memory_order_acquire)
#define rcb_cmpxchg_relaxed(p, oldp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (oldp), (v),        \
						memory_order_relaxed,    \
						memory_order_relaxed)
/* Sequentially consistent accesses, for store-buffering handshakes
 * between an enqueue and a sleeper's flag where a fence would cost more. */
#define rcb_load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define rcb_store_seq_cst(p, v) \
	atomic_store_explicit((p), (v), memory_order_seq_cst)
#define rcb_xchg_seq_cst(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_seq_cst)
#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer does not model stand-alone fences (gcc refuses them
 * under -Werror=tsan): a seq_cst read-modify-write on one shared word
 * orders the same accesses and is visible to it. */
extern _Atomic unsigned long rcb__tsan_fence_word;
#define rcb_fence_seq_cst() \
	((void)atomic_fetch_add_explicit(&rcb__tsan_fence_word, 0, \
					 memory_order_seq_cst))
#else
#define rcb_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
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
