/* SPDX-License-Identifier: MIT */
/*
 * Command-line values, for every command's parser.  First, the value of an
 * option given as the next argument ("--json FILE"): an option there is not
 * a value, so "--json --check-every-op" lacks the file name rather than
 * naming a file "--check-every-op".  A value that does start with "--" can
 * still be given as "--json=--odd-name".  One dash is a value: "-" is
 * stdout, "-3" a number, "-evacuation" a feature removed.
 */
#ifndef MPM_IO_ARGV_H
#define MPM_IO_ARGV_H

#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* argv[*i + 1], moving *i on to it, or NULL (and *i unchanged) if it is no value. */
static inline const char *mpm_next_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc || !strncmp(argv[*i + 1], "--", 2))
		return NULL;
	return argv[++*i];
}

/*
 * Is the option name @arg (its first @len bytes, before any "=") one of the
 * flags listed, NULL-terminated?  A flag given a value ("--check=1") is
 * told that it takes none, instead of being called unknown.
 */
#define mpm_cli_is_flag(arg, len, ...) \
	mpm_name_in((arg), (len), (const char *const[]){ __VA_ARGS__, NULL })

static inline bool mpm_name_in(const char *arg, size_t len, const char *const *names)
{
	for (; *names; names++)
		if (strlen(*names) == len && !strncmp(arg, *names, len))
			return true;
	return false;
}

/*
 * In a "key=value,..." list (a workload's parameters, --power-policy) a key
 * given twice is a mistake, as in machine files, not "the last one wins".
 * The lists are at most 255 characters, so they hold fewer than 128 keys.
 */
#define MPM_MAX_KEYS	128

struct mpm_keys {
	const char *key[MPM_MAX_KEYS];
	unsigned int nr;
};

/* True if @key is in @k already; else it joins them. */
static inline bool mpm_key_repeated(struct mpm_keys *k, const char *key)
{
	for (unsigned int i = 0; i < k->nr; i++)
		if (!strcmp(k->key[i], key))
			return true;
	if (k->nr < MPM_MAX_KEYS)
		k->key[k->nr++] = key;
	return false;
}

/* A name ending in ".json", in any case: a JSON file whatever else exists. */
static inline bool mpm_arg_is_json_name(const char *s)
{
	size_t n = strlen(s);

	return n >= 5 && !strcasecmp(s + n - 5, ".json");
}

/* An existing regular file (not a directory, FIFO or device). */
static inline bool mpm_arg_is_regular_file(const char *s)
{
	struct stat st;

	return stat(s, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * A value that names a JSON file rather than a preset, as --power takes
 * them (after its presets): one ending in ".json" (any case), or an
 * existing regular file by any name.  --machine tries its presets and
 * sizes before the second (machine_spec.c: load_source).
 */
static inline bool mpm_arg_names_file(const char *s)
{
	return mpm_arg_is_json_name(s) || mpm_arg_is_regular_file(s);
}

#endif /* MPM_IO_ARGV_H */
