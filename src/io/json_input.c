// SPDX-License-Identifier: MIT
/* Reading a JSON input file without blocking in open(2) (json_input.h). */
#include "io/json_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

json_t *mpm_json_load_path(const char *path, json_error_t *jerr)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int flags;
	json_t *root;
	FILE *f;

	if (fd < 0) {
		memset(jerr, 0, sizeof(*jerr));
		jerr->line = jerr->column = -1;
		snprintf(jerr->text, sizeof(jerr->text), "unable to open %s: %s", path,
			 strerror(errno));
		return NULL;
	}
	/* blocking reads again: a writer that is slow to start is waited for */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	/* through stdio: json_loadfd() reads one byte per read(2), 1.5 s per MB */
	f = fdopen(fd, "r");
	if (!f) {
		memset(jerr, 0, sizeof(*jerr));
		jerr->line = jerr->column = -1;
		snprintf(jerr->text, sizeof(jerr->text), "unable to read %s: %s", path,
			 strerror(errno));
		close(fd);
		return NULL;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, jerr);
	fclose(f);
	return root;
}
