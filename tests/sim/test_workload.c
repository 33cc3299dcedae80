// SPDX-License-Identifier: MIT
/* Workload strings: defaults, every key, and every kind of refusal. */
#include <string.h>

#include "sim/workload.h"
#include "testlib.h"

static struct mpm_workload w;
static char err[256];

static int parse(const char *s)
{
	err[0] = '\0';
	return mpm_workload_parse(s, &w, err, sizeof(err));
}

static int refused(const char *s, const char *want)
{
	if (parse(s) == 0) {
		fprintf(stderr, "'%s' was accepted\n", s);
		return 0;
	}
	if (!strstr(err, want) || strchr(err, '\n')) {
		fprintf(stderr, "'%s': got '%s', want '%s'\n", s, err, want);
		return 0;
	}
	return 1;
}

int main(void)
{
	CHECK(parse("none") == 0 && w.kind == MPM_WORKLOAD_NONE);
	CHECK(parse("churn") == 0 && w.kind == MPM_WORKLOAD_CHURN);
	CHECK(w.churn.occupancy == 0.6);
	CHECK_EQ_U(w.churn.ops, 0);
	CHECK_EQ_U(w.churn.maxorder, 10);
	CHECK(w.churn.movable == 0.7 && w.churn.reclaimable == 0.1);

	CHECK(parse("churn:occupancy=0.8,ops=5000,maxorder=3,movable=0.5,reclaimable=0.5") == 0);
	CHECK(w.churn.occupancy == 0.8);
	CHECK_EQ_U(w.churn.ops, 5000);
	CHECK_EQ_U(w.churn.maxorder, 3);
	CHECK(w.churn.movable == 0.5 && w.churn.reclaimable == 0.5);
	CHECK(parse("churn:maxorder=0") == 0 && w.churn.maxorder == 0);
	CHECK(parse("churn:occupancy=.25") == 0 && w.churn.occupancy == 0.25);

	CHECK(refused("", "unknown workload ''"));
	CHECK(refused("stress", "unknown workload 'stress' (expected none, churn, ebizzy, pagetest)"));

	/* ebizzy: the cover letter's command line is the default */
	CHECK(parse("ebizzy") == 0 && w.kind == MPM_WORKLOAD_EBIZZY);
	CHECK_EQ_U(w.ebizzy.size, 268435456);
	CHECK(w.ebizzy.chunks == 2 && w.ebizzy.threads == 32 && w.ebizzy.seconds == 60);
	CHECK(w.ebizzy.instances == 1 && !w.thp);
	CHECK(parse("ebizzy:s=64M,n=3,t=4,S=5,instances=20,thp=always") == 0);
	CHECK_EQ_U(w.ebizzy.size, 64ull << 20);
	CHECK(w.ebizzy.chunks == 3 && w.ebizzy.threads == 4 && w.ebizzy.seconds == 5);
	CHECK(w.ebizzy.instances == 20 && w.thp);
	CHECK(parse("ebizzy:s=268435456") == 0 && w.ebizzy.size == 268435456);
	CHECK(refused("ebizzy:s=100", "malformed size '100'"));
	CHECK(refused("ebizzy:s=1X", "malformed size"));
	CHECK(refused("ebizzy:n=0", "n=0 is malformed or out of range"));
	CHECK(refused("ebizzy:n=17", "out of range 1..16"));
	CHECK(refused("ebizzy:t=-1", "malformed"));
	CHECK(refused("ebizzy:thp=sometimes", "thp=sometimes (expected always or never)"));
	CHECK(refused("ebizzy:size=1M", "workload ebizzy: unknown key 'size'"));
	/* pagetest */
	CHECK(parse("pagetest") == 0 && w.kind == MPM_WORKLOAD_PAGETEST);
	CHECK_EQ_U(w.pagetest.size, 512ull << 20);
	CHECK(!w.pagetest.free && w.pagetest.hold == 1);
	CHECK(parse("pagetest:size=2G,free=1,hold=0") == 0);
	CHECK(w.pagetest.size == 2ull << 30 && w.pagetest.free && w.pagetest.hold == 0);
	CHECK(refused("pagetest:free=2", "free=2 is malformed or out of range"));
	CHECK(refused("pagetest:s=1M", "workload pagetest: unknown key 's'"));
	CHECK(refused("Churn", "unknown workload"));
	CHECK(refused("none:ops=1", "workload none: unknown key 'ops'"));
	CHECK(refused("churn:speed=3", "workload churn: unknown key 'speed'"));
	CHECK(refused("churn:", "malformed parameter list"));
	CHECK(refused("churn:,ops=1", "malformed parameter list"));
	CHECK(refused("churn:ops=1,", "malformed parameter list"));
	CHECK(refused("churn:ops=1,,maxorder=2", "malformed parameter list"));
	CHECK(refused("churn:ops", "malformed parameter 'ops'"));
	CHECK(refused("churn:=3", "malformed parameter"));
	CHECK(refused("churn:ops=", "malformed value '' for ops"));
	CHECK(refused("churn:ops=fast", "malformed value 'fast' for ops"));
	CHECK(refused("churn:ops=-5", "malformed value"));
	CHECK(refused("churn:ops=0", "out of range"));
	CHECK(refused("churn:ops=99999999999999999999999", "malformed value"));
	CHECK(refused("churn:occupancy=abc", "malformed value 'abc' for occupancy"));
	CHECK(refused("churn:occupancy=nan", "malformed value"));
	CHECK(refused("churn:occupancy=inf", "malformed value"));
	CHECK(refused("churn:occupancy=0.6x", "malformed value"));
	CHECK(refused("churn:occupancy=0", "out of range"));
	CHECK(refused("churn:occupancy=0.99", "out of range"));
	CHECK(refused("churn:maxorder=11", "out of range"));
	CHECK(refused("churn:maxorder=1.5", "malformed value"));
	CHECK(refused("churn:movable=1.5", "out of range"));
	CHECK(refused("churn:movable=0.8,reclaimable=0.3", "exceeds 1"));
	return t_report("sim/test_workload");
}
