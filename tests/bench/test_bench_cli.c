// SPDX-License-Identifier: MIT
/*
 * `mempower bench` as a command: exit statuses and one-line messages for bad
 * input, and the shape and sanity of the JSON result of a tiny run.  Timings
 * themselves are not checked (they depend on the host); only that each
 * figure is a positive number with min <= median <= max and that the
 * reference's ratio to itself is 1.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/*
 * The test executables link core + io + sim but not the bench library; the
 * two bench files are self-contained, so they are compiled in here.
 */
#include "../../bench/bench.c"
#include "../../bench/ref_buddy.c"
#include "../../bench/bench_bitmap.c"
#include "../../bench/bench_region_move.c"

#define ARGS(...)	((char *[]){ "bench", __VA_ARGS__, NULL })

static int argc_of(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/* Run with @fd (1 or 2) captured into @buf. */
static int run_capture(char **argv, int fd, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved, rc;
	size_t n;

	REQUIRE(tmp);
	fflush(stdout);
	fflush(stderr);
	saved = dup(fd);
	REQUIRE(saved >= 0 && dup2(fileno(tmp), fd) >= 0);
	rc = mpm_bench_main(argc_of(argv), argv);
	fflush(stdout);
	fflush(stderr);
	REQUIRE(dup2(saved, fd) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return rc;
}

/* Bad input: exit @want and exactly one "mempower: ..." line on stderr. */
static void expect_error(char **argv, int want)
{
	char err[1024];
	int rc = run_capture(argv, 2, err, sizeof(err));
	char *nl = strchr(err, '\n');

	if (rc != want)
		fprintf(stderr, "for '%s %s': exit %d, want %d\n", argv[1],
			argv[2] ? argv[2] : "", rc, want);
	CHECK_EQ_U(rc, want);
	CHECK(!strncmp(err, "mempower: ", 10));
	CHECK(nl && nl[1] == '\0');
}

static void test_bad_input(void)
{
	/* usage errors */
	expect_error(ARGS("--bogus"), 2);
	expect_error(ARGS("--bogus=1"), 2);
	expect_error(ARGS("stray"), 2);
	expect_error(ARGS("--size"), 2);
	expect_error(ARGS("--runs", "3", "--json"), 2);
	/* bad values */
	expect_error(ARGS("--size", "12Q"), 1);
	expect_error(ARGS("--size", "-1G"), 1);
	expect_error(ARGS("--size", "4097K"), 1);	/* not whole pages */
	expect_error(ARGS("--size", "1M"), 1);		/* below one max-order block */
	expect_error(ARGS("--size", "1G,,2G"), 1);
	expect_error(ARGS("--size", "6M"), 1);		/* not whole max-order blocks */
	expect_error(ARGS("--size", "0"), 1);
	expect_error(ARGS("--policies", "nosuch"), 1);
	expect_error(ARGS("--policies", "mainline,ref-buddy"), 1);
	expect_error(ARGS("--runs", "0"), 1);
	expect_error(ARGS("--runs", "five"), 1);
	expect_error(ARGS("--ops", "0"), 1);
	expect_error(ARGS("--bench", "mixed,nosuch"), 1);
	/* one instance twice (kept tiny, should the check regress and it run) */
	expect_error(ARGS("--size", "4M,4096K", "--bench", "pair_empty", "--ops", "1",
			  "--runs", "1"), 1);
	expect_error(ARGS("--size", "4M", "--policies", "sorted,mainline,sorted", "--bench",
			  "pair_empty", "--ops", "1", "--runs", "1"), 1);
	expect_error(ARGS("--size", "4M", "--bench", "pair_empty,pair_empty", "--ops", "1",
			  "--runs", "1"), 1);
}

/*
 * A size the host cannot hold is refused before anything runs, with the
 * estimate of the largest benchmark chosen; MEMPOWER_MEMORY_LIMIT stands in
 * for a small host.
 */
static void test_memory_budget(void)
{
	char err[1024];
	int rc;

	REQUIRE(!setenv("MEMPOWER_MEMORY_LIMIT", "1G", 1));
	expect_error(ARGS("--size", "64M,1T"), 1);
	rc = run_capture(ARGS("--size", "64M,1T", "--bench", "pair_empty"), 2, err, sizeof(err));
	CHECK_EQ_U(rc, 1);
	/* 16 B of page array per page and 64 MiB: 4.0 GiB + 64 MiB */
	CHECK(strstr(err, "size 1T needs about 4.1 GiB of memory, more than the 1.0 GiB "
			  "that MEMPOWER_MEMORY_LIMIT allows") != NULL);
	/* pair_frag's pfns add 8 B per page */
	rc = run_capture(ARGS("--size", "1T", "--bench", "pair_frag"), 2, err, sizeof(err));
	CHECK_EQ_U(rc, 1);
	CHECK(strstr(err, "size 1T needs about 6.1 GiB") != NULL);
	/* a size that fits runs */
	rc = run_capture(ARGS("--size", "64M", "--bench", "pair_empty", "--runs", "1",
			      "--ops", "1000"), 2, err, sizeof(err));
	CHECK_EQ_U(rc, 0);
	REQUIRE(!setenv("MEMPOWER_MEMORY_LIMIT", "lots", 1));
	expect_error(ARGS("--size", "64M"), 1);
	rc = run_capture(ARGS("--size", "64M"), 2, err, sizeof(err));
	CHECK(strstr(err, "MEMPOWER_MEMORY_LIMIT=lots: malformed size") != NULL);
	REQUIRE(!unsetenv("MEMPOWER_MEMORY_LIMIT"));
}

static void test_help(void)
{
	char out[4096];

	CHECK_EQ_U(run_capture(ARGS("--help"), 1, out, sizeof(out)), 0);
	CHECK(strstr(out, "usage: mempower bench") != NULL);
}

static const json_t *find_result(const json_t *results, const char *bench,
				 const char *alloc)
{
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r) {
		if (!strcmp(json_string_value(json_object_get(r, "benchmark")), bench) &&
		    !strcmp(json_string_value(json_object_get(r, "allocator")), alloc))
			return r;
	}
	return NULL;
}

static double num(const json_t *obj, const char *key)
{
	return json_number_value(json_object_get(obj, key));
}

static void check_result(const json_t *r, uint64_t want_ops)
{
	size_t i;
	json_t *s;

	REQUIRE(r);
	CHECK(num(r, "median_ns") > 0);
	CHECK(num(r, "min_ns") <= num(r, "median_ns"));
	CHECK(num(r, "median_ns") <= num(r, "max_ns"));
	CHECK(num(r, "ratio_to_ref") > 0);
	CHECK_EQ_U(json_integer_value(json_object_get(r, "ops")), want_ops);
	CHECK_EQ_U(json_integer_value(json_object_get(r, "failures")), 0);
	CHECK_EQ_U(json_integer_value(json_object_get(r, "size_bytes")), 16u << 20);
	CHECK_EQ_U(json_array_size(json_object_get(r, "samples_ns")), 3);
	json_array_foreach(json_object_get(r, "samples_ns"), i, s)
		CHECK(json_real_value(s) > 0);
}

static void check_json(const json_t *root)
{
	static const char *const benches[] = { "pair_empty", "lifo", "pair_frag", "mixed" };
	/* 16M = 4096 pages: lifo does min(4096 / 4, --ops) allocs and as many frees */
	static const uint64_t ops[] = { 2000, 2 * 1024, 2000, 2000 };
	const json_t *results = json_object_get(root, "results");
	const json_t *host = json_object_get(root, "host");

	REQUIRE(root);
	CHECK(!strcmp(json_string_value(json_object_get(root, "schema")), "mempower.bench/1"));
	CHECK_EQ_U(json_array_size(results), 8);
	/* the build's padding, none outside scripts/bench-refpad.sh */
	CHECK(json_is_integer(json_object_get(json_object_get(root, "config"), "ref_pad_adds")) &&
	      json_integer_value(json_object_get(json_object_get(root, "config"), "ref_pad_adds")) ==
		      4 * MPM_REF_PAD);
	CHECK(json_string_value(json_object_get(host, "cpu_model")) != NULL);
	CHECK(strstr(json_string_value(json_object_get(host, "compiler")), "gcc") != NULL ||
	      strstr(json_string_value(json_object_get(host, "compiler")), "clang") != NULL);
	/* side figures only where a policy with the structure ran: mainline alone */
	CHECK_EQ_U(json_array_size(json_object_get(json_object_get(root, "side"),
						   "find_prev_region")), 0);
	CHECK_EQ_U(json_array_size(json_object_get(json_object_get(root, "side"), "region_move")),
		   0);
	for (unsigned int b = 0; b < 4; b++) {
		const json_t *ref = find_result(results, benches[b], "ref-buddy");
		const json_t *ml = find_result(results, benches[b], "mainline");

		check_result(ref, ops[b]);
		check_result(ml, ops[b]);
		if (ref)
			CHECK(num(ref, "ratio_to_ref") == 1.0);
	}
}

static void test_json_file(void)
{
	char path[] = "/tmp/mpm_bench_test_XXXXXX";
	char out[8192];
	json_error_t jerr;
	json_t *root;
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ_U(run_capture(ARGS("--size", "16M", "--runs", "3", "--ops", "2000",
				    "--json", path), 1, out, sizeof(out)), 0);
	CHECK(strstr(out, "pair_empty") != NULL);	/* the table went to stdout */
	root = json_load_file(path, 0, &jerr);
	if (!root)
		fprintf(stderr, "%s: %s\n", path, jerr.text);
	check_json(root);
	json_decref(root);
	unlink(path);
}

/*
 * Every bar that applies is reported, however many sizes: each size of 4M
 * to 32M with the four policies has six (mainline's pcp pair; sorted's
 * pair_empty; full / mainline on each benchmark), and find_prev_region one
 * more; the side figures are in the JSON too.
 */
static void test_all_bars(void)
{
	char path[] = "/tmp/mpm_bench_test_XXXXXX";
	char out[65536];
	json_error_t jerr;
	json_t *root, *side;
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ_U(run_capture(ARGS("--size", "4M,8M,12M,16M,20M,24M,28M,32M", "--runs", "1",
				    "--ops", "200", "--policies", "mainline,sorted,split,full",
				    "--json", path), 1, out, sizeof(out)), 0);
	root = json_load_file(path, 0, &jerr);
	REQUIRE(root);
	CHECK_EQ_U(json_array_size(json_object_get(root, "bars")), 8 * 6 + 1);
	side = json_object_get(root, "side");
	CHECK_EQ_U(json_array_size(json_object_get(side, "find_prev_region")), 4);
	CHECK_EQ_U(json_array_size(json_object_get(side, "region_move")), 4);
	CHECK(num(json_array_get(json_object_get(side, "region_move"), 0),
		  "ns_per_round_trip") > 0);
	json_decref(root);
	unlink(path);
}

/*
 * An unwritable --json fails before anything runs (nothing on stdout), and
 * an existing file is replaced whole, however long it was.
 */
static void test_json_path(void)
{
	char path[] = "/tmp/mpm_bench_test_XXXXXX";
	char out[8192], err[1024];
	json_error_t jerr;
	json_t *root;
	FILE *f;
	int fd = mkstemp(path);

	expect_error(ARGS("--size", "16M", "--json", "/nonexistent-dir/r.json"), 1);
	CHECK_EQ_U(run_capture(ARGS("--size", "16M", "--json", "/nonexistent-dir/r.json"), 1, out,
			       sizeof(out)), 1);
	CHECK_EQ_U(strlen(out), 0);
	CHECK_EQ_U(run_capture(ARGS("--size", "16M", "--json", "/nonexistent-dir/r.json"), 2, err,
			       sizeof(err)), 1);
	CHECK(strstr(err, "cannot write JSON file '/nonexistent-dir/r.json'") != NULL);
	REQUIRE(fd >= 0 && (f = fdopen(fd, "w")));
	for (int i = 0; i < 20000; i++)
		fputs("xxxxxxxxx\n", f);
	fclose(f);
	CHECK_EQ_U(run_capture(ARGS("--size", "16M", "--runs", "1", "--ops", "2000", "--bench",
				    "pair_empty", "--json", path), 1, out, sizeof(out)), 0);
	root = json_load_file(path, 0, &jerr);
	if (!root)
		fprintf(stderr, "%s: %s\n", path, jerr.text);
	CHECK(root != NULL);
	json_decref(root);
	unlink(path);
}

/* --json -: stdout must be nothing but the JSON document. */
static void test_json_stdout(void)
{
	static char out[1 << 16];
	json_error_t jerr;
	json_t *root;

	CHECK_EQ_U(run_capture(ARGS("--size=16M", "--runs=3", "--ops=2000", "--json", "-"),
			       1, out, sizeof(out)), 0);
	root = json_loads(out, 0, &jerr);
	if (!root)
		fprintf(stderr, "stdout is not JSON: %s\n", jerr.text);
	check_json(root);
	json_decref(root);
}

/*
 * Replay the stream's bookkeeping: returns the occupancy (pages) after all
 * @n ops, and the lowest and highest occupancy seen from op @from on.
 */
static uint64_t stream_occupancy(const uint32_t *ops, uint64_t n, uint64_t from,
				 uint8_t *orders, uint64_t *min, uint64_t *max)
{
	uint64_t occ = 0, nlive = 0;

	*min = UINT64_MAX;
	*max = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (ops[i] & MIXED_FREE) {
			uint32_t idx = ops[i] & ~MIXED_FREE;

			REQUIRE(idx < nlive);
			occ -= 1ull << orders[idx];
			orders[idx] = orders[--nlive];
		} else {
			REQUIRE(ops[i] <= 3);
			orders[nlive++] = (uint8_t)ops[i];
			occ += 1ull << ops[i];
		}
		if (i >= from) {
			*min = occ < *min ? occ : *min;
			*max = occ > *max ? occ : *max;
		}
	}
	return occ;
}

