// SPDX-License-Identifier: MIT
/*
 * The DRAM power model on constructed occupancy series, with energies
 * computed by hand: the DRAMPower background method for DDR3-1600, a
 * domain idle the whole time (self-refresh energy exactly), a domain
 * touched every interval (never in self-refresh), power-off and power-on,
 * the idle age carried between intervals, exit latencies, migration
 * energy, grouping, monotonicity in free regions, determinism; and memspec
 * files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/memspec_json.h"
#include "power/power.h"
#include "testlib.h"

#define DATA MPM_SOURCE_DIR "/tests/io/data/"
#define REGION_PAGES 131072ull		/* 512 MiB */
#define MAXR 16
#define MAXS 16

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-15;
}

#define CHECK_NEAR(a, b) do { \
	double _a = (a), _b = (b); \
	t_checks++; \
	if (!close_to(_a, _b)) { \
		t_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.12g != %.12g)\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

/* A constructed series: regions each 512 MiB, one per window on node 0. */
struct series {
	struct mpm_power_region reg[MAXR];
	double t[MAXS];
	uint64_t used[MAXS * MAXR], rd[MAXS * MAXR], wr[MAXS * MAXR], lines[MAXS * MAXR];
	struct mpm_power_input in;
};

static void series_init(struct series *s, unsigned int nr, size_t samples)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int i = 0; i < nr; i++) {
		s->reg[i].window = i;
		s->reg[i].present = REGION_PAGES;
	}
	for (size_t k = 0; k < samples; k++)
		s->t[k] = (double)k;
	s->in.nr_regions = nr;
	s->in.regions = s->reg;
	s->in.page_size = 4096;
	s->in.nr_samples = samples;
	s->in.t = s->t;
	s->in.used = s->used;
	s->in.rd = s->rd;
	s->in.wr = s->wr;
	s->in.lines = s->lines;
}

static double background_j(const struct mpm_power_result *r)
{
	double j = r->refresh_j;

	for (int s = 0; s < MPM_NR_PSTATES; s++)
		j += r->state_j[s];
	return j;
}

/* DRAMPower's method by hand for MICRON_2Gb_DDR3-1600_16bit_D. */
static void test_drampower_crosscheck(void)
{
	const struct mpm_memspec *s = mpm_memspec_preset("ddr3-1600");
	struct mpm_memspec_power d;
	double tck = 1.25e-9, cycles = 1e6;

	REQUIRE(s);
	mpm_memspec_derive(s, &d);
	CHECK_NEAR(d.tck_s, tck);
	CHECK_EQ_U(d.device_bytes, 256ull << 20);		/* 2 Gb */
	/* background: E = IDD x VDD x cycles x tCK; 1e6 cycles = 1.25 ms */
	CHECK_NEAR(d.act_stby_w * cycles * tck, 0.045 * 1.5 * 1.25e-3);	/* 84.375 uJ */
	CHECK_NEAR(d.pre_stby_w * cycles * tck, 0.042 * 1.5 * 1.25e-3);	/* 78.75 uJ */
	CHECK_NEAR(d.pre_pd_w * cycles * tck, 0.012 * 1.5 * 1.25e-3);	/* 22.5 uJ */
	CHECK_NEAR(d.sr_w * cycles * tck, 0.012 * 1.5 * 1.25e-3);
	CHECK_NEAR(d.act_stby_w, 0.0675);
	CHECK_NEAR(d.pre_stby_w, 0.063);
	CHECK_NEAR(d.pre_pd_w, 0.018);
	CHECK_NEAR(d.sr_w, 0.018);
	/* refresh: (215 - 45) mA x 1.5 V x 128 / 6240 = 5.231 mW */
	CHECK_NEAR(d.refresh_w, 0.170 * 1.5 * 128.0 / 6240.0);
	/* ACT (110-45) x 1.5 x 28 tCK + PRE (110-42) x 1.5 x 10 tCK = 4.6875 nJ */
	CHECK_NEAR(d.act_j, 4.6875e-9);
	/* read burst: (270-45) mA x 1.5 V x 4 tCK = 1.6875 nJ; write (280-45) */
	CHECK_NEAR(d.rd_burst_j, 1.6875e-9);
	CHECK_NEAR(d.wr_burst_j, 0.235 * 1.5 * 5e-9);
	/* a 4 KiB read: 256 x16 bursts of 16 B + one ACT on each of 4 devices */
	CHECK_NEAR(d.page_rd_j, 256 * 1.6875e-9 + 4 * 4.6875e-9);
	CHECK_NEAR(d.xs_s, 170e-9);
	CHECK_NEAR(d.xp_s, 6.25e-9);
	/* DLL-off power-down: a read waits tXPDLL 20 tCK; after self-refresh tXSDLL 512 */
	CHECK_NEAR(d.pd_exit_s, 25e-9);
	CHECK_NEAR(d.sr_exit_s, 640e-9);
	/* self-refresh entry: one REF at IDD5 instead of IDD6, (215 - 12) x 1.5 x 160 ns */
	CHECK_NEAR(d.sr_entry_j, 0.203 * 1.5 * 160e-9);
	{
		double ref[MPM_NR_PSTATES];

		/* with the default 128-clock power-down timer */
		mpm_memspec_refresh_w(s, &d, 128, ref);
		CHECK_NEAR(ref[MPM_PS_ACT_STBY], d.refresh_w);
		/* REF cycles are active standby: (67.5 - 63) mW x 128 / 6240 more */
		CHECK_NEAR(ref[MPM_PS_PRE_STBY], d.refresh_w + 0.0045 * 128 / 6240);
		/* in power-down also tXP 5 + timer 128 clocks awake in standby per REF */
		CHECK_NEAR(ref[MPM_PS_PRE_PD], d.refresh_w + 0.0495 * 128 / 6240 +
					       0.045 * 133 / 6240);
		CHECK(ref[MPM_PS_SR] == 0 && ref[MPM_PS_OFF] == 0);
		/* a timer of -1 (never) leaves tXP alone; a huge one is cut at tREFI */
		mpm_memspec_refresh_w(s, &d, -1, ref);
		CHECK_NEAR(ref[MPM_PS_PRE_PD], d.refresh_w + 0.0495 * 128 / 6240 +
					       0.045 * 5 / 6240);
		mpm_memspec_refresh_w(s, &d, 1e9, ref);
		CHECK_NEAR(ref[MPM_PS_PRE_PD], d.refresh_w + 0.0495 * 128 / 6240 +
					       0.045 * (6240 - 128) / 6240);
	}
}

