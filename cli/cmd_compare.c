// SPDX-License-Identifier: MIT
/*
 * `mempower compare`: one experiment, run once per policy on the same
 * machine, seed and work, printed as one table.
 *
 *   cover-letter  the v4 results mail: sandybridge-128g with the boot-time
 *                 reservations and an idle system, 20 x `ebizzy -s 268435456
 *                 -n 2 -t 32 -S 60` started together, sampled every second
 *                 until two samples after the first that follows the last
 *                 one's exit (2-3 s after it).  --scale F
 *                 shrinks memory, CPUs and instances together.
 *   pagetest      the v2 mail: 8 GiB, 512 MiB regions, pagetest of 512 MiB,
 *                 1 GiB and 2 GiB in turn; free pages per region after each.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mempower/mempower.h>

#include "cli.h"
#include "io/argv.h"
#include "io/result_json.h"
#include "sim/size.h"
#include "sim/ksim.h"
#include "sim/boot_reserve.h"

#define MAX_POLICIES	8
#define MAX_VARIANTS	64		/* policies, and with --ablation each less one switch */
#define MAX_RUNS	(MAX_VARIANTS * 3)
#define MAX_MEMSPECS	MPM_MAX_PRICING
#define MAX_LABEL	40		/* a --policies entry, switches included */

struct compare {
	const char *experiment, *scale_s, *policies_s, *seed_s, *json, *csv, *thp_s, *threshold_s,
		   *jobs_s;
	const char *power_s, *power_policy_s, *zonelist_s, *jitter_s, *sched_s;
	unsigned int zonelist_order;		/* enum mpm_zonelist_order */
	char power_buf[256];
	struct mpm_memspec memspec[MAX_MEMSPECS];
	unsigned int nr_memspecs;
	struct mpm_power_policy power_policy;
	double system_w;
	struct mpm_power_saving saving[MPM_MAX_PRICING * MAX_RUNS];
	uint64_t evac_threshold;	/* --evac-threshold: 0 = patch 39's 32 */
	bool check, help;
	double scale;
	double jitter;				/* --jitter: ebizzy's timing perturbation */
	uint64_t seed;
	bool thp;
	bool sched_cfs;				/* --sched cfs */
	bool ablation;
	const char *policy[MAX_VARIANTS];	/* labels: "split", "split-no_claim" */
	unsigned long features[MAX_VARIANTS];
	uint64_t threshold[MAX_VARIANTS];	/* evac_threshold; 0 = the default 32 */
	int base[MAX_VARIANTS];			/* --ablation: the variant it is measured against */
	char label_buf[MAX_VARIANTS][MAX_LABEL + 24];	/* LABEL-switch, LABEL@512 */
	char policy_buf[MAX_POLICIES * (MAX_LABEL + 1)];
	unsigned int nr_policies;
	unsigned int variant_of[MAX_RUNS];
	struct mpm_spec_buf spec;
	struct mpm_boot_reserve reserve;
	struct mpm_machine_spec run_spec[MAX_RUNS];	/* the spec with the run's switches */
	struct mpm_run_config cfg[MAX_RUNS];
	char workload_str[MAX_RUNS][128];
	struct mpm_run run[MAX_RUNS];
	unsigned int nr_runs;
	unsigned int jobs;			/* --jobs: runs executed at once */
	struct mpm_output json_out, csv_out;
};

static int parse_args(int argc, char **argv, struct compare *c)
{
	static const char *const names[] = { "--experiment", "--scale", "--policies",
					     "--seed", "--json", "--csv", "--thp",
					     "--evac-threshold", "--jobs", "--power", "--power-policy",
					     "--zonelist-order", "--jitter", "--sched" };
	const char **fields[] = { &c->experiment, &c->scale_s, &c->policies_s, &c->seed_s,
				  &c->json, &c->csv, &c->thp_s, &c->threshold_s, &c->jobs_s,
				  &c->power_s, &c->power_policy_s, &c->zonelist_s, &c->jitter_s,
				  &c->sched_s };

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		size_t k;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			c->help = true;
			continue;
		}
		if (!strcmp(arg, "--check")) {
			c->check = true;
			continue;
		}
		if (!strcmp(arg, "--ablation")) {
			c->ablation = true;
			continue;
		}
		if (eq && mpm_cli_is_flag(arg, len, "--check", "--ablation", "--help", "-h"))
			return mpm_cli_fail(MPM_EXIT_USAGE, "compare: option '%.*s' takes no value",
					    (int)len, arg);
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strlen(names[k]) == len && !strncmp(arg, names[k], len))
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			return mpm_cli_fail(MPM_EXIT_USAGE, "compare: unknown %s '%.*s' (see mempower compare --help)",
					    arg[0] == '-' ? "option" : "argument", (int)len, arg);
		if (eq)
			*fields[k] = eq + 1;
		else if (!(*fields[k] = mpm_next_value(argc, argv, &i)))
			return mpm_cli_fail(MPM_EXIT_USAGE, "compare: option '%s' needs a value", names[k]);
	}
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: mempower compare --experiment cover-letter|pagetest [--scale F]\n"
	      "                        [--policies LIST] [--seed N] [--thp never|always]\n"
	      "                        [--evac-threshold N|any] [--power LIST]\n"
	      "                        [--power-policy key=value,...]\n"
	      "                        [--zonelist-order default|node|zone]\n"
	      "                        [--json FILE|-] [--csv FILE|-] [--check] [--ablation]\n"
	      "                        [--jobs N] [--jitter F] [--sched rr|cfs]\n"
	      "\n"
	      "  --experiment  cover-letter: 20 x ebizzy on the v4 cover letter's machine\n"
	      "                (2 x 64 GiB, 512 MiB regions); pagetest: the v2 mail's\n"
	      "                pagetest of 512M, 1G and 2G on an 8 GiB machine\n"
	      "  --scale F     cover-letter: memory, CPUs and ebizzy instances times F\n"
	      "                (0 < F <= 1; default 1: 128 GiB, 16 CPUs, 20 instances)\n"
	      "  --policies    comma-separated (default mainline); each may add or\n"
	      "                remove switches, e.g. full+evac_drain or\n"
	      "                split-region_cache (a removed switch takes along those\n"
	      "                that need it, as --ablation's variants)\n"
	      "  --seed N      seed of every run (default 1); the cover-letter runs\n"
	      "                depend on it only with --jitter\n"
	      "  --thp         transparent hugepages for the workload (default never)\n"
	      "  --zonelist-order default|node|zone  3.12's numa_zonelist_order (default:\n"
	      "                default, zone order on the cover-letter machine at scales\n"
	      "                from 0.045 up, node order below)\n"
	      "  --evac-threshold N|any  evacuate regions with at most N used pages\n"
	      "                (default 32, patch 39's MAX_MEMPWR_MIGRATE_PAGES)\n"
	      "  --power LIST  DRAM power model, up to 3 memspecs: ddr3-1600 (default),\n"
	      "                ddr4-2400, ddr4-3200 or .json files (docs/power-model.md)\n"
	      "  --power-policy key=value,...  pd=128 sr=15 poweroff=0 force=0 poweron_us=700\n"
	      "                kernel_hz=1e5 cpu_w=10 system_w=(300 W x scale) group=1\n"
	      "                split=1 interval_ms=1000\n"
	      "  --json FILE   the result (schema mempower.result/1, one run per policy\n"
	      "                and size); with -, on stdout instead of the tables\n"
	      "  --csv FILE    one line per run and sample; with -, on stdout instead of\n"
	      "                the tables\n"
	      "  --check       run the invariant and owner checkers at every sample\n"
	      "  --ablation    also run each policy less each one of its switches (and,\n"
	      "                with evacuation, at thresholds 8, 128, 512 and any instead\n"
	      "                of 32) and print what each adds to the end and minimum\n"
	      "  --jobs N      runs executed at once, each on its own thread (default:\n"
	      "                the online CPUs), and no more than fit in memory\n"
	      "                (MEMPOWER_MEMORY_LIMIT, else MemAvailable); results do\n"
	      "                not depend on it\n"
	      "  --jitter F    cover-letter: each ebizzy iteration's memcpy costs the\n"
	      "                model's time 1 +- F (uniform, 0 <= F <= 0.5, from the\n"
	      "                seed; default 0): a timing perturbation, so that runs\n"
	      "                with different seeds show how much the figures depend\n"
	      "                on the exact interleaving (scripts/seed-spread.sh)\n"
	      "  --sched rr|cfs  whose turn it is on each CPU: round robin (default, the\n"
	      "                docs' model) or CFS's vruntime order with wakeup\n"
	      "                preemption\n", out);
}