/*
 * The mixed stream's contract: same seed, same stream; occupancy reaches 60%
 * in the setup part and stays within [50%, 70%] in the timed part; every
 * free names a live block; and ref-buddy runs it without a failure, ending
 * with exactly the stream's occupancy allocated.
 */
static void test_mixed_stream(void)
{
	enum { NP = 1024 };	/* small: the walk hits both bounds often */
	struct bench_opts opt = { .seed = 12345 };
	struct bench_env a = { .opt = &opt, .npages = NP };
	struct bench_env b = { .opt = &opt, .npages = NP };
	uint8_t *orders = malloc(a.npages);
	uint64_t *live = malloc(a.npages * sizeof(*live));
	uint64_t nlive = 0, fails, occ, min, max, lo = NP / 2, hi = NP * 7 / 10, total;
	struct ref_buddy *rb = ref_buddy_create(a.npages);

	REQUIRE(orders && live && rb);
	REQUIRE(!mixed_stream_build(&a, 200000) && !mixed_stream_build(&b, 200000));
	total = a.mixed_setup + a.mixed_timed;
	CHECK_EQ_U(a.mixed_setup, b.mixed_setup);
	CHECK(!memcmp(a.mixed_ops, b.mixed_ops, total * sizeof(*a.mixed_ops)));

	occ = stream_occupancy(a.mixed_ops, a.mixed_setup, 0, orders, &min, &max);
	CHECK(occ >= NP * 6 / 10 && occ < NP * 6 / 10 + 8);
	stream_occupancy(a.mixed_ops, total, a.mixed_setup, orders, &min, &max);
	CHECK(min >= lo - 8);	/* one free of up to 8 pages may dip below */
	CHECK(max <= hi);
	CHECK(max - min > NP / 10);	/* and it does wander between them */

	fails = impl_ref_loops.setup_mixed(rb, a.mixed_ops, total, live, &nlive);
	CHECK_EQ_U(fails, 0);
	occ = stream_occupancy(a.mixed_ops, total, 0, orders, &min, &max);
	CHECK_EQ_U(ref_buddy_free_pages(rb), a.npages - occ);

	opt.seed = 54321;
	free(b.mixed_ops);
	REQUIRE(!mixed_stream_build(&b, 200000));
	CHECK(memcmp(a.mixed_ops, b.mixed_ops, total * sizeof(*a.mixed_ops)) != 0);
	ref_buddy_destroy(rb);
	free(a.mixed_ops);
	free(b.mixed_ops);
	free(orders);
	free(live);
}

int main(void)
{
	test_mixed_stream();
	test_bad_input();
	test_memory_budget();
	test_help();
	test_json_file();
	test_json_path();
	test_json_stdout();
	test_all_bars();
	return t_report("test_bench_cli");
}
