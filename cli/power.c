// SPDX-License-Identifier: MIT
/*
 * The DRAM power model on the command line: --power and --power-policy of
 * `run` and `compare`, and `mempower power --memspec NAME --list`.
 */
#include <string.h>

#include "cli.h"
#include "io/argv.h"
#include "io/memspec_json.h"

int mpm_cli_power_setup(const char *memspec, const char *policy, struct mpm_memspec *spec,
			struct mpm_power_policy *pol)
{
	char err[320];

	if (mpm_memspec_resolve(memspec ? memspec : MPM_DEFAULT_MEMSPEC, spec, err, sizeof(err)))
		return mpm_cli_fail(MPM_EXIT_FAIL, "--power: %s%s", err, MPM_ERR_CUT(err));
	mpm_power_policy_default(pol);
	if (policy && mpm_power_policy_parse(policy, pol, err, sizeof(err)))
		return mpm_cli_fail_err(err);
	return MPM_EXIT_OK;
}

double mpm_cli_system_w(const struct mpm_power_policy *pol, const struct mpm_machine *m)
{
	if (pol->system_w > 0)
		return pol->system_w;
	return 300.0 * (double)(mpm_total_pages(m) * MPM_PAGE_SIZE) / (double)(128ull << 30);
}

static void list(const struct mpm_memspec *s)
{
	struct mpm_memspec_power d;
	struct mpm_power_policy pol;
	double per_512m, ref[MPM_NR_PSTATES];
	const struct { const char *state, *cur; double ma, mpp, w; } rows[] = {
		{ "active standby", "IDD3N", s->idd3n, s->ipp3n, 0 },
		{ "precharge standby", "IDD2N", s->idd2n, s->ipp2n, 0 },
		{ "active power-down", "IDD3P", s->idd3p, s->ipp3p, 0 },
		{ "precharge power-down", "IDD2P", s->idd2p, s->ipp2p, 0 },
		{ "self-refresh", "IDD6", s->idd6, s->ipp6, 0 },
	};

	mpm_memspec_derive(s, &d);
	mpm_power_policy_default(&pol);
	mpm_memspec_refresh_w(s, &d, pol.pd_timer_clk, ref);
	per_512m = (double)(512ull << 20) / (double)d.device_bytes;
	printf("memspec %s (%s)\n", s->name, s->source);
	printf("device  x%u, %u banks x %u rows x %u columns = %llu MiB; BL%u, %g MHz clock "
	       "(tCK %.3f ns)\n", s->width, s->banks, s->rows, s->columns,
	       (unsigned long long)(d.device_bytes >> 20), s->burst_length, s->clk_mhz,
	       d.tck_s * 1e9);
	printf("domain  a 512 MiB region holds %.3g devices (a 64-bit rank is %u devices)\n",
	       per_512m, 64 / s->width);
	printf("timing  tRC %g, tRAS %g, tRFC %g (%.1f ns), tREFI %g (%.3f us), tXP %g (%.2f ns), "
	       "tXS %g (%.1f ns), tXPDLL %g, tXSDLL %g clocks\n", s->rc, s->ras, s->rfc,
	       s->rfc * d.tck_s * 1e9, s->refi, s->refi * d.tck_s * 1e6, s->xp, d.xp_s * 1e9, s->xs,
	       d.xs_s * 1e9, s->xpdll, s->xsdll);
	printf("exits   an access waits %.2f ns after power-down (%s), %.1f ns after self-refresh\n",
	       d.pd_exit_s * 1e9,
	       !s->pd_dll_off ? "DLL on: tXP" : s->xpdll > 0 ? "DLL off: tXPDLL" :
	       "DLL off, no tXPDLL given: tXP",
	       d.sr_exit_s * 1e9);
	printf("supply  VDD %g V%s", s->vdd, s->vpp > 0 ? "" : "\n");
	if (s->vpp > 0)
		printf(", VPP %g V\n", s->vpp);
	printf("currents (mA): IDD0 %g, IDD2N %g, IDD2P %g, IDD3N %g, IDD3P %g, IDD4R %g, "
	       "IDD4W %g, IDD5 %g, IDD6 %g\n", s->idd0, s->idd2n, s->idd2p, s->idd3n, s->idd3p,
	       s->idd4r, s->idd4w, s->idd5, s->idd6);
	if (s->vpp > 0)
		printf("VPP currents (mA): IPP0 %g, IPP2N %g, IPP2P %g, IPP3N %g, IPP3P %g, "
		       "IPP4R %g, IPP4W %g, IPP5 %g, IPP6 %g\n", s->ipp0, s->ipp2n, s->ipp2p,
		       s->ipp3n, s->ipp3p, s->ipp4r, s->ipp4w, s->ipp5, s->ipp6);
	printf("\n%-22s %-6s %12s %14s %16s\n", "state", "IDD", "mW/device",
	       "+refresh mW", "mW per 512 MiB");
	/* rows in enum mpm_pstate order; self-refresh includes its refresh */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double w = (rows[i].ma * s->vdd + rows[i].mpp * s->vpp) / 1000;

		printf("%-22s %-6s %12.2f %14.2f %16.2f\n", rows[i].state, rows[i].cur, w * 1e3,
		       (w + ref[i]) * 1e3, (w + ref[i]) * per_512m * 1e3);
	}
	printf("%-22s %-6s %12.2f %14.2f %16.2f\n", "off", "-", 0.0, 0.0, 0.0);
	printf("\nrefresh  (IDD5 - IDD3N) x VDD x tRFC / tREFI = %.3f mW per device, over\n"
	       "         active standby; each REF also wakes a powered-down rank for tXP,\n"
	       "         tRFC and the %g-clock power-down timer (the default policy);\n"
	       "         a self-refresh entry costs %.2f nJ per device (a REF at IDD5)\n",
	       d.refresh_w * 1e3, pol.pd_timer_clk, d.sr_entry_j * 1e9);
	printf("energy   ACT+PRE %.3f nJ/device, read burst %.3f nJ/device, write burst %.3f nJ/device\n",
	       d.act_j * 1e9, d.rd_burst_j * 1e9, d.wr_burst_j * 1e9);
	printf("         4 KiB read %.1f nJ, 4 KiB write %.1f nJ, 64 B line %.2f nJ; "
	       "a migrated page (read + write) %.1f nJ\n", d.page_rd_j * 1e9, d.page_wr_j * 1e9,
	       d.line_j * 1e9, (d.page_rd_j + d.page_wr_j) * 1e9);
}