/* One domain holding pages but never touched: self-refresh all along. */
static void test_idle_self_refresh(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;

	series_init(&s, 1, 11);
	for (int k = 0; k < 11; k++)
		s.used[k] = 1000;
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_EQ_U(r.nr_domains, 1);
	CHECK_NEAR(r.domains[0].devices, 2.0);
	CHECK_NEAR(r.duration_s, 10.0);
	CHECK_NEAR(r.state_s[MPM_PS_SR], 10.0);
	/* 2 devices x IDD6 12 mA x 1.5 V x 10 s, and nothing else */
	CHECK_NEAR(r.dram_j, 2 * 0.012 * 1.5 * 10);
	CHECK_NEAR(r.dram_avg_w, 0.036);
	CHECK(r.refresh_j == 0 && r.access_j == 0);
	CHECK_EQ_U(r.sr_exits, 0);
	mpm_power_result_fini(&r);
}

/*
 * One read in the first second, then nothing: the domain wakes once
 * (tXSDLL from its boot self-refresh), then ages back into self-refresh
 * once, and that entry's REF at IDD5 is the only refresh energy beyond
 * each state's time x its refresh power.
 */
static void test_self_refresh_entry(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	double ref[MPM_NR_PSTATES], timed = 0;

	series_init(&s, 1, 4);
	for (int k = 0; k < 4; k++)
		s.used[k] = 1000;
	s.rd[1] = 1;
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_EQ_U(r.sr_exits, 1);
	CHECK_NEAR(r.exit_latency_s, 640e-9);
	mpm_memspec_refresh_w(&r.spec, &r.dev, pol.pd_timer_clk, ref);
	for (int st = 0; st < MPM_NR_PSTATES; st++)
		timed += r.state_s[st] * ref[st] * r.domains[0].devices;
	CHECK(r.state_s[MPM_PS_PRE_PD] > 0 && r.state_s[MPM_PS_PRE_STBY] > 0);
	CHECK_NEAR(r.refresh_j - timed, r.dev.sr_entry_j * r.domains[0].devices);
	mpm_power_result_fini(&r);
}

/* Touched every interval often enough: never self-refresh, times add up. */
static void test_touched_never_sleeps(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	const uint64_t n = 100000;		/* page reads per second */
	double busy, g, pd_per_gap;

	series_init(&s, 1, 6);
	for (int k = 0; k < 6; k++) {
		s.used[k] = REGION_PAGES;
		if (k)
			s.rd[k] = n;
	}
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	/* only the idle-since-boot half gap before the first read is self-refresh */
	g = (1 - n * 256 * 1.25e-9) / n;
	CHECK(r.state_s[MPM_PS_SR] <= g / 2);
	CHECK(r.state_s[MPM_PS_OFF] == 0);
	CHECK_EQ_U(r.sr_exits, 1);
	/* each read: 256 tCK busy; the rest in n gaps of g, the first one is
	 * the idle-since-boot tail: it was in self-refresh and pays tXSDLL */
	busy = 256 * 1.25e-9;
	CHECK_NEAR(r.state_s[MPM_PS_ACT_STBY], 5 * n * busy);
	pd_per_gap = g - 160e-9 - 25e-9;		/* 128 DCLK timer, tXPDLL exit */
	CHECK(g > 160e-9 && g < 78e-6);
	/* intervals 2..5: n - 1 full gaps + two halves, all power-down exits */
	{
		double sum = 0;

		for (int st = 0; st < MPM_NR_PSTATES; st++)
			sum += r.state_s[st];
		CHECK_NEAR(sum, 5.0);
	}
	CHECK(fabs(r.state_s[MPM_PS_PRE_PD] - 5 * n * pd_per_gap) < 5 * g);
	CHECK_NEAR(r.access_j, 5.0 * n * r.dev.page_rd_j);
	mpm_power_result_fini(&r);

	/* the same domain as the kernel's: touched at kernel_hz even with no reads */
	series_init(&s, 1, 6);
	s.reg[0].kernel = true;
	for (int k = 0; k < 6; k++)
		s.used[k] = 10;
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK(r.state_s[MPM_PS_SR] == 0);
	CHECK(r.state_s[MPM_PS_PRE_PD] > 4.9);
	mpm_power_result_fini(&r);
}

