/* SPDX-License-Identifier: MIT */
/*
 * zone->lock is a spinlock, as in the kernel: critical sections are a few
 * list operations long, and an uncontended acquire is one atomic exchange.
 * Test-and-test-and-set, and a waiter that keeps failing yields its CPU so
 * that a preempted holder on an oversubscribed machine can finish.
 */
#ifndef MPM_CORE_SPINLOCK_H
#define MPM_CORE_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	atomic_signal_fence(memory_order_seq_cst)
#endif

typedef struct {
	atomic_bool locked;
} spinlock_t;

static inline void spin_lock_init(spinlock_t *l)
{
	atomic_init(&l->locked, false);
}

static inline void spin_lock(spinlock_t *l)
{
	unsigned int spins = 0;

	while (atomic_exchange_explicit(&l->locked, true, memory_order_acquire)) {
		while (atomic_load_explicit(&l->locked, memory_order_relaxed)) {
			if (++spins > 1000) {
				sched_yield();
				spins = 0;
			} else {
				cpu_relax();
			}
		}
	}
}

static inline void spin_unlock(spinlock_t *l)
{
	atomic_store_explicit(&l->locked, false, memory_order_release);
}

#endif /* MPM_CORE_SPINLOCK_H */