/* A variant of this label is already to run. */
static bool label_taken(const struct compare *c, const char *label)
{
	for (unsigned int i = 0; i < c->nr_policies; i++)
		if (!strcmp(c->policy[i], label))
			return true;
	return false;
}

static int too_many_variants(void)
{
	return mpm_cli_fail(MPM_EXIT_FAIL, "compare: --ablation: more than %d variants; name fewer policies",
			    MAX_VARIANTS);
}

/*
 * --ablation: after each policy, the policy less one of its switches (and
 * less whatever needs that switch, mpm_features_valid), labelled
 * "policy-switch".
 */
static int add_ablation_variants(struct compare *c)
{
	unsigned int nr_base = c->nr_policies;

	for (unsigned int p = 0; p < nr_base; p++)
		for (unsigned int b = 0; b < 8 * sizeof(unsigned long); b++) {
			unsigned int v = c->nr_policies;
			char name[40];

			if (!(c->features[p] & (1ul << b)))
				continue;
			if (v == MAX_VARIANTS)
				return too_many_variants();
			mpm_features_string(1ul << b, name, sizeof(name));
			snprintf(c->label_buf[v], sizeof(c->label_buf[v]), "%s-%s", c->policy[p], name);
			if (label_taken(c, c->label_buf[v]))
				return mpm_cli_fail(MPM_EXIT_FAIL,
						    "compare: --ablation runs '%s' of its own: leave it out of --policies",
						    c->label_buf[v]);
			c->policy[v] = c->label_buf[v];
			c->features[v] = mpm_features_valid(c->features[p] & ~(1ul << b));
			c->base[v] = (int)p;
			c->nr_policies++;
		}
	/* the evacuation threshold of patch 39 (32) against 8, 128, 512 and any */
	for (unsigned int p = 0; p < nr_base; p++) {
		static const uint64_t thresholds[] = { 8, 128, 512, UINT64_MAX };

		if (!(c->features[p] & MPM_FEATURE_EVACUATION))
			continue;
		for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++) {
			unsigned int v = c->nr_policies;

			if (v == MAX_VARIANTS)
				return too_many_variants();
			if (thresholds[i] == UINT64_MAX)
				snprintf(c->label_buf[v], sizeof(c->label_buf[v]), "%s@any", c->policy[p]);
			else
				snprintf(c->label_buf[v], sizeof(c->label_buf[v]), "%s@%llu", c->policy[p],
					 (unsigned long long)thresholds[i]);
			c->policy[v] = c->label_buf[v];
			c->features[v] = c->features[p];
			c->threshold[v] = thresholds[i];
			c->base[v] = (int)p;
			c->nr_policies++;
		}
	}
	return 0;
}

/*
 * One entry of --policies: a policy, then optionally switches added or
 * removed, "full+evac_drain" or "split-region_cache", as run's --features
 * applies them.  A removed switch takes along those that need it, as the
 * variants of --ablation do (whose labels mean the same here); an added one
 * must find what it needs.
 */
