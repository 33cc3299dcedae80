// SPDX-License-Identifier: MIT
/*
 * The power model as the simulator drives it, sample by sample: a 64 MiB
 * pagetest on 1 GiB in 64 MiB regions is priced with two memspecs; the
 * domains are the physical windows (DMA and DMA32 share the first), the
 * writes account for every page the workload touched, the time adds up to
 * the run, the run's JSON carries "power" and "power_other", and two equal
 * runs price to the same bits.  With split=4 each region is four domains
 * whose pages and used pages add up to the region's, and the same accesses.
 * Left open and closed over a longer window, the run is priced with a
 * quiet tail at its end state.
 */
#include <math.h>

#include "sim_helpers.h"

#define PAGES_64M (64u << 8)

static struct mpm_power_policy pol;

static int priced_run_open(struct sim_case *c, const struct mpm_power_policy *pp, bool open)
{
	if (sim_case_init(c, "1G", "64M", "2", "pagetest:size=64M,hold=1", 6, 7))
		return -1;
	c->cfg.until_idle = true;
	c->cfg.price_open = open;
	c->cfg.pricing[0] = (struct mpm_power_pricing){ mpm_memspec_preset("ddr3-1600"), pp };
	c->cfg.pricing[1] = (struct mpm_power_pricing){ mpm_memspec_preset("ddr4-2400"), pp };
	c->cfg.nr_pricing = 2;
	return mpm_run_execute(&c->cfg, &c->run, c->err, sizeof(c->err));
}

static int priced_run(struct sim_case *c, const struct mpm_power_policy *pp)
{
	return priced_run_open(c, pp, false);
}

static double sum(const double *x, int n)
{
	double t = 0;

	for (int i = 0; i < n; i++)
		t += x[i];
	return t;
}

/*
 * The pricing left open and closed later (compare's common window): closed
 * at the run's own end it is the closed run to the bit; closed 5 s later
 * the same accesses are priced over 5 s more, in which every domain but the
 * kernel's (kernel_hz) self-refreshes, and a second close changes nothing.
 */
static void test_tail(const struct sim_case *closed)
{
	static struct sim_case at_end, later;
	const struct mpm_power_result *c = &closed->run.power[0];
	const struct mpm_power_result *e = &at_end.run.power[0], *l = &later.run.power[0];
	unsigned int nk = 0;
	double dj;

	if (priced_run_open(&at_end, &pol, true) || priced_run_open(&later, &pol, true)) {
		fprintf(stderr, "open run failed: %s / %s\n", at_end.err, later.err);
		CHECK(0);
		return;
	}
	CHECK(!at_end.run.priced && e->state != NULL);	/* open until closed */
	mpm_run_price_close(&at_end.run, at_end.run.end_t);
	mpm_run_price_close(&later.run, later.run.end_t + 5);
	CHECK(at_end.run.priced && e->state == NULL);
	CHECK(!memcmp(&e->dram_j, &c->dram_j, sizeof(double)));
	CHECK(!memcmp(e->state_s, c->state_s, sizeof(c->state_s)));
	CHECK(!memcmp(e->use_s, c->use_s, sizeof(c->use_s)));
	CHECK(e->tail_s == 0 && c->tail_s == 0);
	for (unsigned int d = 0; d < l->nr_domains; d++)
		nk += l->domains[d].kernel;
	CHECK(nk < l->nr_domains);
	CHECK(fabs(l->tail_s - 5) < 1e-9);
	CHECK(fabs(l->duration_s - (c->duration_s + 5)) < 1e-9);
	CHECK_EQ_U(l->pages_rd, c->pages_rd);
	CHECK_EQ_U(l->pages_wr, c->pages_wr);
	CHECK_EQ_U(l->lines, c->lines);
	CHECK(fabs(sum(l->use_s, MPM_NR_USES) - l->duration_s * l->nr_domains) <
	      1e-6 * l->duration_s * l->nr_domains);
	CHECK(fabs(sum(l->state_s, MPM_NR_PSTATES) - l->duration_s * l->nr_domains) <
	      1e-6 * l->duration_s * l->nr_domains);
	/* the tail: 5 s of self-refresh for each domain the kernel does not touch */
	CHECK(fabs(l->state_s[MPM_PS_SR] - c->state_s[MPM_PS_SR] - 5.0 * (l->nr_domains - nk)) <
	      1e-6);
	CHECK(l->dram_j > c->dram_j);
	CHECK(l->dram_avg_w < c->dram_avg_w);	/* 5 quiet seconds lower the average */
	dj = l->dram_j;
	mpm_run_price_close(&later.run, later.run.end_t + 10);
	CHECK(!memcmp(&dj, &l->dram_j, sizeof(double)) && fabs(l->tail_s - 5) < 1e-9);
	sim_case_fini(&at_end);
	sim_case_fini(&later);
}

