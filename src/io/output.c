// SPDX-License-Identifier: MIT
/*
 * The result files of run, stats, compare and bench (--json FILE, --csv
 * FILE).  A path is opened for writing before any work starts, so that a
 * missing directory, a directory, or a file that may not be written is
 * refused at once; but an existing file keeps its contents until the
 * results are written out whole.  A regular file is written to a temporary
 * file beside it (mkstemp on "PATH.XXXXXX", the existing file's mode) and
 * renamed over it by close(); a symbolic link is followed, so the file it
 * names is replaced, not the link.  Where no temporary file can be made
 * (the directory is not ours to write) or the path is not a regular file
 * (a FIFO, /dev/stdout), the file is written in place, truncated by
 * start() once the results are ready.  A command that fails therefore
 * leaves the user's file as it was, and removes only a file it created.
 */
#include "io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Open a temporary file beside the regular file @st describes, open as
 * @fd, with its mode.  Returns its descriptor, or -1 (then the caller
 * writes in place).
 */
static int open_temporary(struct mpm_output *o, const struct stat *st)
{
	size_t len;
	int fd;

	o->target = realpath(o->path, NULL);
	if (!o->target)
		return -1;
	len = strlen(o->target);
	o->tmp = malloc(len + sizeof(".XXXXXX"));
	if (!o->tmp)
		goto fail;
	memcpy(o->tmp, o->target, len);
	memcpy(o->tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(o->tmp);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, st->st_mode & 07777) == 0)
		return fd;
	close(fd);
	unlink(o->tmp);
fail:
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return -1;
}

static void set_identity(struct mpm_output *o, const struct stat *st)
{
	o->dev = st->st_dev;
	o->ino = st->st_ino;
	o->regular = S_ISREG(st->st_mode);
}

int mpm_output_open(struct mpm_output *o, const char *path, const char *what, char *err,
		    size_t len)
{
	struct stat st;
	int fd, e;

	*o = (struct mpm_output){ .path = path, .what = what };
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		if (!fstat(STDOUT_FILENO, &st))
			set_identity(o, &st);
		return 0;
	}
	/* no O_TRUNC: an existing file keeps its contents until the results are in */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		o->created = fd >= 0;
	}
	if (fd >= 0 && !fstat(fd, &st)) {
		int tmp = S_ISREG(st.st_mode) ? open_temporary(o, &st) : -1;

		set_identity(o, &st);
		if (tmp >= 0) {
			close(fd);
			fd = tmp;
		}
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		errno = e;
	}
	if (!o->f) {
		e = errno;
		if (o->tmp)
			unlink(o->tmp);
		if (o->created)
			unlink(path);
		free(o->tmp);
		free(o->target);
		*o = (struct mpm_output){ .path = path, .what = what };
		snprintf(err, len, "cannot write %s file '%s': %s", what, path, strerror(e));
		return -1;
	}
	return 0;
}

int mpm_output_start(struct mpm_output *o, char *err, size_t len)
{
	struct stat st;

	if (!o->f || o->f == stdout || o->tmp)
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
	int r = 0, e = 0;

	if (!o->f)
		return 0;
	if (o->f == stdout)
		r = fflush(stdout) ? -1 : 0;
	else if (fclose(o->f))
		r = -1;
	o->f = NULL;
	if (o->tmp) {
		/* the whole result, or the old file untouched */
		if (!failed && !r && rename(o->tmp, o->target))
			r = -1;
		e = errno;
		if (failed || r)
			unlink(o->tmp);
		free(o->tmp);
		free(o->target);
		o->tmp = o->target = NULL;
		errno = e;
	}
	if (failed && o->created)
		unlink(o->path);
	return r;
}

/* Two devices (/dev/null twice) may take both; one file or stdout may not. */
bool mpm_output_same(const struct mpm_output *a, const struct mpm_output *b)
{
	if (!a->f || !b->f)
		return false;
	if (a->f == stdout && b->f == stdout)
		return true;
	return a->regular && b->regular && a->dev == b->dev && a->ino == b->ino;
}