/*
 * by_use: each domain-interval counted once, as free, idle (used pages, no
 * access) or touched, with the self-refresh time it had; the three add up
 * to the run's domain-seconds and its self-refresh time.
 */
static void test_by_use(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	double sum = 0, sr = 0;
	char err[200];

	series_init(&s, 3, 5);
	for (int k = 0; k < 5; k++) {
		s.used[k * 3 + 0] = 100;		/* region 0: used, read once */
		if (k)
			s.rd[k * 3 + 2] = 100000;	/* region 2: free, read hard */
	}
	s.rd[2 * 3 + 0] = 1;				/* interval 2 of region 0 */
	s.used[3 * 3 + 1] = 7;				/* region 1: used at sample 3 */
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	/* region 0: 3 idle + 1 touched; region 1: 2 free + 2 idle; region 2: 4 touched */
	CHECK_NEAR(r.use_s[MPM_USE_FREE], 2.0);
	CHECK_NEAR(r.use_s[MPM_USE_IDLE], 5.0);
	CHECK_NEAR(r.use_s[MPM_USE_TOUCHED], 5.0);
	/*
	 * untouched intervals are all self-refresh here: region 1 was never
	 * touched, and region 0's read, half a second before interval 3,
	 * left it older than the self-refresh timer
	 */
	CHECK_NEAR(r.use_sr_s[MPM_USE_FREE], 2.0);
	CHECK_NEAR(r.use_sr_s[MPM_USE_IDLE], 5.0);
	/* the touched ones: region 0's one read leaves it most of a second */
	CHECK(r.use_sr_s[MPM_USE_TOUCHED] > 0.9 && r.use_sr_s[MPM_USE_TOUCHED] < 1.0);
	for (int u = 0; u < MPM_NR_USES; u++) {
		sum += r.use_s[u];
		sr += r.use_sr_s[u];
	}
	CHECK_NEAR(sum, 3 * r.duration_s);
	CHECK_NEAR(sr, r.state_s[MPM_PS_SR]);
	mpm_power_result_fini(&r);

	/* a reserved-memory domain is touched (kernel_hz) even with no access */
	series_init(&s, 1, 3);
	s.reg[0].kernel = true;
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_NEAR(r.use_s[MPM_USE_TOUCHED], 2.0);
	CHECK(r.use_s[MPM_USE_FREE] == 0 && r.use_s[MPM_USE_IDLE] == 0);
	mpm_power_result_fini(&r);

	/* ... but not with kernel_hz=0, where nothing touches it */
	REQUIRE(!mpm_power_policy_parse("kernel_hz=0", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_NEAR(r.use_s[MPM_USE_FREE], 2.0);
	CHECK(r.use_s[MPM_USE_TOUCHED] == 0);
	mpm_power_result_fini(&r);
}

/*
 * by_use with power-off and grouping: lines alone touch a domain; a free
 * domain is off, not in self-refresh; two regions in one domain are one
 * domain-interval, touched if either region is.
 */
static void test_by_use_poweroff_group(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	char err[200];

	series_init(&s, 4, 3);
	for (int k = 0; k < 3; k++)
		s.used[k * 4 + 0] = 5;		/* regions 0+1: one domain, used */
	s.lines[1 * 4 + 1] = 1;			/* interval 0: a line in region 1 */
	/* regions 2+3: one domain, free throughout */
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_policy_parse("group=2,poweroff=1", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_EQ_U(r.nr_domains, 2);
	CHECK_NEAR(r.use_s[MPM_USE_TOUCHED], 1.0);
	CHECK_NEAR(r.use_s[MPM_USE_IDLE], 1.0);
	CHECK_NEAR(r.use_s[MPM_USE_FREE], 2.0);
	CHECK(r.use_sr_s[MPM_USE_FREE] == 0);
	CHECK_NEAR(r.state_s[MPM_PS_OFF], 2.0);
	CHECK_NEAR(r.use_sr_s[MPM_USE_IDLE] + r.use_sr_s[MPM_USE_TOUCHED],
		   r.state_s[MPM_PS_SR]);
	mpm_power_result_fini(&r);
}

/* Power-off: an empty domain draws nothing, and pays to come back. */
static void test_poweroff(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	char err[200];

	series_init(&s, 2, 5);
	for (int k = 0; k < 5; k++)
		s.used[k * 2 + 0] = 100;		/* region 0 used, region 1 empty */
	s.used[4 * 2 + 1] = 1;				/* region 1 filled by the end */
	s.wr[4 * 2 + 1] = 1;
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_policy_parse("poweroff=1", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_NEAR(r.domains[1].state_s[MPM_PS_OFF], 3.0);
	CHECK_NEAR(r.domains[0].state_s[MPM_PS_SR], 4.0);
	CHECK_EQ_U(r.poweron_exits, 1);
	CHECK_NEAR(r.domains[1].state_s[MPM_PS_PRE_STBY] >= 700e-6, 1);
	mpm_power_result_fini(&r);
}

/*
 * Powered back on, a domain is fresh: it pays poweron_us in precharge
 * standby, then ages from 0 through the timers -- precharge standby until
 * pd_after_s, power-down until sr_after_s, self-refresh for the rest of
 * the second.  A domain holding reserved memory is never powered off.
 */
static void test_poweron_fresh(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	char err[200];

	series_init(&s, 1, 3);
	s.used[2] = 1000;	/* empty at t = 0 and 1, used at 2 */
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_policy_parse("poweroff=1", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_EQ_U(r.poweron_exits, 1);
	CHECK_NEAR(r.state_s[MPM_PS_OFF], 1.0);
	CHECK_NEAR(r.state_s[MPM_PS_PRE_STBY], pol.poweron_s + r.pd_after_s);
	CHECK_NEAR(r.state_s[MPM_PS_PRE_PD], r.sr_after_s - r.pd_after_s);
	CHECK_NEAR(r.state_s[MPM_PS_SR], 1.0 - pol.poweron_s - r.sr_after_s);
	CHECK_NEAR(r.exit_latency_s, pol.poweron_s);
	mpm_power_result_fini(&r);

	series_init(&s, 1, 3);	/* nothing used, nothing touched, but reserved */
	s.reg[0].kernel = true;
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_NEAR(r.state_s[MPM_PS_OFF], 0.0);
	CHECK_EQ_U(r.poweron_exits, 0);
	mpm_power_result_fini(&r);
}

/*
 * The idle age carries over: after n evenly spread reads in a second, the
 * half gap after the last, g / 2 with g = (1 s - n x page busy) / n, is the
 * age the next, untouched second starts at, so it reaches self-refresh
 * sr_after_s - g / 2 into that second.  A second of 8,500 reads has gaps
 * just longer than the self-refresh timer: each read wakes the domain from
 * self-refresh, and exit_latency_s is the sum of every exit's latency.
 */
static void test_idle_age_and_exits(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result one, two, r;
	double g;

	mpm_power_policy_default(&pol);
	series_init(&s, 1, 3);
	for (int k = 0; k < 3; k++)
		s.used[k] = 1000;
	s.rd[1] = 10000;
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &two));
	s.in.nr_samples = 2;	/* the first second alone */
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &one));
	g = (1.0 - 10000 * two.dev.page_busy_s) / 10000;
	REQUIRE(g / 2 > two.pd_after_s && g / 2 < two.sr_after_s);
	CHECK_NEAR(two.state_s[MPM_PS_PRE_PD] - one.state_s[MPM_PS_PRE_PD], two.sr_after_s - g / 2);
	CHECK_NEAR(two.state_s[MPM_PS_SR] - one.state_s[MPM_PS_SR], 1.0 - (two.sr_after_s - g / 2));
	mpm_power_result_fini(&one);
	mpm_power_result_fini(&two);

	series_init(&s, 1, 2);
	s.used[0] = s.used[1] = 1000;
	s.rd[1] = 8500;
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	g = (1.0 - 8500 * r.dev.page_busy_s) / 8500;
	REQUIRE(g > r.sr_after_s);
	CHECK_EQ_U(r.sr_exits, 8500);
	CHECK_NEAR(r.exit_latency_s, r.sr_exits * r.dev.sr_exit_s + r.pd_exits * r.dev.pd_exit_s +
				     r.poweron_exits * pol.poweron_s);
	CHECK_NEAR(r.exit_latency_s, 8500 * r.dev.sr_exit_s);
	mpm_power_result_fini(&r);
}

/* kmempowerd's copies: each migrated page is read once and written once. */
static void test_migration_energy(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;

	series_init(&s, 1, 2);
	s.used[0] = s.used[1] = 1000;
	s.rd[1] = s.wr[1] = 1000;	/* the copies are in rd and wr too */
	s.in.migrated_pages = 1000;
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	/* page_rd_j and page_wr_j are a rank's: every device's bursts of the page */
	CHECK_NEAR(r.migration_j, 1000 * (r.dev.page_rd_j + r.dev.page_wr_j));
	CHECK_NEAR(r.migration_j, r.access_j);	/* here the copies are all the accesses */
	mpm_power_result_fini(&r);
}

/* group=2: two 512 MiB windows make one domain of 4 devices. */
static void test_group(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	char err[200];

	series_init(&s, 4, 3);
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_policy_parse("group=2", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK_EQ_U(r.nr_domains, 2);
	CHECK_NEAR(r.domains[0].devices, 4.0);
	mpm_power_result_fini(&r);
}

/*
 * Domains are numbered in the order of their first region, and a window
 * shared by two zones' regions of one node (DMA32's last region and
 * Normal's first, say) is one domain, while the same window number on
 * another node is not.  Then a machine of 60,000 regions laid out so, to
 * keep the domain lookup honest at the region counts a 1 TiB machine in
 * 8 MiB regions has (131,072).
 */
static void check_domains(const struct mpm_power_result *r, unsigned int nr,
			  const unsigned int (*want)[3])
{
	CHECK_EQ_U(r->nr_domains, nr);
	for (unsigned int d = 0; d < nr && d < r->nr_domains; d++) {
		CHECK_EQ_U(r->domains[d].node, want[d][0]);
		CHECK_EQ_U(r->domains[d].first_window, want[d][1]);
		CHECK_EQ_U(r->domains[d].present, want[d][2]);
	}
}

static void test_domains_by_first_region(void)
{
	static const struct mpm_power_region reg[] = {
		{ .node = 0, .window = 0, .present = 4095 },	/* DMA */
		{ .node = 0, .window = 0, .present = 126976 },	/* DMA32 */
		{ .node = 0, .window = 1, .present = 131072 },
		{ .node = 0, .window = 2, .present = 1000 },	/* DMA32's last */
		{ .node = 1, .window = 0, .present = 131072 },
		{ .node = 0, .window = 2, .present = 130072 },	/* Normal's first */
		{ .node = 1, .window = 1, .present = 131072 },
		{ .node = 0, .window = 3, .present = 131072 },
	};
	static const unsigned int want[][3] = {
		{ 0, 0, 131071 }, { 0, 1, 131072 }, { 0, 2, 131072 },
		{ 1, 0, 131072 }, { 1, 1, 131072 }, { 0, 3, 131072 },
	};
	static const unsigned int want_g2[][3] = {
		{ 0, 0, 262143 }, { 0, 2, 262144 }, { 1, 0, 262144 },
	};
	enum { NR = sizeof(reg) / sizeof(reg[0]), BIG = 60000 };
	struct mpm_power_region *big;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	char err[200];

	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_begin(&r, reg, NR, 4096, mpm_memspec_preset("ddr3-1600"), &pol));
	check_domains(&r, 6, want);
	mpm_power_result_fini(&r);

	REQUIRE(!mpm_power_policy_parse("group=2", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_begin(&r, reg, NR, 4096, mpm_memspec_preset("ddr3-1600"), &pol));
	check_domains(&r, 3, want_g2);
	mpm_power_result_fini(&r);

	/* two nodes of 15,000 windows, each window split between two zones */
	big = calloc(BIG, sizeof(*big));
	REQUIRE(big);
	for (unsigned int i = 0; i < BIG; i++)
		big[i] = (struct mpm_power_region){ .node = i / (BIG / 2),
						    .window = (i % (BIG / 2)) / 2, .present = 1000 };
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_begin(&r, big, BIG, 4096, mpm_memspec_preset("ddr3-1600"), &pol));
	CHECK_EQ_U(r.nr_domains, BIG / 2);
	for (unsigned int d = 0; d < r.nr_domains; d++)
		if (r.domains[d].node != d / (BIG / 4) || r.domains[d].first_window != d % (BIG / 4) ||
		    r.domains[d].present != 2000) {
			CHECK_EQ_U(r.domains[d].node, d / (BIG / 4));
			CHECK_EQ_U(r.domains[d].first_window, d % (BIG / 4));
			CHECK_EQ_U(r.domains[d].present, 2000);
			break;
		}
	mpm_power_result_fini(&r);
	free(big);
}

/*
 * More free regions never cost more background energy: free the regions
 * one by one (used 0, no accesses) and watch the background energy.
 */
static void test_monotone(void)
{
	static const char *const names[] = { "ddr3-1600", "ddr4-2400", "ddr4-3200" };
	static const char *const policies[] = { "", "poweroff=1", "sr=off", "pd=off,sr=off" };
	static struct series s;

	for (size_t m = 0; m < 3; m++)
		for (size_t p = 0; p < 4; p++) {
			double prev = INFINITY;

			for (unsigned int nfree = 0; nfree <= 8; nfree++) {
				struct mpm_power_policy pol;
				struct mpm_power_result r;
				char err[200];

				series_init(&s, 8, 8);
				for (size_t k = 0; k < 8; k++)
					for (unsigned int i = nfree; i < 8; i++) {
						s.used[k * 8 + i] = 5000 + 100 * i;
						s.rd[k * 8 + i] = k ? 20 * (i + 1) * (k + 1) : 0;
						s.lines[k * 8 + i] = k ? 1000 : 0;
					}
				mpm_power_policy_default(&pol);
				if (policies[p][0])
					REQUIRE(!mpm_power_policy_parse(policies[p], &pol, err, sizeof(err)));
				REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset(names[m]), &pol, &r));
				CHECK(background_j(&r) <= prev * (1 + 1e-12));
				prev = background_j(&r);
				mpm_power_result_fini(&r);
			}
		}
}

