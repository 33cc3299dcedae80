// SPDX-License-Identifier: MIT
/*
 * Machine files: the good fixtures load to the expected spec; every
 * malformed fixture is refused with one line naming the file and the field.
 */
#include <string.h>

#include "io/machine_spec.h"
#include "testlib.h"

#define DATA MPM_SOURCE_DIR "/tests/io/data/"

static struct mpm_spec_buf b;
static char err[512];

static int load(const char *file, const char *region, const char *cpus)
{
	struct mpm_machine_opts o = {
		.machine = file, .region_size = region, .cpus = cpus,
	};

	mpm_spec_buf_free(&b);
	err[0] = '\0';
	return mpm_machine_spec_build(&o, &b, err, sizeof(err));
}

static void test_good(void)
{
	struct mpm_spec_buf preset;
	struct mpm_machine_opts o = { .machine = "sandybridge-128g" };

	/* The hand-written file is the preset, field for field. */
	REQUIRE(load(DATA "good-sandybridge.json", NULL, NULL) == 0);
	REQUIRE(mpm_machine_spec_build(&o, &preset, err, sizeof(err)) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, preset.spec.nr_nodes);
	CHECK_EQ_U(b.spec.nr_zones, preset.spec.nr_zones);
	CHECK_EQ_U(b.spec.nr_holes, preset.spec.nr_holes);
	CHECK(!memcmp(b.zones, preset.zones, sizeof(*b.zones) * b.spec.nr_zones));
	CHECK(!memcmp(b.holes, preset.holes, sizeof(*b.holes) * b.spec.nr_holes));
	CHECK_EQ_U(b.spec.region_shift, preset.spec.region_shift);
	CHECK_EQ_U(b.spec.nr_cpus, 16);
	CHECK_EQ_U(b.spec.pageblock_order, 10);
	CHECK_EQ_U(b.spec.zonelist_order, MPM_ZONELIST_ORDER_DEFAULT);
	CHECK(!strcmp(b.description, "sandybridge-128g written out by hand"));
	mpm_spec_buf_free(&preset);

	/* Command-line options override the file. */
	REQUIRE(load(DATA "good-sandybridge.json", "1G", "3") == 0);
	CHECK_EQ_U(b.spec.region_shift, 18);
	CHECK_EQ_U(b.spec.nr_cpus, 3);

	/* Integers are bytes; type names are case-insensitive. */
	REQUIRE(load(DATA "good-minimal.json", NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_zones, 1);
	CHECK_EQ_U(b.spec.zones[0].type, MPM_ZONE_NORMAL);
	CHECK_EQ_U(b.spec.zones[0].start_pfn, 256);
	CHECK_EQ_U(b.spec.zones[0].end_pfn, 65 * 256);
	CHECK_EQ_U(b.spec.region_shift, 11);
	CHECK_EQ_U(b.spec.pageblock_order, 9);
	CHECK(b.spec.region_absolute);
	CHECK_EQ_U(b.spec.nr_cpus, 4);
	CHECK_EQ_U(b.spec.nr_holes, 0);
	CHECK_EQ_U(b.spec.zonelist_order, MPM_ZONELIST_ORDER_NODE);

	/* MPM_MAX_NUMNODES nodes load (bad-too-many-nodes.json has one more) */
	REQUIRE(load(DATA "good-64-nodes.json", NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, MPM_MAX_NUMNODES);
	CHECK_EQ_U(b.spec.zones[MPM_MAX_NUMNODES - 1].node, MPM_MAX_NUMNODES - 1);

	/* --zonelist-order overrides the file's */
	{
		struct mpm_machine_opts o2 = {
			.machine = DATA "good-minimal.json", .zonelist_order = "zone",
		};

		mpm_spec_buf_free(&b);
		REQUIRE(mpm_machine_spec_build(&o2, &b, err, sizeof(err)) == 0);
		CHECK_EQ_U(b.spec.zonelist_order, MPM_ZONELIST_ORDER_ZONE);
		o2.zonelist_order = "n";	/* the kernel's first-letter form is not ours */
		mpm_spec_buf_free(&b);
		CHECK(mpm_machine_spec_build(&o2, &b, err, sizeof(err)) == -1);
		CHECK(strstr(err, "invalid zonelist order 'n'") != NULL);
	}
}

static const struct {
	const char *file;
	const char *want;	/* in the message, after the path */
} bad[] = {
	{ "bad-syntax.json", "line 1 column" },
	{ "bad-empty.json", "line" },
	{ "bad-toplevel.json", "(top level): expected an object" },
	{ "bad-unknown-key.json", ": regoin_size: unknown key" },
	{ "bad-unknown-zone-key.json", ": nodes[0].zones[0].size: unknown key" },
	{ "bad-duplicate-key.json", "duplicate" },
	{ "bad-no-nodes.json", ": nodes: missing" },
	{ "bad-empty-nodes.json", ": nodes: expected a non-empty array" },
	{ "bad-node-id.json", ": nodes[0].id: is 1" },
	{ "bad-zone-type.json", ": nodes[0].zones[0].type: expected" },
	{ "bad-zone-order.json", ": nodes[0].zones[1].type: zone types must ascend" },
	{ "bad-overlap.json", ": nodes[0].zones[1].start: overlaps" },
	{ "bad-node-overlap.json", ": nodes[1].zones[0].start: overlaps" },
	{ "bad-end-before-start.json", ": nodes[0].zones[0].end: must be above start" },
	{ "bad-unaligned.json", ": nodes[0].zones[0].start: not a multiple of the page size" },
	{ "bad-negative.json", ": nodes[0].zones[0].start: must not be negative" },
	{ "bad-size-string.json", ": nodes[0].zones[0].start: malformed size" },
	{ "bad-missing-end.json", ": nodes[0].zones[0].end: missing" },
	{ "bad-cpus-type.json", ": cpus: expected an integer" },
	{ "bad-cpus-zero.json", ": cpus: must be 1.." },
	{ "bad-region-size.json", ": region_size: region size 384M is not a power of two" },
	{ "bad-region-small.json", ": region_size: region size 1M is smaller than a pageblock" },
	{ "bad-region-align.json", ": region_align: expected" },
	{ "bad-pageblock.json", ": pageblock_order: must be 9 or 10" },
	{ "bad-zonelist-order.json", ": zonelist_order: expected \"default\", \"node\" or \"zone\"" },
	{ "bad-hole-outside.json", ": holes[0]: does not lie inside one zone" },
	{ "bad-hole-order.json", ": holes[1].start: overlaps or precedes" },
	{ "bad-hole-covers.json", ": nodes[0].zones[0]: has no present pages" },
	{ "bad-hole-covers-node1.json", ": nodes[1].zones[1]: has no present pages" },
	{ "bad-node-start.json", ": nodes[0].start: is above the node's first zone" },
	{ "bad-zones-type.json", ": nodes[0].zones: expected a non-empty array" },
	{ "bad-too-many-nodes.json", ": nodes: more than 64 nodes" },
	{ "missing-file.json", "unable to open" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[512];
		int r;

		snprintf(path, sizeof(path), DATA "%s", bad[i].file);
		r = load(path, NULL, NULL);
		CHECK(r == -1);
		CHECK(!strncmp(err, path, strlen(path)));
		CHECK(!strchr(err, '\n'));
		if (!strstr(err, bad[i].want)) {
			fprintf(stderr, "%s: got '%s', want '%s'\n", bad[i].file,
				err, bad[i].want);
			CHECK(0);
		}
		CHECK(!b.zones);
	}
}

int main(void)
{
	test_good();
	test_bad();
	mpm_spec_buf_free(&b);
	return t_report("io/test_machine_json");
}