static int policy_variant_features(const char *label, unsigned long *f)
{
	size_t len = strcspn(label, "+-");
	char name[32], list[2 * MAX_LABEL + 1], err[512];
	unsigned long base, valid, lost;
	size_t used = 0;
	int r;

	if (len >= sizeof(name))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: unknown policy '%.*s...'", 20, label);
	/* room for the ablation's "LABEL-sorted_freelists" in label_buf */
	if (strlen(label) > MAX_LABEL)
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "compare: policy '%.40s...' is longer than %d characters", label,
				    MAX_LABEL);
	memcpy(name, label, len);
	name[len] = '\0';
	r = mpm_policy_features(name, f);
	if (r == -2)
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: policy '%s' is not available yet",
				    name);
	if (r)
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "compare: unknown policy '%s' (expected mainline, sorted, split or full, each optionally followed by +switch or -switch)",
				    name);
	if (!label[len])
		return 0;
	/* "+a-b" -> "+a,-b", the list mpm_features_apply() takes */
	for (const char *q = label + len; *q; q++) {
		if (q != label + len && (*q == '+' || *q == '-'))
			list[used++] = ',';
		list[used++] = *q;
	}
	list[used] = '\0';
	if (strstr(list, "none"))
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "compare: policy '%s': 'none' is not a switch here (name the policy mainline)",
				    label);
	base = *f;
	if (mpm_features_apply(list, f, err, sizeof(err)))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: policy '%s': %s%s", label, err,
				    MPM_ERR_CUT(err));
	valid = mpm_features_valid(*f);
	lost = *f & ~base & ~valid;	/* added, but what it needs is not there */
	if (lost) {
		const char *sw, *needs;

		/* @valid has every prerequisite: the one unmet is the added switch's */
		mpm_feature_unmet_dep(valid | (lost & -lost), &sw, &needs);
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: policy '%s': switch %s needs %s",
				    label, sw, needs);
	}
	*f = valid;
	return 0;
}

static int parse_policies(struct compare *c)
{
	const char *s = c->policies_s ? c->policies_s : "mainline";
	char *rest = c->policy_buf, *p;

	if (strlen(s) >= sizeof(c->policy_buf))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: policy list too long");
	strcpy(c->policy_buf, s);
	if (!*s)
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: empty policy list");
	while ((p = strsep(&rest, ","))) {
		unsigned long f;

		if (!*p)
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: empty policy name in '%s'", s);
		if (label_taken(c, p))
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: policy '%s' given twice", p);
		if (policy_variant_features(p, &f))
			return MPM_EXIT_FAIL;
		/* the same run twice: deterministic, so it would only cost time */
		for (unsigned int i = 0; i < c->nr_policies; i++)
			if (c->features[i] == f)
				return mpm_cli_fail(MPM_EXIT_FAIL,
						    "compare: policies '%s' and '%s' name one configuration",
						    c->policy[i], p);
		if (c->nr_policies == MAX_POLICIES)
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: at most %d policies",
					    MAX_POLICIES);
		c->base[c->nr_policies] = -1;
		c->features[c->nr_policies] = f;
		c->policy[c->nr_policies++] = p;
	}
	if (c->ablation)
		return add_ablation_variants(c);
	return 0;
}

/* --jobs N, 1..MAX_RUNS; by default as many as there are online CPUs. */
static int parse_jobs(struct compare *c)
{
	uint64_t v;
	long n;

	if (c->jobs_s) {
		if (mpm_parse_u64(c->jobs_s, &v) || v == 0 || v > MAX_RUNS)
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: --jobs %s (expected 1 to %d)",
					    c->jobs_s, MAX_RUNS);
		c->jobs = (unsigned int)v;
		return 0;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	c->jobs = n < 1 ? 1 : n > MAX_RUNS ? MAX_RUNS : (unsigned int)n;
	return 0;
}

/* --power a,b: each memspec prices the same runs */
static int parse_memspecs(struct compare *c)
{
	const char *s = c->power_s ? c->power_s : MPM_DEFAULT_MEMSPEC;
	char *rest = c->power_buf, *m, *given[MAX_MEMSPECS];

	if (strlen(s) >= sizeof(c->power_buf))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: --power list too long");
	strcpy(c->power_buf, s);
	if (!*s)
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: empty --power list");
	while ((m = strsep(&rest, ","))) {
		if (!*m)
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: empty memspec name in '%s'", s);
		if (c->nr_memspecs == MAX_MEMSPECS)
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: at most %d memspecs", MAX_MEMSPECS);
		if (mpm_cli_power_setup(m, c->power_policy_s, &c->memspec[c->nr_memspecs],
					&c->power_policy))
			return -1;
		/* the name labels each memspec's rows: two of one name are ambiguous */
		for (unsigned int i = 0; i < c->nr_memspecs; i++) {
			if (!strcmp(given[i], m))
				return mpm_cli_fail(MPM_EXIT_FAIL, "compare: memspec '%s' given twice",
						    m);
			if (!strcmp(c->memspec[i].name, c->memspec[c->nr_memspecs].name))
				return mpm_cli_fail(MPM_EXIT_FAIL,
						    "compare: memspecs '%s' and '%s' are both named '%s'",
						    given[i], m, c->memspec[i].name);
		}
		given[c->nr_memspecs++] = m;
	}
	return 0;
}

