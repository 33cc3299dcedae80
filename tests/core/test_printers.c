// SPDX-License-Identifier: MIT
/*
 * Golden tests of the /proc printers: a small two-zone machine in a fixed
 * state is printed and compared byte for byte with files under golden/,
 * which were checked field by field against the format strings of Linux
 * 3.12's mm/vmstat.c (see docs/linux-3.12-rules.md).  Run with
 * MPM_UPDATE_GOLDEN=1 to rewrite them after an intended change.
 */
#include <stdlib.h>

#include "machines.h"

static struct mpm_machine *golden_machine(void)
{
	static struct test_machine t;
	struct mpm_machine *m;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA, 1, 4096 };
	t.zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 4096, 16384 };
	t.holes[0] = (struct mpm_hole_spec){ 0x9f, 0x100 };
	t.spec.nr_nodes = 1;
	t.spec.nr_zones = 2;
	t.spec.zones = t.zones;
	t.spec.nr_holes = 1;
	t.spec.holes = t.holes;
	t.spec.nr_cpus = 2;
	t.spec.region_shift = 12;
	m = tm_create(&t);
	/* a movable page through cpu 0's pcp list, an unmovable order-3 block */
	REQUIRE(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0) != MPM_NO_PFN);
	REQUIRE(mpm_alloc_pages(m, MPM_GFP_KERNEL, 3, 1) != MPM_NO_PFN);
	return m;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	REQUIRE(buf);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void golden(struct mpm_machine *m, const char *name,
		   void (*print)(const struct mpm_machine *, FILE *))
{
	char path[512], *got = NULL, *want;
	size_t got_len = 0, want_len = 0;
	FILE *mem = open_memstream(&got, &got_len);

	REQUIRE(mem);
	print(m, mem);
	fclose(mem);
	snprintf(path, sizeof(path), "%s/tests/core/golden/%s", MPM_SOURCE_DIR, name);
	if (getenv("MPM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");

		REQUIRE(f);
		fwrite(got, 1, got_len, f);
		fclose(f);
	}
	want = slurp(path, &want_len);
	CHECK(want != NULL);
	if (want && (want_len != got_len || memcmp(want, got, got_len))) {
		fprintf(stderr, "%s differs from the golden file; got:\n%s", name, got);
		CHECK(0);
	}
	free(want);
	free(got);
}

/* Format facts checked independently of the golden files. */
static void test_buddyinfo_shape(struct mpm_machine *m)
{
	char *out = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);
	char zone[16];
	unsigned long v[11];

	mpm_print_buddyinfo(m, mem);
	fclose(mem);
	/* "Node %d, zone %8s " + 11 x "%6lu " + "\n": 22 + 77 + 1 chars a line */
	CHECK_EQ_U(len, 2 * (13 + 8 + 1 + 11 * 7 + 1));
	CHECK(sscanf(out, "Node 0, zone %8s %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu",
		     zone, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
		     &v[9], &v[10]) == 12);
	CHECK(strcmp(zone, "DMA") == 0);
	CHECK(strncmp(out, "Node 0, zone      DMA ", 22) == 0);
	free(out);
}

int main(void)
{
	struct mpm_machine *m = golden_machine();

	CHECK(tm_check(m) == 0);
	golden(m, "buddyinfo.txt", mpm_print_buddyinfo);
	golden(m, "pagetypeinfo.txt", mpm_print_pagetypeinfo);
	golden(m, "zoneinfo.txt", mpm_print_zoneinfo);
	golden(m, "vmstat.txt", mpm_print_vmstat);
	test_buddyinfo_shape(m);
	mpm_machine_destroy(m);
	return t_report("core/printers");
}
