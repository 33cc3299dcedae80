// SPDX-License-Identifier: MIT
/*
 * Memspec presets, their physical checks, the figures derived from them,
 * and the memory controller's idle-timer policy.  Every formula here is
 * stated, with its source, in docs/power-model.md.
 */
#include "power/power.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/argv.h"

/*
 * Transcribed from DRAMPower's legacy memspecs (tukl-msd/DRAMPower,
 * memspecs/, Micron datasheet figures); the file each comes from is in
 * .source.  Currents mA, voltages V, timings in clocks.  One value each
 * is not the file's: tREFI is JEDEC's 7.8 us (64 ms / 8192, the case at or
 * below 85 C, 1x refresh) for every preset.  The DDR3-1600 file has 4160
 * clocks, 5.2 us at 800 MHz, which is no JEDEC value (it is 7.8 us at
 * DDR3-1066's 533 MHz; DRAMPower's 1Gb DDR3-1600 file has 6240); the
 * DDR4-2400 file has 4680, 3.9 us, the above-85 C rate, while it says 1x.
 * The DDR4-2400 file's XPDLL (325 clocks) is not used: DDR4's power-down
 * keeps the DLL on (it has no slow-exit mode), so an access waits tXP.
 */
static const struct mpm_memspec presets[] = {
	{
		.name = "ddr3-1600", .source = "MICRON_2Gb_DDR3-1600_16bit_D.json",
		.width = 16, .banks = 8, .rows = 16384, .columns = 1024,
		.burst_length = 8, .data_rate = 2, .clk_mhz = 800,
		.rc = 38, .ras = 28, .rfc = 128, .refi = 6240, .xp = 5, .xs = 136,
		.xpdll = 20, .xsdll = 512, .pd_dll_off = true,
		.idd0 = 110, .idd2n = 42, .idd2p = 12, .idd3n = 45, .idd3p = 45,
		.idd4r = 270, .idd4w = 280, .idd5 = 215, .idd6 = 12,
		.vdd = 1.5,
	},
	{
		.name = "ddr4-2400", .source = "MICRON_4Gb_DDR4-2400_8bit_A.json",
		.width = 8, .banks = 16, .rows = 32768, .columns = 1024,
		.burst_length = 8, .data_rate = 2, .clk_mhz = 1200,
		.rc = 55, .ras = 39, .rfc = 313, .refi = 9360, .xp = 8, .xs = 324,
		.xsdll = 512,
		.idd0 = 60.75, .idd2n = 38.25, .idd2p = 17, .idd3n = 44, .idd3p = 22.5,
		.idd4r = 184.5, .idd4w = 168.75, .idd5 = 118, .idd6 = 20.25,
		.ipp0 = 4.05, .ipp6 = 2.6,
		.vdd = 1.2, .vpp = 2.5,
	},
	{
		.name = "ddr4-3200", .source = "MICRON_8Gb_DDR4-3200_8bit_G.xml",
		.width = 8, .banks = 16, .rows = 65536, .columns = 1024,
		.burst_length = 8, .data_rate = 2, .clk_mhz = 1600,
		.rc = 74, .ras = 52, .rfc = 560, .refi = 12480, .xp = 10, .xs = 576,
		.xsdll = 1024,
		.idd0 = 57, .idd2n = 37, .idd2p = 25, .idd3n = 56, .idd3p = 43,
		.idd4r = 168, .idd4w = 155, .idd5 = 66, .idd6 = 31,
		.ipp0 = 3, .ipp3n = 3, .ipp5 = 5, .ipp6 = 5,
		.vdd = 1.2, .vpp = 2.5,
	},
};

const char *const mpm_pstate_names[MPM_NR_PSTATES] = {
	"act_standby", "pre_standby", "act_powerdown", "pre_powerdown",
	"self_refresh", "off",
};

