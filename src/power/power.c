// SPDX-License-Identifier: MIT
/*
 * The per-domain state machine (docs/power-model.md, "State machine").
 *
 * Within one sample interval a domain's accesses are spread evenly: the
 * busy time (the transfers) is active standby, and the idle time between
 * them is cut into equal gaps.  A gap ages the domain through the
 * controller's idle timers: precharge standby until the power-down timer,
 * precharge power-down until the self-refresh timer, self-refresh after.
 * The access that ends a gap pays the exit (pd_exit_s: tXPDLL or tXP;
 * sr_exit_s: tXSDLL) in standby.  The idle age carries over from one
 * interval to the next, so a domain that nobody touches stays in
 * self-refresh, and one touched every interval never reaches it unless its
 * gaps outgrow the timer.
 *
 * Everything is arithmetic on the input: no clock, no randomness, so the
 * same input gives the same bits.
 */
#include "power/power.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* per domain and interval: used pages at start and end, pages read, written, lines */
#define NAGG	5

struct timers {
	double pd, sr;		/* idle age at which each state begins (s); INFINITY = never */
	double cap;		/* ages beyond this behave alike */
};

struct dstate {
	double age;		/* idle seconds since the last access */
	double kernel_due;	/* kernel_hz x the time priced so far (kernel_lines) */
	bool off;		/* powered off at the end of the last interval */
};

/*
 * Waking from a low-power state: the exit latency @exit_s (sr_exit_s or
 * pd_exit_s), cut from the end of the time in that state (@state_s), is
 * spent in precharge standby.  Returns the standby time to add.
 */
static double charge_exit(struct mpm_power_result *r, const struct mpm_power_domain *d,
			  double *state_s, double exit_s, double mult)
{
	double x = *state_s < exit_s ? *state_s : exit_s;

	*state_s -= x;
	r->exit_latency_s += mult * exit_s;
	r->exit_j += mult * x * r->dev.pre_stby_w * d->devices;
	return x;
}

/*
 * An idle stretch of @len seconds starting at idle age @age0, @mult times
 * over; @wake: an access ends it, paying the exit of the state it reached.
 */
static void idle_gap(struct mpm_power_result *r, struct mpm_power_domain *d,
		     const struct timers *tm, double age0, double len, double mult, bool wake)
{
	/*
	 * The gap cut at the timers, by lengths: its standby part runs to the
	 * power-down timer, its power-down part from there to the
	 * self-refresh timer, the rest is self-refresh.  Lengths, not ends
	 * (age0 + len), so the parts add up to @len even when the age dwarfs
	 * it: a long-idle domain's age is capped at the self-refresh timer,
	 * and beside a large timer a short gap rounds away in age0 + len.
	 */
	double stby = fmin(fmax(tm->pd - age0, 0), len);	/* pd <= sr: set_timers */
	double rest = len - stby;
	double pd = isfinite(tm->sr) ? fmin(fmax(tm->sr - fmax(age0, tm->pd), 0), rest) : rest;
	double sr = rest - pd;
	bool reached_sr = isfinite(tm->sr) && len >= tm->sr - age0;
	bool reached_pd = isfinite(tm->pd) && len >= tm->pd - age0;

	/* a self-refresh stay starts with one REF at IDD5 (DRAMPower's SREF) */
	if (reached_sr && age0 < tm->sr && len > 0)
		r->refresh_j += mult * r->dev.sr_entry_j * d->devices;
	if (wake && reached_sr && len > 0) {
		stby += charge_exit(r, d, &sr, r->dev.sr_exit_s, mult);
		r->sr_exits += (uint64_t)mult;
	} else if (wake && reached_pd && len > 0) {
		stby += charge_exit(r, d, &pd, r->dev.pd_exit_s, mult);
		r->pd_exits += (uint64_t)mult;
	}
	d->state_s[MPM_PS_PRE_STBY] += mult * stby;
	d->state_s[MPM_PS_PRE_PD] += mult * pd;
	d->state_s[MPM_PS_SR] += mult * sr;
}

/*
 * The kernel's own lines into a reserved-memory domain in an interval of
 * @T seconds: kernel_hz x @T, counted off a running total so that short
 * intervals (interval_ms) add up to the rate, where rounding each one up
 * would inflate it.  Whole seconds at an integral rate count exactly.
 */
static double kernel_lines(const struct mpm_power_policy *pol, const struct mpm_power_domain *d,
			   struct dstate *st, double T)
{
	double before;

	if (!d->kernel)
		return 0;
	before = floor(st->kernel_due);
	st->kernel_due += pol->kernel_hz * T;
	return floor(st->kernel_due) - before;
}

