// SPDX-License-Identifier: MIT
/*
 * Machine files (docs/machine-json.md).  Everything is checked, and every
 * error is one line naming the file and the field, e.g.
 *
 *   box.json: nodes[0].zones[1].start: overlaps nodes[0].zones[0]
 *
 * Addresses are byte addresses, given as a size string ("4G", "640K") or a
 * JSON integer of bytes, and must be page aligned; end addresses are
 * exclusive.
 */
#include "io/json_input.h"
#include "io/machine_spec.h"
#include "io/utf8.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sim/size.h"

struct jctx {
	const char *path;
	char *err;
	size_t errlen;
	struct mpm_spec_buf *b;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct jctx *c, const char *field, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s: %s", c->path, field, msg);
	return -1;
}

/* Reject keys not in the NULL-terminated @allowed list. */
static int check_keys(struct jctx *c, json_t *obj, const char *field,
		      const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *const *a = allowed;

		while (*a && strcmp(*a, key))
			a++;
		if (!*a) {
			char f[160];

			snprintf(f, sizeof(f), "%s%s%s", field, *field ? "." : "", key);
			return fail(c, f, "unknown key");
		}
	}
	return 0;
}

static int get_bytes(struct jctx *c, json_t *v, const char *field, uint64_t *bytes)
{
	char e[160];

	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0)
			return fail(c, field, "must not be negative");
		*bytes = (uint64_t)i;
		return 0;
	}
	if (!json_is_string(v))
		return fail(c, field, "expected a size string (\"4G\") or integer bytes");
	if (mpm_parse_size(json_string_value(v), bytes, e, sizeof(e)))
		return fail(c, field, "%s", e);
	return 0;
}

static int get_addr(struct jctx *c, json_t *v, const char *field, uint64_t *pfn)
{
	uint64_t bytes;

	if (get_bytes(c, v, field, &bytes))
		return -1;
	if (bytes % MPM_PAGE_SIZE)
		return fail(c, field, "not a multiple of the page size (4096)");
	if (bytes > MPM_MAX_MACHINE_BYTES)
		return fail(c, field, "beyond the 4P physical address limit");
	*pfn = bytes >> MPM_PAGE_SHIFT;
	return 0;
}