static int validate(struct compare *c)
{
	char *end;

	if (!c->experiment)
		return mpm_cli_fail(MPM_EXIT_USAGE, "compare: --experiment is required");
	if (strcmp(c->experiment, "cover-letter") && strcmp(c->experiment, "pagetest"))
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "compare: unknown experiment '%s' (expected cover-letter or pagetest)",
				    c->experiment);
	if (c->threshold_s && strcmp(c->threshold_s, "any")) {
		unsigned long long v;

		errno = 0;
		v = strtoull(c->threshold_s, &end, 10);
		/* the result JSON writes it as a signed 64-bit integer */
		if (!isdigit((unsigned char)c->threshold_s[0]) || errno || *end || v == 0 ||
		    v > INT64_MAX)
			return mpm_cli_fail(MPM_EXIT_FAIL,
					    "compare: malformed evacuation threshold '%s' (a page count from 1 to 2^63-1, or any)",
					    c->threshold_s);
		c->evac_threshold = v;
	} else if (c->threshold_s) {
		c->evac_threshold = UINT64_MAX;
	}
	c->scale = 1.0;
	if (c->scale_s) {
		/* decimal only: strtod would also take "0x1", " 1", "inf", "nan" */
		errno = 0;
		c->scale = strtod(c->scale_s, &end);
		if (c->scale_s[strspn(c->scale_s, "0123456789.eE+-")] || errno || *end ||
		    end == c->scale_s || !isfinite(c->scale))
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: malformed scale '%s'", c->scale_s);
		if (c->scale <= 0 || c->scale > 1)
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: scale %s is out of range (0, 1]",
					    c->scale_s);
		/* a node must keep at least one 512 MiB region */
		if (64.0 * c->scale < 0.5)
			return mpm_cli_fail(MPM_EXIT_FAIL,
					    "compare: scale %s leaves no 512 MiB region per node",
					    c->scale_s);
		/* given and ignored would look like a result at that scale */
		if (strcmp(c->experiment, "cover-letter"))
			return mpm_cli_fail(MPM_EXIT_FAIL,
					    "compare: --scale applies to the cover-letter experiment only");
	}
	c->seed = 1;
	if (c->seed_s && (mpm_parse_u64(c->seed_s, &c->seed) || c->seed > INT64_MAX))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: invalid seed '%s'", c->seed_s);
	if (c->jitter_s) {
		/*
		 * The workload key's own parser decides, so that compare takes
		 * exactly what ebizzy:jitter= takes; one value (no ',' that
		 * would add another key), 32 characters at most, as the run's
		 * workload string has room for.
		 */
		char key[64], err[128];
		struct mpm_workload w;
		bool bad = strlen(c->jitter_s) > 32 || strchr(c->jitter_s, ',');

		if (!bad) {
			snprintf(key, sizeof(key), "ebizzy:jitter=%s", c->jitter_s);
			bad = mpm_workload_parse(key, &w, err, sizeof(err)) != 0;
		}
		if (bad)
			return mpm_cli_fail(MPM_EXIT_FAIL,
					    "compare: jitter '%s' is malformed or out of range 0..%g",
					    c->jitter_s, MPM_EBIZZY_MAX_JITTER);
		c->jitter = w.ebizzy.jitter;
		if (strcmp(c->experiment, "cover-letter"))
			return mpm_cli_fail(MPM_EXIT_FAIL,
					    "compare: --jitter applies to the cover-letter experiment only");
	}
	if (parse_jobs(c))
		return MPM_EXIT_FAIL;
	if (c->thp_s) {
		if (strcmp(c->thp_s, "always") && strcmp(c->thp_s, "never"))
			return mpm_cli_fail(MPM_EXIT_FAIL, "compare: --thp %s (expected always or never)",
					    c->thp_s);
		c->thp = c->thp_s[0] == 'a';
	}
	if (c->sched_s && mpm_sched_parse(c->sched_s, &c->sched_cfs))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: --sched %s (expected rr or cfs)",
				    c->sched_s);
	if (c->zonelist_s && mpm_parse_zonelist_order(c->zonelist_s, &c->zonelist_order))
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "compare: --zonelist-order %s (expected default, node or zone)",
				    c->zonelist_s);
	if (parse_memspecs(c))
		return MPM_EXIT_FAIL;
	return parse_policies(c);
}

/* The machine of the experiment, with memblock's reservations. */
static int build_machine(struct compare *c, bool cover)
{
	uint64_t node_bytes = cover ? (uint64_t)llround(64.0 * c->scale * 1024) << 20 : 8ull << 30;
	unsigned int cpus = cover ? (unsigned int)llround(16 * c->scale) : 8;

	node_bytes &= ~((2ull << 20) - 1);
	if (mpm_spec_x86(&c->spec, cover ? 2 : 1, node_bytes, cover ? 0x80000 : 0xc0000))
		return mpm_cli_fail(MPM_EXIT_FAIL, "out of memory");
	c->spec.spec.nr_cpus = cpus ? cpus : 1;
	c->spec.spec.zonelist_order = c->zonelist_order;
	mpm_boot_reserve(&c->spec.spec, &c->reserve);
	c->spec.spec.khugepaged = c->thp;	/* set_recommended_min_free_kbytes */
	return 0;
}

/* The workload strings are built here from validated options: a parse error is a bug. */
static int add_run(struct compare *c, unsigned int p, const char *workload, double duration)
{
	struct mpm_run_config *cfg = &c->cfg[c->nr_runs];
	char err[256];

	snprintf(c->workload_str[c->nr_runs], sizeof(c->workload_str[0]), "%s%s%s", workload,
		 c->thp ? ",thp=always" : "", c->sched_cfs ? ",sched=cfs" : "");
	cfg->policy = c->policy[p];
	c->variant_of[c->nr_runs] = p;
	cfg->workload_str = c->workload_str[c->nr_runs];
	if (mpm_workload_parse(cfg->workload_str, &cfg->workload, err, sizeof(err)))
		return mpm_cli_fail(MPM_EXIT_FAIL, "compare: internal workload '%s': %s",
				    cfg->workload_str, err);
	cfg->duration = duration;
	cfg->seed = c->seed;
	cfg->boot_system = true;
	cfg->until_idle = true;
	cfg->check_samples = c->check;
	cfg->price_open = true;		/* closed over one window: close_pricing() */
	for (unsigned int m = 0; m < c->nr_memspecs; m++)
		cfg->pricing[m] = (struct mpm_power_pricing){ &c->memspec[m], &c->power_policy };
	cfg->nr_pricing = c->nr_memspecs;
	c->nr_runs++;
	return 0;
}

/*
 * The runs are independent -- each builds its own machine from its own copy
 * of the spec and draws from its own generator -- so they execute on worker
 * threads, one run per thread at a time, and the results are the same bytes
 * whatever --jobs is.  Progress (on a terminal only) shows every run's
 * virtual time on one line.
 */
struct executor {
	struct compare *c;
	pthread_mutex_t lock;
	unsigned int next;		/* the next run to start */
	int failed;			/* lowest failed run, or -1 */
	char err[640];
	double t[MAX_RUNS];		/* progress: virtual seconds, < 0 = not started */
	bool tty;
};

struct progress_arg {
	struct executor *ex;
	unsigned int run;
};

static void print_progress_locked(struct executor *ex)
{
	struct compare *c = ex->c;

	fputs("\r\033[Kmempower:", stderr);
	for (unsigned int i = 0; i < c->nr_runs; i++)
		if (ex->t[i] >= 0)
			fprintf(stderr, " %s t=%.0f", c->cfg[i].policy, ex->t[i]);
	fflush(stderr);
}

