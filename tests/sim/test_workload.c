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
	CHECK(refused("stress", "unknown workload 'stress' (expected none, churn, ebizzy, pagetest, kernbench, pagecache)"));

	/* ebizzy: the cover letter's command line is the default */
	CHECK(parse("ebizzy") == 0 && w.kind == MPM_WORKLOAD_EBIZZY);
	CHECK_EQ_U(w.ebizzy.size, 268435456);
	CHECK(w.ebizzy.chunks == 2 && w.ebizzy.threads == 32 && w.ebizzy.seconds == 60);
	CHECK(w.ebizzy.instances == 1 && !w.thp && w.ebizzy.jitter == 0);
	CHECK(parse("ebizzy:s=64M,n=3,t=4,S=5,instances=20,thp=always") == 0);
	CHECK_EQ_U(w.ebizzy.size, 64ull << 20);
	CHECK(w.ebizzy.chunks == 3 && w.ebizzy.threads == 4 && w.ebizzy.seconds == 5);
	CHECK(w.ebizzy.instances == 20 && w.thp);
	CHECK(parse("ebizzy:s=268435456") == 0 && w.ebizzy.size == 268435456);
	CHECK(refused("ebizzy:s=100", "workload ebizzy: s=100 is out of range (4K..16G)"));
	CHECK(refused("ebizzy:s=1X", "workload ebizzy: s=1X is a malformed size (4K..16G)"));
	CHECK(refused("ebizzy:n=0", "n=0 is malformed or out of range"));
	CHECK(refused("ebizzy:n=17", "out of range 1..16"));
	CHECK(refused("ebizzy:t=-1", "malformed"));
	CHECK(refused("ebizzy:thp=sometimes", "thp=sometimes (expected always or never)"));
	CHECK(refused("ebizzy:size=1M", "workload ebizzy: unknown key 'size'"));
	CHECK(parse("ebizzy:jitter=0.05") == 0 && w.ebizzy.jitter == 0.05);
	CHECK(parse("ebizzy:jitter=.5") == 0 && w.ebizzy.jitter == 0.5);
	CHECK(parse("ebizzy:jitter=0") == 0 && w.ebizzy.jitter == 0);
	CHECK(refused("ebizzy:jitter=0.51", "jitter=0.51 is malformed or out of range 0..0.5"));
	CHECK(refused("ebizzy:jitter=-0.1", "jitter=-0.1 is malformed"));
	CHECK(refused("ebizzy:jitter=nan", "jitter=nan is malformed"));
	/* pagetest */
	CHECK(parse("pagetest") == 0 && w.kind == MPM_WORKLOAD_PAGETEST);
	CHECK_EQ_U(w.pagetest.size, 512ull << 20);
	CHECK(!w.pagetest.free && w.pagetest.hold == 1);
	CHECK(parse("pagetest:size=2G,free=1,hold=0") == 0);
	CHECK(w.pagetest.size == 2ull << 30 && w.pagetest.free && w.pagetest.hold == 0);
	CHECK(refused("pagetest:free=2", "free=2 is malformed or out of range"));
	CHECK(refused("pagetest:s=1M", "workload pagetest: unknown key 's'"));
	/* kernbench: jobs 0 = 2 x CPUs at start; the tree of docs/sim-parameters.md */
	CHECK(parse("kernbench") == 0 && w.kind == MPM_WORKLOAD_KERNBENCH);
	CHECK(w.kernbench.jobs == 0 && w.kernbench.files == 19264);
	CHECK(w.kernbench.headers == 15905 && w.kernbench.includes == 300);
	CHECK_EQ_U(w.kernbench.heap, 48ull << 20);
	CHECK(w.kernbench.cpu_ms == 570 && w.kernbench.prime && !w.thp);
	CHECK(parse("kernbench:jobs=32,files=100,headers=50,includes=0,heap=4M,cpu=0,prime=0,thp=always") == 0);
	CHECK(w.kernbench.jobs == 32 && w.kernbench.files == 100 && w.kernbench.headers == 50);
	CHECK(w.kernbench.includes == 0 && w.kernbench.heap == 4ull << 20);
	CHECK(w.kernbench.cpu_ms == 0 && !w.kernbench.prime && w.thp);
	CHECK(refused("kernbench:jobs=4097", "workload kernbench: jobs=4097 is malformed or out of range 0..4096"));
	CHECK(refused("kernbench:files=0", "files=0 is malformed or out of range 1..1000000"));
	CHECK(refused("kernbench:headers=x", "headers=x is malformed"));
	CHECK(refused("kernbench:includes=-1", "includes=-1 is malformed"));
	CHECK(refused("kernbench:heap=5G", "workload kernbench: heap=5G is out of range (4K..4G)"));
	CHECK(refused("kernbench:heap=100", "heap=100 is out of range"));
	CHECK(refused("kernbench:cpu=1.5", "cpu=1.5 is malformed"));
	CHECK(refused("kernbench:prime=2", "prime=2 is malformed or out of range 0..1"));
	CHECK(refused("kernbench:thp=yes", "workload kernbench: thp=yes (expected always or never)"));
	CHECK(refused("kernbench:j=4", "workload kernbench: unknown key 'j' (expected jobs, files"));
	/* pagecache: size 0 = 5/4 of the machine's memory at start */
	CHECK(parse("pagecache") == 0 && w.kind == MPM_WORKLOAD_PAGECACHE);
	CHECK(w.pagecache.size == 0 && w.pagecache.files == 1 && w.pagecache.passes == 2);
	CHECK(parse("pagecache:size=3G,files=4,passes=1") == 0);
	CHECK(w.pagecache.size == 3ull << 30 && w.pagecache.files == 4 && w.pagecache.passes == 1);
	CHECK(parse("pagecache:size=0") == 0 && w.pagecache.size == 0);
	CHECK(refused("pagecache:size=5T", "workload pagecache: size=5T is out of range (0, or 4K..4T)"));
	CHECK(refused("pagecache:size=-1", "size=-1 is a malformed size"));
	/* sizes as everywhere on the command line (sim/size.h), whole pages */
	CHECK(parse("pagecache:size=4T") == 0 && w.pagecache.size == 1ull << 42);
	CHECK(parse("pagecache:size=4TiB") == 0 && w.pagecache.size == 1ull << 42);
	CHECK(parse("pagetest:size=512MiB") == 0 && w.pagetest.size == 512ull << 20);
	CHECK(parse("pagetest:size=512mb") == 0 && w.pagetest.size == 512ull << 20);
	CHECK(parse("kernbench:heap=48MiB") == 0 && w.kernbench.heap == 48ull << 20);
	CHECK(parse("ebizzy:s=64kib") == 0 && w.ebizzy.size == 64ull << 10);
	CHECK(refused("pagetest:size=4097", "workload pagetest: size=4097 is not a whole number of 4K pages (4K..8T)"));
	CHECK(refused("pagetest:size=32T", "size=32T is out of range (4K..8T)"));
	CHECK(refused("pagetest:size=16777216T", "size=16777216T is out of range (4K..8T)"));
	CHECK(parse("pagecache:size=0K") == 0 && w.pagecache.size == 0);
	CHECK(refused("pagetest:size=0", "size=0 is out of range (4K..8T)"));
	CHECK(refused("pagetest:size=16T", "(4K..8T)"));	/* 2^32 pages: mapped none */
	CHECK(refused("ebizzy:s=1T", "(4K..16G)"));
	CHECK(refused("ebizzy:s=4KX", "s=4KX is a malformed size"));
	CHECK(refused("pagecache:files=0", "files=0 is malformed or out of range 1..64"));
	CHECK(refused("pagecache:files=65", "out of range 1..64"));
	CHECK(refused("pagecache:passes=0", "passes=0 is malformed or out of range 1..1000"));
	CHECK(refused("pagecache:thp=always", "workload pagecache: unknown key 'thp' (expected size, files, passes, sched)"));
	/* sched: round robin unless a kernel-model workload asks for cfs */
	CHECK(parse("ebizzy") == 0 && !w.sched_cfs);
	CHECK(parse("ebizzy:sched=cfs") == 0 && w.sched_cfs);
	CHECK(parse("ebizzy:sched=rr") == 0 && !w.sched_cfs);
	CHECK(parse("pagetest:sched=cfs") == 0 && w.sched_cfs);
	CHECK(parse("kernbench:sched=cfs,thp=always") == 0 && w.sched_cfs && w.thp);
	CHECK(parse("pagecache:sched=cfs") == 0 && w.sched_cfs);
	CHECK(refused("ebizzy:sched=CFS", "workload ebizzy: sched=CFS (expected rr or cfs)"));
	CHECK(refused("pagecache:sched=", "workload pagecache: sched= (expected rr or cfs)"));
	CHECK(refused("churn:sched=cfs", "workload churn: unknown key 'sched'"));
	CHECK(refused("ebizzy:sched=cfs,sched=rr", "workload ebizzy: key 'sched' given twice"));
	CHECK(refused("pagecache:", "workload pagecache: malformed parameter list"));
	CHECK(refused("kernbench:jobs", "workload kernbench: malformed parameter 'jobs'"));
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
