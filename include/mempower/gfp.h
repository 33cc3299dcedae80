/* SPDX-License-Identifier: MIT */
/*
 * GFP flags, bit for bit as Linux 3.12 defines them in include/linux/gfp.h,
 * so that gfp_flags read from a kernel trace can be passed straight in.
 * __GFP_MOVABLE and __GFP_RECLAIMABLE together name no migratetype (3.12
 * WARN_ONs on them): an allocation with both fails (MPM_NO_PFN).
 */
#ifndef MEMPOWER_GFP_H
#define MEMPOWER_GFP_H

typedef unsigned int mpm_gfp_t;

#define MPM___GFP_DMA		0x01u
#define MPM___GFP_HIGHMEM	0x02u
#define MPM___GFP_DMA32		0x04u
#define MPM___GFP_MOVABLE	0x08u
#define MPM___GFP_WAIT		0x10u
#define MPM___GFP_HIGH		0x20u
#define MPM___GFP_IO		0x40u
#define MPM___GFP_FS		0x80u
#define MPM___GFP_COLD		0x100u
#define MPM___GFP_NOWARN	0x200u
#define MPM___GFP_REPEAT	0x400u
#define MPM___GFP_NOFAIL	0x800u
#define MPM___GFP_NORETRY	0x1000u
#define MPM___GFP_MEMALLOC	0x2000u
#define MPM___GFP_COMP		0x4000u
#define MPM___GFP_ZERO		0x8000u
#define MPM___GFP_NOMEMALLOC	0x10000u
#define MPM___GFP_HARDWALL	0x20000u
#define MPM___GFP_THISNODE	0x40000u
#define MPM___GFP_RECLAIMABLE	0x80000u
#define MPM___GFP_KMEMCG	0x100000u
#define MPM___GFP_NOTRACK	0x200000u
#define MPM___GFP_NO_KSWAPD	0x400000u
#define MPM___GFP_OTHER_NODE	0x800000u
#define MPM___GFP_WRITE		0x1000000u

#define MPM_GFP_NOWAIT		0u
#define MPM_GFP_ATOMIC		(MPM___GFP_HIGH)
#define MPM_GFP_NOIO		(MPM___GFP_WAIT)
#define MPM_GFP_NOFS		(MPM___GFP_WAIT | MPM___GFP_IO)
#define MPM_GFP_KERNEL		(MPM___GFP_WAIT | MPM___GFP_IO | MPM___GFP_FS)
#define MPM_GFP_TEMPORARY	(MPM_GFP_KERNEL | MPM___GFP_RECLAIMABLE)
#define MPM_GFP_USER		(MPM_GFP_KERNEL | MPM___GFP_HARDWALL)
#define MPM_GFP_HIGHUSER	(MPM_GFP_USER | MPM___GFP_HIGHMEM)
#define MPM_GFP_HIGHUSER_MOVABLE (MPM_GFP_HIGHUSER | MPM___GFP_MOVABLE)
#define MPM_GFP_TRANSHUGE	(MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COMP | \
				 MPM___GFP_NOMEMALLOC | MPM___GFP_NORETRY | \
				 MPM___GFP_NOWARN | MPM___GFP_NO_KSWAPD)
#define MPM_GFP_DMA		(MPM___GFP_DMA)
#define MPM_GFP_DMA32		(MPM___GFP_DMA32)

#endif /* MEMPOWER_GFP_H */
