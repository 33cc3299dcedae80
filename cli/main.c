// SPDX-License-Identifier: MIT
/* mempower: subcommand dispatch, --help, --version. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <mempower/mempower.h>

#include "bench.h"
#include "cli.h"
#include "io/errline.h"
#include "sim/workload.h"

int mpm_cli_fail(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mpm_verror_line(stderr, "mempower: ", fmt, ap);
	va_end(ap);
	return status;
}

void mpm_cli_usage(FILE *out)
{
	fputs(
"usage: mempower --help | help | --version\n"
"       mempower run   [RUN OPTIONS]\n"
"       mempower stats [RUN OPTIONS] [--format buddyinfo|pagetypeinfo|zoneinfo|vmstat|all]\n"
"                                        (default buddyinfo)\n"
"       mempower compare --experiment cover-letter|pagetest [OPTIONS]\n"
"                                        (mempower compare --help)\n"
"       mempower bench [BENCH OPTIONS]   (mempower bench --help)\n"
"       mempower power --list [--memspec NAME|FILE.json]\n"
"\n"
"Run options:\n"
"  --machine SPEC         SIZE (16G), NxSIZE (2x64G), a preset, or a .json file\n"
"                         (docs/machine-json.md); default " MPM_DEFAULT_MACHINE "\n"
"  --region-size SIZE     memory region size, a power of two >= one pageblock\n"
"                         (default 512M)\n"
"  --region-align node|absolute\n"
"                         region boundaries from each node's start (default) or\n"
"                         at multiples of the region size\n"
"  --pageblock-order 9|10 (default 10)\n"
"  --cpus N               CPUs, spread evenly over nodes (default: preset's, else 4)\n"
"  --zonelist-order default|node|zone\n"
"                         3.12's numa_zonelist_order; default is the kernel's\n"
"                         own rule, default_zonelist_order (README; default:\n"
"                         default)\n"
"  --policy P             mainline (default), sorted, split or full\n"
"  --features LIST        switches on top of the policy: name or +name adds,\n"
"                         -name removes (with what needs it), none clears\n"
"                         (sorted_freelists, region_bias, no_claim,\n"
"                         region_allocator, ralloc_bias, region_cache,\n"
"                         evac_triggers, evacuation, reclaim_clean; and\n"
"                         evac_drain, not in the patchset: kmempowerd drains\n"
"                         its cpu's pcp lists after each round; and\n"
"                         evac_trigger_alloc, patch 40 as coded: allocation's\n"
"                         splits and moves queue regions too)\n"
"  --workload W           none | churn | ebizzy | pagetest | kernbench | pagecache,\n"
"                         each with [:key=value,...]\n"
"                         (default churn)\n"
"                         churn: occupancy=0.6 ops=N (managed pages/128, >= 256)\n"
"                                maxorder=10 movable=0.7 reclaimable=0.1\n"
"                         ebizzy: s=256M n=2 t=32 S=60 instances=1 thp=never\n"
"                                jitter=0 (0..0.5)\n"
"                         pagetest: size=512M free=0 hold=1 thp=never\n"
"                         kernbench: jobs=2xCPUs files=19264 headers=15905\n"
"                                includes=300 heap=48M cpu=570 prime=1 thp=never\n"
"                         pagecache: size=5/4 of memory files=1 passes=2\n"
"                         ebizzy, pagetest, kernbench, pagecache: sched=rr\n"
"                                (round robin) or cfs (CFS's vruntime order,\n"
"                                wakeup preemption)\n"
"  --duration SECONDS     virtual seconds to run (default 10; whole seconds for\n"
"                         the kernel-model workloads, which may end sooner)\n"
"  --seed N               seed of the run's random generator (default 1)\n"
"  --json FILE|-          write the result (schema mempower.result/1)\n"
"  --csv FILE|-           write the sampled series, one row per virtual second\n"
"                         (with -, stdout holds the JSON or CSV alone; stats\n"
"                         prints there, so it takes file names)\n"
"  --check-every-op       run the invariant checker after every operation (slow):\n"
"                         each churn step, or each allocator call of a kernel\n"
"                         model (owners checked after every quantum)\n"
"  --power MEMSPEC        DRAM power model: ddr3-1600 (default), ddr4-2400,\n"
"                         ddr4-3200, or a memspec file (docs/power-model.md)\n"
"  --power-policy LIST    key=value,...: pd=128 (DCLKs or off), sr=15 (tREFIs\n"
"                         or off), poweroff=0, force=0, poweron_us=700,\n"
"                         kernel_hz=1e5, cpu_w=10, system_w (default 300 W\n"
"                         per 128 GiB), group=1 (regions per domain),\n"
"                         split=1 (domains per region, a power of two),\n"
"                         interval_ms=1000 (pricing interval, divides 1000;\n"
"                         kernel-model workloads only)\n"
"\n"
"Machine presets:\n", out);
	mpm_machine_presets_print(out);
	fputs(
"\n"
"Sizes take K, M, G, T, P suffixes (binary; optional B or iB, any case).\n"
"Exit status: 0 success, 1 failure (one 'mempower: ...' line on stderr),\n"
"2 usage error.\n", out);
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		mpm_cli_usage(stderr);
		return MPM_EXIT_USAGE;
	}
	if ((!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help") ||
	     !strcmp(cmd, "--version")) && argc > 2)
		return mpm_cli_fail(MPM_EXIT_USAGE, "unexpected argument '%s' after %s (see mempower --help)",
				    argv[2], cmd);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		mpm_cli_usage(stdout);
		return MPM_EXIT_OK;
	}
	if (!strcmp(cmd, "--version")) {
		printf("mempower %s\n", mpm_version());
		return MPM_EXIT_OK;
	}
	if (!strcmp(cmd, "run"))
		return mpm_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "stats"))
		return mpm_cmd_stats(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return mpm_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "power"))
		return mpm_cmd_power(argc - 1, argv + 1);
	if (!strcmp(cmd, "bench"))
		return mpm_bench_main(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return mpm_cli_fail(MPM_EXIT_USAGE, "unknown option '%s' (see mempower --help)", cmd);
	return mpm_cli_fail(MPM_EXIT_USAGE, "unknown command '%s' (see mempower --help)", cmd);
}

int main(int argc, char **argv)
{
	int r = dispatch(argc, argv);

	/* help, a listing, a table: output that did not reach stdout is a failure */
	if (r == MPM_EXIT_OK && !mpm_cli_stdout_written())
		r = mpm_cli_fail(MPM_EXIT_FAIL, "cannot write to stdout: %s",
				 strerror(errno ? errno : EIO));
	return r;
}