/*
 * One interval of @d; @kl: the kernel's lines into it (kernel_lines).
 * Returns whether anything accessed the domain in the interval.
 */
static bool domain_interval(struct mpm_power_result *r, struct mpm_power_domain *d,
			    struct dstate *st, const struct timers *tm, double T,
			    const uint64_t *a, double kl)
{
	const struct mpm_power_policy *pol = &r->policy;
	uint64_t used0 = a[0], used1 = a[1], rd = a[2], wr = a[3];
	double kev = (double)a[4] + kl;
	double events, busy, idle, g;

	if (pol->poweroff && !used0 && !used1 && !rd && !wr && !a[4] && !d->kernel) {
		d->state_s[MPM_PS_OFF] += T;
		st->off = true;
		st->age = tm->cap;
		return false;
	}
	if (st->off) {
		/* powering back on: initialisation in standby, then fresh */
		double on = pol->poweron_s < T ? pol->poweron_s : T;

		d->state_s[MPM_PS_PRE_STBY] += on;
		r->poweron_exits++;
		r->exit_latency_s += pol->poweron_s;
		r->exit_j += on * r->dev.pre_stby_w * d->devices;
		T -= on;
		st->off = false;
		st->age = 0;
	}
	events = (double)(rd + wr) + kev;
	busy = (double)(rd + wr) * r->dev.page_busy_s + kev * r->dev.line_busy_s;
	if (busy > T)
		busy = T;
	d->state_s[MPM_PS_ACT_STBY] += busy;
	idle = T - busy;
	if (events == 0) {
		idle_gap(r, d, tm, st->age, idle, 1, false);
		st->age += idle;
	} else {
		g = idle / events;
		idle_gap(r, d, tm, st->age, g / 2, 1, true);
		if (events > 1)
			idle_gap(r, d, tm, 0, g, events - 1, true);
		idle_gap(r, d, tm, 0, g / 2, 1, false);
		st->age = g / 2;
	}
	if (st->age > tm->cap)
		st->age = tm->cap;
	return events > 0;
}

const char *const mpm_power_use_names[MPM_NR_USES] = { "free", "idle", "touched" };

/* Which kind of interval a domain had: @accessed, as domain_interval() says. */
static enum mpm_power_use interval_use(const uint64_t *a, bool accessed)
{
	if (accessed)
		return MPM_USE_TOUCHED;
	return a[0] || a[1] ? MPM_USE_IDLE : MPM_USE_FREE;
}

/* The running state of one priced run. */
struct mpm_power_state {
	unsigned int nr_regions;
	unsigned int *dom_of;		/* region -> domain */
	struct dstate *st;		/* per domain */
	uint64_t *agg;			/* per domain, NAGG each */
	struct timers tm;
	double kernel_lines;
};

/*
 * The domain of @node's window group @window / @g, from an open-addressed
 * table of domain numbers + 1 (0: empty slot) sized to a power of two above
 * twice the regions: a new group takes the next domain number, so domains
 * are numbered in the order their first region comes.  A linear search of the
 * domains found so far made this quadratic: 131,072 regions (1 TiB in
 * 8 MiB regions) took 15 s.
 */
static unsigned int domain_of(struct mpm_power_result *r, unsigned int *slots, size_t mask,
			      unsigned int node, uint64_t window, unsigned int g)
{
	uint64_t key = window / g;
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)node * 0xc2b2ae3d27d4eb4full);
	size_t i = (size_t)(h >> 17) & mask;

	for (;; i = (i + 1) & mask) {
		unsigned int d = slots[i];

		if (!d) {
			d = r->nr_domains++;
			r->domains[d].node = node;
			r->domains[d].first_window = window;
			slots[i] = d + 1;
			return d;
		}
		if (r->domains[d - 1].node == node && r->domains[d - 1].first_window / g == key)
			return d - 1;
	}
}

/* Regions on one node in the same group of windows share a domain. */
static int build_domains(const struct mpm_power_region *regions, unsigned int nr,
			 uint64_t page_size, struct mpm_power_result *r, unsigned int *dom_of)
{
	unsigned int g = r->policy.group ? r->policy.group : 1;
	size_t nslots = 2;
	unsigned int *slots;

	while (nslots < 2 * (size_t)nr)
		nslots *= 2;
	r->domains = calloc(nr ? nr : 1, sizeof(*r->domains));
	slots = calloc(nslots, sizeof(*slots));
	if (!r->domains || !slots) {
		free(slots);
		return -1;
	}
	for (unsigned int i = 0; i < nr; i++) {
		const struct mpm_power_region *x = &regions[i];
		unsigned int d = domain_of(r, slots, nslots - 1, x->node, x->window, g);

		r->domains[d].present += x->present;
		r->domains[d].kernel |= x->kernel;
		dom_of[i] = d;
	}
	free(slots);
	for (unsigned int d = 0; d < r->nr_domains; d++)
		r->domains[d].devices = (double)(r->domains[d].present * page_size) /
					(double)r->dev.device_bytes;
	return 0;
}