static void progress(void *arg, double t, double duration)
{
	struct progress_arg *pa = arg;

	(void)duration;
	pthread_mutex_lock(&pa->ex->lock);
	pa->ex->t[pa->run] = t;
	print_progress_locked(pa->ex);
	pthread_mutex_unlock(&pa->ex->lock);
}

static void set_run_switches(struct compare *c, unsigned int i)
{
	unsigned int v = c->variant_of[i];

	c->run_spec[i] = c->spec.spec;
	c->run_spec[i].features = c->features[v];
	c->run_spec[i].evac_threshold = c->threshold[v] ? c->threshold[v] : c->evac_threshold;
	c->cfg[i].spec = &c->run_spec[i];
}

static void execute_one(struct executor *ex, unsigned int i, struct progress_arg *pa)
{
	struct compare *c = ex->c;
	char err[512];
	int r;

	if (ex->tty) {
		pa->ex = ex;
		pa->run = i;
		c->cfg[i].progress = progress;
		c->cfg[i].progress_arg = pa;
	}
	r = mpm_run_execute(&c->cfg[i], &c->run[i], err, sizeof(err));
	pthread_mutex_lock(&ex->lock);
	ex->t[i] = -1;
	if (r && (ex->failed < 0 || (int)i < ex->failed)) {
		ex->failed = (int)i;
		snprintf(ex->err, sizeof(ex->err), "%s run: %s%s", c->cfg[i].policy, err,
			 MPM_ERR_CUT(err));
	}
	pthread_mutex_unlock(&ex->lock);
}

static void *execute_worker(void *arg)
{
	struct executor *ex = arg;
	struct progress_arg pa;

	for (;;) {
		unsigned int i;

		pthread_mutex_lock(&ex->lock);
		i = ex->next;
		/* after a failure start nothing new: the command fails anyway */
		if (i < ex->c->nr_runs && ex->failed < 0) {
			ex->next++;
			ex->t[i] = 0;
		} else {
			i = UINT32_MAX;
		}
		pthread_mutex_unlock(&ex->lock);
		if (i == UINT32_MAX)
			return NULL;
		execute_one(ex, i, &pa);
	}
}

static int execute(struct compare *c)
{
	struct executor *ex;
	pthread_t tid[MAX_RUNS];
	unsigned int n = c->jobs < c->nr_runs ? c->jobs : c->nr_runs, started = 0;
	uint64_t table_limit;
	int r = 0;

	/* no more machines at once than the memory holds: results do not change */
	if (mpm_cli_runs_that_fit("compare", &c->spec.spec, n, &n, &table_limit))
		return MPM_EXIT_FAIL;
	ex = calloc(1, sizeof(*ex));
	if (!ex)
		return mpm_cli_fail(MPM_EXIT_FAIL, "out of memory");
	ex->c = c;
	ex->failed = -1;
	ex->tty = isatty(2);
	pthread_mutex_init(&ex->lock, NULL);
	for (unsigned int i = 0; i < c->nr_runs; i++) {
		ex->t[i] = -1;
		set_run_switches(c, i);
		c->cfg[i].table_limit = table_limit;
	}
	/* the calling thread is one of the workers */
	while (started + 1 < n && !pthread_create(&tid[started], NULL, execute_worker, ex))
		started++;
	execute_worker(ex);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (ex->tty)
		fputs("\r\033[K", stderr);
	if (ex->failed >= 0)
		r = mpm_cli_fail_err(ex->err);
	pthread_mutex_destroy(&ex->lock);
	free(ex);
	return r;
}

/*
 * What the patchset's mails reported for the ebizzy run, per stage: v4's
 * results mail for mainline (3.12-rc2) and full; v3's cover letter for
 * split (its own mainline run went 242 -> 18); v2 published no such run.
 */
static const char *published_figure(const char *policy)
{
	if (!strcmp(policy, "mainline"))
		return "214 -> 8 (3.12-rc2)";
	if (!strcmp(policy, "split"))
		return "238 -> 121 (v3)";
	if (!strcmp(policy, "full"))
		return "210 -> 202 (v4)";
	if (!strcmp(policy, "sorted"))
		return "- (v2: none)";
	return "-";		/* a variant the patchset never ran */
}

/* The policy column: as wide as the longest label ("full+evac_drain"), at least 10. */
static int label_width(const struct compare *c)
{
	size_t w = 10;

	for (unsigned int i = 0; i < c->nr_runs; i++)
		if (strlen(c->cfg[i].policy) > w)
			w = strlen(c->cfg[i].policy);
	return (int)w;
}

