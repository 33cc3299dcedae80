/* SPDX-License-Identifier: MIT */
/*
 * The run's one source of randomness: xoshiro256** (Blackman & Vigna),
 * seeded through splitmix64 so that any 64-bit seed, 0 included, gives a
 * well-mixed state.  Every random choice in a run draws from one of these,
 * passed explicitly; there is no hidden global generator.
 */
#ifndef MPM_SIM_RNG_H
#define MPM_SIM_RNG_H

#include <stdint.h>

struct mpm_rng {
	uint64_t s[4];
};

void mpm_rng_seed(struct mpm_rng *r, uint64_t seed);
uint64_t mpm_rng_next(struct mpm_rng *r);
/* Uniform in [0, n), without modulo bias; n > 0. */
uint64_t mpm_rng_below(struct mpm_rng *r, uint64_t n);
/* Uniform in [0, 1) with 53 bits. */
double mpm_rng_double(struct mpm_rng *r);

#endif /* MPM_SIM_RNG_H */