int mpm_cmd_power(int argc, char **argv)
{
	const char *name = NULL;
	bool do_list = false;
	struct mpm_memspec s;
	char err[320];

	for (int i = 1; i < argc; i++) {
		const char *eq;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: mempower power --list [--memspec NAME|FILE.json]\n"
			       "  --list     print the memspec's currents, timings and what each\n"
			       "             power state and a migrated page cost\n"
			       "  --memspec  a preset or a JSON file (default " MPM_DEFAULT_MEMSPEC
			       "; docs/power-model.md)\n"
			       "  presets: %s\n", mpm_memspec_preset_names());
			return MPM_EXIT_OK;
		} else if (!strcmp(argv[i], "--list")) {
			do_list = true;
		} else if (!strncmp(argv[i], "--memspec=", 10)) {
			name = argv[i] + 10;
		} else if (!strcmp(argv[i], "--memspec")) {
			if (!(name = mpm_next_value(argc, argv, &i)))
				return mpm_cli_fail(MPM_EXIT_USAGE, "power: option '--memspec' needs a value");
		} else if ((eq = strchr(argv[i], '=')) &&
			   mpm_cli_is_flag(argv[i], (size_t)(eq - argv[i]), "--list", "--help", "-h")) {
			return mpm_cli_fail(MPM_EXIT_USAGE, "power: option '%.*s' takes no value",
					    (int)(eq - argv[i]), argv[i]);
		} else {
			return mpm_cli_fail(MPM_EXIT_USAGE, "power: unknown %s '%s' (see mempower power --help)",
					    argv[i][0] == '-' ? "option" : "argument", argv[i]);
		}
	}
	if (!do_list)
		return mpm_cli_fail(MPM_EXIT_USAGE, "power: nothing to do (give --list)");
	if (mpm_memspec_resolve(name ? name : MPM_DEFAULT_MEMSPEC, &s, err, sizeof(err)))
		return mpm_cli_fail_err(err);
	list(&s);
	return MPM_EXIT_OK;	/* main() reports a listing that did not reach stdout */
}