static void test_deterministic(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result a, b;

	series_init(&s, 5, 9);
	for (size_t k = 0; k < 9; k++)
		for (unsigned int i = 0; i < 5; i++) {
			s.used[k * 5 + i] = (k * 7919 + i * 104729) % REGION_PAGES;
			s.rd[k * 5 + i] = (k * 31 + i * 17) % 50000;
			s.wr[k * 5 + i] = (k * 13 + i * 7) % 3;
		}
	s.reg[2].kernel = true;
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr4-2400"), &pol, &a));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr4-2400"), &pol, &b));
	CHECK(!memcmp(a.state_s, b.state_s, sizeof(a.state_s)));
	CHECK(!memcmp(a.state_j, b.state_j, sizeof(a.state_j)));
	CHECK(!memcmp(&a.dram_j, &b.dram_j, sizeof(a.dram_j)));
	for (unsigned int d = 0; d < a.nr_domains; d++)
		CHECK(!memcmp(a.domains[d].state_s, b.domains[d].state_s, sizeof(a.domains[d].state_s)));
	mpm_power_result_fini(&a);
	mpm_power_result_fini(&b);
}

/*
 * A power-down timer longer than the time between two REFs (tREFI less tRFC
 * and tXP) never runs out: every REF wakes the rank and restarts it.
 */
