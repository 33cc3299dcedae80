// SPDX-License-Identifier: MIT
/*
 * Memspec files (docs/power-model.md, "Memspec files"): DRAMPower's JSON
 * layout, so its legacy memspecs load as they are.  Three sections,
 * memarchitecturespec, memtimingspec and mempowerspec; keys the model does
 * not use (I/O power, bank groups, ...) are ignored.  A value is a number in
 * DRAMPower's unit (mA, V, MHz, clock cycles) or a string "<number> <unit>".
 * Every error is one line naming the file and the field.
 */
#include "io/memspec_json.h"
#include "io/json_input.h"
#include "io/argv.h"
#include "io/utf8.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum kind { K_COUNT, K_CURRENT, K_VOLTAGE, K_FREQ, K_CLOCKS };

struct field {
	const char *section;
	const char *names[3];		/* the first is ours; others are DRAMPower's */
	enum kind kind;
	bool required;
	size_t off;			/* double or unsigned int in struct mpm_memspec */
};

#define D(f) offsetof(struct mpm_memspec, f)
#define ARCH "memarchitecturespec"
#define TIME "memtimingspec"
#define POW "mempowerspec"

static const struct field fields[] = {
	{ ARCH, { "width" }, K_COUNT, true, D(width) },
	{ ARCH, { "nbrOfBanks" }, K_COUNT, true, D(banks) },
	{ ARCH, { "nbrOfRows" }, K_COUNT, true, D(rows) },
	{ ARCH, { "nbrOfColumns" }, K_COUNT, true, D(columns) },
	{ ARCH, { "burstLength" }, K_COUNT, true, D(burst_length) },
	{ ARCH, { "dataRate" }, K_COUNT, true, D(data_rate) },
	{ TIME, { "clkMhz" }, K_FREQ, true, D(clk_mhz) },
	{ TIME, { "RC" }, K_CLOCKS, true, D(rc) },
	{ TIME, { "RAS" }, K_CLOCKS, true, D(ras) },
	{ TIME, { "RFC" }, K_CLOCKS, true, D(rfc) },
	{ TIME, { "REFI" }, K_CLOCKS, true, D(refi) },
	{ TIME, { "XP" }, K_CLOCKS, true, D(xp) },
	{ TIME, { "XS" }, K_CLOCKS, true, D(xs) },
	{ TIME, { "XPDLL" }, K_CLOCKS, false, D(xpdll) },
	{ TIME, { "XSDLL" }, K_CLOCKS, false, D(xsdll) },
	{ POW, { "idd0", "idd01" }, K_CURRENT, true, D(idd0) },
	{ POW, { "idd2n", "idd2n1" }, K_CURRENT, true, D(idd2n) },
	{ POW, { "idd2p", "idd2p0" }, K_CURRENT, true, D(idd2p) },
	{ POW, { "idd3n", "idd3n1" }, K_CURRENT, true, D(idd3n) },
	{ POW, { "idd3p", "idd3p0" }, K_CURRENT, true, D(idd3p) },
	{ POW, { "idd4r", "idd4r1" }, K_CURRENT, true, D(idd4r) },
	{ POW, { "idd4w", "idd4w1" }, K_CURRENT, true, D(idd4w) },
	{ POW, { "idd5", "idd51", "idd5b" }, K_CURRENT, true, D(idd5) },
	{ POW, { "idd6", "idd61" }, K_CURRENT, true, D(idd6) },
	{ POW, { "vdd", "vdd1" }, K_VOLTAGE, true, D(vdd) },
	{ POW, { "ipp0", "idd02" }, K_CURRENT, false, D(ipp0) },
	{ POW, { "ipp2n", "idd2n2" }, K_CURRENT, false, D(ipp2n) },
	{ POW, { "ipp2p", "idd2p02" }, K_CURRENT, false, D(ipp2p) },
	{ POW, { "ipp3n", "idd3n2" }, K_CURRENT, false, D(ipp3n) },
	{ POW, { "ipp3p", "idd3p02" }, K_CURRENT, false, D(ipp3p) },
	{ POW, { "ipp4r", "idd4r2" }, K_CURRENT, false, D(ipp4r) },
	{ POW, { "ipp4w", "idd4w2" }, K_CURRENT, false, D(ipp4w) },
	{ POW, { "ipp5", "idd52" }, K_CURRENT, false, D(ipp5) },
	{ POW, { "ipp6", "idd62" }, K_CURRENT, false, D(ipp6) },
	{ POW, { "vpp", "vdd2" }, K_VOLTAGE, false, D(vpp) },
};

struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 4, 5)))
static int fail(struct ctx *c, const char *section, const char *key, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (section)
		snprintf(c->err, c->errlen, "%s: %s.%s: %s", c->path, section, key, msg);
	else
		snprintf(c->err, c->errlen, "%s: %s", c->path, msg);
	return -1;
}

/* The factor from @unit to the kind's base unit; 0 if unknown. */
static double unit_factor(enum kind k, const char *unit)
{
	static const struct { enum kind k; const char *u; double f; } units[] = {
		{ K_CURRENT, "mA", 1 }, { K_CURRENT, "A", 1000 }, { K_CURRENT, "uA", 1e-3 },
		{ K_VOLTAGE, "V", 1 }, { K_VOLTAGE, "mV", 1e-3 },
		{ K_FREQ, "MHz", 1 }, { K_FREQ, "GHz", 1000 },
		{ K_CLOCKS, "clk", 1 }, { K_COUNT, "", 1 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].k == k && !strcmp(units[i].u, unit))
			return units[i].f;
	return 0;
}

/* A timing in ns or us becomes clocks once the clock is known. */
static int time_unit(const char *unit, double *ns)
{
	if (!strcmp(unit, "ns"))
		*ns = 1;
	else if (!strcmp(unit, "us"))
		*ns = 1000;
	else if (!strcmp(unit, "ps"))
		*ns = 1e-3;
	else
		return -1;
	return 0;
}

static int value(struct ctx *c, const struct field *f, const char *key, json_t *v,
		 double clk_mhz, double *out)
{
	const char *s, *num;
	char *end;
	double x, ns;

	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	/* a count has no unit: DRAMPower writes it as a bare number */
	if (f->kind == K_COUNT)
		return fail(c, f->section, key, "expected a whole number, not %s",
			    json_is_string(v) ? "a string" : "this value");
	if (!json_is_string(v))
		return fail(c, f->section, key, "expected a number or a \"<number> <unit>\" string");
	s = json_string_value(v);
	errno = 0;
	x = strtod(s, &end);
	/* decimal only: strtod also takes "0x320", "inf" and "nan" (after spaces) */
	num = s + strspn(s, " ");
	if (end == s || errno || !isfinite(x) || strspn(num, "+-.0123456789eE") < (size_t)(end - num))
		return fail(c, f->section, key, "malformed value '%s'", s);
	while (*end == ' ')
		end++;
	if (f->kind == K_CLOCKS && time_unit(end, &ns) == 0) {
		if (!(clk_mhz > 0))
			return fail(c, f->section, key, "a time in ns needs clkMhz above 0");
		/* JEDEC: round up to clocks, so a positive time is at least one */
		*out = ceil(x * ns * clk_mhz / 1000 - 1e-9);
		if (x > 0 && *out < 1)
			*out = 1;
		return 0;
	}
	if (!unit_factor(f->kind, end))
		return fail(c, f->section, key, "unknown unit '%s'", end);
	*out = x * unit_factor(f->kind, end);
	return 0;
}

static int load_field(struct ctx *c, json_t *root, const struct field *f,
		      struct mpm_memspec *s)
{
	json_t *sec = json_object_get(root, f->section), *v = NULL;
	const char *key = f->names[0];
	double x = 0;