static void print_cover_table(struct compare *c, FILE *out)
{
	int w = label_width(c);

	/* the workload string names thp=always when it is on */
	fprintf(out, "cover-letter experiment, scale %g: %u nodes, %.1f GiB, %u cpus, %s%s\n",
		c->scale, mpm_nr_nodes(c->run[0].m),
		(double)mpm_total_pages(c->run[0].m) / (1 << 18), mpm_nr_cpus(c->run[0].m),
		c->workload_str[0], c->thp ? "" : ", thp=never");
	fprintf(out, "%-*s %6s %6s %6s %7s %6s %9s %9s %5s %5s   %s\n", w, "policy", "start", "end",
		"min", "regions", "ideal", "pack.min", "pack.mean", "mixed", "oom",
		"published (start -> end)");
	for (unsigned int i = 0; i < c->nr_runs; i++) {
		const struct mpm_run *r = &c->run[i];
		const struct mpm_sample *last = &r->samples[r->nr_samples - 1];

		fprintf(out, "%-*s %6u %6u %6u %7u %6u %9.3f %9.3f %5u %5llu   %s\n",
			w, c->cfg[i].policy, r->free_regions_start, r->free_regions_end,
			r->free_regions_min, r->regions_total, last->ideal_free_regions,
			r->packing_min, r->packing_mean, last->mixed_regions,
			(unsigned long long)r->k->c.oom_kills,
			c->base[c->variant_of[i]] < 0 ? published_figure(c->cfg[i].policy) : "-");
	}
	for (unsigned int i = 0; i < c->nr_runs; i++) {
		const struct mpm_run *r = &c->run[i];
		double cpu_s = (double)r->k->c.kmempowerd_ns / 1e9;

		if (!(r->features & MPM_FEATURE_EVACUATION))
			continue;
		/* the cost of evacuation: pages moved and kmempowerd's share of the CPUs */
		fprintf(out, "%s: %llu regions queued, %llu passed over (%llu free, %llu over the "
			"threshold by then), %llu evacuations (%llu aborted), %llu pages "
			"migrated (%.1f MiB copied), %llu reclaimed, %llu failed; kmempowerd %.3f CPU s "
			"= %.4f %% of %u CPUs x %.0f s", c->cfg[i].policy,
			(unsigned long long)r->counters.evac_queued,
			(unsigned long long)(r->k->c.evac_skipped_free + r->k->c.evac_skipped_used),
			(unsigned long long)r->k->c.evac_skipped_free,
			(unsigned long long)r->k->c.evac_skipped_used,
			(unsigned long long)r->counters.evacuations,
			(unsigned long long)r->counters.evac_aborted,
			(unsigned long long)r->counters.migrated,
			(double)r->counters.migrated * 4096 / (1 << 20),
			(unsigned long long)r->counters.reclaimed,
			(unsigned long long)r->counters.migrate_failed, cpu_s,
			100.0 * cpu_s / (r->end_t * mpm_nr_cpus(r->m)), mpm_nr_cpus(r->m), r->end_t);
		if (r->features & MPM_FEATURE_EVAC_DRAIN)
			fprintf(out, "; evac_drain returned %llu pcp pages to the buddy lists",
				(unsigned long long)r->k->c.evac_drained);
		fputc('\n', out);
	}
	for (unsigned int i = 0; i < c->nr_runs; i++) {
		const struct mpm_run *r = &c->run[i];

		fprintf(out, "\n%s, free regions each second:\n", c->cfg[i].policy);
		for (size_t s = 0; s < r->nr_samples; s++)
			fprintf(out, "%u%s", r->samples[s].free_regions,
				(s + 1) % 20 == 0 || s + 1 == r->nr_samples ? "\n" : " ");
	}
}

/*
 * The runs of a cover-letter comparison do the same work, and some finish
 * seconds after the others (kmempowerd's CPU time, another interleaving:
 * docs/power-model.md, "One window").  Each is priced over the same
 * window, the longest run's, the shorter ones idle at their end state for
 * the rest: energy and average power then compare like with like.
 * pagetest's runs are different work, each priced over its own length.
 */
static void close_pricing(struct compare *c, bool cover)
{
	double window = 0;

	for (unsigned int i = 0; cover && i < c->nr_runs; i++)
		window = fmax(window, c->run[i].end_t);
	for (unsigned int i = 0; i < c->nr_runs; i++)
		mpm_run_price_close(&c->run[i], cover ? window : c->run[i].end_t);
}

/* Every run was priced per memspec over one window; the savings against mainline. */
static int price(struct compare *c)
{
	int base = -1;

	c->system_w = mpm_cli_system_w(&c->power_policy, c->run[0].m);
	for (unsigned int i = 0; i < c->nr_runs; i++)
		if (base < 0 && !strcmp(c->cfg[i].policy, "mainline"))
			base = (int)i;
	/* pagetest's runs are different sizes: no saving across them */
	if (base < 0 || c->nr_runs != c->nr_policies)
		return 0;
	for (unsigned int m = 0; m < c->nr_memspecs; m++)
		for (unsigned int i = 0; i < c->nr_runs; i++)
			mpm_power_saving(&c->run[base].power[m], &c->run[i].power[m], c->system_w,
					 &c->saving[m * c->nr_runs + i]);
	return 0;
}

static double pct_of(const struct mpm_power_result *p, int state)
{
	double t = p->duration_s * (p->nr_domains ? p->nr_domains : 1);

	return t > 0 ? 100 * p->state_s[state] / t : 0;
}

/*
 * Arjan van de Ven: statistical grouping gets 95 %+ of the savings.  A
 * share of a saving below the table's resolution (0.1 mW) would be a ratio
 * of rounding noise, so none is printed then.
 */
#define SHARE_MIN_W	1e-4

static void print_share_of_full(struct compare *c, const struct mpm_power_saving *sv, int full,
				FILE *out)
{
	if (full < 0 || !sv[full].valid)
		return;
	if (sv[full].saving_w < SHARE_MIN_W) {
		fprintf(out, "share of full's saving (Arjan's 95 %%+ claim): none, full saves "
			"%.4f W, not more than 0.1 mW\n", sv[full].saving_w);
		return;
	}
	fprintf(out, "share of full's saving (Arjan's 95 %%+ claim):");
	for (unsigned int i = 0; i < c->nr_runs; i++) {
		if (c->base[c->variant_of[i]] >= 0 || (int)i == full ||
		    !strcmp(c->cfg[i].policy, "mainline"))
			continue;
		fprintf(out, " %s %.1f %%", c->cfg[i].policy,
			100 * sv[i].saving_w / sv[full].saving_w);
		if (sv[full].net_w >= SHARE_MIN_W)
			fprintf(out, " (net %.1f %%)", 100 * sv[i].net_w / sv[full].net_w);
	}
	fputc('\n', out);
}

/*
 * by_use for one memspec: where each run's self-refresh time was spent,
 * by what its domains held in each interval (docs/power-model.md).
 */
static void print_by_use(struct compare *c, unsigned int m, int w, FILE *out)
{
	fprintf(out, "domain-seconds by interval (free: no page, idle: pages but no access, "
		"touched: any access), and the touched ones' self-refresh\n");
	fprintf(out, "%-*s %10s %10s %10s %10s %9s\n", w, "policy", "free", "idle", "touched",
		"touched sr", "of it sr%");
	for (unsigned int i = 0; i < c->nr_runs; i++) {
		const struct mpm_power_result *p = &c->run[i].power[m];
		double t = p->use_s[MPM_USE_TOUCHED];

		fprintf(out, "%-*s %10.1f %10.1f %10.1f %10.1f %9.1f\n", w, c->cfg[i].policy,
			p->use_s[MPM_USE_FREE], p->use_s[MPM_USE_IDLE], t,
			p->use_sr_s[MPM_USE_TOUCHED],
			t > 0 ? 100 * p->use_sr_s[MPM_USE_TOUCHED] / t : 0);
	}
}

