// SPDX-License-Identifier: MIT
/*
 * Options of `run` and `stats`.  Hand-rolled rather than getopt_long so the
 * messages and exit codes are ours, and "--opt value" and "--opt=value" both
 * work the same way.
 */
#include <stddef.h>
#include <string.h>

#include "cli.h"
#include "io/argv.h"

struct opt {
	const char *name;
	size_t field;		/* offsetof the const char * in mpm_run_opts */
	bool stats_only;
};

#define F(member) offsetof(struct mpm_run_opts, member)

static const struct opt opts[] = {
	{ "--machine", F(machine.machine), false },
	{ "--region-size", F(machine.region_size), false },
	{ "--region-align", F(machine.region_align), false },
	{ "--pageblock-order", F(machine.pageblock_order), false },
	{ "--cpus", F(machine.cpus), false },
	{ "--zonelist-order", F(machine.zonelist_order), false },
	{ "--policy", F(policy), false },
	{ "--features", F(features), false },
	{ "--workload", F(workload), false },
	{ "--duration", F(duration), false },
	{ "--seed", F(seed), false },
	{ "--json", F(json), false },
	{ "--csv", F(csv), false },
	{ "--format", F(format), true },
	{ "--power", F(power), false },
	{ "--power-policy", F(power_policy), false },
};

static const struct opt *find(const char *arg, size_t len, bool stats)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (strlen(opts[i].name) == len && !strncmp(arg, opts[i].name, len) &&
		    (stats || !opts[i].stats_only))
			return &opts[i];
	}
	return NULL;
}

int mpm_cli_parse_run_opts(int argc, char **argv, bool stats,
			   struct mpm_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		const struct opt *op;
		const char *val;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			o->help = true;
			continue;
		}
		if (!strcmp(arg, "--check-every-op")) {
			o->check_every_op = true;
			continue;
		}
		if (eq && mpm_cli_is_flag(arg, len, "--check-every-op", "--help", "-h"))
			return mpm_cli_fail(MPM_EXIT_USAGE, "option '%.*s' takes no value",
					    (int)len, arg);
		op = arg[0] == '-' ? find(arg, len, stats) : NULL;
		if (!op) {
			if (arg[0] == '-')
				return mpm_cli_fail(MPM_EXIT_USAGE,
						    "unknown option '%.*s' (see mempower --help)",
						    (int)len, arg);
			return mpm_cli_fail(MPM_EXIT_USAGE,
					    "unexpected argument '%s' (see mempower --help)", arg);
		}
		if (eq) {
			val = eq + 1;
		} else if (!(val = mpm_next_value(argc, argv, &i))) {
			return mpm_cli_fail(MPM_EXIT_USAGE, "option '%s' needs a value", op->name);
		}
		*(const char **)((char *)o + op->field) = val;
	}
	return MPM_EXIT_OK;
}