/*
 * split=4: the same run priced with 16 MiB domains.  Every region's windows
 * hold its present pages, their used pages add up to the region's at the
 * end, and the accesses are the same ones, only spread over more domains.
 */
static void test_split(const struct sim_case *whole)
{
	static struct sim_case c;
	struct mpm_power_policy sp = pol;
	const struct mpm_power_result *p = &c.run.power[0], *w = &whole->run.power[0];
	uint64_t present = 0, used = 0, region_used = 0;

	sp.split = 4;
	if (priced_run(&c, &sp)) {
		fprintf(stderr, "split run failed: %s\n", c.err);
		CHECK(0);
		return;
	}
	for (unsigned int i = 0; i < c.run.nr_pregions; i++) {
		present += c.run.pregions[i].present;
		used += c.run.p_prev[i];	/* the last sample's used pages */
	}
	for (unsigned int i = 0; i < whole->run.nr_pregions; i++)
		region_used += whole->run.p_prev[i];
	CHECK_EQ_U(present, mpm_total_pages(c.run.m));
	CHECK_EQ_U(used, region_used);
	/* 1 GiB in 16 MiB windows: 64, less what the holes empty entirely */
	CHECK(p->nr_domains > 4 * w->nr_domains - 8 && p->nr_domains <= 64);
	CHECK_EQ_U(p->pages_wr, w->pages_wr);
	CHECK_EQ_U(p->lines, w->lines);
	/* smaller domains: the idle parts of the touched region sleep too */
	CHECK(p->state_s[MPM_PS_SR] / (p->duration_s * p->nr_domains) >=
	      w->state_s[MPM_PS_SR] / (w->duration_s * w->nr_domains));
	sim_case_fini(&c);
}

/* Domains (a node's window) with used pages in @used, the run's end state. */
static unsigned int domains_in_use(const struct mpm_run *r, const uint64_t *used,
				   unsigned int *nr_domains)
{
	unsigned int n = 0, nd = 0;

	for (unsigned int i = 0; i < r->nr_pregions; i++) {
		const struct mpm_power_region *x = &r->pregions[i];
		bool first = true, busy = false;

		for (unsigned int j = 0; j < r->nr_pregions; j++) {
			const struct mpm_power_region *y = &r->pregions[j];

			if (y->node != x->node || y->window != x->window)
				continue;
			first &= j >= i;
			busy |= used[j] > 0;
		}
		nd += first;
		n += first && busy;
	}
	*nr_domains = nd;
	return n;
}

/*
 * The tail holds the end state: a churn run, whose used pages move every
 * second, closed 4 s after its end prices 4 s of every domain that held
 * pages at the end as idle and of every other as free, and the domains
 * that held pages at the sample before do not count.
 */
