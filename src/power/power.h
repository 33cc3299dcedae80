/* SPDX-License-Identifier: MIT */
/*
 * The DRAM power model (issue #8; every formula and its source is in
 * docs/power-model.md).  It turns a series of per-region occupancy and
 * access counts into energy per DRAM power state.  It knows nothing of the
 * allocator: its only input is struct mpm_power_input, which src/sim fills
 * from its samples, and a test can fill by hand.
 *
 * Units inside: seconds, watts, joules; memspec currents in mA, voltages in
 * V, timings in clock cycles of tck_ns, as DRAMPower's memspecs give them.
 */
#ifndef MPM_POWER_POWER_H
#define MPM_POWER_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One DRAM device (a chip), DRAMPower-style. */
struct mpm_memspec {
	char name[64];			/* preset name or memoryId */
	char source[96];		/* where the figures come from */
	unsigned int width;		/* data bits per device: 4, 8, 16, 32 */
	unsigned int banks, rows, columns;
	unsigned int burst_length;	/* BL: beats per burst */
	unsigned int data_rate;		/* beats per clock: 2 */
	double clk_mhz;
	/* timings, clock cycles; xpdll, xsdll 0 where the memspec has none */
	double rc, ras, rfc, refi, xp, xs, xpdll, xsdll;
	/*
	 * Precharge power-down stops the DLL (DDR3's slow exit, the mode of
	 * IDD2P0): a read after it waits tXPDLL.  DDR4 has no such mode.
	 */
	bool pd_dll_off;
	/* VDD currents, mA; idd2p and idd3p are the slow-exit (DLL off, "0") figures */
	double idd0, idd2n, idd2p, idd3n, idd3p, idd4r, idd4w, idd5, idd6;
	/* VPP currents (DDR4 wordline pump), mA; 0 where the memspec has none */
	double ipp0, ipp2n, ipp2p, ipp3n, ipp3p, ipp4r, ipp4w, ipp5, ipp6;
	double vdd, vpp;		/* V; vpp 0 = no VPP rail */
};

/* A memspec's derived figures, per device. */
struct mpm_memspec_power {
	double tck_s;
	uint64_t device_bytes;
	double act_stby_w, pre_stby_w, act_pd_w, pre_pd_w, sr_w;
	double refresh_w;		/* REF's adder above IDD3N, averaged over tREFI;
					 * each state's refresh: mpm_memspec_refresh_w */
	double sr_entry_j;		/* the refresh at IDD5 that starts each self-refresh */
	double act_j;			/* one ACT + PRE */
	double rd_burst_j, wr_burst_j;	/* one BL burst above active standby */
	double page_busy_s;		/* a 4 KiB transfer on a 64-bit rank */
	double line_busy_s;		/* one 64-byte burst on a 64-bit rank */
	double page_rd_j, page_wr_j;	/* 4 KiB read / written, activations included */
	double line_j;			/* one 64-byte access, activation included */
	double xp_s, xs_s;
	double pd_exit_s;		/* power-down to an access: tXPDLL if DLL off, else tXP */
	double sr_exit_s;		/* self-refresh to an access: tXSDLL (tXS without one) */
};

/* The power states of a domain (docs/power-model.md, "States"). */
enum mpm_pstate {
	MPM_PS_ACT_STBY,	/* a row open: transferring */
	MPM_PS_PRE_STBY,	/* all banks precharged, CKE high (incl. exits) */
	MPM_PS_ACT_PD,		/* CKE low with a row open: never entered (closed page) */
	MPM_PS_PRE_PD,		/* CKE low, all banks precharged (slow exit) */
	MPM_PS_SR,		/* self-refresh */
	MPM_PS_OFF,		/* no power (content lost; only with no used page) */
	MPM_NR_PSTATES
};

extern const char *const mpm_pstate_names[MPM_NR_PSTATES];