static void set_timers(const struct mpm_power_result *r, struct timers *tm)
{
	const struct mpm_power_policy *p = &r->policy;
	double stby_w = r->dev.pre_stby_w + r->state_refresh_w[MPM_PS_PRE_STBY];
	double pd_w = r->dev.pre_pd_w + r->state_refresh_w[MPM_PS_PRE_PD];
	bool pd_saves = p->force || pd_w < stby_w;

	tm->pd = p->pd_timer_clk < 0 ? INFINITY : p->pd_timer_clk * r->dev.tck_s;
	tm->sr = p->sr_timer_refi < 0 ? INFINITY : p->sr_timer_refi * r->spec.refi * r->dev.tck_s;
	/*
	 * A state that draws no less than the one above it, refresh included,
	 * saves nothing: the controller stays in the shallower one
	 * (docs/power-model.md).
	 */
	/*
	 * A timer that outlasts the time between two REFs never reaches
	 * power-down: each REF wakes the rank and restarts it.
	 */
	if (p->pd_timer_clk + r->spec.xp + r->spec.rfc >= r->spec.refi)
		tm->pd = INFINITY;
	/*
	 * Self-refresh is weighed against the state it follows: power-down if
	 * that comes first and saves, standby otherwise (also when the
	 * self-refresh timer is the shorter one, and power-down never comes).
	 */
	if (!p->force && r->dev.sr_w >= (isfinite(tm->pd) && pd_saves && tm->pd < tm->sr ?
					 pd_w : stby_w))
		tm->sr = INFINITY;
	if (!pd_saves)
		tm->pd = tm->sr;	/* straight from standby to self-refresh, or neither */
	if (tm->sr < tm->pd)
		tm->pd = tm->sr;	/* self-refresh first: no power-down band */
	tm->cap = isfinite(tm->sr) ? tm->sr : isfinite(tm->pd) ? tm->pd : 0;
}

static void free_state(struct mpm_power_result *r)
{
	if (!r->state)
		return;
	free(r->state->dom_of);
	free(r->state->st);
	free(r->state->agg);
	free(r->state);
	r->state = NULL;
}

int mpm_power_begin(struct mpm_power_result *r, const struct mpm_power_region *regions,
		    unsigned int nr_regions, uint64_t page_size,
		    const struct mpm_memspec *spec, const struct mpm_power_policy *pol)
{
	struct mpm_power_state *ps;
	size_t nd;

	memset(r, 0, sizeof(*r));
	r->spec = *spec;
	r->policy = *pol;
	mpm_memspec_derive(spec, &r->dev);
	mpm_memspec_refresh_w(spec, &r->dev, pol->pd_timer_clk, r->state_refresh_w);
	ps = r->state = calloc(1, sizeof(*ps));
	if (!ps)
		return -1;
	set_timers(r, &ps->tm);
	r->pd_after_s = ps->tm.pd < ps->tm.sr ? ps->tm.pd : INFINITY;
	r->sr_after_s = ps->tm.sr;
	ps->nr_regions = nr_regions;
	ps->dom_of = calloc(nr_regions ? nr_regions : 1, sizeof(*ps->dom_of));
	if (!ps->dom_of || build_domains(regions, nr_regions, page_size, r, ps->dom_of))
		return -1;
	nd = r->nr_domains ? r->nr_domains : 1;
	ps->st = calloc(nd, sizeof(*ps->st));
	ps->agg = calloc(NAGG * nd, sizeof(*ps->agg));
	if (!ps->st || !ps->agg)
		return -1;
	/* t = 0: every domain has been idle long (boot is over), except the kernel's */
	for (unsigned int d = 0; d < r->nr_domains; d++)
		ps->st[d].age = r->domains[d].kernel ? 0 : ps->tm.cap;
	return 0;
}

