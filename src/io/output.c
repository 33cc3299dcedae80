// SPDX-License-Identifier: MIT
/*
 * The result files of run, stats, compare and bench (--json FILE, --csv
 * FILE).  A path is opened for writing before any work starts, so that a
 * missing directory, a directory, or a file that may not be written is
 * refused at once; but an existing file is not truncated until the results
 * are ready (mpm_output_start).  A command that fails therefore leaves the
 * user's file as it was, and removes only a file it created itself.
 */
#include "io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mpm_output_open(struct mpm_output *o, const char *path, const char *what, char *err,
		    size_t len)
{
	int fd;

	*o = (struct mpm_output){ .path = path, .what = what };
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	/* no O_TRUNC: an existing file keeps its contents until the results are in */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		o->created = fd >= 0;
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		errno = e;
	}
	if (!o->f) {
		int e = errno;

		if (o->created)
			unlink(path);
		o->created = false;
		snprintf(err, len, "cannot write %s file '%s': %s", what, path, strerror(e));
		return -1;
	}
	return 0;
}

int mpm_output_start(struct mpm_output *o, char *err, size_t len)
{
	struct stat st;

	if (!o->f || o->f == stdout)
		return 0;
	/* a FIFO or a device has nothing to truncate */
	if (fstat(fileno(o->f), &st) || (S_ISREG(st.st_mode) && ftruncate(fileno(o->f), 0))) {
		snprintf(err, len, "cannot write %s file '%s': %s", o->what, o->path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int mpm_output_close(struct mpm_output *o, bool failed)
{
	int r = 0;

	if (!o->f)
		return 0;
	if (o->f == stdout)
		r = fflush(stdout) ? -1 : 0;
	else if (fclose(o->f))
		r = -1;
	o->f = NULL;
	if (failed && o->created)
		unlink(o->path);
	return r;
}
