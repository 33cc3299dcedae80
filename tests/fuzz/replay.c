// SPDX-License-Identifier: MIT
/*
 * Run a fuzz target over files and directories of inputs, each once, in
 * name order: the corpus as a regression test in builds without libFuzzer.
 * Exit status 0 when every input ran; a broken contract aborts.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX_BYTES	(1u << 20)

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	buf = malloc(REPLAY_MAX_BYTES);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, REPLAY_MAX_BYTES, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_dir(const char *dir, unsigned int *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, by_name), ret = 0;
	char path[4096];

	if (n < 0) {
		fprintf(stderr, "replay: cannot read %s\n", dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && !ret) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			ret = run_file(path);
			(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		int r;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: cannot stat %s\n", argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			r = run_dir(argv[i], &count);
		} else {
			r = run_file(argv[i]);
			count++;
		}
		if (r)
			return 1;
	}
	if (!count) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	printf("replay: %u inputs, all ran\n", count);
	return 0;
}