static void test_tail_end_state(void)
{
	static struct sim_case closed, open;
	const struct mpm_power_result *c = &closed.run.power[0], *o = &open.run.power[0];
	unsigned int busy, before, nd, nd2;

	for (int i = 0; i < 2; i++) {
		struct sim_case *x = i ? &open : &closed;

		if (sim_case_init(x, "1G", "64M", "2", "churn:occupancy=0.3", 3, 5)) {
			CHECK(0);
			return;
		}
		x->cfg.pricing[0] = (struct mpm_power_pricing){ mpm_memspec_preset("ddr3-1600"),
								&pol };
		x->cfg.nr_pricing = 1;
		x->cfg.price_open = i;
		if (mpm_run_execute(&x->cfg, &x->run, x->err, sizeof(x->err))) {
			fprintf(stderr, "churn run failed: %s\n", x->err);
			CHECK(0);
			return;
		}
	}
	busy = domains_in_use(&open.run, open.run.p_prev, &nd);
	before = domains_in_use(&open.run, open.run.p_used, &nd2);	/* the sample before */
	CHECK(nd == o->nr_domains && nd2 == nd);
	CHECK(busy > 0 && busy < nd && busy != before);
	mpm_run_price_close(&open.run, open.run.p_prev_t + 4);
	CHECK(fabs(o->tail_s - 4) < 1e-9);
	CHECK(fabs(o->use_s[MPM_USE_FREE] - c->use_s[MPM_USE_FREE] - 4.0 * (nd - busy)) < 1e-6);
	CHECK(fabs(o->use_s[MPM_USE_IDLE] - c->use_s[MPM_USE_IDLE] - 4.0 * busy) < 1e-6);
	CHECK(o->use_s[MPM_USE_TOUCHED] == c->use_s[MPM_USE_TOUCHED]);
	sim_case_fini(&closed);
	sim_case_fini(&open);
}

int main(void)
{
	static struct sim_case a, b;
	const struct mpm_power_result *p;
	double t = 0;
	char *json;

	mpm_power_policy_default(&pol);
	if (priced_run(&a, &pol) || priced_run(&b, &pol)) {
		fprintf(stderr, "run failed: %s / %s\n", a.err, b.err);
		return 1;
	}
	CHECK_EQ_U(a.run.nr_power, 2);
	p = &a.run.power[0];
	CHECK(!strcmp(p->spec.name, "ddr3-1600") && !strcmp(a.run.power[1].spec.name, "ddr4-2400"));
	CHECK_EQ_U(a.run.nr_pregions, mpm_regions_total(a.run.m));
	CHECK_EQ_U(p->nr_domains, 16);		/* 17 zone regions, 16 windows */
	CHECK(fabs(p->duration_s - (a.run.samples[a.run.nr_samples - 1].t - a.run.samples[0].t)) < 1e-9);
	CHECK(p->duration_s >= 3);
	CHECK(p->pages_wr >= PAGES_64M);	/* every page of the mapping cleared */
	CHECK_EQ_U(p->pages_rd, 0);		/* pagetest only writes */
	CHECK(p->lines > 0);			/* page tables, slab objects */
	CHECK(p->dram_j > 0 && isfinite(p->dram_j));
	CHECK(p->state == NULL);		/* ended */
	for (int st = 0; st < MPM_NR_PSTATES; st++)
		t += p->state_s[st];
	CHECK(fabs(t - p->duration_s * p->nr_domains) < 1e-6 * t);
	/* the touched region leaves self-refresh; the untouched ones stay there */
	CHECK(p->sr_exits > 0);
	CHECK(p->state_s[MPM_PS_SR] > 0.5 * t);
	for (unsigned int m = 0; m < 2; m++) {
		CHECK(!memcmp(&a.run.power[m].dram_j, &b.run.power[m].dram_j, sizeof(double)));
		CHECK(!memcmp(a.run.power[m].state_s, b.run.power[m].state_s,
			      sizeof(a.run.power[m].state_s)));
	}
	test_split(&a);
	test_tail(&a);
	test_tail_end_state();
	json = sim_case_json(&a, "1G", false);
	CHECK(json && strstr(json, "\"power\": {") && strstr(json, "\"power_other\": ["));
	CHECK(json && strstr(json, "\"memspec\": \"ddr4-2400\""));
	free(json);
	sim_case_fini(&a);
	sim_case_fini(&b);
	return t_report("test_power_series");
}