static void test_unreachable_powerdown(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;
	char err[200];

	series_init(&s, 1, 4);
	for (int k = 0; k < 4; k++)
		s.used[k] = 1000;
	s.rd[1] = 1000;
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_policy_parse("pd=6107", &pol, err, sizeof(err)));	/* 6107 + 5 + 128 */
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK(isinf(r.pd_after_s));
	CHECK(r.state_s[MPM_PS_PRE_PD] == 0 && r.pd_exits == 0);
	CHECK(r.state_s[MPM_PS_SR] > 0);
	mpm_power_result_fini(&r);
	/* one clock shorter, and power-down is reached */
	REQUIRE(!mpm_power_policy_parse("pd=6106", &pol, err, sizeof(err)));
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr3-1600"), &pol, &r));
	CHECK(!isinf(r.pd_after_s));
	CHECK(r.state_s[MPM_PS_PRE_PD] > 0);
	mpm_power_result_fini(&r);
}

/* DDR4's self-refresh draws more than power-down plus refresh: skipped. */
static void test_useless_state_skipped(void)
{
	static struct series s;
	struct mpm_power_policy pol;
	struct mpm_power_result r;

	series_init(&s, 1, 4);
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr4-2400"), &pol, &r));
	CHECK(isinf(r.sr_after_s));
	CHECK(r.state_s[MPM_PS_SR] == 0);
	CHECK_NEAR(r.state_s[MPM_PS_PRE_PD], 3.0);
	mpm_power_result_fini(&r);

	/*
	 * A self-refresh timer shorter than the power-down one: power-down is
	 * never reached, so self-refresh is weighed against standby, which it
	 * beats on DDR4 too (it was weighed against power-down, and skipped).
	 */
	{
		struct mpm_power_policy early;
		char err[200];

		mpm_power_policy_default(&early);
		REQUIRE(!mpm_power_policy_parse("pd=1000,sr=0.01", &early, err, sizeof(err)));
		REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr4-2400"), &early, &r));
		CHECK(isfinite(r.sr_after_s));
		CHECK(r.state_s[MPM_PS_PRE_PD] == 0);
		CHECK(r.state_s[MPM_PS_SR] > 2.9);
		mpm_power_result_fini(&r);
	}

	/* force=1: the timers alone decide, self-refresh costs more here */
	{
		char err[200];
		double pd_j;

		REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr4-2400"), &pol, &r));
		pd_j = r.dram_j;
		mpm_power_result_fini(&r);
		REQUIRE(!mpm_power_policy_parse("force=1", &pol, err, sizeof(err)));
		REQUIRE(!mpm_power_compute(&s.in, mpm_memspec_preset("ddr4-2400"), &pol, &r));
		CHECK_NEAR(r.state_s[MPM_PS_SR], 3.0);
		CHECK(r.dram_j > pd_j);
		mpm_power_result_fini(&r);
	}
}