const struct mpm_memspec *mpm_memspec_preset(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

/* "a, b, c" from the table, for messages (not thread-safe: the CLI's). */
const char *mpm_memspec_preset_names(void)
{
	static char buf[sizeof(presets) / sizeof(presets[0]) * (sizeof(presets[0].name) + 2)];
	size_t len = 0;

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "",
					presets[i].name);
	return buf;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#define MEMSPEC_MAX_MA		1e4	/* 10 A per device */
#define MEMSPEC_MAX_V		5.0
#define MEMSPEC_MAX_CLOCKS	1e9

int mpm_memspec_check(const struct mpm_memspec *s, char *err, size_t errlen)
{
	const double ma = MEMSPEC_MAX_MA;
	const struct { const char *name; double v, max; } nonneg[] = {
		{ "idd0", s->idd0, ma }, { "idd2n", s->idd2n, ma }, { "idd2p", s->idd2p, ma },
		{ "idd3n", s->idd3n, ma }, { "idd3p", s->idd3p, ma }, { "idd4r", s->idd4r, ma },
		{ "idd4w", s->idd4w, ma }, { "idd5", s->idd5, ma }, { "idd6", s->idd6, ma },
		{ "ipp0", s->ipp0, ma }, { "ipp2n", s->ipp2n, ma }, { "ipp2p", s->ipp2p, ma },
		{ "ipp3n", s->ipp3n, ma }, { "ipp3p", s->ipp3p, ma }, { "ipp4r", s->ipp4r, ma },
		{ "ipp4w", s->ipp4w, ma }, { "ipp5", s->ipp5, ma }, { "ipp6", s->ipp6, ma },
		{ "vpp", s->vpp, MEMSPEC_MAX_V },
	};
	/* @optional: 0 means the memspec gives none */
	const struct { const char *name; double v; bool optional; } timings[] = {
		{ "RC", s->rc, false }, { "RAS", s->ras, false }, { "RFC", s->rfc, false },
		{ "REFI", s->refi, false }, { "XP", s->xp, false }, { "XS", s->xs, false },
		{ "XPDLL", s->xpdll, true }, { "XSDLL", s->xsdll, true },
	};

	for (size_t i = 0; i < sizeof(nonneg) / sizeof(nonneg[0]); i++)
		if (!(nonneg[i].v >= 0) || !isfinite(nonneg[i].v))
			return bad(err, errlen, "%s: negative or not a number (%g)",
				   nonneg[i].name, nonneg[i].v);
	/*
	 * Bounds far outside any DRAM, so that every energy the model derives
	 * from them stays a finite number: currents (mA) and voltages below
	 * MEMSPEC_MAX_MA and MEMSPEC_MAX_V, geometry below 2^48 bytes a
	 * device, the clock between 1 MHz and 100 GHz, timings below 10^9
	 * clocks.
	 */
	for (size_t i = 0; i < sizeof(nonneg) / sizeof(nonneg[0]); i++)
		if (nonneg[i].v > nonneg[i].max)
			return bad(err, errlen, "%s %g: out of range (at most %g)", nonneg[i].name,
				   nonneg[i].v, nonneg[i].max);
	if (s->width != 4 && s->width != 8 && s->width != 16 && s->width != 32)
		return bad(err, errlen, "width %u: expected 4, 8, 16 or 32 bits", s->width);
	if (!s->banks || !s->rows || !s->columns || !s->burst_length || !s->data_rate)
		return bad(err, errlen, "banks, rows, columns, burst length and data rate must be positive");
	if (s->banks > 256 || s->rows > (1u << 22) || s->columns > (1u << 16) ||
	    s->burst_length > 64 || s->data_rate > 8)
		return bad(err, errlen, "banks %u, rows %u, columns %u, burst length %u, data rate %u: "
			   "out of range (at most 256, 2^22, 2^16, 64, 8)", s->banks, s->rows,
			   s->columns, s->burst_length, s->data_rate);
	/* JEDEC bursts and transfers per clock: BL 2..16 (32 for LPDDR), SDR/DDR/QDR */
	if (s->burst_length & (s->burst_length - 1) || s->data_rate & (s->data_rate - 1))
		return bad(err, errlen, "burst length %u, data rate %u: expected powers of two",
			   s->burst_length, s->data_rate);
	/* every per-device figure divides by the device's bytes */
	if ((uint64_t)s->banks * s->rows * s->columns * s->width < 8)
		return bad(err, errlen, "banks %u x rows %u x columns %u x width %u bits: "
			   "a device of less than one byte", s->banks, s->rows, s->columns, s->width);
	if (!(s->vdd > 0) || !(s->clk_mhz > 0) || !isfinite(s->vdd) || !isfinite(s->clk_mhz))
		return bad(err, errlen, "vdd and clock must be positive");
	if (s->vdd > MEMSPEC_MAX_V || s->clk_mhz < 1 || s->clk_mhz > 1e5)
		return bad(err, errlen, "vdd %g V, clock %g MHz: out of range (vdd at most %g V, clock 1 MHz to 100 GHz)",
			   s->vdd, s->clk_mhz, MEMSPEC_MAX_V);
	for (size_t i = 0; i < sizeof(timings) / sizeof(timings[0]); i++)
		if (!(timings[i].v > 0 || (timings[i].optional && timings[i].v == 0)) ||
		    !(timings[i].v <= MEMSPEC_MAX_CLOCKS))
			return bad(err, errlen, "timing %s %g: must be %s and at most %g clocks",
				   timings[i].name, timings[i].v,
				   timings[i].optional ? "at least 0" : "positive", MEMSPEC_MAX_CLOCKS);
	if (s->ras > s->rc)
		return bad(err, errlen, "RAS %g > RC %g", s->ras, s->rc);
	/* JEDEC: the DLL exits are the longer ones; 0 means none given */
	if (s->xpdll && s->xpdll < s->xp)
		return bad(err, errlen, "XPDLL %g < XP %g", s->xpdll, s->xp);
	if (s->xsdll && s->xsdll < s->xs)
		return bad(err, errlen, "XSDLL %g < XS %g", s->xsdll, s->xs);
	/* a VPP current with no VPP voltage would be priced at 0 W, silently */
	if (!s->vpp && (s->ipp0 || s->ipp2n || s->ipp2p || s->ipp3n || s->ipp3p || s->ipp4r ||
			s->ipp4w || s->ipp5 || s->ipp6))
		return bad(err, errlen, "IPP currents given without vpp (DRAMPower: vdd2)");
	if (s->rfc >= s->refi)
		return bad(err, errlen, "RFC %g >= REFI %g: refresh would never end", s->rfc, s->refi);
	/* a lower-power state drawing more than the state above it is a typo */
	if (s->idd6 > s->idd2n)
		return bad(err, errlen, "IDD6 %g > IDD2N %g: self-refresh above precharge standby",
			   s->idd6, s->idd2n);
	if (s->idd2p > s->idd2n)
		return bad(err, errlen, "IDD2P %g > IDD2N %g: power-down above standby",
			   s->idd2p, s->idd2n);
	if (s->idd3p > s->idd3n)
		return bad(err, errlen, "IDD3P %g > IDD3N %g: power-down above standby",
			   s->idd3p, s->idd3n);
	if (s->idd2n > s->idd3n)
		return bad(err, errlen, "IDD2N %g > IDD3N %g: precharge above active standby",
			   s->idd2n, s->idd3n);
	if (s->idd0 < s->idd3n || s->idd4r < s->idd3n || s->idd4w < s->idd3n ||
	    s->idd5 < s->idd3n)
		return bad(err, errlen, "IDD0, IDD4R, IDD4W and IDD5 must be at least IDD3N %g",
			   s->idd3n);
	return 0;
}

/* Current above a reference, never negative (missing VPP figures are 0). */
static double above(double i, double ref)
{
	return i > ref ? i - ref : 0;
}

void mpm_memspec_derive(const struct mpm_memspec *s, struct mpm_memspec_power *d)
{
	double tck = 1e-6 / s->clk_mhz;
	double burst_s = (double)s->burst_length / s->data_rate * tck;
	double dev_burst_bytes = (double)s->width * s->burst_length / 8;
	double rank_devices = 64.0 / s->width;		/* a 64-bit rank */
	double rank_row_bytes = (double)s->columns * 8;	/* columns x 64 bits */
	double acts_per_page = ceil(4096 / rank_row_bytes) * rank_devices;

	memset(d, 0, sizeof(*d));
	d->tck_s = tck;
	d->device_bytes = (uint64_t)s->banks * s->rows * s->columns * s->width / 8;
	/* background: IDD x VDD (+ IPP x VPP), DRAMPower's *_stdby / *_pd / sref */
	d->act_stby_w = (s->idd3n * s->vdd + s->ipp3n * s->vpp) / 1000;
	d->pre_stby_w = (s->idd2n * s->vdd + s->ipp2n * s->vpp) / 1000;
	d->act_pd_w = (s->idd3p * s->vdd + s->ipp3p * s->vpp) / 1000;
	d->pre_pd_w = (s->idd2p * s->vdd + s->ipp2p * s->vpp) / 1000;
	d->sr_w = (s->idd6 * s->vdd + s->ipp6 * s->vpp) / 1000;
	/* one REF every tREFI costs (IDD5 - IDD3N) x VDD over tRFC */
	d->refresh_w = (above(s->idd5, s->idd3n) * s->vdd + above(s->ipp5, s->ipp3n) * s->vpp) /
		       1000 * s->rfc / s->refi;
	/* ACT: (IDD0 - IDD3N) over tRAS; PRE: (IDD0 - IDD2N) over tRC - tRAS */
	d->act_j = (above(s->idd0, s->idd3n) * s->vdd + above(s->ipp0, s->ipp3n) * s->vpp) /
		   1000 * s->ras * tck +
		   (above(s->idd0, s->idd2n) * s->vdd + above(s->ipp0, s->ipp2n) * s->vpp) /
		   1000 * (s->rc - s->ras) * tck;
	d->rd_burst_j = (above(s->idd4r, s->idd3n) * s->vdd + above(s->ipp4r, s->ipp3n) * s->vpp) /
			1000 * burst_s;
	d->wr_burst_j = (above(s->idd4w, s->idd3n) * s->vdd + above(s->ipp4w, s->ipp3n) * s->vpp) /
			1000 * burst_s;
	/* 4 KiB = 512 beats of a 64-bit rank; 64 B = 8 beats */
	d->page_busy_s = 512.0 / s->data_rate * tck;
	d->line_busy_s = 8.0 / s->data_rate * tck;
	d->page_rd_j = 4096 / dev_burst_bytes * d->rd_burst_j + acts_per_page * d->act_j;
	d->page_wr_j = 4096 / dev_burst_bytes * d->wr_burst_j + acts_per_page * d->act_j;
	d->line_j = 64 / dev_burst_bytes * d->rd_burst_j + rank_devices * d->act_j;
	/* the REF that self-refresh entry starts with: IDD5, not IDD6, over tRFC */
	d->sr_entry_j = (above(s->idd5, s->idd6) * s->vdd + above(s->ipp5, s->ipp6) * s->vpp) /
			1000 * s->rfc * tck;
	d->xp_s = s->xp * tck;
	d->xs_s = s->xs * tck;
	d->pd_exit_s = (s->pd_dll_off && s->xpdll ? s->xpdll : s->xp) * tck;
	d->sr_exit_s = (s->xsdll ? s->xsdll : s->xs) * tck;
}

/*
 * The refresh power added to each state's background, per device, with a
 * power-down timer of @pd_timer_clk clocks (< 0: never).  A REF draws IDD5
 * over tRFC: the adder above IDD3N (refresh_w) and, under it, the active
 * standby background, whatever state the rank was in.  JEDEC allows no REF
 * with CKE low, so a rank in power-down is woken for each one: tXP out of
 * power-down, tRFC refreshing, then the controller's power-down timer
 * again before CKE drops -- standby, not power-down, for that long in
 * every tREFI (DRAMPower counts REF cycles as active; it warns of a REF in
 * power-down).  Self-refresh refreshes itself (IDD6), off needs none.
 */
void mpm_memspec_refresh_w(const struct mpm_memspec *s, const struct mpm_memspec_power *d,
			   double pd_timer_clk, double ref_w[])
{
	double rfc = s->rfc / s->refi;				/* share of time in REF */
	double awake = (s->xp + (pd_timer_clk > 0 ? pd_timer_clk : 0)) / s->refi;

	if (awake > 1 - rfc)
		awake = 1 - rfc;
	/* differences floored at 0, as every one in the model (VPP may be missing) */
	ref_w[MPM_PS_ACT_STBY] = d->refresh_w;
	ref_w[MPM_PS_PRE_STBY] = d->refresh_w + above(d->act_stby_w, d->pre_stby_w) * rfc;
	ref_w[MPM_PS_ACT_PD] = d->refresh_w + above(d->act_stby_w, d->act_pd_w) * (rfc + awake);
	ref_w[MPM_PS_PRE_PD] = d->refresh_w + above(d->act_stby_w, d->pre_pd_w) * rfc +
			       above(d->pre_stby_w, d->pre_pd_w) * awake;
	ref_w[MPM_PS_SR] = 0;
	ref_w[MPM_PS_OFF] = 0;
}

void mpm_power_policy_default(struct mpm_power_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->pd_timer_clk = 128;		/* Intel IMC BIOS default PM_PDWN 0x6080 */
	p->sr_timer_refi = 15;		/* ARM DMC-500 asr_period, its longest */
	p->poweroff = false;
	p->poweron_s = 700e-6;		/* JEDEC DDR3 init: RESET 200 us + 500 us to CKE */
	p->kernel_hz = 1e5;		/* ESTIMATE */
	p->cpu_w = 10;			/* ESTIMATE: one busy Sandy Bridge-EP core */
	p->system_w = 0;		/* 0: 300 W per 128 GiB (caller scales) */
	p->group = 1;
	p->split = 1;
	p->interval_ms = 1000;
}

/*
 * A plain decimal number ("128", "1e5", "0.5"): strtod alone would also
 * take leading blanks, hex ("0x10") and "inf"/"nan" spellings.
 */
static int parse_num(const char *v, double *out)
{
	char *end;

	if (!isdigit((unsigned char)v[0]) && !(v[0] == '.' && isdigit((unsigned char)v[1])))
		return -1;
	if (strpbrk(v, "xXpP"))
		return -1;
	errno = 0;
	*out = strtod(v, &end);
	return (end == v || *end || errno || !isfinite(*out) || *out < 0) ? -1 : 0;
}

/*
 * The largest value of each numeric key: far past any controller or
 * machine, low enough that every energy the model computes stays finite
 * (a domain cannot take more than about 10^9 line accesses a second).
 */
static double policy_max(const char *key)
{
	static const struct { const char *key; double max; } maxima[] = {
		{ "pd", 1e12 }, { "sr", 1e9 }, { "poweron_us", 1e9 }, { "kernel_hz", 1e10 },
		{ "cpu_w", 1e4 }, { "system_w", 1e7 },
	};

	for (size_t i = 0; i < sizeof(maxima) / sizeof(maxima[0]); i++)
		if (!strcmp(key, maxima[i].key))
			return maxima[i].max;
	return INFINITY;	/* poweroff, force, group, split, interval_ms: checked below */
}

/* "key=value,...": pd, sr (DCLKs / tREFIs, or off), poweroff (0|1), ... */
int mpm_power_policy_parse(const char *s, struct mpm_power_policy *p,
			   char *err, size_t errlen)
{
	char buf[256], *rest = buf, *kv;
	struct mpm_keys seen = { .nr = 0 };

	if (strlen(s) >= sizeof(buf))
		return bad(err, errlen, "--power-policy: too long");
	strcpy(buf, s);
	while ((kv = strsep(&rest, ","))) {
		char *eq = strchr(kv, '=');
		double v = 0;

		if (!*kv)
			return bad(err, errlen, "--power-policy: empty key=value in '%s'", s);
		if (!eq)
			return bad(err, errlen, "--power-policy: '%s' is not key=value", kv);
		*eq++ = 0;
		if (mpm_key_repeated(&seen, kv))
			return bad(err, errlen, "--power-policy: key '%s' given twice", kv);
		if ((!strcmp(kv, "pd") || !strcmp(kv, "sr")) && !strcmp(eq, "off"))
			v = -1;
		else if (parse_num(eq, &v))
			return bad(err, errlen, "--power-policy: malformed value '%s' for %s", eq, kv);
		else if (v > policy_max(kv))
			return bad(err, errlen, "--power-policy: %s=%s is out of range (at most %g)",
				   kv, eq, policy_max(kv));
		/*
		 * A self-refresh timer of 0 would enter at once, but idle_gap()
		 * tells an entry from a stay by the age being below the timer,
		 * and none is below 0: every entry's REF would go uncharged.
		 */
		if (!strcmp(kv, "sr") && v == 0)
			return bad(err, errlen, "--power-policy: sr=0: the self-refresh timer must be "
				   "above 0 tREFI (or off)");
		if (!strcmp(kv, "pd"))
			p->pd_timer_clk = v;
		else if (!strcmp(kv, "sr"))
			p->sr_timer_refi = v;
		else if (!strcmp(kv, "poweroff") && (v == 0 || v == 1))
			p->poweroff = v == 1;
		else if (!strcmp(kv, "force") && (v == 0 || v == 1))
			p->force = v == 1;
		else if (!strcmp(kv, "poweron_us"))
			p->poweron_s = v * 1e-6;
		else if (!strcmp(kv, "kernel_hz"))
			p->kernel_hz = v;
		else if (!strcmp(kv, "cpu_w"))
			p->cpu_w = v;
		else if (!strcmp(kv, "system_w"))
			p->system_w = v;
		else if (!strcmp(kv, "group") && v >= 1 && v <= 4096 && v == floor(v))
			p->group = (unsigned int)v;
		else if (!strcmp(kv, "split") && v >= 1 && v <= 4096 && v == floor(v) &&
			 !((unsigned int)v & ((unsigned int)v - 1)))
			p->split = (unsigned int)v;
		else if (!strcmp(kv, "interval_ms") && v >= 1 && v <= 1000 && v == floor(v) &&
			 1000 % (unsigned int)v == 0)
			p->interval_ms = (unsigned int)v;
		else if (!strcmp(kv, "interval_ms"))
			return bad(err, errlen,
				   "--power-policy: interval_ms=%s is not a whole number of ms dividing 1000",
				   eq);
		else if (!strcmp(kv, "poweroff") || !strcmp(kv, "group") || !strcmp(kv, "force"))
			return bad(err, errlen, "--power-policy: %s=%s is out of range", kv, eq);
		else if (!strcmp(kv, "split"))
			return bad(err, errlen,
				   "--power-policy: split=%s is not a power of two from 1 to 4096", eq);
		else
			return bad(err, errlen,
				   "--power-policy: unknown key '%s' (pd, sr, poweroff, force, poweron_us, kernel_hz, cpu_w, system_w, group, split, interval_ms)",
				   kv);
	}
	if (p->group > 1 && p->split > 1)
		return bad(err, errlen, "--power-policy: group and split cannot both be above 1");
	return 0;
}