static int get_uint(struct jctx *c, json_t *v, const char *field, uint64_t *out)
{
	if (!json_is_integer(v))
		return fail(c, field, "expected an integer");
	if (json_integer_value(v) < 0)
		return fail(c, field, "must not be negative");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int zone_type(const char *s, enum mpm_zone_type *t)
{
	static const char *const names[] = { "DMA", "DMA32", "Normal", "Movable" };

	for (int i = 0; i < MPM_NR_ZONE_TYPES; i++) {
		if (!strcasecmp(s, names[i])) {
			*t = (enum mpm_zone_type)i;
			return 0;
		}
	}
	return -1;
}

static int parse_zone(struct jctx *c, unsigned int nid, size_t zi, json_t *z)
{
	static const char *const keys[] = { "type", "start", "end", NULL };
	struct mpm_spec_buf *b = c->b;
	const struct mpm_zone_spec *prev = NULL;
	enum mpm_zone_type type;
	uint64_t start, end;
	char f[96], g[112];
	json_t *v;

	snprintf(f, sizeof(f), "nodes[%u].zones[%zu]", nid, zi);
	if (!json_is_object(z))
		return fail(c, f, "expected an object");
	if (check_keys(c, z, f, keys))
		return -1;
	snprintf(g, sizeof(g), "%s.type", f);
	v = json_object_get(z, "type");
	if (!v)
		return fail(c, g, "missing");
	if (!json_is_string(v) || zone_type(json_string_value(v), &type))
		return fail(c, g, "expected \"DMA\", \"DMA32\", \"Normal\" or \"Movable\"");
	snprintf(g, sizeof(g), "%s.start", f);
	if (!(v = json_object_get(z, "start")))
		return fail(c, g, "missing");
	if (get_addr(c, v, g, &start))
		return -1;
	snprintf(g, sizeof(g), "%s.end", f);
	if (!(v = json_object_get(z, "end")))
		return fail(c, g, "missing");
	if (get_addr(c, v, g, &end))
		return -1;
	if (end <= start)
		return fail(c, g, "must be above start");
	if (b->spec.nr_zones)
		prev = &b->zones[b->spec.nr_zones - 1];
	if (prev && start < prev->end_pfn) {
		snprintf(g, sizeof(g), "%s.start", f);
		return fail(c, g, "overlaps or precedes the zone before it (zones must ascend)");
	}
	if (prev && prev->node == nid && type <= prev->type) {
		snprintf(g, sizeof(g), "%s.type", f);
		return fail(c, g, "zone types must ascend within a node (DMA, DMA32, Normal, Movable)");
	}
	if (mpm_spec_add_zone(b, nid, type, start, end))
		return fail(c, f, "out of memory");
	return 0;
}

static int parse_node(struct jctx *c, size_t ni, json_t *n)
{
	static const char *const keys[] = { "id", "start", "zones", NULL };
	unsigned int nid = (unsigned int)ni;
	uint64_t id = 0, start = 0, prev_end;
	size_t zi;
	char f[64], g[96];
	json_t *v, *z;

	snprintf(f, sizeof(f), "nodes[%zu]", ni);
	if (!json_is_object(n))
		return fail(c, f, "expected an object");
	if (check_keys(c, n, f, keys))
		return -1;
	snprintf(g, sizeof(g), "%s.id", f);
	if ((v = json_object_get(n, "id"))) {
		if (get_uint(c, v, g, &id))
			return -1;
		if (id != ni)
			return fail(c, g, "is %llu; nodes must be listed in id order 0, 1, ...",
				    (unsigned long long)id);
	}
	prev_end = c->b->spec.nr_zones ? c->b->zones[c->b->spec.nr_zones - 1].end_pfn : 0;
	snprintf(g, sizeof(g), "%s.zones", f);
	v = json_object_get(n, "zones");
	if (!v)
		return fail(c, g, "missing");
	if (!json_is_array(v) || !json_array_size(v))
		return fail(c, g, "expected a non-empty array");
	if ((z = json_object_get(n, "start"))) {
		snprintf(g, sizeof(g), "%s.start", f);
		if (get_addr(c, z, g, &start))
			return -1;
		if (start < prev_end)
			return fail(c, g, "overlaps the node before it");
	}
	json_array_foreach(v, zi, z) {
		if (parse_zone(c, nid, zi, z))
			return -1;
	}
	if (start > c->b->zones[c->b->spec.nr_zones - json_array_size(v)].start_pfn) {
		snprintf(g, sizeof(g), "%s.start", f);
		return fail(c, g, "is above the node's first zone");
	}
	c->b->spec.node_start_pfn[nid] = start;
	c->b->spec.nr_nodes = nid + 1;
	return 0;
}

/* Index of the zone whose span holds [s, e), or -1. */
static int zone_of(const struct mpm_spec_buf *b, uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < b->spec.nr_zones; i++)
		if (s >= b->zones[i].start_pfn && e <= b->zones[i].end_pfn)
			return (int)i;
	return -1;
}

static int parse_holes(struct jctx *c, json_t *arr, uint64_t *hole_pages)
{
	static const char *const keys[] = { "start", "end", NULL };
	uint64_t prev_end = 0;
	size_t i;
	char f[48], g[64];
	json_t *h;

	if (!json_is_array(arr))
		return fail(c, "holes", "expected an array");
	json_array_foreach(arr, i, h) {
		uint64_t s, e;
		json_t *v;
		int zi;

		snprintf(f, sizeof(f), "holes[%zu]", i);
		if (!json_is_object(h))
			return fail(c, f, "expected an object");
		if (check_keys(c, h, f, keys))
			return -1;
		snprintf(g, sizeof(g), "%s.start", f);
		if (!(v = json_object_get(h, "start")))
			return fail(c, g, "missing");
		if (get_addr(c, v, g, &s))
			return -1;
		if (i && s < prev_end)
			return fail(c, g, "overlaps or precedes the hole before it (holes must ascend)");
		snprintf(g, sizeof(g), "%s.end", f);
		if (!(v = json_object_get(h, "end")))
			return fail(c, g, "missing");
		if (get_addr(c, v, g, &e))
			return -1;
		if (e <= s)
			return fail(c, g, "must be above start");
		zi = zone_of(c->b, s, e);
		if (zi < 0)
			return fail(c, f, "does not lie inside one zone");
		hole_pages[zi] += e - s;
		prev_end = e;
		if (mpm_spec_add_hole(c->b, s, e))
			return fail(c, f, "out of memory");
	}
	return 0;
}