/*
 * What a domain held during one sample interval, for the self-refresh
 * breakdown "by_use" (docs/power-model.md, "Outputs"): accessed at least
 * once (pages, lines, or a reserved-memory domain's kernel_hz lines);
 * else holding used pages at the interval's start or end; else free.
 * Over a run, the three add up to the domains x the duration, and their
 * self-refresh times to the run's.
 */
enum mpm_power_use {
	MPM_USE_FREE,
	MPM_USE_IDLE,		/* used pages, no access */
	MPM_USE_TOUCHED,
	MPM_NR_USES
};

extern const char *const mpm_power_use_names[MPM_NR_USES];

/* The idle-timer policy of the memory controller, and the stated constants. */
struct mpm_power_policy {
	double pd_timer_clk;		/* idle DCLKs before power-down; <0 = never */
	double sr_timer_refi;		/* idle tREFIs before self-refresh; <0 = never */
	bool poweroff;			/* power off a domain that holds no used page */
	double poweron_s;		/* cost of powering a domain back on, in standby */
	double kernel_hz;		/* accesses/s to a domain holding reserved memory */
	double cpu_w;			/* one busy core (kmempowerd) */
	double system_w;		/* whole-system power the saving is set against */
	unsigned int group;		/* regions per domain (1 = one region = one rank) */
	unsigned int split;		/* domains per region, a power of two (1 = none);
					 * the simulator then reports windows of
					 * region / split pages (exclusive with group) */
	bool force;			/* enter a state even when it saves nothing */
	unsigned int interval_ms;	/* the simulator prices every interval_ms, a
					 * divisor of 1000: accesses are spread evenly
					 * within one (1000: the one-second samples) */
};

void mpm_power_policy_default(struct mpm_power_policy *p);
/* "key=value,..." over the defaults; -1 with a one-line reason. */
int mpm_power_policy_parse(const char *s, struct mpm_power_policy *p,
			   char *err, size_t errlen);

/* Presets: "ddr3-1600", "ddr4-2400", "ddr4-3200"; NULL if unknown. */
const struct mpm_memspec *mpm_memspec_preset(const char *name);
const char *mpm_memspec_preset_names(void);	/* "a, b, c" */
/* Physical consistency; 0 or -1 with a one-line reason. */
int mpm_memspec_check(const struct mpm_memspec *s, char *err, size_t errlen);
void mpm_memspec_derive(const struct mpm_memspec *s, struct mpm_memspec_power *d);
void mpm_memspec_refresh_w(const struct mpm_memspec *s, const struct mpm_memspec_power *d,
			   double pd_timer_clk, double ref_w[]);

/*
 * The model's input.  A region is what the simulator counts (a zone region
 * with present pages); regions on the same node with the same window lie
 * in one physical region-sized address range and share one domain.
 */
struct mpm_power_region {
	unsigned int node;
	uint64_t window;		/* physical range index (pfn / window pages: a
					 * region's, or with split a region's / split) */
	uint64_t present;		/* pages */
	bool kernel;			/* holds reserved memory: kernel image, memmap */
};

struct mpm_power_input {
	unsigned int nr_regions;
	const struct mpm_power_region *regions;
	uint64_t page_size;
	size_t nr_samples;		/* intervals = nr_samples - 1 */
	const double *t;		/* [nr_samples] seconds */
	const uint64_t *used;		/* [nr_samples][nr_regions] used pages */
	const uint64_t *rd, *wr;	/* [nr_samples][nr_regions] 4 KiB pages read and
					 * written in the interval ending at sample s
					 * (row 0 unused) */
	const uint64_t *lines;		/* [same] single 64-byte accesses (page tables,
					 * slab objects, a search's probes) */
	uint64_t migrated_pages;	/* by kmempowerd (already counted in rd/wr) */
	double kmempowerd_cpu_s;
};

struct mpm_power_domain {
	unsigned int node;
	uint64_t first_window;
	uint64_t present;		/* pages */
	double devices;			/* present bytes / device bytes (may be < 1) */
	bool kernel;
	double state_s[MPM_NR_PSTATES];
};

