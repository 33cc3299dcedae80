// SPDX-License-Identifier: MIT
/*
 * Same inputs and seed -> byte-identical result apart from "host"; another
 * seed -> a different result (or this test could never fail).  Debug builds
 * (MPM_CHECK_EVERY_OP) also run the checker after every operation, which
 * must not change the result either.
 */
#include <stdlib.h>

#include "sim_helpers.h"

#define MACHINE "2x64M"

/* The checker costs about a millisecond per operation under ASan. */
#ifdef MPM_CHECK_EVERY_OP
#define CHECKS true
#define OPS 600
#else
#define CHECKS false
#define OPS 4000
#endif
#define STR(x) #x
#define XSTR(x) STR(x)
#define WORKLOAD "churn:ops=" XSTR(OPS)

static char *one_run(uint64_t seed, bool with_host, struct mpm_run *copy)
{
	struct sim_case c;
	char *s;

	if (sim_case_run(&c, MACHINE, "4M", "4", WORKLOAD, 3, seed, CHECKS)) {
		fprintf(stderr, "run failed: %s\n", c.err);
		exit(1);
	}
	s = sim_case_json(&c, MACHINE, with_host);
	if (copy)
		*copy = c.run;
	sim_case_fini(&c);
	return s;
}

/* Remove "host" from every run of a document, for comparison. */
static char *strip_host(const char *text)
{
	json_t *root = json_loads(text, 0, NULL), *runs, *run;
	size_t i;
	char *s;

	REQUIRE(root);
	runs = json_object_get(root, "runs");
	json_array_foreach(runs, i, run)
		json_object_del(run, "host");
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return s;
}

int main(void)
{
	struct mpm_run r;
	char *a = one_run(7, false, &r);
	char *b = one_run(7, false, NULL);
	char *c = one_run(8, false, NULL);
	char *h = one_run(7, true, NULL);
	char *hs = strip_host(h);
	char *as = strip_host(a);
	json_t *doc;

	CHECK(r.ops == 3 * OPS);
	CHECK(!strcmp(a, b));
	CHECK(strcmp(a, c) != 0);
	CHECK(strstr(h, "\"host\"") && !strstr(a, "\"host\""));
	CHECK(!strcmp(hs, as));

	/* A quick look at the shape: schema, one run, a sample per second. */
	doc = json_loads(a, 0, NULL);
	REQUIRE(doc);
	CHECK(!strcmp(json_string_value(json_object_get(doc, "schema")), "mempower.result/1"));
	CHECK_EQ_U(json_array_size(json_object_get(doc, "runs")), 1);
	CHECK_EQ_U(json_array_size(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
						   "series")), 4);
	json_decref(doc);
	free(a);
	free(b);
	free(c);
	free(h);
	free(hs);
	free(as);
	return t_report("sim/test_determinism");
}