static void expect_bad(const char *file, const char *msg)
{
	struct mpm_memspec s;
	char err[400] = "";

	t_checks++;
	if (mpm_memspec_load(file, &s, err, sizeof(err)) == 0 || !strstr(err, msg) ||
	    strchr(err, '\n')) {
		t_failures++;
		fprintf(stderr, "memspec %s: got '%s', want '%s'\n", file, err, msg);
	}
}

/*
 * A copy of the good DDR3 file with @from replaced by @to, at @path (a
 * mkstemp template): one departure at a time from a file that loads.
 */
static void edited_copy(const char *from, const char *to, char *path)
{
	FILE *in = fopen(DATA "good-memspec-ddr3.json", "r"), *out;
	char buf[4096], *at;
	size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;
	int fd = mkstemp(path);

	if (in)
		fclose(in);
	buf[n] = '\0';
	at = strstr(buf, from);
	REQUIRE(at && fd >= 0 && (out = fdopen(fd, "w")));
	fprintf(out, "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
	fclose(out);
}

static void expect_bad_edit(const char *from, const char *to, const char *msg)
{
	char path[] = "/tmp/mpm-memspec-XXXXXX";

	edited_copy(from, to, path);
	expect_bad(path, msg);
	unlink(path);
}

static void test_memspec_files(void)
{
	const struct mpm_memspec *p = mpm_memspec_preset("ddr3-1600");
	struct mpm_memspec s;
	char err[400];

	/* the hand-typed DRAMPower-layout file, with units, is the preset */
	REQUIRE(mpm_memspec_load(DATA "good-memspec-ddr3.json", &s, err, sizeof(err)) == 0);
	CHECK(s.width == p->width && s.banks == p->banks && s.rows == p->rows);
	CHECK(s.rc == p->rc && s.ras == p->ras && s.rfc == p->rfc && s.refi == p->refi);
	CHECK(s.xp == p->xp && s.xs == p->xs && s.clk_mhz == p->clk_mhz);
	CHECK(s.xpdll == p->xpdll && s.xsdll == p->xsdll && s.pd_dll_off && p->pd_dll_off);
	CHECK(s.idd0 == p->idd0 && s.idd2n == p->idd2n && s.idd2p == p->idd2p);
	CHECK_NEAR(s.idd3n, p->idd3n);
	CHECK_NEAR(s.vdd, p->vdd);
	CHECK(s.idd6 == p->idd6 && s.idd5 == p->idd5 && s.idd4r == p->idd4r);
	CHECK(!strcmp(s.name, "hand-typed DDR3-1600 x16 2Gb"));
	/* DDR4's power-down keeps the DLL: its file's XPDLL does not apply */
	{
		struct mpm_memspec_power d;

		REQUIRE(mpm_memspec_load(DATA "good-memspec-ddr4.json", &s, err, sizeof(err)) == 0);
		CHECK(!s.pd_dll_off && s.xpdll == 325 && s.xsdll == 512);
		mpm_memspec_derive(&s, &d);
		CHECK_NEAR(d.pd_exit_s, 8 / 1.2e9);
		CHECK_NEAR(d.sr_exit_s, 512 / 1.2e9);
	}
	expect_bad(DATA "bad-memspec-negative.json", "mempowerspec.idd2p0: negative");
	expect_bad(DATA "bad-memspec-missing.json", "mempowerspec.idd6: missing");
	expect_bad(DATA "bad-memspec-idd6.json", "IDD6 50 > IDD2N 42");
	expect_bad(DATA "bad-memspec-unit.json", "mempowerspec.idd3n1: unknown unit 'mW'");
	expect_bad(DATA "bad-memspec-section.json", "memtimingspec: missing or not an object");
	expect_bad(DATA "bad-memspec-width.json", "width 12");
	/* ours and DRAMPower's spelling of one figure: which is meant? */
	expect_bad(DATA "bad-memspec-alias.json", "mempowerspec.idd01: given twice, also as 'idd0'");
	expect_bad(DATA "bad-memspec-syntax.json", "bad-memspec-syntax.json: line");
	expect_bad(DATA "no-such-file.json", "no-such-file.json");
	/* what the fields' types and JEDEC rule out, one edit at a time */
	expect_bad_edit("\"width\": 16", "\"width\": \"16\"",
			"memarchitecturespec.width: expected a whole number, not a string");
	expect_bad_edit("\"burstLength\": 8", "\"burstLength\": 3",
			"burst length 3, data rate 2: expected powers of two");
	expect_bad_edit("\"dataRate\": 2", "\"dataRate\": 3",
			"burst length 8, data rate 3: expected powers of two");
	expect_bad_edit("\"800 MHz\"", "\"0x320 MHz\"",
			"memtimingspec.clkMhz: malformed value '0x320 MHz'");
	expect_bad_edit("\"160 ns\"", "\"nan ns\"", "memtimingspec.RFC: malformed value 'nan ns'");
	expect_bad_edit("\"DDR3\"", "3", "memoryType: expected a string");
	expect_bad_edit("\"nbrOfRows\": 16384", "\"nbrOfRows\": 2000000000",
			"memarchitecturespec.nbrOfRows: expected a whole number from 1 to 10^9");
	/* a positive time is at least one clock: here shorter than RFC's 128 */
	expect_bad_edit("\"7.8 us\"", "\"1e-30 ps\"", "RFC 128 >= REFI 1");
	expect_bad_edit("\"hand-typed", "[\"hand-typed\"], \"x\": \"", "memoryId: expected a string");
	expect_bad_edit("hand-typed", "hand\\u001btyped",
			"memoryId: a control character (U+001B) in a name");
	expect_bad_edit("hand-typed", "hand\\u009btyped",
			"memoryId: a control character (U+009B) in a name");
	expect_bad_edit("\"ioPower\"", "\"idd02\": 4, \"ioPower\"",
			"IPP currents given without vpp");
	/* spaces before a number, a null name and a non-ASCII one are fine */
	{
		char path[] = "/tmp/mpm-memspec-XXXXXX";

		edited_copy("\"800 MHz\"", "\" 800 MHz\"", path);
		CHECK(mpm_memspec_load(path, &s, err, sizeof(err)) == 0 && s.clk_mhz == 800);
		unlink(path);
		strcpy(path, "/tmp/mpm-memspec-XXXXXX");
		edited_copy("\"hand-typed DDR3-1600 x16 2Gb\"", "null", path);
		CHECK(mpm_memspec_load(path, &s, err, sizeof(err)) == 0 &&
		      !strncmp(s.name, "/tmp/mpm-memspec-", 17));
		unlink(path);
		strcpy(path, "/tmp/mpm-memspec-XXXXXX");
		edited_copy("hand-typed", "hand\\u00e9typed", path);
		CHECK(mpm_memspec_load(path, &s, err, sizeof(err)) == 0 &&
		      !strcmp(s.name, "hand\xc3\xa9typed DDR3-1600 x16 2Gb"));
		unlink(path);
	}
	/* the edit itself is sound: with the voltage, that file loads */
	{
		char path[] = "/tmp/mpm-memspec-XXXXXX";

		edited_copy("\"ioPower\"", "\"idd02\": 4, \"vdd2\": 2.5, \"ioPower\"", path);
		CHECK(mpm_memspec_load(path, &s, err, sizeof(err)) == 0 && s.ipp0 == 4 && s.vpp == 2.5);
		unlink(path);
	}
	/* the DLL exits are never shorter than the plain ones */
	{
		struct mpm_memspec bad = *p;

		bad.xpdll = 4;
		CHECK(mpm_memspec_check(&bad, err, sizeof(err)) != 0 && strstr(err, "XPDLL 4 < XP 5"));
		bad.xpdll = 0;
		bad.xsdll = 100;
		CHECK(mpm_memspec_check(&bad, err, sizeof(err)) != 0 && strstr(err, "XSDLL 100 < XS 136"));
		bad.xsdll = 0;
		CHECK(mpm_memspec_check(&bad, err, sizeof(err)) == 0);
		/* 4 bits a device: its bytes, 0, would divide every figure */
		bad.width = 4;
		bad.banks = bad.rows = bad.columns = 1;
		CHECK(mpm_memspec_check(&bad, err, sizeof(err)) != 0 &&
		      strstr(err, "a device of less than one byte"));
		bad.banks = 2;
		CHECK(mpm_memspec_check(&bad, err, sizeof(err)) == 0);
	}
	CHECK(mpm_memspec_resolve("ddr5-4800", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "unknown memspec 'ddr5-4800'"));
	for (const char *const *n = (const char *const[]){ "ddr3-1600", "ddr4-2400", "ddr4-3200", NULL };
	     *n; n++)
		CHECK(mpm_memspec_check(mpm_memspec_preset(*n), err, sizeof(err)) == 0);
}

static void test_policy_parse(void)
{
	struct mpm_power_policy p;
	char err[300];

	mpm_power_policy_default(&p);
	CHECK(p.pd_timer_clk == 128 && p.sr_timer_refi == 15 && !p.poweroff && p.group == 1);
	CHECK(!mpm_power_policy_parse("pd=off,sr=4,poweroff=1,cpu_w=12.5", &p, err, sizeof(err)));
	CHECK(p.pd_timer_clk < 0 && p.sr_timer_refi == 4 && p.poweroff && p.cpu_w == 12.5);
	CHECK(mpm_power_policy_parse("bogus=1", &p, err, sizeof(err)) && strstr(err, "unknown key 'bogus'"));
	CHECK(mpm_power_policy_parse("pd=-3", &p, err, sizeof(err)) && strstr(err, "malformed value '-3'"));
	/* plain decimals only, as the size and workload parsers take them */
	for (const char *const *bad = (const char *const[]){ "pd=0x10", "pd= 5", "sr=inf",
							     "cpu_w=nan", "pd=+5", "pd=", NULL };
	     *bad; bad++)
		CHECK(mpm_power_policy_parse(*bad, &p, err, sizeof(err)) &&
		      strstr(err, "malformed value"));
	CHECK(mpm_power_policy_parse("sr=0", &p, err, sizeof(err)) &&
	      strstr(err, "sr=0: the self-refresh timer must be above 0"));
	CHECK(!mpm_power_policy_parse("sr=0.001", &p, err, sizeof(err)) && p.sr_timer_refi == 0.001);
	CHECK(!mpm_power_policy_parse("kernel_hz=1e5,cpu_w=.5", &p, err, sizeof(err)) &&
	      p.kernel_hz == 1e5 && p.cpu_w == 0.5);
	CHECK(mpm_power_policy_parse("poweroff=2", &p, err, sizeof(err)) && strstr(err, "out of range"));
	CHECK(mpm_power_policy_parse("group=0", &p, err, sizeof(err)) && strstr(err, "out of range"));
	CHECK(p.split == 1);
	CHECK(!mpm_power_policy_parse("split=4", &p, err, sizeof(err)) && p.split == 4);
	for (const char *const *bad = (const char *const[]){ "split=3", "split=0", "split=8192",
							     "split=1.5", NULL }; *bad; bad++)
		CHECK(mpm_power_policy_parse(*bad, &p, err, sizeof(err)) &&
		      strstr(err, "is not a power of two from 1 to 4096"));
	mpm_power_policy_default(&p);
	CHECK(mpm_power_policy_parse("group=2,split=2", &p, err, sizeof(err)) &&
	      strstr(err, "group and split cannot both be above 1"));
	CHECK(mpm_power_policy_parse("pd", &p, err, sizeof(err)) && strstr(err, "not key=value"));
	/* interval_ms: a divisor of 1000 */
	mpm_power_policy_default(&p);
	CHECK(p.interval_ms == 1000);
	CHECK(!mpm_power_policy_parse("interval_ms=1", &p, err, sizeof(err)) && p.interval_ms == 1);
	CHECK(!mpm_power_policy_parse("interval_ms=125", &p, err, sizeof(err)) &&
	      p.interval_ms == 125);
	for (const char *const *bad = (const char *const[]){ "interval_ms=0", "interval_ms=3",
							     "interval_ms=2000", "interval_ms=2.5",
							     NULL }; *bad; bad++)
		CHECK(mpm_power_policy_parse(*bad, &p, err, sizeof(err)) &&
		      strstr(err, "is not a whole number of ms dividing 1000"));
	CHECK(mpm_power_policy_parse("interval_ms=-10", &p, err, sizeof(err)) &&
	      strstr(err, "malformed value"));
}

int main(void)
{
	test_drampower_crosscheck();
	test_idle_self_refresh();
	test_touched_never_sleeps();
	test_self_refresh_entry();
	test_by_use();
	test_by_use_poweroff_group();
	test_poweroff();
	test_poweron_fresh();
	test_idle_age_and_exits();
	test_migration_energy();
	test_group();
	test_domains_by_first_region();
	test_monotone();
	test_deterministic();
	test_useless_state_skipped();
	test_unreachable_powerdown();
	test_memspec_files();
	test_policy_parse();
	return t_report("test_power");
}
