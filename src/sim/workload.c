// SPDX-License-Identifier: MIT
#include "sim/workload.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mempower/machine.h>

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

static int parse_params(const char *name, char *params, struct mpm_workload *w,
			char *err, size_t errlen)
{
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
		if (churn_key(&w->churn, kv, eq + 1, err, errlen))
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