static int parse_options(struct jctx *c, json_t *root)
{
	struct mpm_spec_buf *b = c->b;
	uint64_t u;
	char e[160];
	json_t *v;

	if ((v = json_object_get(root, "pageblock_order"))) {
		if (get_uint(c, v, "pageblock_order", &u))
			return -1;
		if (u != 9 && u != 10)
			return fail(c, "pageblock_order", "must be 9 or 10");
		b->src_pageblock_order = (unsigned int)u;
	}
	if ((v = json_object_get(root, "region_size"))) {
		if (get_bytes(c, v, "region_size", &u))
			return -1;
		/*
		 * Against the smallest pageblock only: --pageblock-order may still
		 * lower the file's, and the machine is checked once it is known
		 * (apply_options()).
		 */
		if (mpm_check_region_bytes(u, 9, e, sizeof(e)))
			return fail(c, "region_size", "%s", e);
		b->src_region_bytes = u;
	}
	if ((v = json_object_get(root, "region_align"))) {
		bool abs;

		if (!json_is_string(v) || mpm_parse_region_align(json_string_value(v), &abs))
			return fail(c, "region_align", "expected \"node\" or \"absolute\"");
		b->src_region_absolute = abs;
	}
	if ((v = json_object_get(root, "cpus"))) {
		if (get_uint(c, v, "cpus", &u))
			return -1;
		if (u < 1 || u > MPM_MAX_CPUS)
			return fail(c, "cpus", "must be 1..%d", MPM_MAX_CPUS);
		b->src_cpus = (unsigned int)u;
	}
	if ((v = json_object_get(root, "zonelist_order"))) {
		unsigned int order;

		if (!json_is_string(v) || mpm_parse_zonelist_order(json_string_value(v), &order))
			return fail(c, "zonelist_order", "expected \"default\", \"node\" or \"zone\"");
		b->src_zonelist_order = order;
	}
	if ((v = json_object_get(root, "description"))) {
		if (!json_is_string(v))
			return fail(c, "description", "expected a string");
		utf8_copy(b->description, sizeof(b->description), json_string_value(v));
	}
	return 0;
}

static int parse_root(struct jctx *c, json_t *root)
{
	static const char *const keys[] = {
		"description", "nodes", "holes", "region_size", "region_align",
		"pageblock_order", "cpus", "zonelist_order", NULL
	};
	uint64_t *hole_pages;
	size_t i;
	json_t *nodes, *n;
	int r = 0;

	if (!json_is_object(root))
		return fail(c, "(top level)", "expected an object");
	if (check_keys(c, root, "", keys) || parse_options(c, root))
		return -1;
	nodes = json_object_get(root, "nodes");
	if (!nodes)
		return fail(c, "nodes", "missing");
	if (!json_is_array(nodes) || !json_array_size(nodes))
		return fail(c, "nodes", "expected a non-empty array");
	if (json_array_size(nodes) > MPM_MAX_NUMNODES)
		return fail(c, "nodes", "more than %d nodes", MPM_MAX_NUMNODES);
	json_array_foreach(nodes, i, n) {
		if (parse_node(c, i, n))
			return -1;
	}
	hole_pages = calloc(c->b->spec.nr_zones, sizeof(*hole_pages));
	if (!hole_pages)
		return fail(c, "holes", "out of memory");
	if ((n = json_object_get(root, "holes")))
		r = parse_holes(c, n, hole_pages);
	for (i = 0; !r && i < c->b->spec.nr_zones; i++) {
		const struct mpm_zone_spec *z = &c->b->zones[i];

		if (hole_pages[i] == z->end_pfn - z->start_pfn) {
			char f[64];
			unsigned int first = 0;

			while (c->b->zones[first].node != z->node)
				first++;
			snprintf(f, sizeof(f), "nodes[%u].zones[%zu]", z->node, i - first);
			r = fail(c, f, "has no present pages (holes cover it)");
		}
	}
	free(hole_pages);
	return r;
}

int mpm_machine_json_load(const char *path, struct mpm_spec_buf *b,
			  char *err, size_t errlen)
{
	struct jctx c = {
		.path = path, .err = err, .errlen = errlen, .b = b,
	};
	json_error_t jerr;
	struct stat st;
	json_t *root;
	int r;

	/* a directory opens, and would read as an empty file */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory, not a machine file", path);
		return -1;
	}
	root = mpm_json_load_path(path, &jerr);
	if (!root) {
		if (jerr.line > 0)
			snprintf(err, errlen, "%s: line %d column %d: %s", path,
				 jerr.line, jerr.column, jerr.text);
		else
			snprintf(err, errlen, "%s: %s", path, jerr.text);
		return -1;
	}
	r = parse_root(&c, root);
	json_decref(root);
	if (!r && !b->description[0])
		utf8_copy(b->description, sizeof(b->description), path);
	return r;
}