/* The window every run was priced over, where some ended before it. */
static void print_window(struct compare *c, unsigned int m, FILE *out)
{
	const char *sep = "";

	for (unsigned int i = 0; i < c->nr_runs; i++) {
		const struct mpm_power_result *p = &c->run[i].power[m];

		if (!(p->tail_s > 0))
			continue;
		if (!*sep)
			fprintf(out, "every run priced over %.0f s, the longest run's; idle at its "
				"end state after it ended:", p->duration_s);
		fprintf(out, "%s %s %.0f s", sep, c->cfg[i].policy, p->tail_s);
		sep = ",";
	}
	if (*sep)
		fputc('\n', out);
}

/* compare's answer to "how much power was saved": one table per memspec */
static void print_power_table(struct compare *c, FILE *out)
{
	int w = label_width(c);

	for (unsigned int m = 0; m < c->nr_memspecs; m++) {
		const struct mpm_power_result *p0 = &c->run[0].power[m];
		const struct mpm_power_saving *sv = &c->saving[m * c->nr_runs];
		int full = -1;
		char pd[32] = "never", sr[32] = "never";

		if (isfinite(p0->pd_after_s))
			snprintf(pd, sizeof(pd), "after %.0f ns", p0->pd_after_s * 1e9);
		if (isfinite(p0->sr_after_s))
			snprintf(sr, sizeof(sr), "after %.1f us", p0->sr_after_s * 1e6);
		double devices = 0;

		/* a whole domain's devices: the last one may be cut short by the node's end */
		for (unsigned int d = 0; d < p0->nr_domains; d++)
			devices = fmax(devices, p0->domains[d].devices);
		fprintf(out, "\nDRAM power, memspec %s (%s): %u domains of up to %.3g devices; idle "
			"power-down %s, self-refresh %s%s; system %.1f W (stated)\n",
			c->memspec[m].name, c->memspec[m].source, p0->nr_domains,
			devices, pd, sr,
			c->power_policy.poweroff ? ", power-off when empty" : "", c->system_w);
		print_window(c, m, out);
		fprintf(out, "%-*s %10s %8s %6s %6s %6s %6s %9s %8s %9s %9s %8s %8s\n", w, "policy",
			"DRAM J", "avg W", "sr%", "pd%", "stby%", "off%", "saving W", "saving%",
			"migr. J", "kmpd J", "net W", "net/sys%");
		for (unsigned int i = 0; i < c->nr_runs; i++) {
			const struct mpm_power_result *p = &c->run[i].power[m];

			if (!strcmp(c->cfg[i].policy, "full"))
				full = (int)i;
			fprintf(out, "%-*s %10.1f %8.3f %6.1f %6.1f %6.1f %6.1f", w, c->cfg[i].policy,
				p->dram_j, p->dram_avg_w, pct_of(p, MPM_PS_SR), pct_of(p, MPM_PS_PRE_PD),
				pct_of(p, MPM_PS_PRE_STBY) + pct_of(p, MPM_PS_ACT_STBY),
				pct_of(p, MPM_PS_OFF));
			if (sv[i].valid)
				fprintf(out, " %9.4f %8.3f %9.4f %9.3f %8.4f %8.3f\n", sv[i].saving_w,
					sv[i].saving_pct, p->migration_j, p->kmempowerd_cpu_j,
					sv[i].net_w, 100 * sv[i].system_share);
			else
				fprintf(out, " %9s %8s %9.4f %9.3f %8s %8s\n", "-", "-", p->migration_j,
					p->kmempowerd_cpu_j, "-", "-");
		}
		print_share_of_full(c, sv, full, out);
		print_by_use(c, m, w, out);
	}
}

static void print_pagetest_table(struct compare *c, FILE *out)
{
	for (unsigned int p = 0; p < c->nr_policies; p++) {
		const struct mpm_run *r0 = &c->run[p * 3];

		fprintf(out, "%spagetest, %s: free pages per region after touching\n",
			p ? "\n" : "", c->policy[p]);
		fprintf(out, "%-5s %-6s %8s %8s %8s %8s\n", "zone", "region", "present",
			"512M", "1024M", "2048M");
		for (unsigned int z = 0; z < mpm_nr_zones(r0->m); z++) {
			struct mpm_zone_info zi;

			mpm_zone_info(r0->m, z, &zi);
			for (unsigned int rg = 0; rg < zi.nr_regions; rg++) {
				struct mpm_region_info ri;

				mpm_region_info(r0->m, z, rg, &ri);
				fprintf(out, "%-5s %6u %8llu", zi.name, rg, (unsigned long long)ri.present);
				for (unsigned int s = 0; s < 3; s++) {
					mpm_region_info(c->run[p * 3 + s].m, z, rg, &ri);
					fprintf(out, " %8llu", (unsigned long long)ri.nr_free);
				}
				fputc('\n', out);
			}
		}
	}
}

static int write_csv(struct compare *c)
{
	fputs("policy,workload,t,free_regions,ideal_free_regions,used_pages,pcp_pages,cached_pages\n",
	      c->csv_out.f);
	for (unsigned int i = 0; i < c->nr_runs; i++)
		for (size_t s = 0; s < c->run[i].nr_samples; s++) {
			const struct mpm_sample *x = &c->run[i].samples[s];

			/* the workload string has commas: quote it (RFC 4180) */
			fprintf(c->csv_out.f, "%s,\"%s\",%.0f,%u,%u,%llu,%llu,%llu\n", c->cfg[i].policy,
				c->workload_str[i], x->t, x->free_regions, x->ideal_free_regions,
				(unsigned long long)x->used_pages, (unsigned long long)x->pcp_pages,
				(unsigned long long)x->cached_pages);
		}
	return fflush(c->csv_out.f) ? -1 : 0;
}

/*
 * --ablation: each switch's contribution = the policy's figure less the
 * figure of the policy without that switch.  cover-letter: free regions at
 * the end and the minimum; pagetest: free regions after each size.
 */