struct mpm_power_result {
	struct mpm_memspec spec;
	struct mpm_memspec_power dev;
	struct mpm_power_policy policy;
	double state_refresh_w[MPM_NR_PSTATES];	/* per device (mpm_memspec_refresh_w) */
	double duration_s;
	double tail_s;			/* of duration_s: quiet time after the work's end
					 * (mpm_power_tail), to a window shared with
					 * longer runs of the same work */
	unsigned int nr_domains;
	struct mpm_power_domain *domains;
	double state_s[MPM_NR_PSTATES];	/* domain-seconds */
	double state_j[MPM_NR_PSTATES];	/* background energy */
	double refresh_j, access_j, exit_j;
	double dram_j, dram_avg_w;
	double migration_j;		/* DRAM energy of kmempowerd's copies (in access_j) */
	double kmempowerd_cpu_j;
	uint64_t pages_rd, pages_wr, lines;
	uint64_t pd_exits, sr_exits, poweron_exits;
	double exit_latency_s;		/* summed over exits: time accesses waited */
	double use_s[MPM_NR_USES];	/* domain-seconds of each kind of interval */
	double use_sr_s[MPM_NR_USES];	/* of those, in self-refresh */
	double pd_after_s, sr_after_s;	/* idle age entering each state; INFINITY = never */
	struct mpm_power_state *state;	/* between mpm_power_begin and mpm_power_end */
};

/*
 * A run set against a baseline run (mainline) of the same work: the DRAM
 * saving in average watts, the CPU energy of kmempowerd spread over the run,
 * the net, and the net as a share of the whole-system power.
 */
struct mpm_power_saving {
	bool valid;			/* a baseline was run */
	double saving_w, saving_pct;	/* baseline DRAM W - this DRAM W; % of baseline */
	double kmempowerd_w;		/* CPU energy / duration */
	double net_w;			/* saving - kmempowerd */
	double system_w;
	double system_share;		/* net_w / system_w */
	double share_of;		/* saving / the reference policy's saving (Arjan) */
	bool share_valid;
};

void mpm_power_saving(const struct mpm_power_result *base, const struct mpm_power_result *r,
		      double system_w, struct mpm_power_saving *s);

/*
 * The model as a stream, one sample interval at a time, so a simulator can
 * price a run of any length without keeping its series: begin with the
 * regions, then one mpm_power_interval() per interval of @T seconds with
 * each region's used pages at its start and end and its accesses during it
 * (arrays of nr_regions; @rd, @wr and @lines may be NULL: none), then end.
 * begin returns 0, or -1 on ENOMEM; mpm_power_result_fini() either way.
 */
int mpm_power_begin(struct mpm_power_result *r, const struct mpm_power_region *regions,
		    unsigned int nr_regions, uint64_t page_size,
		    const struct mpm_memspec *spec, const struct mpm_power_policy *pol);
void mpm_power_interval(struct mpm_power_result *r, double T, const uint64_t *used0,
			const uint64_t *used1, const uint64_t *rd, const uint64_t *wr,
			const uint64_t *lines);
/*
 * @T seconds of the machine left idle after the work: @used pages held as
 * at the end, no access but the kernel's own (kernel_hz).  Runs of the same
 * work that end at different times are priced over one window this way, so
 * that a run which finishes early is not charged a higher average draw,
 * nor a late one credited with quiet seconds the others never had.
 */
void mpm_power_tail(struct mpm_power_result *r, double T, const uint64_t *used);
void mpm_power_end(struct mpm_power_result *r, uint64_t migrated_pages,
		   double kmempowerd_cpu_s);

/* The whole series at once; 0, or -1 on ENOMEM.  mpm_power_result_fini() either way. */
int mpm_power_compute(const struct mpm_power_input *in, const struct mpm_memspec *spec,
		      const struct mpm_power_policy *pol, struct mpm_power_result *r);
void mpm_power_result_fini(struct mpm_power_result *r);

#endif /* MPM_POWER_POWER_H */
