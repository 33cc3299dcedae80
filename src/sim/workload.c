// SPDX-License-Identifier: MIT
#include "sim/workload.h"
#include "sim/size.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mempower/machine.h>

#include "io/argv.h"

static const struct mpm_churn_params churn_defaults = {
	.occupancy = 0.6,
	.ops = 0,
	.maxorder = MPM_MAX_ORDER - 1,
	.movable = 0.7,
	.reclaimable = 0.1,
};

/* A plain finite decimal: no blanks, no hex, no inf/nan. */
static int parse_double(const char *s, double *out)
{
	char *end;

	if (!*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -1;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.' && *p != 'e' &&
		    *p != 'E' && *p != '-' && *p != '+')
			return -1;
	*out = strtod(s, &end);
	return (*end || !isfinite(*out)) ? -1 : 0;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

static int churn_key(struct mpm_churn_params *p, const char *key,
		     const char *val, char *err, size_t errlen)
{
	uint64_t u;

	if (!strcmp(key, "occupancy")) {
		if (parse_double(val, &p->occupancy))
			goto malformed;
		if (!(p->occupancy > 0 && p->occupancy <= 0.95))
			goto range;
	} else if (!strcmp(key, "ops")) {
		if (parse_uint(val, 1000000000, &u))
			goto malformed;
		if (!u)
			goto range;
		p->ops = u;
	} else if (!strcmp(key, "maxorder")) {
		if (parse_uint(val, 1000, &u))
			goto malformed;
		if (u > MPM_MAX_ORDER - 1)
			goto range;
		p->maxorder = (unsigned int)u;
	} else if (!strcmp(key, "movable") || !strcmp(key, "reclaimable")) {
		double *d = key[0] == 'm' ? &p->movable : &p->reclaimable;

		if (parse_double(val, d))
			goto malformed;
		if (!(*d >= 0 && *d <= 1))
			goto range;
	} else {
		snprintf(err, errlen,
			 "workload churn: unknown key '%s' (expected occupancy, ops, maxorder, movable, reclaimable)",
			 key);
		return -1;
	}
	return 0;
malformed:
	snprintf(err, errlen, "workload churn: malformed value '%s' for %s", val, key);
	return -1;
range:
	snprintf(err, errlen,
		 "workload churn: %s=%s is out of range (occupancy (0,0.95], ops 1..1e9, maxorder 0..10, shares 0..1)",
		 key, val);
	return -1;
}

/*
 * Bytes written as every size on the command line is (sim/size.h: K, M, G,
 * T or P, binary, with an optional B or iB, any case): whole pages, from
 * one page up to @max.
 */
/*
 * A size parameter: whole pages, 4K up to @max, or 0 in any spelling
 * where @zero_ok (@range spells what is allowed), into *@out.
 */
static int size_key(const char *name, const char *key, const char *val, uint64_t max,
		    bool zero_ok, const char *range, uint64_t *out, char *err, size_t errlen)
{
	char why[128];
	uint64_t v;
	int r;

	r = mpm_parse_size(val, &v, why, sizeof(why));
	if (r == -1) {
		snprintf(err, errlen, "workload %s: %s=%s is a malformed size (%s)", name, key, val,
			 range);
		return -1;
	}
	if (r == 0 && zero_ok && v == 0) {
		*out = 0;
		return 0;
	}
	if (r || v < MPM_PAGE_SIZE || v > max || v % MPM_PAGE_SIZE) {
		snprintf(err, errlen, "workload %s: %s=%s is %s (%s)", name, key, val,
			 !r && v % MPM_PAGE_SIZE && v > MPM_PAGE_SIZE && v <= max ?
			 "not a whole number of 4K pages" : "out of range", range);
		return -1;
	}
	*out = v;
	return 0;
}

static int uint_key(const char *name, const char *key, const char *val, uint64_t lo,
		    uint64_t hi, unsigned int *out, char *err, size_t errlen)
{
	uint64_t u;

	if (parse_uint(val, 1000000000, &u) || u < lo || u > hi) {
		snprintf(err, errlen, "workload %s: %s=%s is malformed or out of range %llu..%llu",
			 name, key, val, (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*out = (unsigned int)u;
	return 0;
}

static int thp_key(const char *name, const char *val, bool *thp, char *err, size_t errlen)
{
	if (!strcmp(val, "always") || !strcmp(val, "never")) {
		*thp = val[0] == 'a';
		return 0;
	}
	snprintf(err, errlen, "workload %s: thp=%s (expected always or never)", name, val);
	return -1;
}

int mpm_sched_parse(const char *val, bool *cfs)
{
	if (strcmp(val, "rr") && strcmp(val, "cfs"))
		return -1;
	*cfs = val[0] == 'c';
	return 0;
}

/* sched=rr|cfs, taken by every kernel-model workload: whose turn it is (sched.c). */
static int sched_key(const char *name, const char *val, bool *cfs, char *err, size_t errlen)
{
	if (!mpm_sched_parse(val, cfs))
		return 0;
	snprintf(err, errlen, "workload %s: sched=%s (expected rr or cfs)", name, val);
	return -1;
}

static int ebizzy_key(struct mpm_workload *w, const char *key, const char *val,
		      char *err, size_t errlen)
{
	struct mpm_ebizzy_wl *e = &w->ebizzy;

	if (!strcmp(key, "s")) {
		return size_key("ebizzy", "s", val, 1ull << 34, false, "4K..16G", &e->size, err,
				errlen);
	}
	if (!strcmp(key, "n"))
		return uint_key("ebizzy", key, val, 1, 16, &e->chunks, err, errlen);
	if (!strcmp(key, "t"))
		return uint_key("ebizzy", key, val, 1, 1024, &e->threads, err, errlen);
	if (!strcmp(key, "S"))
		return uint_key("ebizzy", key, val, 1, 86400, &e->seconds, err, errlen);
	if (!strcmp(key, "instances"))
		return uint_key("ebizzy", key, val, 1, 1000, &e->instances, err, errlen);
	if (!strcmp(key, "thp"))
		return thp_key("ebizzy", val, &w->thp, err, errlen);
	if (!strcmp(key, "sched"))
		return sched_key("ebizzy", val, &w->sched_cfs, err, errlen);
	if (!strcmp(key, "jitter")) {
		if (parse_double(val, &e->jitter) || e->jitter < 0 || e->jitter > MPM_EBIZZY_MAX_JITTER) {
			snprintf(err, errlen, "workload ebizzy: jitter=%s is malformed or out of range 0..%g",
				 val, MPM_EBIZZY_MAX_JITTER);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen,
		 "workload ebizzy: unknown key '%s' (expected s, n, t, S, instances, thp, sched, jitter)", key);
	return -1;
}

static int pagetest_key(struct mpm_workload *w, const char *key, const char *val,
			char *err, size_t errlen)
{
	struct mpm_pagetest_wl *t = &w->pagetest;
	unsigned int f;

	if (!strcmp(key, "size")) {
		/* 2^31 pages at most: the mapping's page counts are 32-bit (mm.c) */
		return size_key("pagetest", "size", val, 1ull << 43, false, "4K..8T", &t->size, err,
				errlen);
	}
	if (!strcmp(key, "free")) {
		if (uint_key("pagetest", key, val, 0, 1, &f, err, errlen))
			return -1;
		t->free = f;
		return 0;
	}
	if (!strcmp(key, "hold"))
		return uint_key("pagetest", key, val, 0, 86400, &t->hold, err, errlen);
	if (!strcmp(key, "thp"))
		return thp_key("pagetest", val, &w->thp, err, errlen);
	if (!strcmp(key, "sched"))
		return sched_key("pagetest", val, &w->sched_cfs, err, errlen);
	snprintf(err, errlen, "workload pagetest: unknown key '%s' (expected size, free, hold, thp, sched)",
		 key);
	return -1;
}

static int kernbench_key(struct mpm_workload *w, const char *key, const char *val,
			 char *err, size_t errlen)
{
	struct mpm_kernbench_wl *b = &w->kernbench;
	unsigned int f;

	if (!strcmp(key, "jobs"))
		return uint_key("kernbench", key, val, 0, 4096, &b->jobs, err, errlen);
	if (!strcmp(key, "files"))
		return uint_key("kernbench", key, val, 1, 1000000, &b->files, err, errlen);
	if (!strcmp(key, "headers"))
		return uint_key("kernbench", key, val, 1, 1000000, &b->headers, err, errlen);
	if (!strcmp(key, "includes"))
		return uint_key("kernbench", key, val, 0, 10000, &b->includes, err, errlen);
	if (!strcmp(key, "cpu"))
		return uint_key("kernbench", key, val, 0, 3600000, &b->cpu_ms, err, errlen);
	if (!strcmp(key, "heap")) {
		return size_key("kernbench", "heap", val, 1ull << 32, false, "4K..4G", &b->heap, err,
				errlen);
	}
	if (!strcmp(key, "prime")) {
		if (uint_key("kernbench", key, val, 0, 1, &f, err, errlen))
			return -1;
		b->prime = f;
		return 0;
	}
	if (!strcmp(key, "thp"))
		return thp_key("kernbench", val, &w->thp, err, errlen);
	if (!strcmp(key, "sched"))
		return sched_key("kernbench", val, &w->sched_cfs, err, errlen);
	snprintf(err, errlen,
		 "workload kernbench: unknown key '%s' (expected jobs, files, headers, includes, heap, cpu, prime, thp, sched)",
		 key);
	return -1;
}

static int pagecache_key(struct mpm_workload *w, const char *key, const char *val,
			 char *err, size_t errlen)
{
	struct mpm_pagecache_wl *c = &w->pagecache;

	if (!strcmp(key, "size")) {
		/* 0 = from the machine; otherwise a page count that fits a kfile */
		return size_key("pagecache", "size", val, 1ull << 42, true, "0, or 4K..4T", &c->size,
				err, errlen);
	}
	if (!strcmp(key, "files"))
		return uint_key("pagecache", key, val, 1, 64, &c->files, err, errlen);
	if (!strcmp(key, "passes"))
		return uint_key("pagecache", key, val, 1, 1000, &c->passes, err, errlen);
	if (!strcmp(key, "sched"))
		return sched_key("pagecache", val, &w->sched_cfs, err, errlen);
	snprintf(err, errlen, "workload pagecache: unknown key '%s' (expected size, files, passes, sched)",
		 key);
	return -1;
}

static int parse_params(const char *name, char *params, struct mpm_workload *w,
			char *err, size_t errlen)
{
	struct mpm_keys seen = { .nr = 0 };
	char *save = NULL;

	for (char *kv = strtok_r(params, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq || eq == kv) {
			snprintf(err, errlen, "workload %s: malformed parameter '%s' (expected key=value)",
				 name, kv);
			return -1;
		}
		*eq = '\0';
		if (w->kind == MPM_WORKLOAD_NONE) {
			snprintf(err, errlen, "workload none: unknown key '%s' (it takes none)", kv);
			return -1;
		}
		if (mpm_key_repeated(&seen, kv)) {
			snprintf(err, errlen, "workload %s: key '%s' given twice", name, kv);
			return -1;
		}
		if (w->kind == MPM_WORKLOAD_CHURN && churn_key(&w->churn, kv, eq + 1, err, errlen))
			return -1;
		if (w->kind == MPM_WORKLOAD_EBIZZY && ebizzy_key(w, kv, eq + 1, err, errlen))
			return -1;
		if (w->kind == MPM_WORKLOAD_PAGETEST && pagetest_key(w, kv, eq + 1, err, errlen))
			return -1;
		if (w->kind == MPM_WORKLOAD_KERNBENCH && kernbench_key(w, kv, eq + 1, err, errlen))
			return -1;
		if (w->kind == MPM_WORKLOAD_PAGECACHE && pagecache_key(w, kv, eq + 1, err, errlen))
			return -1;
	}
	return 0;
}

int mpm_workload_parse(const char *s, struct mpm_workload *w,
		       char *err, size_t errlen)
{
	char buf[256], *colon;
	size_t n = strlen(s);
	int r;

	if (n >= sizeof(buf)) {
		snprintf(err, errlen, "workload string too long");
		return -1;
	}
	memcpy(buf, s, n + 1);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	memset(w, 0, sizeof(*w));
	if (!strcmp(buf, "none")) {
		w->kind = MPM_WORKLOAD_NONE;
	} else if (!strcmp(buf, "churn")) {
		w->kind = MPM_WORKLOAD_CHURN;
		w->churn = churn_defaults;
	} else if (!strcmp(buf, "ebizzy")) {
		w->kind = MPM_WORKLOAD_EBIZZY;
		w->ebizzy = (struct mpm_ebizzy_wl){ 256ull << 20, 2, 32, 60, 1, 0 };
	} else if (!strcmp(buf, "pagetest")) {
		w->kind = MPM_WORKLOAD_PAGETEST;
		w->pagetest = (struct mpm_pagetest_wl){ 512ull << 20, false, 1 };
	} else if (!strcmp(buf, "kernbench")) {
		/* defaults and their sources: docs/sim-parameters.md section 9 */
		w->kind = MPM_WORKLOAD_KERNBENCH;
		w->kernbench = (struct mpm_kernbench_wl){ 0, 19264, 15905, 300, 48ull << 20,
							  570, true };
	} else if (!strcmp(buf, "pagecache")) {
		w->kind = MPM_WORKLOAD_PAGECACHE;
		w->pagecache = (struct mpm_pagecache_wl){ 0, 1, 2 };
	} else {
		snprintf(err, errlen, "unknown workload '%s' (expected %s)", buf,
			 MPM_WORKLOAD_NAMES);
		return -1;
	}
	if (colon) {
		/* "churn:" or "churn:a=1,,b=2" are typos, not defaults. */
		if (!colon[1] || colon[1] == ',' || strstr(colon + 1, ",,") || colon[strlen(colon + 1)] == ',') {
			snprintf(err, errlen, "workload %s: malformed parameter list '%s'",
				 buf, colon + 1);
			return -1;
		}
		r = parse_params(buf, colon + 1, w, err, errlen);
		if (r)
			return r;
	}
	if (w->kind == MPM_WORKLOAD_CHURN &&
	    w->churn.movable + w->churn.reclaimable > 1.0) {
		snprintf(err, errlen, "workload churn: movable + reclaimable exceeds 1");
		return -1;
	}
	return 0;
}