void mpm_power_interval(struct mpm_power_result *r, double T, const uint64_t *used0,
			const uint64_t *used1, const uint64_t *rd, const uint64_t *wr,
			const uint64_t *lines)
{
	struct mpm_power_state *ps = r->state;
	enum mpm_power_use u;
	double sr0, kl;

	if (!ps || !(T > 0))
		return;
	r->duration_s += T;
	memset(ps->agg, 0, NAGG * r->nr_domains * sizeof(*ps->agg));
	for (unsigned int i = 0; i < ps->nr_regions; i++) {
		uint64_t *a = &ps->agg[NAGG * ps->dom_of[i]];

		a[0] += used0[i];
		a[1] += used1[i];
		a[2] += rd ? rd[i] : 0;
		a[3] += wr ? wr[i] : 0;
		a[4] += lines ? lines[i] : 0;
	}
	for (unsigned int d = 0; d < r->nr_domains; d++) {
		uint64_t *a = &ps->agg[NAGG * d];

		r->pages_rd += a[2];
		r->pages_wr += a[3];
		r->lines += a[4];
		kl = kernel_lines(&r->policy, &r->domains[d], &ps->st[d], T);
		ps->kernel_lines += kl;
		sr0 = r->domains[d].state_s[MPM_PS_SR];
		u = interval_use(a, domain_interval(r, &r->domains[d], &ps->st[d], &ps->tm,
						    T, a, kl));
		r->use_s[u] += T;
		r->use_sr_s[u] += r->domains[d].state_s[MPM_PS_SR] - sr0;
	}
}

void mpm_power_tail(struct mpm_power_result *r, double T, const uint64_t *used)
{
	if (!r->state || !(T > 0))
		return;
	mpm_power_interval(r, T, used, used, NULL, NULL, NULL);
	r->tail_s += T;
}

void mpm_power_end(struct mpm_power_result *r, uint64_t migrated_pages,
		   double kmempowerd_cpu_s)
{
	const struct mpm_memspec_power *v = &r->dev;
	const double w[MPM_NR_PSTATES] = { v->act_stby_w, v->pre_stby_w, v->act_pd_w,
					   v->pre_pd_w, v->sr_w, 0 };
	double lines = (double)r->lines + (r->state ? r->state->kernel_lines : 0);

	for (unsigned int d = 0; d < r->nr_domains; d++) {
		const struct mpm_power_domain *x = &r->domains[d];

		for (int s = 0; s < MPM_NR_PSTATES; s++) {
			r->state_s[s] += x->state_s[s];
			r->state_j[s] += x->state_s[s] * w[s] * x->devices;
			/* the controller refreshes a rank in standby and power-down */
			r->refresh_j += x->state_s[s] * r->state_refresh_w[s] * x->devices;
		}
	}
	/* pages, and single lines: the sampled ones and the kernel's own */
	r->access_j = (double)r->pages_rd * v->page_rd_j + (double)r->pages_wr * v->page_wr_j +
		      lines * v->line_j;
	r->migration_j = (double)migrated_pages * (v->page_rd_j + v->page_wr_j);
	r->kmempowerd_cpu_j = kmempowerd_cpu_s * r->policy.cpu_w;
	r->dram_j = r->refresh_j + r->access_j;
	for (int s = 0; s < MPM_NR_PSTATES; s++)
		r->dram_j += r->state_j[s];
	r->dram_avg_w = r->duration_s > 0 ? r->dram_j / r->duration_s : 0;
	free_state(r);
}

int mpm_power_compute(const struct mpm_power_input *in, const struct mpm_memspec *spec,
		      const struct mpm_power_policy *pol, struct mpm_power_result *r)
{
	size_t n = in->nr_regions;

	if (mpm_power_begin(r, in->regions, in->nr_regions, in->page_size, spec, pol))
		return -1;
	for (size_t s = 1; s < in->nr_samples; s++)
		mpm_power_interval(r, in->t[s] - in->t[s - 1], &in->used[(s - 1) * n],
				   &in->used[s * n], &in->rd[s * n], &in->wr[s * n],
				   in->lines ? &in->lines[s * n] : NULL);
	mpm_power_end(r, in->migrated_pages, in->kmempowerd_cpu_s);
	return 0;
}

void mpm_power_saving(const struct mpm_power_result *base, const struct mpm_power_result *r,
		      double system_w, struct mpm_power_saving *s)
{
	memset(s, 0, sizeof(*s));
	s->valid = true;
	s->saving_w = base->dram_avg_w - r->dram_avg_w;
	s->saving_pct = base->dram_avg_w > 0 ? 100 * s->saving_w / base->dram_avg_w : 0;
	s->kmempowerd_w = r->duration_s > 0 ? r->kmempowerd_cpu_j / r->duration_s : 0;
	s->net_w = s->saving_w - s->kmempowerd_w;
	s->system_w = system_w;
	s->system_share = system_w > 0 ? s->net_w / system_w : 0;
}

void mpm_power_result_fini(struct mpm_power_result *r)
{
	free_state(r);
	free(r->domains);
	r->domains = NULL;
	r->nr_domains = 0;
}