	if (!json_is_object(sec))
		return fail(c, NULL, NULL, "%s: missing or not an object", f->section);
	for (int i = 0; i < 3 && f->names[i]; i++) {
		json_t *w = json_object_get(sec, f->names[i]);

		if (w && v)	/* two spellings of one figure: which is meant? */
			return fail(c, f->section, f->names[i], "given twice, also as '%s'", key);
		if (w) {
			v = w;
			key = f->names[i];
		}
	}
	if (!v) {
		if (f->required)
			return fail(c, f->section, f->names[0], "missing");
		return 0;
	}
	if (value(c, f, key, v, s->clk_mhz, &x))
		return -1;
	if (x < 0)
		return fail(c, f->section, key, "negative (%g)", x);
	if (f->kind == K_COUNT) {
		if (x != floor(x) || x < 1 || x > 1e9)
			return fail(c, f->section, key, "expected a whole number from 1 to 10^9");
		unsigned int u = (unsigned int)x;

		memcpy((char *)s + f->off, &u, sizeof(u));	/* the field at offsetof() */
	} else {
		memcpy((char *)s + f->off, &x, sizeof(x));
	}
	return 0;
}

/*
 * memoryId and memoryType, both optional (null as absent), are strings;
 * the name is printed in tables as it is, so it may hold no control
 * character: C0, DEL, or C1 (U+0080..U+009F, UTF-8 C2 80..C2 9F).
 */
static int name_field(struct ctx *c, const char *key, json_t **v)
{
	const unsigned char *s;

	if (json_is_null(*v))
		*v = NULL;
	if (!*v)
		return 0;
	if (!json_is_string(*v))
		return fail(c, NULL, NULL, "%s: expected a string", key);
	for (s = (const unsigned char *)json_string_value(*v); *s; s++) {
		unsigned int cp = *s;

		if (cp == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
			cp = s[1];
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			return fail(c, NULL, NULL, "%s: a control character (U+%04X) in a name",
				    key, cp);
	}
	return 0;
}

int mpm_memspec_load(const char *path, struct mpm_memspec *s, char *err, size_t errlen)
{
	struct ctx c = { path, err, errlen };
	json_error_t je;
	json_t *root, *id, *type;
	struct stat st;
	char msg[256];
	int r = -1;

	memset(s, 0, sizeof(*s));
	/* a directory opens, and would read as an empty file */
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return fail(&c, NULL, NULL, "is a directory, not a memspec file");
	root = mpm_json_load_path(path, &je);
	if (!root) {
		if (je.line < 0)
			return fail(&c, NULL, NULL, "%s", je.text);
		return fail(&c, NULL, NULL, "line %d column %d: %s", je.line, je.column, je.text);
	}
	if (!json_is_object(root)) {
		fail(&c, NULL, NULL, "expected a JSON object");
		goto out;
	}
	id = json_object_get(root, "memoryId");
	type = json_object_get(root, "memoryType");
	if (name_field(&c, "memoryId", &id) || name_field(&c, "memoryType", &type))
		goto out;
	if (id)
		utf8_copy(s->name, sizeof(s->name), json_string_value(id));
	else
		utf8_copy_tail(s->name, sizeof(s->name), path);
	/* DDR3's IDD2P0 power-down stops the DLL; DDR4 has no such mode */
	s->pd_dll_off = type && !strncasecmp(json_string_value(type), "DDR3", 4);
	utf8_copy_tail(s->source, sizeof(s->source), path);
	/* the clock first: timings in ns need it */
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].kind == K_FREQ && load_field(&c, root, &fields[i], s))
			goto out;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].kind != K_FREQ && load_field(&c, root, &fields[i], s))
			goto out;
	if (mpm_memspec_check(s, msg, sizeof(msg))) {
		fail(&c, NULL, NULL, "%s", msg);
		goto out;
	}
	r = 0;
out:
	json_decref(root);
	return r;
}

int mpm_memspec_resolve(const char *name, struct mpm_memspec *s, char *err, size_t errlen)
{
	const struct mpm_memspec *p = mpm_memspec_preset(name);

	if (p) {
		*s = *p;
		return 0;
	}
	if (mpm_arg_names_file(name))
		return mpm_memspec_load(name, s, err, errlen);
	snprintf(err, errlen, "unknown memspec '%s' (expected %s, or a .json file)", name,
		 mpm_memspec_preset_names());
	return -1;
}