/* One row of the ablation table: variant @v against its base policy. */
static void print_ablation_row(struct compare *c, bool cover, unsigned int v, int w, FILE *out)
{
	unsigned int per = cover ? 1 : 3;
	unsigned int bv = c->base[v] < 0 ? v : (unsigned int)c->base[v];
	const struct mpm_run *r = &c->run[v * per], *b = &c->run[bv * per];
	char sw[160];

	mpm_features_string(c->features[v], sw, sizeof(sw));
	if (cover)
		fprintf(out, "%-*s %6u %6u %+8d %+8d  %s\n", w, c->policy[v],
			r->free_regions_end, r->free_regions_min,
			(int)b->free_regions_end - (int)r->free_regions_end,
			(int)b->free_regions_min - (int)r->free_regions_min, sw[0] ? sw : "-");
	else
		fprintf(out, "%-*s %6u %6u %6u %+8d %+8d %+8d  %s\n", w, c->policy[v],
			r[0].free_regions_end, r[1].free_regions_end, r[2].free_regions_end,
			(int)b[0].free_regions_end - (int)r[0].free_regions_end,
			(int)b[1].free_regions_end - (int)r[1].free_regions_end,
			(int)b[2].free_regions_end - (int)r[2].free_regions_end,
			sw[0] ? sw : "-");
}

/*
 * A table per policy given: its own row, then each of its variants (which
 * add_ablation_variants() appends after every policy given, by switch and
 * then by threshold, so a policy's rows are gathered here by their base).
 */
static void print_ablation(struct compare *c, bool cover, FILE *out)
{
	int w = label_width(c);

	if (w < 30)
		w = 30;
	for (unsigned int p = 0; p < c->nr_policies; p++) {
		if (c->base[p] >= 0)
			continue;
		fprintf(out, "\nablation of %s: free regions, and the switch's contribution "
			"(%s minus %s less the switch)\n", c->policy[p], c->policy[p], c->policy[p]);
		fprintf(out, cover ? "%-*s %6s %6s %8s %8s  %s\n" :
			"%-*s %6s %6s %6s %8s %8s %8s  %s\n", w, "variant",
			cover ? "end" : "512M", cover ? "min" : "1024M",
			cover ? "+end" : "2048M", cover ? "+min" : "+512M",
			cover ? "switches" : "+1024M", "+2048M", "switches");
		print_ablation_row(c, cover, p, w, out);
		for (unsigned int v = 0; v < c->nr_policies; v++)
			if (c->base[v] == (int)p)
				print_ablation_row(c, cover, v, w, out);
	}
}

static int finish(struct compare *c, bool cover)
{
	struct mpm_result_input in = {
		.machine = cover ? "sandybridge-128g (scaled)" : "8G",
		.spec = &c->spec, .runs = c->run, .nr_runs = c->nr_runs, .with_host = true,
		.saving = c->saving,
	};
	char err[256];

	/* "-", or a name for the file stdout writes (output.c): that file alone */
	if (c->json_out.f != stdout && c->csv_out.f != stdout) {
		if (cover) {
			print_cover_table(c, stdout);
			print_power_table(c, stdout);
		} else
			print_pagetest_table(c, stdout);
		if (c->ablation)
			print_ablation(c, cover, stdout);
		/* the tables are the answer: a full disk or a closed pipe fails */
		if (!mpm_cli_stdout_written())
			return mpm_cli_fail(MPM_EXIT_FAIL, "cannot write the outputs: %s",
					    strerror(errno ? errno : EIO));
	}
	if (mpm_cli_output_start(&c->json_out) || mpm_cli_output_start(&c->csv_out))
		return MPM_EXIT_FAIL;
	if (c->json_out.f && mpm_result_write_json(c->json_out.f, &in, err, sizeof(err)))
		return mpm_cli_fail_err(err);
	if (c->csv_out.f && write_csv(c))
		return mpm_cli_fail(MPM_EXIT_FAIL, "cannot write CSV file '%s'", c->csv);
	return 0;
}

int mpm_cmd_compare(int argc, char **argv)
{
	struct compare *c = calloc(1, sizeof(*c));
	bool cover;
	int r;

	if (!c)
		return mpm_cli_fail(MPM_EXIT_FAIL, "out of memory");
	r = parse_args(argc, argv, c);
	if (!r && c->help) {
		usage(stdout);
		goto out;
	}
	if (r || (r = validate(c)) ||
	    (r = mpm_cli_outputs_open(&c->json_out, c->json, &c->csv_out, c->csv)))
		goto out;
	cover = !strcmp(c->experiment, "cover-letter");
	if ((r = build_machine(c, cover)))
		goto out;
	for (unsigned int p = 0; p < c->nr_policies; p++) {
		if (cover) {
			char w[112], jitter[48] = "";

			/* the string as given (validate()), so the JSON's workload shows it */
			if (c->jitter > 0)
				snprintf(jitter, sizeof(jitter), ",jitter=%s", c->jitter_s);
			snprintf(w, sizeof(w), "ebizzy:s=256M,n=2,t=32,S=60,instances=%lld%s",
				 llround(20 * c->scale) ? llround(20 * c->scale) : 1, jitter);
			r = add_run(c, p, w, 60 + 600);
		} else {
			r = add_run(c, p, "pagetest:size=512M,hold=1", 3);
			if (!r)
				r = add_run(c, p, "pagetest:size=1G,hold=1", 3);
			if (!r)
				r = add_run(c, p, "pagetest:size=2G,hold=1", 3);
		}
		if (r)
			goto out;
	}
	for (unsigned int i = 0; i < c->nr_runs; i++)
		c->cfg[i].until_idle = cover;
	r = execute(c);
	if (!r) {
		close_pricing(c, cover);
		r = price(c);
	}
	if (!r)
		r = finish(c, cover);
out:
	for (unsigned int i = 0; i < c->nr_runs; i++)
		mpm_run_fini(&c->run[i]);
	/* on failure, remove only the files this command created */
	if ((mpm_output_close(&c->json_out, r != 0) | mpm_output_close(&c->csv_out, r != 0)) &&
	    !r)
		r = mpm_cli_fail(MPM_EXIT_FAIL, "cannot write the outputs: %s", strerror(errno));
	mpm_spec_buf_free(&c->spec);
	free(c);
	return r;
}
